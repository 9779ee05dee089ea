"""``daskpad pad --memory`` holds for inputs stored in chunks larger than the budget: an
input that can be read in part (netCDF-3, netCDF-4 contiguous or unfiltered) is read, and
written, in pieces within the budget; a stored chunk that is read whole and is over the
budget is refused, naming the ``--memory`` and ``--chunks`` that work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import dask
import numpy as np
import pytest
from helpers.markers import WRITES

from daskpad.cli import main

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")
h5netcdf = pytest.importorskip("h5netcdf")


def stored(path: Path, name: str) -> np.ndarray:
    return np.asarray(zarr.open_array(path / name, mode="r")[...])


def zarr_chunks(path: Path, name: str) -> tuple[int, ...]:
    return tuple(zarr.open_array(path / name, mode="r").chunks)


# --------------------------------------------------------------------------------------
# The peak memory of a 400 MB netCDF variable stored contiguous, one dask block as opened
# --------------------------------------------------------------------------------------
BIG = (100, 500, 1000)  # float64: 400 MB, v[t, y, x] = its flat index
BUDGET = 64 * 10**6
THREADS = 4  # (dask's local threads in the measured run: the same on any machine)


@pytest.fixture(scope="session")
def unchunked_netcdf(tmp_path_factory) -> Path:
    """A 400 MB netCDF-4 variable stored contiguous (no HDF5 chunks), with a _FillValue as
    most netCDF data have; written a slab at a time (about 2 s)."""
    path = tmp_path_factory.mktemp("unchunked") / "big.nc"
    nt, ny, nx = BIG
    with h5netcdf.File(path, "w") as f:
        f.dimensions = {"time": nt, "lat": ny, "lon": nx}
        f.create_variable("lat", ("lat",), "f8")[:] = np.linspace(-90.0, 90.0, ny)
        f.create_variable("lon", ("lon",), "f8")[:] = np.arange(nx) * 0.36
        v = f.create_variable("v", ("time", "lat", "lon"), "f8", fillvalue=np.nan)
        row = np.arange(ny * nx, dtype="f8").reshape(ny, nx)
        for t in range(nt):
            v[t] = row + t * ny * nx
    return path


# Run in a fresh process: import the command, open SRC as it does, note the RSS, restart
# the kernel's peak (VmHWM) from there, run the command in the same process, read the peak.
# Where the peak cannot be restarted, the peak since the start counts (only ever more).
MEASURE = textwrap.dedent(
    """
    import gc, json, re, sys
    import xarray as xr
    from daskpad.cli import main

    def status(key):
        with open("/proc/self/status") as f:
            return int(re.search(rf"^{key}:\\s+(\\d+) kB", f.read(), re.M).group(1)) * 1024

    src = xr.open_dataset(sys.argv[1], chunks={})
    gc.collect()
    before = status("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        restarted = True
    except OSError:
        restarted = False
    rc = main(["pad", *sys.argv[1:]])
    print(json.dumps({"rc": rc, "before": before, "peak": status("VmHWM"),
                      "restarted": restarted}))
    """
)


@WRITES
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_memory_holds_for_an_unchunked_netcdf(unchunked_netcdf, tmp_path):
    dst = tmp_path / "out.zarr"
    argv = [unchunked_netcdf, dst, "--memory", BUDGET, "--width", "lat=2", "--mode", "reflect"]
    run = subprocess.run(
        [sys.executable, "-c", MEASURE, *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "DASK_NUM_WORKERS": str(THREADS)},
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.splitlines()[-1])
    assert result["rc"] == 0, run.stdout + run.stderr
    held = result["peak"] - result["before"]
    assert held <= 1.5 * BUDGET, (held, result)
    # read in pieces of at most BUDGET / (8 x THREADS) = 2 MB: a time step cut into two
    # halves of 250 latitudes; the output chunks follow (the 2 + 2 pad rows apart)
    assert zarr_chunks(dst, "v") == (1, 250, 1000)
    nt, ny, nx = BIG
    got = zarr.open_array(dst / "v", mode="r")
    assert got.shape == (nt, ny + 4, nx)
    for t in (0, 37, nt - 1):
        row = np.arange(ny * nx, dtype="f8").reshape(ny, nx) + t * ny * nx
        np.testing.assert_array_equal(got[t], np.pad(row, ((2, 2), (0, 0)), mode="reflect"))


# --------------------------------------------------------------------------------------
# The output chunks of an input read in pieces
# --------------------------------------------------------------------------------------
SMALL = (20, 50, 100)  # v: float64, 800 kB; w (lat, lon): float32, 20 kB


def _small_dataset():
    rng = np.random.default_rng(0)
    return xr.Dataset(
        {
            "v": (("time", "lat", "lon"), rng.normal(280, 10, SMALL)),
            "w": (("lat", "lon"), rng.normal(0, 1, SMALL[1:]).astype("f4")),
        },
        coords={"lat": np.linspace(-70.0, 70.0, SMALL[1]), "lon": np.arange(SMALL[2]) * 3.6},
    )


LAYOUTS = {
    "contiguous": ({"engine": "h5netcdf"}, {}),
    "netCDF-3": ({"engine": "scipy"}, {}),
    "HDF5 chunks without filters": ({"engine": "h5netcdf"}, {"chunksizes": SMALL}),
}


@pytest.fixture(scope="module", params=list(LAYOUTS))
def small_netcdf(request, tmp_path_factory) -> tuple[Path, xr.Dataset]:
    kwargs, encoding = LAYOUTS[request.param]
    path = tmp_path_factory.mktemp("small") / "small.nc"
    ds = _small_dataset()
    ds.to_netcdf(path, encoding={"v": encoding}, **kwargs)
    return path, ds


# (--memory, more options) -> the zarr chunks of v and w; two threads: pieces of at most
# --memory / 16 (800kB: 50 kB, a time step of v; 160kB: 10 kB, 10 latitudes of it)
PIECES = {
    "800kB": (["--memory", "800kB"], (1, 50, 100), (50, 100)),  # w (20 kB) left whole
    "160kB": (["--memory", "160kB"], (1, 10, 100), (25, 100)),  # w in two halves
    "160kB --chunks lat=5": (["--memory", "160kB", "--chunks", "lat=5"], (2, 5, 100), (5, 100)),
}


@WRITES
@pytest.mark.parametrize("case", list(PIECES))
# (--chunks lat=5 cuts the stored HDF5 chunk: xarray's warning, the command prints it)
@pytest.mark.filterwarnings("ignore:The specified chunks separate the stored chunks")
def test_output_chunks_follow_the_pieces_read(case, small_netcdf, tmp_path):
    src, ds = small_netcdf
    options, v_chunks, w_chunks = PIECES[case]
    dst = tmp_path / "out.zarr"
    with dask.config.set(num_workers=2):
        rc = main(["pad", str(src), str(dst), "--width", "lat=2", "--mode", "edge", *options])
    assert rc == 0
    assert zarr_chunks(dst, "v") == v_chunks
    assert zarr_chunks(dst, "w") == w_chunks
    for name in ("v", "w"):
        widths = [(2, 2) if d == "lat" else (0, 0) for d in ds[name].dims]
        np.testing.assert_array_equal(
            stored(dst, name), np.pad(ds[name].values, widths, mode="edge")
        )


# --------------------------------------------------------------------------------------
# Refusals: a block read whole over the budget
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stored_whole(tmp_path_factory) -> dict[str, Path]:
    """v in stored chunks of 10 x 50 x 100 float64 (400 kB) read whole: compressed in
    netCDF-4, and in zarr (which reads any chunk whole, compressed or not)."""
    where = tmp_path_factory.mktemp("whole")
    ds = _small_dataset()
    ds.to_netcdf(
        where / "zlib.nc",
        engine="h5netcdf",
        encoding={"v": {"zlib": True, "chunksizes": (10, 50, 100)}},
    )
    ds.chunk(time=10).to_zarr(
        where / "raw.zarr",
        zarr_format=3,
        consolidated=False,
        encoding={"v": {"compressors": None}},
    )
    return {"netcdf": where / "zlib.nc", "zarr": where / "raw.zarr"}


WHY = {
    "netcdf": "that are filtered (zlib) and read whole",
    "zarr": "that are read whole (zarr decodes a chunk whole, compressed or not)",
}


@WRITES
@pytest.mark.parametrize("kind", list(WHY))
def test_a_stored_chunk_over_the_budget_is_refused_naming_what_works(
    kind, stored_whole, tmp_path, capsys
):
    src, dst = stored_whole[kind], tmp_path / "out.zarr"
    assert main(["pad", str(src), str(dst), "--width", "lat=2", "--memory", "100kB"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert (
        f"daskpad: error: --memory 97.66 kiB: variable 'v' is stored in chunks of 390.62 kiB "
        f"(time=10,lat=50,lon=100) {WHY[kind]}"
    ) in err
    assert "pass --memory 390.63kiB or more, with --chunks time=10,lat=50,lon=100" in err
    assert not dst.exists()
    # what it names works: 400,000 bytes (390.625 kiB) fit in 390.63kiB, not in 390.62kiB
    fix = ["--memory", "390.63kiB", "--chunks", "time=10,lat=50,lon=100"]
    assert main(["pad", str(src), str(dst), "--width", "lat=2", "--mode", "edge", *fix]) == 0
    assert zarr_chunks(dst, "v") == (10, 50, 100)
    expected = np.pad(_small_dataset().v.values, ((0, 0), (2, 2), (0, 0)), mode="edge")
    np.testing.assert_array_equal(stored(dst, "v"), expected)
    capsys.readouterr()
    assert main(["pad", str(src), str(tmp_path / "no.zarr"), "--width", "lat=2",
                 "--memory", "390.62kiB"]) == 2  # fmt: skip


@WRITES
@pytest.mark.parametrize(
    ("kind", "options", "message"),
    [
        (
            "netcdf",
            ["--memory", "400kB", "--chunks", "time=20"],
            "--chunks time=20 makes blocks of variable 'v' of 781.25 kiB, over --memory "
            "390.62 kiB, and its stored chunks (time=10,lat=50,lon=100) are filtered (zlib) "
            "and read whole; pass --chunks time=10,lat=50,lon=100, or --memory 781.25kiB or more",
        ),
        (
            "contiguous",
            ["--memory", "5kB", "--chunks", "time=20,lat=50"],
            "--chunks time=20,lat=50 makes blocks of variable 'v' of 7.81 kiB at least "
            "(time=20,lat=50,lon=1), over --memory 4.88 kiB; pass smaller --chunks, or "
            "--memory 7.82kiB or more",
        ),
    ],
)
def test_chunks_asked_over_the_budget_are_refused(
    kind, options, message, stored_whole, tmp_path, capsys
):
    if kind == "contiguous":
        src = tmp_path / "in.nc"
        _small_dataset().to_netcdf(src, engine="h5netcdf")
    else:
        src = stored_whole[kind]
    dst = tmp_path / "out.zarr"
    assert main(["pad", str(src), str(dst), "--width", "lat=2", *options]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == f"daskpad: error: {message}"
    assert not dst.exists()


def test_dry_run_shows_the_pieces_and_info_the_stored_chunks(tmp_path, capsys):
    src = tmp_path / "in.nc"
    _small_dataset().to_netcdf(src, engine="h5netcdf")
    assert main(["info", str(src), "--width", "lat=2"]) == 0  # no budget: SRC as stored
    assert "chunks 20 / 50 / 100 (1 chunk)" in capsys.readouterr().out
    dry = ["pad", str(src), str(tmp_path / "never.zarr"), "--width", "lat=2", "--dry-run"]
    with dask.config.set(num_workers=2):
        assert main([*dry, "--memory", "160kB"]) == 0
    out = capsys.readouterr().out
    assert "chunks 20x1 / 5x10 / 100 (100 chunks)" in out  # read in pieces of 10 kB
    assert "--dry-run wrote nothing" in out
