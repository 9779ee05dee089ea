"""cli: the ``daskpad`` command (a fresh process per run) on a zarr store of n x n blocks.

Blocks of 1024 x 1024 float32 (n = 8, 16, 32; zstd), reflect and mean (whole axis), pad 16
along both dimensions, regular chunks: seconds in ``main`` and the process's peak resident
memory, written in one piece (``--memory 1TB``) and tile by tile (``--memory 256MB``),
against the same command with a zero width (a copy). asv: the ``--quick`` stores (4 x 4
and 8 x 8 blocks of 64 x 64, ``--memory 64kB`` tile by tile); the command runs in a process
of its own, so its numbers are ``track_*`` values read from that process, not asv's
timings of this one.
"""

from __future__ import annotations

import math
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from .common import QUICK, _progress, _ratio, lazy_source, skip

# The peak resident set of the process: VmHWM (this program's own), not ru_maxrss, which
# Linux carries over from the forking parent (this benchmark, after its other sections).
_CLI_LAUNCHER = """
import resource, sys, time
from daskpad.cli import main
t0 = time.perf_counter()
rc = main(sys.argv[1:])
t = time.perf_counter() - t0
try:
    with open("/proc/self/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"BENCH rc={rc} s={t} maxrss_kb={kb}")
"""


def _run_cli(argv: list[str]) -> tuple[float, float, str]:
    """Run ``daskpad`` in a fresh process: (seconds in main, peak resident MB, stdout)."""
    import subprocess

    run = subprocess.run(
        [sys.executable, "-c", _CLI_LAUNCHER, *argv], capture_output=True, text=True
    )
    last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    if run.returncode or not last.startswith("BENCH rc=0 "):
        raise RuntimeError(f"daskpad {' '.join(argv)} failed:\n{run.stdout}\n{run.stderr}")
    fields = dict(f.split("=") for f in last.split()[1:])
    return float(fields["s"]), int(fields["maxrss_kb"]) / 1024, run.stdout


def _cli_geometry(cfg):
    """(grid sides n, chunk side, --memory of the tiled runs)."""
    sides = (4, 8) if cfg.quick else (8, 16, 32)
    chunk = 64 if cfg.quick else 1024
    memory = "64kB" if cfg.quick else "256MB"
    return sides, chunk, memory


def _write_source(src: Path, n: int, chunk: int) -> None:
    """A zarr store (format 3, zstd) of a lazily generated n x n-block float32 variable."""
    import xarray as xr

    shutil.rmtree(src, ignore_errors=True)
    x = lazy_source((n * chunk,) * 2, (chunk, chunk))
    xr.Dataset({"v": (("y", "x"), x)}).to_zarr(src, zarr_format=3, consolidated=False)


def _cli_argv(case: str, src: Path, dst: Path, mode: str, memory: str) -> list[str]:
    """The command of a case: "unpadded" (a copy, a zero width), "whole" (in one piece),
    "tiled" (tile by tile under ``memory``)."""
    if case == "unpadded":
        return ["pad", str(src), str(dst), "--width", "y=0"]
    widths = ["--width", "y=16", "--width", "x=16", "--mode", mode]
    limit = "1TB" if case == "whole" else memory
    return ["pad", str(src), str(dst), *widths, "--memory", limit]


def _tiles(out: str) -> int:
    """Tiles the command wrote, from its first line of output (1: written in one piece)."""
    first = out.splitlines()[0]
    tiled = " tiles, each reading" in first
    return int(first.split(" in ")[1].split()[0]) if tiled else 1


def section_cli(cfg) -> list[dict]:
    """The command on a zarr store of n x n blocks (reflect, and mean over the whole axis;
    pad 16, regular chunks): time and peak resident memory of the process, written in one
    piece and tile by tile."""
    sides, chunk, memory = _cli_geometry(cfg)
    block_mb = chunk * chunk * 4 / 1e6
    tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-", dir=cfg.tmp))
    rows = []

    def best_of(argv: list[str]) -> tuple[float, float, str]:
        best = (math.inf, 0.0, "")
        for _ in range(cfg.repeat):
            shutil.rmtree(dst, ignore_errors=True)
            best = min(best, _run_cli([*argv, "--no-progress"]))
        return best

    try:
        for n in sides:
            src, dst = tmp / "src.zarr", tmp / "dst.zarr"
            _write_source(src, n, chunk)
            t_copy, rss_copy, _ = best_of(_cli_argv("unpadded", src, dst, "", memory))
            for mode in ("reflect", "mean"):
                row: dict[str, Any] = {
                    "blocks": f"{n} x {n}",
                    "mode": mode,
                    "input MB": n * n * block_mb,
                    "unpadded s": t_copy,
                    "unpadded RSS MB": rss_copy,
                }
                for case in ("whole", "tiled"):
                    t, rss, out = best_of(_cli_argv(case, src, dst, mode, memory))
                    row[f"{case} s"] = t
                    row[f"{case} RSS MB"] = rss
                    if case == "tiled":
                        row["tiles"] = _tiles(out)
                        row["--memory"] = memory
                row["whole ratio"] = _ratio(row["whole s"], t_copy)
                row["tiled ratio"] = _ratio(row["tiled s"], t_copy)
                rows.append(row)
                _progress(cfg, "cli", row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class Command:
    """``daskpad pad`` in a fresh process: seconds in ``main`` and peak resident memory,
    unpadded (a copy), in one piece and tile by tile."""

    params = (["unpadded", "whole", "tiled"], ["reflect", "mean"], [16, 64])
    param_names = ("case", "mode", "blocks")
    tmp: Path | None = None

    def setup(self, case: str, mode: str, blocks: int) -> None:
        if case == "unpadded" and mode != "reflect":
            skip("the copy is the same for every mode: see mode='reflect'")
        _, chunk, memory = _cli_geometry(QUICK)
        self.tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-"))
        src, self.dst = self.tmp / "src.zarr", self.tmp / "dst.zarr"
        _write_source(src, int(blocks**0.5), chunk)
        self.argv = [*_cli_argv(case, src, self.dst, mode, memory), "--no-progress"]

    def teardown(self, case: str, mode: str, blocks: int) -> None:
        # (asv calls it after a skipped setup too)
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _run(self) -> tuple[float, float, str]:
        shutil.rmtree(self.dst, ignore_errors=True)
        return _run_cli(self.argv)

    def track_seconds_in_main(self, case: str, mode: str, blocks: int) -> float:
        return self._run()[0]

    track_seconds_in_main.unit = "seconds"

    def track_peak_rss(self, case: str, mode: str, blocks: int) -> float:
        """The command's peak resident memory (VmHWM), MB."""
        return self._run()[1]

    track_peak_rss.unit = "MB"

    def track_tiles(self, case: str, mode: str, blocks: int) -> int:
        return _tiles(self._run()[2])

    track_tiles.unit = "tiles"
