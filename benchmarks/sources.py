"""The benchmarks' input arrays, all from here.

- :func:`source`: a smooth function of the position, generated block by block, never held
  whole (float32 or float64);
- :func:`field`: a smooth field with noise (float32), which compresses as real data does;
- :func:`normal`: standard normal numbers in memory, from a seed;
- :func:`write_store`: one of them written to a zarr v3 store with xarray, as the command
  reads it;
- :func:`store_zarr`: a dask array to zarr with regular chunks (``dask.array.to_zarr``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dask.array as da
import numpy as np

from daskpad.store.planning.zarr_chunks import zarr_can_store


def _positions(block: np.ndarray, block_info: Any = None) -> np.ndarray:
    """Each element ``sum(index[axis] * 1e-3 * (axis + 1))``, in the block's dtype."""
    loc = block_info[None]["array-location"]
    out = np.zeros(block.shape, dtype=block.dtype)
    for axis, (start, stop) in enumerate(loc):
        idx = [None] * block.ndim
        idx[axis] = slice(None)
        out += (np.arange(start, stop, dtype=block.dtype) * block.dtype.type(1e-3 * (axis + 1)))[
            tuple(idx)
        ]
    return out


def source(shape: tuple[int, ...], chunks: Any, dtype: Any = np.float32) -> da.Array:
    """A smooth array generated block by block (nothing read from memory that another run
    left behind)."""
    # (meta given: under dask's query planning, map_blocks cannot infer it from a function
    # that needs block_info, and keeps a scalar type given as dtype as the dtype itself)
    meta = np.empty((0,) * len(shape), dtype=dtype)
    template = da.empty(shape, chunks=chunks, dtype=meta.dtype)
    return template.map_blocks(_positions, dtype=meta.dtype, meta=meta)


def _field(block: np.ndarray, block_info: Any = None) -> np.ndarray:
    (r0, r1), (c0, c1) = block_info[None]["array-location"]
    i = np.arange(r0, r1, dtype=np.float32)[:, None]
    j = np.arange(c0, c1, dtype=np.float32)[None, :]
    rng = np.random.default_rng(r0 * block_info[None]["shape"][1] + c0)
    noise = rng.standard_normal((r1 - r0, c1 - c0), dtype=np.float32)
    return (np.sin(i / 500) * np.cos(j / 700) * 20 + 280 + noise).astype(np.float32)


def field(shape: tuple[int, int], chunks: Any) -> da.Array:
    """A 2-D float32 field, ``sin(i / 500) * cos(j / 700) * 20 + 280`` plus unit noise."""
    f4 = np.dtype("float32")
    return da.zeros(shape, chunks=chunks, dtype=f4).map_blocks(_field, dtype=f4)


def normal(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """float64 standard normal numbers in memory."""
    return np.random.default_rng(seed).standard_normal(shape)


def write_store(
    path: Path | str,
    x: da.Array,
    dims: tuple[str, str] = ("y", "x"),
    name: str = "v",
    coords: bool = False,
    zstd_level: int | None = None,
    consolidated: bool = False,
) -> None:
    """``x`` as the variable ``name`` of a zarr v3 store written by xarray (zarr's default
    codec, or zstd at ``zstd_level``; with ``coords``, latitudes and longitudes)."""
    import xarray as xr
    import zarr

    n0, n1 = x.shape
    axes = {dims[0]: np.linspace(-90, 90, n0), dims[1]: np.arange(n1) * (360 / n1)}
    ds = xr.Dataset({name: (dims, x)}, coords=axes if coords else None)
    encoding = None
    if zstd_level is not None:
        encoding = {name: {"compressors": [zarr.codecs.ZstdCodec(level=zstd_level)]}}
    ds.to_zarr(path, zarr_format=3, encoding=encoding, consolidated=consolidated, mode="w")


def store_zarr(y: da.Array, where: str, regular: tuple[tuple[int, ...], ...]) -> None:
    """Write ``y`` to a new zarr store (zarr's default codec), first rechunked to
    ``regular`` unless zarr can take its chunks as they are."""
    if not zarr_can_store(y.chunks):
        y = y.rechunk(regular)
    da.to_zarr(y, where, overwrite=True)
