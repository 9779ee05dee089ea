"""``daskpad.dask.map_overlap``: :func:`dask.array.map_overlap`'s signature and words,
with daskpad's halo at the array's edges.

Code written for dask switches with one import::

    from daskpad.dask import map_overlap  # instead of dask.array's

dask's words mean what they mean in dask: ``boundary="none"`` (the default: no halo at
the array's edges), ``"reflect"`` (numpy.pad's ``"symmetric"``), ``"periodic"``
(``"wrap"``), ``"nearest"`` (``"edge"``), a number (a constant); one for every axis, a
tuple or a dict per axis (axes a dict does not name: ``"none"``), or a list with one
entry per array. numpy.pad's modes are taken as ``mode=``, as by
:func:`daskpad.map_overlap`. The result is ``func`` applied to the arrays each padded as
numpy.pad pads them with the translated modes, axis after axis, then cropped: dask's
result wherever dask's is right; where dask refuses (a ``(before, after)`` depth with a
boundary other than ``"none"``, a depth wider than the axis) it is the same definition.
dask's deprecated order ``map_overlap(x, func, depth, boundary, trim)`` is taken with
dask's ``FutureWarning``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, overload

import dask.array as da

from daskpad.api.overlap import AxisBoundary, Boundary, Depth
from daskpad.api.overlap import map_overlap as _map_overlap
from daskpad.api.pad import PadMode

__all__ = ["map_overlap"]

_USAGE = "Usage:   da.map_overlap(function, x)\n   or:   da.map_overlap(function, x, y, z)"


def map_overlap(
    func: Callable[..., object],
    *args: Any,
    depth: Depth | list[Depth] | None = None,
    boundary: Boundary | list[Boundary] | None = None,
    trim: bool = True,
    align_arrays: bool = True,
    allow_rechunk: bool = True,
    mode: PadMode | list[PadMode] | None = None,
    **kwargs: Any,
) -> da.Array:
    """:func:`dask.array.map_overlap`, dask's words and signature, numpy.pad's result at
    the array's edges (see the module's description).

    Parameters
    ----------
    func : function
        Called on block i of every array, each with its own halo.
    *args : dask.array.Array
        The arrays, aligned and broadcast as dask aligns them.
    depth : int, tuple, dict or list, optional
        As dask takes it; a list has one entry per array. Default 0.
    boundary : str, number, tuple, dict or list, optional
        dask's words: ``"none"`` (default), ``"reflect"``, ``"periodic"``,
        ``"nearest"``, a number; a list has one entry per array.
    trim, align_arrays, allow_rechunk : bool
        As dask's.
    mode : str, dict or tuple, optional
        numpy.pad's mode instead of ``boundary`` (with numpy.pad's keywords), as
        :func:`daskpad.map_overlap` takes it.
    **kwargs
        To :func:`dask.array.map_blocks` and to ``func``, as in dask.

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> from daskpad.dask import map_overlap
    >>> x = da.arange(6, chunks=3)
    >>> def total(b):  # each point and its two neighbours
    ...     return b + np.roll(b, 1) + np.roll(b, -1)
    >>> map_overlap(total, x, depth=1, boundary="reflect").compute()
    array([ 1,  3,  6,  9, 12, 14])

    A ``(before, after)`` depth with a boundary, which dask refuses:

    >>> def back(b):  # each point and the one before it
    ...     return b + np.roll(b, 1)
    >>> map_overlap(back, x, depth={0: (1, 0)}, boundary="periodic").compute()
    array([5, 1, 3, 5, 7, 9])
    """
    if isinstance(func, da.Array) and args and callable(args[0]):
        warnings.warn(
            "The use of map_overlap(array, func, **kwargs) is deprecated since dask 2.17.0 "
            "and will be an error in a future release. To silence this warning, use the "
            "syntax map_overlap(func, array0,[ array1, ...,] **kwargs) instead.",
            FutureWarning,
            stacklevel=2,
        )
        rest = list(args[1:4])
        depth = rest[0] if len(rest) > 0 else depth
        boundary = rest[1] if len(rest) > 1 else boundary
        trim = rest[2] if len(rest) > 2 else trim
        func, args = args[0], (func,)
    if not callable(func):
        raise TypeError(
            f"First argument must be callable function, not {type(func).__name__}\n{_USAGE}"
        )
    if not all(isinstance(x, da.Array) for x in args):
        raise TypeError(
            "All variadic arguments must be arrays, not "
            f"{[type(x).__name__ for x in args]}\n{_USAGE}"
        )
    if mode is None:
        if isinstance(boundary, list):
            boundary = [dask_words(b) for b in boundary]
        else:
            boundary = dask_words(boundary)
    return _map_overlap(
        func,
        *args,
        depth=0 if depth is None else depth,
        boundary=boundary,
        mode=mode,
        trim=trim,
        align_arrays=align_arrays,
        allow_rechunk=allow_rechunk,
        **kwargs,
    )


@overload
def dask_words(boundary: AxisBoundary | None) -> AxisBoundary: ...
@overload
def dask_words(boundary: Boundary | None) -> Boundary: ...
def dask_words(boundary: object) -> object:
    """dask's ``boundary`` for one array (a word, a number, a tuple or a dict per axis)
    in :func:`daskpad.map_overlap`'s words: ``"reflect"`` is ``"dask:reflect"``,
    ``None`` and the axes a dict does not name are ``"dask:none"``."""
    if boundary is None:
        return "dask:none"
    if isinstance(boundary, str):
        return boundary if ":" in boundary else f"dask:{boundary}"
    if isinstance(boundary, tuple):
        return tuple(dask_words(b) for b in boundary)
    if isinstance(boundary, Mapping):
        return {axis: dask_words(b) for axis, b in boundary.items()}
    return boundary
