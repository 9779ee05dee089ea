"""Picking a picked array's blocks again (:func:`repicked_through`), some of them through
a function first: the door's way to change a few blocks of a pad without a layer over the
others."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import dask.array as da
from dask.typing import Key

from daskpad._compat.graphs import KeyOf, _Pick, _PickedLayer


def repicked_through(
    x: da.Array,
    name: str,
    indices: Collection[tuple[int, ...]],
    func: Callable[..., object],
    **kwargs: Any,
) -> da.Array | None:
    """``x``, a picked array (:func:`picked_array`), picked again as ``name``: the blocks
    at ``indices`` passed through ``func(block, **kwargs)`` first, a task each, the others
    as ``x`` picks them. None where ``x`` is no picked array or ``indices`` reach into its
    shifted part."""
    from dask._task_spec import Task, TaskRef
    from dask.highlevelgraph import HighLevelGraph, MaterializedLayer

    graph = x.__dask_graph__()
    if not isinstance(graph, HighLevelGraph):
        return None
    layer = graph.layers.get(x.name)
    if not isinstance(layer, _PickedLayer):
        return None
    p = layer.pick
    if p.shifted is not None and not set(indices) <= set(p.shifted.outside(p.grid)):
        return None
    through = f"{name}-through"
    tasks = {
        (through, *i): Task((through, *i), func, TaskRef(cast(Key, p.source(i))), **kwargs)
        for i in indices
    }
    keys = {i: (through, *i) for i in indices}
    pick = _Pick(name, p.grid, _Overridden(p.source, keys), p.shifted)
    # (x's own layer is left out: the new one picks what it picked); each layer declares
    # the layers its tasks read, as dask's HighLevelGraph.validate asks
    below = set(graph.dependencies[x.name])
    layers = {n: v for n, v in graph.layers.items() if n != x.name}
    dependencies = {n: set(d) for n, d in graph.dependencies.items() if n != x.name}
    others: Iterable[tuple[int, ...]] = itertools.product(*map(range, p.grid))
    picked = {through}
    if p.shifted is not None:
        others = p.shifted.outside(p.grid)
        if all(map(operator.lt, p.shifted.first, p.shifted.stop)):
            picked.add(p.shifted.name)
    picked |= _layers_of((p.source(i) for i in others if i not in keys), below)
    new = HighLevelGraph(
        {**layers, through: MaterializedLayer(tasks), name: _PickedLayer(pick)},
        {
            **dependencies,
            through: _layers_of((p.source(i) for i in indices), below),
            name: picked,
        },
    )
    return da.Array(new, name, x.chunks, meta=x._meta)


def _layers_of(keys: Iterable[Hashable], layers: set[str]) -> set[str]:
    """The layers among ``layers`` that hold ``keys`` (an array's block key is named for
    its layer); all of ``layers`` where a key is named otherwise."""
    found = {str(key[0]) if isinstance(key, tuple) else str(key) for key in keys}
    return found if found <= layers else set(layers)


@dataclass(frozen=True)
class _Overridden:
    """A picked array's source, with some blocks picked from other keys."""

    source: KeyOf
    keys: Mapping[tuple[int, ...], Hashable]

    def __call__(self, index: tuple[int, ...]) -> Hashable:
        key = self.keys.get(index)
        return self.source(index) if key is None else key
