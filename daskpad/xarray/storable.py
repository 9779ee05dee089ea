"""What a variable's encoding can store: the check that keeps a padded value from being
stored as another number.

``pad2`` keeps a variable's encoding (CF packing, fill values, ``_Unsigned``, time units),
and every writer of its result stores the padded values with it: xarray's ``to_zarr`` and
``to_netcdf``, :func:`daskpad.xarray.to_zarr`, the command. A value the encoding cannot
hold (out of the packed integers' range, equal to the fill value, NaN without a fill value,
a time the units cannot express) would be cast to another number on the way, silently.
:func:`encode` encodes values as xarray does and refuses any that would not decode back to
themselves, with a message naming the variable, its encoding and the value;
:func:`check_values` refuses what a pad fills with before anything is computed, and
:func:`checked_pads` checks what a pad computes (a statistic, odd reflection, a user
function) inside the graph, pad blocks only, as they are computed.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import dask.array as da
import numpy as np
import pandas as pd
import xarray as xr
from dask.base import tokenize
from xarray.conventions import decode_cf_variable, encode_cf_variable

from daskpad._compat.forms import per_graph_mode
from daskpad._compat.graphs import picked_array
from daskpad._compat.repicks import repicked_through
from daskpad.core.ndarrays import DType, KnownKind, Numbers, Values
from daskpad.core.regrid import regrid

#: the encoding keys that describe the numbers stored, which encoding a padded value needs
ENCODING_KEYS = (
    "dtype",
    "scale_factor",
    "add_offset",
    "_FillValue",
    "missing_value",
    "_Unsigned",
    "units",
    "calendar",
)
#: (axis, (before, after), the input's length along it): a pad region of a padded array
Region = tuple[int, tuple[int, int], int]
#: a variable's data: lazy, or in memory
Data = TypeVar("Data", da.Array, Values)


def constrains(encoding: Mapping[str, Any], dtype: DType) -> bool:
    """Whether ``encoding`` (:func:`value_encoding`'s) can refuse a value of ``dtype``:
    it stores the values in another dtype, packs them, keeps a fill value that is a number
    or times in units. (Floats stored as themselves, NaN their fill, take any value.)"""
    if "dtype" in encoding and np.dtype(encoding["dtype"]) != dtype:
        return True
    if any(k in encoding for k in ("scale_factor", "add_offset", "missing_value", "_Unsigned")):
        return True
    fill = encoding.get("_FillValue")
    if fill is not None and not (dtype.kind in "fc" and np.isnan(np.asarray(fill, float)).all()):
        return True
    return dtype.kind in "mM" and "units" in encoding


def check_values(values: Values, *, variable: Hashable, encoding: Mapping[str, Any]) -> None:
    """Refuse (``ValueError``, :func:`encode`'s) any of ``values`` that ``encoding`` cannot
    store, without xarray's warnings on the way (what it warns of is refused, or fine)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encode(values, variable=variable, encoding=encoding)


def _checked(block: Values, *, variable: Hashable, encoding: Mapping[str, Any]) -> Values:
    check_values(block, variable=variable, encoding=encoding)
    return block


def checked_pads(
    data: Data, regions: list[Region], *, variable: Hashable, encoding: Mapping[str, Any]
) -> Data:
    """``data`` (a padded variable's values, decoded) with its pad ``regions`` checked
    against ``encoding`` (:func:`check_values`): at once for an in-memory array, inside the
    graph for a dask array, where each block of a region is checked as it is computed and
    the interior's blocks are left as they are. The result has ``data``'s chunks."""
    if not regions:
        return data
    if not isinstance(data, da.Array):
        for k, (before, _after), n in regions:
            for part in (slice(0, before), slice(before + n, None)):
                where = tuple(part if i == k else slice(None) for i in range(data.ndim))
                check_values(np.asarray(data[where]), variable=variable, encoding=encoding)
        return data
    return _checked_array(data, sorted(regions), dict(encoding), variable)


def _picked_checks(
    data: da.Array, regions: list[Region], encoding: dict[str, Any], variable: Hashable
) -> da.Array:
    """With classic graphs: ``data`` picked again, its blocks in a region from a check of
    them (the checks of other blocks are culled), the others as ``data`` picked them
    (:func:`daskpad._compat.repicks.repicked_through`; where ``data`` is no picked array, one
    picked layer over it, an alias per block as ``concatenate`` makes)."""
    bounds = [np.cumsum((0, *c)) for c in data.chunks]
    in_pads: set[tuple[int, ...]] = set()
    for k, (before, _after), n in regions:
        starts, stops = bounds[k][:-1], bounds[k][1:]
        hit = np.flatnonzero((starts < before) | (stops > before + n)).tolist()
        ranges = [hit if i == k else range(len(c)) for i, c in enumerate(data.chunks)]
        in_pads.update(itertools.product(*ranges))
    name = f"pad-checked-{tokenize(data.name, encoding, variable)}"
    again = repicked_through(
        data, name, sorted(in_pads), _checked, variable=variable, encoding=encoding
    )
    if again is not None:  # (a pad's own picked layer: its interior's aliases as they were)
        return again
    checked = _check_blocks(data, encoding, variable)
    pick = _PadOrInterior(checked.name, data.name, frozenset(in_pads))
    return picked_array(name, data.chunks, source=pick, dependencies=[data, checked], meta=data)


@dataclass(frozen=True)
class _PadOrInterior:
    """The key of each block of a checked array: the check's in a pad, else the data's."""

    checked: str
    data: str
    in_pads: frozenset[tuple[int, ...]]

    def __call__(self, index: tuple[int, ...]) -> Hashable:
        return (self.checked if index in self.in_pads else self.data, *index)


def _sliced_checks(
    data: da.Array, regions: list[Region], encoding: dict[str, Any], variable: Hashable
) -> da.Array:
    """Under dask's array query planning: the regions cut out, checked and joined again,
    in ``data``'s chunks."""
    return regrid(_checked_parts(data, regions, encoding, variable), data.chunks)


_checked_array = per_graph_mode(
    "_checked_array",
    "``data`` with the blocks of its pad regions checked: a picked layer, or slices.",
    classic=_picked_checks,
    planned=_sliced_checks,
)


def _checked_parts(
    x: da.Array, regions: list[Region], encoding: dict[str, Any], variable: Hashable
) -> da.Array:
    """``x`` with the pads of the first region's axis checked (over the whole extent of
    the other axes: the corners once), its interior along that axis checked along the
    other regions', joined again."""
    if not regions:
        return x
    (k, (before, after), n), rest = regions[0], regions[1:]
    parts = []
    if before:
        parts.append(_check_blocks(_cut(x, k, 0, before), encoding, variable))
    parts.append(_checked_parts(_cut(x, k, before, before + n), rest, encoding, variable))
    if after:
        parts.append(_check_blocks(_cut(x, k, before + n, x.shape[k]), encoding, variable))
    if len(parts) == 1:
        return parts[0]
    joined: da.Array = da.concatenate([_meta_of_its_shape(p) for p in parts], axis=k)
    return joined


def _cut(x: da.Array, axis: int, start: int, stop: int) -> da.Array:
    """``x[start:stop]`` along ``axis``."""
    if (start, stop) == (0, x.shape[axis]):
        return x
    part: da.Array = x[
        tuple(slice(start, stop) if i == axis else slice(None) for i in range(x.ndim))
    ]
    return part


def _check_blocks(x: da.Array, encoding: dict[str, Any], variable: Hashable) -> da.Array:
    checked: da.Array = da.map_blocks(
        _checked, x, variable=variable, encoding=encoding, dtype=x.dtype, meta=x._meta
    )
    return checked


def value_encoding(
    encoding: Mapping[str, Any], dtype: DType, promoted: bool = False
) -> dict[str, Any]:
    """What encodes a computed value of a variable of ``dtype`` (its values, decoded) kept
    with ``encoding``: the CF keys of it (less the stored dtype and ``_Unsigned`` where the
    pad ``promoted`` it to float; with one missing value where a store has two that differ,
    which decode alike)."""
    kept = {k: v for k, v in encoding.items() if k in ENCODING_KEYS}
    if promoted:
        kept.pop("dtype", None)
        kept.pop("_Unsigned", None)
    fill, missing = kept.get("_FillValue"), kept.get("missing_value")
    stored = np.dtype(kept.get("dtype", dtype))
    if fill is not None and stored.kind in "iu" and np.isnan(np.asarray(fill, float)).any():
        # (NaN in integers, which xarray drops when it decodes: nothing is masked)
        kept.pop("_FillValue")
        fill = None
    if fill is not None and missing is not None:
        if not np.array_equal(np.asarray(fill), np.asarray(missing), equal_nan=True):
            kept.pop("missing_value")
    return kept


def stored_dtype(name: Hashable, dtype: DType, encoding: Mapping[str, Any]) -> DType:
    """The dtype ``encoding`` stores values of ``dtype`` in."""
    if "dtype" in encoding:
        stored: DType = np.dtype(encoding["dtype"])
        return stored
    if dtype.kind in "mM":  # (in the units' integers, or floats: as xarray chooses)
        return encode(np.array(["NaT"], dtype), variable=name, encoding=encoding).dtype
    return dtype


def assemble(
    encoded: da.Array | Values,
    box: da.Array | Values,
    axes: list[tuple[int, tuple[int, int], int]],
    where: list[slice],
    lazy: bool,
) -> Any:
    """``encoded`` with ``box`` in its place: along each computed axis (``(axis, (before,
    after), input length)``), the pads cut from ``encoded`` on either side of the rest."""
    if not axes:
        return box
    (k, (before, after), n), rest = axes[0], axes[1:]
    inner = list(where)
    inner[k] = slice(before, before + n)
    parts = []
    if before:
        parts.append(encoded[tuple(where[:k] + [slice(0, before)] + where[k + 1 :])])
    parts.append(assemble(encoded, box, rest, inner, lazy))
    if after:
        parts.append(encoded[tuple(where[:k] + [slice(before + n, None)] + where[k + 1 :])])
    if len(parts) == 1:
        return parts[0]
    if not lazy:
        return np.concatenate(parts, axis=k)
    return da.concatenate([_meta_of_its_shape(p) for p in parts], axis=k)


def _meta_of_its_shape(x: da.Array) -> da.Array:
    """``x`` with a ``meta`` of as many dimensions as ``x``: xarray's arrays under dask's
    array query planning (dask 2026.8) carry a 0-d one, which ``concatenate`` refuses."""
    if x._meta.ndim == x.ndim:
        return x
    same: da.Array = da.map_blocks(_same, x, dtype=x.dtype, meta=np.empty((0,) * x.ndim, x.dtype))
    return same


def _same(block: Values) -> Values:
    return block


def encode(values: Values, *, variable: Hashable, encoding: Mapping[str, Any]) -> Values:
    """``values`` (decoded) as xarray stores them with ``encoding``, refusing any that
    would not decode back to themselves: out of the stored type's range, equal to the fill
    value, NaN without a fill value, a time the units cannot express."""
    target = np.dtype(encoding["dtype"]) if "dtype" in encoding else None
    # floats into integers without a fill value: rounded and cast here, as xarray would,
    # without xarray's warning that NaN has no fill value (any NaN is refused below)
    cast = (
        target is not None
        and target.kind in "iu"
        and values.dtype.kind == "f"
        and encoding.get("_FillValue") is None
        and "_Unsigned" not in encoding
    )
    coding = {k: v for k, v in encoding.items() if not (cast and k == "dtype")}
    var = xr.Variable(tuple(f"d{i}" for i in range(values.ndim)), values, encoding=coding)
    lead = 0
    if values.dtype.kind in "mM" and values.size and np.isnat(values).all():
        # (xarray cannot encode times that are all NaT: one time of the units leads them)
        lead = 1
        first = np.zeros(1, values.dtype) if values.dtype.kind == "m" else _epoch(encoding)
        flat = np.concatenate([first.astype(values.dtype), values.ravel()])
        var = xr.Variable(("d",), flat, encoding=coding)
    try:
        with np.errstate(all="ignore"):  # (a value cast out of range is refused below)
            enc = encode_cf_variable(var, name=variable)
        # read back as DST's attributes say: the encoding's units (xarray may have chosen
        # others, which DST would not say) and _Unsigned (which xarray 2026.9 leaves out)
        said = {k: encoding[k] for k in ("units", "calendar", "_Unsigned") if k in encoding}
        enc = xr.Variable(enc.dims, enc.data, attrs={**enc.attrs, **said})
        if cast and target is not None:  # (less the NaN fill xarray gives floats)
            with np.errstate(all="ignore"):
                data = np.around(np.asarray(enc.values)).astype(target)
            attrs = {k: v for k, v in enc.attrs.items() if k != "_FillValue"}
            enc = xr.Variable(enc.dims, data, attrs=attrs)
        with np.errstate(all="ignore"):
            back = decode_cf_variable(variable, enc).values
    except (ValueError, OverflowError) as e:
        why = f"{e}"
        if values.dtype.kind in "mM":  # (xarray's advice on decoding does not apply)
            units = encoding.get("units")
            why = f"a time that {units!r} in {target or 'its dtype'} cannot express"
        raise ValueError(_cannot_hold(variable, encoding, why)) from None
    stored = np.asarray(enc.values)[lead:].reshape(values.shape)
    back = np.asarray(back)[lead:].reshape(values.shape)
    bad = _differs(np.asarray(values), stored, back, encoding)
    if bad is not None:
        was, made, read = (_plain(np.asarray(a).flat[bad]) for a in (values, stored, back))
        why = f"{was} is stored as {made}, which reads {read}"
        missing = pd.isna(np.asarray(values).flat[bad])
        if values.dtype.kind in "mM" and not missing:
            back_value = np.asarray(back).flat[bad]
            why = _time_cannot(np.asarray(values).flat[bad], made, back_value, encoding, target)
        outside = _outside_range(np.asarray(values).flat[bad], stored.dtype, encoding)
        if outside is not None and not missing:
            why = f"{was} {outside}"
        if missing and encoding.get("_FillValue") is None:
            why = (
                "it has no _FillValue to store a missing value (NaN) in: give constant_values "
                "(of a data variable), a mode that copies, or an encoding that holds NaN (a "
                "_FillValue, or a float dtype)"
            )
        raise ValueError(_cannot_hold(variable, encoding, why))
    return stored


def _outside_range(value: Any, stored: KnownKind, encoding: Mapping[str, Any]) -> str | None:
    """Why ``value`` (decoded) is out of what integers of ``stored`` can hold once packed
    with ``encoding``, or None where it is not."""
    if stored.kind not in "iu" or np.asarray(value).dtype.kind not in "iuf":
        return None
    stored, scale, offset = _packing(stored, encoding)
    info = np.iinfo(stored)
    with np.errstate(all="ignore"):
        packed = (float(value) - offset) / scale
    if info.min - 0.5 <= packed <= info.max + 0.5:
        return None
    low, high = sorted((info.min * scale + offset, info.max * scale + offset))
    return f"is outside what {stored} holds (values from {low:g} to {high:g})"


def _packing(stored: DType, encoding: Mapping[str, Any]) -> tuple[KnownKind, float, float]:
    """The integers ``encoding`` stores in ``stored`` (unsigned where ``_Unsigned`` says
    so), its scale factor and its offset."""
    if str(encoding.get("_Unsigned", "false")).lower() == "true" and stored.kind == "i":
        stored = np.dtype(f"u{stored.itemsize}")
    return stored, float(encoding.get("scale_factor", 1.0)), float(encoding.get("add_offset", 0.0))


def _epoch(encoding: Mapping[str, Any]) -> Values:
    """The time that ``encoding``'s units count from (stored 0)."""
    attrs = {k: encoding[k] for k in ("units", "calendar") if k in encoding}
    zero = xr.Variable(("d",), np.zeros(1, np.int64), attrs=attrs)
    return np.asarray(decode_cf_variable("time", zero).values)


def _differs(
    values: Values, stored: Numbers, back: Values, encoding: Mapping[str, Any]
) -> int | None:
    """The flat index of the first value that does not survive its encoding, or None:
    compared where it is stored, at most half a step from the packed value in integers, a
    few units in the last place in floats, and missing exactly where it was missing."""
    if values.size == 0:
        return None
    if values.dtype.kind in "mM":
        try:  # (read back as cftime objects where the units reach past numpy's range)
            back = back.astype(values.dtype)
        except (TypeError, ValueError, OverflowError):
            return 0
        same = (values == back) | (np.isnat(values) & np.isnat(back))
    elif values.dtype.kind in "fc" or back.dtype.kind in "fc":
        v = values.astype(np.float64)
        missing = np.isnan(v)
        unsigned, scale, offset = _packing(stored.dtype, encoding)
        stored = stored.view(unsigned)
        with np.errstate(all="ignore"):
            packed = (v - offset) / scale
            made = stored.astype(np.float64)
            if stored.dtype.kind in "iub":  # rounded into integers: half a step at most
                near = np.abs(made - packed) <= 0.5 + 1e-6 * np.abs(packed)
            else:  # rounded into a float of its own precision (or overflowed to inf)
                eps = float(np.finfo(stored.dtype).eps)
                near = np.isclose(made, packed, rtol=4 * eps, atol=0) | (made == packed)
                # (below the smallest normal number: rounded to a subnormal or 0, as any
                # cast of floats rounds)
                near |= np.abs(packed) < float(np.finfo(stored.dtype).tiny)
            same = np.where(missing, np.isnan(back), ~np.isnan(back) & near)
    else:
        same = values == back
    wrong = np.flatnonzero(~np.asarray(same))
    return int(wrong[0]) if wrong.size else None


def _plain(value: object) -> str:
    """A number as a person reads it: no numpy type around it, seven figures at most."""
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return str(value)
    value = value.item() if isinstance(value, np.generic) else value
    return f"{value:.7g}" if isinstance(value, float) else str(value)


def _time_cannot(
    value: object, made: str, read: object, encoding: Mapping[str, Any], target: KnownKind | None
) -> str:
    """Why the time ``value`` does not survive ``encoding``: it is stored as the fill
    value, it is past what the stored integers hold, or it is no whole number of the
    units."""
    if pd.isna(read):
        return f"{_plain(value)} is stored as {made}, the fill value, which reads as missing"
    if target is not None and target.kind in "iu":
        wide = {k: v for k, v in encoding.items() if k not in ("dtype", "_FillValue")}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                count = encode(np.array([value]), variable=None, encoding=wide)[0]
            except ValueError:
                count = None
        info = np.iinfo(target)
        if count is not None and not info.min <= int(count) <= info.max:
            units = encoding.get("units")
            return f"{_plain(value)} is {int(count)} {units}, outside what {target} holds"
    return f"{_plain(value)} is not a whole number of its units ({encoding.get('units')})"


def _cannot_hold(name: Hashable, encoding: Mapping[str, Any], why: str) -> str:
    shown = ", ".join(f"{k}={_plain(v)}" for k, v in encoding.items() if k != "dtype")
    dtype = np.dtype(encoding["dtype"]) if "dtype" in encoding else None
    stored = f"{dtype}" + (f" with {shown}" if shown else "") if dtype else shown
    return (
        f"{_who(name)}: a padded value cannot be stored in its encoding "
        f"({stored or 'as it is'}): {why}"
    )


def time_value(value: object, dtype: DType, name: Hashable) -> Values:
    """A constant given for a time variable of ``dtype``: a time, or a whole number of the
    dtype's units (NaN: NaT)."""
    if isinstance(value, (float, np.floating)) and np.isnan(value):
        return np.array("NaT", dtype)
    if isinstance(value, (float, np.floating)) and value != int(value):
        raise ValueError(f"{_who(name)}: a time constant {value} is not a whole number")
    try:
        return np.asarray(value).astype(dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(f"{_who(name)}: {value!r} is not a time ({e})") from None


def _who(name: Hashable) -> str:
    """The variable a message is about (None: the array padded alone, a DataArray)."""
    return "the array" if name is None else f"variable {str(name)!r}"
