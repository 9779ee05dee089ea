"""Arguments in, one frozen per-axis plan out.

This module turns the user's ``pad_width``, ``mode`` and keyword arguments into a
:class:`PadPlan`, raising the exception *type* ``numpy.pad`` raises for the same input, in
the same order of checks, with numpy's wording first and then what numpy leaves out (the
argument, the axis, the value received). It knows nothing of dask: after this door no code
asks "is this an int or a pair?".

Where numpy's behaviour depends on the dtype (``mean`` of datetimes, a constant that does not
fit the dtype, arithmetic on booleans...), the plan is checked by running ``numpy.pad`` itself
on a tiny array of the same dtype and shape class (:func:`check_with_numpy`), so such errors
surface when the graph is built, never later on a worker.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from daskpad.core.keywords import KEYWORDS, Keyword
from daskpad.core.ndarrays import DType, Values
from daskpad.core.registry import (
    EdgeFunction,
    Mode,
    check_kwargs,
    mode_named,
    numpy_pad,
)


class PadWidthValueError(TypeError, AssertionError):
    """A ``pad_width`` dict value that is neither an int nor a ``(before, after)`` tuple.

    numpy (2.4) reports this with a bare ``AssertionError``; daskpad raises an error that is
    both that and the more telling ``TypeError``, so code written for either keeps working.
    """


@dataclass(frozen=True)
class AxisPlan:
    """How one axis is padded.

    Attributes
    ----------
    axis
        The axis number (non-negative).
    length
        Length of the *original* array along this axis.
    before, after
        Pad widths.
    pairs
        This axis's ``(before, after)`` pair of each keyword the axis's mode takes that
        holds one per axis (:class:`daskpad.core.keywords.Keyword`, kinds ``"values"`` and
        ``"lengths"``), given or numpy's default: ``{"constant_values": (0, 0)}`` for
        constant, ``{"end_values": ...}`` for linear_ramp, ``{"stat_length": ...}`` for a
        statistic. Values are exactly as numpy would use them (numpy scalars or Python
        scalars: the difference matters for casting); lengths are already clipped to
        ``length``. Empty where numpy reads no keyword (a data mode on an empty array).
    """

    axis: int
    length: int
    before: int
    after: int
    pairs: Mapping[str, tuple[Any, Any]] = field(default_factory=dict)

    @property
    def padded(self) -> bool:
        return self.before > 0 or self.after > 0


@dataclass(frozen=True)
class PadPlan:
    """Everything the graph builder needs, validated.

    ``mode`` is ``None`` for a user function; ``function`` and ``function_kwargs`` are then
    set. ``options`` holds each keyword of the mode that is one value for the call
    (kind ``"choice"``: ``reflect_type``), given or numpy's default. ``fill_empty`` is
    true when numpy would return the allocated array untouched
    (mode ``empty``, or a data mode on an array of size 0).

    With a mode per axis (:func:`normalize_per_axis`), ``mode`` and ``function`` are
    ``None`` and ``steps`` holds, in axis order, ``(axis, plan)`` for each axis that
    changes the array: a plan of one mode that pads that axis alone, for the array padded
    by the steps before it (numpy.pad called once per axis).
    """

    shape: tuple[int, ...]
    mode: Mode | None
    axes: tuple[AxisPlan, ...]
    options: Mapping[str, object] = field(default_factory=dict)
    function: Callable[..., object] | None = None
    function_kwargs: Mapping[str, object] = field(default_factory=dict)
    fill_empty: bool = False
    steps: tuple[tuple[int, PadPlan], ...] = ()

    @property
    def new_shape(self) -> tuple[int, ...]:
        return tuple(a.length + a.before + a.after for a in self.axes)

    def along(self, axis: int) -> tuple[AxisPlan, PadPlan]:
        """How ``axis`` is padded: its :class:`AxisPlan` and the plan of its mode (the
        step that pads it, for a mode per axis; this plan otherwise)."""
        for a, step in self.steps:
            if a == axis:
                return step.axes[axis], step
        return self.axes[axis], self

    @property
    def family(self) -> str | None:
        """The family whose graph builder makes the pads
        (:data:`daskpad.core.registry.BUILDERS`): the mode's own, ``"fill"`` where numpy
        leaves the allocated array untouched, ``"edge_function"`` for a function marked by
        :func:`daskpad.edge_function`; None for a mode per axis (each step has its own)
        and for a function handed whole lines (:attr:`whole_lines`)."""
        if self.steps:
            return None
        if self.fill_empty:
            return "fill"
        if self.mode is not None:
            return self.mode.family
        if isinstance(self.function, EdgeFunction) and 0 not in self.shape:
            return "edge_function"
        return None

    @property
    def whole_lines(self) -> bool:
        """Whether the pads come from a user function handed every whole line
        (:func:`daskpad.modes.function.pad_with_function`), not from a family's builder."""
        return not self.steps and self.family is None

    @property
    def is_identity(self) -> bool:
        """True when the result is the input itself (no width anywhere, no user function)."""
        functions = any(step.function is not None for _a, step in self.steps)
        return self.function is None and not functions and not any(a.padded for a in self.axes)


def _reraise(exc: BaseException, detail: str) -> BaseException:
    """The same exception type as ``exc``, with ``detail`` appended to numpy's message."""
    try:
        new = type(exc)(f"{exc}; {detail}")
    except Exception:  # an exception class with an unusual constructor: keep it as is
        exc.add_note(detail)
        return exc
    new.__cause__ = exc
    return new


def _as_pairs(
    name: str, value: object, ndim: int, *, as_index: bool = False
) -> tuple[tuple[Any, Any], ...]:
    """Broadcast ``value`` to one ``(before, after)`` pair per axis, as numpy.pad does.

    A single value or a single pair (given in any nesting, except one value per axis as
    ``[[a], [b]]``) applies to every axis and is returned as numpy scalars; a full per-axis
    specification is returned as Python scalars. numpy keeps this difference and it shows in
    how values are cast, so the plan keeps it too. With ``as_index`` the values are rounded
    to integers and must not be negative.
    """
    if value is None:
        return ((None, None),) * ndim
    try:
        arr = np.array(value)
        if as_index:
            arr = np.round(arr).astype(np.intp, copy=False)
    except Exception as exc:
        raise _reraise(exc, f"{name}={value!r} is not a number or a sequence of numbers") from None

    def negative(pairs: str) -> BaseException:
        return ValueError(
            f"index can't contain negative values: {name} must be >= 0, got {value!r}{pairs}"
        )

    if arr.ndim < 3 and (arr.size == 1 or (arr.size == 2 and arr.shape != (2, 1))):
        flat = arr.ravel()
        pair = (flat[0], flat[0]) if arr.size == 1 else (flat[0], flat[1])
        if as_index and (pair[0] < 0 or pair[1] < 0):
            raise negative("")
        return (pair,) * ndim
    if as_index:
        if arr.size == 0:
            raise ValueError(
                f"zero-size array to reduction operation minimum which has no identity: "
                f"{name}={value!r} holds no value; give one value, one (before, after) pair, "
                f"or one pair for each of the {ndim} axes"
            )
        if arr.min() < 0:
            raise negative("")
    try:
        pairs = np.broadcast_to(arr, (ndim, 2)).tolist()
    except ValueError as exc:
        raise ValueError(
            f"{exc}: {name} has shape {arr.shape}, which does not broadcast to one "
            f"(before, after) pair for each of the {ndim} axes, i.e. shape ({ndim}, 2); "
            f"got {value!r}"
        ) from None
    return tuple((p[0], p[1]) for p in pairs)


def _pad_width_from_dict(pad_width: Mapping[int, object], ndim: int) -> list[tuple[int, int]]:
    """numpy 2.4's ``{axis: width}`` form: an int or a ``(before, after)`` tuple of ints."""
    seq = [(0, 0)] * ndim
    for axis, width in pad_width.items():
        if isinstance(width, int):
            pair = (width, width)
        elif (
            isinstance(width, tuple) and len(width) == 2 and all(isinstance(w, int) for w in width)
        ):
            pair = (width[0], width[1])
        else:
            raise PadWidthValueError(
                f"Expected code to be unreachable, but got: {width!r}; pad_width[{axis!r}] "
                f"must be an int or a (before, after) tuple of ints"
            )
        try:
            seq[axis] = pair
        except IndexError:
            raise IndexError(
                f"list assignment index out of range: pad_width has key {axis!r}, but the "
                f"array has {ndim} axes (valid keys: {-ndim} to {ndim - 1})"
            ) from None
        except TypeError as exc:
            raise _reraise(exc, f"pad_width keys must be axis numbers, got {axis!r}") from None
    return seq


def normalize_pad_width(pad_width: object, ndim: int) -> tuple[tuple[int, int], ...]:
    """``pad_width`` in any of numpy's forms -> one ``(before, after)`` pair of ints per axis."""
    if isinstance(pad_width, Mapping):
        pad_width = _pad_width_from_dict(pad_width, ndim)
    try:
        arr = np.asarray(pad_width)
    except Exception as exc:
        raise _reraise(exc, f"pad_width={pad_width!r} is not a regular sequence") from None
    if arr.dtype.kind != "i":
        raise TypeError(
            f"`pad_width` must be of integral type.; got {pad_width!r} (dtype {arr.dtype}); "
            f"give widths as Python or numpy signed integers"
        )
    pairs = _as_pairs("pad_width", arr, ndim, as_index=True)
    return tuple((int(b), int(a)) for b, a in pairs)


def normalize(
    shape: tuple[int, ...],
    pad_width: object,
    mode: str | Callable[..., object],
    kwargs: Mapping[str, object],
    itemsize: int = 1,
) -> PadPlan:
    """Validate the arguments of :func:`daskpad.pad` for an array of ``shape`` whose items
    take ``itemsize`` bytes.

    Checks run in numpy.pad's order, so that when several arguments are wrong the
    exception is the one numpy would raise first.
    """
    ndim = len(shape)
    widths = normalize_pad_width(pad_width, ndim)

    if callable(mode):
        _check_padded_size(shape, widths, itemsize)
        axes = tuple(AxisPlan(k, n, b, a) for k, (n, (b, a)) in enumerate(zip(shape, widths)))
        return PadPlan(shape, None, axes, function=mode, function_kwargs=dict(kwargs))

    try:
        spec = mode_named(mode)
    except TypeError as exc:
        raise _reraise(exc, f"mode must be a string or a function, got {mode!r}") from None
    check_kwargs(spec.name, kwargs)
    _check_padded_size(shape, widths, itemsize)

    size = int(np.prod(shape, dtype=np.int64)) if ndim else 1
    pairs: list[dict[str, tuple[Any, Any]]] = [{} for _ in range(ndim)]
    fill_empty = spec.name == "empty"

    if spec.needs_data and size == 0:
        for axis, (n, (b, a)) in enumerate(zip(shape, widths)):
            if n == 0 and (b or a):
                raise ValueError(
                    f"can't extend empty axis {axis} using modes other than 'constant' or "
                    f"'empty'; pad_width for axis {axis} is ({b}, {a}) and mode is '{mode}'"
                )
        fill_empty = True  # the result has size 0: there is nothing to compute
    else:
        for name in spec.kwargs:
            keyword = KEYWORDS[name]
            if keyword.per_axis:
                value = kwargs.get(name, keyword.default)
                for axis, pair in enumerate(keyword_pairs(keyword, value, shape)):
                    pairs[axis][name] = pair
    # (a stat_length of 0 for maximum/minimum is refused by check_with_numpy, which
    # knows whether numpy meets it before a dtype error on an earlier axis)
    options = {
        name: kwargs.get(name, KEYWORDS[name].default)
        for name in spec.kwargs
        if not KEYWORDS[name].per_axis
    }
    axes = tuple(
        AxisPlan(k, n, b, a, pairs=p) for k, (n, (b, a), p) in enumerate(zip(shape, widths, pairs))
    )
    return PadPlan(shape, spec, axes, options=options, fill_empty=fill_empty)


def keyword_pairs(
    keyword: Keyword, value: object, shape: tuple[int, ...]
) -> tuple[tuple[Any, Any], ...]:
    """A keyword that holds a pair per axis, normalised as numpy.pad normalises it for an
    array of ``shape``: broadcast to one ``(before, after)`` pair per axis (numpy's
    ``_as_pairs``), a ``"lengths"`` keyword as non-negative integers clipped to each axis
    (None: the whole axis)."""
    lengths = keyword.kind == "lengths"
    pairs = _as_pairs(keyword.name, value, len(shape), as_index=lengths)
    if not lengths:
        return pairs
    return tuple((_clip_length(lb, n), _clip_length(la, n)) for n, (lb, la) in zip(shape, pairs))


def _check_padded_size(
    shape: tuple[int, ...], widths: tuple[tuple[int, int], ...], itemsize: int
) -> None:
    """numpy.pad's errors for a padded array too large for any memory (numpy allocates it
    first; its shape arithmetic in 64-bit integers overflows or its byte size does)."""
    biggest = np.iinfo(np.int64).max
    new_shape = tuple(n + b + a for n, (b, a) in zip(shape, widths))
    for axis, length in enumerate(new_shape):
        if length > biggest:
            raise ValueError(
                f"negative dimensions are not allowed: padded, axis {axis} would be {length} "
                f"long, more than a 64-bit integer holds (numpy's length overflows); pad_width "
                f"{widths[axis]}"
            )
    if math.prod(new_shape) * max(itemsize, 1) > biggest:
        raise ValueError(
            "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
            f"possible size: the padded shape {new_shape} of {itemsize}-byte items"
        )


def _clip_length(length: int | np.intp | None, n: int) -> int:
    """A stat_length as numpy uses it: None or more than the axis means the whole axis."""
    return n if length is None or length > n else int(length)


def _probe_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    # Keep what changes numpy's code path: zero length, length one, longer. Beyond eight
    # axes keep only "zero or not" so the sample stays small.
    cap = 2 if len(shape) <= 8 else 1
    return tuple(min(n, cap) for n in shape)


def check_with_numpy(
    plan: PadPlan,
    dtype: DType,
    mode: object,
    kwargs: Mapping[str, object],
    sample: Values | None = None,
) -> Values:
    """Run ``numpy.pad`` on a tiny array of ``dtype`` to surface dtype-dependent errors now.

    numpy raises some errors only when it computes (``mean`` of a datetime, arithmetic that a
    dtype does not support, a constant that does not fit the dtype). The same computation on
    a sample with the same dtype, the same zero/one/many axis lengths, zero/non-zero widths
    and the same keyword arguments raises the same error, here rather than on a worker.
    ``sample`` (zeros by default) is what the calls before this one padded, for a mode per
    axis (an ``"empty"`` axis leaves what numpy's allocation holds, None for objects, for
    the later axes to read); the padded sample is returned.
    """
    shape = _probe_shape(plan.shape)
    sample = np.zeros(shape, dtype=dtype) if sample is None else sample
    # (a 0-d array takes a plain int: numpy reads an empty list of pairs as float widths)
    widths = [(min(a.before, 1), min(a.after, 1)) for a in plan.axes] if plan.axes else 0
    if plan.mode is None:
        # a user function is the user's: numpy does not validate it either
        return np.pad(sample, widths)
    empty_stat = _empty_stat_error(plan)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            padded: Values = numpy_pad(sample, widths, mode, **kwargs)
    except Exception as exc:
        if empty_stat is not None and isinstance(exc, ValueError):
            raise empty_stat from None  # numpy met the empty statistic first
        raise _reraise(
            exc,
            f"numpy.pad cannot pad an array of dtype {dtype} with mode={mode!r}"
            + (f" and {dict(kwargs)!r}" if kwargs else ""),
        ) from None
    if empty_stat is not None:
        raise empty_stat  # the sample is small, but a zero stat_length stays zero in it
    return padded


def _empty_stat_error(plan: PadPlan) -> ValueError | None:
    """numpy's error for a ``stat_length`` of 0 with maximum/minimum, for the first such axis.

    numpy checks it axis by axis, just before that axis's statistic, so a dtype error on an
    earlier axis comes first: the caller raises this only after the numpy probe.
    """
    if plan.mode is None or plan.mode.name not in ("maximum", "minimum"):
        return None
    for a in plan.axes:
        lengths = a.pairs.get("stat_length")
        if lengths is not None and 0 in lengths:
            lb, la = lengths
            return ValueError(
                f"stat_length of 0 yields no value for padding; mode '{plan.mode.name}' got "
                f"stat_length ({lb}, {la}) for axis {a.axis}; use stat_length >= 1 or None"
            )
    return None
