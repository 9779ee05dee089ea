"""Reads and writes of a zarr array's regions in the calling thread
(daskpad._compat.zarr_io): the values and the stored chunks are zarr's own, on every grid,
layout and chunk state, and the work runs where it is called."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
import zarr
from hypothesis import given, settings
from hypothesis import strategies as st
from zarr.storage import LocalStore

from daskpad._compat.libraries import fused_codecs, rectilinear_grids, rectilinear_support
from daskpad._compat.zarr_io import InPlaceStore, SyncReads, read_region, sync_io, write_region

FUSED = hasattr(zarr.core.codec_pipeline, "FusedCodecPipeline")
needs_fused = pytest.mark.skipif(not FUSED, reason="zarr-python has no fused pipeline (< 3.4)")


def _stored(path: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(path)): p.read_bytes()
        for p in sorted(path.rglob("*"))
        if p.is_file() and p.name not in ("zarr.json", ".zarray", ".zattrs")
    }


def _array(path: Path, shape, chunks, *, fmt=3, order="C", shards=None, fill=0, kind=LocalStore):
    with fused_codecs():
        kwargs = {"zarr_format": fmt, "fill_value": fill}
        if fmt == 2:
            kwargs["order"] = order
        if shards is not None:
            kwargs["shards"] = shards
        return zarr.create_array(kind(path), shape=shape, chunks=chunks, dtype="i4", **kwargs)


LAYOUTS = {
    "v3": {},
    "v2 C": {"fmt": 2},
    "v2 F": {"fmt": 2, "order": "F"},
    "sharded": {"shards": (6, 8)},
}


@needs_fused
@pytest.mark.parametrize("layout", LAYOUTS)
def test_reads_equal_zarrs_own_with_missing_chunks_filled(tmp_path, layout):
    a = _array(tmp_path / "a", (12, 16), (3, 4), fill=-7, **LAYOUTS[layout])
    values = np.arange(12 * 16, dtype="i4").reshape(12, 16)
    a[:6] = values[:6]  # (the chunks of the last six rows are missing)
    assert sync_io(a) is not None
    for region in [
        (slice(0, 12), slice(0, 16)),
        (slice(2, 9), slice(3, 15)),
        (slice(5, 6), slice(0, 1)),
        (slice(4, 4), slice(0, 16)),
    ]:
        got = read_region(a, region)
        np.testing.assert_array_equal(got, a[region])
        assert got.dtype == a.dtype


@needs_fused
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_whole_chunk_is_read_as_decoded(tmp_path, layout):
    a = _array(tmp_path / "a", (12, 16), (3, 4), fill=-7, **LAYOUTS[layout])
    values = np.arange(12 * 16, dtype="i4").reshape(12, 16)
    a[:9] = values[:9]
    got = read_region(a, (slice(3, 6), slice(4, 8)))
    np.testing.assert_array_equal(got, values[3:6, 4:8])
    assert got.dtype == np.dtype("i4")
    # (the decoded chunk itself, not a copy, except where a shard's codec reads parts)
    assert got.flags.writeable == (layout == "sharded")
    missing = read_region(a, (slice(9, 12), slice(0, 4)))  # (no chunk stored: the fill)
    np.testing.assert_array_equal(missing, np.full((3, 4), -7))
    assert missing.flags.writeable


@needs_fused
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("empty", [None, True, False])
@pytest.mark.parametrize("kind", [LocalStore, InPlaceStore])
def test_writes_store_what_zarr_stores(tmp_path, layout, empty, kind):
    rng = np.random.default_rng(3)
    ours = _array(tmp_path / "ours", (12, 16), (3, 4), fill=-7, kind=kind, **LAYOUTS[layout])
    theirs = _array(tmp_path / "theirs", (12, 16), (3, 4), fill=-7, **LAYOUTS[layout])
    writes = [
        ((slice(0, 12), slice(0, 16)), rng.integers(-9, 9, (12, 16))),
        ((slice(2, 7), slice(3, 13)), rng.integers(-9, 9, (5, 10))),  # (partial chunks)
        ((slice(0, 3), slice(0, 4)), np.full((3, 4), -7)),  # (all fill: left out)
        ((slice(9, 12), slice(12, 16)), np.full((3, 4), -7)),
    ]
    for region, values in writes:
        write_region(ours, region, values, empty)
        (theirs if empty is None else theirs.with_config({"write_empty_chunks": empty}))[
            region
        ] = values.astype("i4")
    assert _stored(tmp_path / "ours") == _stored(tmp_path / "theirs")
    np.testing.assert_array_equal(ours[:], theirs[:])


@needs_fused
@pytest.mark.skipif(rectilinear_support() is not None, reason="no rectilinear grids here")
def test_a_rectilinear_grid_reads_and_writes_as_zarr_does(tmp_path):
    with rectilinear_grids(), fused_codecs():
        chunks = [[2, 5, 5], [1, 7, 8]]
        ours = zarr.create_array(
            LocalStore(tmp_path / "o"), shape=(12, 16), chunks=chunks, dtype="f8"
        )
        theirs = zarr.create_array(
            LocalStore(tmp_path / "t"), shape=(12, 16), chunks=chunks, dtype="f8"
        )
        values = np.arange(12 * 16, dtype="f8").reshape(12, 16) / 3
        write_region(ours, (slice(0, 12), slice(0, 16)), values)
        theirs[:] = values
        assert _stored(tmp_path / "o") == _stored(tmp_path / "t")
        np.testing.assert_array_equal(
            read_region(ours, (slice(1, 11), slice(0, 9))), values[1:11, :9]
        )


@needs_fused
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_any_region_reads_and_writes_as_zarr_does(tmp_path_factory, data):
    ndim = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.integers(0, 7)) for _ in range(ndim))
    chunks = tuple(data.draw(st.integers(1, 4)) for _ in range(ndim))
    region = []
    for n in shape:
        a = data.draw(st.integers(0, n))
        region.append(slice(a, data.draw(st.integers(a, n))))
    region = tuple(region)
    where = tmp_path_factory.mktemp("any")
    ours = _array(where / "o", shape, chunks)
    theirs = _array(where / "t", shape, chunks)
    values = np.arange(int(np.prod([s.stop - s.start for s in region])), dtype="i4")
    values = values.reshape([s.stop - s.start for s in region]) % 5
    write_region(ours, region, values)
    theirs[region] = values
    assert _stored(where / "o") == _stored(where / "t")
    np.testing.assert_array_equal(read_region(ours, region), theirs[region])


@needs_fused
def test_an_in_place_store_writes_each_object_straight_to_its_file(tmp_path, monkeypatch):
    import os
    import pickle

    a = _array(tmp_path / "a", (8, 8), (4, 4), kind=InPlaceStore)
    renamed = []
    monkeypatch.setattr(os, "replace", lambda *args: renamed.append(args))
    monkeypatch.setattr(os, "rename", lambda *args: renamed.append(args))
    monkeypatch.setattr(Path, "replace", lambda *args: renamed.append(args))
    big = np.arange(64, dtype="i4").reshape(8, 8) * 1000
    write_region(a, (slice(0, 8), slice(0, 8)), big)
    before = _stored(tmp_path / "a")
    assert len(before) == 4 and not renamed
    write_region(a, (slice(0, 4), slice(0, 4)), np.ones((4, 4), "i4"))  # (shorter, in place)
    after = _stored(tmp_path / "a")
    assert after["c/0/0"] != before["c/0/0"] and len(after) == 4
    expected = big.copy()
    expected[:4, :4] = 1
    np.testing.assert_array_equal(a[:], expected)
    np.testing.assert_array_equal(read_region(a, (slice(0, 8), slice(0, 8))), expected)
    assert not [p for p in (tmp_path / "a").rglob("*") if "partial" in p.name]
    again = pickle.loads(pickle.dumps(a.store))
    assert type(again) is InPlaceStore and again == a.store


@needs_fused
def test_the_work_runs_in_the_calling_thread(tmp_path, monkeypatch):
    a = _array(tmp_path / "a", (8, 8), (4, 4))
    threads: set[int] = set()
    get, set_ = LocalStore.get_sync, LocalStore.set_sync

    def seen_get(self, *args, **kwargs):
        threads.add(threading.get_ident())
        return get(self, *args, **kwargs)

    def seen_set(self, *args, **kwargs):
        threads.add(threading.get_ident())
        return set_(self, *args, **kwargs)

    monkeypatch.setattr(LocalStore, "get_sync", seen_get)
    monkeypatch.setattr(LocalStore, "set_sync", seen_set)
    write_region(a, (slice(0, 8), slice(0, 8)), np.ones((8, 8)))
    np.testing.assert_array_equal(read_region(a, (slice(0, 8), slice(0, 8))), 1)
    assert threads == {threading.get_ident()}


def test_without_a_synchronous_form_zarr_does_it(tmp_path):
    a = zarr.create_array(LocalStore(tmp_path / "a"), shape=(6,), chunks=(2,), dtype="i4")
    if FUSED:
        assert sync_io(a) is None  # (zarr's default pipeline: its own threads)
    write_region(a, (slice(1, 5),), np.arange(4))
    write_region(a, (slice(0, 2),), np.zeros(2), write_empty=True)
    np.testing.assert_array_equal(read_region(a, (slice(0, 6),)), [0, 0, 1, 2, 3, 0])
    np.testing.assert_array_equal(read_region(a, ([0, 3],)), [0, 2])  # (not slices)
    assert sorted(_stored(tmp_path / "a")) == ["c/0", "c/1", "c/2"]


@needs_fused
def test_a_selection_other_than_slices_is_zarrs(tmp_path):
    a = _array(tmp_path / "a", (6, 4), (2, 2))
    a[:] = np.arange(24).reshape(6, 4)
    np.testing.assert_array_equal(read_region(a, (slice(0, 6, 2), slice(0, 4))), a[::2])
    np.testing.assert_array_equal(read_region(a, (1, slice(0, 4))), a[1])
    np.testing.assert_array_equal(read_region(a, ([0, 5], slice(0, 4))), a.oindex[[0, 5], :])


@needs_fused
def test_dask_reads_blocks_through_it(tmp_path):
    import dask.array as da

    a = _array(tmp_path / "a", (9, 7), (4, 3))
    a[:] = np.arange(63).reshape(9, 7)
    x = da.from_array(SyncReads(a), chunks=(4, 3), lock=False)
    np.testing.assert_array_equal(x.compute(scheduler="threads"), a[:])
    np.testing.assert_array_equal(x[2:8, 1:5].compute(), a[2:8, 1:5])
