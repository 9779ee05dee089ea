"""Datasets described for people: dimensions with the widths and modes of the padded
ones, per variable its dtype, shape, chunks, size and tasks (:func:`describe`), how xarray
decodes it beside how it is stored (:func:`variable_lines`), byte counts and chunks
written compactly; and a source with its padding (:func:`show_source`), what
``daskpad info`` and ``daskpad pad --dry-run`` print."""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from daskpad.pipeline.options import modes_of
from daskpad.pipeline.sizes import fmt_bytes, fmt_chunks
from daskpad.pipeline.source import ARRAY_VARIABLE, PaddedSource, zarr_format_of
from daskpad.xarray.store_numbers import StoredPads

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


@dataclass(frozen=True)
class Widths:
    """The ``--width`` options, for printing."""

    by_dim: Mapping[str, tuple[int, int]]

    def __str__(self) -> str:
        return " ".join(
            f"{d}={b}" if b == a else f"{d}={b}:{a}" for d, (b, a) in self.by_dim.items()
        )


@dataclass(frozen=True)
class Modes:
    """The ``--mode`` options, for printing: one mode, or each padded dimension's."""

    mode: Any
    widths: Mapping[str, Any]

    def __str__(self) -> str:
        if isinstance(self.mode, str):
            return self.mode
        return " ".join(f"{d}={m}" for d, m in modes_of(self.mode, self.widths).items())


def describe(
    ds: Any,
    title: str,
    widths: Mapping[str, tuple[int, int]] | None = None,
    modes: Mapping[str, str] | None = None,
    decoded: Any = None,
) -> str:
    """Dimensions (with the widths and mode of the padded ones) and, per variable, dtype,
    shape, chunks and size; tasks when padded; with ``decoded`` (``ds`` as xarray decodes
    it), how xarray reads each variable and how it is stored."""
    lines = [title]
    # a store lists its arrays in whatever order its filesystem does: order dimensions as
    # the data variables use them, those with most dimensions first, then by name, so the
    # same store always prints the same
    order: list[Hashable] = []
    for name in sorted(ds.data_vars, key=lambda v: (-ds[v].ndim, str(v))):
        order += [d for d in ds[name].dims if d not in order]
    order += [d for d in ds.sizes if d not in order]
    dims = []
    for d in order:
        n = ds.sizes[d]
        extra = ""
        pair = widths.get(str(d), (0, 0)) if widths else (0, 0)
        if pair != (0, 0):
            mode = f" {modes[str(d)]}" if modes and str(d) in modes else ""
            extra = f" (+{pair[0]}+{pair[1]}{mode})"
        dims.append(f"{d} {n}{extra}")
    lines.append(f"  dimensions: {', '.join(dims)}")
    shown = {n: "(array)" if n == ARRAY_VARIABLE else str(n) for n in ds.variables}
    width = max((len(n) for n in shown.values()), default=0)
    names = sorted(ds.data_vars, key=str) + sorted(ds.coords, key=str)
    for name in names:
        var = ds.variables[name]
        kind = "data" if name in ds.data_vars else "coord"
        dims_ = "(" + ", ".join(map(str, var.dims)) + ")"
        line = (
            f"  {shown[name]:<{width}}  {kind:<5} {var.dtype!s:<8} {dims_} {var.shape}  "
            f"{fmt_chunks(var.chunks)}  {fmt_bytes(var.nbytes)}"
        )
        if widths is not None and var.chunks is not None:
            line += f"  {len(var.data.__dask_graph__())} tasks"
        lines.append(line)
        if decoded is not None:
            lines += variable_lines(var, decoded.variables[name], " " * (width + 4))
    total = f"  total: {fmt_bytes(ds.nbytes)}"
    if widths is not None:
        total += f", {len(ds.__dask_graph__() or {})} tasks"
    lines.append(total)
    return "\n".join(lines)


def show_source(opened: PaddedSource) -> str:
    """SRC as ``opened`` and, where padded, the padding, in words (``daskpad info`` and
    ``daskpad pad --dry-run`` print this)."""
    src, ds = opened.src, opened.ds
    fmt = f"zarr v{zarr_format_of(src)}" if opened.kind == "zarr" else "netCDF"
    title = f"{src} ({fmt}), {len(ds.data_vars)} data variable(s)"
    lines = [describe(ds, title, decoded=decoded(ds))]
    if opened.padded is not None:
        widths, mode = opened.widths, opened.mode
        title = (
            f"padded with --width {Widths(widths)} --mode {Modes(mode, widths)} "
            "(nothing computed):"
        )
        lines.append(describe(opened.padded, title, widths, modes_of(mode, widths)))
        lines.append(_made(opened.how))
    return "\n".join(lines)


def _made(how: Mapping[Any, StoredPads]) -> str:
    """Per padded variable, which dimensions' pads copy stored numbers and which are
    computed from decoded values and encoded."""
    lines = ["pads, per variable (copied: stored numbers; computed: from decoded values):"]
    width = max((len(str(n)) for n in how), default=0)
    for name, each in how.items():
        said = [
            f"{what} along {', '.join(map(str, dims))}"
            for what, dims in (("copied", each.copied), ("computed", each.computed))
            if dims
        ]
        shown = "(array)" if name == ARRAY_VARIABLE else str(name)
        lines.append(f"  {shown:<{width}}  {'; '.join(said)}")
    return "\n".join(lines)
