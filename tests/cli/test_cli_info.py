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


def test_dry_run_opens_src_once_and_prints_what_info_prints(store, tmp_path, monkeypatch, capsys):
    """``daskpad pad --dry-run`` describes SRC and the padding as ``daskpad info`` does, from
    the one opening of SRC the run makes."""
    import daskpad.pipeline.source
    from daskpad.cli import main

    opened = daskpad.pipeline.source.open_source
    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return opened(*args, **kwargs)

    monkeypatch.setattr(daskpad.pipeline.source, "open_source", counted)
    padding = ["--width", "lat=1", "--mode", "edge"]
    assert main(["info", str(store), *padding]) == 0
    info = capsys.readouterr().out
    calls.clear()
    dry = ["pad", str(store), str(tmp_path / "never.zarr"), *padding, "--dry-run"]
    assert main(dry) == 0
    out = capsys.readouterr().out
    assert len(calls) == 1
    assert out.startswith(info)
    # an edge pad reads its neighbours only: each chunk once, counted in the graphs
    assert out[len(info) :].startswith("each chunk of SRC is read once at most\nwould write")
    assert "--dry-run wrote nothing" in out
    assert not (tmp_path / "never.zarr").exists()


def test_the_options_are_read_once_into_a_frozen_request():
    import dataclasses

    from daskpad.cli import build_parser
    from daskpad.cli.request import request_from

    argv = ["pad", "in.zarr", "out.zarr", "--width", "lat=1", "--width", "lon=2:3"]
    argv += ["--mode", "lat=edge", "--mode", "lon=mean", "--stat-length", "lon=2"]
    request = request_from(build_parser().parse_args(argv))
    options = request.options
    assert (request.command, options.src, options.dst) == ("pad", "in.zarr", "out.zarr")
    assert options.widths == {"lat": (1, 1), "lon": (2, 3)}
    assert request.modes == {"lat": "edge", "lon": "mean"}
    assert options.kwargs == {"stat_length": {"lon": 2}}
    assert request.mode_options == ("--stat-length lon=2",)
    assert options.memory is not None and not options.rectilinear
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.dry_run = True  # type: ignore[misc]
    info = request_from(build_parser().parse_args(["info", "in.zarr"]))
    assert info.options.memory is None and info.options.widths == {}  # info computes nothing


def test_the_command_imports_no_test_helpers():
    """``import daskpad.cli`` (every subcommand, the demo's too) leaves hypothesis and
    daskpad.testing unimported."""
    code = (
        "import sys, daskpad.cli; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'hypothesis' "
        "or m.startswith('daskpad.testing')))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
