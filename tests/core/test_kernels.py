"""The pure helpers under the graph builders, each against numpy or its own contract:
fill programs (numpy's rounds of reflect, symmetric and wrap, on indices), the data ranges
a window of the pad reads, and the face cuts that keep a slab of whole lines in budget."""

from __future__ import annotations

import itertools

import dask
import dask.array as da
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from daskpad.core.plan import _as_pairs
from daskpad.modes import ramp as k
from daskpad.modes.reflect import fill_program, needed_ranges, source_index
from daskpad.modes.statistics import narrow_face

COPYING = ["edge", "reflect", "symmetric", "wrap"]


def replay(program, values: np.ndarray) -> np.ndarray:
    """The padded axis made by running ``program``'s fills on ``values`` (float64) until
    every position is filled: a fill copies a position only once its sources are."""
    total = max([program.hi] + [f.stop for f in program.fills])
    out = np.full(total, np.nan)
    out[program.lo : program.hi] = values
    for _round in range(total + 1):
        for f in program.fills:
            for p in range(f.start, f.stop):
                src = f.offset if f.step == 0 else f.offset + f.step * p
                ready = not np.isnan(out[src]) and not (program.odd and np.isnan(out[f.edge]))
                if np.isnan(out[p]) and ready:
                    out[p] = 2 * out[f.edge] - out[src] if program.odd else out[src]
        if not np.isnan(out).any():
            return out
    raise AssertionError("the program leaves positions unfilled")


programs = st.tuples(
    st.sampled_from(COPYING),
    st.integers(1, 7),  # n
    st.integers(0, 40),  # before
    st.integers(0, 40),  # after
)


@given(programs)
def test_a_fill_program_is_numpys_rounds_on_indices(case):
    mode, n, before, after = case
    program = fill_program(mode, n, before, after, "even")
    want = np.pad(np.arange(n), (before, after), mode)
    got = replay(program, np.arange(n, dtype=float))
    np.testing.assert_array_equal(got, want)
    positions = np.arange(before + n + after)
    np.testing.assert_array_equal(source_index(program, positions), want)


@given(st.sampled_from(["reflect", "symmetric"]), st.integers(1, 6), st.integers(0, 30),
       st.integers(0, 30))  # fmt: skip
def test_an_odd_fill_program_is_numpys_odd_reflection(mode, n, before, after):
    data = np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0])[:n]  # small integers: exact sums
    program = fill_program(mode, n, before, after, "odd")
    want = np.pad(data, (before, after), mode, reflect_type="odd")
    np.testing.assert_array_equal(replay(program, data), want)


@given(programs, st.data())
def test_needed_ranges_are_the_data_a_window_reads(case, data):
    mode, n, before, after = case
    total = before + n + after
    start = data.draw(st.integers(0, total - 1), label="start")
    stop = data.draw(st.integers(start + 1, total), label="stop")
    program = fill_program(mode, n, before, after, "even")
    ranges = needed_ranges(program, start, stop)
    read = set(np.pad(np.arange(n), (before, after), mode)[start:stop].tolist())
    covered = {i for a, b in ranges for i in range(a, b)}
    assert covered == read
    assert all(a < b for a, b in ranges)
    assert all(b1 < a2 for (_a1, b1), (a2, _b2) in itertools.pairwise(ranges))  # disjoint


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
def test_fill_programs_and_needed_ranges_follow_the_rounds_not_the_width(mode):
    """Each round at least doubles what is filled, so a pad of 10**12 on an axis of 5 is a
    few dozen fills, and a window far out maps to its data without enumerating the pad."""
    width = 10**12
    program = fill_program(mode, 5, width, 3, "even")
    assert len(program.fills) <= 2 * (int(np.log2(width)) + 2)
    for start in (0, width // 3, width - 4):
        ranges = needed_ranges(program, start, start + 4)
        covered = {i for a, b in ranges for i in range(a, b)}
        want = set(source_index(program, np.arange(start, start + 4)).tolist())
        assert covered == want


@pytest.mark.parametrize(
    "shape, chunks, axis, budget",
    [
        ((1000, 300), (100, 300), 0, 64 * 1000 * 8),  # lines of 8 kB: 64 fit
        ((1000, 300), (100, 300), 1, 10 * 300 * 8),
        ((50, 60, 70), (10, 60, 35), 1, 6 * 60 * 8),  # two face axes cut
        ((7, 9), (7, 9), 0, 1),  # not even one line fits: cut to single lines
        ((0, 5), (0, 5), 0, 8),  # an empty axis
    ],
)
def test_narrow_face_cuts_blocks_until_a_slab_fits(shape, chunks, axis, budget):
    x = da.zeros(shape, chunks=chunks)
    with dask.config.set({"array.chunk-size": budget}):
        cut = narrow_face(x, axis)
    assert cut[axis] == x.chunks[axis]
    line = max(shape[axis], 1) * 8
    for i, (old, new) in enumerate(zip(x.chunks, cut)):
        assert sum(new) == sum(old)
        # only cuts: every old boundary is still a boundary
        assert set(np.cumsum(old).tolist()) <= set(np.cumsum(new).tolist())
        if i != axis and new:
            assert max(new) - min(new) <= max(old)  # near-equal parts
    face = int(np.prod([max(c, default=1) for i, c in enumerate(cut) if i != axis]))
    assert face * line <= budget or face == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint8, np.complex64])
@pytest.mark.parametrize("end_values", [0, (7, -2), 1e-310])
@pytest.mark.parametrize("axis", [0, 1])
def test_a_ramp_block_in_tiles_is_numpys_linear_ramp(monkeypatch, dtype, end_values, axis):
    # a few rows per tile, the last tile short: each tile computed on its own must give
    # numpy's bits, in float64 for float32 data with numpy's own (int64) end values
    monkeypatch.setattr(k, "RAMP_TILE", 3 * 40 * 16)
    rng = np.random.default_rng(axis)
    a = (rng.random((40, 40)) * 90).astype(dtype)
    a[0, 3] = a[-1, 5] = a[2, 0] = a[7, -1] = 0  # a zero step at each edge
    width = 23
    want = np.pad(
        a,
        [(width, width) if i == axis else (0, 0) for i in range(2)],
        "linear_ramp",
        end_values=end_values,
    )
    values = _as_pairs("end_values", end_values, 2)[axis]
    n = a.shape[axis]
    for side, edge, reverse in ((0, a.take([0], axis), False), (1, a.take([n - 1], axis), True)):
        flag = k.ramp_step_is_zero(edge, end_value=values[side], width=width, along=axis)
        # the side in two blocks, split unevenly
        got = np.concatenate(
            [
                k.ramp_block(
                    edge,
                    flag,
                    end_value=values[side],
                    width=width,
                    start=lo,
                    stop=hi,
                    reverse=reverse,
                    axis=axis,
                )
                for lo, hi in ((0, 9), (9, width))
            ],
            axis=axis,
        )
        where = range(width) if side == 0 else range(width + n, 2 * width + n)
        expected = want.take(list(where), axis)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
