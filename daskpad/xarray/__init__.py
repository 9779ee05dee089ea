"""Labelled padding for xarray objects: :func:`pad2` and the ``pad2`` accessor.

Importing this module (which ``import daskpad`` does when xarray is installed) registers a
callable accessor ``pad2`` on :class:`xarray.Dataset` and :class:`xarray.DataArray`::

    ds.pad2(x=(1, 2), mode="reflect")
    ds.pad2({"x": 2, "y": (0, 3)}, mode="wrap")

The accessor only forwards to :func:`pad2`, which does the work: dask-backed variables pad
lazily through :func:`daskpad.pad`, in-memory variables through :func:`numpy.pad`, and both
give the same values.

Rules, in brief (the docstring of :func:`pad2` has the details):

- **Widths** are given per dimension name, as an int or a ``(before, after)`` pair. A width
  of 0 leaves the dimension alone (except with ``coords="xarray"``, where, as in xarray, it
  still resets the index and promotes for the default fill).
- **Modes** are one for every dimension or one per dimension name
  (``mode={"lon": "wrap", "lat": "symmetric"}``, "constant" for padded dimensions it does
  not name); a variable is then padded one dimension at a time in its own dimension order,
  as chained ``numpy.pad`` calls pad it, and a variable without some padded dimensions gets
  the modes of those it has. The keywords (``constant_values``, ``end_values``,
  ``stat_length``, ``reflect_type``) take one value or one per dimension name.
- **Data variables** that have no padded dimension are returned untouched. With
  ``mode="constant"`` and no ``constant_values``, the fill follows xarray's convention: NaN
  (NaT for times), promoting integers to float (``float32`` up to two-byte integers,
  ``float64`` above) and booleans to object. An explicit ``constant_values`` keeps the dtype,
  as in :func:`numpy.pad` and xarray's ``pad``: a fraction is cast as numpy casts it, and a
  value the dtype cannot hold at all (NaN in integers, a number out of range) is an error.
- **Index coordinates** (``coords="extend"``, the default) are continued with their edge
  spacing, so they stay monotonic and unique whatever the mode: ``x = [0, 1, 2]`` padded by 2
  on both sides becomes ``[-2, -1, 0, 1, 2, 3, 4]``, a longitude ``[0, 1, ..., 359]`` padded
  with wrap becomes ``[-2, -1, 0, ..., 359, 360, 361]``. Numbers, datetimes (numpy's, and
  cftime's in their own calendar: a noleap ``CFTimeIndex`` stays noleap) and timedeltas
  can be extended; an index of strings or other objects, of fewer than two values, that is
  not strictly monotonic, or whose extension its dtype cannot hold apart (overflow, rounding)
  cannot, and padding its dimension raises a ``ValueError`` that names the other policies.
  ``coords="drop"`` removes the index coordinates of padded dimensions; ``coords="xarray"``
  reproduces :meth:`xarray.Dataset.pad` exactly.
- **Other coordinates** along a padded dimension are padded like data: with the data's mode
  for edge, reflect, symmetric and wrap, and with the default fill (NaN/NaT with promotion)
  for every other mode, as xarray does.
- **attrs** follow ``keep_attrs`` (default: xarray's ``keep_attrs`` option, which keeps them).
  Encodings of padded variables lose the keys that describe the old on-disk layout
  (``chunks``, ``preferred_chunks``, ``shards``, ``chunksizes``, ``contiguous``,
  ``original_shape``) and ``dtype`` when the data was promoted: they describe the input.
- **Writing**: the default chunks keep the input's and add the pad's own at the edges,
  which zarr cannot store as they are: :func:`to_zarr` here takes them, xarray's
  ``to_zarr`` needs ``chunks="regular"`` (or ``"even"``); ``to_netcdf`` takes any.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import xarray as xr

from daskpad.store.commit import written_whole
from daskpad.store.own_grids import asks_rectilinear
from daskpad.store.tiles import write_rectilinear, write_tiled
from daskpad.store.tiling import memory_budget, plan, storable
from daskpad.xarray.coords import COORDS_POLICIES, CoordsPolicy
from daskpad.xarray.labelled import normalize_widths
from daskpad.xarray.named_shapes import crop, map_overlap, pad_to, widths_for
from daskpad.xarray.pad2 import ModeArg, T_Xarray, pad_normalized

__all__ = [
    "COORDS_POLICIES",
    "Pad2Accessor",
    "crop",
    "map_overlap",
    "pad2",
    "pad_to",
    "to_zarr",
    "widths_for",
]


# --------------------------------------------------------------------------------------
# The function
# --------------------------------------------------------------------------------------
def pad2(
    obj: T_Xarray,
    pad_width: Mapping[Any, int | tuple[int, int]] | None = None,
    mode: ModeArg = "constant",
    *,
    stat_length: Any = None,
    constant_values: Any = None,
    end_values: Any = None,
    reflect_type: Literal["even", "odd"] | Mapping[Any, Literal["even", "odd"]] | None = None,
    keep_attrs: bool | None = None,
    coords: CoordsPolicy = "extend",
    chunks: Any = None,
    **pad_width_kwargs: int | tuple[int, int],
) -> T_Xarray:
    """Pad a Dataset or DataArray along named dimensions, exactly like ``numpy.pad``.

    Also available as the accessor ``obj.pad2(...)`` once ``daskpad`` is imported.

    Parameters
    ----------
    obj : xarray.Dataset or xarray.DataArray
        The object to pad.
    pad_width : mapping of dimension name to int or (int, int), optional
        ``{dim: (before, after)}``; ``{dim: n}`` is short for ``(n, n)``. Give either this
        or ``**pad_width_kwargs``.
    mode : str, function, or mapping of dimension name to those, default: "constant"
        Any ``numpy.pad`` mode: "constant", "edge", "linear_ramp", "maximum", "mean",
        "median", "minimum", "reflect", "symmetric", "wrap", "empty", or a function as
        ``numpy.pad`` takes it; or a mode per dimension, ``{"lon": "wrap", "lat":
        "symmetric"}``, naming only dimensions given a width (padded dimensions it does
        not name are padded with "constant"). Each variable is then padded one dimension
        at a time, in its own dimension order, each with its dimension's mode and
        keywords: the result is ``numpy.pad`` chained over the dimensions, so the corners
        of a dimension come from the pads of the dimensions before it. The default fill
        promotes integer data where the chain reaches the first dimension padded with it
        (a mean of integers padded before is rounded in the integers, as chained
        ``numpy.pad`` or xarray ``.pad`` calls round it).
    stat_length : int, (int, int) or mapping of dimension name to those, optional
        Statistic modes only: how many values at each edge the statistic reads. Dimensions
        not named in a mapping use the whole axis, as does ``None``.
    constant_values : scalar, (before, after), or mapping, optional
        Mode "constant" only. A mapping may name dimensions (``{"x": (0, 1)}``) and, for a
        Dataset, data variables, whose value is again a scalar, pair or mapping by
        dimension (``{"a": 0, "b": {"x": -1}}``). Whatever is not given - the whole
        argument, a dimension a mapping leaves out, a variable it does not name - is
        padded with xarray's missing value: NaN, promoting integers to float (float32 for
        integers of up to two bytes, float64 otherwise) and booleans to object, NaT for
        times. Given values keep the variable's dtype, as in ``numpy.pad`` and xarray's
        ``pad`` (cast as ``numpy.pad`` casts them: 0.5 is 0 in integers); a value the dtype
        cannot hold at all (NaN in integers, a number out of its range) raises numpy's
        error, naming the variable.
    end_values : scalar, (before, after), or mapping of dimension name to those, optional
        Mode "linear_ramp" only; dimensions not named in a mapping ramp to 0.
    reflect_type : {"even", "odd"} or mapping of dimension name to those, optional
        Modes "reflect" and "symmetric" only; dimensions not named in a mapping reflect
        "even".

        With a mode per dimension, each of these keywords applies to the dimensions whose
        mode takes it, and must fit at least one that ``mode`` names, whatever its width
        (0 included: numpy.pad's keywords go by mode, not width), or that is padded (one
        left to "constant" counts only where padded); a mapping may only name dimensions
        given a width whose mode takes it. A function gets no keywords: bind them with
        ``functools.partial``.
    keep_attrs : bool, optional
        Keep the attrs of the object and of the padded variables. Default: xarray's
        ``keep_attrs`` option (which keeps them). Unpadded variables are returned as they
        were.
    coords : {"extend", "drop", "xarray"}, default: "extend"
        What happens to the index coordinates of padded dimensions.

        - "extend": continue each with its edge spacing (``x[1] - x[0]`` before,
          ``x[-1] - x[-2]`` after), whatever the mode, so it stays strictly monotonic and
          unique and ``.sel``, ``.interp`` and plotting keep working. A global longitude
          padded with "wrap" continues past the period (..., 359, 360, 361). Needs at
          least two strictly monotonic numbers, datetimes or timedeltas (cftime dates
          are continued in their calendar, and the index stays a ``CFTimeIndex``;
          the command, which reads times undecoded, continues the stored numbers, which
          decode to the same dates where the time units are days or finer): anything else
          (strings, a single value, unsorted labels) raises ``ValueError``, as do labels
          the index's dtype cannot hold apart once extended (overflow, or float steps that
          round to an equal label): the index is never left with repeated labels.
        - "drop": remove them (and their index); the dimension is left without labels.
        - "xarray": what ``xarray.Dataset.pad`` does: coordinates are padded with the mode
          for "edge", "reflect", "symmetric" and "wrap" and with NaN otherwise, and each
          padded dimension coordinate gets a new default index. With this policy
          ``constant_values`` also follows xarray: a mapping that leaves out a padded
          dimension or a data variable pads it with 0, and given values never promote.
          This makes ``pad2(..., coords="xarray")`` a drop-in replacement for ``.pad`` that
          is also right on dask-backed data; with a mode per dimension it is xarray's
          ``.pad`` chained one dimension at a time (each variable in its own dimension
          order), each call with that dimension's mode.

        Non-index coordinates along a padded dimension are padded under every policy like
        data, with the mode for "edge", "reflect", "symmetric" and "wrap" and with the
        missing value for the other modes (their labels would mean nothing); with a mode
        per dimension, along each dimension by that dimension's mode.
    chunks : optional
        Output chunk policy of :func:`daskpad.pad` (``"regular"``, ``"even"``,
        ``"merge"``, or any of dask's chunk forms), applied to each dask-backed variable;
        in-memory variables ignore it. The default keeps the input's chunks and adds the
        pad's own at the edges: :func:`daskpad.xarray.to_zarr` writes those as they are,
        while xarray's ``to_zarr`` refuses them (zarr stores regular chunks only) and
        needs ``chunks="regular"`` or ``"even"``.
    **pad_width_kwargs : int or (int, int)
        The keyword form of ``pad_width``, e.g. ``x=(1, 2)``. (A dimension whose name is
        one of this function's arguments must be given in ``pad_width``.)

    Returns
    -------
    Dataset or DataArray
        The padded object, of the same type; lazy where the input was dask-backed.

    Raises
    ------
    ValueError
        Unknown dimension names, widths given both as a mapping and as keywords, negative
        widths, an unknown mode (another library's boundary name, such as "periodic", is
        translated in the message), a mode for a dimension without a width, keyword
        arguments that do not fit the modes, an unknown ``coords`` policy, or an index
        coordinate that ``coords="extend"`` cannot extend.
    TypeError
        Widths that are not integers, ``pad_width`` that is not a mapping, or a mode per
        axis (a list) rather than per dimension name.

    See Also
    --------
    daskpad.pad, numpy.pad, xarray.Dataset.pad

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> import daskpad
    >>> da = xr.DataArray([1, 2, 3], coords={"x": [10, 20, 30]}, name="v")
    >>> padded = da.pad2(x=(1, 2), mode="reflect")
    >>> padded.values
    array([2, 1, 2, 3, 2, 1])
    >>> padded.x.values
    array([ 0, 10, 20, 30, 40, 50])

    The default constant fill is xarray's NaN, promoting integers; an explicit constant
    keeps the dtype:

    >>> da.pad2(x=1).values
    array([nan,  1.,  2.,  3., nan])
    >>> da.pad2(x=1, constant_values=0).values
    array([0, 1, 2, 3, 0])

    A global longitude grid padded with "wrap" keeps increasing past 360:

    >>> lon = xr.DataArray(np.arange(0, 360, 90), coords={"lon": np.arange(0, 360, 90)})
    >>> lon.pad2(lon=2, mode="wrap").lon.values
    array([-180,  -90,    0,   90,  180,  270,  360,  450])

    A mode per dimension: latitude is mirrored, longitude wraps around, and the corners
    wrap the mirrored rows (dimension by dimension in numpy.pad's order, lat then lon):

    >>> grid = xr.DataArray(np.arange(6).reshape(2, 3), dims=("lat", "lon"))
    >>> grid.pad2(lat=1, lon=1, mode={"lon": "wrap", "lat": "symmetric"}).values
    array([[2, 0, 1, 2, 0],
           [2, 0, 1, 2, 0],
           [5, 3, 4, 5, 3],
           [5, 3, 4, 5, 3]])

    ``coords="xarray"`` does what xarray's ``.pad`` does:

    >>> da.pad2(x=1, mode="edge", coords="xarray").x.values
    array([10, 10, 20, 30, 30])
    """
    if not isinstance(obj, (xr.Dataset, xr.DataArray)):
        raise TypeError(f"pad2 pads an xarray Dataset or DataArray, got {type(obj).__name__}")
    widths = normalize_widths(pad_width, pad_width_kwargs, obj.sizes)
    return pad_normalized(
        obj,
        widths,
        asked=list(widths),
        why="give them a width in pad_width",
        mode=mode,
        stat_length=stat_length,
        constant_values=constant_values,
        end_values=end_values,
        reflect_type=reflect_type,
        keep_attrs=keep_attrs,
        coords=coords,
        chunks=chunks,
    )


# --------------------------------------------------------------------------------------
# Storing with bounded memory
# --------------------------------------------------------------------------------------
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
    zarr chunk written whole, once (:mod:`daskpad.store.stream`); a dataset whose write would
    hold more than ``memory`` is written one tile of chunks per computation (the blocks
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
        (:class:`daskpad.store.rectilinear.RectilinearUnsupported`), before anything is
        written.

    Examples
    --------
    >>> import tempfile, xarray as xr, dask.array as da, daskpad
    >>> ds = xr.Dataset({"t": (("y", "x"), da.ones((40, 30), chunks=10))})
    >>> padded = ds.pad2(x=2, y=1, mode="edge", chunks="regular")
    >>> daskpad.xarray.to_zarr(padded, tempfile.mkdtemp(), memory="4kB", zarr_format=2)

    On the rectilinear grid (zarr-python 3.2 or newer: tests/test_rectilinear_api.py runs
    this example), read back in the blocks the padded variable was made of:

    >>> import zarr
    >>> where = tempfile.mkdtemp()
    >>> daskpad.xarray.to_zarr(padded, where, chunk_grid="rectilinear")  # doctest: +SKIP
    >>> with zarr.config.set({"array.rectilinear_chunks": True}):  # doctest: +SKIP
    ...     xr.open_zarr(where).t.chunks
    ((1, 10, 10, 10, 10, 1), (2, 10, 10, 10, 2))
    """

    budget = memory_budget(memory)
    rectilinear = asks_rectilinear(chunk_grid, kwargs.get("zarr_format"))
    if isinstance(obj, xr.DataArray):
        obj = obj.to_dataset(
            name=obj.name if obj.name is not None else "__xarray_dataarray_variable__"
        )
    mode = kwargs.pop("mode", "w-")
    if mode not in ("w", "w-"):
        raise ValueError(f"to_zarr writes a new store: mode must be 'w-' or 'w', got {mode!r}")
    consolidated = kwargs.pop("consolidated", None)
    obj = obj.copy(deep=False)
    for var in obj.variables.values():
        if var.chunks is not None:
            if not rectilinear:
                var.data = storable(var.data)  # zarr's chunks: regular along every dimension
            var.encoding.pop("chunks", None)
            var.encoding.pop("preferred_chunks", None)
    everything = {d for v in obj.variables.values() for d in v.dims}
    storage_options = kwargs.pop("storage_options", None)
    with written_whole(store, mode == "w", storage_options) as where:
        if rectilinear:
            write_rectilinear(obj, where, progress, consolidated, mode="w-", **kwargs)
            return
        the_plan = plan(obj, everything, budget)
        write_tiled(obj, where, the_plan, progress, consolidated, mode="w-", **kwargs)


# --------------------------------------------------------------------------------------
# The accessor
# --------------------------------------------------------------------------------------
class Pad2Accessor:
    """``obj.pad2(...)``: forwards to :func:`daskpad.xarray.pad2` (see there).

    >>> import xarray as xr
    >>> import daskpad
    >>> xr.Dataset({"a": ("x", [1.0, 2.0])}).pad2(x=1, mode="edge").a.values
    array([1., 1., 2., 2.])
    """

    def __init__(self, obj: xr.Dataset | xr.DataArray) -> None:
        self._obj: Any = obj

    def __call__(
        self,
        pad_width: Mapping[Any, int | tuple[int, int]] | None = None,
        mode: ModeArg = "constant",
        **kwargs: Any,
    ) -> Any:
        """:func:`daskpad.xarray.pad2` of this object: ``ds.pad2(lon=2, mode="wrap")``, or
        ``ds.pad2({"lon": 2}, mode="wrap")``, with the same keywords."""
        return pad2(self._obj, pad_width, mode, **kwargs)

    def crop(self, pad_width: Any = None, **pad_width_kwargs: Any) -> Any:
        """:func:`daskpad.xarray.crop`: ``ds.pad2.crop(lon=2)`` undoes ``ds.pad2(lon=2)``."""
        return crop(self._obj, pad_width, **pad_width_kwargs)

    def pad_to(self, shape: Any = None, **kwargs: Any) -> Any:
        """:func:`daskpad.xarray.pad_to`: ``ds.pad2.pad_to({"lat": 724}, mode="edge")``, or
        ``ds.pad2.pad_to(lat=724, mode="edge")``, or with a mode per dimension,
        ``mode={"lat": "edge", "lon": "wrap"}``."""
        return pad_to(self._obj, shape, **kwargs)

    def widths_for(self, shape: Any = None, **kwargs: Any) -> Any:
        """:func:`daskpad.xarray.widths_for`: the widths :meth:`pad_to` pads with."""
        return widths_for(self._obj, shape, **kwargs)

    def map_overlap(
        self, func: Callable[..., Any], depth: Any = None, mode: Any = None, **kw: Any
    ) -> Any:
        """:func:`daskpad.xarray.map_overlap`: ``da.pad2.map_overlap(f, {"lat": 1}, "edge")``,
        or ``da.pad2.map_overlap(f, lat=1, mode="edge")``; a mode, boundary or keyword per
        dimension by name, ``mode={"lat": "symmetric", "lon": "wrap"}``."""
        return map_overlap(self._obj, func, depth, mode, **kw)


def _register(name: str = "pad2") -> None:
    """Register the accessor on Dataset and DataArray, once.

    Registering again (this module re-imported or reloaded) replaces our own accessor
    quietly; a different attribute of the same name still gets xarray's warning.
    """
    for cls, register in (
        (xr.Dataset, xr.register_dataset_accessor),
        (xr.DataArray, xr.register_dataarray_accessor),
    ):
        existing = getattr(cls, name, None)
        if (
            isinstance(existing, type)
            and existing.__module__ == __name__
            and existing.__qualname__ == Pad2Accessor.__qualname__
        ):
            delattr(cls, name)
        register(name)(Pad2Accessor)  # type: ignore[no-untyped-call]


_register()
