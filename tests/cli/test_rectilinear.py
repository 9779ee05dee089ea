"""``daskpad pad --chunk-grid rectilinear``: DST on zarr's rectilinear chunk grid, SRC's
whole chunks copied as stored bytes and only the pads computed.

What xarray opens from DST must equal what it opens from the regular grid's DST, for every
mode, per-dimension modes, packed variables and times, from zarr v3, zarr v2 and netCDF;
each copied chunk object is byte-identical to its input chunk (or both absent); the grid
along each axis is the pad before (in pieces no wider than the input's chunk), the input's
chunks, the pad after; the input's chunks are read only where the pads read them, each
once.
"""

from __future__ import annotations

import importlib
import itertools
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.cli_launcher import COMMAND, FAILURE, HOOK_ENV, hooked
from helpers.encoded_data import CASES, decoded_input
from helpers.markers import WRITES
from helpers.stores import (
    NEEDS,
    chunk_reads,
    expanded_shapes,
    lat_lon_store,
    opened,
    rectilinear_axis,
    widths_of,
    zarr_json,
)
from hypothesis import given
from hypothesis import strategies as st

from daskpad.store.objects import copier as _copier
from daskpad.store.objects.copier import Copier
from daskpad.store.planning.rectilinear_grid import layout, outside, pieces
from daskpad.store.writing import chunk_plans

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")

from daskpad._compat.libraries import rectilinear_support  # noqa: E402
from daskpad.cli import main  # noqa: E402

pytestmark = pytest.mark.xdist_group("rectilinear")


# --------------------------------------------------------------------------------------
# The grid (plain Python)
# --------------------------------------------------------------------------------------
def test_pieces_put_the_short_piece_outermost():
    assert pieces(256, 1024, outer_first=True) == (256,)
    assert pieces(2500, 1024, outer_first=True) == (452, 1024, 1024)
    assert pieces(2500, 1024, outer_first=False) == (1024, 1024, 452)
    assert pieces(0, 7, outer_first=True) == ()


def test_a_layout_keeps_the_input_chunks_between_the_pads():
    # 721 in chunks of 360 (a partial last chunk of 1), 1440 in chunks of 360
    each = layout((721, 1440), (360, 360), ((2, 2), (400, 3)), copied=True)
    assert each is not None
    # the partial chunk of 1 is computed, not copied, in one chunk with the pad after it
    assert each.chunks == ((2, 360, 360, 3), (40, 360, 360, 360, 360, 360, 3))
    assert each.first == (1, 2)
    assert each.whole == (2, 4)
    assert each.box == (slice(2, 722), slice(400, 1840))
    assert each.ncopied == 8
    assert each.ncomputed == 4 * 7 - 8
    assert next(iter(each.copied_chunks())) == ((0, 0), (1, 2))


def test_a_partial_last_chunk_and_the_pad_after_it_are_cut_as_one_stretch():
    each = layout((721,), (360,), ((0, 400),), copied=True)
    assert each is not None
    assert each.chunks == ((360, 360, 360, 41),)  # 1 + 400 in pieces of 360 at most
    assert each.whole == (2,) and each.box == (slice(0, 720),)


def test_a_partial_last_chunk_no_pad_follows_is_declared_whole_and_copied():
    each = layout((721, 1440), (360, 360), ((0, 0), (3, 3)), copied=True)
    assert each is not None
    assert each.chunks == ((360, 360, 1), (3, 360, 360, 360, 360, 3))
    assert each.declared == ((360, 360, 360), (3, 360, 360, 360, 360, 3))
    assert each.whole == (3, 4) and each.ncopied == 12
    assert each.box == (slice(0, 721), slice(3, 1443))


def test_an_empty_output_axis_has_no_rectilinear_grid():
    assert layout((0, 4), (3, 2), ((0, 0), (1, 1)), copied=True) is None
    each = layout((0, 4), (3, 2), ((2, 1), (0, 0)), copied=True)
    assert each is not None and each.chunks == ((2, 1), (2, 2)) and each.ncopied == 0


@given(
    st.lists(
        st.tuples(st.integers(0, 12), st.integers(1, 5), st.integers(0, 9), st.integers(0, 9)),
        min_size=1,
        max_size=3,
    ),
    st.booleans(),
)
def test_computed_boxes_and_the_copied_box_tile_the_array(axes, copied):
    shape = [n for n, *_ in axes]
    each = layout(shape, [c for _, c, _, _ in axes], [(b, a) for *_, b, a in axes], copied)
    if each is None:
        assert any(n + b + a == 0 for n, _, b, a in axes)
        return
    count = np.zeros(each.shape, int)
    boxes = each.computed() + ([each.box] if copied else [])
    bounds = [set(np.cumsum((0, *c)).tolist()) for c in each.chunks]
    for box in boxes:
        count[box] += 1
        for s, b in zip(box, bounds):
            assert s.start in b and s.stop in b  # on chunk bounds
    assert (count == 1).all()
    for sizes, (n, c, before, after) in zip(each.chunks, axes):
        # no chunk wider than the input's stored chunk, and no more chunks than needed
        assert max(sizes) <= c
        # (a partial last chunk shares its chunks with the pad after it)
        assert len(sizes) == -(-before // c) + n // c + -(-(n % c + after) // c)


def test_outside_of_an_empty_box_is_everything():
    assert outside((3, 4), (slice(1, 1), slice(0, 4))) == [
        (slice(0, 1), slice(0, 4)),
        (slice(1, 3), slice(0, 4)),
    ]


def test_copies_within_an_fsspec_store_from_any_thread():
    """An ``FsspecStore``'s file system is asynchronous, its sessions on zarr's event
    loop: listed and copied there, from the copying threads too."""
    from zarr.storage import FsspecStore

    src = FsspecStore.from_url("memory://daskpad-copier/in.zarr", read_only=False)
    dst = FsspecStore.from_url("memory://daskpad-copier/out.zarr", read_only=False)
    src.fs.sync_fs.pipe({f"{src.path}/t/c/0/0": b"ab", f"{src.path}/t/c/0/1": b"cde"})
    copier = Copier(src, dst)
    assert copier.how == "copies within the object store"
    assert _copier.stored_sizes(src, "t/") == {"t/c/0/0": 2, "t/c/0/1": 3}
    done: list[int] = []
    pairs = [("t/c/0/0", "t/c/1/1"), ("t/c/0/1", "t/c/1/2")]
    worker = threading.Thread(target=copier.copy, args=(pairs, threading.Event(), done.append))
    worker.start()
    worker.join()
    assert done == [2]
    assert dst.fs.sync_fs.cat(f"{dst.path}/t/c/1/2") == b"cde"
    assert dst.fs.sync_fs.cat(f"{dst.path}/t/c/1/1") == b"ab"


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------

CHUNKS = {"time": 2, "lat": 4, "lon": 3}  # lat 6 and lon 8: partial last chunks


@pytest.fixture(scope="module")
def rect_sources(tmp_path_factory) -> dict[str, Path]:
    where = tmp_path_factory.mktemp("rect-src")
    ds = decoded_input().chunk(CHUNKS)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zarr's note on consolidated v3; xarray's on packing)
        for fmt in (2, 3):
            path = where / f"src_v{fmt}.zarr"
            ds.to_zarr(path, zarr_format=fmt, consolidated=True)
            out[f"zarr{fmt}"] = path
        # a chunk never written (read as the array's fill value)
        (out["zarr3"] / "f32m" / "c" / "0" / "0" / "0").unlink()
        nc = where / "src.nc"
        ds.load().to_netcdf(nc, engine="h5netcdf")
        out["netcdf"] = nc
    return out


RUNS = [(case, "zarr3") for case in CASES] + [
    ("copies", "zarr2"),
    ("mixed", "zarr2"),
    ("copies", "netcdf"),
    ("mean", "netcdf"),
]


@pytest.fixture(scope="module")
def rect_runs(rect_sources, tmp_path_factory):
    """Each run on both grids: ``{(case, kind): (regular DST, rectilinear DST)}``."""
    if rectilinear_support() is not None:
        pytest.skip("rectilinear grids need zarr-python >= 3.2")
    where = tmp_path_factory.mktemp("rect-out")
    out = {}
    for case, kind in RUNS:
        args = ["pad", str(rect_sources[kind]), "", *CASES[case]]
        regular, rect = where / f"{case}-{kind}.zarr", where / f"{case}-{kind}-rect.zarr"
        assert main([*args[:2], str(regular), *args[3:]]) == 0
        assert main([*args[:2], str(rect), *args[3:], "--chunk-grid", "rectilinear"]) == 0
        out[case, kind] = regular, rect
    return out


@NEEDS
@WRITES
@pytest.mark.parametrize(("case", "kind"), RUNS)
def test_dst_opens_as_the_regular_grid_does(case, kind, rect_runs):
    regular, rect = rect_runs[case, kind]
    xr.testing.assert_identical(opened(rect), opened(regular))


@NEEDS
@WRITES
@pytest.mark.parametrize("case", list(CASES))
def test_whole_input_chunks_are_copied_byte_for_byte(case, rect_runs, rect_sources):
    _, rect = rect_runs[case, "zarr3"]
    src = rect_sources["zarr3"]
    widths = widths_of(CASES[case])
    copied = 0
    for name in ("tp", "f32m", "u8", "s8", "fboth", "elev"):
        doc = zarr_json(rect / name)
        if doc["data_type"] != zarr_json(src / name)["data_type"]:
            continue  # a new dtype (NaN padded into integers): every chunk computed
        if doc["chunk_grid"]["name"] != "rectilinear":
            assert doc["chunk_grid"] == zarr_json(src / name)["chunk_grid"]  # not padded
            continue
        dims = doc["dimension_names"]
        sizes = expanded_shapes(doc["chunk_grid"]["configuration"]["chunk_shapes"])
        stored = zarr_json(src / name)["chunk_grid"]["configuration"]["chunk_shape"]
        shape = zarr_json(src / name)["shape"]
        first, copied_along = [], []
        for d, got, c, n in zip(dims, sizes, stored, shape):
            expected, f, along = rectilinear_axis(n, c, *widths.get(d, (0, 0)))
            assert tuple(got) == expected, (name, d)
            first.append(f)
            copied_along.append(along)
        for index in np.ndindex(*copied_along):
            a = src / name / "c" / Path(*map(str, index))
            b = rect / name / "c" / Path(*(str(i + f) for i, f in zip(index, first)))
            assert a.exists() == b.exists(), (name, index)
            if a.exists():
                assert a.read_bytes() == b.read_bytes(), (name, index)
                copied += 1
    assert copied


@NEEDS
@WRITES
def test_a_chunk_never_written_stays_unwritten(rect_runs, rect_sources):
    _, rect = rect_runs["copies", "zarr3"]  # time=2 lat=3 lon=9: first chunks (1, 1, 3)
    assert not (rect / "f32m" / "c" / "1" / "1" / "3").exists()
    assert (rect / "f32m" / "c" / "1" / "1" / "4").exists()


# --------------------------------------------------------------------------------------
# What is read, and what is refused
# --------------------------------------------------------------------------------------
NY, NX, CY, CX = 40, 50, 8, 10  # 5 x 5 chunks


@pytest.fixture(scope="module")
def rect_plain(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rect-plain") / "plain.zarr"
    return lat_lon_store(path, (NY, NX), {"chunks": (CY, CX)}, seed=1)


@NEEDS
@WRITES
@pytest.mark.parametrize(
    ("options", "rows", "cols"),
    [
        # reflect 3 reads chunk 0 and the last along lat; 12 > CX reads two along lon
        (["--width", "lat=3", "--width", "lon=12", "--mode", "reflect"], {0, 4}, {0, 1, 3, 4}),
        (["--width", "lat=2", "--mode", "mean", "--stat-length", "2"], {0, 4}, set()),
        (["--width", "lat=2", "--width", "lon=3", "--mode", "constant"], set(), set()),
    ],
    ids=["reflect", "mean", "constant"],
)
def test_only_the_chunks_the_pads_read_are_decoded_each_once(
    options, rows, cols, rect_plain, tmp_path, monkeypatch
):
    keys, decoded = chunk_reads(monkeypatch, rect_plain)
    assert main(["pad", str(rect_plain), str(tmp_path / "out.zarr"), *options, "--chunk-grid",
                 "rectilinear"]) == 0  # fmt: skip
    wanted = {f"t/c/{i}/{j}" for i in range(5) for j in range(5) if i in rows or j in cols}
    assert sorted(keys) == sorted(wanted)  # each once, and no other
    assert decoded[0] == len(keys) + 2  # (and the coordinates lat and lon, read at opening)


@NEEDS
def test_dry_run_says_which_chunks_are_copied(rect_plain, tmp_path, capsys):
    dst = tmp_path / "out.zarr"
    args = ["pad", str(rect_plain), str(dst), "--width", "lat=3", "--width", "lon=12"]
    assert main([*args, "--chunk-grid", "rectilinear", "--dry-run"]) == 0
    out = capsys.readouterr().out
    # lon 50 in chunks of 10 padded by 12: (2, 10) + 5 x 10 + (10, 2), 9 chunks
    assert "t  25 copied, 38 computed; chunks (3, 5x8, 3) x (2, 7x10, 2)" in out
    assert "copied as stored bytes in all: 25 objects" in out
    assert not dst.exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--zarr-format", "2"], "--chunk-grid rectilinear writes zarr v3; --zarr-format 2"),
    ],
)
def test_refusals(extra, message, rect_plain, tmp_path, capsys):
    dst = tmp_path / "out.zarr"
    args = ["pad", str(rect_plain), str(dst), "--width", "lat=1", "--chunk-grid", "rectilinear"]
    assert main([*args, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not dst.exists()


def test_old_zarr_is_refused_naming_the_version(rect_plain, tmp_path, capsys, monkeypatch):
    import daskpad._compat.libraries as libraries

    if rectilinear_support() is None:  # (zarr >= 3.2 here: as zarr 3.1 would answer)
        monkeypatch.setattr(zarr, "__version__", "3.1.6")
    dst = tmp_path / "out.zarr"
    args = ["pad", str(rect_plain), str(dst), "--width", "lat=1", "--chunk-grid", "rectilinear"]
    assert main(args) == 2
    err = capsys.readouterr().err
    said = f"rectilinear: zarr-python {zarr.__version__} has no rectilinear chunk grids: they"
    assert said in err and "need zarr-python 3.2 or newer" in err
    assert libraries.rectilinear_support() is not None
    assert not dst.exists()


@NEEDS
def test_a_bare_array_is_refused(tmp_path, capsys):
    src = tmp_path / "bare.zarr"
    zarr.create_array(src, shape=(4, 4), chunks=(2, 2), dtype="f4")[...] = 1.0
    dst = tmp_path / "out.zarr"
    assert (
        main(["pad", str(src), str(dst), "--width", "dim_0=1", "--chunk-grid", "rectilinear"]) == 2
    )
    assert "SRC is a bare zarr array" in capsys.readouterr().err
    assert not dst.exists()


# --------------------------------------------------------------------------------------
# Process workers; --overwrite; a failed or interrupted run leaves nothing
# --------------------------------------------------------------------------------------
def _stored_run(argv: list, env: dict | None = None) -> subprocess.CompletedProcess:
    command = COMMAND if hooked(env) else [sys.executable, "-m", "daskpad"]
    return subprocess.run(
        [*command, *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


@NEEDS
@WRITES
@pytest.mark.cluster
def test_a_run_on_workers_writes_the_same(rect_runs, rect_sources, tmp_path):
    """``--workers 2``: the chunks computed on process workers (which read and write
    rectilinear grids too), the copies made here."""
    dst = tmp_path / "w.zarr"
    argv = ["pad", rect_sources["zarr3"], dst, *CASES["copies"], "--chunk-grid", "rectilinear"]
    run = _stored_run([*argv, "--workers", "2", "--no-progress"])
    assert run.returncode == 0, run.stderr
    regular, _ = rect_runs["copies", "zarr3"]
    xr.testing.assert_identical(opened(dst), opened(regular))
    assert zarr_json(dst / "tp")["chunk_grid"]["name"] == "rectilinear"


@NEEDS
@WRITES
@pytest.mark.cluster
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_a_cluster_the_command_did_not_start_reads_rectilinear_grids_only_while_it_runs(
    rect_runs, rect_sources, tmp_path
):
    """``--scheduler``: zarr's rectilinear grids are turned on in the workers for the run,
    and off again after, as the cluster's owner had them."""
    distributed = pytest.importorskip("distributed")
    dst = tmp_path / "s.zarr"
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,  # the worker's zarr config is this process's
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=":0",
    ) as cluster:
        assert zarr.config.get("array.rectilinear_chunks", False) is False
        argv = ["pad", rect_sources["zarr3"], dst, *CASES["copies"], "--chunk-grid", "rectilinear"]
        run = _stored_run([*argv, "--scheduler", cluster.scheduler_address, "--no-progress"])
        assert run.returncode == 0, run.stderr
        assert cluster.scheduler.task_prefixes  # the pads were computed there
        assert zarr.config.get("array.rectilinear_chunks", False) is False
    regular, _ = rect_runs["copies", "zarr3"]
    xr.testing.assert_identical(opened(dst), opened(regular))


def _digest(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in path.rglob("*") if p.is_file()}


@NEEDS
@WRITES
def test_overwrite_replaces_dst_only_once_written(rect_runs, rect_sources, tmp_path, capsys):
    dst = tmp_path / "dst.zarr"
    shutil.copytree(rect_runs["copies", "zarr3"][0], dst)  # an old DST (the regular grid's)
    old = _digest(dst)
    argv = ["pad", rect_sources["zarr3"], dst, *CASES["mixed"], "--chunk-grid", "rectilinear"]
    failed = _stored_run([*argv, "--overwrite"], env={HOOK_ENV: "fail"})
    assert failed.returncode == 1
    assert failed.stderr.splitlines() == [
        f"daskpad: error: writing DST failed, DST left as it was: RuntimeError: {FAILURE} "
        "(--debug shows the traceback)"
    ]
    assert _digest(dst) == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr"]  # temporary removed

    assert main(list(map(str, [*argv, "--overwrite", "--no-progress"]))) == 0
    assert f"-> {dst} (replaced the old DST): " in capsys.readouterr().out
    xr.testing.assert_identical(opened(dst), opened(rect_runs["mixed", "zarr3"][0]))
    assert zarr_json(dst / "tp")["chunk_grid"]["name"] == "rectilinear"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr"]


@pytest.fixture(scope="module")
def many_chunks(tmp_path_factory) -> Path:
    """A zarr v3 store whose array ``t`` has 64 whole chunks (copied when padded)."""
    path = tmp_path_factory.mktemp("many") / "src.zarr"
    group = zarr.open_group(path, mode="w", zarr_format=3)
    dims = ("time", "lat", "lon")
    t = group.create_array("t", shape=(4, 12, 16), chunks=(1, 3, 4), dtype="f8",
                           dimension_names=dims)  # fmt: skip
    t[...] = np.arange(t.size, dtype="f8").reshape(t.shape)
    return path


class SlowCopies:
    """``daskpad.store.objects.copier.copy_file`` made slow, each call recorded: its target, and
    in :attr:`late` where it started or ended (copied or failed) after :attr:`returned`
    was set; ``started`` is set on the first."""

    def __init__(self, copy: Callable[[str, str], None], delay: float = 0.3):
        self.copy, self.delay = copy, delay
        self.calls: list[str] = []
        self.late: list[str] = []
        self.started = threading.Event()
        self.returned = threading.Event()

    def __call__(self, src: str, dst: str) -> None:
        if self.returned.is_set():
            self.late.append(dst)
        self.calls.append(dst)
        self.started.set()
        try:
            time.sleep(self.delay)
            self.copy(src, dst)
        finally:
            if self.returned.is_set():
                self.late.append(dst)


def _stopped_cleanly(copies: SlowCopies, tmp_path: Path, pairs: int) -> None:
    """The copies stopped early, none was under way once the command returned, and neither
    DST nor its temporary directory is there, now or a moment later."""
    assert copies.calls, "no copy was in flight"
    assert all(".dst.zarr.daskpad-tmp-" in c for c in copies.calls)
    assert len(copies.calls) < pairs // 2, len(copies.calls)
    time.sleep(0.3)  # (a copy still running would show up here)
    assert copies.late == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src.zarr"]


@NEEDS
@WRITES
def test_a_failed_write_stops_the_copies(many_chunks, tmp_path, monkeypatch, capsys):
    src = shutil.copytree(many_chunks, tmp_path / "src.zarr")
    copies = SlowCopies(_copier.copy_file)
    monkeypatch.setattr(_copier, "copy_file", copies)

    def failing(*args: Any, **kwargs: Any) -> Any:
        copies.started.wait(30)  # (fails while the copies are under way)
        raise RuntimeError("this chunk cannot be written")

    monkeypatch.setattr(chunk_plans, "write_chunk", failing)
    argv = ["pad", src, tmp_path / "dst.zarr", "--width", "lat=1", "--mode", "edge"]
    status = main([*map(str, argv), "--chunk-grid", "rectilinear", "--no-progress"])
    copies.returned.set()
    out, err = capsys.readouterr()
    assert status == 1, (out, err)
    assert err.splitlines() == [
        "daskpad: error: writing DST failed, DST left as it was: RuntimeError: this chunk "
        "cannot be written (--debug shows the traceback)"
    ]
    _stopped_cleanly(copies, tmp_path, 64)


@NEEDS
@WRITES
def test_ctrl_c_stops_the_copies(many_chunks, tmp_path, monkeypatch, capsys):
    # the modules the command imports as it computes, imported before the signal: a
    # SIGINT in this process can stop an import midway, whose open file then warns
    importlib.import_module("dask.diagnostics.progress")
    src = shutil.copytree(many_chunks, tmp_path / "src.zarr")
    copies = SlowCopies(_copier.copy_file)
    count = itertools.count()  # (one thread draws each number: one signal)

    def interrupting(a: str, b: str) -> None:
        if next(count) == 3:  # Ctrl-C while copies are under way, received by this
            # copy thread: Python's handler runs in the main thread once it next looks
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        copies(a, b)

    monkeypatch.setattr(_copier, "copy_file", interrupting)
    argv = ["pad", src, tmp_path / "dst.zarr", "--width", "lat=1", "--mode", "edge"]
    status = main([*map(str, argv), "--chunk-grid", "rectilinear", "--no-progress"])
    copies.returned.set()
    out, err = capsys.readouterr()
    assert (status, err.splitlines()) == (
        130,
        ["daskpad: interrupted; nothing was written to DST"],
    ), out
    _stopped_cleanly(copies, tmp_path, 64)
