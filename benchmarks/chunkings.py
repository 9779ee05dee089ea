"""Output chunks of daskpad.pad: uneven input chunks, huge widths, wide pads reduced.

    python benchmarks/chunkings.py [--quick] [--only remainders widebuild widesum]
                                   [--repeat 3] [--out benchmarks/CHUNKINGS.md]
                                   [--json benchmarks/results-chunkings.json]
                                   [--window-timeout 120] [-v]

Prints one markdown table per section (the machine line first) and writes the raw rows as
JSON (default ``benchmarks/results-chunkings.json``, ``results-chunkings-quick.json`` with
``--quick``). ``--quick`` shrinks every size (2.3 minutes on 2 cores, 2026-11-27). Compute
times are the median of ``--repeat`` paired rounds (default 3, 1 with ``--quick``): in
each round every library of a row runs once, in turn, so they see the same machine, and a
ratio is the median of the per-round ratios. Everything runs on dask's threaded scheduler.
"budget" is dask's ``array.chunk-size`` (``daskpad.core.chunks.chunk_budget()``); a block's
bytes are the product of its chunk sizes times the itemsize, "largest B" the largest
block's. Every row has a "target" column, "met" or "NOT met", computed from the row's
numbers, and "missed" naming the targets not met. A library's failure (an exception while
building or computing) is recorded in the row as "error: ..." and the run goes on.

Each section is a module of its own, ``benchmarks/bench_<section>.py``, which also holds
the same scenario as asv benchmark classes at the ``--quick`` sizes (``asv run
--python=same --quick``; see ``asv.conf.json``); the helpers they share are in
``benchmarks/common.py``. This script runs the sections and prints the report.

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
            array (``common.lazy_source``) in a round with ``x.sum(...)``: (a) 12000 x 12000
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
import json
import sys
import time
from pathlib import Path
from typing import Any

import dask

# run as a script (python benchmarks/chunkings.py): the scenario modules are the package
# ``benchmarks`` in the repository root (appended: daskpad stays the one found first)
sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_remainders import section_remainders
from benchmarks.bench_widebuild import section_widebuild
from benchmarks.bench_widesum import section_widesum
from benchmarks.common import HERE, machine, markdown_table
from daskpad.core.chunks import chunk_budget

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
