"""linear_ramp: pads that ramp from the edge value to an end value.

Each pad block is computed from the edge element of its face (one-element slab) and one
flag per side: numpy switches its arithmetic for the whole side when any ramp there has a
zero step (:func:`ramp_step_is_zero`), so the flag is read from the side's whole edge slab.
The kernel uses ``np.linspace``'s arithmetic, tile by tile (:data:`RAMP_TILE`).
"""

from __future__ import annotations

import functools
import math
from typing import Any, TypeAlias, cast

import dask.array as da
import numpy as np

from daskpad.core.chunks import AFTER, BEFORE, chunk_budget
from daskpad.core.grid import BlockGrid
from daskpad.core.ndarrays import DType, Numbers, Values
from daskpad.core.plan import AxisPlan, PadPlan
from daskpad.core.registry import Mode, register
from daskpad.core.sides import SideChunks, Sides, blockwise_chunks, per_pad_block

#: a block, or dask's nested lists of blocks (a reduction's, with ``concatenate=False``)
Blocks: TypeAlias = Values | list["Blocks"]

# --------------------------------------------------------------------------------------
# the builder
# --------------------------------------------------------------------------------------


def build_ramp(x: BlockGrid, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """linear_ramp: each block from the edge element and one flag per side (numpy switches
    its arithmetic for the whole side when any ramp there has a zero step)."""
    axis, n = ap.axis, ap.length
    ends = ap.pairs["end_values"]
    edges: list[da.Array] = []
    flags: list[da.Array | None] = []
    for side, width in ((BEFORE, ap.before), (AFTER, ap.after)):
        edge = x.slab(axis, 0, 1) if side == BEFORE else x.slab(axis, n - 1, n)
        edges.append(edge)
        if width == 0:
            flags.append(None)
            continue
        flags.append(_ramp_flag(edge, axis, ends[side], width))

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        width = ap.before if side == BEFORE else ap.after
        kwargs = dict(end_value=ends[side], width=width, reverse=side == AFTER, axis=axis)
        # positions within the side: the ramp counts from its outer end
        return blockwise_chunks(
            ramp_block, x, axis, chunks, 0, [edges[side]], kwargs, [(flags[side], ())]
        )

    return per_pad_block(ap, sides, make)


def _ramp_flag(edge: da.Array, axis: int, end_value: Any, width: int) -> da.Array:
    """Whether any ramp of a side has a zero step, from the side's edge slab: one task
    reading every slab block where the slab fits the budget (dask's reduction adds a
    partial task per block, for one boolean), else a reduction tree."""
    kwargs = dict(end_value=end_value, width=width, along=axis)
    if math.prod(edge.shape) * edge.dtype.itemsize <= chunk_budget():
        return cast(
            "da.Array",
            da.blockwise(
                ramp_step_is_zero,
                (),
                edge,
                tuple(range(edge.ndim)),
                concatenate=False,
                dtype=bool,
                meta=np.empty((), dtype=bool),
                **kwargs,
            ),
        )
    return cast(
        "da.Array",
        da.reduction(
            edge,
            functools.partial(ramp_step_is_zero, **kwargs),
            any_of,
            dtype=bool,
            meta=np.empty((), dtype=bool),
            concatenate=False,
        ),
    )


# --------------------------------------------------------------------------------------
# the kernels
# --------------------------------------------------------------------------------------


def _ramp_operands(
    edge: Values, end_value: Any, width: int, axis: int
) -> tuple[DType, Numbers, Numbers]:
    """``(computation dtype, delta, stop)`` exactly as ``numpy.linspace`` forms them."""
    stop: Numbers = np.squeeze(edge, axis=axis)
    dt = np.linspace(end_value, stop, num=0).dtype
    delta = np.subtract(stop, end_value, dtype=type(dt))
    return dt, delta, stop


def ramp_step_is_zero(
    edge: Blocks,
    *,
    end_value: Any,
    width: int,
    along: int,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
) -> Values | np.bool:
    """Whether any ``step`` of the ramps from ``edge`` (a block, or dask's nested lists of
    blocks) is 0: numpy then computes every ramp of that side differently (to protect
    denormals), so this is asked of the whole face. (``axis``/``keepdims`` are dask's
    reduction's, when the face is reduced in a tree; the ramp runs along ``along``.)"""
    if isinstance(edge, list):
        return np.bool_(
            any(ramp_step_is_zero(e, end_value=end_value, width=width, along=along) for e in edge)
        )
    _, delta, _ = _ramp_operands(edge, end_value, width, along)
    flag = np.any(np.asarray(delta / width == 0))
    flags: Values = np.full((1,) * edge.ndim if keepdims else (), flag)
    return flags


def any_of(
    flags: Blocks, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> Values | np.bool:
    """Combine per-block flags (a list of them, or one array) into one."""
    if isinstance(flags, list):
        return np.full((1,) * np.ndim(flags[0]) if keepdims else (), any(np.any(f) for f in flags))
    if keepdims:
        kept: Values = np.any(flags, axis=axis, keepdims=True)
        return kept
    return np.any(flags, axis=axis)


def ramp_block(
    edge: Values,
    any_step_zero: Values,
    *,
    end_value: Any,
    width: int,
    start: int,
    stop: int,
    reverse: bool,
    axis: int,
) -> Values:
    """Elements ``[start, stop)`` of ``numpy.linspace(end_value, edge, width,
    endpoint=False, dtype=edge.dtype)`` along ``axis`` (reversed for the after side), with
    numpy's arithmetic, so that a ramp split over many blocks equals numpy's in every bit.
    """
    dt, delta, _ = _ramp_operands(edge, end_value, width, axis)
    lo, hi = (width - stop, width - start) if reverse else (start, stop)
    # the ramp's positions along ``axis`` (counting down for the after side), so that the
    # values come out in the block's own layout: numpy's operations, element by element
    positions = np.arange(lo, hi, dtype=dt)
    if reverse:
        positions = positions[::-1]
    along = [1] * np.ndim(edge)
    along[axis] = -1
    y: Numbers = positions.reshape(along)
    # (in the computation's dtype: for object data numpy's delta is a Python number,
    # whose arithmetic is not complex128's)
    delta = np.expand_dims(np.asarray(delta, dtype=dt), axis)
    if bool(np.any(any_step_zero)):
        y = y / width  # numpy: y /= div, then y * delta
    else:
        delta = delta / width  # numpy: y * step
    if type(edge) is not np.ndarray:
        values = _ramp_values(y, delta, end_value, edge.dtype)
        if values.dtype == edge.dtype and type(values) is type(edge):
            return values  # computed in the data's own dtype: already the block
        out = np.empty_like(edge, shape=values.shape)
        out[...] = values  # the same cast numpy.pad's assignment performs
        return out
    # numpy: computed a slice of rows at a time, within the CPU's cache, and stored into
    # the block with numpy.pad's cast (in float64 for float32 data with numpy's default
    # end values): the block is written once, with no intermediate of its size
    out = np.empty(np.broadcast_shapes(y.shape, delta.shape), dtype=edge.dtype)
    row = max(math.prod(out.shape[1:]) * np.dtype(dt).itemsize, 1)
    rows = max(RAMP_TILE // row, 1)
    for first in range(0, out.shape[0], rows):
        cut = slice(first, first + rows)
        out[cut] = _ramp_values(_rows(y, cut), _rows(delta, cut), end_value, edge.dtype)
    return out


#: Bytes of a ramp computed at a time: within a core's L2 cache.
RAMP_TILE = 1 << 19


def _rows(a: Numbers, cut: slice) -> Numbers:
    """Rows ``cut`` of an operand that may broadcast along the first axis."""
    return a[cut] if a.shape[0] > 1 else a


def _ramp_values(y: Numbers, delta: Numbers, end_value: Any, dtype: DType) -> Numbers:
    """numpy.linspace's last steps, ``y * delta + start`` (floored for integer data), in
    the computation's dtype."""
    values: Numbers = y * delta
    values += end_value
    if np.issubdtype(dtype, np.integer):
        np.floor(values, out=values)
    return values


register([Mode("linear_ramp", "ramp")], build_ramp)
