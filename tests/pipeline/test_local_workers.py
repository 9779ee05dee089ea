"""A local cluster of ``--workers N`` (daskpad.pipeline.cluster): started at the run's
first computation, its workers forked from the fork server that warm_local_workers
started (importing what they run) while SRC was opened and the write planned."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap

import dask
import pytest

import _daskpad_launcher
from daskpad.pipeline.cluster import (
    FORK_SERVER,
    NOT_SPAWNED_WITH,
    QUIETED_ENVIRONMENT,
    WORKER_IMPORTS,
    Cluster,
    spawn_environment,
    warm_local_workers,
)
from daskpad.pipeline.options import PadOptions

pytest.importorskip("distributed")
linux = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc (Linux)")
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
        assert "OMP_NUM_THREADS" not in os.environ  # (this process's left as it was)
        with cluster_for_run(options) as cluster:
            assert not cluster.started
            parents = cluster.client.run(parent)
            assert cluster.started and cluster.start_seconds > 0
        # both forked by one process, the fork server (spawned, each is this one's child)
        assert len(parents) == 2, parents
        assert len(set(parents.values())) == 1, parents
        assert os.getpid() not in parents.values(), parents
        # which started in the environment of spawned workers, numpy's pools of one thread
        (server,) = set(parents.values())
        environ = open(f"/proc/{server}/environ", "rb").read().split(bytes(1))
        assert b"OMP_NUM_THREADS=1" in environ and b"OPENBLAS_NUM_THREADS=1" in environ
        assert not any(v.startswith(b"MALLOC_TRIM_THRESHOLD_=") for v in environ)
        print("ok")
    """
)


@forks
@linux
@pytest.mark.cluster
def test_local_workers_are_forked_with_what_they_run_imported(tmp_path):
    script = tmp_path / "warmed.py"
    script.write_text(WARMED)
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=environ
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


def test_the_launcher_starts_the_same_fork_server():
    assert _daskpad_launcher.WORKER_IMPORTS == WORKER_IMPORTS
    assert _daskpad_launcher.QUIETED_ENVIRONMENT == QUIETED_ENVIRONMENT
    # the launcher cannot read dask's configuration: distributed's defaults
    defaults = dask.config.get("distributed.nanny.pre-spawn-environ")
    expected = {k: str(v) for k, v in defaults.items() if k not in NOT_SPAWNED_WITH}
    assert _daskpad_launcher.SPAWN_ENVIRONMENT == expected


def test_the_fork_server_starts_in_distributeds_environment_for_workers(monkeypatch):
    monkeypatch.setenv("MKL_NUM_THREADS", "3")  # (one set already keeps its value)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    with dask.config.set({"distributed.nanny.pre-spawn-environ.EXTRA_FOR_WORKERS": "x"}):
        got = spawn_environment()
    assert got["OMP_NUM_THREADS"] == "1" and got["MKL_NUM_THREADS"] == "3"
    assert got["EXTRA_FOR_WORKERS"] == "x"
    assert "MALLOC_TRIM_THRESHOLD_" not in got


# (its own process: whether the launcher started a fork server, before importing daskpad)
LAUNCHED = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    import _daskpad_launcher

    def servers():
        found = []
        for entry in Path("/proc").iterdir():
            try:
                parent = (entry / "stat").read_text().rpartition(")")[2].split()[1]
                if int(parent) == os.getpid():
                    found.append((entry / "cmdline").read_bytes())
            except (OSError, ValueError):
                pass
        return [c for c in found if b"multiprocessing.forkserver" in c]

    _daskpad_launcher._warm_workers(sys.argv[1:])
    time.sleep(0.2)
    print(len(servers()), "daskpad" in sys.modules, os.environ.get("DASK_LOGGING__DISTRIBUTED"))
    """
)


@forks
@linux
@pytest.mark.parametrize(
    "argv, started",
    [
        (["pad", "in.zarr", "out.zarr", "--width", "x=1", "--workers", "2"], 1),
        (["pad", "in.zarr", "out.zarr", "--workers=2"], 1),
        (["pad", "in.zarr", "out.zarr", "--workers", "2", "--dry-run"], 0),
        (["pad", "in.zarr", "out.zarr", "--width", "x=1"], 0),
        (["info", "in.zarr", "--workers", "2"], 0),
    ],
)
def test_the_launcher_starts_a_fork_server_for_a_run_on_local_workers(tmp_path, argv, started):
    script = tmp_path / "launched.py"
    script.write_text(LAUNCHED)
    done = subprocess.run(
        [sys.executable, str(script), *argv], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # the server, a child of the launcher's process, which imported no daskpad itself and
    # whose environment is as it was
    assert done.stdout.split() == [str(started), "False", "None"]
