"""Writing a padded dataset to zarr, tile by tile when it is large, so that the memory it
holds stays bounded.

Every dask-backed variable zarr takes as it is goes through streamed writes
(:mod:`daskpad.store.writing.stream`): each block the variable was made of (its source in the plan:
for a padded array in regular chunks, the input's blocks and the pad's) is computed once and
written into the zarr chunks it overlaps, each chunk whole, once. Such a write holds a few
blocks per thread and the thin edges blocks hand on, so most datasets are written in one
computation; above the memory budget (:func:`daskpad.store.planning.tiling.plan`) they are written
one tile of zarr chunks at a time, each tile its own computation, and the input blocks along
tile edges are read by both tiles. A variable xarray encodes (CF attributes, strings, times)
goes through xarray's region writes of its regular blocks instead, each assembled from the
blocks it overlaps, and a tile holds what it reads. The statistics a pad repeats are
computed before the tiles (:func:`daskpad.store.writing.settle.settle_statistics`), so a statistic
of the whole axis is read once, not by every tile at an edge. On a distributed cluster every
computation has keys of its own (:func:`daskpad.store.writing.settle.fresh_keys`).

Nothing here pads or plans: :func:`write_tiled` writes a padded dataset as its plan
(:func:`daskpad.store.planning.tiling.plan`) says, for the command and for
:func:`daskpad.xarray.to_zarr`; :func:`to_zarr` (public as ``daskpad.to_zarr``) plans one
dask array (:func:`daskpad.store.planning.tiling.plan_array`) and writes it the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping
from typing import Any

from daskpad._compat.libraries import rectilinear_grids
from daskpad.core.regrid import regrid
from daskpad.store.block_grids import (
    asks_rectilinear,
    block_writes,
    encoded_among,
    encoded_block_writes,
    grid_of,
    stored_encodings,
)
from daskpad.store.block_grids import write_metadata as write_own_metadata
from daskpad.store.places.commit import written_whole
from daskpad.store.planning.tiling import ArrayPlan, TilePlan, plan_array
from daskpad.store.writing.consolidation import consolidate
from daskpad.store.writing.settle import TileProgress, compute_apart, settle_statistics, step
from daskpad.store.writing.stream import streamed_writes


def store_tiles(jobs: Iterable[list[Any]], ntiles: int, progress: bool) -> None:
    """Compute each job (a list of dask collections writing one tile) in its own
    computation: a tile's input is released before the next tile starts.

    It runs on the default scheduler, a distributed client's cluster when there is one.
    There each tile's tasks get keys of their own
    (:func:`daskpad.store.writing.settle.fresh_keys`): neighbouring tiles read the same input
    blocks, and a graph that names keys the scheduler is still releasing from the previous tile can
    fail in distributed's scheduler (a KeyError for an input key, distributed 2026.8;
    dask/dask#9888).
    """
    bar = TileProgress(ntiles) if progress else None
    for writes in jobs:
        with step(bar):
            compute_apart(writes)
    if bar is not None:
        bar.finish()


def write_region(source: Any, target: Any, region: tuple[slice, ...]) -> list[Any]:
    """The dask collections that write ``source[region]`` into ``target[region]``:
    ``source`` is the array of the blocks a variable was made of (its plan's: for a padded
    array in regular chunks, the input's blocks and the pad's), each computed once and
    written into the zarr chunks it overlaps, each chunk whole by one task
    (:mod:`daskpad.store.writing.stream`); ``region`` is on the target's chunk bounds. None for an
    array without elements."""
    writes = streamed_writes(source, target, region)
    return [] if writes is None else [writes]


def _write_metadata(
    ds: Any, store: Any, streamed: Collection[Hashable], kwargs: Mapping[str, Any]
) -> None:
    """xarray writes the metadata of ``ds`` and its in-memory variables into ``store``.

    xarray builds (and drops) a write of every dask-backed variable, whose graph, for a
    padded array of 87 x 87 blocks in regular chunks, takes seconds; those written straight
    by daskpad (``streamed``) stand in as empty arrays of their chunks, whose graph is one
    layer of blocks."""
    import dask.array as da

    ds_meta = ds.copy(deep=False)
    for name in streamed:
        var = ds_meta.variables[name]
        var.data = da.empty(var.shape, chunks=var.chunks, dtype=var.dtype)
    ds_meta.to_zarr(store, **{"mode": "w-", **kwargs}, compute=False, consolidated=False)


def write_tiled(
    ds: Any,
    store: Any,
    the_plan: TilePlan,
    progress: bool,
    consolidated: bool | None,
    compute: Callable[[list[Any]], None] | None = None,
    **kwargs: Any,
) -> None:
    """Write ``ds`` to the new zarr ``store``: xarray writes the metadata and the in-memory
    variables (``kwargs`` go to its ``to_zarr``), then the dask-backed variables are
    written tile by tile, one computation per tile (or, when the plan is one tile and
    ``compute`` is given, by ``compute(collections)``); metadata is consolidated at the
    end unless ``consolidated`` is False.

    A variable xarray stores as it is (numbers, no CF encoding left to apply: the command
    reads values undecoded) goes straight into its zarr array; one that xarray encodes
    (scale_factor, _FillValue, times, strings, ...) goes through xarray's region writes,
    which encode it as the store says.
    """
    import xarray as xr
    import zarr

    ds = ds.copy(deep=False)
    for var in ds.variables.values():
        if var.chunks is not None and var.ndim == 0:
            var.load()  # a scalar: written with the metadata
    sources = dict(the_plan.sources)
    streamed = [name for group, _ in the_plan.shapes for name in group.streamed]
    if the_plan.ntiles > 1:
        lazy = [n for n, v in ds.variables.items() if v.chunks is not None and v.ndim]
        settled = settle_statistics([sources[n] for n in lazy], the_plan.budget, progress)
        for name, done in zip(lazy, settled):
            var = ds.variables[name]
            if done is not sources[name] and name not in streamed:
                var.data = regrid(done, var.chunks)  # for xarray's region writes
            sources[name] = done
    _write_metadata(ds, store, streamed, kwargs)
    root: Any = zarr.open_group(store, mode="r+")
    fmt = root.metadata.zarr_format
    # the zarr arrays written straight, opened and checked once
    targets = {}
    for name in streamed:
        var = ds.variables[name]
        target = targets[name] = root[str(name)]
        if (target.shape, getattr(target, "dtype", None)) != (var.shape, var.dtype):
            raise RuntimeError(  # xarray made the array; this would be a daskpad bug
                f"the zarr array {name!r} is {target.shape}, not {var.dims} {var.shape}"
            )

    def jobs() -> Iterator[list[Any]]:
        for group, region in the_plan.regions():
            if not group.dims:
                yield []  # the scalars, written with the metadata
                continue
            where = tuple(region[d] for d in group.dims)
            writes: list[Any] = []
            encoded = {}
            for name in group.names:
                var = ds.variables[name]
                if name in targets:
                    writes += write_region(sources[name], targets[name], where)
                else:
                    # attrs too: the store has them, and xarray's region write takes the
                    # encoding from the store (an undecoded _FillValue attr would clash)
                    encoded[name] = xr.Variable(var.dims, var.data[where])
            if encoded:
                writes.append(
                    xr.Dataset(encoded).to_zarr(
                        store,
                        region={str(d): s for d, s in region.items()},
                        compute=False,
                        consolidated=False,
                        zarr_format=fmt,
                    )
                )
            yield writes

    if compute is not None and the_plan.whole:
        compute([w for writes in jobs() for w in writes])
    else:
        store_tiles(jobs(), the_plan.ntiles, progress)
    if consolidated or consolidated is None:
        consolidate(store, fmt)


def write_rectilinear(
    ds: Any, store: Any, progress: bool, consolidated: bool | None, **kwargs: Any
) -> None:
    """Write ``ds`` to the new zarr v3 ``store`` with each dask-backed variable on the
    rectilinear grid of the blocks it was made of (:mod:`daskpad.store.block_grids`): xarray
    writes the metadata and the in-memory variables (``kwargs`` go to its ``to_zarr``),
    then every block is computed once and written whole, by one task, in one computation
    (a variable xarray encodes, encoded block by block as its store says); metadata is
    consolidated at the end unless ``consolidated`` is False. A variable with an axis of
    length 0 stays on the regular grid (it has no chunks to write)."""
    import zarr

    ds = ds.copy(deep=False)
    for var in ds.variables.values():
        if var.chunks is not None and var.ndim == 0:
            var.load()  # a scalar: written with the metadata
    with rectilinear_grids():
        grids = write_own_metadata(ds, store, **{**kwargs, "zarr_format": 3})
        encodings = stored_encodings(store, encoded_among(ds, grids))
        root: Any = zarr.open_group(store, mode="r+")
        writes = []
        for name in grids:
            var = ds.variables[name]
            target = root[str(name)]
            if name in encodings:
                writes.append(
                    encoded_block_writes(var.data, target, var.dims, encodings[name], name)
                )
            else:
                writes.append(block_writes(var.data, target))
        store_tiles([writes], 1, progress)
        if consolidated or consolidated is None:
            consolidate(store, 3)


def to_zarr(
    x: Any,
    store: Any,
    *,
    chunk_grid: str = "regular",
    memory: int | str | None = None,
    progress: bool = False,
    **kwargs: Any,
) -> Any:
    """Store a dask array in a new zarr array, each of its blocks computed once (twice
    the blocks beside a pad that waits for blocks far away, as wrap, linear_ramp and a
    whole-axis statistic do, where they have the larger part of a chunk the pad writes),
    holding about ``memory`` bytes at most.

    ``dask.array.to_zarr`` of a padded array in regular chunks
    (``daskpad.pad(..., chunks="regular")`` or ``"even"``) assembles each output block from
    the up to 2**ndim blocks it overlaps, and dask's ordering holds rows of input blocks
    meanwhile. Here each block ``x`` was made of (for a padded array, the input's blocks and
    the pad's) is computed once, by one task, and written into the zarr chunks it overlaps,
    each chunk whole, once, by the block with the largest part of it, the thin parts of the
    others handed on (:mod:`daskpad.store.writing.stream`). That holds a few blocks per thread and
    the parts handed on; an array whose write would hold more than ``memory`` is written tile by
    tile, one computation per tile of zarr chunks, and the blocks along tile edges are
    computed by both tiles. The statistics a pad repeats (maximum, mean, median, minimum)
    are then computed first, axis after axis, so a statistic of the whole axis is read once
    per padded axis, not by every tile at an edge.

    It takes any dask array: zarr's chunks are ``x``'s where zarr can store them, else
    those :func:`daskpad.store.planning.zarr_chunks.storable_chunks` says. A local path is
    written under a hidden temporary name and moved into place once complete: a failed or
    interrupted write leaves nothing that opens, and an existing store is replaced only with
    ``overwrite=True``. An object store (``s3://``, ``gs://``, ...) has no rename: the array
    is written in place, its metadata document last, and a failed write removes what it
    wrote; ``overwrite=True`` deletes an existing store there first. Other stores are
    written in place.

    With ``chunk_grid="rectilinear"`` the array is a zarr v3 array on the rectilinear chunk
    grid of the blocks ``x`` was made of (:func:`daskpad.core.regrid.own_grid`: for
    ``daskpad.pad(..., chunks="regular")`` the input's blocks and the pad's, for any other
    dask array its own chunks): each block is computed once and written as one whole chunk
    by one task, in one computation (``memory`` does not apply: a task holds one block).
    zarr reads such an array only with its flag ``array.rectilinear_chunks`` on
    (``zarr.config.set({"array.rectilinear_chunks": True})`` or
    ``ZARR_ARRAY__RECTILINEAR_CHUNKS=True``); the array returned was opened with it.
    An array of no dimensions or with an axis of length 0 has no rectilinear grid and is
    stored on the regular grid.

    Parameters
    ----------
    x : dask.array.Array
        Any chunks; zarr's chunks are ``x``'s where zarr can store them.
    store
        Where to create the zarr array: a local path, an fsspec URL (``s3://bucket/a.zarr``;
        see ``storage_options``) or any store :func:`zarr.create_array` takes.
    chunk_grid : {"regular", "rectilinear"}, default: "regular"
        zarr's chunk grid: regular chunks (all equal but a smaller last one, as above), or
        the rectilinear grid of ``x``'s own blocks (zarr-python 3.2 or newer, zarr v3).
    memory : int or str, optional
        Bytes a tile's write may hold (``"512MB"`` works too); default 2 GiB, or a quarter
        of the memory this process may use (a container's limit included) if less. A tile
        is at least one block.
    progress : bool
        Show one progress bar over all the tiles.
    **kwargs
        Passed to :func:`zarr.create_array` (``compressors=``, ``zarr_format=``,
        ``overwrite=``, ...), except ``storage_options``: those of the filesystem of a URL
        ``store`` (``{"endpoint_url": ...}``, credentials), which travel with the store to
        the workers of a cluster.

    Returns
    -------
    zarr.Array
        The array written.

    Raises
    ------
    ValueError
        ``chunk_grid`` neither "regular" nor "rectilinear"; with "rectilinear",
        ``zarr_format=2``, ``chunks=``, or a zarr-python older than 3.2
        (:class:`daskpad.store.rectilinear.RectilinearUnsupported`), before anything is
        written.

    Examples
    --------
    >>> import dask.array as da, daskpad, numpy as np, tempfile, zarr
    >>> x = da.from_array(np.arange(100).reshape(10, 10), chunks=3)
    >>> y = daskpad.pad(x, 2, mode="reflect", chunks="regular")
    >>> z = daskpad.to_zarr(y, tempfile.mkdtemp(), memory=16 * y.dtype.itemsize * 9)
    >>> z.chunks
    (3, 3)
    >>> bool((z[...] == np.pad(np.arange(100).reshape(10, 10), 2, mode="reflect")).all())
    True

    On the rectilinear grid (zarr-python 3.2 or newer: tests/store/test_rectilinear_api.py runs
    this example), the pads before and after are chunks of their own beside the input's:

    >>> z = daskpad.to_zarr(y, tempfile.mkdtemp(), chunk_grid="rectilinear")  # doctest: +SKIP
    >>> z.read_chunk_sizes  # doctest: +SKIP
    ((2, 3, 3, 3, 1, 2), (2, 3, 3, 3, 1, 2))
    >>> bool((z[...] == np.pad(np.arange(100).reshape(10, 10), 2, mode="reflect")).all())
    True
    """
    import zarr

    if asks_rectilinear(chunk_grid, kwargs.get("zarr_format")):
        if "chunks" in kwargs:
            raise ValueError(
                "chunk_grid='rectilinear' stores x's blocks as its chunks: leave out "
                f"chunks= (got {kwargs['chunks']!r}), or use chunk_grid='regular'"
            )
        grid = grid_of(x)
        if grid is not None:
            return _to_zarr_rectilinear(x, grid, store, progress, kwargs)
    the_plan = plan_array(x, memory)
    options = kwargs.pop("storage_options", None)
    with written_whole(store, bool(kwargs.get("overwrite")), options) as where:
        z = _write_array(the_plan, where, progress, kwargs)
    if where is store:
        return z
    return zarr.open_array(store, mode="r+", **({"storage_options": options} if options else {}))


def _write_array(the_plan: ArrayPlan, where: Any, progress: bool, kwargs: Any) -> Any:
    """A new zarr array at ``where`` holding ``the_plan``'s array, written tile by tile
    (:func:`to_zarr`)."""
    import zarr

    x, source = the_plan.x, the_plan.source
    z = zarr.create_array(
        where, shape=x.shape, dtype=x.dtype, chunks=the_plan.chunk_shape, **kwargs
    )
    regions = the_plan.regions
    if len(regions) > 1:
        (source,) = settle_statistics([source], the_plan.budget, progress)
    store_tiles((write_region(source, z, r) for r in regions), len(regions), progress)
    return z


def _to_zarr_rectilinear(
    x: Any,
    grid: tuple[tuple[int, ...], ...],
    store: Any,
    progress: bool,
    kwargs: dict[str, Any],
) -> Any:
    """:func:`to_zarr` on the rectilinear ``grid`` of ``x``'s own blocks
    (:mod:`daskpad.store.block_grids`), each written whole by one task."""
    import zarr

    options = kwargs.pop("storage_options", None)
    with rectilinear_grids():
        with written_whole(store, bool(kwargs.get("overwrite")), options) as where:
            z = zarr.create_array(
                where,
                shape=x.shape,
                dtype=x.dtype,
                chunks=[list(c) for c in grid],
                **{**kwargs, "zarr_format": 3},
            )
            store_tiles([[block_writes(x, z)]], 1, progress)
        if where is store:
            return z
        return zarr.open_array(
            store, mode="r+", **({"storage_options": options} if options else {})
        )
