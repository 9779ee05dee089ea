"""Every example of numpy.pad's own docstring, through daskpad, in a few chunkings."""

from __future__ import annotations

import numpy as np
import pytest

from daskpad.testing import assert_pad_matches_numpy

pytestmark = pytest.mark.usefixtures("sync_scheduler")


def pad_with(vector, pad_width, iaxis, kwargs):
    # verbatim from numpy.pad's docstring
    pad_value = kwargs.get("padder", 10)
    vector[: pad_width[0]] = pad_value
    vector[-pad_width[1] :] = pad_value


A1 = [1, 2, 3, 4, 5]
A2 = [[1, 2], [3, 4]]
A23 = np.arange(6).reshape((2, 3))
B23 = np.arange(1, 7).reshape(2, 3)

#: (array, pad_width, mode, kwargs, numpy's documented output)
EXAMPLES = [
    (A1, (2, 3), "constant", {"constant_values": (4, 6)}, [4, 4, 1, 2, 3, 4, 5, 6, 6, 6]),
    (A1, (2, 3), "edge", {}, [1, 1, 1, 2, 3, 4, 5, 5, 5, 5]),
    (A1, (2, 3), "linear_ramp", {"end_values": (5, -4)}, [5, 3, 1, 2, 3, 4, 5, 2, -1, -4]),
    (A1, (2,), "maximum", {}, [5, 5, 1, 2, 3, 4, 5, 5, 5]),
    (A1, (2,), "mean", {}, [3, 3, 1, 2, 3, 4, 5, 3, 3]),
    (A1, (2,), "median", {}, [3, 3, 1, 2, 3, 4, 5, 3, 3]),
    (
        A2,
        ((3, 2), (2, 3)),
        "minimum",
        {},
        [[1, 1, 1, 2, 1, 1, 1]] * 4 + [[3, 3, 3, 4, 3, 3, 3]] + [[1, 1, 1, 2, 1, 1, 1]] * 2,
    ),
    (A1, (2, 3), "reflect", {}, [3, 2, 1, 2, 3, 4, 5, 4, 3, 2]),
    (A1, (2, 3), "reflect", {"reflect_type": "odd"}, [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8]),
    (A1, (2, 3), "symmetric", {}, [2, 1, 1, 2, 3, 4, 5, 5, 4, 3]),
    (A1, (2, 3), "symmetric", {"reflect_type": "odd"}, [0, 1, 1, 2, 3, 4, 5, 5, 6, 7]),
    (A1, (2, 3), "wrap", {}, [4, 5, 1, 2, 3, 4, 5, 1, 2, 3]),
    (
        A23,
        2,
        pad_with,
        {},
        [[10] * 7] * 2 + [[10, 10, 0, 1, 2, 10, 10], [10, 10, 3, 4, 5, 10, 10]] + [[10] * 7] * 2,
    ),
    (
        A23,
        2,
        pad_with,
        {"padder": 100},
        [[100] * 7] * 2
        + [[100, 100, 0, 1, 2, 100, 100], [100, 100, 3, 4, 5, 100, 100]]
        + [[100] * 7] * 2,
    ),
    (B23, {1: (1, 2)}, "constant", {}, [[0, 1, 2, 3, 0, 0], [0, 4, 5, 6, 0, 0]]),
    (B23, {-1: 2}, "constant", {}, [[0, 0, 1, 2, 3, 0, 0], [0, 0, 4, 5, 6, 0, 0]]),
    (B23, {0: (3, 0)}, "constant", {}, [[0, 0, 0]] * 3 + [[1, 2, 3], [4, 5, 6]]),
    (
        B23,
        {0: (3, 0), 1: 2},
        "constant",
        {},
        [[0] * 7] * 3 + [[0, 0, 1, 2, 3, 0, 0], [0, 0, 4, 5, 6, 0, 0]],
    ),
]


def _id(example):
    _, pad_width, mode, kwargs, _ = example
    mode = getattr(mode, "__name__", mode)
    return f"{mode}-{pad_width}" + "".join(f"-{k}={v}" for k, v in kwargs.items())


def _chunkings(shape):
    """One chunk, one element per chunk, and an irregular split."""
    return [
        tuple((n,) for n in shape),
        tuple((1,) * n for n in shape),
        tuple((1, n - 1) if n > 1 else (n,) for n in shape),
    ]


@pytest.mark.parametrize("example", EXAMPLES, ids=_id)
def test_numpy_docstring_example(example):
    array, pad_width, mode, kwargs, documented = example
    if isinstance(pad_width, dict) and np.lib.NumpyVersion(np.__version__) < "2.4.0":
        pytest.skip("numpy < 2.4 takes no dict pad_width")
    data = np.asarray(array)
    # The table is numpy's documentation: check it against numpy first, then daskpad.
    np.testing.assert_array_equal(np.pad(data, pad_width, mode, **kwargs), documented)
    for chunks in _chunkings(data.shape):
        assert_pad_matches_numpy(data, chunks, pad_width, mode, **kwargs)


def test_every_docstring_example_is_here():
    # numpy's docstring has one ">>> np.pad(" line per example; if numpy adds one, add it here.
    doc = np.pad.__doc__
    has_dicts = np.lib.NumpyVersion(np.__version__) >= "2.4.0"
    ours = [e for e in EXAMPLES if has_dicts or not isinstance(e[1], dict)]
    assert doc.count(">>> np.pad(") == len(ours)
