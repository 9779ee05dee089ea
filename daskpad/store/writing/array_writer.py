"""Storing one dask array in a new zarr array (public as :func:`daskpad.to_zarr`): a plan
of tiles on zarr's regular grid (:class:`daskpad.store.writing.tile_plans.TilePlan`) or of
the array's own blocks on the rectilinear grid
(:class:`daskpad.store.writing.chunk_plans.ChunkPlan`), written so that nothing opens
before it is complete (:func:`daskpad.store.places.commit.written_whole`)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from daskpad._compat.libraries import rectilinear_grids
from daskpad.store.places.commit import written_whole
from daskpad.store.writing.chunk_plans import ChunkPlan, asks_rectilinear, plan_own_grid
from daskpad.store.writing.metadata import check_keywords
from daskpad.store.writing.tile_plans import TilePlan, plan_array_tiles

if TYPE_CHECKING:
    import dask.array as da
    import zarr


def to_zarr(
    x: da.Array,
    store: Any,
    *,
    chunk_grid: str = "regular",
    memory: int | str | None = None,
    progress: bool = False,
    **kwargs: Any,
) -> zarr.Array[Any]:
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
    zarr.Array[Any]
        The array written.

    Raises
    ------
    ValueError
        ``chunk_grid`` neither "regular" nor "rectilinear"; with "rectilinear",
        ``zarr_format=2``, ``chunks=``, or a zarr-python older than 3.2
        (:class:`daskpad.store.writing.chunk_plans.RectilinearUnsupported`), before anything is
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

    check_keywords(kwargs, "daskpad.to_zarr", "zarr.create_array")
    rectilinear = asks_rectilinear(chunk_grid, kwargs.get("zarr_format"))
    plan: ChunkPlan | TilePlan | None = None
    if rectilinear:
        if "chunks" in kwargs:
            raise ValueError(
                "chunk_grid='rectilinear' stores x's blocks as its chunks: leave out "
                f"chunks= (got {kwargs['chunks']!r}), or use chunk_grid='regular'"
            )
        plan = plan_own_grid(x)
    if plan is None:
        plan = plan_array_tiles(x, memory)
    options = kwargs.pop("storage_options", None)
    with rectilinear_grids() if isinstance(plan, ChunkPlan) else contextlib.nullcontext():
        with written_whole(store, bool(kwargs.get("overwrite")), options) as where:
            z = plan.write(where, progress=progress, **kwargs)
        if where is store and z is not None:
            return z
        return zarr.open_array(
            store, mode="r+", **({"storage_options": options} if options else {})
        )
