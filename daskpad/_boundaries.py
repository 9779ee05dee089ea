"""Boundary names from the neighbours' worlds, translated into numpy.pad's modes.

The same five boundaries have a name in numpy.pad, scipy.ndimage, dask's ``map_overlap``
and torch, and some words mean different things in different libraries: dask's and
scipy's ``"reflect"`` is numpy's ``"symmetric"``, while torch's ``"reflect"`` is numpy's.
:data:`NAMES` is the one table; :func:`translate` reads it. A word that means one numpy
mode wherever it is used (``"periodic"``, ``"nearest"``, ``"mirror"``, ...) is taken
alone; an ambiguous one only with its library named: ``"scipy:reflect"``. docs/boundaries.md
shows the table (a test keeps the two equal).

scipy.ndimage's names are those of its filters, which pad whole samples as numpy does;
for interpolation scipy reads ``"constant"``, ``"wrap"`` and the ``grid-`` names
differently, which does not arise in padding.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

#: per library, its boundary words and the numpy.pad mode each means (None: no pad at the
#: array's edges, dask's "none")
NAMES: Mapping[str, Mapping[str, str | None]] = {
    "numpy": {
        m: m
        for m in (
            "constant",
            "edge",
            "linear_ramp",
            "maximum",
            "mean",
            "median",
            "minimum",
            "reflect",
            "symmetric",
            "wrap",
            "empty",
        )
    },
    "scipy": {
        "constant": "constant",
        "grid-constant": "constant",
        "nearest": "edge",
        "mirror": "reflect",
        "reflect": "symmetric",
        "grid-mirror": "symmetric",
        "wrap": "wrap",
        "grid-wrap": "wrap",
    },
    "dask": {"nearest": "edge", "reflect": "symmetric", "periodic": "wrap", "none": None},
    "torch": {
        "constant": "constant",
        "zeros": "constant",
        "replicate": "edge",
        "reflect": "reflect",
        "circular": "wrap",
    },
}


def meanings(word: str) -> dict[str, str | None]:
    """The numpy mode ``word`` means in each library that has it."""
    return {lib: names[word] for lib, names in NAMES.items() if word in names}


def translate(boundary: Any) -> tuple[str | None, dict[str, Any]]:
    """numpy.pad's mode (None: no pad) and keywords for ``boundary``: a word of
    :data:`NAMES` alone where it means one mode everywhere, ``"library:word"``, or a
    number (dask's constant boundary: ``mode="constant"`` with that value).

    Raises
    ------
    ValueError
        An unknown word or library, or a word that means different modes in different
        libraries given without its library.
    """
    if isinstance(boundary, numbers.Number) and not isinstance(boundary, bool):
        return "constant", {"constant_values": boundary}
    if not isinstance(boundary, str):
        raise TypeError(f"boundary: expected a name or a number, got {boundary!r}")
    lib, sep, word = boundary.partition(":")
    if sep:
        if lib not in NAMES:
            raise ValueError(
                f"boundary={boundary!r}: unknown library {lib!r}; "
                f"one of {', '.join(map(repr, NAMES))}"
            )
        if word not in NAMES[lib]:
            raise ValueError(
                f"boundary={boundary!r}: {lib} has no boundary {word!r}; "
                f"it has {', '.join(map(repr, NAMES[lib]))}"
            )
        return NAMES[lib][word], {}
    found = meanings(boundary)
    if not found:
        known = sorted({w for names in NAMES.values() for w in names})
        raise ValueError(
            f"boundary={boundary!r} is not a boundary name; known: {', '.join(known)}"
        )
    if len(set(found.values())) > 1:
        which = ", ".join(f"'{lib}:{boundary}' is mode={m!r}" for lib, m in found.items())
        raise ValueError(
            f"boundary={boundary!r} means different modes in different libraries ({which}): "
            "name the library, or give numpy's mode="
        )
    return next(iter(found.values())), {}
