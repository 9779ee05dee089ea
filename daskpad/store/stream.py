"""Storing a dask array in the chunks of another grid, each of its blocks computed once.

A padded array's blocks are the input's, with the pad's blocks around them; zarr wants one
regular grid, which the pad shifts off the input's. Assembled chunk by chunk (dask's
``rechunk``, or ``daskpad.pad(..., chunks="regular")``), each zarr chunk waits for the up to
2**ndim blocks it overlaps, every block waits in memory for the up to 2**ndim chunks that
take a part of it (docs/performance.md).

Here every block of the array is computed by one task (inside it, when nothing else reads
the block: read and write fused, as in a copy) that

- writes the zarr chunks the block *owns*, those of which it has the largest part along
  every axis (the last of equal parts), each assembled from the block's own part and the
  parts its neighbours handed on, and written whole, once;
- hands on copies of its parts of the chunks it does not own: for a pad of a few elements,
  thin edges.

A task waits for the neighbours whose parts it needs, never in a cycle: along one axis, two
blocks that each needed a part of the other would both take part in the one chunk that
holds the boundary between them, which has one owner; across axes a cycle would be one
along some axis. What is held besides the blocks being written is the parts handed on, at
most :func:`handed_bytes` (for chunks no larger than blocks, at most half of each block
along each axis). Where other tasks far away read a block too, it is computed again for
its write rather than held.

A pad made of a statistic of the whole axis is *late*: it waits for every block along
the axis (a linear ramp, for every block of its face, whose steps numpy checks all at
once; a wrapped pad for the far face). What the pad takes of each block (a partial
statistic, an edge) is computed inside the block's own write, and the chunks with a part
of a late pad are owned by the pad, which reads again the block that would have owned the
chunk (the block beside the pad, where it has the larger part of the chunk), so that no
block waits for a late one: each block is read once, those few twice, none held
(:class:`daskpad.store.blockgraph.BlockGraph`).

The geometry here is plain Python, the kernel (:func:`write_owned`) plain numpy and zarr;
the graph is made by :class:`daskpad.store.blockgraph.BlockGraph`.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from daskpad.store.blockgraph import BlockGraph

Chunks = tuple[tuple[int, ...], ...]
Index = tuple[int, ...]


@dataclass(frozen=True)
class Piece:
    """Along one axis: the part ``block`` of a block that lands at ``at`` in output chunk
    ``chunk``."""

    chunk: int
    block: slice
    at: slice


@dataclass(frozen=True)
class Axis:
    """One axis of the two grids: each block's pieces, each output chunk's pieces (with
    their blocks), owner and bounds."""

    pieces: tuple[tuple[Piece, ...], ...]
    members: tuple[tuple[tuple[int, Piece], ...], ...]
    owner: tuple[int, ...]
    bounds: tuple[int, ...]

    @classmethod
    def of(cls, blocks: Sequence[int], chunks: Sequence[int]) -> Axis:
        starts = np.cumsum((0, *blocks)).tolist()
        bounds = tuple(np.cumsum((0, *chunks)).tolist())
        members: list[list[tuple[int, Piece]]] = [[] for _ in chunks]
        pieces = []
        for b, (lo, hi) in enumerate(itertools.pairwise(starts)):
            found = []
            c = bisect.bisect_right(bounds, lo) - 1
            while lo < hi and c < len(chunks) and bounds[c] < hi:
                s, e = max(lo, bounds[c]), min(hi, bounds[c + 1])
                piece = Piece(c, slice(s - lo, e - lo), slice(s - bounds[c], e - bounds[c]))
                found.append(piece)
                members[c].append((b, piece))
                c += 1
            pieces.append(tuple(found))
        # the owner: the block with the largest part of the chunk, the last of equals
        owner = [
            max(m, key=lambda bp: (bp[1].at.stop - bp[1].at.start, bp[0]))[0] if m else -1
            for m in members
        ]
        return cls(tuple(pieces), tuple(tuple(m) for m in members), tuple(owner), bounds)

    def contributors(self, chunk: int) -> tuple[tuple[int, Piece], ...]:
        """The blocks with a piece in output chunk ``chunk``, and those pieces."""
        return self.members[chunk]


@dataclass(frozen=True)
class Owned:
    """An output chunk a block writes: its region of the target, its shape, and where each
    of its parts comes from: ``(at, None, part)``, the block's own ``part``; ``(at, source,
    None)``, handed on by block ``source``; ``(at, source, part)``, ``part`` of block
    ``source`` computed again."""

    region: tuple[slice, ...]
    shape: tuple[int, ...]
    parts: tuple[tuple[tuple[slice, ...], Index | None, tuple[slice, ...] | None], ...]
    chunk: Index


@dataclass(frozen=True)
class BlockJob:
    """What the task of block ``index`` does: the chunks it writes, the parts it hands on
    (``(chunk, part)``: its ``part`` goes to output chunk ``chunk``), the blocks it waits
    for, the blocks it computes anew (reads again) for the chunks it writes."""

    index: Index
    owned: tuple[Owned, ...]
    handed: tuple[tuple[Index, tuple[slice, ...]], ...]
    waits: tuple[Index, ...]
    rereads: tuple[Index, ...] = ()


def jobs(
    blocks: Chunks,
    chunks: Chunks,
    region: Sequence[range] | None = None,
    late: Collection[Index] = frozenset(),
) -> list[BlockJob]:
    """The job of every block of an array of ``blocks`` chunks with a piece in the output
    chunks ``region`` (per axis a range of chunk indices; all by default) of a target in
    ``chunks``: the chunks of the region it owns, and the parts it hands on to owners in
    the region. A block that owns none of the region's chunks only hands on.

    A chunk with a part of a ``late`` block (one computed after most others: a pad that
    waits for blocks far away, :meth:`daskpad.store.blockgraph.BlockGraph.late_blocks`) is owned by
    the late block with the largest part of it, which reads again the block that would
    have owned it, instead of that block waiting for the late one; the other blocks hand
    their parts on. Blocks that are not late then never wait for late ones."""
    axes = [Axis.of(b, c) for b, c in zip(blocks, chunks)]
    if region is None:
        region = [range(len(c)) for c in chunks]
    late = frozenset(late)
    involved = _involved(axes, region)
    owners: dict[Index, tuple[Index, Index | None]] = {}

    def owner(chunk: Index) -> tuple[Index, Index | None]:
        """The chunk's owner, and the block it reads again (None: none)."""
        if chunk not in owners:
            natural = tuple(ax.owner[c] for ax, c in zip(axes, chunk))
            found: tuple[Index, Index | None] = (natural, None)
            if late and natural not in late:
                members = itertools.product(*(ax.contributors(c) for ax, c in zip(axes, chunk)))
                lates = [
                    (math.prod(p.at.stop - p.at.start for _, p in m), tuple(b for b, _ in m))
                    for m in members
                    if tuple(b for b, _ in m) in late
                ]
                if lates:
                    found = (max(lates)[1], natural)
            owners[chunk] = found
        return owners[chunk]

    out = []
    for index in itertools.product(*involved):
        mine = [[p for p in ax.pieces[b] if p.chunk in r] for ax, b, r in zip(axes, index, region)]
        owned, handed, waits, rereads = [], [], set(), set()
        for combo in itertools.product(*mine):
            chunk = tuple(p.chunk for p in combo)
            part = tuple(p.block for p in combo)
            by, reread = owner(chunk)
            if by != index:
                if reread != index:  # (else the owner reads this block again)
                    handed.append((chunk, part))
                continue
            parts: list[tuple[tuple[slice, ...], Index | None, tuple[slice, ...] | None]] = []
            for each in itertools.product(*(ax.contributors(c) for ax, c in zip(axes, chunk))):
                source = tuple(b for b, _ in each)
                at = tuple(p.at for _, p in each)
                if source == index:
                    parts.append((at, None, part))
                elif source == reread:
                    rereads.add(source)
                    parts.append((at, source, tuple(p.block for _, p in each)))
                else:
                    waits.add(source)
                    parts.append((at, source, None))
            bounds = [(ax.bounds[c], ax.bounds[c + 1]) for ax, c in zip(axes, chunk)]
            owned.append(
                Owned(
                    tuple(slice(a, b) for a, b in bounds),
                    tuple(b - a for a, b in bounds),
                    tuple(parts),
                    chunk,
                )
            )
        out.append(
            BlockJob(
                index,
                tuple(owned),
                tuple(handed),
                tuple(sorted(waits)),
                tuple(sorted(rereads)),
            )
        )
    return out


def involved(blocks: Chunks, chunks: Chunks, region: Sequence[range] | None = None) -> set[Index]:
    """The blocks with a piece in the output chunks ``region`` (all by default): those
    :func:`jobs` makes a job for."""
    axes = [Axis.of(b, c) for b, c in zip(blocks, chunks)]
    return set(itertools.product(*_involved(axes, region or [range(len(c)) for c in chunks])))


def _involved(axes: Sequence[Axis], region: Sequence[range]) -> list[list[int]]:
    """Per axis: the blocks with a piece in the region."""
    return [sorted({b for c in r for b, _ in ax.contributors(c)}) for ax, r in zip(axes, region)]


def handed_bytes(blocks: Chunks, chunks: Chunks, itemsize: int) -> int:
    """The bytes of every part handed on between blocks: what a streamed write may hold
    besides the blocks being written."""
    total = owned = 1
    for b, c in zip(blocks, chunks):
        ax = Axis.of(b, c)
        total *= sum(b)
        owned *= sum(
            p.block.stop - p.block.start
            for b, ps in enumerate(ax.pieces)
            for p in ps
            if ax.owner[p.chunk] == b
        )
    return (total - owned) * itemsize


def chunk_ranges(chunks: Chunks, region: Sequence[slice]) -> list[range]:
    """The output chunk indices, per axis, of a region whose bounds are chunk bounds."""
    out = []
    for c, s in zip(chunks, region):
        bounds = np.cumsum((0, *c)).tolist()
        out.append(range(bisect.bisect_left(bounds, s.start), bisect.bisect_left(bounds, s.stop)))
    return out


# --------------------------------------------------------------------------------------
# the kernel
# --------------------------------------------------------------------------------------


def write_owned(
    block: Any,
    *handed: dict[tuple[Index, Index], Any],
    target: Any,
    index: Index,
    owned: tuple[Owned, ...],
    hands: tuple[tuple[Index, tuple[slice, ...]], ...],
    rereads: tuple[tuple[Index, Any], ...] = (),
) -> dict[tuple[Index, Index], Any]:
    """Write into ``target`` the chunks ``owned``, from ``block``, the parts ``handed`` on
    by earlier blocks and the blocks read again (``rereads``: (index, block) pairs); return
    copies of the parts of ``block`` that ``hands`` names, keyed by (this block, their
    chunk)."""
    got: dict[tuple[Index, Index], Any] = {}
    for h in handed:
        got.update(h)
    again = dict(rereads)
    put = _Put(target)
    for o in owned:
        if len(o.parts) == 1 and o.parts[0][1] is None:  # the block's own part, whole
            put(o.region, block[o.parts[0][2]])
            continue
        out = np.empty_like(block, shape=o.shape)
        for at, source, part in o.parts:
            if source is None:
                out[at] = block[part]
            elif part is None:
                out[at] = got[source, o.chunk]
            else:
                out[at] = again[source][part]
        put(o.region, out)
    return {(index, chunk): block[part].copy() for chunk, part in hands}


class _Put:
    """Writes a chunk into a zarr array, skipping zarr's look for a chunk of nothing but
    the fill value where the chunk surely has other values.

    Unless an array is configured to ``write_empty_chunks``, zarr (3) compares each chunk
    it writes, padded to the chunk's shape with the fill value, element by element with
    the fill value, so as not to store a chunk of nothing else. For a thin chunk at the
    array's end, which is mostly fill, that comparison runs over the whole chunk and costs
    more than compressing it. Here a chunk whose first or last element is not the fill
    value is written with zarr's look switched off; any other, as configured, so a chunk
    that is all fill is still left out as zarr would."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.fill = getattr(target, "fill_value", None)
        with_config = getattr(target, "with_config", None)  # zarr 3
        self.eager = None if with_config is None else with_config({"write_empty_chunks": True})

    def __call__(self, region: Any, value: Any) -> None:
        eager = self.eager
        if eager is not None and not_fill(value, self.fill):
            eager[region] = value
        else:
            self.target[region] = value


def not_fill(value: Any, fill: Any) -> bool:
    """Whether the first or the last element of ``value`` surely differs from ``fill`` as
    zarr compares them (NaN equal to NaN); False where it cannot tell cheaply."""
    value = np.asarray(value)
    if value.size == 0 or fill is None or value.dtype.kind not in "biufc":
        return False
    try:
        f = np.asarray(fill, dtype=value.dtype)
    except (TypeError, ValueError, OverflowError):
        return False
    ends = np.array([value[(0,) * value.ndim], value[(-1,) * value.ndim]], dtype=value.dtype)
    if value.dtype.kind in "fc" and np.isnan(f):
        return bool((~np.isnan(ends)).any())
    return bool((ends != f).any())


def done(*_: Any) -> None:
    """The last task of a streamed write: it waits for the blocks nobody waits for."""
    return None


# --------------------------------------------------------------------------------------
# the writes
# --------------------------------------------------------------------------------------


def streamed_writes(x: Any, target: Any, region: Sequence[slice] | None = None) -> Any:
    """A delayed object that writes the dask array ``x`` (any chunks) into the zarr array
    ``target`` (``x``'s shape, any regular chunks or shards), over ``region`` (element
    slices on ``target``'s chunk bounds; all of it by default), each zarr chunk (each shard
    of a sharded array) written whole by one task, each block of ``x`` computed once (twice
    where tasks far away read it too, or where a late pad owns a chunk of which it has
    the larger part; :class:`daskpad.store.blockgraph.BlockGraph`). None for an array without
    elements."""
    import uuid

    if x.size == 0:
        return None
    # a sharded array's chunks share a shard, which zarr rewrites whole: write shards
    grid = getattr(target, "shards", None) or target.chunks
    chunks = tuple(tuple(_regular(n, c)) for n, c in zip(target.shape, grid))
    ranges = None if region is None else chunk_ranges(chunks, region)
    blocks = tuple(tuple(int(n) for n in c) for c in x.chunks)
    graph = BlockGraph(x)
    late = graph.owned_late(involved(blocks, chunks, ranges))
    steps = [
        (
            j.index,
            j.waits,
            j.rereads,
            {"target": target, "index": j.index, "owned": j.owned, "hands": j.handed},
        )
        for j in jobs(blocks, chunks, ranges, late)
    ]
    name = f"daskpad-store-{uuid.uuid4().hex}"
    return graph.program(steps, write_owned, done, name, late=late)


def _regular(n: int, size: int) -> list[int]:
    full, rest = divmod(n, size)
    return [size] * full + ([rest] if rest else [])
