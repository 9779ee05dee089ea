"""Side-by-side benchmarks: daskpad, dask.array.pad and numpy.pad in one run.

    python benchmarks/run.py [--quick] [--out RESULTS.md] [--json results.json]
                             [--only SECTION ...] [--repeat 3] [--big-gb 48]
                             [--full-build] [--cluster-side 12288 --cluster-chunk 2048
                              --cluster-width 64]

Prints one markdown table per section, with wall times, ratios, task counts and peak
resident memory, and writes the raw numbers as JSON (``benchmarks/plot.py`` reads it).
``--quick`` shrinks every size: the whole run took 3.4 minutes on 2 cores, 2026-11-27 (CI runs it).
Timed cases are the best of ``--repeat`` runs (default 3, 1 with ``--quick``), but in the
pipeline, cluster, big and cli sections, where each case is run in turn with its unpadded
baseline, round by round, so both see the same machine (a small VM drifts by 10-30% over
minutes), and each is the median of its rounds.
Each section is a module of its own, ``benchmarks/bench_<section>.py``, which also holds
the same scenario as asv benchmark classes at the ``--quick`` sizes (``asv run
--python=same --quick``; see ``asv.conf.json``); the helpers they share are in
``benchmarks/common.py``. This script runs the sections and prints the report.

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
             graph minus "input tasks") and "tasks raw" the whole graph; "pad layers s"
             the call plus the pad's own layers materialised and converted to dask's task
             nodes, from an input whose layer is materialised already (the pad's share of
             what a scheduler builds; the median of ``--repeat`` rounds, the libraries
             alternating), "pad layers MB" those layers pickled as a client ships them,
             and their ratio daskpad / dask.array.pad. Modes: reflect, constant, mean
             stat_length=2, linear_ramp, mean and median with stat_length=None (the whole
             axis; dask.array.pad has no median) and a user function. "-" is not
             measured: "opt+mat s" from 10^6 chunks (minutes; ``--full-build`` measures
             it), and from 10^6 chunks everything but "call s" for the whole-axis
             statistics and everything but "call s" and the pad layers for the user
             function.
pipeline     pad+reduce and pad+store (zarr) of a lazily generated float32 array, local
             threads, against the same pipeline without padding: pad 64 on 28672 x 28672
             (3.3 GB, 4096 x 4096 chunks), the scale targets' "3 GB" case; stores with
             zarr's default codec, daskpad's result through ``daskpad.to_zarr``.
ahead        pad + sum, daskpad beside dask.array.pad, each a ratio to the unpadded sum in
             interleaved rounds (median of at least 7): pad 64 on 20000 x 20000 float64 in
             chunks of 2000, pad 1500 on 3000 x 3000 in chunks of 250, pad 3000 on
             12000 x 12000 in chunks of 500, and pad 64 on 20000 x 20000 float32 read
             from a zarr store on a 2-worker LocalCluster; every mode family, with each
             row's target and whether it is met.
cluster      the same on a 2-worker LocalCluster (process workers), by default on
             12288 x 12288 (0.6 GB, 2048 x 2048 chunks), pad 64 (``--cluster-*``).
callable     mode=<function> on a ~1 GB array: time and peak memory.
overlap      a 3 x 3 and a 9 x 9 box filter on a 2.4 GB lazily generated array through
             ``daskpad.map_overlap`` and ``dask.array.map_overlap`` with the matching
             boundary (paired rounds, reduced on local threads); numpy's reflect is
             daskpad's alone. A boundary per axis (symmetric axis 0, periodic axis 1)
             against dask's ``{0: "reflect", 1: "periodic"}``, and one ``daskpad.pad``
             with that mode per axis against two chained ``daskpad.pad`` calls.
wide         pads wider than the axis.
storemem     input blocks held at once (counted with weakref finalizers) while an n x n-block
             float32 array is padded and stored to zarr with regular chunks, n = 8, 16, 32
             (256 x 256 chunks, pad 16, local threads); dask.array.pad's result rechunked.
             Also ``daskpad.to_zarr`` (tile by tile, tiles reading at most 6 x 6 blocks).
cli          the ``daskpad`` command (a fresh process per run) on a zarr store of 16 x 16
             blocks of 1024 x 1024 float32 (zstd), pad 16 along both dimensions, regular
             chunks, every mode with bounded slabs and the whole-axis statistics: seconds
             in ``main`` and the process's peak resident memory on local threads, tile by
             tile (``--memory 64MB``) and on a 2-worker cluster, each against the same
             command with a zero width (a copy); one row through an S3-compatible server
             on 127.0.0.1 (moto).
big          a lazily generated array larger than this machine's memory, padded in every
             mode and reduced, with peak resident memory; each mode is timed right after
             the same sum unpadded, its baseline. ``median`` reads 256 elements
             at each edge (``median:256``): a whole-axis median holds whole lines along
             each axis in turn, about the whole array (``--big-modes median`` runs it).
bigstore     the command on a zarr store bigger than this machine's memory
             (``--bigstore-gb``, 31 GB of float32 by default; written once under ``--tmp``
             and kept for the next run): pad 256, reflect, against copying it.

Memory: "<lib> MB" is the highest resident set size of this process, sampled every few
milliseconds while the case runs, minus the resident size just before it. The allocator
keeps memory freed by earlier cases, so small cases late in a run can read near 0; the
"RSS MB" columns (callable, big) give the absolute peak of the whole process, an upper
bound. Run a section alone (``--only big``) for a clean baseline.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

# run as a script (python benchmarks/run.py): the scenario modules are the package
# ``benchmarks`` in the repository root (appended: daskpad stays the one found first)
sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_ahead import section_ahead
from benchmarks.bench_big import BIG_MODES, section_big
from benchmarks.bench_build import BUILD_BIG_SIDE, section_build
from benchmarks.bench_callable import section_callable
from benchmarks.bench_cli import section_bigstore, section_cli
from benchmarks.bench_cluster import section_cluster
from benchmarks.bench_correctness import section_correctness
from benchmarks.bench_inmem import section_inmem
from benchmarks.bench_overlap import section_overlap
from benchmarks.bench_pipeline import section_pipeline
from benchmarks.bench_storemem import section_storemem
from benchmarks.bench_wide import section_wide
from benchmarks.common import ALL_MODES, HERE, LIBS, _ratio, machine, markdown_table
from daskpad.core.registry import MODES

SECTIONS = {
    "correctness": section_correctness,
    "inmem": section_inmem,
    "build": section_build,
    "pipeline": section_pipeline,
    "ahead": section_ahead,
    "cluster": section_cluster,
    "callable": section_callable,
    "overlap": section_overlap,
    "wide": section_wide,
    "storemem": section_storemem,
    "cli": section_cli,
    "big": section_big,
    "bigstore": section_bigstore,
}


# --------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------


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


TITLES = {
    "correctness": "Correctness on small tricky cases (vs numpy.pad)",
    "inmem": "In-memory arrays, computed into memory (ratio = time / numpy.pad)",
    "build": "Graph build (pad call, graph materialisation, optimize) and tasks added",
    "pipeline": "Pipelines on local threads (ratio = time / same pipeline unpadded)",
    "ahead": "pad + sum beside dask.array.pad (ratio = time / unpadded sum, paired rounds)",
    "cluster": "Pipelines on a 2-worker LocalCluster (ratio = time / unpadded)",
    "callable": "mode=<function>, padded and reduced (peak MB = extra resident memory)",
    "overlap": "Stencils with a halo: daskpad.map_overlap against dask.array.map_overlap",
    "wide": "Pads wider than the axis (ratio = time / numpy.pad)",
    "storemem": "Storing to zarr with regular chunks: input blocks held at once vs grid size",
    "cli": "The command on a zarr store: threads, tiles, a cluster, S3 (ratios to its copy)",
    "big": "Bigger than memory: pad + reduce, daskpad only (peak MB = extra resident memory)",
    "bigstore": "Bigger than memory: the command on a zarr store, against copying it",
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
        "--bigstore-gb", type=float, default=31.0, help="size of the 'bigstore' zarr store"
    )
    p.add_argument(
        "--big-modes",
        nargs="+",
        metavar="MODE[:STAT_LENGTH]",
        type=_big_mode,
        help=f"big: these modes (default: {' '.join(BIG_MODES)})",
    )
    p.add_argument(
        "--repeat", type=int, help="best, or paired median, of N (default 1 quick, 3 full)"
    )
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
