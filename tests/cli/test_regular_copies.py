"""``daskpad pad`` on the regular grid copies SRC's chunks as stored bytes where that grid
keeps them whole: zarr v3 in and out, every before-width a whole number of chunks (a
partial last chunk and the pad after it make chunks of that grid too).

DST must be what the regular path writes otherwise (the same metadata, the same values
opened with xarray, no rectilinear flag needed), the copied chunks byte-identical to SRC's,
SRC's chunks read only where the pads read them, each once; any other padding is written
by the regular path's tiles.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from helpers.encoded_data import decoded_input
from helpers.markers import WRITES
from helpers.stores import (
    chunk_reads,
    lat_lon_store,
    zarr_json,
)

from daskpad.store.objects import copier as _copier
from daskpad.store.planning.rectilinear_grid import layout
from daskpad.store.writing import chunk_plans

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")


from daskpad.cli import main  # noqa: E402

pytestmark = pytest.mark.xdist_group("regular-copies")


# --------------------------------------------------------------------------------------
# The grid (plain Python)
# --------------------------------------------------------------------------------------
def test_a_layout_is_regular_where_the_pads_keep_the_chunks_whole():
    # 721 in chunks of 360 (a partial last chunk of 1), 1440 in chunks of 360
    each = layout((721, 1440), (360, 360), ((720, 0), (360, 100)), copied=True)
    assert each is not None and each.regular == (360, 360)
    assert each.declared == ((360,) * 5, (360,) * 5 + (100,))
    assert _regular((4, 8), (2, 4), ((0, 0), (0, 0))) == (2, 4)
    # a before-width not a multiple of the chunk
    assert _regular((721, 1440), (360, 360), ((2, 0), (0, 0))) is None
    # a pad after a partial last chunk: the two cut as one stretch, on the regular grid
    assert _regular((721, 1440), (360, 360), ((0, 1), (0, 0))) == (360, 360)
    assert _regular((721, 1440), (360, 360), ((0, 400), (0, 0))) == (360, 360)


def _regular(shape, chunks, pads):
    each = layout(shape, chunks, pads, copied=True)
    assert each is not None
    return each.regular


# --------------------------------------------------------------------------------------
# DST is the regular path's
# --------------------------------------------------------------------------------------
CHUNKS = {"time": 2, "lat": 4, "lon": 3}  # time 4, lat 6, lon 8: partial last chunks

CASES = {
    case: options.split()
    for case, options in {
        "reflect": "--width time=2 --width lat=4:0 --width lon=3:0 --mode reflect",
        "constant": "--width lat=4:0 --width lon=6:0 --mode constant --constant-value 2.5",
        "mean": "--width lat=8:0 --width lon=3:0 --mode mean --stat-length 3",
        # lat's last chunk of 2 and a pad of 2 after it make a chunk of 4; lon's of 2 and 1, 3
        "partial": "--width lat=4:2 --width lon=3:1 --mode symmetric",
        # NaN padded into integers: those arrays change dtype, every chunk of theirs computed
        "mixed": "--width time=0:2 --width lat=4:0 --width lon=3:0 --mode time=edge "
        "--mode lat=constant --mode lon=wrap",
    }.items()
}


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("regular-src") / "src.zarr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zarr's note on consolidated v3; xarray's on packing)
        decoded_input().chunk(CHUNKS).to_zarr(path, zarr_format=3, consolidated=True)
    (path / "f32m" / "c" / "0" / "0" / "0").unlink()  # a chunk never written
    return path


@contextlib.contextmanager
def uncopied() -> Iterator[None]:
    """A context in which the regular path copies nothing (its tiles write every chunk)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chunk_plans, "fits_regular_grids", lambda *args: False)
        yield


@pytest.fixture(scope="module")
def copies_runs(source, tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """Each case written with copies and without: ``{case: (with copies, without)}``."""
    where = tmp_path_factory.mktemp("regular-out")
    out = {}
    for case, options in CASES.items():
        new, old = where / f"{case}.zarr", where / f"{case}-old.zarr"
        with pytest.MonkeyPatch.context() as patch:
            made = _copies(patch)
            assert main(["pad", str(source), str(new), *options, "--no-progress"]) == 0
        assert made, f"{case}: nothing was copied"
        with uncopied():
            assert main(["pad", str(source), str(old), *options, "--no-progress"]) == 0
        out[case] = new, old
    return out


def _docs(path: Path) -> dict[str, dict]:
    return {str(p.relative_to(path)): json.loads(p.read_text()) for p in path.rglob("zarr.json")}


@WRITES
@pytest.mark.parametrize("case", list(CASES))
def test_dst_is_the_regular_paths(case, copies_runs, source):
    new, old = copies_runs[case]
    with zarr.config.set({"array.rectilinear_chunks": False}):  # (none needed)
        xr.testing.assert_identical(xr.open_zarr(new).load(), xr.open_zarr(old).load())
    assert _docs(new) == _docs(old)  # consolidated metadata too
    grid = zarr_json(new / "tp")["chunk_grid"]
    assert grid == {"name": "regular", "configuration": {"chunk_shape": [2, 4, 3]}}
    if case == "mixed":  # s8 (int8, no fill value) padded with NaN: float, computed
        assert zarr_json(new / "s8")["data_type"] != zarr_json(source / "s8")["data_type"]


@WRITES
@pytest.mark.parametrize("case", ["reflect", "mixed"])
def test_interior_chunks_are_copied_byte_for_byte(case, copies_runs, source):
    new, _ = copies_runs[case]
    first = {"reflect": (1, 1, 1), "mixed": (0, 1, 1)}[case]  # before-pad chunks per axis
    copied = 0
    for name in ("tp", "f32m"):
        for index in np.ndindex(2, 2, 3):  # (lat 6 in 4 and lon 8 in 3: last ones partial)
            a = source / name / "c" / Path(*map(str, index))
            b = new / name / "c" / Path(*(str(i + f) for i, f in zip(index, first)))
            assert a.exists() == b.exists(), (name, index)  # f32m's (0, 0, 0): neither
            if a.exists():
                assert a.read_bytes() == b.read_bytes(), (name, index)
                copied += 1
    assert copied == 2 * 2 * 2 * 3 - 1


# --------------------------------------------------------------------------------------
# What is read, copied and said
# --------------------------------------------------------------------------------------
NY, NX, CY, CX = 40, 46, 8, 10  # 5 x 5 chunks, lon's last one 6 wide


@pytest.fixture(scope="module")
def copies_plain(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("regular-plain") / "plain.zarr"
    return lat_lon_store(path, (NY, NX), {"chunks": (CY, CX)}, seed=1)


def _copies(monkeypatch) -> list[str]:
    """The targets of the file copies the command makes."""
    made: list[str] = []
    copy = _copier.copy_file

    def counted(a: str, b: str) -> None:
        made.append(b)
        copy(a, b)

    monkeypatch.setattr(_copier, "copy_file", counted)
    return made


@WRITES
@pytest.mark.parametrize(
    ("options", "rows", "cols"),
    [
        # symmetric 8 reads lat's first and last chunk, 10 before lon its first
        (["--width", "lat=8", "--width", "lon=10:0", "--mode", "symmetric"], {0, 4}, {0}),
        (["--width", "lat=16:0", "--mode", "mean", "--stat-length", "2"], {0}, set()),
        (["--width", "lat=8", "--width", "lon=10:0", "--mode", "constant"], set(), set()),
    ],
    ids=["symmetric", "mean", "constant"],
)
def test_only_the_chunks_the_pads_read_are_decoded_each_once(
    options, rows, cols, copies_plain, tmp_path, monkeypatch
):
    keys, decoded = chunk_reads(monkeypatch, copies_plain)
    made = _copies(monkeypatch)
    dst = tmp_path / "out.zarr"
    assert main(["pad", str(copies_plain), str(dst), *options, "--no-progress"]) == 0
    wanted = {f"t/c/{i}/{j}" for i in range(5) for j in range(5) if i in rows or j in cols}
    assert sorted(keys) == sorted(wanted)  # each once, and no other
    assert decoded[0] == len(keys) + 2  # (and the coordinates lat and lon, read at opening)
    assert len(made) == 25  # every chunk of SRC's t
    assert zarr_json(dst / "t")["chunk_grid"]["configuration"]["chunk_shape"] == [CY, CX]
    with uncopied():
        assert main(["pad", str(copies_plain), str(tmp_path / "old.zarr"), *options]) == 0
    xr.testing.assert_identical(
        xr.open_zarr(dst).load(), xr.open_zarr(tmp_path / "old.zarr").load()
    )


@WRITES
@pytest.mark.parametrize(
    "options",
    [
        ["--width", "lat=3"],  # not a multiple of lat's chunk
        ["--width", "lat=8", "--chunks", "lat=16"],  # DST's chunks not SRC's
        ["--width", "lat=8", "--zarr-format", "2"],
    ],
    ids=["width", "chunks", "zarr2"],
)
def test_other_paddings_compute_every_chunk(options, copies_plain, tmp_path, monkeypatch, capsys):
    keys, _ = chunk_reads(monkeypatch, copies_plain)
    made = _copies(monkeypatch)
    dst = tmp_path / "out.zarr"
    assert main(["pad", str(copies_plain), str(dst), *options, "--mode", "edge", "--dry-run"]) == 0
    assert "copied as stored bytes" not in capsys.readouterr().out
    assert (
        main(["pad", str(copies_plain), str(dst), *options, "--mode", "edge", "--no-progress"])
        == 0
    )
    assert made == [] and len(set(keys)) == 25


def test_dry_run_says_which_chunks_are_copied(copies_plain, tmp_path, capsys):
    dst = tmp_path / "out.zarr"
    args = ["pad", str(copies_plain), str(dst), "--width", "lat=8", "--width", "lon=10:0"]
    assert main([*args, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "chunks of DST's regular grid, per array (copied: stored bytes of SRC;" in out
    # lat 40 padded by 8 both sides: 7 chunks of 8; lon 10 + 46: 6 chunks, the last 6 wide
    assert "t  25 copied, 17 computed; chunks (7x8) x (5x10, 6)" in out
    assert "copied as stored bytes in all: 25 objects" in out
    assert not dst.exists()


@WRITES
def test_needs_no_rectilinear_grids(copies_plain, tmp_path, monkeypatch):
    """The copies on the regular grid ask nothing of zarr 3.2 (as zarr 3.1 would answer)."""

    def refused(*args, **kwargs):
        raise AssertionError("rectilinear grids switched on")

    monkeypatch.setattr(zarr, "__version__", "3.1.6")
    monkeypatch.setattr(chunk_plans, "rectilinear_grids", refused)
    made = _copies(monkeypatch)
    dst = tmp_path / "out.zarr"
    options = ["--width", "lat=8", "--mode", "wrap", "--no-progress"]
    assert main(["pad", str(copies_plain), str(dst), *options]) == 0
    assert len(made) == 25


# --------------------------------------------------------------------------------------
# Sharded inputs
# --------------------------------------------------------------------------------------


@WRITES
@pytest.mark.parametrize(
    ("width", "pads"), [("lat=3", (3, 3)), ("lat=8:0", (8, 0))], ids=["misfit", "whole-shards"]
)
def test_a_sharded_input_is_computed_on_the_regular_grid(
    width, pads, sharded, tmp_path, monkeypatch
):
    """The regular grid writes no shards: no bytes of a sharded input are copied, and the
    widths the rectilinear grid refuses are padded."""
    copied: list[str] = []
    monkeypatch.setattr(_copier, "copy_file", lambda a, b: copied.append(b))
    dst = tmp_path / "out.zarr"
    argv = ["pad", str(sharded), str(dst), "--width", width, "--mode", "edge", "--no-progress"]
    assert main(argv) == 0
    assert copied == []
    expected = xr.open_zarr(sharded).t.pad2(lat=pads, mode="edge")
    np.testing.assert_array_equal(xr.open_zarr(dst).t.values, expected.values)
