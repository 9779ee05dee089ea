"""Groups of neighbouring chunks written together: the computed chunks of a write of whole
chunks (:mod:`daskpad.store.writing.chunk_plans`) go to zarr a group at a time, one task
and one call per group, so that a pad of many small chunks costs what its bytes cost
rather than what zarr's and dask's calls cost. Plain arithmetic on chunk sizes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

Chunks = tuple[tuple[int, ...], ...]


def within(chunks: Chunks, region: tuple[slice, ...]) -> Chunks:
    """The sizes of ``chunks`` cut to ``region``.

    >>> within(((4, 4, 4), (10,)), (slice(2, 12), slice(0, 10)))
    ((2, 4, 4), (10,))
    """
    out = []
    for cs, s in zip(chunks, region):
        bounds = itertools.accumulate(cs, initial=0)
        cut = sorted({min(max(b, s.start), s.stop) for b in bounds} | {s.start, s.stop})
        out.append(tuple(b - a for a, b in itertools.pairwise(cut) if b > a))
    return tuple(out)


def _bounds(sizes: Sequence[int]) -> set[int]:
    return set(itertools.accumulate(sizes, initial=0))


def groups(
    chunks: Chunks, blocks: Chunks, itemsize: int, limit: int, joined: Sequence[bool]
) -> Chunks:
    """Groups of whole ``chunks`` (a zarr array's, of one region) of at most ``limit``
    bytes each where they fit, cut where ``blocks`` (the dask array's, on the same
    region) are cut too where that keeps them within it: a group then reads whole
    blocks. Then joined along the axes ``joined`` says (the padded ones), the last
    first, whole where the group fits, then as many as fit along the next.

    A pad's chunks of 6 steps, read in blocks of 12, joined across the padded axes:

    >>> groups(((6, 6, 6, 6), (4,), (8, 360, 8)), ((12, 12), (4,), (8, 360, 8)), 4,
    ...        2**20, (False, True, True))
    ((12, 12), (4,), (376,))

    Blocks too large for ``limit``: the chunks alone, joined where they fit.

    >>> groups(((6, 6, 6), (5, 5)), ((18,), (10,)), 8, 500, (True, True))
    ((6, 6, 6), (10,))
    """
    shared = []
    for cs, bs in zip(chunks, blocks):
        common = sorted(_bounds(cs) & _bounds(bs))
        shared.append(tuple(b - a for a, b in itertools.pairwise(common)))
    if itemsize * math.prod(max(g, default=0) for g in shared) > limit:
        shared = [tuple(cs) for cs in chunks]
    out = list(shared)
    size = itemsize
    for k in range(len(out) - 1, -1, -1):
        cs = out[k]
        if not joined[k]:
            size *= max(cs, default=1)
            continue
        if size * sum(cs) <= limit:
            out[k] = (sum(cs),) if cs else cs
            size *= sum(cs)
            continue
        merged: list[int] = []
        for c in cs:
            if merged and size * (merged[-1] + c) <= limit:
                merged[-1] += c
            else:
                merged.append(c)
        out[k] = tuple(merged)
        break
    return tuple(out)


def chunk_size() -> int:
    import dask
    from dask.utils import parse_bytes

    return int(parse_bytes(dask.config.get("array.chunk-size")))
