"""``daskpad pad --chunk-grid rectilinear`` beside the regular grid and ``cp -r``.

A zarr v3 store of one float32 variable, ``n x n`` (default 32768: 4.3 GB decoded) in
chunks of ``--chunk`` (1024) on each side, zstd level 3, padded 256 along both dimensions
with ``reflect``, ``constant`` and ``lat=symmetric,lon=wrap``. Each round runs, in turn,
``cp -r`` of the input, the command with the regular grid and with the rectilinear grid,
each in a fresh process (seconds of the whole process: the command's start included), DST
removed and the disk synced between runs. ``--cold`` evicts the input's pages
(``POSIX_FADV_DONTNEED`` per file) before every run; without it, each run starts with the
input read into the page cache and the command's modules read once (a warm start).
Reported: medians over ``--repeat`` rounds, their ratios, and the peak resident memory of
each command.

    python -m benchmarks.rectilinear --store /tmp/big.zarr [--n 32768] [--repeat 3]
        [--cold] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .common import machine

MODES = {
    "reflect": ["--mode", "reflect"],
    "constant": ["--mode", "constant"],
    "lat=symmetric,lon=wrap": ["--mode", "lat=symmetric", "--mode", "lon=wrap"],
}

_TIMED = """
import resource, sys
from _daskpad_launcher import main
rc = main()
with open("/proc/self/status") as f:
    kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
print(f"BENCH rc={rc} maxrss_kb={kb}", file=sys.stderr)
sys.exit(rc)
"""


def build(store: Path, n: int, chunk: int = 1024) -> None:
    """The input: a smooth field with noise, float32, chunks of ``chunk``, zstd level 3."""
    import dask.array as da
    import numpy as np
    import xarray as xr
    import zarr

    def field(block: np.ndarray, block_info=None) -> np.ndarray:
        (r0, r1), (c0, c1) = block_info[None]["array-location"]
        i = np.arange(r0, r1, dtype=np.float32)[:, None]
        j = np.arange(c0, c1, dtype=np.float32)[None, :]
        rng = np.random.default_rng(r0 * n + c0)
        noise = rng.standard_normal((r1 - r0, c1 - c0), dtype=np.float32)
        return (np.sin(i / 500) * np.cos(j / 700) * 20 + 280 + noise).astype(np.float32)

    f4 = np.dtype("float32")
    x = da.zeros((n, n), chunks=chunk, dtype=f4).map_blocks(field, dtype=f4)
    ds = xr.Dataset(
        {"t": (("lat", "lon"), x)},
        coords={"lat": np.linspace(-90, 90, n), "lon": np.arange(n) * (360 / n)},
    )
    codec = zarr.codecs.ZstdCodec(level=3)
    ds.to_zarr(store, zarr_format=3, encoding={"t": {"compressors": [codec]}}, consolidated=True)


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
    """Read every file under ``path`` into the page cache, and the command's modules (this
    machine's kernel pages out what was not used for a while)."""
    for folder, _, files in os.walk(path):
        for name in files:
            with open(os.path.join(folder, name), "rb") as f:
                while f.read(1 << 24):
                    pass
    subprocess.run([sys.executable, "-c", "import daskpad.cli"], check=True)


def run(argv: list[str], src: Path, dst: Path, cold: bool) -> tuple[float, float | None]:
    """Seconds of ``argv`` in a fresh process, and its peak resident MB (commands)."""
    shutil.rmtree(dst, ignore_errors=True)
    os.sync()
    if cold:
        evict(src)
    else:
        warm(src)
    env = {**os.environ, "ZARR_ARRAY__RECTILINEAR_CHUNKS": "True"}
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")
    peak = None
    for line in done.stderr.splitlines():
        if line.startswith("BENCH "):
            peak = int(line.split("maxrss_kb=")[1]) / 1024
    shutil.rmtree(dst, ignore_errors=True)
    return seconds, peak


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--n", type=int, default=32768)
    p.add_argument("--chunk", type=int, default=1024)
    p.add_argument("--width", type=int, default=256)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--cold", action="store_true")
    p.add_argument("--modes", nargs="*", default=list(MODES))
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    if not (args.store / "zarr.json").exists():
        build(args.store, args.n, args.chunk)
    dst = args.store.with_name(args.store.name + ".out")
    widths = ["--width", f"lat={args.width}", "--width", f"lon={args.width}"]
    command = [sys.executable, "-c", _TIMED, "pad", str(args.store), str(dst), *widths]
    lines = [
        f"`python -m benchmarks.rectilinear --n {args.n} --chunk {args.chunk} "
        f"--width {args.width} "
        f"--repeat {args.repeat}{' --cold' if args.cold else ''}`, "
        f"{time.strftime('%Y-%m-%d')}, {machine()}",
        "",
        "| mode | cp -r s | regular s | rectilinear s | rect/regular | rect/cp | "
        "regular MB | rect MB |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode in args.modes:
        times: dict[str, list[float]] = {"cp": [], "regular": [], "rect": []}
        peaks: dict[str, list[float]] = {"regular": [], "rect": []}
        for _ in range(args.repeat):
            copy = ["cp", "-r", str(args.store), str(dst)]
            times["cp"].append(run(copy, args.store, dst, args.cold)[0])
            for name, extra in (("regular", []), ("rect", ["--chunk-grid", "rectilinear"])):
                s, mb = run([*command, *MODES[mode], *extra], args.store, dst, args.cold)
                times[name].append(s)
                peaks[name].append(mb or 0.0)
            print(mode, {k: round(v[-1], 2) for k, v in times.items()}, flush=True)
        cp, reg, rect = (statistics.median(times[k]) for k in ("cp", "regular", "rect"))
        lines.append(
            f"| {mode} | {cp:.2f} | {reg:.2f} | {rect:.2f} | {rect / reg:.2f}x | "
            f"{rect / cp:.2f}x | {max(peaks['regular']):.0f} | {max(peaks['rect']):.0f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
