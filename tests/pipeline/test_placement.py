"""Where a run's tasks go on a distributed cluster (daskpad.pipeline.cluster.neighbourhoods):
each layer's blocks in contiguous runs along its axis of most blocks, one run per worker,
so that the blocks a pad joins are decoded and used on one worker."""

from __future__ import annotations

import collections

import dask.array as da
import numpy as np
import pytest

import daskpad
from daskpad.pipeline.cluster import compute_with_progress, neighbourhoods

distributed = pytest.importorskip("distributed")

pytestmark = [
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning"
    ),
]


def test_a_layers_blocks_go_in_runs_along_its_longest_axis():
    dsk = {("a", i, j): None for i in range(10) for j in range(3)}
    dsk |= {("b", 0, j): None for j in range(5, 9)}  # (one row: runs along the other axis)
    dsk |= {"c": None, ("d", "x"): None}
    where = neighbourhoods(dsk, ["w0", "w1"])
    assert [where(("a", i, 1)) for i in range(10)] == [["w0"]] * 5 + [["w1"]] * 5
    assert [where(("b", 0, j)) for j in range(5, 9)] == [["w0"]] * 2 + [["w1"]] * 2
    assert where("c") is None and where(("d", "x")) is None
    assert where(("a", 3)) is None  # (not a block of the layer's shape)
    three = neighbourhoods(dsk, ["w0", "w1", "w2"])
    assert [three(("a", i, 0))[0] for i in range(10)] == ["w0"] * 4 + ["w1"] * 3 + ["w2"] * 3
    one = neighbourhoods(dsk, ["w0"])
    assert one(("a", 0, 0)) is None


def test_on_a_cluster_each_run_of_blocks_computes_on_its_own_worker():
    x = da.from_array(np.arange(48 * 12.0).reshape(48, 12), chunks=(4, 6))
    y = daskpad.pad(x, ((0, 0), (3, 3)), mode="wrap")  # (a pad joining both column blocks)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
        distributed.get_task_stream(client) as stream,
    ):
        compute_with_progress([y], client, False)
        workers = sorted(client.scheduler_info()["workers"])
    ran: dict[str, dict[int, set[str]]] = collections.defaultdict(
        lambda: collections.defaultdict(set)
    )
    for task in stream.data:
        key = task["key"]
        if isinstance(key, tuple) and len(key) == 3 and key[1] in range(12):
            ran[key[0]][key[1]].add(task["worker"])
    assert ran, "no block tasks recorded"
    for name, rows in ran.items():
        if len(rows) < 12:
            continue  # (a layer of a few blocks: placed along its own longest axis)
        assert all(rows[i] == {workers[0]} for i in range(6)), name
        assert all(rows[i] == {workers[1]} for i in range(6, 12)), name
    transfers = [s for t in stream.data for s in t["startstops"] if s["action"] == "transfer"]
    assert not transfers
