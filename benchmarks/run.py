"""daskpad's benchmarks: daskpad beside its anchors, in one run, one table per section.

    python benchmarks/run.py [SECTION | GROUP ...] [--quick] [--repeat N] [--tmp DIR]
                             [--out FILE.md] [--json FILE.json] [--skip SECTION ...] [-v]

With no section, the "report" group runs. Groups: "report" (correctness ... bigstore
below), "chunkings" (remainders, widebuild, widesum), "all". Each section is a module,
``benchmarks/bench_<section>.py``, whose docstring says what it measures, its sizes and
its columns; the same cases are asv benchmarks there (``asv run --python=same --quick``).

Timed cases run in interleaved rounds (``timing.rounds``): each round runs the case and
its anchor (the same work unpadded, ``dask.array.pad``, ``numpy.pad``, a copy of the store,
``cp -r``) in turn, the order rotating, so that both see the same machine; times are
medians over ``--repeat`` rounds (default 3, 1 with ``--quick``) and ratios the medians of
the per-round ratios. "wrong": the library's values differ from numpy.pad's (on the
correctness section's small tricky cases, or in the row itself).

Sections (the sizes without ``--quick``)
----------------------------------------
report:
  correctness   both libraries against numpy.pad on small tricky cases, every mode
  inmem         ~300 MB numpy arrays in 1-3 dimensions, every mode, into memory
  build         graph build at 10^4..10^6 chunks (``--full-build``: also optimize at 10^6)
  pipeline      pad+reduce and pad+store (zarr), 3.3 GB generated lazily, local threads
  ahead         pad + sum beside dask.array.pad, ratios to the unpadded sum, four geometries
  cluster       pad+reduce and pad+store on a 2-worker LocalCluster (``--cluster-*``)
  callable      mode=<function> on ~1 GB
  overlap       map_overlap with daskpad's modes against dask.array.map_overlap, 2.4 GB
  wide          pads wider than the axis, in memory
  storemem      input blocks held while storing to zarr with regular chunks
  cli           the ``daskpad`` command on a zarr store: threads, tiles, a cluster, S3
  big           bigger than memory, pad + sum (``--big-gb``, ``--big-modes``)
  bigstore      the command on a store bigger than memory (``--bigstore-gb``)
chunkings:
  remainders    chunks that do not divide the shape: blocks, largest block, time
  widebuild     widths far beyond the array: build, blocks, windows (``--window-timeout``)
  widesum       wide pads reduced against their bytes and dask.array.pad
other sections:
  edge_function a user function, whole lines or edge chunks only (``--edge-size``)
  writable      what writable pad blocks would cost (``--writable-size``, ``--writable-modes``)
  rectilinear   ``--chunk-grid rectilinear`` beside the regular grid and ``cp -r``
                (``--rect-store``, ``--rect-size``, ``--rect-modes``, ``--cold``)

Memory: "<lib> MB" is the highest resident set size of this process, sampled every few
milliseconds while the case runs, minus the resident size just before it (the median over
the rounds). The allocator keeps memory freed by earlier cases, so small cases late in a
run can read near 0; "RSS MB" columns give the absolute peak of the whole process, an
upper bound; a command's "RSS MB" is its own process's peak (VmHWM). Run a section alone
for a clean baseline.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

# run as a script (python benchmarks/run.py): the section modules are the package
# ``benchmarks`` in the repository root (appended: daskpad stays the one found first)
sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_ahead import MODES as AHEAD_MODES
from benchmarks.bench_ahead import section_ahead
from benchmarks.bench_big import BIG_MODES, section_big
from benchmarks.bench_build import BUILD_BIG_SIDE, section_build
from benchmarks.bench_callable import section_callable
from benchmarks.bench_cli import section_bigstore, section_cli
from benchmarks.bench_cluster import section_cluster
from benchmarks.bench_correctness import section_correctness
from benchmarks.bench_datasets import section_datasets
from benchmarks.bench_edge_function import section_edge_function
from benchmarks.bench_inmem import section_inmem
from benchmarks.bench_overlap import section_overlap
from benchmarks.bench_pipeline import section_pipeline
from benchmarks.bench_rectilinear import MODES as RECT_MODES
from benchmarks.bench_rectilinear import section_rectilinear
from benchmarks.bench_remainders import section_remainders
from benchmarks.bench_storemem import section_storemem
from benchmarks.bench_wide import section_wide
from benchmarks.bench_widebuild import section_widebuild
from benchmarks.bench_widesum import section_widesum
from benchmarks.bench_writable import section_writable
from benchmarks.common import ALL_MODES, LIBS, _ratio, machine, markdown_table
from daskpad.core.chunks import chunk_budget
from daskpad.core.registry import MODES

#: name: (function, the table's title)
SECTIONS = {
    "correctness": (section_correctness, "Correctness on small tricky cases (vs numpy.pad)"),
    "inmem": (section_inmem, "In-memory arrays, computed into memory (ratio = time / numpy.pad)"),
    "build": (section_build, "Graph build (call, materialisation, optimize) and tasks added"),
    "pipeline": (section_pipeline, "Pipelines on local threads (ratio = time / unpadded)"),
    "ahead": (section_ahead, "pad + sum beside dask.array.pad (ratio = time / unpadded sum)"),
    "cluster": (section_cluster, "Pipelines on a 2-worker LocalCluster (ratio = time / unpadded)"),
    "callable": (section_callable, "mode=<function>, padded and reduced"),
    "overlap": (section_overlap, "Stencils with a halo: daskpad.map_overlap against dask's"),
    "wide": (section_wide, "Pads wider than the axis (ratio = time / numpy.pad)"),
    "storemem": (section_storemem, "Storing to zarr with regular chunks: input blocks held"),
    "cli": (section_cli, "The command on a zarr store: threads, tiles, a cluster, S3"),
    "big": (section_big, "Bigger than memory: pad + reduce, daskpad only"),
    "bigstore": (section_bigstore, "Bigger than memory: the command, against copying it"),
    "remainders": (
        section_remainders,
        "Chunks that do not divide the shape (ratio = daskpad / dask)",
    ),
    "widebuild": (section_widebuild, "Widths far beyond the array: build, blocks, windows"),
    "widesum": (section_widesum, "Wide pads reduced (ratio = time / the same sum unpadded)"),
    "edge_function": (section_edge_function, "A user function: whole lines or edges only"),
    "writable": (section_writable, "Writable pad blocks: the copies alone (ratio to unpadded)"),
    "rectilinear": (
        section_rectilinear,
        "--chunk-grid rectilinear beside the regular grid, cp -r",
    ),
    "datasets": (
        section_datasets,
        "ERA5- and CMIP-like stores beside the copy floor and the codec floor",
    ),
}
GROUPS = {
    "report": [*SECTIONS][:13],
    "chunkings": ["remainders", "widebuild", "widesum"],
    "all": [*SECTIONS],
}
#: the column each library's time is divided by, per section ("ratio" columns)
RATIO_TO = {
    "inmem": "numpy s",
    "wide": "numpy s",
    "pipeline": "unpadded s",
    "cluster": "unpadded s",
}


def table(section: str, rows: list[dict]) -> str:
    if not rows:
        return ""
    rows = [dict(r) for r in rows]
    for r in rows:
        if section == "big":
            r["vs no pad"] = _ratio(r["daskpad s"], r["unpadded s"])
        elif section in RATIO_TO:
            for lib in LIBS:
                if f"{lib} s" in r:
                    r[f"{lib} ratio"] = _ratio(r[f"{lib} s"], r[RATIO_TO[section]])
        elif section == "build":
            r["build ratio (dask/daskpad)"] = _ratio(
                r["dask.array.pad build s"], r["daskpad build s"]
            )
    return markdown_table(rows)


def _big_mode(text: str) -> str:
    name, _, length = text.partition(":")
    if name not in ALL_MODES or (length and not (length.isdigit() and MODES[name].stat)):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a mode ({', '.join(ALL_MODES)}), a statistic optionally with "
            "':STAT_LENGTH'"
        )
    return text


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [*SECTIONS, *GROUPS]
    p.add_argument("sections", nargs="*", metavar="SECTION", choices=names, help=", ".join(names))
    p.add_argument("--only", nargs="+", choices=names, default=[], metavar="SECTION")
    p.add_argument("--skip", nargs="+", choices=list(SECTIONS), default=[], metavar="SECTION")
    p.add_argument("--quick", action="store_true", help="small sizes (CI)")
    p.add_argument("--repeat", type=int, help="rounds (default 1 quick, 3 full)")
    p.add_argument("--out", type=Path, help="also write the tables to this markdown file")
    p.add_argument("--json", type=Path, help="write the rows, machine and command as JSON")
    p.add_argument("--tmp", default=None, help="directory for zarr stores")
    p.add_argument("-v", "--verbose", action="store_true", help="progress on stderr")
    p.add_argument("--big-gb", type=float, default=48.0, help="big: the array's size")
    p.add_argument("--bigstore-gb", type=float, default=31.0, help="bigstore: the store's size")
    p.add_argument(
        "--big-modes", nargs="+", metavar="MODE[:STAT_LENGTH]", type=_big_mode,
        help=f"big: these modes (default: {' '.join(BIG_MODES)})",
    )  # fmt: skip
    p.add_argument(
        "--full-build", action="store_true",
        help=f"build: also optimize+materialise at >= {BUILD_BIG_SIDE**2:.0e} chunks (minutes)",
    )  # fmt: skip
    p.add_argument("--cluster-side", type=int, default=12_288, help="cluster: array side")
    p.add_argument("--cluster-chunk", type=int, default=2_048, help="cluster: chunk side")
    p.add_argument("--cluster-width", type=int, default=64, help="cluster: pad width")
    p.add_argument("--window-timeout", type=float, help="widebuild: seconds (30 quick, 120)")
    size = {"nargs": 3, "type": int, "metavar": ("SIDE", "CHUNK", "WIDTH")}
    p.add_argument("--edge-size", **size, help="edge_function (15600 1000 16)")
    p.add_argument("--writable-size", **size, help="writable (12000 500 3000)")
    p.add_argument("--writable-modes", nargs="+", metavar="MODE[:STAT_LENGTH]")
    p.add_argument(
        "--ahead-modes", nargs="+", choices=[label for label, _, _ in AHEAD_MODES],
        metavar="LABEL", help="ahead: these rows alone (the modes' labels: edge, ...)",
    )  # fmt: skip
    p.add_argument(
        "--ahead-in-memory", action="store_true", help="ahead: without the cluster's rows"
    )
    p.add_argument("--rect-size", **size, help="rectilinear (32768 1024 256)")
    p.add_argument("--rect-modes", nargs="+", choices=list(RECT_MODES))
    p.add_argument("--rect-store", type=Path, help="rectilinear: the input store (made once)")
    p.add_argument("--cold", action="store_true", help="rectilinear: evict the input first")
    return p


def main(argv: list[str] | None = None) -> int:
    cfg = _parser().parse_args(argv)
    cfg.repeat = cfg.repeat or (1 if cfg.quick else 3)
    cfg.window_timeout = cfg.window_timeout or (30.0 if cfg.quick else 120.0)
    asked = [*cfg.sections, *cfg.only] or ["report"]
    wanted = {s for name in asked for s in GROUPS.get(name, [name]) if s not in cfg.skip}
    if wanted & {*GROUPS["report"]} - {"correctness"}:
        wanted.add("correctness")  # the report's tables need its verdicts

    results: dict[str, Any] = {
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d"),
        "command": " ".join(["python benchmarks/run.py", *(argv or sys.argv[1:])]),
        "quick": cfg.quick,
        "repeat": cfg.repeat,
        "budget B": chunk_budget(),
        "sections": {},
    }
    out = [f"Machine: {results['machine']}", "", f"`{results['command']}`, {results['date']}", ""]
    print("\n".join(out[:3]), flush=True)
    for name, (section, title) in SECTIONS.items():
        if name not in wanted:
            continue
        t0 = time.perf_counter()
        rows = section(cfg)
        took = time.perf_counter() - t0
        results["sections"][name] = rows
        text = f"### {title}\n\n{table(name, rows)}\n\n_section took {took:.1f} s_\n"
        print("\n" + text, flush=True)
        out.append(text)
    if cfg.json:
        cfg.json.write_text(json.dumps(results, indent=1, default=str))
    if cfg.out:
        cfg.out.write_text("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
