"""Graph economy at scale and output-chunk policies (graph facts, not timings)."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest
from helpers.graphfacts import (
    added_tasks,
    alias_of,
    blocks_as_computed,
    generated,
    graph_of,
    input_blocks_read,
    leaves_read,
)

import daskpad
from daskpad._compat.graphs import query_planning
from daskpad.core.registry import MODES

classic_only = pytest.mark.skipif(
    query_planning(), reason="alias counts describe classic graphs; array-expr optimises its own"
)


def _boundary_blocks(y: da.Array, x: da.Array) -> int:
    return int(np.prod(y.numblocks)) - int(np.prod(x.numblocks))


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("nchunks", [10, 100])  # 10^2 and 10^4 chunks in 2-D
def test_work_follows_the_boundary(mode, nchunks):
    x = da.zeros((nchunks * 8, nchunks * 8), chunks=8)
    kwargs = {"stat_length": 3} if MODES[mode].family == "stat" else {}
    y = daskpad.pad(x, 2, mode=mode, **kwargs)
    work, _ = added_tasks(x, y)
    boundary = _boundary_blocks(y, x)
    assert work <= 10 * boundary, (mode, work, boundary)
    # the number of boundary blocks grows like nchunks; work must not grow like nchunks^2
    assert work <= 50 * nchunks


@classic_only
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("ndim", [2, 3])
def test_interior_blocks_cost_at_most_one_alias_each(mode, ndim):
    x = da.zeros((40,) * ndim, chunks=4)  # 10^ndim chunks
    y = daskpad.pad(x, 3, mode=mode)
    graph = graph_of(y)
    interior = int(np.prod(x.numblocks))
    # a block of x away from x's edges is referenced by exactly one alias (in the output
    # layer), however many axes are padded; x's edge blocks are also read by the edge slabs
    x_keys = set(graph_of(x))
    refs: dict = {}
    for key, value in graph.items():
        target = alias_of(graph, value)
        if key not in x_keys and target in x_keys:
            refs[target] = refs.get(target, 0) + 1
    inner = [k for k in x_keys if all(0 < i < n - 1 for i, n in zip(k[1:], x.numblocks))]
    assert inner and all(refs.get(k, 0) == 1 for k in inner)
    assert sum(refs.values()) <= interior + 2 * x.ndim * int(np.prod(x.numblocks[1:]))
    assert len(graph) - len(x_keys) <= interior + 12 * _boundary_blocks(y, x)


@classic_only
@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
def test_wide_pads_add_no_more_layers_than_narrow_ones(mode):
    x = da.from_array(np.arange(60.0).reshape(6, 10), chunks=3)
    narrow = daskpad.pad(x, 2, mode=mode)
    wide = daskpad.pad(x, 45, mode=mode)  # many times the axis length
    assert len(wide.__dask_graph__().layers) <= len(narrow.__dask_graph__().layers) + 32
    np.testing.assert_array_equal(
        wide.compute(), np.pad(np.arange(60.0).reshape(6, 10), 45, mode=mode)
    )


def test_build_at_a_million_chunks_is_lazy():
    # never computed: building must not walk the 10^6 interior blocks
    x = da.zeros((10**6, 10**6), chunks=1000)
    for mode in sorted(MODES):  # statistics over the whole axis (median too)
        y = daskpad.pad(x, 16, mode=mode)
        assert y.numblocks == (1002, 1002)


@classic_only
@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_pad_side_of_many_chunks_is_built_lazily(mode):
    # a budget of one element makes pad chunks of one element: 10^5 per side, and no
    # layer lists them up front (dask's arange and map_blocks' block_info would)
    from dask.highlevelgraph import MaterializedLayer

    x = da.from_array(np.arange(10.0), chunks=1)
    with dask.config.set({"array.chunk-size": "8B"}):
        y = daskpad.pad(x, 10**5, mode=mode)
    assert y.numblocks == (2 * 10**5 + 10,)
    listed = {
        name: len(layer)
        for name, layer in y.__dask_graph__().layers.items()
        if isinstance(layer, MaterializedLayer) and isinstance(layer.mapping, dict)
    }
    assert all(n <= 1000 for n in listed.values()), listed


@classic_only
def test_whole_axis_median_reads_narrow_slabs_within_the_budget():
    data = np.random.default_rng(2).random((64, 48))
    x = da.from_array(data, chunks=(8, 12))
    with dask.config.set({"array.chunk-size": "2KiB"}):  # a whole column is 64 * 12 * 8 B
        y = daskpad.pad(x, ((3, 2), (0, 0)), mode="median")
        graph = graph_of(y)
        assert not any(str(k[0]).startswith("rechunk") for k in graph if isinstance(k, tuple))
        medians = [k for k in graph if isinstance(k, tuple) and k[0].startswith("stat_block")]
        # each median task reads one narrow slab: whole along axis 0, at most 2 KiB in all,
        # cut out of a single column of x's blocks
        assert len(medians) == 12  # 4 face blocks of 12 columns, cut into 3 slabs of 4
        reads = input_blocks_read(da.Array(y.dask, medians[0][0], ((1,), (4,) * 12), y.dtype), x)
        for blocks in reads.values():
            assert len(blocks) == 8 and len({b[1] for b in blocks}) == 1
        np.testing.assert_array_equal(y.compute(), np.pad(data, ((3, 2), (0, 0)), "median"))


@pytest.mark.parametrize("copies", [True, False])
def test_medians_of_two_axes_read_the_input_once_each_when_it_is_large(monkeypatch, copies):
    # column medians read whole columns of blocks, row medians whole rows: read from the same
    # blocks, every block would stay in memory until both were done; above COPY_ABOVE budgets
    # the row medians read a fresh copy of the input instead
    monkeypatch.setattr(daskpad.modes.statistics, "COPY_ABOVE", 0 if copies else 10**6)
    data = np.random.default_rng(3).random((30, 40))
    x = generated(data, 10)
    y = daskpad.pad(x, 2, mode="median")
    graph = graph_of(y)
    by_layer: dict[str, set] = {}
    for key in graph:
        if isinstance(key, tuple) and str(key[0]).startswith("stat_block"):
            by_layer.setdefault(key[0], set()).update(leaves_read(graph, key, "stat_block"))
    # the column medians and the row medians each read every block of the input (and the
    # row medians of the pad rows read the column medians only)
    whole = [leaves for leaves in by_layer.values() if len(leaves) >= 12]
    assert len(whole) == 2
    assert (whole[0] & whole[1] == set()) == copies
    np.testing.assert_array_equal(y.compute(), np.pad(data, 2, "median"))


@pytest.mark.parametrize("mode", [m for m in sorted(MODES) if MODES[m].views])
def test_broadcast_modes_grow_their_pad_blocks_to_the_budget_as_views(mode):
    data = np.random.default_rng(3).random((40, 30))
    x = da.from_array(data, chunks=10)
    budget = 64 * 2**10
    with dask.config.set({"array.chunk-size": budget}):
        y = daskpad.pad(x, 500, mode=mode)
    # axis 0: a face block of 10 columns takes 80 bytes a row, so the 500-row sides are
    # one block each (820 rows would fit); axis 1's face is then 500 rows: 16 columns fit
    assert y.chunks[0] == (500, 10, 10, 10, 10, 500)
    assert y.chunks[1] == (4,) + (16,) * 31 + (10, 10, 10) + (16,) * 31 + (4,)
    inside = [range(1, 5), range(32, 35)]  # the data's blocks along each axis
    for index, block in blocks_as_computed(y).items():
        assert block.nbytes <= budget
        padded = [axis for axis in (0, 1) if index[axis] not in inside[axis]]
        if not padded:
            continue
        # a pad block repeats along the axis it pads: a read-only view of one face slice
        assert not block.flags.writeable
        assert block.strides[padded[-1]] == 0, (index, block.strides)
        if len(padded) == 2 and mode not in ("empty", "median") and not query_planning():
            # a corner repeats one value: the statistic or edge of a line of earlier pads
            # is taken once, not once per repeated line (a whole-axis median wider than the
            # budget is taken on narrower face blocks, joined again by a rechunk, which
            # copies; so do array-expr's slices of the earlier pads)
            assert block.strides == (0, 0), (index, block.strides)
    out = y.compute()
    if mode != "empty":
        np.testing.assert_allclose(out, np.pad(data, 500, mode=mode), rtol=1e-14)
    assert out.flags.writeable  # what the user gets is theirs to write into


# -- output chunk policies ---------------------------------------------------------------

X = np.arange(10 * 7, dtype=float).reshape(10, 7)


def _padded(chunks, mode="reflect", budget=512):
    # a budget of 512 bytes, so that these 96-byte blocks are not far below it (rule 3)
    x = da.from_array(X, chunks=(4, 3))  # chunks ((4, 4, 2), (3, 3, 1))
    with dask.config.set({"array.chunk-size": budget}):
        return daskpad.pad(x, ((5, 2), (1, 0)), mode=mode, chunks=chunks)


def test_default_keeps_interior_chunks_and_sizes_pads_from_the_budget():
    # the 2-wide edge chunk does not cut the 5-wide pad: it gets chunks of the largest
    # input chunk, the remainder outermost
    assert _padded(None, "linear_ramp").chunks == ((1, 4, 4, 4, 2, 2), (1, 3, 3, 1))
    # modes whose pad blocks are broadcast views hold one face slice whatever their
    # length: their sides grow to the budget, here one block each
    for mode in ("constant", "empty", "edge", "maximum", "mean", "median", "minimum"):
        assert _padded(None, mode).chunks == ((5, 4, 4, 2, 2), (1, 3, 3, 1)), mode
    # blocks far below the budget (96 bytes against dask's 128 MiB) grow in whole input
    # chunks: the 5-wide side is one block in every mode
    for mode in ("reflect", "linear_ramp"):
        assert _padded(None, mode, budget="128MiB").chunks == ((5, 4, 4, 2, 2), (1, 3, 3, 1))
    # a reflection is cut where its image crosses input chunks: each block a view of one
    # (positions 0-4 take rows 5, 4 | 3, 2, 1; the last two take rows 8 | 7)
    assert _padded(None).chunks == ((2, 3, 4, 4, 2, 1, 1), (1, 3, 3, 1))


def test_merge_joins_thin_outer_slivers_to_their_neighbours():
    y = _padded("merge")
    # before: the 2-wide outer sliver joins the 3 next to it; after: the outer 1-wide pad
    # chunk is no thinner than its neighbour, so it stays
    assert y.chunks == ((5, 4, 4, 2, 1, 1), (4, 3, 1))
    # edge: the 1-wide remainder joins the full chunk next to it
    assert _padded("merge", "edge").chunks == ((5, 4, 4, 2, 2), (4, 3, 1))


def test_regular_chunks_are_equal_but_the_last():
    y = _padded("regular")
    assert y.chunks == ((4, 4, 4, 4, 1), (3, 3, 2))


def test_even_chunks_leave_no_thin_last_chunk():
    assert _padded("even").chunks == ((5, 5, 5, 2), (3, 3, 2))
    x = da.zeros((16384, 100), chunks=(2048, 100))
    y = daskpad.pad(x, 64, chunks="even")
    # "regular" would give 8 chunks of 2048 and a thin one of 128 along axis 0
    assert y.chunks == ((2064,) * 8, (114, 114))


def test_dask_chunk_forms_are_accepted():
    assert _padded(5).chunks == ((5, 5, 5, 2), (5, 3))
    assert _padded({0: 17, 1: -1}).chunks == ((17,), (8,))


@pytest.mark.parametrize("chunks", [None, "merge", "regular", "even", 3, {0: 17, 1: -1}])
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap", "mean", "linear_ramp"])
def test_every_policy_gives_numpys_values(chunks, mode):
    expected = np.pad(X, ((5, 2), (1, 0)), mode=mode)
    np.testing.assert_allclose(_padded(chunks, mode).compute(), expected, rtol=1e-14)


@classic_only
def test_regular_chunks_are_built_directly():
    # one task per output block reading the blocks it overlaps: no rechunk layers
    y = _padded("regular")
    names = {k[0].split("-")[0] for k in graph_of(y) if isinstance(k, tuple)}
    assert not any(n.startswith("rechunk") for n in names)


@classic_only
@pytest.mark.parametrize("policy", ["regular", "even", 3])
def test_each_block_is_read_whole_by_one_output_block_only(policy):
    # the other output blocks overlapping it get copies of their small parts, so a block is
    # released once the output block taking most of it has run
    from dask.core import get_dependencies

    data = np.arange(12 * 10, dtype=float).reshape(12, 10)
    x = da.from_array(data, chunks=(4, 5))
    y = daskpad.pad(x, 2, mode="reflect", chunks=policy)
    graph = graph_of(y)
    out_keys = {k for k in graph if isinstance(k, tuple) and k[0] == y.name}
    readers: dict = {}
    for key in out_keys:
        for dep in get_dependencies(graph, key):
            if isinstance(dep, tuple) and dep[0] == x.name:
                readers[dep] = readers.get(dep, 0) + 1
    assert readers and all(n == 1 for n in readers.values()), readers
    np.testing.assert_array_equal(y.compute(), np.pad(data, 2, mode="reflect"))


def test_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="chunks must be"):
        _padded("tidy")


def test_small_budget_statistics_still_match_numpy():
    data = np.random.default_rng(1).random((30, 25))
    x = da.from_array(data, chunks=(4, 5))
    with dask.config.set({"array.chunk-size": "1KiB"}):  # forces the tree reductions
        for mode in ("maximum", "minimum", "median"):
            np.testing.assert_array_equal(
                daskpad.pad(x, 3, mode=mode).compute(), np.pad(data, 3, mode=mode)
            )
        np.testing.assert_allclose(
            daskpad.pad(x, 3, mode="mean").compute(), np.pad(data, 3, mode="mean"), rtol=1e-13
        )


@classic_only
def test_the_padded_layer_ships_as_aliases_smaller_than_dask_pads_layers():
    # materialised (not fused into a consumer), the padded array's own layer is one dask
    # Alias per block, made directly; pickled as a client ships it, the pad's layers are
    # smaller than dask.array.pad's, which has twice the tasks
    import pickle

    from dask._task_spec import Alias

    def shipped(x: da.Array, y: da.Array) -> int:
        layers = [v for n, v in y.__dask_graph__().layers.items() if n not in x.dask.layers]
        return len(pickle.dumps(layers, protocol=pickle.HIGHEST_PROTOCOL))

    x = da.zeros((160, 160), chunks=4)  # 40 x 40 chunks; pad 3 is one block per side
    y = daskpad.pad(x, 3, mode="reflect")
    own = dict(y.__dask_graph__().layers[y.name])
    assert len(own) == 42 * 42 and all(type(v) is Alias for v in own.values())
    assert own[(y.name, 5, 7)].target == (x.name, 4, 6)
    # a window culls the layer to the blocks it needs, still aliases
    window = y[8:16, 0:8]
    graph = window.__dask_graph__().cull(set(dask.core.flatten(window.__dask_keys__())))
    (culled,) = [dict(v) for n, v in graph.layers.items() if n.startswith(y.name)]
    assert len(culled) == 9 and all(type(v) is Alias for v in culled.values())
    np.testing.assert_array_equal(window.compute(), np.pad(np.zeros((160, 160)), 3)[8:16, :8])
    assert shipped(x, y) < shipped(x, da.pad(x, 3, mode="reflect"))
    # the interior (40 x 40 blocks) ships as the numbers that make its aliases, and comes
    # back as the same aliases
    layer = y.__dask_graph__().layers[y.name]
    assert len(pickle.dumps(layer)) < len(pickle.dumps(own)) / 4  # 164 of 1764 blocks
    back = dict(pickle.loads(pickle.dumps(layer)))
    assert back.keys() == own.keys()
    assert all(back[k].target == v.target and back[k].key == v.key for k, v in own.items())


@classic_only
@pytest.mark.parametrize("widths", [((3, 0), (0, 5), (2, 2)), ((0, 0), (4, 0), (0, 0)), 9])
def test_the_padded_layer_ships_every_block_once(widths):
    import pickle

    data = np.arange(12 * 20 * 8.0).reshape(12, 20, 8)
    y = daskpad.pad(da.from_array(data, chunks=4), widths, mode="wrap")
    layer = y.__dask_graph__().layers[y.name]
    own = dict(layer)
    back = dict(pickle.loads(pickle.dumps(layer)))
    assert len(own) == int(np.prod(y.numblocks)) and back.keys() == own.keys()
    assert all(back[k].target == v.target for k, v in own.items())
    np.testing.assert_array_equal(y.compute(), np.pad(data, widths, mode="wrap"))
