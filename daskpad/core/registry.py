"""The one table of padding modes, which the mode families fill.

Each family module of :mod:`daskpad.modes` (constant/empty, edge, reflect/symmetric/wrap,
linear_ramp, the statistics, the user function) holds its graph builder, its kernels and
its fill program, and registers its modes here (:func:`register`). Everything that needs
to know something about a mode reads this table: argument checking
(:mod:`daskpad.core.plan`), the grid that runs the builders axis by axis
(:mod:`daskpad.core.axes`), map_overlap's boundary names (:mod:`daskpad.core.boundaries`),
``pad2``, the command's ``--mode`` choices, the docs and the tests. Adding a mode means
adding one module that registers it (docs/design.md shows one).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

#: a family's graph builder: ``build(grid, axis plan, plan, side chunks) -> (before, after)``
#: (:mod:`daskpad.core.sides` has the types)
Builder = Callable[..., Any]


@dataclass(frozen=True)
class Mode:
    """What daskpad knows about one padding mode.

    Attributes
    ----------
    name
        The mode string, as numpy spells it.
    kwargs
        The keyword arguments the mode accepts (anything else is an error).
    builder
        The family of graph builder that produces its pad blocks (registered with it):
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
    kwargs: tuple[str, ...]
    builder: str
    needs_data: bool = True
    stat: str | None = None
    views: bool = False
    copies: bool = False
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    reference: Callable[..., Any] | None = None


_MODES: dict[str, Mode] = {}
_BUILDERS: dict[str, Builder] = {}
_ALIGNS: dict[str, Callable[..., Any]] = {}
_PREPARES: dict[str, Callable[..., Any]] = {}

#: Every mode by name, in the order registered (a read-only view of the live table).
MODES: Mapping[str, Mode] = MappingProxyType(_MODES)
#: Each family's graph builder, by family name (read-only).
BUILDERS: Mapping[str, Builder] = MappingProxyType(_BUILDERS)
#: Each family's cut of its pad sides into blocks that are views of one input block, by
#: family name: ``align(axis plan, plan, input chunks along the axis, side) -> cuts or
#: None`` (:func:`daskpad.core.chunks.pad_layout`).
ALIGNS: Mapping[str, Callable[..., Any]] = MappingProxyType(_ALIGNS)
#: What a family prepares in the grid before any axis is built (the statistics share the
#: partial reductions of whole axes): ``prepare(grid, [(axis plan, plan), ...])``.
PREPARES: Mapping[str, Callable[..., Any]] = MappingProxyType(_PREPARES)

#: The mark of the layers a tiled store computes before its tiles (a statistic a pad
#: repeats: :func:`daskpad.store.settle.settle_statistics`)
SETTLE_FIRST = "statistic"

#: The values ``reflect_type`` may take (numpy documents these two and silently treats
#: anything else as ``"even"``; daskpad refuses anything else).
REFLECT_TYPES = ("even", "odd")


def register(
    modes: Iterable[Mode],
    build: Builder | None = None,
    *,
    family: str | None = None,
    align: Callable[..., Any] | None = None,
    prepare: Callable[..., Any] | None = None,
) -> None:
    """Register ``modes`` (each by its name) and their family's builder ``build``, with
    the family's ``align`` and ``prepare`` hooks (:data:`ALIGNS`, :data:`PREPARES`).
    ``family`` names a builder that no mode of the table uses by name (the user
    function's). Registering a name again replaces it."""
    modes = list(modes)
    families = {m.builder for m in modes} | ({family} if family else set())
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
        if not any(m.builder == mode.builder for m in _MODES.values()):
            for table in (_BUILDERS, _ALIGNS, _PREPARES):
                table.pop(mode.builder, None)


def keywords() -> tuple[str, ...]:
    """The keywords of the registered modes (a function gets any others)."""
    return tuple(sorted({k for m in _MODES.values() for k in m.kwargs}))


def mode_named(mode: Any) -> Mode:
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


def modes_taking(kwargs: Iterable[str]) -> list[str]:
    """The modes that take every keyword argument in ``kwargs``."""
    wanted = set(kwargs)
    return [name for name, spec in MODES.items() if wanted <= set(spec.kwargs)]


@dataclass(frozen=True)
class Misfit:
    """A keyword argument that does not fit the modes it was given with
    (:func:`keyword_misfits`). Each caller words it for its own arguments (:meth:`words`),
    so ``daskpad.pad``, ``daskpad.map_overlap`` and ``pad2`` say the same thing alike.

    Attributes
    ----------
    keyword
        The keyword argument.
    unused
        True: the mode of no axis (or dimension) that counts takes it. False: its
        ``{place: value}`` mapping names ``place``, whose mode does not take it.
    place
        The axis or dimension named where it does not fit (None when ``unused``).
    mode
        That place's mode, a name or a function (None when ``unused``).
    counted
        When ``unused``: the mode of each place that counts (none takes the keyword).
    fits
        The registered modes that take the keyword (none: no mode takes it).
    """

    keyword: str
    unused: bool
    place: Any = None
    mode: Any = None
    counted: Mapping[Any, Any] = field(default_factory=dict)
    fits: tuple[str, ...] = ()

    def words(
        self, noun: str = "axis", argument: str = "mode", *, padded: bool = True, note: str = ""
    ) -> str:
        """The one-line refusal. ``noun`` names a place (``"axis"``, ``"dimension"``),
        ``argument`` the caller's argument that names the modes (``"mode"``,
        ``"boundary"``); for an unused keyword, ``padded`` says whether a padded place
        counts whatever ``argument`` names, and ``note`` what the places ``argument``
        does not name are."""
        kw = self.keyword
        fit = f"{kw} is for mode(s) {list(self.fits)}" if self.fits else f"no mode takes {kw}"
        if not self.unused:
            return (
                f"{kw} gives a value for {noun} {self.place!r}, whose mode "
                f"{mode_name(self.mode)!r} does not take {kw}; {fit}. Leave {self.place!r} "
                f"out of {kw}"
            )
        modes = {p: mode_name(m) for p, m in self.counted.items()}
        counts = f"named in {argument}{' or padded' if padded else ''}"
        return (
            f"unsupported keyword argument {kw}: the mode of no {noun} {counts} takes it "
            f"({modes}{'; ' + note if note else ''}); {fit}"
        )


def mode_name(mode: Any) -> str:
    """A mode as a message shows it: its name, or a function's name."""
    return mode if isinstance(mode, str) else getattr(mode, "__name__", repr(mode))


def keyword_misfits(
    modes: Mapping[Any, Any],
    counted: Collection[Hashable],
    named: Mapping[str, Collection[Hashable]],
) -> list[Misfit]:
    """The keyword arguments that do not fit the modes they are given with: the one rule
    that ``daskpad.pad``, ``daskpad.map_overlap`` and ``pad2`` ask of a mode per axis or
    per dimension (:func:`check_kwargs` asks it of one mode).

    numpy.pad decides by mode, not by width (``numpy.pad(a, 0, "constant",
    constant_values=1)`` is fine), so a keyword fits when the mode of a place that counts
    takes it: a place the caller gave a mode by name, whatever its width, or one that is
    padded (a place left to the default mode counts only there). A keyword's
    ``{place: value}`` mapping may name only places whose mode takes it.

    Parameters
    ----------
    modes
        Each place's mode (an axis's or a dimension's): a mode name, or a function (which
        takes none of the table's keywords; a caller that hands a function the keywords
        no mode takes reads the unused misfits as the function's).
    counted
        The places whose mode counts: named by the caller, or padded.
    named
        Each keyword argument given, with the places its ``{place: value}`` mapping names
        (none for one value for every place).

    Returns
    -------
    list of Misfit
        In the order of ``named``: an unused keyword once, else each place its mapping
        names whose mode does not take it. Empty when everything fits.

    Examples
    --------
    >>> modes = {0: "constant", 1: "wrap"}
    >>> keyword_misfits(modes, {0, 1}, {"constant_values": ()})
    []
    >>> print(keyword_misfits(modes, {1}, {"constant_values": ()})[0].words())
    unsupported keyword argument constant_values: the mode of no axis named in mode or \
padded takes it ({1: 'wrap'}); constant_values is for mode(s) ['constant']
    >>> print(keyword_misfits(modes, {0, 1}, {"constant_values": (1,)})[0].words())
    constant_values gives a value for axis 1, whose mode 'wrap' does not take \
constant_values; constant_values is for mode(s) ['constant']. Leave 1 out of constant_values
    """

    def takes(place: Hashable, keyword: str) -> bool:
        mode = modes.get(place)
        return isinstance(mode, str) and mode in _MODES and keyword in _MODES[mode].kwargs

    misfits = []
    for keyword, places in named.items():
        fits = tuple(modes_taking([keyword]))
        if not any(takes(p, keyword) for p in counted):
            shown = {p: m for p, m in modes.items() if p in counted}
            misfits.append(Misfit(keyword, True, counted=shown, fits=fits))
            continue
        misfits += [
            Misfit(keyword, False, place=p, mode=modes.get(p), fits=fits)
            for p in places
            if not takes(p, keyword)
        ]
    return misfits


def check_kwargs(mode: str, given: Mapping[str, Any]) -> Mode:
    """The one rule for a mode's keyword arguments, which ``daskpad.pad``, ``pad2`` and the
    command all ask: each given one must be one the mode takes (``numpy.pad`` refuses the
    others with ``ValueError``), and ``reflect_type`` must be ``"even"`` or ``"odd"``
    (numpy silently treats any other value as ``"even"``; a typo should not pass
    unnoticed). Returns the mode (:func:`mode_named`)."""
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
