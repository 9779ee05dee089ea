"""``daskpad.map_overlap``: dask's ``map_overlap`` with numpy.pad's modes at the edges.

The array is padded by the halo's depth with :func:`daskpad.pad` (numpy's modes, every
keyword) in the array's own chunks, the pad joined to the end chunks; dask's
``map_overlap`` then shares the neighbours' zones between the blocks with no boundary of
its own (``boundary="none"``), runs the function and trims; the pad is cropped off at the
end. Only the blocks at the array's edges cost more than dask's own halo exchange.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import dask.array as da
from dask.array.overlap import ensure_minimum_chunksize

from ._boundaries import NAMES, meanings, translate
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

    The result equals ``func`` applied to ``numpy.pad(x, pairs, mode)`` with the pad
    cropped off again, ``pairs`` being ``depth`` as one ``(before, after)`` pair per axis,
    for a ``func`` whose output at a point depends only on the points within ``depth`` of
    it (a stencil, a filter). It has ``x``'s chunks where each is at least as wide as the
    halo; narrower ones are joined first, as dask's ``map_overlap`` joins them.

    Parameters
    ----------
    func : function
        Called on each block with its halo, as by :func:`dask.array.map_overlap`; returns
        a block of the same shape.
    x : dask.array.Array or array_like
    depth : int, tuple or dict
        As dask takes it: one int for every axis, one entry per axis, or ``{axis: depth}``;
        any entry may be a ``(before, after)`` pair. Wider than a chunk (chunks narrower
        than the halo are joined, unless ``allow_rechunk=False``, which refuses them), or
        than the whole axis, is fine.
    mode : str or function, optional
        numpy.pad's mode at the array's edges, with its keywords (``constant_values``,
        ``end_values``, ``stat_length``, ``reflect_type``). By default ``"constant"``, as
        in numpy.pad (dask's ``map_overlap`` has no halo at the edges by default:
        ``boundary="dask:none"``).
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
        (``dtype``, ``meta``, ``drop_axis``, ``new_axis``, ...) and to ``func``. One array,
        one mode for every axis (pad axes with different modes in two calls).

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
    edges = True  # (False: dask's "none", no halo at the array's edges)
    if boundary is not None:
        translated, extra = translate(boundary)
        if extra and "constant_values" in pad_kwargs:
            raise TypeError("boundary=<number> is a constant: give it, or constant_values=")
        pad_kwargs.update(extra)
        if translated is None and pad_kwargs:
            raise TypeError(
                f"boundary={boundary!r} pads nothing: {', '.join(pad_kwargs)} cannot apply"
            )
        edges, mode = translated is not None, translated or "constant"
    elif mode is None:
        mode = "constant"  # numpy.pad's default (dask's map_overlap defaults to "none")
    elif isinstance(mode, str) and mode not in NAMES["numpy"] and meanings(mode):
        raise ValueError(
            f"mode={mode!r} is not a numpy.pad mode but another library's boundary name: "
            f"give it as boundary={mode!r} (docs/boundaries.md)"
        )
    x = x if isinstance(x, da.Array) else da.asarray(x)
    if any(math.isnan(c) for chunks in x.chunks for c in chunks):
        raise ValueError(
            f"map_overlap needs known chunk sizes, but this array has chunks {x.chunks}; "
            "call x.compute_chunk_sizes() first"
        )
    widths = depth_pairs(depth, x.ndim)
    halo = dict(enumerate(widths))
    if not edges or not any(b or a for b, a in widths):  # no pad: dask's own
        if edges and x.ndim:
            pad(x, widths, mode, **pad_kwargs)  # (numpy's checks of the keywords still)
        out: da.Array = da.map_overlap(
            func,
            x,
            depth=halo or 0,
            boundary="none",
            trim=trim,
            allow_rechunk=allow_rechunk,
            **kwargs,
        )
        return out
    # blocks at least as wide as the halo (as dask rechunks them), then the pads joined
    # to the end chunks: nothing but the edge blocks changes, and dask rechunks no more
    fitted = tuple(_fitted(c, max(p)) for c, p in zip(x.chunks, widths))
    if fitted != x.chunks:
        if not allow_rechunk:
            raise ValueError(
                f"map_overlap: the halo {widths} is wider than some of the chunks {x.chunks}; "
                "rechunk the array, or let allow_rechunk=True do it"
            )
        x = x.rechunk(fitted)
    y = pad(x, widths, mode, chunks=tuple(map(_joined, x.chunks, widths)), **pad_kwargs)
    if not trim:  # func cuts the halo off every side itself: what it returns is x's
        kwargs.setdefault("chunks", x.chunks)
    out = da.map_overlap(
        func, y, depth=halo, boundary="none", trim=trim, allow_rechunk=False, **kwargs
    )
    return crop(out, _output_widths(widths, kwargs)) if trim else out


def _fitted(chunks: tuple[int, ...], depth: int) -> tuple[int, ...]:
    """``chunks`` none narrower than ``depth`` (the whole axis in one where it is
    narrower)."""
    if not depth or min(chunks) >= depth:
        return chunks
    if sum(chunks) <= depth:
        return (sum(chunks),)
    return tuple(ensure_minimum_chunksize(depth, chunks))


def _joined(chunks: tuple[int, ...], pair: tuple[int, int]) -> tuple[int, ...]:
    """``chunks`` with ``pair``'s widths added to the first and the last."""
    before, after = pair
    if len(chunks) == 1:
        return (chunks[0] + before + after,)
    return (chunks[0] + before, *chunks[1:-1], chunks[-1] + after)


def _output_widths(
    widths: tuple[tuple[int, int], ...], kwargs: dict[str, Any]
) -> tuple[tuple[int, int], ...]:
    """The pad to crop off func's result: ``widths`` without the axes ``drop_axis``
    drops, with nothing on those ``new_axis`` adds."""
    out = list(widths)
    drop = kwargs.get("drop_axis")
    if drop is not None:
        dropped = {d % len(widths) for d in (drop if isinstance(drop, Iterable) else [drop])}
        out = [w for axis, w in enumerate(out) if axis not in dropped]
    new = kwargs.get("new_axis")
    if new is not None:
        added = list(new) if isinstance(new, Iterable) else [new]
        for axis in sorted(a % (len(out) + len(added)) for a in added):
            out.insert(axis, (0, 0))
    return tuple(out)
