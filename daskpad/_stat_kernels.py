"""Block kernels of maximum, mean, median and minimum: plain numpy functions run on
workers, which know nothing of dask graphs.

A statistic of an edge slab is numpy's own function on the slab of each face block
(:func:`stat_block`), or, for a slab over many chunks, partials per block
(:func:`partial_statistic`) combined per face block (:func:`combine_statistic`), with
numpy.pad's rounding for integers; :func:`repeat_block` repeats it over a pad block.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ._kernels import concatenate_blocks, on_distinct_lines

STATISTICS: Mapping[str, Callable[..., Any]] = {
    "amax": np.amax,
    "amin": np.amin,
    "mean": np.mean,
    "median": np.median,
}


def _round_for(stat: Any, dtype: np.dtype) -> Any:
    # numpy.pad rounds statistics (half to even) before storing them into integers.
    if np.issubdtype(dtype, np.integer):
        stat = np.asarray(stat)
        stat = stat.round()
    return stat


def stat_block(*pieces: Any, stat: str, axis: int) -> Any:
    """The statistic of the concatenated ``pieces`` along ``axis`` (length one there),
    with numpy.pad's rounding, stored in the pieces' dtype."""
    return on_distinct_lines(lambda p: _stat_block(p, stat, axis), pieces, axis)


def _stat_block(pieces: Sequence[Any], stat: str, axis: int) -> Any:
    if stat == "median" and all(type(p) is np.ndarray and p.dtype.kind != "O" for p in pieces):
        return _median_lines(pieces, axis)
    slab = concatenate_blocks(pieces, axis)
    value = _round_for(STATISTICS[stat](slab, axis=axis, keepdims=True), slab.dtype)
    out = np.empty_like(slab, shape=value.shape)
    out[...] = value
    return out


def _median_lines(pieces: Sequence[np.ndarray], axis: int) -> np.ndarray:
    """``stat_block``'s median of numpy pieces: they are copied once into lines that are
    contiguous along ``axis`` (partitioning strided lines is about twice as slow), and
    the copy is partitioned in place. The values are numpy.median's."""
    face = tuple(n for i, n in enumerate(pieces[0].shape) if i != axis)
    lines = np.empty((*face, sum(p.shape[axis] for p in pieces)), dtype=pieces[0].dtype)
    at = 0
    for p in pieces:
        lines[..., at : at + p.shape[axis]] = np.moveaxis(p, axis, -1)
        at += p.shape[axis]
    value = _round_for(np.median(lines, axis=-1, overwrite_input=True), lines.dtype)
    out = np.empty_like(pieces[0], shape=pieces[0].shape[:axis] + (1,) + face[axis:])
    out[...] = np.expand_dims(value, axis)
    return out


def mean_accumulator(dtype: np.dtype) -> np.dtype:
    """The dtype ``numpy.mean`` sums ``dtype`` in."""
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype


def partial_statistic(block: Any, *, stat: str, axis: int, acc: np.dtype) -> Any:
    """One block's share of a statistic along ``axis`` (its sum, for the mean)."""

    def share(pieces: Sequence[Any]) -> Any:
        if stat == "mean":
            return np.sum(pieces[0], axis=axis, dtype=acc, keepdims=True)
        return STATISTICS[stat](pieces[0], axis=axis, keepdims=True)

    return on_distinct_lines(share, [block], axis)


def partials_along(
    block: Any, *, stat: str, axes: Sequence[int], acc: np.dtype
) -> tuple[Any, ...]:
    """:func:`partial_statistic` of one block along each of ``axes``, in one task."""
    return tuple(partial_statistic(block, stat=stat, axis=a, acc=acc) for a in axes)


def pick(parts: tuple[Any, ...], *, which: int) -> Any:
    """One of the partials :func:`partials_along` computed."""
    return parts[which]


def combine_statistic(
    partials: Any, *, stat: str, axis: int, count: int, out_dtype: np.dtype
) -> Any:
    """Combine per-block partials (concatenated along ``axis``) into the statistic, in
    numpy.mean's result dtype for the mean, rounded and stored like numpy.pad."""
    return on_distinct_lines(
        lambda p: _combined(p[0], stat, axis, count, out_dtype), [partials], axis
    )


def _combined(partials: Any, stat: str, axis: int, count: int, out_dtype: np.dtype) -> Any:
    if stat == "mean":
        total = np.sum(partials, axis=axis, keepdims=True)
        value = np.true_divide(total, count)
        if out_dtype.kind != "O":
            value = np.asarray(value).astype(np.mean(np.zeros(1, dtype=out_dtype)).dtype)
    else:
        value = STATISTICS[stat](partials, axis=axis, keepdims=True)
    value = _round_for(value, out_dtype)
    out = np.empty_like(partials, shape=np.shape(value), dtype=out_dtype)
    out[...] = value
    return out


def repeat_block(stat: Any, *, axis: int, start: int, stop: int) -> Any:
    """A pad block of ``stop - start`` copies of a statistic (length one along ``axis``);
    for numpy, a read-only broadcast view, as dask's own ``broadcast_to`` makes (whoever
    uses the block copies it anyway)."""
    shape = list(stat.shape)
    shape[axis] = stop - start
    if type(stat) is np.ndarray:
        return np.broadcast_to(stat, tuple(shape))
    out = np.empty_like(stat, shape=tuple(shape))
    out[...] = stat
    return out
