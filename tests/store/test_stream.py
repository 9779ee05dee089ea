"""Streamed writes (:mod:`daskpad.store.writing.stream`): a dask array stored in the chunks of
another grid with each of its blocks computed once and each zarr chunk written whole, once, by one
task; the values equal numpy.pad's for any chunking, width and target grid."""

from __future__ import annotations

import gc
import itertools
import math
import threading
import weakref

import dask
import dask.array as da
import numpy as np
import pytest
from helpers.counted_blocks import CountedBlocks
from hypothesis import given
from hypothesis import strategies as st

import daskpad
from daskpad._compat.graphs import query_planning
from daskpad.core import regrid as regrid_module
from daskpad.core.regrid import own_grid
from daskpad.store.planning import ownership as _ownership
from daskpad.store.writing import stream as _stream

zarr = pytest.importorskip("zarr")


class Counted:
    """An array-like that counts the reads of each of its blocks."""

    def __init__(self, a: np.ndarray):
        self.a, self.shape, self.dtype, self.ndim = a, a.shape, a.dtype, a.ndim
        self.reads: dict[tuple, int] = {}
        self.lock = threading.Lock()

    def __dask_tokenize__(self):
        return ("counted", id(self))

    def __getitem__(self, where):
        key = tuple((s.start, s.stop) for s in where)
        if any(a == b for a, b in key):
            return self.a[where]  # (dask's look at the dtype: no block)
        with self.lock:
            self.reads[key] = self.reads.get(key, 0) + 1
        return self.a[where]


class Target:
    """A zarr array that records every region written into it."""

    def __init__(self, z):
        self.z, self.shape, self.chunks, self.dtype = z, z.shape, z.chunks, z.dtype
        self.writes: list[tuple] = []
        self.lock = threading.Lock()

    def __setitem__(self, region, value):
        with self.lock:
            self.writes.append(tuple((s.start, s.stop) for s in region))
        self.z[region] = value


def chunk_regions(shape, chunks):
    axes = [[(a, min(a + c, n)) for a in range(0, n, c)] for n, c in zip(shape, chunks)]
    return sorted(itertools.product(*axes))


def sizes(n, draw):
    """Random chunk sizes summing to ``n``, often with a last chunk of 1."""
    out = []
    while sum(out) < n:
        out.append(draw(st.integers(1, n - sum(out))))
    if draw(st.booleans()) and out[-1] > 1:
        out[-1] -= 1
        out.append(1)
    return tuple(out)


def grids(data):
    """Two random chunkings of one random shape of 1-3 axes (a block grid, a chunk grid)."""
    ndim = data.draw(st.integers(1, 3))
    shape = [data.draw(st.integers(1, 30)) for _ in range(ndim)]
    return tuple(tuple(sizes(n, data.draw) for n in shape) for _ in range(2))


@given(data=st.data())
def test_streamed_write_equals_numpy_pad_and_writes_each_chunk_once(tmp_path_factory, data):
    ndim = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(1, 9)) for _ in range(ndim))
    a = np.arange(np.prod(shape), dtype="f8").reshape(shape)
    chunks = tuple(sizes(n, data.draw) for n in shape)
    widths = [tuple(data.draw(st.integers(0, 12)) for _ in range(2)) for _ in range(ndim)]
    mode = data.draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap", "mean"]))
    policy = data.draw(st.sampled_from([None, "regular"]))
    y = daskpad.pad(da.from_array(a, chunks=chunks), widths, mode=mode, chunks=policy)
    target_chunks = tuple(data.draw(st.integers(1, n + 2)) for n in y.shape)
    where = tmp_path_factory.mktemp("z")
    z = Target(zarr.create_array(where, shape=y.shape, dtype=y.dtype, chunks=target_chunks))
    dask.compute(_stream.streamed_writes(own_grid(y), z))
    np.testing.assert_array_equal(z.z[...], np.pad(a, widths, mode=mode))
    assert sorted(z.writes) == chunk_regions(y.shape, target_chunks)  # each whole, once


def _streamed(y, where, hold: int = 0, **kwargs):
    """``y`` (padded in regular chunks) stored as one streamed write, as
    :func:`daskpad.to_zarr` stores it in one computation, but holding the blocks that
    tasks far away or late read only within ``hold`` bytes (none by default: they are
    computed again)."""
    chunks = tuple(c[0] for c in y.chunks)
    z = zarr.create_array(where, shape=y.shape, dtype=y.dtype, chunks=chunks, **kwargs)
    dask.compute(_stream.streamed_writes(own_grid(y), z, hold=hold))
    return z


@pytest.mark.parametrize("mode", ["wrap", "mean", "maximum", "linear_ramp", "reflect"])
@pytest.mark.parametrize("chunks", [(4, 5), ((3, 7, 1, 12), (16, 1))])
def test_to_zarr_reads_each_block_once_where_its_budget_holds_them(tmp_path, mode, chunks):
    """In one computation whose memory budget holds the blocks that a wrapped pad, a
    statistic of the whole axis or a linear ramp read far away, every input block is read
    once: held, not read again."""
    a = np.random.default_rng(1).random((23, 17))
    source = Counted(a)
    x = da.from_array(source, chunks=chunks, lock=False)
    y = daskpad.pad(x, 3, mode=mode, chunks="regular")
    out = daskpad.to_zarr(y, tmp_path / "y.zarr")  # (the default budget: GBs)
    np.testing.assert_allclose(out[...], np.pad(a, 3, mode=mode), rtol=1e-12)
    assert len(source.reads) == math.prod(x.numblocks)
    assert set(source.reads.values()) == {1}


@pytest.mark.parametrize("mode", ["reflect", "constant", "edge", "wrap", "symmetric"])
@pytest.mark.parametrize("chunks", [(4, 5), ((3, 7, 1, 12), (16, 1))])
def test_each_input_block_is_read_once(tmp_path, mode, chunks):
    a = np.random.default_rng(1).random((23, 17))
    source = Counted(a)
    x = da.from_array(source, chunks=chunks, lock=False)
    y = daskpad.pad(x, 3, mode=mode, chunks="regular")
    out = _streamed(y, tmp_path / "y.zarr")
    np.testing.assert_array_equal(out[...], np.pad(a, 3, mode=mode))
    assert len(source.reads) == math.prod(x.numblocks)
    twice = {k for k, n in source.reads.items() if n == 2}
    if mode != "wrap":
        assert set(source.reads.values()) == {1}
    else:  # at the faces: a block a wrapped pad takes from with another (read for the pad
        # and again by its own write), or one a pad owning the first chunks reads again
        assert set(source.reads.values()) == {1, 2} and twice
        assert all(r0 == 0 or r1 == 23 or c0 == 0 or c1 == 17 for (r0, r1), (c0, c1) in twice)


@pytest.mark.parametrize("mode", ["wrap", "mean", "maximum", "linear_ramp"])
def test_one_streamed_write_holds_few_blocks_where_pads_read_far_away(tmp_path, mode):
    """A wrapped pad reads the far face, a statistic of the whole axis every block, a
    linear ramp (through numpy's check of its steps) its whole face: in one computation
    what those pads take of a block is computed by the block's own write, and nothing
    waits in memory for them."""
    n, c = 12, 8
    source = CountedBlocks()
    x = source.array(n, c)
    y = daskpad.pad(x, 3, mode, chunks="regular")
    with dask.config.set(scheduler="threads", num_workers=2):
        z = _streamed(y, tmp_path / "y.zarr", compressors=None)
    gc.collect()
    peak, made = source.peak, source.made
    np.testing.assert_allclose(z[...], np.pad(x.compute(), 3, mode), rtol=1e-6)
    assert peak <= 2 * n  # held with the blocks shared: 4 * n (wrap), n * n (mean)
    # read twice: the blocks that would own the chunks of the first row and column,
    # read again by the pads there, which own those chunks
    assert made <= n * n + 2 * n


@pytest.mark.parametrize(
    "mode, chunks, twice",
    [
        # zarr chunks of (4, 5): the pad of 3 is the larger part of the first chunks, which
        # the pads would own anyway: no block read again
        *((mode, (4, 5), set()) for mode in ("mean", "maximum", "minimum", "linear_ramp")),
        # zarr chunks of (10, 10): the first chunk along each axis holds 3 of the pad and 7
        # of the first input blocks, which would own it; only the pads that read more than
        # two blocks are late: those along axis 0 (three blocks), which read again the
        # blocks of the first row, or for a ramp those along axis 1 (a face of three)
        *((mode, (10, 10), {(0, 0), (0, 1)}) for mode in ("mean", "maximum", "minimum")),
        ("linear_ramp", (10, 10), {(0, 0), (1, 0)}),
        # zarr chunks of (12, 16): the first chunk along axis 0 holds 3 of the pad and 9 of
        # the first two input blocks (3 + 6), the one with 6 would own it
        *((mode, ((3, 7, 1, 12), (16, 1)), {(1, 0)}) for mode in ("mean", "maximum", "minimum")),
    ],
)
def test_a_whole_axis_statistic_is_taken_from_the_blocks_own_writes(tmp_path, mode, chunks, twice):
    """The partial statistics of a block (a linear ramp: the edge it starts from, whose
    steps numpy checks across the whole face) are computed inside its write, from the
    block read there: each block is read once, but for those that would own a chunk the
    pad has a part of, which the pad owns and reads them again for."""
    a = np.random.default_rng(2).random((23, 17))
    source = Counted(a)
    x = da.from_array(source, chunks=chunks, lock=False)
    y = daskpad.pad(x, 3, mode=mode, chunks="regular")
    out = _streamed(y, tmp_path / "y.zarr")
    np.testing.assert_allclose(out[...], np.pad(a, 3, mode=mode), rtol=1e-12)
    assert len(source.reads) == math.prod(x.numblocks)
    assert set(source.reads.values()) <= {1, 2}
    starts = [np.cumsum((0, *c)).tolist() for c in x.chunks]
    read_twice = {
        tuple(s.index(lo) for s, (lo, _) in zip(starts, where))
        for where, n in source.reads.items()
        if n == 2
    }
    # (dask's query planning slices a ramp's edges differently: which blocks are read
    # twice differs, at most twice each, as checked above)
    if not (mode == "linear_ramp" and query_planning()):
        assert read_twice == twice


def test_what_a_step_computes_for_late_pads_is_taken_before_its_neighbours_run(tmp_path):
    """A step's result holds the parts it hands on and what it computed for late pads
    (partial statistics): the latter are taken from it before any step waiting for it
    runs, so the parts handed on are not held until the late pads run."""
    from daskpad.store.writing.blockgraph import _inside_result

    x = da.random.random((40, 40), chunks=8)
    y = own_grid(daskpad.pad(x, 6, "mean", chunks="regular"))
    z = zarr.create_array(tmp_path, shape=y.shape, dtype=y.dtype, chunks=(8, 8))
    graph = dict(_stream.streamed_writes(y, z).__dask_graph__())
    taken: dict = {}
    for key, node in graph.items():
        if getattr(node, "func", None) is _inside_result:
            (step,) = node.dependencies
            taken.setdefault(step, set()).add(key)
    assert len(taken) == 5 * 5  # every input block's step computes its partials
    for key, node in graph.items():
        for step in node.dependencies & taken.keys():
            if key not in taken[step]:  # another step waiting for it, or the last task
                assert taken[step] <= node.dependencies
    dask.compute(_stream.streamed_writes(y, zarr.open_array(tmp_path, mode="r+")))
    np.testing.assert_allclose(z[...], np.pad(x.compute(), 6, "mean"))


def test_a_block_graph_makes_one_program():
    from daskpad.store.writing.blockgraph import BlockGraph

    graph = BlockGraph(da.ones((4, 4), chunks=2))
    graph.program([], _stream.write_owned, _stream.done, "a")
    with pytest.raises(RuntimeError, match="one program"):
        graph.program([], _stream.write_owned, _stream.done, "b")


def test_a_block_only_the_write_reads_is_read_inside_the_writing_task(tmp_path):
    x = da.from_array(Counted(np.arange(48.0).reshape(6, 8)), chunks=(3, 4), lock=False)
    z = zarr.create_array(tmp_path, shape=x.shape, dtype=x.dtype, chunks=(3, 4))
    writes = _stream.streamed_writes(x, z)
    graph = dict(writes.__dask_graph__())
    # one task per block (the read inside it), the final one, and the source array's key
    assert len(graph) == math.prod(x.numblocks) + 2
    assert sum(k[0] == x.name for k in graph if isinstance(k, tuple)) == 0
    dask.compute(writes)
    np.testing.assert_array_equal(z[...], np.arange(48.0).reshape(6, 8))


def test_each_chunk_is_owned_by_its_largest_part_and_blocks_never_wait_in_a_cycle():
    blocks = ((2, 10, 10, 2), (10, 10))  # a pad of 2 around 20 x 20 in chunks of 10
    chunks = ((10, 10, 4), (10, 10))
    jobs = {j.index: j for j in _ownership.jobs(blocks, chunks)}
    # the first pad row only hands on; each interior block writes the chunk it starts
    assert not jobs[0, 0].owned and jobs[0, 0].handed
    assert [o.chunk for o in jobs[1, 0].owned] == [(0, 0)] and jobs[1, 0].waits == ((0, 0),)
    # handed on: the edges, 2 rows of each block but the last pad's
    assert _ownership.handed_bytes(blocks, chunks, 1) == (2 + 2 + 2) * 20
    # a shift past half a chunk: each chunk owned by the block with its larger part
    shifted = ((7, 10, 10, 3),)
    axis = _ownership.Axis.of(shifted[0], (10, 10, 10))
    assert axis.owner == (0, 1, 2)  # chunk 0: 7 of block 0 and 3 of block 1
    assert _ownership.handed_bytes(shifted, ((10, 10, 10),), 1) == 3 + 3 + 3


@given(data=st.data())
def test_streamed_jobs_form_no_cycle_and_write_every_chunk_once(data):
    blocks, chunks = grids(data)
    # late blocks (pads of a whole-axis statistic) own the chunks they have a part of
    every = list(itertools.product(*(range(len(b)) for b in blocks)))
    late = data.draw(
        st.sets(st.sampled_from(every)) if data.draw(st.booleans()) else st.just(set())
    )
    jobs = {j.index: j for j in _ownership.jobs(blocks, chunks, late=late)}
    owned = sorted(o.chunk for j in jobs.values() for o in j.owned)
    assert owned == sorted(itertools.product(*(range(len(c)) for c in chunks)))
    for j in jobs.values():
        assert j.index in late or not set(j.waits) & late  # never waits for a late block
        assert not set(j.rereads) & late  # reads again only blocks that are not late
        for o in j.owned:  # each part: its own, handed on by one it waits for, or read again
            for _, source, part in o.parts:
                assert (
                    source is None
                    or (part is None and source in j.waits)
                    or (part is not None and source in j.rereads)
                )
                if part is not None and source is not None:  # read again: not handed too
                    assert o.chunk not in [c for c, _ in jobs[source].handed]
    done: set = set()
    while len(done) < len(jobs):  # some job can always run: no cycle
        ready = [i for i, j in jobs.items() if i not in done and set(j.waits) <= done]
        assert ready
        done.update(ready)


def test_a_regridded_array_carries_the_blocks_it_was_made_of():
    x = da.from_array(np.arange(100.0).reshape(10, 10), chunks=3)
    y = daskpad.pad(x, 2, mode="reflect", chunks="regular")
    own = own_grid(y)
    assert own.chunks == daskpad.pad(x, 2, mode="reflect").chunks != y.chunks
    np.testing.assert_array_equal(own.compute(), y.compute())
    assert own_grid(x) is x
    # in the array's own graph: a regrid of a regrid reads back to the first grid, and an
    # array made from the regridded one (another graph) is its own grid
    z = regrid_module.regrid(y, ((7, 7), (7, 7)))
    assert own_grid(z).chunks == own.chunks
    assert own_grid(y + 1) is not None and own_grid(y + 1).chunks == y.chunks


def test_a_padded_array_once_dropped_frees_its_input(tmp_path):
    """dask caches the classes it tokenizes: the pad's layer must not hold its input
    through a class of its own (an h5netcdf file read through s3fs, kept to the
    interpreter's exit, crashed the command there)."""
    source = Counted(np.arange(100.0).reshape(10, 10))
    alive = weakref.ref(source)
    x = da.from_array(source, chunks=3, lock=False)
    for chunks in (None, "regular"):
        y = daskpad.pad(x, 2, mode="reflect", chunks=chunks)
        dask.base.tokenize(own_grid(y))
        y.sum().compute()
    del x, y, source
    gc.collect()
    assert alive() is None


@given(data=st.data())
def test_tiles_of_chunks_write_every_chunk_once_between_them(data):
    blocks, chunks = grids(data)
    per_tile = [data.draw(st.integers(1, len(c))) for c in chunks]
    written = []
    for first in itertools.product(*(range(0, len(c), k) for c, k in zip(chunks, per_tile))):
        region = [range(f, min(f + k, len(c))) for f, k, c in zip(first, per_tile, chunks)]
        jobs = _ownership.jobs(blocks, chunks, region)
        for j in jobs:
            for o in j.owned:
                assert all(c in r for c, r in zip(o.chunk, region))
                written.append(o.chunk)
            for w in j.waits:  # every part a tile's owner needs comes from this tile's jobs
                assert w in {i.index for i in jobs}
    assert sorted(written) == sorted(itertools.product(*(range(len(c)) for c in chunks)))


@pytest.mark.parametrize(
    ("value", "fill", "sure"),
    [
        ([1.0, 0.0], 0.0, True),  # first element differs
        ([0.0, 0.0, 2.0], 0.0, True),  # last
        ([0.0, 2.0, 0.0], 0.0, False),  # only inside: zarr looks
        ([-0.0, -0.0], 0.0, False),  # zarr compares bits: its look decides
        ([np.nan, 1.0], np.nan, True),
        ([np.nan, np.nan], np.nan, False),  # NaN is NaN for zarr
        ([np.nan, np.nan], 0.0, True),
        ([3, 3], 3, False),
        ([3, 4], 3, True),
        ([True, True], False, True),
        ([1.0, 2.0], None, False),  # no fill value: zarr decides
        ([], 0.0, False),
    ],
)
def test_a_chunk_is_surely_not_fill_only_by_its_ends(value, fill, sure):
    assert _stream.not_fill(np.array(value), fill) is sure


@pytest.mark.parametrize(("fill", "constant"), [(0.0, 0.0), (np.nan, np.nan), (7.0, 7.0)])
def test_chunks_of_nothing_but_the_fill_value_are_not_stored(tmp_path, fill, constant):
    a = np.random.default_rng(5).random((10, 9)) + 1
    y = daskpad.pad(
        da.from_array(a, chunks=4), ((9, 1), (0, 8)), constant_values=constant, chunks="regular"
    )
    out = daskpad.to_zarr(y, tmp_path / "y.zarr", fill_value=fill)
    expected = np.pad(a, ((9, 1), (0, 8)), constant_values=constant)
    np.testing.assert_array_equal(out[...], expected)
    stored = sum(
        not np.all(np.isnan(expected[r]) if np.isnan(fill) else expected[r] == fill)
        for r in (tuple(slice(*b) for b in c) for c in chunk_regions(expected.shape, out.chunks))
    )
    assert 0 < out.nchunks_initialized == stored < math.prod(out.cdata_shape)


def test_chunks_with_data_at_their_ends_are_written_without_zarrs_look(tmp_path, monkeypatch):
    from zarr.core.buffer.core import NDBuffer

    looks = []
    all_equal = NDBuffer.all_equal
    monkeypatch.setattr(
        NDBuffer, "all_equal", lambda *a, **k: looks.append(1) or all_equal(*a, **k)
    )
    a = np.random.default_rng(6).random((21, 13)) + 1
    y = daskpad.pad(da.from_array(a, chunks=(8, 5)), 3, mode="reflect", chunks="regular")
    out = daskpad.to_zarr(y, tmp_path / "y.zarr")
    assert out.shape[0] % out.chunks[0] and out.shape[1] % out.chunks[1]  # thin chunks
    np.testing.assert_array_equal(out[...], np.pad(a, 3, mode="reflect"))
    assert looks == []
