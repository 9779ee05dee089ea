"""What happens to the parts of a padded variable that are not its data: the ``coords=``
policies of :func:`daskpad.xarray.pad2` and the command, the continuation of index coordinates
(``coords="extend"``), and the encoding keys that describe the unpadded variable's layout.
numpy only, so the command's option parser can read the policies without importing xarray.
cftime dates (a ``CFTimeIndex``'s values) are continued through their own arithmetic, which
keeps their calendar, so cftime itself is not imported either.
"""

from __future__ import annotations

import datetime
import operator
from collections.abc import Hashable
from typing import Literal

import numpy as np

from daskpad.core.ndarrays import DType, Numbers, Values

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
    values: Values, before: int, after: int, name: Hashable, dim: Hashable
) -> Values:
    """Continue a strictly monotonic 1-D index by ``before``/``after`` steps of its edge spacing.

    >>> extend_labels(np.array([0, 1, 2]), 2, 2, "x", "x")
    array([-2, -1,  0,  1,  2,  3,  4])
    >>> extend_labels(np.array([1.0, 0.5, 0.25]), 1, 2, "x", "x")
    array([ 1.5 ,  1.  ,  0.5 ,  0.25,  0.  , -0.25])

    Dates of an object array (cftime's, in any calendar) are continued by their edge
    spacing in their own calendar.
    """
    before, after = operator.index(before), operator.index(after)  # Python ints: exact
    kind = values.dtype.kind
    total = values.size + before + after
    if total * max(values.dtype.itemsize, 8) >= 2**62:
        raise _too_long(total, name, dim)  # (more bytes than any machine addresses)
    if kind == "O":
        return _extend_dates(values, before, after, name, dim)
    if kind not in "iufmM":
        raise cannot_extend(name, dim, f"its labels have dtype {values.dtype}")
    if values.size < 2:
        raise cannot_extend(name, dim, f"it holds {values.size} value(s), so no spacing")
    if not values.dtype.isnative:
        values = values.astype(values.dtype.newbyteorder("="))
    if kind in "mM" and np.isnat(values).any():
        raise cannot_extend(name, dim, "it contains NaT")
    ascending = bool(values[1] > values[0])
    if not strictly_monotonic(values, ascending):
        raise cannot_extend(name, dim, "it is not strictly monotonic")
    try:
        if kind in "iumM":
            return _extend_integers(values, before, after, name, dim)
        return _extend_floats(values, before, after, name, dim, ascending)
    except MemoryError:
        raise _too_long(total, name, dim) from None


def _too_long(total: int, name: Hashable, dim: Hashable) -> ValueError:
    return cannot_extend(
        name,
        dim,
        f"its {total:,} labels do not fit in memory (an index coordinate is held in "
        "memory, not computed lazily like data)",
    )


def _overflow(values: Values, name: Hashable, dim: Hashable) -> ValueError:
    return cannot_extend(
        name,
        dim,
        f"continued by its edge spacing, its labels overflow or round to equal values in "
        f"{values.dtype} (edge labels {values[0]!r} and {values[-1]!r})",
    )


def _extend_integers(
    values: Values, before: int, after: int, name: Hashable, dim: Hashable
) -> Values:
    """Integers and times (int64 counts of their unit), exact whatever the spacing.

    The new labels are linear in their step number, so the extreme ones, computed with
    Python's integers, decide the dtype. They are then computed in 64-bit arithmetic modulo
    2**64, which is exact wherever the true values fit in 64 bits (as checked), whatever the
    intermediate products do.
    """
    kind = values.dtype.kind
    ints = values.view(np.int64) if kind in "mM" else values
    v0, v1, w1, w0 = (int(ints[i]) for i in (0, 1, -2, -1))
    lo_step, hi_step = v1 - v0, w0 - w1
    ends = ([v0 - before * lo_step, v0 - lo_step] if before else []) + (
        [w0 + hi_step, w0 + after * hi_step] if after else []
    )
    dtype = values.dtype
    if not ends:
        return values.copy()
    lo, hi = min(ends), max(ends)
    if kind in "mM":
        # int64's lowest value is NaT
        if not -(2**63) < lo <= hi < 2**63:
            raise _overflow(values, name, dim)
        wide: DType = np.dtype(np.int64)
    else:
        holding = _holding(dtype, lo, hi)
        if holding is None:
            raise cannot_extend(
                name, dim, f"the new labels run from {lo} to {hi}, beyond 64-bit integers"
            )
        dtype = holding
        wide = np.dtype(np.int64 if dtype.kind == "i" else np.uint64)
    m = 2**64
    u = np.uint64
    lead = u(v0 % m) - np.arange(before, 0, -1, dtype=u) * u(lo_step % m)
    tail = u(w0 % m) + np.arange(1, after + 1, dtype=u) * u(hi_step % m)
    body = ints.astype(wide).view(u)
    out: Values = np.concatenate([lead, body, tail]).view(wide)
    if kind in "mM":
        return out.view(values.dtype)
    return out.astype(dtype, copy=False)


def _holding(dtype: DType, lo: int, hi: int) -> DType | None:
    """The index's own integer dtype if it holds ``lo..hi``, else the narrowest wider one
    of its kind, else (unsigned labels that go below zero) the narrowest wider signed one,
    or int64 for uint64 labels (every label lies between the two ends, so int64 holds
    them all when it holds ``lo..hi``).

    >>> _holding(np.dtype(np.uint8), -5, 15), _holding(np.dtype(np.int64), 0, 2**40)
    (dtype('int16'), dtype('int64'))
    >>> _holding(np.dtype(np.uint64), -1, 3)
    dtype('int64')
    """
    sizes = (1, 2, 4, 8)
    wider = [np.dtype(f"{dtype.kind}{n}") for n in sizes] + [np.dtype(f"i{n}") for n in sizes]
    for candidate in [dtype, *wider]:
        info = np.iinfo(candidate)
        widens = np.can_cast(dtype, candidate) or candidate == np.int64
        if widens and info.min <= lo and hi <= info.max:
            return candidate
    return None


def _extend_floats(
    values: Values, before: int, after: int, name: Hashable, dim: Hashable, ascending: bool
) -> Values:
    first, last = values[1] - values[0], values[-1] - values[-2]
    k_before = np.arange(before, 0, -1)
    k_after = np.arange(1, after + 1)
    with np.errstate(over="ignore", invalid="ignore"):  # checked below
        lead_arr = values[0] - k_before * first
        tail_arr = values[-1] + k_after * last
    out: Values = np.concatenate([lead_arr, values, tail_arr]).astype(values.dtype, copy=False)
    if not strictly_monotonic(out, ascending):
        raise _overflow(values, name, dim)
    return out


def _extend_dates(
    values: Values, before: int, after: int, name: Hashable, dim: Hashable
) -> Values:
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


def strictly_monotonic(values: Numbers, ascending: bool) -> bool:
    """No NaN or inf, and strictly increasing (or decreasing); compared, not subtracted, so
    that nothing overflows."""
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        return False
    later, earlier = values[1:], values[:-1]
    return bool((later > earlier).all() if ascending else (later < earlier).all())
