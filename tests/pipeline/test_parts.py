"""A computation on a cluster in parts (daskpad.pipeline.parts.in_parts): the tasks that
do not read one another run together, each part as one task, and compute what the graph
computes."""

from __future__ import annotations

import operator

import dask.array as da
import numpy as np
import pytest
from dask.local import get_sync

import daskpad
from daskpad._compat.tasks import Task, TaskRef, parse_input
from daskpad.pipeline import cluster as cluster_module
from daskpad.pipeline.cluster import compute_with_progress
from daskpad.pipeline.parts import (
    GROUPS_PER_THREAD,
    PARTS_PER_THREAD,
    TASKS_PER_PART,
    Subgraph,
    in_parts,
    run_part,
)
from daskpad.store.writing.stream import streamed_writes

distributed = pytest.importorskip("distributed")

pytestmark = [
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning"
    ),
]


def _chains(n: int) -> tuple[dict, list]:
    """n chains of three tasks, and one task adding their ends."""
    dsk: dict = {}
    for i in range(n):
        dsk["a", i] = Task(("a", i), operator.add, i, 1)
        dsk["b", i] = Task(("b", i), operator.mul, TaskRef(("a", i)), 10)
        dsk["c", i] = Task(("c", i), operator.neg, TaskRef(("b", i)))
    dsk["total"] = Task("total", sum, parse_input([TaskRef(("c", i)) for i in range(n)]))
    return dsk, ["total"]


def test_chains_run_in_parts_of_neighbours_and_compute_the_same():
    dsk, keys = _chains(2 * PARTS_PER_THREAD + 3)
    parts = in_parts(dsk, keys, threads=2, tag="-run")
    assert parts is not None
    named = [k for k in parts if isinstance(k, tuple) and str(k[0]).startswith("daskpad-part-")]
    assert len(named) == PARTS_PER_THREAD * 2
    assert all(str(k[0]).endswith("-run") for k in named)
    # a chain is never cut: its three tasks are in one part, neighbours with neighbours
    for k in named:
        sub = parts[k].args[0].tasks
        chains = {key[1] for key in sub}
        assert all(("a", i) in sub and ("b", i) in sub for i in chains)
        assert chains == set(range(min(chains), max(chains) + 1))
    assert (
        get_sync(parts, keys)
        == get_sync(dsk, keys)
        == (-sum((i + 1) * 10 for i in range(2 * PARTS_PER_THREAD + 3)),)
    )


def test_a_graph_of_few_groups_runs_as_it_is():
    dsk, keys = _chains(2 * GROUPS_PER_THREAD - 1)
    assert in_parts(dsk, keys, threads=2) is None  # (fewer groups than 2 threads need)
    parts = in_parts(dsk, keys, threads=1)  # (each group a part of its own)
    assert parts is not None
    assert sum("daskpad-part" in str(k) for k in parts) == 2 * GROUPS_PER_THREAD - 1


def test_a_part_runs_all_its_tasks_and_hands_on_what_is_read():
    ran = []
    sub = {
        "x": Task("x", ran.append, "x"),  # read by nothing: still run
        "y": Task("y", operator.add, 1, 2),
    }
    assert run_part(Subgraph(sub, "p"), ["x", "y"], ["y"]) == {"y": 3}
    assert ran == ["x"]


def test_on_a_cluster_a_padded_write_runs_in_parts(monkeypatch, tmp_path):
    import zarr

    x = da.from_array(np.arange(96 * 12.0).reshape(96, 12), chunks=(4, 6))
    y = daskpad.pad(x, ((0, 0), (3, 3)), mode="wrap")  # (rows not padded: 24 groups)
    target = zarr.create_array(tmp_path / "y.zarr", shape=y.shape, chunks=(4, 6), dtype="f8")
    graphs = []
    real = cluster_module.in_parts

    def kept(*args, **kwargs):
        graphs.append(real(*args, **kwargs))
        return graphs[-1]

    monkeypatch.setattr(cluster_module, "in_parts", kept)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
        distributed.get_task_stream(client) as stream,
    ):
        compute_with_progress([streamed_writes(y, target)], client, False, parts=True)
    workers = {t["worker"] for t in stream.data}
    ((graph,),) = [graphs]
    assert graph is not None
    np.testing.assert_array_equal(target[...], np.pad(x.compute(), ((0, 0), (3, 3)), "wrap"))
    # the scheduler saw the parts, what they hand on and the end, not the blocks
    keys = [t["key"] for t in stream.data]
    parts = [k for k in keys if "daskpad-part-" in str(k)]
    assert len(parts) == PARTS_PER_THREAD * 2 and len(workers) == 2
    assert not any("pad" in str(k) and "daskpad-" not in str(k) for k in keys)


def test_a_value_every_group_reads_joins_no_groups():
    # (a zarr array every read of a store's variable reads, held in the graph as data)
    from dask._task_spec import DataNode

    dsk, keys = _chains(PARTS_PER_THREAD)
    dsk["source"] = DataNode("source", 5)
    for i in range(PARTS_PER_THREAD):
        dsk["a", i] = Task(("a", i), operator.add, i, TaskRef("source"))
    parts = in_parts(dsk, keys, threads=1)
    assert parts is not None and "source" not in parts
    assert all("source" in parts[k].args[0].tasks for k in parts if "daskpad-part" in str(k))
    assert get_sync(parts, keys) == get_sync(dsk, keys)


def test_a_result_other_tasks_read_keeps_the_graph_as_it_is():
    dsk, _ = _chains(2 * PARTS_PER_THREAD)
    # (a dask array's blocks, computed as results, read by its other blocks)
    assert in_parts(dsk, [("b", 0), "total"], threads=1) is None


def test_tasks_the_results_do_not_need_are_left_out():
    dsk, keys = _chains(PARTS_PER_THREAD)
    dsk["stray"] = Task("stray", operator.truediv, 1, 0)  # (would fail if it ran)
    parts = in_parts(dsk, keys, threads=1)
    assert parts is not None
    assert get_sync(parts, keys) == get_sync(dsk, keys)


def test_parts_are_cut_to_about_a_thousand_tasks_where_the_groups_allow():
    dsk, keys = _chains(4 * TASKS_PER_PART)  # (12000 tasks in 4000 groups, 1 thread)
    parts = in_parts(dsk, keys, threads=1)
    assert parts is not None
    assert sum("daskpad-part" in str(k) for k in parts) == 12 > PARTS_PER_THREAD


def test_an_external_clusters_write_runs_task_by_task(monkeypatch):
    # (a stopped run waits for an external cluster's running tasks: a part is long)
    x = da.from_array(np.arange(96 * 12.0).reshape(96, 12), chunks=(4, 6))
    y = daskpad.pad(x, ((0, 0), (3, 3)), mode="wrap")
    called = []
    monkeypatch.setattr(cluster_module, "in_parts", lambda *a: called.append(a))
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        compute_with_progress([y.sum()], client, False)
    assert not called
