"""``daskpad.map_overlap`` against numpy.pad (one mode, or one per axis against numpy.pad
called once per axis), against scipy.ndimage's filters, and boundary names from other
libraries."""

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
from daskpad._compat.graphs import query_planning
from daskpad.core.boundaries import meanings, names, translate
from daskpad.core.per_axis import depth_pairs
from daskpad.strategies import chunkings, mode_kwargs, per_axis_kwargs, per_axis_modes
from daskpad.testing import chained_numpy_pad

NAMES = names()

try:
    from scipy import ndimage
except ImportError:  # (in the test extra; the other tests run without it)
    ndimage = None

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


def validated(y):
    """``y``, its graph checked by dask (classic graphs: every layer's dependencies are
    the keys its tasks read)."""
    if not query_planning():
        y.dask.validate()
    return y


def _finite(value):
    """Whether ``value`` (numpy's forms, or ``{axis: value}``) holds finite numbers only
    (the stencil of an infinite pad is NaN arithmetic, not what this checks)."""
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    try:
        return bool(np.isfinite(np.asarray(value, dtype=complex)).all())
    except (TypeError, ValueError, OverflowError):
        return True  # (a malformed value: numpy's refusal is compared)


def _draw_grid(data, longest):
    """An array's shape (1 to 3 axes, each 1 to ``longest`` long), its chunks and a halo
    (before, after) per axis."""
    ndim = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(1, longest)) for _ in range(ndim))
    chunks = data.draw(chunkings(shape))
    pairs = tuple(tuple(data.draw(st.integers(0, 4)) for _ in range(2)) for _ in range(ndim))
    return shape, chunks, pairs


def _stencil_on_padded(data, pad, shape, chunks, pairs, mode, kwargs):
    """``daskpad.map_overlap`` of :func:`stencil` against the stencil on ``pad(a, pairs,
    mode, **kwargs)`` cropped (refused where ``pad`` refuses, before anything runs): the
    result, its graph validated, or None where refused."""
    assume(all(_finite(v) for k, v in kwargs.items() if k.endswith("_values")))
    a = np.random.default_rng(data.draw(st.integers(0, 99))).random(shape)
    w = np.random.default_rng(1).random(tuple(b + f + 1 for b, f in pairs))
    before = [b for b, _ in pairs]
    depth = data.draw(st.sampled_from([pairs, dict(enumerate(pairs))]))
    x = da.from_array(a, chunks=chunks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (a mean of no elements: NaN)
        try:
            padded = pad(a, pairs, mode, **kwargs)
        except Exception as e:  # refused as numpy refuses, before anything runs
            with pytest.raises(type(e)):
                daskpad.map_overlap(stencil, x, depth, mode, weights=w, before=before, **kwargs)
            return None
        expected = stencil(padded, w, before)[
            tuple(slice(b, b + n) for (b, _), n in zip(pairs, shape))
        ]
        got = daskpad.map_overlap(stencil, x, depth, mode, weights=w, before=before, **kwargs)
        validated(got)
        np.testing.assert_allclose(got.compute(), expected, rtol=1e-12, atol=1e-12)
    return got


@given(data=st.data())
def test_map_overlap_is_the_stencil_on_numpy_pad_cropped(data):
    shape, chunks, pairs = _draw_grid(data, 9)
    mode = data.draw(st.sampled_from(MODES))
    kwargs = data.draw(mode_kwargs(mode, np.dtype("f8"), shape))
    got = _stencil_on_padded(data, np.pad, shape, chunks, pairs, mode, kwargs)
    if got is not None:
        for c, g, p in zip(chunks, got.chunks, pairs):  # x's, or joined to hold the halo
            assert g == c if min(c) >= max(p) else min(g) >= min(max(p), sum(c))


def _modes_of(mode):
    return list(mode.values()) if isinstance(mode, dict) else list(mode)


@given(data=st.data())
def test_a_mode_per_axis_is_the_stencil_on_numpy_pad_called_once_per_axis(data):
    shape, chunks, pairs = _draw_grid(data, 8)
    if data.draw(st.booleans()):  # some axes without a halo, named in mode or not
        zero = data.draw(st.sets(st.sampled_from(range(len(shape))), min_size=1))
        pairs = tuple((0, 0) if axis in zero else p for axis, p in enumerate(pairs))
    modes = per_axis_modes(len(shape), functions=False)
    mode = data.draw(modes.filter(lambda m: "empty" not in _modes_of(m)))  # (undefined)
    kwargs = data.draw(per_axis_kwargs(mode, np.dtype("f8"), shape))
    _stencil_on_padded(data, chained_numpy_pad, shape, chunks, pairs, mode, kwargs)


def scipy_filter(a, kind, mode, options):
    """scipy.ndimage's separable filter ``kind`` with ``mode`` (one per axis)."""
    return getattr(ndimage, f"{kind}_filter")(a, mode=mode, **options)


def filtered_block(block, kind, options):
    """The filter on one block with its halo (scipy's edge mode there is trimmed off)."""
    return scipy_filter(block, kind, "nearest", options)


def _scipy_word(word):
    """``word`` as boundary= takes it: alone where it means one mode, else with scipy's
    name ("scipy:reflect")."""
    return word if len(set(meanings(word).values())) == 1 else f"scipy:{word}"


@pytest.mark.skipif(ndimage is None, reason="scipy is not installed")
@given(data=st.data())
def test_scipys_filters_with_a_mode_per_axis_equal_the_filter_block_by_block(data):
    ndim = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(1, 9)) for _ in range(ndim))
    chunks = data.draw(chunkings(shape))
    words = [data.draw(st.sampled_from(sorted(NAMES["scipy"]))) for _ in range(ndim)]
    kind = data.draw(st.sampled_from(["uniform", "gaussian", "minimum", "maximum"]))
    if kind == "gaussian":  # a footprint of 2 radius + 1, the radius no wider than the axis
        radii = [data.draw(st.integers(0, min(n, 4))) for n in shape]
        sigmas = [data.draw(st.sampled_from([0.5, 1.0, 1.7])) for _ in shape]
        options = {"sigma": sigmas, "radius": radii}
        pairs = tuple((r, r) for r in radii)
    else:  # size s: s // 2 before each point, the rest after
        sizes = [data.draw(st.integers(1, min(2 * n + 1, 7))) for n in shape]
        options = {"size": sizes}
        pairs = tuple((s // 2, s - 1 - s // 2) for s in sizes)
    cval = data.draw(st.sampled_from([0.0, 1.5]))
    # (numpy.pad's keywords go by mode, not width: a constant axis with a footprint of 1,
    # no halo, takes cval as any other constant axis)
    constant = any(NAMES["scipy"][w] == "constant" for w in words)
    a = np.random.default_rng(data.draw(st.integers(0, 99))).random(shape)
    expected = scipy_filter(a, kind, words, {**options, "cval": cval})
    boundary = tuple(_scipy_word(w) for w in words)
    if data.draw(st.booleans()):
        boundary = dict(enumerate(boundary))
    kwargs = {"constant_values": cval} if constant and (cval or data.draw(st.booleans())) else {}
    x = da.from_array(a, chunks=chunks)
    got = daskpad.map_overlap(
        filtered_block, x, pairs, boundary=boundary, kind=kind, options=options, **kwargs
    )
    validated(got)
    np.testing.assert_allclose(got.compute(), expected, rtol=1e-12, atol=1e-12)


def test_a_mode_per_axis_as_a_dict_a_tuple_or_a_list():
    a = np.random.default_rng(6).random((5, 8, 6))
    x = da.from_array(a, chunks=(2, 4, 3))
    w = np.random.default_rng(7).random((3, 5, 4))
    kw = {"weights": w, "before": (1, 2, 1)}
    depth = ((1, 1), (2, 2), (1, 2))
    expected = stencil(chained_numpy_pad(a, depth, ("edge", "symmetric", "wrap")), **kw)
    expected = expected[1:-1, 2:-2, 1:-2]
    for mode in (
        ("edge", "symmetric", "wrap"),
        ["edge", "symmetric", "wrap"],
        {0: "edge", -2: "symmetric", 2: "wrap"},
    ):
        got = validated(daskpad.map_overlap(stencil, x, depth, mode, **kw))
        assert got.chunks == x.chunks
        np.testing.assert_allclose(got.compute(), expected)
    # axes a dict does not name are numpy.pad's default, "constant"
    got = daskpad.map_overlap(stencil, x, depth, {1: "symmetric", 2: "wrap"}, **kw)
    modes = ("constant", "symmetric", "wrap")
    expected = stencil(chained_numpy_pad(a, depth, modes), **kw)[1:-1, 2:-2, 1:-2]
    np.testing.assert_allclose(validated(got).compute(), expected)


def test_keywords_per_axis_go_to_the_axes_whose_mode_takes_them():
    a = np.random.default_rng(8).random((6, 5))
    x = da.from_array(a, chunks=3)
    modes = {0: "reflect", 1: "constant"}
    kwargs = {"reflect_type": {0: "odd"}, "constant_values": {1: (2.0, -1.0)}}
    got = validated(
        daskpad.map_overlap(stencil, x, 2, modes, weights=np.ones((5, 5)), before=(2, 2), **kwargs)
    )
    padded = chained_numpy_pad(a, 2, modes, **kwargs)
    np.testing.assert_allclose(got.compute(), stencil(padded, np.ones((5, 5)), (2, 2))[2:-2, 2:-2])
    # (odd reflection along axis 0, the constants of axis 1 in the corners' columns)
    np.testing.assert_allclose(padded[:, :2], 2.0)
    np.testing.assert_allclose(padded[0, 2:-2], 2 * a[0] - a[2])


@pytest.mark.parametrize(
    "edge",
    [
        {"boundary": {0: "scipy:grid-constant", 1: "scipy:reflect"}},
        {"boundary": ("scipy:grid-constant", "scipy:reflect")},
        {"mode": {0: "constant", 1: "symmetric"}},
        {"mode": ("constant", "symmetric")},
    ],
)
def test_a_keyword_of_an_axis_named_without_a_halo_is_taken(edge):
    # numpy.pad's keywords go by mode, not width: a constant axis with no halo takes its
    # constant, as a scipy filter of footprint 1 along it takes cval
    a = np.random.default_rng(9).random((5, 6))
    x = da.from_array(a, chunks=3)
    kw = {"weights": np.ones((1, 4)), "before": (0, 2)}
    got = daskpad.map_overlap(stencil, x, ((0, 0), (2, 1)), constant_values=1.5, **edge, **kw)
    padded = np.pad(np.pad(a, 0, "constant", constant_values=1.5), ((0, 0), (2, 1)), "symmetric")
    np.testing.assert_allclose(validated(got).compute(), stencil(padded, **kw)[:, 2:-1])


@pytest.mark.skipif(ndimage is None, reason="scipy is not installed")
def test_a_filter_of_footprint_1_along_its_constant_axis_takes_cval():
    a = np.random.default_rng(10).random((5, 7))
    expected = ndimage.uniform_filter(a, size=(1, 3), mode=["constant", "reflect"], cval=1.5)
    got = daskpad.map_overlap(
        filtered_block,
        da.from_array(a, chunks=3),
        (0, 1),
        boundary=("scipy:constant", "scipy:reflect"),
        constant_values=1.5,
        kind="uniform",
        options={"size": (1, 3)},
    )
    np.testing.assert_allclose(validated(got).compute(), expected)


@pytest.mark.parametrize(
    ("edge", "kwargs", "words"),
    [
        # an axis a boundary dict does not name has no halo at the array's edges
        (
            {"boundary": {1: "scipy:reflect"}},
            {"constant_values": 1.5},
            r"unsupported keyword argument constant_values: the mode of no axis named in "
            r"boundary takes it \(\{1: 'symmetric'\}; from boundary=\{1: 'scipy:reflect'\}; "
            r"axes \[0\] get no halo at the array's edges\); constant_values is for mode",
        ),
        ({"boundary": ("dask:none", "periodic")}, {"constant_values": 1.5}, "no axis named"),
        # a mode dict: an axis it does not name is "constant", counted only where padded
        (
            {"mode": {1: "symmetric"}},
            {"constant_values": 1.5},
            r"unsupported keyword argument constant_values: the mode of no axis named in mode "
            r"or padded takes it \(\{1: 'symmetric'\}; axes not named in mode are 'constant'",
        ),
        ({"mode": ("constant", "symmetric")}, {"stat_length": 1}, r"\['maximum', 'mean'"),
        (
            {"boundary": {0: "scipy:grid-constant", 1: "scipy:reflect"}},
            {"constant_values": {1: 1.5}},
            "constant_values gives a value for axis 1, whose mode 'symmetric' does not take",
        ),
    ],
)
def test_keywords_no_named_axis_takes_are_still_refused(edge, kwargs, words):
    x = da.zeros((5, 6), chunks=3)
    with pytest.raises(ValueError, match=words):
        daskpad.map_overlap(lambda b: b, x, ((0, 0), (2, 1)), **edge, **kwargs)


@pytest.mark.parametrize(
    ("boundary", "dasks"),
    [
        ({1: "dask:reflect", 2: "periodic"}, {1: "reflect", 2: "periodic"}),
        ({-2: "nearest", -1: 0.5}, {1: "nearest", 2: 0.5}),
        (("dask:none", "dask:reflect", "periodic"), ("none", "reflect", "periodic")),
        ((1.5, "nearest", "periodic"), (1.5, "nearest", "periodic")),
        ({0: "none", 1: "periodic", 2: "nearest"}, {0: "none", 1: "periodic", 2: "nearest"}),
    ],
)
def test_a_boundary_per_axis_equals_dasks(boundary, dasks):
    a = np.random.default_rng(9).random((6, 10, 13))
    x = da.from_array(a, chunks=(3, 4, 5))
    weights = np.random.default_rng(10).random((3, 3, 5))
    kw = {"weights": weights, "before": (1, 1, 2)}
    depth = (1, 1, 2)  # (an axis a dict leaves out has no halo at the edges, as in dask)
    ours = validated(daskpad.map_overlap(stencil, x, depth, boundary=boundary, **kw))
    theirs = da.map_overlap(stencil, x, depth=depth, boundary=dasks, **kw)
    np.testing.assert_allclose(ours.compute(), theirs.compute())
    assert ours.chunks == theirs.chunks
    assert len(dict(ours.__dask_graph__())) <= len(dict(theirs.__dask_graph__()))


def test_dasks_none_on_one_axis_leaves_that_axis_without_halo_at_the_edges():
    a = np.random.default_rng(11).random((10, 9))
    x = da.from_array(a, chunks=(4, 3))

    def seen(block):  # the shape of the block func was given, with its halo
        return np.broadcast_to(np.float64(block.shape[0] * 100 + block.shape[1]), block.shape)

    got = validated(daskpad.map_overlap(seen, x, 2, boundary={0: "dask:none", 1: "mirror"}))
    theirs = da.map_overlap(seen, x, depth=2, boundary={0: "none", 1: "periodic"})
    np.testing.assert_array_equal(got.compute(), theirs.compute())
    assert got.compute()[0, 0] == 6 * 100 + 7  # 4 + 2 inside, 3 + 2 + 2 with the pad
    # the other axes are padded as if the axis had no halo: numpy.pad along axis 1 alone,
    # then dask's halos with no boundary
    w = np.random.default_rng(12).random((5, 5))
    kw = {"weights": w, "before": (2, 2)}
    got = daskpad.map_overlap(stencil, x, 2, boundary={0: "dask:none", 1: "mirror"}, **kw)
    padded = da.from_array(np.pad(a, ((0, 0), (2, 2)), "reflect"), chunks=((4, 4, 2), (5, 3, 5)))
    expected = da.map_overlap(stencil, padded, depth=2, boundary="none", **kw)[:, 2:-2]
    np.testing.assert_allclose(validated(got).compute(), expected.compute())
    # its keywords are refused where only a "dask:none" axis would take them
    with pytest.raises(ValueError, match="names axis 0, which has no halo"):
        daskpad.map_overlap(
            seen, x, 2, boundary={0: "dask:none", 1: "constant"}, constant_values={0: 1}
        )


def test_numbers_per_axis_are_constants_for_their_axes():
    a = np.random.default_rng(13).random((7, 8))
    x = da.from_array(a, chunks=3)
    w = np.random.default_rng(14).random((3, 5))
    kw = {"weights": w, "before": (1, 2)}
    got = validated(daskpad.map_overlap(stencil, x, (1, 2), boundary=(1.5, "periodic"), **kw))
    same = daskpad.map_overlap(
        stencil, x, (1, 2), ("constant", "wrap"), constant_values={0: 1.5}, **kw
    )
    theirs = da.map_overlap(stencil, x, depth=(1, 2), boundary={0: 1.5, 1: "periodic"}, **kw)
    np.testing.assert_allclose(got.compute(), same.compute())
    np.testing.assert_allclose(got.compute(), theirs.compute())
    # a number on one axis, constant_values for another "constant" axis
    got = daskpad.map_overlap(stencil, x, (1, 2), boundary={0: "constant", 1: -1.0}, **kw)
    padded = chained_numpy_pad(a, ((1, 1), (2, 2)), {}, constant_values={1: -1.0})
    np.testing.assert_allclose(validated(got).compute(), stencil(padded, **kw)[1:-1, 2:-2])


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        ({"boundary": {0: "reflect", 1: "periodic"}}, ValueError, "'scipy:reflect' is mode"),
        ({"boundary": ("nearest",)}, ValueError, "1 entries, for an array of 2 dimensions"),
        ({"boundary": {0: "edges", 1: "wrap"}}, ValueError, r"boundary\[0\]='edges' is not"),
        ({"boundary": {0: None, 1: "wrap"}}, TypeError, r"boundary\[0\]: expected a name"),
        ({"boundary": {2: "wrap", 0: "wrap", 1: "wrap"}}, ValueError, "axis 2 is out of bounds"),
        ({"boundary": {"x": "wrap"}}, TypeError, "axes are integers"),
        ({"boundary": {"wrap", "nearest"}}, TypeError, "or one name or number per axis"),
        ({"boundary": (0, "wrap"), "constant_values": 1}, TypeError, "not both"),
        (
            {"boundary": {0: "dask:none", 1: "wrap"}, "constant_values": 1},
            ValueError,
            r"unsupported keyword argument constant_values: the mode of no axis named in "
            r"boundary takes it \(\{1: 'wrap'\}.*axes \[0\] get no halo.*\['constant'\]",
        ),
        (
            {"boundary": ("none", "none"), "stat_length": 1},
            ValueError,
            "no axis named in boundary",
        ),
        ({"mode": {1: "periodic"}}, ValueError, "axis 1's 'periodic' .* give numpy's 'wrap'"),
        ({"mode": ("edge", "dask:none")}, ValueError, r"boundary=\{1: 'dask:none'"),
        ({"mode": ("edge",)}, ValueError, "1 entries"),
        ({"mode": {0: "foo"}}, ValueError, "not supported"),
        ({"mode": {0: "edge"}, "boundary": {1: "wrap"}}, TypeError, "not both"),
        ({"mode": {0: "edge", 1: "wrap"}, "constant_values": 1}, ValueError, "unsupported"),
    ],
)
def test_refusals_of_a_mode_or_boundary_per_axis(arguments, error, words):
    x = da.zeros((6, 6), chunks=3)
    with pytest.raises(error, match=words):
        daskpad.map_overlap(lambda b: b, x, 1, **arguments)


@pytest.mark.parametrize(
    ("boundary", "mode"),
    [("nearest", "edge"), ("dask:reflect", "symmetric"), ("periodic", "wrap"), (0, "constant")],
)
def test_map_overlap_equals_dasks_where_dask_has_the_boundary(boundary, mode):
    a = np.random.default_rng(2).random((10, 13))
    x = da.from_array(a, chunks=(4, 5))
    weights = np.random.default_rng(3).random((3, 5))
    kw = {"weights": weights, "before": (1, 2)}
    ours = validated(daskpad.map_overlap(stencil, x, (1, 2), mode, **kw))
    theirs = da.map_overlap(
        stencil,
        x,
        depth=(1, 2),
        boundary=boundary.split(":")[-1] if isinstance(boundary, str) else boundary,
        **kw,
    )
    np.testing.assert_allclose(ours.compute(), theirs.compute())
    named = validated(daskpad.map_overlap(stencil, x, (1, 2), boundary=boundary, **kw))
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
        stencil,
        np.arange(5.0),
        depth=np.array([2]),  # (by keyword: a positional array is data)
        mode="wrap",
        weights=np.ones(5),
        before=(2,),
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
    for word in {w for table in NAMES.values() for w in table}:
        if len(set(meanings(word).values())) == 1:
            assert translate(word)[0] in meanings(word).values()
        else:
            with pytest.raises(ValueError, match="name the library"):
                translate(word)


def test_the_boundary_table_in_the_docs_is_the_one_in_the_code():
    text = (Path(__file__).parents[2] / "docs" / "boundaries.md").read_text()
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

    def computed(y):  # tasks that run (not dask's aliases of a block), as dask optimizes
        if not query_planning():  # (array-expr's graph is optimized already)
            (y,) = dask.optimize(y)  # (the halo's trim and the pad's cut fuse: one task)
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
