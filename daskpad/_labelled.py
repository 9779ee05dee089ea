"""Labelled arguments: widths and options given per dimension name, as :func:`daskpad.xarray.pad2`
and the command take them, turned into ``(before, after)`` pairs per dimension."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

Pair = tuple[Any, Any]


def normalize_widths(
    pad_width: Any, pad_width_kwargs: Mapping[Any, Any], sizes: Mapping[Hashable, int]
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


def check_dims(arg: str, mapping: Mapping[Any, Any], sizes: Mapping[Hashable, int]) -> None:
    unknown = [k for k in mapping if k not in sizes]
    if unknown:
        raise ValueError(
            f"{arg} names dimension(s) {unknown!r} that do not exist; the object has "
            f"dimensions {tuple(sizes)!r}"
        )


def pair(value: Any, arg: str) -> Pair:
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
    value: Any, arg: str, sizes: Mapping[Hashable, int]
) -> tuple[dict[Hashable, Pair], Pair | None]:
    """An option given for all dimensions or per dimension -> ``({dim: pair}, default)``.

    ``default`` applies to the dimensions the mapping does not name; it is ``None`` when the
    option was given as a mapping (the caller decides what a missing dimension gets).
    """
    if isinstance(value, Mapping):
        check_dims(arg, value, sizes)
        return {d: pair(v, f"{arg}[{d!r}]") for d, v in value.items()}, None
    return {}, pair(value, arg)
