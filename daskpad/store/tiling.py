"""The tiling plan of a tiled store: which output blocks each computation writes, so that
what it reads fits a memory budget, and how each variable is written. Arithmetic on chunks
and sizes (nothing is written): :func:`plan` takes a padded dataset and the budget and
gives, per group of variables, the tile shape, the variables written by streamed writes
and the blocks each variable was made of (its source, what the writer reads);
:func:`plan_dataset` does that for xarray's writer from ``memory=``, the variables first
laid out in chunks zarr can store, and :func:`plan_array` for one dask array. The writers
(:mod:`daskpad.store.tiles`) take the plan and call nothing here; nothing here imports
them."""

from __future__ import annotations

import itertools
import math
import os
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from daskpad._compat.libraries import process_memory_limit
from daskpad.core.regrid import own_grid, regrid
from daskpad.store.ownership import handed_bytes

Chunks = tuple[tuple[int, ...], ...]


def default_memory() -> int:
    """2 GiB, or a quarter of the memory this process may use if that is less."""
    return min(2**31, memory_limit() // 4)


def memory_limit() -> int:
    """The memory this process may use: distributed's ``memory_limit`` (the machine's
    memory, a container's cgroup limit, ``RLIMIT_RSS``), else psutil's total memory."""
    limit = process_memory_limit()
    if limit is not None:
        return limit
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except ImportError:
        pass
    # dask[array] alone brings neither: then the machine's memory, blind to containers
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return 2**33


def memory_budget(memory: int | str | None) -> int:
    """``memory=`` of the public writers: bytes, a size such as ``"512MB"``, or ``None``
    for :func:`default_memory`."""
    if memory is None:
        return default_memory()
    from dask.utils import parse_bytes

    try:
        n = int(parse_bytes(memory))
    except (ValueError, TypeError):
        n = -1
    if n <= 0:
        raise ValueError(f"memory must be a positive number of bytes, got {memory!r}")
    return n


#: a block read in pieces is cut to this share of the budget per thread: a thread holds
#: a few blocks at work (read, padded, encoded) besides what its tile holds
PIECES_PER_THREAD = 8


def piece_limit(budget: int, threads: int) -> int:
    """The bytes of one block of an input read in pieces: ``budget`` over
    :data:`PIECES_PER_THREAD` blocks per thread.

    >>> piece_limit(64 * 10**6, 2)
    4000000
    """
    return max(1, budget // (PIECES_PER_THREAD * max(1, threads)))


def pieces(
    block: Sequence[int], free: Sequence[bool], itemsize: int, limit: int
) -> tuple[int, ...]:
    """A block of at most ``limit`` bytes cut from ``block`` (its size along each axis),
    cutting only the ``free`` axes, leading ones first: each to 1 in turn until the rest
    fits, the last one cut into equal parts that fit (so a stored order's piece is one
    run of bytes, or few). As far as it goes when even 1 along every free axis is over.

    >>> pieces((100, 500, 1000), (True, True, True), 8, 4 * 10**6)
    (1, 500, 1000)
    >>> pieces((100, 500, 1000), (True, True, True), 8, 10**6)  # 4 rows of 125
    (1, 125, 1000)
    >>> pieces((100, 500, 1000), (False, True, True), 8, 10**6)  # 100 x 1 x 1000
    (100, 1, 1000)
    >>> pieces((100, 500), (True, True), 8, 10**6)  # fits as it is
    (100, 500)
    """
    out = list(block)
    for a, cut in enumerate(free):
        others = itemsize * math.prod(out[:a] + out[a + 1 :])
        if others * out[a] <= limit or not cut:
            continue
        fit = limit // others
        if fit >= 1:
            parts = -(-out[a] // fit)
            out[a] = -(-out[a] // parts)
            break
        out[a] = 1
    return tuple(out)


def zarr_can_store(chunks: Chunks) -> bool:
    """Whether zarr can store blocks of these chunks as its own: along every axis all equal
    but a smaller last one."""
    return not any(len(c) > 1 and (len(set(c[:-1])) > 1 or c[-1] > c[0]) for c in chunks)


def storable_chunks(chunks: Chunks) -> Chunks:
    """``chunks`` where zarr can store them; otherwise, along each axis it cannot,
    regular chunks of the size that covers most of the axis (the larger where two tie):
    for an array padded in the default chunks, the input's own, the pads cut to it.

    >>> storable_chunks(((256, 333, 333, 333, 1, 256), (4, 4, 2)))
    ((333, 333, 333, 333, 180), (4, 4, 2))
    >>> storable_chunks(((10, 100, 10),))  # one input chunk, two pad chunks
    ((100, 20),)
    """
    out = []
    for c in chunks:
        if zarr_can_store((c,)):
            out.append(tuple(c))
            continue
        size = max(Counter(c).items(), key=lambda sc: (sc[0] * sc[1], sc[0]))[0]
        full, rest = divmod(sum(c), size)
        out.append((size,) * full + ((rest,) if rest else ()))
    return tuple(out)


def storable(x: Any) -> Any:
    """The dask array ``x`` in :func:`storable_chunks`, each block assembled in one task
    from the blocks it overlaps."""

    target = storable_chunks(tuple(tuple(int(n) for n in c) for c in x.chunks))
    return x if target == x.chunks else regrid(x, target)


@dataclass(frozen=True)
class Group:
    """Dask-backed variables with the same dimensions and chunks, written together."""

    names: tuple[Hashable, ...]
    dims: tuple[Hashable, ...]
    chunks: Chunks
    block_bytes: int  # one block of every variable of the group (the largest block)
    #: the variables written straight by streamed writes (zarr takes them as they are);
    #: the others go through xarray's region writes, which encode them
    streamed: tuple[Hashable, ...] = ()


def groups(ds: Any) -> list[Group]:
    """The dask-backed variables of ``ds`` (data and coordinates), grouped by their
    dimensions and chunks, in the dataset's order."""
    found: dict[tuple[Any, ...], list[Hashable]] = {}
    for name, var in ds.variables.items():
        if var.chunks is not None:  # 0-d ones too: one tile of one block
            found.setdefault((var.dims, var.chunks), []).append(name)
    out = []
    for (dims, chunks), names in found.items():
        block = math.prod(max(c, default=0) for c in chunks)
        nbytes = sum(block * ds.variables[n].dtype.itemsize for n in names)
        streamed = tuple(n for n in names if dims and not needs_encoding(ds.variables[n]))
        out.append(Group(tuple(names), tuple(dims), tuple(chunks), nbytes, streamed))
    return out


def tile_shape(
    numblocks: Sequence[int], halo: Sequence[int], block_bytes: int, budget: int
) -> tuple[int, ...]:
    """Blocks per tile along each axis: as many as keep the blocks a tile reads (its own,
    plus ``halo`` more along each axis) within ``budget`` bytes, grown evenly across axes.
    A tile is one block when even that is over budget."""

    def footprint(k: Sequence[int]) -> float:
        return block_bytes * math.prod(min(ki + h, n) for ki, h, n in zip(k, halo, numblocks))

    return _grown(numblocks, footprint, budget)


def streamed_tile_shape(
    numblocks: Sequence[int],
    faces: Sequence[bool],
    block_bytes: int,
    handed: float,
    budget: int,
) -> tuple[int, ...]:
    """Blocks per tile of a streamed write (:mod:`daskpad.store.stream`), which holds far less
    than the blocks a tile reads: the parts of its blocks handed on to later ones
    (``handed``: their share of a block's bytes, at most), each held until the block that
    owns their chunk runs, and the blocks of one face across a padded axis (``faces``),
    which a pad reads besides the block's own task and dask's order may hold until the
    block is written. Dask runs the blocks of a tile as a front moving across it, so the
    parts in hand are those of about one cross-section of the tile (counted twice here:
    the front is not a straight line; docs/performance.md). (The blocks at work, about
    three per thread, come on top whatever the tile.) Grown evenly across axes within
    ``budget`` bytes; a tile is one block when even that is over budget."""

    def footprint(k: Sequence[int]) -> float:
        size = math.prod(k)
        front = max((size // ki for ki in k), default=1)
        face = max(
            (math.prod(k[:a]) * math.prod(k[a + 1 :]) for a, f in enumerate(faces) if f),
            default=0,
        )
        return block_bytes * (2 * handed * front + face)

    return _grown(numblocks, footprint, budget)


def _grown(
    numblocks: Sequence[int], footprint: Callable[[Sequence[int]], float], budget: int
) -> tuple[int, ...]:
    k = [1] * len(numblocks)
    while True:
        # grow the axis whose tiles cover the smallest share of it
        growable = [a for a, n in enumerate(numblocks) if k[a] < n]
        growable.sort(key=lambda a: (k[a] / numblocks[a], a))
        for a in growable:
            trial = k.copy()
            trial[a] += 1
            if footprint(trial) <= budget:
                k = trial
                break
        else:
            return tuple(k)


def tiles(chunks: Chunks, shape: Sequence[int]) -> Iterator[tuple[slice, ...]]:
    """The element slices of each tile of ``shape`` blocks, in C order of the tiles."""
    bounds = [np.cumsum((0, *c)).tolist() for c in chunks]
    starts = [range(0, len(c), k) for c, k in zip(chunks, shape)]
    for first in itertools.product(*starts):
        yield tuple(
            slice(b[f], b[min(f + k, len(b) - 1)]) for b, f, k in zip(bounds, first, shape)
        )


@dataclass(frozen=True)
class TilePlan:
    """How the dask-backed variables are written: per group, its tile shape; per variable
    of one dimension or more, its source: the dask array of the blocks it was made of
    (:func:`daskpad.core.regrid.own_grid`), which a streamed write reads, each block once."""

    shapes: tuple[tuple[Group, tuple[int, ...]], ...]
    sources: Mapping[Hashable, Any] = field(default_factory=dict)

    @property
    def ntiles(self) -> int:
        return sum(
            math.prod(math.ceil(len(c) / k) for c, k in zip(g.chunks, shape))
            for g, shape in self.shapes
        )

    @property
    def budget(self) -> int:
        """The bytes the largest tile reads (what settling the statistics may hold)."""
        return max((g.block_bytes * math.prod(k) for g, k in self.shapes), default=0)

    @property
    def whole(self) -> bool:
        """Every group fits in one tile: write the dataset in one computation."""
        return all(all(k >= len(c) for c, k in zip(g.chunks, shape)) for g, shape in self.shapes)

    def regions(self) -> Iterator[tuple[Group, dict[Hashable, slice]]]:
        for g, shape in self.shapes:
            for slices in tiles(g.chunks, shape):
                yield g, dict(zip(g.dims, slices))


def plan(ds: Any, padded_dims: Collection[Hashable], budget: int) -> TilePlan:
    """Tiles for writing ``ds`` holding about ``budget`` bytes of input at once.

    A group of variables written as they are goes through streamed writes
    (:func:`streamed_tile_shape`; the share handed on is that of the grid its variables were
    made of, :func:`daskpad.core.regrid.own_grid`); a group with a variable xarray encodes is
    written from its blocks as they are, a tile holding what it reads: a padded dimension
    counts one more block per tile (the neighbour its edge block reads). The statistics a
    pad repeats are not counted: the writers settle them first
    (:func:`daskpad.store.settle.settle_statistics`)."""

    out = []
    sources: dict[Hashable, Any] = {}
    for g in groups(ds):
        numblocks = [len(c) for c in g.chunks]
        faces = [d in padded_dims and len(c) > 1 for d, c in zip(g.dims, g.chunks)]
        if g.dims:
            sources.update((n, own_grid(ds.variables[n].data)) for n in g.names)
        if g.dims and len(g.streamed) == len(g.names):
            handed = max(handed_share(sources[n].chunks, g.chunks) for n in g.names)
            shape = streamed_tile_shape(numblocks, faces, g.block_bytes, handed, budget)
        else:
            shape = tile_shape(numblocks, [int(f) for f in faces], g.block_bytes, budget)
        out.append((g, shape))
    return TilePlan(tuple(out), sources)


@dataclass(frozen=True)
class DatasetPlan:
    """How xarray's writer stores a dataset on zarr's regular grid (:func:`plan_dataset`):
    ``ds`` with its dask-backed variables in chunks zarr can store (:func:`storable`), and
    its tiles (:func:`plan`)."""

    ds: Any
    tiling: TilePlan


def plan_dataset(ds: Any, memory: int | str | None, regular: bool = True) -> DatasetPlan | None:
    """How ``ds`` is written within ``memory`` bytes (:func:`memory_budget`, checked for
    any grid): its dask-backed variables laid out in :func:`storable_chunks`, tiled over
    all its dimensions (:func:`plan`). None unless ``regular``: on a rectilinear grid each
    block is one chunk, written whole by one task, with no tiles."""
    budget = memory_budget(memory)
    if not regular:
        return None
    ds = ds.copy(deep=False)
    for var in ds.variables.values():
        if var.chunks is not None:
            var.data = storable(var.data)  # zarr's chunks: regular along every dimension
    everything = {d for v in ds.variables.values() for d in v.dims}
    return DatasetPlan(ds, plan(ds, everything, budget))


def handed_share(blocks: Chunks, chunks: Chunks) -> float:
    """The share of an array's bytes a streamed write from ``blocks`` into ``chunks``
    hands on from block to block (:func:`daskpad.store.ownership.handed_bytes`)."""

    size = math.prod(sum(c) for c in chunks)
    return handed_bytes(blocks, chunks, 1) / size if size else 0.0


def needs_encoding(var: Any) -> bool:
    """Whether xarray would change ``var``'s values when storing it: CF encoding left to
    apply (a decoded variable), or a dtype zarr does not take as it is."""
    if var.dtype.kind not in "biufc":
        return True
    enc = var.encoding
    cf = ("_FillValue", "missing_value", "scale_factor", "add_offset", "units", "calendar")
    if any(k in enc for k in cf):
        return True
    return "dtype" in enc and np.dtype(enc["dtype"]) != var.dtype


@dataclass(frozen=True)
class ArrayPlan:
    """How one dask array is written (:func:`plan_array`): ``x`` in chunks zarr can store
    (:func:`storable`), zarr's chunk shape, the element slices of each tile, the bytes a
    tile may hold, and the source: the blocks ``x`` was made of
    (:func:`daskpad.core.regrid.own_grid`), which the write reads, each once."""

    x: Any
    chunk_shape: tuple[int, ...]
    regions: tuple[tuple[slice, ...], ...]
    budget: int
    source: Any


def plan_array(x: Any, memory: int | str | None) -> ArrayPlan:
    """The tiles of a streamed write of the dask array ``x`` holding about ``memory``
    bytes (:func:`memory_budget`), in zarr chunks ``x``'s where zarr can store them."""
    budget = memory_budget(memory)
    x = storable(x)
    chunks = tuple(tuple(int(c) for c in cs) for cs in x.chunks)
    numblocks = [len(c) for c in chunks]
    block_bytes = math.prod(max(c, default=0) for c in chunks) * x.dtype.itemsize
    source = own_grid(x)
    handed = handed_share(source.chunks, chunks)
    faces = [n > 1 for n in numblocks]
    shape = streamed_tile_shape(numblocks, faces, block_bytes, handed, budget)
    chunk_shape = tuple(max(max(c, default=1), 1) for c in chunks)
    return ArrayPlan(x, chunk_shape, tuple(tiles(chunks, shape)), budget, source)
