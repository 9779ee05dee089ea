"""User functions (mode=callable): passes that keep only what the function changed, and
input read again for each pass, so the array is never held whole between passes."""

from __future__ import annotations

import itertools

import dask.array as da
import numpy as np
import pytest
from helpers.graphfacts import generated, graph_of, leaves_read

import daskpad
from daskpad.modes import function as lk


def ramp(vector, iaxis_pad_width, iaxis, kwargs):
    before, after = iaxis_pad_width
    if before:
        vector[:before] = vector[before] - np.arange(before, 0, -1)
    if after:
        vector[-after:] = vector[-after - 1] + np.arange(1, after + 1)


def flip_big_lines(vector, iaxis_pad_width, iaxis, kwargs):
    """Pads, and reverses the data of lines whose first data value is above 50."""
    ramp(vector, iaxis_pad_width, iaxis, kwargs)
    before, after = iaxis_pad_width
    data = vector[before : len(vector) - after]
    if data.size and data[0] > 50:
        data[:] = data[::-1].copy()


def negate_zeros(vector, iaxis_pad_width, iaxis, kwargs):
    """0.0 becomes -0.0: equal as numbers, not as bytes, and numpy.pad keeps -0.0."""
    vector *= np.where(vector == 0, -1.0, 1.0)


def _stripe(function, blocks, widths=((2, 3), (0, 0))):
    """Pass 0 over a stripe of ``blocks`` (joined along axis 0) at face position 0."""
    return lk.function_pass(
        blocks,
        np.array([0]),
        axis=0,
        widths=widths,
        starts=((0,), (0,)),
        function=function,
        kwargs={},
        last=False,
    )


def _zero_padded(data, widths=((2, 3), (0, 0))):
    (b, a), _ = widths
    padded = np.pad(data, widths)
    return [padded[:b], padded[b : b + 4], padded[b + 4 : -a], padded[-a:]]


def test_a_pass_keeps_only_the_pads_when_the_function_writes_only_pads():
    data = np.arange(8 * 5, dtype=float).reshape(8, 5)
    changed = _stripe(ramp, _zero_padded(data))
    want = np.pad(data, ((2, 3), (0, 0)), ramp)
    assert [p.start for p in changed.pieces] == [(0, 0), (10, 0)]
    np.testing.assert_array_equal(changed.pieces[0].values, want[:2])
    np.testing.assert_array_equal(changed.pieces[1].values, want[10:])
    assert changed.nbytes == 5 * 5 * 8


@pytest.mark.parametrize("group_bytes", [1, 2**20])
def test_a_pass_keeps_the_data_lines_the_function_changed(monkeypatch, group_bytes):
    monkeypatch.setattr(lk, "GROUP_BYTES", group_bytes)  # one line per group, or one group
    data = np.arange(8 * 5, dtype=float).reshape(8, 5)
    data[0, 2:] += 100  # columns 2-4 start above 50
    changed = _stripe(flip_big_lines, _zero_padded(data))
    want = np.pad(data, ((2, 3), (0, 0)), flip_big_lines)
    out = np.zeros_like(want)
    for piece in changed.pieces:
        piece.paste(out, (0, 0))
    kept = [p for p in changed.pieces if p.start[0] == 2]
    assert sum(p.values.shape[1] for p in kept) == (3 if group_bytes == 1 else 5)
    np.testing.assert_array_equal(out[:2], want[:2])
    np.testing.assert_array_equal(out[10:], want[10:])
    np.testing.assert_array_equal(out[2:10, 2:], want[2:10, 2:])


def test_negative_zero_written_over_zero_is_a_change():
    data = np.zeros((8, 5))
    changed = _stripe(negate_zeros, _zero_padded(data))
    assert any(p.start[0] == 2 for p in changed.pieces)
    out = np.full((13, 5), 7.0)
    for piece in changed.pieces:
        piece.paste(out, (0, 0))
    assert np.signbit(out).all()


@pytest.mark.parametrize("shape, blocks", [((30, 40), 12), ((12, 10, 8), 8)])
def test_each_pass_reads_the_input_from_its_own_copy(shape, blocks):
    # pass 0 reads columns of blocks and pass 1 rows: from the same blocks, every block
    # would stay in memory until both passes were done with it (and passes 1 and 2 of a
    # 3-D array each read a copy of their own)
    data = np.random.default_rng(4).random(shape)
    x = generated(data, 10 if len(shape) == 2 else 6)
    y = daskpad.pad(x, 2, ramp)
    graph = graph_of(y)
    passes: dict[str, set] = {}
    for key in graph:
        if isinstance(key, tuple) and str(key[0]).startswith("function-pass-"):
            name = key[0].rsplit("-", 1)[0]
            passes.setdefault(name, set()).update(leaves_read(graph, key, "function-pass-"))
    assert set(passes) == {f"function-pass-{a}" for a in range(len(shape))}
    ones = [{k for k in reads if str(k[0]).startswith("ones")} for reads in passes.values()]
    assert all(len(o) == blocks for o in ones)
    for a, b in itertools.combinations(ones, 2):
        assert not a & b
    np.testing.assert_array_equal(y.compute(), np.pad(data, 2, ramp))


def test_the_last_pass_gives_the_values_and_earlier_passes_only_changes():
    data = np.arange(20 * 30, dtype=float).reshape(20, 30)
    x = da.from_array(data, chunks=(7, 8))
    y = daskpad.pad(x, ((3, 1), (2, 4)), flip_big_lines)
    np.testing.assert_array_equal(y.compute(), np.pad(data, ((3, 1), (2, 4)), flip_big_lines))


@pytest.mark.parametrize("mode", [flip_big_lines, "median"])
def test_inputs_read_twice_may_be_computed_arrays_of_any_graph(mode):
    """The copy a later pass reads works for inputs whose graphs hold computed layers (a
    range, a rechunk): dask 2026.8's own clone of those fails in its optimiser."""
    import dask

    from daskpad._compat.graphs import query_planning

    if query_planning():  # (array-expr arrays do not reshape)
        x = (da.from_array(np.arange(100.0).reshape(10, 10), chunks=(3, 10)) + 1).rechunk(5)
    else:
        x = (da.arange(100.0, chunks=10) + 1).reshape(10, 10).rechunk(5)
    a = x.compute()
    budget = "64B" if mode == "median" else "128MiB"  # (a median copies above 4 budgets)
    with dask.config.set({"array.chunk-size": budget}):
        got = daskpad.pad(x, 2, mode).compute()
    np.testing.assert_array_equal(got, np.pad(a, 2, mode))
