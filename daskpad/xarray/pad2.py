"""The work behind :func:`daskpad.xarray.pad2`: the modes and their keywords checked
against one another, the options resolved once per call, and each variable and index
coordinate of the dataset padded (:mod:`daskpad.xarray` has the rules)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any, TypeVar

import numpy as np
import xarray as xr
from xarray.indexes import Index, PandasIndex, PandasMultiIndex

from daskpad.core.registry import check_kwargs, keyword_misfits
from daskpad.xarray.coords import COORDS_POLICIES, CoordsPolicy, cannot_extend, extend_labels
from daskpad.xarray.labelled import check_mode, modes_by_dim
from daskpad.xarray.variables import THIS_ARRAY, Options, fitting_encoding

T_Xarray = TypeVar("T_Xarray", xr.Dataset, xr.DataArray)
#: one mode, or a mode per dimension name
ModeArg = str | Callable[..., Any] | Mapping[Any, str | Callable[..., Any]]

# The keyword arguments of xarray's .pad that depend on the mode.
_MODE_KWARGS = ("stat_length", "constant_values", "end_values", "reflect_type")
#: pad2's keywords, which pad_to passes on whatever the dimensions are called
PAD2_KEYWORDS = (*_MODE_KWARGS, "keep_attrs", "coords", "chunks")


# --------------------------------------------------------------------------------------
# The modes and their keyword arguments
# --------------------------------------------------------------------------------------
def _check_mode(
    modes: Mapping[Hashable, Any] | None,
    default: Any,
    widths: Mapping[Hashable, tuple[int, int]],
    asked: Collection[Hashable],
    given: Mapping[str, Any],
) -> None:
    """The keyword arguments that were given must fit the modes, as numpy.pad requires.

    With one mode (``modes`` None), each must be one it takes. With a mode per dimension
    (``modes``, which may be empty), each must be taken by the mode of a dimension of the
    call (``asked``) that ``mode`` names, whatever its width, or that is padded (one left
    to the default mode counts only there), and a mapping may name only dimensions whose
    mode takes it (:func:`daskpad.core.registry.keyword_misfits`).
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
        # (reflect_type's values, by dimension too, are checked where they are read)
        check_kwargs(default, {k: "even" if k == "reflect_type" else v for k, v in given.items()})
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


def _dims_named(value: Any, dims: Collection[Hashable]) -> list[Hashable]:
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
    stat_length: Any = None,
    constant_values: Any = None,
    end_values: Any = None,
    reflect_type: Any = None,
    keep_attrs: bool | None = None,
    coords: CoordsPolicy = "extend",
    chunks: Any = None,
) -> T_Xarray:
    """:func:`pad2` with widths already normalised; a mode mapping may name the dimensions
    in ``asked`` (``why`` says how to add one)."""
    if coords not in COORDS_POLICIES:
        raise ValueError(f"coords must be one of {COORDS_POLICIES}, got {coords!r}")
    modes, default_mode = modes_by_dim(mode, asked, obj.sizes, why)
    given = {
        k: v
        for k, v in zip(
            _MODE_KWARGS, (stat_length, constant_values, end_values, reflect_type), strict=True
        )
        if v is not None
    }
    _check_mode(modes if isinstance(mode, Mapping) else None, default_mode, widths, asked, given)
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

    # in the input's order again
    coord_vars = {name: coord_vars[name] for name in ds.variables if name in coord_vars}
    result = xr.Dataset(
        data_vars,
        coords=xr.Coordinates(coord_vars, indexes=indexes),
        attrs=ds.attrs if keep_attrs else None,
    )
    result.encoding = dict(ds.encoding)
    return result
