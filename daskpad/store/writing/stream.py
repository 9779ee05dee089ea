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
most :func:`daskpad.store.planning.ownership.handed_bytes` (for chunks no larger than blocks, at
most half of each block along each axis). Where other tasks far away read a block too, it
is computed again for its write rather than held, unless the write may hold such blocks
(``hold`` bytes: a write in one computation holds them within half its memory budget).

A pad made of a statistic of the whole axis is *late*: it waits for every block along
the axis (a linear ramp, for every block of its face, whose steps numpy checks all at
once; a wrapped pad for the far face). What the pad takes of each block (a partial
statistic, an edge) is computed inside the block's own write, and the chunks with a part
of a late pad are owned by the pad, which reads again the block that would have owned the
chunk (the block beside the pad, where it has the larger part of the chunk), so that no
block waits for a late one: each block is read once, those few twice, none held
(:class:`daskpad.store.writing.blockgraph.BlockGraph`). Where ``hold`` holds them, the
blocks own their chunks as any others and wait for the late pads: each read once.

The geometry (which block owns which chunk, what it hands on) is plain Python in
:mod:`daskpad.store.planning.ownership`; the kernel here (:func:`write_owned`) is plain numpy and
zarr; the graph is made by :class:`daskpad.store.writing.blockgraph.BlockGraph`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from daskpad._compat.zarr_io import sync_io, write_region
from daskpad.store.planning.ownership import Index, Owned, chunk_ranges, involved, jobs
from daskpad.store.writing.blockgraph import BlockGraph

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
    """Writes a chunk into a zarr array, in the calling thread where zarr has a synchronous
    form of the write (:func:`daskpad._compat.zarr_io.write_region`), skipping zarr's look
    for a chunk of nothing but the fill value where the chunk surely has other values.

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
        self.io = sync_io(target)
        self.eager = hasattr(target, "with_config")  # (zarr 3)

    def __call__(self, region: Any, value: Any) -> None:
        empty = True if self.eager and not_fill(value, self.fill) else None
        write_region(self.target, region, value, empty, io=self.io)


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


def streamed_writes(
    x: Any, target: Any, region: Sequence[slice] | None = None, hold: int = 0
) -> Any:
    """A delayed object that writes the dask array ``x`` (any chunks) into the zarr array
    ``target`` (``x``'s shape, any regular chunks or shards), over ``region`` (element
    slices on ``target``'s chunk bounds; all of it by default), each zarr chunk (each shard
    of a sharded array) written whole by one task, each block of ``x`` computed once.

    Where tasks far away read a block too, or where a late pad owns a chunk of which it
    has the larger part (:class:`daskpad.store.writing.blockgraph.BlockGraph`), that block
    is computed twice, unless the blocks that would then be held until the far or late
    tasks run (:func:`held_bytes`) fit in ``hold`` bytes: then they are held, and every
    block is computed once. None for an array without elements."""
    import uuid

    if x.size == 0:
        return None
    # a sharded array's chunks share a shard, which zarr rewrites whole: write shards
    grid = getattr(target, "shards", None) or target.chunks
    chunks = tuple(tuple(_regular(n, c)) for n, c in zip(target.shape, grid))
    ranges = None if region is None else chunk_ranges(chunks, region)
    blocks = tuple(tuple(int(n) for n in c) for c in x.chunks)
    # (a region's blocks alone: the graph of a tile, not of the whole array, per tile)
    inside = involved(blocks, chunks, ranges)
    whole = ranges is None or all(r == range(len(c)) for r, c in zip(ranges, chunks))
    graph = BlockGraph(x, None if whole else inside)
    held = hold > 0 and held_bytes(graph, blocks, chunks, ranges, x.dtype.itemsize) <= hold
    late = frozenset() if held else graph.owned_late(inside)
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
    return graph.program(steps, write_owned, done, name, late=late, shared=held)


def held_bytes(
    graph: BlockGraph,
    blocks: tuple[tuple[int, ...], ...],
    chunks: tuple[tuple[int, ...], ...],
    ranges: Sequence[range] | None,
    itemsize: int,
) -> int:
    """The bytes of the blocks a streamed write holds, rather than computes again, until
    the tasks far away or late that read them run (an upper bound): the blocks far tasks
    read, and those that would wait for a late block."""
    far = graph.read_far()
    late = graph.late_blocks
    waiting = {j.index for j in jobs(blocks, chunks, ranges) if set(j.waits) & late}
    total = 0
    for index in far | waiting:
        total += int(np.prod([b[i] for b, i in zip(blocks, index)])) * itemsize
    return total


def _regular(n: int, size: int) -> list[int]:
    full, rest = divmod(n, size)
    return [size] * full + ([rest] if rest else [])
