"""Writing a (padded) Dataset or DataArray to a new zarr store with bounded memory:
:func:`to_zarr`."""

from __future__ import annotations

import contextlib
from typing import Any

import xarray as xr

from daskpad._compat.libraries import rectilinear_grids
from daskpad.store.places.commit import written_whole
from daskpad.store.planning.budget import memory_budget
from daskpad.store.writing.chunk_plans import ChunkPlan, asks_rectilinear, plan_own_grids
from daskpad.store.writing.metadata import check_keywords
from daskpad.store.writing.tile_plans import TilePlan, plan_tiles


def to_zarr(
    obj: xr.Dataset | xr.DataArray,
    store: Any,
    *,
    chunk_grid: str = "regular",
    memory: int | str | None = None,
    progress: bool = False,
    **kwargs: Any,
) -> None:
    """Write ``obj`` to a new zarr store block by block, tile by tile above ``memory``
    bytes (:func:`daskpad.to_zarr` for a dataset).

    ``obj.to_zarr(store)`` computes every dask-backed variable at once. For padded
    variables in regular chunks (``pad2(..., chunks="regular")``) dask's ordering then
    holds rows of input blocks, more the more blocks a row has. Here each variable xarray
    stores as it is is written from the blocks it was made of, each computed once and each
    zarr chunk written whole, once (:mod:`daskpad.store.writing.stream`); a dataset whose write
    would hold more than ``memory`` is written one tile of chunks per computation (the blocks
    along tile edges are then read twice); coordinates and in-memory variables are
    written first, with the metadata, which is consolidated at the end, zarr v3 included
    (unless ``consolidated=False``), so xarray opens the store with one read. Any chunks
    will do: a variable in chunks zarr cannot store (the default chunks of ``pad2``) is
    first laid out in regular chunks of the size that covers most of each
    dimension (for a padded variable, the input's). A local path is written under a hidden
    temporary name and moved into place once complete, so a failed or interrupted write
    leaves nothing that opens; an object store (``s3://``, ``gs://``, ...), which has no
    rename, is written in place with its root metadata last, and a failed write removes
    what it wrote (``mode="w"`` there deletes an existing store first). Variables xarray
    encodes
    (CF packing, times, strings) are written with xarray's region writes, so the store
    holds what ``obj.to_zarr`` would. The statistics a pad repeats (maximum, mean, median,
    minimum) are computed first, axis after axis, so a statistic of the whole axis is read
    once per padded axis rather than by every tile at an edge.

    With ``chunk_grid="rectilinear"`` the store is zarr v3 and every dask-backed variable of
    one dimension or more is stored on the rectilinear chunk grid of the blocks it was made
    of (:func:`daskpad.core.regrid.own_grid`: for ``pad2(..., chunks="regular")`` the
    input's blocks and the pad's, for any other variable its own chunks), so that
    ``xr.open_zarr`` reads it back in those chunks; each block is computed once and written
    as one whole chunk by one task, in one computation (``memory`` does not apply). xarray
    writes the metadata (attributes, encodings, in-memory variables) as on the regular
    grid; variables xarray encodes (CF packing, ``_FillValue``, times, strings) are encoded
    block by block with the encoding xarray wrote for them, so the store holds the numbers
    xarray's own writes would. A variable with a dimension of length 0 stays on the
    regular grid. Readers need zarr's flag ``array.rectilinear_chunks`` on
    (``zarr.config.set({"array.rectilinear_chunks": True})`` or
    ``ZARR_ARRAY__RECTILINEAR_CHUNKS=True``) and zarr-python 3.2 or newer.

    Parameters
    ----------
    obj : xarray.Dataset or xarray.DataArray
        Dask-backed variables in any chunks.
    store
        A new zarr store: a local path, an fsspec URL (``s3://bucket/out.zarr``, reached
        with ``storage_options=``, which travel with the store to a cluster's workers) or a
        zarr store object (``mode="w"`` replaces an existing one, only once the new one is
        complete where the store is a local path).
    chunk_grid : {"regular", "rectilinear"}, default: "regular"
        zarr's chunk grid: regular chunks, or the rectilinear grid of each variable's own
        blocks (zarr-python 3.2 or newer, zarr v3).
    memory : int or str, optional
        Bytes a tile's write may hold (``"1GB"`` works too); default 2 GiB, or a quarter
        of the memory this process may use (a container's limit included) if less.
    progress : bool
        One progress bar over all the tiles.
    **kwargs
        Passed to ``obj.to_zarr`` for the metadata (``encoding=``, ``zarr_format=``,
        ``mode="w"``, ``consolidated=``, ...).

    Raises
    ------
    ValueError
        ``mode`` neither "w-" nor "w"; ``chunk_grid`` neither "regular" nor "rectilinear";
        with "rectilinear", ``zarr_format=2`` or a zarr-python older than 3.2
        (:class:`daskpad.store.writing.chunk_plans.RectilinearUnsupported`), before anything is
        written.

    Examples
    --------
    >>> import tempfile, xarray as xr, dask.array as da, daskpad
    >>> ds = xr.Dataset({"t": (("y", "x"), da.ones((40, 30), chunks=10))})
    >>> padded = ds.pad2(x=2, y=1, mode="edge", chunks="regular")
    >>> daskpad.xarray.to_zarr(padded, tempfile.mkdtemp(), memory="4kB", zarr_format=2)

    On the rectilinear grid (zarr-python 3.2 or newer: tests/store/test_rectilinear_api.py runs
    this example), read back in the blocks the padded variable was made of:

    >>> import zarr
    >>> where = tempfile.mkdtemp()
    >>> daskpad.xarray.to_zarr(padded, where, chunk_grid="rectilinear")  # doctest: +SKIP
    >>> with zarr.config.set({"array.rectilinear_chunks": True}):  # doctest: +SKIP
    ...     xr.open_zarr(where).t.chunks
    ((1, 10, 10, 10, 10, 1), (2, 10, 10, 10, 2))
    """

    if isinstance(obj, xr.DataArray):
        obj = obj.to_dataset(
            name=obj.name if obj.name is not None else "__xarray_dataarray_variable__"
        )
    obj = obj.copy(deep=False)
    for var in obj.variables.values():
        if var.chunks is not None:
            var.encoding.pop("chunks", None)
            var.encoding.pop("preferred_chunks", None)
    consolidated = kwargs.pop("consolidated", None) is not False
    check_keywords(kwargs, "daskpad.xarray.to_zarr", "xarray's to_zarr")
    # memory= checked first, then chunk_grid= (the rectilinear grid: no tiles)
    budget = memory_budget(memory)
    plan: ChunkPlan | TilePlan
    if asks_rectilinear(chunk_grid, kwargs.get("zarr_format")):
        plan = plan_own_grids(obj)
    else:
        plan = plan_tiles(obj, budget)
    mode = kwargs.pop("mode", "w-")
    if mode not in ("w", "w-"):
        raise ValueError(f"to_zarr writes a new store: mode must be 'w-' or 'w', got {mode!r}")
    storage_options = kwargs.pop("storage_options", None)
    with rectilinear_grids() if isinstance(plan, ChunkPlan) else contextlib.nullcontext():
        with written_whole(store, mode == "w", storage_options) as where:
            plan.write(where, progress=progress, consolidated=consolidated, mode="w-", **kwargs)
