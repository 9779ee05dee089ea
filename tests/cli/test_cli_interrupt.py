"""Ctrl-C in a terminal reaches the whole process group: the command and, with
``--workers N``, the worker processes it started. The command says one line; no process
prints a traceback."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import dask
import numpy as np
import pytest
from helpers.cli_launcher import COMMAND, HOOK_ENV

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


# --------------------------------------------------------------------------------------
# Ctrl-C is never lost: from the first moment (the imports) to the end, with --workers
# --overwrite: status 130 (143), one line, the old DST byte for byte, no process left
# --------------------------------------------------------------------------------------
STOPPED = {
    signal.SIGINT: (130, "daskpad: interrupted; nothing was written to DST"),
    signal.SIGTERM: (143, "daskpad: terminated (SIGTERM); nothing was written to DST"),
}
#: the command as the installed ``daskpad`` runs it (pyproject's [project.scripts])
LAUNCHER = [sys.executable, "-m", "_daskpad_launcher"]
linux = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


def _files(path: Path) -> dict[str, str]:
    """Every file under ``path``, by relative path: its bytes' sha256."""
    return {
        str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


def _stores(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """SRC, an old DST (another store, other values) and the old DST's files."""
    src, dst = _source(tmp_path / "src.zarr"), _source(tmp_path / "dst.zarr")
    zarr.open_array(dst / "t", mode="r+")[...] = -1.0
    return src, dst, _files(dst)


def _start(command: list[str], src: Path, dst: Path, hook: str = "sleep:1") -> subprocess.Popen:
    """``pad SRC DST --workers 2 --overwrite`` in a process group of its own (a terminal's
    foreground job), every block sleeping (16 blocks: the write lasts about 8 s)."""
    argv = [*command, "pad", src, dst, "--width", "lat=1", "--mode", "edge"]
    argv += ["--workers", "2", "--overwrite", "--no-progress"]
    return subprocess.Popen(
        list(map(str, argv)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, HOOK_ENV: hook},
        start_new_session=True,
    )


def _group(pgid: int) -> list[str]:
    """The command lines of the live processes (zombies aside) of process group ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        state, _, group = stat.rpartition(")")[2].split()[:3]
        if int(group) == pgid and state not in "ZX":
            found.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def _workers(commands: list[str]) -> int:
    """How many of ``commands`` (:func:`_group`) are worker processes: spawned
    (multiprocessing's ``spawn_main``), or forked from multiprocessing's fork server
    (whose command line each shares with the server)."""
    forked = sum("multiprocessing.forkserver" in c for c in commands)
    return sum("spawn_main" in c for c in commands) + max(forked - 1, 0)


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL to what is left of the command's group (a failed test leaves nothing)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _wait_for(what: str, ready: Any, proc: subprocess.Popen, bound: float = 60) -> None:
    deadline = time.monotonic() + bound
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            _kill(proc)
            raise AssertionError(f"never saw {what}: {proc.communicate()}")
        time.sleep(0.01)


def _assert_stopped(proc: subprocess.Popen, sig: int, dst: Path, old: dict[str, str]) -> None:
    """Status and one line for ``sig``, the old DST untouched, nothing else left: neither
    a temporary store nor a process of the command's group."""
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise AssertionError(f"still running 60 s after {sig!r}: {proc.communicate()}") from None
    status, line = STOPPED[sig]
    assert (proc.returncode, err.splitlines()) == (status, [line]), (out, err)
    assert _files(dst) == old
    assert sorted(p.name for p in dst.parent.iterdir()) == ["dst.zarr", "src.zarr"]
    deadline = time.monotonic() + 10  # (multiprocessing's resource tracker: a moment)
    while _group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _group(proc.pid) == []


def test_importing_the_entry_point_loads_nothing_heavy():
    code = (
        "import sys; before = set(sys.modules); import _daskpad_launcher; "
        "print(' '.join(sorted(set(sys.modules) - before - {'_daskpad_launcher'})))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert not [m for m in loaded if m.partition(".")[0] in ("daskpad", "numpy", "dask")], loaded


@linux
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_the_imports_says_one_line(sig, tmp_path):
    src, dst, old = _stores(tmp_path)
    proc = _start(LAUNCHER, src, dst)

    def importing() -> bool:  # numpy's core is loaded: ``import daskpad`` is under way
        try:
            return "_multiarray_umath" in Path(f"/proc/{proc.pid}/maps").read_text()
        except OSError:
            return False

    _wait_for("the imports", importing, proc)
    os.killpg(proc.pid, sig)
    _assert_stopped(proc, sig, dst, old)


#: an import during which the signal arrives while Python runs a weak reference's callback
#: (as the import system's module locks have): the exception its handler raises there is
#: dropped, and the import goes on
_DROPPED = """
import signal, sys, weakref
import _daskpad_launcher
class Held: pass
def load():
    held = Held()
    ref = weakref.ref(held, lambda _: signal.raise_signal(signal.{sig}))
    del held
    return lambda: print("the command ran") or 0
sys.exit(_daskpad_launcher.launch(load))
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_whose_exception_python_drops_still_stops_the_command(sig):
    code = _DROPPED.format(sig=signal.Signals(sig).name)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    status, line = STOPPED[sig]
    assert (done.returncode, done.stdout, done.stderr.splitlines()) == (status, "", [line])


@linux
@pytest.mark.slow
@pytest.mark.cluster
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_workers_start_is_acted_on(sig, tmp_path):
    """The user's case: Ctrl-C once the worker processes are starting was lost, and the
    run went on to replace DST. (SIGTERM goes to the command alone, as ``kill`` sends it.)"""
    src, dst, old = _stores(tmp_path)
    proc = _start(COMMAND, src, dst)
    _wait_for("a worker process", lambda: _workers(_group(proc.pid)) > 0, proc)
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)  # what Ctrl-C sends: to every process of the group
    else:
        proc.send_signal(sig)
    _assert_stopped(proc, sig, dst, old)


@linux
@pytest.mark.slow
@pytest.mark.cluster
@pytest.mark.parametrize("after", [0.5, 1.5, 5.0], ids=lambda s: f"{s}s")
def test_ctrl_c_at_any_moment_keeps_the_old_dst(after, tmp_path):
    src, dst, old = _stores(tmp_path)
    proc = _start(COMMAND, src, dst)
    time.sleep(after)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)
    _assert_stopped(proc, signal.SIGINT, dst, old)


@pytest.mark.xfail(
    dask.config.get("array.query-planning", None) is True,
    reason="dask.array.store (used by to_zarr) is not implemented for dask's array-expr",
    strict=True,
)
def test_a_signal_while_dst_is_committed_comes_too_late(tmp_path, monkeypatch, capsys):
    """Once DST is complete the run has succeeded: Ctrl-C while the old DST is removed
    (the commit's last step, long for a store of many files) neither stops it half way nor
    claims that nothing was written."""
    from daskpad.cli import main

    src, dst, old = _stores(tmp_path)
    remove = shutil.rmtree

    def interrupted(path: Any, *args: Any, **kwargs: Any) -> Any:
        if ".daskpad-old-" in str(path):
            os.kill(os.getpid(), signal.SIGINT)
        return remove(path, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", interrupted)
    argv = ["pad", src, dst, "--width", "lat=1", "--mode", "edge", "--overwrite", "--no-progress"]
    status = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    assert (status, err) == (0, ""), out
    assert "(replaced the old DST)" in out
    assert zarr.open_array(dst / "t", mode="r").shape == (4, 10, 10)
    assert _files(dst) != old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr", "src.zarr"]


@pytest.mark.xfail(
    dask.config.get("array.query-planning", None) is True,
    reason="dask.array.store (used by to_zarr) is not implemented for dask's array-expr",
    strict=True,
)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_whose_exception_python_drops_during_the_write_stops_the_commit(
    sig, tmp_path, monkeypatch, capsys
):
    """A signal during the write whose exception Python drops (its handler ran inside a
    weak reference's callback, as inside a garbage collector's callback that distributed
    installs) and the write goes on to its end: the run still stops before the commit,
    with its one line, the old DST as it was and nothing else left."""
    import weakref

    from daskpad.cli import main
    from daskpad.store.writing.tile_plans import TilePlan

    src, dst, old = _stores(tmp_path)
    write = TilePlan.write

    class Held:
        pass

    def dropped(*args: Any, **kwargs: Any) -> Any:
        written = write(*args, **kwargs)
        held = Held()
        ref = weakref.ref(held, lambda _: signal.raise_signal(sig))
        del held  # the callback runs here; the exception its signal raises is dropped
        assert ref() is None
        return written

    monkeypatch.setattr(TilePlan, "write", dropped)
    argv = ["pad", src, dst, "--width", "lat=1", "--mode", "edge", "--overwrite", "--no-progress"]
    status = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    status_for, line = STOPPED[sig]
    assert (status, err.splitlines()) == (status_for, [line]), out
    assert _files(dst) == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr", "src.zarr"]


def test_ctrl_c_while_src_opens_leaves_no_coroutine_warning(tmp_path, monkeypatch, capsys):
    """Ctrl-C while zarr opens SRC cuts short a coroutine it had created but not yet
    awaited; freeing it warns. The command still says its one line and nothing else."""
    import daskpad.pipeline.source
    from daskpad.cli import main

    src, dst, old = _stores(tmp_path)

    async def open_consolidated() -> None:
        pass

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        pending = open_consolidated()  # noqa: F841  (never awaited: Ctrl-C came first)
        raise KeyboardInterrupt

    monkeypatch.setattr(daskpad.pipeline.source, "open_source", interrupted)
    argv = ["pad", src, dst, "--width", "lat=1", "--overwrite", "--no-progress"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status = main(list(map(str, argv)))
        gc.collect()
    out, err = capsys.readouterr()
    assert (status, err.splitlines(), out) == (130, [STOPPED[signal.SIGINT][1]], "")
    assert [str(w.message) for w in caught] == []
    assert _files(dst) == old
