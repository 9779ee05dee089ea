"""widesum: wide pads reduced, daskpad vs dask.array.pad, each against the same reduction
unpadded, ``y.sum(dtype=float64).compute()`` of a lazily generated float32 array on local
threads.

(a) 12000 x 12000 in chunks of 500, pad 3000; (b) 1000 x 1000 in chunks of 500, pad 5000;
every mode (median with stat_length=64). Each library's values are first checked against
numpy.pad on the same geometry divided by 10; dask.array.pad is not timed where they are
not right (see ``chunkings.py``'s notes for the report's columns and targets). asv: the
``--quick`` cases and modes, "unpadded" shown as one more library.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import dask
import numpy as np

from .common import (
    ALL,
    DASK,
    LIBS,
    MODE_ARGS,
    QUICK,
    QUICK_MODES,
    RIGHT,
    UNPADDED,
    WITH_UNPADDED,
    _progress,
    agrees,
    attempt,
    lazy_source,
    median_ratio,
    once,
    paired_median,
    skip,
    targets,
    tasks,
)

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
# asv
# --------------------------------------------------------------------------------------

CASES = [case for case, *_ in _widesum_cases(QUICK)]
MODES = [label for label in QUICK_MODES if label != "minimum"]


class WideSum:
    """The sum of a wide pad, beside the same sum unpadded."""

    params = (WITH_UNPADDED, CASES, MODES)
    param_names = ("library", "case", "mode")

    def setup(self, lib: str, case: str, label: str) -> None:
        _, side, chunk, w = next(c for c in _widesum_cases(QUICK) if c[0] == case)
        x = lazy_source((side, side), (chunk, chunk))
        if lib == UNPADDED:
            self.y = x
            return
        if lib != "daskpad":  # as in the report: not timed where its values are not right
            found = once(("widesum", case, label), lambda: _small_check(label, side, chunk, w))
            if found[lib] not in RIGHT:
                skip(f"{lib} {label}: {found[lib]}")
        mode, kw = MODE_ARGS[label]
        kw = {**kw, **WIDESUM_ARGS.get(label, {})}
        self.y, err = attempt(lambda: LIBS[lib](x, w, mode, **kw))
        if err:
            skip(f"{lib} {label}: {err}")

    def time_sum(self, lib: str, case: str, label: str) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.sum(dtype=np.float64).compute()

    def track_tasks(self, lib: str, case: str, label: str) -> int:
        return tasks(self.y)

    track_tasks.unit = "tasks"
