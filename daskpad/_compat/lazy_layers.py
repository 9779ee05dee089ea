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

    def __getitem__(self, key: Hashable) -> object:
        if not (
            isinstance(key, tuple)
            and len(key) == len(self.numblocks) + 1
            and key[0] == self.name
            and all(
                isinstance(i, (int, np.integer)) and 0 <= i < n
                for i, n in zip(key[1:], self.numblocks)
            )
        ):
            raise KeyError(key)
        return self.make(tuple(int(i) for i in key[1:]))

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
    from dask.highlevelgraph import HighLevelGraph

    layer = LazyLayer(name, [len(c) for c in chunks], make, laid_out_from)
    meta = meta_from_array(meta, ndim=len(chunks))
    below = below or {}
    if not below and not reads:
        graph = HighLevelGraph.from_collections(
            name,
            layer,  # type: ignore[arg-type]  # a Mapping of keys to tasks, built on demand
            dependencies=list(dependencies),  # type: ignore[arg-type]
        )
        return da.Array(graph, name, chunks, meta=meta)
    deps = HighLevelGraph.merge(*(d.__dask_graph__() for d in dependencies))
    under = {n for d in dependencies for n in d.__dask_layers__()}
    needs: dict[str, set[str]] = {n: set(under) for n in below}
    needs[name] = under | set(below)
    needs.update({n: set(r) for n, r in (reads or {}).items()})
    graph = HighLevelGraph(
        {**deps.layers, **below, name: layer},  # type: ignore[dict-item]
        {**deps.dependencies, **needs},
    )
    return da.Array(graph, name, chunks, meta=meta)
