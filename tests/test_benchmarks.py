"""The benchmark command runs end to end (``--quick``), so it never rots."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import dask
import pytest

RUN = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"

pytest.importorskip("distributed")
pytest.importorskip("zarr")


def run_quick(script: Path, out: Path, raw: Path, *args: str) -> None:
    """Run a benchmark script with ``--quick``, its tables to ``out`` and rows to ``raw``;
    it must succeed and start with the machine line."""
    proc = subprocess.run(
        [sys.executable, str(script), "--quick", "--out", str(out), "--json", str(raw), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.startswith("Machine: ")


@pytest.mark.slow
@pytest.mark.cluster  # its "cluster" section starts a 2-worker LocalCluster
def test_quick_benchmark_runs_and_prints_every_table(tmp_path):
    out, raw = tmp_path / "results.md", tmp_path / "results.json"
    run_quick(RUN, out, raw, "--tmp", str(tmp_path))
    results = json.loads(raw.read_text())
    sections = results["sections"]
    assert set(sections) == {
        "correctness",
        "inmem",
        "build",
        "pipeline",
        "cluster",
        "callable",
        "wide",
        "storemem",
        "cli",
        "big",
    }
    for name, rows in sections.items():
        assert rows, f"section {name} produced no rows"
    # numpy.pad is the oracle: daskpad is never "wrong" anywhere
    for rows in sections.values():
        for row in rows:
            assert row.get("daskpad") in (None, "ok"), row
            assert row.get("daskpad s") != "wrong", row
    # dask.array.pad's known failures show up as "wrong", not as a time
    inmem = {(r["array"], r["mode"]): r for r in sections["inmem"]}
    assert any(r["dask.array.pad s"] == "wrong" for r in inmem.values())
    # build: every library and mode on a fresh input; the pad call is always timed
    build = sections["build"]
    assert {r["mode"] for r in build} >= {"mean stat_length=None", "median stat_length=None"}
    for row in build:
        assert isinstance(row["daskpad call s"], float), row
        if row["mode"] == "median stat_length=None":
            assert row["dask.array.pad call s"] == "unsupported", row
        else:
            assert row["daskpad tasks"] == row["daskpad tasks raw"] - row["input tasks"], row
    # storemem: held input blocks are counted for each grid, library and mode
    for row in sections["storemem"]:
        assert row["daskpad held blocks"] >= 1, row
        if row["mode"] in ("constant", "reflect", "wrap", "linear_ramp"):
            assert row["daskpad.to_zarr held blocks"] >= 1, row  # and tile by tile
    assert {r["pipeline"] for r in sections["pipeline"]} == {
        "pad+reduce",
        "pad+store",
        "pad+store tiled",
    }
    # cli: the command ran in one piece and tile by tile, with its peak memory
    for row in sections["cli"]:
        assert row["tiles"] > 1 and row["tiled RSS MB"] > 0 and row["whole s"] > 0, row
    # big: every mode, the median over a short stat_length (a whole-axis one holds whole
    # lines along each axis in turn)
    big = {r["mode"] for r in sections["big"]}
    assert "median stat_length=256" in big and "median" not in big, big
    assert {"constant", "mean", "reflect", "wrap"} <= big, big
    assert all(r["unpadded s"] > 0 for r in sections["big"])  # each its own baseline
    table = out.read_text()
    assert "| pipeline | mode |" in table and "wrong" in table


CHUNKINGS = RUN.parent / "chunkings.py"


@pytest.mark.slow
def test_quick_chunkings_benchmark_runs_and_daskpad_matches_numpy(tmp_path):
    out, raw = tmp_path / "chunkings.md", tmp_path / "chunkings.json"
    run_quick(CHUNKINGS, out, raw)
    sections = json.loads(raw.read_text())["sections"]
    assert set(sections) == {"remainders", "widebuild", "widesum"}
    for name, rows in sections.items():
        assert rows, f"section {name} produced no rows"
        for row in rows:
            # numpy.pad is the oracle: daskpad's values equal it in every row (a 2-D integer
            # linear_ramp is compared with numpy's rounding, "close")
            close = name == "widebuild" and row["mode"] == "linear_ramp" and "2-D" in row["case"]
            assert row["daskpad = numpy"] == ("close" if close else "ok"), row
            assert row["target"] in ("met", "NOT met"), row
    # every policy and the mode dask.array.pad lacks are there, dask.array.pad's wrong
    # values shown as "wrong"
    remainders = sections["remainders"]
    assert {r["policy"] for r in remainders} == {"default", "regular"}
    assert any(r["dask.array.pad = numpy"] == "n/a" for r in remainders)  # median
    for r in remainders:  # a wrong result is never timed
        if r["dask.array.pad = numpy"] == "wrong":
            assert r["dask.array.pad s"] == "wrong", r
    if not dask.config.get("array.query-planning", False):
        # (dask's query-planning pad is a separate implementation, right here)
        assert any(r["dask.array.pad s"] == "wrong" for r in remainders)  # reflect odd
    for row in sections["widebuild"]:
        times = [row[f"{k} s"] for k in ("build", "first", "middle", "last")]
        assert all(isinstance(t, float) for t in times), row
    table = out.read_text()
    assert table.startswith("Machine: ") and "| case | mode | policy |" in table
