"""Reads and writes of a region of a zarr array in the calling thread.

zarr-python's synchronous API (``array[region]``) runs every call as a coroutine on zarr's
one event loop thread, which hands the codecs to a thread of its own and they to a pool:
three threads for one call, while the caller waits. With dask's threads calling it, a pad
of a dataset spends a third of its time in those hand-offs (and the cores idle).
zarr-python 3.4's fused codec pipeline has a synchronous form of a read and a write
(``read_sync``, ``write_sync``) that it runs on one of its threads; here the caller runs
it itself, with the chunks, specs and selections built as zarr builds them for
``array[region]`` (``zarr.core.array._get_selection``, ``_set_selection``).

Where an array's pipeline or store has no synchronous form (zarr-python before 3.4, the
batched pipeline, an object store without synchronous IO), or for a selection other than
slices, :func:`sync_io` is None and the callers use ``array[region]``: the values are
zarr's either way.

:class:`InPlaceStore` is the local store of a directory that one write fills and that is
removed unless the write completes (the command's temporary store): its chunk files are
written in place, where zarr writes each to a temporary file and renames it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

try:
    from zarr.storage import LocalStore
except ImportError:  # (zarr is an extra: without it, no store is written)
    LocalStore = object  # type: ignore[assignment,misc]

Region = tuple[slice, ...]


@dataclass(frozen=True)
class SyncIO:
    """Reads and writes of regions of one zarr array (:func:`sync_io`) in the calling
    thread, as ``array[region]`` would make them."""

    array: Any
    pipeline: Any
    prototype: Any
    config: Any

    def _batch(self, region: Region, config: Any) -> tuple[Any, list[Any]]:
        import zarr.core.array as arrays
        from zarr.core.indexing import BasicIndexer

        spec = arrays._get_chunk_spec  # type: ignore[attr-defined,unused-ignore]

        aa = self.array._async_array
        meta, grid = aa.metadata, aa._chunk_grid
        indexer = BasicIndexer(region, shape=meta.shape, chunk_grid=grid)
        path, proto = aa.store_path, self.prototype
        batch = [
            (
                path / meta.encode_chunk_key(coords),
                spec(meta, grid, coords, config, proto),
                chunk_selection,
                out_selection,
                complete,
            )
            for coords, chunk_selection, out_selection, complete in indexer
        ]
        return indexer, batch

    def get(self, region: Region) -> np.ndarray[Any, Any]:
        """The values of ``region`` (slices with steps of 1, one per dimension)."""
        indexer, batch = self._batch(region, self.config)
        meta = self.array._async_array.metadata
        whole = self._whole_chunk(batch, indexer)
        if whole is not None:
            return whole
        out = self.prototype.nd_buffer.empty(
            shape=indexer.shape, dtype=meta.dtype.to_native_dtype(), order=self.config.order
        )
        if batch:
            got = self.pipeline.read_sync(batch, out, drop_axes=indexer.drop_axes)
            if getattr(self.config, "read_missing_chunks", True) is False and any(
                g["status"] == "missing" for g in got
            ):
                return np.asarray(self.array[region])  # (zarr's own error, naming them)
        return np.asarray(out.as_ndarray_like())

    def _whole_chunk(self, batch: list[Any], indexer: Any) -> np.ndarray[Any, Any] | None:
        """A region that is one stored chunk whole: its decoded values as they are, not
        copied into an array of the region (zarr's scatter), read-only (dask's blocks are
        not written to); else None."""
        if len(batch) != 1 or indexer.drop_axes or self.pipeline.supports_partial_decode:
            return None
        getter, spec, _, _, complete = batch[0]
        if not complete or tuple(spec.shape) != tuple(indexer.shape):
            return None
        raw = getter.get_sync(prototype=spec.prototype)
        if raw is None:
            return None  # (missing: zarr's fill)
        values = np.asarray(self.pipeline.sync_transform.decode_chunk(raw, spec).as_ndarray_like())
        native = self.array._async_array.metadata.dtype.to_native_dtype()
        values = values if values.dtype == native else values.astype(native)
        view = values.view()  # (where a store hands out its own bytes: they stay as stored)
        view.flags.writeable = False
        return view

    def put(self, region: Region, values: Any, write_empty: bool | None = None) -> None:
        """Store ``values`` in ``region`` (slices with steps of 1, one per dimension);
        with ``write_empty`` True or False, the array's ``write_empty_chunks`` taken as
        that for this write."""
        config = self.config
        if write_empty is not None:
            config = replace(config, write_empty_chunks=write_empty)
        indexer, batch = self._batch(region, config)
        if not batch:
            return
        meta = self.array._async_array.metadata
        values = np.asarray(values, dtype=meta.dtype.to_native_dtype())
        buffer = self.prototype.nd_buffer.from_ndarray_like(values)
        self.pipeline.write_sync(batch, buffer, drop_axes=indexer.drop_axes)


def sync_store(store: Any) -> bool:
    """Whether the zarr ``store`` (a ``zarr.abc.store.Store``) has synchronous reads and
    writes that a synchronous pipeline can call."""
    import zarr.abc.store as stores

    capable = getattr(stores, "_store_supports_sync_io", None)  # (zarr-python 3.4)
    return capable is not None and bool(capable(store))


def sync_io(array: Any) -> SyncIO | None:
    """The reads and writes of the zarr ``array`` in the calling thread, where its codec
    pipeline and store have synchronous forms; else None."""
    import zarr.core.codec_pipeline as pipelines
    from zarr.core.buffer import default_buffer_prototype

    fused = getattr(pipelines, "FusedCodecPipeline", None)  # (zarr-python 3.4)
    aa: Any = getattr(array, "_async_array", None)
    pipeline = getattr(aa, "codec_pipeline", None)
    if fused is None or not isinstance(pipeline, fused):
        return None
    if pipeline.sync_transform is None or not sync_store(aa.store_path.store):
        return None
    config = aa.config
    if aa.metadata.zarr_format == 2:
        config = replace(config, order=aa.metadata.order)  # (as zarr reads and writes v2)
    return SyncIO(array, pipeline, default_buffer_prototype(), config)


def _slices(region: Any, ndim: int) -> Region | None:
    if not isinstance(region, tuple) or len(region) != ndim:
        return None
    if not all(isinstance(s, slice) and s.step in (None, 1) for s in region):
        return None
    return region


def read_region(array: Any, region: Any, io: SyncIO | None = None) -> Any:
    """``array[region]``, read in the calling thread where it can be (``io``, or
    :func:`sync_io` of ``array``)."""
    io = io or sync_io(array)
    slices = None if io is None else _slices(region, len(io.array.shape))
    if io is None or slices is None:
        return array[region]
    return io.get(slices)


def write_region(
    array: Any, region: Any, values: Any, write_empty: bool | None = None, io: SyncIO | None = None
) -> None:
    """``array[region] = values``, written in the calling thread where it can be (``io``,
    or :func:`sync_io` of ``array``); with ``write_empty`` True or False, the array's
    ``write_empty_chunks`` taken as that for this write."""
    io = io or sync_io(array)
    slices = None if io is None else _slices(region, len(io.array.shape))
    if io is None or slices is None:
        target = array
        if write_empty is not None and hasattr(array, "with_config"):
            target = array.with_config({"write_empty_chunks": write_empty})
        target[region] = values
        return
    io.put(slices, values, write_empty)


class SyncReads:
    """A zarr array as dask reads it (``dask.array.from_array``): each block read in the
    calling thread where it can be (:func:`read_region`)."""

    def __init__(self, array: Any) -> None:
        self.array = array
        self.shape = tuple(array.shape)
        self.dtype = np.dtype(array.dtype)
        self.ndim = len(self.shape)

    def __getitem__(self, region: Any) -> Any:
        return read_region(self.array, region)


class InPlaceStore(LocalStore):
    """zarr's ``LocalStore`` of a new directory that one write fills, and that is removed
    unless the write completes (:func:`daskpad.store.places.locations.held_locally`): an
    object written in the calling thread (``set_sync``, as :class:`SyncIO` writes) goes
    straight to its file, where zarr writes a temporary file, renames it and makes its
    folder again for every object. A file cut short by a crash is then possible, and
    harmless: the directory is removed, or never opens (its metadata is written last).
    zarr's asynchronous writes are its own."""

    def set_sync(self, key: str, value: Any) -> None:
        opened = getattr(self, "_ensure_open_sync", None)  # (zarr-python 3.4)
        if opened is not None:
            opened()
        self._check_writable()
        path = os.path.join(self.root, key)
        view = memoryview(value.as_buffer_like()).cast("B")
        try:
            fd = os.open(path, _NEW_FILE, 0o666)
        except FileNotFoundError:  # (the first object of its folder)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd = os.open(path, _NEW_FILE, 0o666)
        try:
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)


_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
