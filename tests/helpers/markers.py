"""Markers the test modules share."""

from __future__ import annotations

import dask
import pytest

#: a test that writes with xarray's to_zarr, which calls dask.array.store: dask's array query
#: planning (ci/test.sh's second run) does not implement it (daskpad.to_zarr of an array
#: does without it)
WRITES = pytest.mark.xfail(
    dask.config.get("array.query-planning", None) is True,
    reason="xarray's to_zarr uses dask.array.store, not implemented for dask's array-expr",
    strict=True,
)
