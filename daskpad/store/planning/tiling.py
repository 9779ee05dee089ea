"""The tiles of a write on zarr's regular grid: which output blocks each computation
writes, so that what it reads fits a memory budget, and how each variable is written.
Arithmetic on chunks and sizes (nothing is written): :func:`tiling_for` takes a dataset in
chunks zarr can store and the budget and gives, per group of variables, the tile shape,
the variables written by streamed writes and the blocks each variable was made of (its
source, what the writer reads); :func:`array_tiling` does that for one dask array. The
writer (:class:`daskpad.store.writing.tile_plans.TilePlan`) takes the tiling; nothing here
imports it."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from daskpad.core.regrid import own_grid
from daskpad.store.planning.ownership import handed_bytes
from daskpad.store.planning.zarr_chunks import needs_encoding

Chunks = tuple[tuple[int, ...], ...]


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
    plus ``halo`` more along each axis) within ``budget`` bytes, grown first along the axes
    with a halo (a tile's edge there reads its neighbour's block again), evenly among them,
    then along the others. A tile is one block when even that is over budget."""

    def footprint(k: Sequence[int]) -> float:
        return block_bytes * math.prod(min(ki + h, n) for ki, h, n in zip(k, halo, numblocks))

    return _grown(numblocks, footprint, budget, [h > 0 for h in halo])


def streamed_tile_shape(
    numblocks: Sequence[int],
    faces: Sequence[bool],
    block_bytes: int,
    handed: float,
    budget: int,
    cuts: Sequence[bool] | None = None,
) -> tuple[int, ...]:
    """Blocks per tile of a streamed write (:mod:`daskpad.store.writing.stream`), which holds far
    less than the blocks a tile reads: the parts of its blocks handed on to later ones
    (``handed``: their share of a block's bytes, at most), each held until the block that
    owns their chunk runs, and the blocks of one face across a padded axis (``faces``),
    which a pad reads besides the block's own task and dask's order may hold until the
    block is written. Dask runs the blocks of a tile as a front moving across it, so the
    parts in hand are those of about one cross-section of the tile (counted twice here:
    the front is not a straight line; docs/performance.md). (The blocks at work, about
    three per thread, come on top whatever the tile.) Grown within ``budget`` bytes first
    along the axes whose tile edges cut the blocks read (``cuts``, default ``faces``:
    there the blocks at a tile's edge are read by both tiles), evenly among them, then
    along the others; a tile is one block when even that is over budget."""

    def footprint(k: Sequence[int]) -> float:
        size = math.prod(k)
        front = max((size // ki for ki in k), default=1)
        face = max(
            (math.prod(k[:a]) * math.prod(k[a + 1 :]) for a, f in enumerate(faces) if f),
            default=0,
        )
        return block_bytes * (2 * handed * front + face)

    return _grown(numblocks, footprint, budget, faces if cuts is None else cuts)


def _grown(
    numblocks: Sequence[int],
    footprint: Callable[[Sequence[int]], float],
    budget: int,
    first: Sequence[bool],
) -> tuple[int, ...]:
    k = [1] * len(numblocks)
    while True:
        # grow, among the axes ``first`` and then the others, the axis whose tiles cover
        # the smallest share of it
        growable = [a for a, n in enumerate(numblocks) if k[a] < n]
        growable.sort(key=lambda a: (not first[a], k[a] / numblocks[a], a))
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
class Tiling:
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


def tiling_for(ds: Any, padded_dims: Collection[Hashable], budget: int) -> Tiling:
    """Tiles for writing ``ds`` holding about ``budget`` bytes of input at once.

    A group of variables written as they are goes through streamed writes
    (:func:`streamed_tile_shape`; the share handed on is that of the grid its variables were
    made of, :func:`daskpad.core.regrid.own_grid`); a group with a variable xarray encodes is
    written from its blocks as they are, a tile holding what it reads: a padded dimension
    counts one more block per tile (the neighbour its edge block reads). The statistics a
    pad repeats are not counted: the writers settle them first
    (:func:`daskpad.store.writing.settle.settle_statistics`)."""

    out = []
    sources: dict[Hashable, Any] = {}
    for g in groups(ds):
        numblocks = [len(c) for c in g.chunks]
        faces = [d in padded_dims and len(c) > 1 for d, c in zip(g.dims, g.chunks)]
        if g.dims:
            sources.update((n, own_grid(ds.variables[n].data)) for n in g.names)
        if g.dims and len(g.streamed) == len(g.names):
            handed = max(handed_share(sources[n].chunks, g.chunks) for n in g.names)
            cut = [any(a) for a in zip(*(cuts(sources[n].chunks, g.chunks) for n in g.names))]
            shape = streamed_tile_shape(numblocks, faces, g.block_bytes, handed, budget, cut)
        else:
            shape = tile_shape(numblocks, [int(f) for f in faces], g.block_bytes, budget)
        out.append((g, shape))
    return Tiling(tuple(out), sources)


def cuts(blocks: Chunks, chunks: Chunks) -> list[bool]:
    """Per axis, whether a bound between two of ``chunks`` falls inside one of ``blocks``
    (the same axes): there a tile's edge cuts a block that both tiles then read."""
    out = []
    for b, c in zip(blocks, chunks):
        block_bounds = set(itertools.accumulate(b))
        out.append(any(e not in block_bounds for e in itertools.accumulate(c[:-1])))
    return out


def handed_share(blocks: Chunks, chunks: Chunks) -> float:
    """The share of an array's bytes a streamed write from ``blocks`` into ``chunks``
    hands on from block to block (:func:`daskpad.store.planning.ownership.handed_bytes`)."""

    size = math.prod(sum(c) for c in chunks)
    return handed_bytes(blocks, chunks, 1) / size if size else 0.0


def array_tiling(x: Any, budget: int) -> Tiling:
    """The tiles of a streamed write of the dask array ``x`` (in chunks zarr can store)
    holding about ``budget`` bytes: one group, its axes named by their numbers, its one
    variable named ``""``."""
    chunks = tuple(tuple(int(c) for c in cs) for cs in x.chunks)
    numblocks = [len(c) for c in chunks]
    block_bytes = math.prod(max(c, default=0) for c in chunks) * x.dtype.itemsize
    source = own_grid(x)
    handed = handed_share(source.chunks, chunks)
    faces = [n > 1 for n in numblocks]
    cut = cuts(source.chunks, chunks)
    shape = streamed_tile_shape(numblocks, faces, block_bytes, handed, budget, cut)
    group = Group(("",), tuple(range(x.ndim)), chunks, block_bytes, ("",))
    return Tiling(((group, shape),), {"": source})
