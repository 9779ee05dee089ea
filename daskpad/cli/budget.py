"""Reading SRC within the command's memory budget (``--memory``): variables whose blocks
are over the budget are opened again in pieces where the format reads part of a stored
chunk alone, and refused, naming the ``--memory`` and ``--chunks`` that work, where it
reads each chunk whole."""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Mapping
from typing import Any

from daskpad.cli.errors import CliError
from daskpad.cli.io import fmt_at_least, fmt_bytes, open_source
from daskpad.store.places.locations import Location
from daskpad.store.planning.budget import piece_limit, pieces

#: a memory budget no write reaches: the write in one computation, not in tiles
UNBOUNDED = 2**62

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
    is refused (:class:`CliError`), naming the ``--memory`` and ``--chunks`` that work.
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
                raise CliError(
                    _over_budget(name, dims, stored, itemsize, holding, why, asked, budget)
                )
            continue
        cut = pieces(block, [d not in asked for d in dims], itemsize, limit)
        least = math.prod(cut) * itemsize
        if least > budget:
            raise CliError(_over_budget(name, dims, cut, itemsize, least, "", asked, budget))
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
