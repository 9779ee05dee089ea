"""Per-axis graph builders: edge slab -> boundary blocks -> concatenate.

Axes are padded one after another, in numpy's order, each on the array that already carries
the pads of the earlier axes, so corners come out as numpy's by construction. For one axis,
a builder returns the blocks before and after the array along that axis; each block is
computed by a kernel (:mod:`daskpad._kernels`) from the few input elements its mode needs,
sliced out of the edge chunks first (overlap style). The interior is never touched.

Here are the builders of the fill, copying, ramp and user-function modes, and
:func:`pad_axes`, which runs them axis by axis; the statistics' builder is in
:mod:`daskpad._statistics`, and the blockwise layers every builder makes a side with are in
:mod:`daskpad._sides`.

Only public dask collection operations are used (slicing, ``blockwise``, ``map_blocks``,
``concatenate``, ``rechunk``, reductions), so the same code builds classic graphs and dask's
array query-planning expressions.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import Any, cast

import dask.array as da
import numpy as np
from dask.array.core import normalize_chunks

from . import _kernels as k
from . import _line_kernels as lk
from ._assemble import Grid, blocks_from_nothing, regrid
from ._chunks import (
    AFTER,
    BEFORE,
    chunk_budget,
    merge_slivers,
    output_chunks,
    pad_layout,
)
from ._dask import query_planning
from ._modes import EdgeFunction
from ._normalize import AxisPlan, PadPlan
from ._programs import fill_program, needed_ranges, run_starts
from ._sides import (
    Frame,
    SideChunks,
    Sides,
    blockwise_along,
    blockwise_chunks,
    face_block_nbytes,
    per_pad_block,
    with_axis,
)
from ._statistics import build_stat, share_partials

# --------------------------------------------------------------------------------------
# builders, one per family of modes (see daskpad._modes)
# --------------------------------------------------------------------------------------


def build_fill(x: Frame, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """constant and empty: blocks made from nothing but the value."""
    empty = plan.fill_empty

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        value = None if empty else ap.values[side]
        if not query_planning():
            return blocks_from_nothing(
                "fill_block",
                with_axis(x, ap.axis, chunks),
                k.fill_block,
                x._meta,
                like=x._meta,
                value=value,
                fill=not empty,
            )
        return cast(
            "da.Array",
            da.map_blocks(
                k.fill_block,
                chunks=with_axis(x, ap.axis, chunks),
                dtype=x.dtype,
                meta=x._meta,
                like=x._meta,
                value=value,
                fill=not empty,
            ),
        )

    return per_pad_block(ap, sides, make)


def build_gather(x: Frame, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """edge, reflect, symmetric, wrap: each block reads the input elements it maps to."""
    assert plan.mode is not None
    program = fill_program(plan.mode.name, ap.length, ap.before, ap.after, plan.reflect_type)
    bounds = np.cumsum((0, *x.chunks[ap.axis]))

    def spans(start: int, stop: int) -> list[tuple[int, int, int]]:
        """The input elements padded positions ``[start, stop)`` map to, as one span
        ``(chunk, lo, hi)`` per input chunk they fall in, from the first to the last
        element needed there."""
        found: dict[int, tuple[int, int]] = {}  # chunk -> (first, last + 1) needed in it
        for a, b in needed_ranges(program, start, stop):
            first = int(np.searchsorted(bounds, a, side="right")) - 1
            last = int(np.searchsorted(bounds, b - 1, side="right")) - 1
            for c in range(first, last + 1):
                lo, hi = max(a, int(bounds[c])), min(b, int(bounds[c + 1]))
                old = found.get(c, (lo, hi))
                found[c] = (min(old[0], lo), max(old[1], hi))
        return [(c, lo, hi) for c, (lo, hi) in sorted(found.items())]

    def layer(chunks: tuple[int, ...], offset: int, found: list[tuple[int, int, int]]) -> da.Array:
        """Blocks ``chunks`` from ``offset`` on, each reading the slabs ``found``."""
        pieces = [x.slab(ap.axis, lo, hi) for _c, lo, hi in found]
        starts = tuple(lo for _c, lo, _hi in found)
        kwargs = dict(axis=ap.axis, piece_starts=starts, program=program)
        return blockwise_chunks(k.gather_block, x, ap.axis, chunks, offset, pieces, kwargs)

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        if not query_planning():
            # each block reads only the grid blocks it maps to, cut inside its own task
            kwargs = dict(program=program)
            return x.side_from_spans(ap.axis, chunks, offset, spans, k.gather_block, kwargs)
        side_spans = spans(offset, offset + sum(chunks))
        length = sum(hi - lo for _c, lo, hi in side_spans)
        if len(chunks) == 1 or face_block_nbytes(x, ap.axis, length) <= chunk_budget():
            # every block of this side reads the same few slabs: one layer for the side
            return layer(chunks, offset, side_spans)
        # a side so wide that its slabs exceed the budget: each block reads only its own
        limits = np.cumsum((offset, *chunks)).tolist()
        blocks = [layer((hi - lo,), lo, spans(lo, hi)) for lo, hi in itertools.pairwise(limits)]
        return cast("da.Array", da.concatenate(blocks, axis=ap.axis))

    return per_pad_block(ap, sides, make)


def build_ramp(x: Frame, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """linear_ramp: each block from the edge element and one flag per side (numpy switches
    its arithmetic for the whole side when any ramp there has a zero step)."""
    axis, n = ap.axis, ap.length
    edges: list[da.Array] = []
    flags: list[da.Array | None] = []
    for side, width in ((BEFORE, ap.before), (AFTER, ap.after)):
        edge = x.slab(axis, 0, 1) if side == BEFORE else x.slab(axis, n - 1, n)
        edges.append(edge)
        if width == 0:
            flags.append(None)
            continue
        flags.append(_ramp_flag(edge, axis, ap.values[side], width))

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        width = ap.before if side == BEFORE else ap.after
        kwargs = dict(end_value=ap.values[side], width=width, reverse=side == AFTER, axis=axis)
        # positions within the side: the ramp counts from its outer end
        return blockwise_chunks(
            k.ramp_block, x, axis, chunks, 0, [edges[side]], kwargs, [(flags[side], ())]
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
                k.ramp_step_is_zero,
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
            functools.partial(k.ramp_step_is_zero, **kwargs),
            k.any_of,
            dtype=bool,
            meta=np.empty((), dtype=bool),
            concatenate=False,
        ),
    )


def build_edge_function(x: Frame, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """A user function that promised to read only ``reads`` values next to each edge and
    to write only the pads (:func:`daskpad.edge_function`): one task per face block calls
    it on lines made of the pads and those values, and each side takes its pads."""
    function = plan.function
    assert isinstance(function, EdgeFunction)
    axis, n = ap.axis, ap.length
    reads = max(min(function.reads, n), 1)  # at least one value: the pieces carry the face
    ranges = [(0, n)] if 2 * reads >= n else [(0, reads), (n - reads, n)]
    kwargs = dict(
        axis=axis,
        length=n,
        iaxis_pad_width=(ap.before, ap.after),
        piece_starts=tuple(lo for lo, _hi in ranges),
        function=function,
        kwargs=plan.function_kwargs,
    )
    pieces = [x.slab(axis, lo, hi) for lo, hi in ranges]
    pads = blockwise_along(lk.edge_function_pads, x, axis, ap.before + ap.after, pieces, kwargs)

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        start = 0 if side == BEFORE else ap.before
        part = pads[(slice(None),) * axis + (slice(start, start + sum(chunks)),)]
        return regrid(part, with_axis(x, axis, chunks))

    return per_pad_block(ap, sides, make)


BUILDERS: dict[str, Callable[[Frame, AxisPlan, PadPlan, SideChunks], Sides]] = {
    "fill": build_fill,
    "gather": build_gather,
    "ramp": build_ramp,
    "stat": build_stat,
    "edge_function": build_edge_function,
}


# --------------------------------------------------------------------------------------
# the whole array
# --------------------------------------------------------------------------------------


def _views(
    input_chunks: tuple[tuple[int, ...], ...], plan: PadPlan
) -> Callable[[int, int], list[int] | None]:
    """For the even copying modes, where each pad side must be cut so that every block is
    a view of one input block (see :func:`daskpad._chunks.pad_layout`); None for the other
    modes. Each axis is padded after the earlier ones, which leaves its own chunks as they
    were."""

    def align(axis: int, side: int) -> list[int] | None:
        ap, sub = plan.along(axis)
        if sub.builder != "gather" or sub.reflect_type == "odd" or sub.mode is None:
            return None
        if sub.mode.name == "edge":
            return None  # every edge block is a broadcast of one element: any cut will do
        program = fill_program(sub.mode.name, ap.length, ap.before, ap.after, sub.reflect_type)
        bounds = np.cumsum((0, *input_chunks[axis])).tolist()
        end = ap.before + ap.length
        start, stop = (0, ap.before) if side == BEFORE else (end, end + ap.after)
        return cast(
            "list[int] | None", (run_starts(program, bounds, start, stop) - start).tolist()
        )

    return align


def pad_axes(x: da.Array, plan: PadPlan, chunks: Any = None) -> da.Array:
    """Pad every axis in numpy's order; each axis reads the result of the ones before,
    with its own mode where the plan has a mode per axis.

    The pad sides' chunks come from :mod:`daskpad._chunks`: from the budget by default, cut
    at the output chunks' boundaries when ``chunks`` asks for output chunks, so that each
    output block is assembled from whole pad blocks and the input blocks it overlaps.
    """
    widths = [(ap.before, ap.after) for ap in plan.axes]
    target = output_chunks(chunks, x.chunks, plan.new_shape, x.dtype, widths)
    numpy_blocks = type(x._meta) is np.ndarray
    views = [
        numpy_blocks and sub.mode is not None and sub.mode.views
        for sub in (plan.along(axis)[1] for axis in range(x.ndim))
    ]
    layout = pad_layout(x.chunks, x.dtype.itemsize, widths, target, _views(x.chunks, plan), views)
    grid = Grid(x)
    share_partials(grid, [plan.along(axis) for axis in range(x.ndim)])
    for axis in range(x.ndim):
        ap, sub = plan.along(axis)
        if ap.padded:
            grid.add(axis, *BUILDERS[sub.builder](grid, ap, sub, layout[axis]))
    if isinstance(chunks, str) and chunks == "merge":
        target = merge_slivers(tuple(grid.chunks), dict(enumerate(widths)))
    return grid.assemble(target)


def whole_along(x: da.Array, axis: int) -> tuple[tuple[int, ...], ...]:
    """Chunks whole along ``axis``, the other axes cut so one block fits the budget."""
    wanted: dict[int, Any] = {i: (-1 if i == axis else "auto") for i in range(x.ndim)}
    if 0 in x.shape:
        return tuple((n,) if i == axis else c for i, (n, c) in enumerate(zip(x.shape, x.chunks)))
    # dask sizes "auto" chunks from the itemsize, which object arrays do not have: count
    # each element as a pointer
    dtype = np.dtype(np.intp) if x.dtype.kind == "O" else x.dtype
    return cast(
        "tuple[tuple[int, ...], ...]",
        normalize_chunks(
            tuple(wanted[i] for i in range(x.ndim)),
            x.shape,
            limit=chunk_budget(),
            dtype=dtype,
            previous_chunks=x.chunks,
        ),
    )
