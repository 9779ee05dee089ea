"""Reading facts out of dask graphs: which input blocks an output block reads, how many
tasks compute something and how many are mere key-to-key aliases."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import dask
import dask.array as da
import numpy as np
from dask.core import get_dependencies

#: keywords that make each mode's pads depend on its arguments, for graph facts run over
#: every mode
MODE_KWARGS: dict[str, dict[str, Any]] = {
    "constant": {"constant_values": 2.5},
    "linear_ramp": {"end_values": 1.0},
    "maximum": {"stat_length": 3},
    "mean": {"stat_length": 3},
    "median": {"stat_length": 3},
    "minimum": {"stat_length": 3},
}


def graph_of(x: da.Array) -> dict[Hashable, Any]:
    return dict(x.__dask_graph__())


def is_alias(graph: dict[Hashable, Any], value: Any) -> bool:
    """A task that only renames another key (classic tuple-key alias, or an ``Alias`` node,
    as every block of :func:`daskpad._compat.graphs.picked_array` is)."""
    if type(value).__name__ == "Alias":
        return True
    try:
        return isinstance(value, (tuple, str)) and value in graph
    except TypeError:
        return False


def alias_of(graph: dict[Hashable, Any], value: Any) -> Hashable | None:
    """The key an alias (:func:`is_alias`) stands for, or ``None`` for any other task."""
    if not is_alias(graph, value):
        return None
    if type(value).__name__ == "Alias":
        return value.target
    return value


def added_tasks(x: da.Array, y: da.Array) -> tuple[int, int]:
    """``(work, aliases)``: tasks in ``y``'s graph that are not in ``x``'s."""
    gx, gy = graph_of(x), graph_of(y)
    new = [key for key in gy if key not in gx]
    aliases = sum(is_alias(gy, gy[key]) for key in new)
    return len(new) - aliases, aliases


def input_blocks_read(y: da.Array, x: da.Array) -> dict[tuple[int, ...], set[tuple[int, ...]]]:
    """For every output block of ``y``, the set of ``x``'s block indices it depends on."""
    graph = graph_of(y)
    x_name = x.name
    memo: dict[Hashable, frozenset[tuple[int, ...]]] = {}

    def reads(key: Hashable) -> frozenset[tuple[int, ...]]:
        if key in memo:
            return memo[key]
        if isinstance(key, tuple) and key[0] == x_name:
            found = frozenset([tuple(key[1:])])
        else:
            found = frozenset().union(*(reads(d) for d in get_dependencies(graph, key)))
        memo[key] = found
        return found

    return {tuple(key[1:]): set(reads(key)) for key in _flat_keys(y)}


def generated(data: np.ndarray, chunks: Any) -> da.Array:
    """``data`` as a dask array whose every block is made by its own task from nothing the
    graph holds (a leaf key per block), as a lazily read source is."""
    return da.ones(data.shape, chunks=chunks).map_blocks(
        lambda b, d=data, block_info=None: d[
            tuple(slice(*loc) for loc in block_info[None]["array-location"])
        ],
        dtype=data.dtype,
        meta=np.empty((0,) * data.ndim, dtype=data.dtype),
    )


def leaves_read(graph: dict[Hashable, Any], key: Hashable, stop: str) -> set[Hashable]:
    """The keys without dependencies that ``key`` reads, directly or not, other than
    through keys whose names start with ``stop`` (``key``'s own layer, say)."""
    seen: set[Hashable] = set()
    todo, leaves = [key], set()
    while todo:
        k = todo.pop()
        if k in seen or (k != key and isinstance(k, tuple) and str(k[0]).startswith(stop)):
            continue
        seen.add(k)
        deps = get_dependencies(graph, k)
        if not deps:
            leaves.add(k)
        todo.extend(deps)
    return leaves


def blocks_as_computed(y: da.Array) -> dict[tuple[int, ...], Any]:
    """Every block of ``y`` by its index, as its task returns it (before dask joins the
    blocks into one result, which copies them)."""
    keys = _flat_keys(y)
    values = dask.get(graph_of(y), keys)
    return {tuple(key[1:]): value for key, value in zip(keys, values)}


def _flat_keys(y: da.Array) -> list[tuple[Any, ...]]:
    keys = y.__dask_keys__()
    out: list[tuple[Any, ...]] = []

    def walk(k: Any) -> None:
        if isinstance(k, list):
            for item in k:
                walk(item)
        else:
            out.append(k)

    walk(keys)
    return out


def subgraph_depth(node: Any) -> int:
    """How deeply dask's fused subgraphs nest in a task: 0 for a plain task, 1 for a task
    running one subgraph (``_execute_subgraph``: dask orders and runs a graph inside the
    task), 2 for a subgraph holding another, and so on."""
    from dask._task_spec import Task

    if not isinstance(node, Task):
        return 0
    if node.has_subgraph():
        return 1 + max((subgraph_depth(t) for t in node.args[0].values()), default=0)
    inner = [*node.args, *node.kwargs.values()]
    return max((subgraph_depth(t) for t in inner), default=0)


def deepest_nesting(*collections: Any) -> int:
    """The deepest :func:`subgraph_depth` of any task of the graph ``dask.compute`` runs
    for ``collections`` (optimised as it optimises them)."""
    from dask._task_spec import convert_legacy_graph

    from daskpad._compat.graphs import optimized_graph

    dsk, _keys = optimized_graph(list(collections))
    return max((subgraph_depth(t) for t in convert_legacy_graph(dict(dsk)).values()), default=0)
