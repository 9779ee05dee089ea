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

import labelled_data  # noqa: E402
from labelled_data import WIDTHS, chunked  # noqa: E402

import daskpad  # noqa: E402,F401  (registers the accessor)
from daskpad.core.registry import MODES  # noqa: E402

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
         r"unsupported keyword argument stat_length: no padded dimension's mode takes it "
         r"\(the modes are \{'x': 'wrap', 'y': 'constant'\}"),
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
