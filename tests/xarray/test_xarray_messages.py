"""The labelled helpers take sizes and depths by dimension name as keywords, as pad2 takes
widths, and their refusals name the argument, what was given and what would work."""

from __future__ import annotations

import numpy as np
import pytest

xr = pytest.importorskip("xarray")

import daskpad  # noqa: E402,F401  (registers the accessor)


@pytest.fixture
def ds() -> xr.Dataset:
    rng = np.random.default_rng(1)
    return xr.Dataset(
        {"t": (("time", "lat", "lon"), rng.random((6, 7, 10)))},
        coords={"lat": np.linspace(-90, 90, 7), "lon": np.arange(10) * 36.0},
    ).chunk({"lon": 5})


def test_pad_to_takes_sizes_as_keywords(ds):
    by_keyword = ds.pad2.pad_to(lat=8, lon=16, mode="wrap")
    by_mapping = ds.pad2.pad_to({"lat": 8, "lon": 16}, mode="wrap")
    xr.testing.assert_identical(by_keyword, by_mapping)
    assert ds.pad2.widths_for(lon=16) == ds.pad2.widths_for({"lon": 16}) == {"lon": (3, 3)}


def test_map_overlap_takes_depths_as_keywords(ds):
    def mean3(x):
        return (np.roll(x, 1, -1) + x + np.roll(x, -1, -1)) / 3

    by_keyword = ds.pad2.map_overlap(mean3, lat=2, lon=2, mode="wrap")
    by_mapping = ds.pad2.map_overlap(mean3, {"lat": 2, "lon": 2}, "wrap")
    xr.testing.assert_identical(by_keyword.compute(), by_mapping.compute())


@pytest.mark.parametrize(
    ("call", "error", "says"),
    [
        (
            lambda ds: ds.pad2.pad_to(),
            TypeError,
            "pad_to: give the sizes to pad to by dimension name, pad_to(lon=N)",
        ),
        (
            lambda ds: ds.pad2.pad_to({"lat": 8}, lon=16),
            TypeError,
            "shape: give it once, as shape={'lat': 8} or as keywords by dimension name (lon=16)",
        ),
        (
            lambda ds: ds.pad2.pad_to(lati=8),
            TypeError,
            "pad_to() got keyword(s) ['lati'], which are neither dimensions",
        ),
        (
            lambda ds: ds.pad2.map_overlap(np.negative, mode="wrap"),
            TypeError,
            "map_overlap: give the halo's depth by dimension name, map_overlap(func, lon=2)",
        ),
        (
            lambda ds: ds.pad2(lon=2, mode="periodic"),
            ValueError,
            "mode='periodic' is not a numpy.pad mode: it is dask's name for numpy.pad's 'wrap'",
        ),
    ],
    ids=["pad_to-nothing", "pad_to-twice", "pad_to-typo", "map_overlap-nothing", "periodic"],
)
def test_messages_name_the_argument_and_what_works(ds, call, error, says):
    with pytest.raises(error) as raised:
        call(ds)
    assert says in str(raised.value)


def test_the_mode_message_points_to_the_names_table(ds):
    with pytest.raises(ValueError, match=r"docs/boundaries\.md"):
        ds.pad2(lon=2, mode="periodic")


def test_numpys_refusal_keeps_its_type_and_notes_the_variable():
    when = np.array(["2000-01-01", "2000-01-03"], dtype="datetime64[ns]")
    ds = xr.Dataset({"v": ("x", [1.0, 2.0]), "when": ("x", when)}).chunk(1)
    with pytest.raises(TypeError) as numpys:
        np.pad(when, 1, mode="mean")
    with pytest.raises(TypeError) as ours:
        ds.pad2(x=1, mode="mean")
    assert type(ours.value) is type(numpys.value)
    assert str(ours.value) == str(numpys.value)
    assert ours.value.__notes__[-1:] == ["in the variable 'when' (datetime64[ns])"]
