"""The dataset the command tests pad (tests/cli): every kind of encoded variable xarray
decodes (CF packing with fill values and missing values, ``_Unsigned``, ``missing_value``, a
float holding both NaN and its fill value, times, packed coordinates), and the command's
options each case pads it with."""

from __future__ import annotations

import numpy as np
import pytest

xr = pytest.importorskip("xarray")

NT, NY, NX = 4, 6, 8


def decoded_input() -> xr.Dataset:
    """The dataset as xarray decodes it, each variable's encoding saying how it is stored."""
    rng = np.random.default_rng(0)
    tp = rng.uniform(0, 1.5, (NT, NY, NX)).round(4)  # odd reflection stays in int16
    tp[0, 1, 1] = tp[2, 0, 7] = tp[1, 5, 0] = np.nan
    u8 = rng.integers(100, 150, (NY, NX)).astype("float32")
    u8[3, 0] = np.nan
    f32m = rng.normal(0, 5, (NT, NY, NX)).astype("float32")
    f32m[1, 0, 2] = np.nan
    fboth = rng.normal(10, 1, (NY, NX))
    elev = rng.integers(0, 200, (NY, NX)) * 0.5
    elev[5, 5] = np.nan
    when = np.datetime64("2000-01-01") + np.array([0, 3, 5, 9], "timedelta64[D]")
    ds = xr.Dataset(
        {
            "tp": (("time", "lat", "lon"), tp, {"units": "m"}),
            "u8": (("lat", "lon"), u8),
            # stored as int8 with _Unsigned (as netCDF-3 keeps bytes): read as uint8
            "s8": (
                ("lat", "lon"),
                rng.integers(130, 160, (NY, NX)).astype("uint8").view("int8"),
                {"_Unsigned": "true"},
            ),
            "f32m": (("time", "lat", "lon"), f32m),
            "fboth": (("lat", "lon"), fboth),
            "when": (("time",), when.astype("datetime64[ns]")),
            "w": (("lon",), np.arange(NX, dtype="float32")),  # not padded by lat-only cases
        },
        coords={
            "time": np.datetime64("2001-01-01") + np.arange(NT).astype("timedelta64[D]"),
            "lat": np.linspace(-50.0, 50.0, NY).round(1),
            "lon": np.arange(0.0, 360.0, 45.0),
            "elev": (("lat", "lon"), elev),
            "lon_label": (("lon",), np.arange(NX) * 10),
        },
        attrs={"title": "encoded variables"},
    )
    encodings = {
        "tp": {"dtype": "int16", "scale_factor": 1e-4, "add_offset": 0.0, "_FillValue": -32767},
        "u8": {"dtype": "uint8", "_FillValue": 255},
        "f32m": {"dtype": "float32", "missing_value": -9999.0, "_FillValue": -9999.0},
        "fboth": {"dtype": "float64", "_FillValue": 1e20},
        "when": {"dtype": "int64", "units": "days since 2000-01-01", "calendar": "standard"},
        "time": {"dtype": "int64", "units": "days since 2001-01-01"},
        "lat": {"dtype": "int16", "scale_factor": 0.1},
        "elev": {"dtype": "int16", "scale_factor": 0.5, "_FillValue": -1},
    }
    for name, encoding in encodings.items():
        ds[name].encoding = encoding
    return ds


# case -> options; each pads the whole dataset once
CASES = {
    case: options.split()
    for case, options in {
        "mean": "--width lat=2 --width lon=1:2 --mode mean --stat-length 3",
        "maximum": "--width lat=1 --mode maximum",
        "minimum-time": "--width time=1:2 --mode minimum --stat-length 2",
        "median": "--width lon=2 --mode median",
        "constant": "--width lat=1 --width lon=2 --mode constant --constant-value 2.5",
        "constant-nan": "--width lat=1:0 --width time=0:1 --mode constant",
        "ramp": "--width lon=3 --mode linear_ramp --end-value 0.5",
        "mixed": "--width lat=2 --width lon=2 --mode lat=symmetric --mode lon=mean "
        "--stat-length lon=2",
        "mixed-wrap": "--width lat=1 --width lon=3 --mode lat=mean --mode lon=wrap",
        "odd": "--width lat=2 --mode reflect --reflect-type odd",
        "copies": "--width time=2 --width lat=3 --width lon=9 --mode time=edge "
        "--mode lat=symmetric --mode lon=wrap",
    }.items()
}
