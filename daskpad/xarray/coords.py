"""What happens to the parts of a padded variable that are not its data: the ``coords=``
policies of :func:`daskpad.xarray.pad2` and the command, the continuation of index coordinates
(``coords="extend"``), and the encoding keys that describe the unpadded variable's layout.
numpy only, so the command's option parser can read the policies without importing xarray.
cftime dates (a ``CFTimeIndex``'s values) are continued through their own arithmetic, which
keeps their calendar, so cftime itself is not imported either.
"""

from __future__ import annotations

import datetime
from collections.abc import Hashable
from typing import Literal

import numpy as np

#: The values ``coords=`` accepts.
COORDS_POLICIES: tuple[str, ...] = ("extend", "drop", "xarray")
CoordsPolicy = Literal["extend", "drop", "xarray"]

#: Encoding keys that describe the storage layout of the *unpadded* variable. Left in place
#: they make to_zarr refuse the result ("chunks would overlap multiple dask chunks") or
#: to_netcdf write the wrong shape.
LAYOUT_ENCODING = ("chunks", "preferred_chunks", "shards", "chunksizes", "contiguous")
SHAPE_ENCODING = ("original_shape",)


def cannot_extend(name: Hashable, dim: Hashable, why: str) -> ValueError:
    return ValueError(
        f"cannot extend the index coordinate {name!r} of padded dimension {dim!r}: {why}. "
        "coords='extend' continues an index with its edge spacing, which needs at least two "
        "strictly monotonic numbers, datetimes (numpy's or cftime's) or timedeltas. Use "
        "coords='drop' to remove the index coordinate, or coords='xarray' for xarray's own "
        "rule (labels padded like data, which can repeat them)"
    )


def extend_labels(
    values: np.ndarray, before: int, after: int, name: Hashable, dim: Hashable
) -> np.ndarray:
    """Continue a strictly monotonic 1-D index by ``before``/``after`` steps of its edge spacing.

    >>> extend_labels(np.array([0, 1, 2]), 2, 2, "x", "x")
    array([-2, -1,  0,  1,  2,  3,  4])
    >>> extend_labels(np.array([1.0, 0.5, 0.25]), 1, 2, "x", "x")
    array([ 1.5 ,  1.  ,  0.5 ,  0.25,  0.  , -0.25])

    Dates of an object array (cftime's, in any calendar) are continued by their edge
    spacing in their own calendar.
    """
    kind = values.dtype.kind
    if kind == "O":
        return _extend_dates(values, before, after, name, dim)
    if kind not in "iufmM":
        raise cannot_extend(name, dim, f"its labels have dtype {values.dtype}")
    if values.size < 2:
        raise cannot_extend(name, dim, f"it holds {values.size} value(s), so no spacing")
    if kind in "mM" and np.isnat(values).any():
        raise cannot_extend(name, dim, "it contains NaT")
    ascending = bool(values[1] > values[0])
    if not strictly_monotonic(values, ascending):
        raise cannot_extend(name, dim, "it is not strictly monotonic")
    overflow = cannot_extend(
        name,
        dim,
        f"continued by its edge spacing, its labels overflow or round to equal values in "
        f"{values.dtype} (edge labels {values[0]!r} and {values[-1]!r})",
    )
    if kind in "iumM":
        # Python ints: exact whatever the spacing. Times are int64 counts of their unit.
        ints = values.view(np.int64) if kind in "mM" else values
        v0, v1, w1, w0 = (int(ints[i]) for i in (0, 1, -2, -1))
        lead = [v0 - k * (v1 - v0) for k in range(before, 0, -1)]
        tail = [w0 + k * (w0 - w1) for k in range(1, after + 1)]
        ends = lead + tail
        dtype = values.dtype
        if ends and kind in "mM":
            # int64's lowest value is NaT
            if not -(2**63) < min(ends) <= max(ends) < 2**63:
                raise overflow
            new = np.array(ends, dtype=np.int64).view(dtype)
        elif ends:
            lo, hi = min(ends), max(ends)
            dtype = np.result_type(dtype, np.min_scalar_type(lo), np.min_scalar_type(hi))
            if dtype.kind not in "iu":
                raise cannot_extend(
                    name, dim, f"the new labels run from {lo} to {hi}, beyond 64-bit integers"
                )
            new = np.array(ends, dtype=dtype)
        else:
            new = values[:0]
        return np.concatenate([new[: len(lead)], values.astype(dtype), new[len(lead) :]])
    first, last = values[1] - values[0], values[-1] - values[-2]
    k_before = np.arange(before, 0, -1)
    k_after = np.arange(1, after + 1)
    with np.errstate(over="ignore", invalid="ignore"):  # checked below
        lead_arr = values[0] - k_before * first
        tail_arr = values[-1] + k_after * last
    out = np.concatenate([lead_arr, values, tail_arr]).astype(values.dtype, copy=False)
    if not strictly_monotonic(out, ascending):
        raise overflow
    return out


def _extend_dates(
    values: np.ndarray, before: int, after: int, name: Hashable, dim: Hashable
) -> np.ndarray:
    """Continue an object array of dates (cftime's) by its edge spacing, a
    :class:`datetime.timedelta`, with the dates' own arithmetic (and so their calendar)."""
    if values.size < 2:
        raise cannot_extend(name, dim, f"it holds {values.size} value(s), so no spacing")
    try:
        first, last = values[1] - values[0], values[-1] - values[-2]
    except TypeError:
        first = last = None
    if not isinstance(first, datetime.timedelta) or not isinstance(last, datetime.timedelta):
        kinds = sorted({type(v).__name__ for v in values})
        raise cannot_extend(name, dim, f"its labels are objects of type(s) {kinds}")
    ascending = first > datetime.timedelta(0)
    later, earlier = values[1:], values[:-1]
    if not all((a > b) if ascending else (a < b) for a, b in zip(later, earlier)):
        raise cannot_extend(name, dim, "it is not strictly monotonic")
    try:
        lead = [values[0] - k * first for k in range(before, 0, -1)]
        tail = [values[-1] + k * last for k in range(1, after + 1)]
    except (ValueError, OverflowError) as e:
        raise cannot_extend(
            name, dim, f"continued by its edge spacing, its dates leave their range ({e})"
        ) from e
    out = np.empty(values.size + before + after, dtype=object)
    out[:] = lead + list(values) + tail
    return out


def strictly_monotonic(values: np.ndarray, ascending: bool) -> bool:
    """No NaN or inf, and strictly increasing (or decreasing); compared, not subtracted, so
    that nothing overflows."""
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        return False
    later, earlier = values[1:], values[:-1]
    return bool((later > earlier).all() if ascending else (later < earlier).all())
