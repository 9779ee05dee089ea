"""widesum: wide pads reduced, daskpad vs dask.array.pad, each against the same reduction
unpadded: ``y.sum(dtype=float64).compute()`` of a lazily generated float32
array (``sources.source``) in a round with ``x.sum(...)``: (a) 12000 x 12000
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
1200 in 150s pad 300, 100 x 100 in 50s pad 500 (checked on 120 x 120 in 15s pad
30 and 10 x 10 in 5s pad 50), the modes of remainders' ``--quick``.

Times are medians of interleaved rounds (``timing.rounds``), ratios the medians of the
per-round ratios; a library's failure is recorded in the row as "error: ...". asv: the
``--quick`` cases and modes, "unpadded" shown as one more library.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from types import SimpleNamespace
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
    Case,
    _CaseSuite,
    _progress,
    agrees,
    asv_params,
    attempt,
    cases,
    once,
    skip,
    targets,
    total,
)
from .sources import source
from .timing import rounds

WIDESUM_ARGS: dict[str, dict[str, Any]] = {"median": {"stat_length": 64}}


def _widesum_cases(cfg) -> list[tuple[str, int, int, int]]:
    """(label, side, chunk, width)."""
    if cfg.quick:
        return [
            ("(a) 1200x1200 chunks 150", 1200, 150, 300),
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
    x = source((side, side), (chunk, chunk))
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


def _inputs(case: str, cfg) -> SimpleNamespace:
    """The source ``x`` of one case, its ``side``, ``chunk`` and pad width ``w``."""
    _, side, chunk, w = next(c for c in _widesum_cases(cfg) if c[0] == case)
    return SimpleNamespace(x=source((side, side), (chunk, chunk)), side=side, chunk=chunk, w=w)


def _case(case: str, label: str) -> Case:
    mode, kw = MODE_ARGS[label]
    kw = {**kw, **WIDESUM_ARGS.get(label, {})}
    return Case(
        (case, label),
        inputs=lambda cfg: _inputs(case, cfg),
        pad=lambda fn, i: fn(i.x, i.w, mode, **kw),
        anchor=lambda i: total(i.x),
        run=total,
    )


#: asv's: the ``--quick`` cases and modes
CASES = cases(
    *(
        _case(case, label)
        for case, *_ in _widesum_cases(QUICK)
        for label in QUICK_MODES
        if label != "minimum"
    )
)


def section_widesum(cfg) -> list[dict]:
    with dask.config.set(scheduler="threads"):
        return _widesum(cfg)


def _widesum(cfg) -> list[dict]:
    rows = []
    for case, side, chunk, w in _widesum_cases(cfg):
        i = _inputs(case, cfg)
        bytes_ratio = (side + 2 * w) ** 2 / side**2
        for label in QUICK_MODES if cfg.quick else ALL:
            if label == "minimum":  # maximum stands for both
                continue
            shown = label + "".join(f" {k}={v}" for k, v in WIDESUM_ARGS.get(label, {}).items())
            row: dict[str, Any] = {"case": case, "mode": shown, "bytes ratio": bytes_ratio}
            check = _small_check(label, side, chunk, w)
            this = _case(case, label)
            padded: dict[str, Any] = {}
            built: dict[str, str] = {}
            for lib, fn in LIBS.items():
                if lib != "daskpad" and check[lib] not in RIGHT:
                    continue  # not timed: dask.array.pad lacks the mode or is wrong
                y, err = attempt(partial(this.pad, fn, i))
                if err:
                    built[lib] = err
                    continue
                padded[lib] = y
            fns = this.runs(i, padded, UNPADDED)
            got = rounds(fns, _widesum_rounds(cfg, fns[UNPADDED]), memory=False, catch=True)
            errors = got.errors | built
            row["unpadded s"] = got.median(UNPADDED)
            ratios: dict[str, float] = {}
            for lib in LIBS:
                if lib in errors:
                    row[f"{lib} s"] = errors[lib]
                elif lib not in fns:
                    row[f"{lib} s"] = check[lib]
                else:
                    row[f"{lib} s"] = got.median(lib)
                    ratios[lib] = got.ratio(lib, UNPADDED)
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


class WideSum(_CaseSuite):
    """The sum of a wide pad, beside the same sum unpadded; dask.array.pad is skipped where
    its values are not right, as in the report."""

    cases = CASES
    anchor = UNPADDED
    params, param_names = asv_params(WITH_UNPADDED, CASES, "case", "mode")

    def check(self, lib, case, inputs, y) -> None:
        if lib != "daskpad":
            i, label = inputs, case.key[1]
            found = once(case.key, lambda: _small_check(label, i.side, i.chunk, i.w))
            if found[lib] not in RIGHT:
                skip(f"{lib} {label}: {found[lib]}")
