"""datasets: ``daskpad pad`` on stores shaped like ERA5 and CMIP, beside the floors of
copying the store and of its codec.

The stores (:mod:`benchmarks.datasets`, written once under ``--tmp`` and kept): ERA5-like,
2.5 GB decoded (time 408 x latitude 721 x longitude 1440 in chunks of 6 x 180 x 360,
``t2m`` int16-packed, ``tp`` float32), and CMIP-like, 0.8 GB (daily ``noleap`` time 3650 x
lat 192 x lon 288 in chunks of 73 x 96 x 288, float32 with ``_FillValue`` 1e20 and
missing values); ``--quick``: 24 and 146 steps. Each is padded by 4 along its latitudes
with ``symmetric`` and 8 along its longitudes with ``wrap``.

Each round runs, in turn (the order rotating), in processes of their own:

- ``cp -r`` of the store;
- ``decode``: every chunk a pad reads (those within a pad's width plus one of either
  end, along a padded dimension) read and decoded once, with numcodecs on 2 threads, no
  dask and no zarr: with ``cp -r``, the **copy floor**;
- ``codec``: every chunk read, decoded, encoded and written once the same way: the
  **codec floor**;
- the command on the regular grid (``regular``), with ``--chunk-grid rectilinear``
  (``rect``) and on the regular grid with ``--workers 2`` (``workers``).

Seconds are whole processes (the command's start included, its modules compiled to
bytecode beforehand as an installed package's are), the input in the page cache
and DST removed and the disk synced before each run; the copy floor is ``cp -r`` plus
``decode`` of the same round. Reported: medians over ``--repeat`` rounds, the ratios of
the medians ``rect / copy floor``, ``regular / codec floor`` and ``workers / regular``,
the command's peak resident memory (its own process; a cluster's workers are not
counted) and its ``--memory``. No asv benchmark: it times whole processes and the disk.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .bench_rectilinear import RECTILINEAR, warm
from .common import _progress, _ratio
from .datasets import cmip_like, era5_like
from .timing import Took, command, rounds

#: name: (writer, steps in full and --quick, latitude and longitude names)
DATASETS = {
    "ERA5-like": (era5_like, (408, 24), "latitude", "longitude"),
    "CMIP-like": (cmip_like, (3650, 146), "lat", "lon"),
}
LAT_WIDTH, LON_WIDTH = 4, 8

# The floors run in a process of their own (numcodecs on 2 threads), given the store,
# what to do ("decode" or "codec"), the chunks (JSON) and, for "codec", where to write.
_FLOORS = """
import json, os, sys, time
from concurrent.futures import ThreadPoolExecutor
import numcodecs
store, what, where = sys.argv[1], sys.argv[2], sys.argv[4]
chunks = json.loads(sys.argv[3])
codecs = {}
for var in {v for v, _ in chunks}:
    with open(os.path.join(store, var, "zarr.json")) as f:
        doc = json.load(f)
    chain = [c for c in doc["codecs"] if c["name"] not in ("bytes", "transpose")]
    codecs[var] = [numcodecs.get_codec({"id": c["name"], **c.get("configuration", {})})
                   for c in chain]
def one(i):
    var, key = chunks[i]
    with open(os.path.join(store, var, key), "rb") as f:
        data = f.read()
    for c in reversed(codecs[var]):
        data = c.decode(data)
    if what == "codec":
        for c in codecs[var]:
            data = c.encode(data)
        with open(os.path.join(where, str(i)), "wb") as f:
            f.write(data)
t0 = time.perf_counter()
with ThreadPoolExecutor(2) as pool:
    list(pool.map(one, range(len(chunks))))
print(time.perf_counter() - t0)
"""


def _store(cfg: Any, name: str) -> tuple[Path, str, str]:
    write, steps, lat, lon = DATASETS[name]
    n = steps[1] if cfg.quick else steps[0]
    where = Path(cfg.tmp or tempfile.gettempdir())
    path = where / f"daskpad-{name.lower()}-{n}.zarr"
    if not (path / "zarr.json").exists():
        shutil.rmtree(path, ignore_errors=True)
        write(path, n)
    return path, lat, lon


def stored_chunks(store: Path) -> dict[str, list[tuple[tuple[int, ...], str]]]:
    """Per data variable of the zarr v3 ``store`` (those of 2 or more dimensions), its
    chunk objects: index and key."""
    out = {}
    for var in sorted(os.listdir(store)):
        doc_path = store / var / "zarr.json"
        if not doc_path.exists():
            continue
        doc = json.loads(doc_path.read_text())
        if doc.get("node_type") != "array" or len(doc["shape"]) < 2:
            continue
        found = []
        for folder, _, files in os.walk(store / var / "c"):
            for f in files:
                key = os.path.relpath(os.path.join(folder, f), store / var)
                index = tuple(int(p) for p in key.split(os.sep)[1:])
                found.append((index, key))
        out[var] = sorted(found)
    return out


def read_by_pads(store: Path, widths: dict[str, int]) -> list[tuple[str, str]]:
    """``(variable, key)`` of every chunk of ``store`` that a pad of ``widths`` (per
    dimension name, either side) reads: those within the width plus one of either end
    of a padded dimension."""
    out = []
    for var, found in stored_chunks(store).items():
        doc = json.loads((store / var / "zarr.json").read_text())
        chunk = doc["chunk_grid"]["configuration"]["chunk_shape"]
        near = []
        for dim, n, c in zip(doc["dimension_names"], doc["shape"], chunk):
            w = widths.get(dim)
            if not w:
                near.append(set())
                continue
            first = set(range(0, min(w + 1, n) // c + 1))
            last = set(range(max(0, n - w - 1) // c, (n - 1) // c + 1))
            near.append(first | last)
        out += [(var, key) for index, key in found if any(i in s for i, s in zip(index, near))]
    return out


def _floor(store: Path, what: str, chunks: list[tuple[str, str]], where: Path) -> Took:
    where.mkdir(parents=True, exist_ok=True)
    try:
        argv = [sys.executable, "-c", _FLOORS, str(store), what, json.dumps(chunks), str(where)]
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        return Took(time.perf_counter() - t0, 0.0)
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _fresh(src: Path, dst: Path) -> None:
    shutil.rmtree(dst, ignore_errors=True)
    os.sync()
    warm(src)


def section_datasets(cfg: Any) -> list[dict]:
    rows = []
    for name in DATASETS:
        src, lat, lon = _store(cfg, name)
        dst = src.with_name(src.name + ".out")
        scratch = src.with_name(src.name + ".codec")
        widths = {lat: LAT_WIDTH, lon: LON_WIDTH}
        read = read_by_pads(src, widths)
        every = [(v, k) for v, found in stored_chunks(src).items() for _, k in found]
        pad = ["pad", str(src), str(dst), "--no-progress"]
        pad += ["--width", f"{lat}={LAT_WIDTH}", "--mode", f"{lat}=symmetric"]
        pad += ["--width", f"{lon}={LON_WIDTH}", "--mode", f"{lon}=wrap"]
        runs = {
            "regular": pad,
            "rect": [*pad, "--chunk-grid", "rectilinear"],
            "workers": [*pad, "--workers", "2"],
        }

        def cp(src: Path = src, dst: Path = dst) -> Took:
            _fresh(src, dst)
            t0 = time.perf_counter()
            subprocess.run(["cp", "-r", str(src), str(dst)], check=True)
            return Took(time.perf_counter() - t0, 0.0)

        def floor(
            what: str, chunks: list, src: Path = src, dst: Path = dst, scratch: Path = scratch
        ) -> Took:
            _fresh(src, dst)
            return _floor(src, what, chunks, scratch)

        def run(argv: list[str], src: Path = src, dst: Path = dst) -> Took:
            _fresh(src, dst)
            try:
                done = command(argv, env=RECTILINEAR)
            finally:
                shutil.rmtree(dst, ignore_errors=True)
            return Took(done.process_s, done.mb)

        fns = {
            "cp": cp,
            "decode": lambda read=read: floor("decode", read),
            "codec": lambda every=every: floor("codec", every),
            **{k: (lambda argv=argv: run(argv)) for k, argv in runs.items()},
        }
        got = rounds(fns, cfg.repeat, memory=False)
        copy_floor = statistics.median(
            a + b for a, b in zip(got.seconds["cp"], got.seconds["decode"])
        )
        med = {k: got.median(k) for k in fns}
        row = {
            "store": f"{name} ({len(every)} chunks, {len(read)} read by the pads)",
            "cp -r s": med["cp"],
            "copy floor s": copy_floor,
            "codec floor s": med["codec"],
            "rect s": med["rect"],
            "rect / copy floor": _ratio(med["rect"], copy_floor),
            "regular s": med["regular"],
            "regular / codec floor": _ratio(med["regular"], med["codec"]),
            "workers 2 s": med["workers"],
            "workers / regular": _ratio(med["workers"], med["regular"]),
            "regular MB": max(got.mb["regular"]),
            "rect MB": max(got.mb["rect"]),
        }
        rows.append(row)
        _progress(cfg, "datasets", row)
    return rows
