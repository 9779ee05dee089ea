"""Graph layers whose tasks are made on demand (classic graphs): daskpad's pad sides,
slabs and regridded blocks, each a layer that makes the task of a block only when dask asks
for it, so that building a pad of 10^6 blocks costs nothing per block. Part of the door to
dask's internals (:mod:`daskpad._compat.graphs` has the rest); ``tests/compat/test_dask.py``
checks it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array
from dask.core import keys_in_tasks
from dask.highlevelgraph import HighLevelGraph, Layer, MaterializedLayer
from dask.typing import Key

from daskpad._compat.graphs import Chunks


class LazyLayer(Mapping[Hashable, object]):
    """A graph layer over a block grid whose tasks are made on demand by ``make(index)``;
    ``laid_out_from``: see :func:`daskpad._compat.layouts.laid_out_from`."""

    def __init__(
        self,
        name: str,
        numblocks: Sequence[int],
        make: Callable[[tuple[int, ...]], object],
        laid_out_from: da.Array | None = None,
    ):
        self.name = name
        self.numblocks = tuple(numblocks)
        self.make = make
        self.laid_out_from = laid_out_from

    def _index(self, key: object) -> tuple[int, ...] | None:
        """The block index of ``key``, or None where ``key`` is not one of the layer's."""
        if not (
            isinstance(key, tuple)
            and len(key) == len(self.numblocks) + 1
            and key[0] == self.name
            and all(
                isinstance(i, (int, np.integer)) and 0 <= i < n
                for i, n in zip(key[1:], self.numblocks)
            )
        ):
            return None
        return tuple(int(i) for i in key[1:])

    def __getitem__(self, key: Hashable) -> object:
        index = self._index(key)
        if index is None:
            raise KeyError(key)
        return self.make(index)

    def __contains__(self, key: object) -> bool:
        # (Mapping's would make the task to answer)
        return self._index(key) is not None

    def __iter__(self) -> Iterator[Hashable]:
        for index in itertools.product(*(range(n) for n in self.numblocks)):
            yield (self.name, *index)

    def __len__(self) -> int:
        return int(np.prod(self.numblocks, dtype=np.int64))

    def __reduce__(self) -> tuple[object, ...]:
        # the task-making closure does not pickle; what it makes does (and anything that
        # pickles a graph is about to materialise it anyway)
        return (dict, (dict(self),))


class SparseLazyLayer(Mapping[Hashable, object]):
    """A graph layer of keys ``(name, *ints)`` that ``keys()`` lists and ``make(ints)``
    turns into tasks on demand (raising ``KeyError`` for any other)."""

    def __init__(
        self,
        name: str,
        make: Callable[[tuple[int, ...]], object],
        keys: Callable[[], Iterator[tuple[int, ...]]],
    ):
        self.name = name
        self.make = make
        self.keys_ = keys
        self._listed: tuple[Hashable, ...] | None = None  # the keys, once asked for

    def _keys(self) -> tuple[Hashable, ...]:
        if self._listed is None:
            self._listed = tuple((self.name, *index) for index in self.keys_())
        return self._listed

    def __getitem__(self, key: Hashable) -> object:
        if not (
            isinstance(key, tuple)
            and key[:1] == (self.name,)
            and all(isinstance(i, (int, np.integer)) and i >= 0 for i in key[1:])
        ):
            raise KeyError(key)
        return self.make(tuple(int(i) for i in key[1:]))

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def __reduce__(self) -> tuple[object, ...]:
        return (dict, (dict(self),))


class _MadeOnce(MaterializedLayer):
    """A layer of tasks made on demand (:class:`LazyLayer`, :class:`SparseLazyLayer`) as a
    graph layer: culled, each task it keeps is made once, and the others not at all.
    (dask's generic cull asks a layer for a key three times: whether it has it, its task
    and the task's dependencies; a task made on demand would be made each time. And
    before culling, dask asks each layer whether it holds tasks in the tuple form by
    looking at every task: see :attr:`has_legacy_tasks`.)"""

    @property
    def has_legacy_tasks(self) -> bool:  # type: ignore[override,unused-ignore]
        # True without looking: dask's answer makes every task of the layer, where one in
        # the tuple form may follow a million Task objects. True costs dask's cull a set
        # of the graph's keys (keys, not tasks: a lazy layer lists them without making
        # any), which it reads the dependencies of tasks in the tuple form against.
        return True

    def cull(
        self, keys: set[Key], all_hlg_keys: Collection[Key]
    ) -> tuple[Layer, Mapping[Key, set[Key]]]:
        made = self.mapping
        out: dict[Key, object] = {}
        deps: dict[Key, set[Key]] = {}
        work, seen = list(keys), set(keys)
        while work:
            key = work.pop()
            try:
                task = made[key]
            except KeyError:  # another layer's
                continue
            out[key] = task
            # the keys of the graph it reads, as dask's generic cull finds them (a Task's
            # dependencies; the keys in a task of the tuple form)
            deps[key] = set(keys_in_tasks(all_hlg_keys, [task]))
            new = deps[key] - seen  # (keys of its own layer it reads, if any)
            seen |= new
            work += new
        return MaterializedLayer(out, annotations=self.annotations), deps


def _made_once(layer: Mapping[Hashable, object]) -> Layer:
    """``layer`` as a graph layer; one whose tasks are made on demand culled by
    :class:`_MadeOnce`."""
    if isinstance(layer, Layer):
        return layer
    if isinstance(layer, (LazyLayer, SparseLazyLayer)):
        return _MadeOnce(layer)
    return MaterializedLayer(layer)


def lazy_array(
    name: str,
    chunks: Chunks,
    make: Callable[[tuple[int, ...]], object],
    dependencies: Sequence[da.Array],
    meta: object,
    below: Mapping[str, Mapping[Hashable, object]] | None = None,
    reads: Mapping[str, Collection[str]] | None = None,
    laid_out_from: da.Array | None = None,
) -> da.Array:
    """A classic-graph array named ``name`` whose blocks are the tasks ``make(index)``,
    made on demand (:class:`LazyLayer`), reading keys of ``dependencies`` and of the extra
    layers ``below`` (which read ``dependencies`` too); ``meta`` is its chunk type.

    ``reads`` names, for ``name`` and the layers of ``below``, exactly the layers their
    tasks read (dask's ``HighLevelGraph.validate`` checks the declared dependencies against
    the tasks); a layer it leaves out reads the layers of every dependency, and ``name``
    those of ``below`` too; ``laid_out_from`` is kept on the layer
    (:func:`daskpad._compat.layouts.laid_out_from`)."""
    layer = _made_once(LazyLayer(name, [len(c) for c in chunks], make, laid_out_from))
    meta = meta_from_array(meta, ndim=len(chunks))
    below = below or {}
    if not below and not reads:
        graph = HighLevelGraph.from_collections(
            name,
            layer,
            dependencies=list(dependencies),  # type: ignore[arg-type]
        )
        return da.Array(graph, name, chunks, meta=meta)
    deps = HighLevelGraph.merge(*(d.__dask_graph__() for d in dependencies))
    under = {n for d in dependencies for n in d.__dask_layers__()}
    needs: dict[str, set[str]] = {n: set(under) for n in below}
    needs[name] = under | set(below)
    needs.update({n: set(r) for n, r in (reads or {}).items()})
    graph = HighLevelGraph(
        {**deps.layers, **{n: _made_once(b) for n, b in below.items()}, name: layer},
        {**deps.dependencies, **needs},
    )
    return da.Array(graph, name, chunks, meta=meta)
