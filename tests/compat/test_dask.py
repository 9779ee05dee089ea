"""The door to dask's internals (daskpad._compat.graphs): each primitive in both of dask's graph
modes (the suite runs under each), and no other module reaching past it."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
from pathlib import Path

import dask
import dask.array as da
import numpy as np
import pytest
from dask._task_spec import Alias
from helpers import graphfacts

import daskpad
from daskpad._compat import graphs as _dask
from daskpad._compat import lazy_layers as _lazy
from daskpad._compat import schedulers
from daskpad._compat.tasks import Task, TaskRef, dependencies, parse_input, task_runs

PRIVATE = re.compile(
    r"dask\._|dask\.highlevelgraph|dask\.layers|_array_expr|dask\.graph_manipulation|"
    r"dask\.callbacks|dask\.delayed|dask\.core\b|collections_to_expr|convert_legacy_graph|"
    r"HighLevelGraph|MaterializedLayer|_task_spec|get_scheduler|dask_worker\.state"
)


def test_only_the_door_uses_dask_internals():
    package = Path(daskpad.__file__).parent
    reaching = {
        f"{path.name}:{n}: {line.strip()}"
        for path in package.glob("*.py")
        if path.name != "_dask.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if PRIVATE.search(line) and not line.lstrip().startswith("#")
    }
    assert not reaching


classic_only = pytest.mark.skipif(
    _dask.query_planning(),
    reason="lazy layers are for classic graphs (daskpad builds "
    "array-expr graphs from public expressions)",
)


@classic_only
def test_lazy_array_makes_tasks_only_when_the_graph_is_read():
    made = []

    def make(index):
        made.append(index)
        return _dask.task(("lazy-a", *index), np.full, (2, 3), index[0] * 10 + index[1])

    y = _lazy.lazy_array("lazy-a", ((2, 2), (3, 3, 3)), make, [], np.empty((0, 0)))
    assert y.chunks == ((2, 2), (3, 3, 3)) and not made
    np.testing.assert_array_equal(y.blocks[1, 2].compute(), np.full((2, 3), 12))
    assert (1, 2) in made


@classic_only
@pytest.mark.parametrize("form", ["tuple", "task"])
@pytest.mark.parametrize("then", ["sum", "negative"])
def test_a_lazy_layer_makes_each_task_once_when_its_graph_is_optimised(form, then):
    # dask's generic cull asks a layer for each key three times (has it, its task, the
    # task's dependencies), and before it asks every layer whether it holds tasks in the
    # tuple form, looking at each task (a sum's last layer answers first: a negative has
    # none that could); a layer of tasks made on demand makes each task it keeps once
    x = da.arange(12, chunks=3)
    made = []

    def make(index):
        made.append(index)
        if form == "tuple":  # dask's tuple form, reading another layer's key
            return (np.negative, (x.name, index[0]))
        return _dask.task(("lazy-once", *index), np.full, 3, index[0])

    y = _lazy.lazy_array("lazy-once", ((3,) * 4,), make, [x], x._meta)
    assert not made
    _dask.optimized_graph([getattr(np, then)(y[3:9])])
    assert sorted(made) == [(1,), (2,)]
    want = -np.arange(3, 9) if form == "tuple" else np.repeat([1, 2], 3)
    np.testing.assert_array_equal(y[3:9].compute(), want)


@classic_only
def test_picked_array_picks_blocks_and_fuses_with_its_consumer():
    x = da.arange(12, chunks=3) * 10
    order = (3, 0, 2, 1, 1, 2, 0, 3)  # every block of x picked twice
    y = _dask.picked_array(
        "picked-a", ((3,) * 8,), source=lambda i: (x.name, order[i[0]]), dependencies=[x], meta=x
    )
    blocks = np.arange(12).reshape(4, 3) * 10
    np.testing.assert_array_equal(y.compute(), np.concatenate([blocks[i] for i in order]))
    np.testing.assert_array_equal(y[4:8].compute(), blocks[[0, 2]].ravel()[1:5])
    dsk, _ = _dask.optimized_graph([y + 1])
    # y + 1: each block's alias fused with its consumer's task (one subgraph, not nested);
    # no picked key is left to run as a task of its own
    assert not [k for k in dsk if k[0] == "picked-a"]
    assert graphfacts.deepest_nesting(y + 1) == 1


@classic_only
@pytest.mark.parametrize("shifted", [False, True])
def test_a_picked_layer_makes_only_the_aliases_asked_for(shifted):
    x = da.arange(12, chunks=3) * 10
    order = (3, 0, 0, 1, 2, 3)  # x's blocks 0..3 at 2..5 (shifted by 2), two more before
    y = _dask.picked_array(
        "picked-b",
        ((3,) * 6,),
        source=lambda i: (x.name, order[i[0]]),
        dependencies=[x],
        meta=x,
        shifted=_dask.Shifted(x.name, (2,), (6,)) if shifted else None,
    )
    layer = y.dask.layers["picked-b"]
    assert layer["picked-b", 5] == Alias(("picked-b", 5), (x.name, 3))
    for missing in [("picked-b", 6), ("picked-b", 1.0), ("picked-b", -1), ("other", 1), 5]:
        assert missing not in layer
        with pytest.raises(KeyError):
            layer[missing]
    # a slice culls the layer to the aliases it reads: the layer is never made whole
    np.testing.assert_array_equal(y[:3].compute(), [90, 100, 110])
    assert not layer.is_materialized()
    assert len(layer) == len(list(layer)) == 6 and layer.is_materialized()
    for missing in [("picked-b", 6), ("picked-b", 1.0), ("picked-b", -1), ("other", 1), 5]:
        assert missing not in layer  # (the same answers once made)
        with pytest.raises(KeyError):
            layer[missing]
    assert layer["picked-b", np.int64(5)] == Alias(("picked-b", 5), (x.name, 3))
    every = dict(_dask.aliases_of("picked-b", [(i,) for i in range(6)], layer.pick.source))
    assert dict(layer) == every
    shipped = pickle.loads(pickle.dumps(layer))
    assert dict(shipped) == every


def test_a_mark_is_found_where_graphs_have_layers():
    x = da.arange(6, chunks=3)
    y = (x + 1).sum(keepdims=True)
    z = _dask.marked(y, "stat") * 2
    found = _dask.marked_layers(z, "stat")
    if _dask.query_planning():
        assert found is None and _dask.marked(y, "stat") is y
    else:
        assert found == {y.name} and _dask.marked_layers(z, "other") == set()
        assert _dask.marked_layers(y, "stat") == set()  # y itself is left unmarked
    np.testing.assert_array_equal(z.compute(), [42])


@classic_only
def test_lazy_array_reads_its_dependencies_and_layers_below():
    x = da.arange(6, chunks=3)

    below = {"below-b": _lazy.LazyLayer("below-b", (2,), lambda i: (np.negative, (x.name, *i)))}
    y = _lazy.lazy_array(
        "sum-b", ((3, 3),), lambda i: (np.add, ("below-b", *i), 1), [x], x._meta, below
    )
    np.testing.assert_array_equal(y.compute(), 1 - np.arange(6))


@classic_only
def test_lazy_array_declares_exactly_the_layers_it_is_told_its_tasks_read():
    x, unread = da.arange(6, chunks=3), da.ones(6, chunks=3)
    below = {"below-c": _lazy.LazyLayer("below-c", (2,), lambda i: (np.negative, (x.name, *i)))}
    reads = {"sum-c": {"below-c"}, "below-c": {x.name}}
    y = _lazy.lazy_array(
        "sum-c", ((3, 3),), lambda i: (np.add, ("below-c", *i), 1), [x, unread], x._meta,
        below, reads,
    )  # fmt: skip
    graph = y.__dask_graph__()
    assert {n: graph.dependencies[n] for n in reads} == reads
    graph.validate()  # dask's check: the declared dependencies are what the tasks read
    np.testing.assert_array_equal(y.compute(), 1 - np.arange(6))


@pytest.mark.parametrize("n", [1, 5])
def test_chunk_index_hands_each_task_its_chunk(n):
    from daskpad.core.kernels import per_chunk

    index = _dask.chunk_index(n)
    bounds = np.arange(n + 1) * 2
    y = da.blockwise(
        per_chunk, (0,), index, (0,), new_axes={0: (2,) * n}, dtype=int,
        meta=np.empty((0,), int), kernel=lambda start, stop: np.arange(start, stop),
        align_arrays=False,
        bounds=bounds, along=0,
    )  # fmt: skip
    np.testing.assert_array_equal(y.compute(), np.arange(2 * n))
    graph = dict(y.__dask_graph__())
    assert len(graph) == n  # the index is no task of its own


def test_renamed_graph_computes_the_same_under_new_keys():
    x = da.arange(10, chunks=4) * 2
    graph, rename = _dask.renamed(x.__dask_graph__(), "again")
    keys = [rename(k) for k in dask.core.flatten(x.__dask_keys__())]
    assert not set(graph) & set(dict(x.__dask_graph__()))
    assert all(str(k[0]).endswith("-again") for k in keys)
    got = dask.get(graph, keys)
    np.testing.assert_array_equal(np.concatenate(got), np.arange(10) * 2)


@pytest.mark.parametrize(
    "make",
    [
        lambda: da.arange(10, chunks=4) + 1,  # (dask 2026.8's clone fails on these two)
        lambda: (da.arange(12, chunks=3) * 2).rechunk(4),
        lambda: da.from_array(np.arange(10), chunks=4) + 1,
    ],
)
def test_a_copy_computes_the_same_under_keys_of_its_own(make):
    x = make()
    y = _dask.copy_of(x, "copy-test")
    assert not set(dict(y.__dask_graph__())) & set(dict(x.__dask_graph__()))
    np.testing.assert_array_equal(y.compute(), x.compute())
    np.testing.assert_array_equal(da.concatenate([x, y]).compute(), np.tile(x.compute(), 2))


def test_optimized_graph_gives_the_result_keys_in_order():
    a, b = da.ones(4, chunks=2), da.arange(3, chunks=3)
    graph, keys = _dask.optimized_graph([a, b])
    assert len(keys) == 3
    got = dask.get(dict(graph), keys)
    np.testing.assert_array_equal(np.concatenate(got[:2]), np.ones(4))
    np.testing.assert_array_equal(got[2], np.arange(3))


def test_layers_of_a_classic_graph_are_read_and_replaced():
    x = da.arange(6, chunks=3)
    y = x + 1
    layers = _dask.layer_dependencies(y)
    if _dask.query_planning():
        assert layers is None  # array-expr graphs have no layers to replace
        return
    assert layers[y.name] == {x.name}
    keys = _dask.layer_keys(y, x.name)
    assert sorted(keys) == [(x.name, 0), (x.name, 1)]
    values = dict(zip(keys, dask.compute(*_dask.key_values(y, x.name, keys))))
    z = _dask.with_values(y, {x.name: {k: v * 10 for k, v in values.items()}})
    np.testing.assert_array_equal(z.compute(), np.arange(6) * 10 + 1)


def test_progress_callback_draws_fractions_up_to_one():
    drawn = []
    with schedulers.progress_callback(drawn.append):
        (da.ones(10, chunks=2) + 1).sum().compute(scheduler="threads")
    assert drawn and drawn[-1] == 1.0 and all(0 <= f <= 1 for f in drawn)


def test_local_get_is_the_threaded_scheduler_only_where_no_client_can_exist():
    # (in a process of its own: this one may have imported distributed)
    code = (
        "import sys, dask, dask.threaded\n"
        "from daskpad._compat.schedulers import local_get\n"
        "print(local_get() is dask.threaded.get)\n"
        "with dask.config.set(scheduler='sync'):\n"
        "    print(local_get() is None)\n"
        "import distributed\n"
        "print(local_get() is None)\n"
        "print('distributed' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["True", "True", "True", "True"], done.stderr


def test_dependencies_are_the_keys_a_node_reads():
    assert dependencies(Task(("b", 0), max, TaskRef(("a", 0)), 1)) == {("a", 0)}
    assert dependencies(None) == dependencies(3) == dependencies("ab") == frozenset()


def test_task_runs_counts_a_task_once_at_its_key_and_again_where_embedded():
    read = Task(("read", 0), np.arange, 4)
    graph = {
        ("read", 0): read,
        # a step that computes the block anew inside itself, in a nested argument too
        ("step", 0): Task(("step", 0), max, read, parse_input([(0, read)])),
        ("step", 1): Task(("step", 1), sum, TaskRef(("read", 0))),
        "held": Alias("held", ("step", 1)),
    }
    runs = task_runs(graph)
    assert runs[("read", 0)] == 3 and runs[("step", 0)] == runs[("step", 1)] == 1
    assert "held" not in runs


def test_optimized_graph_of_some_blocks_is_culled_to_them():
    x = da.arange(40, chunks=10) + 1
    dsk, keys = _dask.optimized_graph([x], [(x.name, 1)])
    assert keys == [(x.name, 1)]
    ran = task_runs(dsk)
    assert (x.name, 1) in ran and (x.name, 0) not in ran and (x.name, 2) not in ran
    whole, _ = _dask.optimized_graph([x])
    assert len(dsk) < len(whole)
