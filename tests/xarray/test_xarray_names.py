"""Names wherever labels exist: ``pad2.map_overlap`` takes ``mode``, ``boundary`` and
numpy.pad's keywords by dimension name, each variable getting them by axis; the functions
by axis refuse an xarray object and name its accessor's method."""

from __future__ import annotations

import numpy as np
import pytest

xr = pytest.importorskip("xarray")

import daskpad  # noqa: E402
from daskpad.testing import chained_numpy_pad  # noqa: E402


def _dataset(chunked: bool) -> xr.Dataset:
    """Variables with the dimensions in both orders, one with one of them, one with none."""
    rng = np.random.default_rng(3)
    t = rng.random((7, 12))
    ds = xr.Dataset(
        {
            "t": (("lat", "lon"), t),
            "u": (("lon", "lat"), rng.random((12, 7))),
            "z": ("lat", rng.random(7)),
            "n": ((), 3.0),
        },
        coords={"lat": np.linspace(-60.0, 60.0, 7), "lon": np.arange(0.0, 360.0, 30.0)},
    )
    return ds.chunk({"lat": 3, "lon": 5}) if chunked else ds


def stencil(block):
    """Reads up to two neighbours on each side, differently along each axis and side, so
    that a pad on the wrong axis or side shows."""
    out = block.astype(float)
    for k in range(block.ndim):
        out = out + (k + 1) * np.roll(block, 1, k) - (k + 3) * np.roll(block, -2, k)
    return out


def fill(vector, iaxis_pad_width, iaxis, kwargs):
    """A pad function that reads its keyword, as numpy.pad calls one."""
    before, after = iaxis_pad_width
    vector[:before] = kwargs.get("constant_values", 0)
    vector[vector.size - after :] = -kwargs.get("constant_values", 0)


#: what the stencil reads: one neighbour before, two after
DEPTH = {"lat": (1, 2), "lon": 2}
#: the same depth by axis, for each variable's dimensions
DEPTH_BY_AXIS = {
    ("lat", "lon"): {0: (1, 2), 1: 2},
    ("lon", "lat"): {0: 2, 1: (1, 2)},
    ("lat",): {0: (1, 2)},
}

#: (the call by name, the same call by axis for each variable's dimensions)
CASES = {
    "modes": (
        {"mode": {"lon": "wrap", "lat": "symmetric"}},
        {
            ("lat", "lon"): {"mode": {0: "symmetric", 1: "wrap"}},
            ("lon", "lat"): {"mode": {0: "wrap", 1: "symmetric"}},
            ("lat",): {"mode": {0: "symmetric"}},
        },
    ),
    "reflect_type-by-name": (
        {"mode": {"lat": "reflect", "lon": "wrap"}, "reflect_type": {"lat": "odd"}},
        {
            ("lat", "lon"): {"mode": {0: "reflect", 1: "wrap"}, "reflect_type": {0: "odd"}},
            ("lon", "lat"): {"mode": {0: "wrap", 1: "reflect"}, "reflect_type": {1: "odd"}},
            ("lat",): {"mode": {0: "reflect"}, "reflect_type": {0: "odd"}},
        },
    ),
    "one-keyword-for-some": (
        {"mode": {"lat": "edge", "lon": "reflect"}, "reflect_type": "odd"},
        {
            ("lat", "lon"): {"mode": {0: "edge", 1: "reflect"}, "reflect_type": "odd"},
            ("lon", "lat"): {"mode": {0: "reflect", 1: "edge"}, "reflect_type": "odd"},
            ("lat",): {"mode": {0: "edge"}},
        },
    ),
    "constant-and-ramp": (
        {
            "mode": {"lon": "linear_ramp"},
            "constant_values": {"lat": (1, 2)},
            "end_values": {"lon": -1},
        },
        {
            ("lat", "lon"): {
                "mode": {1: "linear_ramp"},
                "constant_values": {0: (1, 2)},
                "end_values": {1: -1},
            },
            ("lon", "lat"): {
                "mode": {0: "linear_ramp"},
                "constant_values": {1: (1, 2)},
                "end_values": {0: -1},
            },
            ("lat",): {"mode": {}, "constant_values": {0: (1, 2)}},
        },
    ),
    "statistics": (
        {"mode": {"lon": "mean", "lat": "maximum"}, "stat_length": {"lon": 2}},
        {
            ("lat", "lon"): {"mode": {0: "maximum", 1: "mean"}, "stat_length": {1: 2}},
            ("lon", "lat"): {"mode": {0: "mean", 1: "maximum"}, "stat_length": {0: 2}},
            ("lat",): {"mode": {0: "maximum"}},
        },
    ),
    "one-mode-keyword-by-name": (
        {"mode": "reflect", "reflect_type": {"lon": "odd"}},
        {
            ("lat", "lon"): {"mode": {0: "reflect", 1: "reflect"}, "reflect_type": {1: "odd"}},
            ("lon", "lat"): {"mode": {0: "reflect", 1: "reflect"}, "reflect_type": {0: "odd"}},
            ("lat",): {"mode": "reflect"},
        },
    ),
    "one-boundary-constant-by-name": (
        {"boundary": "constant", "constant_values": {"lon": (-1, 2)}},
        {
            ("lat", "lon"): {
                "boundary": {0: "constant", 1: "constant"},
                "constant_values": {1: (-1, 2)},
            },
            ("lon", "lat"): {
                "boundary": {0: "constant", 1: "constant"},
                "constant_values": {0: (-1, 2)},
            },
            ("lat",): {"boundary": "constant"},
        },
    ),
    "a-function-gets-what-no-mode-takes": (
        {"mode": {"lat": fill, "lon": "wrap"}, "constant_values": 5.0},
        {
            ("lat", "lon"): {"mode": {0: fill, 1: "wrap"}, "constant_values": 5.0},
            ("lon", "lat"): {"mode": {0: "wrap", 1: fill}, "constant_values": 5.0},
            ("lat",): {"mode": {0: fill}, "constant_values": 5.0},
        },
    ),
    "boundaries": (
        {"boundary": {"lon": "periodic", "lat": "dask:reflect"}},
        {
            ("lat", "lon"): {"boundary": {0: "dask:reflect", 1: "periodic"}},
            ("lon", "lat"): {"boundary": {0: "periodic", 1: "dask:reflect"}},
            ("lat",): {"boundary": {0: "dask:reflect"}},
        },
    ),
    "boundary-number-and-none": (  # (lon: no halo at the edges, as dask leaves it)
        {"boundary": {"lat": -1.5}},
        {
            ("lat", "lon"): {"boundary": {0: -1.5}},
            ("lon", "lat"): {"boundary": {1: -1.5}},
            ("lat",): {"boundary": {0: -1.5}},
        },
    ),
    "boundary-and-keyword": (
        {"boundary": {"lat": "mirror", "lon": "periodic"}, "reflect_type": {"lat": "odd"}},
        {
            ("lat", "lon"): {"boundary": {0: "mirror", 1: "periodic"}, "reflect_type": {0: "odd"}},
            ("lon", "lat"): {"boundary": {0: "periodic", 1: "mirror"}, "reflect_type": {1: "odd"}},
            ("lat",): {"boundary": {0: "mirror"}, "reflect_type": {0: "odd"}},
        },
    ),
}


def _by_axis(var: xr.DataArray, by_dims: dict) -> np.ndarray:
    """The call by axis numbers on ``var``'s data, computed (``compute()`` everywhere:
    under dask's array-expr, ``numpy.asarray`` of a dask array, and so ``.values``, is an
    array of objects)."""
    out = daskpad.map_overlap(
        stencil, var.data, depth=DEPTH_BY_AXIS[var.dims], **by_dims[var.dims]
    )
    return np.asarray(out.compute())


@pytest.mark.parametrize("chunked", [False, True], ids=["numpy", "dask"])
@pytest.mark.parametrize("case", list(CASES))
def test_dataarray_by_name_is_the_call_by_axis(sync_scheduler, case, chunked):
    by_name, by_dims = CASES[case]
    ds = _dataset(chunked)
    for name in ("t", "u"):
        got = ds[name].pad2.map_overlap(stencil, DEPTH, **by_name)
        np.testing.assert_array_equal(got.compute().values, _by_axis(ds[name], by_dims))
        xr.testing.assert_identical(got.coords.to_dataset(), ds[name].coords.to_dataset())
        assert isinstance(got.data, np.ndarray) != chunked  # in memory stays in memory


@pytest.mark.parametrize("chunked", [False, True], ids=["numpy", "dask"])
@pytest.mark.parametrize("case", list(CASES))
def test_dataset_by_name_gives_each_variable_its_axes(sync_scheduler, case, chunked):
    by_name, by_dims = CASES[case]
    ds = _dataset(chunked)
    got = ds.pad2.map_overlap(stencil, **DEPTH, **by_name)  # (depths as keywords, too)
    for name in ("t", "u", "z"):
        np.testing.assert_array_equal(got[name].compute().values, _by_axis(ds[name], by_dims))
    xr.testing.assert_identical(got.n, ds.n)  # (no dimension: untouched)


def test_a_mode_per_dimension_is_the_stencil_on_the_chained_numpy_pad(sync_scheduler):
    # the named call against numpy itself, not only against the call by axis
    ds = _dataset(True)
    got = ds.pad2.map_overlap(stencil, DEPTH, mode={"lon": "wrap", "lat": "symmetric"})
    for name, widths, modes in (
        ("t", ((1, 2), (2, 2)), {0: "symmetric", 1: "wrap"}),
        ("u", ((2, 2), (1, 2)), {0: "wrap", 1: "symmetric"}),
    ):
        padded = chained_numpy_pad(ds[name].compute().values, widths, modes)
        inner = tuple(slice(b, n - a) for (b, a), n in zip(widths, padded.shape))
        np.testing.assert_allclose(got[name].compute().values, stencil(padded)[inner])


def test_the_issue_call_works_and_differs_from_one_mode(sync_scheduler):
    ds = _dataset(True)
    named = ds.t.pad2.map_overlap(stencil, lat=1, lon=1, mode={"lat": "symmetric", "lon": "wrap"})
    by_boundary = ds.pad2.map_overlap(
        stencil, lat=1, lon=1, boundary={"lat": "symmetric", "lon": "wrap"}
    )
    xr.testing.assert_identical(named.compute(), by_boundary.t.compute())
    one_mode = ds.t.pad2.map_overlap(stencil, lat=1, lon=1, mode="symmetric")
    assert not named.compute().equals(one_mode.compute())


@pytest.mark.parametrize(
    ("kwargs", "error", "says"),
    [
        (
            {"mode": {"lat": "symmetric", "longitude": "wrap"}},
            ValueError,
            "mode names dimension(s) ['longitude'] that do not exist; the object has "
            "dimensions ('lat', 'lon')",
        ),
        (
            {"boundary": {"latitude": "periodic"}},
            ValueError,
            "boundary names dimension(s) ['latitude'] that do not exist; the object has "
            "dimensions ('lat', 'lon')",
        ),
        (
            {"mode": "reflect", "reflect_type": {"x": "odd"}},
            ValueError,
            "reflect_type names dimension(s) ['x'] that do not exist; the object has "
            "dimensions ('lat', 'lon')",
        ),
        (
            {"mode": {"lat": "constant"}, "constant_values": {"lat": 1, "y": 2}},
            ValueError,
            "constant_values names dimension(s) ['y'] that do not exist",
        ),
        (
            {"mode": ("symmetric", "wrap")},
            TypeError,
            "mode: give one for every dimension or one per dimension name, {dim: mode}, not "
            "one per axis; got mode=('symmetric', 'wrap')",
        ),
        (
            {"boundary": ["periodic", "none"]},
            TypeError,
            "boundary: give one for every dimension or one per dimension name",
        ),
        (
            {"mode": {"lat": "edge", "lon": "wrap"}, "reflect_type": "odd"},
            ValueError,
            "reflect_type='odd' applies to no dimension: the modes of the dimensions named in "
            "mode or boundary, or with a halo, are {'lat': 'edge', 'lon': 'wrap'}; "
            "reflect_type is for the modes",
        ),
        (
            {"mode": {"lat": "reflect", "lon": "wrap"}, "reflect_type": {"lon": "odd"}},
            ValueError,
            "reflect_type gives a value for dimension 'lon', whose mode 'wrap' does not take it",
        ),
        (
            {"boundary": {"lat": 2.0}, "constant_values": 1},
            TypeError,
            "boundary={'lat': 2.0} gives dimension(s) ['lat'] a number, a constant",
        ),
        (
            {"boundary": {"lon": "periodical"}},
            ValueError,
            "boundary['lon']='periodical' is not a boundary name",
        ),
        (
            {"mode": {"lat": "symmetric"}, "boundary": {"lon": "periodic"}},
            TypeError,
            "give the edge as mode= (numpy's names) or boundary=, not both",
        ),
    ],
    ids=[
        "mode-typo",
        "boundary-typo",
        "keyword-typo",
        "constant_values-typo",
        "mode-per-axis",
        "boundary-per-axis",
        "keyword-nobody-takes",
        "keyword-for-another-mode",
        "two-constants",
        "boundary-word",
        "mode-and-boundary",
    ],
)
def test_refusals_by_name_are_one_line(kwargs, error, says):
    ds = _dataset(True)
    for obj in (ds.t, ds[["t", "z"]]):
        with pytest.raises(error) as raised:
            obj.pad2.map_overlap(stencil, lat=1, lon=1, **kwargs)
        assert says in str(raised.value)
        assert "\n" not in str(raised.value)


def test_a_dimension_mode_names_takes_its_keywords_whatever_its_depth(sync_scheduler):
    """numpy's rule, as daskpad.map_overlap by axis and pad2 follow it: a keyword fits
    when the mode of a dimension named in mode takes it, even without a halo."""
    a = _dataset(True).t
    mode = {"lat": "constant", "lon": "wrap"}
    got = a.pad2.map_overlap(stencil, {"lat": 0, "lon": 1}, mode=mode, constant_values=5)
    axes = {a.dims.index(d): m for d, m in mode.items()}
    depth = tuple(1 if d == "lon" else 0 for d in a.dims)
    want = daskpad.map_overlap(stencil, a.data, depth, mode=axes, constant_values=5)
    np.testing.assert_array_equal(got.compute().values, want.compute())


def test_a_keyword_for_a_dimension_without_halo_is_refused():
    ds = _dataset(True)
    with pytest.raises(ValueError, match="dimension 'lon', which has no halo"):
        ds.pad2.map_overlap(stencil, lat=1, mode="reflect", reflect_type={"lon": "odd"})


@pytest.mark.parametrize("what", ["Dataset", "DataArray"])
@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("pad_to", lambda obj: daskpad.pad_to(obj, multiple={"lat": 64, "lon": 64})),
        ("pad_to", lambda obj: daskpad.pad_to(obj, multiple=64)),
        ("widths_for", lambda obj: daskpad.widths_for(obj, multiple=4)),
        ("crop", lambda obj: daskpad.crop(obj, 1)),
    ],
)
def test_the_functions_by_axis_refuse_xarray_and_name_the_accessor(what, name, call):
    ds = _dataset(True)
    obj = ds if what == "Dataset" else ds.t
    with pytest.raises(TypeError) as raised:
        call(obj)
    said = str(raised.value)
    assert f"obj.pad2.{name}(" in said and f"xarray {what}" in said
    assert "\n" not in said
    getattr(obj.pad2, name)(multiple=4) if name != "crop" else obj.pad2.crop(lat=1)  # works


def test_a_subclass_is_refused_and_an_array_with_dims_is_not():
    class Labelled(xr.DataArray):
        __slots__ = ()

    with pytest.raises(TypeError, match=r"obj\.pad2\.pad_to"):
        daskpad.pad_to(Labelled(np.zeros((2, 3)), dims=("y", "x")), (4, 4))

    class WithDims(np.ndarray):
        dims = ("y", "x")

    x = np.zeros((2, 3)).view(WithDims)
    assert daskpad.widths_for(x, (4, 4)) == ((1, 1), (0, 1))
    assert daskpad.pad_to(x, (4, 4)).shape == (4, 4)
