"""constant and empty: pads made from nothing but a value (or left as allocated).

The builder makes each pad block from the value alone, reading no input block; a block of
numpy is a read-only broadcast of one element (:func:`fill_block`), so its chunks grow to
the budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import dask.array as da
import numpy as np

from daskpad.core.grid import BlockGrid, blocks_from_nothing
from daskpad.core.ndarrays import Numbers, Values
from daskpad.core.plan import AxisPlan, PadPlan
from daskpad.core.registry import Mode, register
from daskpad.core.sides import SideChunks, Sides, per_pad_block, with_axis

# --------------------------------------------------------------------------------------
# the builder
# --------------------------------------------------------------------------------------


def build_fill(x: BlockGrid, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """constant and empty: blocks made from nothing but the value."""
    empty = plan.fill_empty

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        value = None if empty else ap.pairs["constant_values"][side]
        return blocks_from_nothing(
            "fill_block",
            with_axis(x, ap.axis, chunks),
            fill_block,
            x._meta,
            like=x._meta,
            value=value,
            fill=not empty,
        )

    return per_pad_block(ap, sides, make)


# --------------------------------------------------------------------------------------
# the kernel
# --------------------------------------------------------------------------------------


def fill_block(
    *,
    like: Values,
    value: object,
    fill: bool,
    shape: tuple[int, ...] | None = None,
    block_info: Mapping[int | None, Mapping[str, Any]] | None = None,
) -> Values:
    """A block of ``shape`` (or the chunk shape given by dask), filled with ``value`` (or
    left empty); for numpy, a read-only broadcast view of one element, as dask's own
    ``broadcast_to`` makes (every pad block is read-only:
    :func:`daskpad.core.kernels.read_only`)."""
    if shape is None:
        assert block_info is not None
        shape = block_info[None]["chunk-shape"]
    view = type(like) is np.ndarray
    out: Numbers = np.empty_like(like, shape=(1,) * len(shape) if view else shape)
    if fill:
        out[...] = value  # numpy.pad assigns too: the same casting rules apply
    return np.broadcast_to(out, tuple(shape)) if view else out


register(
    [
        Mode(
            "constant",
            "fill",
            needs_data=False,
            views=True,
            words={"scipy": ("constant", "grid-constant"), "torch": ("constant", "zeros")},
        ),
        Mode("empty", "fill", needs_data=False, views=True),
    ],
    build_fill,
)
