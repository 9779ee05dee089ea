"""What the ``daskpad`` command needs around the padding: opening the input, checking and
writing the output safely, and describing datasets (its options are parsed in
:mod:`daskpad.cli.args`).

Nothing here pads; :mod:`daskpad.cli` calls the accessor for that. Everything that can fail
because of what the user typed raises :class:`daskpad.cli.errors.CliError`, whose message is
the one line the command prints.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from dask.utils import format_bytes

from daskpad.cli.encoding import variable_lines
from daskpad.cli.errors import CliError
from daskpad.store.places.locations import ZARR_MARKERS, Location, StoreError, locate
from daskpad.store.planning.zarr_chunks import zarr_can_store
from daskpad.store.writing.settle import fresh_keys
from daskpad.xarray.coords import LAYOUT_ENCODING

# netCDF-3 ("CDF\x01", "CDF\x02", "CDF\x05") and netCDF-4/HDF5 signatures.
_NETCDF_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF\r\n\x1a\n")
# Encoding keys that belong to one zarr format's codec pipeline.
_CODEC_KEYS = ("compressor", "compressors", "filters", "serializer", "fill_value", "_FillValue")


# --------------------------------------------------------------------------------------
# Locations: what SRC is, whether DST may be written
# --------------------------------------------------------------------------------------
def locate_or_explain(text: str, options: Mapping[str, Any], what: str) -> Location:
    """:func:`daskpad.store.places.locations.locate`, its refusals as :class:`CliError`."""
    try:
        return locate(text, options, what)
    except StoreError as e:
        raise CliError(str(e)) from None


def source_kind(src: Location) -> str:
    """``"zarr"`` or ``"netcdf"``, or a :class:`CliError` saying why SRC cannot be read."""
    if not src.exists():
        raise CliError(f"SRC {src.text!r} does not exist")
    if any(src.has(m) for m in ZARR_MARKERS):
        return "zarr"
    if not src.is_file():
        raise CliError(
            f"SRC {src.text!r} is a directory but not a zarr store (it has none of "
            f"{', '.join(ZARR_MARKERS)} at its top)"
        )
    head = src.read(size=8)
    if any(head.startswith(magic) for magic in _NETCDF_MAGIC):
        return "netcdf"
    raise CliError(f"SRC {src.text!r} is neither a zarr store nor a netCDF file")


def zarr_format_of(store: Location) -> int:
    """2 or 3, read from the store's top-level metadata."""
    return 3 if store.has("zarr.json") else 2


def check_destination(src: Location, dst: Location, overwrite: bool) -> None:
    """Refuse any DST whose writing could lose data.

    DST may not be SRC, lie inside SRC, or contain SRC (replacing DST would delete it). An
    existing DST is replaced only with ``overwrite`` and only when it is a zarr store (or
    an empty directory).
    """
    if dst.same_or_within(src):
        where = "is SRC" if src.same_or_within(dst) else "lies inside SRC"
        raise CliError(
            f"DST {dst.text!r} {where} {src.text!r}; daskpad never writes into its input"
        )
    if src.same_or_within(dst):
        raise CliError(
            f"DST {dst.text!r} contains SRC {src.text!r}; replacing DST would delete the input"
        )
    if not dst.local:
        if "::" in dst.text:
            raise CliError(f"DST {dst.text!r}: write to the store itself, not through a chain")
        if dst.is_root:
            raise CliError(
                f"DST {dst.text!r} is a bucket, not a store in it: daskpad writes into a "
                f"prefix of its own, such as {dst.text.rstrip('/')}/out.zarr"
            )
        bucket = dst.path.split("/")[0]
        if not dst.fs.exists(bucket):
            raise CliError(
                f"DST {dst.text!r}: {bucket!r} does not exist or cannot be reached (check "
                "the endpoint and credentials: --storage-option, environment)"
            )
        if dst.is_empty():
            return
        if not overwrite:
            raise CliError(f"DST {dst.text!r} already exists; pass --overwrite to replace it")
        if not dst.looks_like_zarr():
            raise CliError(
                f"DST {dst.text!r} holds something that is not a zarr store; --overwrite "
                "replaces only a zarr store, so choose another DST or empty it yourself"
            )
        return
    path = dst.local_path
    if not path.resolve().parent.is_dir():
        raise CliError(f"the directory of DST, {str(path.resolve().parent)!r}, does not exist")
    if path.exists() or path.is_symlink():
        if not overwrite:
            raise CliError(f"DST {dst.text!r} already exists; pass --overwrite to replace it")
        if path.is_symlink() or not path.is_dir():
            raise CliError(
                f"DST {dst.text!r} exists and is not a directory; --overwrite replaces only a "
                "zarr store or an empty directory, so remove it yourself if it should go"
            )
        if not dst.looks_like_zarr() and any(path.iterdir()):
            raise CliError(
                f"DST {dst.text!r} is a directory that is not a zarr store; --overwrite "
                "replaces only a zarr store or an empty directory, so choose another DST or "
                "empty it yourself"
            )


# --------------------------------------------------------------------------------------
# Opening SRC
# --------------------------------------------------------------------------------------
def open_source(src: Location, kind: str, chunks: Mapping[str, int] | None = None) -> Any:
    """Open SRC lazily with its own chunks (or ``chunks`` for the dimensions it names).

    Values are read as stored: no masking of fill values, no scaling, no time decoding; the
    attributes (units, _FillValue, scale_factor, ...) say how they decode (:func:`decode`).
    """
    import xarray as xr

    undecoded: dict[str, Any] = {
        "mask_and_scale": False,
        "decode_times": False,
        "decode_timedelta": False,
    }
    if kind == "zarr" and is_zarr_array(src):
        return _open_array(src, chunks)
    if kind == "zarr":
        with warnings.catch_warnings():
            # A store without consolidated metadata is fine (zarr writes none by itself).
            warnings.filterwarnings("ignore", "Failed to open Zarr store with consolidated")
            try:
                return xr.open_dataset(
                    src.zarr_store(read_only=True),
                    engine="zarr",
                    chunks=dict(chunks or {}),
                    consolidated=None,
                    **undecoded,
                )
            except KeyError as e:
                # zarr v2 arrays without the _ARRAY_DIMENSIONS attribute xarray needs
                raise CliError(f"cannot read SRC {src.text!r} as a dataset: {e.args[0]}") from e
    where: Any = src.path if src.local else src.fs.open(src.path, "rb")
    try:
        return xr.open_dataset(where, chunks=dict(chunks or {}), **undecoded)
    except ValueError as e:
        if "engine" not in str(e) and "IO backends" not in str(e):
            raise
        raise _no_netcdf_engine(src) from e


def _no_netcdf_engine(src: Location) -> CliError:
    """The refusal of a netCDF SRC that no installed xarray engine reads, naming what to
    install for its format (read from its first bytes)."""
    if src.read(size=4).startswith(b"CDF"):
        return CliError(
            f"cannot read SRC {src.text!r}: it is netCDF-3, which xarray reads with scipy, "
            "and scipy is not installed (pip install scipy; the daskpad[cli] extra includes it)"
        )
    # (netCDF4 reads local files only, not the file objects of an object store)
    how = (
        "with h5netcdf or netCDF4, and neither is installed"
        if src.local
        else "from object storage with h5netcdf, which is not installed"
    )
    return CliError(
        f"cannot read SRC {src.text!r}: it is netCDF-4 (HDF5), which xarray reads {how} "
        "(pip install h5netcdf h5py; the daskpad[cli] extra includes them)"
    )


def decode(ds: Any, src: Location) -> Any:
    """``ds`` (from :func:`open_source`) as xarray decodes it by default, lazily, in the
    same chunks: the values the command pads."""
    import xarray as xr

    try:
        return xr.decode_cf(ds)
    except (ValueError, TypeError, OverflowError) as e:
        raise CliError(
            f"cannot decode SRC {src.text!r} as xarray does ({e}); daskpad pads the values "
            "xarray decodes"
        ) from None


#: the one data variable of a dataset made from a bare zarr array (xarray's own name for
#: a DataArray without a name): written back as a bare zarr array
ARRAY_VARIABLE = "__xarray_dataarray_variable__"


def is_zarr_array(store: Location) -> bool:
    """Whether the store is a bare zarr array rather than a group."""
    if store.has(".zarray"):
        return True
    if not store.has("zarr.json"):
        return False
    import json

    return bool(json.loads(store.read("zarr.json")).get("node_type") == "array")


def _open_array(src: Location, chunks: Mapping[str, int] | None) -> Any:
    """A bare zarr array as a dataset of one variable (:data:`ARRAY_VARIABLE`), its
    dimensions named as the array names them (zarr v3's dimension_names, v2's
    _ARRAY_DIMENSIONS) or as xarray would (``dim_0``, ``dim_1``, ...)."""
    import dask.array as da
    import xarray as xr
    import zarr
    from dask.base import tokenize

    z = zarr.open_array(src.zarr_store(read_only=True), mode="r")
    attrs = dict(z.attrs)
    v2_names = attrs.pop("_ARRAY_DIMENSIONS", None)
    names: Any = getattr(z.metadata, "dimension_names", None) or v2_names
    dims = tuple(
        str(n) if n is not None else f"dim_{i}" for i, n in enumerate(names or (None,) * z.ndim)
    )
    own = tuple(z.chunks)
    wanted = tuple((chunks or {}).get(d, c) for d, c in zip(dims, own))
    # (dask.array.from_zarr is not in array-expr; the name spares hashing the data)
    where = str(src.local_path.resolve()) if src.local else src.fs.unstrip_protocol(src.path)
    name = f"zarr-{tokenize(where, wanted, z.shape, str(z.dtype))}"
    data = da.from_array(z, chunks=wanted, name=name)
    return xr.Dataset({ARRAY_VARIABLE: xr.Variable(dims, data, attrs)})


def select_variables(ds: Any, names: list[str]) -> Any:
    """Keep only the data variables ``names`` (and the coordinates); all of them if empty."""
    if not names:
        return ds
    unknown = [n for n in names if n not in ds.data_vars]
    if unknown:
        raise CliError(
            f"--var {', '.join(unknown)}: no such data variable; SRC has "
            f"{', '.join(map(str, ds.data_vars)) or 'none'}"
        )
    return ds[list(dict.fromkeys(names))]


def check_dims(flag: str, names: Iterable[Hashable], ds: Any) -> None:
    unknown = [str(n) for n in names if n not in ds.sizes]
    if unknown:
        raise CliError(
            f"{flag} names dimension {', '.join(map(repr, unknown))}, which is not in SRC; "
            f"its dimensions are {', '.join(f'{d} ({n})' for d, n in ds.sizes.items())}"
        )


# --------------------------------------------------------------------------------------
# Preparing and writing DST
# --------------------------------------------------------------------------------------
def irregular_variables(ds: Any) -> list[str]:
    """Names of dask-backed variables whose chunks zarr cannot store (all equal but a
    smaller last one, along every dimension)."""

    return [
        str(name) for name, var in ds.variables.items() if not zarr_can_store(var.chunks or ())
    ]


def prepare_for_zarr(ds: Any, same_format: bool) -> Any:
    """A shallow copy whose encodings let the dask chunks set the zarr chunks, and drop the
    codec settings of another zarr format."""
    out = ds.copy(deep=False)
    drop = LAYOUT_ENCODING + (() if same_format else _CODEC_KEYS)  # the output's from its chunks
    for var in out.variables.values():
        var.encoding = {k: v for k, v in var.encoding.items() if k not in drop}
    return out


def compute_with_progress(collections: list[Any], client: Any, progress: bool) -> None:
    """Compute ``collections`` locally (dask's ProgressBar) or on ``client``
    (distributed's), the bar on stderr."""
    if not collections:
        return
    if client is None:
        from dask.base import compute
        from dask.diagnostics.progress import ProgressBar

        if progress:
            with ProgressBar(out=sys.stderr):
                compute(*collections)
        else:
            compute(*collections)
        return

    # the optimised graph under keys of this run's own, submitted as it is: a stopped run
    # knows which of the cluster's tasks are its own (daskpad.cli.cluster waits for them)
    futures = client.get(*fresh_keys(collections), sync=False)
    try:
        if progress:
            from distributed import progress as distributed_progress

            with contextlib.redirect_stdout(sys.stderr):  # its bar prints to stdout
                distributed_progress(futures)
                print(flush=True)
        client.gather(futures)
    except BaseException:
        client.cancel(futures)
        raise


# --------------------------------------------------------------------------------------
# Describing datasets
# --------------------------------------------------------------------------------------
def fmt_bytes(n: float) -> str:
    """A byte count for people: dask's ``format_bytes``, whose text ``--memory`` (dask's
    ``parse_bytes``) reads back as the same count, to three figures.

    >>> fmt_bytes(1536)
    '1.50 kiB'
    """
    return str(format_bytes(int(n)))


def fmt_at_least(n: int) -> str:
    """A byte count for ``--memory``, rounded up: ``--memory`` (dask's ``parse_bytes``)
    reads it back as at least ``n``.

    >>> fmt_at_least(25_000_001)
    '23.85MiB'
    """
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("kiB", 2**10)):
        if n >= size:
            hundredths = -(-n * 100 // size)
            while int(hundredths / 100 * size) < n:  # (a float may read back one short)
                hundredths += 1
            return f"{hundredths / 100:.2f}{unit}"
    return f"{n}B"


def fmt_dim_chunks(c: tuple[int, ...]) -> str:
    """One dimension's chunks, compactly.

    >>> fmt_dim_chunks((45, 45, 45))
    '3x45'
    >>> fmt_dim_chunks((45, 45, 4))
    '2x45+4'
    >>> fmt_dim_chunks((2, 45, 45, 2))
    '(2, 45, 45, 2)'
    """
    if len(c) == 1:
        return str(c[0])
    if len(set(c[:-1])) == 1 and c[-1] <= c[0]:
        return f"{len(c)}x{c[0]}" if c[-1] == c[0] else f"{len(c) - 1}x{c[0]}+{c[-1]}"
    if len(c) <= 6:
        return str(tuple(c))
    return f"({c[0]}, {c[1]}, {c[2]}, ..., {c[-2]}, {c[-1]}) [{len(c)} chunks]"


def fmt_chunks(chunks: tuple[tuple[int, ...], ...] | None) -> str:
    if chunks is None:
        return "in memory"
    n = int(np.prod([len(c) for c in chunks]))
    return f"chunks {' / '.join(fmt_dim_chunks(c) for c in chunks)} ({n} chunk{'s' * (n != 1)})"


@dataclass(frozen=True)
class Widths:
    """The ``--width`` options, for printing."""

    by_dim: Mapping[str, tuple[int, int]]

    def __str__(self) -> str:
        return " ".join(
            f"{d}={b}" if b == a else f"{d}={b}:{a}" for d, (b, a) in self.by_dim.items()
        )


def modes_of(mode: Any, widths: Mapping[str, Any]) -> dict[str, str]:
    """The mode of each padded dimension: ``mode`` itself, or its entry in a
    ``{dim: mode}`` mapping (constant for a dimension it does not name)."""
    if isinstance(mode, Mapping):
        return {d: mode.get(d, "constant") for d in widths}
    return dict.fromkeys(widths, mode)


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


def disk_usage(store: Location) -> int:
    return store.size()
