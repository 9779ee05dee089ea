"""maximum, mean, median and minimum: a statistic per pad side and face block, repeated.

Each side's statistic is computed from the slab of ``stat_length`` elements at its edge
(:func:`build_stat`). A short slab is read in one task per face block; a slab over many
chunks through a partial per block combined per face block, or a tree where even the
partials exceed the budget; a median needs whole lines, so its long slabs are read in
narrow stripes (:func:`narrow_face`). Where maximum, mean or minimum read the whole input
along several axes, each input block's partials for all of them are made in one task
(:func:`share_partials`). The statistics are marked
(:data:`daskpad.core.registry.SETTLE_FIRST`), so that a tiled store computes them first
(:mod:`daskpad.store.writing.settle`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, cast

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array

from daskpad._compat.graphs import marked
from daskpad.core import sides as _sides
from daskpad.core.chunks import chunk_budget, face_nbytes, near_equal
from daskpad.core.grid import BlockGrid
from daskpad.core.kernels import concatenate_blocks, on_distinct_lines
from daskpad.core.ndarrays import DType, Numbers, Values
from daskpad.core.plan import AxisPlan, PadPlan
from daskpad.core.registry import SETTLE_FIRST, Mode, register
from daskpad.core.regrid import regrid
from daskpad.core.sides import SideChunks, Sides

#: the statistics' family (their builder's name in the mode table)
FAMILY = "stat"

T = TypeVar("T")


@dataclass
class SharedReads:
    """What the statistics of one pad share across its axes (:func:`share_partials` makes
    it, kept in the grid's ``prepared``): each shared statistic's partials along several
    axes at once, per input block (stat -> (array of tuples, the axes)), and how many
    long medians have read the input so far (each after the first reads a fresh copy)."""

    partials: dict[str, tuple[da.Array, tuple[int, ...]]] = field(default_factory=dict)
    long_medians: int = 0


def _shared(x: BlockGrid) -> SharedReads:
    """The statistics' :class:`SharedReads` of the pad ``x`` builds."""
    found = x.prepared.setdefault(FAMILY, SharedReads())
    assert isinstance(found, SharedReads)
    return found


def _statistic(x: BlockGrid, axis: int, start: int, stop: int, stat: str) -> da.Array:
    """The statistic of ``x[start:stop]`` along ``axis``, length one there, in x's dtype.

    A median needs whole lines, so a long slab is read in stripes across the face. Two
    axes' medians read every block of the input in crossing stripes (columns, then rows),
    which would keep the input in memory until both are done; so every long median after
    the first reads the input again, from a fresh copy, when the input is larger than
    ``COPY_ABOVE`` budgets."""
    reads = _shared(x)
    copy = None
    if stat == "median" and _long_slab(x, axis, start, stop):
        nbytes = int(np.prod(x.x.shape, dtype=np.int64)) * x.dtype.itemsize
        if reads.long_medians > 0 and nbytes > COPY_ABOVE * chunk_budget():
            copy = reads.long_medians
        reads.long_medians += 1
    fn = functools.partial(_slab_statistic, axis=axis, stat=stat)
    on_input = None
    shared = reads.partials.get(stat)
    if shared is not None and axis in shared[1] and (start, stop) == (0, x.x.shape[axis]):
        on_input = functools.partial(_slab_statistic, axis=axis, stat=stat, shared=shared)
    return x.map_slab(axis, start, stop, fn, copy=copy, on_input=on_input)


def share_partials(x: BlockGrid, axes: Sequence[tuple[AxisPlan, PadPlan]]) -> SharedReads:
    """Where maximum, mean or minimum reads the whole input along two axes or more (the
    default ``stat_length``), each input block's partials along all of them are computed
    in one task, instead of one task per axis, so every block is read once for all of
    them, in both of dask's graph modes (each combining task then picks its axis's share:
    see :func:`_slab_statistic`). ``axes``: each axis's plan and the plan of its mode.
    Returns the pad's :class:`SharedReads`, which the grid keeps for the builder."""

    def whole(ap: AxisPlan) -> bool:
        """Every padded side of the axis reads the whole axis, in more than two chunks
        (fewer are read in one task per face block: :func:`_slab_statistic`)."""
        lengths = ap.pairs.get("stat_length")
        if not ap.padded or lengths is None or len(x.x.chunks[ap.axis]) <= 2:
            return False
        sides = [s for s, w in zip(lengths, (ap.before, ap.after)) if w]
        return all(s == ap.length for s in sides)

    reads = SharedReads()
    for stat in ("amax", "amin", "mean"):
        along = tuple(
            ap.axis
            for ap, sub in axes
            if sub.family == "stat"
            and sub.mode is not None
            and sub.mode.stat == stat
            and whole(ap)
        )
        if len(along) >= 2:
            reads.partials[stat] = _share(x, stat, along)
    return reads


def _share(x: BlockGrid, stat: str, axes: tuple[int, ...]) -> tuple[da.Array, tuple[int, ...]]:
    """Each input block's partials of ``stat`` along all of ``axes``, in one task."""
    acc = mean_accumulator(x.dtype) if stat == "mean" else x.dtype
    ind = tuple(range(x.ndim))
    both = da.blockwise(
        partials_along,
        ind,
        x.x,
        ind,
        dtype=object,
        meta=np.empty((0,) * x.ndim, dtype=object),
        stat=stat,
        axes=axes,
        acc=acc,
    )
    return both, axes


COPY_ABOVE = 4  # budgets: a median reading crossing stripes of a larger input reads a copy


def _long_slab(x: BlockGrid, axis: int, start: int, stop: int) -> bool:
    """Whether ``[start:stop]`` along ``axis`` spans more than two of x's input chunks."""
    bounds = np.cumsum((0, *x.x.chunks[axis]))
    first = int(np.searchsorted(bounds, start, side="right"))
    last = int(np.searchsorted(bounds, stop, side="left"))
    return last - first + 1 > 2


def _slab_statistic(
    slab: da.Array, axis: int, stat: str, shared: tuple[da.Array, tuple[int, ...]] | None = None
) -> da.Array:
    length = slab.shape[axis]
    fits = _sides.face_block_nbytes(slab, axis, length) <= chunk_budget()
    if shared is None and fits and (stat == "median" or len(slab.chunks[axis]) <= 2):
        # an edge slab: numpy's own function on the slab of each face block, in one task.
        # (A slab over many chunks goes through per-block partials instead even when it
        # would fit: one task reading a whole row of blocks makes the scheduler hold them
        # all, so padding a large array would hold most of it in memory.)
        return _sides.blockwise_along(
            stat_block, slab, axis, 1, [slab], dict(stat=stat, axis=axis)
        )
    meta = meta_from_array(slab._meta, ndim=slab.ndim)
    if stat == "median":
        # median needs whole lines: cut the face blocks narrower (never joining two) until
        # one narrow slab fits the budget, take the median of each, and join the results
        narrow = regrid(slab, narrow_face(slab, axis))
        median = _sides.blockwise_along(
            stat_block, narrow, axis, 1, [narrow], dict(stat=stat, axis=axis)
        )
        return regrid(median, _sides.with_axis(slab, axis, (1,)))
    # maximum, minimum, mean: one partial per block, then one combining task per face block
    # (a dask tree reduction when even the partials of one face block exceed the budget)
    acc = mean_accumulator(slab.dtype) if stat == "mean" else slab.dtype
    ind = tuple(range(slab.ndim))
    finish = dict(stat=stat, axis=axis, count=length, out_dtype=slab.dtype)
    parts_fit = face_nbytes(slab.chunks, axis, acc.itemsize) * len(slab.chunks[axis])
    if shared is not None:  # this axis's share of the partials computed with the others'
        both, axes = shared
        which = axes.index(axis)
        if parts_fit <= chunk_budget():
            # each combining task picks its share of the blocks' partials itself
            finish = {**finish, "pick": which}
            return _sides.blockwise_along(combine_statistic, slab, axis, 1, [both], finish)
        kernel: Callable[..., Values] = pick
        source, extra = both, dict[str, object](which=which)
    else:
        kernel, source, extra = partial_statistic, slab, dict(stat=stat, axis=axis, acc=acc)
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
        return _sides.blockwise_along(combine_statistic, slab, axis, 1, [partial], finish)
    reduce = {"amax": da.max, "amin": da.min, "mean": da.sum}[stat]
    total = reduce(partial, axis=axis, keepdims=True)
    return cast(
        "da.Array",
        da.map_blocks(combine_statistic, total, meta=meta, dtype=slab.dtype, **finish),
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


#: the mark (daskpad._compat.graphs.marked) of the statistics a pad side repeats


def build_stat(x: BlockGrid, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """maximum, mean, median, minimum: one statistic per side and face block, repeated."""
    assert plan.mode is not None and plan.mode.stat is not None
    axis, n = ap.axis, ap.length
    stat = plan.mode.stat
    length_before, length_after = ap.pairs["stat_length"]
    before = _statistic(x, axis, 0, length_before, stat) if ap.before else None
    after: da.Array | None
    if length_before == length_after == n and before is not None:
        after = before  # both sides read the whole axis
    else:
        after = _statistic(x, axis, n - length_after, n, stat) if ap.after else None
    # marked, so that a tiled store finds them and computes them first
    # (daskpad.store.writing.settle)
    stats = [marked(s, SETTLE_FIRST) if s is not None else None for s in (before, after)]

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        stat_ = stats[side]
        assert stat_ is not None
        return _sides.blockwise_chunks(repeat_block, x, axis, chunks, 0, [stat_], dict(axis=axis))

    return _sides.per_pad_block(ap, sides, make)


# --------------------------------------------------------------------------------------
# the kernels: plain numpy, run on workers
# --------------------------------------------------------------------------------------

STATISTICS: Mapping[str, Callable[..., Values]] = {
    "amax": np.amax,
    "amin": np.amin,
    "mean": np.mean,
    "median": np.median,
}


def _round_for(stat: Values | np.generic, dtype: DType) -> Values | np.generic:
    # numpy.pad rounds statistics (half to even) before storing them into integers.
    if np.issubdtype(dtype, np.integer):
        stat = np.asarray(stat)
        stat = stat.round()
    return stat


def stat_block(*pieces: Values, stat: str, axis: int) -> Values:
    """The statistic of the concatenated ``pieces`` along ``axis`` (length one there),
    with numpy.pad's rounding, stored in the pieces' dtype."""
    out: Values = on_distinct_lines(lambda p: _stat_block(p, stat, axis), pieces, axis)
    return out


def _stat_block(pieces: Sequence[Values], stat: str, axis: int) -> Values:
    if stat == "median" and all(type(p) is np.ndarray and p.dtype.kind != "O" for p in pieces):
        return _median_lines(pieces, axis)
    slab: Values = concatenate_blocks(pieces, axis)
    value = _round_for(STATISTICS[stat](slab, axis=axis, keepdims=True), slab.dtype)
    out = np.empty_like(slab, shape=value.shape)
    out[...] = value
    return out


def _median_lines(pieces: Sequence[Values], axis: int) -> Values:
    """``stat_block``'s median of numpy pieces: they are copied once into lines that are
    contiguous along ``axis`` (partitioning strided lines is about twice as slow), and
    the copy is partitioned in place. The values are numpy.median's."""
    face = tuple(n for i, n in enumerate(pieces[0].shape) if i != axis)
    lines: Numbers = np.empty((*face, sum(p.shape[axis] for p in pieces)), dtype=pieces[0].dtype)
    at = 0
    for p in pieces:
        lines[..., at : at + p.shape[axis]] = np.moveaxis(p, axis, -1)
        at += p.shape[axis]
    value = _round_for(np.median(lines, axis=-1, overwrite_input=True), lines.dtype)
    out = np.empty_like(pieces[0], shape=pieces[0].shape[:axis] + (1,) + face[axis:])
    out[...] = np.expand_dims(value, axis)
    return out


def mean_accumulator(dtype: DType) -> DType:
    """The dtype ``numpy.mean`` sums ``dtype`` in."""
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype


def partial_statistic(block: Values, *, stat: str, axis: int, acc: DType) -> Values:
    """One block's share of a statistic along ``axis`` (its sum, for the mean)."""

    def share(pieces: Sequence[Numbers]) -> Values:
        if stat == "mean":
            total: Values = np.sum(pieces[0], axis=axis, dtype=acc, keepdims=True)
            return total
        return STATISTICS[stat](pieces[0], axis=axis, keepdims=True)

    out: Values = on_distinct_lines(share, [block], axis)
    return out


def partials_along(
    block: Values, *, stat: str, axes: Sequence[int], acc: DType
) -> tuple[Values, ...]:
    """:func:`partial_statistic` of one block along each of ``axes``, in one task."""
    return tuple(partial_statistic(block, stat=stat, axis=a, acc=acc) for a in axes)


def pick(parts: tuple[T, ...], *, which: int) -> T:
    """One of the partials :func:`partials_along` computed."""
    return parts[which]


def combine_statistic(
    partials: Values, *, stat: str, axis: int, count: int, out_dtype: DType
) -> Values:
    """Combine per-block partials (concatenated along ``axis``) into the statistic, in
    numpy.mean's result dtype for the mean, rounded and stored like numpy.pad."""
    out: Values = on_distinct_lines(
        lambda p: _combined(p[0], stat, axis, count, out_dtype), [partials], axis
    )
    return out


def _combined(partials: Numbers, stat: str, axis: int, count: int, out_dtype: DType) -> Values:
    if stat == "mean":
        total = np.sum(partials, axis=axis, keepdims=True)
        value: Values | np.generic = np.true_divide(total, count)
        if out_dtype.kind != "O":
            value = np.asarray(value).astype(np.mean(np.zeros(1, dtype=out_dtype)).dtype)
    else:
        value = STATISTICS[stat](partials, axis=axis, keepdims=True)
    value = _round_for(value, out_dtype)
    out = np.empty_like(partials, shape=np.shape(value), dtype=out_dtype)
    out[...] = value
    return out


def repeat_block(stat: Values, *, axis: int, start: int, stop: int) -> Values:
    """A pad block of ``stop - start`` copies of a statistic (length one along ``axis``);
    for numpy, a read-only broadcast view, as dask's own ``broadcast_to`` makes (every pad
    block is read-only: :func:`daskpad.core.kernels.read_only`)."""
    shape = list(stat.shape)
    shape[axis] = stop - start
    if type(stat) is np.ndarray:
        return np.broadcast_to(stat, tuple(shape))
    out = np.empty_like(stat, shape=tuple(shape))
    out[...] = stat
    return out


register(
    [
        Mode("maximum", "stat", stat="amax", views=True),
        Mode("mean", "stat", stat="mean", views=True),
        Mode("median", "stat", stat="median", views=True),
        Mode("minimum", "stat", stat="amin", views=True),
    ],
    build_stat,
    prepare=share_partials,
)
