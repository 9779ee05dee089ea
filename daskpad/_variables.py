"""One variable of a dataset padded by :func:`daskpad.xarray.pad2`: the options resolved
for the variable (its fill, statistic lengths, ramp ends), its data padded (lazily through
:func:`daskpad.pad` for dask arrays, through :func:`numpy.pad` otherwise), and the encoding
that still fits it."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import dask.array as da
import numpy as np
import xarray as xr

from ._coords import LAYOUT_ENCODING, SHAPE_ENCODING
from ._labelled import Pair, per_dim
from ._modes import MODES

#: a name no user variable has: a DataArray is padded as a one-variable Dataset under it
THIS_ARRAY = "<daskpad-this-array>"


def default_fill(dtype: np.dtype) -> tuple[np.dtype, Any]:
    """xarray's missing-value convention: the dtype that can hold it, and the value."""
    if dtype.kind in "fc":
        return dtype, dtype.type(np.nan)
    if dtype.kind in "mM":
        unit, _ = np.datetime_data(dtype)
        return dtype, dtype.type("NaT", unit)
    if dtype.kind in "iu":
        promoted = np.dtype(np.float32 if dtype.itemsize <= 2 else np.float64)
        return promoted, promoted.type(np.nan)
    return np.dtype(object), np.nan


def pad_data(
    data: Any,
    widths: list[tuple[int, int]],
    mode: Any,
    kwargs: Mapping[str, Any],
    chunks: Any,
) -> Any:
    """One variable's data: lazily through daskpad.pad if dask-backed, else numpy.pad."""
    if isinstance(data, da.Array):
        from . import pad as dask_pad  # the package imports this module after defining pad

        extra = {} if chunks is None else {"chunks": chunks}
        return dask_pad(data, tuple(widths), mode=mode, **kwargs, **extra)
    return np.pad(data, tuple(widths), mode=mode, **kwargs)


def fitting_encoding(encoding: Mapping[Any, Any], dtype_changed: bool) -> dict[Any, Any]:
    drop = set(LAYOUT_ENCODING + SHAPE_ENCODING)
    if dtype_changed:
        drop.add("dtype")
    return {k: v for k, v in encoding.items() if k not in drop}


@dataclass(frozen=True, kw_only=True)
class Options:
    """The mode and its options, resolved once per call (:meth:`resolve`), asked per
    variable."""

    mode: Any
    compat: bool
    reflect_type: Any
    stat_length: Any
    end_values: Any
    constant_given: bool
    #: constant_values per data variable, and for the others (per dimension, default)
    constant_by_var: Mapping[Hashable, tuple[dict[Hashable, Pair], Pair | None]]
    constant: tuple[dict[Hashable, Pair], Pair | None] | None

    @classmethod
    def resolve(
        cls,
        *,
        sizes: Mapping[Hashable, int],
        data_names: set[Hashable],
        mode: Any,
        stat_length: Any,
        constant_values: Any,
        end_values: Any,
        reflect_type: Any,
        compat: bool,
    ) -> Options:
        by_var: dict[Hashable, tuple[dict[Hashable, Pair], Pair | None]] = {}
        constant: tuple[dict[Hashable, Pair], Pair | None] | None = None
        if isinstance(constant_values, Mapping):
            by_dim = {k: v for k, v in constant_values.items() if k not in data_names}
            for name in constant_values:
                if name in data_names:
                    by_var[name] = per_dim(
                        constant_values[name], f"constant_values[{name!r}]", sizes
                    )
            unknown = [k for k in by_dim if k not in sizes]
            if unknown:
                raise ValueError(
                    f"constant_values names {unknown!r}, which are neither data variables "
                    f"({sorted(map(str, data_names))}) nor dimensions ({tuple(sizes)!r})"
                )
            if by_dim or not by_var:
                constant = per_dim(by_dim, "constant_values", sizes)
        elif constant_values is not None:
            constant = per_dim(constant_values, "constant_values", sizes)
        if stat_length is not None:
            stat_length = per_dim(stat_length, "stat_length", sizes)
        if end_values is not None:
            end_values = per_dim(end_values, "end_values", sizes)
        return cls(
            mode=mode,
            compat=compat,
            reflect_type=reflect_type,
            stat_length=stat_length,
            end_values=end_values,
            constant_given=constant_values is not None,
            constant_by_var=by_var,
            constant=constant,
        )

    def _constants(self, name: Hashable, dims: tuple[Hashable, ...]) -> list[Pair | None] | None:
        """Per-axis constants of a data variable; ``None`` entries take the default fill."""
        spec = self.constant_by_var.get(name, self.constant)
        if spec is None:
            if not self.constant_given:
                return None
            # A mapping that names neither this variable nor its dimensions: xarray pads
            # with 0 here, pad2 with the default fill.
            return [(0, 0)] * len(dims) if self.compat else [None] * len(dims)
        by_dim, default = spec
        missing: Pair | None = default
        if missing is None:
            missing = (0, 0) if self.compat else None
        return [by_dim.get(d, missing) for d in dims]

    def pad_variable(
        self,
        var: xr.Variable,
        name: Hashable,
        widths: Mapping[Hashable, tuple[int, int]],
        *,
        as_data: bool,
        keep_attrs: bool,
        chunks: Any,
    ) -> xr.Variable:
        """Pad one variable. ``as_data=False`` applies the coordinate rule to the mode."""
        axis_widths = [widths.get(d, (0, 0)) for d in var.dims]
        padded_axes = [bool(b or a) for b, a in axis_widths]
        mode = self.mode
        kwargs: dict[str, Any] = {}
        dtype = var.dtype
        gather = isinstance(mode, str) and MODES[mode].builder == "gather"
        if not as_data and not gather:
            # Coordinates are not data: a statistic, a ramp or a user's constant means
            # nothing for labels. They get the missing value, as in xarray.
            mode = "constant"
            dtype, fill = default_fill(var.dtype)
            kwargs["constant_values"] = fill
        elif mode == "constant":
            constants = self._constants(name, var.dims) if as_data else None
            if constants is None:
                dtype, fill = default_fill(var.dtype)
                kwargs["constant_values"] = fill
            else:
                default_needed = any(
                    c is None and p for c, p in zip(constants, padded_axes, strict=True)
                )
                if default_needed:  # only xarray's missing value promotes
                    dtype, fill = default_fill(var.dtype)
                else:
                    fill = 0
                kwargs["constant_values"] = tuple(
                    (fill, fill) if c is None else c for c in constants
                )
        if gather and self.reflect_type is not None and mode in ("reflect", "symmetric"):
            kwargs["reflect_type"] = self.reflect_type
        if mode == "linear_ramp" and self.end_values is not None:
            by_dim, default = self.end_values
            kwargs["end_values"] = tuple(by_dim.get(d, default or (0, 0)) for d in var.dims)
        if isinstance(mode, str) and MODES[mode].builder == "stat" and self.stat_length:
            by_dim, default = self.stat_length
            kwargs["stat_length"] = tuple(
                by_dim.get(d, default or (max(n, 1), max(n, 1)))
                for d, n in zip(var.dims, var.shape, strict=True)
            )

        data = var.data
        if dtype != var.dtype:
            data = data.astype(dtype)
        try:
            new = pad_data(data, axis_widths, mode, kwargs, chunks)
        except (ValueError, OverflowError) as e:
            if mode != "constant" or "constant_values" not in kwargs:
                raise
            # a given fill the variable's dtype cannot hold (NaN in integers, a number
            # out of its range): numpy.pad's refusal, saying which variable and why
            who = "the array" if name == THIS_ARRAY else f"the variable {name!r}"
            raise type(e)(
                f"{e}; {who} ({dtype}) keeps its dtype with a given "
                "constant_values, as in numpy.pad and xarray's pad (leave it out for "
                "xarray's missing value, which promotes)"
            ) from e
        return xr.Variable(
            var.dims,
            new,
            attrs=var.attrs if keep_attrs else None,
            encoding=fitting_encoding(var.encoding, dtype != var.dtype),
        )
