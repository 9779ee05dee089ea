"""Padding a stored dataset by the values it encodes (:func:`pad_stored`).

A variable in a store holds numbers that encode the quantity a user means: CF packing
(``scale_factor``, ``add_offset``), fill values (``_FillValue``, ``missing_value``),
``_Unsigned``, times in units. Padding must give :func:`daskpad.xarray.pad2` of the values
xarray decodes, stored back with the input's encoding, so that opening the result with
xarray's defaults equals padding the opened input. Two kinds of elements make that exact
and cheap:

- an element **copied** from the input (the interior, the pads of the copying modes edge,
  wrap and even reflection, and the corners those pads carry) is written from its stored
  value, bit for bit: it decodes to the copied value whatever the encoding;
- an element **computed** (a constant, a ramp, a statistic, odd reflection, an extended
  index coordinate, and everything a computed pad carries into later axes) is computed from
  decoded values, as ``pad2`` computes it, and encoded with the variable's encoding. A value
  the encoding cannot hold (out of the stored type's range once packed, the fill value
  itself, NaN without a fill value, a time the units cannot express) raises ``ValueError``:
  never wrapped, clipped or warned past.

Along every axis of a variable, the elements copied through all of its padded axes form one
box: the interior along the axes padded by computing, and everything along the axes padded
by copying. That box is the stored input padded along the copying axes only; the rest of
the variable is cut from the decoded ``pad2`` result and encoded. Only the pads are
decoded and encoded: the interior chunks pass through untouched.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import dask.array as da
import numpy as np
import pandas as pd
import xarray as xr
from xarray.conventions import decode_cf_variable, encode_cf_variable

from daskpad.core.chunks import regular_chunks
from daskpad.core.keywords import KEYWORDS
from daskpad.core.registry import MODES
from daskpad.core.regrid import regrid
from daskpad.xarray.coords import CoordsPolicy
from daskpad.xarray.labelled import choice_by_dim, modes_by_dim, normalize_widths
from daskpad.xarray.padding import pad_normalized
from daskpad.xarray.variables import THIS_ARRAY

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
#: the stored encoding that a new dtype drops
_DTYPE_ENCODING = ("dtype", "serializer", "filters", "fill_value")


@dataclass(frozen=True)
class StoredPads:
    """How :func:`pad_stored` padded one variable: the dimensions whose pads copy stored
    values and those whose pads are computed from decoded values and encoded."""

    copied: tuple[Hashable, ...]
    computed: tuple[Hashable, ...]


def pad_stored(
    stored: xr.Dataset,
    decoded: xr.Dataset,
    widths: Mapping[Any, int | tuple[int, int]],
    *,
    mode: Any = "constant",
    coords: CoordsPolicy = "extend",
    chunks: str | None = "regular",
    **kwargs: Any,
) -> tuple[xr.Dataset, dict[Hashable, StoredPads]]:
    """``decoded.pad2(widths, mode=mode, coords=coords, **kwargs)``, as stored numbers.

    Parameters
    ----------
    stored : xarray.Dataset
        The input as stored: opened with ``mask_and_scale=False``, ``decode_times=False``
        and ``decode_timedelta=False``, its CF attributes among its ``attrs``.
    decoded : xarray.Dataset
        The same input as xarray decodes it (its defaults), with the same variables and
        chunks.
    widths, mode, coords, **kwargs
        As :func:`daskpad.xarray.pad2` takes them; ``constant_values`` and ``end_values``
        are in decoded units.
    chunks : {"regular", "even"} or None
        The output chunks of each dask-backed variable (:func:`daskpad.pad`'s policy);
        ``None`` keeps the input's and gives the pads their own.

    Returns
    -------
    (xarray.Dataset, dict)
        The padded dataset in stored numbers, each variable with the stored input's
        attributes and encoding (less ``dtype`` where ``pad2`` changed the dtype: an
        integer variable without a fill value padded with NaN is stored as float), and
        for each padded variable its :class:`StoredPads`.

    Raises
    ------
    ValueError
        What ``pad2`` refuses, and a constant or ramp end that a padded variable's
        encoding cannot hold (checked before anything is computed). A computed value that
        the encoding cannot hold raises when it is computed.

    Examples
    --------
    A packed variable with a missing value: the mean reads NaN where the window holds the
    missing value, and a constant is given in decoded units.

    >>> import numpy as np, xarray as xr
    >>> attrs = {"scale_factor": 0.5, "_FillValue": np.int16(-1)}
    >>> stored = xr.Dataset({"v": ("x", np.array([2, -1, 4, 6], "int16"), attrs)})
    >>> decoded = xr.decode_cf(stored)
    >>> out, how = pad_stored(stored, decoded, {"x": 1}, mode="constant", constant_values=2.5)
    >>> out.v.values
    array([ 5,  2, -1,  4,  6,  5], dtype=int16)
    >>> out, how = pad_stored(stored, decoded, {"x": 1}, mode="mean", stat_length=2)
    >>> out.v.values, how["v"]
    (array([-1,  2, -1,  4,  6,  5], dtype=int16), StoredPads(copied=(), computed=('x',)))
    """
    pairs = normalize_widths(widths, {}, decoded.sizes)
    padded_dims = {d for d, w in pairs.items() if w != (0, 0)}
    modes, default_mode = modes_by_dim(mode, list(pairs), decoded.sizes, "give them a width")
    reflect: tuple[Mapping[Hashable, str], str | None] = ({}, None)
    if kwargs.get("reflect_type") is not None:
        reflect = choice_by_dim(KEYWORDS["reflect_type"], kwargs["reflect_type"], decoded.sizes)
    compat = coords == "xarray"

    def copies(dim: Hashable) -> bool:
        """Whether the pads along ``dim`` copy elements (an odd reflection computes)."""
        each = modes.get(dim, default_mode)
        if not (isinstance(each, str) and MODES[each].copies):
            return False
        reflects = "reflect_type" in MODES[each].kwargs
        return not (reflects and reflect[0].get(dim, reflect[1]) == "odd")

    # pad2 of the decoded values: lazy, so that only the pads it computes are computed
    result = pad_normalized(
        decoded,
        pairs,
        asked=list(pairs),
        why="give them a width",
        mode=mode,
        coords=coords,
        **kwargs,
    )
    variables: dict[Hashable, xr.Variable] = {}
    how: dict[Hashable, StoredPads] = {}
    for name in [*decoded.data_vars, *result.coords]:
        raw, dec, new = stored.variables[name], decoded.variables[name], result.variables[name]
        padded = [d for d in raw.dims if d in padded_dims]
        promoted = new.dtype != dec.dtype  # pad2's missing value made it float
        if not (padded or promoted):
            variables[name] = raw
            continue
        extended = name in decoded.xindexes and not compat  # new labels
        # a new dtype has no stored numbers to copy: everything is encoded
        copied = () if extended or promoted else tuple(d for d in padded if copies(d))
        computed = tuple(d for d in padded if d not in copied)
        how[name] = StoredPads(copied, computed)
        if not computed and not promoted:
            probes = None
        elif name in decoded.data_vars:
            probes = _probes(name, new, computed, modes, default_mode, kwargs, compat)
        else:
            probes = _missing(new, extended)
        variables[name] = _stored_variable(
            name,
            raw,
            dec,
            new if computed or promoted else None,
            {d: pairs[d] for d in padded},
            copied,
            modes,
            default_mode,
            chunks,
            probes,
        )
    data_vars = {n: v for n, v in variables.items() if n in decoded.data_vars}
    coord_vars = {n: v for n, v in variables.items() if n not in decoded.data_vars}
    out = xr.Dataset(data_vars, coords=coord_vars, attrs=stored.attrs)
    out.encoding = dict(stored.encoding)
    return out, how


def _stored_variable(
    name: Hashable,
    raw: xr.Variable,
    dec: xr.Variable,
    new: xr.Variable | None,
    widths: Mapping[Hashable, tuple[int, int]],
    copied: tuple[Hashable, ...],
    modes: Mapping[Hashable, Any],
    default_mode: Any,
    chunks: str | None,
    probes: np.ndarray | None,
) -> xr.Variable:
    """One padded variable in stored numbers: ``raw`` padded along the ``copied``
    dimensions where every pad copies (``new`` is None); else the box copied from ``raw``
    and the rest ``new`` (decoded, padded) encoded with ``dec``'s encoding; all of ``new``
    encoded where pad2 gave it a new dtype."""
    promoted = new is not None and new.dtype != dec.dtype
    if promoted and dec.dtype.kind == "b":
        raise ValueError(
            f"variable {str(name)!r} is boolean, which has no missing value to pad with: "
            "give constant_values, or a mode that copies"
        )
    encoding = _encoding_of(dec, promoted)
    if probes is not None:  # constants and ramp ends, checked before anything is computed
        with warnings.catch_warnings():  # (what xarray warns of here is refused, or fine)
            warnings.simplefilter("ignore")
            _encode(probes, variable=name, encoding=encoding)
    # a new dtype drops what describes the old one: its zarr serializer, filters and fill
    keep = {k: v for k, v in raw.encoding.items() if not (promoted and k in _DTYPE_ENCODING)}
    attrs = {k: v for k, v in raw.attrs.items() if not (promoted and k == "_Unsigned")}
    box = raw.data
    if copied:
        alone = xr.Dataset({THIS_ARRAY: raw})
        box = pad_normalized(
            alone,
            {d: widths[d] for d in copied},
            asked=list(copied),
            why="",
            mode={d: modes.get(d, default_mode) for d in copied},
            chunks=chunks if new is None else None,
        )[THIS_ARRAY].data
    if new is None:  # every pad copies: the stored numbers, padded
        return xr.Variable(raw.dims, box, attrs, keep)
    data = new.data
    lazy = isinstance(data, da.Array)
    if lazy:
        stored_dtype = _stored_dtype(name, new.dtype, encoding)
        encoded = data.map_blocks(
            _encode,
            variable=name,
            encoding=encoding,
            dtype=stored_dtype,
            meta=np.empty((0,) * data.ndim, stored_dtype),
        )
    else:
        encoded = _encode(np.asarray(data), variable=name, encoding=encoding)
    out = encoded
    if not promoted:
        axes = [
            (k, widths[d], n)
            for k, (d, n) in enumerate(zip(raw.dims, raw.shape, strict=True))
            if d in widths and d not in copied
        ]
        out = _assemble(encoded, box, axes, [slice(None)] * new.ndim, lazy)
    if lazy and chunks is not None:
        out = regrid(out, regular_chunks(raw.data.chunks, out.shape, even=chunks == "even"))
    return xr.Variable(raw.dims, out, attrs, keep)


def _stored_dtype(name: Hashable, dtype: np.dtype, encoding: Mapping[str, Any]) -> np.dtype:
    """The dtype ``encoding`` stores values of ``dtype`` in."""
    if "dtype" in encoding:
        stored: np.dtype = np.dtype(encoding["dtype"])
        return stored
    if dtype.kind in "mM":  # (in the units' integers, or floats: as xarray chooses)
        return _encode(np.array(["NaT"], dtype), variable=name, encoding=encoding).dtype
    return dtype


def _encoding_of(dec: xr.Variable, promoted: bool) -> dict[str, Any]:
    """What encodes a computed value of ``dec``: its CF encoding (less the stored dtype
    where pad2 made it float; with one missing value where a store has two that differ,
    which decode alike)."""
    encoding = {k: v for k, v in dec.encoding.items() if k in ENCODING_KEYS}
    if promoted:
        encoding.pop("dtype", None)
        encoding.pop("_Unsigned", None)
    fill, missing = encoding.get("_FillValue"), encoding.get("missing_value")
    stored = np.dtype(encoding.get("dtype", dec.dtype))
    if fill is not None and stored.kind in "iu" and np.isnan(np.asarray(fill, float)).any():
        # (NaN in integers, which xarray drops when it decodes: nothing is masked)
        encoding.pop("_FillValue")
        fill = None
    if fill is not None and missing is not None:
        if not np.array_equal(np.asarray(fill), np.asarray(missing), equal_nan=True):
            encoding.pop("missing_value")
    return encoding


def _assemble(
    encoded: Any,
    box: Any,
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
    parts.append(_assemble(encoded, box, rest, inner, lazy))
    if after:
        parts.append(encoded[tuple(where[:k] + [slice(before + n, None)] + where[k + 1 :])])
    if len(parts) == 1:
        return parts[0]
    if not lazy:
        return np.concatenate(parts, axis=k)
    return da.concatenate([_meta_of_its_shape(p) for p in parts], axis=k)


def _meta_of_its_shape(x: Any) -> Any:
    """``x``, its ``meta`` of ``x``'s dimensions: xarray's arrays under dask's array query
    planning (dask 2026.8) carry a 0-d one, which ``concatenate`` refuses."""
    if x._meta.ndim == x.ndim:
        return x
    return x.map_blocks(_same, dtype=x.dtype, meta=np.empty((0,) * x.ndim, x.dtype))


def _same(block: np.ndarray) -> np.ndarray:
    return block


def _encode(values: np.ndarray, *, variable: Hashable, encoding: Mapping[str, Any]) -> np.ndarray:
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
            why = f"{was} is not a whole number of its units ({encoding.get('units')})"
        outside = _outside_range(np.asarray(values).flat[bad], stored.dtype, encoding)
        if outside is not None and not missing:
            why = f"{was} {outside}"
        if missing and encoding.get("_FillValue") is None:
            why = (
                "it has no _FillValue to store a missing value (NaN) in: give "
                "constant_values, or a mode that copies"
            )
        raise ValueError(_cannot_hold(variable, encoding, why))
    return stored


def _outside_range(value: Any, stored: np.dtype, encoding: Mapping[str, Any]) -> str | None:
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


def _packing(stored: np.dtype, encoding: Mapping[str, Any]) -> tuple[np.dtype, float, float]:
    """The integers ``encoding`` stores in ``stored`` (unsigned where ``_Unsigned`` says
    so), its scale factor and its offset."""
    if str(encoding.get("_Unsigned", "false")).lower() == "true" and stored.kind == "i":
        stored = np.dtype(f"u{stored.itemsize}")
    return stored, float(encoding.get("scale_factor", 1.0)), float(encoding.get("add_offset", 0.0))


def _epoch(encoding: Mapping[str, Any]) -> np.ndarray:
    """The time that ``encoding``'s units count from (stored 0)."""
    attrs = {k: encoding[k] for k in ("units", "calendar") if k in encoding}
    zero = xr.Variable(("d",), np.zeros(1, np.int64), attrs=attrs)
    return np.asarray(decode_cf_variable("time", zero).values)


def _differs(
    values: np.ndarray, stored: np.ndarray, back: np.ndarray, encoding: Mapping[str, Any]
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
            same = np.where(missing, np.isnan(back), ~np.isnan(back) & near)
    else:
        same = values == back
    wrong = np.flatnonzero(~np.asarray(same))
    return int(wrong[0]) if wrong.size else None


def _plain(value: Any) -> str:
    """A number as a person reads it: no numpy type around it, seven figures at most."""
    value = value.item() if isinstance(value, np.generic) else value
    return f"{value:.7g}" if isinstance(value, float) else str(value)


def _cannot_hold(name: Hashable, encoding: Mapping[str, Any], why: str) -> str:
    shown = ", ".join(f"{k}={_plain(v)}" for k, v in encoding.items() if k != "dtype")
    dtype = np.dtype(encoding["dtype"]) if "dtype" in encoding else None
    stored = f"{dtype}" + (f" with {shown}" if shown else "") if dtype else shown
    return (
        f"variable {str(name)!r}: a padded value cannot be stored in its encoding "
        f"({stored or 'as it is'}): {why}"
    )


def _probes(
    name: Hashable,
    new: xr.Variable,
    computed: tuple[Hashable, ...],
    modes: Mapping[Hashable, Any],
    default_mode: Any,
    kwargs: Mapping[str, Any],
    compat: bool,
) -> np.ndarray | None:
    """The constants and ramp ends the computed pads of a variable are filled with, in its
    padded dtype, to check against its encoding before anything is computed."""
    found: list[Any] = []
    for dim in computed:
        each = modes.get(dim, default_mode)
        if each == "constant":
            given = _given(kwargs.get("constant_values"), name, dim)
            if given is None:  # pad2's fill: xarray's missing value, or 0 as xarray pads
                given = 0 if compat and kwargs.get("constant_values") is not None else np.nan
            found += _flat(given)
        elif each == "linear_ramp":
            given = _given(kwargs.get("end_values"), name, dim)
            found += _flat(0 if given is None else given)
    if not found or new.dtype.kind not in "iufcmM":
        return None
    if new.dtype.kind in "mM":
        return np.array([_time(value, new.dtype, name) for value in found], new.dtype)
    with np.errstate(all="ignore"):
        return np.asarray(np.asarray(found, dtype=np.float64).astype(new.dtype))


def _time(value: Any, dtype: np.dtype, name: Hashable) -> Any:
    """A constant given for a time variable of ``dtype``: a time, or a whole number of the
    dtype's units (NaN: NaT)."""
    if isinstance(value, (float, np.floating)) and np.isnan(value):
        return np.array("NaT", dtype)
    if isinstance(value, (float, np.floating)) and value != int(value):
        raise ValueError(f"variable {str(name)!r}: a time constant {value} is not a whole number")
    try:
        return np.asarray(value).astype(dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise ValueError(f"variable {str(name)!r}: {value!r} is not a time ({e})") from None


def _missing(new: xr.Variable | None, extended: bool) -> np.ndarray | None:
    """What a coordinate's computed pads hold: xarray's missing value, unless it is an
    index whose labels are extended."""
    if new is None or extended or new.dtype.kind not in "fc":
        return None
    return np.full(1, np.nan, new.dtype)


def _given(value: Any, name: Hashable, dim: Hashable) -> Any:
    """A keyword's value for ``dim`` of variable ``name``: itself, or its entry in a
    mapping by variable and then dimension (None where not given)."""
    if isinstance(value, Mapping):
        if name in value:
            return _given(value[name], None, dim)
        return value.get(dim)
    return value


def _flat(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return [x for each in value for x in _flat(each)]
    return [value]
