"""Ctrl-C in a terminal reaches the whole process group: the command and, with
``--workers N``, the worker processes it started. The command says one line; no process
prints a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from cli_launcher import COMMAND, HOOK_ENV

zarr = pytest.importorskip("zarr")
pytest.importorskip("xarray")
pytest.importorskip("distributed")


def _source(path: Path) -> Path:
    group = zarr.open_group(path, mode="w", zarr_format=3)
    t = group.create_array(
        "t", shape=(4, 8, 10), chunks=(1, 4, 5), dtype="f8", dimension_names=("time", "lat", "lon")
    )
    t[...] = np.arange(320.0).reshape(4, 8, 10)
    return path


@pytest.mark.cluster
def test_ctrl_c_with_workers_prints_one_line_and_no_traceback(tmp_path):
    src, dst = _source(tmp_path / "src.zarr"), tmp_path / "dst.zarr"
    argv = [*COMMAND, "pad", src, dst, "--width", "lat=1", "--mode", "edge", "--workers", "2"]
    env = {**os.environ, HOOK_ENV: "sleep:0.3"}
    proc = subprocess.Popen(
        list(map(str, argv)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        tmps = list(tmp_path.glob(".dst.zarr.daskpad-tmp-*"))
        if tmps and any((tmps[0] / "t" / "c").rglob("*")):  # chunks are being written
            break
        assert proc.poll() is None, proc.communicate()[1]
        time.sleep(0.05)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("the write never started")
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends: to every process of the group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines() == ["daskpad: interrupted; nothing was written to DST"]
    assert not dst.exists()
