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
- **Data variables** that have no padded dimension are returned untouched. With
  ``mode="constant"`` and no ``constant_values``, the fill follows xarray's convention: NaN
  (NaT for times), promoting integers to float (``float32`` up to two-byte integers,
  ``float64`` above) and booleans to object. An explicit ``constant_values`` keeps the dtype,
  as in :func:`numpy.pad` and xarray's ``pad``: a fraction is cast as numpy casts it, and a
  value the dtype cannot hold at all (NaN in integers, a number out of range) is an error.
- **Index coordinates** (``coords="extend"``, the default) are continued with their edge
  spacing, so they stay monotonic and unique whatever the mode: ``x = [0, 1, 2]`` padded by 2
  on both sides becomes ``[-2, -1, 0, 1, 2, 3, 4]``, a longitude ``[0, 1, ..., 359]`` padded
  with wrap becomes ``[-2, -1, 0, ..., 359, 360, 361]``. Numbers, datetimes and timedeltas
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
  ``original_shape``) and ``dtype`` when the data was promoted, so that ``to_zarr`` and
  ``to_netcdf`` work on the result.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, Literal, TypeVar

import numpy as np
import xarray as xr
from xarray.indexes import Index, PandasIndex, PandasMultiIndex

from ._coords import (
    COORDS_POLICIES,
    CoordsPolicy,
    cannot_extend,
    extend_labels,
)
from ._labelled import check_dims, normalize_widths
from ._modes import check_kwargs
from ._variables import THIS_ARRAY, Options, fitting_encoding

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

T_Xarray = TypeVar("T_Xarray", xr.Dataset, xr.DataArray)

# The keyword arguments of xarray's .pad that depend on the mode.
_MODE_KWARGS = ("stat_length", "constant_values", "end_values", "reflect_type")


# --------------------------------------------------------------------------------------
# The mode's keyword arguments
# --------------------------------------------------------------------------------------
def _check_mode(mode: Any, given: Mapping[str, Any]) -> None:
    """The keyword arguments that were given must fit the mode, as numpy.pad requires."""
    if callable(mode):
        if given:
            raise ValueError(
                f"pad2 does not forward {sorted(given)} to a mode function; bind extra "
                "arguments with functools.partial"
            )
        return
    check_kwargs(mode, given)


def _keep_attrs(keep_attrs: bool | None) -> bool:
    if keep_attrs is not None:
        return bool(keep_attrs)
    option = xr.get_options()["keep_attrs"]  # type: ignore[no-untyped-call]
    return True if option == "default" else bool(option)


# --------------------------------------------------------------------------------------
# The function
# --------------------------------------------------------------------------------------
def pad2(
    obj: T_Xarray,
    pad_width: Mapping[Any, int | tuple[int, int]] | None = None,
    mode: str | Callable[..., Any] = "constant",
    *,
    stat_length: Any = None,
    constant_values: Any = None,
    end_values: Any = None,
    reflect_type: Literal["even", "odd"] | None = None,
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
    mode : str or function, default: "constant"
        Any ``numpy.pad`` mode: "constant", "edge", "linear_ramp", "maximum", "mean",
        "median", "minimum", "reflect", "symmetric", "wrap", "empty", or a function as
        ``numpy.pad`` takes it.
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
    reflect_type : {"even", "odd"}, optional
        Modes "reflect" and "symmetric" only.
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
          least two strictly monotonic numbers, datetimes or timedeltas: anything else
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
          is also right on dask-backed data.

        Non-index coordinates along a padded dimension are padded under every policy like
        data, with the mode for "edge", "reflect", "symmetric" and "wrap" and with the
        missing value for the other modes (their labels would mean nothing).
    chunks : optional
        Output chunk policy of :func:`daskpad.pad`, forwarded for dask-backed variables
        when given; in-memory variables ignore it.
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
        widths, keyword arguments that do not fit ``mode``, an unknown ``coords`` policy,
        or an index coordinate that ``coords="extend"`` cannot extend.
    TypeError
        Widths that are not integers, or ``pad_width`` that is not a mapping.

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

    ``coords="xarray"`` does what xarray's ``.pad`` does:

    >>> da.pad2(x=1, mode="edge", coords="xarray").x.values
    array([10, 10, 20, 30, 30])
    """
    if not isinstance(obj, (xr.Dataset, xr.DataArray)):
        raise TypeError(f"pad2 pads an xarray Dataset or DataArray, got {type(obj).__name__}")
    if coords not in COORDS_POLICIES:
        raise ValueError(f"coords must be one of {COORDS_POLICIES}, got {coords!r}")
    given = {
        k: v
        for k, v in zip(
            _MODE_KWARGS, (stat_length, constant_values, end_values, reflect_type), strict=True
        )
        if v is not None
    }
    _check_mode(mode, given)
    keep = _keep_attrs(keep_attrs)

    if isinstance(obj, xr.DataArray):
        if isinstance(constant_values, Mapping) and obj.name in constant_values:
            if obj.name not in obj.dims:
                constant_values = {
                    (THIS_ARRAY if k == obj.name else k): v for k, v in constant_values.items()
                }
        ds = obj.to_dataset(name=THIS_ARRAY, promote_attrs=False)
    else:
        ds = obj

    widths = normalize_widths(pad_width, pad_width_kwargs, ds.sizes)
    compat = coords == "xarray"
    if not compat:
        # A zero width changes nothing, so it must not promote or touch anything.
        widths = {d: w for d, w in widths.items() if w != (0, 0)}
    options = Options.resolve(
        sizes=ds.sizes,
        data_names=set(ds.data_vars),
        mode=mode,
        stat_length=stat_length,
        constant_values=constant_values,
        end_values=end_values,
        reflect_type=reflect_type,
        compat=compat,
    )
    result = _pad_dataset(ds, widths, options, coords, keep, chunks)

    if isinstance(obj, xr.DataArray):
        return result[THIS_ARRAY].rename(obj.name)
    return result


def _pad_dataset(
    ds: xr.Dataset,
    widths: Mapping[Hashable, tuple[int, int]],
    options: Options,
    coords: str,
    keep_attrs: bool,
    chunks: Any,
) -> xr.Dataset:
    padded_dims = set(widths)
    xindexes = ds.xindexes
    # Indexes untouched by the pad are kept as they are (whatever their type).
    indexes: dict[Hashable, Index] = {
        name: idx
        for name, idx in xindexes.items()
        if not padded_dims.intersection(xindexes.get_all_dims(name))
    }
    coord_vars: dict[Hashable, xr.Variable] = {}
    data_vars: dict[Hashable, xr.Variable] = {}
    for name, var in ds.variables.items():
        is_data = name in ds.data_vars
        target = data_vars if is_data else coord_vars
        if padded_dims.isdisjoint(var.dims):
            target[name] = var
            continue
        if is_data or coords == "xarray" or name not in xindexes:
            new = options.pad_variable(
                var, name, widths, as_data=is_data, keep_attrs=keep_attrs, chunks=chunks
            )
            if coords == "xarray" and not is_data and var.dims == (name,):
                # xarray gives each padded dimension coordinate a new default index.
                reset = PandasIndex.from_variables({name: new}, options={})
                indexes[name] = reset
                new = reset.create_variables({name: new})[name]
            target[name] = new
        elif coords == "extend":
            old = xindexes[name]
            dim = next(d for d in var.dims if d in padded_dims)
            if isinstance(old, PandasMultiIndex) or not isinstance(old, PandasIndex):
                raise cannot_extend(name, dim, f"its index is a {type(old).__name__}")
            before, after = widths[dim]
            labels = extend_labels(np.asarray(var.values), before, after, name, dim)
            new = xr.Variable(
                (dim,),
                labels,
                attrs=var.attrs if keep_attrs else None,
                encoding=fitting_encoding(var.encoding, labels.dtype != var.dtype),
            )
            extended = PandasIndex.from_variables({name: new}, options={})
            indexes[name] = extended
            coord_vars[name] = extended.create_variables({name: new})[name]
        # coords == "drop": index coordinates of padded dimensions are left out.

    result = xr.Dataset(
        data_vars,
        coords=xr.Coordinates(coord_vars, indexes=indexes),
        attrs=ds.attrs if keep_attrs else None,
    )
    result.encoding = dict(ds.encoding)
    return result


# --------------------------------------------------------------------------------------
# Storing with bounded memory
# --------------------------------------------------------------------------------------
def to_zarr(
    obj: xr.Dataset | xr.DataArray,
    store: Any,
    *,
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
    zarr chunk written whole, once (:mod:`daskpad._stream`); a dataset whose write would
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

    Parameters
    ----------
    obj : xarray.Dataset or xarray.DataArray
        Dask-backed variables in any chunks.
    store
        A new zarr store: a local path, an fsspec URL (``s3://bucket/out.zarr``, reached
        with ``storage_options=``, which travel with the store to a cluster's workers) or a
        zarr store object (``mode="w"`` replaces an existing one, only once the new one is
        complete where the store is a local path).
    memory : int or str, optional
        Bytes a tile's write may hold (``"1GB"`` works too); default 2 GiB, or a quarter
        of this machine's memory if less.
    progress : bool
        One progress bar over all the tiles.
    **kwargs
        Passed to ``obj.to_zarr`` for the metadata (``encoding=``, ``zarr_format=``,
        ``mode="w"``, ``consolidated=``, ...).

    Examples
    --------
    >>> import tempfile, xarray as xr, dask.array as da, daskpad
    >>> ds = xr.Dataset({"t": (("y", "x"), da.ones((40, 30), chunks=10))})
    >>> padded = ds.pad2(x=2, y=1, mode="edge", chunks="regular")
    >>> daskpad.xarray.to_zarr(padded, tempfile.mkdtemp(), memory="4kB", zarr_format=2)
    """
    from ._tiles import write_tiled, written_whole
    from ._tiling import memory_budget, plan, storable

    budget = memory_budget(memory)
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
            var.data = storable(var.data)  # zarr's chunks: regular along every dimension
            var.encoding.pop("chunks", None)
            var.encoding.pop("preferred_chunks", None)
    everything = {d for v in obj.variables.values() for d in v.dims}
    storage_options = kwargs.pop("storage_options", None)
    with written_whole(store, mode == "w", storage_options) as where:
        the_plan = plan(obj, everything, budget)
        write_tiled(obj, where, the_plan, progress, consolidated, mode="w-", **kwargs)


# --------------------------------------------------------------------------------------
# Shapes, the way back, and halos, by dimension name
# --------------------------------------------------------------------------------------


def widths_for(
    obj: xr.Dataset | xr.DataArray,
    shape: Mapping[Any, int] | None = None,
    *,
    multiple: int | Mapping[Any, int] | None = None,
    align: str = "center",
) -> dict[Hashable, tuple[int, int]]:
    """``{dim: (before, after)}`` that pads the dimensions ``shape`` names to its sizes, or
    those ``multiple`` names (all, for an int) to the next multiple: what :func:`pad_to`
    pads with and :func:`crop` takes to undo it (as :func:`daskpad.widths_for`, by name).

    >>> import xarray as xr, daskpad
    >>> ds = xr.Dataset({"t": (("lat", "lon"), [[1.0] * 5] * 3)})
    >>> daskpad.xarray.widths_for(ds, {"lon": 8}, align="start")
    {'lon': (0, 3)}
    """
    from ._shapes import widths_for as by_axis

    dims = list(obj.sizes)
    for arg, value in (("shape", shape), ("multiple", multiple)):
        if isinstance(value, Mapping):
            check_dims(arg, value, obj.sizes)
        elif value is not None and (arg == "shape" or isinstance(value, (list, tuple))):
            raise TypeError(
                f"{arg}: give it by dimension name, {{dim: {'size' if arg == 'shape' else 'n'}}}"
                f"{'' if arg == 'shape' else ', or one int for every dimension'}; got {value!r}"
            )

    def axes(value: Any) -> Any:
        return (
            {dims.index(d): v for d, v in value.items()} if isinstance(value, Mapping) else value
        )

    widths = by_axis(tuple(obj.sizes.values()), axes(shape), multiple=axes(multiple), align=align)
    return {d: w for d, w in zip(dims, widths) if w != (0, 0)}


def pad_to(
    obj: T_Xarray,
    shape: Mapping[Any, int] | None = None,
    *,
    multiple: int | Mapping[Any, int] | None = None,
    align: str = "center",
    mode: str | Callable[..., Any] = "constant",
    **kwargs: Any,
) -> T_Xarray:
    """:func:`pad2` with the widths :func:`widths_for` chooses: pad the dimensions ``shape``
    names to its sizes, or to the next ``multiple``; ``mode`` and the keywords are
    :func:`pad2`'s (coordinates continued as it continues them)."""
    widths = widths_for(obj, shape, multiple=multiple, align=align)
    return pad2(obj, widths, mode, **kwargs)


def crop(
    obj: T_Xarray,
    pad_width: Mapping[Any, int | tuple[int, int]] | None = None,
    **pad_width_kwargs: int | tuple[int, int],
) -> T_Xarray:
    """Cut ``{dim: width or (before, after)}`` off ``obj``: the inverse of :func:`pad2`
    (``crop(pad2(ds, w, mode), w)`` is ``ds``, coordinates included) and of :func:`pad_to`.
    Lazy for dask-backed variables, whose interior blocks are kept as they are."""
    widths = normalize_widths(pad_width, pad_width_kwargs, obj.sizes)
    where = {}
    for dim, (before, after) in widths.items():
        if before + after > obj.sizes[dim]:
            raise ValueError(
                f"pad_width[{dim!r}]: cropping ({before}, {after}) removes more than the "
                f"{obj.sizes[dim]} elements of dimension {dim!r}"
            )
        where[dim] = slice(before, obj.sizes[dim] - after)
    return obj.isel(where)


def map_overlap(
    obj: T_Xarray,
    func: Callable[..., Any],
    depth: int | tuple[int, int] | Mapping[Any, int | tuple[int, int]],
    mode: str | Callable[..., Any] | None = None,
    **kwargs: Any,
) -> T_Xarray:
    """:func:`daskpad.map_overlap` on the data of a DataArray, or of each data variable of
    a Dataset that has a dimension ``depth`` names, with the halo's ``depth`` given by
    dimension name (or one for every dimension); coordinates and attributes are kept, and
    data in memory stays in memory. The keywords are
    :func:`daskpad.map_overlap`'s (``boundary``, ``trim``, numpy.pad's keywords, ``dtype``,
    ``meta``, and the function's own)."""
    from dask.base import is_dask_collection

    from ._overlap import map_overlap as by_axis

    if not isinstance(depth, Mapping):  # one depth for every dimension
        depth = dict.fromkeys(obj.dims, depth)
    check_dims("depth", depth, obj.sizes)

    def run(var: xr.DataArray) -> xr.DataArray:
        here = {var.get_axis_num(d): v for d, v in depth.items() if d in var.dims}
        data = by_axis(func, var.data, here, mode, **kwargs)
        # (in memory stays in memory, as pad2 keeps it)
        return var.copy(data=data if is_dask_collection(var.data) else data.compute())

    if isinstance(obj, xr.DataArray):
        return run(obj)
    out = obj.copy()
    for name, var in obj.data_vars.items():
        if any(d in var.dims for d in depth):
            out[name] = run(var)
    return out


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
        mode: str | Callable[..., Any] = "constant",
        **kwargs: Any,
    ) -> Any:
        return pad2(self._obj, pad_width, mode, **kwargs)

    def crop(self, pad_width: Any = None, **pad_width_kwargs: Any) -> Any:
        """:func:`daskpad.xarray.crop`: ``ds.pad2.crop(lon=2)`` undoes ``ds.pad2(lon=2)``."""
        return crop(self._obj, pad_width, **pad_width_kwargs)

    def pad_to(self, shape: Any = None, **kwargs: Any) -> Any:
        """:func:`daskpad.xarray.pad_to`: ``ds.pad2.pad_to({"lat": 724}, mode="edge")``."""
        return pad_to(self._obj, shape, **kwargs)

    def widths_for(self, shape: Any = None, **kwargs: Any) -> Any:
        """:func:`daskpad.xarray.widths_for`: the widths :meth:`pad_to` pads with."""
        return widths_for(self._obj, shape, **kwargs)

    def map_overlap(
        self, func: Callable[..., Any], depth: Any, mode: Any = None, **kw: Any
    ) -> Any:
        """:func:`daskpad.xarray.map_overlap`: ``da.pad2.map_overlap(f, {"lat": 1}, "edge")``."""
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
