"""Helpers shared by daskpad's tests and by users who want to check daskpad against numpy.

:func:`assert_pad_matches_numpy` runs ``numpy.pad`` (the oracle) and :func:`daskpad.pad` on the
same data and says precisely how they differ. The ``hypothesis`` strategies draw the inputs
where padding code usually goes wrong: irregular chunks, axes of length 0 and 1, widths far
wider than the axis, every dtype numpy pads, and every spelling of every argument numpy
accepts (or rejects).

``hypothesis`` is needed only for the strategies; it is imported when this module is.

Examples
--------
>>> import numpy as np
>>> from daskpad.testing import assert_pad_matches_numpy
>>> assert_pad_matches_numpy(np.arange(5), ((2, 3),), 7, "reflect", reflect_type="odd")
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import dask.array as da
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ._modes import MODES, REFLECT_TYPES

__all__ = [
    "CALLABLES",
    "DTYPES",
    "PadCase",
    "assert_pad_matches_numpy",
    "chunkings",
    "data_arrays",
    "dtypes",
    "invalid_pad_cases",
    "mode_kwargs",
    "pad_cases",
    "pad_widths",
    "shapes",
]

#: Every dtype the strategies draw.
DTYPES: tuple[np.dtype, ...] = tuple(
    np.dtype(d)
    for d in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "datetime64[s]",
        "timedelta64[s]",
        "object",
    )
)

#: Tolerance factor for mode ``"mean"`` (see :func:`assert_pad_matches_numpy`).
MEAN_ULPS = 64

#: numpy accepts ``{axis: width}`` for ``pad_width`` from 2.4 on.
NUMPY_HAS_DICT_PAD_WIDTH = np.lib.NumpyVersion(np.__version__) >= "2.4.0"

_ALL_MODES = frozenset(MODES)


# --------------------------------------------------------------------------------------------
# The comparison
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """numpy's RuntimeWarnings (mean of an empty slice, invalid casts, ComplexWarning) are
    part of the behaviour being compared, not test failures."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _honour_return(function: Callable[..., Any]) -> Callable[..., None]:
    """numpy ignores what a padding function returns; daskpad also accepts the legacy style
    (numpy < 1.17, ``dask.array.pad``) of returning the padded vector. The reference for such
    a function is numpy.pad with the returned vector written back into the line."""

    def wrapper(vector: np.ndarray, iaxis_pad_width: Any, iaxis: int, kwargs: Any) -> None:
        out = function(vector, iaxis_pad_width, iaxis, kwargs)
        if out is not None and out is not vector:
            vector[...] = out

    return wrapper


def _numpy_reference(data: np.ndarray, pad_width: Any, mode: Any, kwargs: Mapping) -> Any:
    if callable(mode):
        mode = _honour_return(mode)
    return np.pad(data, pad_width, mode=mode, **kwargs)


def _first_builtin(exc_type: type[BaseException]) -> type[BaseException]:
    """The first class in ``exc_type``'s MRO that Python itself defines."""
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


def _check_block(block: Any, block_info: Any = None) -> Any:
    """Each computed block must have the shape the chunks promise, and the array's dtype."""
    info = block_info[None]
    expected = tuple(info["chunk-shape"])
    assert type(block) is np.ndarray, f"block {info['chunk-location']} is a {type(block)}"
    assert block.shape == expected, (
        f"block {info['chunk-location']} has shape {block.shape}, but the chunks say {expected}"
    )
    assert block.dtype == info["dtype"], (
        f"block {info['chunk-location']} has dtype {block.dtype}, the array says {info['dtype']}"
    )
    return block


def _compute_checked(result: da.Array) -> np.ndarray:
    checked = result.map_blocks(
        _check_block, dtype=result.dtype, meta=np.empty((0,) * result.ndim, result.dtype)
    )
    return np.asarray(checked.compute())


def _same(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Elementwise exact equality, with NaN equal to NaN and NaT equal to NaT."""
    kind = expected.dtype.kind
    if kind == "O":
        out = np.empty(expected.shape, dtype=bool)
        for index in np.ndindex(expected.shape):
            e, a = expected[index], actual[index]
            out[index] = type(e) is type(a) and bool(e == a or (e != e and a != a))
        return out
    if kind == "c":
        return _same(expected.real, actual.real) & _same(expected.imag, actual.imag)
    if kind == "f":
        return (expected == actual) | (np.isnan(expected) & np.isnan(actual))
    if kind in "mM":
        return (expected == actual) | (np.isnat(expected) & np.isnat(actual))
    return expected == actual


def _stat_length_pairs(stat_length: Any, ndim: int) -> Any:
    """``stat_length`` broadcast to one pair per axis, with 0 replaced by 1 (for the bound)."""
    if stat_length is None:
        return None
    arr = np.round(np.array(stat_length)).astype(np.intp)
    if arr.ndim < 3 and arr.size == 1:
        arr = np.full((ndim, 2), arr.ravel()[0])
    elif arr.ndim < 3 and arr.size == 2 and arr.shape != (2, 1):
        arr = np.broadcast_to(arr.ravel(), (ndim, 2))
    else:
        arr = np.broadcast_to(arr, (ndim, 2))
    return np.maximum(arr, 1)


def _all_real_numbers(*arrays: np.ndarray) -> bool:
    """Whether object arrays hold only real numbers that float64 can hold."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return all(np.isfinite(a.astype(np.float64)).all() for a in arrays)
    except (TypeError, ValueError, OverflowError, RuntimeWarning, np.exceptions.ComplexWarning):
        return False


def _mean_tolerance(
    data: np.ndarray, pad_width: Any, kwargs: Mapping, dtype: np.dtype
) -> np.ndarray:
    """Per-element tolerance for mode "mean": MEAN_ULPS * eps * max |value in the stat slab|.

    ``numpy.pad(|data|, mode="maximum")`` with the same widths and ``stat_length`` gives, for
    every pad element, the largest magnitude in the slab its mean was taken over (the padding
    of earlier axes is bounded in turn by the slabs it came from).
    """
    magnitude = np.abs(data.astype(np.complex128 if dtype.kind == "c" else np.float64))
    stat_length = _stat_length_pairs(kwargs.get("stat_length"), data.ndim)
    with _quiet():
        bound = np.pad(magnitude, pad_width, mode="maximum", stat_length=stat_length)
    eps = np.finfo(dtype if dtype.kind in "fc" else np.float64).eps
    return MEAN_ULPS * float(eps) * bound


def _describe_mismatch(
    expected: np.ndarray, actual: np.ndarray, bad: np.ndarray, limit: int = 8
) -> str:
    where = np.argwhere(bad)
    lines = [f"{len(where)} of {expected.size} elements differ:"]
    for index in where[:limit]:
        i = tuple(int(k) for k in index)
        lines.append(f"  at {i}: numpy {expected[i]!r}, daskpad {actual[i]!r}")
    if len(where) > limit:
        lines.append("  ...")
    lines.append(f"numpy:\n{expected!r}\ndaskpad:\n{actual!r}")
    return "\n".join(lines)


def _interior(shape: tuple[int, ...], widths: Any) -> tuple[slice, ...]:
    return tuple(slice(b, b + n) for n, (b, _) in zip(shape, widths))


def _widths_of(expected: np.ndarray, data: np.ndarray, pad_width: Any) -> list[tuple[int, int]]:
    """Per-axis (before, after) of a call numpy accepted (read back from numpy's behaviour)."""
    if isinstance(pad_width, Mapping):
        pairs = [(0, 0)] * data.ndim
        for axis, w in pad_width.items():
            pairs[axis] = (w, w) if isinstance(w, int) else tuple(w)
        return pairs
    arr = np.asarray(pad_width)
    if arr.size == 1:
        w = int(arr.ravel()[0])
        return [(w, w)] * data.ndim
    if arr.size == 2 and arr.shape != (2, 1):
        b, a = (int(v) for v in arr.ravel())
        return [(b, a)] * data.ndim
    return [(int(b), int(a)) for b, a in np.broadcast_to(arr, (data.ndim, 2))]


def assert_pad_matches_numpy(
    data_numpy: Any,
    chunks: Any,
    pad_width: Any,
    mode: Any = "constant",
    *,
    out_chunks: Any = None,
    **kwargs: Any,
) -> None:
    """Check that :func:`daskpad.pad` agrees with :func:`numpy.pad` on one input.

    ``data_numpy`` is wrapped with ``dask.array.from_array(data_numpy, chunks=chunks)`` and
    both functions are called with ``pad_width``, ``mode`` and ``kwargs`` (daskpad also with
    ``chunks=out_chunks``, its output chunk policy). numpy is the oracle:

    * When numpy raises, daskpad must raise too, *when called* (before anything is computed),
      an instance of the first builtin class in the MRO of numpy's exception (numpy's
      ``AxisError`` asks for a ``ValueError``, a ufunc ``UFuncTypeError`` for a
      ``TypeError``). One deliberate difference: daskpad refuses a ``reflect_type`` other than
      ``"even"`` or ``"odd"`` with ``ValueError``, where numpy silently treats it as even.
    * Otherwise daskpad must return a dask array whose shape, dtype and chunks are right
      before computing; every computed block must be a numpy array of the shape its chunk
      promises; the values must be equal: exactly, elementwise, with NaN equal to NaN, NaT
      equal to NaT, complex numbers compared by parts, and object elements equal in value
      *and* Python type.

    Exceptions to exact values:

    * mode ``"empty"`` leaves the pad undefined, so only the interior (the original data) is
      compared. So does a NaN cast to an integer dtype (the mean or median of an empty slab,
      ``stat_length=0``): numpy warns "invalid value encountered in cast", and the integer
      it writes differs even between numpy's own vectorised and scalar loops.
    * mode ``"mean"``: daskpad may sum in a different order (a tree over chunks), so a pad
      element may differ from numpy's by at most ``64 * eps * m``, where ``eps`` is the
      machine epsilon of the dtype and ``m`` the largest magnitude in the slab that element's
      mean was taken over. Pairwise or tree summation of ``n`` values errs by about
      ``log2(n) * eps * m``; 64 leaves room for the rounding of the division and of the
      earlier axes' means (which later axes average again), and still catches a wrong slab,
      which shifts the mean by a whole value. Both results must be finite for the tolerance
      to apply (inf and NaN must match exactly). Integer dtypes: numpy averages in float64
      and rounds; below ``2**46`` that is exact in any summation order, so daskpad must
      match exactly; above it, the float64 bound plus one for the rounding applies (only
      ``int64``/``uint64`` data can get there). Object and every other dtype: exact.
    * A 0-d object array: numpy (2.4) returns a 0-d object array whose element is the input
      array itself; daskpad may do the same or return the element.
    * ``mode`` a function: numpy ignores its return value; daskpad also accepts functions
      that return the padded vector instead of writing into it, so the reference is numpy.pad
      with any returned vector written back into the line (identical to numpy.pad for
      functions that return ``None`` or the vector itself).

    numpy's RuntimeWarnings (mean of an empty slice, invalid casts) are ignored on both sides.
    """
    from daskpad import pad

    data = np.asarray(data_numpy)
    x = da.from_array(data, chunks=chunks)
    call = f"pad_width={pad_width!r}, mode={mode!r}, kwargs={kwargs!r}"
    if out_chunks is not None:
        call += f", chunks={out_chunks!r}"

    numpy_error: BaseException | None = None
    expected: Any = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        try:
            expected = _numpy_reference(data, pad_width, mode, kwargs)
        except Exception as exc:
            numpy_error = exc
    # NaN (the mean or median of an empty slab) cast to an integer dtype: C leaves the result
    # undefined, and numpy's own vectorised and scalar loops give different integers.
    undefined_pad = any("invalid value encountered in cast" in str(w.message) for w in caught)

    expected_type: type[BaseException] | None = None
    if numpy_error is not None:
        expected_type = _first_builtin(type(numpy_error))
        why = f"numpy raised {type(numpy_error).__name__}: {numpy_error}"
    elif (
        isinstance(mode, str)
        and mode in ("reflect", "symmetric")
        and "reflect_type" in kwargs
        and kwargs["reflect_type"] not in REFLECT_TYPES
    ):
        expected_type = ValueError
        why = f"reflect_type={kwargs['reflect_type']!r} is refused (numpy treats it as even)"

    if expected_type is not None:
        try:
            with _quiet():
                result = pad(x, pad_width, mode, chunks=out_chunks, **kwargs)
        except expected_type:
            return
        except Exception as exc:
            raise AssertionError(
                f"{call}: {why}; daskpad raised {type(exc).__name__}: {exc}, which is not "
                f"a {expected_type.__name__}"
            ) from exc
        try:
            with _quiet():
                result.compute()
            later = "and computing it raised nothing"
        except Exception as exc:
            later = f"and only computing it raised {type(exc).__name__}: {exc}"
        raise AssertionError(
            f"{call}: {why}; daskpad.pad returned {result!r} without raising {later}"
        )

    with _quiet():
        result = pad(x, pad_width, mode, chunks=out_chunks, **kwargs)
    assert isinstance(result, da.Array), f"{call}: daskpad returned a {type(result)}"
    assert result.shape == expected.shape, (
        f"{call}: shape {result.shape}, numpy's is {expected.shape}"
    )
    assert result.dtype == expected.dtype, (
        f"{call}: dtype {result.dtype}, numpy's is {expected.dtype}"
    )
    assert tuple(sum(c) for c in result.chunks) == result.shape, (
        f"{call}: chunks {result.chunks} do not add up to shape {result.shape}"
    )
    with _quiet():
        actual = _compute_checked(result)
    assert actual.shape == expected.shape, f"{call}: computed shape {actual.shape}"
    assert actual.dtype == expected.dtype, f"{call}: computed dtype {actual.dtype}"

    if expected.ndim == 0 and expected.dtype.kind == "O" and isinstance(expected[()], np.ndarray):
        # numpy stores a 0-d object array *inside* a 0-d object result (``padded[()] = array``);
        # daskpad may return the element itself.
        if not isinstance(actual[()], np.ndarray):
            expected = expected[()]
    if (isinstance(mode, str) and mode == "empty") or undefined_pad:
        region = (*_interior(data.shape, _widths_of(expected, data, pad_width)), ...)
        expected, actual = expected[region], actual[region]
    ok = _same(expected, actual)
    if isinstance(mode, str) and mode == "mean" and expected.size and not ok.all():
        kind = expected.dtype.kind
        if kind == "O" and _all_real_numbers(expected, actual, data):
            kind = "f"  # Python numbers: float means summed in another order
        if kind in "fciu":
            tol = _mean_tolerance(data, pad_width, kwargs, expected.dtype)
            if kind in "iu":
                tol = np.where(tol >= 1, tol + 1, 0)
            wide = np.complex128 if kind == "c" else np.float64
            e, a = expected.astype(wide), actual.astype(wide)
            with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, where not finite
                close = np.isfinite(e) & np.isfinite(a) & (np.abs(e - a) <= tol)
            ok |= close
    if not ok.all():
        raise AssertionError(
            f"{call}: values differ from numpy's\n" + _describe_mismatch(expected, actual, ~ok)
        )


# --------------------------------------------------------------------------------------------
# Padding functions (mode=callable)
# --------------------------------------------------------------------------------------------


def pad_with_constant(vector: np.ndarray, iaxis_pad_width: Any, iaxis: int, kwargs: Any) -> None:
    """numpy's docstring example, verbatim: ``kwargs["padder"]`` (default 10) in the pads.

    With an after-width of 0, ``vector[-0:]`` is the whole line, so the whole line is
    overwritten, in numpy as in daskpad: a test that lines really are whole.
    """
    pad_value = kwargs.get("padder", 10)
    vector[: iaxis_pad_width[0]] = pad_value
    vector[-iaxis_pad_width[1] :] = pad_value


def pad_with_shuffled_line(
    vector: np.ndarray, iaxis_pad_width: Any, iaxis: int, kwargs: Any
) -> None:
    """Pads read from the line (including earlier axes' pads), in an order set by the axis and
    ``kwargs["shift"]``: data-dependent, dtype-agnostic, sensitive to the order of axes."""
    before, after = iaxis_pad_width
    n = len(vector) - before - after
    if n == 0:
        return
    interior = vector[before : before + n].copy()
    shift = iaxis + kwargs.get("shift", 0)
    vector[:before] = interior[::-1][(np.arange(before) + shift) % n]
    vector[before + n :] = interior[(2 * np.arange(after) + shift) % n]


def pad_returning_new(vector: np.ndarray, iaxis_pad_width: Any, iaxis: int, kwargs: Any) -> Any:
    """Legacy style: leaves ``vector`` alone and returns a new, edge-padded vector."""
    before, after = iaxis_pad_width
    n = len(vector) - before - after
    out = vector.copy()
    if n:
        out[:before] = vector[before]
        out[before + n :] = vector[before + n - 1]
    return out


def pad_inplace_and_return(
    vector: np.ndarray, iaxis_pad_width: Any, iaxis: int, kwargs: Any
) -> Any:
    """Writes into ``vector`` (before: the line's last value; after: its first) and returns
    it."""
    before, after = iaxis_pad_width
    if before:
        vector[:before] = vector[-1]
    if after:
        vector[len(vector) - after :] = vector[0]
    return vector


def pad_and_reverse_data(
    vector: np.ndarray, iaxis_pad_width: Any, iaxis: int, kwargs: Any
) -> None:
    """Pads with the line's first and last values, then reverses the data part of lines
    whose first and last data values differ: a function that writes the data too, on some
    lines only (numpy keeps what it wrote)."""
    before, after = iaxis_pad_width
    n = len(vector) - before - after
    if n == 0:
        return
    vector[:before] = vector[before]
    vector[before + n :] = vector[before + n - 1]
    data = vector[before : before + n]
    if bool(data[0] != data[-1]):
        data[:] = data[::-1].copy()


#: Padding functions the strategies draw, with a strategy for their keyword arguments.
CALLABLES: tuple[tuple[Callable[..., Any], st.SearchStrategy[dict]], ...] = (
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


def dtypes() -> st.SearchStrategy[np.dtype]:
    return st.sampled_from(DTYPES)


@st.composite
def shapes(
    draw: Any,
    *,
    min_dims: int = 0,
    max_dims: int = 4,
    max_side: int = 12,
    budget: int = INPUT_BUDGET,
):
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
def chunkings(draw: Any, shape: tuple[int, ...], *, max_blocks: int = BLOCK_BUDGET):
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


def _floats(dtype: np.dtype, bounded: bool) -> st.SearchStrategy[Any]:
    small = st.integers(-4, 4).map(float)
    if bounded:  # sums of a few dozen values cannot overflow
        limit = float(np.finfo(dtype).max) / 1024
        wide = st.floats(-limit, limit, width=8 * dtype.itemsize)
        special = st.sampled_from([np.nan, np.inf, -np.inf])
        return st.one_of(small, wide, special)
    return st.one_of(small, hnp.from_dtype(dtype))


def elements(dtype: np.dtype, *, bounded: bool = False) -> st.SearchStrategy[Any]:
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
    dtype: np.dtype, shape: tuple[int, ...], *, bounded: bool = False
) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(dtype, shape, elements=elements(dtype, bounded=bounded), fill=st.nothing())


def _int(draw: Any, value: int) -> Any:
    """``value`` as a Python int or one of numpy's signed integer scalars."""
    types: list[Any] = [int, int, np.int64, np.intp, np.int32]
    if value <= 127:
        types.append(np.int8)
    return draw(st.sampled_from(types))(value)


def _container(draw: Any, items: list[Any]) -> Any:
    return draw(st.sampled_from([tuple, list]))(items)


def _axis_cost(n: int, axis_chunks: Any, total: int) -> tuple[int, int]:
    """(elements, most output blocks) along one axis of length ``n`` padded by ``total``.

    Blocks assume pad chunks of the axis's largest chunk (daskpad's default, before it grows
    them towards the budget; a budget of a few bytes may cut them smaller, but never into
    more blocks than elements)."""
    if axis_chunks is None:
        return max(n, 1) + total, 1
    size = max(1, *axis_chunks)
    return max(n, 1) + total, len(axis_chunks) + (-(-total // size) + 1 if total else 0)


def _fits(shape: Any, chunks: Any, totals: list[int], budget: int, max_blocks: int) -> bool:
    costs = [
        _axis_cost(n, None if chunks is None else chunks[k], t)
        for k, (n, t) in enumerate(zip(shape, totals))
    ]
    elements = int(np.prod([c[0] for c in costs]))
    blocks = int(np.prod([c[1] for c in costs]))
    return elements <= budget and blocks <= max_blocks


def _room(shape: Any, chunks: Any, totals: list[int], axes: Any, budget: int, blocks: int) -> int:
    """Largest total width (before + after, up to 2 * MAX_WIDTH) that each of ``axes`` can
    take on top of ``totals`` within the budgets."""
    t = 0
    while t < 2 * MAX_WIDTH:
        trial = [tot + (t + 1 if k in axes else 0) for k, tot in enumerate(totals)]
        if not _fits(shape, chunks, trial, budget, blocks):
            break
        t += 1
    return t


def _width(draw: Any, most: int) -> int:
    most = max(0, min(most, MAX_WIDTH))
    return draw(st.one_of(st.integers(0, min(3, most)), st.integers(0, most)))


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
    draw: Any,
    shape: tuple[int, ...],
    chunks: Any = None,
    *,
    budget: int = OUTPUT_BUDGET,
    max_blocks: int = OUTPUT_BLOCK_BUDGET,
):
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
    result: dict[int, Any] = {}
    for axis in draw(st.lists(st.sampled_from(range(ndim)), unique=True)) if ndim else []:
        key = axis - ndim if draw(st.booleans()) else axis
        b, a = widths[axis]
        result[key] = b if b == a and draw(st.booleans()) else (b, a)
    return result


def _scalar_forms(draw: Any, value_strategy: st.SearchStrategy[Any], ndim: int) -> Any:
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


def _misfits(dtype: np.dtype) -> list[Any]:
    """Values that do not fit ``dtype`` (numpy casts some, rejects others)."""
    kind = dtype.kind
    common: list[Any] = ["a", None, 1.5, np.nan, 1e300, 2 + 3j]
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


def _fill_values(dtype: np.dtype) -> st.SearchStrategy[Any]:
    """Scalars for constant_values/end_values: mostly fitting ``dtype``, as numpy or Python
    scalars, sometimes not."""
    fitting = elements(dtype, bounded=True).map(lambda v: v)
    as_numpy = elements(dtype, bounded=True).map(
        lambda v: v if dtype.kind == "O" else np.asarray(v).astype(dtype)[()]
    )
    return st.one_of(fitting, as_numpy, st.sampled_from(_misfits(dtype)))


def _stat_lengths(ndim: int, longest: int) -> st.SearchStrategy[Any]:
    one = st.one_of(
        st.integers(0, 3),
        st.integers(0, longest + 3),
        st.integers(1, longest + 3).map(np.int64),
        st.sampled_from([1.0, 1.6, 2.4]),
    )
    return st.one_of(st.none(), _forms_of(one, ndim))


@st.composite
def _forms_of(draw: Any, value_strategy: st.SearchStrategy[Any], ndim: int) -> Any:
    return _scalar_forms(draw, value_strategy, ndim)


@st.composite
def mode_kwargs(draw: Any, mode: Any, dtype: np.dtype, shape: tuple[int, ...]):
    """Keyword arguments ``mode`` takes, each left out or drawn in any of numpy's forms."""
    ndim = len(shape)
    if callable(mode):
        for function, kwargs in CALLABLES:
            if function is mode:
                return draw(kwargs)
        return {}
    kwargs: dict[str, Any] = {}
    if mode == "constant" and draw(st.booleans()):
        kwargs["constant_values"] = draw(_forms_of(_fill_values(dtype), ndim))
    elif mode == "linear_ramp" and draw(st.booleans()):
        kwargs["end_values"] = draw(_forms_of(_fill_values(dtype), ndim))
    elif mode in ("maximum", "mean", "median", "minimum") and draw(st.integers(0, 3)):
        kwargs["stat_length"] = draw(_stat_lengths(ndim, max(shape, default=0)))
    elif mode in ("reflect", "symmetric") and draw(st.integers(0, 3)):
        kwargs["reflect_type"] = draw(st.sampled_from(REFLECT_TYPES))
    return kwargs


def _repr_array(data: np.ndarray) -> str:
    def item(v: Any) -> str:
        if isinstance(v, float) and not np.isfinite(v):
            return f"float('{v}')"
        if isinstance(v, complex):
            return f"complex({item(v.real)}, {item(v.imag)})"
        return repr(v)

    def nested(v: Any) -> str:
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
        data: np.ndarray,
        chunks: tuple[tuple[int, ...], ...],
        pad_width: Any,
        mode: Any,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.data = data
        self.chunks = chunks
        self.pad_width = pad_width
        self.mode = mode
        self.kwargs = {} if kwargs is None else kwargs

    def check(self) -> None:
        assert_pad_matches_numpy(self.data, self.chunks, self.pad_width, self.mode, **self.kwargs)

    def __repr__(self) -> str:
        mode = self.mode.__name__ if callable(self.mode) else repr(self.mode)
        kwargs = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return (
            f"assert_pad_matches_numpy({_repr_array(self.data)}, {self.chunks!r}, "
            f"{self.pad_width!r}, {mode}{kwargs})"
        )


@st.composite
def pad_cases(
    draw: Any,
    mode: Any,
    *,
    dtype: np.dtype | None = None,
    shape: st.SearchStrategy[tuple[int, ...]] | None = None,
):
    """A valid-looking call for ``mode`` (a mode name or a padding function): data of any
    dtype and shape, irregular chunks, ``pad_width`` and keyword arguments in any of numpy's
    forms. numpy may still reject some (a constant that does not fit the dtype, ``mean`` of
    datetimes, ``stat_length=0`` for maximum): the errors are compared too."""
    dtype = draw(dtypes()) if dtype is None else np.dtype(dtype)
    shape = draw(shapes() if shape is None else shape)
    data = draw(data_arrays(dtype, shape, bounded=mode == "mean"))
    chunks = draw(chunkings(shape))
    pad_width = draw(pad_widths(shape, chunks))
    kwargs = draw(mode_kwargs(mode, dtype, shape))
    return PadCase(data, chunks, pad_width, mode, kwargs)


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

_BAD_MODES = ("foo", "Constant", "", None, 3, ("edge",), ["edge"])


@st.composite
def invalid_pad_cases(draw: Any):
    """Calls numpy.pad should reject (or, where it accepts them after all, that are odd):
    negative, non-integral, unsigned, ragged, wrong-length and wrongly-keyed widths; unknown
    modes; keyword arguments the mode does not take; bad ``stat_length``, ``constant_values``
    and ``reflect_type``; data modes extending an axis of length 0."""
    dtype = draw(dtypes())
    shape = draw(shapes(max_dims=3, max_side=6))
    data = draw(data_arrays(dtype, shape))
    chunks = draw(chunkings(shape))
    mode: Any = draw(st.sampled_from(sorted(_ALL_MODES)))
    pad_width: Any = draw(pad_widths(shape, chunks, budget=400, max_blocks=32))
    kwargs: dict[str, Any] = {}
    what = draw(
        st.sampled_from(
            [
                "width",
                "mode",
                "kwarg",
                "stat_length",
                "values",
                "reflect_type",
                "empty axis",
            ]
        )
    )
    if what == "width":
        pad_width = draw(st.sampled_from(_BAD_WIDTHS))
    elif what == "mode":
        mode = draw(st.sampled_from(_BAD_MODES))
    elif what == "kwarg":
        name = draw(
            st.sampled_from(
                ["constant_values", "end_values", "stat_length", "reflect_type", "foo"]
            )
        )
        kwargs[name] = draw(st.sampled_from([0, 1, "odd", None]))
    elif what == "stat_length":
        mode = draw(st.sampled_from(["maximum", "minimum", "mean", "median"]))
        kwargs["stat_length"] = draw(
            st.sampled_from(
                [
                    0,
                    (0, 1),
                    (1, 0),
                    -1,
                    (2, -1),
                    "2",
                    [[1, 2], [3]],
                    (1, 2, 3),
                    (None, 2),
                    [[0, 0]] * len(shape),
                    1e20,
                ]
            )
        )
    elif what == "values":
        mode = draw(st.sampled_from(["constant", "linear_ramp"]))
        name = "constant_values" if mode == "constant" else "end_values"
        kwargs[name] = draw(
            st.sampled_from(
                [
                    (1, 2, 3),
                    [[1, 2], [3]],
                    [[[1, 2]]] * 2,
                    "abc",
                    object(),
                    [[1, 2]] * (len(shape) + 1),
                ]
            )
        )
    elif what == "reflect_type":
        mode = draw(st.sampled_from(["reflect", "symmetric"]))
        kwargs["reflect_type"] = draw(st.sampled_from(["Odd", "foo", None, "", 1]))
    else:  # a data mode on an array with an axis of length 0, padded there
        mode = draw(st.sampled_from(sorted(_ALL_MODES - {"constant", "empty"})))
        shape = (*shape[:2], 0)
        data = np.zeros(shape, dtype=dtype)
        chunks = tuple((n,) if n else (0,) for n in shape)
        pad_width = draw(st.sampled_from([1, (0, 1), ((1, 0),), 40]))
    return PadCase(data, chunks, pad_width, mode, kwargs)
