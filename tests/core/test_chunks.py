"""Output chunks follow from sizes and the budget, for every chunking users have (graph
facts, not timings): remainder chunks of one element, edge chunks narrower than the pad,
pads wider than the axis and many times wider than the array."""

from __future__ import annotations

import itertools
import math

import dask
import dask.array as da
import numpy as np
import pytest
from helpers.graphfacts import input_blocks_read

import daskpad
from daskpad._compat.graphs import query_planning
from daskpad.core.chunks import (
    AFTER,
    BEFORE,
    GROW_AFTER,
    MAX_BLOCKS,
    chunk_budget,
    pad_chunk_count,
    pad_chunk_size,
    pad_chunks,
    pad_layout,
    thin_cuts,
)
from daskpad.core.registry import MODES
from daskpad.testing import assert_pad_matches_numpy

ALL_MODES = sorted(MODES)
COPYING = [("edge", {}), ("wrap", {})] + [
    (mode, {"reflect_type": t}) for mode in ("reflect", "symmetric") for t in ("even", "odd")
]
CONSTANT_PER_SIDE = ["constant", "edge", "maximum", "mean", "median", "minimum"]


def largest_block_nbytes(y: da.Array) -> int:
    return math.prod(max(c, default=0) for c in y.chunks) * y.dtype.itemsize


def nblocks(y: da.Array) -> int:
    return math.prod(y.numblocks)


def peer_blocks(x: da.Array, widths) -> int:
    """Blocks of dask.array.pad's result: one more chunk on each padded side."""
    return math.prod(len(c) + (b > 0) + (a > 0) for c, (b, a) in zip(x.chunks, widths))


# -- the rule, on its own ----------------------------------------------------------------


def test_pad_chunks_put_the_remainder_outermost():
    assert pad_chunks(10, BEFORE, 4) == (2, 4, 4)
    assert pad_chunks(10, AFTER, 4) == (4, 4, 2)
    assert pad_chunks(8, BEFORE, 4) == (4, 4)
    assert pad_chunks(3, AFTER, 4) == (3,)
    assert pad_chunks(0, BEFORE, 4) == ()


def test_pad_chunks_cut_at_the_output_chunks_boundaries():
    assert pad_chunks(10, BEFORE, 4, cuts=[3, 7]) == (3, 4, 3)
    # a piece larger than the size is cut into near-equal parts no larger
    assert pad_chunks(10, AFTER, 3, cuts=[8]) == (3, 3, 2, 2)
    for width, size, cuts in [(10, 4, [3, 7]), (10, 3, [8]), (7, 2, []), (7, 2, None)]:
        assert pad_chunk_count(width, size, cuts) == len(pad_chunks(width, BEFORE, size, cuts))


@pytest.mark.parametrize("budget", [2**10, 2**20, 2**27])
@pytest.mark.parametrize("base", [1, 2, 333, 4096])
@pytest.mark.parametrize("face_bytes", [8, 2664, 2**15, 2**22])
@pytest.mark.parametrize("views", [False, True])
def test_pad_chunk_size_stays_within_the_budget_and_grows_tiny_blocks_of_wide_sides(
    budget, base, face_bytes, views
):
    eighth = budget // 8
    for width in (base, base + 1, base * GROW_AFTER, 10**9):
        size = pad_chunk_size(base, face_bytes, budget, width=width, views=views)
        assert size >= 1
        if face_bytes <= budget:
            assert size * face_bytes <= budget  # never larger than the budget
        if base * face_bytes > budget:
            continue  # capped (above)
        if views:
            assert (size + 1) * face_bytes > budget  # broadcast views: all the budget
            continue
        assert size % base == 0  # never smaller than the input chunk, grown in whole ones
        if width <= base or base * face_bytes * 8 >= budget:
            assert size == base  # one chunk wide, or not far below the budget: kept
        elif -(-width // size) <= GROW_AFTER and size > base:
            # grown to an eighth of the budget, as far as whole input chunks go
            assert size * face_bytes <= eighth < (size + base) * face_bytes
        elif size > base:
            # a side that would still hold many chunks: to the whole budget
            assert size * face_bytes <= budget < (size + base) * face_bytes


def test_a_side_grows_to_an_eighth_of_the_budget_or_all_of_it_when_still_many():
    budget = 2**20
    assert pad_chunk_size(10, 8, budget, width=10) == 10  # no wider than the chunk
    # 80 bytes a chunk, far below 1 MiB: an eighth of it is 1638 chunks of 10
    assert pad_chunk_size(10, 8, budget, width=11) == 16380
    assert pad_chunk_size(10, 8, budget, width=16 * 16380) == 16380
    assert pad_chunk_size(10, 8, budget, width=16 * 16380 + 1) == 131070  # all of it
    # 10 elements of a 16 KiB face make 160 KiB, more than an eighth of 1 MiB: kept
    assert pad_chunk_size(10, 2**14, budget, width=10**6) == 10


@pytest.mark.parametrize("own", [8, 2664, 2**15])
@pytest.mark.parametrize("times", [1, 3, 6, 40])
def test_a_side_grows_beside_the_inputs_face_its_widest_block_within_half_the_budget(own, times):
    budget, base = 2**27, 500
    face = own * times  # the earlier axes' pads make the widest face ``times`` as wide
    for width in (501, 3000, 8000):
        size = pad_chunk_size(base, face, budget, width=width, input_face_bytes=own)
        assert size * face <= budget
        if base * face > budget:
            assert size == budget // face  # capped (rule 2)
        elif base * own * 8 >= budget:
            assert size == base  # not far below the budget beside the input's face: kept
        elif -(-width // size) <= GROW_AFTER and size > base:
            assert size % base == 0  # in whole input chunks
            assert size * own <= budget // 8  # an eighth beside the input's face ...
            assert size * face <= budget // 2  # ... the widest block within half of it
            assert (size + base) * own > budget // 8 or (size + base) * face > budget // 2


@pytest.mark.parametrize(
    "side, chunk, width, axis1",
    [
        # 12000 x 12000 float32 in 1 MB chunks, pad 3000: each side of axis 1 is one block,
        # 6 MB beside the input and 36 MB at the corners (an eighth would cut it in 1000s)
        (12_000, 500, 3_000, (3000,)),
        # 1000 x 1000, pad 5000: the corners of 5000 rows stop axis 1 at half the budget
        (1_000, 500, 5_000, (2000, 3000)),
    ],
)
def test_wide_sides_of_a_2d_array_in_1mb_chunks(side, chunk, width, axis1):
    x = da.zeros((side, side), chunks=chunk, dtype=np.float32)
    with dask.config.set({"array.chunk-size": "128MiB"}):
        y = daskpad.pad(x, width, "reflect")
    assert y.chunks[1][: len(axis1)] == axis1
    assert y.chunks[1][-len(axis1) :] == axis1[::-1]
    assert y.chunks[0][0] == width  # axis 0: one block of the side, 10 MB at most


def test_thin_cuts_joins_short_pieces_only_within_the_size():
    assert thin_cuts([1, 501, 1001], 1500, least=125, most=500) == [1, 501, 1001]
    assert thin_cuts([99], 100, least=83, most=333) == []
    assert thin_cuts([], 10, least=2, most=5) == []


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
@pytest.mark.parametrize(
    "shape, chunks, width",
    [
        ((6000,), 500, 1500),
        ((1000,), 333, 256),
        ((1000,), (1, 333, 333, 332, 1), 100),
        ((11,), 3, 40),
        ((7,), (2, 5), 30),
    ],
)
def test_copying_modes_cut_their_sides_into_views_of_one_input_block(mode, shape, chunks, width):
    x = da.from_array(np.arange(shape[0]), chunks=chunks)
    y = daskpad.pad(x, width, mode)
    index = np.pad(np.arange(shape[0]), width, mode)  # the input index of each position
    starts = np.cumsum((0, *x.chunks[0]))
    bounds = np.cumsum((0, *y.chunks[0]))
    views = 0
    for lo, hi in itertools.pairwise(bounds):
        if width <= lo < hi <= width + shape[0]:
            continue  # interior
        block = np.searchsorted(starts, index[lo:hi], side="right") - 1
        steps = np.diff(index[lo:hi])
        if len(set(block.tolist())) == 1 and (np.all(steps == 1) or np.all(steps == -1)):
            views += 1
    pad_blocks = len(y.chunks[0]) - len(x.chunks[0])
    # every pad block is one run of one input block, but where a short piece was joined
    assert views >= pad_blocks - 2
    assert_pad_matches_numpy(x, width, mode)


# -- real chunkings ----------------------------------------------------------------------

CHUNKINGS = {
    "1000/333, last chunk 1": ((1000, 1000), (333, 333), 256),
    "721/360": ((721, 1440), (360, 360), 64),
    "1-element chunks at both ends": ((1000, 500), ((1, 333, 333, 332, 1), (1, 498, 1)), 100),
    "3-D with remainders": ((100, 201, 150), (33, 50, 49), 20),
    "pad wider than the array": ((4, 5), (2, 2), 1000),
}


@pytest.mark.parametrize("case", CHUNKINGS)
@pytest.mark.parametrize("mode", ALL_MODES)
def test_default_chunks_do_not_follow_a_thin_edge_chunk(case, mode):
    shape, chunks, width = CHUNKINGS[case]
    x = da.zeros(shape, chunks=chunks)
    y = daskpad.pad(x, width, mode=mode)
    widths = [(width, width)] * x.ndim
    out_bytes = math.prod(y.shape) * y.dtype.itemsize
    assert nblocks(y) <= 2 * max(peer_blocks(x, widths), -(-out_bytes // chunk_budget()))
    assert largest_block_nbytes(y) <= chunk_budget()
    # the interior chunks are the input's
    for axis, c in enumerate(x.chunks):
        nb = len(y.chunks[axis]) - len(c)
        assert y.chunks[axis][nb // 2 : nb // 2 + len(c)] == c


def test_the_1000_by_333_case_gets_the_peers_blocks():
    x = da.zeros((1000, 1000), chunks=333)
    y = daskpad.pad(x, 256, mode="reflect")
    assert y.chunks == ((256, 333, 333, 333, 1, 256),) * 2
    assert (
        daskpad.pad(x, 256, mode="reflect", chunks="regular").chunks
        == ((333, 333, 333, 333, 180),) * 2
    )


@pytest.mark.parametrize("policy", ["regular", "even", 100, "auto"])
@pytest.mark.parametrize("case", CHUNKINGS)
def test_policies_build_no_finer_grid_than_their_own(policy, case):
    # the pad sides are cut at the output chunks' boundaries: the grid an output block is
    # assembled from has at most the output's blocks plus the input's and one sliver per side
    shape, chunks, width = CHUNKINGS[case]
    x = da.zeros(shape, chunks=chunks)
    widths = [(width, width)] * x.ndim
    target = daskpad.pad(x, width, mode="wrap", chunks=policy).chunks
    layout = pad_layout(x.chunks, x.dtype.itemsize, widths, target)
    for axis, (before, after) in enumerate(layout):
        assert len(before) + len(after) <= len(target[axis]) + 2


@pytest.mark.parametrize("mode", ALL_MODES)
def test_every_block_stays_within_a_small_budget(mode):
    data = np.random.default_rng(0).random((40, 30))
    x = da.from_array(data, chunks=(7, 30))  # a row of 30 float64: 240 bytes
    with dask.config.set({"array.chunk-size": "4KiB"}):
        y = daskpad.pad(x, ((90, 3), (5, 70)), mode=mode)
        assert largest_block_nbytes(y) <= 4096
        assert_pad_matches_numpy(data, (7, 30), ((90, 3), (5, 70)), mode)


# -- widths of any size --------------------------------------------------------------------


@pytest.mark.parametrize("mode", ALL_MODES)
def test_a_pad_of_10_to_the_12_builds_from_sizes(mode):
    x = da.from_array(np.arange(5.0), chunks=2)
    y = daskpad.pad(x, 10**12, mode=mode)
    assert y.shape == (2 * 10**12 + 5,)
    assert largest_block_nbytes(y) <= chunk_budget()
    assert nblocks(y) <= 2 * -(-(2 * 10**12 * 8) // chunk_budget()) + 3


@pytest.mark.parametrize(("mode", "kwargs"), [*COPYING, ("constant", {"constant_values": 7})])
def test_a_window_of_a_wide_pad_reads_only_what_it_maps_to(mode, kwargs):
    data = np.arange(12.0) ** 2
    x = da.from_array(data, chunks=5)  # chunks (5, 5, 2)
    w = 10**9 + 3
    with dask.config.set({"array.chunk-size": "16MiB"}):  # smaller blocks: a quicker test
        y = daskpad.pad(x, w, mode=mode, **kwargs)
    window = y[w - 20 : w + 3]  # the inner end of the before side and the data's start
    period = {"wrap": 12, "reflect": 22, "symmetric": 24}.get(mode, 1)
    small = 30 + (w - 30) % period  # the same phase, a small width
    if kwargs.get("reflect_type") == "odd":
        # odd reflection climbs, round by round; the 20 positions next to the data come
        # from numpy's first two rounds, the same for every width of 100 or more
        small = 100
    want = np.pad(data, small, mode=mode, **kwargs)[small - 20 : small + 3]
    np.testing.assert_array_equal(window.compute(), want)
    reads = set().union(*input_blocks_read(window, x).values())
    assert len(reads) <= 3


@pytest.mark.parametrize("mode", ALL_MODES)
def test_too_many_blocks_are_refused_when_building(mode):
    x = da.from_array(np.arange(10.0), chunks=1)
    with pytest.raises(ValueError, match=r"padding by 10\*\*9|1000000000") as info:
        daskpad.pad(x, 10**9, mode=mode, chunks=1)
    message = str(info.value)
    assert "(2000000010,)" in message and "2,000,000,010" in message
    assert f"{MAX_BLOCKS:,}" in message
    with (
        dask.config.set({"array.chunk-size": "8B"}),
        pytest.raises(ValueError, match="more than daskpad builds"),
    ):
        daskpad.pad(x, 10**9, mode=mode)
    with pytest.raises(ValueError, match="more than daskpad builds"):
        daskpad.pad(da.zeros((10**5, 10**5), chunks=100), 10**6, mode=mode, chunks="regular")


def _linear_window(a, w, mode, kwargs, rows, cols):
    """numpy.pad(a, w, mode)[rows, cols] for a copying mode, which is linear in the data:
    ``M0 @ a @ M1.T`` with each axis's padding of the identity (only the rows needed)."""
    m = [
        np.pad(np.eye(n, dtype=np.int64), ((w, w), (0, 0)), mode=mode, **kwargs)[idx]
        for n, idx in zip(a.shape, (rows, cols))
    ]
    return m[0] @ a @ m[1].T


def _regional_window(a, w, mode, rows, cols):
    """numpy.pad(a, w, mode)[rows, cols] for a mode whose pad is constant per region."""
    small = np.pad(a, 3, mode=mode)

    def shrink(p, n):
        return np.where(p < w, 0, np.where(p < w + n, 3 + p - w, 3 + n + 2))

    return small[np.ix_(shrink(rows, a.shape[0]), shrink(cols, a.shape[1]))]


@pytest.mark.skipif(
    query_planning(),
    reason="dask's array-expr materialises every block of the padded grid (80,000 here) to "
    "slice a window out of it; classic graphs cull to the window's blocks",
)
@pytest.mark.parametrize(("mode", "kwargs"), [*COPYING, *[(m, {}) for m in CONSTANT_PER_SIDE]])
def test_small_windows_of_a_pad_far_wider_than_the_array_equal_numpy(mode, kwargs):
    # a 4 x 5 array padded by 2 * 10**4 on each side: 40004 x 40005 (12.8 GB as float64)
    a = np.arange(20, dtype=np.int64).reshape(4, 5)
    w = 2 * 10**4
    with dask.config.set({"array.chunk-size": "1MiB"}):
        y = daskpad.pad(da.from_array(a, chunks=2), w, mode=mode, **kwargs)
        assert largest_block_nbytes(y) <= 2**20
        for rows, cols in [
            (np.arange(0, 3), np.arange(0, 4)),
            (np.arange(2 * w + 1, 2 * w + 4), np.arange(2 * w + 2, 2 * w + 5)),
            (np.arange(w - 2, w + 6), np.arange(w - 3, w + 7)),
            (np.arange(w // 2, w // 2 + 2), np.arange(w + 1, w + 3)),
        ]:
            got = y[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1].compute()
            if mode in CONSTANT_PER_SIDE:
                want = _regional_window(a, w, mode, rows, cols)
            else:
                want = _linear_window(a, w, mode, kwargs, rows, cols)
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("chunks", ["auto", {1: "auto"}, ("auto", 5, "auto", -1)])
def test_auto_chunks_of_an_empty_result(chunks):
    # dask cannot size "auto" chunks of an array with no elements (it divides by the
    # size of an empty block); every chunking of nothing holds the same nothing
    a = np.zeros((3, 9, 0, 0))
    widths = ((0, 0), (15, 40), (0, 0), (0, 0))
    x = da.from_array(a, chunks=((1, 1, 1), (9,), (0,), (0,)))
    y = daskpad.pad(x, widths, mode="edge", chunks=chunks)
    np.testing.assert_array_equal(y.compute(), np.pad(a, widths, mode="edge"))


@pytest.mark.parametrize("mode", ["reflect", "constant", "mean"])
def test_output_chunks_take_dasks_tasks_whatever_rechunk_method_says(mode):
    """``array.rechunk.method: p2p`` (a cluster's shuffle) is a user's setting for their
    own rechunks: the pad's output chunks are laid out by tasks all the same."""
    with dask.config.set({"array.rechunk.method": "p2p"}):
        assert_pad_matches_numpy(np.arange(100), 7, 5, mode, out_chunks="regular")
