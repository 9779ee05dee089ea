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
import xarray as xr
from xarray.conventions import decode_cf_variable, encode_cf_variable

from daskpad.core.chunks import regular_chunks
from daskpad.core.registry import MODES
from daskpad.core.regrid import regrid
from daskpad.xarray.coords import CoordsPolicy
from daskpad.xarray.labelled import modes_by_dim, normalize_widths, reflect_types_by_dim
from daskpad.xarray.pad2 import pad_normalized
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
    padded_dims = [d for d, w in pairs.items() if w != (0, 0)]
    modes, default_mode = modes_by_dim(mode, list(pairs), decoded.sizes, "give them a width")
    reflect: tuple[Mapping[Hashable, str], str | None] = ({}, None)
    if kwargs.get("reflect_type") is not None:
        reflect = reflect_types_by_dim(kwargs["reflect_type"], decoded.sizes)

    def pads(name: Hashable, dims: Iterable[Hashable]) -> StoredPads:
        padded = [d for d in dims if d in padded_dims]
        if name in decoded.xindexes and coords != "xarray":  # extended: new labels
            return StoredPads((), tuple(padded))
        copied = []
        for dim in padded:
            each = modes.get(dim, default_mode)
            odd = reflect[0].get(dim, reflect[1]) == "odd"
            if isinstance(each, str) and MODES[each].copies and not odd:
                copied.append(dim)
        return StoredPads(tuple(copied), tuple(d for d in padded if d not in copied))

    # pad2 of the decoded values, for the data variables some of whose pads are computed
    # (and for the coordinates); the others copy stored numbers only
    computing = decoded[[n for n, v in decoded.data_vars.items() if pads(n, v.dims).computed]]
    if any(d not in computing.sizes for d in pairs):  # (keywords may name any dimension)
        computing = decoded
    result = pad_normalized(
        computing,
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
        raw = stored.variables[name]
        each = pads(name, raw.dims)
        if not (each.copied or each.computed):
            variables[name] = raw
            continue
        how[name] = each
        new = result.variables[name] if each.computed else None
        variables[name] = _stored_variable(
            name,
            raw,
            decoded.variables[name],
            new,
            {d: pairs[d] for d in each.copied + each.computed},
            each.copied,
            modes,
            default_mode,
            chunks,
            _probes(name, new, each.computed, modes, default_mode, kwargs)
            if new is not None and name in decoded.data_vars
            else _missing(new, name in decoded.xindexes and coords != "xarray"),
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
    """One padded variable in stored numbers: the box copied from ``raw``, the rest
    ``new`` (decoded, padded) encoded with ``dec``'s encoding."""
    encoding = {k: v for k, v in dec.encoding.items() if k in ENCODING_KEYS}
    promoted = new is not None and new.dtype != dec.dtype  # pad2's missing value: float
    if promoted:
        encoding.pop("dtype", None)
    if probes is not None:  # constants and ramp ends, checked before anything is computed
        _encode(probes, variable=name, encoding=encoding)
    box = raw.data
    if copied:
        alone = xr.Dataset({THIS_ARRAY: raw})
        box = pad_normalized(
            alone,
            {d: widths[d] for d in copied},
            asked=list(copied),
            why="",
            mode={d: modes.get(d, default_mode) for d in copied},
            chunks=chunks if len(copied) == len(widths) else None,
        )[THIS_ARRAY].data
    # a new dtype drops what describes the old one: its zarr serializer, filters and fill
    keep = {k: v for k, v in raw.encoding.items() if not (promoted and k in _DTYPE_ENCODING)}
    attrs = {k: v for k, v in raw.attrs.items() if not (promoted and k == "_Unsigned")}
    if new is None:  # every pad copies: the stored values, padded
        return xr.Variable(raw.dims, box, attrs, keep)
    data = new.data
    lazy = isinstance(data, da.Array)
    if lazy:
        stored_dtype = _encode(np.zeros(1, new.dtype)[:0], variable=name, encoding=encoding).dtype
        encoded = data.map_blocks(
            _encode,
            variable=name,
            encoding=encoding,
            dtype=stored_dtype,
            meta=np.empty(0, stored_dtype),
        )
    else:
        encoded = _encode(np.asarray(data), variable=name, encoding=encoding)
    box = box.astype(encoded.dtype) if box.dtype != encoded.dtype else box
    axes = [
        (k, widths[d], n)
        for k, (d, n) in enumerate(zip(raw.dims, raw.shape, strict=True))
        if d in widths and d not in copied
    ]
    out = _assemble(encoded, box, axes, [slice(None)] * new.ndim, lazy)
    if lazy and chunks is not None:
        out = regrid(out, regular_chunks(raw.data.chunks, out.shape, even=chunks == "even"))
    return xr.Variable(raw.dims, out, attrs, keep)


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
    return da.concatenate(parts, axis=k) if lazy else np.concatenate(parts, axis=k)


def _encode(values: np.ndarray, *, variable: Hashable, encoding: Mapping[str, Any]) -> np.ndarray:
    """``values`` (decoded) as xarray stores them with ``encoding``, refusing any that
    would not decode back to themselves: out of the stored type's range, equal to the fill
    value, NaN without a fill value, a time the units cannot express."""
    var = xr.Variable(tuple(f"d{i}" for i in range(values.ndim)), values, encoding=dict(encoding))
    with warnings.catch_warnings():
        # xarray's warnings about what it stores (integers without a fill value, times in
        # other units) are answered below: by what the stored numbers read back as
        warnings.simplefilter("ignore")
        try:
            enc = encode_cf_variable(var, name=variable)
            with np.errstate(all="ignore"):
                back = decode_cf_variable(variable, enc).values
        except (ValueError, OverflowError) as e:
            raise ValueError(_cannot_hold(variable, encoding, f"{e}")) from None
    units = encoding.get("units")
    if units is not None and enc.attrs.get("units") != units:  # times: xarray chose others
        raise ValueError(
            _cannot_hold(variable, encoding, f"it needs units {enc.attrs.get('units')!r}")
        )
    bad = _differs(np.asarray(values), back, encoding)
    if bad is not None:
        was, stored, read = (np.asarray(a).flat[bad] for a in (values, enc.values, back))
        raise ValueError(
            _cannot_hold(variable, encoding, f"{was} is stored as {stored}, which reads {read}")
        )
    return np.asarray(enc.values)


def _differs(values: np.ndarray, back: np.ndarray, encoding: Mapping[str, Any]) -> int | None:
    """The flat index of the first value that does not survive its encoding, or None."""
    if values.size == 0:
        return None
    if values.dtype.kind in "mM" or back.dtype.kind in "mM":
        same = (values == back) | (np.isnat(values) & np.isnat(back))
    elif values.dtype.kind in "fc" or back.dtype.kind in "fc":
        v = values.astype(np.float64)
        b = np.asarray(back, np.float64)
        missing = np.isnan(v)
        stored = np.dtype(encoding.get("dtype", back.dtype))
        if stored.kind in "iub":  # rounded into integers, at most half a step away
            step = abs(float(encoding.get("scale_factor", 1.0)))
            near = np.abs(b - v) <= 0.5 * step * (1 + 1e-6)
        else:  # rounded into a float of its own precision (or overflowed to inf)
            near = np.isclose(b, v, rtol=4 * float(np.finfo(stored).eps), atol=0) | (b == v)
        with np.errstate(invalid="ignore"):
            same = np.where(missing, np.isnan(b), ~np.isnan(b) & near)
    else:
        same = values == back
    wrong = np.flatnonzero(~np.asarray(same))
    return int(wrong[0]) if wrong.size else None


def _cannot_hold(name: Hashable, encoding: Mapping[str, Any], why: str) -> str:
    shown = ", ".join(f"{k}={v!r}" for k, v in encoding.items() if k != "dtype")
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
) -> np.ndarray | None:
    """The constants and ramp ends the computed pads of a variable are filled with, in its
    padded dtype, to check against its encoding before anything is computed."""
    found: list[Any] = []
    for dim in computed:
        each = modes.get(dim, default_mode)
        if each == "constant":
            given = _given(kwargs.get("constant_values"), name, dim)
            found += [np.nan] if given is None and new.dtype.kind in "fc" else _flat(given)
        elif each == "linear_ramp":
            found += _flat(_given(kwargs.get("end_values"), name, dim) or 0)
    if not found or new.dtype.kind not in "iufc":
        return None
    with np.errstate(all="ignore"):
        return np.asarray(np.asarray(found, dtype=np.float64).astype(new.dtype))


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
