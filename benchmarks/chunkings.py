"""Output chunks of daskpad.pad: uneven input chunks, huge widths, wide pads reduced.

    python benchmarks/chunkings.py [--quick] [--only remainders widebuild widesum]
                                   [--repeat 3] [--out benchmarks/CHUNKINGS.md]
                                   [--json benchmarks/results-chunkings.json]
                                   [--window-timeout 120] [-v]

Prints one markdown table per section (the machine line first) and writes the raw rows as
JSON (default ``benchmarks/results-chunkings.json``, ``results-chunkings-quick.json`` with
``--quick``). ``--quick`` shrinks every size (well under a minute on 2 cores). Compute
times are the median of ``--repeat`` paired rounds (default 3, 1 with ``--quick``): in
each round every library of a row runs once, in turn, so they see the same machine, and a
ratio is the median of the per-round ratios. Everything runs on dask's threaded scheduler.
"budget" is dask's ``array.chunk-size`` (``daskpad._chunks.chunk_budget()``); a block's
bytes are the product of its chunk sizes times the itemsize, "largest B" the largest
block's. Every row has a "target" column, "met" or "NOT met", computed from the row's
numbers, and "missed" naming the targets not met. A library's failure (an exception while
building or computing) is recorded in the row as "error: ..." and the run goes on.

Sections
--------
remainders  Chunks that do not divide the shape, float64 standard normal data, daskpad vs
            dask.array.pad vs numpy.pad: (a) 1000 x 1000 in chunks of 333 (last chunk 1),
            pad 256; (b) 721 x 1440 in chunks of 360 (721 = 360 + 360 + 1), pad 64;
            (c) 1000 x 500 in chunks ((1, 333, 333, 332, 1), (1, 498, 1)), pad 100;
            (d) 100 x 201 x 150 in chunks (33, 50, 49), pad 20. Every mode (constant, edge,
            linear_ramp, maximum, mean, median, minimum, reflect, reflect odd, symmetric,
            wrap; the statistics over the whole axis), two policies: "default",
            ``daskpad.pad(x, w, mode)`` vs ``dask.array.pad(x, w, mode)``, and "regular",
            ``daskpad.pad(x, w, mode, chunks="regular")`` vs ``dask.array.pad(x, w, mode)``
            rechunked to the chunks of daskpad's result. Columns: blocks of each result,
            the largest block's bytes of each, seconds of ``y.compute()`` (and of numpy.pad
            on the in-memory array), "ratio" (daskpad / dask.array.pad), and whether each
            result equals numpy.pad's: "ok" bit for bit (mean: ``np.allclose``, rtol
            1e-12), "rounding" where float values differ by rounding only (``np.allclose``,
            rtol 1e-12: counted as right), "wrong" otherwise, "n/a" where dask.array.pad
            lacks the mode (median); a time shows "wrong" (or "n/a") where the values are
            not right. Targets: daskpad blocks <= "blocks limit" = 2 x
            max(dask.array.pad's blocks, ceil(output bytes / budget)) (for median,
            dask.array.pad's blocks in mean mode); daskpad's largest block <= budget;
            ratio <= 1.5 where dask.array.pad's values are right (otherwise not a target).
            ``--quick``: 100 x 100 in 33s pad 25, 73 x 144 in 36s pad 8, 100 x 50 in
            ((1, 33, 33, 32, 1), (1, 48, 1)) pad 10, 20 x 41 x 30 in (6, 10, 9) pad 4; modes
            constant, edge, linear_ramp, mean, median, reflect odd, wrap.
widebuild   Widths far beyond the array, daskpad only; the graph is never materialised.
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
widesum     Wide pads reduced, daskpad vs dask.array.pad, each against the same reduction
            unpadded: ``y.sum(dtype=float64).compute()`` of a lazily generated float32
            array (``run.lazy_source``) in a round with ``x.sum(...)``: (a) 12000 x 12000
            in chunks of 500, pad 3000; (b) 1000 x 1000 in chunks of 500, pad 5000. Modes
            constant, edge, linear_ramp, maximum and mean (whole axis), median with
            stat_length=64 (daskpad only: dask.array.pad has no median), reflect,
            reflect odd, symmetric, wrap. Columns: "bytes ratio" (padded bytes / unpadded
            bytes), "<lib> ratio" (median per-round time / unpadded time); "<lib> = numpy"
            from the same geometry divided by 10 (shape, width and chunks, with at most 8
            chunks along an axis: (a) 1200 x 1200 in 150s pad 300, (b) 100 x 100 in 50s
            pad 500), computed in full and compared with numpy.pad as in remainders (float32:
            rtol 1e-6); dask.array.pad is not timed where that is not right. Targets:
            daskpad ratio <= 1.1 x bytes ratio and, where dask.array.pad is right, daskpad
            ratio <= 1.1 x dask.array.pad ratio. A case whose unpadded sum takes under
            0.1 s (case (b): a few ms) runs 5 x ``--repeat`` rounds. ``--quick``: 1200 x
            1200 in 50s pad 300, 100 x 100 in 50s pad 500 (checked on 120 x 120 in 15s pad
            30 and 10 x 10 in 5s pad 50), the modes of remainders' ``--quick``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import multiprocessing
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import dask.array as da
import numpy as np

import daskpad
from daskpad._chunks import chunk_budget, regular_chunks

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import (  # noqa: E402
    LIBS,
    PeakRSS,
    _progress,
    lazy_source,
    machine,
    markdown_table,
)

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
PERIODIC = {"wrap", "reflect", "symmetric"}  # with periods n, 2n - 2, 2n
COPYING = {"edge", "reflect", "reflect odd", "symmetric", "wrap"}  # linear in the data


# --------------------------------------------------------------------------------------
# measuring
# --------------------------------------------------------------------------------------


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
            send.send((_error(exc), None))
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


# --------------------------------------------------------------------------------------
# remainders: chunks that do not divide the shape
# --------------------------------------------------------------------------------------


def _remainder_cases(cfg) -> list[tuple[str, tuple[int, ...], Any, int]]:
    if cfg.quick:
        return [
            ("(a) 100x100 chunks 33", (100, 100), 33, 25),
            ("(b) 73x144 chunks 36", (73, 144), 36, 8),
            ("(c) 100x50 1-element ends", (100, 50), ((1, 33, 33, 32, 1), (1, 48, 1)), 10),
            ("(d) 20x41x30 chunks (6,10,9)", (20, 41, 30), (6, 10, 9), 4),
        ]
    return [
        ("(a) 1000x1000 chunks 333", (1000, 1000), 333, 256),
        ("(b) 721x1440 chunks 360", (721, 1440), 360, 64),
        ("(c) 1000x500 1-element ends", (1000, 500), ((1, 333, 333, 332, 1), (1, 498, 1)), 100),
        ("(d) 100x201x150 chunks (33,50,49)", (100, 201, 150), (33, 50, 49), 20),
    ]


def section_remainders(cfg) -> list[dict]:
    budget = chunk_budget()
    rng = np.random.default_rng(0)
    modes = QUICK_MODES if cfg.quick else ALL
    rows = []
    for label, shape, chunks, w in _remainder_cases(cfg):
        a = rng.standard_normal(shape)
        x = da.from_array(a, chunks=chunks)
        for name in modes:
            mode, kw = MODE_ARGS[name]
            want = np.pad(a, w, mode, **kw)
            for policy in ("default", "regular"):
                rows.append(_remainder_row(cfg, label, x, a, w, name, policy, want, budget))
                _progress(cfg, "remainders", rows[-1])
            del want
    return rows


def _remainder_row(cfg, label, x, a, w, name, policy, want, budget) -> dict:
    mode, kw = MODE_ARGS[name]
    policy_kw = {} if policy == "default" else {"chunks": "regular"}
    y_dp, err_dp = attempt(lambda: daskpad.pad(x, w, mode, **policy_kw, **kw))
    if policy == "default":
        target_chunks = None
    else:
        target_chunks = y_dp.chunks if y_dp is not None else regular_chunks(x.chunks, want.shape)

    def dask_pad(mode=mode, kw=kw):
        y = LIBS[DASK](x, w, mode, **kw)
        return y if target_chunks is None else y.rechunk(target_chunks)

    y_da, err_da = attempt(dask_pad)
    row: dict[str, Any] = {
        "case": label,
        "mode": name,
        "policy": policy,
        "out MB": want.nbytes / 1e6,
    }
    fns: dict[str, Callable[[], Any]] = {"numpy": lambda: np.pad(a, w, mode, **kw)}
    if y_dp is not None:
        fns["daskpad"] = y_dp.compute
    if y_da is not None:
        fns[DASK] = y_da.compute
    times, results, errors = paired_median(fns, cfg.repeat)
    errors.update({k: v for k, v in (("daskpad", err_dp), (DASK, err_da)) if v})
    check = {
        lib: verdict_of(results, errors, lib, lambda got: agrees(name, got, want))
        for lib in ("daskpad", DASK)
    }
    del results
    row["numpy s"] = statistics.median(times["numpy"])
    for lib in ("daskpad", DASK):
        if lib in errors:
            row[f"{lib} s"] = errors[lib]
        elif check[lib] not in RIGHT:
            row[f"{lib} s"] = check[lib]
        else:
            row[f"{lib} s"] = statistics.median(times[lib])
    dask_right = check[DASK] in RIGHT and check["daskpad"] in RIGHT
    ratio = median_ratio(times["daskpad"], times[DASK]) if dask_right else None
    row["ratio"] = ratio if ratio is not None else "n/a"

    # blocks: dask.array.pad's count, or for median (which it lacks) its count in mean mode
    dask_count = blocks(y_da) if y_da is not None else None
    proxy = dask_count
    if proxy is None and name == "median":
        y_mean, _ = attempt(
            lambda: (
                LIBS[DASK](x, w, "mean")
                if target_chunks is None
                else LIBS[DASK](x, w, "mean").rechunk(target_chunks)
            )
        )
        proxy = blocks(y_mean) if y_mean is not None else None
    floor = math.ceil(want.nbytes / budget)
    limit = 2 * max(proxy if proxy is not None else 0, floor)
    row["daskpad blocks"] = blocks(y_dp) if y_dp is not None else "-"
    row[f"{DASK} blocks"] = dask_count if dask_count is not None else "n/a"
    row["blocks limit"] = limit
    row["daskpad largest B"] = largest_block(y_dp) if y_dp is not None else "-"
    row[f"{DASK} largest B"] = largest_block(y_da) if y_da is not None else "n/a"
    row["budget B"] = budget
    row["daskpad = numpy"] = check["daskpad"]
    row[f"{DASK} = numpy"] = check[DASK]
    built = y_dp is not None
    targets(
        row,
        {
            "blocks": built and blocks(y_dp) <= limit,
            "largest": built and largest_block(y_dp) <= budget,
            "time": (ratio <= 1.5) if ratio is not None else None,
        },
    )
    return row


# --------------------------------------------------------------------------------------
# widebuild: widths far beyond the array
# --------------------------------------------------------------------------------------


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
    seconds, mb, y = [], 0.0, None
    for _ in range(cfg.repeat):
        y = None
        gc.collect()
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            y = fn()
            seconds.append(time.perf_counter() - t0)
        mb = max(mb, mem.mb)
    return statistics.median(seconds), mb, y


def section_widebuild(cfg) -> list[dict]:
    budget = chunk_budget()
    rows = []
    wide = 10**4 if cfg.quick else 10**8
    odd = min(wide, 10**6)
    a1 = np.array([2.0, 7.0, 1.0, 8.0, 3.0])  # distinct values, no zero at an edge
    for label in ALL:
        mode, kw = MODE_ARGS[label]
        w = odd if label == "reflect odd" else wide
        n = a1.size
        windows = {
            "first": np.arange(0, 7),
            "middle": np.arange(w - 3, w + 8),
            "last": np.arange(2 * w + n - 7, 2 * w + n),
        }
        row: dict[str, Any] = {"case": "(a) 1-D 5 float64, chunks 2", "mode": label, "width": w}

        def check(got: dict[str, np.ndarray], label=label, w=w, windows=windows) -> str:
            for key, pos in windows.items():
                want = expected_1d(a1, w, label, pos)
                if label == "linear_ramp":
                    ok = got[key].shape == want.shape and np.allclose(got[key], want, rtol=1e-12)
                else:
                    ok = agrees(label, got[key], want) == "ok"
                if not ok:
                    return "wrong"
            return "ok"

        x = da.from_array(a1, chunks=2)
        _widebuild_row(
            cfg, row, budget, lambda x=x, w=w, mode=mode, kw=kw: daskpad.pad(x, w, mode, **kw),
            {k: (lambda y, s=slice(int(p[0]), int(p[-1]) + 1): y[s]) for k, p in windows.items()},
            check,
            {"build s": 1.0, "build MB": 300.0},
        )  # fmt: skip
        rows.append(row)
        _progress(cfg, "widebuild", row)

    w = 1000 if cfg.quick else 2 * 10**5
    a2 = np.arange(1, 21, dtype=np.int64).reshape(4, 5)  # no zero: edge differs from constant
    n0, n1 = a2.shape
    windows2 = {
        "first": (np.arange(0, 3), np.arange(0, 3)),
        "middle": (np.arange(w - 1, w + 5), np.arange(w - 1, w + 6)),
        "last": (np.arange(2 * w + n0 - 3, 2 * w + n0), np.arange(2 * w + n1 - 3, 2 * w + n1)),
    }
    for label in ALL:
        mode, kw = MODE_ARGS[label]
        row = {"case": "(b) 2-D 4x5 int64, chunks 2", "mode": label, "width": w}

        def check2(got: dict[str, np.ndarray], label=label) -> str:
            verdict = "ok"
            for key, (r, c) in windows2.items():
                want = expected_2d(a2, w, label, r, c)
                if got[key].shape != want.shape:
                    return "wrong"
                if label == "linear_ramp":
                    if np.abs(got[key] - want).max() > 2:
                        return "wrong"
                    verdict = "close"
                elif not np.array_equal(got[key], want):
                    return "wrong"
            return verdict

        x = da.from_array(a2, chunks=2)
        _widebuild_row(
            cfg, row, budget, lambda x=x, mode=mode, kw=kw: daskpad.pad(x, w, mode, **kw),
            {
                k: (lambda y, r=r, c=c: y[int(r[0]) : int(r[-1]) + 1, int(c[0]) : int(c[-1]) + 1])
                for k, (r, c) in windows2.items()
            },
            check2,
            {"build s": 1.0, "window s": 10.0},
        )  # fmt: skip
        rows.append(row)
        _progress(cfg, "widebuild", row)
    return rows


def _widebuild_row(cfg, row, budget, build, windows, check, limits) -> None:
    """Build (timed, memory), facts from the chunks alone, then each window in a child."""
    try:
        t, mb, y = _build(cfg, build)
    except Exception as exc:
        row["build s"] = _error(exc)
        targets(row, {"build": False})
        return
    row["build s"] = t
    row["build MB"] = mb
    row["blocks"] = blocks(y)
    row["largest B"] = largest_block(y)
    row["budget B"] = budget
    row["within budget"] = "yes" if row["largest B"] <= budget else "no"
    got: dict[str, np.ndarray] = {}
    for key, window in windows.items():
        seconds, value = in_child(lambda window=window: window(y).compute(), cfg.window_timeout)
        row[f"{key} s"] = seconds
        if value is not None:
            got[key] = value
    if len(got) == len(windows):
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
            for k in windows
        )
    targets(row, checks)


# --------------------------------------------------------------------------------------
# widesum: wide pads reduced, against the same reduction unpadded
# --------------------------------------------------------------------------------------

WIDESUM_ARGS: dict[str, dict[str, Any]] = {"median": {"stat_length": 64}}


def _widesum_cases(cfg) -> list[tuple[str, int, int, int]]:
    """(label, side, chunk, width)."""
    if cfg.quick:
        return [
            ("(a) 1200x1200 chunks 50", 1200, 50, 300),
            ("(b) 100x100 chunks 50", 100, 50, 500),
        ]
    return [
        ("(a) 12000x12000 chunks 500", 12_000, 500, 3_000),
        ("(b) 1000x1000 chunks 500", 1_000, 500, 5_000),
    ]


def _small_check(label: str, side: int, chunk: int, w: int) -> dict[str, str]:
    """Each library against numpy.pad on the geometry divided by 10 (at most 8 chunks
    along an axis)."""
    side, w = max(side // 10, 1), max(w // 10, 1)
    chunk = max(chunk // 10, -(-side // 8))
    mode, kw = MODE_ARGS[label]
    kw = {**kw, **WIDESUM_ARGS.get(label, {})}
    x = lazy_source((side, side), (chunk, chunk))
    a = x.compute()
    want = np.pad(a, w, mode, **kw)
    out = {}
    for lib, fn in LIBS.items():
        got, err = attempt(lambda fn=fn: fn(x, w, mode, **kw).compute())
        out[lib] = err or agrees(label, got, want)
    return out


#: a wide-pad sum runs ROUNDS x ``--repeat`` rounds: the ratio of one round spreads by
#: +-30% on a 2-core machine (1.8-3.1 for one mode in seven rounds), its median far less
ROUNDS = 3
#: ... and SHORT_ROUNDS x where its unpadded sum takes less than SHORT seconds
SHORT = 0.1
SHORT_ROUNDS = 5


def _widesum_rounds(cfg, unpadded: Callable[[], Any]) -> int:
    """ROUNDS times ``--repeat`` rounds, or SHORT_ROUNDS times where one unpadded sum (run
    once here, which also warms it up) takes under SHORT seconds: at a few milliseconds one
    round's noise would decide the ratio."""
    t0 = time.perf_counter()
    unpadded()
    return cfg.repeat * (SHORT_ROUNDS if time.perf_counter() - t0 < SHORT else ROUNDS)


def section_widesum(cfg) -> list[dict]:
    rows = []
    for case, side, chunk, w in _widesum_cases(cfg):
        x = lazy_source((side, side), (chunk, chunk))
        bytes_ratio = (side + 2 * w) ** 2 / side**2
        for label in QUICK_MODES if cfg.quick else ALL:
            if label == "minimum":  # maximum stands for both
                continue
            mode, kw = MODE_ARGS[label]
            kw = {**kw, **WIDESUM_ARGS.get(label, {})}
            shown = label + "".join(f" {k}={v}" for k, v in WIDESUM_ARGS.get(label, {}).items())
            row: dict[str, Any] = {"case": case, "mode": shown, "bytes ratio": bytes_ratio}
            check = _small_check(label, side, chunk, w)
            fns: dict[str, Callable[[], Any]] = {
                "unpadded": lambda x=x: x.sum(dtype=np.float64).compute()
            }
            built: dict[str, str] = {}
            for lib, fn in LIBS.items():
                if lib != "daskpad" and check[lib] not in RIGHT:
                    continue  # not timed: dask.array.pad lacks the mode or is wrong
                y, err = attempt(lambda fn=fn, x=x, w=w, mode=mode, kw=kw: fn(x, w, mode, **kw))
                if err:
                    built[lib] = err
                    continue
                fns[lib] = lambda y=y: y.sum(dtype=np.float64).compute()
            times, _, errors = paired_median(fns, _widesum_rounds(cfg, fns["unpadded"]))
            errors.update(built)
            row["unpadded s"] = statistics.median(times["unpadded"])
            ratios: dict[str, float] = {}
            for lib in LIBS:
                if lib in errors:
                    row[f"{lib} s"] = errors[lib]
                elif lib not in fns:
                    row[f"{lib} s"] = check[lib]
                else:
                    row[f"{lib} s"] = statistics.median(times[lib])
                    ratios[lib] = median_ratio(times[lib], times["unpadded"])
                row[f"{lib} ratio"] = ratios.get(lib, "-")
            for lib in LIBS:
                row[f"{lib} = numpy"] = check[lib]
            dp = ratios.get("daskpad")
            dk = ratios.get(DASK) if check[DASK] in RIGHT else None
            targets(
                row,
                {
                    "vs bytes": dp is not None and dp <= 1.1 * bytes_ratio,
                    "vs dask": (dp is not None and dp <= 1.1 * dk) if dk is not None else None,
                },
            )
            rows.append(row)
            _progress(cfg, "widesum", row)
    return rows


# --------------------------------------------------------------------------------------
# tables and the command
# --------------------------------------------------------------------------------------

SECTIONS = {
    "remainders": section_remainders,
    "widebuild": section_widebuild,
    "widesum": section_widesum,
}

TITLES = {
    "remainders": "Chunks that do not divide the shape: daskpad vs dask.array.pad vs numpy.pad"
    " (median of paired rounds; ratio = daskpad / dask.array.pad)",
    "widebuild": "Widths far beyond the array: build, blocks, and small windows computed",
    "widesum": "Wide pads reduced (ratio = time / the same sum unpadded, median of paired rounds)",
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes (CI)")
    p.add_argument("--out", type=Path, help="also write the tables to this markdown file")
    p.add_argument(
        "--json", type=Path, help="raw results (default benchmarks/results-chunkings.json)"
    )
    p.add_argument("--only", nargs="+", choices=list(SECTIONS), help="run only these")
    p.add_argument("--repeat", type=int, help="paired rounds, median (default 1 quick, 3 full)")
    p.add_argument(
        "--window-timeout",
        type=float,
        help="widebuild: seconds before a window's computation is stopped (default 30 quick, "
        "120 full)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="progress on stderr")
    cfg = p.parse_args(argv)
    cfg.repeat = cfg.repeat or (1 if cfg.quick else 3)
    cfg.window_timeout = cfg.window_timeout or (30.0 if cfg.quick else 120.0)
    wanted = cfg.only or list(SECTIONS)

    results: dict[str, Any] = {
        "machine": machine(),
        "quick": cfg.quick,
        "repeat": cfg.repeat,
        "budget B": chunk_budget(),
        "sections": {},
    }
    out = [f"Machine: {results['machine']}", ""]
    print(out[0], flush=True)
    with dask.config.set(scheduler="threads"):
        for name in SECTIONS:
            if name not in wanted:
                continue
            t0 = time.perf_counter()
            rows = SECTIONS[name](cfg)
            took = time.perf_counter() - t0
            results["sections"][name] = rows
            text = f"### {TITLES[name]}\n\n{markdown_table(rows)}\n\n_section took {took:.1f} s_\n"
            print("\n" + text, flush=True)
            out.append(text)
    default = "results-chunkings-quick.json" if cfg.quick else "results-chunkings.json"
    json_path = cfg.json or HERE / default
    json_path.write_text(json.dumps(results, indent=1, default=str))
    if cfg.out:
        cfg.out.write_text("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
