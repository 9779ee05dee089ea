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

from daskpad.api.pad import in_output_chunks, pad
from daskpad.core.keywords import KEYWORDS, keyword_names
from daskpad.core.ndarrays import DType, KnownKind, Values
from daskpad.core.registry import MODES, copies_values, numpy_pad, values_in_pads
from daskpad.xarray.coords import LAYOUT_ENCODING, SHAPE_ENCODING
from daskpad.xarray.dim_args import OneMode, Pair, choice_by_dim, per_dim
from daskpad.xarray.storable import (
    Data,
    Region,
    check_values,
    checked_pads,
    constrains,
    time_value,
    value_encoding,
)

#: a name no user variable has: a DataArray is padded as a one-variable Dataset under it
THIS_ARRAY = "<daskpad-this-array>"
#: a keyword's values (a pair, or a choice) per dimension, and for the dimensions not
#: named (None where given per dimension)
PerDim = tuple[Mapping[Hashable, Pair | str], Pair | str | None]


def default_fill(dtype: KnownKind) -> tuple[DType, np.generic | float]:
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
    data: Data,
    widths: list[tuple[int, int]],
    mode: OneMode | Mapping[int, OneMode],
    kwargs: Mapping[str, object],
    chunks: object,
) -> Data:
    """One variable's data: lazily through daskpad.pad if dask-backed, else numpy.pad (or
    a registered mode's reference, :func:`daskpad.core.registry.numpy_pad`)."""
    if isinstance(data, da.Array):
        extra = {} if chunks is None else {"chunks": chunks}
        return pad(data, tuple(widths), mode=mode, **kwargs, **extra)
    padded: Values = numpy_pad(data, tuple(widths), mode, **kwargs)
    return padded


def fitting_encoding(encoding: Mapping[str, Any], dtype_changed: bool) -> dict[str, Any]:
    """The encoding a padded variable keeps: less the input's layout and shape, and less
    its stored dtype (and ``_Unsigned``, which reads that dtype as unsigned) where the pad
    changed the dtype."""
    drop = set(LAYOUT_ENCODING + SHAPE_ENCODING)
    if dtype_changed:
        drop.update(("dtype", "_Unsigned"))
    return {k: v for k, v in encoding.items() if k not in drop}


def held_values(encoding: Mapping[str, Any], dtype: DType) -> dict[str, Any] | None:
    """What of ``encoding`` (the one a padded variable of ``dtype`` keeps) can refuse one
    of its values (:func:`daskpad.xarray.storable.value_encoding`), or None where it
    stores any value of ``dtype`` as it is."""
    values = value_encoding(encoding, dtype)
    return values if constrains(values, dtype) else None


def guard(
    data: Data,
    name: Hashable,
    values: Mapping[str, Any],
    fills: list[object],
    regions: list[Region],
) -> Data:
    """``data``, a variable's padded values (decoded) that a writer will store with the
    encoding it keeps (``values``: :func:`held_values`), refusing what that encoding
    cannot store: the ``fills`` (constants, ramp ends) at once, and the computed pad
    ``regions`` as they are computed (:mod:`daskpad.xarray.storable`). ``name``: the
    variable (None: the array)."""
    if fills and data.dtype.kind in "iufcmM":
        if data.dtype.kind in "mM":
            probes = np.array([time_value(v, data.dtype, name) for v in fills], data.dtype)
        else:
            with np.errstate(all="ignore"):  # (as numpy.pad casts them: it refused worse)
                probes = np.asarray([np.asarray(v).astype(data.dtype) for v in fills])
        check_values(probes, variable=name, encoding=values)
    return checked_pads(data, regions, variable=name, encoding=values)


@dataclass(frozen=True)
class Step:
    """How one axis of a variable is padded: its mode, numpy.pad's keywords for that axis
    alone, and whether it takes xarray's missing value (the default fill)."""

    mode: OneMode
    kwargs: dict[str, object]
    default_fill: bool = False


@dataclass(frozen=True, kw_only=True)
class Options:
    """The modes and their options, resolved once per call (:meth:`resolve`), asked per
    variable."""

    #: the modes of the dimensions given their own, and the mode of every other dimension
    modes: Mapping[Hashable, OneMode]
    default_mode: OneMode
    compat: bool
    #: each keyword given but constant_values (the keyword table's), per dimension and
    #: for the others (None where given as a mapping)
    by_keyword: Mapping[str, PerDim]
    constant_given: bool
    #: constant_values per data variable, and for the others (per dimension, default)
    constant_by_var: Mapping[Hashable, tuple[dict[Hashable, Pair], Pair | None]]
    constant: tuple[dict[Hashable, Pair], Pair | None] | None
    #: the name of the DataArray padded (as the one variable :data:`THIS_ARRAY`), if any
    array_name: Hashable | None = None
    #: whether pad2 checks in the graph the values its pads compute against the encoding
    #: a variable keeps (the constants and ramp ends are checked at the call, always)
    check_computed: bool = True

    @classmethod
    def resolve(
        cls,
        *,
        sizes: Mapping[Hashable, int],
        data_names: set[Hashable],
        modes: Mapping[Hashable, OneMode],
        default_mode: OneMode,
        constant_values: object,
        given: Mapping[str, object],
        compat: bool,
        check_computed: bool = True,
        array_name: Hashable | None = None,
    ) -> Options:
        """The options of one call: ``constant_values`` (by data variable and dimension),
        and each other keyword ``given`` (not None) by dimension."""
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
        by_keyword: dict[str, PerDim] = {}
        for name, value in given.items():
            keyword = KEYWORDS[name]
            if keyword.kind == "choice":
                by_keyword[name] = choice_by_dim(keyword, value, sizes)
            else:
                by_keyword[name] = per_dim(value, name, sizes)
        return cls(
            modes=modes,
            default_mode=default_mode,
            compat=compat,
            by_keyword=by_keyword,
            constant_given=constant_values is not None,
            constant_by_var=by_var,
            constant=constant,
            check_computed=check_computed,
            array_name=array_name,
        )

    def broadcast(self, name: Hashable) -> set[str]:
        """The keywords given for every dimension of variable ``name`` alike, as one value
        or one ``(before, after)`` pair (not by dimension): numpy.pad reads such a form
        as numpy values (``np.array(value)``'s dtype), where one pair per axis reads as
        Python numbers, so a call over several axes hands numpy the form given."""
        forms = {k for k, (by_dim, default) in self.by_keyword.items() if not by_dim}
        spec = self.constant_by_var.get(name, self.constant)
        if spec is not None and not spec[0] and spec[1] is not None:
            forms.add("constant_values")
        return forms

    def mode_of(self, dim: Hashable) -> OneMode:
        return self.modes.get(dim, self.default_mode)

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

    def steps(
        self, var: xr.Variable, name: Hashable, in_call: list[bool], *, as_data: bool
    ) -> list[Step]:
        """One :class:`Step` per axis of ``var``; ``in_call`` marks the axes of the
        dimensions being padded (zero widths too, with ``coords="xarray"``)."""
        constants = self._constants(name, var.dims) if as_data else None
        steps = []
        for k, (dim, n) in enumerate(zip(var.dims, var.shape, strict=True)):
            mode = self.mode_of(dim)
            copies = isinstance(mode, str) and MODES[mode].copies
            kwargs: dict[str, object] = {}
            if not as_data and not copies:
                # Coordinates are not data: a statistic, a ramp or a user's constant means
                # nothing for labels. They get the missing value, as in xarray.
                steps.append(Step("constant", kwargs, default_fill=in_call[k]))
                continue
            takes = MODES[mode].kwargs if isinstance(mode, str) else ()
            if "constant_values" in takes:
                given = None if constants is None else constants[k]
                if given is None:
                    steps.append(Step(mode, kwargs, default_fill=in_call[k]))
                    continue
                kwargs["constant_values"] = given
            for name in takes:
                if name in self.by_keyword:
                    by_dim, default = self.by_keyword[name]
                    value = by_dim.get(dim, default)
                    if value is None and KEYWORDS[name].kind == "choice":
                        continue  # numpy's default
                    kwargs[name] = KEYWORDS[name].neutral_pair(n, None) if value is None else value
            steps.append(Step(mode, kwargs))
        return steps

    def pad_variable(
        self,
        var: xr.Variable,
        name: Hashable,
        widths: Mapping[Hashable, tuple[int, int]],
        *,
        as_data: bool,
        keep_attrs: bool,
        chunks: object,
    ) -> xr.Variable:
        """Pad one variable, axis by axis in its own order (numpy's), each axis with its
        dimension's mode. ``as_data=False`` applies the coordinate rule to the modes.

        The default fill promotes integers and booleans (:func:`default_fill`). With one
        mode for every padded axis the variable is promoted first, as ``numpy.pad`` of the
        promoted data; with modes that differ, where the chain reaches the first axis
        padded with the default fill, as chained ``numpy.pad`` or xarray ``.pad`` calls
        promote (a mean of integers before it is rounded in the integers).
        """
        axis_widths = [widths.get(d, (0, 0)) for d in var.dims]
        in_call = [d in widths for d in var.dims]
        steps = self.steps(var, name, in_call, as_data=as_data)
        promoted, fill = default_fill(var.dtype)
        if not any(s.default_fill for s in steps):
            promoted, fill = var.dtype, 0
        encoding = fitting_encoding(var.encoding, promoted != var.dtype)
        values = held_values(encoding, promoted)
        padded = [k for k, c in enumerate(in_call) if c and axis_widths[k] != (0, 0)]
        # the pads that compute values the kept encoding may not hold, checked in the
        # graph: laid out in chunks of their own first, then in the chunks asked for
        regions = [
            (k, axis_widths[k], var.shape[k])
            for k in padded
            if values is not None and self.check_computed and _computes(steps[k])
        ]
        own_chunks = None if regions and isinstance(var.data, da.Array) else chunks
        broadcast = self.broadcast(name)
        try:
            if _uniform(steps, in_call):  # one mode: one numpy.pad call
                mode, kwargs = _one_call(steps, in_call, fill, var.shape, broadcast, own=True)
                data = var.data if promoted == var.dtype else var.data.astype(promoted)
                new = pad_data(data, axis_widths, mode, kwargs, own_chunks)
            else:
                new = _chained(
                    var.data, axis_widths, steps, in_call, promoted, fill, own_chunks, broadcast
                )
        except (ValueError, TypeError, OverflowError) as e:
            if isinstance(e, TypeError) or not any(
                "constant_values" in s.kwargs for s, c in zip(steps, in_call) if c
            ):
                # numpy.pad's refusal as it is (a mode its dtype has no arithmetic for,
                # a mean of times), with a note of which variable
                if name != THIS_ARRAY:
                    e.add_note(f"in the variable {str(name)!r} ({var.dtype})")
                raise
            # a given fill the variable's dtype cannot hold (NaN in integers, a number
            # out of its range): numpy.pad's refusal, saying which variable and why
            who = "the array" if name == THIS_ARRAY else f"the variable {name!r}"
            raise type(e)(
                f"{e}; {who} ({var.dtype}) keeps its dtype with a given "
                "constant_values, as in numpy.pad and xarray's pad (leave it out for "
                "xarray's missing value, which promotes)"
            ) from e
        if values is not None:
            fills: list[object] = []
            for k in padded:
                step = steps[k]
                fills += [fill] if step.default_fill else values_in_pads(step.mode, step.kwargs)
            shown = self.array_name if name == THIS_ARRAY else name
            new = guard(new, shown, values, fills, regions)
        if own_chunks is not chunks:
            new = in_output_chunks(new, var.data.chunks, axis_widths, chunks)
        attrs = var.attrs if keep_attrs else None
        return xr.Variable(var.dims, new, attrs=attrs, encoding=encoding)


def _computes(step: Step) -> bool:
    """Whether a step's pads hold values computed when the graph runs (a statistic, odd
    reflection, a ramp, a user function), not copies of the array's values nor the fills
    known at the call (a constant; ``"empty"`` leaves its pads unset)."""
    if isinstance(step.mode, str) and not MODES[step.mode].needs_data:
        return False
    return not copies_values(step.mode, step.kwargs)


def _uniform(steps: list[Step], axes: list[bool]) -> bool:
    """Whether the marked axes share one mode (a function: the same one) and the keywords
    that are one value for a call (reflection)."""
    choices = [k for k in keyword_names() if not KEYWORDS[k].per_axis]
    kinds = {
        (
            s.mode if isinstance(s.mode, str) else id(s.mode),
            tuple(s.kwargs.get(k) for k in choices),
        )
        for s, marked in zip(steps, axes, strict=True)
        if marked
    }
    return len(kinds) <= 1


def _one_call(
    steps: list[Step],
    axes: list[bool],
    fill: np.generic | float,
    shape: tuple[int, ...],
    broadcast: set[str],
    *,
    own: bool,
) -> tuple[OneMode, dict[str, object]]:
    """The marked axes' steps, of one mode, as one numpy.pad call over every axis: the
    mode and its keywords, one entry per axis. Unmarked axes have width 0; they keep
    their own entries with ``own`` (numpy.pad still checks them, as for any axis), else
    get neutral ones. A keyword given in a ``broadcast`` form (one value or pair for every
    dimension) is handed on as that one pair, which numpy reads as it reads the value
    given (one pair per axis would read as Python numbers, in another precision)."""
    chosen = [s for s, marked in zip(steps, axes, strict=True) if marked]
    mode = chosen[0].mode
    kwargs: dict[str, object] = {}
    for key in keyword_names():
        keyword = KEYWORDS[key]
        if not any(key in s.kwargs for s in chosen):
            continue
        if not keyword.per_axis:  # (one value for the call: the marked axes share it)
            kwargs[key] = chosen[0].kwargs[key]
            continue
        marked_entries = {s.kwargs.get(key) for s, m in zip(steps, axes, strict=True) if m}
        if key in broadcast and len(marked_entries) == 1 and None not in marked_entries:
            kwargs[key] = marked_entries.pop()
            continue
        # (an axis of width 0, padded in another call or not at all, takes the neutral)
        kwargs[key] = tuple(
            s.kwargs[key] if (marked or own) and key in s.kwargs else keyword.neutral_pair(n, fill)
            for s, marked, n in zip(steps, axes, shape, strict=True)
        )
    if mode == "constant" and "constant_values" not in kwargs:
        kwargs["constant_values"] = fill
    return mode, kwargs


def _chained(
    data: Data,
    widths: list[tuple[int, int]],
    steps: list[Step],
    in_call: list[bool],
    promoted: DType,
    fill: np.generic | float,
    chunks: object,
    broadcast: set[str],
) -> Data:
    """Axes of different modes, padded one after another in axis order: in memory one
    ``numpy.pad`` per axis, on dask one :func:`daskpad.pad` with a mode per axis (two
    where the default fill promotes the data after an axis of another mode)."""
    axes = [k for k, c in enumerate(in_call) if c]
    cast_at = len(steps)
    if promoted != data.dtype:
        cast_at = next(k for k in axes if steps[k].default_fill)
    if not isinstance(data, da.Array):
        for k in axes:
            if k == cast_at:
                data = data.astype(promoted)
            step = steps[k]
            kwargs = dict(step.kwargs)
            if step.default_fill:
                kwargs["constant_values"] = fill
            alone = [w if i == k else (0, 0) for i, w in enumerate(widths)]
            data = numpy_pad(data, alone, step.mode, **kwargs)
        return data
    mode: OneMode | dict[int, OneMode]
    for group in ([k for k in axes if k < cast_at], [k for k in axes if k >= cast_at]):
        if not group:
            continue
        if group[0] == cast_at:
            data = data.astype(promoted)
        # (an axis of width 0, with coords="xarray", only promotes: daskpad.pad refuses a
        # keyword that only such an axis's mode takes)
        group = [k for k in group if widths[k] != (0, 0)]
        if not group:
            continue
        marked = [k in group for k in range(len(steps))]
        alone = [w if m else (0, 0) for w, m in zip(widths, marked, strict=True)]
        if _uniform(steps, marked):
            mode, kwargs = _one_call(steps, marked, fill, data.shape, broadcast, own=False)
        else:
            mode = {k: steps[k].mode for k in group}
            kwargs = {}
            for key in keyword_names():
                entries = {k: steps[k].kwargs[key] for k in group if key in steps[k].kwargs}
                if key == "constant_values":
                    entries.update({k: fill for k in group if steps[k].default_fill})
                if entries:
                    kwargs[key] = entries
        data = pad_data(data, alone, mode, kwargs, chunks)
    return data
