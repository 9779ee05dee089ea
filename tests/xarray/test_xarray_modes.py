"""A mode per dimension in ``pad2``: ``mode={"lon": "wrap", "lat": "symmetric"}``.

The oracle is numpy.pad chained one dimension at a time, in each variable's own dimension
order, each call padding only its dimension with its own mode and keywords; with
``coords="xarray"`` it is xarray's own ``.pad`` chained the same way.
"""

from __future__ import annotations

import functools

import dask
import dask.array as da
import numpy as np
import pytest

xr = pytest.importorskip("xarray")

from helpers import labelled_data  # noqa: E402
from helpers.labelled_data import WIDTHS, chunked  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import daskpad  # noqa: E402  (registers the accessor)
from daskpad.core.registry import MODES  # noqa: E402
from daskpad.testing import chained_numpy_pad  # noqa: E402

#: numpy modes whose pads are defined (empty's are not)
DEFINED = [m for m in MODES if m != "empty"]
#: a keyword for each mode that takes one, per dimension as pad2 takes it
KEYWORDS = {
    "constant": ("constant_values", (1, 2)),
    "linear_ramp": ("end_values", (5, -5)),
    "maximum": ("stat_length", 2),
    "mean": ("stat_length", (1, 3)),
    "median": ("stat_length", (2, 1)),
    "minimum": ("stat_length", (3, 1)),
    "reflect": ("reflect_type", "odd"),
    "symmetric": ("reflect_type", "odd"),
}


def make_dataset() -> xr.Dataset:
    return labelled_data.make_dataset(1, np.arange(5.0) ** 2, other_order=True)


def chained(values, dims, widths, modes, keywords, fill=None):
    """numpy.pad once per padded dimension, in ``dims`` order, each with its own mode and
    keywords (``keywords[dim]``); the default fill (``fill``, a dtype) promotes where the
    chain meets it."""
    for axis, dim in enumerate(dims):
        if dim not in widths:
            continue
        alone = [(0, 0)] * len(dims)
        alone[axis] = widths[dim]
        kwargs = dict(keywords.get(dim, {}))
        mode = modes.get(dim, "constant")
        if mode == "constant" and "constant_values" not in kwargs:
            values = values.astype(fill)
            kwargs["constant_values"] = np.nan
        values = np.pad(values, alone, mode=mode, **kwargs)
    return values


def by_dim(modes: dict) -> tuple[dict, dict]:
    """pad2's keywords for ``modes``, each by dimension name, and numpy's per dimension."""
    pad2_kwargs: dict = {}
    per_dim: dict = {d: {} for d in modes}
    for dim, mode in modes.items():
        if mode in KEYWORDS:
            key, value = KEYWORDS[mode]
            pad2_kwargs.setdefault(key, {})[dim] = value
            per_dim[dim][key] = value
    return pad2_kwargs, per_dim


# every mode on each dimension, beside a different one on the other
PAIRS = [(m, DEFINED[(k + 3) % len(DEFINED)]) for k, m in enumerate(DEFINED)]


@pytest.mark.parametrize(("mx", "my"), PAIRS, ids=[f"x={a}-y={b}" for a, b in PAIRS])
def test_modes_by_dimension_equal_chained_numpy(mx, my):
    ds = make_dataset()
    modes = {"x": mx, "y": my}
    kwargs, per_dim = by_dim(modes)
    in_memory = ds.pad2(WIDTHS, mode=modes, **kwargs)
    with dask.config.set(scheduler="sync"):
        lazy = chunked(ds).pad2(WIDTHS, mode=modes, **kwargs)
        for name in ("f", "i", "g", "t", "lat"):
            assert isinstance(lazy[name].data, da.Array), name
        computed = lazy.compute()
    xr.testing.assert_identical(computed, in_memory)
    for name in ("f", "i", "g", "t"):
        var = ds[name]
        expected = chained(var.values, var.dims, WIDTHS, modes, per_dim)
        assert in_memory[name].dtype == expected.dtype, name
        if "mean" in modes.values() and var.dtype.kind == "f":
            np.testing.assert_allclose(in_memory[name].values, expected, rtol=1e-12)
        else:
            np.testing.assert_array_equal(in_memory[name].values, expected)
    assert in_memory["z"].data is ds["z"].data  # no padded dimension: untouched
    # index coordinates continue their spacing whatever the modes
    np.testing.assert_array_equal(in_memory["x"].values, np.arange(-2.0, 7.0))
    np.testing.assert_array_equal(in_memory["y"].values, np.arange(0, 130, 10))
    assert in_memory["f"].attrs == {"units": "K"} and in_memory.attrs == {"title": "test"}


def test_dimensions_not_named_keep_constant():
    ds = make_dataset()
    out = ds.pad2(WIDTHS, mode={"y": "wrap"})  # x: constant, xarray's missing value
    expected = chained(ds["i"].values, ("x", "y"), WIDTHS, {"y": "wrap"}, {}, np.float64)
    np.testing.assert_array_equal(out["i"].values, expected)
    assert out["i"].dtype == np.float64
    # a variable without x pads by its y alone, and keeps its dtype
    np.testing.assert_array_equal(out["t"].values, np.pad(ds["t"].values, WIDTHS["y"], "wrap"))
    # a scalar keyword applies to the dimensions whose mode takes it
    out = ds.pad2(WIDTHS, mode={"y": "wrap"}, constant_values=-1)
    assert out["i"].dtype == np.int32
    expected = chained(
        ds["i"].values, ("x", "y"), WIDTHS, {"y": "wrap"}, {"x": {"constant_values": -1}}
    )
    np.testing.assert_array_equal(out["i"].values, expected)


# --------------------------------------------------------------------------------------
# Keywords go by mode, not width: a dimension mode names counts with width 0 too
# --------------------------------------------------------------------------------------
GRID = xr.DataArray(np.arange(12.0).reshape(3, 4), dims=("y", "x"))


@pytest.mark.parametrize("constant_values", [1.5, {"y": 1.5}, {"y": (1.5, 1.5)}])
def test_a_keyword_of_a_dimension_named_with_width_0_is_taken(constant_values):
    modes = {"y": "constant", "x": "symmetric"}
    step = np.pad(GRID.values, 0, "constant", constant_values=1.5)
    expected = np.pad(step, ((0, 0), (2, 1)), "symmetric")
    for obj in (GRID, GRID.chunk(2)):
        out = obj.pad2(y=0, x=(2, 1), mode=modes, constant_values=constant_values)
        np.testing.assert_array_equal(out.compute().values, expected)
    # ... as daskpad.pad takes it by axis
    got = daskpad.pad(
        GRID.chunk(2).data, ((0, 0), (2, 1)), mode={0: "constant", 1: "symmetric"},
        constant_values=1.5,
    )  # fmt: skip
    np.testing.assert_array_equal(got.compute(), expected)


def test_a_dimension_left_to_constant_counts_only_where_padded():
    words = (
        r"unsupported keyword argument constant_values: the mode of no dimension named in "
        r"mode or padded takes it \(\{'x': 'symmetric'\}; dimensions not named in mode are "
        r"'constant', counted only where padded\); constant_values is for mode\(s\) "
        r"\['constant'\]"
    )
    for obj in (GRID, GRID.chunk(2)):
        with pytest.raises(ValueError, match=words):
            obj.pad2(y=0, x=(2, 1), mode={"x": "symmetric"}, constant_values=1.5)
        with pytest.raises(ValueError, match=words):
            obj.pad2(y=0, x=(2, 1), mode={"x": "symmetric"}, constant_values={"y": 1.5})
        # padded, it counts
        out = obj.pad2(y=1, x=(2, 1), mode={"x": "symmetric"}, constant_values=1.5)
        assert (out.compute().values[0] == 1.5).all()
    # the same words as daskpad.pad's, by axis
    with pytest.raises(ValueError) as by_axis:
        daskpad.pad(GRID.chunk(2).data, ((0, 0), (2, 1)), {1: "symmetric"}, constant_values=1.5)
    assert str(by_axis.value) == (
        "unsupported keyword argument constant_values: the mode of no axis named in mode or "
        "padded takes it ({1: 'symmetric'}; axes not named in mode are 'constant', counted "
        "only where padded); constant_values is for mode(s) ['constant']"
    )


def test_a_mode_still_names_only_dimensions_given_a_width():
    # (a width of 0 is a width: the dimension is in the call, and its mode counts)
    with pytest.raises(ValueError, match=r"mode names dimension\(s\) \['y'\], which have no"):
        GRID.pad2(x=(2, 1), mode={"y": "constant", "x": "symmetric"}, constant_values=1.5)


_KEYWORD_VALUES = {
    "constant_values": st.sampled_from([-1.5, 2.0, (1.0, -3.0)]),
    "end_values": st.sampled_from([4.0, (-2.0, 1.0)]),
    "stat_length": st.sampled_from([1, 2, (1, 3)]),
    "reflect_type": st.sampled_from(["even", "odd"]),
}


@st.composite
def _by_name_cases(draw):
    """A DataArray, widths by name (some dimensions left out, some 0), a mode per
    dimension naming some of those given a width, and keywords by name or for all."""
    ndim = draw(st.integers(1, 3))
    dims = ("a", "b", "c")[:ndim]
    shape = tuple(draw(st.integers(1, 4)) for _ in dims)
    values = np.random.default_rng(draw(st.integers(0, 99))).integers(-9, 9, shape) * 1.0
    widths = {}
    for dim in dims:
        kind = draw(st.sampled_from(["left out", "zero", "padded"]))
        if kind == "zero":
            widths[dim] = 0
        elif kind == "padded":
            widths[dim] = (draw(st.integers(0, 3)), draw(st.integers(1, 3)))
    defined = sorted(m for m in MODES if m != "empty")
    named = draw(st.lists(st.sampled_from(sorted(widths)), unique=True)) if widths else []
    modes = {dim: draw(st.sampled_from(defined)) for dim in named}
    kwargs = {}
    for key, value in _KEYWORD_VALUES.items():
        if not draw(st.integers(0, 2)):
            continue
        if widths and draw(st.booleans()):
            chosen = draw(st.lists(st.sampled_from(sorted(widths)), min_size=1, unique=True))
            kwargs[key] = {dim: draw(value) for dim in chosen}
        else:
            kwargs[key] = draw(value)
    chunks = draw(st.sampled_from([None, 1, 2]))
    return xr.DataArray(values, dims=dims), widths, modes, kwargs, chunks


@given(case=_by_name_cases())
def test_keywords_by_name_match_chained_numpy_pad_or_its_refusal(case):
    # pad2 by name is daskpad.pad's mode per axis: the dimensions mode names are the axes
    # it names (a width of 0 included), a keyword by name is {axis: value}; xarray's
    # missing value is the fill of a padded constant dimension given none
    arr, widths, modes, kwargs, chunks = case
    axis = {dim: k for k, dim in enumerate(arr.dims)}
    pairs = [(0, 0)] * arr.ndim
    for dim, w in widths.items():
        pairs[axis[dim]] = w if isinstance(w, tuple) else (w, w)
    by_axis = {axis[d]: m for d, m in modes.items()}
    np_kwargs = {
        k: {axis[d]: e for d, e in v.items()} if isinstance(v, dict) else v
        for k, v in kwargs.items()
    }
    missing = {
        a: np.nan
        for a in range(arr.ndim)
        if by_axis.get(a, "constant") == "constant" and any(pairs[a])
    }
    constants = np_kwargs.get("constant_values", {})
    if isinstance(constants, dict) and missing.keys() - constants.keys():
        np_kwargs["constant_values"] = {**missing, **constants}
    obj = arr if chunks is None else arr.chunk(chunks)
    try:
        with np.errstate(all="ignore"):
            expected = chained_numpy_pad(arr.values, pairs, by_axis, **np_kwargs)
    except ValueError:
        with pytest.raises(ValueError):
            obj.pad2(widths, mode=modes, **kwargs)
        return
    with dask.config.set(scheduler="sync"):
        got = obj.pad2(widths, mode=modes, **kwargs).compute().values
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_one_mode_by_dimension_is_the_mode():
    ds = make_dataset()
    for obj in (ds, chunked(ds)):
        xr.testing.assert_identical(
            obj.pad2(WIDTHS, mode={"x": "reflect", "y": "reflect"}).compute(),
            obj.pad2(WIDTHS, mode="reflect").compute(),
        )


@pytest.mark.parametrize("first", ["x", "y"])
def test_default_fill_promotes_where_the_chain_meets_it(first):
    # i is int32: a mean of x in the integers (rounded), then the NaN of y promotes it;
    # the variable whose first dimension is y is promoted before its mean
    ds = make_dataset()
    i = ds["i"] if first == "x" else ds["i"].T
    modes = {"x": "mean"}
    for obj in (i, i.chunk(2)):
        out = obj.pad2(WIDTHS, mode=modes).compute()
        expected = chained(i.values, i.dims, WIDTHS, modes, {}, np.float64)
        assert out.dtype == np.float64
        np.testing.assert_array_equal(out.values, expected)
    if first == "x":  # (the mean of the integers is rounded there)
        assert (out.values[:2, 1:-7] == np.round(out.values[:2, 1:-7])).all()


def test_statistics_and_ramps_with_keywords_by_dimension():
    ds = make_dataset()
    modes = {"x": "median", "y": "linear_ramp"}
    kwargs = {"stat_length": {"x": (1, 3)}, "end_values": {"y": (-4, 9)}}
    per_dim = {"x": {"stat_length": (1, 3)}, "y": {"end_values": (-4, 9)}}
    for obj in (ds, chunked(ds)):
        out = obj.pad2(WIDTHS, mode=modes, **kwargs).compute()
        for name in ("f", "i", "g"):
            var = ds[name]
            expected = chained(var.values, var.dims, WIDTHS, modes, per_dim)
            np.testing.assert_array_equal(out[name].values, expected)
    # every statistic with stat_length by dimension, the other dimension's left whole
    for stat in ("maximum", "minimum", "mean", "median"):
        modes = {"x": stat, "y": "maximum"}
        out = ds.pad2(WIDTHS, mode=modes, stat_length={"x": 2})
        expected = chained(ds["f"].values, ("x", "y"), WIDTHS, modes, {"x": {"stat_length": 2}})
        np.testing.assert_allclose(out["f"].values, expected, rtol=1e-12)


def test_reflect_type_by_dimension():
    ds = make_dataset()
    per_dim = {"x": {"reflect_type": "odd"}, "y": {}}
    for modes in ({"x": "reflect", "y": "reflect"}, {"x": "symmetric", "y": "reflect"}):
        for obj in (ds, chunked(ds)):
            out = obj.pad2(WIDTHS, mode=modes, reflect_type={"x": "odd"}).compute()
            for name in ("f", "i", "g"):
                var = ds[name]
                expected = chained(var.values, var.dims, WIDTHS, modes, per_dim)
                np.testing.assert_array_equal(out[name].values, expected)
    # one mode with reflect_type by dimension
    out = ds.pad2(WIDTHS, mode="reflect", reflect_type={"y": "odd"})
    expected = chained(
        ds["f"].values, ("x", "y"), WIDTHS, {"x": "reflect", "y": "reflect"},
        {"y": {"reflect_type": "odd"}},
    )  # fmt: skip
    np.testing.assert_array_equal(out["f"].values, expected)


def _ones_then_fives(vector, iaxis_pad_width, iaxis, kwargs):
    before, after = iaxis_pad_width
    vector[:before] = 1
    vector[len(vector) - after :] = 5


def test_a_function_for_one_dimension():
    ds = make_dataset()
    modes = {"x": _ones_then_fives, "y": "wrap"}
    for obj in (ds, chunked(ds)):
        out = obj.pad2(WIDTHS, mode=modes).compute()
        for name in ("f", "g"):
            var = ds[name]
            expected = chained(var.values, var.dims, WIDTHS, modes, {})
            np.testing.assert_array_equal(out[name].values, expected)


def test_dataarray_by_dimension():
    arr = make_dataset()["g"]  # (y, x)
    modes = {"x": "wrap", "y": "symmetric"}
    for obj in (arr, arr.chunk(2)):
        out = obj.pad2(x=1, y=2, mode=modes).compute()
        assert out.name == "g" and out.dims == ("y", "x")
        expected = chained(arr.values, arr.dims, {"x": (1, 1), "y": (2, 2)}, modes, {})
        np.testing.assert_array_equal(out.values, expected)
        np.testing.assert_array_equal(out["y"].values, np.arange(-10, 80, 10))


def test_dask_stays_lazy():
    def computes(dsk, keys, **kwargs):
        raise AssertionError("dask computed where it should have stayed lazy")

    ds = chunked(make_dataset())
    with dask.config.set(scheduler=computes):
        out = ds.pad2(WIDTHS, mode={"x": "mean", "y": "wrap"}, stat_length={"x": 2})
        out = ds.pad2(WIDTHS, mode={"x": "median"})  # and the promotion between the two
    assert isinstance(out["i"].data, da.Array) and out["i"].dtype == np.float64


# --------------------------------------------------------------------------------------
# Coordinates
# --------------------------------------------------------------------------------------
def test_non_index_coordinates_follow_each_dimension():
    # lat (x, y) is not an index: padded with the mode where it copies values (wrap on y),
    # with the missing value where a statistic or ramp would mean nothing for labels (x)
    ds = make_dataset()
    out = ds.pad2(WIDTHS, mode={"x": "mean", "y": "wrap"})
    lat = ds["lat"].values
    expected = np.pad(np.pad(lat, (WIDTHS["x"], (0, 0)), constant_values=np.nan),
                      ((0, 0), WIDTHS["y"]), "wrap")  # fmt: skip
    np.testing.assert_array_equal(out["lat"].values, expected)


@pytest.mark.parametrize(("mx", "my"), PAIRS, ids=[f"x={a}-y={b}" for a, b in PAIRS])
def test_coords_xarray_is_xarrays_pad_chained(mx, my):
    ds = make_dataset().drop_vars("g")  # (xarray's chain pads x first in every variable)
    modes = {"x": mx, "y": my}
    kwargs, per_dim = by_dim(modes)
    expected = ds.pad({"x": WIDTHS["x"]}, mode=mx, **per_dim["x"]).pad(
        {"y": WIDTHS["y"]}, mode=my, **per_dim["y"]
    )
    xr.testing.assert_identical(ds.pad2(WIDTHS, mode=modes, coords="xarray", **kwargs), expected)
    lazy = chunked(ds).pad2(WIDTHS, mode=modes, coords="xarray", **kwargs)
    xr.testing.assert_identical(lazy.compute(), expected)


def test_coords_xarray_default_fill_chained():
    ds = make_dataset().drop_vars("g")
    expected = ds.pad(x=WIDTHS["x"], mode="median").pad(y=WIDTHS["y"])  # NaN, promoting
    out = ds.pad2(WIDTHS, mode={"x": "median"}, coords="xarray")
    xr.testing.assert_identical(out, expected)
    xr.testing.assert_identical(
        chunked(ds).pad2(WIDTHS, mode={"x": "median"}, coords="xarray").compute(), expected
    )


def test_coords_xarray_zero_width_chained():
    # a width of 0 still promotes for the default fill, as in xarray, and its mode's
    # keywords are accepted though they pad nothing
    ds = make_dataset().drop_vars("g")
    for modes, kwargs, expected in (
        ({"x": "mean", "y": "wrap"}, {"stat_length": {"x": 1}},
         ds.pad(x=0, mode="mean", stat_length={"x": 1}).pad(y=2, mode="wrap")),
        ({"y": "wrap"}, {}, ds.pad(x=0).pad(y=2, mode="wrap")),
    ):  # fmt: skip
        for obj in (ds, chunked(ds)):
            out = obj.pad2(x=0, y=2, mode=modes, coords="xarray", **kwargs)
            xr.testing.assert_identical(out.compute(), expected)


def test_coords_drop_by_dimension():
    ds = make_dataset()
    out = ds.pad2(WIDTHS, mode={"x": "edge", "y": "wrap"}, coords="drop")
    assert "x" not in out.coords and "y" not in out.coords
    expected = chained(ds["f"].values, ("x", "y"), WIDTHS, {"x": "edge", "y": "wrap"}, {})
    np.testing.assert_array_equal(out["f"].values, expected)


# --------------------------------------------------------------------------------------
# pad_to
# --------------------------------------------------------------------------------------
def test_pad_to_by_dimension():
    ds = make_dataset()
    modes = {"x": "reflect", "y": "wrap"}
    out = ds.pad2.pad_to({"x": 7, "y": 8}, mode=modes)
    widths = ds.pad2.widths_for({"x": 7, "y": 8})
    assert widths == {"x": (1, 2), "y": (1, 2)}
    expected = chained(ds["f"].values, ("x", "y"), widths, modes, {})
    np.testing.assert_array_equal(out["f"].values, expected)
    xr.testing.assert_identical(out, ds.pad2(widths, mode=modes))
    # a dimension already of its size is not padded, its mode is simply not used
    out = ds.pad2.pad_to({"x": 4, "y": 8}, mode=modes)
    xr.testing.assert_identical(out, ds.pad2(y=(1, 2), mode="wrap"))
    out = ds.pad2.pad_to(multiple=4, mode={"y": "edge"}, align="start")
    assert out.sizes["y"] == 8 and out.sizes["x"] == 4 and out.sizes["w"] == 4
    with pytest.raises(ValueError, match=r"mode names dimension\(s\) \['x'\].*shape or multiple"):
        ds.pad2.pad_to({"y": 8}, mode=modes)


# --------------------------------------------------------------------------------------
# Errors: the argument, what was given, what would work
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        # a dimension that does not exist, or has no width
        ({"x": 1, "mode": {"lon": "wrap"}}, ValueError,
         r"mode names dimension\(s\) \['lon'\] that do not exist.*\('x', 'y', 'w'\)"),
        ({"x": 1, "mode": {"x": "wrap", "y": "edge"}}, ValueError,
         r"mode names dimension\(s\) \['y'\], which have no width.*give them a width"),
        # unknown names; another library's word is translated
        ({"x": 1, "mode": {"x": "bogus"}}, ValueError,
         r"mode\['x'\]='bogus': mode 'bogus' is not supported; choose one of"),
        ({"x": 1, "mode": {"x": "periodic"}}, ValueError,
         r"mode\['x'\]='periodic' is not a numpy.pad mode: it is dask's name for numpy.pad's "
         r"'wrap'.*docs/boundaries.md"),
        ({"x": 1, "mode": "nearest"}, ValueError,
         r"mode='nearest' is not a numpy.pad mode: it is scipy's and dask's name for "
         r"numpy.pad's 'edge'"),
        ({"x": 1, "mode": {"x": ["wrap"]}}, TypeError, r"mode\['x'\] must be one mode"),
        ({"x": 1, "mode": ["wrap", "edge"]}, TypeError, "mode per dimension by name"),
        # keywords that fit no mode, or a dimension whose mode does not take them
        ({"x": 1, "y": 1, "mode": {"x": "wrap"}, "stat_length": 2}, ValueError,
         r"unsupported keyword argument stat_length: the mode of no dimension named in mode or "
         r"padded takes it \(\{'x': 'wrap', 'y': 'constant'\}"),
        ({"x": 1, "y": 1, "mode": {"x": "mean", "y": "wrap"}, "stat_length": {"y": 2}},
         ValueError, r"stat_length gives a value for dimension 'y', whose mode 'wrap' does not "
         r"take stat_length; stat_length is for mode\(s\) \['maximum', 'mean', 'median'"),
        ({"x": 1, "y": 1, "mode": {"x": "wrap"}, "constant_values": {"i": {"x": 0}}},
         ValueError, "constant_values gives a value for dimension 'x', whose mode 'wrap'"),
        ({"x": 1, "mode": {"x": "reflect"}, "reflect_type": {"x": "od"}}, ValueError,
         r"reflect_type\['x'\] must be 'even' or 'odd', got 'od'"),
        ({"x": 1, "mode": {"x": "reflect"}, "reflect_type": {"q": "odd"}}, ValueError,
         r"reflect_type names dimension\(s\) \['q'\] that do not exist"),
        ({"x": 1, "mode": {"x": "mean"}, "stat_length": {"q": 1}}, ValueError,
         r"stat_length names dimension\(s\) \['q'\] that do not exist"),
        ({"x": 1, "mode": {"x": np.mean}, "stat_length": 1}, ValueError,
         r"the function of \['x'\] gets no keywords from pad2: bind them with functools"),
    ],
)  # fmt: skip
def test_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        make_dataset().pad2(**kwargs)


def test_a_partial_carries_a_functions_keywords():
    def fill(vector, iaxis_pad_width, iaxis, kwargs, value):
        before, after = iaxis_pad_width
        vector[:before] = value
        vector[len(vector) - after :] = value

    ds = make_dataset()
    out = ds.pad2(x=1, y=1, mode={"x": functools.partial(fill, value=-7), "y": "edge"})
    assert (out["f"].values[0, 1:-1] == -7).all()
    assert (out["f"].values[:, 0] == out["f"].values[:, 1]).all()  # y's edge, corners too
