"""storemem: input blocks held at once while an n x n-block float32 array is padded and
stored to zarr with regular chunks.

n = 8, 16, 32 (256 x 256 chunks, pad 16, local threads), the blocks counted with weakref
finalizers; dask.array.pad's result rechunked. Also ``daskpad.to_zarr`` (tile by tile,
tiles reading at most 6 x 6 blocks). asv: the ``--quick`` grids (4 x 4 and 8 x 8 blocks of
64 x 64, pad 4), "daskpad.to_zarr" shown as one more library.
"""

from __future__ import annotations

import gc
import shutil
import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any

import dask
import dask.array as da
import numpy as np

import daskpad
from daskpad.core.chunks import regular_chunks

from .bench_correctness import skip_unless_right, verdict
from .common import LIBS, QUICK, _progress, skip
from .sources import store_zarr
from .timing import measure

TILED = "daskpad.to_zarr"
STOREMEM_MODES = ["(no pad)", "constant", "reflect", "wrap", "linear_ramp", "mean"]


class CountedSource:
    """A float32 array generated block by block whose blocks are counted while alive
    (weakref finalizers): ``peak`` is the most input blocks held at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.alive = 0
        self.peak = 0

    def array(self, n: int, chunk: int) -> da.Array:
        chunks = ((chunk,) * n,) * 2
        meta = np.empty((0, 0), dtype=np.float32)
        return da.map_blocks(self._block, chunks=chunks, dtype=np.float32, meta=meta)

    def reset(self) -> None:
        gc.collect()
        self.peak = self.alive

    def _block(self, block_info=None) -> np.ndarray:
        block = np.ones(block_info[None]["chunk-shape"], dtype=np.float32)
        with self.lock:
            self.alive += 1
            self.peak = max(self.peak, self.alive)
        weakref.finalize(block, self._release)
        return block

    def _release(self) -> None:
        with self.lock:
            self.alive -= 1


def _storemem_geometry(cfg):
    """(grid sides n, chunk side, pad width)."""
    sides = (4, 8) if cfg.quick else (8, 16, 32)
    chunk, w = (64, 4) if cfg.quick else (256, 16)
    return sides, chunk, w


def _store_case(lib: str, fn, n: int, chunk: int, w: int, mode: str, where: str):
    """(the counted source, the store) of one library, to zarr with regular chunks."""
    source = CountedSource()
    x = source.array(n, chunk)
    if mode == "(no pad)":
        y = x
    elif lib == "daskpad":
        y = daskpad.pad(x, w, mode, chunks="regular")
    else:  # store_zarr rechunks dask.array.pad's result to these chunks
        y = fn(x, w, mode)
    target = regular_chunks(x.chunks, y.shape)

    def run() -> None:
        source.reset()
        store_zarr(y, where, target)

    return source, run


def _tiled_case(n: int, chunk: int, w: int, mode: str, where: str):
    """(the counted source, the store) with daskpad.to_zarr: tiles reading at most 6 x 6
    input blocks (a whole-axis statistic: computed first, a few lines at a time)."""
    source = CountedSource()
    y = daskpad.pad(source.array(n, chunk), w, mode, chunks="regular")

    def tiled() -> None:
        source.reset()
        daskpad.to_zarr(y, where, memory=36 * chunk * chunk * 4, compressors=None, overwrite=True)

    return source, tiled


def _storemem_row(n: int, chunk: int, w: int, mode: str, tmp: Path) -> dict:
    row: dict[str, Any] = {"blocks": f"{n} x {n}", "mode": mode}
    for lib, fn in LIBS.items():
        if verdict(lib, mode) == "unsupported" or (mode == "(no pad)" and lib != "daskpad"):
            continue
        where = str(tmp / f"{lib}.zarr")
        source, run = _store_case(lib, fn, n, chunk, w, mode, where)
        t, m, _, _ = measure(run)
        row[f"{lib} s"] = t
        row[f"{lib} MB"] = m
        row[f"{lib} held blocks"] = source.peak
        if mode != "(no pad)" and verdict(lib, mode) == "wrong":
            row[f"{lib} s"] = "wrong"
        if lib == "daskpad" and mode != "(no pad)":
            source, tiled = _tiled_case(n, chunk, w, mode, where)
            t, m, _, _ = measure(tiled)
            row["daskpad.to_zarr s"] = t
            row["daskpad.to_zarr held blocks"] = source.peak
    return row


def section_storemem(cfg) -> list[dict]:
    """Input blocks held while a padded n x n-block array is stored to zarr with regular
    chunks, for growing n: what a store of a far bigger grid would hold."""
    sides, chunk, w = _storemem_geometry(cfg)
    tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-", dir=cfg.tmp))
    rows = []
    try:
        with dask.config.set(scheduler="threads"):
            for n in sides:
                for mode in STOREMEM_MODES:
                    rows.append(_storemem_row(n, chunk, w, mode, tmp))
                    _progress(cfg, "storemem", rows[-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class StoreMem:
    """Pad and store to zarr with regular chunks on local threads: time, memory, and the
    input blocks held at once."""

    params = ([*LIBS, TILED], STOREMEM_MODES, [n * n for n in _storemem_geometry(QUICK)[0]])
    param_names = ("library", "mode", "blocks")
    tmp: Path | None = None

    def setup(self, lib: str, mode: str, blocks: int) -> None:
        if mode == "(no pad)" and lib != "daskpad":
            skip("the unpadded store is daskpad's row")
        if lib == "dask.array.pad":
            skip_unless_right(lib, mode)
        _, chunk, w = _storemem_geometry(QUICK)
        n = int(blocks**0.5)
        self.tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-"))
        where = str(self.tmp / "out.zarr")
        if lib == TILED:
            self.source, self.run = _tiled_case(n, chunk, w, mode, where)
        else:
            self.source, self.run = _store_case(lib, LIBS[lib], n, chunk, w, mode, where)

    def teardown(self, lib: str, mode: str, blocks: int) -> None:
        # (asv calls it after a skipped setup too)
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def time_store(self, lib: str, mode: str, blocks: int) -> None:
        with dask.config.set(scheduler="threads"):
            self.run()

    def peakmem_store(self, lib: str, mode: str, blocks: int) -> None:
        with dask.config.set(scheduler="threads"):
            self.run()

    def track_held_blocks(self, lib: str, mode: str, blocks: int) -> int:
        """The most input blocks alive at once during the store."""
        with dask.config.set(scheduler="threads"):
            self.run()
        return self.source.peak

    track_held_blocks.unit = "blocks"
