"""The ``pad2`` accessor on :class:`xarray.Dataset` and :class:`xarray.DataArray`,
registered when this module is imported: ``ds.pad2(x=(1, 2), mode="reflect")`` and its
methods forward to the functions of :mod:`daskpad.xarray`."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, Generic

import xarray as xr

from daskpad.xarray.named_shapes import crop, map_overlap, pad_to, widths_for
from daskpad.xarray.padding import ModeArg, T_Xarray, pad2


class Pad2Accessor(Generic[T_Xarray]):
    """``obj.pad2(...)``: forwards to :func:`daskpad.xarray.pad2` (see there).

    >>> import xarray as xr
    >>> import daskpad
    >>> xr.Dataset({"a": ("x", [1.0, 2.0])}).pad2(x=1, mode="edge").a.values
    array([1., 1., 2., 2.])
    """

    def __init__(self, obj: T_Xarray) -> None:
        self._obj: T_Xarray = obj

    def __call__(
        self,
        pad_width: Mapping[Any, int | tuple[int, int]] | None = None,
        mode: ModeArg = "constant",
        **kwargs: Any,
    ) -> T_Xarray:
        """:func:`daskpad.xarray.pad2` of this object: ``ds.pad2(lon=2, mode="wrap")``, or
        ``ds.pad2({"lon": 2}, mode="wrap")``, with the same keywords."""
        return pad2(self._obj, pad_width, mode, **kwargs)

    def crop(
        self,
        pad_width: Mapping[Any, int | tuple[int, int]] | None = None,
        **pad_width_kwargs: int | tuple[int, int],
    ) -> T_Xarray:
        """:func:`daskpad.xarray.crop`: ``ds.pad2.crop(lon=2)`` undoes ``ds.pad2(lon=2)``."""
        return crop(self._obj, pad_width, **pad_width_kwargs)

    def pad_to(self, shape: Mapping[Any, int] | None = None, **kwargs: Any) -> T_Xarray:
        """:func:`daskpad.xarray.pad_to`: ``ds.pad2.pad_to({"lat": 724}, mode="edge")``, or
        ``ds.pad2.pad_to(lat=724, mode="edge")``, or with a mode per dimension,
        ``mode={"lat": "edge", "lon": "wrap"}``."""
        return pad_to(self._obj, shape, **kwargs)

    def widths_for(
        self, shape: Mapping[Any, int] | None = None, **kwargs: Any
    ) -> dict[Hashable, tuple[int, int]]:
        """:func:`daskpad.xarray.widths_for`: the widths :meth:`pad_to` pads with."""
        return widths_for(self._obj, shape, **kwargs)

    def map_overlap(
        self,
        func: Callable[..., Any],
        depth: int | tuple[int, int] | Mapping[Any, int | tuple[int, int]] | None = None,
        mode: ModeArg | None = None,
        **kw: Any,
    ) -> T_Xarray:
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
