"""The names of dask, distributed and zarr outside their documented API that daskpad uses,
each behind a function of its own here, so that a new release that moves one changes this
module alone. distributed and zarr are optional: each is imported when its function runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


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


def process_memory_limit() -> int | None:
    """The memory this process may use as distributed reads it (the machine's memory, a
    container's cgroup limit, ``RLIMIT_RSS``: ``distributed.system.memory_limit``); None
    without distributed."""
    try:
        from distributed.system import memory_limit
    except ImportError:
        return None
    return int(memory_limit())


def put_documents(store: Any, documents: Sequence[tuple[str, bytes]]) -> None:
    """Write ``(key, bytes)`` into the zarr v3 ``store`` in order, synchronously, with
    zarr's default buffer (``zarr.core.buffer``, ``zarr.core.sync``)."""
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.sync import sync

    proto = default_buffer_prototype()
    for key, data in documents:
        sync(store.set(key, proto.buffer.from_bytes(data)))
