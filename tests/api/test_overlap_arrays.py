"""``map_overlap`` over several arrays: aligned and broadcast as dask does, block i of
every array with that array's own halo; ``daskpad.dask.map_overlap`` in dask's words.
The oracle is the definition: each array padded by numpy.pad (one call per axis) with
its modes on its edge axes, ``func`` called on block i of every padded array with its
halo, the trimming array's halo and pad cut off; and dask's ``map_overlap`` where dask
has the case."""

from __future__ import annotations

import itertools

import dask.array as da
import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

import daskpad
import daskpad.dask
from daskpad._compat.graphs import query_planning
from daskpad.testing import chained_numpy_pad

#: dask's words and numpy.pad's mode for each (None: no pad at the array's edges)
DASK_WORDS = {"none": None, "reflect": "symmetric", "periodic": "wrap", "nearest": "edge"}
NUMPY_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "mean", "maximum")


def mix(*blocks):
    """The first block's neighbours (a stencil within the block), plus every other
    block's sum and size: what it returns reads each array's block and halo."""
    first = blocks[0].astype(np.float64)
    out = first.copy()
    for axis in range(first.ndim):
        out += 0.5 * np.roll(first, 1, axis) - 0.25 * np.roll(first, -1, axis)
    for k, b in enumerate(blocks[1:], 1):
        out += (k + 1) * b.sum() + 0.125 * k * b.size
    return out


def validated(y):
    if not query_planning():
        y.dask.validate()
    return y


def oracle(func, arrays, chunks, widths, pads, numpy_modes, pad_kwargs):
    """The definition, block by block: ``arrays`` (numpy) chunked as ``chunks`` (the
    first has the broadcast shape; shared axes share chunks, each at least as wide as
    the halo), array k padded by ``pads[k]`` with ``numpy_modes[k]``, block i of each
    with its halo ``widths[k]``, ``func``'s result cut by the first array's."""
    shape = arrays[0].shape
    padded = [
        chained_numpy_pad(a, p, m, **kw) if any(map(any, p)) else a
        for a, p, m, kw in zip(arrays, pads, numpy_modes, pad_kwargs)
    ]
    out = np.zeros(shape)
    starts = [np.cumsum((0, *c)) for c in chunks[0]]
    for index in itertools.product(*(range(len(c)) for c in chunks[0])):
        blocks = []
        for k, a in enumerate(arrays):
            lead = len(shape) - a.ndim
            cut = []
            for ax in range(a.ndim):
                j = index[lead + ax] if len(chunks[k][ax]) > 1 else 0
                s = int(np.sum(chunks[k][ax][:j]))
                e = s + chunks[k][ax][j]
                (hb, ha), (pb, _) = widths[k][ax], pads[k][ax]
                size = padded[k].shape[ax]
                cut.append(slice(max(0, s + pb - hb), min(size, e + pb + ha)))
            blocks.append(padded[k][tuple(cut)])
        result = func(*blocks)
        place, take = [], []
        for ax, j in enumerate(index):
            s, e = starts[ax][j], starts[ax][j + 1]
            (hb, _), (pb, _) = widths[0][ax], pads[0][ax]
            offset = (s + pb) - max(0, s + pb - hb)
            place.append(slice(s, e))
            take.append(slice(offset, offset + e - s))
        out[tuple(place)] = result[tuple(take)]
    return out


def _chunking(draw, n, least):
    """Chunks of an axis of ``n``, none narrower than ``least`` (one chunk if ``n`` is),
    with a remainder."""
    if n <= least:
        return (n,)
    c = draw(st.integers(max(least, 1), n))
    sizes = [c] * (n // c)
    rest = n - c * (n // c)
    if rest and rest < least:
        sizes[-1] += rest
    elif rest:
        sizes.append(rest)
    return tuple(sizes)


@st.composite
def cases(draw):
    """1-3 arrays: the first of the broadcast shape, the others of its trailing axes,
    each axis its length or 1; a depth (int or pair) per array and axis; per array
    dask's words per axis, or numpy's modes."""
    ndim = draw(st.integers(1, 2))
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=ndim, max_size=ndim)))
    n = draw(st.integers(1, 3))
    shapes = [shape]
    for _ in range(n - 1):
        k = draw(st.integers(1, ndim))
        shapes.append(tuple(s if draw(st.booleans()) else 1 for s in shape[ndim - k :]))
    pairs = draw(st.booleans())
    depth_entry = st.tuples(st.integers(0, 3), st.integers(0, 3)) if pairs else st.integers(0, 3)
    depths = [tuple(draw(st.lists(depth_entry, min_size=len(s), max_size=len(s)))) for s in shapes]
    widths = [tuple(d if isinstance(d, tuple) else (d, d) for d in ds) for ds in depths]
    first = []
    for ax, size in enumerate(shape):
        least = max(
            max(widths[k][ax - (ndim - len(t))])
            for k, t in enumerate(shapes)
            if ax >= ndim - len(t)
        )
        first.append(_chunking(draw, size, least))
    chunks = [tuple(first)]
    for t in shapes[1:]:
        lead = ndim - len(t)
        chunks.append(
            tuple(first[lead + ax] if n == shape[lead + ax] else (1,) for ax, n in enumerate(t))
        )
    numpy_mode = draw(st.booleans())
    words = []
    for s in shapes:
        if numpy_mode:
            words.append(tuple(draw(st.sampled_from(NUMPY_MODES)) for _ in s))
        else:
            words.append(
                tuple(draw(st.one_of(st.sampled_from(list(DASK_WORDS)), st.just(0.5))) for _ in s)
            )
    return shapes, chunks, depths, widths, numpy_mode, words


def _numpy_side(words, numpy_mode, widths):
    """Per array: numpy.pad's modes, the pad (none where dask's word is "none") and the
    constants, for the oracle."""
    modes, pads, kwargs = [], [], []
    for ws, w in zip(words, widths):
        if numpy_mode:
            modes.append(ws)
            pads.append(w)
            kwargs.append({})
            continue
        modes.append(
            tuple(
                "constant" if not isinstance(x, str) else DASK_WORDS[x] or "constant" for x in ws
            )
        )
        pads.append(tuple((0, 0) if x == "none" else p for x, p in zip(ws, w)))
        constants = {
            ax: x for ax, (x, p) in enumerate(zip(ws, w)) if not isinstance(x, str) and any(p)
        }
        kwargs.append({"constant_values": constants} if constants else {})
    return modes, pads, kwargs


def _dask_has_it(shapes, chunks, depths, numpy_mode):
    """Whether dask's map_overlap takes the case: dask's words, int depths, each no
    wider than its array's chunks."""
    return not numpy_mode and all(
        isinstance(d, int) and d <= min(c)
        for ds, cs in zip(depths, chunks)
        for d, c in zip(ds, cs)
    )


@given(cases(), st.data())
def test_several_arrays_are_func_on_block_i_of_each_padded_array(case, data):
    shapes, chunks, depths, widths, numpy_mode, words = case
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    arrays = [rng.random(s) for s in shapes]
    xs = [da.from_array(a, chunks=c) for a, c in zip(arrays, chunks)]
    edge = {"mode": list(words)} if numpy_mode else {"boundary": list(words)}
    got = daskpad.dask.map_overlap(
        mix, *xs, depth=list(depths), dtype=float, meta=np.array((), float), **edge
    )
    modes, pads, kwargs = _numpy_side(words, numpy_mode, widths)
    expected = oracle(mix, arrays, chunks, widths, pads, modes, kwargs)
    assert validated(got).chunks == chunks[0]
    np.testing.assert_allclose(got.compute(), expected)
    event(f"{len(shapes)} arrays")
    if _dask_has_it(shapes, chunks, depths, numpy_mode):
        event("against dask too")
        theirs = da.map_overlap(
            mix,
            *xs,
            depth=list(depths),
            boundary=list(words),
            dtype=float,
            meta=np.array((), float),
        )
        assert theirs.chunks == got.chunks
        np.testing.assert_allclose(got.compute(), theirs.compute())
    if numpy_mode:  # daskpad's own words: the same
        ours = daskpad.map_overlap(mix, *xs, depth=list(depths), mode=list(words), dtype=float)
        np.testing.assert_allclose(validated(ours).compute(), expected)


def test_arrays_chunked_differently_are_aligned_and_broadcast_as_dask_aligns_them():
    rng = np.random.default_rng(3)
    a, b, c = rng.random((9, 12)), rng.random(12), rng.random((9, 1))
    xs = [
        da.from_array(a, chunks=(3, 5)),
        da.from_array(b, chunks=7),
        da.from_array(c, chunks=(3, 1)),
    ]
    for boundary in (["reflect", "periodic", 0.5], "nearest", ["none", {0: "reflect"}, "none"]):
        ours = daskpad.dask.map_overlap(mix, *xs, depth=[2, 1, 1], boundary=boundary)
        theirs = da.map_overlap(mix, *xs, depth=[2, 1, 1], boundary=boundary)
        assert validated(ours).chunks == theirs.chunks
        np.testing.assert_allclose(ours.compute(), theirs.compute())


def test_depth_zero_is_map_blocks_with_no_extra_layers():
    x, y = da.ones((6, 4), chunks=2), da.ones(4, chunks=2)
    for depth in (0, [0, 0], [{0: 0}, (0,)]):
        ours = daskpad.map_overlap(np.add, x, y, depth=depth, mode="reflect")
        theirs = da.map_blocks(np.add, x, y)
        assert len(ours.__dask_graph__()) == len(theirs.__dask_graph__())
        np.testing.assert_array_equal(ours.compute(), theirs.compute())
    assert len(daskpad.dask.map_overlap(np.add, x, y).__dask_graph__()) == len(
        da.map_blocks(np.add, x, y).__dask_graph__()
    )


def test_positional_depth_and_mode_follow_the_arrays():
    a = np.arange(10.0)
    x, y = da.from_array(a, chunks=4), da.from_array(a * 2, chunks=4)
    one = daskpad.map_overlap(mix, x, 1, "reflect")
    np.testing.assert_allclose(
        one.compute(), daskpad.map_overlap(mix, x, depth=1, mode="reflect").compute()
    )
    two = daskpad.map_overlap(mix, x, y, 1, "wrap")
    np.testing.assert_allclose(
        two.compute(), daskpad.map_overlap(mix, x, y, depth=1, mode="wrap").compute()
    )
    with pytest.raises(TypeError, match="depth given by position"):
        daskpad.map_overlap(mix, x, 1, depth=1)
    with pytest.raises(TypeError, match="at most a depth and a mode"):
        daskpad.map_overlap(mix, x, 1, "wrap", True)
    with pytest.raises(TypeError, match="expected one or more arrays"):
        daskpad.map_overlap(mix, [1, 2, 3], 1)
    with pytest.raises(ValueError, match="one entry per array, 3 for 2 arrays"):
        daskpad.map_overlap(mix, x, y, depth=[1, 1, 1])


def test_dasks_words_and_refusals_and_its_deprecated_order():
    x = da.arange(5.0, chunks=5)
    with pytest.warns(FutureWarning, match="deprecated"):
        old = daskpad.dask.map_overlap(x, mix, 1, "reflect", True)
    new = daskpad.dask.map_overlap(mix, x, depth=1, boundary="reflect")
    np.testing.assert_allclose(old.compute(), new.compute())
    with pytest.raises(TypeError, match="First argument must be callable"):
        daskpad.dask.map_overlap(x, x)
    with pytest.raises(TypeError, match="All variadic arguments must be arrays"):
        daskpad.dask.map_overlap(mix, np.arange(3))
    # where dask refuses: a pair with a boundary, a depth wider than the axis
    a = np.arange(5.0)
    got = daskpad.dask.map_overlap(mix, x, depth={0: (2, 1)}, boundary="periodic")
    np.testing.assert_allclose(got.compute(), mix(np.pad(a, (2, 1), "wrap"))[2:-1])
    got = daskpad.dask.map_overlap(mix, x, depth=7, boundary="reflect")
    np.testing.assert_allclose(got.compute(), mix(np.pad(a, 7, "symmetric"))[7:-7])
    got = daskpad.dask.map_overlap(mix, x, depth=2, mode="reflect")  # numpy's
    np.testing.assert_allclose(got.compute(), mix(np.pad(a, 2, "reflect"))[2:-2])
    with pytest.raises(TypeError, match="not both"):
        daskpad.dask.map_overlap(mix, x, depth=1, boundary="reflect", mode="reflect")
