"""``pad_to``, ``widths_for`` and ``crop``: padding to a shape, and back."""

from __future__ import annotations

import warnings

import dask.array as da
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import daskpad
from daskpad._compat.graphs import query_planning
from daskpad.strategies import chunkings, pad_cases
from daskpad.testing import DTYPES, assert_pad_matches_numpy

MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum")
MODES += ("reflect", "symmetric", "wrap", "empty")


def _padded(case):
    """``case``'s dask array and its padded array, or None where numpy refuses the call."""
    x = da.from_array(case.data, chunks=case.chunks)
    try:
        return x, daskpad.pad(x, case.pad_width, case.mode, **case.kwargs)
    except Exception:  # (numpy's own refusals: TypeError, ValueError, ZeroDivisionError)
        return x, None


def _only_aliases(cropped):
    """Whether every block of ``cropped`` is a block of another array, not computed."""
    from dask._task_spec import Alias, convert_legacy_graph

    graph = convert_legacy_graph(dict(cropped.__dask_graph__()))
    keys = [k for k in graph if isinstance(k, tuple) and k[0] == cropped.name]
    return all(isinstance(graph[k], Alias) for k in keys)


@given(data=st.data())
def test_crop_undoes_pad_in_values_and_chunks(data):
    case = data.draw(pad_cases(data.draw(st.sampled_from(MODES))))
    x, y = _padded(case)
    assume(y is not None)
    cropped = daskpad.crop(y, case.pad_width)
    assert cropped.chunks == x.chunks  # pad's default chunks keep the interior's
    np.testing.assert_array_equal(cropped.compute(), case.data, strict=True)
    if y is not x and x.size and not query_planning():
        assert _only_aliases(cropped)  # the interior blocks themselves, no copy


@given(data=st.data())
def test_pad_to_a_shape_is_numpy_pad_with_the_widths_it_chose(data):
    case = data.draw(pad_cases(data.draw(st.sampled_from(MODES))))
    shape = case.data.shape
    target = [data.draw(st.one_of(st.none(), st.integers(n, n + 20))) for n in shape]
    align = data.draw(st.sampled_from(daskpad.api.shapes.ALIGNS))
    widths = daskpad.widths_for(case.data, target, align=align)
    assert [n + b + a for n, (b, a) in zip(shape, widths)] == [
        n if t is None else t for n, t in zip(shape, target)
    ]
    for b, a in widths:
        assert {"center": 0 <= a - b <= 1, "start": b == 0, "end": a == 0}[align]
    assert_pad_matches_numpy(case.data, case.chunks, widths, case.mode, **case.kwargs)
    x = da.from_array(case.data, chunks=case.chunks)
    try:
        expected = daskpad.pad(x, widths, case.mode, **case.kwargs)
    except Exception as e:  # (refused as numpy refuses: checked above)
        with pytest.raises(type(e)):
            daskpad.pad_to(x, target, mode=case.mode, align=align, **case.kwargs)
        return
    y = daskpad.pad_to(x, target, mode=case.mode, align=align, **case.kwargs)
    assert y.name == expected.name  # the same graph
    with warnings.catch_warnings():  # (numpy.pad's own warnings, compared above: a complex
        warnings.simplefilter("ignore", RuntimeWarning)  # constant_values on integers)
        cropped = daskpad.crop(y, widths).compute()
    np.testing.assert_array_equal(cropped, case.data, strict=True)


@given(shape=st.lists(st.integers(0, 30), min_size=1, max_size=3), data=st.data())
def test_pad_to_a_multiple_reaches_the_next_multiple(shape, data):
    multiple = data.draw(st.lists(st.one_of(st.none(), st.integers(1, 12)), min_size=len(shape)))
    multiple = multiple[: len(shape)]
    widths = daskpad.widths_for(tuple(shape), multiple=multiple)
    for n, m, (b, a) in zip(shape, multiple, widths):
        if m is None:
            assert (b, a) == (0, 0)
        else:
            assert (n + b + a) % m == 0 and 0 <= b + a < m
    x = da.ones(shape, chunks=data.draw(chunkings(tuple(shape))))
    y = daskpad.pad_to(x, multiple=multiple, mode="edge")
    assert y.shape == tuple(n + b + a for n, (b, a) in zip(shape, widths))


def test_pad_to_examples():
    x = da.from_array(np.arange(10).reshape(2, 5), chunks=2)
    assert daskpad.widths_for(x, {1: 8}) == ((0, 0), (1, 2))
    assert daskpad.widths_for(x, multiple=4, align="end") == ((2, 0), (3, 0))
    assert daskpad.widths_for(x, multiple={-1: 3}) == ((0, 0), (0, 1))
    y = daskpad.pad_to(x, (4, None), mode="wrap")
    np.testing.assert_array_equal(
        y.compute(), np.pad(np.arange(10).reshape(2, 5), 1, "wrap")[:, 1:-1]
    )
    for dtype in DTYPES[:3]:
        z = daskpad.pad_to(da.zeros(3, dtype=dtype, chunks=2), multiple=4, constant_values=1)
        assert z.dtype == dtype and z.shape == (4,)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({}, TypeError, "not neither"),
        ({"shape": (4, 6), "multiple": 2}, TypeError, "not both"),
        ({"shape": (1, 6)}, ValueError, "more than the 1 asked for"),
        ({"shape": (4,)}, ValueError, "has 1 entries, for an array of 2"),
        ({"shape": (4, 6.5)}, TypeError, "expected an integer, got 6.5"),
        ({"shape": {2: 4}}, ValueError, "axis 2 is out of bounds"),
        ({"shape": {"y": 4}}, TypeError, "axes are integers"),
        ({"multiple": 0}, ValueError, "1 or more"),
        ({"multiple": -2}, ValueError, "negative"),
        ({"multiple": "4"}, TypeError, "one entry per axis"),
        ({"multiple": 2, "align": "middle"}, ValueError, "align must be one of"),
    ],
)
def test_pad_to_refuses_what_it_cannot_do_with_a_clear_message(kwargs, error, words):
    x = da.zeros((2, 5), chunks=2)
    with pytest.raises(error, match=words):
        daskpad.pad_to(x, **kwargs)


@pytest.mark.parametrize(
    ("pad_width", "error"),
    [(-1, ValueError), ((1.5, 1), TypeError), ((1, 2, 3), ValueError), (4, ValueError)],
)
def test_crop_refuses_widths_numpy_refuses_and_more_than_the_axis(pad_width, error):
    with pytest.raises(error):
        daskpad.crop(da.zeros((7, 9), chunks=3), pad_width)


def test_crop_takes_every_form_of_pad_width():
    a = np.arange(7 * 9).reshape(7, 9)
    for w in (2, (2,), (1, 3), ((1, 3),), ((1, 2), (0, 4)), {1: (2, 3)}, {0: 1, -1: 2}):
        y = daskpad.pad(da.from_array(a, chunks=3), w, mode="symmetric")
        np.testing.assert_array_equal(daskpad.crop(y, w).compute(), a)
        np.testing.assert_array_equal(daskpad.crop(y.compute(), w).compute(), a)  # numpy in


def test_a_list_is_data_and_a_tuple_a_shape():
    np.testing.assert_array_equal(daskpad.pad_to([5], (8,)).compute(), [0, 0, 0, 5, 0, 0, 0, 0])
    np.testing.assert_array_equal(daskpad.pad_to([3], multiple=4).compute(), [0, 3, 0, 0])
    assert daskpad.widths_for((5,), (8,)) == daskpad.widths_for(np.zeros(5), (8,)) == ((1, 2),)
    assert daskpad.widths_for(np.zeros((5, 7)), np.array([8, 8])) == ((1, 2), (0, 1))


@pytest.mark.skipif(query_planning(), reason="array-expr has no boolean indexing (dask 2026.8)")
def test_unknown_chunk_sizes_are_refused_with_the_fix():
    x = da.arange(10, chunks=3)
    y = x[x > 2]
    for call in (lambda: daskpad.crop(y, 1), lambda: daskpad.pad_to(y, multiple=4)):
        with pytest.raises(ValueError, match="compute_chunk_sizes"):
            call()
