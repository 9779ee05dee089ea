"""SRC opened lazily and padded as :class:`daskpad.pipeline.options.PadOptions` say
(:func:`open_padded`): its kind (zarr or netCDF), its variables read as stored, within the
memory budget (blocks over it read in pieces where the format reads part of a stored chunk
alone, refused where it reads each chunk whole), and padded as
:func:`daskpad.xarray.pad2` pads the values xarray decodes, encoded back
(:func:`daskpad.xarray.store_numbers.pad_stored`)."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from daskpad._compat.zarr_io import SyncReads, sync_io, sync_store
from daskpad.core.regrid import regrid
from daskpad.pipeline.options import PadOptions
from daskpad.pipeline.refusals import Refused, located, with_notes
from daskpad.pipeline.sizes import fmt_at_least, fmt_bytes
from daskpad.store.places.commit import local_threads
from daskpad.store.places.locations import ZARR_MARKERS, Location
from daskpad.store.planning.budget import piece_limit, pieces
from daskpad.xarray.store_numbers import StoredPads, pad_stored

# netCDF-3 ("CDF\x01", "CDF\x02", "CDF\x05") and netCDF-4/HDF5 signatures.
_NETCDF_MAGIC = (b"CDF\x01", b"CDF\x02", b"CDF\x05", b"\x89HDF\r\n\x1a\n")


class PaddingRefused(Refused):
    """pad2 refused the padding asked for when the graph was built (a fill that does not
    fit the dtype or the stored encoding, a pad of more blocks than the limit)."""


def source_kind(src: Location) -> str:
    """``"zarr"`` or ``"netcdf"``, or a :class:`Refused` saying why SRC cannot be read."""
    if not src.exists():
        raise Refused(f"SRC {src.text!r} does not exist")
    if any(src.has(m) for m in ZARR_MARKERS):
        return "zarr"
    if not src.is_file():
        raise Refused(
            f"SRC {src.text!r} is a directory but not a zarr store (it has none of "
            f"{', '.join(ZARR_MARKERS)} at its top)"
        )
    head = src.read(size=8)
    if any(head.startswith(magic) for magic in _NETCDF_MAGIC):
        return "netcdf"
    raise Refused(f"SRC {src.text!r} is neither a zarr store nor a netCDF file")


def zarr_format_of(store: Location) -> int:
    """2 or 3, read from the store's top-level metadata."""
    return 3 if store.has("zarr.json") else 2


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
                ds = xr.open_dataset(
                    src.zarr_store(read_only=True),
                    engine="zarr",
                    chunks=dict(chunks or {}),
                    consolidated=None,
                    **undecoded,
                )
            except KeyError as e:
                # zarr v2 arrays without the _ARRAY_DIMENSIONS attribute xarray needs
                raise Refused(f"cannot read SRC {src.text!r} as a dataset: {e.args[0]}") from e
        return _read_in_calling_thread(ds, src)
    where: Any = src.path if src.local else src.fs.open(src.path, "rb")
    try:
        return xr.open_dataset(where, chunks=dict(chunks or {}), **undecoded)
    except ValueError as e:
        if "engine" not in str(e) and "IO backends" not in str(e):
            raise
        raise _no_netcdf_engine(src) from e


def _no_netcdf_engine(src: Location) -> Refused:
    """The refusal of a netCDF SRC that no installed xarray engine reads, naming what to
    install for its format (read from its first bytes)."""
    if src.read(size=4).startswith(b"CDF"):
        return Refused(
            f"cannot read SRC {src.text!r}: it is netCDF-3, which xarray reads with scipy, "
            "and scipy is not installed (pip install scipy; the daskpad[cli] extra includes it)"
        )
    # (netCDF4 reads local files only, not the file objects of an object store)
    how = (
        "with h5netcdf or netCDF4, and neither is installed"
        if src.local
        else "from object storage with h5netcdf, which is not installed"
    )
    return Refused(
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
        raise Refused(
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
    name = f"zarr-{tokenize(_where(src), wanted, z.shape, str(z.dtype))}"
    data = da.from_array(SyncReads(z), chunks=wanted, name=name, lock=False)
    return xr.Dataset({ARRAY_VARIABLE: xr.Variable(dims, data, attrs)})


def _where(src: Location) -> str:
    """SRC as one string for the names of the dask arrays that read it."""
    return str(src.local_path.resolve()) if src.local else src.fs.unstrip_protocol(src.path)


def _read_in_calling_thread(ds: Any, src: Location) -> Any:
    """``ds`` (opened from the zarr store SRC, undecoded) with each variable that dask
    reads from a zarr array of its shape and type read by :class:`SyncReads` in the same
    blocks: in dask's threads, rather than on zarr's event loop and its threads."""
    import dask.array as da
    import zarr
    from dask.base import tokenize

    store = src.zarr_store(read_only=True)  # (a local path: zarr's LocalStore)
    if not isinstance(store, (str, os.PathLike)) and not sync_store(store):
        return ds  # (an object store: zarr's own reads, as xarray makes them)
    group = zarr.open_group(store, mode="r")
    where = _where(src)
    swapped = {}
    for name, var in ds.variables.items():
        if not isinstance(var.data, da.Array) or var.ndim == 0 or var.dtype.kind not in "biufc":
            continue
        z = group.get(str(name))
        if not isinstance(z, zarr.Array) or z.shape != var.shape or z.dtype != var.dtype:
            continue
        if sync_io(z) is None:
            continue
        token = tokenize(where, var.data.name, var.chunks)
        data = da.from_array(SyncReads(z), chunks=var.chunks, name=f"zarr-{token}", lock=False)
        swapped[name] = var.copy(deep=False, data=data)
    if not swapped:
        return ds
    coords = {k: v for k, v in swapped.items() if k in ds.coords}
    return ds.assign_coords(coords).assign({k: v for k, v in swapped.items() if k not in coords})


def select_variables(ds: Any, names: list[str]) -> Any:
    """Keep only the data variables ``names`` (and the coordinates); all of them if empty."""
    if not names:
        return ds
    unknown = [n for n in names if n not in ds.data_vars]
    if unknown:
        raise Refused(
            f"--var {', '.join(unknown)}: no such data variable; SRC has "
            f"{', '.join(map(str, ds.data_vars)) or 'none'}"
        )
    return ds[list(dict.fromkeys(names))]


def check_dims(flag: str, names: Iterable[Hashable], ds: Any) -> None:
    unknown = [str(n) for n in names if n not in ds.sizes]
    if unknown:
        raise Refused(
            f"{flag} names dimension {', '.join(map(repr, unknown))}, which is not in SRC; "
            f"its dimensions are {', '.join(f'{d} ({n})' for d, n in ds.sizes.items())}"
        )


# Encoding keys of a netCDF-4/HDF5 variable's filters (h5netcdf and netCDF4 name them alike):
# a chunk stored through any of them is read whole.
_HDF5_FILTERS = ("zlib", "compression", "szip", "bzip2", "blosc", "zstd", "shuffle", "fletcher32")


def read_whole(var: Any, kind: str) -> str:
    """Why SRC's format reads each stored chunk of ``var`` whole, or ``""`` where it reads
    any part alone (netCDF-3, netCDF-4 stored contiguous or chunked without filters)."""
    if kind == "zarr":
        return "are read whole (zarr decodes a chunk whole, compressed or not)"
    filters = [
        f"{key}={value}" if key == "compression" else key
        for key in _HDF5_FILTERS
        if (value := var.encoding.get(key))
    ]
    return f"are filtered ({', '.join(filters)}) and read whole" if filters else ""


def open_in_pieces(
    src: Location,
    kind: str,
    ds: Any,
    own: Any,
    asked: Mapping[str, int],
    budget: int,
    threads: int,
) -> Any:
    """``ds`` with each variable whose blocks are over
    :func:`daskpad.store.planning.budget.piece_limit` read in smaller blocks
    (:func:`daskpad.store.planning.budget.pieces`, leading dimensions first) where SRC's format
    reads part of a stored chunk alone (:func:`read_whole`): an unchunked netCDF variable is read,
    and written, in slabs of its leading dimensions. The sizes ``asked`` with ``--chunks``
    are kept. A block that cannot be read in pieces this way and holds more than ``budget``
    is refused (:class:`Refused`), naming the ``--memory`` and ``--chunks`` that work.
    ``own`` is SRC opened with its own chunks (each variable's stored chunks)."""
    limit = piece_limit(budget, threads)
    reopen: dict[tuple[tuple[str, int], ...], list[Hashable]] = {}
    for name, var in ds.variables.items():
        if var.chunks is None or var.ndim == 0:
            continue
        itemsize = var.dtype.itemsize
        block = tuple(max(c) for c in var.chunks)
        stored = tuple(max(c) for c in own.variables[name].chunks)
        why = read_whole(var, kind)
        # a block read whole holds the stored chunks it overlaps: about this much
        holding = math.prod(max(b, s) if why else b for b, s in zip(block, stored)) * itemsize
        if holding <= limit:
            continue
        dims = [str(d) for d in var.dims]
        if why:
            if holding > budget:
                raise Refused(
                    _over_budget(name, dims, stored, itemsize, holding, why, asked, budget)
                )
            continue
        cut = pieces(block, [d not in asked for d in dims], itemsize, limit)
        least = math.prod(cut) * itemsize
        if least > budget:
            raise Refused(_over_budget(name, dims, cut, itemsize, least, "", asked, budget))
        if cut != block:
            wanted = {**asked, **dict(zip(dims, cut))}
            reopen.setdefault(tuple(sorted(wanted.items())), []).append(name)
    for sizes, names in reopen.items():
        with warnings.catch_warnings():
            # cutting an unfiltered stored chunk is what is meant here
            warnings.filterwarnings("ignore", "The specified chunks separate the stored chunks")
            smaller = open_source(src, kind, dict(sizes))
        ds = ds.assign({n: smaller.variables[n] for n in names})
    return ds


#: a read in groups makes at least this many blocks per thread along the axis it groups
GROUPS_PER_THREAD = 4


def read_in_groups(
    src: Location,
    kind: str,
    ds: Any,
    own: Any,
    widths: Mapping[str, tuple[int, int]],
    budget: int,
    threads: int,
) -> Any:
    """``ds`` with each variable read in its stored chunks (``own``'s) joined along its
    first unpadded dimension of several chunks, where that gives blocks of at most
    :func:`daskpad.store.planning.budget.piece_limit` and still
    :data:`GROUPS_PER_THREAD` blocks per thread along it; the variables read as
    stored otherwise, or read in pieces, stay. On a rectilinear grid the pads are chunks
    of the input's sizes along the dimensions not padded: a block of many of them is
    read, and its pads cut and written, by a few tasks (zarr's cost per call and dask's
    per task are most of the time of a pad of small chunks). Modified in place is
    nothing: ``ds`` itself is returned where nothing is grouped."""
    limit = piece_limit(budget, threads)
    reopen: dict[tuple[tuple[str, int], ...], list[Hashable]] = {}
    for name, var in ds.variables.items():
        stored = own.variables[name]
        if var.chunks is None or var.ndim == 0 or var.chunks != stored.chunks:
            continue
        block = [max(c) for c in var.chunks]
        nbytes = math.prod(block) * var.dtype.itemsize
        for k, d in enumerate(var.dims):
            if widths.get(str(d), (0, 0)) != (0, 0) or len(var.chunks[k]) < 2:
                continue
            n = len(var.chunks[k])
            joined = min(limit // max(nbytes, 1), -(-n // (GROUPS_PER_THREAD * threads)))
            if joined >= 2:
                reopen.setdefault(((str(d), block[k] * joined),), []).append(name)
            break
    for sizes, names in reopen.items():
        larger = open_source(src, kind, dict(sizes))
        ds = ds.assign({n: larger.variables[n] for n in names})
    return ds


def _over_budget(
    name: Hashable,
    dims: list[str],
    shape: tuple[int, ...],
    itemsize: int,
    need: int,
    why: str,
    asked: Mapping[str, int],
    budget: int,
) -> str:
    """The refusal of a variable one block of which needs ``need`` bytes, over ``budget``:
    its stored chunks (of ``shape``) are read whole, ``why`` says why; or (``why`` empty)
    it is read in part, in blocks of ``shape`` at the least, as the ``asked`` sizes allow."""
    memory = f"--memory {fmt_bytes(budget)}"
    at_least = f"--memory {fmt_at_least(need)} or more"
    mine = ",".join(f"{d}={n}" for d, n in asked.items() if d in dims)
    sizes = ",".join(f"{d}={n}" for d, n in zip(dims, shape))
    chunk = math.prod(shape) * itemsize
    if why and chunk > budget:
        return (
            f"{memory}: variable {name!r} is stored in chunks of {fmt_bytes(chunk)} ({sizes}) "
            f"that {why}; pass --memory {fmt_at_least(chunk)} or more, with --chunks {sizes}"
        )
    if why:
        return (
            f"--chunks {mine} makes blocks of variable {name!r} of {fmt_bytes(need)}, over "
            f"{memory}, and its stored chunks ({sizes}) {why}; pass --chunks {sizes}, or "
            f"{at_least}"
        )
    if not mine:
        return f"{memory} is less than one element of variable {name!r}; pass {at_least}"
    return (
        f"--chunks {mine} makes blocks of variable {name!r} of {fmt_bytes(need)} at least "
        f"({sizes}), over {memory}; pass smaller --chunks, or {at_least}"
    )


@dataclass(frozen=True)
class PaddedSource:
    """SRC opened and padded, the datasets as stored
    (:func:`daskpad.xarray.store_numbers.pad_stored`)."""

    #: where SRC is
    src: Location
    #: its kind: ``zarr`` or ``netcdf``
    kind: str
    #: the input dataset (its chunks as read: asked-for sizes, within the memory budget)
    ds: Any
    #: the padded dataset, lazy; None without widths (a source described, not padded)
    padded: Any
    #: how each padded variable's pads are made
    how: Mapping[Any, StoredPads]
    #: the widths and mode it was padded with
    widths: Mapping[str, tuple[int, int]]
    mode: str | Mapping[str, str]
    #: the input dataset with each variable in its stored chunks, where ``ds`` reads
    #: some in larger blocks (:func:`read_in_groups`); else None
    own: Any = None


def open_padded(
    options: PadOptions, check: Callable[[Location], None] | None = None, grouped: bool = True
) -> PaddedSource:
    """Open SRC lazily and pad it as ``options`` say; ``check(src)``, if given, runs before
    SRC is opened. Where it is padded to be written (``options.memory`` set) and
    ``grouped``, a zarr SRC is read in blocks of several stored chunks along the
    dimensions not padded (:func:`read_in_groups`), the padded dataset keeping SRC's
    chunks (:func:`in_own_chunks`). Refusals (a SRC that cannot be read, a dimension it
    does not have, a block over the memory budget, a padding pad2 refuses:
    :class:`PaddingRefused`) are :class:`daskpad.pipeline.refusals.Refused`."""
    src = located(options.src, options.src_options, "SRC")
    if check is not None:
        check(src)
    kind = source_kind(src)
    names = list(options.variables)
    ds = own = select_variables(open_source(src, kind), names)
    check_dims("--width", options.widths, ds)
    check_dims("--chunks", options.chunks, ds)
    if options.chunks:
        # Asked-for chunk sizes are read that way; padding then keeps them regular.
        ds = select_variables(open_source(src, kind, options.chunks), names)
    if options.memory is not None:  # padded into a store (described alone: nothing computed)
        # blocks over the budget are read in pieces, or refused
        threads = options.workers or local_threads()
        ds = open_in_pieces(src, kind, ds, own, options.chunks, options.memory, threads)
    if not options.widths:
        return PaddedSource(src, kind, ds, None, {}, {}, options.mode)
    own_chunks = None
    if grouped and options.memory is not None and kind == "zarr" and not options.chunks:
        # written: read in larger blocks along the dimensions not padded (the padded
        # dataset keeps SRC's chunks, regridded from those blocks)
        threads = options.workers or local_threads()
        larger = read_in_groups(src, kind, ds, own, options.widths, options.memory, threads)
        ds, own_chunks = larger, (own if larger is not ds else None)
    try:
        padded, how = pad_stored(
            ds,
            decode(ds, src),
            options.widths,
            mode=options.mode,
            coords=options.coords,
            # on a rectilinear grid the pads keep chunks of their own
            chunks=None if options.rectilinear else options.chunk_policy,
            **options.kwargs,
        )
    except (ValueError, TypeError, OverflowError) as e:
        # refused when the graph is built (a fill that does not fit the dtype, a pad of
        # more blocks than the limit)
        raise PaddingRefused(with_notes(e)) from None
    if own_chunks is not None:
        padded = in_own_chunks(padded, own_chunks)
    return PaddedSource(src, kind, ds, padded, how, options.widths, options.mode, own_chunks)


def in_own_chunks(padded: Any, own: Any) -> Any:
    """``padded`` (a dataset padded from SRC read in larger blocks: :func:`read_in_groups`)
    with each variable's blocks along the dimensions SRC stores it in chunks of ``own``'s
    sizes where they differ there, the padded dimensions as they are: the chunks of the
    same padding read in SRC's chunks. The writers read the larger blocks it was regridded
    from (:func:`daskpad.core.regrid.own_grid`)."""
    out = padded.copy(deep=False)
    for name, var in out.variables.items():
        if var.chunks is None or name not in own.variables:
            continue
        stored = own.variables[name]
        if stored.chunks is None or stored.dims != var.dims:
            continue
        target = tuple(  # (a dimension not padded: the same length)
            s if sum(s) == sum(c) else c for c, s in zip(var.chunks, stored.chunks)
        )
        if target != var.chunks:
            var.data = regrid(var.data, target)
    return out
