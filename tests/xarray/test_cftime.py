"""cftime and datetime index coordinates, continued by their spacing in their calendar: by
:func:`daskpad.xarray.pad2` (by dimension), and by the command, which must agree with it."""

from __future__ import annotations

import datetime
import subprocess
import sys
from pathlib import Path

import dask
import numpy as np
import pytest

xr = pytest.importorskip("xarray")
cftime = pytest.importorskip("cftime")
pytest.importorskip("zarr")

import daskpad  # noqa: E402,F401  (registers the accessor)

_SCRIPT = Path(sys.executable).with_name("daskpad")
DASKPAD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "daskpad"]

CALENDARS = ["noleap", "360_day", "standard"]


def dataset(calendar: str, use_cftime: bool = True, start: str = "2000-02-27") -> xr.Dataset:
    time = xr.date_range(start, periods=4, calendar=calendar, use_cftime=use_cftime)
    rng = np.random.default_rng(0)
    return xr.Dataset(
        {"t": (("time", "lon"), rng.random((4, 6)))},
        coords={"time": time, "lon": np.arange(6.0) * 60},
    ).chunk({"time": 2})


def expected_days(calendar: str, first: tuple[int, int, int], n: int) -> list:
    day = datetime.timedelta(days=1)
    return [cftime.datetime(*first, calendar=calendar) + k * day for k in range(n)]


@pytest.mark.parametrize("calendar", CALENDARS)
def test_a_cftime_index_is_continued_in_its_calendar(calendar):
    ds = dataset(calendar)
    out = ds.pad2(time=(2, 3), mode="wrap")
    index = out.indexes["time"]
    assert isinstance(index, xr.CFTimeIndex)
    assert index.calendar == ds.indexes["time"].calendar
    want = expected_days(calendar, (2000, 2, 25), 9)
    assert list(index) == want
    # across the end of February: 360_day has a 29th and 30th, noleap has neither
    tail = [(d.month, d.day) for d in index[-4:]]
    assert (
        tail
        == {
            "noleap": [(3, 2), (3, 3), (3, 4), (3, 5)],
            "360_day": [(2, 30), (3, 1), (3, 2), (3, 3)],
            "standard": [(3, 1), (3, 2), (3, 3), (3, 4)],
        }[calendar]
    )
    want_t = np.pad(ds.t.data.compute(), ((2, 3), (0, 0)), mode="wrap")
    np.testing.assert_array_equal(out.t.data.compute(), want_t)


@pytest.mark.parametrize("calendar", CALENDARS)
def test_a_cftime_index_by_dimension_with_a_mode_each(calendar):
    ds = dataset(calendar)
    out = ds.pad2(time=1, lon=2, mode={"time": "edge", "lon": "wrap"})
    assert list(out.indexes["time"]) == expected_days(calendar, (2000, 2, 26), 6)
    assert list(out.lon.values) == [-120.0, -60.0, *range(0, 360, 60), 360.0, 420.0]


def test_a_datetime64_index_is_continued_alike():
    ds = dataset("standard", use_cftime=False)
    out = ds.pad2(time=1, mode="wrap")
    assert out.time.dtype.kind == "M"
    assert [str(t)[:10] for t in out.time.values] == [
        "2000-02-26", "2000-02-27", "2000-02-28", "2000-02-29", "2000-03-01", "2000-03-02",
    ]  # fmt: skip


def test_a_cftime_index_that_cannot_be_extended_names_the_policies():
    times = [cftime.DatetimeNoLeap(2000, 1, d) for d in (1, 3, 2)]
    ds = xr.Dataset({"t": ("time", [1.0, 2.0, 3.0])}, coords={"time": times})
    with pytest.raises(ValueError, match=r"not strictly monotonic.*coords='drop'"):
        ds.pad2(time=1)
    assert ds.pad2(time=1, coords="drop").sizes["time"] == 5


@pytest.mark.xfail(
    dask.config.get("array.query-planning", None) is True,
    reason="dask.array.store (used by to_zarr) is not implemented for dask's array-expr",
    raises=NotImplementedError,
    strict=True,
)
@pytest.mark.parametrize("calendar", CALENDARS)
def test_the_command_agrees_with_pad2(calendar, tmp_path):
    ds = dataset(calendar)
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    ds.to_zarr(src, zarr_format=2)
    run = subprocess.run(
        [*DASKPAD, "pad", src, dst, "--width", "time=2:3", "--mode", "wrap"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    coder = xr.coders.CFDatetimeCoder(use_cftime=True)
    with (
        xr.open_zarr(dst, decode_times=coder) as got,
        xr.open_zarr(src, decode_times=coder) as ref,
    ):
        want = ref.pad2(time=(2, 3), mode="wrap")
        assert list(got.indexes["time"]) == list(want.indexes["time"])
        assert got.indexes["time"].calendar == want.indexes["time"].calendar
        xr.testing.assert_identical(got.t.load(), want.t.load())
