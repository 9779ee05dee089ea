"""The ``daskpad`` command, run as the installed console script in a subprocess.

Inputs are zarr stores written by zarr itself (v2 and v3); outputs are read back with zarr
and compared with :func:`numpy.pad` of the stored arrays. Subprocesses that do not depend on
each other are started together (a module fixture) so the suite stays quick on two cores.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers.cli_launcher import COMMAND, HOOK_ENV, hooked
from helpers.markers import WRITES

from daskpad.core.registry import MODES

zarr = pytest.importorskip("zarr")
pytest.importorskip("xarray")

_SCRIPT = Path(sys.executable).with_name("daskpad")
DASKPAD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "daskpad"]

# one test process runs the module, so that its module fixtures start their commands once
pytestmark = pytest.mark.xdist_group("cli")

# The padding every mode test applies (time is left alone), and each mode's options.
WIDTHS = {"time": (0, 0), "lat": (2, 2), "lon": (3, 5)}
WIDTH_ARGS = ["--width", "lat=2", "--width", "lon=3:5"]
MODE_OPTIONS: dict[str, tuple[list[str], dict]] = {
    "constant": (["--constant-value", "7"], {"constant_values": 7}),
    "empty": ([], {}),
    "edge": ([], {}),
    "reflect": (["--reflect-type", "odd"], {"reflect_type": "odd"}),
    "symmetric": ([], {}),
    "wrap": ([], {}),
    "linear_ramp": (["--end-value=-4:2"], {"end_values": (-4, 2)}),
    "maximum": (["--stat-length", "2"], {"stat_length": 2}),
    "mean": (["--stat-length", "3:1"], {"stat_length": (3, 1)}),
    "median": ([], {}),
    "minimum": (["--stat-length", "2"], {"stat_length": 2}),
}


def test_every_mode_has_options():
    assert set(MODE_OPTIONS) == set(MODES)


def test_coords_choices_are_the_accessors():
    from daskpad import cli
    from daskpad.xarray import COORDS_POLICIES

    pad = cli.build_parser()._subparsers._group_actions[0].choices["pad"]
    (coords,) = [a for a in pad._actions if "--coords" in a.option_strings]
    assert tuple(coords.choices) == COORDS_POLICIES


# --------------------------------------------------------------------------------------
# Inputs written by zarr itself
# --------------------------------------------------------------------------------------
def write_store(path: Path, zarr_format: int) -> Path:
    """A small (time, lat, lon) dataset: float and int variables, index coords, attrs."""
    rng = np.random.default_rng(zarr_format)
    group = zarr.open_group(path, mode="w", zarr_format=zarr_format)
    group.attrs["title"] = "daskpad cli test"

    def array(name, data, chunks, dims, **attrs):
        # (zarr v2's fill_value is read by xarray as the missing value: none here, as
        # xarray itself writes v2 arrays without one; the values tests cover fill values)
        kw = {"dimension_names": dims} if zarr_format == 3 else {"fill_value": None}
        arr = group.create_array(name, shape=data.shape, chunks=chunks, dtype=data.dtype, **kw)
        arr[...] = data
        if zarr_format == 2:
            attrs["_ARRAY_DIMENSIONS"] = list(dims)
        arr.attrs.update(attrs)

    array("t", rng.normal(280, 10, (4, 8, 10)), (2, 3, 4), ("time", "lat", "lon"), units="K")
    array("n", rng.integers(-50, 50, (8, 10), dtype="int32"), (3, 4), ("lat", "lon"))
    array("time", np.arange(4, dtype="int64"), (4,), ("time",), units="days since 2000-01-01")
    array("lat", np.linspace(-70.0, 70.0, 8), (8,), ("lat",))
    array("lon", np.arange(0.0, 360.0, 36.0), (10,), ("lon",))
    return path


def stored(path: Path, name: str) -> np.ndarray:
    return np.asarray(zarr.open_array(path / name, mode="r")[...])


def digest(path: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(path.rglob("*")):
        h.update(str(p.relative_to(path)).encode())
        if p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


def daskpad(*args, env=None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*(COMMAND if hooked(env) else DASKPAD), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        **kwargs,
    )


def start(*args, env=None) -> subprocess.Popen:
    return subprocess.Popen(
        [*(COMMAND if hooked(env) else DASKPAD), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def finish(proc: subprocess.Popen) -> subprocess.CompletedProcess:
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="module")
def cli_sources(workdir) -> dict[int, Path]:
    return {fmt: write_store(workdir / f"src_v{fmt}.zarr", fmt) for fmt in (2, 3)}


# --------------------------------------------------------------------------------------
# Every mode, end to end
# --------------------------------------------------------------------------------------
def pads_together(workdir: Path, cli_sources, prefix: str, options: dict[str, list]) -> dict:
    """Run ``daskpad pad`` once per case with its options, into ``{prefix}{case}.zarr``, all
    at once; zarr v2 and v3 inputs alternate. ``{case: (format, output, finished run)}``."""
    procs = {}
    for i, (case, args) in enumerate(options.items()):
        fmt = 2 + i % 2
        dst = workdir / f"{prefix}{case}.zarr"
        procs[case] = (fmt, dst, start("pad", cli_sources[fmt], dst, *args))
    return {case: (fmt, dst, finish(p)) for case, (fmt, dst, p) in procs.items()}


@pytest.fixture(scope="module")
def mode_runs(workdir, cli_sources):
    """Run ``daskpad pad`` once per mode, all at once; zarr v2 and v3 inputs alternate."""
    options = {
        mode: [*WIDTH_ARGS, "--mode", mode, *opts, "--progress"]
        for mode, (opts, _) in MODE_OPTIONS.items()
    }
    return pads_together(workdir, cli_sources, "out_", options)


@WRITES
@pytest.mark.parametrize("mode", list(MODE_OPTIONS))
def test_pad_equals_numpy(mode, mode_runs, cli_sources):
    fmt, dst, run = mode_runs[mode]
    assert run.returncode == 0, run.stderr
    src = cli_sources[fmt]
    kwargs = MODE_OPTIONS[mode][1]
    out = zarr.open_group(dst, mode="r")
    assert out.metadata.zarr_format == fmt
    assert out.attrs["title"] == "daskpad cli test"
    assert out["t"].attrs["units"] == "K"
    for name, dims in (("t", ("time", "lat", "lon")), ("n", ("lat", "lon"))):
        pairs = [WIDTHS[d] for d in dims]
        got = stored(dst, name)
        expected = np.pad(stored(src, name), pairs, mode=mode, **kwargs)
        assert got.dtype == expected.dtype
        if mode == "empty":  # only the interior is defined
            inner = tuple(slice(b, n - a) for (b, a), n in zip(pairs, got.shape))
            got, expected = got[inner], expected[inner]
        if mode == "mean" and got.dtype.kind == "f":
            np.testing.assert_allclose(got, expected, rtol=1e-12)
        else:
            np.testing.assert_array_equal(got, expected)
        # regular zarr chunks: the input's largest chunk along each axis
        assert out[name].chunks == zarr.open_array(src / name, mode="r").chunks
    # index coordinates continue with their spacing; time is untouched
    np.testing.assert_array_equal(stored(dst, "lon"), np.arange(-108.0, 540.0, 36.0))
    np.testing.assert_array_equal(stored(dst, "time"), stored(src, "time"))
    assert out["time"].attrs["units"] == "days since 2000-01-01"
    # the summary line: shapes, bytes, time
    last = run.stdout.strip().splitlines()[-1]
    assert last.startswith(f"padded {src} -> {dst}")
    assert "lat 8->12" in last and "lon 10->18" in last and " on disk) in " in last
    assert "100% Completed" in run.stderr  # dask's progress bar, asked for with --progress
    assert "Completed" not in run.stdout
    zarr.open_consolidated(dst, mode="r", zarr_format=fmt)  # consolidated, v3 too
    assert not list(dst.parent.glob(f".{dst.name}.daskpad-*"))  # no temporary left


# A mode per dimension: (options, each dimension's mode and numpy.pad keywords)
PER_DIM: dict[str, tuple[list[str], dict[str, tuple[str, dict]]]] = {
    "wrap-symmetric": (
        [*WIDTH_ARGS, "--mode", "lon=wrap", "--mode", "lat=symmetric",
         "--reflect-type", "lat=odd"],
        {"lat": ("symmetric", {"reflect_type": "odd"}), "lon": ("wrap", {})},
    ),
    "ramp-median-constant": (
        [*WIDTH_ARGS, "--width", "time=0:2", "--mode", "time=linear_ramp",
         "--end-value", "time=-4:2", "--mode", "lat=median", "--stat-length", "lat=3:1",
         "--constant-value", "lon=7"],
        {"time": ("linear_ramp", {"end_values": (-4, 2)}),
         "lat": ("median", {"stat_length": (3, 1)}),
         "lon": ("constant", {"constant_values": 7})},
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def per_dim_runs(workdir, cli_sources):
    """``daskpad pad`` with a mode per dimension, the runs started together."""
    options = {case: [*opts, "--no-progress"] for case, (opts, _) in PER_DIM.items()}
    return pads_together(workdir, cli_sources, "per_dim_", options)


@WRITES
@pytest.mark.parametrize("case", list(PER_DIM))
def test_modes_by_dimension_equal_chained_numpy(case, per_dim_runs, cli_sources):
    fmt, dst, run = per_dim_runs[case]
    assert run.returncode == 0, run.stderr
    modes = PER_DIM[case][1]
    for name, dims in (("t", ("time", "lat", "lon")), ("n", ("lat", "lon"))):
        expected = stored(cli_sources[fmt], name)
        for axis, dim in enumerate(dims):  # numpy.pad once per dimension, in axis order
            if dim in modes:
                alone = [(0, 0)] * len(dims)
                alone[axis] = (0, 2) if dim == "time" else WIDTHS[dim]
                mode, kwargs = modes[dim]
                expected = np.pad(expected, alone, mode=mode, **kwargs)
        np.testing.assert_array_equal(stored(dst, name), expected)
    np.testing.assert_array_equal(stored(dst, "lon"), np.arange(-108.0, 540.0, 36.0))
    # the summary line gives each padded dimension's mode
    last = run.stdout.strip().splitlines()[-1]
    for dim, (mode, _) in modes.items():
        assert f" {dim} " in last and f"({mode})" in last.split(f" {dim} ")[1].split(" x ")[0]


def test_info_shows_the_mode_of_each_dimension(cli_sources):
    run = daskpad(
        "info", cli_sources[3], *WIDTH_ARGS, "--mode", "lon=wrap", "--mode", "lat=symmetric"
    )
    assert run.returncode == 0, run.stderr
    assert "--mode lat=symmetric lon=wrap (nothing computed)" in run.stdout
    assert "dimensions: time 4, lat 12 (+2+2 symmetric), lon 18 (+3+5 wrap)" in run.stdout
    # a padded dimension --mode does not name is padded with constant, and says so
    run = daskpad("info", cli_sources[3], *WIDTH_ARGS, "--mode", "lon=wrap")
    assert run.returncode == 0, run.stderr
    assert "--mode lat=constant lon=wrap" in run.stdout
    assert "lat 12 (+2+2 constant), lon 18 (+3+5 wrap)" in run.stdout


def test_inputs_untouched(mode_runs, cli_sources):
    before = {
        fmt: digest(write_store(src.with_name(f"copy_{fmt}.zarr"), fmt))
        for fmt, src in cli_sources.items()
    }
    assert {fmt: digest(src) for fmt, src in cli_sources.items()} == before


@WRITES
def test_var_coords_chunks_and_format(tmp_path, cli_sources):
    dst = tmp_path / "out.zarr"
    run = daskpad(
        "pad",
        cli_sources[2],
        dst,
        "--width",
        "lon=2",
        "--mode",
        "wrap",
        "--var",
        "n",
        "--coords",
        "drop",
        "--chunks",
        "lon=5",
        "--zarr-format",
        "3",
        "--no-progress",
    )
    assert run.returncode == 0, run.stderr
    assert "Completed" not in run.stdout + run.stderr
    out = zarr.open_group(dst, mode="r")
    assert out.metadata.zarr_format == 3
    assert sorted(out.array_keys()) == ["lat", "n"]  # t dropped; lon (an index) dropped
    assert out["n"].chunks == (3, 5)
    np.testing.assert_array_equal(
        stored(dst, "n"), np.pad(stored(cli_sources[2], "n"), ((0, 0), (2, 2)), mode="wrap")
    )


@WRITES
def test_even_chunks_leave_no_thin_last_chunk(tmp_path, cli_sources):
    dst = tmp_path / "even.zarr"
    run = daskpad(
        "pad", cli_sources[2], dst, "--width", "lon=3", "--mode", "wrap", "--var", "n",
        "--chunks", "even", "--no-progress",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    # n is (8, 10) in (3, 4) chunks: lon 16 holds 4 chunks of 4 ("regular": 4, 4, 4, 4)
    # and 8 holds 3 of 3 along lat, which is not padded
    src_chunks = zarr.open_array(cli_sources[2] / "n", mode="r").chunks
    assert zarr.open_group(dst, mode="r")["n"].chunks == (src_chunks[0], 4)
    np.testing.assert_array_equal(
        stored(dst, "n"), np.pad(stored(cli_sources[2], "n"), ((0, 0), (3, 3)), mode="wrap")
    )


# --------------------------------------------------------------------------------------
# Bounded memory: --memory writes tile by tile
# --------------------------------------------------------------------------------------
# t's blocks are 2 x 3 x 4 float64 (192 bytes): a tile reads at most 5 of them (with the
# neighbours along the padded lat and lon), so the 4 x 8 x 10 variable takes many tiles.
TILED = ["--memory", "1000"]


@WRITES
@pytest.mark.parametrize("mode", ["reflect", "linear_ramp", "minimum", "median", "wrap"])
def test_tiled_write_equals_the_whole_write(mode, mode_runs, cli_sources, tmp_path):
    fmt, whole, _ = mode_runs[mode]  # (median: of the whole axis, settled before the tiles)
    options, kwargs = MODE_OPTIONS[mode]
    dst = tmp_path / "tiled.zarr"
    run = daskpad(
        "pad", cli_sources[fmt], dst, *WIDTH_ARGS, "--mode", mode, *options, *TILED, "--progress"
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(f"writing {dst} in ") and "tiles, each holding about" in lines[0]
    ntiles = int(lines[0].split(" in ")[1].split()[0])
    assert ntiles > 10
    assert f"100% Completed | tile {ntiles} of {ntiles}" in run.stderr
    # the statistics a pad repeats are computed before the tiles, with a bar of their own
    assert ("100% Completed | statistics " in run.stderr) == (mode in ("minimum", "median"))
    for name, dims in (("t", ("time", "lat", "lon")), ("n", ("lat", "lon"))):
        expected = np.pad(
            stored(cli_sources[fmt], name), [WIDTHS[d] for d in dims], mode, **kwargs
        )
        np.testing.assert_array_equal(stored(dst, name), expected)
    # the same store as the one written in one piece, metadata and all
    assert digest(dst) == digest(whole)
    if fmt == 2:
        zarr.open_consolidated(dst, mode="r")  # consolidated after the last tile


def test_tiled_write_that_fails_leaves_nothing(tmp_path, cli_sources):
    # (with dask's array query planning the write fails earlier, in xarray: the same outcome)
    dst = tmp_path / "dst.zarr"
    run = daskpad("pad", cli_sources[3], dst, "--width", "lat=1", *TILED, env=_hook("fail"))
    assert run.returncode == 1
    assert "writing DST failed, DST left as it was" in run.stderr
    assert list(tmp_path.iterdir()) == []


def test_memory_in_dry_run(tmp_path, cli_sources):
    dst = tmp_path / "never.zarr"
    run = daskpad("pad", cli_sources[3], dst, *WIDTH_ARGS, *TILED, "--dry-run")
    assert run.returncode == 0, run.stderr
    assert "tiles, each holding about 0.98 kiB at most (the memory budget" in run.stdout
    # a statistic of the whole axis too: it is computed first, then the tiles are written
    run = daskpad("pad", cli_sources[3], dst, *WIDTH_ARGS, "--mode", "mean", *TILED, "--dry-run")
    assert run.returncode == 0, run.stderr
    assert "tiles, each holding about 0.98 kiB at most (the memory budget" in run.stdout
    assert not dst.exists()


def test_info_and_dry_run_compute_nothing(tmp_path, cli_sources):
    info = daskpad("info", cli_sources[3])
    assert info.returncode == 0, info.stderr
    assert "dimensions: time 4, lat 8, lon 10" in info.stdout
    assert "chunks 2x2 / 2x3+2 / 2x4+2" in info.stdout
    dst = tmp_path / "never.zarr"
    for argv in (
        ["info", cli_sources[3], *WIDTH_ARGS, "--mode", "edge"],
        ["pad", cli_sources[3], dst, *WIDTH_ARGS, "--mode", "edge", "--dry-run"],
    ):
        run = daskpad(*argv)
        assert run.returncode == 0, run.stderr
        assert "dimensions: time 4, lat 12 (+2+2 edge), lon 18 (+3+5 edge)" in run.stdout
        assert "--mode edge (nothing computed)" in run.stdout
        assert "(4, 12, 18)" in run.stdout and "tasks" in run.stdout
        assert "nothing computed" in run.stdout
    assert "--dry-run wrote nothing" in run.stdout
    assert not dst.exists()


# --------------------------------------------------------------------------------------
# Refusals: one line, non-zero, nothing written
# --------------------------------------------------------------------------------------
def _refusals(src: Path, tmp: Path) -> dict[str, tuple[list, str]]:
    existing = tmp / "existing.zarr"
    other = tmp / "user_dir"
    return {
        "missing input": (
            ["pad", tmp / "nope.zarr", tmp / "a.zarr", "--width", "lat=1"],
            "does not exist",
        ),
        "not a store": (["pad", other, tmp / "b.zarr", "--width", "lat=1"], "not a zarr store"),
        "unknown dim": (
            ["pad", src, tmp / "c.zarr", "--width", "depth=1"],
            "'depth', which is not in SRC",
        ),
        "unknown var": (
            ["pad", src, tmp / "d.zarr", "--width", "lat=1", "--var", "q"],
            "--var q: no such data variable",
        ),
        "width no =": (
            ["pad", src, tmp / "e.zarr", "--width", "lat2"],
            "--width 'lat2' is malformed",
        ),
        "width negative": (["pad", src, tmp / "f.zarr", "--width=lat=-1"], "is malformed"),
        "width 3 parts": (["pad", src, tmp / "g.zarr", "--width", "lat=1:2:3"], "is malformed"),
        "width twice": (
            ["pad", src, tmp / "h.zarr", "--width", "lat=1", "--width", "lat=2"],
            "twice",
        ),
        "no width": (["pad", src, tmp / "i.zarr"], "needs at least one --width"),
        "mode mismatch": (
            [
                "pad",
                src,
                tmp / "j.zarr",
                "--width",
                "lat=1",
                "--mode",
                "wrap",
                "--stat-length",
                "2",
            ],
            "--stat-length does not apply to --mode wrap",
        ),
        "reflect on constant": (
            ["pad", src, tmp / "k.zarr", "--width", "lat=1", "--reflect-type", "odd"],
            "--reflect-type does not apply to --mode constant",
        ),
        "bad value": (
            ["pad", src, tmp / "l.zarr", "--width", "lat=1", "--constant-value", "x"],
            "--constant-value 'x' is malformed",
        ),
        "bad mode": (
            ["pad", src, tmp / "m.zarr", "--width", "lat=1", "--mode", "nearest"],
            "invalid choice: 'nearest'",
        ),
        "dst is src": (["pad", src, src, "--width", "lat=1", "--overwrite"], "is SRC"),
        "dst in src": (["pad", src, src / "sub.zarr", "--width", "lat=1"], "lies inside SRC"),
        "dst holds src": (
            ["pad", src, src.parent, "--width", "lat=1", "--overwrite"],
            "contains SRC",
        ),
        "dst exists": (
            ["pad", src, existing, "--width", "lat=1"],
            "already exists; pass --overwrite",
        ),
        "dst not zarr": (
            ["pad", src, other, "--width", "lat=1", "--overwrite"],
            "is a directory that is not a zarr store",
        ),
        "stat on constant": (
            ["info", src, "--width", "lat=1", "--stat-length", "1"],
            "--stat-length does not apply",
        ),
        "bad chunks": (
            ["pad", src, tmp / "n.zarr", "--width", "time=1", "--chunks", "lat=0"],
            "--chunks 'lat=0' is malformed",
        ),
        "bad memory": (
            ["pad", src, tmp / "o.zarr", "--width", "lat=1", "--memory", "lots"],
            "--memory expects a size such as 2GB or 512MiB, got 'lots'",
        ),
        "fill out of range": (
            # n is int32: numpy.pad refuses a fill it cannot hold, and so does the command
            [
                "pad",
                src,
                tmp / "p.zarr",
                "--width",
                "lat=1",
                "--var",
                "n",
                "--constant-value",
                str(2**40),
            ],
            "--width lat=1 --mode constant --constant-value 1099511627776: Python integer "
            "1099511627776 out of bounds for int32",
        ),
        "mode twice": (
            ["pad", src, tmp / "r.zarr", "--width", "lat=1", "--mode", "wrap", "--mode", "edge"],
            "--mode is given 2 times without a dimension (--mode wrap, --mode edge)",
        ),
        "mode of a dimension twice": (
            [
                "pad",
                src,
                tmp / "s.zarr",
                "--width",
                "lat=1",
                "--mode",
                "lat=wrap",
                "--mode",
                "lat=edge",
            ],
            "--mode names dimension 'lat' twice (--mode lat=wrap, --mode lat=edge)",
        ),
        "mode bare and by dimension": (
            [
                "pad",
                src,
                tmp / "t.zarr",
                "--width",
                "lat=1",
                "--width",
                "lon=1",
                "--mode",
                "wrap",
                "--mode",
                "lat=edge",
            ],
            "--mode wrap (every padded dimension) and --mode lat=edge (one dimension) do not "
            "combine",
        ),
        "mode without width": (
            ["pad", src, tmp / "u.zarr", "--width", "lat=1", "--mode", "lon=wrap"],
            "--mode lon=wrap names dimension 'lon', which has no --width",
        ),
        "mode of another library": (
            ["info", src, "--width", "lon=1", "--mode", "lon=periodic"],
            "invalid choice: 'periodic' (choose from 'constant', ",
        ),
        "stat-length twice": (
            [
                "info",
                src,
                "--width",
                "lat=1",
                "--mode",
                "mean",
                "--stat-length",
                "1",
                "--stat-length",
                "2",
            ],
            "--stat-length is given 2 times without a dimension",
        ),
        "end-value of a dimension twice": (
            [
                "info",
                src,
                "--width",
                "lat=1",
                "--mode",
                "linear_ramp",
                "--end-value",
                "lat=1",
                "--end-value",
                "lat=2",
            ],
            "--end-value names dimension 'lat' twice",
        ),
        "constant-value bare and by dimension": (
            [
                "info",
                src,
                "--width",
                "lat=1",
                "--width",
                "lon=1",
                "--constant-value",
                "0",
                "--constant-value",
                "lat=1",
            ],
            "--constant-value 0 (every padded dimension) and --constant-value lat=1",
        ),
        "reflect-type without width": (
            ["info", src, "--width", "lat=1", "--mode", "reflect", "--reflect-type", "lon=odd"],
            "--reflect-type lon=odd names dimension 'lon', which has no --width",
        ),
        "stat-length for a dimension whose mode does not take it": (
            [
                "info",
                src,
                "--width",
                "lat=1",
                "--width",
                "lon=1",
                "--mode",
                "lat=mean",
                "--mode",
                "lon=wrap",
                "--stat-length",
                "lon=2",
            ],
            "--stat-length lon=2 does not apply to --mode lon=wrap",
        ),
        "option no padded dimension's mode takes": (
            ["info", src, "--width", "lat=1", "--mode", "lat=wrap", "--end-value", "1"],
            "--end-value does not apply to the mode of any padded dimension (--mode lat=wrap)",
        ),
        "width too large": (
            ["pad", src, tmp / "q.zarr", "--width", f"lat={10**30}"],
            f"--width 'lat={10**30}': a width must be below 2**63",
        ),
        "too many blocks": (
            ["info", src, "--width", f"lat={10**15}", "--mode", "wrap"],
            f"--width lat={10**15} --mode wrap: ",
        ),
    }


# The refusals the issue lists, run as the installed command; the rest run in-process.
SUBPROCESS_REFUSALS = (
    "missing input",
    "unknown dim",
    "unknown var",
    "width no =",
    "mode mismatch",
    "mode twice",
    "mode bare and by dimension",
    "dst in src",
    "dst exists",
    "fill out of range",
)


@pytest.fixture(scope="module")
def refusal_setup(tmp_path_factory, cli_sources):
    tmp = tmp_path_factory.mktemp("refusals")
    src = shutil.copytree(cli_sources[3], tmp / "src.zarr")
    write_store(tmp / "existing.zarr", 3)
    (tmp / "user_dir").mkdir()
    (tmp / "user_dir" / "notes.txt").write_text("precious")
    before = {p.name: digest(p) for p in tmp.iterdir()}
    return _refusals(src, tmp), tmp, before


@pytest.fixture(scope="module")
def refusal_runs(refusal_setup):
    cases = refusal_setup[0]
    procs = {name: start(*cases[name][0]) for name in SUBPROCESS_REFUSALS}
    return {name: finish(p) for name, p in procs.items()}


@pytest.mark.parametrize("case", SUBPROCESS_REFUSALS)
def test_refusal_by_the_command(case, refusal_setup, refusal_runs):
    run, message = refusal_runs[case], refusal_setup[0][case][1]
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr  # no traceback
    assert lines[0].startswith("daskpad: error: ")  # usage errors too
    assert message in lines[0]


@pytest.mark.parametrize("case", list(_refusals(Path("s"), Path("t"))))
def test_refusal(case, refusal_setup, capsys):
    from daskpad.cli import main

    argv, message = refusal_setup[0][case]
    assert main([str(a) for a in argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("daskpad: error: ")  # argparse's usage errors too
    assert message in err


def test_refusals_touch_nothing(refusal_setup, refusal_runs):
    _, tmp, before = refusal_setup
    assert {p.name: digest(p) for p in tmp.iterdir()} == before


def test_debug_shows_traceback(tmp_path, cli_sources):
    run = daskpad("--debug", "pad", cli_sources[3], tmp_path / "x.zarr", "--width", "depth=1")
    assert run.returncode == 2
    assert "Traceback" in run.stderr and "Refused" in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith("daskpad: error:")


def _store_with_a_lon_that_cannot_be_extended(tmp_path):
    src = tmp_path / "src.zarr"
    write_store(src, 3)
    arr = zarr.open_group(src).create_array(
        "lon", shape=(10,), dtype="int64", overwrite=True, dimension_names=("lon",)
    )
    arr[...] = [0, 1, 2, 3, 4, 4, 6, 7, 8, 9]  # not strictly monotonic
    return src


def test_pad2_errors_are_one_line(tmp_path, cli_sources):
    src = _store_with_a_lon_that_cannot_be_extended(tmp_path)
    run = daskpad("pad", src, tmp_path / "o.zarr", "--width", "lon=1")
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1
    assert "cannot extend the index coordinate 'lon'" in run.stderr


@WRITES
def test_an_index_that_cannot_be_extended_can_be_dropped(tmp_path, cli_sources):
    src = _store_with_a_lon_that_cannot_be_extended(tmp_path)
    ok = daskpad(
        "pad", src, tmp_path / "o.zarr", "--width", "lon=1", "--coords", "drop", "--no-progress"
    )
    assert ok.returncode == 0, ok.stderr


# --------------------------------------------------------------------------------------
# Never lose data: overwrite, failure, interruption
# --------------------------------------------------------------------------------------
def _hook(value: str) -> dict[str, str]:
    return {**os.environ, HOOK_ENV: value}


@WRITES
def test_overwrite_replaces_only_after_success(tmp_path, cli_sources):
    dst = write_store(tmp_path / "dst.zarr", 2)
    old = digest(dst)
    failed = daskpad(
        "pad", cli_sources[3], dst, "--width", "lat=1", "--overwrite", env=_hook("fail")
    )
    assert failed.returncode == 1
    assert failed.stderr.strip().splitlines() == [
        "daskpad: error: writing DST failed, DST left as it was: RuntimeError: "
        f"{HOOK_ENV}=fail: failing this block on purpose (--debug shows the traceback)"
    ]
    assert digest(dst) == old  # the old store is intact
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr"]  # temporary removed

    run = daskpad("pad", cli_sources[3], dst, "--width", "lat=1", "--mode", "edge", "--overwrite")
    assert run.returncode == 0, run.stderr
    assert zarr.open_group(dst, mode="r").metadata.zarr_format == 3
    assert stored(dst, "t").shape == (4, 10, 10)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr"]


def _start_slow(src: Path, dst: Path, *extra: str) -> subprocess.Popen:
    """Start a pad whose blocks each sleep; return once chunks are being written."""
    argv = ["pad", src, dst, "--width", "lat=1", "--mode", "edge", *extra]
    proc = start(*argv, env=_hook("sleep:0.3"))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        tmps = list(dst.parent.glob(f".{dst.name}.daskpad-tmp-*"))
        if tmps and any((tmps[0] / "t" / "c").rglob("*")):  # chunks of t are being written
            return proc
        assert proc.poll() is None, finish(proc).stderr
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the write never started")


@WRITES
@pytest.mark.parametrize(
    "sig", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=["SIGKILL", "SIGINT", "SIGTERM"]
)
def test_interrupted_write_leaves_no_dst(sig, tmp_path, cli_sources):
    src = shutil.copytree(cli_sources[3], tmp_path / "src.zarr")
    before = digest(src)
    dst = tmp_path / "dst.zarr"
    proc = _start_slow(src, dst)
    proc.send_signal(sig)
    run = finish(proc)
    assert not dst.exists()
    assert digest(src) == before
    leftover = list(tmp_path.glob(".dst.zarr.daskpad-*"))
    if sig == signal.SIGINT:
        assert run.returncode == 130
        assert (
            run.stderr.strip().splitlines()[-1]
            == "daskpad: interrupted; nothing was written to DST"
        )
        assert leftover == []
    elif sig == signal.SIGTERM:  # what a batch system sends
        assert run.returncode == 143
        assert run.stderr.strip().splitlines() == [
            "daskpad: terminated (SIGTERM); nothing was written to DST"
        ]
        assert leftover == []
    else:
        assert run.returncode == -signal.SIGKILL
        assert len(leftover) == 1  # hidden, never mistaken for DST; the next run names it
        assert any((leftover[0] / "t" / "c").rglob("*"))  # chunks, but no metadata: it
        with pytest.raises(FileNotFoundError):  # does not open as a half-written dataset
            zarr.open_group(leftover[0], mode="r")
        with pytest.raises(FileNotFoundError):
            pytest.importorskip("xarray").open_zarr(leftover[0])
        dry = daskpad("pad", src, dst, "--width", "lat=1", "--dry-run")
        assert dry.returncode == 0, dry.stderr
        assert f"{leftover[0]} is left from an interrupted run" in dry.stderr
        again = daskpad("pad", src, dst, "--width", "lat=1", "--mode", "edge", "--no-progress")
        assert again.returncode == 0, again.stderr
        assert f"{leftover[0]} is left from an interrupted run" in again.stderr
        np.testing.assert_array_equal(
            stored(dst, "t"), np.pad(stored(src, "t"), ((0, 0), (1, 1), (0, 0)), mode="edge")
        )


# --------------------------------------------------------------------------------------
# A cluster, the demo, netCDF, python -m
# --------------------------------------------------------------------------------------
def _tcp_cluster():
    """An in-process cluster of one worker with two threads, which the command, run as a
    subprocess, reaches by its tcp address."""
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=":0",
    )


@pytest.mark.cluster
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_scheduler(tmp_path, cli_sources):
    with _tcp_cluster() as cluster:
        address = cluster.scheduler_address
        argv = ["--width", "lon=2", "--mode", "wrap", "--progress"]
        file = tmp_path / "scheduler.json"  # as dask scheduler --scheduler-file writes it
        file.write_text(json.dumps({"type": "Scheduler", "address": address}))
        runs = {
            tiles: daskpad("pad", cli_sources[3], tmp_path / f"{tiles}.zarr", *argv, *extra)
            for tiles, extra in (
                ("whole", ["--scheduler", address]),
                ("tiled", ["--scheduler", address, *TILED]),
                ("file", ["--scheduler-file", file]),
            )
        }
        for run in runs.values():
            assert run.returncode == 0, run.stderr
        assert cluster.scheduler.task_prefixes  # the work ran on the cluster
    assert "100% Completed" in runs["whole"].stderr  # distributed's progress bar
    assert "100% Completed | tile " in runs["tiled"].stderr  # one bar over the tiles
    expected = np.pad(stored(cli_sources[3], "t"), ((0, 0), (0, 0), (2, 2)), mode="wrap")
    for tiles in runs:
        np.testing.assert_array_equal(stored(tmp_path / f"{tiles}.zarr", "t"), expected)


@pytest.mark.cluster
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_a_run_on_a_cluster_restores_the_logging_it_quieted(tmp_path, cli_sources, monkeypatch):
    """The command quiets distributed's and asyncio's loggers (and its workers' through
    the environment) while it uses a cluster; called as a function, it leaves them as
    they were."""
    import logging

    from daskpad.cli import main

    for name in ("DASK_LOGGING__DISTRIBUTED", "DASK_LOGGING__ASYNCIO"):
        monkeypatch.delenv(name, raising=False)
    loggers = [logging.getLogger(name) for name in ("distributed", "asyncio")]
    monkeypatch.setattr(loggers[0], "level", logging.INFO)
    monkeypatch.setattr(loggers[1], "level", logging.NOTSET)
    with _tcp_cluster() as cluster:
        argv = ["pad", cli_sources[3], tmp_path / "out.zarr", "--width", "lon=2", "--no-progress"]
        assert main([*map(str, argv), "--scheduler", cluster.scheduler_address]) == 0
        assert cluster.scheduler.task_prefixes
    assert [logger.level for logger in loggers] == [logging.INFO, logging.NOTSET]
    assert "DASK_LOGGING__DISTRIBUTED" not in os.environ
    assert "DASK_LOGGING__ASYNCIO" not in os.environ


@pytest.mark.parametrize(
    "address, message",
    [
        ("tcp://127.0.0.1:1", "--scheduler tcp://127.0.0.1:1: no dask scheduler answers there"),
        ("notanaddress", "--scheduler notanaddress is malformed"),
        ("tcp://127.0.0.1", "--scheduler tcp://127.0.0.1 is malformed"),
        ("file:missing.json", "--scheduler-file missing.json: no such file"),
        ("file:bad.json", "--scheduler-file bad.json: not a dask scheduler file"),
        ("file:closed.json", "--scheduler-file closed.json (scheduler tcp://127.0.0.1:1): no"),
    ],
)
def test_unreachable_or_malformed_scheduler_is_refused_at_once(
    tmp_path, cli_sources, address, message
):
    (tmp_path / "bad.json").write_text("{}")
    (tmp_path / "closed.json").write_text('{"address": "tcp://127.0.0.1:1"}')
    flag = ["--scheduler", address]
    if address.startswith("file:"):
        flag = ["--scheduler-file", address.removeprefix("file:")]
    # at once, not after a timeout: ours and distributed's are set to 600 s, and the command
    # is given 120 (daskpad() raises TimeoutExpired after that); no tighter clock, which a
    # loaded machine's start-up alone could pass
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "600s"}
    run = daskpad(
        "pad", cli_sources[3], tmp_path / "o.zarr", "--width", "lon=1", "--scheduler-timeout", 600,
        *flag, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
    assert not (tmp_path / "o.zarr").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--workers", "0"], "argument --workers: expected a positive whole number, not '0'"),
        (["--workers", "-1"], "argument --workers: expected a positive whole number, not '-1'"),
        (["--workers", "two"], "argument --workers: expected a positive whole number"),
        (["--scheduler-timeout", "0"], "argument --scheduler-timeout: expected a positive"),
    ],
)
def test_bad_execution_options_are_usage_errors(tmp_path, cli_sources, argv, message):
    run = daskpad("pad", cli_sources[3], tmp_path / "o.zarr", "--width", "lon=1", *argv)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.stderr
    assert lines[0].startswith(f"daskpad: error: {message}")  # as every refusal begins
    assert lines[0].endswith(" (see daskpad pad --help)")
    assert not (tmp_path / "o.zarr").exists()


def test_version_and_bare_command():
    import daskpad as package

    run = daskpad("--version")
    assert run.returncode == 0 and run.stdout.strip() == f"daskpad {package.__version__}"
    bare = daskpad()
    assert bare.returncode == 2
    assert bare.stderr.startswith("usage: daskpad") and "{pad,info,demo}" in bare.stderr


@WRITES
def test_progress_only_when_asked_or_watched(tmp_path, cli_sources):
    # stderr is a pipe here, not a terminal: no bar unless --progress
    quiet = daskpad("pad", cli_sources[3], tmp_path / "q.zarr", "--width", "lon=1")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == "" and "Completed" not in quiet.stdout
    shown = daskpad("pad", cli_sources[3], tmp_path / "s.zarr", "--width", "lon=1", "--progress")
    assert shown.returncode == 0, shown.stderr
    assert "100% Completed" in shown.stderr and "Completed" not in shown.stdout


def test_warnings_are_one_line_without_file_paths(capsys):
    from daskpad.cli.command import _show_warning

    _show_warning(RuntimeWarning("Mean of empty slice"), RuntimeWarning, "/x/y.py", 3)
    assert capsys.readouterr().err == "daskpad: warning: RuntimeWarning: Mean of empty slice\n"


@WRITES
def test_demo(tmp_path):
    run = daskpad("demo", tmp_path / "demo")
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("equal to numpy.pad: True") == 5
    assert "False" not in run.stdout
    assert {p.name for p in (tmp_path / "demo").iterdir()} == {
        "input.zarr",
        "lon_wrap.zarr",
        "lat_symmetric.zarr",
        "mean.zarr",
        "time_ramp.zarr",
        "global.zarr",
    }
    again = daskpad("demo", tmp_path / "demo")
    assert again.returncode == 2 and "already exists" in again.stderr


# the xarray engine that writes each netCDF format, and the file's first bytes
NETCDF_FORMATS = {"netCDF-3": ("scipy", b"CDF"), "netCDF-4": ("h5netcdf", b"\x89HDF")}


def _netcdf(path: Path, netcdf_format: str):
    """A small dataset written to ``path`` in ``netcdf_format``; the dataset."""
    xr = pytest.importorskip("xarray")
    engine, magic = NETCDF_FORMATS[netcdf_format]
    pytest.importorskip(engine)
    ds = xr.Dataset({"v": (("y", "x"), np.arange(12.0).reshape(3, 4))}, coords={"x": np.arange(4)})
    ds.to_netcdf(path, engine=engine)
    assert path.read_bytes().startswith(magic)
    return ds


@WRITES
@pytest.mark.parametrize("netcdf_format", list(NETCDF_FORMATS))
def test_netcdf_input(tmp_path, netcdf_format):
    nc = tmp_path / "in.nc"
    ds = _netcdf(nc, netcdf_format)
    run = daskpad("pad", nc, tmp_path / "out.zarr", "--width", "x=1:2", "--mode", "reflect")
    assert run.returncode == 0, run.stderr
    np.testing.assert_array_equal(
        stored(tmp_path / "out.zarr", "v"), np.pad(ds.v.values, ((0, 0), (1, 2)), mode="reflect")
    )


@pytest.mark.parametrize(
    "netcdf_format, hidden, install",
    [
        ("netCDF-3", ["scipy"], "(pip install scipy; the daskpad[cli] extra includes it)"),
        (
            "netCDF-4",
            ["h5netcdf", "netCDF4"],
            "(pip install h5netcdf h5py; the daskpad[cli] extra includes them)",
        ),
    ],
)
def test_netcdf_without_its_engine_says_what_to_install(tmp_path, netcdf_format, hidden, install):
    nc = tmp_path / "in.nc"
    _netcdf(nc, netcdf_format)
    # the command in a process where the packages that read the format cannot be imported
    hide = "".join(f"sys.modules[{p!r}] = None; " for p in hidden)
    run = subprocess.run(
        [sys.executable, "-c", f"import sys; {hide}from daskpad.cli import main; "
         f"sys.exit(main(['info', {str(nc)!r}]))"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert (run.returncode, run.stdout) == (2, ""), run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith(f"daskpad: error: cannot read SRC {str(nc)!r}: it is {netcdf_format}")
    assert f"xarray reads with {hidden[0]}" in line and line.endswith(install)


@WRITES
def test_the_command_imports_no_scipy_for_a_zarr_store(tmp_path):
    """dask.array imports scipy where it is installed (a third of a second); the command
    holds it off while the package loads, and reads netCDF-3 with it afterwards
    (test_netcdf_input)."""
    pytest.importorskip("scipy")
    xr = pytest.importorskip("xarray")
    src = tmp_path / "in.zarr"
    xr.Dataset({"v": (("y", "x"), np.arange(12.0).reshape(3, 4))}).to_zarr(src)
    argv = ["daskpad", "pad", str(src), str(tmp_path / "out.zarr"), "--width", "x=1"]
    code = f"import sys; sys.argv = {argv!r}; import _daskpad_launcher as launcher; "
    code += "status = launcher.main(); print(status, sorted(sys.modules))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    status, loaded = run.stdout.strip().splitlines()[-1].split(" ", 1)
    assert status == "0", run.stderr
    assert "'dask.array'" in loaded and "'daskpad.cli'" in loaded
    assert "'scipy" not in loaded


def test_python_m_and_help():
    run = subprocess.run(
        [sys.executable, "-m", "daskpad", "pad", "--help"], capture_output=True, text=True
    )
    assert run.returncode == 0
    for flag in (
        "--width",
        "--mode",
        "--var",
        "--constant-value",
        "--end-value",
        "--stat-length",
        "--reflect-type",
        "--coords",
        "--chunks",
        "--scheduler",
        "--workers",
        "--overwrite",
        "--dry-run",
    ):
        assert flag in run.stdout


def test_overwrite_replaces_what_its_help_says(tmp_path, cli_sources):
    from daskpad import cli
    from daskpad.pipeline import Refused, check_destination
    from daskpad.store.places.locations import locate

    pad = cli.build_parser()._subparsers._group_actions[0].choices["pad"]
    (overwrite,) = [a for a in pad._actions if "--overwrite" in a.option_strings]
    assert "if it is a zarr store" in overwrite.help and "or an empty directory;" in overwrite.help
    assert "anything else (a file, a directory or prefix holding other things)" in overwrite.help
    (tmp_path / "empty").mkdir()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("precious")
    (tmp_path / "file").write_text("precious")
    (tmp_path / "link").symlink_to(tmp_path / "empty")
    write_store(tmp_path / "store.zarr", 2)
    src = locate(str(cli_sources[3]))
    replaced = {}
    for name in ("empty", "store.zarr", "full", "file", "link"):
        with pytest.raises(Refused, match="already exists; pass --overwrite"):
            check_destination(src, locate(str(tmp_path / name)), overwrite=False)
        try:
            check_destination(src, locate(str(tmp_path / name)), overwrite=True)
            replaced[name] = True
        except Refused as e:
            assert "--overwrite replaces only a zarr store or an empty directory" in str(e)
            replaced[name] = False
    assert replaced == {"empty": True, "store.zarr": True, "full": False, "file": False,
                        "link": False}  # fmt: skip


def test_overwrite_says_what_it_did_when_the_old_copy_stays(tmp_path, monkeypatch):
    from daskpad.store.places import commit as commit_protocol

    dst, tmp = tmp_path / "dst.zarr", tmp_path / ".new"
    write_store(dst, 3)
    write_store(tmp, 2)

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(commit_protocol.shutil, "rmtree", refuse)
    with pytest.warns(
        commit_protocol.ReplacedWarning, match="was replaced, but its old copy"
    ) as w:
        commit_protocol.commit(tmp, dst, replace=True)
    assert zarr.open_group(dst, mode="r").metadata.zarr_format == 2  # replaced
    (old,) = tmp_path.glob(".dst.zarr.daskpad-old-*")
    assert f"delete {str(old)!r}" in str(w[0].message)


@pytest.mark.parametrize("fmt", [2, 3])
def test_a_bare_zarr_array_is_padded_into_a_bare_zarr_array(tmp_path, fmt):
    # (daskpad.to_zarr writes it: with dask's array query planning too)
    data = np.arange(80, dtype="i4").reshape(8, 10)
    named = {"dimension_names": ["lat", "lon"]} if fmt == 3 else {}
    src = zarr.create_array(
        tmp_path / "a.zarr", shape=data.shape, chunks=(3, 4), dtype=data.dtype,
        zarr_format=fmt, **named,
    )  # fmt: skip
    src[...] = data
    src.attrs["units"] = "m"
    dims = ("lat", "lon") if fmt == 3 else ("dim_0", "dim_1")  # as xarray names them
    info = daskpad("info", tmp_path / "a.zarr", "--width", f"{dims[1]}=2")
    assert info.returncode == 0, info.stderr
    assert f"(array)  data  int32    ({dims[0]}, {dims[1]}) (8, 10)" in info.stdout
    run = daskpad(
        "pad",
        tmp_path / "a.zarr",
        tmp_path / "b.zarr",
        "--width",
        f"{dims[0]}=1:3",
        "--mode",
        "wrap",
        "--memory",
        "200",
    )  # fmt: skip  (--memory: in tiles)
    assert run.returncode == 0, run.stderr
    out = zarr.open(tmp_path / "b.zarr", mode="r")
    assert isinstance(out, zarr.Array) and out.metadata.zarr_format == fmt
    np.testing.assert_array_equal(out[...], np.pad(data, ((1, 3), (0, 0)), mode="wrap"))
    assert out.attrs["units"] == "m" and out.chunks == (3, 4)
    if fmt == 3:
        assert out.metadata.dimension_names == dims
    else:
        assert out.attrs["_ARRAY_DIMENSIONS"] == list(dims)


@pytest.mark.cluster
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_run_on_local_workers_leaves_nothing_and_says_one_line(
    sig, tmp_path, cli_sources
):
    dst = tmp_path / "dst.zarr"
    proc = _start_slow(cli_sources[3], dst, "--workers", "2")
    proc.send_signal(sig)
    run = finish(proc)
    assert run.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[sig]
    # one line: no traceback from distributed's shutdown, no worker warnings
    assert run.stderr.strip().splitlines() == [
        "daskpad: interrupted; nothing was written to DST"
        if sig == signal.SIGINT
        else "daskpad: terminated (SIGTERM); nothing was written to DST"
    ]
    time.sleep(1)  # (a worker still writing would show up here)
    assert list(tmp_path.iterdir()) == []  # the workers stopped before the clean-up


@pytest.mark.cluster
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_a_stopped_run_on_a_scheduler_waits_for_its_running_tasks(tmp_path, cli_sources):
    with _tcp_cluster() as cluster:
        dst = tmp_path / "dst.zarr"
        proc = _start_slow(cli_sources[3], dst, "--scheduler", cluster.scheduler_address)
        proc.send_signal(signal.SIGINT)
        run = finish(proc)
        assert run.returncode == 130, run.stderr
        assert run.stderr.strip().splitlines() == [
            "daskpad: interrupted; nothing was written to DST"
        ]
        time.sleep(1.5)  # tasks the cluster was running when the run stopped are done now
        assert list(tmp_path.iterdir()) == []  # and none of them wrote after the clean-up
