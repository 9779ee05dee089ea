"""The helpers of :mod:`daskpad.testing`: numpy's result (the oracle), the comparison that
says how daskpad differs, and user pad functions of every kind numpy accepts. numpy and
dask only."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import EllipsisType
from typing import TYPE_CHECKING, Any

import dask.array as da
import numpy as np

from daskpad.api.pad import AxisMode, AxisModes, pad
from daskpad.core.keywords import KEYWORDS
from daskpad.core.ndarrays import DType, Flags, KnownKind, Numbers, Positions, Values
from daskpad.core.registry import MODES, numpy_pad

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "DTYPES",
    "assert_pad_matches_numpy",
    "chained_numpy_pad",
    "numpy_pad",
]

#: Every dtype the strategies draw.
DTYPES: tuple[DType, ...] = tuple(
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


def _honour_return(function: Callable[..., object]) -> Callable[..., None]:
    """numpy ignores what a padding function returns; daskpad also accepts the legacy style
    (numpy < 1.17, ``dask.array.pad``) of returning the padded vector. The reference for such
    a function is numpy.pad with the returned vector written back into the line."""

    def wrapper(
        vector: Numbers, iaxis_pad_width: tuple[int, int], iaxis: int, kwargs: dict[str, object]
    ) -> None:
        out = function(vector, iaxis_pad_width, iaxis, kwargs)
        if out is not None and out is not vector:
            vector[...] = out

    return wrapper


def _numpy_reference(
    data: Values, pad_width: Any, mode: Any, kwargs: Mapping[str, object]
) -> Values:
    if _per_axis(mode):
        return chained_numpy_pad(data, pad_width, mode, **kwargs)
    if callable(mode):
        mode = _honour_return(mode)
    padded: Values = numpy_pad(data, pad_width, mode, **kwargs)
    return padded


def _per_axis(mode: object) -> bool:
    return isinstance(mode, Mapping) or isinstance(mode, (list, tuple))


def _axis_of(name: str, key: object, ndim: int) -> int:
    if isinstance(key, bool) or not isinstance(key, (int, np.integer)):
        raise TypeError(f"{name}: axes are integers, not {key!r}")
    if not -ndim <= key < ndim:
        raise ValueError(f"{name}: axis {key} is out of bounds for {ndim} dimensions")
    return int(key) % ndim


def chained_numpy_pad(
    array: npt.ArrayLike, pad_width: Any, mode: AxisModes, **kwargs: Any
) -> Values:
    """numpy.pad with a mode per axis, by definition: numpy.pad called once per axis, in
    axis order, each call padding only that axis (the others get width 0) with that axis's
    mode, on the result of the calls before it.

    ``mode`` is ``{axis: mode}`` (axes not named: ``"constant"``) or one mode per axis.
    numpy.pad's keywords (``constant_values``, ``end_values``, ``stat_length``,
    ``reflect_type``) go, as given, to the calls whose mode takes them, or from
    ``{axis: value}`` to that axis's call alone. A keyword is for the calls when the mode
    of an axis that ``mode`` names (whatever its width: numpy.pad decides by mode, not
    width) or of a padded axis takes it; a padding function gets the keywords that are not,
    and without one such a keyword is refused with ``ValueError``, as numpy refuses it.
    This is the oracle of daskpad's per-axis modes.

    >>> import numpy as np
    >>> chained_numpy_pad(np.arange(6).reshape(2, 3), 1, {0: "edge", 1: "wrap"})
    array([[2, 0, 1, 2, 0],
           [2, 0, 1, 2, 0],
           [5, 3, 4, 5, 3],
           [5, 3, 4, 5, 3]])
    """
    a = np.asarray(array)
    ndim = a.ndim
    if isinstance(pad_width, Mapping) and not NUMPY_HAS_DICT_PAD_WIDTH:
        # (numpy.pad reads {axis: width} from numpy 2.4; daskpad.pad on every numpy)
        pad_width = _widths_of(np.zeros(0), np.zeros((0,) * ndim), pad_width)
    with _quiet():
        np.pad(np.zeros((0,) * ndim, dtype=np.int8), pad_width)  # numpy's checks of the widths
    widths = _widths_of(np.zeros(0), np.zeros((0,) * ndim), pad_width)
    if isinstance(mode, Mapping):
        modes: list[AxisMode] = ["constant"] * ndim
        named = [False] * ndim
        for key, m in mode.items():
            modes[_axis_of("mode", key, ndim)] = m
            named[_axis_of("mode", key, ndim)] = True
    else:
        modes = list(mode)
        named = [True] * ndim
        if len(modes) != ndim:
            raise ValueError(f"mode: {len(modes)} modes for {ndim} axes")
    for m in modes:
        if isinstance(m, str) and m not in MODES:
            raise ValueError(f"mode {m!r} is not supported")
        if not isinstance(m, str) and not callable(m):
            raise TypeError(f"mode {m!r} is not a mode name nor a function")

    def takes(m: AxisMode, name: str) -> bool:
        return isinstance(m, str) and name in MODES[m].kwargs

    counts = [n or b > 0 or af > 0 for n, (b, af) in zip(named, widths)]
    taken = {n for n in kwargs if any(c and takes(m, n) for m, c in zip(modes, counts))}
    if set(kwargs) - taken and not any(callable(m) for m in modes):
        raise ValueError(f"unsupported keyword arguments: {sorted(set(kwargs) - taken)}")
    own: list[dict[str, object]] = [{} for _ in range(ndim)]
    for name in taken:
        value = kwargs[name]
        if isinstance(value, Mapping):
            for key, entry in value.items():
                own[_axis_of(name, key, ndim)][name] = entry  # numpy refuses a misfit
        else:
            for axis, m in enumerate(modes):
                if takes(m, name):
                    own[axis][name] = value
    rest = {n: v for n, v in kwargs.items() if n not in taken}
    for axis, m in enumerate(modes):
        step = [(0, 0)] * ndim
        step[axis] = widths[axis]
        if callable(m):
            a = np.pad(a, step, mode=_honour_return(m), **rest)
        else:
            a = numpy_pad(a, step, m, **own[axis])
    return a


def _first_builtin(exc_type: type[BaseException]) -> type[BaseException]:
    """The first class in ``exc_type``'s MRO that Python itself defines."""
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


def _check_block(
    block: Values, block_info: Mapping[int | None, Mapping[str, Any]] | None = None
) -> Values:
    """Each computed block must have the shape the chunks promise, and the array's dtype."""
    assert block_info is not None
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


def _compute_checked(result: da.Array) -> Values:
    checked = da.map_blocks(
        _check_block, result, dtype=result.dtype, meta=np.empty((0,) * result.ndim, result.dtype)
    )
    return np.asarray(checked.compute())


def _same(expected: Numbers, actual: Numbers) -> Flags:
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
        same: Flags = (expected == actual) | (np.isnan(expected) & np.isnan(actual))
    elif kind in "mM":
        same = (expected == actual) | (np.isnat(expected) & np.isnat(actual))
    else:
        same = expected == actual
    return same


def _stat_length_pairs(stat_length: object, ndim: int) -> Positions | None:
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


def _all_real_numbers(*arrays: Values) -> bool:
    """Whether object arrays hold only real numbers that float64 can hold."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return all(np.isfinite(a.astype(np.float64)).all() for a in arrays)
    except (TypeError, ValueError, OverflowError, RuntimeWarning, np.exceptions.ComplexWarning):
        return False


def _mean_tolerance(
    data: Values, pad_width: Any, kwargs: Mapping[str, object], dtype: KnownKind
) -> Numbers:
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


def _describe_mismatch(expected: Values, actual: Values, bad: Flags, limit: int = 8) -> str:
    where = np.argwhere(bad)
    lines = [f"{len(where)} of {expected.size} elements differ:"]
    for index in where[:limit]:
        i = tuple(int(k) for k in index)
        lines.append(f"  at {i}: numpy {expected[i]!r}, daskpad {actual[i]!r}")
    if len(where) > limit:
        lines.append("  ...")
    lines.append(f"numpy:\n{expected!r}\ndaskpad:\n{actual!r}")
    return "\n".join(lines)


def _interior(shape: tuple[int, ...], widths: Sequence[tuple[int, int]]) -> tuple[slice, ...]:
    return tuple(slice(b, b + n) for n, (b, _) in zip(shape, widths))


def _widths_of(expected: Values, data: Values, pad_width: object) -> list[tuple[int, int]]:
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
    data_numpy: npt.ArrayLike,
    chunks: object,
    pad_width: Any,
    mode: Any = "constant",
    *,
    out_chunks: object = None,
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
    data = np.asarray(data_numpy)
    x = da.from_array(data, chunks=chunks)
    call = f"pad_width={pad_width!r}, mode={mode!r}, kwargs={kwargs!r}"
    if out_chunks is not None:
        call += f", chunks={out_chunks!r}"

    expected, numpy_error, undefined_pad = _numpy_outcome(data, pad_width, mode, kwargs)
    refusal = _expected_refusal(numpy_error, mode, kwargs)
    if refusal is not None:
        _assert_refused(
            call, refusal, lambda: pad(x, pad_width, mode, chunks=out_chunks, **kwargs)
        )
        return

    assert expected is not None  # (numpy raised nothing, so it returned its result)
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
    modes = _modes_of(mode) if _per_axis(mode) else [mode]
    if _per_axis(mode) and "empty" in modes and not undefined_pad:
        # each axis padded "empty" is undefined there; every other value reads only
        # elements inside those axes' interiors
        full = _widths_of(expected, data, pad_width)
        per_axis_modes = _axis_modes(mode, data.ndim)
        kept = tuple(
            slice(b, b + n) if m == "empty" else slice(None)
            for n, (b, _), m in zip(data.shape, full, per_axis_modes)
        )
        expected, actual = expected[kept], actual[kept]
    elif (isinstance(mode, str) and mode == "empty") or undefined_pad:
        region: tuple[slice | EllipsisType, ...] = (
            *_interior(data.shape, _widths_of(expected, data, pad_width)),
            Ellipsis,
        )
        expected, actual = expected[region], actual[region]
    ok = _same(expected, actual)
    if _per_axis(mode) and "mean" in modes and expected.size and not ok.all():
        ok |= _within_mean_tolerance_of(expected, actual)
    elif isinstance(mode, str) and mode == "mean" and expected.size and not ok.all():
        ok |= _within_mean_tolerance(expected, actual, data, pad_width, kwargs)
    if not ok.all():
        raise AssertionError(
            f"{call}: values differ from numpy's\n" + _describe_mismatch(expected, actual, ~ok)
        )


def _numpy_outcome(
    data: Values, pad_width: Any, mode: Any, kwargs: Mapping[str, object]
) -> tuple[Values | None, BaseException | None, bool]:
    """numpy's result (or None), its exception (or None), and whether it cast a NaN to an
    integer dtype (the mean or median of an empty slab: C leaves the result undefined, and
    numpy's own vectorised and scalar loops give different integers)."""
    expected: Values | None = None
    numpy_error: BaseException | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        try:
            expected = _numpy_reference(data, pad_width, mode, kwargs)
        except Exception as exc:
            numpy_error = exc
    undefined_pad = any("invalid value encountered in cast" in str(w.message) for w in caught)
    return expected, numpy_error, undefined_pad


def _modes_of(mode: AxisModes) -> list[AxisMode]:
    """The modes of a per-axis ``mode``."""
    return list(mode.values()) if isinstance(mode, Mapping) else list(mode)


def _expected_refusal(
    numpy_error: BaseException | None, mode: Any, kwargs: Mapping[str, object]
) -> tuple[type[BaseException], str] | None:
    """The exception class daskpad must raise when called, and why; None if none."""
    if numpy_error is not None:
        why = f"numpy raised {type(numpy_error).__name__}: {numpy_error}"
        return _first_builtin(type(numpy_error)), why
    modes = _modes_of(mode) if _per_axis(mode) else [mode]
    for name, value in kwargs.items():
        keyword = KEYWORDS.get(name)
        if keyword is None or keyword.kind != "choice":
            continue
        given = list(value.values()) if isinstance(value, Mapping) else [value]
        if any(isinstance(m, str) and m in keyword.modes for m in modes) and any(
            not isinstance(t, str) or t not in keyword.choices for t in given
        ):
            return (ValueError, f"{name}={value!r} is refused (numpy treats it as its default)")
    return None


def _assert_refused(
    call: str, refusal: tuple[type[BaseException], str], build: Callable[[], da.Array]
) -> None:
    """``build()`` (daskpad.pad) must raise ``refusal``'s class when called, not later."""
    expected_type, why = refusal
    try:
        with _quiet():
            result = build()
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
    raise AssertionError(f"{call}: {why}; daskpad.pad returned {result!r} without raising {later}")


def _axis_modes(mode: AxisModes, ndim: int) -> list[AxisMode]:
    if isinstance(mode, Mapping):
        out: list[AxisMode] = ["constant"] * ndim
        for key, m in mode.items():
            out[int(key) % ndim] = m
        return out
    return list(mode)


def _within_mean_tolerance_of(expected: Numbers, actual: Numbers) -> Flags:
    """Where a mean of a per-axis mode differs from numpy's by no more than summing in
    another order explains: MEAN_ULPS * eps * the largest finite magnitude of the result
    (every value any mean was taken over is in the result). Integers are averaged in
    float64 and rounded: exact below ``2**46``, above it that bound plus one."""
    kind = expected.dtype.kind
    if kind not in "fciu":
        return np.zeros(expected.shape, dtype=bool)
    wide = np.complex128 if kind == "c" else np.float64
    e, a = expected.astype(wide), actual.astype(wide)
    finite = np.abs(e[np.isfinite(e)])
    bound = float(finite.max()) if finite.size else 0.0
    eps = np.finfo(np.float64 if kind in "iu" else expected.dtype).eps
    tol = MEAN_ULPS * float(eps) * bound
    if kind in "iu":
        tol = tol + 1 if tol >= 1 else 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        close: Flags = np.isfinite(e) & np.isfinite(a) & (np.abs(e - a) <= tol)
        return close


def _within_mean_tolerance(
    expected: Numbers,
    actual: Numbers,
    data: Values,
    pad_width: Any,
    kwargs: Mapping[str, object],
) -> Flags:
    """Where a mean differs from numpy's by no more than summing in another order explains
    (see :func:`assert_pad_matches_numpy`); all False for dtypes compared exactly."""
    kind = expected.dtype.kind
    if kind == "O" and _all_real_numbers(expected, actual, data):
        kind = "f"  # Python numbers: float means summed in another order
    if kind not in "fciu":
        return np.zeros(expected.shape, dtype=bool)
    tol = _mean_tolerance(data, pad_width, kwargs, expected.dtype)
    if kind in "iu":
        tol = np.where(tol >= 1, tol + 1, 0)
    wide = np.complex128 if kind == "c" else np.float64
    e, a = expected.astype(wide), actual.astype(wide)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, where not finite
        close: Flags = np.isfinite(e) & np.isfinite(a) & (np.abs(e - a) <= tol)
        return close


# --------------------------------------------------------------------------------------------
# Padding functions (mode=callable)
# --------------------------------------------------------------------------------------------
