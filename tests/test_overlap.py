"""``daskpad.map_overlap`` against numpy.pad, and boundary names from other libraries."""

from __future__ import annotations

import itertools
import re
import warnings
from pathlib import Path

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import daskpad
from daskpad._boundaries import NAMES, meanings, translate
from daskpad._dask import query_planning
from daskpad._normalize import depth_pairs
from daskpad.strategies import chunkings, mode_kwargs

MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum")
MODES += ("reflect", "symmetric", "wrap")


def stencil(block, weights, before):
    """A weighted moving sum: out[p] = sum of weights[o] * block[p + o - before], over the
    offsets o of ``weights``; points whose window leaves the block get a partial sum (a
    halo this wide is trimmed off)."""
    out = np.zeros(block.shape, dtype=np.float64)
    for o in itertools.product(*(range(n) for n in weights.shape)):
        shift = [k - b for k, b in zip(o, before)]
        src = tuple(slice(max(s, 0), n + min(s, 0)) for s, n in zip(shift, block.shape))
        dst = tuple(slice(max(-s, 0), n - max(s, 0)) for s, n in zip(shift, block.shape))
        out[dst] += weights[o] * block[src]
    return out


def _finite(value):
    """Whether ``value`` (numpy's forms) holds finite numbers only (the stencil of an
    infinite pad is NaN arithmetic, not what this checks)."""
    try:
        return bool(np.isfinite(np.asarray(value, dtype=complex)).all())
    except (TypeError, ValueError, OverflowError):
        return True  # (a malformed value: numpy's refusal is compared)


@given(data=st.data())
def test_map_overlap_is_the_stencil_on_numpy_pad_cropped(data):
    ndim = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(1, 9)) for _ in range(ndim))
    chunks = data.draw(chunkings(shape))
    pairs = tuple(tuple(data.draw(st.integers(0, 4)) for _ in range(2)) for _ in range(ndim))
    mode = data.draw(st.sampled_from(MODES))
    kwargs = data.draw(mode_kwargs(mode, np.dtype("f8"), shape))
    assume(all(_finite(v) for k, v in kwargs.items() if k.endswith("_values")))
    a = np.random.default_rng(data.draw(st.integers(0, 99))).random(shape)
    w = np.random.default_rng(1).random(tuple(b + f + 1 for b, f in pairs))
    before = [b for b, _ in pairs]
    depth = data.draw(st.sampled_from([pairs, dict(enumerate(pairs))]))
    x = da.from_array(a, chunks=chunks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (a mean of no elements: NaN)
        try:
            padded = np.pad(a, pairs, mode, **kwargs)
        except Exception as e:  # refused as numpy refuses, before anything runs
            with pytest.raises(type(e)):
                daskpad.map_overlap(stencil, x, depth, mode, weights=w, before=before, **kwargs)
            return
        expected = stencil(padded, w, before)[
            tuple(slice(b, b + n) for (b, _), n in zip(pairs, shape))
        ]
        got = daskpad.map_overlap(stencil, x, depth, mode, weights=w, before=before, **kwargs)
        for c, g, p in zip(chunks, got.chunks, pairs):  # x's, or joined to hold the halo
            assert g == c if min(c) >= max(p) else min(g) >= min(max(p), sum(c))
        np.testing.assert_allclose(got.compute(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("boundary", "mode"),
    [("nearest", "edge"), ("dask:reflect", "symmetric"), ("periodic", "wrap"), (0, "constant")],
)
def test_map_overlap_equals_dasks_where_dask_has_the_boundary(boundary, mode):
    a = np.random.default_rng(2).random((10, 13))
    x = da.from_array(a, chunks=(4, 5))
    weights = np.random.default_rng(3).random((3, 5))
    kw = {"weights": weights, "before": (1, 2)}
    ours = daskpad.map_overlap(stencil, x, (1, 2), mode, **kw)
    theirs = da.map_overlap(
        stencil,
        x,
        depth=(1, 2),
        boundary=boundary.split(":")[-1] if isinstance(boundary, str) else boundary,
        **kw,
    )
    np.testing.assert_allclose(ours.compute(), theirs.compute())
    named = daskpad.map_overlap(stencil, x, (1, 2), boundary=boundary, **kw)
    np.testing.assert_allclose(named.compute(), theirs.compute())
    # the graph: no more tasks than dask's own
    assert len(dict(ours.__dask_graph__())) <= len(dict(theirs.__dask_graph__()))


def test_map_overlap_with_dasks_none_leaves_the_edges_without_halo():
    x = da.arange(10, chunks=4)

    def seen(block):  # the size of the block func was given, with its halo
        return np.full_like(block, block.size)

    got = daskpad.map_overlap(seen, x, 2, boundary="dask:none")
    np.testing.assert_array_equal(got.compute(), [6, 6, 6, 6, 8, 8, 8, 8, 4, 4])
    edge = daskpad.map_overlap(seen, x, 2, "edge").compute()  # the pad counts as halo
    np.testing.assert_array_equal(edge, [8, 8, 8, 8, 8, 8, 8, 8, 6, 6])


def test_drop_axis_and_new_axis_go_to_dask_and_the_pad_is_cropped_where_it_is():
    a = np.arange(24.0).reshape(4, 6)
    x = da.from_array(a, chunks=(4, 2))

    def column_sums(block):  # func reduces axis 0, whose halo is none
        return (block + np.roll(block, 1, 1) + np.roll(block, -1, 1)).sum(0)

    got = daskpad.map_overlap(column_sums, x, {1: 1}, "wrap", drop_axis=0)
    expected = column_sums(np.pad(a, ((0, 0), (1, 1)), "wrap"))[1:-1]
    np.testing.assert_allclose(got.compute(), expected)
    got = daskpad.map_overlap(lambda b: b[None], x, 1, "edge", new_axis=0)
    assert got.shape == (1, 4, 6)
    np.testing.assert_array_equal(got.compute()[0], a)


def test_chunks_narrower_than_the_halo_are_joined_as_dask_joins_them():
    x = da.arange(20, chunks=2)
    got = daskpad.map_overlap(lambda b: b, x, 3, "edge")
    theirs = da.map_overlap(lambda b: b, x, depth=3, boundary="nearest")
    assert got.chunks == theirs.chunks and min(got.chunks[0]) >= 3
    assert len(dict(got.__dask_graph__())) <= len(dict(theirs.__dask_graph__()))
    np.testing.assert_array_equal(got.compute(), np.arange(20))
    with pytest.raises(ValueError, match=re.escape("chunks ((2, 2, 2, 2, 2, 2, 2, 2, 2, 2),)")):
        daskpad.map_overlap(lambda b: b, x, 3, "edge", allow_rechunk=False)


def test_small_and_odd_inputs():
    assert daskpad.map_overlap(lambda b: b + 1, da.asarray(np.float64(2.0)), 0).compute() == 3
    got = daskpad.map_overlap(
        stencil, np.arange(5.0), np.array([2]), "wrap", weights=np.ones(5), before=(2,)
    )
    np.testing.assert_allclose(
        got.compute(), stencil(np.pad(np.arange(5.0), 2, "wrap"), np.ones(5), (2,))[2:-2]
    )
    with pytest.raises(ValueError, match="give it as boundary='periodic'"):
        daskpad.map_overlap(lambda b: b, da.zeros(4, chunks=2), 1, "periodic")


@pytest.mark.skipif(query_planning(), reason="array-expr has no boolean indexing (dask 2026.8)")
def test_unknown_chunk_sizes_are_refused_with_the_fix():
    unknown = da.arange(10, chunks=3)
    unknown = unknown[unknown > 2]
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        daskpad.map_overlap(lambda b: b, unknown, 1, "edge")


def test_map_overlap_without_trim_lets_func_cut_the_halo_off_every_side():
    a = np.random.default_rng(4).random((10, 12))  # (edge chunks wider than the halo)
    x = da.from_array(a, chunks=(4, 3))
    w = np.random.default_rng(5).random((3, 5))
    kw = {"weights": w, "before": (1, 2), "mode": "reflect"}

    def trimming(block, weights, before):
        return stencil(block, weights, before)[1:-1, 2:-2]

    got = daskpad.map_overlap(trimming, x, (1, 2), trim=False, **kw)
    assert got.chunks == x.chunks
    np.testing.assert_allclose(
        got.compute(), daskpad.map_overlap(stencil, x, (1, 2), **kw).compute()
    )


def test_a_depth_wider_than_the_chunks_and_the_axis():
    a = np.arange(5.0)
    x = da.from_array(a, chunks=2)
    w = np.ones(15)
    got = daskpad.map_overlap(stencil, x, 7, mode="symmetric", weights=w, before=(7,))
    expected = stencil(np.pad(a, 7, "symmetric"), w, (7,))[7:-7]
    np.testing.assert_allclose(got.compute(), expected)


@pytest.mark.parametrize(
    ("depth", "ndim", "pairs"),
    [
        (2, 2, ((2, 2), (2, 2))),
        ((1, 3), 2, ((1, 1), (3, 3))),
        (((1, 2), 0), 2, ((1, 2), (0, 0))),
        ({1: (0, 4)}, 2, ((0, 0), (0, 4))),
        ({-1: 1}, 3, ((0, 0), (0, 0), (1, 1))),
        (((2, 3),), 1, ((2, 3),)),
    ],
)
def test_depth_forms(depth, ndim, pairs):
    assert depth_pairs(depth, ndim) == pairs


@pytest.mark.parametrize(
    ("depth", "error", "words"),
    [
        ((1, 2, 3), ValueError, "3 entries for 2 dimensions"),
        ({2: 1}, ValueError, "out of bounds"),
        (-1, ValueError, "negative"),
        (1.5, TypeError, "expected integers"),
        (((1, 2, 3), 0), ValueError, "an int or a pair"),
    ],
)
def test_depth_refusals(depth, error, words):
    with pytest.raises(error, match=words):
        daskpad.map_overlap(lambda b: b, da.zeros((4, 4), chunks=2), depth)


def test_mode_and_boundary_together_are_refused():
    with pytest.raises(TypeError, match="not both"):
        daskpad.map_overlap(lambda b: b, da.zeros(4, chunks=2), 1, "edge", boundary="nearest")


def test_a_word_with_two_meanings_needs_its_library():
    with pytest.raises(ValueError, match=re.escape("'scipy:reflect' is mode='symmetric'")):
        translate("reflect")
    assert translate("scipy:reflect") == ("symmetric", {})
    assert translate("torch:reflect") == ("reflect", {})
    assert translate("numpy:reflect") == ("reflect", {})
    assert translate("mirror") == ("reflect", {})
    assert translate(2.5) == ("constant", {"constant_values": 2.5})
    for bad in ("edges", "scipy:periodic", "matlab:reflect"):
        with pytest.raises(ValueError):
            translate(bad)


def test_every_word_alone_means_one_mode_or_is_refused():
    for word in {w for names in NAMES.values() for w in names}:
        if len(set(meanings(word).values())) == 1:
            assert translate(word)[0] in meanings(word).values()
        else:
            with pytest.raises(ValueError, match="name the library"):
                translate(word)


def test_the_boundary_table_in_the_docs_is_the_one_in_the_code():
    text = (Path(__file__).parents[1] / "docs" / "boundaries.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    documented = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        mode = cells[0].strip("`")
        for lib, cell in zip(("numpy", "scipy", "dask", "torch"), cells[1:]):
            for word in re.findall(r"`([^`]+)`", cell):
                documented[lib, word] = None if mode == "(none)" else mode
    in_code = {(lib, w): m for lib, names in NAMES.items() for w, m in names.items()}
    assert documented == in_code


def test_map_overlap_computes_nothing_until_asked():
    def refuse(*args, **kwargs):
        raise AssertionError("map_overlap computed something while building the graph")

    x = da.from_array(np.arange(36.0).reshape(6, 6), chunks=4)
    with dask.config.set(scheduler=refuse):
        y = daskpad.map_overlap(lambda b: b, x, (1, 3), mode="mean", stat_length=2)
    np.testing.assert_array_equal(y.compute(), x.compute())


def test_the_halo_at_the_edges_costs_tasks_with_the_boundary_not_the_volume():
    from dask._task_spec import Alias, convert_legacy_graph

    def computed(y):  # tasks that compute something (not dask's aliases of a block)
        graph = convert_legacy_graph(dict(y.__dask_graph__()))
        return sum(not isinstance(node, Alias) for node in graph.values())

    added = []
    for n in (4, 8, 16):
        x = da.zeros((10 * n, 10 * n), chunks=10)
        ours = daskpad.map_overlap(lambda b: b, x, 2, "reflect")
        inside = da.map_overlap(lambda b: b, x, depth=2, boundary="none")  # halos inside only
        added.append(computed(ours) - computed(inside))
    # linear in the side n (4 n edge blocks), not in the n * n blocks
    assert added[2] - added[1] == 2 * (added[1] - added[0]) > 0
    assert added[2] <= 4 * (4 * 16)  # at most 4 tasks per edge block: its pad, its corner
