"""``daskpad.edge_function``: a pad function that reads only a few values next to each edge
and writes only the pads is padded from the edge chunks, equal to numpy.pad."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
from helpers.graphfacts import input_blocks_read
from hypothesis import given, settings
from hypothesis import strategies as st

import daskpad
from daskpad.strategies import chunkings, shapes


def step_away(vector, iaxis_pad_width, iaxis, kwargs):
    """Reads one value next to each edge: a ramp away from it."""
    before, after = iaxis_pad_width
    if before:
        vector[:before] = vector[before] - np.arange(before, 0, -1)
    if after:
        vector[len(vector) - after :] = vector[-after - 1] + np.arange(1, after + 1)


def mean_of_three(vector, iaxis_pad_width, iaxis, kwargs):
    """Reads three values next to each edge (fewer where the line is shorter), uses its
    kwargs and the axis, and returns the vector instead of only filling it."""
    before, after = iaxis_pad_width
    end = len(vector) - after
    scale = kwargs.get("scale", 1)

    def mean(values):
        return values.sum() / max(len(values), 1)

    if before:
        vector[:before] = mean(vector[before : min(before + 3, end)]) * scale + iaxis
    if after:
        vector[end:] = mean(vector[max(end - 3, before) : end]) * scale - iaxis
    return vector


def fill_only(vector, iaxis_pad_width, iaxis, kwargs):
    """numpy's own example: reads nothing."""
    before, after = iaxis_pad_width
    vector[:before] = kwargs.get("padder", 10)
    vector[len(vector) - after :] = kwargs.get("padder", 10)


FUNCTIONS = [(step_away, 1), (mean_of_three, 3), (fill_only, 0)]


@pytest.mark.parametrize(("function", "reads"), FUNCTIONS)
@settings(max_examples=40)
@given(data=st.data())
def test_an_edge_function_pads_as_numpy(function, reads, data):
    shape = data.draw(shapes(min_dims=1, max_dims=3, max_side=9))
    chunks = data.draw(chunkings(shape))
    widths = data.draw(
        st.lists(
            st.tuples(st.integers(0, 12), st.integers(0, 12)),
            min_size=len(shape),
            max_size=len(shape),
        )
    )
    kwargs = data.draw(st.sampled_from([{}, {"scale": 2.0}, {"padder": -1.0}]))
    a = np.arange(np.prod(shape), dtype=float).reshape(shape) ** 1.5
    x = da.from_array(a, chunks=chunks)
    marked = daskpad.edge_function(function, reads=reads)
    try:
        want = np.pad(a, widths, function, **kwargs)
    except IndexError:  # step_away on an empty axis: numpy's error, from the function
        with pytest.raises(IndexError):
            daskpad.pad(x, widths, daskpad.edge_function(function, reads=reads)).compute()
        return
    np.testing.assert_array_equal(np.pad(a, widths, marked, **kwargs), want)
    y = daskpad.pad(x, widths, marked, **kwargs)
    assert y.shape == want.shape and y.dtype == want.dtype
    np.testing.assert_array_equal(y.compute(), want)


def test_an_edge_function_reads_only_the_edge_chunks():
    a = np.arange(40 * 30, dtype=float).reshape(40, 30)
    x = da.from_array(a, chunks=10)
    y = daskpad.pad(x, 3, daskpad.edge_function(step_away, reads=1))
    reads = input_blocks_read(y, x)
    assert y.chunks == ((3, 10, 10, 10, 10, 3), (3, 10, 10, 10, 3))
    for index, blocks in reads.items():
        if 1 <= index[0] <= 4 and 1 <= index[1] <= 3:
            assert blocks == {(index[0] - 1, index[1] - 1)}  # the interior, as it was
            continue
        # a pad block of axis 0 reads the first or last row of blocks; of axis 1 (corners
        # included), the first or last column of blocks
        for b in blocks:
            assert b[0] in (0, 3) or b[1] in (0, 2), (index, blocks)
    np.testing.assert_array_equal(y.compute(), np.pad(a, 3, step_away))


def test_a_plain_function_still_gets_whole_lines():
    a = np.arange(24.0).reshape(4, 6)
    x = da.from_array(a, chunks=2)

    def swap_ends(vector, iaxis_pad_width, iaxis, kwargs):  # reads and writes anywhere
        vector[:] = vector[::-1]

    np.testing.assert_array_equal(daskpad.pad(x, 1, swap_ends).compute(), np.pad(a, 1, swap_ends))


def test_edge_function_as_a_decorator_and_its_errors():
    marked = daskpad.edge_function(reads=2)(step_away)
    assert marked.reads == 2 and marked.function is step_away
    with pytest.raises(TypeError, match="reads must be an integer"):
        daskpad.edge_function(step_away, reads=1.5)
    with pytest.raises(ValueError, match="at least 0"):
        daskpad.edge_function(step_away, reads=-1)
    with pytest.raises(TypeError, match="needs a function"):
        daskpad.edge_function("reflect", reads=1)


def test_an_edge_function_on_an_empty_axis_pads_as_numpy():
    a = np.zeros((0, 3))
    marked = daskpad.edge_function(fill_only, reads=1)
    got = daskpad.pad(da.from_array(a, chunks=2), 2, marked).compute()
    np.testing.assert_array_equal(got, np.pad(a, 2, fill_only))
