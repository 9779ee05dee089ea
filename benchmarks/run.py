"""Side-by-side benchmarks: daskpad, dask.array.pad and numpy.pad in one run.

    python benchmarks/run.py [--quick] [--out RESULTS.md] [--json results.json]
                             [--only SECTION ...] [--repeat 3] [--big-gb 48]
                             [--full-build] [--cluster-side 12288 --cluster-chunk 2048
                              --cluster-width 64]

Prints one markdown table per section, with wall times, ratios, task counts and peak
resident memory, and writes the raw numbers as JSON (``benchmarks/plot.py`` reads it).
``--quick`` shrinks every size so the whole run takes well under a minute (CI runs it).
Timed cases are the best of ``--repeat`` runs (default 3, 1 with ``--quick``); in the
pipeline and cluster sections each case is run in turn with its unpadded baseline, round by
round, so both see the same machine (a small VM drifts by 10-30% over minutes).

Sections
--------
correctness  dask.array.pad and daskpad against numpy.pad on small tricky cases per mode
             (widths wider than the axis, odd reflection, per-side values). A mode that
             dask.array.pad gets wrong there shows "wrong" in every later table.
inmem        ~300 MB numpy arrays in 1, 2 and 3 dimensions, padded and computed into memory.
build        graph build at 10^4..10^6 chunks (2-D, 4x4 chunks, pad 3), each library and
             mode on a fresh ``da.zeros`` input (a shared one would hand the second
             library the first one's cached input layer). Columns per library:
             "call s" the pad call alone; "materialise s" ``dict(y.__dask_graph__())``;
             "build s" their sum and "build net s" the same minus "input materialise s"
             (the bare input's own ``dict(x.__dask_graph__())``); "opt+mat s"
             ``dict(y.__dask_optimize__(graph, keys))``; "tasks" tasks added (the whole
             graph minus "input tasks") and "tasks raw" the whole graph. Modes: reflect,
             constant, mean stat_length=2, mean and median with stat_length=None (the whole
             axis; dask.array.pad has no median). "-" is not measured: "opt+mat s" from
             10^6 chunks (minutes; ``--full-build`` measures it), and everything but
             "call s" for the whole-axis statistics from 10^6 chunks.
pipeline     pad+reduce and pad+store (zarr) of a lazily generated float32 array, local
             threads, against the same pipeline without padding: pad 64 on 28672 x 28672
             (3.3 GB, 4096 x 4096 chunks), the scale targets' "3 GB" case. "pad+store
             tiled": daskpad's result stored with ``daskpad.to_zarr`` (default memory).
cluster      the same on a 2-worker LocalCluster (process workers), by default on
             12288 x 12288 (0.6 GB, 2048 x 2048 chunks), pad 64 (``--cluster-*``).
callable     mode=<function> on a ~1 GB array: time and peak memory.
wide         pads wider than the axis.
storemem     input blocks held at once (counted with weakref finalizers) while an n x n-block
             float32 array is padded and stored to zarr with regular chunks, n = 8, 16, 32
             (256 x 256 chunks, pad 16, local threads); dask.array.pad's result rechunked.
             Also ``daskpad.to_zarr`` (tile by tile, tiles reading at most 6 x 6 blocks).
cli          the ``daskpad`` command (a fresh process per run) on a zarr store of n x n blocks
             of 1024 x 1024 float32 (n = 8, 16, 32; zstd), reflect, pad 16 along both
             dimensions, regular chunks: seconds in ``main`` and the process's peak
             resident memory, written in one piece (``--memory 1TB``) and tile by tile
             (``--memory 256MB``), against the same command with a zero width (a copy).
big          a lazily generated array larger than this machine's memory, padded in every
             mode and reduced, with peak resident memory; each mode is timed right after
             the same sum unpadded, its baseline. ``median`` reads 256 elements
             at each edge (``median:256``): a whole-axis median holds whole lines along
             each axis in turn, about the whole array (``--big-modes median`` runs it).

Memory: "<lib> MB" is the highest resident set size of this process, sampled every few
milliseconds while the case runs, minus the resident size just before it. The allocator
keeps memory freed by earlier cases, so small cases late in a run can read near 0; the
"RSS MB" columns (callable, big) give the absolute peak of the whole process, an upper
bound. Run a section alone (``--only big``) for a clean baseline.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import platform
import shutil
import sys
import tempfile
import threading
import time
import warnings
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import dask.array as da
import numpy as np

import daskpad
from daskpad._chunks import regular_chunks
from daskpad._modes import MODES
from daskpad._tiling import zarr_can_store

HERE = Path(__file__).resolve().parent
ALL_MODES = sorted(MODES)
# the bigger-than-memory modes: a whole-axis median would hold about the whole array
BIG_MODES = [m for m in ALL_MODES if m != "median"] + ["median:256"]
SLAB_MODES = ["constant", "edge", "linear_ramp", "reflect", "symmetric", "wrap"]
PAGE = os.sysconf("SC_PAGE_SIZE")


# --------------------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------------------


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class PeakRSS:
    """Sample this process's resident set size in a background thread."""

    def __init__(self, interval: float = 0.003):
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()

    def __enter__(self) -> PeakRSS:
        gc.collect()
        self.base = _rss()
        self.peak = self.base
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _rss())
            time.sleep(self.interval)

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())

    @property
    def mb(self) -> float:
        return (self.peak - self.base) / 2**20


LAST_PEAK = {"MB": 0.0}  # absolute peak resident MB of this process in the last timed()


def timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, float, Any]:
    """(best wall seconds, peak extra MB of the best run, result of the last run)."""
    best, peak, result = math.inf, 0.0, None
    LAST_PEAK["MB"] = 0.0
    for _ in range(repeat):
        result = None
        gc.collect()
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            result = fn()
            t = time.perf_counter() - t0
        if t < best:
            best, peak = t, mem.mb
        LAST_PEAK["MB"] = max(LAST_PEAK["MB"], mem.peak / 2**20)
    return best, peak, result


def timed_together(
    fns: dict[str, Callable[[], Any]], repeat: int = 1
) -> dict[str, tuple[float, float]]:
    """``{name: (best wall seconds, peak extra MB of the best run)}``, the functions run in
    turn in each of ``repeat`` rounds, so that a case and its baseline see the same machine
    (on a small VM the speed drifts by 10-30% over minutes)."""
    best = {name: (math.inf, 0.0) for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t, m, _ = timed(fn)
            if t < best[name][0]:
                best[name] = (t, m)
    return best


def tasks(x: da.Array) -> int:
    return len(x.__dask_graph__())


def _record(
    row: dict, lib: str, t: float, m: float, y: da.Array, ok: bool, rss: float | None = None
) -> None:
    """Fill one library's cells of a row: "<lib> s" (or "wrong"), "<lib> MB", optionally
    "<lib> RSS MB", and "<lib> tasks", in that column order."""
    row[f"{lib} s"] = t if ok else "wrong"
    row[f"{lib} MB"] = m
    if rss is not None:
        row[f"{lib} RSS MB"] = rss
    row[f"{lib} tasks"] = tasks(y)


# --------------------------------------------------------------------------------------
# the arguments each mode gets
# --------------------------------------------------------------------------------------


def user_pad(vector, iaxis_pad_width, iaxis, kwargs):
    """A user pad function (module level, so it pickles): a ramp away from the edges."""
    before, after = iaxis_pad_width
    if before:
        vector[:before] = vector[before] - np.arange(before, 0, -1)
    if after:
        vector[len(vector) - after :] = vector[-after - 1] + np.arange(1, after + 1)


TRICKY: dict[str, list[dict[str, Any]]] = {
    "constant": [{"constant_values": ((1, 2), (3, 4))}],
    "empty": [{}],
    "edge": [{}],
    "linear_ramp": [{"end_values": ((1, 2), (3, 4))}],
    "maximum": [{}, {"stat_length": ((2, 3), (1, 4))}],
    "mean": [{}, {"stat_length": ((2, 3), (1, 4))}],
    "median": [{}, {"stat_length": ((2, 3), (1, 4))}],
    "minimum": [{}, {"stat_length": ((2, 3), (1, 4))}],
    "reflect": [{}, {"reflect_type": "odd"}],
    "symmetric": [{}, {"reflect_type": "odd"}],
    "wrap": [{}],
    "callable": [{}],
}


def mode_arg(name: str) -> Any:
    return user_pad if name == "callable" else name


def same(name: str, got: np.ndarray, want: np.ndarray, interior=None) -> bool:
    if got.shape != want.shape:
        return False
    if name == "empty":
        return interior is None or bool(np.array_equal(got[interior], want[interior]))
    if name == "mean":
        return bool(np.allclose(got, want, rtol=1e-6, atol=1e-6 * float(np.abs(want).max())))
    return bool(np.array_equal(got, want))


def _dask_pad(x, widths, mode, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask.array.pad's PerformanceWarnings
        return da.pad(x, widths, mode=mode, **kwargs)


LIBS = {"daskpad": daskpad.pad, "dask.array.pad": _dask_pad}
VERDICT: dict[str, dict[str, str]] = {}  # lib -> mode -> "ok" / "wrong" / "unsupported"


def section_correctness(cfg) -> list[dict]:
    rows = []
    rng = np.random.default_rng(0)
    a = rng.integers(0, 100, (7, 5)).astype(np.float64)
    x = da.from_array(a, chunks=(3, 2))
    for widths in [((2, 1), (1, 2)), ((9, 2), (3, 12))]:
        for name, kwargs_list in TRICKY.items():
            for kwargs in kwargs_list:
                want = np.pad(a, widths, mode=mode_arg(name), **kwargs)
                row = {"mode": name, "kwargs": repr(kwargs), "widths": repr(widths)}
                for lib, fn in LIBS.items():
                    try:
                        got = fn(x, widths, mode_arg(name), **kwargs).compute(scheduler="sync")
                        verdict = "ok" if same(name, got, want) else "wrong"
                    except NotImplementedError:
                        verdict = "unsupported"
                    except Exception as e:  # any failure is a verdict
                        verdict = f"error ({type(e).__name__})"
                    row[lib] = verdict
                    worst = VERDICT.setdefault(lib, {}).get(name, "ok")
                    if worst == "ok":
                        VERDICT[lib][name] = verdict
                rows.append(row)
    return rows


def verdict(lib: str, mode: str) -> str:
    return VERDICT.get(lib, {}).get(mode, "ok")


# --------------------------------------------------------------------------------------
# sources
# --------------------------------------------------------------------------------------


def _positions(block: np.ndarray, block_info=None) -> np.ndarray:
    """A cheap deterministic float32 block: a smooth function of the global position."""
    loc = block_info[None]["array-location"]
    out = np.zeros(block.shape, dtype=np.float32)
    for axis, (start, stop) in enumerate(loc):
        idx = [None] * block.ndim
        idx[axis] = slice(None)
        out += (np.arange(start, stop, dtype=np.float32) * np.float32(1e-3 * (axis + 1)))[
            tuple(idx)
        ]
    return out


def lazy_source(shape: tuple[int, ...], chunks: tuple[int, ...]) -> da.Array:
    """A float32 array generated block by block, never held whole anywhere."""
    # (meta given: under dask's query planning, map_blocks cannot infer it from a function
    # that needs block_info, and keeps a scalar type given as dtype as the dtype itself)
    meta = np.empty((0,) * len(shape), dtype=np.float32)
    template = da.empty(shape, chunks=chunks, dtype=meta.dtype)
    return template.map_blocks(_positions, dtype=meta.dtype, meta=meta)


# --------------------------------------------------------------------------------------
# in-memory arrays, the three libraries
# --------------------------------------------------------------------------------------


def _inmem_cases(cfg):
    if cfg.quick:
        return [
            ("1-D", (100_000,), (25_000,), ((100, 300),)),
            ("2-D", (300, 320), (100, 160), ((5, 10), (8, 3))),
            ("3-D", (48, 48, 48), (24, 24, 24), ((2, 2), (2, 2), (2, 2))),
        ]
    return [  # float64, ~300 MB each
        ("1-D", (37_500_000,), (2_500_000,), ((1_000, 3_000),)),
        ("2-D", (6_000, 6_250), (1_000, 1_250), ((50, 100), (75, 25))),
        ("3-D", (336, 336, 336), (112, 112, 112), ((8, 8), (8, 8), (8, 8))),
    ]


def section_inmem(cfg) -> list[dict]:
    rows = []
    rng = np.random.default_rng(1)
    for label, shape, chunks, widths in _inmem_cases(cfg):
        a = rng.standard_normal(shape)
        x = da.from_array(a, chunks=chunks)
        for name in ALL_MODES:
            mode = mode_arg(name)
            t_np, m_np, want = timed(
                lambda a=a, w=widths, m=mode: np.pad(a, w, mode=m), cfg.repeat
            )
            interior = tuple(slice(b, b + n) for (b, _), n in zip(widths, shape))
            row = {
                "array": f"{label} {a.nbytes / 1e6:.0f} MB",
                "mode": name,
                "numpy s": t_np,
                "numpy MB": m_np,
            }
            for lib, fn in LIBS.items():
                if verdict(lib, name) == "unsupported":
                    row[f"{lib} s"] = "unsupported"
                    continue
                y = fn(x, widths, mode)
                t, m, got = timed(lambda y=y: y.compute(), cfg.repeat)
                ok = verdict(lib, name) == "ok" and same(name, got, want, interior)
                _record(row, lib, t, m, y, ok)
                del got
            del want
            rows.append(row)
            _progress(cfg, "inmem", row)
    return rows


# --------------------------------------------------------------------------------------
# graph build and tasks versus number of chunks
# --------------------------------------------------------------------------------------


BUILD_BIG_SIDE = 1_000  # from side x side = 10^6 chunks on, skip the slow measurements
BUILD_WIDTH = 3
# (label, mode, kwargs, what is measured). "full": call, materialise, tasks (and optimize
# below BUILD_BIG_SIDE or with --full-build); "whole": a statistic over the whole axis,
# "full" below BUILD_BIG_SIDE and the call alone from it on (its graph takes minutes).
# No stat_length is numpy's stat_length=None (the whole axis): dask.array.pad rejects an
# explicit None but means the same without it.
BUILD_CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("reflect", "reflect", {}, "full"),
    ("constant", "constant", {}, "full"),
    ("mean stat_length=2", "mean", {"stat_length": 2}, "full"),
    ("mean stat_length=None", "mean", {}, "whole"),
    ("median stat_length=None", "median", {}, "whole"),
]


def _build_input(side: int) -> da.Array:
    """A fresh input for every measurement: materialising a graph caches each layer's
    dict on the layer, so an input shared between libraries makes the second one cheap."""
    return da.zeros((side * 4, side * 4), chunks=4, dtype=np.float32)


def _clock(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _build_cell(fn, side: int, mode: str, kwargs: dict, materialise: bool, optimize: bool):
    """(call s, materialise s, tasks in the whole graph, optimize+materialise s) of one
    library and mode, None where not measured."""
    x = _build_input(side)
    t_call, y = _clock(lambda: fn(x, BUILD_WIDTH, mode, **kwargs))
    t_mat = n_tasks = t_opt = None
    if materialise:
        t_mat, graph = _clock(lambda: dict(y.__dask_graph__()))  # what compute does first
        n_tasks = len(graph)
        del graph
    del x, y
    gc.collect()
    if optimize:  # again from a fresh input: nothing cached by the materialisation above
        x = _build_input(side)
        y = fn(x, BUILD_WIDTH, mode, **kwargs)
        t_opt, graph = _clock(
            lambda: dict(y.__dask_optimize__(y.__dask_graph__(), y.__dask_keys__()))
        )
        del graph, x, y
        gc.collect()
    return t_call, t_mat, n_tasks, t_opt


def section_build(cfg) -> list[dict]:
    rows = []
    sides = [10, 32] if cfg.quick else [100, 316, 1000]
    for side in sides:
        big = side >= BUILD_BIG_SIDE
        t_input = math.inf
        for _ in range(2):  # best of 2 fresh inputs: the first one pays for warm-up
            x = _build_input(side)
            t, graph = _clock(lambda x=x: dict(x.__dask_graph__()))
            t_input, n_input = min(t_input, t), len(graph)
            del graph, x
            gc.collect()
        for label, mode, kwargs, what in BUILD_CASES:
            materialise = what == "full" or (what == "whole" and not big)
            optimize = materialise and (not big or cfg.full_build)
            row: dict[str, Any] = {
                "chunks": side * side,
                "mode": label,
                "input materialise s": t_input,
                "input tasks": n_input,
            }
            for lib, fn in LIBS.items():
                cells = dict.fromkeys(
                    ["call s", "materialise s", "build s", "build net s", "opt+mat s"]
                    + ["tasks", "tasks raw"]
                )
                try:
                    if verdict(lib, mode) == "unsupported":
                        raise NotImplementedError(mode)
                    t_call, t_mat, n_tasks, t_opt = _build_cell(
                        fn, side, mode, kwargs, materialise, optimize
                    )
                except NotImplementedError:
                    cells["call s"] = "unsupported"
                else:
                    cells["call s"] = t_call
                    cells["opt+mat s"] = t_opt
                    if t_mat is not None and n_tasks is not None:
                        cells["materialise s"] = t_mat
                        cells["build s"] = t_call + t_mat
                        cells["build net s"] = t_call + t_mat - t_input
                        cells["tasks"] = n_tasks - n_input
                        cells["tasks raw"] = n_tasks
                row.update({f"{lib} {k}": v for k, v in cells.items()})
            rows.append(row)
            _progress(cfg, "build", row)
    return rows


# --------------------------------------------------------------------------------------
# pipelines: pad + reduce, pad + store, against the same pipeline without the pad
# --------------------------------------------------------------------------------------


def _pipeline_geometry(cfg, cluster: bool = False):
    """(shape, chunks, pad width) of the lazily generated float32 source."""
    if cfg.quick:
        return (1_024, 1_024), (256, 256), 8
    if cluster:  # 12_288 / 2_048 / 64 by default: 0.6 GB
        n, c = cfg.cluster_side, cfg.cluster_chunk
        return (n, n), (c, c), cfg.cluster_width
    # the scale targets' "pad of 64 on a 3 GB lazily generated array": 3.3 GB, 7 x 7 chunks
    return (28_672, 28_672), (4_096, 4_096), 64


def _store(y: da.Array, where: str, regular: tuple[tuple[int, ...], ...]) -> None:
    """Write ``y`` to a new zarr store, first rechunked to ``regular`` unless zarr can take
    its chunks as they are."""
    if not zarr_can_store(y.chunks):
        y = y.rechunk(regular)
    da.to_zarr(y, where, compressors=None, overwrite=True)


def _pipelines(
    cfg, label: str, modes: list[str], store_modes: list[str], cluster=False, tiled=False
):
    shape, chunks, w = _pipeline_geometry(cfg, cluster)
    x = lazy_source(shape, chunks)
    padded_bytes = math.prod(n + 2 * w for n in shape) * 4
    byte_ratio = padded_bytes / x.nbytes
    tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-", dir=cfg.tmp))
    rows = []
    cases = [("reduce", mode, None) for mode in modes] + [
        ("store", mode, policy) for policy in ("regular", "even") for mode in store_modes
    ]
    if tiled:  # daskpad.to_zarr, tile by tile (statistics computed first)
        cases += [
            ("store tiled", mode, policy) for policy in ("regular", "even") for mode in store_modes
        ]
    baselines = {
        "reduce": lambda: x.sum(dtype=np.float64).compute(),
        "store": lambda: _store(x, str(tmp / "x.zarr"), x.chunks),
        "store tiled": lambda: _store(x, str(tmp / "x.zarr"), x.chunks),
    }
    try:
        for pipeline, mode, policy in cases:
            row: dict[str, Any] = {
                "pipeline": f"pad+{pipeline}",
                "mode": mode if policy is None else f"{mode} chunks={policy}",
            }
            runs: dict[str, Callable[[], Any]] = {"unpadded": baselines[pipeline]}
            padded: dict[str, da.Array] = {}
            for lib, fn in LIBS.items():
                if verdict(lib, mode) == "unsupported":
                    continue
                if pipeline == "store tiled":
                    if lib == "daskpad":
                        y = daskpad.pad(x, w, mode, chunks=policy)
                        runs[lib] = lambda y=y: daskpad.to_zarr(
                            y, tmp / "tiled.zarr", compressors=None, overwrite=True
                        )
                        padded[lib] = y
                    continue
                if pipeline == "reduce":
                    y = fn(x, w, mode)
                    runs[lib] = lambda y=y: y.sum(dtype=np.float64).compute()
                else:
                    # daskpad builds the policy's chunks itself; dask.array.pad's result is
                    # rechunked to the same chunks
                    y = (
                        daskpad.pad(x, w, mode, chunks=policy)
                        if lib == "daskpad"
                        else fn(x, w, mode)
                    )
                    target = regular_chunks(x.chunks, y.shape, even=policy == "even")
                    runs[lib] = lambda y=y, lib=lib, target=target: _store(
                        y, str(tmp / f"{lib}.zarr"), target
                    )
                padded[lib] = y
            # each case is timed in turn with its own unpadded baseline, round by round
            result = timed_together(runs, cfg.repeat)
            row["unpadded s"], row["unpadded MB"] = result["unpadded"]
            row["bytes ratio"] = byte_ratio
            for lib in LIBS:
                if lib not in padded:
                    row[f"{lib} s"] = None if pipeline == "store tiled" else "unsupported"
                    continue
                t, m = result[lib]
                _record(row, lib, t, m, padded[lib], verdict(lib, mode) == "ok")
            rows.append(row)
            _progress(cfg, label, row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def section_pipeline(cfg) -> list[dict]:
    with dask.config.set(scheduler="threads"):
        return _pipelines(
            cfg, "pipeline", ALL_MODES, ["constant", "reflect", "wrap", "mean"], tiled=True
        )


def section_cluster(cfg) -> list[dict]:
    import distributed

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        if cfg.quick:
            return _pipelines(cfg, "cluster", ["reflect", "mean"], ["reflect"], cluster=True)
        modes = ["constant", "edge", "reflect", "wrap", "linear_ramp", "mean", "maximum"]
        return _pipelines(cfg, "cluster", modes, ["constant", "reflect", "mean"], cluster=True)


# --------------------------------------------------------------------------------------
# the callable mode, wide pads, bigger than memory
# --------------------------------------------------------------------------------------


def section_callable(cfg) -> list[dict]:
    if cfg.quick:
        shape, chunks = (1_024, 1_024), (256, 256)
    else:
        shape, chunks = (16_384, 16_384), (2_048, 2_048)
    x = lazy_source(shape, chunks)
    rows = []
    with dask.config.set(scheduler="threads"):
        for w in [4, 64]:
            row = {"array": f"{x.nbytes / 1e9:.2f} GB float32", "width": w}
            for lib, fn in LIBS.items():
                y = fn(x, w, user_pad)
                t, m, _ = timed(lambda y=y: y.sum(dtype=np.float64).compute())
                ok = verdict(lib, "callable") == "ok"
                _record(row, lib, t, m, y, ok, rss=LAST_PEAK["MB"])
            rows.append(row)
            _progress(cfg, "callable", row)
    return rows


def section_wide(cfg) -> list[dict]:
    shape, chunks = ((200, 150), (50, 50)) if cfg.quick else ((2_000, 1_500), (500, 500))
    widths = tuple((3 * n, 2 * n + 7) for n in shape)  # 3x and 2x the axis, plus a bit
    a = np.random.default_rng(3).standard_normal(shape)
    x = da.from_array(a, chunks=chunks)
    rows = []
    cases = [
        ("reflect", {}),
        ("reflect", {"reflect_type": "odd"}),
        ("symmetric", {}),
        ("wrap", {}),
        ("edge", {}),
        ("linear_ramp", {"end_values": 1.5}),
        ("mean", {"stat_length": 10}),
    ]
    with dask.config.set(scheduler="threads"):
        for mode, kwargs in cases:
            t_np, m_np, want = timed(
                lambda m=mode, kw=kwargs: np.pad(a, widths, mode=m, **kw), cfg.repeat
            )
            row = {
                "mode": mode + "".join(f" {k}={v}" for k, v in kwargs.items()),
                "out MB": want.nbytes / 1e6,
                "numpy s": t_np,
                "numpy MB": m_np,
            }
            for lib, fn in LIBS.items():
                y = fn(x, widths, mode, **kwargs)
                t, m, got = timed(y.compute, cfg.repeat)
                _record(row, lib, t, m, y, same(mode, got, want))
                del got
            rows.append(row)
            _progress(cfg, "wide", row)
    return rows


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


def section_storemem(cfg) -> list[dict]:
    """Input blocks held while a padded n x n-block array is stored to zarr with regular
    chunks, for growing n: what a store of a far bigger grid would hold."""
    sides = (4, 8) if cfg.quick else (8, 16, 32)
    chunk, w = (64, 4) if cfg.quick else (256, 16)
    modes = ["(no pad)", "constant", "reflect", "wrap", "linear_ramp", "mean"]
    tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-", dir=cfg.tmp))
    rows = []
    try:
        with dask.config.set(scheduler="threads"):
            for n in sides:
                for mode in modes:
                    row: dict[str, Any] = {"blocks": f"{n} x {n}", "mode": mode}
                    for lib, fn in LIBS.items():
                        if verdict(lib, mode) == "unsupported" or (
                            mode == "(no pad)" and lib != "daskpad"
                        ):
                            continue
                        source = CountedSource()
                        x = source.array(n, chunk)
                        if mode == "(no pad)":
                            y = x
                        elif lib == "daskpad":
                            y = daskpad.pad(x, w, mode, chunks="regular")
                        else:  # _store rechunks dask.array.pad's result to these chunks
                            y = fn(x, w, mode)
                        target = regular_chunks(x.chunks, y.shape)
                        where = str(tmp / f"{lib}.zarr")

                        def run(y=y, where=where, target=target, source=source):
                            source.reset()
                            _store(y, where, target)

                        t, m, _ = timed(run)
                        row[f"{lib} s"] = t
                        row[f"{lib} MB"] = m
                        row[f"{lib} held blocks"] = source.peak
                        if mode != "(no pad)" and verdict(lib, mode) == "wrong":
                            row[f"{lib} s"] = "wrong"
                        if lib == "daskpad" and mode != "(no pad)":
                            # daskpad.to_zarr: tiles reading at most 6 x 6 input blocks (a
                            # whole-axis statistic: computed first, a few lines at a time)
                            source = CountedSource()
                            y = daskpad.pad(source.array(n, chunk), w, mode, chunks="regular")

                            def tiled(y=y, where=where, source=source):
                                source.reset()
                                daskpad.to_zarr(
                                    y, where, memory=36 * chunk * chunk * 4, compressors=None,
                                    overwrite=True,
                                )  # fmt: skip

                            t, m, _ = timed(tiled)
                            row["daskpad.to_zarr s"] = t
                            row["daskpad.to_zarr held blocks"] = source.peak
                    rows.append(row)
                    _progress(cfg, "storemem", row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


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


def section_cli(cfg) -> list[dict]:
    """The command on a zarr store of n x n blocks (reflect, and mean over the whole axis;
    pad 16, regular chunks): time and peak resident memory of the process, written in one
    piece and tile by tile."""
    import xarray as xr

    sides = (4, 8) if cfg.quick else (8, 16, 32)
    chunk = 64 if cfg.quick else 1024
    block_mb = chunk * chunk * 4 / 1e6
    memory = "64kB" if cfg.quick else "256MB"
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
            shutil.rmtree(src, ignore_errors=True)
            x = lazy_source((n * chunk,) * 2, (chunk, chunk))
            xr.Dataset({"v": (("y", "x"), x)}).to_zarr(src, zarr_format=3, consolidated=False)
            copy = ["pad", str(src), str(dst), "--width", "y=0"]
            t_copy, rss_copy, _ = best_of(copy)
            for mode in ("reflect", "mean"):
                row: dict[str, Any] = {
                    "blocks": f"{n} x {n}",
                    "mode": mode,
                    "input MB": n * n * block_mb,
                    "unpadded s": t_copy,
                    "unpadded RSS MB": rss_copy,
                }
                widths = ["--width", "y=16", "--width", "x=16", "--mode", mode]
                for case, limit in (("whole", "1TB"), ("tiled", memory)):
                    argv = ["pad", str(src), str(dst), *widths, "--memory", limit]
                    t, rss, out = best_of(argv)
                    row[f"{case} s"] = t
                    row[f"{case} RSS MB"] = rss
                    if case == "tiled":
                        first = out.splitlines()[0]
                        tiled = " tiles, each reading" in first
                        row["tiles"] = int(first.split(" in ")[1].split()[0]) if tiled else 1
                        row["--memory"] = memory
                row["whole ratio"] = _ratio(row["whole s"], t_copy)
                row["tiled ratio"] = _ratio(row["tiled s"], t_copy)
                rows.append(row)
                _progress(cfg, "cli", row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def section_big(cfg) -> list[dict]:
    gb = 0.03 if cfg.quick else cfg.big_gb
    side = int(math.sqrt(gb * 1e9 / 4))
    side -= side % 4_096 if not cfg.quick else side % 256
    c = 256 if cfg.quick else 4_096
    x = lazy_source((side, side), (c, c))
    w = 256 if not cfg.quick else 16
    rows = []
    with dask.config.set(scheduler="threads"):
        for mode in cfg.big_modes or BIG_MODES:
            name, _, length = mode.partition(":")
            kwargs = {"stat_length": int(length)} if length else {}
            y = daskpad.pad(x, w, name, **kwargs)
            # each mode right after its own unpadded baseline (this VM drifts by 10-30%)
            result = timed_together(
                {
                    "unpadded": lambda: x.sum(dtype=np.float64).compute(),
                    "daskpad": lambda y=y: y.sum(dtype=np.float64).compute(),
                },
                cfg.repeat,
            )
            label = f"{name} stat_length={length}" if length else mode
            row = {"mode": label, "GB": y.nbytes / 1e9, "unpadded s": result["unpadded"][0]}
            row["unpadded MB"] = result["unpadded"][1]
            t, m = result["daskpad"]
            _record(row, "daskpad", t, m, y, True, rss=LAST_PEAK["MB"])
            rows.append(row)
            _progress(cfg, "big", row)
    return rows


SECTIONS = {
    "correctness": section_correctness,
    "inmem": section_inmem,
    "build": section_build,
    "pipeline": section_pipeline,
    "cluster": section_cluster,
    "callable": section_callable,
    "wide": section_wide,
    "storemem": section_storemem,
    "cli": section_cli,
    "big": section_big,
}


# --------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------


def _fmt(v: Any) -> str:
    if v is None:  # not measured (see the section's notes)
        return "-"
    if isinstance(v, float):
        if v == 0:
            return "0"
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
    return str(v)


def _ratio(a: Any, b: Any) -> str:
    if isinstance(a, float) and isinstance(b, float) and b > 0:
        return f"{a / b:.2f}x"
    return a if isinstance(a, str) else "-"


def table(section: str, rows: list[dict]) -> str:
    if not rows:
        return ""
    rows = [dict(r) for r in rows]
    ref = {
        "inmem": "numpy s",
        "wide": "numpy s",
        "pipeline": "unpadded s",
        "cluster": "unpadded s",
        "big": None,
    }.get(section)
    if section == "big":
        for r in rows:
            r["vs no pad"] = _ratio(r["daskpad s"], r["unpadded s"])
    elif ref:
        for r in rows:
            for lib in LIBS:
                if f"{lib} s" in r:
                    r[f"{lib} ratio"] = _ratio(r[f"{lib} s"], r[ref])
    if section == "build":
        for r in rows:
            r["build ratio (dask/daskpad)"] = _ratio(
                r["dask.array.pad build s"], r["daskpad build s"]
            )
    return markdown_table(rows)


def markdown_table(rows: list[dict]) -> str:
    """Rows as a markdown table, one column per key in order of first appearance."""
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_fmt(r.get(c, "")) for c in cols) + " |")
    return "\n".join(lines)


def _progress(cfg, section: str, row: dict) -> None:
    if cfg.verbose:
        print(
            f"  [{section}] " + ", ".join(f"{k}={_fmt(v)}" for k, v in row.items()),
            file=sys.stderr,
            flush=True,
        )


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = os.sysconf("SC_PHYS_PAGES") * PAGE / 2**30
    import distributed
    import zarr

    return (
        f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, Python "
        f"{platform.python_version()}, numpy {np.__version__}, dask {dask.__version__}, "
        f"distributed {distributed.__version__}, zarr {zarr.__version__}, "
        f"daskpad {daskpad.__version__}"
    )


TITLES = {
    "correctness": "Correctness on small tricky cases (vs numpy.pad)",
    "inmem": "In-memory arrays, computed into memory (ratio = time / numpy.pad)",
    "build": "Graph build (pad call, graph materialisation, optimize) and tasks added",
    "pipeline": "Pipelines on local threads (ratio = time / same pipeline unpadded)",
    "cluster": "Pipelines on a 2-worker LocalCluster (ratio = time / unpadded)",
    "callable": "mode=<function>, padded and reduced (peak MB = extra resident memory)",
    "wide": "Pads wider than the axis (ratio = time / numpy.pad)",
    "storemem": "Storing to zarr with regular chunks: input blocks held at once vs grid size",
    "cli": "The command on a zarr store of n x n blocks: in one piece and tile by tile",
    "big": "Bigger than memory: pad + reduce, daskpad only (peak MB = extra resident memory)",
}


def _big_mode(text: str) -> str:
    name, _, length = text.partition(":")
    if name not in ALL_MODES or (length and not (length.isdigit() and MODES[name].stat)):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a mode ({', '.join(ALL_MODES)}), a statistic optionally with "
            "':STAT_LENGTH'"
        )
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes (CI)")
    p.add_argument("--out", type=Path, help="also write the tables to this markdown file")
    p.add_argument("--json", type=Path, help="raw results (default benchmarks/results.json)")
    p.add_argument("--only", nargs="+", choices=list(SECTIONS), help="run only these")
    p.add_argument("--skip", nargs="+", choices=list(SECTIONS), default=[])
    p.add_argument("--big-gb", type=float, default=48.0, help="size of the 'big' array")
    p.add_argument(
        "--big-modes",
        nargs="+",
        metavar="MODE[:STAT_LENGTH]",
        type=_big_mode,
        help=f"big: these modes (default: {' '.join(BIG_MODES)})",
    )
    p.add_argument("--repeat", type=int, help="best of N (default 1 quick, 3 full)")
    p.add_argument(
        "--full-build",
        action="store_true",
        help=f"build: also optimize+materialise at >= {BUILD_BIG_SIDE**2:.0e} chunks (minutes)",
    )
    p.add_argument("--cluster-side", type=int, default=12_288, help="cluster: array side")
    p.add_argument("--cluster-chunk", type=int, default=2_048, help="cluster: chunk side")
    p.add_argument("--cluster-width", type=int, default=64, help="cluster: pad width")
    p.add_argument("--tmp", default=None, help="directory for zarr stores")
    p.add_argument("-v", "--verbose", action="store_true", help="progress on stderr")
    cfg = p.parse_args(argv)
    cfg.repeat = cfg.repeat or (1 if cfg.quick else 3)
    wanted = [s for s in (cfg.only or SECTIONS) if s not in cfg.skip]
    if "correctness" not in wanted:
        wanted.insert(0, "correctness")  # every other table needs its verdicts

    results: dict[str, Any] = {"machine": machine(), "quick": cfg.quick, "sections": {}}
    out = [f"Machine: {results['machine']}", ""]
    print(out[0], flush=True)
    for name in SECTIONS:
        if name not in wanted:
            continue
        t0 = time.perf_counter()
        rows = SECTIONS[name](cfg)
        took = time.perf_counter() - t0
        results["sections"][name] = rows
        text = f"### {TITLES[name]}\n\n{table(name, rows)}\n\n_section took {took:.1f} s_\n"
        print("\n" + text, flush=True)
        out.append(text)
    json_path = cfg.json or HERE / ("results-quick.json" if cfg.quick else "results.json")
    json_path.write_text(json.dumps(results, indent=1, default=str))
    if cfg.out:
        cfg.out.write_text("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
