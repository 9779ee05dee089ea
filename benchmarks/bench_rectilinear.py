"""rectilinear: ``daskpad pad --chunk-grid rectilinear`` beside the regular grid and
``cp -r``.

A zarr v3 store of one float32 variable (``sources.field``: a smooth field with noise),
``n x n`` (32768: 4.3 GB decoded, by default; ``--rect-size N CHUNK WIDTH``) in chunks of
1024 on each side, zstd level 3, padded 256 along both dimensions with ``reflect``,
``constant`` and ``lat=symmetric,lon=wrap`` (``--rect-modes``). The store is written once
(``--rect-store``, by default under ``--tmp``) and kept for the next run. Each round runs,
in turn (the order rotating), ``cp -r`` of the input, the command with the regular grid
and with the rectilinear grid, each in a fresh process (seconds of the whole process:
the command's start included), DST removed and the disk synced between runs. ``--cold``
evicts the input's pages (``POSIX_FADV_DONTNEED`` per file) before every run; without it,
each run starts with the input read into the page cache and the command's modules read
once (a warm start). Reported: medians over ``--repeat`` rounds, their ratios, and the
peak resident memory of each command. No asv benchmark: it times whole processes and the
disk (``bench_cli.Command`` has the command under asv).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .common import _progress, _ratio
from .sources import field, write_store
from .timing import Took, command, rounds

MODES = {
    "reflect": ["--mode", "reflect"],
    "constant": ["--mode", "constant"],
    "lat=symmetric,lon=wrap": ["--mode", "lat=symmetric", "--mode", "lon=wrap"],
}
RECTILINEAR = {"ZARR_ARRAY__RECTILINEAR_CHUNKS": "True"}


def evict(path: Path) -> None:
    """Drop the page cache of every file under ``path``."""
    for folder, _, files in os.walk(path):
        for name in files:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def warm(path: Path) -> None:
    """Read every file under ``path`` into the page cache, and the command's modules (a
    kernel pages out what was not used for a while)."""
    for folder, _, files in os.walk(path):
        for name in files:
            with open(os.path.join(folder, name), "rb") as f:
                while f.read(1 << 24):
                    pass
    subprocess.run([sys.executable, "-c", "import daskpad.cli"], check=True)


def _timed(run: Callable[[], Any], src: Path, dst: Path, cold: bool) -> Took:
    """``run()`` after DST is removed, the disk synced and SRC evicted or warmed: its
    seconds (the whole process) and peak resident MB."""
    shutil.rmtree(dst, ignore_errors=True)
    os.sync()
    (evict if cold else warm)(src)
    try:
        return run()
    finally:
        shutil.rmtree(dst, ignore_errors=True)


def _copy(src: Path, dst: Path) -> Took:
    t0 = time.perf_counter()
    subprocess.run(["cp", "-r", str(src), str(dst)], check=True)
    return Took(time.perf_counter() - t0, 0.0)


def _pad(argv: list[str]) -> Took:
    done = command(argv, env=RECTILINEAR)
    return Took(done.process_s, done.mb)


def section_rectilinear(cfg: Any) -> list[dict]:
    n, chunk, width = cfg.rect_size or ((256, 64, 8) if cfg.quick else (32_768, 1_024, 256))
    where = Path(cfg.tmp or tempfile.gettempdir())
    src = cfg.rect_store or where / f"daskpad-rectilinear-{n}x{chunk}.zarr"
    if not (src / "zarr.json").exists():
        write_store(src, field((n, n), chunk), ("lat", "lon"), "t", True, 3, True)
    dst = src.with_name(src.name + ".out")
    pad = ["pad", str(src), str(dst), "--width", f"lat={width}", "--width", f"lon={width}"]
    rows = []
    for mode in cfg.rect_modes or ([*MODES][:1] if cfg.quick else MODES):
        grids = {"regular": [], "rect": ["--chunk-grid", "rectilinear"]}
        fns = {"cp": lambda: _timed(lambda: _copy(src, dst), src, dst, cfg.cold)}
        for name, extra in grids.items():
            argv = [*pad, *MODES[mode], *extra]
            fns[name] = lambda argv=argv: _timed(lambda: _pad(argv), src, dst, cfg.cold)
        got = rounds(fns, cfg.repeat, memory=False)
        cp, reg, rect = (got.median(k) for k in ("cp", "regular", "rect"))
        row = {
            "store": f"{n}² float32, chunks {chunk}, pad {width}" + (", cold" if cfg.cold else ""),
            "mode": mode,
            "cp -r s": cp,
            "regular s": reg,
            "rectilinear s": rect,
            "rect/regular": _ratio(rect, reg),
            "rect/cp": _ratio(rect, cp),
            "regular MB": max(got.mb["regular"]),
            "rect MB": max(got.mb["rect"]),
        }
        rows.append(row)
        _progress(cfg, "rectilinear", row)
    return rows
