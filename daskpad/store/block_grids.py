"""Storing dask arrays on zarr's rectilinear chunk grid of the blocks they were made of
(``chunk_grid="rectilinear"`` of :func:`daskpad.to_zarr` and :func:`daskpad.xarray.to_zarr`).

An array's grid is :func:`daskpad.core.regrid.own_grid`'s chunks: for a padded array in
regular chunks (``daskpad.pad(..., chunks="regular")``), the input's blocks and the pad's;
for any other dask array, its own chunks. Each block is then one zarr chunk: computed once
and written whole by one task (:func:`daskpad.store.rectilinear.chunk_writes`), with no
regridding and no tiles, since a task holds one block. zarr has no rectilinear grid for an
array of no dimensions or with an axis of length 0 (:func:`grid_of` is None): such an array
stays on the regular grid.

A variable that xarray encodes (CF encoding left to apply, times, strings:
:func:`daskpad.store.planning.zarr_chunks.needs_encoding`) is encoded block by block with the
encoding xarray wrote into its store (:func:`stored_encodings`), as xarray's region writes encode.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from daskpad._compat.libraries import rectilinear_grid, zarr_encoded
from daskpad.core.regrid import own_grid
from daskpad.store.planning.rectilinear_grid import Layout
from daskpad.store.planning.zarr_chunks import needs_encoding, storable
from daskpad.store.rectilinear import (
    check_support,
    chunk_writes,
    empty_stand_in,
    rewrite_documents,
    write_chunk,
)

Chunks = tuple[tuple[int, ...], ...]

#: the values of ``chunk_grid=``
CHUNK_GRIDS = ("regular", "rectilinear")

#: the keys of a stored variable's encoding that say how its values are stored
CF_KEYS = (
    "_FillValue",
    "missing_value",
    "scale_factor",
    "add_offset",
    "units",
    "calendar",
    "dtype",
)


def asks_rectilinear(chunk_grid: Any, zarr_format: Any) -> bool:
    """Whether ``chunk_grid=`` asks for rectilinear grids; a ValueError for anything but
    :data:`CHUNK_GRIDS`, for ``zarr_format=2`` with ``"rectilinear"``, and (a
    :class:`~daskpad.store.rectilinear.RectilinearUnsupported`) where zarr-python here
    cannot write rectilinear grids."""
    if chunk_grid not in CHUNK_GRIDS:
        raise ValueError(f"chunk_grid must be 'regular' or 'rectilinear', got {chunk_grid!r}")
    if chunk_grid == "regular":
        return False
    if zarr_format is not None and zarr_format != 3:
        raise ValueError(
            f"chunk_grid='rectilinear' is a zarr v3 grid: zarr_format must be 3 (or left "
            f"out), got {zarr_format!r}; use chunk_grid='regular' for zarr v2"
        )
    check_support()
    return True


def grid_of(x: Any) -> Chunks | None:
    """The rectilinear grid of the dask array ``x``: the chunks of the blocks it was made
    of (:func:`daskpad.core.regrid.own_grid`), empty blocks left out; None where zarr has
    no rectilinear grid for it (no dimensions, or an axis of length 0)."""
    if x.ndim == 0 or 0 in x.shape:
        return None
    return tuple(tuple(int(c) for c in cs if c) for cs in own_grid(x).chunks)


def block_writes(x: Any, target: Any) -> Any:
    """A dask array whose computation writes each block of ``own_grid(x)`` into the zarr
    array ``target`` (on :func:`grid_of`'s grid), each block whole by one task."""
    own = own_grid(x)
    start = (0,) * own.ndim
    chunks = tuple(tuple(int(c) for c in cs) for cs in own.chunks)
    (writes,) = chunk_writes(own, target, Layout(chunks, start, start, copied=False))
    return writes


def encoded_block_writes(
    x: Any, target: Any, dims: Sequence[Hashable], encoding: Mapping[str, Any], name: Hashable
) -> Any:
    """:func:`block_writes` of the variable ``name`` of ``dims``, each block encoded with
    ``encoding`` (:func:`stored_encodings`) as xarray stores it."""
    own = own_grid(x)
    return own.map_blocks(
        _write_encoded_chunk,
        target=target,
        dims=tuple(dims),
        encoding=dict(encoding),
        variable=name,
        dtype=bool,
        chunks=tuple((1,) * len(c) for c in own.chunks),
        meta=np.empty((0,) * own.ndim, bool),
    )


def _write_encoded_chunk(
    block: Any,
    target: Any,
    dims: tuple[Hashable, ...],
    encoding: dict[str, Any],
    variable: Hashable,
    block_info: Any = None,
) -> np.ndarray:
    stored = zarr_encoded(block, dims, encoding, variable)
    return write_chunk(stored, target, (0,) * block.ndim, block_info)


def write_metadata(ds: Any, store: Any, **kwargs: Any) -> dict[Hashable, Chunks]:
    """xarray writes the metadata of ``ds`` (and its in-memory variables) into the new
    zarr v3 ``store``; then the grid of each dask-backed variable that has one
    (:func:`grid_of`) is made rectilinear. Returns those grids by variable name.

    xarray writes each dask-backed variable's array on a regular grid of its largest
    blocks (a variable xarray encodes: its values in regular chunks, whose write xarray
    builds and drops, as on the regular grid), then each array's ``chunk_grid`` is
    replaced. Run it with zarr's rectilinear grids on."""
    stand_in = ds.copy(deep=False)
    grids: dict[Hashable, Chunks] = {}
    for name, var in stand_in.variables.items():
        if var.chunks is None or var.ndim == 0:
            continue
        grid = grid_of(var.data)
        if grid is not None:
            grids[name] = grid
        if needs_encoding(var):
            var.data = storable(var.data)
        else:
            var.data = empty_stand_in(var)
    stand_in.to_zarr(store, **{"mode": "w-", **kwargs}, compute=False, consolidated=False)

    def on(grid: Chunks) -> Callable[[dict[str, Any]], None]:
        return lambda doc: doc.update(chunk_grid=rectilinear_grid(grid))

    rewrite_documents(store, {name: on(grid) for name, grid in grids.items()})
    return grids


def encoded_among(ds: Any, names: Iterable[Hashable]) -> list[Hashable]:
    """Those of the variables ``names`` of ``ds`` that xarray encodes as it stores them
    (:func:`daskpad.store.planning.zarr_chunks.needs_encoding`)."""
    return [n for n in names if needs_encoding(ds.variables[n])]


def stored_encodings(store: Any, names: Iterable[Hashable]) -> dict[Hashable, dict[str, Any]]:
    """The CF encoding (:data:`CF_KEYS`) xarray reads back from ``store`` for each of
    ``names``: what it encodes their values with. Run it with zarr's rectilinear grids
    on."""
    import xarray as xr

    names = list(names)
    if not names:
        return {}
    opened = xr.open_zarr(store, consolidated=False, chunks=None)
    return {
        n: {k: v for k, v in opened.variables[n].encoding.items() if k in CF_KEYS} for n in names
    }
