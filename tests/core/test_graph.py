"""Graph facts: what each pad block reads, how much work a pad adds, laziness, keys, meta."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from dask._task_spec import Alias, convert_legacy_graph
from dask.core import get_dependencies
from helpers.graphfacts import added_tasks, input_blocks_read

import daskpad
from daskpad._compat.graphs import optimized_graph, query_planning
from daskpad.core.registry import MODES

N, C = 100, 10  # a 1-D array of 10 chunks of 10
LAST = N // C - 1


def _x1d() -> da.Array:
    return da.from_array(np.arange(N, dtype=float), chunks=C)


def _reads_by_region(y: da.Array, x: da.Array, before_blocks: int) -> dict[str, set]:
    reads = input_blocks_read(y, x)
    nblocks = len(y.chunks[0])
    after_start = before_blocks + len(x.chunks[0])
    region: dict[str, set] = {"before": set(), "after": set()}
    for (i,), blocks in reads.items():
        if i < before_blocks:
            region["before"] |= {b[0] for b in blocks}
        elif i >= after_start:
            region["after"] |= {b[0] for b in blocks}
        else:  # interior: exactly its own input block
            assert blocks == {(i - before_blocks,)}
    assert nblocks == after_start + (nblocks - after_start)
    return region


@pytest.mark.parametrize(
    ("mode", "kwargs", "before", "after"),
    [
        ("constant", {}, set(), set()),
        ("empty", {}, set(), set()),
        ("edge", {}, {0}, {LAST}),
        ("linear_ramp", {"end_values": 3}, {0}, {LAST}),
        ("reflect", {}, {0}, {LAST}),
        ("reflect", {"reflect_type": "odd"}, {0}, {LAST}),
        ("symmetric", {}, {0}, {LAST}),
        ("wrap", {}, {LAST}, {0}),
        ("maximum", {"stat_length": 5}, {0}, {LAST}),
        ("mean", {"stat_length": 15}, {0, 1}, {LAST - 1, LAST}),
        ("median", {"stat_length": (3, 25)}, {0}, {LAST - 2, LAST - 1, LAST}),
        ("minimum", {}, set(range(N // C)), set(range(N // C))),
    ],
)
def test_pad_blocks_read_only_the_edge_chunks_their_mode_needs(mode, kwargs, before, after):
    x = _x1d()
    y = daskpad.pad(x, (3, 4), mode=mode, **kwargs)
    region = _reads_by_region(y, x, before_blocks=1)
    assert region == {"before": before, "after": after}


def test_narrow_reflection_reads_only_the_slab_not_the_whole_edge_chunk():
    x = _x1d()
    y = daskpad.pad(x, (3, 4), mode="reflect")
    # each pad block reads the one edge chunk it maps to and cuts its slab of 3 or 4
    # elements out of it inside its own task (no task per slice, no copy of the chunk)
    assert _reads_by_region(y, x, before_blocks=1) == {"before": {0}, "after": {LAST}}
    graph = dict(y.__dask_graph__())
    if not query_planning():  # (array-expr slices in tasks of its own)
        assert not [k for k in graph if isinstance(k, tuple) and str(k[0]).startswith("getitem")]
    np.testing.assert_array_equal(y.compute(), np.pad(x.compute(), (3, 4), mode="reflect"))


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("reflect_type", ["even", "odd"])
def test_wide_pads_read_what_they_map_to(mode, reflect_type):
    kwargs = {} if mode == "wrap" else {"reflect_type": reflect_type}
    x = da.from_array(np.arange(12.0), chunks=3)  # 4 chunks
    y = daskpad.pad(x, (40, 31), mode=mode, **kwargs)
    reads = input_blocks_read(y, x)
    # every pad block reads at most a few input blocks, however wide the pad
    assert max(len(r) for r in reads.values()) <= 4
    np.testing.assert_array_equal(
        y.compute(), np.pad(np.arange(12.0), (40, 31), mode=mode, **kwargs)
    )


@pytest.mark.parametrize("mode", sorted(MODES))
def test_pad_of_one_on_100x100_chunks_adds_work_only_at_the_boundary(mode):
    x = da.zeros((1000, 1000), chunks=10)  # 100 x 100 chunks
    # (statistics over the whole axis read every block: see the test below)
    kwargs = {"stat_length": 4} if MODES[mode].family == "stat" else {}
    y = daskpad.pad(x, 1, mode=mode, **kwargs)
    work, aliases = added_tasks(x, y)
    boundary_blocks = 102 * 102 - 100 * 100  # output blocks that hold padding
    # a slice of the edge slab and a kernel per block
    # statistics: a slab slice, the statistic and its repetition over the pad
    per_block = {"stat": 3}.get(MODES[mode].family, 2)
    # (linear_ramp: + one task per side for its "any step is zero" flag, which reads the
    # side's edge slab, as numpy switches arithmetic on it)
    assert work <= per_block * boundary_blocks + 4, (mode, work)
    # the interior is passed through: at most aliases, no work per interior block
    assert aliases <= 3 * 100 * 100
    assert y.chunks == ((1,) + (10,) * 100 + (1,),) * 2


def test_zero_pad_returns_the_input_itself():
    x = _x1d()
    assert daskpad.pad(x, 0) is x
    assert daskpad.pad(x, ((0, 0),), mode="reflect") is x
    assert daskpad.pad(x, {0: 0}, mode="median") is x


@pytest.mark.parametrize("mode", sorted(MODES))
def test_same_call_gives_same_keys(mode):
    x = _x1d()
    a = daskpad.pad(x, (13, 2), mode=mode)
    b = daskpad.pad(x, (13, 2), mode=mode)
    assert a.name == b.name
    assert set(dict(a.__dask_graph__())) == set(dict(b.__dask_graph__()))
    assert daskpad.pad(x, (13, 3), mode=mode).name != a.name


def _refuse_to_compute(dsk, keys, **kwargs):
    raise AssertionError("daskpad.pad computed something while building the graph")


@pytest.mark.parametrize("mode", sorted(MODES))
def test_building_computes_nothing(mode):
    x = da.random.default_rng(0).random((30, 40), chunks=(7, 9))
    with dask.config.set(scheduler=_refuse_to_compute):
        y = daskpad.pad(x, ((3, 20), (11, 2)), mode=mode)
        assert y.shape == (53, 53)
    with (
        pytest.raises(AssertionError, match="computed something"),
        dask.config.set(scheduler=_refuse_to_compute),
    ):
        y.sum().compute()  # the fixture really does refuse


def test_user_function_builds_lazily_too():
    def ones(vector, width, iaxis, kwargs):
        vector[: width[0]] = 1

    x = da.zeros((6, 5), chunks=2)
    with dask.config.set(scheduler=_refuse_to_compute):
        y = daskpad.pad(x, 2, mode=ones)
    np.testing.assert_array_equal(y.compute(), np.pad(np.zeros((6, 5)), 2, mode=ones))


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap", "maximum", "mean"])
def test_masked_chunks_stay_masked(mode):
    data = np.ma.masked_array(np.arange(12.0).reshape(3, 4), mask=np.eye(3, 4, dtype=bool))
    x = da.from_array(data, chunks=2, asarray=False)
    y = daskpad.pad(x, 2, mode=mode)
    assert isinstance(y._meta, np.ma.MaskedArray)
    out = y.compute()
    assert isinstance(out, np.ma.MaskedArray)
    np.testing.assert_array_equal(out.shape, (7, 8))
    if mode in ("constant", "edge", "reflect", "wrap"):
        # copying modes carry data and mask alike; constants are unmasked
        np.testing.assert_array_equal(out.data, np.pad(data.data, 2, mode=mode))
        expected_mask = np.pad(data.mask, 2, mode=mode)
        np.testing.assert_array_equal(np.ma.getmaskarray(out), expected_mask)


@pytest.mark.parametrize("width", [90, 250])  # within the axis, and past it (many rounds)
def test_masked_odd_reflection_keeps_numpys_values(width):
    data = np.ma.masked_array(np.arange(200.0).reshape(2, 100), mask=False)
    data[0, 3] = np.ma.masked
    x = da.from_array(data, chunks=(2, 30), asarray=False)
    out = daskpad.pad(x, ((0, 0), (width, width)), "reflect", reflect_type="odd").compute()
    assert isinstance(out, np.ma.MaskedArray)
    want = np.pad(data.data, ((0, 0), (width, width)), "reflect", reflect_type="odd")
    kept = ~np.ma.getmaskarray(out)
    assert kept[1].all()  # the row without masked values is whole
    np.testing.assert_array_equal(out.data[kept], want[kept])


def test_unknown_chunk_sizes_are_refused_when_building():
    x = da.from_array(np.arange(10), chunks=3)
    y = x.map_blocks(lambda b: b[b > 3], chunks=((np.nan,) * 4,), dtype=x.dtype)
    with pytest.raises(ValueError, match="known chunk sizes"):
        daskpad.pad(y, 1)


@pytest.mark.parametrize(
    ("dtype", "mode", "kwargs", "error"),
    [
        ("datetime64[s]", "mean", {}, TypeError),
        ("datetime64[s]", "linear_ramp", {}, TypeError),
        ("int8", "constant", {"constant_values": 300}, OverflowError),
        ("float64", "constant", {"constant_values": "text"}, ValueError),
    ],
)
def test_dtype_errors_surface_when_building(dtype, mode, kwargs, error):
    data = np.zeros((4, 3), dtype=dtype)
    with pytest.raises(error):
        np.pad(data, 1, mode=mode, **kwargs)
    with dask.config.set(scheduler=_refuse_to_compute), pytest.raises(error):
        daskpad.pad(da.from_array(data, chunks=2), 1, mode=mode, **kwargs)


def test_numpy_input_becomes_a_lazy_dask_array():
    y = daskpad.pad(np.arange(5), 2, mode="wrap")
    assert isinstance(y, da.Array)
    np.testing.assert_array_equal(y.compute(), np.pad(np.arange(5), 2, mode="wrap"))


@pytest.mark.parametrize("mode", ["maximum", "mean", "minimum"])
def test_whole_axis_statistics_add_one_partial_task_per_block(mode):
    # they must read every block; each block is reduced on its own (so it can be released
    # at once) and one task per face block combines the partials
    x = da.zeros((1000, 1000), chunks=10)
    y = daskpad.pad(x, 1, mode=mode)
    work, _ = added_tasks(x, y)
    blocks, boundary = 100 * 100, 102 * 102 - 100 * 100
    # one task per block takes its partials along both axes at once
    assert work <= blocks + 4 * boundary, work


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
@pytest.mark.parametrize(
    "n, chunk, width", [(7, 3, 40), (12, 5, 31), (3, 2, 17), (1000, 500, 5000)]
)
def test_wide_copying_blocks_copy_whole_runs(mode, n, chunk, width):
    """A pad block much wider than the axis is copied run by run: the cuts between runs
    are exactly where the periodic map turns or enters another input chunk."""
    from daskpad.modes.reflect import _as_slice, _run_starts, fill_program, source_index

    program = fill_program(mode, n, width, 0, "even")
    d = source_index(program, np.arange(width))  # the data index each position copies
    bounds = np.arange(0, n + chunk, chunk)
    piece = np.searchsorted(bounds, d, side="right") - 1
    local = d - bounds[piece]
    starts = [*_run_starts(piece, local).tolist(), width]
    for first, lo, hi in zip([0, *starts], starts, starts[1:]):
        assert len(set(piece[lo:hi].tolist())) == 1  # a run lies in one piece ...
        assert isinstance(_as_slice(local[lo:hi]), slice)  # ... and is a slice of it
        if lo:  # ... which could not be one with the run before it
            joined = local[first:hi]
            assert piece[first] != piece[lo] or not isinstance(_as_slice(joined), slice)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float16", "float32", "complex128"])
@pytest.mark.parametrize("n, width", [(3, 5000), (4, 3001), (5, 777)])
def test_odd_reflection_far_from_a_short_axis_equals_numpy(dtype, n, width):
    """Many positions reflected through many short rounds: each round is applied to all
    its positions at once (by index), bit for bit numpy's (integers wrapping around)."""
    rng = np.random.default_rng(n)
    scale = 0.01 if dtype == "float16" else 40  # (float16: far values stay finite)
    a = rng.normal(0, scale, (n, 3)).astype(dtype)
    if dtype == "complex128":
        a = a + 1j * rng.normal(0, 1, (n, 3))
    widths = ((width, width // 3), (2, 1))
    want = np.pad(a, widths, "reflect", reflect_type="odd")
    total = want.shape[0]
    rows = (700,) * (total // 700) + ((total % 700,) if total % 700 else ())
    for chunks in ((2, 3), (n, 2)):
        x = da.from_array(a, chunks=chunks)
        for out in (None, (rows, want.shape[1])):  # the default chunks; blocks of 700
            got = daskpad.pad(x, widths, "reflect", reflect_type="odd", chunks=out).compute()
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
def test_masked_wide_pads_keep_data_and_mask(mode):
    data = np.ma.masked_array(np.arange(14.0).reshape(2, 7), mask=False)
    data[1, 2] = np.ma.masked
    x = da.from_array(data, chunks=3, asarray=False)
    out = daskpad.pad(x, 20, mode).compute()
    np.testing.assert_array_equal(out.data, np.pad(data.data, 20, mode))
    np.testing.assert_array_equal(np.ma.getmaskarray(out), np.pad(data.mask, 20, mode))


@pytest.mark.parametrize("mode", ["maximum", "mean", "minimum"])
@pytest.mark.parametrize("budget", ["2kB", "128MiB"])
def test_shared_partials_match_numpy_combined_in_one_task_or_by_a_tree(mode, budget):
    # 2kB: the partials of one face block exceed the budget, so each axis's share is picked
    # out in a step of its own and reduced by a dask tree; 128MiB: one combining task each
    a = np.random.default_rng(0).random((300, 280))
    x = da.from_array(a, chunks=10)
    with dask.config.set({"array.chunk-size": budget}):
        y = daskpad.pad(x, 3, mode)
    names = {
        str(key[0]).split("-")[0] for key in dict(y.__dask_graph__()) if isinstance(key, tuple)
    }
    assert "partials_along" in names  # both graph modes
    if not query_planning():  # (array-expr names its own tasks of dask's tree)
        assert ("pick" in names) == (budget == "2kB")
    np.testing.assert_allclose(y.compute(), np.pad(a, 3, mode), rtol=1e-12)


@pytest.mark.parametrize("mode", ["reflect", "edge", "linear_ramp", "maximum"])
def test_pad_sides_of_many_chunks_add_no_root_tasks(mode):
    """Every task of a pad side depends on input blocks: the index telling a task which
    chunk of its side it computes is passed in, not read from a root task of its own
    (dask's ordering takes seconds over thousands of roots), in both graph modes."""
    x = da.from_array(np.arange(20.0).reshape(4, 5), chunks=2)
    with dask.config.set({"array.chunk-size": "4 kiB"}):
        y = daskpad.pad(x, 500, mode)
    graph = dict(y.__dask_graph__())
    assert len(graph) > 1000  # sides of hundreds of chunks
    roots = {key for key, task in graph.items() if not get_dependencies(graph, task=task)}
    names = {key[0] if isinstance(key, tuple) else key for key in roots}
    assert names == {x.name}


@pytest.mark.skipif(query_planning(), reason="dask-expr's array graphs fuse no chains")
@pytest.mark.parametrize("mode", ["mean", "median", "maximum"])
def test_a_statistic_fuses_into_the_pad_block_made_from_it(mode):
    """Each face's statistic, the pad block repeating it and a blockwise consumer run as
    one task after dask's optimisation: no key shared by the side's tasks (such as a task
    telling each which chunk it computes) stops dask's linear fusion between them. Only
    the corners' statistics stay tasks of their own: they read pad blocks of the first
    axis, which the consumer reads too."""
    a = np.arange(1600.0).reshape(40, 40)
    y = daskpad.pad(da.from_array(a, chunks=10), 4, mode, stat_length=3).sum()
    graph, _ = optimized_graph([y])
    names = [
        str(key[0] if isinstance(key, tuple) else key)
        for key, task in convert_legacy_graph(dict(graph)).items()
        if not isinstance(task, Alias)
    ]
    fused = [n for n in names if "stat_block" in n and "repeat_block" in n]
    alone = [n for n in names if "stat_block" in n and "repeat_block" not in n]
    assert len(fused) == 16  # 4 faces on each of 4 sides
    assert len(alone) == 4  # 2 corners on each side of the second axis
    np.testing.assert_allclose(y.compute(), np.pad(a, 4, mode, stat_length=3).sum())
