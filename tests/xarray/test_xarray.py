"""Tests of labelled padding: ``daskpad.xarray.pad2`` and the ``pad2`` accessor."""

from __future__ import annotations

import importlib
import warnings

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

xr = pytest.importorskip("xarray")

from helpers import labelled_data  # noqa: E402
from helpers.labelled_data import WIDTHS, chunked  # noqa: E402

import daskpad  # noqa: E402  (registers the accessor)
import daskpad.xarray  # noqa: E402
from daskpad.core.registry import MODES  # noqa: E402
from daskpad.xarray import pad2  # noqa: E402
from daskpad.xarray.coords import extend_labels  # noqa: E402


def _raise_if_computes(dsk, keys, **kwargs):
    raise AssertionError("dask computed where it should have stayed lazy")


@pytest.fixture
def no_compute():
    with dask.config.set(scheduler=_raise_if_computes):
        yield


def make_dataset() -> xr.Dataset:
    return labelled_data.make_dataset(0, np.arange(5.0))


def assert_all_dask(ds: xr.Dataset) -> None:
    for name, var in ds.variables.items():
        if name not in ds.indexes:
            assert isinstance(var.data, da.Array), name


# One row per mode and option variant: pad2's keyword arguments, and numpy.pad's for an
# (x, y) variable padded by WIDTHS. ``None`` as numpy's constant means "default fill".
CASES = [
    ("constant", {}, {"constant_values": None}),
    ("constant", {"constant_values": 7}, {"constant_values": 7}),
    ("constant", {"constant_values": (1, 2)}, {"constant_values": (1, 2)}),
    (
        "constant",
        {"constant_values": {"x": (1, 2), "y": 3}},
        {"constant_values": ((1, 2), (3, 3))},
    ),
    ("edge", {}, {}),
    ("reflect", {}, {}),
    ("reflect", {"reflect_type": "odd"}, {"reflect_type": "odd"}),
    ("symmetric", {}, {}),
    ("symmetric", {"reflect_type": "odd"}, {"reflect_type": "odd"}),
    ("wrap", {}, {}),
    ("linear_ramp", {}, {}),
    ("linear_ramp", {"end_values": {"x": (5, -5)}}, {"end_values": ((5, -5), (0, 0))}),
    ("linear_ramp", {"end_values": 3}, {"end_values": 3}),
    ("maximum", {}, {}),
    ("minimum", {"stat_length": 2}, {"stat_length": 2}),
    ("mean", {}, {}),
    ("mean", {"stat_length": {"y": (1, 3)}}, {"stat_length": ((4, 4), (1, 3))}),
    ("median", {}, {}),
    ("median", {"stat_length": (2, 1)}, {"stat_length": (2, 1)}),
]
CASE_IDS = [f"{m}-{'-'.join(map(str, kw)) or 'default'}" for m, kw, _ in CASES]


def test_cases_cover_every_mode():
    assert {m for m, _, _ in CASES} == set(MODES) - {"empty"}


def numpy_expected(values: np.ndarray, mode: str, np_kwargs: dict) -> np.ndarray:
    widths = (WIDTHS["x"], WIDTHS["y"])
    kwargs = dict(np_kwargs)
    if kwargs.get("constant_values", 0) is None:
        values = values.astype(np.float64)  # int32 and float64 both promote to float64
        kwargs["constant_values"] = np.nan
    return np.pad(values, widths, mode=mode, **kwargs)


@pytest.mark.parametrize(("mode", "kwargs", "np_kwargs"), CASES, ids=CASE_IDS)
def test_data_matches_numpy_in_memory_and_on_dask(mode, kwargs, np_kwargs):
    ds = make_dataset()
    in_memory = ds.pad2(WIDTHS, mode=mode, **kwargs)
    lazy = chunked(ds).pad2(WIDTHS, mode=mode, **kwargs)
    assert_all_dask(lazy)
    xr.testing.assert_identical(lazy.compute(), in_memory)
    for name in ("f", "i"):
        expected = numpy_expected(ds[name].values, mode, np_kwargs)
        np.testing.assert_array_equal(in_memory[name].values, expected)
        assert in_memory[name].dtype == expected.dtype
    # Variables without a padded dimension are untouched.
    assert in_memory["z"].data is ds["z"].data
    assert lazy["z"].data.name == chunked(ds)["z"].data.name


@pytest.mark.parametrize(("mode", "kwargs", "np_kwargs"), CASES, ids=CASE_IDS)
def test_coords_xarray_is_xarray_pad(mode, kwargs, np_kwargs):
    ds = make_dataset()
    expected = ds.pad(WIDTHS, mode=mode, **kwargs)
    xr.testing.assert_identical(ds.pad2(WIDTHS, mode=mode, coords="xarray", **kwargs), expected)
    lazy = chunked(ds).pad2(WIDTHS, mode=mode, coords="xarray", **kwargs)
    assert_all_dask(lazy)
    xr.testing.assert_identical(lazy.compute(), expected)
    # and for DataArrays
    xr.testing.assert_identical(
        ds["i"].pad2(WIDTHS, mode=mode, coords="xarray", **kwargs),
        ds["i"].pad(WIDTHS, mode=mode, **kwargs),
    )


def test_coords_xarray_quirks_are_reproduced():
    ds = make_dataset()
    # A zero width still counts as padded for xarray: the coordinate is promoted.
    kw = {"x": 0}
    xr.testing.assert_identical(ds.pad2(kw, coords="xarray"), ds.pad(kw))
    # A mapping that leaves out a dimension or a variable pads it with 0.
    for cv in ({"f": 1.5}, {"x": 2}, {"f": {"y": 3}}):
        xr.testing.assert_identical(
            ds.pad2(WIDTHS, constant_values=cv, coords="xarray"),
            ds.pad(WIDTHS, constant_values=cv),
        )
    # keep_attrs=False
    xr.testing.assert_identical(
        ds.pad2(WIDTHS, mode="edge", keep_attrs=False, coords="xarray"),
        ds.pad(WIDTHS, mode="edge", keep_attrs=False),
    )


def test_empty_mode_has_the_right_shape_and_interior():
    ds = make_dataset()
    for obj in (ds, chunked(ds)):
        out = obj.pad2(WIDTHS, mode="empty").compute()
        assert out["f"].shape == (9, 13)
        np.testing.assert_array_equal(out["f"].values[2:6, 1:6], ds["f"].values)
        np.testing.assert_array_equal(out.x.values, np.arange(-2.0, 7.0))


def _ones_then_fives(vector, iaxis_pad_width, iaxis, kwargs):
    before, after = iaxis_pad_width
    vector[:before] = 1
    if after:
        vector[-after:] = 5


def test_mode_function():
    ds = make_dataset()
    out = ds.pad2(x=1, y=(0, 2), mode=_ones_then_fives)
    xr.testing.assert_identical(
        chunked(ds).pad2(x=1, y=(0, 2), mode=_ones_then_fives).compute(), out
    )
    expected = np.pad(ds.f.values, ((1, 1), (0, 2)), mode=_ones_then_fives)
    np.testing.assert_array_equal(out.f.values, expected)
    assert out.x.values.tolist() == [-1, 0, 1, 2, 3, 4]
    assert np.isnan(out.lat.values[0]).all()  # labels are not data


def test_no_width_returns_an_equal_object():
    ds = make_dataset()
    xr.testing.assert_identical(ds.pad2(), ds)
    xr.testing.assert_identical(ds.pad2({}), ds)


def test_dask_pad_stays_lazy(no_compute):
    out = chunked(make_dataset()).pad2(WIDTHS, mode="reflect")
    assert_all_dask(out)
    out = chunked(make_dataset()).pad2(WIDTHS)
    assert_all_dask(out)


def test_dask_uses_daskpad(monkeypatch):
    calls = []
    real = daskpad.pad

    def spy(*args, **kwargs):
        calls.append(dict(kwargs))
        kwargs.pop("chunks", None)  # the spy only records the policy
        return real(*args, **kwargs)

    monkeypatch.setattr(daskpad.xarray.variables, "pad", spy)
    chunked(make_dataset()).pad2(x=1, mode="wrap")
    assert len(calls) == 3  # f, i, lat: the dask-backed variables along x
    assert all("chunks" not in c for c in calls)
    calls.clear()
    chunked(make_dataset()).pad2(x=1, mode="wrap", chunks="some-policy")
    assert [c["chunks"] for c in calls] == ["some-policy"] * 3
    calls.clear()
    make_dataset().pad2(x=1, mode="wrap", chunks="some-policy")  # in memory: numpy
    assert calls == []


# --------------------------------------------------------------------------------------
# constant_values and dtypes
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dtype", "promoted"),
    [
        (np.int8, np.float32),
        (np.int16, np.float32),
        (np.uint32, np.float64),
        (np.int64, np.float64),
        (np.float32, np.float32),
        (np.bool_, object),
    ],
)
def test_default_fill_promotes_like_xarray(dtype, promoted):
    arr = xr.DataArray(np.ones(3, dtype=dtype), dims="x")
    out = arr.pad2(x=1)
    assert out.dtype == promoted
    assert out.isnull().values.tolist() == [True, False, False, False, True]
    xr.testing.assert_identical(out, arr.pad(x=1))
    xr.testing.assert_identical(arr.chunk(2).pad2(x=1).compute(), out)


def test_default_fill_of_times_is_nat():
    arr = xr.DataArray(np.array(["2000-01-01", "2000-01-02"], dtype="datetime64[ns]"), dims="x")
    out = arr.pad2(x=(1, 0))
    assert out.dtype == arr.dtype
    assert np.isnat(out.values[0])


@pytest.mark.parametrize("chunked_", [False, True], ids=["numpy", "dask"])
def test_explicit_constant_keeps_dtype_as_numpy_and_xarray_do(chunked_):
    arr = xr.DataArray(np.arange(3, dtype=np.int16), dims="x", name="v")
    if chunked_:
        arr = arr.chunk(2)  # (values through .compute(): array-expr's __array__ does not)
    assert arr.pad2(x=1, constant_values=0).dtype == np.int16
    assert arr.pad2(x=1, constant_values=np.int64(-3)).compute().values.tolist() == [
        -3,
        0,
        1,
        2,
        -3,
    ]
    f32 = arr.astype(np.float32)
    assert f32.pad2(x=1, constant_values=0.1).dtype == np.float32  # no needless float64
    # a fraction is cast as numpy.pad casts it, as xarray's pad does: int16 stays int16
    half = arr.pad2(x=1, constant_values=(0, 0.5))
    assert half.dtype == np.int16 and half.compute().values.tolist() == [0, 0, 1, 2, 0]
    expected = arr.compute().pad(x=1, constant_values=(0, 0.5))
    assert (
        half.dtype == expected.dtype and half.compute().values.tolist() == expected.values.tolist()
    )
    # NaN, or a number out of range, cannot be an int16: numpy's error, naming the variable
    with pytest.raises(ValueError, match=r"NaN.*the array \(int16\) keeps its dtype"):
        arr.pad2(x=1, constant_values=np.nan)
    with pytest.raises(OverflowError, match=r"1000000.*the variable 'v' \(int16\)"):
        arr.to_dataset().pad2(x=1, constant_values=10**6)
    with pytest.raises(ValueError, match="NaN"):
        arr.pad2(x=1, constant_values=np.nan, coords="xarray")


def test_constant_values_per_variable_and_per_dimension():
    ds = make_dataset()
    cv = {"f": {"x": (-1, -2)}, "i": 5, "y": (8, 9)}
    for obj in (ds, chunked(ds)):
        out = obj.pad2(x=1, y=1, constant_values=cv).compute()
        # f: x given, y missing from f's own mapping -> default NaN on y
        np.testing.assert_array_equal(out["f"].values[0, 1:-1], -1)
        np.testing.assert_array_equal(out["f"].values[-1, 1:-1], -2)
        assert np.isnan(out["f"].values[1:-1, 0]).all()
        # i: 5 everywhere, no promotion
        assert out["i"].dtype == np.int32
        assert (out["i"].values[0] == 5).all() and (out["i"].values[:, -1] == 5).all()
        # t (not named): the per-dimension entries apply
        assert out["t"].values.tolist() == [8, 0, 1, 2, 3, 4, 9]
    # An int variable that gets the default fill on one padded axis is promoted.
    out = ds.pad2(x=1, y=1, constant_values={"x": 0})
    assert out["i"].dtype == np.float64
    assert out["i"].values[0, 1:-1].tolist() == [0, 0, 0, 0, 0]
    assert np.isnan(out["i"].values[1:-1, 0]).all()


def test_dataarray_constant_values_by_name():
    arr = xr.DataArray([1, 2], dims="x", name="v")
    assert arr.pad2(x=1, constant_values={"v": 0}).values.tolist() == [0, 1, 2, 0]


def test_zero_width_changes_nothing():
    ds = make_dataset()
    out = ds.pad2(x=0, y=(0, 0))
    xr.testing.assert_identical(out, ds)
    assert out["i"].dtype == np.int32


# --------------------------------------------------------------------------------------
# Coordinates
# --------------------------------------------------------------------------------------
def _line(coord, name="x", **kwargs):
    return xr.DataArray(np.arange(len(coord), dtype=float), coords={name: coord}, **kwargs)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap", "mean", "linear_ramp"])
def test_regular_grid_is_extended(mode):
    out = _line([0, 1, 2]).pad2(x=2, mode=mode)
    assert out.x.values.tolist() == [-2, -1, 0, 1, 2, 3, 4]
    assert out.x.dtype == np.int64
    assert out.indexes["x"].is_monotonic_increasing and out.indexes["x"].is_unique


def test_irregular_grid_uses_edge_spacing():
    out = _line([0.0, 1.0, 3.0, 7.0]).pad2(x=(2, 1), mode="symmetric")
    assert out.x.values.tolist() == [-2.0, -1.0, 0.0, 1.0, 3.0, 7.0, 11.0]
    assert out.values.tolist() == [1, 0, 0, 1, 2, 3, 3]
    # .sel with a slice keeps working, and so does interpolation along the coordinate
    # (interpolate_na needs a monotonic index; .interp would too, but needs scipy)
    assert out.sel(x=slice(-1.5, 2)).x.values.tolist() == [-1.0, 0.0, 1.0]
    holes = out.where(out.x != 3.0)
    filled = holes.interpolate_na("x", use_coordinate=True)
    assert float(filled.sel(x=3.0)) == pytest.approx(1 + 2 / 3)  # between 1 at x=1, 3 at x=7


def test_descending_grid_stays_descending():
    out = _line([30, 20, 10]).pad2(x=2, mode="reflect")
    assert out.x.values.tolist() == [50, 40, 30, 20, 10, 0, -10]
    assert out.indexes["x"].is_monotonic_decreasing
    assert out.sel(x=slice(45, 15)).x.values.tolist() == [40, 30, 20]
    assert out.values.tolist() == [2, 1, 0, 1, 2, 1, 0]


def test_unsigned_grid_extended_below_zero_becomes_signed():
    out = _line(np.array([0, 5, 10], dtype=np.uint8)).pad2(x=1)
    assert out.x.values.tolist() == [-5, 0, 5, 10, 15]
    assert out.x.dtype.kind == "i"


def test_datetime_grid_is_extended():
    time = np.array(["2000-01-01", "2000-01-02", "2000-01-04"], dtype="datetime64[ns]")
    arr = _line(time, name="time", attrs={"a": 1})
    out = arr.chunk(2).pad2(time=(2, 1), mode="edge")
    expected = np.array(
        ["1999-12-30", "1999-12-31", "2000-01-01", "2000-01-02", "2000-01-04", "2000-01-06"],
        dtype="datetime64[ns]",
    )
    np.testing.assert_array_equal(out.time.values, expected)
    assert out.time.dtype == time.dtype
    selected = out.sel(time=slice("1999-12-31", "2000-01-03")).compute()
    assert selected.values.tolist() == [0, 0, 1]
    assert out.attrs == {"a": 1}


def test_timedelta_grid_is_extended():
    lead = np.array([0, 6, 12], dtype="timedelta64[h]").astype("timedelta64[ns]")
    out = _line(lead, name="lead").pad2(lead=1)
    assert (out.lead.values.astype("timedelta64[h]").astype(int) == [-6, 0, 6, 12, 18]).all()


def test_global_longitude_wrap_continues_past_the_period():
    lon = np.arange(0.0, 360.0, 1.0)
    ds = xr.Dataset(
        {"t2m": (("lat", "lon"), np.random.default_rng(1).normal(size=(3, 360)))},
        coords={"lat": [-10.0, 0.0, 10.0], "lon": lon},
    )
    for obj in (ds, ds.chunk(lon=90)):
        out = obj.pad2(lon=2, mode="wrap")
        assert out.lon.values[:3].tolist() == [-2.0, -1.0, 0.0]
        assert out.lon.values[-4:].tolist() == [358.0, 359.0, 360.0, 361.0]
        assert out.indexes["lon"].is_unique and out.indexes["lon"].is_monotonic_increasing
        # the data at 360 is the data at 0: the labels describe where it repeats
        t2m = out.t2m.compute()
        np.testing.assert_array_equal(t2m.sel(lon=360.0).values, ds.t2m.sel(lon=0.0).values)
        np.testing.assert_array_equal(t2m.sel(lon=-1.0).values, ds.t2m.sel(lon=359.0).values)
        assert out.sel(lon=slice(359, 361)).sizes["lon"] == 3


@pytest.mark.parametrize(
    ("labels", "why"),
    [
        (["a", "b", "c"], "dtype"),
        ([5.0], "1 value"),
        ([0, 2, 1], "not strictly monotonic"),
        ([0, 1, 1], "not strictly monotonic"),
        ([0.0, np.nan, 2.0], "not strictly monotonic"),
    ],
)
def test_index_that_cannot_be_extended_raises(labels, why):
    arr = _line(labels)
    with pytest.raises(ValueError, match=rf"cannot extend the index coordinate 'x'.*{why}"):
        arr.pad2(x=1, mode="edge")
    # the other policies say what happens instead
    assert "x" not in arr.pad2(x=1, mode="edge", coords="drop").coords
    xr.testing.assert_identical(
        arr.pad2(x=1, mode="edge", coords="xarray"), arr.pad(x=1, mode="edge")
    )
    # padding another dimension does not look at it
    arr2 = arr.expand_dims(y=[0, 1])
    assert arr2.pad2(y=1).y.values.tolist() == [-1, 0, 1, 2]


@pytest.mark.parametrize(
    "labels",
    [
        np.array([1.0 - 2**-53, 1.0]),  # the next step rounds back onto 1.0
        np.array([1 - 2**-24, 1.0], dtype=np.float32),
        np.array([0.0, 1e308]),  # overflows to inf
        np.array([2**63 - 3, 2**63 - 2], dtype=np.int64),  # beyond int64 (and uint64 below 0)
        np.array([2**64 - 3, 2**64 - 2], dtype=np.uint64),
        np.array([2**63 - 10, 2**63 - 5]).astype("datetime64[ns]"),  # would wrap around
        np.array([-(2**63) + 3, -(2**63) + 5]).astype("datetime64[ns]"),  # would reach NaT
    ],
    ids=["float64-tie", "float32-tie", "float-inf", "int64", "uint64", "time-max", "time-min"],
)
def test_index_whose_extension_would_repeat_labels_raises(labels):
    # labels that the index's dtype cannot hold apart would make it non-unique: refuse
    arr = _line(labels)
    with pytest.raises(
        ValueError, match=r"cannot extend the index coordinate 'x'.*(overflow|beyond)"
    ):
        arr.pad2(x=2, mode="edge")
    assert "x" not in arr.pad2(x=2, mode="edge", coords="drop").coords


_INT_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


@settings(deadline=None)
@given(
    dtype=st.sampled_from(_INT_DTYPES + ["datetime64[ns]", "timedelta64[s]"]),
    data=st.data(),
    before=st.integers(0, 40),
    after=st.integers(0, 40),
)
def test_integer_labels_are_extended_exactly(dtype, data, before, after):
    # 64-bit labels near the ends of their range, any spacing: the new labels are exactly
    # the edge label plus a whole number of edge steps (Python's integers as the reference),
    # or the index is refused when they leave 64-bit integers (or reach NaT).
    dtype = np.dtype(dtype)
    ints = np.dtype(np.int64) if dtype.kind in "mM" else dtype
    info = np.iinfo(ints)
    lo = info.min + 1 if dtype.kind in "mM" else info.min
    labels = sorted(data.draw(st.sets(st.integers(lo, info.max), min_size=2, max_size=5)))
    if data.draw(st.booleans()):
        labels = labels[::-1]
    values = (
        np.array(labels, dtype=ints).astype(dtype)
        if dtype.kind not in "mM"
        else (np.array(labels, dtype=np.int64).view(dtype))
    )
    step0, step1 = labels[1] - labels[0], labels[-1] - labels[-2]
    lead = [labels[0] - k * step0 for k in range(before, 0, -1)]
    tail = [labels[-1] + k * step1 for k in range(1, after + 1)]
    expected = lead + labels + tail
    smallest, largest = min(expected), max(expected)
    if dtype.kind in "mM":  # int64's lowest value is NaT
        fits = -(2**63) < smallest and largest < 2**63
    elif dtype.kind == "i" or smallest < 0:  # signed, 64-bit at most
        fits = -(2**63) <= smallest and largest < 2**63
    else:
        fits = largest < 2**64
    if not fits:
        with pytest.raises(ValueError, match="cannot extend the index coordinate 'x'"):
            extend_labels(values, before, after, "x", "x")
        return
    out = extend_labels(values, before, after, "x", "x")
    got = out.view(np.int64) if dtype.kind in "mM" else out
    assert [int(v) for v in got] == expected
    info = np.iinfo(ints)
    if dtype.kind in "mM" or (info.min <= smallest and largest <= info.max):
        assert out.dtype == dtype  # the index's own dtype where it holds the labels
    else:
        assert out.dtype.kind in "iu"
        assert np.can_cast(dtype, out.dtype) or (dtype == np.uint64 and out.dtype == np.int64)


@pytest.mark.parametrize("width", [np.int64(3), np.uint8(3)])
def test_numpy_integer_widths_are_exact(width):
    # widths given as numpy integers are taken as Python's: no int64 wraparound
    out = extend_labels(np.array([0, 2**61]), width, 0, "x", "x")
    assert [int(v) for v in out] == [-3 * 2**61, -2 * 2**61, -(2**61), 0, 2**61]


def test_big_endian_times_are_read_as_their_values():
    time = np.array(["2000-01-01", "2000-01-02"], dtype=">M8[ns]")
    out = extend_labels(time, 1, 1, "t", "t")
    expected = np.array(["1999-12-31", "2000-01-01", "2000-01-02", "2000-01-03"], "M8[ns]")
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("widths", [(1, 2**63), (2**62, 0), (2**60, 2**60)])
def test_index_too_long_for_memory_is_refused_before_building(widths):
    # an index coordinate is built in memory: more labels than any machine addresses are
    # refused by name, with the way out, before anything is allocated
    for labels in (np.array([5, 4]), np.array([0.5, 1.0])):
        with pytest.raises(ValueError, match=r"'x'.*labels do not fit in memory.*coords='drop'"):
            extend_labels(labels, *widths, "x", "x")
    ds = xr.Dataset(coords={"x": ("x", [5, 4])})
    with pytest.raises(ValueError, match=r"labels do not fit in memory"):
        ds.pad2(x=widths, mode="edge")


def test_multiindex_cannot_be_extended():
    ds = xr.Dataset(coords={"a": ("x", [1, 1, 2]), "b": ("x", [1, 2, 1])}).set_index(x=["a", "b"])
    with pytest.raises(ValueError, match="PandasMultiIndex"):
        ds.pad2(x=1)


def test_indexed_non_dimension_coordinate_is_extended():
    ds = xr.Dataset(
        {"v": ("x", [1.0, 2.0, 3.0])}, coords={"lon": ("x", [100.0, 110.0, 120.0])}
    ).set_xindex("lon")
    out = ds.pad2(x=1, mode="edge")
    assert out.lon.values.tolist() == [90.0, 100.0, 110.0, 120.0, 130.0]
    assert "lon" in out.xindexes
    assert out.sel(lon=slice(95, 115)).v.values.tolist() == [1.0, 2.0]


def test_drop_policy():
    ds = make_dataset()
    out = ds.pad2(x=1, mode="edge", coords="drop")
    assert "x" not in out.coords and "x" not in out.xindexes
    assert out["lat"].shape == (6, 5)  # non-index coordinates are still padded
    assert out.y.values.tolist() == ds.y.values.tolist()


def test_non_index_coordinates_are_padded():
    ds = make_dataset()
    out = ds.pad2(x=1, mode="reflect")
    np.testing.assert_array_equal(
        out.lat.values, np.pad(ds.lat.values, ((1, 1), (0, 0)), "reflect")
    )
    # for modes that invent values, non-index coordinates get the missing value
    out = ds.pad2(x=1, mode="mean")
    assert np.isnan(out.lat.values[[0, -1]]).all()
    np.testing.assert_array_equal(out.lat.values[1:-1], ds.lat.values)
    # a user constant is for data, not for labels
    out = ds.pad2(x=1, constant_values=0)
    assert np.isnan(out.lat.values[0]).all()
    assert (out.f.values[0] == 0).all()


def test_indexes_of_unpadded_dimensions_are_kept():
    ds = make_dataset()
    out = ds.pad2(x=1)
    assert out.xindexes["y"] is ds.xindexes["y"]
    assert out.y.attrs == ds.y.attrs
    assert out.x.attrs == {"axis": "X"}


# --------------------------------------------------------------------------------------
# DataArray, attrs, encoding, zarr
# --------------------------------------------------------------------------------------
def test_dataarray_keeps_name_coords_and_attrs():
    ds = make_dataset()
    arr = ds["f"]
    for obj in (arr, arr.chunk(x=2)):
        out = obj.pad2(x=(0, 2), mode="edge")
        assert isinstance(out, xr.DataArray)
        assert out.name == "f"
        assert out.attrs == {"units": "K"}
        assert set(out.coords) == {"x", "y", "lat"}
        assert out.x.values.tolist() == [0, 1, 2, 3, 4, 5]
    # a DataArray named like one of its coordinates
    named = xr.DataArray([1.0, 2.0], coords={"x": [0, 1]}, name="x2").rename("x")
    assert named.name == "x"
    assert named.pad2(x=1).name == "x"


@pytest.mark.parametrize("keep_attrs", [True, False, None])
def test_keep_attrs(keep_attrs):
    ds = make_dataset()
    out = ds.pad2(x=1, mode="edge", keep_attrs=keep_attrs)
    expect = keep_attrs is not False
    assert (out.attrs == ds.attrs) is expect
    assert (out.f.attrs == {"units": "K"}) is expect
    assert (out.x.attrs == {"axis": "X"}) is expect
    assert out.y.attrs == ds.y.attrs  # not padded: untouched
    with xr.set_options(keep_attrs=False):
        assert ds.pad2(x=1, mode="edge").attrs == {}


def test_layout_encoding_is_dropped_the_rest_kept():
    ds = make_dataset()
    ds["f"].encoding = {"chunks": (2, 5), "preferred_chunks": {"x": 2}, "dtype": "float32"}
    ds["i"].encoding = {"dtype": "int32", "chunks": (4, 5)}
    ds["z"].encoding = {"chunks": (3,)}
    out = ds.pad2(x=1)
    assert out.f.encoding == {"dtype": "float32"}
    assert out.i.encoding == {}  # promoted to float64: an int32 dtype no longer fits
    assert out.z.encoding == {"chunks": (3,)}  # not padded


@pytest.mark.xfail(
    dask.config.get("array.query-planning", None) is True,
    reason="dask.array.store (used by to_zarr) is not implemented for dask's array-expr",
    raises=NotImplementedError,
    strict=True,
)
def test_padded_dask_dataset_writes_to_zarr(tmp_path):
    zarr = pytest.importorskip("zarr")
    src = tmp_path / "src.zarr"
    dst = tmp_path / "dst.zarr"
    ds = make_dataset().drop_vars("z")
    ds.chunk({"x": 2, "y": 2}).to_zarr(src, zarr_format=2, consolidated=True)
    opened = xr.open_zarr(src, consolidated=True)
    assert opened["f"].encoding["chunks"] == (2, 2)

    padded = opened.pad2(x=(1, 3), y=2, mode="reflect", chunks="regular")
    assert padded["f"].chunks == ((2, 2, 2, 2), (2, 2, 2, 2, 1))  # built regular, no rechunk
    padded.to_zarr(dst, zarr_format=2, consolidated=True)

    back = xr.open_zarr(dst, consolidated=True)
    xr.testing.assert_identical(
        back.compute(), make_dataset().drop_vars("z").pad2(x=(1, 3), y=2, mode="reflect")
    )
    assert zarr.open_group(dst, mode="r")["f"].chunks == (2, 2)


# --------------------------------------------------------------------------------------
# Errors and registration
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((), {"q": 1}, ValueError, r"dimension\(s\) \['q'\] that do not exist"),
        (({"x": 1},), {"y": 1}, ValueError, "either as a mapping or as keyword"),
        ((2,), {}, TypeError, "per dimension name"),
        ((), {"x": -1}, ValueError, "negative"),
        ((), {"x": 1.5}, TypeError, "integral"),
        ((), {"x": (1, 2, 3)}, ValueError, "pad_width"),
        ((), {"x": 1, "mode": "bogus"}, ValueError, "mode 'bogus' is not supported"),
        (
            (),
            {"x": 1, "mode": "edge", "constant_values": 0},
            ValueError,
            r"unsupported keyword arguments for mode 'edge': \['constant_values'\].*'constant'",
        ),
        ((), {"x": 1, "mode": "mean", "end_values": 0}, ValueError, "linear_ramp"),
        ((), {"x": 1, "mode": "reflect", "reflect_type": "od"}, ValueError, "reflect_type"),
        ((), {"x": 1, "stat_length": {"q": 1}, "mode": "mean"}, ValueError, "stat_length"),
        ((), {"x": 1, "constant_values": {"nope": 1}}, ValueError, "neither data variables"),
        ((), {"x": 1, "constant_values": ((1, 2), (3, 4))}, ValueError, "by name"),
        ((), {"x": 1, "coords": "keep"}, ValueError, "coords must be one of"),
        ((), {"x": 1, "mode": np.mean, "stat_length": 1}, ValueError, "partial"),
    ],
)
def test_errors(args, kwargs, error, match):
    ds = make_dataset()
    with pytest.raises(error, match=match):
        ds.pad2(*args, **kwargs)


def test_not_an_xarray_object():
    with pytest.raises(TypeError, match="Dataset or DataArray"):
        pad2(np.ones(3), x=1)  # type: ignore[type-var]


def test_function_and_accessor_agree():
    ds = make_dataset()
    xr.testing.assert_identical(pad2(ds, {"x": 1}, "wrap"), ds.pad2(x=1, mode="wrap"))


def test_accessor_is_registered_once_without_warning():
    assert isinstance(xr.Dataset.pad2, type) and xr.DataArray.pad2 is xr.Dataset.pad2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.reload(daskpad.xarray.accessor)
    assert xr.Dataset.pad2 is daskpad.xarray.accessor.Pad2Accessor
    assert make_dataset().pad2(x=1).sizes["x"] == 6


def test_someone_elses_pad2_still_gets_xarrays_warning(monkeypatch):
    monkeypatch.setattr(xr.Dataset, "pad2", object(), raising=False)
    with pytest.warns(xr.core.extensions.AccessorRegistrationWarning):
        daskpad.xarray.accessor._register()


# --------------------------------------------------------------------------------------
# Properties: random labelled arrays, every mode
# --------------------------------------------------------------------------------------
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_INDEX_KINDS = ["none", "int", "int-desc", "uint8", "float", "float-desc", "float32", "time"]


@st.composite
def _labels(draw, n: int):
    """A strictly monotonic index of ``n`` labels of a random kind (or None)."""
    kind = draw(st.sampled_from(_INDEX_KINDS))
    if kind == "none" or n < 2:
        return None
    steps = draw(st.lists(st.integers(1, 50), min_size=n - 1, max_size=n - 1))
    start = draw(st.integers(-100, 100))
    ints = np.cumsum([start, *steps])
    if kind == "int":
        return ints
    if kind == "int-desc":
        return ints[::-1].copy()
    if kind == "uint8":
        return (ints - ints[0]).astype(np.uint8) if ints[-1] - ints[0] < 256 else ints
    if kind == "time":
        return np.datetime64("2000-01-01", "ns") + ints.astype("timedelta64[h]")
    floats = draw(
        st.lists(
            st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False),
            min_size=n,
            max_size=n,
            unique=True,
        )
    )
    values = np.sort(np.array(floats, dtype=np.float32 if kind == "float32" else float))
    if len(np.unique(values)) < n:
        return ints.astype(values.dtype)  # float32 rounding joined two labels
    return values[::-1].copy() if kind == "float-desc" else values


@st.composite
def _labelled_cases(draw):
    ndim = draw(st.integers(1, 2))
    dims = ("x", "y")[:ndim]
    shape = tuple(draw(st.integers(1, 6)) for _ in dims)
    dtype = draw(st.sampled_from(["int32", "float64"]))
    seed = draw(st.integers(0, 2**16))
    values = np.random.default_rng(seed).integers(-50, 50, size=shape).astype(dtype)
    coords = {}
    for dim, n in zip(dims, shape):
        labels = draw(_labels(n))
        if labels is not None:
            coords[dim] = labels
    widths = {dim: (draw(st.integers(0, 8)), draw(st.integers(0, 8))) for dim in dims}
    mode = draw(st.sampled_from(sorted(MODES)))
    kwargs: dict = {}
    if mode == "constant":
        kwargs["constant_values"] = draw(st.integers(-5, 5))  # explicit: keeps the dtype
    elif mode == "linear_ramp":
        kwargs["end_values"] = draw(st.integers(-5, 5))
    elif mode in ("reflect", "symmetric"):
        kwargs["reflect_type"] = draw(st.sampled_from(["even", "odd"]))
    elif mode in ("maximum", "mean", "median", "minimum"):
        kwargs["stat_length"] = draw(st.sampled_from([None, 1, 2, 5]))
    chunks = draw(st.sampled_from([None, 1, 2, 4]))
    return xr.DataArray(values, dims=dims, coords=coords), widths, mode, kwargs, chunks


def _strictly_monotonic(index) -> bool:
    return index.is_unique and (index.is_monotonic_increasing or index.is_monotonic_decreasing)


@given(case=_labelled_cases())
def test_pad2_matches_numpy_and_keeps_indexes_usable(case):
    arr, widths, mode, kwargs, chunks = case
    obj = arr if chunks is None else arr.chunk(chunks)
    out = obj.pad2(widths, mode=mode, **kwargs)
    pairs = tuple(widths[d] for d in arr.dims)
    assert out.shape == tuple(n + b + a for n, (b, a) in zip(arr.shape, pairs))
    if chunks is not None:
        assert isinstance(out.data, da.Array)
    got = out.compute().values  # (np.asarray of a query-planning dask array is not computed)
    interior = tuple(slice(b, b + n) for n, (b, _) in zip(arr.shape, pairs))
    np.testing.assert_array_equal(got[interior], arr.values)
    if mode != "empty":
        np_kwargs = {k: v for k, v in kwargs.items() if not (k == "stat_length" and v is None)}
        expected = np.pad(arr.values, pairs, mode=mode, **np_kwargs)
        assert got.dtype == expected.dtype
        if mode == "mean" and got.dtype.kind == "f":
            np.testing.assert_allclose(got, expected, rtol=1e-13)
        else:
            np.testing.assert_array_equal(got, expected)
    for dim in arr.dims:
        if dim not in arr.indexes:
            assert dim not in out.indexes
            continue
        before, _ = widths[dim]
        index = out.indexes[dim]
        assert _strictly_monotonic(index), (dim, index)
        original = arr.indexes[dim]
        assert index.is_monotonic_increasing == original.is_monotonic_increasing
        kept = np.asarray(index)[before : before + len(original)]
        np.testing.assert_array_equal(kept, np.asarray(original))


def test_coordinates_keep_their_order():
    # index labels are built after the lazily padded coordinates, but listed as before
    ds = xr.Dataset(
        {"t": (("lat", "lon"), np.zeros((3, 4)))},
        coords={"lat": [0.0, 1, 2], "area": ("lat", [1.0, 2, 3]), "lon": [0.0, 1, 2, 3]},
    )
    assert list(ds.pad2(lat=1, lon=1).coords) == ["lat", "area", "lon"]
    assert list(ds.pad2(lat=1, lon=1).data_vars) == ["t"]
