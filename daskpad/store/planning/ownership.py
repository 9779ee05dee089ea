"""Which block of a dask array owns which chunk of another grid, and what it hands on:
the geometry of a streamed write (:mod:`daskpad.store.writing.stream`), plain Python on chunk
sizes.

A block *owns* the output chunks of which it has the largest part along every axis (the
last of equal parts) and writes them whole; it hands on copies of its parts of the
others (:func:`jobs`). What a write holds besides the blocks being written is the parts
handed on, at most :func:`handed_bytes`, which the tile planner
(:mod:`daskpad.store.planning.tiling`) reads.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

Chunks = tuple[tuple[int, ...], ...]
Index = tuple[int, ...]


@dataclass(frozen=True)
class BlockSlice:
    """Along one axis: the part ``block`` of a block that lands at ``at`` in output chunk
    ``chunk``."""

    chunk: int
    block: slice
    at: slice


@dataclass(frozen=True)
class Axis:
    """One axis of the two grids: each block's pieces, each output chunk's pieces (with
    their blocks), owner and bounds."""

    pieces: tuple[tuple[BlockSlice, ...], ...]
    members: tuple[tuple[tuple[int, BlockSlice], ...], ...]
    owner: tuple[int, ...]
    bounds: tuple[int, ...]

    @classmethod
    def of(cls, blocks: Sequence[int], chunks: Sequence[int]) -> Axis:
        starts = np.cumsum((0, *blocks)).tolist()
        bounds = tuple(np.cumsum((0, *chunks)).tolist())
        members: list[list[tuple[int, BlockSlice]]] = [[] for _ in chunks]
        pieces = []
        for b, (lo, hi) in enumerate(itertools.pairwise(starts)):
            found = []
            c = bisect.bisect_right(bounds, lo) - 1
            while lo < hi and c < len(chunks) and bounds[c] < hi:
                s, e = max(lo, bounds[c]), min(hi, bounds[c + 1])
                piece = BlockSlice(c, slice(s - lo, e - lo), slice(s - bounds[c], e - bounds[c]))
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

    def contributors(self, chunk: int) -> tuple[tuple[int, BlockSlice], ...]:
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
    waits for blocks far away, :meth:`daskpad.store.writing.blockgraph.BlockGraph.late_blocks`) is
    owned by the late block with the largest part of it, which reads again the block that would
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
