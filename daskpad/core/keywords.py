"""The one table of the modes' keyword arguments, and the one rule of which fit which mode.

numpy.pad's modes take a few keyword arguments (``constant_values``, ``end_values``,
``stat_length``, ``reflect_type``). Each is declared here once, as a :class:`Keyword`:
the modes that take it, what it holds (which says how it is normalised, drawn by the
test strategies and parsed from the command line), numpy's default, the value an axis
padded by another call gets, and the command's option. Everything that handles keywords
reads this table: the planner (:mod:`daskpad.core.plan`), a mode per axis
(:mod:`daskpad.core.per_axis`), ``pad2`` and its variables (:mod:`daskpad.xarray`), the
command's options (:mod:`daskpad.cli.args`) and the hypothesis strategies
(:mod:`daskpad.testing.hypothesis_strategies`). Whatever keyword is not in the table belongs to a
user function (``mode=callable``), which receives it.

:func:`keyword_misfits` is the one decision whether the keywords given fit the modes;
it returns :class:`Misfit` records that each front end words for its own users.

Adding a keyword is one :class:`Keyword` here (:func:`define` at run time, as the tests
do); the mode module that takes it reads its per-axis pairs from
:attr:`daskpad.core.plan.AxisPlan.pairs`, or its one value from
:attr:`daskpad.core.plan.PadPlan.options`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeVar

#: what a keyword holds, which says how every front end reads it
Kind = Literal["values", "lengths", "choice"]

T = TypeVar("T")
#: a place a mode is given for: an axis, or a dimension
P = TypeVar("P", bound=Hashable)


def _the_default(keyword: Keyword, length: int, fill: object) -> object:
    return keyword.default


def _the_fill(keyword: Keyword, length: int, fill: object) -> object:
    return fill


def _the_whole_axis(keyword: Keyword, length: int, fill: object) -> int:
    return max(length, 1)


@dataclass(frozen=True)
class Keyword:
    """One keyword argument of the padding modes.

    Attributes
    ----------
    name
        The keyword, as numpy.pad spells it.
    modes
        The modes that take it (any other mode refuses it, as numpy.pad does).
    kind
        What it holds, which says how it is normalised (:func:`daskpad.core.plan.normalize`),
        drawn (:mod:`daskpad.testing.hypothesis_strategies`) and parsed (the command):

        - ``"values"``: values in the array's units, broadcast like numpy's ``_as_pairs``
          to one ``(before, after)`` pair per axis (``constant_values``, ``end_values``);
        - ``"lengths"``: numbers of elements, likewise one pair per axis, rounded to
          integers, not negative, clipped to the axis's length, ``None`` for the whole
          axis (``stat_length``);
        - ``"choice"``: one of :attr:`choices`, for the whole call (``reflect_type``;
          per axis only by ``{axis: value}`` with a mode per axis).
    default
        numpy's value when it is not given.
    choices
        The values a ``"choice"`` keyword may take (numpy documents these and treats
        anything else as its default; daskpad refuses anything else).
    neutral
        ``neutral(keyword, axis length, fill) -> value``: the value of one side of an
        axis that a call covers without padding it (``pad2`` pads several dimensions of
        one mode in one numpy.pad call): numpy still reads it, so it must be one numpy
        takes (the fill the call promotes for, a whole axis for a statistic).
    in_pads
        Whether its values are written into the pads as they are (``constant_values``) or
        as a ramp's end (``end_values``), so that a variable whose kept encoding cannot
        store one of them is refused before anything is computed
        (:mod:`daskpad.xarray.storable`). A ``"values"`` keyword that only scales or
        shifts what the pad computes leaves it False.
    computing
        For a ``"choice"`` keyword of a mode that copies values (:attr:`daskpad.core.
        registry.Mode.copies`): the choices under which the mode computes its pads from
        the values instead (``reflect_type="odd"``: ``2 * edge - x``).
    flag, metavar, help
        The command's option (``--constant-value``), its value's form and its help.
    """

    name: str
    modes: tuple[str, ...]
    kind: Kind
    default: object = None
    choices: tuple[str, ...] = ()
    neutral: Callable[[Keyword, int, object], object] = _the_default
    in_pads: bool = False
    computing: tuple[str, ...] = ()
    flag: str = ""
    metavar: str = ""
    help: str = ""

    @property
    def per_axis(self) -> bool:
        """Whether it holds a ``(before, after)`` pair per axis (else one value)."""
        return self.kind != "choice"

    @property
    def option(self) -> str:
        """The attribute the command's parser stores the option's values in."""
        return self.flag.lstrip("-").replace("-", "_")

    def neutral_pair(self, length: int, fill: object) -> tuple[object, object]:
        """:attr:`neutral` for both sides of an axis of ``length``."""
        side = self.neutral(self, length, fill)
        return (side, side)

    def check_choice(self, value: T, argument: str | None = None) -> T:
        """``value`` if it is one of :attr:`choices` (anything goes for other kinds);
        ``ValueError`` naming ``argument`` (the keyword itself by default) otherwise."""
        if self.kind == "choice" and not (isinstance(value, str) and value in self.choices):
            shown = " or ".join(repr(c) for c in self.choices)
            raise ValueError(f"{argument or self.name} must be {shown}, got {value!r}")
        return value


_VALUE_FORM = "V|B:A|DIM=V|DIM=B:A"

_KEYWORDS: dict[str, Keyword] = {
    k.name: k
    for k in (
        Keyword(
            "constant_values",
            ("constant",),
            "values",
            default=0,
            neutral=_the_fill,
            in_pads=True,
            flag="--constant-value",
            metavar=_VALUE_FORM,
            help="mode constant: the fill in decoded units (after scale_factor), for every "
            "dimension padded with constant or (DIM=) for one (default: NaN, the fill value "
            "where a variable has one, promoting integer data without one to float); for "
            "a time variable, a whole number of nanoseconds since 1970-01-01",
        ),
        Keyword(
            "end_values",
            ("linear_ramp",),
            "values",
            default=0,
            in_pads=True,
            flag="--end-value",
            metavar=_VALUE_FORM,
            help="mode linear_ramp: the value ramped to, in decoded units, for every such "
            "dimension or (DIM=) for one (default 0)",
        ),
        Keyword(
            "stat_length",
            ("maximum", "mean", "median", "minimum"),
            "lengths",
            neutral=_the_whole_axis,
            flag="--stat-length",
            metavar="N|B:A|DIM=N|DIM=B:A",
            help="maximum/mean/median/minimum: values read at each edge, for every such "
            "dimension or (DIM=) for one (default: the whole dimension)",
        ),
        Keyword(
            "reflect_type",
            ("reflect", "symmetric"),
            "choice",
            default="even",
            choices=("even", "odd"),
            computing=("odd",),
            flag="--reflect-type",
            metavar="even|odd|DIM=even|DIM=odd",
            help="modes reflect, symmetric: for every such dimension or (DIM=) for one "
            "(default even)",
        ),
    )
}

#: Every keyword by name (a read-only view of the live table).
KEYWORDS: Mapping[str, Keyword] = MappingProxyType(_KEYWORDS)


#: the names a keyword may not take: the arguments of ``numpy.pad``, ``daskpad.pad`` and
#: ``pad2`` beside the modes' keywords
RESERVED = frozenset(
    {"array", "pad_width", "mode", "chunks", "keep_attrs", "coords", "x", "obj", "kwargs"}
)


def define(keyword: Keyword) -> None:
    """Add ``keyword`` to the table, for the modes it names (which register themselves).

    Raises
    ------
    ValueError
        ``keyword`` is in the table already (numpy's included: a mode that takes one of
        them lists it in that keyword's ``modes``), its name is one of :data:`RESERVED`,
        or its command flag is another keyword's.
    """
    if keyword.name in _KEYWORDS:
        raise ValueError(f"the keyword {keyword.name!r} is defined already")
    if keyword.name in RESERVED:
        raise ValueError(f"{keyword.name!r} is an argument of the pad functions, not a keyword")
    if keyword.flag and keyword.flag in {k.flag for k in _KEYWORDS.values()}:
        raise ValueError(f"the command flag {keyword.flag} belongs to another keyword")
    _KEYWORDS[keyword.name] = keyword


def undefine(name: str) -> None:
    """Remove the keyword ``name`` (one :func:`define` added) from the table."""
    del _KEYWORDS[name]


def keyword_names() -> tuple[str, ...]:
    """The keywords of the table, sorted (a user function gets any others)."""
    return tuple(sorted(_KEYWORDS))


def keywords_of(mode: object) -> tuple[str, ...]:
    """The keywords ``mode`` takes, in the table's order (none for a function)."""
    if not isinstance(mode, str):
        return ()
    return tuple(k.name for k in _KEYWORDS.values() if mode in k.modes)


def takes(mode: object, keyword: str) -> bool:
    """Whether ``mode`` (a mode name; a function takes none of the table's) takes
    ``keyword``."""
    known = _KEYWORDS.get(keyword)
    return isinstance(mode, str) and known is not None and mode in known.modes


def modes_taking(keywords: Iterable[str]) -> list[str]:
    """The modes that take every keyword in ``keywords``, in the table's order."""
    wanted = [_KEYWORDS.get(k) for k in keywords]
    if not wanted or None in wanted:
        return []
    first, *others = (k.modes for k in wanted if k is not None)
    return [m for m in first if all(m in o for o in others)]


def mode_name(mode: object) -> str:
    """A mode as a message shows it: its name, or a function's name."""
    return mode if isinstance(mode, str) else getattr(mode, "__name__", repr(mode))


@dataclass(frozen=True)
class Misfit:
    """A keyword argument that does not fit the modes it was given with
    (:func:`keyword_misfits`). Each caller words it for its own arguments (:meth:`words`,
    or its own words from the fields), so ``daskpad.pad``, ``daskpad.map_overlap``,
    ``pad2`` and the command say the same thing alike.

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
        The modes that take the keyword (none: no mode takes it, or not one of the table).
    """

    keyword: str
    unused: bool
    place: Any = None
    mode: object = None
    counted: Mapping[Hashable, object] = field(default_factory=dict)
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


def keyword_misfits(
    modes: Mapping[P, object],
    counted: Collection[P],
    named: Mapping[str, Collection[P]],
) -> list[Misfit]:
    """The keyword arguments that do not fit the modes they are given with: the one rule
    that ``daskpad.pad``, ``daskpad.map_overlap``, ``pad2`` and the command ask of one
    mode, a mode per axis or a mode per dimension.

    numpy.pad decides by mode, not by width (``numpy.pad(a, 0, "constant",
    constant_values=1)`` is fine), so a keyword fits when the mode of a place that counts
    takes it: a place the caller gave a mode by name, whatever its width, or one that is
    padded (a place left to the default mode counts only there). A keyword's
    ``{place: value}`` mapping may name only places whose mode takes it.

    Parameters
    ----------
    modes
        Each place's mode (an axis's or a dimension's; for one mode, ``{mode: mode}``): a
        mode name, or a function (which takes none of the table's keywords; a caller that
        hands a function the keywords no mode takes reads the unused misfits as the
        function's).
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
    misfits = []
    for keyword, places in named.items():
        fits = tuple(modes_taking([keyword]))
        if not any(takes(modes.get(p), keyword) for p in counted):
            shown: dict[Hashable, object] = {p: m for p, m in modes.items() if p in counted}
            misfits.append(Misfit(keyword, True, counted=shown, fits=fits))
            continue
        misfits += [
            Misfit(keyword, False, place=p, mode=modes.get(p), fits=fits)
            for p in places
            if not takes(modes.get(p), keyword)
        ]
    return misfits
