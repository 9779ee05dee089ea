"""storemem: input blocks held at once while an n x n-block float32 array is padded and
stored to zarr with regular chunks.

n = 8, 16, 32 (256 x 256 chunks, pad 16, local threads), the blocks counted with weakref
finalizers; dask.array.pad's result rechunked. Also ``daskpad.to_zarr`` (tile by tile,
tiles reading at most 6 x 6 blocks). asv: the ``--quick`` grids (4 x 4 and 8 x 8 blocks of
64 x 64, pad 4), "daskpad.to_zarr" shown as one more library.
"""

from __future__ import annotations

import gc
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
from .common import (
    DASK,
    LIBS,
    QUICK,
    Made,
    Probe,
    _ProbeSuite,
    _progress,
    key_params,
    peakmem,
    probes,
    timed,
    tracked,
)
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


def _probe(lib: str, mode: str, n: int) -> Probe:
    """One library's store (or daskpad.to_zarr's, ``TILED``) of the n x n-block grid in
    one mode, into a directory of its own: the run "store" and, after it, the count "held
    blocks"."""

    def make(cfg) -> Made:
        _, chunk, w = _storemem_geometry(cfg)
        tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-", dir=cfg.tmp))
        where = str(tmp / "out.zarr")
        if lib == TILED:
            source, run = _tiled_case(n, chunk, w, mode, where)
        else:
            source, run = _store_case(lib, LIBS[lib], n, chunk, w, mode, where)
        return Made({"store": run}, {"held blocks": lambda: source.peak}, tmp)

    return Probe((lib, mode, n * n), make)


#: asv's: the ``--quick`` grids; the unpadded store is daskpad's alone
PROBES = probes(
    *(
        _probe(lib, mode, n)
        for lib in [*LIBS, TILED]
        for mode in STOREMEM_MODES
        for n in _storemem_geometry(QUICK)[0]
        if lib == "daskpad" or mode != "(no pad)"
    )
)


def _measured(row: dict, cfg, lib: str, mode: str, n: int, memory: bool = True) -> None:
    """One store's cells: "<lib> s", "<lib> MB" (with ``memory``), "<lib> held blocks"."""
    made = _probe(lib, mode, n).make(cfg)
    try:
        t, m, _, _ = measure(made.runs["store"])
    finally:
        made.remove()
    row[f"{lib} s"] = t
    if memory:
        row[f"{lib} MB"] = m
    row[f"{lib} held blocks"] = made.counts["held blocks"]()


def _storemem_row(cfg, n: int, mode: str) -> dict:
    row: dict[str, Any] = {"blocks": f"{n} x {n}", "mode": mode}
    for lib in LIBS:
        if verdict(lib, mode) == "unsupported" or (mode == "(no pad)" and lib != "daskpad"):
            continue
        _measured(row, cfg, lib, mode, n)
        if mode != "(no pad)" and verdict(lib, mode) == "wrong":
            row[f"{lib} s"] = "wrong"
        if lib == "daskpad" and mode != "(no pad)":
            _measured(row, cfg, TILED, mode, n, memory=False)
    return row


def section_storemem(cfg) -> list[dict]:
    """Input blocks held while a padded n x n-block array is stored to zarr with regular
    chunks, for growing n: what a store of a far bigger grid would hold."""
    rows = []
    with dask.config.set(scheduler="threads"):
        for n in _storemem_geometry(cfg)[0]:
            for mode in STOREMEM_MODES:
                rows.append(_storemem_row(cfg, n, mode))
                _progress(cfg, "storemem", rows[-1])
    return rows


class StoreMem(_ProbeSuite):
    """Pad and store to zarr with regular chunks on local threads: time, memory, and the
    input blocks held at once; dask.array.pad is skipped where it lacks the mode or gets it
    wrong."""

    probes = PROBES
    params, param_names = key_params(PROBES, "library", "mode", "blocks")
    time_store = timed("store")
    peakmem_store = peakmem("store")
    track_held_blocks = tracked("held blocks", "blocks", after="store")

    def check(self, lib: str, mode: str, blocks: int) -> None:
        if lib == DASK:
            skip_unless_right(lib, mode)
