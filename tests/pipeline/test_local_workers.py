"""A local cluster of ``--workers N`` (daskpad.pipeline.cluster): on Linux its workers are
forked from multiprocessing's fork server, which warm_local_workers (or, for the installed
command, the launcher) started in distributed's environment for workers, importing what
they run; the cluster still starts before anything is written, whatever the plan."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import dask
import numpy as np
import pytest
from helpers.markers import WRITES

import _daskpad_launcher
import daskpad.pipeline.cluster as cluster_module
from daskpad.pipeline import pad_store
from daskpad.pipeline.cluster import (
    NOT_SPAWNED_WITH,
    QUIETED_ENVIRONMENT,
    WORKER_IMPORTS,
    forks_workers,
    spawn_environment,
    warm_local_workers,
)
from daskpad.pipeline.options import PadOptions

distributed = pytest.importorskip("distributed")
xr = pytest.importorskip("xarray")
forks = pytest.mark.skipif(not forks_workers(), reason="workers are spawned here")

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
            parents = cluster.client.run(parent)
        # both forked by one process, the fork server (spawned, each is this one's child)
        assert len(parents) == 2, parents
        assert len(set(parents.values())) == 1, parents
        (server,) = set(parents.values())
        assert server != os.getpid(), parents
        # daskpad's: importing what the workers run, in the environment of spawned workers
        # (numpy's pools of one thread), with SIGINT blocked
        command = open(f"/proc/{server}/cmdline", "rb").read()
        assert b"'daskpad.pipeline'" in command, command
        environ = open(f"/proc/{server}/environ", "rb").read().split(bytes(1))
        assert b"OMP_NUM_THREADS=1" in environ and b"OPENBLAS_NUM_THREADS=1" in environ
        assert b"DASK_LOGGING__DISTRIBUTED=critical" in environ
        assert not any(v.startswith(b"MALLOC_TRIM_THRESHOLD_=") for v in environ)
        status = open(f"/proc/{server}/status").read()
        blocked = int(status.split("SigBlk:")[1].split()[0], 16)
        assert blocked & (1 << 1), status  # (SIGINT, signal 2)
        print("ok")
    """
)


def _clean_environment() -> dict[str, str]:
    """This process's environment less what the fork server is to be started with, and
    less distributed's allocation thresholds (which a Nanny started by an earlier test puts
    in this process's environment, for good)."""
    drop = {*QUIETED_ENVIRONMENT, *spawn_environment(), *NOT_SPAWNED_WITH}
    return {k: v for k, v in os.environ.items() if k not in drop}


@forks
@pytest.mark.cluster
def test_local_workers_are_forked_from_daskpads_fork_server(tmp_path):
    script = tmp_path / "warmed.py"
    script.write_text(WARMED)
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env=_clean_environment(),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok"]


def test_a_fork_server_is_started_for_a_local_cluster_alone(monkeypatch):
    started = []
    monkeypatch.setattr("multiprocessing.forkserver.ensure_running", lambda: started.append(1))
    for options in (
        PadOptions(src="in.zarr"),
        PadOptions(src="in.zarr", scheduler="tcp://127.0.0.1:8786"),
        PadOptions(src="in.zarr", scheduler_file="scheduler.json", workers=2),
    ):
        warm_local_workers(options)
    assert started == []
    warm_local_workers(PadOptions(src="in.zarr", workers=2))
    assert started == ([1] if forks_workers() else [])


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
    print(len(servers()), "daskpad" in sys.modules, os.environ.get("OMP_NUM_THREADS"))
    """
)


@forks
@pytest.mark.parametrize(
    "argv, started",
    [
        (["pad", "in.zarr", "out.zarr", "--width", "x=1", "--workers", "2"], 1),
        (["pad", "in.zarr", "out.zarr", "--workers=2"], 1),
        (["--debug", "pad", "in.zarr", "out.zarr", "--workers", "2"], 1),
        (["pad", "in.zarr", "out.zarr", "--workers", "2", "--dry-run"], 0),
        (["pad", "in.zarr", "out.zarr", "--width", "x=1"], 0),
        (["info", "in.zarr", "--workers", "2"], 0),
    ],
)
def test_the_launcher_starts_a_fork_server_for_a_run_on_local_workers(tmp_path, argv, started):
    script = tmp_path / "launched.py"
    script.write_text(LAUNCHED)
    done = subprocess.run(
        [sys.executable, str(script), *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_environment(),
    )
    assert done.returncode == 0, done.stderr
    # the server, a child of the launcher's process, which imported no daskpad itself and
    # whose environment is as it was
    assert done.stdout.split() == [str(started), "False", "None"]


def _source(path):
    ds = xr.Dataset({"t": (("y", "x"), np.arange(48.0 * 40).reshape(48, 40))})
    # (zarr v2: padded in tiles; written from memory, without dask)
    ds.to_zarr(path, zarr_format=2, encoding={"t": {"chunks": (8, 8)}})
    return path


@WRITES
@pytest.mark.cluster
def test_a_write_in_tiles_computes_on_the_local_cluster(tmp_path, monkeypatch):
    started = []
    local = cluster_module._local

    def recorded(client, options):
        started.append(options.workers)
        return local(client, options)

    monkeypatch.setattr(cluster_module, "_local", recorded)
    src, dst = _source(tmp_path / "in.zarr"), tmp_path / "out.zarr"
    written = pad_store(str(src), str(dst), {"y": 3}, "reflect", memory=1_000, workers=2)
    assert written.plan.how().startswith(" in ") and "tiles" in written.plan.how()
    assert started == [2]
    expected = np.pad(np.arange(48.0 * 40).reshape(48, 40), ((3, 3), (0, 0)), "reflect")
    np.testing.assert_array_equal(xr.open_zarr(dst)["t"].values, expected)


def test_a_local_cluster_that_fails_to_start_leaves_the_old_dst(tmp_path, monkeypatch):
    """A DST in an object store is deleted before it is written (no rename there): a
    cluster that cannot start must fail before that."""

    def failing(client, options):
        raise OSError("no worker could start")

    monkeypatch.setattr(cluster_module, "_local", failing)
    src = _source(tmp_path / "in.zarr")
    dst = "memory://daskpad-local-workers/out.zarr"
    old = xr.Dataset({"t": (("y", "x"), np.zeros((5, 4)))})  # (in memory: no dask write)
    old.to_zarr(dst, zarr_format=3)
    import fsspec

    fs = fsspec.filesystem("memory")
    before = sorted(fs.find("/daskpad-local-workers/out.zarr"))
    assert before
    with pytest.raises(OSError, match="no worker could start"):
        pad_store(str(src), dst, {"y": 2}, "edge", workers=2, overwrite=True)
    assert sorted(fs.find("/daskpad-local-workers/out.zarr")) == before
