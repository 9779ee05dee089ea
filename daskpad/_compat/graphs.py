"""The one door to dask's internals.

Everything daskpad needs from dask beyond its public collection API (``dask.array``'s
functions, ``tokenize``, ``dask.config``) is a small primitive here or in
:mod:`daskpad._compat.lazy_layers` (graph layers made on demand): picked arrays, tasks,
renamed and copied graphs, the block index of a blockwise task, the layers of a classic
graph, and the local scheduler's progress. Each primitive works with dask's classic graphs
and with its array query planning (array-expr); a dask upgrade that moves an internal
should touch these modules only. ``tests/compat/test_dask.py`` checks each primitive in
both graph modes, and that no other module reaches past this door.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import operator
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack, cast

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array
from dask.delayed import Delayed
from dask.highlevelgraph import Layer
from dask.layers import ArrayBlockIdDep as ArrayBlockIdDep  # (chunk_index's, for core.grid)
from dask.typing import Graph, Key

from daskpad._compat.tasks import culled

if TYPE_CHECKING:
    from dask._task_spec import Alias, GraphNode, Task

Chunks = tuple[tuple[int, ...], ...]
#: Where a block comes from: the key of the block a picked array's block ``index`` is.
KeyOf = Callable[[tuple[int, ...]], Hashable]


def query_planning() -> bool:
    """Whether dask arrays are array-expr collections (``array.query-planning``)."""
    try:
        # (dask 2025.4 has none: the ImportError below)
        from dask.array import array_expr_enabled  # type: ignore[attr-defined, unused-ignore]
    except ImportError:  # older dask: classic graphs only
        return False
    return bool(array_expr_enabled())


@dataclass(frozen=True)
class Shifted:
    """Where a picked grid holds another array's blocks as they are: block ``i`` with
    ``first[a] <= i[a] < stop[a]`` along every axis is block ``i - first`` of ``name``
    (a padded array's interior)."""

    name: str
    first: tuple[int, ...]
    stop: tuple[int, ...]

    def holds(self, index: tuple[int, ...]) -> bool:
        """Whether block ``index`` of the grid is one of ``name``'s, as it is."""
        return all(map(operator.le, self.first, index)) and all(map(operator.lt, index, self.stop))

    def key(self, index: tuple[int, ...]) -> tuple[str, Unpack[tuple[int, ...]]]:
        """The key of ``name``'s block at block ``index`` of the grid (one it holds)."""
        return (self.name, *map(operator.sub, index, self.first))

    def aliases(self, name: str) -> Iterator[tuple[Key, Alias]]:
        """``(key, Alias)`` of every block of the grid ``name`` within the shifted part
        (the grid's indices and ``self.name``'s counted side by side, not subtracted per
        block: 10^6 of them are made whenever the interior is materialised)."""
        from dask._task_spec import Alias

        grid = itertools.product(*map(range, self.first, self.stop))
        own = itertools.product(*map(range, map(operator.sub, self.stop, self.first)))
        for index, at in zip(grid, own):
            key: Key = (name, *index)
            yield key, Alias(key, (self.name, *at))

    def outside(self, grid: Sequence[int]) -> Iterator[tuple[int, ...]]:
        """The blocks of ``grid`` outside the shifted part, each once (by the first axis
        along which it is outside)."""
        for a, n in enumerate(grid):
            inside = map(range, self.first[:a], self.stop[:a])
            out = [i for i in range(n) if not self.first[a] <= i < self.stop[a]]
            yield from itertools.product(*inside, out, *map(range, grid[a + 1 :]))


def aliases_of(
    name: str, blocks: Iterable[tuple[int, ...]], source: KeyOf
) -> Iterator[tuple[Key, Alias]]:
    """``(key, Alias)`` of each block of the grid ``name`` in ``blocks``: dask's alias of
    the key ``source`` gives for it."""
    from dask._task_spec import Alias

    for b in blocks:
        key: Key = (name, *b)
        yield key, Alias(key, source(b))  # type: ignore[arg-type]


def shipped_aliases(name: str, shifted: Shifted, outside: dict[Key, Alias]) -> Layer:
    """A picked layer as a scheduler gets it: its aliases, those of the shifted part made
    here from ``shifted`` rather than shipped one by one."""
    from dask.highlevelgraph import MaterializedLayer

    dsk = dict(outside)
    with _collector_paused():
        dsk.update(shifted.aliases(name))
    return MaterializedLayer(dsk)


def picked_array(
    name: str,
    chunks: Chunks,
    *,
    source: KeyOf,
    dependencies: Sequence[da.Array],
    meta: object,
    shifted: Shifted | None = None,
) -> da.Array:
    """A classic-graph array named ``name`` whose block ``index`` is the block under key
    ``source(index)`` of one of ``dependencies``, picked as it is (never copied);
    ``shifted``, where given, says which blocks ``source`` finds by a shift of their index.

    Each block is dask's ``Alias`` of the picked key, made when the graph is materialised
    (:class:`_PickedLayer`), as ``dask.array.concatenate`` makes them: dask's linear fusion
    then joins the picked key's task, the alias and a blockwise consumer (a reduction's
    first step, an elementwise operation) into one task with one subgraph. (A
    ``Blockwise`` layer, which dask fuses its consumer into, nests that fused subgraph in a
    second one around the input's task: a ``dask.order`` of its own each time a block runs.)
    """
    from dask.highlevelgraph import HighLevelGraph

    layer = _PickedLayer(_Pick(name, tuple(len(c) for c in chunks), source, shifted))
    graph = HighLevelGraph.from_collections(
        name,
        layer,
        dependencies=list(dependencies),  # type: ignore[arg-type]
    )
    return da.Array(graph, name, chunks, meta=meta_from_array(meta, ndim=len(chunks)))


# (The classes of a picked array's layer are module-level, their data on instances: dask
# caches the classes it tokenizes, and a class made per call would keep its array's graph,
# and the files the graph reads, alive to the interpreter's exit.)


@dataclass(frozen=True)
class _Pick:
    """What :func:`picked_array` picks: the layer's name and block grid, the key of each
    block, and which blocks a shift finds."""

    name: str
    grid: tuple[int, ...]
    source: KeyOf
    shifted: Shifted | None


class _PickedLayer(Layer):
    """A picked array's layer (one of dask's graph layers): the alias of one block when
    asked for it; culled, the aliases of the blocks asked for; all of them at once only
    when dask materialises the whole layer (those of the shifted part made from the shift,
    with Python's cyclic collector paused: 10^6 of them take about a second)."""

    def __init__(self, pick: _Pick):
        super().__init__()
        self.pick = pick
        self._all: dict[Key, Alias] | None = None

    def _index(self, key: object) -> tuple[int, ...] | None:
        """The block index of ``key``, or None where ``key`` is not one of the layer's."""
        p = self.pick
        if not (isinstance(key, tuple) and len(key) == len(p.grid) + 1 and key[0] == p.name):
            return None
        index = key[1:]
        if not all(isinstance(i, (int, np.integer)) and 0 <= i < n for i, n in zip(index, p.grid)):
            return None
        return tuple(int(i) for i in index)

    def _made(self) -> dict[Key, Alias]:
        if self._all is None:
            p = self.pick
            dsk: dict[Key, Alias] = {}
            blocks: Iterable[tuple[int, ...]] = itertools.product(*map(range, p.grid))
            with _collector_paused():
                if p.shifted is not None:
                    dsk.update(p.shifted.aliases(p.name))
                    blocks = p.shifted.outside(p.grid)
                dsk.update(aliases_of(p.name, blocks, p.source))
            self._all = dsk
        return self._all

    def __getitem__(self, key: Key) -> Alias:
        if self._all is not None:
            # materialised: dask's dict(layer) asks for every key it has just iterated
            # over, so a key the layer made itself is answered from its dict (another
            # equal to it, such as one with a float index, is checked below)
            try:
                alias = self._all.get(key)
            except TypeError:  # unhashable: not a key
                alias = None
            if alias is not None and alias.key is key:
                return alias
        index = self._index(key)
        if index is None:
            raise KeyError(key)
        if self._all is not None:
            return self._all[(self.pick.name, *index)]
        ((_, alias),) = aliases_of(self.pick.name, [index], self.pick.source)
        return alias

    def __contains__(self, key: object) -> bool:
        return self._index(key) is not None

    def __iter__(self) -> Iterator[Key]:
        return iter(self._made())

    def __len__(self) -> int:
        return int(np.prod(self.pick.grid, dtype=np.int64))

    def is_materialized(self) -> bool:
        return self._all is not None

    @property
    def has_legacy_tasks(self) -> bool:  # type: ignore[override,unused-ignore]
        return False  # (dask's aliases, not tuples: asking would materialise the layer)

    def get_output_keys(self) -> set[Key]:
        p = self.pick
        return {(p.name, *index) for index in itertools.product(*map(range, p.grid))}

    def cull(
        self, keys: set[Key], all_hlg_keys: Collection[Key]
    ) -> tuple[Layer, Mapping[Key, set[Key]]]:
        from dask.highlevelgraph import MaterializedLayer

        out = {k: self[k] for k in keys if k in self}
        deps = {k: set(alias.dependencies) for k, alias in out.items()}
        return MaterializedLayer(out, annotations=self.annotations), deps

    def __reduce__(self) -> tuple[object, ...]:
        # what picks the keys does not pickle; the aliases it makes do, those of the
        # shifted part (the interior) as the few numbers that make them
        from dask.highlevelgraph import MaterializedLayer

        p = self.pick
        if p.shifted is None:
            return (MaterializedLayer, (self._made(),))
        outside = dict(aliases_of(p.name, p.shifted.outside(p.grid), p.source))
        return (shipped_aliases, (p.name, p.shifted, outside))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused: making 10^6 small graph nodes (no cycles
    among them) otherwise runs it over and over, which takes most of the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def task(key: Hashable, func: Callable[..., object], /, *args: object, **kwargs: Any) -> Task:
    """The task computing ``func(*args, **kwargs)`` under ``key``, the arguments taken as
    values (a task reading other keys is written as dask's tuple ``(func, key, ...)``)."""
    from dask._task_spec import Task

    return Task(key, func, *args, **kwargs)


def chunk_index(n: int) -> ArrayBlockIdDep:
    """A ``blockwise`` argument of ``n`` chunks of one that hands the task of chunk ``i``
    the index ``(i,)``, in both graph modes: dask's block-id dependency, which is no task
    at all (``blockwise`` takes it with ``align_arrays=False``). A task per chunk would be
    a root shared by every face block's task (a root per chunk, as with ``arange``, makes
    dask's ordering slow for thousands of chunks), and a dependency that stops dask's
    linear fusion at every pad block: a statistic's task could not join the pad block
    made from it."""
    return ArrayBlockIdDep(((1,) * n,))


# --------------------------------------------------------------------------------------
# renamed graphs and copies
# --------------------------------------------------------------------------------------


def renamed(dsk: Graph, suffix: str) -> tuple[dict[Key, GraphNode], Callable[[Hashable], Key]]:
    """The graph ``dsk`` (any form dask accepts) with every key renamed by appending
    ``suffix`` to its name, and the renaming function for keys."""
    from dask._task_spec import convert_legacy_graph

    graph = convert_legacy_graph(dict(dsk))
    names: dict[Hashable, str] = {}

    def new_name(name: Hashable) -> str:
        new = names.get(name)
        if new is None:
            new = names[name] = f"{name}-{suffix}"
        return new

    def rename(key: Hashable) -> Key:  # (not recursive: a closure calling itself is a cycle)
        return (new_name(key[0]), *key[1:]) if isinstance(key, tuple) else new_name(key)

    subs = {key: rename(key) for key in graph}
    return {subs[key]: node.substitute(subs, key=subs[key]) for key, node in graph.items()}, rename


def copy_of(x: da.Array, suffix: str) -> da.Array:
    """``x`` computed again under keys no other array uses: its graph materialised, every
    key renamed by ``suffix``. (dask's ``clone`` is lazy, but in dask 2026.8 its copies of
    materialised layers keep the old keys inside their tasks, and a copy of
    ``arange(...) + 1`` or of a rechunked array then fails in dask's optimiser.)"""
    from dask.core import flatten

    graph, rename = renamed(x.__dask_graph__(), suffix)
    keys = [rename(key) for key in flatten(x.__dask_keys__())]
    meta = meta_from_array(x._meta, ndim=x.ndim)
    if query_planning():
        from dask.array._array_expr._collection import from_graph

        return cast(
            "da.Array", from_graph(graph, meta, x.chunks, keys, f"{x.name.split('-')[0]}-copy")
        )
    from dask.highlevelgraph import HighLevelGraph

    name = rename(x.name)
    layered = HighLevelGraph.from_collections(name, graph, dependencies=[])  # type: ignore[arg-type]
    return da.Array(layered, name, x.chunks, meta=meta)


def optimized_graph(
    collections: Sequence[object], keys: Sequence[Hashable] | None = None
) -> tuple[Graph, list[Hashable]]:
    """The graph computing ``collections``, optimised as ``dask.compute`` does, and the
    keys of their results in order; with ``keys`` (some of the one collection's
    ``__dask_keys__()``), the graph computing only those, culled before it is optimised
    where the graph is classic (an array-expr collection's optimised keys are not its
    own: its graph is optimised whole, then culled to the keys in the same places)."""
    from dask.base import collections_to_expr
    from dask.core import flatten

    if keys is not None:
        (x,) = collections
        if not query_planning():
            dsk = x.__dask_optimize__(x.__dask_graph__(), list(keys))  # type: ignore[attr-defined]
            return dsk, list(keys)
        dsk, optimised = optimized_graph([x])
        where = {k: i for i, k in enumerate(flatten(x.__dask_keys__()))}  # type: ignore[attr-defined]
        mine = [optimised[where[k]] for k in keys]
        from dask._task_spec import convert_legacy_graph

        return cast("Graph", culled(convert_legacy_graph(dict(dsk)), mine)), mine
    expr = collections_to_expr(list(collections), optimize_graph=True).optimize()
    return expr.__dask_graph__(), list(flatten(expr.__dask_keys__()))


def flatten_keys(keys: object) -> Iterator[Hashable]:
    """The keys of a collection's ``__dask_keys__()`` (nested lists), in order."""
    from dask.core import flatten

    return iter(flatten(keys))


# --------------------------------------------------------------------------------------
# the layers of a classic graph
# --------------------------------------------------------------------------------------


def layer_dependencies(x: da.Array) -> Mapping[str, set[str]] | None:
    """Which layers each layer of ``x``'s graph reads, or None for a graph without layers
    (query planning, or a plain mapping)."""
    from dask.highlevelgraph import HighLevelGraph

    graph = x.__dask_graph__()
    return graph.dependencies if isinstance(graph, HighLevelGraph) else None


#: the key of daskpad's mark in a layer's collection annotations (dask keeps those out of
#: the scheduler and out of its fusion rules)
MARK = "daskpad"


def marked(x: da.Array, mark: str) -> da.Array:
    """``x`` with ``mark`` on the layer that makes its blocks, for :func:`marked_layers`
    to find; a graph without layers (query planning) has no such place, and ``x`` is
    returned as it is."""
    import copy

    from dask.highlevelgraph import HighLevelGraph

    if query_planning():  # (asking an expression for its graph would materialise it)
        return x
    graph = x.__dask_graph__()
    if not isinstance(graph, HighLevelGraph) or x.name not in graph.layers:
        return x
    layer = copy.copy(graph.layers[x.name])
    layer.collection_annotations = {**(layer.collection_annotations or {}), MARK: mark}
    layers = {**graph.layers, x.name: layer}
    return da.Array(
        HighLevelGraph(layers, dict(graph.dependencies)), x.name, x.chunks, meta=x._meta
    )


def marked_layers(x: da.Array, mark: str) -> set[str] | None:
    """The layers of ``x``'s graph that carry ``mark`` (:func:`marked`), or None for a graph
    without layers."""
    from dask.highlevelgraph import HighLevelGraph

    if query_planning():
        return None
    graph = x.__dask_graph__()
    if not isinstance(graph, HighLevelGraph):
        return None
    return {
        name
        for name, layer in graph.layers.items()
        if (getattr(layer, "collection_annotations", None) or {}).get(MARK) == mark
    }


def layer_keys(x: Any, name: str) -> list[Hashable]:
    """The keys of layer ``name`` of ``x``'s (layered) graph."""
    return list(x.__dask_graph__().layers[name].get_output_keys())


def key_values(x: da.Array, name: str, keys: Sequence[Hashable]) -> list[Delayed]:
    """Delayed objects computing ``keys`` of layer ``name`` of ``x``'s graph."""
    graph = x.__dask_graph__()
    return [Delayed(key, graph, layer=name) for key in keys]


def with_values(x: Any, layers: Mapping[str, Mapping[Hashable, object]]) -> Any:
    """``x`` with layers of its (layered) graph replaced by the given values of their keys
    (layers then without dependencies)."""
    from dask.highlevelgraph import HighLevelGraph, MaterializedLayer

    if not layers:
        return x
    graph = x.__dask_graph__()
    new = {**graph.layers, **{n: MaterializedLayer(dict(v)) for n, v in layers.items()}}
    needs = {name: set() if name in layers else set(d) for name, d in graph.dependencies.items()}
    return da.Array(HighLevelGraph(new, needs), x.name, x.chunks, meta=x._meta)
