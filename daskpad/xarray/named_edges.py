"""The edge of :func:`daskpad.xarray.map_overlap`'s halo by dimension name.

``mode``, ``boundary`` and numpy.pad's keywords come for every dimension or per dimension
name (``mode={"lat": "symmetric", "lon": "wrap"}``, ``boundary={"lon": "periodic"}``,
``reflect_type={"lat": "odd"}``), as :func:`daskpad.xarray.pad2` takes them. They are
checked once for the call, by name, and each variable gets them by axis, as
:func:`daskpad.map_overlap` takes them: a mapping keeps the dimensions the variable has,
and a keyword goes to a variable with a dimension whose mode takes it (or, taken by no
dimension, to one whose mode is a function, as numpy.pad gives a function the keywords).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from daskpad.api.overlap import Boundary
from daskpad.api.pad import PadMode
from daskpad.core.boundaries import translate
from daskpad.core.keywords import modes_taking, takes
from daskpad.core.registry import MODES
from daskpad.xarray.dim_args import NamedBoundary, OneMode, check_dims, modes_by_dim

T = TypeVar("T")


@dataclass(frozen=True)
class NamedEdges:
    """One call's edge by dimension name, checked: :meth:`for_dims` gives it by axis."""

    #: None, one mode, or ``{dim: mode}``
    mode: OneMode | Mapping[Hashable, OneMode] | None
    #: None, one boundary name or number, or ``{dim: name or number}``
    boundary: NamedBoundary | None
    #: numpy.pad's keywords, each one value (numpy's forms) or ``{dim: value}``
    keywords: Mapping[str, object]
    #: per keyword, the dimensions with a halo whose mode takes it; None where the call
    #: was not checked by name (every variable then gets every keyword)
    takers: Mapping[str, frozenset[Hashable]] | None
    #: the dimensions with a halo whose mode is a function
    functions: frozenset[Hashable]

    @classmethod
    def resolve(
        cls,
        sizes: Mapping[Hashable, int],
        depth: Mapping[Hashable, object],
        mode: OneMode | Mapping[Hashable, OneMode] | None,
        boundary: NamedBoundary | None,
        keywords: Mapping[str, object],
    ) -> NamedEdges:
        """The edge of a call on an object of dimensions ``sizes`` with the halo ``depth``
        (``{dim: depth}``), checked.

        Raises
        ------
        ValueError
            A dimension that does not exist (the message names those that do), a mode
            or boundary name that is none, a keyword no dimension with a halo takes, or
            a keyword's mapping that names a dimension whose mode does not take it.
        TypeError
            ``mode`` and ``boundary`` both, one of them per axis (a list or tuple), or a
            boundary's number and ``constant_values`` both.
        """
        if mode is not None and boundary is not None:
            raise TypeError("give the edge as mode= (numpy's names) or boundary=, not both")
        for arg, value in (("mode", mode), ("boundary", boundary)):
            if isinstance(value, (list, tuple)):
                raise TypeError(
                    f"{arg}: give one for every dimension or one per dimension name, "
                    f"{{dim: {arg}}}, not one per axis; got {arg}={value!r}"
                )
        for key, given in keywords.items():
            if isinstance(given, Mapping):
                check_dims(key, given, sizes)
        halo = [d for d, w in depth.items() if _has_halo(w)]
        # numpy's rule: a dimension mode or boundary names counts whatever its depth
        named = [
            d
            for edge in (mode, boundary)
            if isinstance(edge, Mapping)
            for d in edge
            if d in sizes and d not in halo
        ]
        modes, constants = _modes_of(sizes, halo + named, mode, boundary)
        if constants and "constant_values" in keywords:
            raise TypeError(
                f"boundary={boundary!r} gives dimension(s) {list(constants)!r} a number, a "
                "constant: give the constants there or as constant_values=, not both"
            )
        functions = frozenset(d for d, m in modes.items() if callable(m))
        known = all(m is None or callable(m) or m in MODES for m in modes.values())
        if not keywords or not known or all(m is None for m in modes.values()):
            # (no keyword, or nothing padded, or a mode daskpad.map_overlap refuses with
            # its own words: it checks each variable's call)
            return cls(mode, boundary, dict(keywords), None, functions)
        takers = {key: _takers(key, value, modes, functions) for key, value in keywords.items()}
        return cls(mode, boundary, dict(keywords), takers, functions)

    def for_dims(
        self, dims: Sequence[Hashable]
    ) -> tuple[PadMode | None, Boundary | None, dict[str, Any]]:
        """``mode``, ``boundary`` and the keywords for a variable of dimensions ``dims``,
        by axis."""
        axis = {d: i for i, d in enumerate(dims)}

        def by_axis(value: Mapping[Hashable, T]) -> dict[int, T]:
            return {axis[d]: v for d, v in value.items() if d in axis}

        kwargs = {}
        for key, value in self.keywords.items():
            if self.takers is not None:
                takers = self.takers[key]
                if not (takers & axis.keys() or (not takers and self.functions & axis.keys())):
                    continue  # (no dimension of this variable takes it)
            if isinstance(value, Mapping):
                value = by_axis(value)
                if not value:
                    continue
            kwargs[key] = value
        mode = by_axis(self.mode) if isinstance(self.mode, Mapping) else self.mode
        boundary = by_axis(self.boundary) if isinstance(self.boundary, Mapping) else self.boundary
        if any(isinstance(v, Mapping) for v in kwargs.values()):
            # ({axis: value} goes with a mode per axis: one for every axis, as one)
            if boundary is not None and not isinstance(boundary, Mapping):
                boundary = dict.fromkeys(range(len(dims)), boundary)
            elif boundary is None and not isinstance(mode, Mapping):
                mode = dict.fromkeys(range(len(dims)), "constant" if mode is None else mode)
        return mode, boundary, kwargs


def _has_halo(depth: object) -> bool:
    """Whether a dimension's depth (an int or a pair) is more than none (anything else
    counts as a halo: :func:`daskpad.map_overlap` refuses it)."""
    if isinstance(depth, (tuple, list)):
        return any(map(_has_halo, depth))
    return bool(depth != 0)


def _modes_of(
    sizes: Mapping[Hashable, int],
    halo: Sequence[Hashable],
    mode: OneMode | Mapping[Hashable, OneMode] | None,
    boundary: object,
) -> tuple[dict[Hashable, OneMode | None], dict[Hashable, object]]:
    """The numpy.pad mode of each dimension in ``halo`` (None: no pad at the edges), and
    the constants a boundary's numbers give."""
    if boundary is None:
        if isinstance(mode, Mapping):
            named, default = modes_by_dim(mode, tuple(sizes), sizes, "")
        else:
            named, default = {}, "constant" if mode is None else mode
        return {d: named.get(d, default) for d in halo}, {}
    if isinstance(boundary, Mapping):
        check_dims("boundary", boundary, sizes)
        each = {d: translate(b, f"boundary[{d!r}]") for d, b in boundary.items()}
    else:
        each = dict.fromkeys(halo, translate(boundary))
    modes: dict[Hashable, OneMode | None] = {d: each[d][0] if d in each else None for d in halo}
    constants = {d: each[d][1]["constant_values"] for d in halo if d in each and each[d][1]}
    return modes, constants


def _takers(
    key: str,
    value: object,
    modes: Mapping[Hashable, OneMode | None],
    functions: frozenset[Hashable],
) -> frozenset[Hashable]:
    """The dimensions whose mode takes keyword ``key``, checked: some dimension with a
    halo must take it (or a function get it), and a mapping name only those."""
    takers = frozenset(d for d, m in modes.items() if takes(m, key))
    fit = f"{key} is for the modes {modes_taking([key])}"
    if not takers and not functions:
        raise ValueError(
            f"{key}={value!r} applies to no dimension: the modes of the dimensions named "
            f"in mode or boundary, or with a halo, are {_shown(modes)}; {fit}"
        )
    for dim in value if isinstance(value, Mapping) else ():
        if dim not in takers:
            which = (
                f"whose mode {_shown(modes)[dim]!r} does not take it"
                if dim in modes
                else "which has no halo"
            )
            raise ValueError(
                f"{key} gives a value for dimension {dim!r}, {which}; {fit}: leave {dim!r} "
                f"out of {key}"
            )
    return takers


def _shown(modes: Mapping[Hashable, OneMode | None]) -> dict[Hashable, str]:
    """The modes as a message shows them (a function by its name, no pad as dask's
    ``"none"``)."""

    def one(m: OneMode | None) -> str:
        if m is None:
            return "none"
        return m if isinstance(m, str) else getattr(m, "__name__", repr(m))

    return {d: one(m) for d, m in modes.items()}
