"""Each chunk of SRC that a pad reads is read and decoded once, in every mode family and
with a mode per dimension, on the rectilinear grid (which reads only those chunks) and on
the regular grid (which reads every chunk); SRC is read in blocks of several stored
chunks along the dimensions not padded, and the values stay ``pad2``'s."""

from __future__ import annotations

import collections
import warnings
from pathlib import Path

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")

from helpers.markers import WRITES  # noqa: E402
from helpers.stores import NEEDS, counted_reads  # noqa: E402

import daskpad.pipeline.source as source  # noqa: E402
import daskpad.xarray  # noqa: E402,F401
from daskpad._compat.libraries import rectilinear_grids  # noqa: E402
from daskpad.pipeline import PadOptions, plan_store  # noqa: E402
from daskpad.pipeline.rereads import said  # noqa: E402

# time 16 in chunks of 1 (not padded: on 2 threads, read 2 chunks to a block), lat 23 in
# chunks of 5 (the last of 3), lon 30 in chunks of 10
SHAPE, CHUNKS = (16, 23, 30), (1, 5, 10)

#: (mode, its keywords, widths): every mode family, a mode per dimension
CASES = {
    "constant": ("constant", {"constant_values": 3.5}, {"lat": 2, "lon": 3}),
    "edge": ("edge", {}, {"lat": 2, "lon": 3}),
    "linear_ramp": ("linear_ramp", {"end_values": 1.0}, {"lat": 2, "lon": 3}),
    "reflect": ("reflect", {}, {"lat": 6, "lon": 3}),
    "symmetric": ("symmetric", {}, {"lat": 2, "lon": 12}),
    "wrap": ("wrap", {}, {"lat": 2, "lon": 3}),
    "mean": ("mean", {"stat_length": 2}, {"lat": 2, "lon": 3}),
    "maximum": ("maximum", {}, {"lat": 2}),
    "median": ("median", {"stat_length": 7}, {"lat": 2, "lon": 3}),
    "per-dimension": ({"lat": "symmetric", "lon": "wrap"}, {}, {"lat": 4, "lon": 8}),
}


@pytest.fixture(scope="module")
def src(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("decodes") / "src.zarr"
    rng = np.random.default_rng(3)
    ds = xr.Dataset(
        {"t": (("time", "lat", "lon"), rng.random(SHAPE).astype("float32"))},
        coords={"lat": np.linspace(-60, 60, SHAPE[1]), "lon": np.arange(SHAPE[2]) * 12.0},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zarr's note on consolidated metadata in v3)
        ds.to_zarr(path, zarr_format=3, encoding={"t": {"chunks": CHUNKS}})
    return path


def _near(widths: dict[str, int], mode: object) -> list[set[int]]:
    """Per dimension, the chunks a pad reads: those within its width plus one of either
    end (a whole-axis statistic: all), none for a constant pad."""
    out = []
    for dim, n, c in zip(("time", "lat", "lon"), SHAPE, CHUNKS):
        w = widths.get(dim, 0)
        m = mode.get(dim) if isinstance(mode, dict) else mode
        count = -(-n // c)
        if not w or m == "constant":
            out.append(set())
        elif m == "maximum":
            out.append(set(range(count)))
        else:
            reach = max(w + 1, 7)  # (median's stat_length 7)
            out.append(set(range(min(reach, n) // c + 1)) | set(range((n - reach) // c, count)))
        if w and n % c:
            out[-1].add(count - 1)  # (a partial last chunk a pad follows is computed)
    return out


@WRITES
@pytest.mark.parametrize("grid", ["regular", pytest.param("rectilinear", marks=NEEDS)])
@pytest.mark.parametrize("case", list(CASES))
def test_each_chunk_a_pad_reads_is_decoded_once(src, tmp_path, monkeypatch, case, grid):
    mode, kwargs, widths = CASES[case]
    monkeypatch.setattr(source, "local_threads", lambda: 2)
    keys = counted_reads(monkeypatch, src, lambda key: key.startswith("t/c/"))
    options = PadOptions(
        src=str(src),
        dst=str(tmp_path / "out.zarr"),
        widths={d: (w, w) for d, w in widths.items()},
        mode=mode,
        kwargs=kwargs,
        chunk_grid=grid,
    )
    plan = plan_store(options)
    # read in blocks of 2 stored chunks along time, which is not padded (16 chunks, at
    # least 4 blocks per thread); the padded dataset keeps SRC's chunks there
    assert plan.source.ds["t"].chunks[0] == (2,) * 8
    assert plan.source.padded["t"].chunks[0] == (1,) * 16
    plan.write()
    counts = collections.Counter(keys)
    assert all(n == 1 for n in counts.values()), counts.most_common(3)
    every = SHAPE[0] * 5 * 3
    if grid == "regular":
        assert len(counts) == every
    else:
        near = _near(widths, mode)
        wanted = {
            f"t/c/{i}/{j}/{k}"
            for i, j, k in np.ndindex(*(-(-n // c) for n, c in zip(SHAPE, CHUNKS)))
            if j in near[1] or k in near[2]
        }
        assert set(counts) <= wanted
    monkeypatch.undo()
    with rectilinear_grids():
        back = xr.open_zarr(tmp_path / "out.zarr").compute()
    expected = xr.open_zarr(src).pad2(**widths, mode=mode, **kwargs).compute()
    xr.testing.assert_identical(back, expected)


@WRITES
@pytest.mark.skipif(
    not hasattr(zarr.core.codec_pipeline, "FusedCodecPipeline"),
    reason="zarr-python has no synchronous pipeline (< 3.4)",
)
@pytest.mark.parametrize("grid", ["regular", pytest.param("rectilinear", marks=NEEDS)])
def test_a_local_store_is_read_and_written_in_dasks_threads(src, tmp_path, monkeypatch, grid):
    import threading

    from zarr.storage import LocalStore

    threads: set[threading.Thread] = set()
    get, put = LocalStore.get_sync, LocalStore.set_sync

    def seen(call):
        def wrapped(self, key, *args, **kwargs):
            if key.startswith("t/c/"):  # (the padded variable's chunks)
                threads.add(threading.current_thread())
            return call(self, key, *args, **kwargs)

        return wrapped

    monkeypatch.setattr(LocalStore, "get_sync", seen(get))
    monkeypatch.setattr(LocalStore, "set_sync", seen(put))
    options = PadOptions(
        src=str(src),
        dst=str(tmp_path / "out.zarr"),
        widths={"lat": (2, 2), "lon": (3, 3)},
        mode="wrap",
        chunk_grid=grid,
    )
    plan_store(options).write()
    # the chunks of t are read and written by dask's tasks, in the threads that run them,
    # never handed to the threads of zarr's event loop ("asyncio_N") or of its codec pool
    import zarr.core.codec_pipeline as pipelines

    pool = getattr(pipelines, "_pool", None)
    zarrs = set(getattr(pool, "_threads", ()))
    assert threads, "no chunk of t was read or written"
    assert not {t.name for t in threads if t in zarrs or t.name.startswith("asyncio")}


@WRITES
@pytest.mark.parametrize(
    ("case", "memory"),
    [
        ("wrap", None),  # one computation: what the budget holds
        ("wrap", 6_000),  # tiles, and a wrapped pad's neighbour read again
        ("mean", 6_000),  # the statistics settled first, then the tiles
        ("reflect", 6_000),
        ("per-dimension", 3_000),
    ],
)
def test_the_dry_run_counts_the_chunks_the_write_reads_again(
    src, tmp_path, monkeypatch, case, memory
):
    mode, kwargs, widths = CASES[case]
    monkeypatch.setattr(source, "local_threads", lambda: 2)
    options = PadOptions(
        src=str(src),
        dst=str(tmp_path / "out.zarr"),
        widths={d: (w, w) for d, w in widths.items()},
        mode=mode,
        kwargs=kwargs,
        memory=memory,
    )
    plan = plan_store(options)
    (found,) = plan.chunks_read_again()
    keys = counted_reads(monkeypatch, src, lambda key: key.startswith("t/c/"))
    plan.write()
    counts = collections.Counter(keys)
    assert len(counts) == found.chunks == SHAPE[0] * 5 * 3
    assert found.again == sum(n > 1 for n in counts.values())
    assert found.most == max(counts.values())
    if memory is not None:
        assert not plan.writer.whole and found.again > 0
    assert ("twice" in said([found])) == (found.most == 2)
