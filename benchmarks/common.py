"""What every scenario shares: timing, peak resident memory, the libraries compared, the
arguments each mode gets, a lazily generated source, tables and the machine line.

The scenario modules (``bench_*.py``) import these; so do the runners (``run.py``,
``chunkings.py``, ``edge_function.py``). ``QUICK`` is the configuration asv's benchmark
classes use: every scenario's ``--quick`` sizes.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import platform
import statistics
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import dask
import dask.array as da
import numpy as np

import daskpad
from daskpad.core.registry import MODES
from daskpad.store.tiling import zarr_can_store

HERE = Path(__file__).resolve().parent
ALL_MODES = sorted(MODES)
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
    """``{name: (median wall seconds, median peak extra MB)}`` over ``repeat`` rounds, the
    functions run in turn in each round, so that a case and its baseline see the same
    machine (on a small VM the speed drifts by 10-30% over minutes)."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t, m, _ = timed(fn)
            runs[name].append((t, m))
    return {
        name: (statistics.median(t for t, _ in r), statistics.median(m for _, m in r))
        for name, r in runs.items()
    }


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


def _store(y: da.Array, where: str, regular: tuple[tuple[int, ...], ...]) -> None:
    """Write ``y`` to a new zarr store (zarr's default codec), first rechunked to
    ``regular`` unless zarr can take its chunks as they are."""
    if not zarr_can_store(y.chunks):
        y = y.rechunk(regular)
    da.to_zarr(y, where, overwrite=True)


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


# --------------------------------------------------------------------------------------
# the chunkings scenarios (remainders, widebuild, widesum): labelled modes, verdicts
# --------------------------------------------------------------------------------------

DASK = "dask.array.pad"
# label -> (numpy.pad mode, keyword arguments)
MODE_ARGS: dict[str, tuple[str, dict[str, Any]]] = {
    "constant": ("constant", {}),
    "edge": ("edge", {}),
    "linear_ramp": ("linear_ramp", {}),
    "maximum": ("maximum", {}),
    "mean": ("mean", {}),
    "median": ("median", {}),
    "minimum": ("minimum", {}),
    "reflect": ("reflect", {}),
    "reflect odd": ("reflect", {"reflect_type": "odd"}),
    "symmetric": ("symmetric", {}),
    "wrap": ("wrap", {}),
}
ALL = list(MODE_ARGS)
QUICK_MODES = ["constant", "edge", "linear_ramp", "mean", "median", "reflect odd", "wrap"]


def _error(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("|", "/").replace("\n", " ")
    return "error: " + (text if len(text) < 160 else text[:157] + "...")


def attempt(fn: Callable[[], Any]) -> tuple[Any, str | None]:
    """``(result, None)``, or ``(None, "n/a")`` for NotImplementedError (a mode the library
    lacks), or ``(None, "error: ...")``."""
    try:
        return fn(), None
    except NotImplementedError:
        return None, "n/a"
    except Exception as exc:  # any failure is recorded in the row
        return None, _error(exc)


def paired_median(
    fns: dict[str, Callable[[], Any]], repeat: int
) -> tuple[dict[str, list[float]], dict[str, Any], dict[str, str]]:
    """Run the functions in turn, ``repeat`` rounds: ``(seconds per round, last result,
    errors)`` by name; a function that raises is recorded and not run again."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    results: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            if name in errors:
                continue
            results.pop(name, None)
            gc.collect()
            t0 = time.perf_counter()
            try:
                out = fn()
            except Exception as exc:
                errors[name] = _error(exc)
                continue
            times[name].append(time.perf_counter() - t0)
            results[name] = out
    return times, results, errors


def median_ratio(num: list[float], den: list[float]) -> float:
    """The median of the per-round ratios ``num[i] / den[i]``."""
    return statistics.median(a / b for a, b in zip(num, den))


def blocks(y: da.Array) -> int:
    return math.prod(y.numblocks)


def largest_block(y: da.Array) -> int:
    """Bytes of the largest block: the blocks form a grid, so the product of the largest
    chunk along each axis."""
    return math.prod(max(c, default=0) for c in y.chunks) * y.dtype.itemsize


def agrees(label: str, got: np.ndarray, want: np.ndarray) -> str:
    """``got`` against numpy.pad's ``want``: "ok" when equal (mean: within rounding),
    "rounding" for a float result equal up to rounding (rtol 1e-12 in float64, 1e-6 in
    float32) but not bit for bit, "wrong" otherwise."""
    if got.shape != want.shape:
        return "wrong"
    if np.array_equal(got, want):
        return "ok"
    if want.dtype.kind != "f":
        return "wrong"
    rtol = 1e-12 if want.dtype.itemsize >= 8 else 1e-6
    scale = float(np.abs(want).max(initial=0.0))
    if not np.allclose(got, want, rtol=rtol, atol=rtol * scale):
        return "wrong"
    return "ok" if label == "mean" else "rounding"


RIGHT = ("ok", "rounding")


def verdict_of(results: dict[str, Any], errors: dict[str, str], lib: str, check) -> str:
    if lib in errors:
        return errors[lib]
    return check(results[lib])


def targets(row: dict, checks: dict[str, bool | None]) -> None:
    """Fill "target" and "missed" from ``{name: met}`` (None: not a target in this row)."""
    missed = [name for name, met in checks.items() if met is False]
    row["target"] = "NOT met" if missed else "met"
    row["missed"] = ", ".join(missed) if missed else "-"


# --------------------------------------------------------------------------------------
# asv: the sizes its benchmark classes run at, the libraries they take as a parameter
# --------------------------------------------------------------------------------------

#: the configuration the asv benchmark classes use: every scenario's ``--quick`` sizes, so
#: that each call takes well under a second and ``asv run --quick`` takes minutes
QUICK = SimpleNamespace(
    quick=True,
    repeat=1,
    verbose=False,
    tmp=None,
    full_build=False,
    big_gb=48.0,
    big_modes=None,
    cluster_side=12_288,
    cluster_chunk=2_048,
    cluster_width=64,
    window_timeout=30.0,
)
NUMPY = "numpy.pad"
UNPADDED = "unpadded"
#: the "library" parameter of the asv classes: the dask libraries, with numpy.pad on the
#: in-memory array, or with the same work unpadded (a pipeline's baseline)
WITH_NUMPY = [*LIBS, NUMPY]
WITH_UNPADDED = [UNPADDED, *LIBS]

_ONCE: dict[tuple, Any] = {}


def once(key: tuple, fn: Callable[[], Any]) -> Any:
    """``fn()``, computed once per process for ``key``: asv calls ``setup`` before every
    timed call, and a check of a library's values need not run each time."""
    if key not in _ONCE:
        _ONCE[key] = fn()
    return _ONCE[key]


def skip(reason: str) -> None:
    """Skip this parameter combination: asv skips one whose ``setup`` raises
    NotImplementedError (a library lacks the mode, or its values are wrong)."""
    raise NotImplementedError(reason)
