"""remainders: chunks that do not divide the shape, float64 standard normal data
(``sources.normal``), daskpad vs dask.array.pad vs numpy.pad.

(a) 1000 x 1000 in chunks of 333 (last chunk 1),
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

Compute times are medians of ``--repeat`` interleaved rounds (default 3, 1 with
``--quick``), a ratio the median of the per-round ratios; everything runs on dask's
threaded scheduler.
"budget" is dask's ``array.chunk-size`` (``daskpad.core.chunks.chunk_budget()``); a block's
bytes are the product of its chunk sizes times the itemsize, "largest B" the largest
block's. Every row has a "target" column, "met" or "NOT met", computed from the row's
numbers, and "missed" naming the targets not met. A library's failure (an exception while
building or computing) is recorded in the row as "error: ..." and the run goes on.

asv: the ``--quick`` cases and modes, the library a parameter; a library whose values are
not numpy.pad's (up to rounding) is skipped.
"""

from __future__ import annotations

import math
from functools import partial
from types import SimpleNamespace
from typing import Any

import dask
import dask.array as da
import numpy as np

import daskpad
from daskpad.core.chunks import chunk_budget, regular_chunks

from .common import (
    ALL,
    DASK,
    LIBS,
    MODE_ARGS,
    NUMPY,
    QUICK,
    QUICK_MODES,
    RIGHT,
    WITH_NUMPY,
    Case,
    _CaseSuite,
    _progress,
    agrees,
    asv_params,
    attempt,
    blocks,
    cases,
    largest_block,
    skip,
    targets,
    verdict_of,
)
from .sources import normal
from .timing import rounds


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


def _inputs(label: str, cfg) -> SimpleNamespace:
    """The in-memory array ``a``, its dask array ``x``, the width ``w`` of one case."""
    _, shape, chunks, w = next(c for c in _remainder_cases(cfg) if c[0] == label)
    a = normal(shape, 0)
    return SimpleNamespace(a=a, x=da.from_array(a, chunks=chunks), w=w)


def _case(label: str, name: str, policy: str) -> Case:
    """daskpad.pad in the chunk ``policy``; under "regular", dask.array.pad's result
    rechunked to the chunks of daskpad's."""
    mode, kw = MODE_ARGS[name]

    def pad(fn, i):
        if fn is daskpad.pad or policy == "default":
            return fn(i.x, i.w, mode, **kw, **({} if policy == "default" else {"chunks": policy}))
        return fn(i.x, i.w, mode, **kw).rechunk(_target(i, mode, kw))

    return Case(
        (label, name, policy),
        inputs=lambda cfg: _inputs(label, cfg),
        pad=pad,
        anchor=lambda i: np.pad(i.a, i.w, mode, **kw),
    )


def _target(i: SimpleNamespace, mode: str, kw: dict):
    """The chunks of daskpad's result under "regular", or the regular chunks it would have."""
    ours, _ = attempt(lambda: daskpad.pad(i.x, i.w, mode, chunks="regular", **kw))
    if ours is not None:
        return ours.chunks
    return regular_chunks(i.x.chunks, tuple(n + 2 * i.w for n in i.x.shape))


POLICIES = ["default", "regular"]
#: asv's: the ``--quick`` cases and modes
CASES = cases(
    *(
        _case(label, name, policy)
        for label, *_ in _remainder_cases(QUICK)
        for name in QUICK_MODES
        for policy in POLICIES
    )
)


def section_remainders(cfg) -> list[dict]:
    budget = chunk_budget()
    modes = QUICK_MODES if cfg.quick else ALL
    rows = []
    with dask.config.set(scheduler="threads"):
        for label, *_ in _remainder_cases(cfg):
            i = _inputs(label, cfg)
            for name in modes:
                mode, kw = MODE_ARGS[name]
                want = np.pad(i.a, i.w, mode, **kw)
                for policy in POLICIES:
                    rows.append(_remainder_row(cfg, _case(label, name, policy), i, want, budget))
                    _progress(cfg, "remainders", rows[-1])
                del want
    return rows


def _remainder_row(cfg, case: Case, i: SimpleNamespace, want, budget) -> dict:
    label, name, policy = case.key
    built = {lib: attempt(partial(case.pad, fn, i)) for lib, fn in LIBS.items()}
    y_dp, y_da = (built[lib][0] for lib in LIBS)
    row: dict[str, Any] = {
        "case": label,
        "mode": name,
        "policy": policy,
        "out MB": want.nbytes / 1e6,
    }
    padded = {lib: y for lib, (y, _) in built.items() if y is not None}
    got = rounds(case.runs(i, padded), cfg.repeat, memory=False, catch=True)
    errors = got.errors | {lib: err for lib, (_, err) in built.items() if err}
    check = {
        lib: verdict_of(got.results, errors, lib, lambda out: agrees(name, out, want))
        for lib in LIBS
    }
    got.results.clear()
    row["numpy s"] = got.median("numpy")
    for lib in LIBS:
        if lib in errors:
            row[f"{lib} s"] = errors[lib]
        elif check[lib] not in RIGHT:
            row[f"{lib} s"] = check[lib]
        else:
            row[f"{lib} s"] = got.median(lib)
    dask_right = check[DASK] in RIGHT and check["daskpad"] in RIGHT
    ratio = got.ratio("daskpad", DASK) if dask_right else None
    row["ratio"] = ratio if ratio is not None else "n/a"

    _remainder_blocks(row, case, i, (y_dp, y_da), want, budget)
    row["daskpad = numpy"] = check["daskpad"]
    row[f"{DASK} = numpy"] = check[DASK]
    targets(
        row,
        {
            "blocks": y_dp is not None and blocks(y_dp) <= row["blocks limit"],
            "largest": y_dp is not None and largest_block(y_dp) <= budget,
            "time": (ratio <= 1.5) if ratio is not None else None,
        },
    )
    return row


def _remainder_blocks(row, case: Case, i, padded, want, budget) -> None:
    """The blocks and largest block of each result, the blocks limit of daskpad's, the budget."""
    y_dp, y_da = padded
    # blocks: dask.array.pad's count, or for median (which it lacks) its count in mean mode
    dask_count = blocks(y_da) if y_da is not None else None
    proxy = dask_count
    if proxy is None and case.key[1] == "median":
        label, _, policy = case.key
        y_mean, _ = attempt(lambda: _case(label, "mean", policy).pad(LIBS[DASK], i))
        proxy = blocks(y_mean) if y_mean is not None else None
    floor = math.ceil(want.nbytes / budget)
    limit = 2 * max(proxy if proxy is not None else 0, floor)
    row["daskpad blocks"] = blocks(y_dp) if y_dp is not None else "-"
    row[f"{DASK} blocks"] = dask_count if dask_count is not None else "n/a"
    row["blocks limit"] = limit
    row["daskpad largest B"] = largest_block(y_dp) if y_dp is not None else "-"
    row[f"{DASK} largest B"] = largest_block(y_da) if y_da is not None else "n/a"
    row["budget B"] = budget


class Remainders(_CaseSuite):
    """``y.compute()`` of chunks that do not divide the shape, beside numpy.pad (under the
    "default" policy: it has no chunks); the output's blocks and largest block's bytes
    (0 for numpy.pad). A library whose values are not numpy.pad's is skipped."""

    cases = CASES
    params, param_names = asv_params(WITH_NUMPY, CASES, "case", "mode", "policy")

    def setup(self, lib: str, *key) -> None:
        if lib == NUMPY and key[-1] != "default":
            skip("numpy.pad has no chunks: see policy='default'")
        super().setup(lib, *key)

    def check(self, lib, case, inputs, y) -> None:
        self.skip_unless_anchor(lib, y, partial(agrees, case.key[1]), RIGHT)

    def track_blocks(self, *params) -> int:
        return 0 if self.y is None else blocks(self.y)

    track_blocks.unit = "blocks"  # type: ignore[attr-defined]

    def track_largest_block(self, *params) -> int:
        return 0 if self.y is None else largest_block(self.y)

    track_largest_block.unit = "bytes"  # type: ignore[attr-defined]
