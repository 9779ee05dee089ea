"""``daskpad.map_overlap``: dask's ``map_overlap`` with numpy.pad's modes at the edges.

Each array (one or several, aligned as dask aligns them) is padded by its own halo's
depth with :func:`daskpad.pad` (numpy's modes, one or one per axis, every keyword; no pad
along an axis whose boundary is dask's ``"none"``) in the array's own chunks, the pad
joined to the end chunks; dask's ``map_overlap`` machinery then shares the neighbours'
zones between the blocks with no boundary of its own (``boundary="none"``) and runs the
function on block i of every array; the halo and the pad are cut off in one step (in
classic graphs; under array-expr dask trims and the pad is cropped by slicing). Only the
blocks at the array's edges cost more than dask's own halo exchange.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, SupportsIndex

import dask.array as da
from dask.array import map_overlap as dask_map_overlap  # (bound once: dask's own)
from dask.array.overlap import overlap
from dask.array.utils import meta_from_array

from daskpad._compat.forms import per_graph_mode
from daskpad.api.overlap_args import aligned, fitted, per_array, split_positional
from daskpad.api.pad import PadMode, pad
from daskpad.api.shapes import crop
from daskpad.core.boundaries import names, translate, translate_each
from daskpad.core.keywords import keyword_misfits, keyword_names
from daskpad.core.ndarrays import Values
from daskpad.core.per_axis import depth_pairs

#: a halo along one axis: one width for both sides, or a ``(before, after)`` pair
AxisDepth = SupportsIndex | Sequence[SupportsIndex]
#: one array's halo: one for every axis, one per axis, or ``{axis: depth}``
Depth = AxisDepth | Sequence[AxisDepth] | Mapping[int, AxisDepth]
#: one axis's edge as scipy.ndimage, dask or torch name it, or a number (a constant)
AxisBoundary = str | float
#: one array's edges: one for every axis, one per axis, or ``{axis: boundary}``
Boundary = AxisBoundary | Mapping[int, AxisBoundary] | Sequence[AxisBoundary]


def map_overlap(
    func: Callable[..., object],
    *args: Any,
    depth: Depth | list[Depth] | None = None,
    boundary: Boundary | list[Boundary] | None = None,
    mode: PadMode | list[PadMode] | None = None,
    trim: bool = True,
    align_arrays: bool = True,
    allow_rechunk: bool = True,
    **kwargs: Any,
) -> da.Array:
    """Run ``func`` on every block of ``x`` with a halo of ``depth`` elements: taken from
    its neighbours inside the array, and made as :func:`numpy.pad` makes ``mode`` at the
    array's edges.

    The result equals ``func`` applied to ``numpy.pad(x, pairs, mode)`` with the pad
    cropped off again, ``pairs`` being ``depth`` as one ``(before, after)`` pair per axis,
    for a ``func`` whose output at a point depends only on the points within ``depth`` of
    it (a stencil, a filter). With a mode per axis, ``numpy.pad`` is numpy.pad called once
    per axis in axis order, each call padding only its axis with its own mode and keywords
    (the corners of an axis's pad come from the pads of the axes before it:
    :func:`daskpad.testing.chained_numpy_pad`). It has ``x``'s chunks where each is at
    least as wide as the halo; narrower ones are joined first, as dask's ``map_overlap``
    joins them.

    Parameters
    ----------
    func : function
        Called on block i of every array, each with its own halo, as by
        :func:`dask.array.map_overlap`; returns a block of the shape of the first array
        of most dimensions (with its halo, which is cut off).
    *args : arrays, then optionally depth and mode
        The arrays (anything with ``shape`` and ``ndim``), aligned and broadcast as dask
        aligns them (``align_arrays``); one or two positional arguments after them that
        are not arrays are ``depth`` and ``mode``: ``map_overlap(f, x, 1, "reflect")``.
    depth : int, tuple, dict or list
        As dask takes it: one int for every axis, one entry per axis, or ``{axis: depth}``;
        any entry may be a ``(before, after)`` pair; a list has one such entry per array
        (with one array, a list is also one entry per axis). Wider than a chunk (chunks
        narrower than the halo are joined, unless ``allow_rechunk=False``, which refuses
        them), or than the whole axis, is fine. Default 0: ``map_blocks``.
    mode : str, function, dict or sequence, optional
        numpy.pad's mode at the array's edges: one for every axis, ``{axis: mode}`` (axes
        not named: ``"constant"``) or one per axis, as :func:`daskpad.pad` takes it, with
        numpy.pad's keywords (``constant_values``, ``end_values``, ``stat_length``,
        ``reflect_type``; with a mode per axis each in numpy's forms or as
        ``{axis: value}``, for the axes whose mode takes it). By default ``"constant"``,
        as in numpy.pad (dask's ``map_overlap`` has no halo at the edges by default:
        ``boundary="dask:none"``). A list has one such entry per array (with one array, a
        list is also one mode per axis).
    boundary : str, number, dict or sequence, optional
        The edge named as scipy.ndimage, dask or torch name it (docs/boundaries.md):
        ``"periodic"``, ``"nearest"``, ``"mirror"``, ``"dask:reflect"``, ``"dask:none"``
        (no halo at the edges), a number (a constant), ...; one for every axis,
        ``{axis: name or number}`` or one per axis (``("dask:none", "periodic")``). An
        axis with ``"dask:none"`` has no halo at the array's edges, as with dask's
        ``boundary={axis: "none"}``: the other axes are padded as if it had none; so has an
        axis a dict does not name, as in dask. A list has one such entry per array. Give
        ``mode`` or ``boundary``, not both.
    trim : bool, default True
        Cut the halo off each block of ``func``'s result, as dask does. With False, as
        with dask, ``func`` cuts it off itself: it gets every block with its halo on
        every side (the pad, at the array's edges; none there on a ``"dask:none"`` axis)
        and returns the block without.
    align_arrays, allow_rechunk : bool, default True
        As dask's.
    **kwargs
        numpy.pad's keywords for the pad; the rest go to :func:`dask.array.map_blocks`
        (``dtype``, ``meta``, ``drop_axis``, ``new_axis``, ...) and to ``func``.

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

    A mode per axis: symmetric along axis 0, periodic along axis 1.

    >>> y = da.from_array(np.arange(12).reshape(3, 4), chunks=2)
    >>> def neighbours(b):
    ...     return sum(np.roll(b, s, a) for s in (1, -1) for a in (0, 1))
    >>> daskpad.map_overlap(neighbours, y, 1, {0: "symmetric", 1: "wrap"}).compute()
    array([[ 8,  8, 12, 12],
           [20, 20, 24, 24],
           [32, 32, 36, 36]])
    >>> daskpad.map_overlap(neighbours, y, 1, boundary=("dask:reflect", "periodic")).compute()
    array([[ 8,  8, 12, 12],
           [20, 20, 24, 24],
           [32, 32, 36, 36]])

    Two arrays, block i of each with its own halo: ``u`` padded by wrapping, ``v`` by
    its edge values.

    >>> u, v = da.arange(6, chunks=3), da.arange(6, chunks=3) * 10
    >>> def sums(bu, bv):
    ...     return bu + np.roll(bu, 1) + bv + np.roll(bv, 1)
    >>> daskpad.map_overlap(sums, u, v, depth=1, mode=["wrap", "edge"]).compute()
    array([ 5, 11, 33, 55, 77, 99])
    """
    arrays, depth, mode = split_positional(args, depth, mode)
    if mode is not None and boundary is not None:
        raise TypeError("give the edge as mode= (numpy's names) or boundary=, not both")
    pad_kwargs = {k: kwargs.pop(k) for k in keyword_names() if k in kwargs}
    xs = [x if isinstance(x, da.Array) else da.asarray(x) for x in arrays]
    for x in xs:
        if any(math.isnan(c) for chunks in x.chunks for c in chunks):
            raise ValueError(
                f"map_overlap needs known chunk sizes, but an array has chunks {x.chunks}; "
                "call x.compute_chunk_sizes() first"
            )
    if align_arrays and len(xs) > 1:
        xs = aligned(xs)
    n, ndims = len(xs), [x.ndim for x in xs]
    depths = per_array(0 if depth is None else depth, ndims, "depth")
    widths = [depth_pairs(d, x.ndim) for d, x in zip(depths, xs)]
    edges = [
        _edges(*e, pad_kwargs)
        for e in zip(
            widths, per_array(mode, ndims, "mode"), per_array(boundary, ndims, "boundary")
        )
    ]
    padded = [
        tuple(w if edge else (0, 0) for w, edge in zip(ws, e[1])) for ws, e in zip(widths, edges)
    ]
    if not any(b or a for ws in widths for b, a in ws):  # no halo: dask's map_blocks
        for x, (m, edge, kw) in zip(xs, edges):
            if any(edge):
                pad(x, 0, m, **kw)  # (numpy's checks of the keywords still)
        blocks: da.Array = da.map_blocks(func, *xs, **kwargs)
        return blocks
    # blocks at least as wide as the halo (as dask rechunks them), then the pads joined
    # to the end chunks: nothing but the edge blocks changes, and dask rechunks no more
    chunks = fitted(xs, [[max(p) for p in ws] for ws in widths])
    if any(c != x.chunks for c, x in zip(chunks, xs)):
        if not allow_rechunk:
            raise ValueError(
                f"map_overlap: the halo {widths if n > 1 else widths[0]} is wider than some "
                f"of the chunks {[x.chunks for x in xs] if n > 1 else xs[0].chunks}; "
                "rechunk the arrays, or let allow_rechunk=True do it"
            )
        xs = [x.rechunk(c) for x, c in zip(xs, chunks)]
    # an axis in one block with no pad has no neighbours to share: no halo there (so a
    # halo wider than such an axis is no error)
    widths = [
        tuple((0, 0) if len(c) == 1 and not any(p) else w for w, c, p in zip(*e))
        for e in zip(widths, (x.chunks for x in xs), padded)
    ]
    ys = [_padded(x, p, *e) for x, p, e in zip(xs, padded, edges)]
    return _shared(func, xs, ys, widths, padded, trim, kwargs)


def _padded(
    x: da.Array,
    widths: tuple[tuple[int, int], ...],
    mode: PadMode,
    edges: tuple[bool, ...],
    kw: dict[str, object],
) -> da.Array:
    """``x`` padded by ``widths`` with ``mode``, the pads joined to its end chunks (and
    numpy's checks of the keywords where an axis has a halo at the edges but no pad)."""
    if any(map(any, widths)):
        return pad(x, widths, mode, chunks=tuple(map(_joined, x.chunks, widths)), **kw)
    if any(edges):
        pad(x, widths, mode, **kw)
    return x


def _shared(
    func: Callable[..., object],
    xs: list[da.Array],
    ys: list[da.Array],
    widths: list[tuple[tuple[int, int], ...]],
    padded: list[tuple[tuple[int, int], ...]],
    trim: bool,
    kwargs: dict[str, Any],
) -> da.Array:
    """dask's ``map_overlap`` of ``func`` on the padded arrays ``ys`` (no boundary of
    its own), the pads cut off the result."""
    halos = [dict(enumerate(ws)) for ws in widths]
    if not trim:  # func cuts the halo off every side itself: what it returns is x's
        kwargs.setdefault("chunks", xs[0].chunks)
        untrimmed: da.Array = dask_map_overlap(
            func,
            *ys,
            depth=halos,
            boundary="none",
            trim=False,
            align_arrays=False,
            allow_rechunk=False,
            **kwargs,
        )
        return untrimmed
    # dask trims by the halo of the array of most dimensions (the first of those)
    first = max(range(len(xs)), key=lambda i: (xs[i].ndim, -i))
    crops = _output_widths(padded[first], kwargs)
    output_halo = _output_widths(widths[first], kwargs)
    return _trimmed_halos(func, ys, halos, output_halo, crops, kwargs)


def _trimmed_in_one_step(
    func: Callable[..., object],
    ys: list[da.Array],
    halos: list[dict[int, tuple[int, int]]],
    output_halo: tuple[tuple[int, int], ...],
    crops: tuple[tuple[int, int], ...],
    kwargs: dict[str, Any],
) -> da.Array:
    # classic graphs: dask's map_overlap (its overlap, then map_blocks), with its trim and
    # the pad's crop in one step: the halo cut off inside, the pad at the array's edges
    shared = [overlap(y, depth=h, boundary="none", allow_rechunk=False) for y, h in zip(ys, halos)]
    out = da.map_blocks(func, *shared, **kwargs)
    return _trimmed(out, output_halo, crops)


def _trimmed_by_dask(
    func: Callable[..., object],
    ys: list[da.Array],
    halos: list[dict[int, tuple[int, int]]],
    output_halo: tuple[tuple[int, int], ...],
    crops: tuple[tuple[int, int], ...],
    kwargs: dict[str, Any],
) -> da.Array:
    # query planning: array-expr's overlap takes no graph-built array, so dask's own
    # map_overlap trims the halo, then the pad is cropped
    out = dask_map_overlap(
        func, *ys, depth=halos, boundary="none", align_arrays=False, allow_rechunk=False, **kwargs
    )
    return crop(out, crops)


_trimmed_halos = per_graph_mode(
    "_trimmed_halos",
    "``func`` over the blocks of ``ys`` with their ``halos``, the output's halo and the pad "
    "(``crops``) cut off the result.",
    classic=_trimmed_in_one_step,
    planned=_trimmed_by_dask,
)


def _edges(
    widths: tuple[tuple[int, int], ...],
    mode: PadMode | None,
    boundary: Boundary | None,
    pad_kwargs: dict[str, object],
) -> tuple[PadMode, tuple[bool, ...], dict[str, object]]:
    """One array's numpy.pad mode, whether each axis has a halo at the array's edges,
    and its numpy.pad keywords, from its ``mode`` or ``boundary``."""
    kw = dict(pad_kwargs)
    if mode is not None and boundary is not None:
        raise TypeError("give the edge as mode= (numpy's names) or boundary=, not both")
    if boundary is not None:
        mode, edges = _from_boundary(boundary, widths, kw)
        return mode, edges, kw
    if mode is None:
        mode = "constant"  # numpy.pad's default (dask's map_overlap defaults to "none")
    else:
        _refuse_other_names(mode)
    return mode, (True,) * len(widths), kw


def _from_boundary(
    boundary: Boundary, widths: tuple[tuple[int, int], ...], pad_kwargs: dict[str, object]
) -> tuple[PadMode, tuple[bool, ...]]:
    """numpy.pad's mode for ``boundary`` (one for every axis, or ``{axis: mode}``) and,
    per axis, whether the array's edges get a halo there (False: dask's ``"none"``, or an
    axis a per-axis ``boundary`` does not name, which has no halo); a number's constant
    goes into ``pad_kwargs``."""
    ndim = len(widths)
    if isinstance(boundary, Mapping) or (
        isinstance(boundary, Sequence) and not isinstance(boundary, str)
    ):
        entries = translate_each(boundary, ndim)
    elif not isinstance(boundary, (str, numbers.Number)) or isinstance(boundary, bool):
        raise TypeError(
            f"boundary: expected a name, a number, {{axis: name or number}} or one name or "
            f"number per axis, got {boundary!r}"
        )
    else:
        translated, extra = translate(boundary)
        if extra and "constant_values" in pad_kwargs:
            raise TypeError("boundary=<number> is a constant: give it, or constant_values=")
        if translated is None and pad_kwargs:
            raise TypeError(
                f"boundary={boundary!r} pads nothing: {', '.join(pad_kwargs)} cannot apply"
            )
        pad_kwargs.update(extra)
        return translated or "constant", (translated is not None,) * ndim
    # (an axis a per-axis boundary does not name has no halo at the array's edges, as
    # dask's map_overlap leaves it; an axis it names keeps its mode whatever its depth, as
    # numpy.pad's keywords go by mode, not width)
    modes = {a: e[0] for a, e in enumerate(entries) if e is not None and e[0] is not None}
    constants = {a: e[1] for a, e in enumerate(entries) if e is not None and e[1] is not None}
    if constants:
        if "constant_values" in pad_kwargs:
            raise TypeError(
                f"boundary={boundary!r} gives axes {sorted(constants)} a number, a constant: "
                "give the constants there or as constant_values=, not both"
            )
        pad_kwargs["constant_values"] = constants
    bare = [a for a in range(ndim) if a not in modes]  # no halo at the array's edges
    named: dict[str, list[int]] = {}
    for keyword, value in pad_kwargs.items():
        keys = list(value) if isinstance(value, Mapping) else []
        for key in keys:
            if isinstance(key, int) and -ndim <= key < ndim and key % ndim in bare:
                raise ValueError(
                    f"{keyword}={value!r} names axis {key}, which has no halo at the "
                    f"array's edges with boundary={boundary!r}: leave it out"
                )
        named[keyword] = [k % ndim for k in keys if isinstance(k, int) and -ndim <= k < ndim]
    misfits = keyword_misfits(modes, set(modes), named)
    if misfits:
        none = f"; axes {bare} get no halo at the array's edges" if bare else ""
        note = f"from boundary={boundary!r}{none}"
        raise ValueError(misfits[0].words("axis", "boundary", padded=False, note=note))
    return modes, tuple(a in modes for a in range(ndim))


def _refuse_other_names(mode: object) -> None:
    """ValueError for another library's boundary name given as numpy.pad's ``mode``
    (one, or one of ``{axis: mode}`` or a sequence of modes), saying what to give."""
    if isinstance(mode, Mapping):
        entries = list(mode.items())
    elif isinstance(mode, Sequence) and not isinstance(mode, str):
        entries = list(enumerate(mode))
    else:
        entries = [(None, mode)]
    for axis, word in entries:
        if not isinstance(word, str) or word in names()["numpy"]:
            continue
        try:
            meant, _ = translate(word)
        except ValueError:
            continue  # (not a boundary name either: numpy.pad's refusal follows)
        if axis is None:
            raise ValueError(
                f"mode={mode!r} is not a numpy.pad mode but another library's boundary "
                f"name: give it as boundary={mode!r} (docs/boundaries.md)"
            )
        fix = (
            f"give numpy's {meant!r}"
            if meant is not None
            else f"numpy has no mode for it: give boundary={{{axis}: {word!r}, ...}}"
        )
        raise ValueError(
            f"mode={mode!r}: axis {axis}'s {word!r} is not a numpy.pad mode but another "
            f"library's boundary name: {fix} (docs/boundaries.md)"
        )


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


def _trimmed(
    out: da.Array, halo: tuple[tuple[int, int], ...], pads: tuple[tuple[int, int], ...]
) -> da.Array:
    """``out`` with the halo cut off each block's sides inside the array and the pad off
    its sides at the array's edges, as dask's trim cuts a halo (a block ``func`` returned
    as a scalar is kept as it is, as dask's trim keeps it)."""
    chunks = tuple(
        tuple(
            c - (h[0] if j else p[0]) - (h[1] if j < len(cs) - 1 else p[1])
            for j, c in enumerate(cs)
        )
        for cs, h, p in zip(out.chunks, halo, pads)
    )
    if chunks == out.chunks:
        return out
    cut: da.Array = da.map_blocks(
        _trimmed_block,
        out,
        halo=halo,
        pads=pads,
        chunks=chunks,
        dtype=out.dtype,
        meta=meta_from_array(out),
    )
    return cut


def _trimmed_block(
    block: Values,
    halo: tuple[tuple[int, int], ...],
    pads: tuple[tuple[int, int], ...],
    block_info: Mapping[int | None, Mapping[str, Any]] | None = None,
) -> Values:
    """One block of :func:`_trimmed`."""
    if block_info is None or block.ndim == 0:
        return block
    where, blocks = block_info[0]["chunk-location"], block_info[0]["num-chunks"]
    index = tuple(
        slice(h[0] if i else p[0], size - (h[1] if i < n - 1 else p[1]))
        for h, p, i, n, size in zip(halo, pads, where, blocks, block.shape)
    )
    return block[index]
