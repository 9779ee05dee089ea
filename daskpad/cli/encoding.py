"""What ``daskpad info`` adds to a store's description: each variable as xarray decodes it
(``xr.open_zarr``'s dtype, scale and offset, fill value, units, calendar, attributes) beside
what is stored (dtype and codecs). The command pads the decoded values and stores them as
the input does, so both are shown."""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from typing import Any

#: attributes shown as the decoding's, in this order, before the others
CF_KEYS = ("scale_factor", "add_offset", "_FillValue", "missing_value", "units", "calendar")
#: encoding keys that name how the values are stored, shown as the codecs
CODEC_KEYS = ("filters", "compressors", "compressor", "serializer")


def decoded(ds: Any) -> Any:
    """``ds`` (opened undecoded) as xarray decodes it by default: lazy, nothing read; None
    where xarray cannot decode it (then ``xr.open_zarr`` fails too, and ``info`` shows the
    stored view alone)."""
    import xarray as xr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (how xarray would decode times is not our warning)
        try:
            return xr.decode_cf(ds)
        except (ValueError, TypeError, OverflowError):
            return None


def _value(v: Any) -> str:
    """An attribute for one line: numbers as numbers, text quoted, long text cut."""
    text = repr(v.item() if hasattr(v, "item") and getattr(v, "ndim", 1) == 0 else v)
    return text if len(text) <= 60 else text[:57] + "..."


def _dtype(var: Any) -> str:
    if var.dtype.kind == "O" and var.size:
        first = var.values.flat[0] if var.ndim else var.values.item()
        calendar = getattr(first, "calendar", None)
        if calendar is not None:
            return f"cftime ({calendar})"
    return str(var.dtype)


def _codecs(encoding: dict[Hashable, Any]) -> str:
    shown = []
    for key in CODEC_KEYS:
        value = encoding.get(key)
        if value in (None, (), []):
            continue
        if key == "serializer" and type(value).__name__ == "BytesCodec":
            continue  # zarr v3's plain bytes: nothing to say
        items = value if isinstance(value, (list, tuple)) else (value,)
        shown.append(f"{key} " + ", ".join(map(str, items)))
    return "; ".join(shown) if shown else "no codecs"


def variable_lines(raw: Any, dec: Any, indent: str) -> list[str]:
    """Two lines under a variable: how xarray reads it, and how it is stored."""
    attrs = {**raw.attrs}
    cf = {k: attrs.pop(k) for k in CF_KEYS if k in attrs}
    if raw.dtype.kind == "f" and cf.get("_FillValue") is not None:
        fill = cf["_FillValue"]
        if fill != fill and dec.dtype == raw.dtype and "scale_factor" not in cf:
            cf.pop("_FillValue")  # NaN in floats: xarray's default, nothing decoded
    reads = ", ".join([_dtype(dec)] + [f"{k}={_value(v)}" for k, v in cf.items()])
    lines = [f"{indent}xarray reads: {reads}"]
    if attrs:
        lines.append(f"{indent}attrs: " + ", ".join(f"{k}={_value(v)}" for k, v in attrs.items()))
    lines.append(f"{indent}stored: {raw.dtype}, {_codecs(raw.encoding)}")
    return lines
