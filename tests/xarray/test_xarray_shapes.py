"""``pad2.crop``, ``pad2.pad_to``, ``pad2.widths_for`` and ``pad2.map_overlap``: by name."""

from __future__ import annotations

import numpy as np
import pytest

xr = pytest.importorskip("xarray")


def _dataset(chunked: bool):
    lat = np.linspace(-60.0, 60.0, 7)
    lon = np.arange(0.0, 360.0, 30.0)
    t = np.random.default_rng(0).random((7, 12))
    ds = xr.Dataset(
        {"t2m": (("lat", "lon"), t), "z": ("lat", np.arange(7.0)), "n": ((), 3)},
        coords={"lat": lat, "lon": lon, "band": ("lon", np.arange(12) % 3)},
        attrs={"title": "test"},
    )
    return ds.chunk({"lat": 3, "lon": 5}) if chunked else ds


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("mode", ["wrap", "reflect", "mean", "constant"])
def test_crop_undoes_pad2_coordinates_included(chunked, mode):
    ds = _dataset(chunked)
    widths = {"lon": (2, 3), "lat": 1}
    padded = ds.pad2(widths, mode=mode)
    back = padded.pad2.crop(widths)
    xr.testing.assert_identical(back.compute(), ds.compute())
    if chunked:
        assert back.t2m.chunks == ds.t2m.chunks


@pytest.mark.parametrize("chunked", [False, True])
def test_pad_to_by_name_reaches_the_sizes_and_crop_comes_back(chunked):
    ds = _dataset(chunked)
    widths = ds.pad2.widths_for({"lon": 16}, align="end")
    assert widths == {"lon": (4, 0)}
    padded = ds.pad2.pad_to({"lon": 16}, align="end", mode="wrap")
    assert dict(padded.sizes) == {"lat": 7, "lon": 16}
    np.testing.assert_array_equal(
        padded.t2m.compute().values, np.pad(ds.t2m.compute().values, ((0, 0), (4, 0)), "wrap")
    )
    assert np.all(np.diff(padded.lon.values) > 0)  # the index coordinate continued
    xr.testing.assert_identical(padded.pad2.crop(widths).compute(), ds.compute())
    by_multiple = ds.pad2.pad_to(multiple=4, mode="edge")
    assert dict(by_multiple.sizes) == {"lat": 8, "lon": 12}
    assert ds.pad2.widths_for(multiple={"lat": 5}) == {"lat": (1, 2)}


@pytest.mark.parametrize("chunked", [False, True])
def test_map_overlap_by_name_is_the_stencil_on_numpy_pad_and_keeps_coordinates(chunked):
    ds = _dataset(chunked)

    def smooth(block):
        return (np.roll(block, 1, -1) + block + np.roll(block, -1, -1)) / 3

    got = ds.t2m.pad2.map_overlap(smooth, {"lon": 1}, "wrap")
    t = ds.t2m.compute().values
    expected = smooth(np.pad(t, ((0, 0), (1, 1)), "wrap"))[:, 1:-1]
    np.testing.assert_allclose(got.compute().values, expected)
    assert isinstance(got.data, np.ndarray) != chunked  # in memory stays in memory
    xr.testing.assert_identical(got.coords.to_dataset(), ds.t2m.coords.to_dataset())
    whole = ds.pad2.map_overlap(smooth, {"lon": 1}, boundary="periodic")
    np.testing.assert_allclose(whole.t2m.compute().values, expected)
    xr.testing.assert_identical(whole.z, ds.z)  # (no lon: untouched)
    assert whole.attrs == ds.attrs
    everywhere = ds.t2m.pad2.map_overlap(smooth, 1, "symmetric")  # one depth, every dim
    reference = smooth(np.pad(t, 1, "symmetric"))[1:-1, 1:-1]
    np.testing.assert_allclose(everywhere.compute().values, reference)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda ds: ds.pad2.crop(lon=7), ValueError, "removes more than the 12"),
        (lambda ds: ds.pad2.crop(time=1), ValueError, "do not exist"),
        (lambda ds: ds.pad2.pad_to({"lon": 10}), ValueError, "more than the 10 asked for"),
        (lambda ds: ds.pad2.pad_to((8, 16)), TypeError, "by dimension name"),
        (lambda ds: ds.pad2.pad_to(multiple=(2, 3)), TypeError, "by dimension name"),
        (lambda ds: ds.pad2.pad_to({"x": 9}), ValueError, "do not exist"),
        (lambda ds: ds.pad2.map_overlap(abs, {"x": 1}), ValueError, "do not exist"),
    ],
)
def test_labelled_refusals(call, error, words):
    with pytest.raises(error, match=words):
        call(_dataset(True))
