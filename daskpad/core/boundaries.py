"""Boundary names from the neighbours' worlds, translated into numpy.pad's modes.

The same five boundaries have a name in numpy.pad, scipy.ndimage, dask's ``map_overlap``
and torch, and some words mean different things in different libraries: dask's and
scipy's ``"reflect"`` is numpy's ``"symmetric"``, while torch's ``"reflect"`` is numpy's.
:func:`names` reads them from the modes' table (:mod:`daskpad.core.registry`, each mode's
``words``); :func:`translate` reads it. A word that means one numpy
mode wherever it is used (``"periodic"``, ``"nearest"``, ``"mirror"``, ...) is taken
alone; an ambiguous one only with its library named: ``"scipy:reflect"``. docs/boundaries.md
shows the table (a test keeps the two equal). :func:`translate_each` reads a boundary
per axis (``{axis: name}``, or one per axis), each entry through :func:`translate`.

scipy.ndimage's names are those of its filters, which pad whole samples as numpy does;
for interpolation scipy reads ``"constant"``, ``"wrap"`` and the ``grid-`` names
differently, which does not arise in padding.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

from daskpad.core.per_axis import _by_axis
from daskpad.core.registry import MODES

#: the libraries whose boundary words daskpad reads, numpy's first
LIBRARIES = ("numpy", "scipy", "dask", "torch")


def names() -> dict[str, dict[str, str | None]]:
    """Per library, its boundary words and the numpy.pad mode each means (None: no pad at
    the array's edges, dask's "none"), from the modes' table (each mode's ``words``)."""
    out: dict[str, dict[str, str | None]] = {lib: {} for lib in LIBRARIES}
    for mode in MODES.values():
        out["numpy"][mode.name] = mode.name
        for lib, words in mode.words.items():
            for word in words:
                out.setdefault(lib, {})[word] = mode.name
    out["dask"]["none"] = None
    return out


def meanings(
    word: str, known: Mapping[str, Mapping[str, str | None]] | None = None
) -> dict[str, str | None]:
    """The numpy mode ``word`` means in each library that has it (in ``known``, a table
    of :func:`names`, where given)."""
    known = names() if known is None else known
    return {lib: table[word] for lib, table in known.items() if word in table}


def translate(boundary: object, name: str = "boundary") -> tuple[str | None, dict[str, object]]:
    """numpy.pad's mode (None: no pad) and keywords for ``boundary``: a word of
    :func:`names` alone where it means one mode everywhere, ``"library:word"``, or a
    number (dask's constant boundary: ``mode="constant"`` with that value). ``name`` is
    how messages call it (``"boundary[1]"`` for one axis's entry).

    Raises
    ------
    ValueError
        An unknown word or library, or a word that means different modes in different
        libraries given without its library.
    """
    if isinstance(boundary, numbers.Number) and not isinstance(boundary, bool):
        return "constant", {"constant_values": boundary}
    if not isinstance(boundary, str):
        raise TypeError(f"{name}: expected a name or a number, got {boundary!r}")
    lib, sep, word = boundary.partition(":")
    known = names()
    if sep:
        if lib not in known:
            raise ValueError(
                f"{name}={boundary!r}: unknown library {lib!r}; "
                f"one of {', '.join(map(repr, known))}"
            )
        if word not in known[lib]:
            raise ValueError(
                f"{name}={boundary!r}: {lib} has no boundary {word!r}; "
                f"it has {', '.join(map(repr, known[lib]))}"
            )
        return known[lib][word], {}
    found = meanings(boundary, known)
    if not found:
        words = sorted({w for table in known.values() for w in table})
        raise ValueError(f"{name}={boundary!r} is not a boundary name; known: {', '.join(words)}")
    if len(set(found.values())) > 1:
        which = ", ".join(f"'{lib}:{boundary}' is mode={m!r}" for lib, m in found.items())
        raise ValueError(
            f"{name}={boundary!r} means different modes in different libraries ({which}): "
            "name the library, or give numpy's mode="
        )
    return next(iter(found.values())), {}


def translate_each(
    boundary: Mapping[int, object] | Sequence[object], ndim: int
) -> list[tuple[str | None, object] | None]:
    """A boundary per axis, ``{axis: name or number}`` (negative axes counted from the
    end) or one name or number per axis, as one entry per axis: numpy.pad's mode (None:
    no pad, dask's ``"none"``) and the constant a number gives (None otherwise); None for
    an axis the dict does not name.

    Raises
    ------
    ValueError, TypeError
        :func:`translate`'s, naming the axis (``boundary[1]='reflect' ...``); a sequence
        of another length than ``ndim``; a key that is no axis of ``ndim`` dimensions.
    """
    unnamed = object()
    if isinstance(boundary, Mapping):
        entries = _by_axis("boundary", boundary, ndim, unnamed)
    else:
        entries = list(boundary)
        if len(entries) != ndim:
            raise ValueError(
                f"boundary={boundary!r} has {len(entries)} entries, for an array of {ndim} "
                "dimensions: give one name or number per axis, or {axis: name}"
            )
    out: list[tuple[str | None, object] | None] = [None] * ndim
    for axis, entry in enumerate(entries):
        if entry is not unnamed:
            mode, extra = translate(entry, f"boundary[{axis}]")
            out[axis] = (mode, extra.get("constant_values"))
    return out
