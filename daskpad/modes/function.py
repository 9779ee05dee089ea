"""A user function (``mode=callable``): whole lines, axis after axis, in bounded memory.

numpy.pad zero-pads the array, then calls the function on every line along axis 0, then on
every line along axis 1 (lines that now hold what it wrote along axis 0), and so on. Each
pass needs whole lines, so it runs on *stripes*: blocks whole along the pass's axis. The
stripes of consecutive passes cross (columns, then rows): if one pass's stripes fed the
next, every block would stay in memory until the next pass was done with it, which is the
whole array.

So a pass other than the last keeps only what the function changed in each stripe
(:class:`daskpad.modes.line_kernels.Changed`): the pads along its axis, and the data lines too
in the rare case that the function wrote there. The next pass reads the input again, from
a fresh copy (:func:`daskpad.core.grid.fresh_copy`), and pastes those changes onto it.
What stays in memory between passes is about the size of the pads; the price is reading
the input once per axis.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array

from daskpad.core.axes import pad_axes
from daskpad.core.chunks import (
    BEFORE,
    chunk_budget,
    merge_slivers,
    near_equal,
    output_chunks,
    whole_along,
)
from daskpad.core.grid import BlockGrid, block_index, fresh_copy
from daskpad.core.kernels import concatenate_blocks, read_only
from daskpad.core.ndarrays import Values
from daskpad.core.plan import AxisPlan, PadPlan
from daskpad.core.registry import MODES, EdgeFunction, register
from daskpad.core.regrid import regrid
from daskpad.core.sides import SideChunks, Sides, blockwise_along, per_pad_block, with_axis

if TYPE_CHECKING:
    from types import EllipsisType

    import numpy.typing as npt

Chunks = tuple[tuple[int, ...], ...]

T = TypeVar("T")
#: a ``blockwise`` argument as dask hands it to a task with ``concatenate=False``: the
#: blocks along each index the output lacks, in nested lists
Nested: TypeAlias = T | list["Nested[T]"] | tuple["Nested[T]", ...]

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


def pad_with_function(x: da.Array, plan: PadPlan, chunks: object = None) -> da.Array:
    """A user function: zero-pad, then for each axis in turn hand it every whole line."""
    assert plan.function is not None
    zeros = replace(
        plan,
        mode=MODES["constant"],
        function=None,
        axes=tuple(replace(ap, pairs={"constant_values": (0, 0)}) for ap in plan.axes),
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
            apply_function,
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
        args: list[object] = [
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
            function_pass,
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


# --------------------------------------------------------------------------------------
# a function that reads and writes only next to the edges
# --------------------------------------------------------------------------------------


def build_edge_function(x: BlockGrid, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
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
    pads = blockwise_along(edge_function_pads, x, axis, ap.before + ap.after, pieces, kwargs)

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        start = 0 if side == BEFORE else ap.before
        part = pads[(slice(None),) * axis + (slice(start, start + sum(chunks)),)]
        blocks = regrid(part, with_axis(x, axis, chunks))
        # read-only, as every pad block (:func:`read_only`): the regrid joins new blocks
        return cast(
            "da.Array", da.map_blocks(read_only, blocks, dtype=blocks.dtype, meta=blocks._meta)
        )

    return per_pad_block(ap, sides, make)


# --------------------------------------------------------------------------------------
# the kernels: plain numpy, run on workers
# --------------------------------------------------------------------------------------


def _call_on_lines(
    out: Values,
    function: Callable[..., npt.ArrayLike | None],
    axis: int,
    iaxis_pad_width: tuple[int, int],
    kwargs: Mapping[str, object],
) -> None:
    """``function(vector, iaxis_pad_width, iaxis, kwargs)`` on every line of ``out`` along
    ``axis``, in place, as numpy.pad calls it; a function that returns the padded vector
    instead (an array of the vector's shape) is honoured too."""
    lines = np.moveaxis(out, axis, -1)
    for index in np.ndindex(lines.shape[:-1]):
        line: tuple[int | EllipsisType, ...] = (*index, Ellipsis)
        vector = lines[line]
        returned = function(vector, iaxis_pad_width, axis, kwargs)
        if returned is not None and returned is not vector and np.shape(returned) == vector.shape:
            vector[...] = returned


def apply_function(block: Values, **call: Any) -> Values:
    """Call the function on every line of ``block`` (whole lines, already zero-padded), as
    numpy.pad does; ``call`` names the function, the axis, ``iaxis_pad_width`` and
    ``kwargs``, as :func:`_call_on_lines` takes them."""
    out = block.copy()
    _call_on_lines(out, **call)
    return out


# --------------------------------------------------------------------------------------
# one pass over a stripe, reporting what changed
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PaddedBox:
    """Values of the padded array in the box starting at ``start`` (padded positions)."""

    start: tuple[int, ...]
    values: Values

    def overlaps(self, origin: Sequence[int], shape: Sequence[int]) -> bool:
        return all(
            max(lo, o) < min(lo + n, o + m)
            for lo, n, o, m in zip(self.start, self.values.shape, origin, shape)
        )

    def paste(self, out: Values, origin: Sequence[int]) -> None:
        """Write the part of this piece that lies in ``out`` (a block at ``origin``)."""
        into, take = [], []
        for lo, n, o, m in zip(self.start, self.values.shape, origin, out.shape):
            a, b = max(lo, o), min(lo + n, o + m)
            if a >= b:
                return
            into.append(slice(a - o, b - o))
            take.append(slice(a - lo, b - lo))
        out[tuple(into)] = self.values[tuple(take)]


@dataclass(frozen=True)
class Changed:
    """What one pass of the user function changed in one stripe: the pads along the
    pass's axis always, the data part too when the function wrote there (rarely: numpy
    documents the pads as what the function fills)."""

    pieces: tuple[PaddedBox, ...]

    @property
    def nbytes(self) -> int:
        return sum(int(p.values.nbytes) for p in self.pieces)


def _flat(nested: Nested[T]) -> Iterator[T]:
    if isinstance(nested, (list, tuple)):
        for item in nested:
            yield from _flat(item)
    else:
        yield nested


def _same(a: Values, b: Values) -> bool:
    """Whether two blocks hold the same bytes (and masks): -0.0 is not 0.0, a NaN is
    itself."""
    if a.dtype.kind == "O":
        return all(p is q for p, q in zip(a.flat, b.flat))
    # (numpy.ma's functions are untyped in numpy 2.1's stubs, typed in newer ones)
    if np.ma.getmask(a) is not np.ma.nomask or np.ma.getmask(b) is not np.ma.nomask:  # type: ignore[no-untyped-call, unused-ignore]
        if not np.array_equal(np.ma.getmaskarray(a), np.ma.getmaskarray(b)):  # type: ignore[no-untyped-call, unused-ignore]
            return False
        a, b = np.ma.getdata(a), np.ma.getdata(b)  # type: ignore[no-untyped-call, unused-ignore]
    return bool(np.array_equal(_bytes(a), _bytes(b)))


def _bytes(a: Values) -> Values:
    """``a``'s bits as unsigned integers, the widest that divide its item size (comparing
    uint32 or uint64 is several times faster than comparing uint8); a view where the last
    axis is contiguous or the width is the item size."""
    width = next(w for w in (8, 4, 2, 1) if a.dtype.itemsize % w == 0)
    bits = np.dtype(f"u{width}")
    try:
        return a.view(bits)
    except ValueError:  # a view narrower than the items needs a contiguous last axis
        return np.ascontiguousarray(a).view(bits)


def function_pass(
    blocks: Nested[Values],
    *args: Any,
    axis: int,
    widths: Sequence[tuple[int, int]],
    starts: Sequence[Sequence[int]],
    function: Callable[..., npt.ArrayLike | None],
    kwargs: Mapping[str, object],
    last: bool,
) -> Values | Changed:
    """One pass of a user function over a stripe whole along ``axis``.

    ``blocks`` are the stripe's blocks of the zero-padded input, in order along ``axis``;
    ``args`` are the stripe's block index along each other axis (``(i,)`` each), then,
    for each earlier pass in order, the :class:`Changed` of every earlier stripe that may
    overlap this one. Those are pasted onto the joined blocks, so the stripe holds what
    numpy's array holds when this pass begins. The last pass returns the stripe; the others
    what the function changed, found by comparing the data part with the blocks.
    """
    flat = list(_flat(blocks))
    ndim = flat[0].ndim
    given = iter(int(a[0]) for a in args[: ndim - 1])
    origin = tuple(0 if i == axis else int(starts[i][next(given)]) for i in range(ndim))
    earlier: Iterator[Changed] = _flat(list(args[ndim - 1 :]))
    pasted = [piece for changed in earlier for piece in changed.pieces]
    pad_width = widths[axis]
    if last:
        out: Values = concatenate_blocks(flat, axis) if len(flat) > 1 else flat[0].copy()
        for piece in pasted:
            piece.paste(out, origin)
        _call_on_lines(out, function, axis, pad_width, kwargs)
        return out
    return _changes(flat, pasted, origin, axis, pad_width, function, kwargs)


# a pass that keeps only changes hands the function its lines in groups up to this big. A
# stripe holds at most half of dask's chunk budget (64 MiB by default), so by default it is
# one group, whose blocks are joined whole: copying and comparing column groups cut out of
# the blocks instead took several times longer.
GROUP_BYTES = 64 * 2**20


def _changes(
    blocks: Sequence[Values],
    pasted: Sequence[PaddedBox],
    origin: tuple[int, ...],
    axis: int,
    pad_width: tuple[int, int],
    function: Callable[..., npt.ArrayLike | None],
    kwargs: Mapping[str, object],
) -> Changed:
    """What the function changes in the stripe made of ``blocks`` (and ``pasted``): the
    lines are joined and handed to it a group at a time, a few MB each, so the stripe is
    never held whole; the pads are gathered, and any group whose data changed is kept."""
    like = blocks[0]
    ndim = like.ndim
    before, after = pad_width
    length = sum(b.shape[axis] for b in blocks)
    face = [i for i in range(ndim) if i != axis]
    wide = max(face, key=lambda i: like.shape[i])
    others = int(np.prod([like.shape[i] for i in face if i != wide]))
    line = max(length * max(like.dtype.itemsize, 1) * others, 1)  # bytes per step
    step = max(GROUP_BYTES // line, 1)
    at = (slice(None),) * axis
    shape = list(like.shape)
    pads = []
    for width in (before, after):
        shape[axis] = width
        pads.append(np.empty_like(like, shape=tuple(shape)))
    middles = []
    for lo in range(0, max(like.shape[wide], 1), step):
        group = tuple(slice(lo, lo + step) if i == wide else slice(None) for i in range(ndim))
        parts = [b[group] for b in blocks]
        buf = concatenate_blocks(parts, axis) if len(parts) > 1 else parts[0].copy()
        here = tuple(o + lo if i == wide else o for i, o in enumerate(origin))
        for piece in pasted:
            piece.paste(buf, here)
        _call_on_lines(buf, function, axis, pad_width, kwargs)
        pads[0][group] = buf[(*at, slice(0, before))]
        pads[1][group] = buf[(*at, slice(length - after, length))]
        if not _data_kept(buf, parts, pasted, here, axis, before, length - after):
            start = tuple(before if i == axis else h for i, h in enumerate(here))
            middles.append(PaddedBox(start, buf[(*at, slice(before, length - after))].copy()))
    ends = (
        PaddedBox(tuple(0 if i == axis else o for i, o in enumerate(origin)), pads[0]),
        PaddedBox(
            tuple(length - after if i == axis else o for i, o in enumerate(origin)), pads[1]
        ),
    )
    return Changed(tuple(p for p in (*ends, *middles) if p.values.size))


def _data_kept(
    out: Values,
    blocks: Sequence[Values],
    pasted: Sequence[PaddedBox],
    origin: tuple[int, ...],
    axis: int,
    lo: int,
    hi: int,
) -> bool:
    """Whether ``out[lo:hi]`` along ``axis`` still holds what the blocks (with the pasted
    pieces) held: block by block, copying a block only where a piece was pasted on it."""
    at = (slice(None),) * axis
    start = 0
    for block in blocks:
        stop = start + block.shape[axis]
        a, b = max(start, lo), min(stop, hi)
        if a < b:
            ref = block[(*at, slice(a - start, b - start))]
            here = tuple(a if i == axis else o for i, o in enumerate(origin))
            on = [p for p in pasted if p.overlaps(here, ref.shape)]
            if on:
                ref = ref.copy()
                for p in on:
                    p.paste(ref, here)
            if not _same(ref, out[(*at, slice(a, b))]):
                return False
        start = stop
    return True


# --------------------------------------------------------------------------------------
# a function that reads and writes only next to the edges
# --------------------------------------------------------------------------------------


def edge_function_pads(
    *pieces: Values,
    axis: int,
    length: int,
    iaxis_pad_width: tuple[int, int],
    piece_starts: Sequence[int],
    function: Callable[..., npt.ArrayLike | None],
    kwargs: Mapping[str, object],
) -> Values:
    """Both pads of every line along ``axis`` from a function that promised to read only
    the data values in ``pieces`` (slices of the axis starting at ``piece_starts``) and to
    write only the pads (:func:`daskpad.edge_function`): the lines are laid out at their
    full length, zero elsewhere, and only the pads (before, then after) are returned.

    The full-length buffer comes from ``numpy.zeros``, whose untouched pages the operating
    system never backs with memory, so a task holds about the pads and the pieces.
    """
    before, after = iaxis_pad_width
    like = pieces[0]
    shape = (*like.shape[:axis], before + length + after, *like.shape[axis + 1 :])
    if type(like) is np.ndarray:
        line = np.zeros(shape, dtype=like.dtype)
    else:
        line = np.zeros_like(like, shape=shape)
    at = (slice(None),) * axis
    for piece, lo in zip(pieces, piece_starts):
        line[(*at, slice(before + lo, before + lo + piece.shape[axis]))] = piece
    _call_on_lines(line, function, axis, iaxis_pad_width, kwargs)
    end = before + length
    pads: Values = concatenate_blocks(
        [line[(*at, slice(0, before))], line[(*at, slice(end, None))]], axis
    )
    return pads


register([], build_edge_function, family="edge_function")
