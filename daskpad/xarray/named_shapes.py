"""Shapes, the way back, and halos by dimension name: :func:`daskpad.xarray.widths_for`,
``pad_to``, ``crop`` and ``map_overlap``, which forward to the functions by axis. Sizes and
depths are given by dimension name, as a mapping or as keywords named after dimensions."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any, TypeVar

import xarray as xr
from dask.base import is_dask_collection

from daskpad.api.overlap import map_overlap as overlap_by_axis
from daskpad.api.shapes import widths_for as widths_by_axis
from daskpad.core.keywords import keyword_names
from daskpad.xarray.dim_args import NamedBoundary, check_dims, normalize_widths
from daskpad.xarray.named_edges import NamedEdges
from daskpad.xarray.padding import ModeArg, T_Xarray, pad2_keywords, pad_normalized

_Given = TypeVar("_Given")
_Value = TypeVar("_Value")


def _by_name(
    obj: xr.Dataset | xr.DataArray,
    arg: str,
    given: _Given,
    keywords: dict[str, _Value],
    reserved: Collection[str] = (),
) -> _Given | dict[str, _Value]:
    """``given``, or the dimension sizes (depths) given as keywords named after dimensions
    (``pad_to(lat=736)``, as ``pad2(lat=2)``), which are taken out of ``keywords``; a
    ``reserved`` keyword keeps its meaning even where a dimension has its name."""
    named = {k: keywords.pop(k) for k in list(keywords) if k in obj.dims and k not in reserved}
    if not named:
        return given
    if given is not None:
        raise TypeError(
            f"{arg}: give it once, as {arg}={given!r} or as keywords by dimension name "
            f"({', '.join(f'{k}={v!r}' for k, v in named.items())}), not both"
        )
    return named


def _no_other_keywords(fn: str, keywords: Collection[str], dims: Collection[Hashable]) -> None:
    if keywords:
        raise TypeError(
            f"{fn}() got keyword(s) {sorted(keywords)!r}, which are neither dimensions "
            f"({tuple(dims)!r}) nor its own keywords"
        )


def _none_given(
    obj: xr.Dataset | xr.DataArray, ask: Callable[[Hashable], str], nothing: str
) -> TypeError:
    """The refusal of a call given ``nothing``: how to give it (``ask`` of one of ``obj``'s
    dimensions, the last) and ``obj``'s dimensions."""
    dims = list(obj.dims)
    how = ask(dims[-1] if dims else "dim")
    return TypeError(f"{how}; got {nothing} (the dimensions are {tuple(dims)!r})")


def _neither(fn: str, obj: xr.Dataset | xr.DataArray) -> TypeError:
    return _none_given(
        obj,
        lambda one: (
            f"{fn}: give the sizes to pad to by dimension name, {fn}({one}=N) or "
            f"{fn}({{{one!r}: N}}), or multiple=M (every dimension) or multiple={{{one!r}: M}}"
        ),
        "no size",
    )


def widths_for(
    obj: xr.Dataset | xr.DataArray,
    shape: Mapping[Any, int] | None = None,
    *,
    multiple: int | Mapping[Any, int] | None = None,
    align: str = "center",
    **shape_kwargs: int,
) -> dict[Hashable, tuple[int, int]]:
    """``{dim: (before, after)}`` that pads the dimensions ``shape`` names to its sizes, or
    those ``multiple`` names (all, for an int) to the next multiple: what :func:`pad_to`
    pads with and :func:`crop` takes to undo it (as :func:`daskpad.widths_for`, by name).
    The sizes may also be given as keywords, ``widths_for(ds, lon=8)``.

    >>> import xarray as xr, daskpad
    >>> ds = xr.Dataset({"t": (("lat", "lon"), [[1.0] * 5] * 3)})
    >>> daskpad.xarray.widths_for(ds, {"lon": 8}, align="start")
    {'lon': (0, 3)}
    >>> daskpad.xarray.widths_for(ds, lon=8, align="start")
    {'lon': (0, 3)}
    """
    keywords = dict(shape_kwargs)
    shape = _by_name(obj, "shape", shape, keywords)
    _no_other_keywords("widths_for", keywords, obj.dims)
    if shape is None and multiple is None:
        raise _neither("widths_for", obj)
    dims = list(obj.sizes)
    for arg, value in (("shape", shape), ("multiple", multiple)):
        if isinstance(value, Mapping):
            check_dims(arg, value, obj.sizes)
        elif value is not None and (arg == "shape" or isinstance(value, (list, tuple))):
            raise TypeError(
                f"{arg}: give it by dimension name, {{dim: {'size' if arg == 'shape' else 'n'}}}"
                f"{'' if arg == 'shape' else ', or one int for every dimension'}; got {value!r}"
            )

    def axes(value: Mapping[Hashable, int]) -> dict[int, int]:
        return {dims.index(d): v for d, v in value.items()}

    widths = widths_by_axis(
        tuple(obj.sizes.values()),
        axes(shape) if isinstance(shape, Mapping) else shape,
        multiple=axes(multiple) if isinstance(multiple, Mapping) else multiple,
        align=align,
    )
    return {d: w for d, w in zip(dims, widths) if w != (0, 0)}


def pad_to(
    obj: T_Xarray,
    shape: Mapping[Any, int] | None = None,
    *,
    multiple: int | Mapping[Any, int] | None = None,
    align: str = "center",
    mode: ModeArg = "constant",
    **kwargs: Any,
) -> T_Xarray:
    """:func:`pad2` with the widths :func:`widths_for` chooses: pad the dimensions ``shape``
    names to its sizes (``{dim: size}``, or keywords named after dimensions,
    ``pad_to(ds, lat=736)``), or to the next ``multiple``; ``mode`` (one, or
    ``{dim: mode}`` for dimensions ``shape`` or ``multiple`` names) and the other keywords
    are :func:`pad2`'s (coordinates continued as it continues them). An int ``multiple``
    pads every dimension, ``time`` included: ``multiple={"lat": 64, "lon": 64}`` pads only
    those.

    >>> import numpy as np, xarray as xr, daskpad
    >>> da = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("y", "x"))
    >>> da.pad2.pad_to({"x": 5, "y": 3}, mode={"x": "wrap", "y": "edge"}, align="end").values
    array([[1., 2., 0., 1., 2.],
           [1., 2., 0., 1., 2.],
           [4., 5., 3., 4., 5.]])
    >>> da.pad2.pad_to(x=5, mode="wrap", align="end").sizes
    Frozen({'y': 2, 'x': 5})
    """
    shape = _by_name(obj, "shape", shape, kwargs, pad2_keywords())
    _no_other_keywords(
        "pad_to", {k: v for k, v in kwargs.items() if k not in pad2_keywords()}, obj.dims
    )
    if shape is None and multiple is None:
        raise _neither("pad_to", obj)
    widths = widths_for(obj, shape, multiple=multiple, align=align)
    named = shape if shape is not None else multiple
    asked = list(named) if isinstance(named, Mapping) else list(obj.dims)
    return pad_normalized(
        obj, widths, asked=asked, why="name them in shape or multiple", mode=mode, **kwargs
    )


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
    depth: int | tuple[int, int] | Mapping[Any, int | tuple[int, int]] | None = None,
    mode: ModeArg | None = None,
    *,
    boundary: NamedBoundary | None = None,
    **kwargs: Any,
) -> T_Xarray:
    """:func:`daskpad.map_overlap` on the data of a DataArray, or of each data variable of
    a Dataset that has a dimension ``depth`` names, with the halo's ``depth`` given by
    dimension name (``{"lat": 2}``, or keywords named after dimensions, ``lat=2``, as
    :func:`pad2` takes widths; or one depth for every dimension); coordinates and
    attributes are kept, and data in memory stays in memory.

    ``mode`` and ``boundary`` are one for every dimension or one per dimension name
    (``mode={"lat": "symmetric", "lon": "wrap"}``: dimensions not named ``"constant"``;
    ``boundary={"lon": "periodic"}``: dimensions not named no halo at the edges, as in
    dask), and so are numpy.pad's keywords (``constant_values``, ``end_values``,
    ``stat_length``, ``reflect_type``: ``reflect_type={"lat": "odd"}``), for the
    dimensions whose mode takes them: each variable gets them by axis, for the dimensions
    it has. The other keywords are :func:`daskpad.map_overlap`'s (``trim``, ``dtype``,
    ``meta``, and the function's own; with depths given as keywords, a keyword named after
    a dimension is a depth).

    Examples
    --------
    >>> import numpy as np, xarray as xr, daskpad
    >>> grid = xr.DataArray(np.arange(6).reshape(2, 3), dims=("lat", "lon"))
    >>> def north(b):  # each point's neighbour along lat, before it
    ...     return np.roll(b, 1, 0)
    >>> grid.pad2.map_overlap(north, lat=1, mode={"lat": "reflect"}).values
    array([[3, 4, 5],
           [0, 1, 2]])
    """
    if depth is None:  # then keywords named after dimensions are the depths
        depth = _by_name(obj, "depth", depth, kwargs)
    if depth is None:
        raise _none_given(
            obj,
            lambda one: (
                f"map_overlap: give the halo's depth by dimension name, map_overlap(func, "
                f"{one}=2) or depth={{{one!r}: 2}}, or one int for every dimension"
            ),
            "no depth",
        )
    if not isinstance(depth, Mapping):  # one depth for every dimension
        depth = dict.fromkeys(obj.dims, depth)
    check_dims("depth", depth, obj.sizes)
    pad_kwargs = {k: kwargs.pop(k) for k in keyword_names() if k in kwargs}
    edges = NamedEdges.resolve(obj.sizes, depth, mode, boundary, pad_kwargs)

    def run(var: xr.DataArray) -> xr.DataArray:
        here = {var.get_axis_num(d): v for d, v in depth.items() if d in var.dims}
        its_mode, its_boundary, its_keywords = edges.for_dims(var.dims)
        data = overlap_by_axis(
            func,
            var.data,
            depth=here,
            mode=its_mode,
            boundary=its_boundary,
            **its_keywords,
            **kwargs,
        )
        # (in memory stays in memory, as pad2 keeps it)
        return var.copy(data=data if is_dask_collection(var.data) else data.compute())

    if isinstance(obj, xr.DataArray):
        return run(obj)
    out = obj.copy()
    for name, var in obj.data_vars.items():
        if any(d in var.dims for d in depth):
            out[name] = run(var)
    return out
