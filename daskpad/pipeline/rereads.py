"""How many of SRC's stored chunks a write on zarr's regular grid reads more than once,
counted in the computations it would run, nothing computed
(:meth:`daskpad.store.writing.tile_plans.TilePlan.task_runs`); ``daskpad pad --dry-run``
says it.

A write reads a chunk again where it does not hold it: the block beside a pad that reads
the far end of the axis (a wrapped pad) or a statistic of it, unless the memory budget
holds those blocks, and the blocks along the edges of tiles, each read by the tiles on
both sides.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class ReadAgain:
    """Of one variable's stored chunks: how many are read more than once, of how many,
    and the most times one is read."""

    name: Hashable
    again: int
    chunks: int
    most: int


def chunks_read_again(ds: Any, runs: Mapping[Hashable, int]) -> list[ReadAgain]:
    """Per dask-backed variable of ``ds`` (SRC as opened: its dask arrays are the reads of
    its chunks), how often its stored chunks are read, ``runs`` saying how many times each
    task runs: a chunk is read once by every run of a block that overlaps it."""
    out = []
    for name, var in ds.variables.items():
        if var.chunks is None or var.ndim == 0:
            continue
        x = var.data
        sizes = stored_chunks(var)
        edges = [np.cumsum((0, *c)) for c in x.chunks]
        counts = np.zeros([-(-n // c) if n else 0 for n, c in zip(var.shape, sizes)], int)
        for index in np.ndindex(*x.numblocks):
            n = runs.get((x.name, *index), 0)
            if n:
                where = tuple(
                    slice(int(e[i]) // c, -(-int(e[i + 1]) // c))
                    for e, i, c in zip(edges, index, sizes)
                )
                counts[where] += n
        out.append(
            ReadAgain(name, int((counts > 1).sum()), counts.size, int(counts.max(initial=0)))
        )
    return out


def stored_chunks(var: Any) -> Sequence[int]:
    """The shape of ``var``'s stored chunks (a sharded array's inner chunks: what zarr
    decodes), from its encoding; its largest blocks where the encoding has none (a
    contiguous netCDF variable)."""
    for key in ("chunks", "chunksizes"):
        got = var.encoding.get(key)
        if got is not None and len(got) == var.ndim:
            return [max(1, int(c)) for c in got]
    return [max((int(b) for b in c), default=1) or 1 for c in var.chunks]


def said(found: Sequence[ReadAgain]) -> str:
    """What :func:`chunks_read_again` found, in words."""
    again = sorted((f for f in found if f.again), key=lambda f: str(f.name))
    if not again:
        return "each chunk of SRC is read once at most"
    width = max(len(str(f.name)) for f in again)
    lines = ["chunks of SRC read more than once (a larger --memory holds more of them):"]
    for f in again:
        times = "twice" if f.most == 2 else f"up to {f.most} times"
        lines.append(f"  {f.name!s:<{width}}  {f.again} of {f.chunks} chunks, {times}")
    return "\n".join(lines)
