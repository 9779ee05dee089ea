"""A local cluster of ``--workers N`` (daskpad.pipeline.cluster): started at the run's
first computation, its workers forked from the fork server that warm_local_workers
started (importing what they run) while SRC was opened and the write planned."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import textwrap

import pytest

from daskpad.pipeline.cluster import FORK_SERVER, Cluster, warm_local_workers
from daskpad.pipeline.options import PadOptions

pytest.importorskip("distributed")
forks = pytest.mark.skipif(
    FORK_SERVER not in multiprocessing.get_all_start_methods(), reason="no fork server here"
)

# (its own process: the fork server is one per process, and the test's workers must be
# forked from the one daskpad started)
WARMED = textwrap.dedent(
    """
    import os
    from daskpad.pipeline.cluster import cluster_for_run, warm_local_workers
    from daskpad.pipeline.options import PadOptions

    def parent():
        return os.getppid()

    if __name__ == "__main__":
        options = PadOptions(src="in.zarr", workers=2)
        warm_local_workers(options)
        with cluster_for_run(options) as cluster:
            assert not cluster.started
            parents = cluster.client.run(parent)
            assert cluster.started and cluster.start_seconds > 0
        # both forked by one process, the fork server (spawned, each is this one's child)
        assert len(parents) == 2, parents
        assert len(set(parents.values())) == 1, parents
        assert os.getpid() not in parents.values(), parents
        print("ok")
    """
)


@forks
@pytest.mark.cluster
def test_local_workers_are_forked_with_what_they_run_imported(tmp_path):
    script = tmp_path / "warmed.py"
    script.write_text(WARMED)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok"]


def test_a_run_without_a_local_cluster_starts_no_fork_server(monkeypatch):
    started = []
    monkeypatch.setattr("multiprocessing.forkserver.ensure_running", lambda: started.append(1))
    for options in (
        PadOptions(src="in.zarr"),
        PadOptions(src="in.zarr", scheduler="tcp://127.0.0.1:8786"),
        PadOptions(src="in.zarr", scheduler_file="scheduler.json", workers=2),
    ):
        warm_local_workers(options)
    assert started == []


def test_a_local_cluster_never_used_is_never_started():
    starts = []
    cluster = Cluster(True, start=lambda: starts.append(1))
    cluster.close()
    assert starts == [] and not cluster.started
