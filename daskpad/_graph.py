"""Per-axis graph builders: edge slab -> boundary blocks -> concatenate.

Axes are padded one after another, in numpy's order, each on the array that already carries
the pads of the earlier axes, so corners come out as numpy's by construction. For one axis,
a builder returns the blocks before and after the array along that axis; each block is
computed by a kernel (:mod:`daskpad._kernels`) from the few input elements its mode needs,
sliced out of the edge chunks first (overlap style). The interior is never touched.

Only public dask collection operations are used (slicing, ``blockwise``, ``map_blocks``,
``concatenate``, ``rechunk``, reductions), so the same code builds classic graphs and dask's
array query-planning expressions.
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, cast

import dask.array as da
import numpy as np
from dask.array.core import PerformanceWarning, normalize_chunks
from dask.array.utils import meta_from_array

from . import _kernels as k
from . import _line_kernels as lk
from ._assemble import Grid, block_index, blocks_from_nothing, regrid
from ._chunks import (
    AFTER,
    BEFORE,
    chunk_budget,
    face_nbytes,
    merge_slivers,
    near_equal,
    output_chunks,
    pad_layout,
)
from ._dask import marked, query_planning
from ._modes import EdgeFunction
from ._normalize import AxisPlan, PadPlan
from ._programs import fill_program, needed_ranges, run_starts

Sides = tuple[da.Array | None, da.Array | None]
SideChunks = tuple[tuple[int, ...], tuple[int, ...]]  # a pad side's chunks, before and after
# Builders read the array padded so far through a Grid: its chunks, dtype, meta and slabs.
Frame = Grid


def _with_axis(
    x: Frame | da.Array, axis: int, chunks: Sequence[int]
) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(chunks) if i == axis else c for i, c in enumerate(x.chunks))


def _per_pad_block(
    ap: AxisPlan,
    sides: SideChunks,
    make: Callable[[int, tuple[int, ...], int], da.Array],
) -> Sides:
    """For each side with a pad, ``make(side, chunks, offset)`` builds its blocks:
    ``chunks`` along the axis (from :func:`daskpad._chunks.pad_layout`), ``offset`` where
    the side starts in padded coordinates."""
    result: list[da.Array | None] = []
    for side, width, offset in ((BEFORE, ap.before, 0), (AFTER, ap.after, ap.before + ap.length)):
        result.append(make(side, sides[side], offset) if width else None)
    return result[0], result[1]


def _contracted(ndim: int, along: int, inputs: Sequence[da.Array]) -> list[Any]:
    """blockwise arguments for ``inputs``, each seen whole along ``along``: every input gets
    its own contracted symbol there, since their lengths differ."""
    args: list[Any] = []
    for j, a in enumerate(inputs):
        args += [a, tuple(ndim + 1 + j if i == along else i for i in range(ndim))]
    return args


def _blockwise_chunks(
    kernel: Callable[..., Any],
    like: Frame | da.Array,
    along: int,
    chunks: tuple[int, ...],
    offset: int,
    inputs: Sequence[da.Array],
    kwargs: dict[str, Any],
    extra: Sequence[tuple[Any, Any]] = (),
) -> da.Array:
    """All blocks of one pad side in one layer: for each output chunk along ``along`` and
    each face block of ``like``, ``kernel(*inputs, *extra, start=, stop=, **kwargs)`` with
    each input whole along ``along``; ``start``/``stop`` are the chunk's padded positions.
    A tiny block-index array tells each task which chunk it computes."""
    ndim = like.ndim
    out = tuple(ndim if i == along else i for i in range(ndim))
    args = [block_index(len(chunks)), (ndim,), *_contracted(ndim, along, inputs)]
    for pair in extra:
        args += list(pair)
    # an array, not a tuple: dask walks tuples in kwargs looking for collections
    bounds = np.cumsum((offset, *chunks), dtype=np.int64)
    with warnings.catch_warnings():
        # the side has more blocks than the slabs it reads: that is the point, not a problem
        warnings.simplefilter("ignore", PerformanceWarning)
        return cast(
            "da.Array",
            da.blockwise(
                k.per_chunk,
                out,
                *args,
                new_axes={ndim: tuple(chunks)},  # one chunk per block of the index
                dtype=like.dtype,
                meta=meta_from_array(like._meta, ndim=ndim),
                token=kernel.__name__,
                kernel=kernel,
                bounds=bounds,
                along=along,
                **kwargs,
            ),
        )


def _blockwise_along(
    kernel: Callable[..., Any],
    like: Frame | da.Array,
    along: int,
    size: int,
    inputs: Sequence[da.Array],
    kwargs: dict[str, Any],
) -> da.Array:
    """One task per face block of ``like``: ``kernel`` sees each input whole along axis
    ``along`` and returns a block of ``size`` there. ``kwargs`` go to the kernel."""
    ndim = like.ndim
    out = tuple(ndim if i == along else i for i in range(ndim))
    return cast(
        "da.Array",
        da.blockwise(
            k.along_axis,
            out,
            *_contracted(ndim, along, inputs),
            new_axes={ndim: size},
            dtype=like.dtype,
            meta=meta_from_array(like._meta, ndim=ndim),
            token=kernel.__name__,
            kernel=kernel,
            along=along,
            **kwargs,
        ),
    )


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
                _with_axis(x, ap.axis, chunks),
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
                chunks=_with_axis(x, ap.axis, chunks),
                dtype=x.dtype,
                meta=x._meta,
                like=x._meta,
                value=value,
                fill=not empty,
            ),
        )

    return _per_pad_block(ap, sides, make)


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
        return _blockwise_chunks(k.gather_block, x, ap.axis, chunks, offset, pieces, kwargs)

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        if not query_planning():
            # each block reads only the grid blocks it maps to, cut inside its own task
            kwargs = dict(program=program)
            return x.side_from_spans(ap.axis, chunks, offset, spans, k.gather_block, kwargs)
        side_spans = spans(offset, offset + sum(chunks))
        length = sum(hi - lo for _c, lo, hi in side_spans)
        if len(chunks) == 1 or _face_block_nbytes(x, ap.axis, length) <= chunk_budget():
            # every block of this side reads the same few slabs: one layer for the side
            return layer(chunks, offset, side_spans)
        # a side so wide that its slabs exceed the budget: each block reads only its own
        limits = np.cumsum((offset, *chunks)).tolist()
        blocks = [layer((hi - lo,), lo, spans(lo, hi)) for lo, hi in itertools.pairwise(limits)]
        return cast("da.Array", da.concatenate(blocks, axis=ap.axis))

    return _per_pad_block(ap, sides, make)


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
        return _blockwise_chunks(
            k.ramp_block, x, axis, chunks, 0, [edges[side]], kwargs, [(flags[side], ())]
        )

    return _per_pad_block(ap, sides, make)


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


def _face_block_nbytes(x: Frame | da.Array, axis: int, length: int) -> int:
    return face_nbytes(x.chunks, axis, x.dtype.itemsize) * length


def _statistic(x: Frame, axis: int, start: int, stop: int, stat: str) -> da.Array:
    """The statistic of ``x[start:stop]`` along ``axis``, length one there, in x's dtype.

    A median needs whole lines, so a long slab is read in stripes across the face. Two
    axes' medians read every block of the input in crossing stripes (columns, then rows),
    which would keep the input in memory until both are done; so every long median after
    the first reads the input again, from a fresh copy, when the input is larger than
    ``COPY_ABOVE`` budgets."""
    copy = False
    if stat == "median" and _long_slab(x, axis, start, stop):
        nbytes = int(np.prod(x.x.shape, dtype=np.int64)) * x.dtype.itemsize
        copy = x.copies > 0 and nbytes > COPY_ABOVE * chunk_budget()
        x.copies += 1
    fn = functools.partial(_slab_statistic, axis=axis, stat=stat)
    on_input = None
    shared = x.shared_partials.get(stat)
    if shared is not None and axis in shared[1] and (start, stop) == (0, x.x.shape[axis]):
        on_input = functools.partial(_slab_statistic, axis=axis, stat=stat, shared=shared)
    return x.map_slab(axis, start, stop, fn, copy=copy, on_input=on_input)


def share_partials(x: Frame, plan: PadPlan) -> None:
    """Where maximum, mean or minimum reads the whole input along two axes or more (the
    default ``stat_length``), each input block's partials along all of them are computed
    in one task, instead of one task per axis (classic graphs; each combining task then
    picks its axis's share: see :func:`_slab_statistic`)."""
    stat = plan.mode.stat if plan.mode is not None else None
    if stat not in ("amax", "amin", "mean") or query_planning():
        return

    def whole(ap: AxisPlan) -> bool:
        """Every padded side of the axis reads the whole axis, in more than two chunks
        (fewer are read in one task per face block: :func:`_slab_statistic`)."""
        if not ap.padded or ap.stat_length is None or len(x.x.chunks[ap.axis]) <= 2:
            return False
        sides = [s for s, w in zip(ap.stat_length, (ap.before, ap.after)) if w]
        return all(s == ap.length for s in sides)

    axes = tuple(ap.axis for ap in plan.axes if whole(ap))
    if len(axes) < 2:
        return
    acc = k.mean_accumulator(x.dtype) if stat == "mean" else x.dtype
    ind = tuple(range(x.ndim))
    both = da.blockwise(
        k.partials_along,
        ind,
        x.x,
        ind,
        dtype=object,
        meta=np.empty((0,) * x.ndim, dtype=object),
        stat=stat,
        axes=axes,
        acc=acc,
    )
    x.shared_partials[stat] = (both, axes)


COPY_ABOVE = 4  # budgets: a median reading crossing stripes of a larger input reads a copy


def _long_slab(x: Frame, axis: int, start: int, stop: int) -> bool:
    """Whether ``[start:stop]`` along ``axis`` spans more than two of x's input chunks."""
    bounds = np.cumsum((0, *x.x.chunks[axis]))
    first = int(np.searchsorted(bounds, start, side="right"))
    last = int(np.searchsorted(bounds, stop, side="left"))
    return last - first + 1 > 2


def _slab_statistic(
    slab: da.Array, axis: int, stat: str, shared: tuple[da.Array, tuple[int, ...]] | None = None
) -> da.Array:
    length = slab.shape[axis]
    fits = _face_block_nbytes(slab, axis, length) <= chunk_budget()
    if shared is None and fits and (stat == "median" or len(slab.chunks[axis]) <= 2):
        # an edge slab: numpy's own function on the slab of each face block, in one task.
        # (A slab over many chunks goes through per-block partials instead even when it
        # would fit: one task reading a whole row of blocks makes the scheduler hold them
        # all, so padding a large array would hold most of it in memory.)
        return _blockwise_along(k.stat_block, slab, axis, 1, [slab], dict(stat=stat, axis=axis))
    meta = meta_from_array(slab._meta, ndim=slab.ndim)
    if stat == "median":
        # median needs whole lines: cut the face blocks narrower (never joining two) until
        # one narrow slab fits the budget, take the median of each, and join the results
        narrow = regrid(slab, narrow_face(slab, axis))
        median = _blockwise_along(
            k.stat_block, narrow, axis, 1, [narrow], dict(stat=stat, axis=axis)
        )
        return regrid(median, _with_axis(slab, axis, (1,)))
    # maximum, minimum, mean: one partial per block, then one combining task per face block
    # (a dask tree reduction when even the partials of one face block exceed the budget)
    acc = k.mean_accumulator(slab.dtype) if stat == "mean" else slab.dtype
    ind = tuple(range(slab.ndim))
    finish = dict(stat=stat, axis=axis, count=length, out_dtype=slab.dtype)
    parts_fit = face_nbytes(slab.chunks, axis, acc.itemsize) * len(slab.chunks[axis])
    if shared is not None:  # this axis's share of the partials computed with the others'
        both, axes = shared
        which = axes.index(axis)
        if parts_fit <= chunk_budget():
            # each combining task picks its share of the blocks' partials itself
            finish = {**finish, "pick": which}
            return _blockwise_along(k.combine_statistic, slab, axis, 1, [both], finish)
        kernel: Callable[..., Any] = k.pick
        source, extra = both, dict[str, Any](which=which)
    else:
        kernel, source, extra = k.partial_statistic, slab, dict(stat=stat, axis=axis, acc=acc)
    partial = da.blockwise(
        kernel,
        ind,
        source,
        ind,
        adjust_chunks={axis: 1},
        dtype=acc,
        meta=np.empty((0,) * slab.ndim, dtype=acc),
        **extra,
    )
    if shared is None and parts_fit <= chunk_budget():
        return _blockwise_along(k.combine_statistic, slab, axis, 1, [partial], finish)
    reduce = {"amax": da.max, "amin": da.min, "mean": da.sum}[stat]
    total = reduce(partial, axis=axis, keepdims=True)
    return cast(
        "da.Array",
        da.map_blocks(k.combine_statistic, total, meta=meta, dtype=slab.dtype, **finish),
    )


def narrow_face(x: da.Array, axis: int) -> tuple[tuple[int, ...], ...]:
    """``x``'s chunks with the face blocks (the axes other than ``axis``) cut narrower, each
    into near-equal parts, until a face block times the length along ``axis`` fits the
    budget (or is one line): the widest face axis is cut first. Blocks are only ever cut,
    so each new block lies in one old one.
    """
    line = max(x.shape[axis], 1) * max(x.dtype.itemsize, 1)
    most = max(chunk_budget() // line, 1)  # face elements one narrow slab may hold
    face = [i for i in range(x.ndim) if i != axis]
    size = {i: max(x.chunks[i], default=1) or 1 for i in face}
    while face and int(np.prod([size[i] for i in face], dtype=np.int64)) > most:
        widest = max(face, key=lambda i: (size[i], i))
        others = int(np.prod([size[i] for i in face if i != widest], dtype=np.int64))
        # as wide as fits next to the others, or half as wide when even that is too much
        size[widest] = max(most // others, 1) if others <= most else -(-size[widest] // 2)

    return tuple(
        c if i == axis else tuple(p for b in c for p in near_equal(b, size[i]))
        for i, c in enumerate(x.chunks)
    )


#: the mark (daskpad._dask.marked) of the statistics a pad side repeats
STATISTIC = "statistic"


def build_stat(x: Frame, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """maximum, mean, median, minimum: one statistic per side and face block, repeated."""
    assert plan.mode is not None and plan.mode.stat is not None and ap.stat_length
    axis, n = ap.axis, ap.length
    stat = plan.mode.stat
    length_before, length_after = ap.stat_length
    before = _statistic(x, axis, 0, length_before, stat) if ap.before else None
    after: da.Array | None
    if length_before == length_after == n and before is not None:
        after = before  # both sides read the whole axis
    else:
        after = _statistic(x, axis, n - length_after, n, stat) if ap.after else None
    # marked, so that a tiled store finds them and computes them first (daskpad._settle)
    stats = [marked(s, STATISTIC) if s is not None else None for s in (before, after)]

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        stat_ = stats[side]
        assert stat_ is not None
        return _blockwise_chunks(k.repeat_block, x, axis, chunks, 0, [stat_], dict(axis=axis))

    return _per_pad_block(ap, sides, make)


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
    pads = _blockwise_along(lk.edge_function_pads, x, axis, ap.before + ap.after, pieces, kwargs)

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        start = 0 if side == BEFORE else ap.before
        part = pads[(slice(None),) * axis + (slice(start, start + sum(chunks)),)]
        return regrid(part, _with_axis(x, axis, chunks))

    return _per_pad_block(ap, sides, make)


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
) -> Callable[[int, int], list[int] | None] | None:
    """For the even copying modes, where each pad side must be cut so that every block is
    a view of one input block (see :func:`daskpad._chunks.pad_layout`); None otherwise.
    Each axis is padded after the earlier ones, which leaves its own chunks as they were."""
    if plan.builder != "gather" or plan.reflect_type == "odd" or plan.mode is None:
        return None
    mode = plan.mode.name
    if mode == "edge":
        return None  # every edge block is a broadcast of one element: any cut will do

    def align(axis: int, side: int) -> list[int] | None:
        ap = plan.axes[axis]
        program = fill_program(mode, ap.length, ap.before, ap.after, plan.reflect_type)
        bounds = np.cumsum((0, *input_chunks[axis])).tolist()
        end = ap.before + ap.length
        start, stop = (0, ap.before) if side == BEFORE else (end, end + ap.after)
        return cast(
            "list[int] | None", (run_starts(program, bounds, start, stop) - start).tolist()
        )

    return align


def pad_axes(x: da.Array, plan: PadPlan, chunks: Any = None) -> da.Array:
    """Pad every axis in numpy's order; each axis reads the result of the ones before.

    The pad sides' chunks come from :mod:`daskpad._chunks`: from the budget by default, cut
    at the output chunks' boundaries when ``chunks`` asks for output chunks, so that each
    output block is assembled from whole pad blocks and the input blocks it overlaps.
    """
    builder = BUILDERS[plan.builder]
    widths = [(ap.before, ap.after) for ap in plan.axes]
    target = output_chunks(chunks, x.chunks, plan.new_shape, x.dtype, widths)
    views = plan.mode is not None and plan.mode.views and type(x._meta) is np.ndarray
    layout = pad_layout(x.chunks, x.dtype.itemsize, widths, target, _views(x.chunks, plan), views)
    grid = Grid(x)
    if plan.builder == "stat":
        share_partials(grid, plan)
    for ap in plan.axes:
        if ap.padded:
            grid.add(ap.axis, *builder(grid, ap, plan, layout[ap.axis]))
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
