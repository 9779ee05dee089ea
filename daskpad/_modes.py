"""The one table of padding modes.

Every place that needs to know something about a mode reads it here: argument validation
(:mod:`daskpad._normalize`), the graph builders (:mod:`daskpad._graph`) and the tests.
Adding a mode means adding a row here and, if no existing builder fits, one builder.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class Mode:
    """What daskpad knows about one ``numpy.pad`` mode.

    Attributes
    ----------
    name
        The mode string, as numpy spells it.
    kwargs
        The keyword arguments numpy accepts for this mode (anything else is an error).
    builder
        The family of graph builder that produces its pad blocks:
        ``"fill"`` (constant/empty: no input data), ``"gather"`` (values copied or
        reflected from the array: edge, reflect, symmetric, wrap), ``"ramp"``
        (linear_ramp) and ``"stat"`` (maximum, mean, median, minimum).
    needs_data
        Whether the mode reads the array, so it cannot extend an axis of length 0.
    stat
        For statistic modes, the name of the numpy reduction (``numpy.<stat>``).
    views
        Whether its pad blocks are read-only broadcast views of one face slice (for
        numpy blocks): they hold that slice in memory whatever their length, so their
        chunks grow to the budget (:func:`daskpad._chunks.pad_chunk_size`).
    """

    name: str
    kwargs: tuple[str, ...]
    builder: str
    needs_data: bool = True
    stat: str | None = None
    views: bool = False


_TABLE = (
    Mode("constant", ("constant_values",), "fill", needs_data=False, views=True),
    Mode("empty", (), "fill", needs_data=False, views=True),
    Mode("edge", (), "gather", views=True),
    Mode("reflect", ("reflect_type",), "gather"),
    Mode("symmetric", ("reflect_type",), "gather"),
    Mode("wrap", (), "gather"),
    Mode("linear_ramp", ("end_values",), "ramp"),
    Mode("maximum", ("stat_length",), "stat", stat="amax", views=True),
    Mode("mean", ("stat_length",), "stat", stat="mean", views=True),
    Mode("median", ("stat_length",), "stat", stat="median", views=True),
    Mode("minimum", ("stat_length",), "stat", stat="amin", views=True),
)

#: All string modes, by name (read-only).
MODES: MappingProxyType[str, Mode] = MappingProxyType({m.name: m for m in _TABLE})

#: numpy.pad's keywords of its own modes (a function gets any others)
KEYWORDS: tuple[str, ...] = tuple(sorted({k for m in _TABLE for k in m.kwargs}))

#: The values ``reflect_type`` may take (numpy documents these two and silently treats
#: anything else as ``"even"``; daskpad refuses anything else).
REFLECT_TYPES = ("even", "odd")


def mode_named(mode: Any) -> Mode:
    """The mode called ``mode``; ``ValueError`` naming the choices for any other string
    (an unhashable ``mode`` raises ``TypeError``, as a dict lookup does)."""
    try:
        return MODES[mode]
    except KeyError:
        raise ValueError(
            f"mode '{mode}' is not supported; choose one of {sorted(MODES)} or a function"
        ) from None


def modes_taking(kwargs: Iterable[str]) -> list[str]:
    """The modes that take every keyword argument in ``kwargs``."""
    wanted = set(kwargs)
    return [name for name, spec in MODES.items() if wanted <= set(spec.kwargs)]


def check_kwargs(mode: str, given: Mapping[str, Any]) -> Mode:
    """The one rule for a mode's keyword arguments, which ``daskpad.pad``, ``pad2`` and the
    command all ask: each given one must be one the mode takes (``numpy.pad`` refuses the
    others with ``ValueError``), and ``reflect_type`` must be ``"even"`` or ``"odd"``
    (numpy silently treats any other value as ``"even"``; a typo should not pass
    unnoticed). Returns the mode (:func:`mode_named`)."""
    spec = mode_named(mode)
    unsupported = sorted(set(given) - set(spec.kwargs))
    if unsupported:
        fit = modes_taking(unsupported)
        hint = f"; they fit mode(s) {fit}" if fit else ""
        raise ValueError(
            f"unsupported keyword arguments for mode '{mode}': {unsupported}; "
            f"mode '{mode}' takes: {', '.join(spec.kwargs) or 'none'}{hint}"
        )
    reflect_type = given.get("reflect_type", "even")
    if "reflect_type" in spec.kwargs and reflect_type not in REFLECT_TYPES:
        raise ValueError(f"reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    return spec


@dataclass(frozen=True)
class EdgeFunction:
    """A user pad function with a promise: on each line it reads at most ``reads`` data
    values next to each edge (and the pads), and writes only the pads.

    Made by :func:`daskpad.edge_function`. It is called exactly as the function it wraps,
    so ``numpy.pad`` takes it too and gives the same result; daskpad uses the promise to
    compute the pads from the edge chunks alone, like its own modes, instead of handing
    every whole line of every axis to the function.
    """

    function: Callable[..., Any]
    reads: int

    def __call__(self, vector: Any, iaxis_pad_width: Any, iaxis: int, kwargs: Any) -> Any:
        return self.function(vector, iaxis_pad_width, iaxis, kwargs)


def edge_function(function: Callable[..., Any] | None = None, *, reads: int) -> Any:
    """Mark a pad function ``f(vector, iaxis_pad_width, iaxis, kwargs)`` as one that reads
    at most ``reads`` data values next to each edge of a line and writes only the pads.

    numpy.pad calls a pad function on every whole line of every axis, and the function may
    read and write anywhere in the line, so daskpad must otherwise hand it whole lines:
    axis after axis, each a pass over the whole array that holds a large part of it in
    memory. With the promise, the pads are computed from the ``reads`` values next to each
    edge, in one task per face block of the edge chunks, and the interior is never
    touched: cost and memory follow the boundary, as for the built-in modes.

    The function still sees lines of their full length, with the pads (zeros to fill, and
    the pads of the axes padded before) at their places and, of the data, exactly the
    ``reads`` values next to each edge (the whole line when it is shorter than
    ``2 * reads``); the data between is zero there. A function that reads further in, or
    writes outside the pads, gets results that differ from numpy.pad's: the promise is
    the caller's to keep.

    Usable as a decorator: ``@daskpad.edge_function(reads=1)``.

    >>> import numpy as np, dask.array as da, daskpad
    >>> @daskpad.edge_function(reads=1)
    ... def step_away(vector, iaxis_pad_width, iaxis, kwargs):
    ...     before, after = iaxis_pad_width
    ...     vector[:before] = vector[before] - np.arange(before, 0, -1)
    ...     vector[len(vector) - after :] = vector[-after - 1] + np.arange(1, after + 1)
    >>> daskpad.pad(da.arange(6, chunks=2), (2, 3), step_away).compute()
    array([-2, -1,  0,  1,  2,  3,  4,  5,  6,  7,  8])
    """
    if isinstance(reads, bool) or not isinstance(reads, numbers.Integral):
        raise TypeError(f"reads must be an integer, got {reads!r}")
    if reads < 0:
        raise ValueError(f"reads must be at least 0, got {reads}")
    if function is None:
        return lambda f: edge_function(f, reads=reads)
    if not callable(function):
        raise TypeError(f"edge_function needs a function, got {function!r}")
    return EdgeFunction(function, int(reads))
