"""The store-to-store pipeline as library API (:mod:`daskpad.pipeline`): what the command
does, a Python user can call, and both write the same files; its refusals come before
anything is written."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")

from helpers.markers import WRITES  # noqa: E402

from daskpad._compat.libraries import rectilinear_support  # noqa: E402
from daskpad.cli import main  # noqa: E402
from daskpad.pipeline import (  # noqa: E402
    PaddingRefused,
    PadOptions,
    Refused,
    StorePlan,
    WriteFailed,
    pad_store,
    plan_store,
)


def _source(path: Path, fmt: int = 3) -> Path:
    """A store like the ones users pad: t2m packed as int16 (scale, offset, _FillValue),
    tp float32, lat and lon index coordinates, chunks that do not divide the shape."""
    rng = np.random.default_rng(7)
    t2m = 250 + 40 * rng.random((6, 13, 20))
    t2m[0, 0, 0] = np.nan
    ds = xr.Dataset(
        {
            "t2m": (("time", "lat", "lon"), t2m, {"units": "K"}),
            "tp": (("time", "lat", "lon"), rng.random((6, 13, 20)).astype("float32")),
        },
        coords={"lat": np.linspace(-60, 60, 13), "lon": np.arange(20) * 18.0},
    )
    encoding = {
        "t2m": {
            "dtype": "int16",
            "scale_factor": 0.002,
            "add_offset": 273.0,
            "_FillValue": -32767,
            "chunks": (2, 5, 8),
        },
        "tp": {"chunks": (2, 5, 8)},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zarr's note on consolidated metadata in v3)
        ds.to_zarr(path, zarr_format=fmt, encoding=encoding)
    return path


def _files(store: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()
    }


CASES = {
    "regular grid, tiles": (
        ["--width", "lat=2", "--width", "lon=3", "--mode", "lat=symmetric", "--mode", "lon=wrap",
         "--memory", "20kB"],
        {"widths": {"lat": 2, "lon": 3}, "mode": {"lat": "symmetric", "lon": "wrap"},
         "memory": "20kB"},
    ),
    "regular grid, chunks copied": (
        ["--width", "time=2", "--mode", "wrap"],
        {"widths": {"time": 2}, "mode": "wrap"},
    ),
    "rectilinear grid": (
        ["--width", "lat=2", "--width", "lon=3:1", "--mode", "mean", "--stat-length", "3",
         "--chunk-grid", "rectilinear"],
        {"widths": {"lat": 2, "lon": (3, 1)}, "mode": "mean", "stat_length": 3,
         "chunk_grid": "rectilinear"},
    ),
    "zarr v2": (
        ["--width", "time=1", "--mode", "edge"],
        {"widths": {"time": 1}, "mode": "edge"},
    ),
}  # fmt: skip


@WRITES
@pytest.mark.parametrize("case", CASES)
def test_pad_store_writes_the_files_the_command_writes(tmp_path, case):
    argv, options = CASES[case]
    if "rectilinear" in case and rectilinear_support() is not None:
        pytest.skip("rectilinear grids need zarr-python >= 3.2")
    src = _source(tmp_path / "src.zarr", fmt=2 if "v2" in case else 3)
    by_command, by_library = tmp_path / "command.zarr", tmp_path / "library.zarr"
    assert main(["pad", str(src), str(by_command), *argv, "--no-progress"]) == 0
    widths, mode = options.pop("widths"), options.pop("mode")
    written = pad_store(str(src), str(by_library), widths, mode, **options)
    assert written.plan.dst.text == str(by_library)
    command, library = _files(by_command), _files(by_library)
    assert command.keys() == library.keys()
    assert [k for k in command if command[k] != library[k]] == []


def test_plan_store_describes_what_the_dry_run_prints(tmp_path, capsys):
    src = _source(tmp_path / "src.zarr")
    dst = tmp_path / "out.zarr"
    argv = ["--width", "time=2", "--mode", "edge", "--memory", "20kB"]
    assert main(["pad", str(src), str(dst), *argv, "--dry-run"]) == 0
    printed = capsys.readouterr().out
    options = PadOptions(
        src=str(src), dst=str(dst), widths={"time": (2, 2)}, mode="edge", memory=20_000
    )
    plan = plan_store(options)
    assert isinstance(plan, StorePlan)
    assert printed == f"{plan.describe()}; --dry-run wrote nothing\n"
    assert "chunks of DST's regular grid, per array" in printed
    assert "t2m  27 copied, 18 computed" in printed
    assert not dst.exists()


def test_refusals_come_before_anything_is_written(tmp_path):
    src = _source(tmp_path / "src.zarr")
    before = _files(src)
    with pytest.raises(Refused, match="daskpad never writes into its input"):
        pad_store(str(src), str(src / "inner.zarr"), {"lon": 1})
    with pytest.raises(Refused, match="names dimension 'depth', which is not in SRC"):
        pad_store(str(src), str(tmp_path / "out.zarr"), {"depth": 1})
    # a value the packed variable cannot hold, refused as pad2 refuses it
    with pytest.raises(PaddingRefused, match=r"1000000 is outside what int16 holds"):
        pad_store(str(src), str(tmp_path / "out.zarr"), {"lon": 1}, constant_values=1e6)
    assert issubclass(PaddingRefused, ValueError) and issubclass(Refused, ValueError)
    (tmp_path / "taken.zarr").mkdir()
    (tmp_path / "taken.zarr" / "notes.txt").write_text("precious")
    with pytest.raises(Refused, match="already exists; pass --overwrite"):
        pad_store(str(src), str(tmp_path / "taken.zarr"), {"lon": 1})
    assert _files(src) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src.zarr", "taken.zarr"]


def test_a_failed_write_leaves_nothing_that_opens(tmp_path, monkeypatch):
    from daskpad.store.writing.tile_plans import TilePlan

    src = _source(tmp_path / "src.zarr")

    def failing(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(TilePlan, "write", failing)
    with pytest.raises(WriteFailed, match="OSError: disk full"):
        pad_store(str(src), str(tmp_path / "out.zarr"), {"lat": 1}, "edge")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src.zarr"]


@WRITES
def test_the_values_are_pad2s_of_the_input_as_xarray_decodes_it(tmp_path):
    src = _source(tmp_path / "src.zarr")
    dst = tmp_path / "out.zarr"
    pad_store(str(src), str(dst), {"lat": 2, "lon": (1, 3)}, {"lat": "reflect", "lon": "wrap"})
    expected = xr.open_zarr(src).pad2(lat=2, lon=(1, 3), mode={"lat": "reflect", "lon": "wrap"})
    got = xr.open_zarr(dst)
    xr.testing.assert_identical(got.compute(), expected.compute())


@WRITES
def test_a_source_on_the_rectilinear_grid_is_padded_from_python(tmp_path):
    """A SRC zarr stores on its rectilinear grid opens in pad_store as in the command
    (zarr's flag is on while the pipeline reads and writes)."""
    if rectilinear_support() is not None:
        pytest.skip("rectilinear grids need zarr-python >= 3.2")
    src = _source(tmp_path / "src.zarr")
    once = tmp_path / "once.zarr"
    pad_store(str(src), str(once), {"lat": 1}, "edge", chunk_grid="rectilinear")
    twice = tmp_path / "twice.zarr"
    pad_store(str(once), str(twice), {"lon": 2}, "wrap")
    expected = xr.open_zarr(src).pad2(lat=1, mode="edge").pad2(lon=2, mode="wrap")
    xr.testing.assert_identical(xr.open_zarr(twice).compute(), expected.compute())


def test_options_take_widths_and_names_as_pad2_does(tmp_path):
    options = PadOptions(src="in.zarr", widths={"lat": np.int64(2), "lon": (1, 3)}, variables="t")
    assert options.widths == {"lat": (2, 2), "lon": (1, 3)} and options.variables == ("t",)
    with pytest.raises(TypeError, match=r"a width is an int or a \(before, after\) pair"):
        PadOptions(src="in.zarr", widths={"lat": 1.5})
    with pytest.raises(TypeError, match="the padded chunks' policy is chunk_policy="):
        PadOptions(src="in.zarr", chunks="even")
    with pytest.raises(ValueError, match="chunk_grid must be 'regular' or 'rectilinear'"):
        PadOptions(src="in.zarr", chunk_grid="irregular")
