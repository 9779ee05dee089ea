"""Where a run's tasks go on a distributed cluster (daskpad.pipeline.cluster.neighbourhoods):
each layer's blocks in runs of neighbours along its axis of most blocks, dealt to the
workers in turn (each group of layers that read one another starting at the next worker),
so that the blocks a pad joins are decoded and used on one worker."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest

import daskpad
from daskpad._compat.tasks import Task, TaskRef
from daskpad.pipeline import cluster as cluster_module
from daskpad.pipeline.cluster import RUNS, compute_with_progress, layer_groups, neighbourhoods

distributed = pytest.importorskip("distributed")

pytestmark = [
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning"
    ),
]


def test_a_layers_blocks_go_in_runs_along_its_longest_axis():
    dsk = {("a", i, j): None for i in range(24) for j in range(3)}
    dsk |= {("b", 0, j): None for j in range(5, 9)}  # (one row: runs along the other axis)
    dsk |= {"c": None, ("d", "x"): None}
    where = neighbourhoods(dsk, ["w0", "w1"])
    assert RUNS == 4  # (runs of 24 / (2 * 4) = 3 blocks)
    assert [where(("a", i, 1))[0] for i in range(24)] == ["w0"] * 3 + ["w1"] * 3 + ["w0"] * 3 + [
        "w1"
    ] * 3 + ["w0"] * 3 + ["w1"] * 3 + ["w0"] * 3 + ["w1"] * 3
    assert all(where(("a", i, 0)) == where(("a", i, 2)) for i in range(24))
    # (a layer of the same dimensions is cut along the same axis, 0: one block along it,
    # fewer than the workers, is placed anywhere)
    assert all(where(("b", 0, j)) is None for j in range(5, 9))
    assert where("c") is None and where(("d", "x")) is None
    assert where(("a", 3)) is None  # (not a block of the layer's shape)
    # a layer that reads another, cut along the largest layer's axis, though longer along
    # another
    e = {("e", i, j): _reading(("e", i, j), ("a", 12 * i, 0)) for i in range(2) for j in range(30)}
    wide = neighbourhoods(dsk | e, "ab")
    assert all(wide(("e", 0, j)) == wide(("a", 6, 0)) for j in range(30))
    assert all(wide(("e", 1, j)) == wide(("a", 18, 0)) for j in range(30))
    three = neighbourhoods(dsk, ["w0", "w1", "w2"])
    assert [three(("a", i, 0))[0] for i in range(6)] == ["w0"] * 2 + ["w1"] * 2 + ["w2"] * 2
    # a layer of 8 blocks, another of 2 along the same axis that reads it: cut alike
    y = {("y", i): _reading(("y", i), ("x", 4 * i)) for i in range(2)}
    two = neighbourhoods({("x", i): 0 for i in range(8)} | y, "ab")
    assert [two(("x", i))[0] for i in range(8)] == list("abababab")
    assert [two(("y", i))[0] for i in range(2)] == [two(("x", 2))[0], two(("x", 6))[0]]
    one = neighbourhoods(dsk, ["w0"])
    assert one(("a", 0, 0)) is None
    many = neighbourhoods(dsk, [f"w{k}" for k in range(30)])  # (more than 24 blocks)
    assert many(("a", 0, 0)) is None


def _reading(key, read):
    """A task of ``key`` that reads the key ``read``."""
    return Task(key, max, TaskRef(read), 0)


def test_each_group_of_layers_starts_the_dealing_at_the_next_worker():
    # two variables' reads and writes, 3 blocks along the axis each: a worker would get
    # the middle block of both; the second group's dealing starts at the other worker
    dsk = {}
    for var in ("t", "p"):
        for i in range(3):
            dsk[(f"read-{var}", i)] = None
            dsk[(f"write-{var}", i)] = _reading((f"write-{var}", i), (f"read-{var}", i))
    where = neighbourhoods(dsk, "ab")
    assert [where(("read-t", i))[0] for i in range(3)] == list("aba")
    assert [where(("write-t", i))[0] for i in range(3)] == list("aba")
    assert [where(("read-p", i))[0] for i in range(3)] == list("bab")
    assert [where(("write-p", i))[0] for i in range(3)] == list("bab")
    assert layer_groups(dsk) == {"read-t": 0, "write-t": 0, "read-p": 1, "write-p": 1}
    # a graph whose nodes say nothing of what they read is one group: dealt alike
    assert set(layer_groups(dict.fromkeys(dsk)).values()) == {0}


def test_on_a_cluster_each_run_of_blocks_computes_on_its_own_worker(monkeypatch):
    x = da.from_array(np.arange(48 * 12.0).reshape(48, 12), chunks=(4, 6))
    y = daskpad.pad(x, ((0, 0), (3, 3)), mode="wrap")  # (a pad joining both column blocks)
    used = []

    def placing(dsk, workers):
        used.append(neighbourhoods(dsk, workers))
        return used[-1]

    monkeypatch.setattr(cluster_module, "neighbourhoods", placing)
    # (as a graph of too few groups that do not read one another runs: not in parts)
    monkeypatch.setattr(cluster_module, "in_parts", lambda *args: None)
    with (
        dask.config.set({"distributed.scheduler.work-stealing": False}),  # (exact places)
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
        distributed.get_task_stream(client) as stream,
    ):
        compute_with_progress([y], client, False)
        workers = sorted(client.scheduler_info()["workers"])
    # every block task ran where the run's placement put it
    (where,) = used
    placed = [(t["key"], t["worker"]) for t in stream.data if where(t["key"]) is not None]
    assert len(placed) > 24
    assert all(where(key) == [worker] for key, worker in placed)
    # each layer's blocks on both workers, in shares of a third or more
    for name in {key[0] for key, _ in placed}:
        share = [w for key, w in placed if key[0] == name]
        if len(share) >= 12:
            assert min(share.count(w) for w in workers) >= len(share) / 3, name
    transfers = [s for t in stream.data for s in t["startstops"] if s["action"] == "transfer"]
    assert not transfers
