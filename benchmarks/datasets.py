"""The stores of the ``datasets`` section: shaped like ERA5 and like a CMIP model's output,
written once with xarray and kept for the next run.

- :func:`era5_like`: hourly ``time`` x ``latitude`` 721 x ``longitude`` 1440 (0.25°,
  latitudes from 90 down to -90) in chunks of 6 x 180 x 360, zstd level 3: ``t2m`` stored
  as int16 packed with ``scale_factor`` 0.002, ``add_offset`` 280 and ``_FillValue``
  -32767, ``tp`` float32 with 60% zeros. 408 steps: 2.5 GB decoded.
- :func:`cmip_like`: daily ``time`` on the ``noleap`` calendar (cftime) x ``lat`` 192 x
  ``lon`` 288 in chunks of 73 x 96 x 288 (one chunk along ``lon``), zstd level 3: ``tos``
  float32 with ``_FillValue`` 1e20, missing over land (a third of the cells). 3650
  steps: 0.8 GB decoded.

The values are smooth fields with noise, which compress as real data does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dask.array as da
import numpy as np


def _location(block_info: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.random.Generator]:
    (t0, t1), (y0, y1), (x0, x1) = block_info[None]["array-location"]
    rng = np.random.default_rng([t0, y0, x0])
    t = np.arange(t0, t1, dtype=np.float32)[:, None, None]
    y = np.arange(y0, y1, dtype=np.float32)[None, :, None]
    x = np.arange(x0, x1, dtype=np.float32)[None, None, :]
    return t, y, x, rng


def _temperature(block: np.ndarray, block_info: Any = None) -> np.ndarray:
    t, y, x, rng = _location(block_info)
    noise = rng.standard_normal(block.shape, dtype=np.float32)
    values = 280 + 25 * np.cos(np.deg2rad(90 - y / 4)) + 5 * np.sin(x / 60 + t / 24)
    return (values + 0.3 * noise).astype(np.float32)


def _precipitation(block: np.ndarray, block_info: Any = None) -> np.ndarray:
    *_, rng = _location(block_info)
    v = rng.exponential(1e-3, block.shape).astype(np.float32)
    v[rng.random(block.shape) < 0.6] = 0
    return v


def _ocean(block: np.ndarray, block_info: Any = None) -> np.ndarray:
    t, y, x, rng = _location(block_info)
    land = np.sin(y / 17) * np.cos(x / 23) > 0.35
    values = 15 + 12 * np.cos(np.deg2rad(y - 96)) + 2 * np.sin(t / 58) + 0 * x
    values = values + 0.2 * rng.standard_normal(block.shape, dtype=np.float32)
    return np.where(land, np.float32(np.nan), values).astype(np.float32)


def _field(shape: tuple[int, ...], chunks: tuple[int, ...], fn: Any) -> da.Array:
    f4 = np.dtype("float32")
    return da.zeros(shape, chunks=chunks, dtype=f4).map_blocks(fn, dtype=f4)


def era5_like(path: Path, times: int = 408) -> None:
    """Write the ERA5-like store (module docstring) of ``times`` hourly steps."""
    import xarray as xr
    import zarr

    shape, chunks = (times, 721, 1440), (6, 180, 360)
    dims = ("time", "latitude", "longitude")
    ds = xr.Dataset(
        {
            "t2m": (dims, _field(shape, chunks, _temperature), {"units": "K"}),
            "tp": (dims, _field(shape, chunks, _precipitation), {"units": "m"}),
        },
        coords={
            "time": np.datetime64("2020-01-01T00", "ns")
            + np.arange(times) * np.timedelta64(1, "h"),
            "latitude": np.linspace(90, -90, 721),
            "longitude": np.arange(1440) * 0.25,
        },
    )
    zstd = [zarr.codecs.ZstdCodec(level=3)]
    packed = {"dtype": "int16", "scale_factor": 0.002, "add_offset": 280.0, "_FillValue": -32767}
    encoding = {
        "t2m": {**packed, "compressors": zstd, "chunks": chunks},
        "tp": {"compressors": zstd, "chunks": chunks},
    }
    ds.to_zarr(path, zarr_format=3, encoding=encoding, mode="w", consolidated=False)


def cmip_like(path: Path, times: int = 3650) -> None:
    """Write the CMIP-like store (module docstring) of ``times`` daily steps."""
    import xarray as xr
    import zarr

    shape, chunks = (times, 192, 288), (73, 96, 288)
    dims = ("time", "lat", "lon")
    time = xr.date_range("1850-01-01", periods=times, freq="D", calendar="noleap", use_cftime=True)
    ds = xr.Dataset(
        {"tos": (dims, _field(shape, chunks, _ocean), {"units": "degC"})},
        coords={
            "time": time,
            "lat": np.linspace(-89.5, 89.5, 192),
            "lon": np.arange(288) * 1.25,
        },
    )
    zstd = [zarr.codecs.ZstdCodec(level=3)]
    encoding = {
        "tos": {"_FillValue": np.float32(1e20), "compressors": zstd, "chunks": chunks},
        "time": {"units": "days since 1850-01-01", "calendar": "noleap"},
    }
    ds.to_zarr(path, zarr_format=3, encoding=encoding, mode="w", consolidated=False)
