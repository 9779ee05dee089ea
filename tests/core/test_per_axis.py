"""A mode per axis: ``daskpad.pad(x, w, mode={axis: mode})`` or one mode per axis equals
numpy.pad called once per axis, in axis order, each call padding its axis alone with its
own mode and keywords (:func:`daskpad.testing.chained_numpy_pad`, the oracle)."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import daskpad
from daskpad.strategies import per_axis_pad_cases, shapes
from daskpad.testing import assert_pad_matches_numpy, chained_numpy_pad

pytestmark = pytest.mark.usefixtures("sync_scheduler")

QUERY_PLANNING = dask.config.get("array.query-planning", None) is True


# --------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------


@given(case=per_axis_pad_cases(shape=shapes(min_dims=1, max_dims=4)))
def test_a_mode_per_axis_matches_chained_numpy_pad(case):
    case.check()


@given(case=per_axis_pad_cases(shape=shapes(min_dims=2, max_dims=3), functions=False))
def test_a_mode_per_axis_under_a_tiny_chunk_budget(case):
    # statistics through partials and trees, narrowed medians, grown pad sides
    with dask.config.set({"array.chunk-size": "64B"}):
        case.check()


@given(
    case=per_axis_pad_cases(shape=shapes(min_dims=1, max_dims=3), functions=False),
    policy=st.sampled_from(["merge", "regular", "even", 2, "auto"]),
)
def test_a_mode_per_axis_in_every_chunks_policy(case, policy):
    assert_pad_matches_numpy(
        case.data, case.chunks, case.pad_width, case.mode, out_chunks=policy, **case.kwargs
    )
    try:
        y = daskpad.pad(
            da.from_array(case.data, chunks=case.chunks),
            case.pad_width,
            case.mode,
            chunks=policy,
            **case.kwargs,
        )
    except Exception:
        return  # refused as the chained numpy.pad calls refuse it (checked above)
    if policy in ("regular", "even"):
        assert all(len(set(c[:-1])) <= 1 and (not c or c[-1] <= c[0]) for c in y.chunks)


# --------------------------------------------------------------------------------------
# examples
# --------------------------------------------------------------------------------------

GRID = np.arange(7 * 12, dtype=np.float64).reshape(7, 12)  # latitude x longitude


def test_a_global_grid_wraps_longitude_and_mirrors_latitude():
    x = da.from_array(GRID, chunks=(3, 5))
    y = daskpad.pad(x, ((2, 2), (3, 3)), mode={0: "symmetric", 1: "wrap"})
    expected = np.pad(np.pad(GRID, ((2, 2), (0, 0)), "symmetric"), ((0, 0), (3, 3)), "wrap")
    np.testing.assert_array_equal(y.compute(), expected)
    # the corners come from axis 0's pads, wrapped along axis 1
    np.testing.assert_array_equal(y[:2, :3].compute(), expected[:2, :3])
    assert y[0, 0].compute() == GRID[1, -3]


def test_the_forms_of_a_mode_per_axis_agree():
    x = da.from_array(GRID, chunks=4)
    forms = [
        {1: "wrap", 0: "edge"},
        {-1: "wrap", -2: "edge"},
        ["edge", "wrap"],
        ("edge", "wrap"),
    ]
    results = [daskpad.pad(x, 2, mode=m).compute() for m in forms]
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    np.testing.assert_array_equal(results[0], chained_numpy_pad(GRID, 2, ["edge", "wrap"]))


def test_axes_not_named_are_constant():
    x = da.from_array(GRID, chunks=4)
    y = daskpad.pad(x, 1, mode={1: "wrap"}, constant_values=-1)
    assert (y[0].compute() == -1).all()
    np.testing.assert_array_equal(y[1:-1, 0].compute(), GRID[:, -1])


def test_keywords_apply_to_the_axes_whose_mode_takes_them():
    x = da.from_array(GRID, chunks=4)
    y = daskpad.pad(
        x,
        ((1, 2), (3, 4)),
        mode=["linear_ramp", "reflect"],
        end_values=((5, 6), (7, 8)),  # numpy's form: axis 0 takes its pair
        reflect_type={1: "odd"},
    )
    step = np.pad(GRID, ((1, 2), (0, 0)), "linear_ramp", end_values=((5, 6), (7, 8)))
    expected = np.pad(step, ((0, 0), (3, 4)), "reflect", reflect_type="odd")
    np.testing.assert_array_equal(y.compute(), expected)


@pytest.mark.parametrize("mode", [{0: "constant", 1: "symmetric"}, ("constant", "symmetric")])
def test_a_keyword_of_an_axis_named_with_width_0_is_taken(mode):
    # numpy.pad decides by mode, not width: np.pad(a, 0, "constant", constant_values=1.5)
    x = da.from_array(GRID, chunks=4)
    y = daskpad.pad(x, ((0, 0), (2, 1)), mode=mode, constant_values=1.5)
    step = np.pad(GRID, ((0, 0), (0, 0)), "constant", constant_values=1.5)
    expected = np.pad(step, ((0, 0), (2, 1)), "symmetric")
    np.testing.assert_array_equal(y.compute(), expected)
    np.testing.assert_array_equal(
        expected, chained_numpy_pad(GRID, ((0, 0), (2, 1)), mode, constant_values=1.5)
    )
    # ... and so is its {axis: value} entry, in numpy's forms too
    z = daskpad.pad(x, ((0, 0), (2, 1)), mode=mode, constant_values={0: ((1, 2),)})
    np.testing.assert_array_equal(z.compute(), expected)


def test_a_keyword_of_axes_of_width_0_reaches_no_function():
    # the constant of axis 0, named with width 0, is axis 0's: the function gets the rest
    seen = []

    def mark(vector, iaxis_pad_width, iaxis, kwargs):
        seen.append(sorted(kwargs))
        before, after = iaxis_pad_width
        vector[:before] = kwargs.get("fill", -1)
        vector[len(vector) - after :] = kwargs.get("fill", -1)

    x = da.from_array(GRID, chunks=4)
    mode = {0: "constant", 1: mark}
    y = daskpad.pad(x, ((0, 0), (1, 1)), mode=mode, constant_values=1.5, fill=-7)
    expected = chained_numpy_pad(GRID, ((0, 0), (1, 1)), mode, constant_values=1.5, fill=-7)
    np.testing.assert_array_equal(y.compute(), expected)
    assert seen and all(keys == ["fill"] for keys in seen)


@pytest.mark.parametrize(
    ("widths", "mode", "kwargs", "words"),
    [
        # an axis left to "constant" counts only where padded
        (
            ((0, 0), (2, 1)),
            {1: "symmetric"},
            {"constant_values": 1.5},
            r"unsupported keyword argument constant_values: the mode of no axis named in mode "
            r"or padded takes it \(\{1: 'symmetric'\}; axes not named in mode are 'constant', "
            r"counted only where padded\); constant_values is for mode\(s\) \['constant'\]",
        ),
        (((0, 0), (2, 1)), {1: "symmetric"}, {"constant_values": {0: 1.5}}, "constant_values"),
        # a keyword no mode of the call takes, whatever the widths
        (0, {0: "constant", 1: "symmetric"}, {"stat_length": 2}, r"\['maximum', 'mean'"),
        (((0, 0), (2, 1)), ("edge", "wrap"), {"end_values": 2}, r"\['linear_ramp'\]"),
        (0, ("edge", "wrap"), {"foo": 2}, "no mode takes foo"),
        # an {axis: value} entry for an axis whose mode does not take it
        (
            ((0, 0), (2, 1)),
            {0: "constant", 1: "symmetric"},
            {"constant_values": {1: 1.5}},
            r"constant_values gives a value for axis 1, whose mode 'symmetric' does not take "
            r"constant_values.*Leave 1 out of constant_values",
        ),
    ],
)
def test_keywords_still_refused_where_no_named_or_padded_axis_takes_them(
    widths, mode, kwargs, words
):
    with pytest.raises(ValueError, match=words):
        daskpad.pad(X, widths, mode=mode, **kwargs)
    with pytest.raises(ValueError):
        chained_numpy_pad(GRID, widths, mode, **kwargs)


def test_stat_length_by_axis():
    x = da.from_array(GRID, chunks=(2, 5))
    y = daskpad.pad(x, 3, mode=["mean", "median"], stat_length={0: 2, 1: (1, 4)})
    step = np.pad(GRID, ((3, 3), (0, 0)), "mean", stat_length=2)
    expected = np.pad(step, ((0, 0), (3, 3)), "median", stat_length=(1, 4))
    np.testing.assert_allclose(y.compute(), expected)


def test_whole_axis_statistics_of_two_axes_share_their_partials():
    x = da.from_array(np.random.default_rng(0).random((9, 10)), chunks=3)
    y = daskpad.pad(x, 2, mode=["maximum", "maximum"])
    z = daskpad.pad(x, 2, mode="maximum")
    np.testing.assert_array_equal(y.compute(), z.compute())
    if not QUERY_PLANNING:
        assert len(dict(y.__dask_graph__())) == len(dict(z.__dask_graph__()))


def test_a_function_for_one_axis_is_called_on_every_axis_at_its_step():
    calls = []

    def mark(vector, iaxis_pad_width, iaxis, kwargs):
        calls.append((iaxis, tuple(iaxis_pad_width)))
        before, after = iaxis_pad_width
        vector[:before] = kwargs.get("fill", -1)
        vector[len(vector) - after :] = kwargs.get("fill", -1)

    x = da.from_array(GRID, chunks=4)
    y = daskpad.pad(x, ((1, 1), (2, 2)), mode={0: "wrap", 1: mark}, fill=-7)
    expected = chained_numpy_pad(GRID, ((1, 1), (2, 2)), {0: "wrap", 1: mark}, fill=-7)
    np.testing.assert_array_equal(y.compute(), expected)
    assert (y[:, :2].compute() == -7).all()


def test_an_edge_function_for_one_axis():
    @daskpad.edge_function(reads=1)
    def step_away(vector, iaxis_pad_width, iaxis, kwargs):
        before, after = iaxis_pad_width
        vector[:before] = vector[before] - np.arange(before, 0, -1)
        vector[len(vector) - after :] = vector[-after - 1] + np.arange(1, after + 1)

    x = da.from_array(GRID, chunks=4)
    y = daskpad.pad(x, 3, mode=["symmetric", step_away])
    np.testing.assert_array_equal(
        y.compute(), chained_numpy_pad(GRID, 3, ["symmetric", step_away])
    )


def test_an_empty_input_is_padded_step_by_step():
    # axis 0's constant pads give axis 1's edge mode rows to read
    data = np.zeros((0, 3))
    x = da.from_array(data, chunks=2)
    y = daskpad.pad(x, 1, mode=["constant", "edge"], constant_values=4)
    np.testing.assert_array_equal(
        y.compute(), chained_numpy_pad(data, 1, ["constant", "edge"], constant_values=4)
    )
    assert y.shape == (2, 5)


def test_one_grid_no_more_tasks_than_the_chained_calls():
    x = da.ones((40, 60), chunks=10)
    one = daskpad.pad(x, 4, mode=["symmetric", "wrap"])
    two = daskpad.pad(daskpad.pad(x, ((4, 4), (0, 0)), "symmetric"), ((0, 0), (4, 4)), "wrap")
    np.testing.assert_array_equal(one.compute(), two.compute())
    if not QUERY_PLANNING:
        one.dask.validate()
        assert len(one.dask.layers) < len(two.dask.layers)
        assert len(dict(one.__dask_graph__())) <= len(dict(two.__dask_graph__()))


# --------------------------------------------------------------------------------------
# refusals: at the call, with numpy's exception types
# --------------------------------------------------------------------------------------

X = da.from_array(GRID, chunks=4)


@pytest.mark.parametrize(
    ("mode", "kwargs", "error", "words"),
    [
        ({1: "wrap"}, {"stat_length": 2}, ValueError, "stat_length"),
        (["edge", "wrap"], {"constant_values": 1}, ValueError, "constant_values"),
        ({1: "wrap"}, {"constant_values": {1: 3}}, ValueError, "axis 1"),
        ({1: "symmetric"}, {"reflect_type": {1: "Odd"}}, ValueError, "reflect_type"),
        (["edge"], {}, ValueError, "1 entries"),
        ({2: "edge"}, {}, ValueError, "out of bounds"),
        ({"lat": "edge"}, {}, TypeError, "integers"),
        ({0: "periodic"}, {}, ValueError, "axis 0"),
        ({0: 3}, {}, TypeError, "axis 0"),
        (["maximum", "edge"], {"stat_length": 0}, ValueError, "stat_length of 0"),
        ({0: "edge"}, {"foo": 1}, ValueError, "foo"),
    ],
)
def test_refusals_name_what_is_wrong(mode, kwargs, error, words):
    with pytest.raises(error, match=words):
        daskpad.pad(X, 2, mode=mode, **kwargs)


def test_a_data_mode_cannot_extend_an_empty_axis_after_the_others():
    x = da.zeros((3, 0), chunks=2)
    with pytest.raises(ValueError, match="can't extend empty axis 1"):
        daskpad.pad(x, 1, mode=["constant", "wrap"])
    with pytest.raises(ValueError):
        chained_numpy_pad(np.zeros((3, 0)), 1, ["constant", "wrap"])


def test_a_dtype_error_of_one_axis_is_raised_at_the_call():
    data = np.array([["2020-01-01", "2020-01-02"]], dtype="datetime64[D]")
    with pytest.raises(TypeError):
        chained_numpy_pad(data, 1, ["edge", "mean"])
    with pytest.raises(TypeError):
        daskpad.pad(da.from_array(data, chunks=1), 1, mode=["edge", "mean"])


@given(case=per_axis_pad_cases(shape=shapes(min_dims=1, max_dims=3), functions=False))
def test_crop_undoes_a_mode_per_axis(case):
    x = da.from_array(case.data, chunks=case.chunks)
    try:
        y = daskpad.pad(x, case.pad_width, case.mode, **case.kwargs)
    except Exception:
        return  # refused (the oracle's agreement is checked by the property above)
    z = daskpad.crop(y, case.pad_width)
    assert z.chunks == x.chunks
    np.testing.assert_array_equal(z.compute(), case.data)


def test_pad_to_with_a_mode_per_axis():
    x = da.from_array(GRID, chunks=5)
    y = daskpad.pad_to(x, (10, 16), mode={0: "symmetric", 1: "wrap"})
    widths = daskpad.widths_for(x, (10, 16))
    np.testing.assert_array_equal(
        y.compute(), chained_numpy_pad(GRID, widths, {0: "symmetric", 1: "wrap"})
    )


def test_what_an_empty_axis_leaves_is_read_by_the_next_at_the_call():
    # numpy's empty pad of objects holds None, which a later axis's ramp cannot subtract:
    # refused when pad is called, as the chained numpy.pad calls refuse it
    data = np.zeros((4, 3, 2), dtype=object)
    with pytest.raises(TypeError):
        chained_numpy_pad(data, 1, ("edge", "empty", "linear_ramp"))
    with pytest.raises(TypeError):
        daskpad.pad(da.from_array(data, chunks=1), 1, mode=("edge", "empty", "linear_ramp"))


def test_a_per_axis_mean_of_large_integers_is_held_to_the_float64_bound():
    # int64 near 2e15: float64 sums in another order may round the mean to the next
    # integer, which the documented tolerance allows (assert_pad_matches_numpy); far
    # beyond it, a wrong value is still caught
    from daskpad.testing import assert_pad_matches_numpy

    rng = np.random.default_rng(3)
    data = rng.integers(2**50, 2**51, (11, 1, 1, 6), dtype=np.int64)
    chunks = ((1, 1, 2, 7), (1,), (1,), (1,) * 6)
    assert_pad_matches_numpy(data, chunks, ((1,), (0,), (0,), (0,)), {0: "mean", 2: "edge"})
    from daskpad.testing.reference import _within_mean_tolerance_of

    expected = np.array([2**51, 5], dtype=np.int64)
    assert _within_mean_tolerance_of(expected, expected + np.array([1, 0])).all()
    assert not _within_mean_tolerance_of(expected, expected + 2**20).any()
    small = np.array([5, 7], dtype=np.int64)  # below 2**46: exact
    assert not _within_mean_tolerance_of(small, small + 1).any()
