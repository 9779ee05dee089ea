"""The small dataset the ``pad2`` tests pad (test_xarray.py, test_xarray_modes.py), the
chunks they give it and the widths they pad it by."""

from __future__ import annotations

import numpy as np
import pytest

xr = pytest.importorskip("xarray")

WIDTHS = {"x": (2, 3), "y": (1, 7)}  # y is padded wider than it is long


def make_dataset(seed: int, t: np.ndarray, other_order: bool = False) -> xr.Dataset:
    """Variables f and i on (x, y), with ``other_order`` g on (y, x), t (``t``) on y alone
    and z on no padded dimension; f and g drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    data_vars = {
        "f": (("x", "y"), rng.normal(size=(4, 5)), {"units": "K"}),
        "i": (("x", "y"), np.arange(20, dtype=np.int32).reshape(4, 5) ** 2 % 7),
    }
    if other_order:
        data_vars["g"] = (("y", "x"), rng.normal(size=(5, 4)))
    data_vars["t"] = ("y", t)
    data_vars["z"] = ("w", np.arange(3))  # no padded dimension
    return xr.Dataset(
        data_vars,
        coords={
            "x": ("x", [0.0, 1.0, 2.0, 3.0], {"axis": "X"}),
            "y": [10, 20, 30, 40, 50],
            "lat": (("x", "y"), np.linspace(-1, 1, 20).reshape(4, 5)),
        },
        attrs={"title": "test"},
    )


def chunked(ds: xr.Dataset) -> xr.Dataset:
    return ds.chunk({"x": (1, 3), "y": (2, 2, 1), "w": 2})
