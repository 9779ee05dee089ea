"""``daskpad info``: each variable as xarray reads it beside how it is stored, and a
closed pipe on stdout ends the command quietly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")
pytest.importorskip("cftime")

_SCRIPT = Path(sys.executable).with_name("daskpad")
DASKPAD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "daskpad"]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A packed int16 variable (scale_factor, _FillValue, units) and noleap times."""
    path = tmp_path_factory.mktemp("info") / "packed.zarr"
    time = xr.date_range("2000-01-01", periods=3, calendar="noleap", use_cftime=True)
    ds = xr.Dataset(
        {"tp": (("time", "lat"), np.ones((3, 4)), {"units": "m", "long_name": "total precip"})},
        coords={"time": time, "lat": [-90.0, -30.0, 30.0, 90.0]},
    )
    ds.tp.encoding = {"dtype": "int16", "scale_factor": 0.01, "_FillValue": -32767}
    ds.to_zarr(path, zarr_format=2)
    return path


def test_info_shows_what_xarray_reads_and_what_is_stored(store):
    run = subprocess.run([*DASKPAD, "info", store], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = [line.strip() for line in run.stdout.splitlines()]
    tp = lines.index(next(line for line in lines if line.startswith("tp ")))
    assert " int16 " in lines[tp]  # the stored dtype, which the command pads
    with xr.open_zarr(store) as opened:
        dtype = opened.tp.dtype
    assert lines[tp + 1] == (
        f"xarray reads: {dtype}, scale_factor=0.01, _FillValue=-32767, units='m'"
    )
    assert lines[tp + 2] == "attrs: long_name='total precip'"
    assert lines[tp + 3].startswith("stored: int16, compressor")
    time = lines.index(next(line for line in lines if line.startswith("time ")))
    assert lines[time + 1].startswith("xarray reads: cftime (noleap), units='days since")
    assert lines[time + 1].endswith("calendar='noleap'")
    assert lines[time + 2].startswith("stored: int64")


def test_info_into_a_closed_pipe_ends_quietly(store):
    proc = subprocess.Popen(
        [*DASKPAD, "info", store], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # closed before the command writes a line
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 141)
    assert err.decode() == ""
