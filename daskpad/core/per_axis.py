"""A mode per axis (``mode={axis: mode}`` or one per axis), each axis's keywords sorted
out and the whole turned into one plan of steps (:func:`normalize_per_axis`), and the other
per-axis arguments of ``pad_to`` and ``map_overlap`` (sizes, depths)."""

from __future__ import annotations

import operator
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from daskpad.core.keywords import keyword_misfits, keyword_names, takes
from daskpad.core.ndarrays import DType
from daskpad.core.plan import (
    AxisPlan,
    PadPlan,
    _check_padded_size,
    _probe_shape,
    check_with_numpy,
    normalize,
    normalize_pad_width,
)
from daskpad.core.registry import EdgeFunction, mode_named

# --------------------------------------------------------------------------------------
# a mode per axis
# --------------------------------------------------------------------------------------


def is_per_axis(mode: object) -> bool:
    """Whether ``mode`` gives a mode per axis: ``{axis: mode}`` or one mode per axis."""
    return isinstance(mode, Mapping) or (
        isinstance(mode, Sequence) and not isinstance(mode, (str, bytes))
    )


def modes_by_axis(mode: Any, ndim: int) -> list[Any]:
    """A per-axis ``mode`` (``{axis: mode}``, axes not named ``"constant"``, or one mode
    per axis) as one mode per axis, each a mode name or a function."""
    if isinstance(mode, Mapping):
        modes = _by_axis("mode", mode, ndim, "constant")
    else:
        modes = list(mode)
        if len(modes) != ndim:
            raise ValueError(
                f"mode: {mode!r} has {len(modes)} entries, for an array of {ndim} dimensions; "
                f"give one mode per axis, or {{axis: mode}} for some axes (the others are "
                f"'constant')"
            )
    for axis, m in enumerate(modes):
        if callable(m):
            continue
        if not isinstance(m, str):
            raise TypeError(f"mode for axis {axis} must be a mode name or a function, got {m!r}")
        try:
            mode_named(m)
        except ValueError as exc:
            raise ValueError(f"{exc} (mode for axis {axis})") from None
    return modes


def named_axes(mode: object, ndim: int) -> set[int]:
    """The axes a per-axis ``mode`` names: those of ``{axis: mode}`` (checked by
    :func:`modes_by_axis`), or every axis of one mode per axis."""
    if isinstance(mode, Mapping):
        return {operator.index(axis) % ndim for axis in mode}
    return set(range(ndim))


def _axes_in(value: object, ndim: int) -> list[int]:
    """The axes a keyword's ``{axis: value}`` mapping names (none for any other value;
    keys that are no axis are refused where the value is read, :func:`_by_axis`)."""
    if not isinstance(value, Mapping):
        return []
    axes = []
    for key in value:
        try:
            a = operator.index(key)
        except TypeError:
            continue
        if -ndim <= a < ndim:
            axes.append(a % ndim)
    return axes


def _keywords_by_axis(
    modes: Sequence[object],
    named: Collection[int],
    widths: Sequence[tuple[int, int]],
    kwargs: Mapping[str, object],
) -> tuple[list[dict[str, object]], dict[str, object]]:
    """Each axis's keywords, and the keywords of the functions among the modes.

    numpy.pad's keywords of its own modes go to the axes whose mode takes them: the value
    as given (numpy's forms: numpy picks the axis's pair), or, from ``{axis: value}``, that
    axis's value. A keyword fits when the mode of an axis ``mode`` names (``named``,
    whatever its width) or of a padded axis takes it
    (:func:`daskpad.core.keywords.keyword_misfits`). The functions get every keyword that
    fits no such axis; without a function, such a keyword is refused as numpy refuses
    it."""
    ndim = len(modes)
    counted = {a for a in range(ndim) if a in named or any(widths[a])}
    functions = any(callable(m) for m in modes)
    ours = set(keyword_names())
    misfits = keyword_misfits(
        dict(enumerate(modes)),
        counted,
        {n: _axes_in(v, ndim) if n in ours else () for n, v in kwargs.items()},
    )
    left = {m.keyword for m in misfits if m.unused}
    for misfit in misfits:
        if not (misfit.unused and functions):
            note = "axes not named in mode are 'constant', counted only where padded"
            raise ValueError(misfit.words("axis", "mode", note=note if len(named) < ndim else ""))
    taken = sorted(set(kwargs) - left)
    by_axis: list[dict[str, object]] = [{} for _ in range(ndim)]
    for name in taken:
        value = kwargs[name]
        if isinstance(value, Mapping):
            for axis, entry in enumerate(_by_axis(name, value, ndim, _ABSENT)):
                if entry is not _ABSENT:
                    by_axis[axis][name] = entry
        else:
            for axis, m in enumerate(modes):
                if takes(m, name):
                    by_axis[axis][name] = value
    function_kwargs = {n: v for n, v in kwargs.items() if n in left}
    return by_axis, function_kwargs


_ABSENT = object()


def normalize_per_axis(
    shape: tuple[int, ...],
    pad_width: object,
    mode: object,
    kwargs: Mapping[str, object],
    dtype: DType,
) -> PadPlan:
    """The plan of a mode per axis: numpy.pad called once per axis, in axis order, each
    call padding only its axis with its mode and keywords, on the array the calls before
    it padded (:attr:`PadPlan.steps`). Each call is checked as :func:`normalize` and
    :func:`check_with_numpy` check one, in axis order, so the first error is the one the
    chained numpy.pad calls raise first."""
    ndim = len(shape)
    widths = normalize_pad_width(pad_width, ndim)
    modes = modes_by_axis(mode, ndim)
    by_axis, function_kwargs = _keywords_by_axis(modes, named_axes(mode, ndim), widths, kwargs)
    _check_padded_size(shape, widths, dtype.itemsize)
    steps: list[tuple[int, PadPlan]] = []
    current = list(shape)
    sample = np.zeros(_probe_shape(tuple(shape)), dtype=dtype)
    for axis, (m, (b, a)) in enumerate(zip(modes, widths)):
        step_widths = tuple((b, a) if i == axis else (0, 0) for i in range(ndim))
        step_kwargs = function_kwargs if callable(m) else by_axis[axis]
        # (a call that pads nothing still checks its keywords, as numpy.pad does)
        step = normalize(tuple(current), step_widths, m, step_kwargs, dtype.itemsize)
        sample = check_with_numpy(step, dtype, m, step_kwargs, sample)
        if (b or a) or (callable(m) and not isinstance(m, EdgeFunction)):
            # (an edge function writes only the pads: with none, it changes nothing)
            steps.append((axis, step))
        current[axis] += b + a
    axes = tuple(AxisPlan(k, n, b, a) for k, (n, (b, a)) in enumerate(zip(shape, widths)))
    if not steps:  # nothing changes: the plan of no pad at all
        return PadPlan(tuple(shape), mode_named("constant"), axes)
    return PadPlan(tuple(shape), None, axes, steps=tuple(steps))


# --------------------------------------------------------------------------------------
# per-axis arguments of pad_to and map_overlap
# --------------------------------------------------------------------------------------


def _by_axis(name: str, value: Mapping[Any, Any], ndim: int, default: Any) -> list[Any]:
    """An ``{axis: entry}`` dict (negative axes counted from the end) as one entry per
    axis, ``default`` where none is given."""
    out = [default] * ndim
    for axis, entry in value.items():
        try:
            a = operator.index(axis)
        except TypeError:
            raise TypeError(f"{name}: axes are integers, not {axis!r}") from None
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of bounds for {ndim} dimensions")
        out[a % ndim] = entry
    return out


def per_axis(name: str, value: object, ndim: int, *, broadcast: bool) -> list[int | None]:
    """``value`` (one int for every axis when ``broadcast``, one entry per axis, or an
    ``{axis: int}`` dict) as one non-negative int or None per axis (``pad_to``'s
    ``shape`` and ``multiple``)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, Mapping):
        out = _by_axis(name, value, ndim, None)
    elif broadcast and not isinstance(value, Sequence):
        out = [value] * ndim
    elif isinstance(value, Sequence) and not isinstance(value, str):
        out = list(value)
        if len(out) != ndim:
            raise ValueError(
                f"{name}: {value!r} has {len(out)} entries, for an array of {ndim} "
                f"dimensions (give one per axis, None for an axis left as it is)"
            )
    else:
        raise TypeError(f"{name}: expected one entry per axis, got {value!r}")
    checked: list[int | None] = []
    for axis, v in enumerate(out):
        if v is None:
            checked.append(None)
            continue
        try:
            n = operator.index(v)
        except TypeError:
            raise TypeError(f"{name}: axis {axis}: expected an integer, got {v!r}") from None
        if n < 0:
            raise ValueError(f"{name}: axis {axis}: {n} is negative")
        checked.append(n)
    return checked


def depth_pairs(depth: object, ndim: int) -> tuple[tuple[int, int], ...]:
    """``depth`` as dask takes it (one int, one entry per axis, ``{axis: entry}``; an
    entry an int or a ``(before, after)`` pair) as one ``(before, after)`` pair per axis
    (``map_overlap``'s halo)."""
    if isinstance(depth, np.ndarray):
        depth = depth.tolist()
    if isinstance(depth, Mapping):
        entries = _by_axis("depth", depth, ndim, 0)
    elif isinstance(depth, Sequence) and not isinstance(depth, str):
        entries = list(depth)
        if len(entries) != ndim:
            hint = f"; for one axis, ({tuple(depth)!r},)" if ndim == 1 else ""
            raise ValueError(
                f"depth: {depth!r} has {len(entries)} entries for {ndim} dimensions "
                f"(one per axis, each an int or a (before, after) pair{hint})"
            )
    else:
        entries = [depth] * ndim
    pairs = []
    for axis, entry in enumerate(entries):
        pair = tuple(entry) if isinstance(entry, Sequence) else (entry, entry)
        if len(pair) != 2:
            raise ValueError(f"depth: axis {axis}: expected an int or a pair, got {entry!r}")
        try:
            before, after = (operator.index(d) for d in pair)
        except TypeError:
            raise TypeError(f"depth: axis {axis}: expected integers, got {entry!r}") from None
        if before < 0 or after < 0:
            raise ValueError(f"depth: axis {axis}: {entry!r} is negative")
        pairs.append((before, after))
    return tuple(pairs)
