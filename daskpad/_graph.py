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
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import dask
import dask.array as da
import numpy as np
from dask.array.core import normalize_chunks
from dask.utils import parse_bytes

from . import _kernels as k
from ._modes import MODES
from ._normalize import AxisPlan, PadPlan

Sides = tuple[da.Array | None, da.Array | None]

BEFORE, AFTER = 0, 1


def chunk_budget() -> int:
    """Bytes one task may hold per input or output block: dask's ``array.chunk-size``."""
    return int(parse_bytes(dask.config.get("array.chunk-size")))


def pad_chunks(width: int, neighbour: int, side: int) -> tuple[int, ...]:
    """Chunks of a pad region: none larger than the neighbouring edge chunk.

    The remainder goes to the outer end, so the blocks next to the data are full.
    """
    if width == 0:
        return ()
    limit = neighbour if neighbour > 0 else width
    full, rest = divmod(width, limit)
    chunks = (limit,) * full
    if rest:
        chunks = (rest, *chunks) if side == BEFORE else (*chunks, rest)
    return chunks


def _take(x: da.Array, axis: int, start: int, stop: int) -> da.Array:
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop)
    return x[tuple(index)]


def _with_axis(x: da.Array, axis: int, chunks: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(chunks) if i == axis else c for i, c in enumerate(x.chunks))


def _per_pad_block(
    x: da.Array,
    ap: AxisPlan,
    make: Callable[[int, int, int, int], da.Array],
) -> Sides:
    """For each side, call ``make(side, start, stop, offset)`` per output chunk and
    concatenate. ``start``/``stop`` count from the outer end of that side's pad region;
    ``offset`` is where the side starts in padded coordinates along the axis."""
    axis, n = ap.axis, ap.length
    chunks_k = x.chunks[axis]
    result: list[da.Array | None] = []
    for side, width, neighbour, offset in (
        (BEFORE, ap.before, chunks_k[0] if chunks_k else 0, 0),
        (AFTER, ap.after, chunks_k[-1] if chunks_k else 0, ap.before + n),
    ):
        if width == 0:
            result.append(None)
            continue
        bounds = np.cumsum((0, *pad_chunks(width, neighbour, side)))
        blocks = [make(side, int(s), int(e), offset) for s, e in itertools.pairwise(bounds)]
        result.append(blocks[0] if len(blocks) == 1 else da.concatenate(blocks, axis=axis))
    return result[0], result[1]


def _blockwise_along(
    kernel: Callable[..., Any],
    like: da.Array,
    along: int,
    size: int,
    inputs: Sequence[da.Array],
    kwargs: dict[str, Any],
    extra: Sequence[tuple[Any, Any]] = (),
) -> da.Array:
    """One task per face block of ``like``: ``kernel`` sees each input whole along axis
    ``along`` and returns a block of ``size`` there. ``kwargs`` go to the kernel."""
    ndim = like.ndim
    out = tuple(ndim if i == along else i for i in range(ndim))
    args: list[Any] = []
    for j, a in enumerate(inputs):
        # each input gets its own contracted symbol along ``along``: their lengths differ
        args += [a, tuple(ndim + 1 + j if i == along else i for i in range(ndim))]
    for pair in extra:
        args += list(pair)
    return da.blockwise(
        kernel,
        out,
        *args,
        concatenate=True,
        new_axes={like.ndim: size},
        dtype=like.dtype,
        meta=like._meta,
        **kwargs,
    )


# --------------------------------------------------------------------------------------
# builders, one per family of modes (see daskpad._modes)
# --------------------------------------------------------------------------------------


def build_fill(x: da.Array, ap: AxisPlan, plan: PadPlan) -> Sides:
    """constant and empty: blocks made from nothing but the value."""
    empty = plan.fill_empty

    def make(side: int, start: int, stop: int, offset: int) -> da.Array:
        return da.map_blocks(
            k.fill_block,
            chunks=_with_axis(x, ap.axis, (stop - start,)),
            dtype=x.dtype,
            meta=x._meta,
            like=x._meta,
            value=None if empty else ap.values[side],
            fill=not empty,
        )

    return _per_pad_block(x, ap, make)


def build_gather(x: da.Array, ap: AxisPlan, plan: PadPlan) -> Sides:
    """edge, reflect, symmetric, wrap: each block reads the input elements it maps to."""
    assert plan.mode is not None
    program = k.fill_program(plan.mode.name, ap.length, ap.before, ap.after, plan.reflect_type)
    bounds = np.cumsum((0, *x.chunks[ap.axis]))

    def make(side: int, start: int, stop: int, offset: int) -> da.Array:
        start, stop = start + offset, stop + offset
        needed = k.needed_data(program, np.arange(start, stop))
        which = np.searchsorted(bounds, needed, side="right") - 1
        pieces, starts = [], []
        for c in np.unique(which):
            idx = needed[which == c]
            pieces.append(_take(x, ap.axis, int(idx[0]), int(idx[-1]) + 1))
            starts.append(int(idx[0]))
        return _blockwise_along(
            k.gather_block,
            x,
            ap.axis,
            stop - start,
            pieces,
            dict(
                axis=ap.axis,
                piece_starts=tuple(starts),
                program=program,
                start=start,
                stop=stop,
            ),
        )

    return _per_pad_block(x, ap, make)


def build_ramp(x: da.Array, ap: AxisPlan, plan: PadPlan) -> Sides:
    """linear_ramp: each block from the edge element and one flag per side (numpy switches
    its arithmetic for the whole side when any ramp there has a zero step)."""
    axis, n = ap.axis, ap.length
    edges: list[da.Array] = []
    flags: list[da.Array | None] = []
    for side, width in ((BEFORE, ap.before), (AFTER, ap.after)):
        edge = _take(x, axis, 0, 1) if side == BEFORE else _take(x, axis, n - 1, n)
        edges.append(edge)
        if width == 0:
            flags.append(None)
            continue
        step_is_zero = functools.partial(
            k.ramp_step_is_zero, end_value=ap.values[side], width=width, along=axis
        )
        flags.append(
            da.reduction(
                edge,
                step_is_zero,
                k.any_of,
                dtype=bool,
                meta=np.empty((), dtype=bool),
                concatenate=False,
            )
        )

    def make(side: int, start: int, stop: int, offset: int) -> da.Array:
        width = ap.before if side == BEFORE else ap.after
        return _blockwise_along(
            k.ramp_block,
            x,
            axis,
            stop - start,
            [edges[side]],
            dict(
                end_value=ap.values[side],
                width=width,
                start=start,
                stop=stop,
                reverse=side == AFTER,
                axis=axis,
            ),
            extra=[(flags[side], ())],
        )

    return _per_pad_block(x, ap, make)


def _face_block_nbytes(x: da.Array, axis: int, length: int) -> int:
    face = [max(c) if c else 0 for i, c in enumerate(x.chunks) if i != axis]
    return int(np.prod(face, dtype=np.int64)) * length * x.dtype.itemsize


def _statistic(x: da.Array, axis: int, start: int, stop: int, stat: str) -> da.Array:
    """The statistic of ``x[start:stop]`` along ``axis``, length one there, in x's dtype."""
    slab = _take(x, axis, start, stop)
    length = stop - start
    if _face_block_nbytes(x, axis, length) <= chunk_budget():
        # the whole slab of each face block fits one task: numpy's own function on it
        return _blockwise_along(k.stat_block, x, axis, 1, [slab], dict(stat=stat, axis=axis))
    if stat in ("amax", "amin"):
        reduce = da.max if stat == "amax" else da.min
        return reduce(slab, axis=axis, keepdims=True)
    if stat == "mean":
        acc = k.mean_accumulator(x.dtype)
        total = da.sum(slab, axis=axis, dtype=acc, keepdims=True)
        return total.map_blocks(k.finish_mean, count=length, dtype=x.dtype, meta=x._meta)
    # median needs whole lines: narrow the face so that one line-slab fits the budget
    narrow = slab.rechunk(whole_along(slab, axis))
    stat_ = _blockwise_along(k.stat_block, narrow, axis, 1, [narrow], dict(stat=stat, axis=axis))
    return stat_.rechunk(_with_axis(x, axis, (1,)))


def build_stat(x: da.Array, ap: AxisPlan, plan: PadPlan) -> Sides:
    """maximum, mean, median, minimum: one statistic per side and face block, repeated."""
    assert plan.mode is not None and plan.mode.stat is not None and ap.stat_length
    axis, n = ap.axis, ap.length
    stat = plan.mode.stat
    length_before, length_after = ap.stat_length
    stats = [
        _statistic(x, axis, 0, length_before, stat) if ap.before else None,
        _statistic(x, axis, n - length_after, n, stat) if ap.after else None,
    ]

    def make(side: int, start: int, stop: int, offset: int) -> da.Array:
        s = stats[side]
        assert s is not None
        return da.map_blocks(
            k.repeat_block,
            s,
            chunks=_with_axis(s, axis, (stop - start,)),
            dtype=x.dtype,
            meta=x._meta,
            axis=axis,
            width=stop - start,
        )

    return _per_pad_block(x, ap, make)


BUILDERS: dict[str, Callable[[da.Array, AxisPlan, PadPlan], Sides]] = {
    "fill": build_fill,
    "gather": build_gather,
    "ramp": build_ramp,
    "stat": build_stat,
}


# --------------------------------------------------------------------------------------
# the whole array
# --------------------------------------------------------------------------------------


def pad_axes(x: da.Array, plan: PadPlan) -> da.Array:
    """Pad every axis in numpy's order; each axis reads the result of the ones before."""
    assert plan.mode is not None
    builder = BUILDERS["fill" if plan.fill_empty else plan.mode.builder]
    for ap in plan.axes:
        if not ap.padded:
            continue
        before, after = builder(x, ap, plan)
        x = da.concatenate([p for p in (before, x, after) if p is not None], axis=ap.axis)
    return x


def whole_along(x: da.Array, axis: int) -> tuple[tuple[int, ...], ...]:
    """Chunks whole along ``axis``, the other axes cut so one block fits the budget."""
    wanted: dict[int, Any] = {i: (-1 if i == axis else "auto") for i in range(x.ndim)}
    if 0 in x.shape:
        return tuple((n,) if i == axis else c for i, (n, c) in enumerate(zip(x.shape, x.chunks)))
    # dask sizes "auto" chunks from the itemsize, which object arrays do not have: count
    # each element as a pointer
    dtype = np.dtype(np.intp) if x.dtype.kind == "O" else x.dtype
    return normalize_chunks(
        tuple(wanted[i] for i in range(x.ndim)),
        x.shape,
        limit=chunk_budget(),
        dtype=dtype,
        previous_chunks=x.chunks,
    )


def pad_with_function(x: da.Array, plan: PadPlan) -> da.Array:
    """A user function: zero-pad, then for each axis in turn hand it every whole line."""
    assert plan.function is not None
    zeros = replace(
        plan,
        mode=MODES["constant"],
        function=None,
        axes=tuple(replace(ap, values=(0, 0)) for ap in plan.axes),
    )
    x = pad_axes(x, zeros)
    for ap in plan.axes:
        lines = x.rechunk(whole_along(x, ap.axis))
        x = lines.map_blocks(
            k.apply_function,
            dtype=x.dtype,
            meta=x._meta,
            function=plan.function,
            axis=ap.axis,
            iaxis_pad_width=(ap.before, ap.after),
            kwargs=plan.function_kwargs,
        )
    return x
