"""``hypothesis`` strategies that draw padding inputs where padding code usually goes wrong:
irregular chunks (a last chunk of one element, edge chunks narrower than the pad), axes of
length 0 and 1, widths far wider than the axis, every dtype numpy pads, and every spelling
of every argument numpy accepts (or rejects). A drawn :class:`PadCase` checks itself with
:func:`daskpad.testing.assert_pad_matches_numpy`. Needs ``hypothesis`` (the ``test`` extra).

Examples
--------
>>> from hypothesis import given, settings
>>> from daskpad.strategies import pad_cases
>>> @settings(max_examples=20, deadline=None)
... @given(pad_cases("reflect"))
... def test_reflect(case):
...     case.check()
>>> test_reflect()
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from hypothesis import strategies as st

from daskpad.api.pad import AxisMode, AxisModes
from daskpad.core.keywords import KEYWORDS, Keyword, keyword_names
from daskpad.core.ndarrays import DType, KnownKind, Values
from daskpad.core.registry import MODES
from daskpad.testing.arrays import (
    PadWidth,
    _container,
    chunkings,
    data_arrays,
    dtypes,
    elements,
    pad_widths,
    shapes,
)
from daskpad.testing.functions import (
    pad_and_reverse_data,
    pad_inplace_and_return,
    pad_returning_new,
    pad_with_constant,
    pad_with_shuffled_line,
)
from daskpad.testing.reference import (
    _ALL_MODES,
    NUMPY_HAS_DICT_PAD_WIDTH,
    _axis_modes,
    _widths_of,
    assert_pad_matches_numpy,
)

__all__ = [
    "CALLABLES",
    "PadCase",
    "chunkings",
    "data_arrays",
    "dtypes",
    "invalid_pad_cases",
    "mode_kwargs",
    "pad_cases",
    "pad_widths",
    "per_axis_kwargs",
    "per_axis_modes",
    "per_axis_pad_cases",
    "shapes",
]


#: Padding functions the strategies draw, with a strategy for their keyword arguments.
CALLABLES: tuple[tuple[Callable[..., object], st.SearchStrategy[dict[str, int]]], ...] = (
    (
        pad_with_constant,
        st.one_of(st.just({}), st.fixed_dictionaries({"padder": st.integers(0, 100)})),
    ),
    (
        pad_with_shuffled_line,
        st.one_of(st.just({}), st.fixed_dictionaries({"shift": st.integers(0, 20)})),
    ),
    (pad_returning_new, st.just({})),
    (pad_inplace_and_return, st.just({})),
    (pad_and_reverse_data, st.just({})),
)


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------


def _scalar_forms(draw: st.DrawFn, value_strategy: st.SearchStrategy[object], ndim: int) -> object:
    """A value argument (constant_values, end_values, stat_length) in one of numpy's forms."""
    form = draw(
        st.sampled_from(
            ["scalar", "(v,)", "(before, after)", "((before, after),)", "per-axis", "array"]
        )
    )
    if form == "scalar":
        return draw(value_strategy)
    if form == "(v,)":
        return _container(draw, [draw(value_strategy)])
    pair = _container(draw, [draw(value_strategy), draw(value_strategy)])
    if form == "(before, after)":
        return pair
    if form == "((before, after),)":
        return _container(draw, [pair])
    pairs = [_container(draw, [draw(value_strategy), draw(value_strategy)]) for _ in range(ndim)]
    if form == "array":
        return np.array(pairs) if pairs else np.zeros((0, 2), dtype=np.int64)
    return _container(draw, pairs)


def _misfits(dtype: KnownKind) -> list[object]:
    """Values that do not fit ``dtype`` (numpy casts some, rejects others)."""
    kind = dtype.kind
    common: list[object] = ["a", None, 1.5, np.nan, 1e300, 2 + 3j]
    if kind in "iu":
        info = np.iinfo(dtype)
        return [*common, int(info.max) + 1, int(info.min) - 1, np.int64(-1), np.float32(2.5)]
    if kind == "b":
        return [*common, 2, -1]
    if kind == "f":
        return [*common, 10**400, "1.5"]
    if kind in "mM":
        other = "m" if kind == "M" else "M"
        return [
            *common,
            3,
            np.datetime64("2000-01-01") if other == "M" else np.timedelta64(5, "s"),
            "NaT",
            np.datetime64(5, "D") if kind == "M" else np.timedelta64(5, "D"),
        ]
    return common


def _fill_values(dtype: DType) -> st.SearchStrategy[object]:
    """Scalars for constant_values/end_values: mostly fitting ``dtype``, as numpy or Python
    scalars, sometimes not."""
    fitting = elements(dtype, bounded=True).map(lambda v: v)
    as_numpy = elements(dtype, bounded=True).map(
        lambda v: v if dtype.kind == "O" else np.asarray(v).astype(dtype)[()]
    )
    return st.one_of(fitting, as_numpy, st.sampled_from(_misfits(dtype)))


def _stat_lengths(ndim: int, longest: int) -> st.SearchStrategy[object]:
    one = st.one_of(
        st.integers(0, 3),
        st.integers(0, longest + 3),
        st.integers(1, longest + 3).map(np.int64),
        st.sampled_from([1.0, 1.6, 2.4]),
    )
    return st.one_of(st.none(), _forms_of(one, ndim))


@st.composite
def _forms_of(draw: st.DrawFn, value_strategy: st.SearchStrategy[object], ndim: int) -> object:
    return _scalar_forms(draw, value_strategy, ndim)


def keyword_values(
    keyword: Keyword, dtype: DType, shape: tuple[int, ...]
) -> st.SearchStrategy[object]:
    """Values of ``keyword`` in any of numpy's forms, drawn as its kind says (the keyword
    table, :mod:`daskpad.core.keywords`): values of ``dtype`` (sometimes not fitting it),
    lengths (wider than the axes too, and None), or one of its choices."""
    if keyword.kind == "choice":
        return st.sampled_from(keyword.choices)
    if keyword.kind == "lengths":
        return _stat_lengths(len(shape), max(shape, default=0))
    return _forms_of(_fill_values(dtype), len(shape))


def _one_value(
    keyword: Keyword, dtype: DType, shape: tuple[int, ...]
) -> st.SearchStrategy[object]:
    """One value of ``keyword`` for one axis (a mapping's entry)."""
    if keyword.kind == "choice":
        return st.sampled_from(keyword.choices)
    if keyword.kind == "lengths":
        return st.one_of(st.integers(1, 3), st.integers(0, max(shape, default=0) + 3))
    return _fill_values(dtype)


@st.composite
def mode_kwargs(
    draw: st.DrawFn, mode: AxisMode, dtype: DType, shape: tuple[int, ...]
) -> dict[str, object]:
    """Keyword arguments ``mode`` takes, each left out or drawn in any of numpy's forms."""
    if callable(mode):
        for function, their_kwargs in CALLABLES:
            if function is mode:
                return dict(draw(their_kwargs))
        return {}
    kwargs: dict[str, object] = {}
    for name in MODES[mode].kwargs if mode in MODES else ():
        keyword = KEYWORDS[name]
        # (values left out half the time, lengths and choices a quarter)
        if draw(st.booleans() if keyword.kind == "values" else st.integers(0, 3)):
            kwargs[name] = draw(keyword_values(keyword, dtype, shape))
    return kwargs


def _repr_array(data: Values) -> str:
    def item(v: object) -> str:
        if isinstance(v, float) and not np.isfinite(v):
            return f"float('{v}')"
        if isinstance(v, complex):
            return f"complex({item(v.real)}, {item(v.imag)})"
        return repr(v)

    def nested(v: object) -> str:
        if isinstance(v, list):
            return "[" + ", ".join(nested(e) for e in v) + "]"
        return item(v)

    if data.dtype.kind in "mM":
        body = nested(data.astype(np.int64).tolist())
        return f"np.array({body}, dtype='int64').astype({data.dtype.str!r}).reshape({data.shape})"
    return f"np.array({nested(data.tolist())}, dtype={data.dtype.str!r}).reshape({data.shape})"


class PadCase:
    """One drawn input: its ``repr`` is a runnable reproducer."""

    __slots__ = ("chunks", "data", "kwargs", "mode", "pad_width")

    def __init__(
        self,
        data: Values,
        chunks: tuple[tuple[int, ...], ...],
        pad_width: object,
        mode: object,
        kwargs: dict[str, object] | None = None,
    ) -> None:
        self.data = data
        self.chunks = chunks
        self.pad_width = pad_width
        self.mode = mode
        self.kwargs = {} if kwargs is None else kwargs

    def check(self) -> None:
        """Pad the case with daskpad and with ``numpy.pad``, and raise ``AssertionError``
        where they differ (:func:`assert_pad_matches_numpy`)."""
        assert_pad_matches_numpy(self.data, self.chunks, self.pad_width, self.mode, **self.kwargs)

    def __repr__(self) -> str:
        mode = getattr(self.mode, "__name__", None) or repr(self.mode)
        kwargs = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return (
            f"assert_pad_matches_numpy({_repr_array(self.data)}, {self.chunks!r}, "
            f"{self.pad_width!r}, {mode}{kwargs})"
        )


@st.composite
def pad_cases(
    draw: st.DrawFn,
    mode: AxisMode,
    *,
    dtype: DType | None = None,
    shape: st.SearchStrategy[tuple[int, ...]] | None = None,
) -> PadCase:
    """A valid-looking call for ``mode`` (a mode name or a padding function): data of any
    dtype and shape, irregular chunks, ``pad_width`` and keyword arguments in any of numpy's
    forms. numpy may still reject some (a constant that does not fit the dtype, ``mean`` of
    datetimes, ``stat_length=0`` for maximum): the errors are compared too."""
    dtype = draw(dtypes()) if dtype is None else np.dtype(dtype)
    array_shape = draw(shapes() if shape is None else shape)
    data = draw(data_arrays(dtype, array_shape, bounded=mode == "mean"))
    chunks = draw(chunkings(array_shape))
    pad_width = draw(pad_widths(array_shape, chunks))
    kwargs = draw(mode_kwargs(mode, dtype, array_shape))
    return PadCase(data, chunks, pad_width, mode, kwargs)


@st.composite
def per_axis_modes(
    draw: st.DrawFn, ndim: int, *, functions: bool = True
) -> list[AxisMode] | tuple[AxisMode, ...] | dict[int, AxisMode]:
    """A mode per axis, as ``{axis: mode}`` (some axes left to ``"constant"``, negative
    axes too) or one mode per axis: every numpy mode and, with ``functions``, the
    padding functions (never beside ``"empty"``, whose undefined pads a function could
    read)."""
    names = sorted(_ALL_MODES)
    choices: st.SearchStrategy[AxisMode] = st.sampled_from(names)
    if functions:
        choices = st.one_of(choices, st.sampled_from([f for f, _ in CALLABLES]))
    modes = draw(st.lists(choices, min_size=ndim, max_size=ndim))
    if "empty" in modes:
        modes = [m if isinstance(m, str) else "edge" for m in modes]
    if draw(st.booleans()):
        return modes if draw(st.booleans()) else tuple(modes)
    named = draw(st.lists(st.sampled_from(range(ndim)), unique=True)) if ndim else []
    return {
        (a - ndim if draw(st.booleans()) else a): modes[a]
        for a in named
        if not (modes[a] == "constant" and draw(st.booleans()))
    }


@st.composite
def per_axis_kwargs(
    draw: st.DrawFn,
    mode: AxisModes,
    dtype: DType,
    shape: tuple[int, ...],
) -> dict[str, object]:
    """Keyword arguments for a per-axis ``mode``: each keyword some axis's mode takes left
    out, in one of numpy's forms, or as ``{axis: value}`` for some of the axes that take
    it; and the keywords of a padding function among the modes."""
    ndim = len(shape)
    modes = _axis_modes(mode, ndim)
    kwargs: dict[str, object] = {}
    for name, keyword in KEYWORDS.items():
        axes = [a for a, m in enumerate(modes) if isinstance(m, str) and m in keyword.modes]
        if not axes or not draw(st.booleans()):
            continue
        value = _one_value(keyword, dtype, shape)
        pair = value if not keyword.per_axis else st.one_of(value, st.tuples(value, value))
        if draw(st.booleans()):
            chosen = draw(st.lists(st.sampled_from(axes), min_size=1, unique=True))
            kwargs[name] = {a: draw(pair) for a in chosen}
        else:
            kwargs[name] = draw(keyword_values(keyword, dtype, shape).filter(_not_none))
    for m in modes:
        if callable(m):
            kwargs.update(draw(mode_kwargs(m, dtype, shape)))
    return kwargs


def _not_none(v: object) -> bool:
    return v is not None


@st.composite
def per_axis_pad_cases(
    draw: st.DrawFn,
    *,
    dtype: DType | None = None,
    shape: st.SearchStrategy[tuple[int, ...]] | None = None,
    functions: bool = True,
) -> PadCase:
    """A call with a mode per axis (:func:`per_axis_modes`) and its keywords in every form
    (:func:`per_axis_kwargs`), on data drawn as :func:`pad_cases` draws it; checked against
    :func:`daskpad.testing.chained_numpy_pad`.

    Half the draws leave some axes unpadded (width 0), named in ``mode`` or not, so that a
    keyword may go only to axes of width 0 (numpy.pad's keywords go by mode, not width:
    an axis ``mode`` names counts whatever its width, one left to ``"constant"`` only where
    padded); a few add a keyword that no axis's mode takes (refused, or a function's)."""
    dtype = draw(dtypes()) if dtype is None else np.dtype(dtype)
    array_shape = draw(shapes() if shape is None else shape)
    ndim = len(array_shape)
    mode = draw(per_axis_modes(ndim, functions=functions))
    modes = _axis_modes(mode, ndim)
    data = draw(data_arrays(dtype, array_shape, bounded="mean" in modes))
    chunks = draw(chunkings(array_shape))
    pad_width = draw(pad_widths(array_shape, chunks))
    if ndim and draw(st.booleans()):
        pad_width = draw(_some_axes_unpadded(pad_width, array_shape))
    kwargs = draw(per_axis_kwargs(mode, dtype, array_shape))
    untaken = [
        k
        for n, k in KEYWORDS.items()
        if n not in kwargs and not any(isinstance(m, str) and m in k.modes for m in modes)
    ]
    if untaken and draw(st.integers(0, 9)) == 7:  # (about one in ten)
        keyword = draw(st.sampled_from(untaken))
        kwargs[keyword.name] = keyword.choices[-1] if keyword.kind == "choice" else 1
    return PadCase(data, chunks, pad_width, mode, kwargs)


@st.composite
def _some_axes_unpadded(draw: st.DrawFn, pad_width: object, shape: tuple[int, ...]) -> PadWidth:
    """``pad_width`` (drawn for ``shape``) with the widths of some axes 0, as one pair per
    axis or (where numpy takes it) ``{axis: width}``, the axes of width 0 in it or not."""
    ndim = len(shape)
    widths = list(_widths_of(np.zeros(0), np.zeros(shape, dtype=np.int8), pad_width))
    for axis in draw(st.lists(st.sampled_from(range(ndim)), min_size=1, unique=True)):
        widths[axis] = (0, 0)
    if NUMPY_HAS_DICT_PAD_WIDTH and draw(st.booleans()):
        return {a: w for a, w in enumerate(widths) if any(w) or draw(st.booleans())}
    return tuple(widths)


_BAD_WIDTHS = (
    -1,
    (-1,),
    (2, -3),
    1.0,
    1.5,
    (1, 2.5),
    np.float64(2),
    np.uint8(2),
    (np.uint16(1), np.uint16(2)),
    True,
    (True, False),
    "3",
    None,
    [[1, 2], [3]],
    [[[1, 2]]],
    (1, 2, 3),
    [[1, 2, 3], [4, 5, 6]],
    np.zeros((0, 2), dtype=np.int64),
    [],
    {0: np.int64(2)},
    {0: [1, 2]},
    {0: (1, 2, 3)},
    {0: 1.5},
    {"x": 1},
    {5: 1},
    {-5: (1, 1)},
)

_BAD_MODES = (
    "foo",
    "Constant",
    "",
    None,
    3,
    ("edge", "foo"),
    ["edge"] * 5,
    {0: "foo"},
    {"x": "edge"},
    {7: "edge"},
    {0: None},
)


# what invalid_pad_cases makes wrong, and the wrong values it draws from (with a few that
# depend on the drawn shape)
_INVALID_WHAT = ("width", "mode", "kwarg", "stat_length", "values", "reflect_type", "empty axis")
_BAD_STAT_LENGTHS = (
    0,
    (0, 1),
    (1, 0),
    -1,
    (2, -1),
    "2",
    [[1, 2], [3]],
    (1, 2, 3),
    (None, 2),
    1e20,
)
_BAD_VALUES = ((1, 2, 3), [[1, 2], [3]], [[[1, 2]]] * 2, "abc", object())


@st.composite
def invalid_pad_cases(draw: st.DrawFn) -> PadCase:
    """Calls numpy.pad should reject (or, where it accepts them after all, that are odd):
    negative, non-integral, unsigned, ragged, wrong-length and wrongly-keyed widths; unknown
    modes; keyword arguments the mode does not take; bad ``stat_length``, ``constant_values``
    and ``reflect_type``; data modes extending an axis of length 0."""
    dtype = draw(dtypes())
    shape = draw(shapes(max_dims=3, max_side=6))
    data = draw(data_arrays(dtype, shape))
    chunks = draw(chunkings(shape))
    mode: object = draw(st.sampled_from(sorted(_ALL_MODES)))
    pad_width: object = draw(pad_widths(shape, chunks, budget=400, max_blocks=32))
    kwargs: dict[str, object] = {}
    what = draw(st.sampled_from(_INVALID_WHAT))
    if what == "width":
        # (a numpy without dict widths refuses every dict with its TypeError alike)
        bad = [w for w in _BAD_WIDTHS if NUMPY_HAS_DICT_PAD_WIDTH or not isinstance(w, dict)]
        pad_width = draw(st.sampled_from(bad))
    elif what == "mode":
        mode = draw(st.sampled_from(_BAD_MODES))
    elif what == "kwarg":
        name = draw(st.sampled_from([*keyword_names(), "foo"]))
        kwargs[name] = draw(st.sampled_from([0, 1, "odd", None]))
    elif what in ("stat_length", "values", "reflect_type"):
        kind = {"stat_length": "lengths", "reflect_type": "choice"}.get(what, what)
        keyword = draw(st.sampled_from([k for k in KEYWORDS.values() if k.kind == kind]))
        mode = draw(st.sampled_from([m for m in keyword.modes if m in MODES]))
        bad: tuple[object, ...] = {
            "lengths": (*_BAD_STAT_LENGTHS, [[0, 0]] * len(shape)),
            "values": (*_BAD_VALUES, [[1, 2]] * (len(shape) + 1)),
            "choice": ("Odd", "foo", None, "", 1),
        }[kind]
        kwargs[keyword.name] = draw(st.sampled_from(bad))
    else:  # a data mode on an array with an axis of length 0, padded there
        mode = draw(st.sampled_from(sorted(_ALL_MODES - {"constant", "empty"})))
        shape = (*shape[:2], 0)
        data = np.zeros(shape, dtype=dtype)
        chunks = tuple((n,) if n else (0,) for n in shape)
        pad_width = draw(st.sampled_from([1, (0, 1), ((1, 0),), 40]))
    return PadCase(data, chunks, pad_width, mode, kwargs)
