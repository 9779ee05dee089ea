"""edge: pads that repeat the edge value.

A copying mode like reflect, symmetric and wrap, with a builder and a kernel of its own:
each pad block is a read-only broadcast of the one-element edge slab of its face (the
first element along the axis before it, the last after it), so its chunks grow to the
budget and any cut of the side will do. No fill program is needed: the element a block
repeats is known from its side alone, so building a block costs one slice and running it
one broadcast, whatever the width.
"""

from __future__ import annotations

from collections.abc import Sequence

import dask.array as da
import numpy as np

from daskpad.core.chunks import BEFORE
from daskpad.core.grid import BlockGrid
from daskpad.core.ndarrays import Values
from daskpad.core.plan import AxisPlan, PadPlan
from daskpad.core.registry import Mode, register
from daskpad.core.sides import SideChunks, Sides, per_pad_block, side_from_spans


def build_edge(x: BlockGrid, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """The pad sides of ``ap.axis``: every block of a side reads the same one element of
    the axis (its first before the array, its last after), from the one input chunk
    holding it."""
    bounds = np.cumsum((0, *x.chunks[ap.axis]))

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        at = 0 if side == BEFORE else ap.length - 1
        # the chunk holding element ``at`` (the last of those starting at or before it,
        # so that empty chunks are passed over)
        chunk = int(np.searchsorted(bounds, at, side="right")) - 1
        found = [(chunk, at, at + 1)]

        def spans(start: int, stop: int) -> list[tuple[int, int, int]]:
            return found

        return side_from_spans(x, ap.axis, chunks, offset, spans, edge_block)

    return per_pad_block(ap, sides, make)


def edge_block(
    piece: Values, *, axis: int, piece_starts: Sequence[int], start: int, stop: int
) -> Values:
    """Padded positions ``[start, stop)`` along ``axis`` of an edge pad: ``piece``, one
    element long along ``axis`` (the edge slab of the face), repeated ``stop - start``
    times. numpy blocks get a read-only broadcast view, as ``dask.array.broadcast_to``
    makes; other array types (a masked array, cupy's) a copy by indexing, which keeps
    their own type and mask."""
    length = stop - start
    if type(piece) is np.ndarray:
        shape = (*piece.shape[:axis], length, *piece.shape[axis + 1 :])
        return np.broadcast_to(piece, shape)
    repeated = (slice(None),) * axis + (np.zeros(length, dtype=np.intp),)
    return piece[repeated]


register(
    [
        Mode(
            "edge",
            "edge",
            views=True,
            copies=True,
            words={"scipy": ("nearest",), "dask": ("nearest",), "torch": ("replicate",)},
        )
    ],
    build_edge,
)
