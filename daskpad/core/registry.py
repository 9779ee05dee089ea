"""The one table of padding modes, which the mode families fill.

Each family module of :mod:`daskpad.modes` (constant/empty, edge, reflect/symmetric/wrap,
linear_ramp, the statistics, the user function) holds its graph builder, its kernels and
its fill program, and registers its modes here (:func:`register`); the keywords a mode
takes are declared in the keyword table (:mod:`daskpad.core.keywords`). Everything that
needs to know something about a mode reads this table: argument checking
(:mod:`daskpad.core.plan`), the grid that runs the builders axis by axis
(:mod:`daskpad.core.axes`), map_overlap's boundary names (:mod:`daskpad.core.boundaries`),
``pad2``, the command's ``--mode`` choices, the docs and the tests. Adding a mode means
adding one module that registers it (docs/design.md shows one).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from daskpad.core.keywords import KEYWORDS, keyword_misfits, keywords_of, modes_taking

if TYPE_CHECKING:
    import dask.array as da
    import numpy.typing as npt

#: a family's graph builder: ``build(grid, axis plan, plan, side chunks) -> (before, after)``
#: (:mod:`daskpad.core.sides` has the types)
Builder = Callable[..., "tuple[da.Array | None, da.Array | None]"]


@dataclass(frozen=True)
class Mode:
    """What daskpad knows about one padding mode.

    Attributes
    ----------
    name
        The mode string, as numpy spells it.
    family
        The family of graph builder that produces its pad blocks (registered with it,
        :data:`BUILDERS`):
        ``"fill"`` (constant/empty: no input data), ``"edge"`` (the edge element
        repeated), ``"gather"`` (values copied or reflected from the array: reflect,
        symmetric, wrap), ``"ramp"`` (linear_ramp) and ``"stat"`` (maximum, mean, median,
        minimum).
    needs_data
        Whether the mode reads the array, so it cannot extend an axis of length 0.
    stat
        For statistic modes, the name of the numpy reduction (``numpy.<stat>``).
    views
        Whether its pad blocks are read-only broadcast views of one face slice (for
        numpy blocks): they hold that slice in memory whatever their length, so their
        chunks grow to the budget (:func:`daskpad.core.chunks.pad_chunk_size`).
    copies
        Whether its pads are values of the array itself (copied, mirrored or repeated), so
        that labels (an index coordinate) can be padded with it too.
    words
        The words other libraries' boundary vocabularies use for this mode, per library
        (``{"dask": ("periodic",)}``): :mod:`daskpad.core.boundaries` reads them.
    reference
        For a mode numpy.pad does not have: a function with numpy.pad's signature,
        ``reference(array, pad_width, **kwargs)``, that pads an in-memory array so. It
        stands in for numpy.pad wherever numpy is asked (the argument checks made on a
        small sample, the test oracle). None: numpy.pad itself.
    """

    name: str
    family: str
    needs_data: bool = True
    stat: str | None = None
    views: bool = False
    copies: bool = False
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    reference: Callable[..., npt.NDArray[np.generic]] | None = None

    @property
    def kwargs(self) -> tuple[str, ...]:
        """The keyword arguments the mode takes (anything else is an error): those of
        the keyword table (:data:`daskpad.core.keywords.KEYWORDS`) that name it."""
        return keywords_of(self.name)


_MODES: dict[str, Mode] = {}
_BUILDERS: dict[str, Builder] = {}
_ALIGNS: dict[str, Callable[..., list[int] | None]] = {}
_PREPARES: dict[str, Callable[..., object]] = {}

#: Every mode by name, in the order registered (a read-only view of the live table).
MODES: Mapping[str, Mode] = MappingProxyType(_MODES)
#: Each family's graph builder, by family name (read-only).
BUILDERS: Mapping[str, Builder] = MappingProxyType(_BUILDERS)
#: Each family's cut of its pad sides into blocks that are views of one input block, by
#: family name: ``align(axis plan, plan, input chunks along the axis, side) -> cuts or
#: None`` (:func:`daskpad.core.chunks.pad_layout`).
ALIGNS: Mapping[str, Callable[..., list[int] | None]] = MappingProxyType(_ALIGNS)
#: What a family prepares in the grid before any axis is built (the statistics share the
#: partial reductions of whole axes): ``prepare(grid, [(axis plan, plan), ...])``.
PREPARES: Mapping[str, Callable[..., object]] = MappingProxyType(_PREPARES)

#: The mark of the layers a tiled store computes before its tiles (a statistic a pad
#: repeats: :func:`daskpad.store.writing.settle.settle_statistics`)
SETTLE_FIRST = "statistic"


def register(
    modes: Iterable[Mode],
    build: Builder | None = None,
    *,
    family: str | None = None,
    align: Callable[..., list[int] | None] | None = None,
    prepare: Callable[..., object] | None = None,
) -> None:
    """Register ``modes`` (each by its name) and their family's builder ``build``, with
    the family's ``align`` and ``prepare`` hooks (:data:`ALIGNS`, :data:`PREPARES`).
    ``family`` names a builder that no mode of the table uses by name (the user
    function's). Registering a name again replaces it."""
    modes = list(modes)
    families = {m.family for m in modes} | ({family} if family else set())
    if build is None and any(f not in _BUILDERS for f in families):
        raise ValueError(f"no builder registered for {sorted(families - set(_BUILDERS))}")
    for m in modes:
        _MODES[m.name] = m
    for f in families:
        if build is not None:
            _BUILDERS[f] = build
        if align is not None:
            _ALIGNS[f] = align
        if prepare is not None:
            _PREPARES[f] = prepare


def unregister(*names: str) -> None:
    """Remove the modes ``names`` (and a family's hooks when no mode uses it any more)."""
    for name in names:
        mode = _MODES.pop(name)
        if not any(m.family == mode.family for m in _MODES.values()):
            for table in (_BUILDERS, _ALIGNS, _PREPARES):
                table.pop(mode.family, None)


def copies_values(mode: object, choices: Mapping[str, object]) -> bool:
    """Whether the pads of ``mode`` (a name; a function computes) are values of the array
    itself, copied, mirrored or repeated (:attr:`Mode.copies`), with the ``choices`` given
    for its ``"choice"`` keywords (``{"reflect_type": "odd"}`` computes: the keyword
    table's :attr:`daskpad.core.keywords.Keyword.computing`)."""
    if not (isinstance(mode, str) and mode in _MODES and _MODES[mode].copies):
        return False
    return not any(choices.get(name) in KEYWORDS[name].computing for name in keywords_of(mode))


def values_in_pads(mode: object, given: Mapping[str, object]) -> list[Any]:
    """The keyword values that ``mode`` (a name; a function has none) writes into its pads
    as they are (:attr:`daskpad.core.keywords.Keyword.in_pads`: a constant, a ramp's end),
    from ``given`` (each keyword's value, a scalar or a ``(before, after)`` pair), numpy's
    default for one not given."""
    found: list[object] = []
    for name in keywords_of(mode):
        keyword = KEYWORDS[name]
        if keyword.in_pads:
            value = given.get(name, keyword.default)
            found += list(value) if isinstance(value, (tuple, list)) else [value]
    return found


def mode_named(mode: str) -> Mode:
    """The mode called ``mode``; ``ValueError`` naming the choices for any other string
    (an unhashable ``mode`` raises ``TypeError``, as a dict lookup does)."""
    try:
        return MODES[mode]
    except KeyError:
        raise ValueError(
            f"mode '{mode}' is not supported; choose one of {sorted(MODES)} or a function"
        ) from None


def numpy_pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
    """numpy.pad of an in-memory ``array``, or for a registered mode numpy does not have,
    the reference the mode registered (:attr:`Mode.reference`): what an argument check on
    a sample, an in-memory variable of pad2 and the test oracle each pad with."""
    spec = _MODES.get(mode) if isinstance(mode, str) else None
    if spec is not None and spec.reference is not None:
        return spec.reference(np.asarray(array), pad_width, **kwargs)
    return np.pad(array, pad_width, mode=mode, **kwargs)


def check_kwargs(mode: str, given: Mapping[str, object]) -> Mode:
    """The one rule for one mode's keyword arguments, which ``daskpad.pad``, ``pad2`` and
    the command all ask: each given one must be one the mode takes
    (:func:`daskpad.core.keywords.keyword_misfits`; ``numpy.pad`` refuses the others with
    ``ValueError``), and a choice (``reflect_type``) must be one of its choices (numpy
    silently treats any other value as ``"even"``; a typo should not pass unnoticed).
    Returns the mode (:func:`mode_named`)."""
    spec = mode_named(mode)
    misfits = keyword_misfits({mode: mode}, {mode}, dict.fromkeys(given, ()))
    unsupported = sorted(m.keyword for m in misfits)
    if unsupported:
        fit = modes_taking(unsupported)
        hint = f"; they fit mode(s) {fit}" if fit else ""
        raise ValueError(
            f"unsupported keyword arguments for mode '{mode}': {unsupported}; "
            f"mode '{mode}' takes: {', '.join(spec.kwargs) or 'none'}{hint}"
        )
    for name in spec.kwargs:
        if name in given:
            KEYWORDS[name].check_choice(given[name])
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

    function: Callable[..., object]
    reads: int

    def __call__(
        self,
        vector: npt.NDArray[np.generic],
        iaxis_pad_width: tuple[int, int],
        iaxis: int,
        kwargs: Mapping[str, object],
    ) -> object:
        return self.function(vector, iaxis_pad_width, iaxis, kwargs)


@overload
def edge_function(function: Callable[..., object], *, reads: int) -> EdgeFunction: ...
@overload
def edge_function(
    function: None = None, *, reads: int
) -> Callable[[Callable[..., object]], EdgeFunction]: ...
def edge_function(
    function: Callable[..., object] | None = None, *, reads: int
) -> EdgeFunction | Callable[[Callable[..., object]], EdgeFunction]:
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
