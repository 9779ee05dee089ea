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

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import dask.array as da
import numpy as np
import xarray as xr

from daskpad.core.chunks import regular_chunks
from daskpad.core.keywords import KEYWORDS, keyword_names
from daskpad.core.registry import copies_values
from daskpad.core.regrid import regrid
from daskpad.xarray.coords import CoordsPolicy
from daskpad.xarray.dim_args import choice_by_dim, modes_by_dim, normalize_widths
from daskpad.xarray.padding import pad_normalized
from daskpad.xarray.storable import assemble, encode, stored_dtype, value_encoding
from daskpad.xarray.variables import THIS_ARRAY

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
        What ``pad2`` refuses, a constant or ramp end that a padded variable's encoding
        cannot hold among them (checked before anything is computed). A computed value
        that the encoding cannot hold raises when it is computed.

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
    choices = {
        name: choice_by_dim(KEYWORDS[name], kwargs[name], decoded.sizes)
        for name in keyword_names()
        if KEYWORDS[name].kind == "choice" and kwargs.get(name) is not None
    }
    compat = coords == "xarray"

    def copies(dim: Hashable) -> bool:
        """Whether the pads along ``dim`` copy elements (an odd reflection computes)."""
        chosen = {name: by_dim.get(dim, other) for name, (by_dim, other) in choices.items()}
        return copies_values(modes.get(dim, default_mode), chosen)

    # pad2 of the decoded values: lazy, so that only the pads it computes are computed.
    # pad2 refuses the constants and ramp ends the kept encodings cannot hold; the values
    # its pads compute are encoded below, with the same check
    result = pad_normalized(
        decoded,
        pairs,
        asked=list(pairs),
        why="give them a width",
        mode=mode,
        coords=coords,
        check_computed=False,
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
    encoding = value_encoding(dec.encoding, dec.dtype, promoted)
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
        stored = stored_dtype(name, new.dtype, encoding)
        encoded = data.map_blocks(
            encode,
            variable=name,
            encoding=encoding,
            dtype=stored,
            meta=np.empty((0,) * data.ndim, stored),
        )
    else:
        encoded = encode(np.asarray(data), variable=name, encoding=encoding)
    out = encoded
    if not promoted:
        axes = [
            (k, widths[d], n)
            for k, (d, n) in enumerate(zip(raw.dims, raw.shape, strict=True))
            if d in widths and d not in copied
        ]
        out = assemble(encoded, box, axes, [slice(None)] * new.ndim, lazy)
    if lazy and chunks is not None:
        out = regrid(out, regular_chunks(raw.data.chunks, out.shape, even=chunks == "even"))
    return xr.Variable(raw.dims, out, attrs, keep)
