"""Labelled arguments: widths, modes and options given per dimension name, as
:func:`daskpad.xarray.pad2` and the command take them, turned into ``(before, after)`` pairs
and modes per dimension."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from typing import Any

import numpy as np

from daskpad.api.overlap import AxisBoundary
from daskpad.core.boundaries import meanings
from daskpad.core.keywords import Keyword
from daskpad.core.registry import MODES

#: one option's values before and after (numpy.pad's keyword values, handed on as they are)
Pair = tuple[Any, Any]
#: one mode: the name of a numpy.pad mode, or a function as numpy.pad takes it
OneMode = str | Callable[..., Any]
#: a boundary: one name or number for every dimension, or one per dimension name
NamedBoundary = AxisBoundary | Mapping[Any, AxisBoundary]


def normalize_widths(
    pad_width: object, pad_width_kwargs: Mapping[str, object], sizes: Mapping[Hashable, int]
) -> dict[Hashable, tuple[int, int]]:
    """``pad_width`` or ``**pad_width_kwargs`` -> ``{dim: (before, after)}`` of Python ints."""
    if pad_width is not None and pad_width_kwargs:
        raise ValueError(
            "pad2 takes widths either as a mapping or as keyword arguments, not both; got "
            f"pad_width={pad_width!r} and {dict(pad_width_kwargs)!r}. Merge them into one "
            "mapping, e.g. pad2({'x': 1, 'y': (0, 2)})"
        )
    if pad_width is None:
        pad_width = pad_width_kwargs
    if not isinstance(pad_width, Mapping):
        raise TypeError(
            "pad2 takes widths per dimension name, as a mapping {dim: width} or as keyword "
            f"arguments dim=width; got pad_width={pad_width!r}"
        )
    check_dims("pad_width", pad_width, sizes)
    widths = {}
    for dim, width in pad_width.items():
        both = pair(width, f"pad_width[{dim!r}]")
        for w in both:
            if isinstance(w, bool) or not isinstance(w, numbers.Integral):
                raise TypeError(
                    f"`pad_width` must be of integral type.; pad_width[{dim!r}] is {width!r}; "
                    "give an int or a (before, after) pair of ints"
                )
            if w < 0:
                raise ValueError(
                    f"index can't contain negative values: pad_width[{dim!r}] must be >= 0, "
                    f"got {width!r}"
                )
        widths[dim] = (int(both[0]), int(both[1]))
    return widths


def check_dims(arg: str, mapping: Iterable[Hashable], sizes: Mapping[Hashable, int]) -> None:
    unknown = [k for k in mapping if k not in sizes]
    if unknown:
        raise ValueError(
            f"{arg} names dimension(s) {unknown!r} that do not exist; the object has "
            f"dimensions {tuple(sizes)!r}"
        )


def pair(value: object, arg: str) -> Pair:
    """One dimension's option -> ``(before, after)``.

    Accepts ``v``, ``(v,)``, ``(b, a)`` and ``((b, a),)``.
    """
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim else value[()]
    if isinstance(value, (tuple, list)):
        if len(value) == 1 and isinstance(value[0], (tuple, list)):
            value = value[0]
        if len(value) == 1:
            return (value[0], value[0])
        if len(value) == 2 and not any(isinstance(v, (tuple, list)) for v in value):
            return (value[0], value[1])
        raise ValueError(
            f"{arg} must be a value, a (before, after) pair or a mapping {{dim: value or "
            f"(before, after)}}; got {value!r}. pad2 takes per-dimension values by name, "
            "not one pair per axis"
        )
    return (value, value)


def per_dim(
    value: object, arg: str, sizes: Mapping[Hashable, int]
) -> tuple[dict[Hashable, Pair], Pair | None]:
    """An option given for all dimensions or per dimension -> ``({dim: pair}, default)``.

    ``default`` applies to the dimensions the mapping does not name; it is ``None`` when the
    option was given as a mapping (the caller decides what a missing dimension gets).
    """
    if isinstance(value, Mapping):
        check_dims(arg, value, sizes)
        return {d: pair(v, f"{arg}[{d!r}]") for d, v in value.items()}, None
    return {}, pair(value, arg)


# --------------------------------------------------------------------------------------
# Modes by dimension name
# --------------------------------------------------------------------------------------
def other_name(mode: object) -> str | None:
    """What another library's boundary word means in numpy.pad's terms, if ``mode`` is
    one (``"periodic"``: "dask's name for numpy.pad's 'wrap'"), else None.

    >>> other_name("nearest")
    "scipy's and dask's name for numpy.pad's 'edge'"
    """
    if not isinstance(mode, str) or not meanings(mode):
        return None
    libraries: dict[str | None, list[str]] = {}
    for lib, meant in meanings(mode).items():
        libraries.setdefault(meant, []).append(f"{lib}'s")
    return "; ".join(
        f"{' and '.join(libs)} name for "
        + (f"numpy.pad's {meant!r}" if meant is not None else "no pad at the edges")
        for meant, libs in libraries.items()
    )


def unknown_mode(mode: object, arg: str) -> ValueError:
    """The refusal of a mode name numpy.pad does not have, naming ``arg``; a word another
    library uses for a boundary (``"periodic"``, ``"nearest"``, ...) is translated."""
    choices = f"choose one of {sorted(MODES)} or a function"
    said = other_name(mode)
    if said is not None:
        return ValueError(
            f"{arg}={mode!r} is not a numpy.pad mode: it is {said}. Give numpy.pad's name "
            f"({choices}); docs/boundaries.md translates other libraries' boundary names"
        )
    return ValueError(
        f"{arg}={mode!r}: mode '{mode}' is not supported; {choices} (other libraries' "
        "boundary names are translated in docs/boundaries.md)"
    )


def check_mode(mode: object, arg: str) -> None:
    """One mode: a function, or the name of a numpy.pad mode (:func:`unknown_mode`)."""
    if callable(mode):
        return
    if not isinstance(mode, str) or mode not in MODES:
        raise unknown_mode(mode, arg)


def modes_by_dim(
    mode: OneMode | Mapping[Any, OneMode],
    asked: Collection[Hashable],
    sizes: Mapping[Hashable, int],
    why: str,
) -> tuple[dict[Hashable, OneMode], OneMode]:
    """``mode`` (one mode, or ``{dim: mode}``) -> ``({dim: mode}, default)``: the modes of
    the dimensions it names, and the one every other dimension gets (the mode itself, or
    ``"constant"`` for a mapping).

    A mapping may only name dimensions in ``asked``, those given a width; ``why`` tells
    how to give one.
    """
    if isinstance(mode, Mapping):
        check_dims("mode", mode, sizes)
        widthless = [d for d in mode if d not in asked]
        if widthless:
            raise ValueError(
                f"mode names dimension(s) {widthless!r}, which have no width: a mode applies "
                f"to a padded dimension; {why}, or leave them out of mode={dict(mode)!r}"
            )
        for dim, each in mode.items():
            if isinstance(each, Mapping) or (
                isinstance(each, (list, tuple)) and not isinstance(each, str)
            ):
                raise TypeError(
                    f"mode[{dim!r}] must be one mode (a name or a function), got {each!r}"
                )
            check_mode(each, f"mode[{dim!r}]")
        return dict(mode), "constant"
    if isinstance(mode, (list, tuple)):
        raise TypeError(
            "pad2 takes a mode per dimension by name, as a mapping {dim: mode}, not one per "
            f"axis; got mode={mode!r}"
        )
    return {}, mode


def choice_by_dim(
    keyword: Keyword, value: object, sizes: Mapping[Hashable, int]
) -> tuple[dict[Hashable, str], str | None]:
    """A choice keyword (``reflect_type``: "even", "odd" or ``{dim: "even" or "odd"}``) ->
    ``({dim: choice}, default)``; the default is ``None`` for a mapping."""
    if isinstance(value, Mapping):
        check_dims(keyword.name, value, sizes)
        return {
            d: keyword.check_choice(v, f"{keyword.name}[{d!r}]") for d, v in value.items()
        }, None
    choice = keyword.check_choice(value)
    assert isinstance(choice, str)  # (check_choice refuses all but a "choice" keyword's choices)
    return {}, choice
