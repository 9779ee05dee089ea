"""Zarr stores the command tests write and read (tests/cli): small lat-lon stores, plain
and sharded; what a store's metadata says (its ``zarr.json``, rectilinear chunk shapes
spelled out); the chunks zarr reads; the mark for tests that need rectilinear grids."""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
zarr = pytest.importorskip("zarr")

from daskpad._compat.libraries import rectilinear_support  # noqa: E402

NEEDS = pytest.mark.skipif(
    rectilinear_support() is not None, reason="rectilinear grids need zarr-python >= 3.2"
)

SHAPE, SHARDS, INNER = (40, 47), (8, 10), (4, 5)  # lon's last shard: 7, not whole chunks


def zarr_json(path: Path) -> dict:
    """The metadata document (``zarr.json``) of the zarr v3 group or array at ``path``."""
    return json.loads((path / "zarr.json").read_text())


def opened(path: Path) -> xr.Dataset:
    """The dataset at ``path``, loaded, with zarr reading rectilinear chunk grids."""
    with zarr.config.set({"array.rectilinear_chunks": True}):
        return xr.open_zarr(path).load()


def widths_of(args: list[str]) -> dict[str, tuple[int, int]]:
    """The ``--width`` options of a command line: ``{dim: (before, after)}``."""
    out = {}
    for flag, value in itertools.pairwise(args):
        if flag == "--width":
            dim, _, w = value.partition("=")
            b, _, a = w.partition(":")
            out[dim] = (int(b), int(a or b))
    return out


def input_chunks(n: int, c: int) -> tuple[int, ...]:
    """The chunks of an axis ``n`` long in chunks of ``c``, the last one partial."""
    return (c,) * (n // c) + ((n % c,) if n % c else ())


def rectilinear_axis(n: int, c: int, before: int, after: int) -> tuple[tuple[int, ...], int, int]:
    """Along an axis of SRC ``n`` long in chunks of ``c``, padded by ``before`` and
    ``after``: DST's rectilinear chunks as the docs state them (the pad before in pieces of
    ``c`` at most, the shorter outermost; SRC's chunks, a partial last one declared whole
    where no pad follows it; a partial last chunk and the pad after it as one stretch in
    pieces of ``c``, the shorter outermost), the index of SRC's first chunk in DST, and how
    many of SRC's chunks DST holds as they are stored."""

    def cut(width: int, outer_first: bool) -> tuple[int, ...]:
        whole, rest = divmod(width, c)
        short = (rest,) if rest else ()
        return short + (c,) * whole if outer_first else (c,) * whole + short

    ahead, inside, rest = cut(before, True), (c,) * (n // c), n % c
    if rest and after:
        return ahead + inside + cut(rest + after, False), len(ahead), n // c
    last = (c,) if rest else ()  # (declared whole, past the end)
    return ahead + inside + last + cut(after, False), len(ahead), -(-n // c)


def expanded_shapes(shapes: list) -> list[list[int]]:
    """Rectilinear chunk shapes with zarr's run-length pairs ``[size, count]`` spelled out."""
    out = []
    for axis in shapes:
        if isinstance(axis, int):
            out.append([axis])
            continue
        sizes: list[int] = []
        for item in axis:
            sizes += [item[0]] * item[1] if isinstance(item, list) else [item]
        out.append(sizes)
    return out


def lat_lon_store(path: Path, shape: tuple[int, int], encoding: dict[str, Any], seed: int) -> Path:
    """A zarr v3 store at ``path`` of one float32 array ``t`` (lat, lon) of random values,
    stored with ``encoding`` (its chunks, shards)."""
    values = np.random.default_rng(seed).normal(size=shape).astype("float32")
    ds = xr.Dataset(
        {"t": (("lat", "lon"), values)},
        coords={"lat": np.arange(shape[0]) * 1.0, "lon": np.arange(shape[1]) * 2.0},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zarr's note on consolidated metadata in v3)
        ds.to_zarr(path, zarr_format=3, encoding={"t": encoding})
    return path


def sharded_store(path: Path) -> Path:
    """A zarr v3 store of one sharded float32 array ``t`` at ``path``."""
    return lat_lon_store(path, SHAPE, {"chunks": INNER, "shards": SHARDS}, seed=2)


def counted_reads(monkeypatch, src: Path, counts: Callable[[str], bool]) -> list[str]:
    """The keys of the local zarr store at ``src`` that zarr reads while the test runs,
    those ``counts`` takes: by the async calls of zarr's default codec pipeline and the
    synchronous ones of its fused pipeline (zarr-python 3.4), which the command uses
    where it can."""
    from zarr.storage import LocalStore

    keys: list[str] = []
    get, get_sync = LocalStore.get, LocalStore.get_sync

    def counted(key: str, root: object) -> None:
        if Path(str(root)) == src and counts(key):
            keys.append(key)

    async def counted_get(self, key, *args, **kwargs):
        counted(key, self.root)
        return await get(self, key, *args, **kwargs)

    def counted_get_sync(self, key, *args, **kwargs):
        counted(key, self.root)
        return get_sync(self, key, *args, **kwargs)

    monkeypatch.setattr(LocalStore, "get", counted_get)
    monkeypatch.setattr(LocalStore, "get_sync", counted_get_sync)
    return keys


def chunk_reads(monkeypatch, src: Path) -> tuple[list[str], list[int]]:
    """The chunk keys of ``src``'s variable t read through zarr, and a count of the
    chunks zarr's zstd codec decodes."""
    from zarr.codecs import ZstdCodec

    keys = counted_reads(monkeypatch, src, lambda key: key.startswith("t/c/"))
    decoded = [0]
    decode = ZstdCodec._decode_sync  # (the async decode runs it in a thread)

    def counted_decode(self, *args, **kwargs):
        decoded[0] += 1
        return decode(self, *args, **kwargs)

    monkeypatch.setattr(ZstdCodec, "_decode_sync", counted_decode)
    return keys, decoded
