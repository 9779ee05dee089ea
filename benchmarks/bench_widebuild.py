"""widebuild: widths far beyond the array, daskpad only; the graph is never materialised.

(a) ``[2., 7., 1., 8., 3.]`` in chunks of 2 padded by W = 10**8 in every mode (reflect
odd by W = 10**6: its values are not periodic, and its expected values are
numpy.pad's at that width); (b) ``np.arange(1, 21).reshape(4, 5)`` (int64, so every
expected value is exact) in chunks of 2 padded by 2 * 10**5 on both axes (a 1.3 TB
result). Columns: "build s", the ``daskpad.pad`` call (median of ``--repeat``);
"build MB", the most new resident memory during a call; "blocks",
``math.prod(y.numblocks)``; "largest B" and whether it is within the budget;
then three windows, each computed once in a forked child process on the
synchronous scheduler and stopped after ``--window-timeout`` seconds
("timeout"): "first s" ``y[:7]`` / ``y[:3, :3]``, "middle s"
``y[W - 3 : W + 8]`` / ``y[w - 1 : w + 5, w - 1 : w + 6]`` (across the edge
of the data), "last s" ``y[-7:]`` / ``y[-3:, -3:]``; "daskpad = numpy" for the
three windows together. Expected values without numpy.pad at full width:
wrap, reflect and symmetric repeat with the period n, 2n - 2 and 2n, so
position p is numpy.pad of the same data by two periods at the position
``2P + (p - W) mod P``; constant, edge and the statistics are constant on each
side, so they are numpy.pad by 3 at position 0, 3 + (p - W) or 3 + n + 2;
linear_ramp (1-D) is numpy's ``linspace(0, edge, W, endpoint=False)`` evaluated
at the window's positions, ``edge * i / W`` (``np.allclose``, rtol 1e-12).
In 2-D the copying modes (edge, reflect, reflect odd, symmetric, wrap) are linear
in the data: with ``M_k = np.pad(np.eye(n_k), ((w, w), (0, 0)), mode)`` the
padded array is ``M_0 @ a @ M_1.T``, computed at the window's rows of M_0 and
M_1; linear_ramp is that product in float64, and numpy.pad rounds each axis's
integer ramp down, so it is "close" when within 2 of it; constant and the
statistics map each index as in 1-D. Targets: (a) build
< 1 s, build MB < 300, largest block within the budget; (b) build < 1 s,
largest block within the budget, each window < 10 s. ``--quick``: widths 10**4
(a) and 1000 (b).

``--repeat`` calls are timed (interleaved rounds, ``timing.rounds``); "build MB" is the most
over them. The section and asv make the same probes (``_probe``: a case, a mode); asv at the
``--quick`` widths, the windows computed in the benchmark's own process on the synchronous
scheduler.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from typing import Any

import dask
import dask.array as da
import numpy as np

import daskpad
from daskpad.core.chunks import chunk_budget

from .common import (
    ALL,
    MODE_ARGS,
    Made,
    Probe,
    _ProbeSuite,
    _progress,
    agrees,
    attempt,
    blocks,
    key_params,
    largest_block,
    peakmem,
    probes,
    targets,
    timed,
    tracked,
)
from .timing import error_text, rounds

PERIODIC = {"wrap", "reflect", "symmetric"}  # with periods n, 2n - 2, 2n
COPYING = {"edge", "reflect", "reflect odd", "symmetric", "wrap"}  # linear in the data
A1 = np.array([2.0, 7.0, 1.0, 8.0, 3.0])  # distinct values, no zero at an edge
A2 = np.arange(1, 21, dtype=np.int64).reshape(4, 5)  # no zero: edge differs from constant


def in_child(fn: Callable[[], Any], timeout: float) -> tuple[float | str, Any]:
    """``(seconds, result)`` of ``fn()`` run once in a forked child process on the
    synchronous scheduler; ``("timeout", None)`` past ``timeout`` seconds (the child is
    killed), ``("error: ...", None)`` if it raises."""
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # no fork here: run it in this process, without a time limit
        with dask.config.set(scheduler="sync"):
            t0 = time.perf_counter()
            out, err = attempt(fn)
            return (err or time.perf_counter() - t0), out
    receive, send = ctx.Pipe(duplex=False)

    def child() -> None:
        try:
            with dask.config.set(scheduler="sync"):
                t0 = time.perf_counter()
                out = np.asarray(fn())
                send.send((time.perf_counter() - t0, out))
        except BaseException as exc:
            send.send((error_text(exc), None))
        finally:
            send.close()

    proc = ctx.Process(target=child, daemon=True)
    proc.start()
    send.close()
    try:
        if receive.poll(timeout):
            try:
                return receive.recv()
            except EOFError:
                return f"error: child exited ({proc.exitcode})", None
        proc.kill()
        return "timeout", None
    finally:
        proc.join()
        receive.close()


def _index_map(r: np.ndarray, n: int, label: str) -> tuple[np.ndarray, int]:
    """Positions relative to the data start (``r``) mapped into numpy.pad of the same data
    by a small width with the same values there: ``(indices, small width)``."""
    if label in PERIODIC:
        period = {"wrap": n, "reflect": 2 * n - 2, "symmetric": 2 * n}[label]
        return 2 * period + r % period, 2 * period
    return np.where(r < 0, 0, np.where(r >= n, 3 + n + 2, 3 + r)), 3


def expected_1d(a: np.ndarray, width: int, label: str, positions: np.ndarray) -> np.ndarray:
    """numpy.pad(a, width, mode)[positions], without the full-width array (but reflect odd:
    numpy.pad itself, ``width`` being small enough)."""
    mode, kw = MODE_ARGS[label]
    n = a.size
    r = positions - width
    if label == "reflect odd":
        return np.pad(a, width, mode, **kw)[positions]
    if label == "linear_ramp":  # numpy: linspace(end=0, edge, width, endpoint=False)
        out = a[np.clip(r, 0, n - 1)].astype(np.float64)
        left, right = r < 0, r >= n
        out[left] = a[0] * (positions[left] / width)
        out[right] = a[-1] * ((width - 1 - (r[right] - n)) / width)
        return out
    idx, small = _index_map(r, n, label)
    return np.pad(a, small, mode, **kw)[idx]


def expected_2d(a: np.ndarray, width: int, label: str, rows, cols) -> np.ndarray:
    """numpy.pad(a, width, mode)[np.ix_(rows, cols)] of an int64 ``a``, without the
    full-width array: float64 for linear_ramp (numpy's integer ramps are rounded down)."""
    mode, kw = MODE_ARGS[label]
    if label in COPYING or label == "linear_ramp":
        dtype = np.float64 if label == "linear_ramp" else np.int64
        m = [
            np.pad(np.eye(n, dtype=dtype), ((width, width), (0, 0)), mode, **kw)[idx]
            for n, idx in zip(a.shape, (rows, cols))
        ]
        return m[0] @ a.astype(dtype) @ m[1].T
    (ri, small), (ci, _) = (_index_map(p - width, n, label) for p, n in zip((rows, cols), a.shape))
    return np.pad(a, small, mode, **kw)[np.ix_(ri, ci)]


def _build(cfg, fn: Callable[[], da.Array]) -> tuple[float, float, da.Array]:
    """(median seconds, most new resident MB, the array) of ``--repeat`` calls."""
    got = rounds({"build": fn}, cfg.repeat)
    return got.median("build"), max(got.mb["build"]), got.results["build"]


def _width_1d(cfg, label: str) -> int:
    wide = 10**4 if cfg.quick else 10**8
    return min(wide, 10**6) if label == "reflect odd" else wide


def _width_2d(cfg) -> int:
    return 1000 if cfg.quick else 2 * 10**5


def _windows_1d(w: int, n: int) -> dict[str, np.ndarray]:
    """Positions of the first elements, of those across the data's start, of the last."""
    return {
        "first": np.arange(0, 7),
        "middle": np.arange(w - 3, w + 8),
        "last": np.arange(2 * w + n - 7, 2 * w + n),
    }


def _windows_2d(w: int, shape: tuple[int, ...]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(rows, columns) of the first corner, of a window across the data's corner, of the
    last corner."""
    n0, n1 = shape
    return {
        "first": (np.arange(0, 3), np.arange(0, 3)),
        "middle": (np.arange(w - 1, w + 5), np.arange(w - 1, w + 6)),
        "last": (np.arange(2 * w + n0 - 3, 2 * w + n0), np.arange(2 * w + n1 - 3, 2 * w + n1)),
    }


def _slicers(case: str, w: int) -> dict[str, Callable[[Any], Any]]:
    """The windows of case "1-D" or "2-D" as functions of the padded array."""
    if case == "1-D":
        return {
            k: (lambda y, s=slice(int(p[0]), int(p[-1]) + 1): y[s])
            for k, p in _windows_1d(w, A1.size).items()
        }
    return {
        k: (lambda y, r=r, c=c: y[int(r[0]) : int(r[-1]) + 1, int(c[0]) : int(c[-1]) + 1])
        for k, (r, c) in _windows_2d(w, A2.shape).items()
    }


def _probe(case: str, label: str) -> Probe:
    """The pad of case "1-D" (``A1``) or "2-D" (``A2``) in one mode by the run's width:
    the run "build" (the call), the windows "first", "middle" and "last" of a padded array
    computed on the synchronous scheduler, the counts "blocks" and "largest block"."""
    mode, kw = MODE_ARGS[label]

    def make(cfg) -> Made:
        a, w = (A1, _width_1d(cfg, label)) if case == "1-D" else (A2, _width_2d(cfg))
        x = da.from_array(a, chunks=2)

        def build() -> da.Array:
            return daskpad.pad(x, w, mode, **kw)

        y = build()
        runs: dict[str, Callable[[], Any]] = {"build": build}
        for key, window in _slicers(case, w).items():
            runs[key] = lambda window=window: np.asarray(window(y).compute(scheduler="sync"))
        return Made(runs, {"blocks": lambda: blocks(y), "largest block": lambda: largest_block(y)})

    return Probe((case, label), make)


WINDOWS = ("first", "middle", "last")
#: asv's: the ``--quick`` widths
PROBES = probes(*(_probe(case, label) for case in ("1-D", "2-D") for label in ALL))


def _widebuild_1d(cfg, budget: int, label: str) -> dict:
    w = _width_1d(cfg, label)
    windows = _windows_1d(w, A1.size)
    row: dict[str, Any] = {"case": "(a) 1-D 5 float64, chunks 2", "mode": label, "width": w}

    def check(got: dict[str, np.ndarray]) -> str:
        for key, pos in windows.items():
            want = expected_1d(A1, w, label, pos)
            if label == "linear_ramp":
                ok = got[key].shape == want.shape and np.allclose(got[key], want, rtol=1e-12)
            else:
                ok = agrees(label, got[key], want) == "ok"
            if not ok:
                return "wrong"
        return "ok"

    limits = {"build s": 1.0, "build MB": 300.0}
    _widebuild_row(cfg, row, budget, _probe("1-D", label), check, limits)
    return row


def _widebuild_2d(cfg, budget: int, label: str) -> dict:
    w = _width_2d(cfg)
    windows2 = _windows_2d(w, A2.shape)
    row: dict[str, Any] = {"case": "(b) 2-D 4x5 int64, chunks 2", "mode": label, "width": w}

    def check2(got: dict[str, np.ndarray]) -> str:
        verdict = "ok"
        for key, (r, c) in windows2.items():
            want = expected_2d(A2, w, label, r, c)
            if got[key].shape != want.shape:
                return "wrong"
            if label == "linear_ramp":
                if np.abs(got[key] - want).max() > 2:
                    return "wrong"
                verdict = "close"
            elif not np.array_equal(got[key], want):
                return "wrong"
        return verdict

    limits = {"build s": 1.0, "window s": 10.0}
    _widebuild_row(cfg, row, budget, _probe("2-D", label), check2, limits)
    return row


def section_widebuild(cfg) -> list[dict]:
    budget = chunk_budget()
    rows = []
    with dask.config.set(scheduler="threads"):
        for make in (_widebuild_1d, _widebuild_2d):
            for label in ALL:
                rows.append(make(cfg, budget, label))
                _progress(cfg, "widebuild", rows[-1])
    return rows


def _widebuild_row(cfg, row, budget, probe: Probe, check, limits) -> None:
    """Build (timed, memory), facts from the chunks alone, then each window in a child."""
    try:
        made = probe.make(cfg)
        t, mb, _ = _build(cfg, made.runs["build"])
    except Exception as exc:
        row["build s"] = error_text(exc)
        targets(row, {"build": False})
        return
    row["build s"] = t
    row["build MB"] = mb
    row["blocks"] = made.counts["blocks"]()
    row["largest B"] = made.counts["largest block"]()
    row["budget B"] = budget
    row["within budget"] = "yes" if row["largest B"] <= budget else "no"
    got: dict[str, np.ndarray] = {}
    for key in WINDOWS:
        seconds, value = in_child(made.runs[key], cfg.window_timeout)
        row[f"{key} s"] = seconds
        if value is not None:
            got[key] = value
    if len(got) == len(WINDOWS):
        row["daskpad = numpy"] = check(got)
    else:
        row["daskpad = numpy"] = "not computed"
    checks: dict[str, bool | None] = {
        "build s": t < limits["build s"],
        "largest": row["largest B"] <= budget,
    }
    if "build MB" in limits:
        checks["build MB"] = mb < limits["build MB"]
    if "window s" in limits:
        checks["window s"] = all(
            isinstance(row[f"{k} s"], float) and row[f"{k} s"] < limits["window s"]
            for k in WINDOWS
        )
    targets(row, checks)


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class WideBuild(_ProbeSuite):
    """The pad call at widths far beyond the array, the blocks and largest block of the
    result, and three small windows of it computed (in this process)."""

    probes = PROBES
    params, param_names = key_params(PROBES, "case", "mode")
    time_build = timed("build")
    peakmem_build = peakmem("build")
    track_blocks = tracked("blocks", "blocks")
    track_largest_block = tracked("largest block", "bytes")
    time_window_first = timed("first")
    time_window_middle = timed("middle")
    time_window_last = timed("last")
