"""Labelled padding, :func:`pad2`: the modes and their keywords checked against one
another, the options resolved once per call, and each variable and index coordinate of
the dataset padded (:mod:`daskpad.xarray` has the rules in brief)."""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from typing import Any, Literal, TypeVar

import numpy as np
import xarray as xr
from xarray.indexes import Index, PandasIndex, PandasMultiIndex

from daskpad.core.keywords import KEYWORDS, keyword_misfits, keyword_names
from daskpad.core.registry import check_kwargs
from daskpad.xarray.coords import COORDS_POLICIES, CoordsPolicy, cannot_extend, extend_labels
from daskpad.xarray.dim_args import OneMode, check_mode, modes_by_dim, normalize_widths
from daskpad.xarray.variables import THIS_ARRAY, Options, fitting_encoding, guard, held_values

T_Xarray = TypeVar("T_Xarray", xr.Dataset, xr.DataArray)
#: one mode, or a mode per dimension name
ModeArg = OneMode | Mapping[Any, OneMode]


def pad2_keywords() -> tuple[str, ...]:
    """pad2's keywords, which pad_to passes on whatever the dimensions are called: the
    modes' (the keyword table's) and its own."""
    return (*keyword_names(), "keep_attrs", "coords", "chunks")


# --------------------------------------------------------------------------------------
# The modes and their keyword arguments
# --------------------------------------------------------------------------------------
def _check_mode(
    modes: Mapping[Hashable, OneMode] | None,
    default: OneMode,
    widths: Mapping[Hashable, tuple[int, int]],
    asked: Collection[Hashable],
    given: Mapping[str, object],
) -> None:
    """The keyword arguments that were given must fit the modes, as numpy.pad requires.

    With one mode (``modes`` None), each must be one it takes. With a mode per dimension
    (``modes``, which may be empty), each must be taken by the mode of a dimension of the
    call (``asked``) that ``mode`` names, whatever its width, or that is padded (one left
    to the default mode counts only there), and a mapping may name only dimensions whose
    mode takes it (:func:`daskpad.core.keywords.keyword_misfits`).
    """
    if modes is None:
        check_mode(default, "mode")
        if callable(default):
            if given:
                raise ValueError(
                    f"pad2 does not forward {sorted(given)} to a mode function; bind extra "
                    "arguments with functools.partial"
                )
            return
        # (a choice's values, by dimension too, are checked where they are read)
        choices = {k for k in given if KEYWORDS[k].kind == "choice"}
        check_kwargs(
            default, {k: KEYWORDS[k].default if k in choices else v for k, v in given.items()}
        )
        return
    call = {d: modes.get(d, default) for d in asked}
    counted = {d for d in call if d in modes or any(widths.get(d, (0, 0)))}
    misfits = keyword_misfits(call, counted, {k: _dims_named(v, call) for k, v in given.items()})
    if not misfits:
        return
    misfit = misfits[0]
    functions = [d for d, m in call.items() if callable(m)]
    hint = (
        f"; the function of {functions!r} gets no keywords from pad2: bind them with "
        "functools.partial"
        if functions and misfit.unused
        else ""
    )
    note = "dimensions not named in mode are 'constant', counted only where padded"
    words = misfit.words("dimension", "mode", note=note if set(call) - set(modes) else "")
    raise ValueError(words + hint)


def _dims_named(value: object, dims: Collection[Hashable]) -> list[Hashable]:
    """The dimensions among ``dims`` that a keyword's mapping names (constant_values: also
    in the mapping it gives a data variable)."""
    if not isinstance(value, Mapping):
        return []
    named = []
    for key, each in value.items():
        if key in dims:
            named.append(key)
        elif isinstance(each, Mapping):
            named += [d for d in each if d in dims]
    return named


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
    **kwargs: Any,
) -> T_Xarray:
    """Pad a Dataset or DataArray along named dimensions, exactly like ``numpy.pad``.

    Also available as the accessor ``obj.pad2(...)`` once ``daskpad`` is imported.

    Parameters
    ----------
    obj : xarray.Dataset or xarray.DataArray
        The object to pad.
    pad_width : mapping of dimension name to int or (int, int), optional
        ``{dim: (before, after)}``; ``{dim: n}`` is short for ``(n, n)``. Give either this
        or widths as keywords (``**kwargs``).
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
    **kwargs
        The keyword form of ``pad_width``, e.g. ``x=(1, 2)``, and the keywords of modes
        registered beside numpy's (:func:`daskpad.core.keywords.define`); any other name is
        a dimension's. (A dimension whose name is one of this function's arguments or
        keywords must be given in ``pad_width``.)

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
        coordinate that ``coords="extend"`` cannot extend. A value the encoding a variable
        keeps (CF packing, ``_FillValue``, ``_Unsigned``, time units) cannot store, which
        any writer of the result would store as another number: a constant or ramp end
        here, a value the pads compute (odd reflection, a statistic, a user function)
        when it is computed, in the graph (:mod:`daskpad.xarray.storable`); the pads of
        ``mode="empty"`` are undefined, and not checked.
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
    keywords = {
        "stat_length": stat_length,
        "constant_values": constant_values,
        "end_values": end_values,
        "reflect_type": reflect_type,
    }
    keywords.update({k: kwargs.pop(k) for k in keyword_names() if k in kwargs})
    widths = normalize_widths(pad_width, kwargs, obj.sizes)
    return pad_normalized(
        obj,
        widths,
        asked=list(widths),
        why="give them a width in pad_width",
        mode=mode,
        keep_attrs=keep_attrs,
        coords=coords,
        chunks=chunks,
        **keywords,
    )


def _keep_attrs(keep_attrs: bool | None) -> bool:
    if keep_attrs is not None:
        return bool(keep_attrs)
    option = xr.get_options()["keep_attrs"]  # type: ignore[no-untyped-call]
    return True if option == "default" else bool(option)


def pad_normalized(
    obj: T_Xarray,
    widths: Mapping[Hashable, tuple[int, int]],
    *,
    asked: Collection[Hashable],
    why: str,
    mode: ModeArg = "constant",
    keep_attrs: bool | None = None,
    coords: CoordsPolicy = "extend",
    chunks: object = None,
    check_computed: bool = True,
    **keywords: object,
) -> T_Xarray:
    """:func:`pad2` with widths already normalised; a mode mapping may name the dimensions
    in ``asked`` (``why`` says how to add one). ``keywords``: the modes' (of the keyword
    table), None for one not given. ``check_computed=False`` leaves out the checks in the
    graph of the values the pads compute against each variable's encoding, for a caller
    that encodes those pads itself, with the same check (:mod:`daskpad.xarray.store_numbers`)."""
    if coords not in COORDS_POLICIES:
        raise ValueError(f"coords must be one of {COORDS_POLICIES}, got {coords!r}")
    modes, default_mode = modes_by_dim(mode, asked, obj.sizes, why)
    unknown = sorted(set(keywords) - set(keyword_names()))
    if unknown:
        raise TypeError(f"pad2 got unexpected keyword arguments {unknown}")
    given = {k: keywords[k] for k in keyword_names() if keywords.get(k) is not None}
    _check_mode(modes if isinstance(mode, Mapping) else None, default_mode, widths, asked, given)
    constant_values = given.pop("constant_values", None)
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

    compat = coords == "xarray"
    if not compat:
        # A zero width changes nothing, so it must not promote or touch anything.
        widths = {d: w for d, w in widths.items() if w != (0, 0)}
    options = Options.resolve(
        sizes=ds.sizes,
        data_names=set(ds.data_vars),
        modes=modes,
        default_mode=default_mode,
        constant_values=constant_values,
        given=given,
        compat=compat,
        check_computed=check_computed,
        array_name=obj.name if isinstance(obj, xr.DataArray) else None,
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
    chunks: object,
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
    # Data and lazily padded coordinates first, index coordinates last: the refusals of a
    # lazy pad (too many blocks, say) come before an index's labels are built in memory,
    # whatever order this xarray lists variables in.
    others = [name for name in ds.variables if name not in ds.data_vars]
    order = [
        *ds.data_vars,
        *(name for name in others if name not in xindexes),
        *(name for name in others if name in xindexes),
    ]
    for name in order:
        var = ds.variables[name]
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
            encoding = fitting_encoding(var.encoding, labels.dtype != var.dtype)
            values = held_values(encoding, labels.dtype)
            if values is not None and labels.dtype.kind in "iufmM":  # (the new labels)
                labels = guard(labels, name, values, [], [(0, (before, after), var.size)])
            new = xr.Variable(
                (dim,), labels, attrs=var.attrs if keep_attrs else None, encoding=encoding
            )
            extended = PandasIndex.from_variables({name: new}, options={})
            indexes[name] = extended
            coord_vars[name] = extended.create_variables({name: new})[name]
        # coords == "drop": index coordinates of padded dimensions are left out.

    # in the input's order again
    coord_vars = {name: coord_vars[name] for name in ds.variables if name in coord_vars}
    result = xr.Dataset(
        data_vars,
        coords=xr.Coordinates(coord_vars, indexes=indexes),
        attrs=ds.attrs if keep_attrs else None,
    )
    result.encoding = dict(ds.encoding)
    return result
