"""The names of dask, distributed and zarr outside their documented API that daskpad uses,
each behind a function of its own here, so that a new release that moves one changes this
module alone. distributed and zarr are optional: each is imported when its function runs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from inspect import signature
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    import numpy as np
    import numpy.typing as npt
    from fsspec import AbstractFileSystem
    from zarr.abc.store import Store
    from zarr.core.common import JSON


def minimum_chunks(depth: int, chunks: Sequence[int]) -> tuple[int, ...]:
    """``chunks`` merged so that every chunk is at least ``depth`` long, as dask's
    ``map_overlap`` makes them (``dask.array.overlap.ensure_minimum_chunksize``)."""
    from dask.array.overlap import ensure_minimum_chunksize

    return tuple(ensure_minimum_chunksize(depth, tuple(chunks)))


def split_address(address: str) -> tuple[str, Any]:
    """A dask.distributed address split into its protocol and location, the location into
    host and port for tcp and tls (``distributed.comm.addressing``); ValueError or
    TypeError for a malformed one."""
    from distributed.comm.addressing import parse_address, parse_host_port

    protocol, location = parse_address(address)
    if protocol in ("tcp", "tls"):
        host, port = parse_host_port(location)
        return protocol, (host, port)
    return protocol, location


def put_documents(store: Store, documents: Sequence[tuple[str, bytes]]) -> None:
    """Write ``(key, bytes)`` into the zarr v3 ``store`` in order, synchronously, with
    zarr's default buffer (``zarr.core.buffer``, ``zarr.core.sync``)."""
    from zarr.core.sync import sync

    proto = buffer_prototype()
    for key, data in documents:
        sync(store.set(key, proto.buffer.from_bytes(data)))


def buffer_prototype() -> Any:
    """zarr's default buffer prototype (what a store's reads make their buffers with)."""
    from zarr.core.buffer import default_buffer_prototype

    return default_buffer_prototype()


def get_document(store: Store, key: str) -> bytes | None:
    """The bytes under ``key`` in the zarr ``store``, or None where there are none."""
    from zarr.core.sync import sync

    found = sync(store.get(key, prototype=buffer_prototype()))
    return None if found is None else bytes(found.to_bytes())


def listed(store: Store, prefix: str) -> set[str]:
    """The keys of the zarr ``store`` under ``prefix``, relative to it."""
    from zarr.core.sync import sync

    async def collect() -> set[str]:
        return {key[len(prefix) :] async for key in store.list_prefix(prefix)}

    return sync(collect())


def fsspec_call(fs: AbstractFileSystem, method: str, *args: object, **kwargs: object) -> Any:
    """``fs.method(*args, **kwargs)`` of an fsspec file system. A zarr ``FsspecStore``'s is
    asynchronous, with no loop of its own to run the blocking ``method`` on, and its
    sessions live on zarr's event loop: its coroutine ``_method`` runs there
    (``zarr.core.sync.sync``), called from any other thread."""
    if getattr(fs, "asynchronous", False):
        from zarr.core.sync import sync

        return sync(getattr(fs, f"_{method}")(*args, **kwargs))
    return getattr(fs, method)(*args, **kwargs)


def innermost(store: Store) -> Store:
    """The store a zarr ``WrapperStore`` (or a chain of them) wraps, else ``store``."""
    while hasattr(store, "_store"):  # zarr.storage.WrapperStore keeps it there
        store = store._store
    return store


def local_root(store: Store) -> str | None:
    """The directory of a zarr ``LocalStore``, else None."""
    from zarr.storage import LocalStore

    return str(store.root) if isinstance(store, LocalStore) else None


def fsspec_of(store: Store) -> tuple[AbstractFileSystem, str] | None:
    """The filesystem and root path of a zarr ``FsspecStore``, else None."""
    from zarr.storage import FsspecStore

    return (store.fs, store.path) if isinstance(store, FsspecStore) else None


def rectilinear_support() -> str | None:
    """Why zarr-python cannot write rectilinear chunk grids here (it needs 3.2 or newer,
    which needs Python 3.12 or newer), or None where it can."""
    import sys

    import zarr

    version = tuple(int(p) for p in zarr.__version__.split(".")[:2] if p.isdigit())
    if version >= (3, 2):
        return None
    python = "" if sys.version_info >= (3, 12) else ", which needs Python 3.12 or newer"
    return (
        f"zarr-python {zarr.__version__} has no rectilinear chunk grids: they need "
        f"zarr-python 3.2 or newer{python}"
    )


def rectilinear_grids() -> AbstractContextManager[object]:
    """A context in which zarr reads and writes rectilinear chunk grids (its experimental
    flag ``array.rectilinear_chunks``)."""
    import zarr

    flagged: AbstractContextManager[object] = zarr.config.set({"array.rectilinear_chunks": True})
    return flagged


#: zarr-python's default codec pipeline, and its synchronous one (zarr-python 3.4 or newer)
_BATCHED = "zarr.core.codec_pipeline.BatchedCodecPipeline"
_FUSED = "zarr.core.codec_pipeline.FusedCodecPipeline"


def fused_codecs() -> AbstractContextManager[object]:
    """A context in which the zarr arrays opened or created use zarr-python's synchronous
    codec pipeline (``FusedCodecPipeline``, opt-in since zarr-python 3.4: codecs run in
    bulk on threads, with no coroutine per chunk), where zarr-python has it and the
    process has not chosen another pipeline than the default; else nothing changes. An
    array keeps the pipeline it was opened with."""
    import contextlib

    import zarr
    import zarr.core.codec_pipeline as pipelines

    if not hasattr(pipelines, "FusedCodecPipeline"):
        return contextlib.nullcontext()
    if zarr.config.get("codec_pipeline.path", _BATCHED) != _BATCHED:
        return contextlib.nullcontext()
    fused: AbstractContextManager[object] = zarr.config.set({"codec_pipeline.path": _FUSED})
    return fused


def rectilinear_grid(chunks: Sequence[Sequence[int]]) -> dict[str, JSON]:
    """The zarr v3 ``chunk_grid`` document of a rectilinear grid of ``chunks`` per axis."""
    return {
        "name": "rectilinear",
        "configuration": {
            "kind": "inline",
            "chunk_shapes": [[int(c) for c in cs] for cs in chunks],
        },
    }


def regular_grid(chunk_shape: Sequence[int]) -> dict[str, JSON]:
    """The zarr v3 ``chunk_grid`` document of a regular grid of ``chunk_shape``."""
    return {"name": "regular", "configuration": {"chunk_shape": [int(c) for c in chunk_shape]}}


def set_rectilinear_grids(on: bool) -> bool:
    """Turn zarr's rectilinear chunk grids on or off in this process (a cluster's workers,
    which read and write arrays on such grids); returns whether they were on."""
    import zarr

    was = bool(zarr.config.get("array.rectilinear_chunks", False))
    zarr.config.set({"array.rectilinear_chunks": on})
    return was


def chunk_key_encoder(document: Mapping[str, JSON]) -> Callable[[tuple[int, ...]], str]:
    """The function naming a chunk's key (``(1, 2)`` -> ``"c/1/2"``) by the chunk key
    encoding of the zarr v3 array ``document`` describes (``zarr.core.metadata.v3``)."""
    from zarr.core.metadata.v3 import ArrayV3Metadata

    return cast(
        "Callable[[tuple[int, ...]], str]",
        ArrayV3Metadata.from_dict(dict(document)).encode_chunk_key,
    )


def v3_document_of_v2(zarray: Mapping[str, JSON]) -> dict[str, JSON]:
    """The zarr v3 array document that reads the chunk objects of the zarr v2 array whose
    ``.zarray`` document is ``zarray``, as zarr's own migration writes it
    (``zarr.metadata.migrate_v3``: the v2 chunk keys, a ``bytes`` codec of the dtype's
    byte order, the compressor as its v3 codec), with a concrete fill value: v2's, or
    where v2's is null what zarr reads a missing chunk as (the dtype's default). Raises
    ValueError or TypeError where zarr has no such document."""
    import dataclasses
    import json

    from zarr.core.metadata.v2 import ArrayV2Metadata
    from zarr.metadata.migrate_v3 import _convert_array_metadata

    v2 = ArrayV2Metadata.from_dict(dict(zarray))
    if v2.fill_value is None:  # (zarr.core.chunk_utils.fill_value_or_default)
        v2 = dataclasses.replace(v2, fill_value=cast("Any", v2.dtype.default_scalar()))
    v3 = _convert_array_metadata(v2).to_buffer_dict(buffer_prototype())
    return cast("dict[str, JSON]", json.loads(v3["zarr.json"].to_bytes()))


def zarr_encoded(
    block: npt.ArrayLike, dims: Sequence[Hashable], encoding: Mapping[str, object], name: Hashable
) -> npt.NDArray[np.generic]:
    """The numbers xarray's zarr backend stores for ``block``, a piece of a variable of
    ``dims`` with the CF ``encoding`` its store holds (units, calendar, dtype,
    scale_factor, add_offset, _FillValue; ``xarray.backends.zarr.encode_zarr_variable``,
    what xarray's region writes encode with)."""
    import numpy as np
    import xarray as xr
    from xarray.backends.zarr import encode_zarr_variable

    variable = xr.Variable(tuple(dims), block, encoding=dict(encoding))
    # (xarray 2025.6's is unannotated and takes no zarr_format: it encodes as its own
    # region writes do)
    if "zarr_format" in signature(encode_zarr_variable).parameters:
        encoded = encode_zarr_variable(variable, name=name, zarr_format=3)  # type: ignore[no-untyped-call, call-arg, unused-ignore]
    else:
        encoded = encode_zarr_variable(variable, name=name)  # type: ignore[no-untyped-call, unused-ignore]
    return np.asarray(encoded.values)
