"""pad2 never hands a writer a value the encoding it keeps cannot store, and its keyword
values are numpy.pad's for the form the user wrote.

A packed variable (int16 with ``scale_factor``, ``add_offset`` and ``_FillValue``) keeps its
encoding through pad2, so every writer of the result (xarray's ``to_zarr`` and
``to_netcdf``, :func:`daskpad.xarray.to_zarr`, the command) stores the padded values in
it. A constant or ramp end it cannot hold is refused at the call; a value the pads compute
(odd reflection, a statistic, a user function) is refused when it is computed, naming the
variable. Pads that copy stored values add nothing to the graph.
"""

from __future__ import annotations

import warnings

import dask
import dask.array as da
import numpy as np
import pytest

xr = pytest.importorskip("xarray")

from helpers.graphfacts import added_tasks, graph_of  # noqa: E402
from hypothesis import assume, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import daskpad  # noqa: E402  (registers the accessor)

PACKED = {"scale_factor": 0.002, "add_offset": 273.0, "_FillValue": np.int16(-32767)}
OUT_OF_RANGE = r"variable 't2m': a padded value cannot be stored in its encoding \(int16 "


QUERY_PLANNING = dask.config.get("array.query-planning", None) is True


def packed(chunks: dict | None = {"lon": 2}) -> xr.Dataset:  # noqa: B006
    """A variable stored as int16 with scale_factor 0.002, add_offset 273 and a fill, as
    xarray opens it (decoded to float32, its encoding kept)."""
    raw = np.array([[100, 200, 300, 400], [32000, -32000, 0, 16383]], "int16")
    stored = xr.Dataset({"t2m": (("lat", "lon"), raw, PACKED)})
    decoded = xr.decode_cf(stored)
    assert decoded.t2m.encoding["dtype"] == np.dtype("int16")
    return decoded if chunks is None else decoded.chunk(chunks)


@pytest.mark.parametrize("lazy", [True, False], ids=["dask", "numpy"])
@pytest.mark.parametrize("value", [1e6, -999])
def test_a_constant_the_packing_cannot_hold_is_refused_at_the_call(lazy, value):
    ds = packed({"lon": 2} if lazy else None)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match=OUT_OF_RANGE):
        ds.pad2(lon=2, mode="constant", constant_values=value)
    with pytest.raises(ValueError, match="is outside what int16 holds"):
        ds.t2m.pad2(lon=2, constant_values=value)


def test_a_ramp_end_the_packing_cannot_hold_is_refused_at_the_call():
    with pytest.raises(ValueError, match="0 is outside what int16 holds"):
        packed().pad2(lon=2, mode="linear_ramp")  # (ramps to numpy's default, 0)
    padded = packed().pad2(lon=2, mode="linear_ramp", end_values=280)
    np.testing.assert_array_equal(
        padded.t2m.compute().values,
        np.pad(packed(None).t2m.values, ((0, 0), (2, 2)), "linear_ramp", end_values=280),
    )


def test_the_values_that_fit_pass_and_the_missing_value_is_the_fill():
    ds = packed()
    padded = ds.pad2(lon=1, lat=1, constant_values=300.0)
    assert padded.t2m.encoding["dtype"] == np.dtype("int16")
    assert (padded.t2m.compute().values[0] == np.float32(300.0)).all()
    nan = ds.pad2(lon=1).t2m.compute().values
    assert np.isnan(nan[:, 0]).all()


def test_a_value_an_odd_reflection_computes_is_refused_when_computed(tmp_path):
    """2 * edge - x leaves the packed range (values from 207.5 to 338.5; 2 * 337 - 209
    on the second row's left): the graph's check names the variable, whoever computes
    it."""
    ds = packed()
    padded = ds.pad2(lon=2, mode="reflect", reflect_type="odd", chunks="regular")
    assert padded.t2m.chunks == ((2,), (2, 2, 2, 2))  # the chunks asked for
    with dask.config.set(scheduler="sync"):
        with pytest.raises(ValueError, match=OUT_OF_RANGE):
            padded.compute()
        if QUERY_PLANNING:  # (xarray's region writes call dask.array.store, which it lacks)
            return
        with pytest.raises(ValueError, match=OUT_OF_RANGE):
            daskpad.xarray.to_zarr(padded, tmp_path / "a.zarr")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (xarray's own chatter about the store)
            with pytest.raises(ValueError, match=OUT_OF_RANGE):
                padded.to_zarr(tmp_path / "b.zarr", mode="w")
    # in memory: refused at the call
    with pytest.raises(ValueError, match=OUT_OF_RANGE):
        packed(None).pad2(lon=2, mode="reflect", reflect_type="odd")


def test_a_value_a_user_function_computes_is_refused_when_computed():
    def far(vector, widths, axis, kwargs):
        vector[: widths[0]] = 1e5
        if widths[1]:
            vector[-widths[1] :] = 1e5

    padded = packed().pad2(lon=1, mode=far)
    with dask.config.set(scheduler="sync"), pytest.raises(ValueError, match=OUT_OF_RANGE):
        padded.compute()


def test_a_mean_in_the_packing_passes_and_equals_numpy():
    ds = packed()
    got = ds.pad2(lon=3, mode="mean", stat_length=2).t2m.compute().values
    want = np.pad(packed(None).t2m.values, ((0, 0), (3, 3)), "mean", stat_length=2)
    np.testing.assert_array_equal(got, want)


@pytest.mark.skipif(QUERY_PLANNING, reason="counts the tasks of classic graphs")
def test_the_check_reads_the_pad_blocks_only():
    """Copying pads add no check; computed pads add tasks for their own blocks, however
    many interior blocks there are."""
    ds = packed()
    bare = ds.copy()
    bare.t2m.encoding = {}
    for mode in ("reflect", "wrap", "edge", "symmetric"):
        a, b = (d.pad2(lon=2, mode=mode).t2m.data for d in (ds, bare))
        assert a.name == b.name
    added = []
    for blocks in (2, 8):
        zeros = np.zeros((4, 4 * blocks), "int16")
        stored = xr.Dataset({"t2m": (("lat", "lon"), zeros, PACKED)})
        ds = xr.decode_cf(stored).chunk({"lon": 4})
        bare = ds.copy()
        bare.t2m.encoding = {}
        odd = {"lon": 2, "mode": "reflect", "reflect_type": "odd"}
        checked, plain = ds.pad2(**odd).t2m.data, bare.pad2(**odd).t2m.data
        added.append(len(graph_of(checked)) - len(graph_of(plain)))
        assert added_tasks(plain, checked)[0] == 2  # (work: the checks)
    # one check per pad block (one row of blocks, two sides); the pad's own aliases of its
    # blocks are picked again as they were, under a new name
    assert added == [2, 2]


def test_an_index_extended_past_what_its_encoding_holds_is_refused():
    ds = xr.Dataset(coords={"x": ("x", [0.0, 100.0])})
    ds.x.encoding["dtype"] = np.dtype("int8")  # (-100 and 200 extend it: 200 does not fit)
    with pytest.raises(ValueError, match=r"variable .x..*200 is outside what int8 holds"):
        ds.pad2(x=1, mode="edge")
    assert ds.pad2(x=(1, 0), mode="edge").x.values.tolist() == [-100, 0, 100]


# --------------------------------------------------------------------------------------
# Keyword values: numpy.pad's, for the form written
# --------------------------------------------------------------------------------------
_DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"]
_DIMS = ("a", "b", "c")


@st.composite
def _values(draw, dtype: np.dtype):
    """A keyword value as users write them: Python ints and floats, numpy scalars."""
    if dtype.kind == "u":
        number = draw(st.integers(0, 200))
    elif dtype.kind == "i":
        number = draw(st.integers(-100, 100))
    else:  # (a whole number as a Python int, numpy.pad's weakest form)
        number = draw(
            st.integers(-300, 300)
            | st.floats(-300, 300, allow_nan=False, width=16).map(lambda v: v + 1 / 3)
        )
    typed = draw(st.sampled_from([None, "float32", "float64", "int64"]))
    if typed is None or (np.dtype(typed).kind == "i" and number != int(number)):
        return number
    return np.dtype(typed).type(number)


@given(data=st.data())
def test_keyword_values_are_numpys_for_the_form_given(data):
    """Variables of 1 to 3 dimensions, floats and integers, a constant or a ramp end given
    as one value, a pair or by dimension: bitwise numpy.pad called with the same form (by
    dimension: one pair per axis), in memory and on dask. A refusal is numpy's type."""
    ndim = data.draw(st.sampled_from([1, 2, 2, 3, 3]), label="ndim")
    dims = _DIMS[:ndim]
    dtype = np.dtype(data.draw(st.sampled_from(_DTYPES), label="dtype"))
    shape = tuple(data.draw(st.integers(1, 5)) for _ in dims)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    values = rng.uniform(-300, 300, shape) if dtype.kind != "u" else rng.uniform(0, 250, shape)
    values = values.astype(dtype)
    mode, keyword = data.draw(
        st.sampled_from([("constant", "constant_values"), ("linear_ramp", "end_values")]),
        label="mode",
    )
    widths = {d: data.draw(st.tuples(st.integers(0, 4), st.integers(0, 4))) for d in dims}
    assume(any(w != (0, 0) for w in widths.values()))
    form = data.draw(st.sampled_from(["scalar", "pair", "by dimension"]), label="form")
    if form == "scalar":
        given_value = data.draw(_values(dtype))
        numpy_value = given_value
    elif form == "pair":
        given_value = (data.draw(_values(dtype)), data.draw(_values(dtype)))
        numpy_value = given_value
    else:
        given_value = {d: (data.draw(_values(dtype)), data.draw(_values(dtype))) for d in dims}
        numpy_value = tuple(given_value[d] for d in dims)
    pad_width = tuple(widths[d] for d in dims)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.pad(values, pad_width, mode, **{keyword: numpy_value})
    except Exception as e:  # (compared by type below)
        want = e
    for chunked in (False, True):
        ds = xr.Dataset({"v": (dims, values)})
        if chunked:
            ds = ds.chunk(dict.fromkeys(dims, 2))
        kwargs = {keyword: given_value, "coords": "drop"}
        if isinstance(want, Exception):
            with pytest.raises(type(want)), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                ds.pad2(widths, mode=mode, **kwargs).v.load()
            continue
        with dask.config.set(scheduler="sync"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = ds.pad2(widths, mode=mode, **kwargs).v.compute().values
        assert got.dtype == want.dtype
        assert got.shape == want.shape
        bits = [np.ascontiguousarray(a).view(np.uint8) for a in (got, want)]
        np.testing.assert_array_equal(*bits)  # (bitwise: NaN and -0.0 included)


def test_a_scalar_ramp_end_on_a_2d_float32_variable_is_numpys():
    """The issue's case: numpy computes the scalar form in float64 and one pair per axis
    in float32; pad2 gives the scalar form's."""
    x = np.random.default_rng(1).uniform(-300, 300, (3, 7)).astype("float32")
    want = np.pad(x, ((0, 0), (4, 4)), mode="linear_ramp", end_values=250)
    pairs = np.pad(x, ((0, 0), (4, 4)), "linear_ramp", end_values=((0, 0), (250, 250)))
    assert (want != pairs).any()
    for data in (x, da.from_array(x, chunks=3)):
        got = xr.Dataset({"a": (("y", "x"), data)}).pad2(x=4, mode="linear_ramp", end_values=250)
        np.testing.assert_array_equal(got.a.compute().values, want)


def test_a_dataarray_is_named_in_the_refusal():
    array = packed().t2m.rename(None)
    with pytest.raises(ValueError, match=r"^the array: a padded value cannot be stored"):
        array.pad2(lon=1, constant_values=1e6)
    with pytest.raises(ValueError, match=r"^variable 't2m': "):
        packed().t2m.pad2(lon=1, constant_values=1e6)


def test_floats_stored_in_fewer_bits_round_near_zero_as_any_cast():
    """A float64 variable stored as float32: values below float32's smallest normal
    number are stored rounded (to a subnormal, or 0), which is no refusal."""
    v = xr.DataArray(np.ones((3, 4)), dims=("lat", "lon"), name="v")
    v.encoding = {"dtype": "float32"}
    for tiny in (1e-45, 1e-50):
        assert v.pad2(lon=1, constant_values=tiny).values[0, 0] == tiny
    with pytest.raises(ValueError, match="1e\\+300 is stored as inf"):
        v.pad2(lon=1, constant_values=1e300)


@pytest.mark.parametrize(
    ("when", "why"),
    [
        ("2000-01-01T12", r"2000-01-01T12:00:00.000000000 is not a whole number of its units"),
        ("2200-01-01", r"is 73049 days since 2000-01-01, outside what int16 holds"),
        ("1999-12-31", r"is stored as -1, the fill value, which reads as missing"),
    ],
)
def test_a_time_constant_says_why_it_cannot_be_stored(when, why):
    times = np.array(["2000-01-01", "2000-01-02"], "datetime64[ns]")
    v = xr.DataArray(times, dims="t", name="when")
    v.encoding = {"units": "days since 2000-01-01", "dtype": "int16", "_FillValue": np.int16(-1)}
    with pytest.raises(ValueError, match=why):
        v.pad2(t=1, constant_values=np.datetime64(when))
    assert v.pad2(t=1, constant_values=np.datetime64("NaT", "ns")).isnull()[0]


@pytest.mark.parametrize("chunks", [None, "regular", "even", "merge", 4])
@pytest.mark.parametrize(
    ("mode", "kwargs"),
    [
        ("mean", {"stat_length": 2}),
        ("linear_ramp", {"end_values": 280}),
        ({"lat": "reflect", "lon": "median"}, {"reflect_type": "odd"}),
    ],
    ids=["mean", "linear_ramp", "per-dimension"],
)
def test_the_checked_graph_is_valid_and_in_the_chunks_asked_for(chunks, mode, kwargs):
    """dask's own check of the declared layer dependencies, the chunks of the same pad
    without an encoding, and numpy.pad's values."""
    raw = np.arange(8 * 12, dtype="int16").reshape(8, 12) * 50
    stored = xr.Dataset({"t2m": (("lat", "lon"), raw, PACKED)})
    ds = xr.decode_cf(stored).chunk({"lat": 3, "lon": 5})
    bare = ds.copy()
    bare.t2m.encoding = {}
    widths = {"lat": 2, "lon": (3, 7)}
    got = ds.pad2(widths, mode=mode, chunks=chunks, **kwargs).t2m
    if not QUERY_PLANNING:
        got.data.__dask_graph__().validate()
    assert got.chunks == bare.pad2(widths, mode=mode, chunks=chunks, **kwargs).t2m.chunks
    want = xr.decode_cf(stored).pad2(widths, mode=mode, **kwargs).t2m.values
    with dask.config.set(scheduler="sync"):
        np.testing.assert_array_equal(got.compute().values, want)
