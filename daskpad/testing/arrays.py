"""``hypothesis`` strategies for the arrays padding tests draw: dtypes, shapes with axes of
length 0 and 1, irregular chunkings (a last chunk of one element, edge chunks narrower
than the pad), data of every dtype, and widths in every form numpy takes, far wider than
the axis too, within budgets that keep a drawn case fast.
:mod:`daskpad.testing.hypothesis_strategies` draws whole cases from them."""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from typing import SupportsIndex, TypeVar

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from daskpad.core.ndarrays import DType, KnownKind, Values
from daskpad.testing.reference import (
    DTYPES,
    NUMPY_HAS_DICT_PAD_WIDTH,
)

T = TypeVar("T")

#: one element of an array of a dtype the strategies draw
Element = int | float | complex | np.datetime64 | np.timedelta64

#: At most this many elements in the input (the product of max(length, 1)).
INPUT_BUDGET = 200

#: At most this many elements in the output (idem), which bounds the pad widths drawn.
OUTPUT_BUDGET = 1200

#: At most this many input chunks.
BLOCK_BUDGET = 24

#: At most about this many output chunks (which bounds the pad widths drawn).
OUTPUT_BLOCK_BUDGET = 64

#: Widths are drawn up to this (as long as the output budget allows).
MAX_WIDTH = 40


def dtypes() -> st.SearchStrategy[DType]:
    """A strategy drawing one of :data:`DTYPES`, every dtype numpy pads."""
    return st.sampled_from(DTYPES)


@st.composite
def shapes(
    draw: st.DrawFn,
    *,
    min_dims: int = 0,
    max_dims: int = 4,
    max_side: int = 12,
    budget: int = INPUT_BUDGET,
) -> tuple[int, ...]:
    """``min_dims`` to ``max_dims`` axes of length 0 to ``max_side``, at most ``budget``
    elements."""
    ndim = draw(st.integers(min_dims, max_dims))
    shape = []
    room = budget
    for _ in range(ndim):
        side = draw(st.integers(0, min(max_side, room)))
        shape.append(side)
        room //= max(side, 1)
    return tuple(shape)


@st.composite
def chunkings(
    draw: st.DrawFn, shape: tuple[int, ...], *, max_blocks: int = BLOCK_BUDGET
) -> tuple[tuple[int, ...], ...]:
    """Irregular chunks: each axis cut at random places; length-0 axes get ``(0,)``."""
    chunks = []
    room = max_blocks
    for n in shape:
        if n == 0:
            chunks.append((0,))
            continue
        most = max(1, min(n, room))
        if most == n and draw(st.integers(0, 7)) == 0:
            sizes = (1,) * n  # chunk size 1: every element its own block
        else:
            cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=most - 1)) if n > 1 else [])
            bounds = [0, *cuts, n]
            sizes = tuple(int(d) for d in np.diff(bounds))
        chunks.append(tuple(sizes))
        room = max(1, room // len(sizes))
    return tuple(chunks)


def _floats(dtype: KnownKind, bounded: bool) -> st.SearchStrategy[float]:
    small = st.integers(-4, 4).map(float)
    if bounded:  # sums of a few dozen values cannot overflow
        limit = float(np.finfo(dtype).max) / 1024
        wide = st.floats(-limit, limit, width=8 * dtype.itemsize)
        special = st.sampled_from([np.nan, np.inf, -np.inf])
        return st.one_of(small, wide, special)
    return st.one_of(small, hnp.from_dtype(dtype))


def elements(dtype: KnownKind, *, bounded: bool = False) -> st.SearchStrategy[Element]:
    """Values of ``dtype``, with many small ones (ties, repeated values, zeros).

    ``bounded`` keeps float magnitudes small enough that a mean cannot overflow.
    """
    kind = dtype.kind
    if kind == "b":
        return st.booleans()
    if kind in "iu":
        info = np.iinfo(dtype)
        small = st.integers(max(-4, int(info.min)), 4)
        return st.one_of(small, st.integers(int(info.min), int(info.max)))
    if kind == "f":
        return _floats(dtype, bounded)
    if kind == "c":
        part = np.dtype(f"f{dtype.itemsize // 2}")
        floats = _floats(part, bounded)
        return st.builds(complex, floats, floats)
    if kind in "mM":
        unit = np.datetime_data(dtype)[0]
        scalar = np.datetime64 if kind == "M" else np.timedelta64
        small = st.integers(-4, 4)
        wide = st.integers(-(2**40), 2**40)
        nat = st.just(scalar("NaT", unit))
        return st.one_of(
            small.map(lambda v: scalar(v, unit)), wide.map(lambda v: scalar(v, unit)), nat
        )
    if kind == "O":  # Python ints, some beyond int64
        return st.one_of(st.integers(-4, 4), st.integers(-(2**70), 2**70))
    raise NotImplementedError(f"no elements strategy for {dtype}")


def data_arrays(
    dtype: DType, shape: tuple[int, ...], *, bounded: bool = False
) -> st.SearchStrategy[Values]:
    """A strategy drawing numpy arrays of ``dtype`` and ``shape``, with many small values
    (ties, repeated values, zeros) beside values across the dtype's range.

    Parameters
    ----------
    dtype : numpy.dtype
        The arrays' dtype.
    shape : tuple of int
        The arrays' shape.
    bounded : bool, optional
        Keep float magnitudes small enough that a mean cannot overflow. Default False.
    """
    return hnp.arrays(dtype, shape, elements=elements(dtype, bounded=bounded), fill=st.nothing())


def _int(draw: st.DrawFn, value: int) -> SupportsIndex:
    """``value`` as a Python int or one of numpy's signed integer scalars."""
    types: list[Callable[[int], SupportsIndex]] = [int, int, np.int64, np.intp, np.int32]
    if value <= 127:
        types.append(np.int8)
    return draw(st.sampled_from(types))(value)


def _container(draw: st.DrawFn, items: list[T]) -> list[T] | tuple[T, ...]:
    kinds: list[Callable[[list[T]], list[T] | tuple[T, ...]]] = [tuple, list]
    return draw(st.sampled_from(kinds))(items)


def _axis_cost(n: int, axis_chunks: tuple[int, ...] | None, total: int) -> tuple[int, int]:
    """(elements, most output blocks) along one axis of length ``n`` padded by ``total``.

    Blocks assume pad chunks of the axis's largest chunk (daskpad's default, before it grows
    them towards the budget; a budget of a few bytes may cut them smaller, but never into
    more blocks than elements)."""
    if axis_chunks is None:
        return max(n, 1) + total, 1
    size = max(1, *axis_chunks)
    return max(n, 1) + total, len(axis_chunks) + (-(-total // size) + 1 if total else 0)


def _fits(
    shape: tuple[int, ...],
    chunks: tuple[tuple[int, ...], ...] | None,
    totals: list[int],
    budget: int,
    max_blocks: int,
) -> bool:
    costs = [
        _axis_cost(n, None if chunks is None else chunks[k], t)
        for k, (n, t) in enumerate(zip(shape, totals))
    ]
    elements = int(np.prod([c[0] for c in costs]))
    blocks = int(np.prod([c[1] for c in costs]))
    return elements <= budget and blocks <= max_blocks


def _room(
    shape: tuple[int, ...],
    chunks: tuple[tuple[int, ...], ...] | None,
    totals: list[int],
    axes: Container[int],
    budget: int,
    blocks: int,
) -> int:
    """Largest total width (before + after, up to 2 * MAX_WIDTH) that each of ``axes`` can
    take on top of ``totals`` within the budgets."""
    t = 0
    while t < 2 * MAX_WIDTH:
        trial = [tot + (t + 1 if k in axes else 0) for k, tot in enumerate(totals)]
        if not _fits(shape, chunks, trial, budget, blocks):
            break
        t += 1
    return t


def _width(draw: st.DrawFn, most: int) -> int:
    most = max(0, min(most, MAX_WIDTH))
    return draw(st.one_of(st.integers(0, min(3, most)), st.integers(0, most)))


#: ``pad_width`` in one of numpy's forms (:data:`PAD_WIDTH_FORMS`)
PadWidth = (
    SupportsIndex
    | Sequence[SupportsIndex]
    | Sequence[Sequence[SupportsIndex]]
    | Values
    | Mapping[int, int | tuple[int, int]]
)

PAD_WIDTH_FORMS = (
    "int",
    "(n,)",
    "(before, after)",
    "((before, after),)",
    "per-axis",
    "per-axis single",
    "array",
    "dict",
)


@st.composite
def pad_widths(
    draw: st.DrawFn,
    shape: tuple[int, ...],
    chunks: tuple[tuple[int, ...], ...] | None = None,
    *,
    budget: int = OUTPUT_BUDGET,
    max_blocks: int = OUTPUT_BLOCK_BUDGET,
) -> PadWidth:
    """``pad_width`` for an array of ``shape``, in one of numpy's forms (``PAD_WIDTH_FORMS``),
    with widths up to ``MAX_WIDTH`` (far wider than any axis) where the output stays under
    ``budget`` elements and, given the input ``chunks``, about ``max_blocks`` blocks."""
    ndim = len(shape)
    forms = [f for f in PAD_WIDTH_FORMS if NUMPY_HAS_DICT_PAD_WIDTH or f != "dict"]
    if ndim == 0:
        forms = [f for f in forms if f not in ("per-axis", "per-axis single", "array")]
    form = draw(st.sampled_from(forms))
    room = _room(shape, chunks, [0] * ndim, set(range(ndim)), budget, max_blocks)
    if form == "int":
        return _int(draw, _width(draw, room // 2))
    if form == "(n,)":
        return _container(draw, [_int(draw, _width(draw, room // 2))])
    if form in ("(before, after)", "((before, after),)"):
        before = _width(draw, room)
        pair = _container(draw, [_int(draw, before), _int(draw, _width(draw, room - before))])
        return pair if form == "(before, after)" else _container(draw, [pair])

    # One entry per axis: fill the axes in a random order, each within what is left.
    order = draw(st.permutations(range(ndim)))
    totals = [0] * ndim
    widths: list[tuple[int, int]] = [(0, 0)] * ndim
    for axis in order:
        total = _room(shape, chunks, totals, {axis}, budget, max_blocks)
        if form == "per-axis single":
            w = _width(draw, total // 2)
            widths[axis] = (w, w)
        else:
            before = _width(draw, total)
            widths[axis] = (before, _width(draw, total - before))
        totals[axis] = sum(widths[axis])
    if form == "per-axis":
        return _container(
            draw, [_container(draw, [_int(draw, b), _int(draw, a)]) for b, a in widths]
        )
    if form == "per-axis single":
        return _container(draw, [_container(draw, [_int(draw, b)]) for b, _ in widths])
    if form == "array":
        return np.array(widths, dtype=draw(st.sampled_from([np.int64, np.int32, np.intp])))
    # dict: a random subset of axes, keys possibly negative, values int or (before, after)
    result: dict[int, int | tuple[int, int]] = {}
    for axis in draw(st.lists(st.sampled_from(range(ndim)), unique=True)) if ndim else []:
        key = axis - ndim if draw(st.booleans()) else axis
        b, a = widths[axis]
        result[key] = b if b == a and draw(st.booleans()) else (b, a)
    return result
