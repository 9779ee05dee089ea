"""cupy-backed dask arrays pad on the GPU: every block stays a cupy array, the result's
``meta`` says so before computing, and the values equal ``numpy.pad`` of the same data.

Skipped cleanly without cupy or without a GPU (``-m gpu`` selects these tests).
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest

import daskpad
from daskpad.core.registry import MODES
from daskpad.testing.reference import _interior

cupy = pytest.importorskip("cupy")


def _gpus() -> int:
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # cupy installed without a driver or a device
        return 0


pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(_gpus() == 0, reason="no GPU for cupy"),
    pytest.mark.usefixtures("sync_scheduler"),
]

WIDTHS = ((3, 9), (0, 5))  # wider than a chunk, a zero side, wider than the axis for wrap
MODE_CASES = [(mode, {}) for mode in sorted(MODES)] + [
    ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {"reflect_type": "odd"}),
    ("mean", {"stat_length": 2}),
    ("median", {"stat_length": (1, 3)}),
    ("linear_ramp", {"end_values": (1.5, -2.0)}),
    ("constant", {"constant_values": ((1, 2), (3, 4))}),
    ("callable", {}),
]


def _pad_ones(vector, iaxis_pad_width, iaxis, kwargs):
    before, after = iaxis_pad_width
    vector[:before] = 1
    vector[len(vector) - after :] = 1


def _blocks_are_cupy(block):
    assert isinstance(block, cupy.ndarray), type(block)
    return block


def _check(data: np.ndarray, chunks, mode, kwargs, policy=None) -> None:
    fn = _pad_ones if mode == "callable" else mode
    x = da.from_array(cupy.asarray(data), chunks=chunks, asarray=False)
    assert isinstance(x._meta, cupy.ndarray)
    y = daskpad.pad(x, WIDTHS, fn, chunks=policy, **kwargs)
    assert isinstance(y._meta, cupy.ndarray), type(y._meta)
    out = y.map_blocks(_blocks_are_cupy, dtype=y.dtype).compute()
    assert isinstance(out, cupy.ndarray), type(out)
    expected = np.pad(data, WIDTHS, fn, **kwargs)
    got = cupy.asnumpy(out)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    if mode == "empty":  # the pad is undefined: compare the data
        region = _interior(data.shape, WIDTHS)
        got, expected = got[region], expected[region]
    if mode == "mean" and np.issubdtype(data.dtype, np.floating):
        np.testing.assert_allclose(got, expected, rtol=1e-5)
    else:
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(("mode", "kwargs"), MODE_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_every_mode_pads_cupy_blocks_on_the_gpu(mode, kwargs, dtype):
    data = (np.arange(7 * 6).reshape(7, 6) % 11).astype(dtype)
    _check(data, (3, 4), mode, kwargs)


@pytest.mark.parametrize("mode", ["reflect", "mean", "median", "wrap"])
@pytest.mark.parametrize("policy", ["merge", "regular", "even"])
def test_output_chunk_policies_keep_cupy_blocks(mode, policy):
    data = np.arange(9 * 8, dtype=np.float64).reshape(9, 8)
    _check(data, (4, 3), mode, {}, policy)


def test_whole_axis_statistics_under_a_tiny_budget_keep_cupy_blocks():
    # per-block partials and dask trees for maximum/mean, narrowed slabs for median
    data = np.arange(12 * 10, dtype=np.float64).reshape(12, 10) % 7
    with dask.config.set({"array.chunk-size": "64B"}):
        for mode in ("maximum", "mean", "median"):
            _check(data, (3, 2), mode, {})
