"""numpy is the oracle: daskpad.pad must agree with numpy.pad on every input hypothesis draws.

The strategies live in :mod:`daskpad.strategies`, the comparison in :mod:`daskpad.testing`;
how many examples each property gets comes from the hypothesis profile
(``tests/conftest.py``). A failing example
prints as a runnable ``assert_pad_matches_numpy(...)`` call.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import daskpad
from daskpad.core.keywords import KEYWORDS
from daskpad.core.registry import MODES
from daskpad.strategies import CALLABLES, invalid_pad_cases, pad_cases
from daskpad.testing import DTYPES, assert_pad_matches_numpy

pytestmark = pytest.mark.usefixtures("sync_scheduler")

ALL_MODES = sorted(MODES)
FUNCTIONS = [function for function, _ in CALLABLES]
#: Keyword arguments that make a mode take a different path.
MODE_VARIANTS = [(mode, {}) for mode in ALL_MODES] + [
    (mode, {"reflect_type": "odd"}) for mode in ("reflect", "symmetric")
]


def _id(variant):
    mode, kwargs = variant
    return mode + "".join(f"-{v}" for v in kwargs.values())


def _mode_id(mode):
    """A mode's name, or a function's: the same id in every test process (a function's
    repr holds its address)."""
    return getattr(mode, "__name__", mode)


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ALL_MODES)
@given(data=st.data())
def test_mode_matches_numpy(mode, data):
    data.draw(pad_cases(mode), label="case").check()


@pytest.mark.parametrize("mode", ["maximum", "mean", "median", "minimum"])
@given(data=st.data())
def test_statistics_under_a_tiny_chunk_budget_match_numpy(mode, data):
    # a budget of a few elements sends statistics over more than a block through the
    # per-block partials (and dask trees) and medians through narrowed slabs
    budget = data.draw(st.sampled_from(["16B", "64B", "256B", "2KiB"]), label="budget")
    with dask.config.set({"array.chunk-size": budget}):
        data.draw(pad_cases(mode), label="case").check()


@pytest.mark.parametrize("mode", ["edge", "linear_ramp", "reflect", "symmetric", "wrap"])
@given(data=st.data())
def test_modes_under_small_chunk_budgets_match_numpy(mode, data):
    # under dask's budget most drawn blocks are far below it, so pad sides grow; a small
    # budget keeps the input's chunk size, and the copying modes' cuts at the images of
    # the input chunks (each block a view of one input block)
    budget = data.draw(st.sampled_from(["64B", "256B", "2KiB", "16KiB"]), label="budget")
    with dask.config.set({"array.chunk-size": budget}):
        data.draw(pad_cases(mode), label="case").check()


@pytest.mark.parametrize("budget", ["64B", None])
def test_a_ramp_of_objects_to_a_complex_end_keeps_pythons_arithmetic(budget):
    # numpy's delta for object data is a Python complex, divided by the width as one;
    # complex128's division differs in the last bit (-0.6000000000000001 for -3/5)
    data = np.array([0], dtype=object)
    with dask.config.set({"array.chunk-size": budget} if budget else {}):
        assert_pad_matches_numpy(data, ((1,),), 5, "linear_ramp", end_values=2 + 3j)
        grid = np.array([[0, 1.5], [2, 3]], dtype=object)
        ends = ((2 + 3j, 1), (0.3, 7 - 1j))
        assert_pad_matches_numpy(grid, ((1, 1), (2,)), (3, 2), "linear_ramp", end_values=ends)


@given(data=st.data())
def test_function_matches_numpy(data):
    function = data.draw(st.sampled_from(FUNCTIONS), label="function")
    data.draw(pad_cases(function), label="case").check()


@given(case=invalid_pad_cases())
def test_invalid_arguments_raise_like_numpy(case):
    case.check()


def _identical(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind == "O":
        return all(x is y or x == y or (x != x and y != y) for x, y in zip(a.flat, b.flat))
    return a.tobytes() == b.tobytes()


@pytest.mark.parametrize("mode", [m for m in ALL_MODES if m != "empty"])
@given(data=st.data())
def test_output_chunk_policies_match_numpy(mode, data):
    # each policy cuts the pad sides at its own chunk boundaries, so every policy is
    # compared with numpy itself (a mean may then sum its lines in another order)
    case = data.draw(pad_cases(mode), label="case")
    policy = data.draw(st.sampled_from(["merge", "regular", "even", 1, 3, "auto"]), label="chunks")
    assert_pad_matches_numpy(
        case.data, case.chunks, case.pad_width, mode, out_chunks=policy, **case.kwargs
    )
    try:
        y = daskpad.pad(da.from_array(case.data, chunks=case.chunks), case.pad_width, mode,
                        chunks=policy, **case.kwargs)  # fmt: skip
    except Exception:
        return  # rejected like numpy, as checked above
    if policy in ("regular", "even"):
        assert all(len(set(c[:-1])) <= 1 and (not c or c[-1] <= c[0]) for c in y.chunks)
    elif policy in (1, 3):
        assert all(set(c[:-1]) <= {policy} for c in y.chunks)


# --------------------------------------------------------------------------------------------
# Focused cases: pads much wider than the axis, chunks of one element
# --------------------------------------------------------------------------------------------

WIDE = [37, (37, 0), (0, 37), (37, 5), (29, 40)]


@pytest.mark.parametrize("reflect_type", KEYWORDS["reflect_type"].choices)
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("pad_width", WIDE, ids=str)
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_reflections_much_wider_than_axis(mode, reflect_type, n, pad_width, dtype):
    data = (np.array([3, -1, 7, 2])[:n] * 1.25).astype(dtype)
    assert_pad_matches_numpy(data, 1, pad_width, mode, reflect_type=reflect_type)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
@pytest.mark.parametrize("pad_width", WIDE, ids=str)
def test_wrap_much_wider_than_axis(n, pad_width):
    assert_pad_matches_numpy(np.arange(10, 10 + n), 1, pad_width, "wrap")


@pytest.mark.parametrize("variant", MODE_VARIANTS, ids=_id)
def test_much_wider_than_axis_2d_corners(variant):
    mode, kwargs = variant
    data = np.array([[1.5, -2.0, 4.0], [0.5, 8.0, -3.0]])
    assert_pad_matches_numpy(data, 1, ((9, 7), (13, 4)), mode, **kwargs)


def test_odd_reflection_keeps_climbing_float_rounding():
    # Values that do not add exactly: numpy's iterative 2*edge - mirrored must be followed
    # piece by piece, not replaced by a closed form that rounds differently.
    data = np.array([0.1, 0.7, 0.3])
    for mode in ("reflect", "symmetric"):
        assert_pad_matches_numpy(data, 1, 40, mode, reflect_type="odd")
        assert_pad_matches_numpy(
            data.astype(np.float32), (2, 1), (40, 3), mode, reflect_type="odd"
        )


# --------------------------------------------------------------------------------------------
# Focused cases: axes of length 0 and 1, 0-d arrays
# --------------------------------------------------------------------------------------------

SMALL_SHAPES = [(0,), (1,), (0, 3), (3, 0), (1, 1), (1, 4), (4, 1), (0, 0), (2, 0, 1)]
SMALL_WIDTHS = [2, (0, 3), ((1, 2),), {0: 2}, {-1: (0, 1)}]


@pytest.mark.parametrize("pad_width", SMALL_WIDTHS, ids=str)
@pytest.mark.parametrize("shape", SMALL_SHAPES, ids=str)
@pytest.mark.parametrize("variant", MODE_VARIANTS, ids=_id)
def test_axes_of_length_0_and_1(variant, shape, pad_width):
    mode, kwargs = variant
    if isinstance(pad_width, dict) and np.lib.NumpyVersion(np.__version__) < "2.4.0":
        pytest.skip("numpy < 2.4 takes no dict pad_width")
    data = np.arange(1, 1 + int(np.prod(shape)), dtype=np.int16).reshape(shape)
    assert_pad_matches_numpy(
        data, tuple(max(n, 1) if n else 0 for n in shape), pad_width, mode, **kwargs
    )


@pytest.mark.parametrize("shape", [(1,), (1, 1), (0,), (3, 0)], ids=str)
@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_functions_on_axes_of_length_0_and_1(function, shape):
    data = np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape)
    chunks = tuple(max(n, 1) if n else 0 for n in shape)
    assert_pad_matches_numpy(data, chunks, (2, 1), function)


@pytest.mark.parametrize("stat_length", [None, 0, 1, (0, 1), 10])
@pytest.mark.parametrize("mode", ["maximum", "mean", "median", "minimum"])
def test_statistics_on_axis_of_length_1(mode, stat_length):
    kwargs = {} if stat_length is None else {"stat_length": stat_length}
    assert_pad_matches_numpy(np.array([[7.0], [-2.0]]), 1, 3, mode, **kwargs)


@pytest.mark.parametrize(
    "stat_length", [((1, 1), (0, 0)), ((0, 0), (1, 1)), ((0, 1), (1, 1)), 0], ids=str
)
@pytest.mark.parametrize("mode", ["maximum", "minimum"])
@pytest.mark.parametrize("dtype", ["timedelta64[s]", "float64"])
def test_empty_statistic_and_dtype_error_come_in_numpys_axis_order(dtype, mode, stat_length):
    # numpy checks stat_length 0 just before each axis's statistic, so a timedelta's rint
    # error on axis 0 comes before axis 1's empty statistic (found by the thorough profile)
    data = np.arange(12).reshape(3, 4).astype(dtype)
    assert_pad_matches_numpy(data, 2, 1, mode, stat_length=stat_length)


@pytest.mark.parametrize("mode", ["constant", "reflect", "mean", FUNCTIONS[0]], ids=_mode_id)
@pytest.mark.parametrize("pad_width", [2**62, (0, 2**63 - 1), 2**59], ids=str)
def test_padded_sizes_beyond_64_bits_raise_like_numpy(pad_width, mode):
    # numpy allocates first: its shape overflows, or the byte size does (ValueError)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow warning
        assert_pad_matches_numpy(np.arange(10.0), 3, pad_width, mode)


def test_a_lazy_array_too_big_for_any_memory_is_refused_when_built():
    x = da.zeros((2**31, 2**31), chunks=2**28)  # 32 EiB: numpy.pad cannot even start
    with pytest.raises(ValueError, match="array is too big"):
        daskpad.pad(x, 0)


ZERO_D_WIDTHS = [0, 3, (3,), (1, 2), ((1, 2),), {}]


@pytest.mark.parametrize("pad_width", ZERO_D_WIDTHS, ids=str)
@pytest.mark.parametrize("mode", [*ALL_MODES, *FUNCTIONS], ids=_mode_id)
def test_zero_dimensional(mode, pad_width):
    if isinstance(pad_width, dict) and np.lib.NumpyVersion(np.__version__) < "2.4.0":
        pytest.skip("numpy < 2.4 takes no dict pad_width")
    assert_pad_matches_numpy(np.array(5.5), (), pad_width, mode)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_zero_dimensional_every_dtype(dtype):
    data = np.zeros((), dtype=dtype)
    for mode in ALL_MODES:
        assert_pad_matches_numpy(data, (), 2, mode)


# --------------------------------------------------------------------------------------------
# Focused cases: every dtype through every mode, once, on a small irregular array
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", MODE_VARIANTS, ids=_id)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_dtype(dtype, variant):
    mode, kwargs = variant
    values = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3], [5, 8, 9, 7, 9]])
    if dtype.kind == "O":
        data = np.empty(values.shape, dtype=object)
        data[...] = [[int(v) for v in row] for row in values]
    else:
        data = values.astype(dtype)
    assert_pad_matches_numpy(data, ((2, 1), (1, 3, 1)), ((4, 2), (1, 6)), mode, **kwargs)


# --------------------------------------------------------------------------------------------
# The comparison itself must be able to fail
# --------------------------------------------------------------------------------------------


def test_comparison_notices_wrong_values(monkeypatch):
    import daskpad

    real = daskpad.pad

    def off_by_one(x, pad_width, mode="constant", **kwargs):
        return real(x, pad_width, mode, **kwargs) + 1

    monkeypatch.setattr(daskpad.testing.reference, "pad", off_by_one)
    with pytest.raises(AssertionError, match="values differ"):
        assert_pad_matches_numpy(np.arange(4), 2, 1, "edge")


def test_comparison_notices_a_missing_error(monkeypatch):
    import daskpad

    monkeypatch.setattr(daskpad.testing.reference, "pad", lambda x, *args, **kwargs: x)
    with pytest.raises(AssertionError, match="without raising"):
        assert_pad_matches_numpy(np.arange(4), 2, -1, "edge")


def test_comparison_tolerates_mean_rounding_only(monkeypatch):
    import daskpad

    real = daskpad.pad
    data = np.array([0.1, 0.2, 0.7, 1e3])

    def nudged(by):
        def pad(x, pad_width, mode="constant", **kwargs):
            y = real(x, pad_width, mode, **kwargs)
            nudge = np.where(np.arange(y.shape[0]) == 0, by, 0.0)
            return y + da.from_array(nudge, chunks=y.chunks)

        return pad

    ulp = np.spacing(1e3)
    monkeypatch.setattr(daskpad.testing.reference, "pad", nudged(4 * ulp))
    assert_pad_matches_numpy(data, 2, 1, "mean")  # a few ulps: summation order
    monkeypatch.setattr(daskpad.testing.reference, "pad", nudged(0.1))
    with pytest.raises(AssertionError, match="values differ"):
        assert_pad_matches_numpy(data, 2, 1, "mean")  # a wrong slab is not rounding


def test_comparison_checks_object_types(monkeypatch):
    import daskpad

    real = daskpad.pad

    def as_float(x, pad_width, mode="constant", **kwargs):
        y = real(x, pad_width, mode, **kwargs)
        return y.map_blocks(lambda b: np.array([float(v) for v in b], dtype=object), dtype=object)

    monkeypatch.setattr(daskpad.testing.reference, "pad", as_float)
    data = np.array([1, 2, 3], dtype=object)
    with pytest.raises(AssertionError, match="values differ"):
        assert_pad_matches_numpy(data, 2, 1, "edge")


def test_equal_values_compare_equal():
    # NaN, NaT and complex NaN in the data: equal to themselves in the comparison.
    for data in (
        np.array([np.nan, 1.0, -np.inf]),
        np.array([np.datetime64("NaT", "s"), np.datetime64(3, "s")]),
        np.array([complex(np.nan, 1), 2j]),
    ):
        assert_pad_matches_numpy(data, 1, 2, "edge")


def test_the_comparison_needs_no_hypothesis():
    """``daskpad.testing`` imports and compares with numpy and dask alone; the strategies
    (and hypothesis) load when one is asked for by name."""
    code = (
        "import sys; sys.modules['hypothesis'] = None\n"
        "import numpy as np\n"
        "from daskpad.testing import assert_pad_matches_numpy, pad_with_constant\n"
        "assert_pad_matches_numpy(np.arange(6.0).reshape(2, 3), 2, 3, 'symmetric')\n"
        "assert_pad_matches_numpy(np.arange(4), 1, 2, pad_with_constant)\n"
        "import daskpad.testing\n"
        "assert not hasattr(daskpad.testing, 'no_such_name')\n"
        "try:\n"
        "    daskpad.testing.pad_cases\n"
        "except ImportError:\n"
        "    print('strategies need hypothesis')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "strategies need hypothesis"
    from daskpad import strategies, testing

    assert testing.pad_cases is strategies.pad_cases
    assert testing.STRATEGIES == list(strategies.__all__)


def test_a_keyword_the_mode_does_not_take_is_refused_naming_the_modes_that_do():
    with pytest.raises(ValueError, match=r"mode 'edge': \['end_values'\].*'linear_ramp'"):
        daskpad.pad(np.arange(4), 1, "edge", end_values=3)
    with pytest.raises(ValueError, match="reflect_type must be 'even' or 'odd', got 'od'"):
        daskpad.pad(np.arange(4), 1, "reflect", reflect_type="od")
