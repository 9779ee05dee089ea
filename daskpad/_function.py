"""A user function (``mode=callable``): whole lines, axis after axis, in bounded memory.

numpy.pad zero-pads the array, then calls the function on every line along axis 0, then on
every line along axis 1 (lines that now hold what it wrote along axis 0), and so on. Each
pass needs whole lines, so it runs on *stripes*: blocks whole along the pass's axis. The
stripes of consecutive passes cross (columns, then rows): if one pass's stripes fed the
next, every block would stay in memory until the next pass was done with it, which is the
whole array.

So a pass other than the last keeps only what the function changed in each stripe
(:class:`daskpad._line_kernels.Changed`): the pads along its axis, and the data lines too
in the rare case that the function wrote there. The next pass reads the input again, from
a fresh copy (:func:`daskpad._assemble.fresh_copy`), and pastes those changes onto it.
What stays in memory between passes is about the size of the pads; the price is reading
the input once per axis.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array

from . import _line_kernels as lk
from ._assemble import block_index, fresh_copy, regrid
from ._chunks import chunk_budget, merge_slivers, near_equal, output_chunks
from ._graph import pad_axes, whole_along
from ._modes import MODES
from ._normalize import PadPlan

Chunks = tuple[tuple[int, ...], ...]

STRIPE_PARTS = 2  # a stripe holds at most budget / STRIPE_PARTS: a task holds about two


def stripe_faces(shape: tuple[int, ...], chunks: Chunks, itemsize: int) -> Chunks:
    """``chunks`` cut (never joined) along every axis so that a stripe, whole along any one
    axis and one cut block wide along the others, fits ``budget / STRIPE_PARTS``. All passes
    cut alike, so the stripes of two passes meet block to block."""
    ndim = len(shape)
    limit = max(chunk_budget() // STRIPE_PARTS, 1)
    size = [max(c, default=1) or 1 for c in chunks]
    for a in range(ndim):
        face = [i for i in range(ndim) if i != a]
        line = shape[a] * max(itemsize, 1)
        while line * int(np.prod([size[i] for i in face])) > limit and any(
            size[i] > 1 for i in face
        ):
            widest = max(face, key=lambda i: (size[i], i))
            size[widest] = -(-size[widest] // 2)

    return tuple(
        tuple(p for c in cs for p in near_equal(c, size[i])) for i, cs in enumerate(chunks)
    )


def pad_with_function(x: da.Array, plan: PadPlan, chunks: Any = None) -> da.Array:
    """A user function: zero-pad, then for each axis in turn hand it every whole line."""
    assert plan.function is not None
    zeros = replace(
        plan,
        mode=MODES["constant"],
        function=None,
        axes=tuple(replace(ap, values=(0, 0)) for ap in plan.axes),
    )
    widths = [(ap.before, ap.after) for ap in plan.axes]
    target = output_chunks(chunks, x.chunks, plan.new_shape, x.dtype, widths)
    padded = pad_axes(x, zeros)
    if isinstance(chunks, str) and chunks == "merge":
        target = merge_slivers(padded.chunks, dict(enumerate(widths)))
    if x.ndim == 1 or 0 in padded.shape:
        y = _one_pass_per_axis(padded, plan)
    else:
        y = _passes_keeping_changes(x, padded, zeros, plan)
    return y if target is None else regrid(y, target)


def _one_pass_per_axis(x: da.Array, plan: PadPlan) -> da.Array:
    """Each pass on the whole result of the one before (one axis, or nothing to hold)."""
    for ap in plan.axes:
        lines = regrid(x, whole_along(x, ap.axis))
        x = da.map_blocks(
            lk.apply_function,
            lines,
            dtype=x.dtype,
            meta=meta_from_array(x._meta, ndim=x.ndim),
            function=plan.function,
            axis=ap.axis,
            iaxis_pad_width=(ap.before, ap.after),
            kwargs=plan.function_kwargs,
        )
    return x


def _passes_keeping_changes(
    x: da.Array, padded: da.Array, zeros: PadPlan, plan: PadPlan
) -> da.Array:
    """Pass after pass, each on stripes rebuilt from the input and the earlier changes."""
    ndim = x.ndim
    widths = tuple((ap.before, ap.after) for ap in plan.axes)
    itemsize = 0 if x.dtype.kind == "O" else x.dtype.itemsize
    faces = stripe_faces(padded.shape, padded.chunks, itemsize)
    meta = meta_from_array(x._meta, ndim=ndim)
    changes: list[da.Array] = []
    y = padded
    for a in range(ndim):
        last = a == ndim - 1
        source = padded if a == 0 else pad_axes(fresh_copy(x, a), zeros)
        # every block of the stripe, whole along a (contracted: the kernel joins them)
        args: list[Any] = [
            regrid(source, faces),
            tuple(2 * ndim if i == a else i for i in range(ndim)),
        ]
        for i in range(ndim):
            if i != a:
                args += [block_index(len(faces[i])), (i,)]
        for b, earlier in enumerate(changes):
            # whole along b (one block), and contracted along a, which this pass sees whole
            own, across = 2 * ndim + 1 + 2 * b, 2 * ndim + 2 + 2 * b
            index = tuple(own if i == b else across if i == a else i for i in range(ndim))
            args += [earlier, index]
        starts = tuple(np.cumsum((0, *c))[:-1] for c in faces)
        y = da.blockwise(
            lk.function_pass,
            tuple(range(ndim)),
            *args,
            new_axes={a: 1 if not last else padded.shape[a]},
            concatenate=False,
            align_arrays=False,
            dtype=x.dtype if last else object,
            meta=meta if last else np.empty((0,) * ndim, dtype=object),
            token=f"function-pass-{a}",
            axis=a,
            widths=widths,
            starts=starts,
            function=plan.function,
            kwargs=plan.function_kwargs,
            last=last,
        )
        changes.append(y)
    return y
