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
from collections.abc import Callable
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
    _progress,
    agrees,
    attempt,
    blocks,
    largest_block,
    once,
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


def section_remainders(cfg) -> list[dict]:
    budget = chunk_budget()
    modes = QUICK_MODES if cfg.quick else ALL
    rows = []
    with dask.config.set(scheduler="threads"):
        for label, shape, chunks, w in _remainder_cases(cfg):
            a = normal(shape, 0)
            x = da.from_array(a, chunks=chunks)
            for name in modes:
                mode, kw = MODE_ARGS[name]
                want = np.pad(a, w, mode, **kw)
                for policy in ("default", "regular"):
                    rows.append(_remainder_row(cfg, label, x, a, w, name, policy, want, budget))
                    _progress(cfg, "remainders", rows[-1])
                del want
    return rows


def _remainder_arrays(x: da.Array, w: int, name: str, policy: str, out_shape):
    """daskpad's and dask.array.pad's results, each ``(array or None, error or None)``, and
    the chunks dask.array.pad's is rechunked to (None under the "default" policy)."""
    mode, kw = MODE_ARGS[name]
    policy_kw = {} if policy == "default" else {"chunks": "regular"}
    y_dp, err_dp = attempt(lambda: daskpad.pad(x, w, mode, **policy_kw, **kw))
    if policy == "default":
        target_chunks = None
    else:
        target_chunks = y_dp.chunks if y_dp is not None else regular_chunks(x.chunks, out_shape)

    def dask_pad(mode=mode, kw=kw):
        y = LIBS[DASK](x, w, mode, **kw)
        return y if target_chunks is None else y.rechunk(target_chunks)

    y_da, err_da = attempt(dask_pad)
    return (y_dp, err_dp), (y_da, err_da), target_chunks


def _remainder_row(cfg, label, x, a, w, name, policy, want, budget) -> dict:
    mode, kw = MODE_ARGS[name]
    (y_dp, err_dp), (y_da, err_da), target_chunks = _remainder_arrays(
        x, w, name, policy, want.shape
    )
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
    got = rounds(fns, cfg.repeat, memory=False, catch=True)
    errors = got.errors | {k: v for k, v in (("daskpad", err_dp), (DASK, err_da)) if v}
    check = {
        lib: verdict_of(got.results, errors, lib, lambda out: agrees(name, out, want))
        for lib in ("daskpad", DASK)
    }
    got.results.clear()
    row["numpy s"] = got.median("numpy")
    for lib in ("daskpad", DASK):
        if lib in errors:
            row[f"{lib} s"] = errors[lib]
        elif check[lib] not in RIGHT:
            row[f"{lib} s"] = check[lib]
        else:
            row[f"{lib} s"] = got.median(lib)
    dask_right = check[DASK] in RIGHT and check["daskpad"] in RIGHT
    ratio = got.ratio("daskpad", DASK) if dask_right else None
    row["ratio"] = ratio if ratio is not None else "n/a"

    _remainder_blocks(row, x, w, name, target_chunks, (y_dp, y_da), want, budget)
    row["daskpad = numpy"] = check["daskpad"]
    row[f"{DASK} = numpy"] = check[DASK]
    built = y_dp is not None
    targets(
        row,
        {
            "blocks": built and blocks(y_dp) <= row["blocks limit"],
            "largest": built and largest_block(y_dp) <= budget,
            "time": (ratio <= 1.5) if ratio is not None else None,
        },
    )
    return row


def _remainder_blocks(row, x, w, name, target_chunks, padded, want, budget) -> None:
    """The blocks and largest block of each result, the blocks limit of daskpad's, the budget."""
    y_dp, y_da = padded
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


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------

CASES = [label for label, *_ in _remainder_cases(QUICK)]
POLICIES = ["default", "regular"]


def _remainder_case(lib: str, label: str, name: str, policy: str, check: bool = True):
    """(the padded dask array or None, its computation) of one library on a ``--quick``
    case; with ``check``, a library whose values are not numpy.pad's is skipped."""
    _, shape, chunks, w = next(c for c in _remainder_cases(QUICK) if c[0] == label)
    a = normal(shape, 0)
    mode, kw = MODE_ARGS[name]
    if lib == NUMPY:
        if policy != "default":
            skip("numpy.pad has no chunks: see policy='default'")
        return None, lambda: np.pad(a, w, mode, **kw)
    out_shape = tuple(n + 2 * w for n in shape)
    dp, dk, _ = _remainder_arrays(da.from_array(a, chunks=chunks), w, name, policy, out_shape)
    y, err = dp if lib == "daskpad" else dk
    if err:
        skip(f"{lib} {name}: {err}")

    def right() -> str:
        with dask.config.set(scheduler="threads"):
            return agrees(name, y.compute(), np.pad(a, w, mode, **kw))

    found = once(("remainders", lib, label, name, policy), right) if check else "ok"
    if found not in RIGHT:
        skip(f"{lib} {name}: values {found}")
    return y, y.compute


class Remainders:
    """``y.compute()`` of chunks that do not divide the shape, beside numpy.pad."""

    params = (WITH_NUMPY, CASES, QUICK_MODES, POLICIES)
    param_names = ("library", "case", "mode", "policy")

    def setup(self, lib: str, label: str, name: str, policy: str) -> None:
        self.run = _remainder_case(lib, label, name, policy)[1]

    def time_compute(self, lib: str, label: str, name: str, policy: str) -> None:
        with dask.config.set(scheduler="threads"):
            self.run()


class RemainderChunks:
    """The output chunks: blocks, and the largest block's bytes (dask.array.pad's result
    rechunked to daskpad's under the "regular" policy)."""

    params = (list(LIBS), CASES, QUICK_MODES, POLICIES)
    param_names = ("library", "case", "mode", "policy")

    def setup(self, lib: str, label: str, name: str, policy: str) -> None:
        self.y = _remainder_case(lib, label, name, policy, check=False)[0]

    def track_blocks(self, lib: str, label: str, name: str, policy: str) -> int:
        return blocks(self.y)

    track_blocks.unit = "blocks"

    def track_largest_block(self, lib: str, label: str, name: str, policy: str) -> int:
        return largest_block(self.y)

    track_largest_block.unit = "bytes"
