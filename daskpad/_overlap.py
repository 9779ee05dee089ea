"""``daskpad.map_overlap``: dask's ``map_overlap`` with numpy.pad's modes at the edges.

The array is padded by the halo's depth with :func:`daskpad.pad` (numpy's modes, every
keyword) in the array's own chunks, the pad joined to the end chunks; dask's
``map_overlap`` then shares the neighbours' zones between the blocks with no boundary of
its own (``boundary="none"``), runs the function and trims; the pad is cropped off at the
end. Only the blocks at the array's edges cost more than dask's own halo exchange.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask.array as da
from dask.array.overlap import ensure_minimum_chunksize

from ._boundaries import translate
from ._normalize import depth_pairs
from ._pad import pad
from ._shapes import crop

#: numpy.pad's keywords, taken for the pad; the others go to the function (as in dask)
PAD_KEYWORDS = ("constant_values", "end_values", "stat_length", "reflect_type")


def map_overlap(
    func: Callable[..., Any],
    x: Any,
    depth: Any,
    mode: str | Callable[..., Any] | None = None,
    *,
    boundary: Any = None,
    trim: bool = True,
    allow_rechunk: bool = True,
    **kwargs: Any,
) -> da.Array:
    """Run ``func`` on every block of ``x`` with a halo of ``depth`` elements: taken from
    its neighbours inside the array, and made as :func:`numpy.pad` makes ``mode`` at the
    array's edges.

    The result equals ``func`` applied to ``numpy.pad(x, depth, mode)`` with the pad
    cropped off again, for a ``func`` whose output at a point depends only on the points
    within ``depth`` of it (a stencil, a filter). It has ``x``'s chunks where each is at
    least as wide as the halo (else dask rechunks, as its ``map_overlap`` does).

    Parameters
    ----------
    func : function
        Called on each block with its halo, as by :func:`dask.array.map_overlap`; returns
        a block of the same shape.
    x : dask.array.Array or array_like
    depth : int, tuple or dict
        As dask takes it: one int for every axis, one entry per axis, or ``{axis: depth}``;
        any entry may be a ``(before, after)`` pair. Wider than a chunk, or than the
        axis, is fine (dask rechunks where a halo is wider than a chunk, unless
        ``allow_rechunk=False``).
    mode : str or function, default "constant"
        numpy.pad's mode at the array's edges, with its keywords (``constant_values``,
        ``end_values``, ``stat_length``, ``reflect_type``).
    boundary : str or number, optional
        The edge named as scipy.ndimage, dask or torch name it (docs/boundaries.md):
        ``"periodic"``, ``"nearest"``, ``"mirror"``, ``"dask:reflect"``, ``"dask:none"``
        (no halo at the edges), a number (a constant), ... Give ``mode`` or ``boundary``,
        not both.
    trim : bool, default True
        Cut the halo off each block of ``func``'s result, as dask does. With False, as
        with dask, ``func`` cuts it off itself: it gets every block with its halo on
        every side (the pad, at the array's edges) and returns the block without.
    allow_rechunk : bool, default True
        As dask's.
    **kwargs
        numpy.pad's keywords for the pad; the rest go to :func:`dask.array.map_blocks`
        (``dtype``, ``meta``, ``chunks``, ...) and to ``func``.

    Examples
    --------
    >>> import dask.array as da, numpy as np, daskpad
    >>> x = da.arange(8, chunks=3)
    >>> def diff(b):
    ...     return np.concatenate([[0], b[2:] - b[:-2], [0]])
    >>> daskpad.map_overlap(diff, x, 1, mode="reflect", reflect_type="odd").compute()
    array([2, 2, 2, 2, 2, 2, 2, 2])
    >>> daskpad.map_overlap(diff, x, 1, boundary="periodic").compute()
    array([-6,  2,  2,  2,  2,  2,  2, -6])
    """
    if mode is not None and boundary is not None:
        raise TypeError("give the edge as mode= (numpy's names) or boundary=, not both")
    pad_kwargs = {k: kwargs.pop(k) for k in PAD_KEYWORDS if k in kwargs}
    if boundary is not None:
        mode, extra = translate(boundary)
        if extra and "constant_values" in pad_kwargs:
            raise TypeError("boundary=<number> is a constant: give it, or constant_values=")
        pad_kwargs.update(extra)
        if mode is None and pad_kwargs:
            raise TypeError(
                f"boundary={boundary!r} pads nothing: {', '.join(pad_kwargs)} cannot apply"
            )
    elif mode is None:
        mode = "constant"
    x = x if isinstance(x, da.Array) else da.asarray(x)
    widths = depth_pairs(depth, x.ndim)
    halo = dict(enumerate(widths))
    if mode is None:  # dask's "none": no halo at the edges
        out: da.Array = da.map_overlap(
            func, x, depth=halo, boundary="none", trim=trim, allow_rechunk=allow_rechunk, **kwargs
        )
        return out
    # x's chunks, the pads joined to the end chunks: nothing but the edge blocks changes
    joined = tuple(_less(c, (-b, -a)) for c, (b, a) in zip(x.chunks, widths))
    y = pad(x, widths, mode, chunks=joined, **pad_kwargs)
    if allow_rechunk:  # (done here, to know the chunks func returns without trim)
        fitted = tuple(
            ensure_minimum_chunksize(max(p), c) if max(p) else c for p, c in zip(widths, y.chunks)
        )
        y = y.rechunk(fitted) if fitted != y.chunks else y
    if not trim:  # func cuts the halo off every side itself; at the edges, the pad
        kwargs.setdefault("chunks", tuple(_less(c, p) for c, p in zip(y.chunks, widths)))
    out = da.map_overlap(
        func, y, depth=halo, boundary="none", trim=trim, allow_rechunk=False, **kwargs
    )
    return crop(out, widths) if trim else out


def _less(chunks: tuple[int, ...], pair: tuple[int, int]) -> tuple[int, ...]:
    """``chunks`` without ``pair``'s widths at their two ends (with, where negative)."""
    out = list(chunks)
    out[0] -= pair[0]
    out[-1] -= pair[1]
    return tuple(out)
