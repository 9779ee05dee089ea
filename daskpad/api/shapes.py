"""Reaching a shape, and coming back: ``pad_to``, ``widths_for`` and ``crop``.

People pad to reach a size (the next multiple of a tile, an FFT-friendly length, a shape
shared by several arrays) and crop the pad off again afterwards. :func:`widths_for` turns
the target into numpy.pad's ``((before, after), ...)`` widths, :func:`pad_to` pads with
them, and :func:`crop` undoes any pad, whatever form its widths were given in.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex

import dask.array as da
import numpy as np

from daskpad.api.pad import PadMode, pad
from daskpad.core.ndarrays import Values
from daskpad.core.per_axis import per_axis
from daskpad.core.plan import normalize_pad_width

if TYPE_CHECKING:
    import numpy.typing as npt

#: how the width an axis needs is split between its two sides
ALIGNS = ("center", "start", "end")

#: a size per axis: one entry per axis (None leaves an axis as it is), or ``{axis: size}``
AxisSizes = Sequence[SupportsIndex | None] | Mapping[int, SupportsIndex] | Values


def widths_for(
    array: da.Array | npt.ArrayLike,
    shape: AxisSizes | None = None,
    *,
    multiple: SupportsIndex | AxisSizes | None = None,
    align: str = "center",
) -> tuple[tuple[int, int], ...]:
    """The ``pad_width`` that pads ``array`` to ``shape``, or each axis to the next
    ``multiple``: what :func:`pad_to` pads with, and what :func:`crop` takes to undo it.

    Parameters
    ----------
    array : array_like or tuple of int
        The array (a list is data, as ``numpy.pad`` reads it), or its shape as a tuple.
    shape : sequence or dict, optional
        The size each axis is padded to: one entry per axis (``None`` leaves an axis as it
        is), or ``{axis: size}`` for some axes.
    multiple : int, sequence or dict, optional
        Pad each axis to the next multiple of this (one for all axes, one entry per axis
        with ``None`` for an axis left as it is, or ``{axis: multiple}``). Give ``shape``
        or ``multiple``, not both.
    align : {"center", "start", "end"}
        Where the array sits in the padded one: ``"center"`` splits the width in two
        halves, the odd element after; ``"start"`` pads after only, ``"end"`` before only.

    Returns
    -------
    tuple of (before, after) pairs, one per axis

    Raises
    ------
    TypeError
        Neither or both of ``shape`` and ``multiple``, an entry that is not an integer, or
        an xarray Dataset or DataArray (``obj.pad2.widths_for`` takes dimension names).
    ValueError
        A target smaller than its axis, a multiple below 1, an axis that does not exist,
        or an unknown ``align``.

    Examples
    --------
    >>> import daskpad
    >>> daskpad.widths_for((5, 7), (8, None))
    ((1, 2), (0, 0))
    >>> daskpad.widths_for((5, 7), multiple=4, align="start")
    ((0, 3), (0, 1))
    """
    _refuse_labelled(array, "widths_for")
    have = _shape_of(array, "widths_for")
    ndim = len(have)
    if (shape is None) == (multiple is None):
        raise TypeError(
            "give the size to pad to, as shape= or as multiple=, not "
            + ("both" if shape is not None else "neither")
        )
    if align not in ALIGNS:
        raise ValueError(f"align must be one of {', '.join(map(repr, ALIGNS))}, not {align!r}")
    if shape is not None:
        targets = per_axis("shape", shape, ndim, broadcast=False)
        wanted = [n if t is None else t for n, t in zip(have, targets)]
    else:
        multiples = per_axis("multiple", multiple, ndim, broadcast=True)
        for axis, m in enumerate(multiples):
            if m is not None and m < 1:
                raise ValueError(f"multiple must be 1 or more, not {m} (axis {axis})")
        wanted = [n if m is None else -(-n // m) * m for n, m in zip(have, multiples)]
    widths = []
    for axis, (n, target) in enumerate(zip(have, wanted)):
        if target < n:
            raise ValueError(
                f"shape: axis {axis} has {n} elements, more than the {target} asked for; "
                "pad_to only pads (crop or slice the array to shrink it)"
            )
        extra = target - n
        before = {"center": extra // 2, "start": 0, "end": extra}[align]
        widths.append((before, extra - before))
    return tuple(widths)


def pad_to(
    array: da.Array | npt.ArrayLike,
    shape: AxisSizes | None = None,
    *,
    multiple: SupportsIndex | AxisSizes | None = None,
    mode: PadMode = "constant",
    align: str = "center",
    chunks: object = None,
    **kwargs: Any,
) -> da.Array:
    """Pad ``array`` lazily to ``shape``, or each axis to the next ``multiple``, as
    :func:`numpy.pad` pads with the widths :func:`widths_for` chooses.

    ``shape``, ``multiple`` and ``align`` are :func:`widths_for`'s; ``mode``, ``chunks``
    and the keywords (``constant_values``, ``end_values``, ``stat_length``,
    ``reflect_type``) are :func:`daskpad.pad`'s, a mode per axis included. ``crop(pad_to(x,
    ...), widths_for(x, ...))`` is ``x`` again. An xarray Dataset or DataArray is refused
    with a TypeError: ``obj.pad2.pad_to`` pads it by dimension name.

    Examples
    --------
    >>> import dask.array as da, daskpad
    >>> x = da.arange(5, chunks=2)
    >>> daskpad.pad_to(x, (8,), mode="reflect").compute()
    array([1, 0, 1, 2, 3, 4, 3, 2])
    >>> daskpad.pad_to(x, multiple=4, align="start").compute()
    array([0, 1, 2, 3, 4, 0, 0, 0])
    >>> daskpad.pad_to(da.ones((3, 5), chunks=2), (4, 8), mode={1: "wrap"}).shape
    (4, 8)
    """
    _refuse_labelled(array, "pad_to")
    x = array if isinstance(array, da.Array) else da.asarray(array)
    widths = widths_for(x, shape, multiple=multiple, align=align)
    return pad(x, widths, mode, chunks=chunks, **kwargs)


def crop(
    array: da.Array | npt.ArrayLike, pad_width: npt.ArrayLike | Mapping[int, npt.ArrayLike]
) -> da.Array:
    """Cut ``pad_width`` off ``array``: the exact inverse of :func:`daskpad.pad`.

    ``crop(pad(x, pad_width, mode), pad_width)`` equals ``x`` for every mode and every form
    of ``pad_width`` numpy.pad takes (and a ``{axis: width}`` dict). Lazy; with ``pad``'s
    default chunks, the result has ``x``'s chunks and its blocks are the padded array's
    interior blocks themselves (dask aliases, nothing copied).

    Raises
    ------
    TypeError, ValueError
        For a ``pad_width`` numpy.pad would refuse (with numpy's exception), ValueError
        for widths that remove more than an axis has, and TypeError for an xarray Dataset
        or DataArray (``obj.pad2.crop`` takes dimension names).

    Examples
    --------
    >>> import dask.array as da, daskpad
    >>> x = da.arange(6, chunks=2)
    >>> y = daskpad.pad(x, (2, 3), mode="wrap")
    >>> y.compute()
    array([4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2])
    >>> daskpad.crop(y, (2, 3)).chunks == x.chunks
    True
    """
    _refuse_labelled(array, "crop")
    y = array if isinstance(array, da.Array) else da.asarray(array)
    _shape_of(y, "crop")
    widths = normalize_pad_width(pad_width, y.ndim)
    for axis, ((before, after), n) in enumerate(zip(widths, y.shape)):
        if before + after > n:
            raise ValueError(
                f"pad_width: cropping ({before}, {after}) off axis {axis} removes more than "
                f"its {n} elements"
            )
    cropped: da.Array = y[tuple(slice(b, int(n) - a) for (b, a), n in zip(widths, y.shape))]
    return cropped


def _refuse_labelled(array: object, name: str) -> None:
    """TypeError for an xarray Dataset or DataArray, whose dimensions have names: these
    functions take axes by number, and its accessor's ``obj.pad2.<name>`` takes names.

    xarray is optional, and this layer does not import it: an object of its classes can
    only exist once xarray has been imported, so where ``sys.modules`` does not hold it,
    ``array`` is none of them. Taking the classes from there gives ``isinstance``'s exact
    answer (subclasses included) at no cost, without relying on the modules xarray defines
    them in (as a test of the type's module name would) and without mistaking another
    library's labelled array for one (as a test of ``.dims`` would).
    """
    xr = sys.modules.get("xarray")
    labelled = tuple(
        c
        for c in (getattr(xr, "Dataset", None), getattr(xr, "DataArray", None))
        if isinstance(c, type)
    )
    if labelled and isinstance(array, labelled):
        raise TypeError(
            f"daskpad.{name} takes an array, its axes by number, and got an xarray "
            f"{type(array).__name__}: use obj.pad2.{name}(...), which takes dimension names"
        )


def _shape_of(array: da.Array | npt.ArrayLike, name: str) -> tuple[int, ...]:
    """The shape of ``array`` (a tuple: a shape itself), refused where dask does not know
    it (chunks of unknown size)."""
    if isinstance(array, tuple):
        shape = array
    else:
        shape = array.shape if hasattr(array, "shape") else np.shape(array)
    if any(isinstance(n, float) and math.isnan(n) for n in shape):
        raise ValueError(
            f"{name} needs known chunk sizes, but this array's shape is {shape}; "
            "call x.compute_chunk_sizes() first"
        )
    return tuple(int(n) for n in shape)
