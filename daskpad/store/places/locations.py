"""Where stores live: local paths and fsspec URLs (``s3://``, ``gs://``, ``file://``, ...).

A :class:`Location` is what the user named, resolved once: a local path, or a filesystem
and a path within it, with the storage options (credentials, endpoint) that reach it. The
writers and the command ask a location whether it exists, what it holds and how to store
into it; nothing else in daskpad speaks to fsspec.

Writing a new store so that nothing half-written ever opens:

- a local path is written under a hidden temporary name and renamed into place
  (:func:`daskpad.store.places.commit.written_whole`), through a :class:`HeldRoot` too
  (:func:`held_locally`), so that a killed write's temporary directory does not open;
- an object store has no rename, so the store is written in place through
  :class:`HeldRoot`, which keeps every metadata document (of the root, its groups and
  arrays) in memory while the chunks go to the store, and writes them last, the root's
  last of all (:func:`written_in_place`): until then nothing in the store opens, neither
  with zarr nor with xarray, and a failed or interrupted write removes what it wrote.
  A marker key, :data:`INCOMPLETE`, is there from the first write until the last, so
  the remains of a killed write are recognised as such.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from daskpad._compat.libraries import buffer_prototype, put_documents
from daskpad._compat.zarr_io import InPlaceStore

#: daskpad's extra that installs an object-store protocol's driver (fsspec's own message
#: names the package)
DRIVER_EXTRAS: dict[str, str] = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs"}

#: the names of zarr's metadata documents (v3; v2 group, attributes, array,
#: consolidated), at the top of a store and of each group and array in it
METADATA_DOCS = ("zarr.json", ".zgroup", ".zattrs", ".zarray", ".zmetadata")
#: the documents that make a store a zarr group or array
ZARR_MARKERS = ("zarr.json", ".zgroup", ".zarray")
#: the key a store being written in place holds until its metadata is all written
INCOMPLETE = ".daskpad-incomplete"


class StoreError(Exception):
    """A location that cannot be used; the message names it and says why."""


def is_url(text: str) -> bool:
    """Whether ``text`` names a store by URL (``s3://...``, ``file://...``,
    ``simplecache::s3://...``) rather than by local path."""
    return "://" in text


@dataclass(frozen=True)
class Location:
    """A store or file, local or in object storage.

    ``path`` is the path within ``fs`` (no protocol); ``fs`` is None for a local path, whose
    ``path`` is then the path as given (see :attr:`local_path`).
    """

    text: str
    path: str
    fs: Any = field(default=None, repr=False, compare=False)
    options: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def local(self) -> bool:
        return self.fs is None

    @property
    def local_path(self) -> Path:
        assert self.local
        return Path(self.path)

    @property
    def protocol(self) -> str:
        if self.local:
            return "file"
        p = self.fs.protocol
        return str(p if isinstance(p, str) else p[0])

    def __str__(self) -> str:
        return self.text

    def key(self, name: str) -> str:
        return f"{self.path}/{name}"

    def exists(self) -> bool:
        """Whether anything is there (for an object store: any key under the prefix)."""
        if self.local:
            return self.local_path.exists() or self.local_path.is_symlink()
        return bool(self.fs.exists(self.path))

    def is_file(self) -> bool:
        return self.local_path.is_file() if self.local else bool(self.fs.isfile(self.path))

    def has(self, name: str) -> bool:
        """Whether the document ``name`` lies directly in this location."""
        if self.local:
            return (self.local_path / name).is_file()
        return bool(self.fs.isfile(self.key(name)))

    def read(self, name: str | None = None, size: int | None = None) -> bytes:
        """The bytes of the document ``name`` in this location (or of the file itself)."""
        if self.local:
            p = self.local_path / name if name else self.local_path
            with open(p, "rb") as f:
                return f.read() if size is None else f.read(size)
        where = self.key(name) if name else self.path
        end = None if size is None else size
        return bytes(self.fs.cat_file(where, start=0 if end else None, end=end))

    def is_empty(self) -> bool:
        """Whether there is nothing under the location (a missing one is empty)."""
        if self.local:
            p = self.local_path
            return not p.exists() or (p.is_dir() and not any(p.iterdir()))
        self.fs.invalidate_cache()
        return not self.fs.exists(self.path) or not self.fs.find(self.path)

    def looks_like_zarr(self) -> bool:
        """A zarr group or array at the top, or the remains of a write in place that was
        killed before its metadata was written (:data:`INCOMPLETE`)."""
        return any(self.has(m) for m in (*ZARR_MARKERS, INCOMPLETE))

    @property
    def is_root(self) -> bool:
        """An object store's bucket (or container) itself, not a prefix in it."""
        return not self.local and "/" not in self.path.strip("/")

    def identity(self) -> tuple[str, str]:
        """``(protocol, path)`` naming where the bytes are: a chained URL
        (``simplecache::s3://...``) by its innermost filesystem, a local path resolved."""
        if self.local:
            return "file", str(self.local_path.resolve())
        inner = self.text.split("::")[-1]
        protocol, _, path = inner.rpartition("://")
        protocol = {"s3a": "s3", "gcs": "gs", "abfss": "abfs"}.get(protocol, protocol)
        if protocol in ("", "file", "local"):
            return "file", str(Path(path).resolve())
        return protocol, path.strip("/")

    def same_or_within(self, other: Location) -> bool:
        """Whether this location is ``other`` or lies under it (where the bytes are)."""
        (p, inner), (q, outer) = self.identity(), other.identity()
        if p != q:
            return False
        if p == "file":
            here, there = Path(inner), Path(outer)
            return here == there or there in here.parents
        return inner == outer or inner.startswith(outer + "/")

    def remove(self) -> None:
        """Delete what is under the location. In an object store, the keys found there
        are deleted one by one: never the bucket, never a directory marker above them.
        Raises what the deletion raises; what could not be deleted stays."""
        if self.local:
            import shutil

            shutil.rmtree(self.local_path, ignore_errors=True)
            return
        self.fs.invalidate_cache()
        found = [k for k in self.fs.find(self.path) if k.strip("/") != self.path.strip("/")]
        if found:
            self.fs.rm(found)

    def size(self) -> int:
        """Bytes stored under the location."""
        if self.local:
            return _tree_bytes(str(self.local_path))
        return int(self.fs.du(self.path, total=True))

    def zarr_store(self, read_only: bool = False) -> Any:
        """What zarr and xarray open: the path for a local location, else a zarr
        ``FsspecStore`` carrying the storage options (they travel with it to the workers of
        a cluster)."""
        if self.local:
            return self.local_path
        from zarr.storage import FsspecStore

        return FsspecStore.from_url(
            self.fs.unstrip_protocol(self.path),
            storage_options=dict(self.options),
            read_only=read_only,
        )


def _tree_bytes(root: str) -> int:
    """Bytes in the files under the local folder ``root`` (one stat per file); 0 where
    there is no folder."""
    if not os.path.isdir(root):
        return 0
    total, folders = 0, [root]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    folders.append(e.path)
                elif e.is_file():
                    total += e.stat().st_size
    return total


def locate(text: str, options: Mapping[str, Any] | None = None, what: str = "") -> Location:
    """The location ``text`` names: a local path, ``file://`` path or fsspec URL, reached
    with the storage ``options`` (URLs only). A missing driver package is named."""
    prefix = f"{what} {text!r}: " if what else f"{text!r}: "
    if not is_url(text):
        return Location(text, text)
    if text.startswith("file://") and "::" not in text:
        return Location(text, text[len("file://") :])
    import fsspec

    protocol = text.split("::")[-1].split("://")[0]
    try:
        # a filesystem of its own: no listings cached by an earlier use of the same URL
        fs, path = fsspec.core.url_to_fs(text, skip_instance_cache=True, **dict(options or {}))
    except ImportError as e:
        extra = DRIVER_EXTRAS.get(protocol)
        how = f" (pip install 'daskpad[{extra}]')" if extra else ""
        raise StoreError(f"{prefix}{protocol}://: {e}{how}") from e
    except (ValueError, TypeError) as e:
        raise StoreError(f"{prefix}{e}") from e
    if type(fs).__name__ == "LocalFileSystem":
        return Location(text, path)
    return Location(text, str(path).rstrip("/"), fs, dict(options or {}))


def parse_option(text: str) -> tuple[list[str], Any]:
    """``"KEY=VALUE"`` -> ``(key path, value)``: dots in KEY nest (``client_kwargs.region_name``),
    VALUE is read as JSON where it is JSON (``true``, ``3``, ``{"a": 1}``), else as text.

    >>> parse_option("anon=true")
    (['anon'], True)
    >>> parse_option("client_kwargs.endpoint_url=http://127.0.0.1:5000")
    (['client_kwargs', 'endpoint_url'], 'http://127.0.0.1:5000')
    """
    import json

    key, sep, value = text.partition("=")
    parts = key.strip().split(".")
    if not sep or not all(p.strip() for p in parts):
        raise ValueError(f"expected KEY=VALUE, got {text!r}")
    try:
        parsed: Any = json.loads(value)
    except ValueError:
        parsed = value
    return [p.strip() for p in parts], parsed


def storage_options(texts: Iterable[str]) -> dict[str, Any]:
    """The storage options given as ``KEY=VALUE`` texts, nested at the dots.

    >>> storage_options(["key=a", "client_kwargs.region_name=eu-west-1"])
    {'key': 'a', 'client_kwargs': {'region_name': 'eu-west-1'}}
    """
    out: dict[str, Any] = {}
    for text in texts:
        path, value = parse_option(text)
        at = out
        for part in path[:-1]:
            nxt = at.setdefault(part, {})
            if not isinstance(nxt, dict):
                raise ValueError(f"{text!r}: {part!r} is already given a value")
            at = nxt
        at[path[-1]] = value
    return out


# --------------------------------------------------------------------------------------
# Writing in place, root metadata last
# --------------------------------------------------------------------------------------
try:
    from zarr.storage import WrapperStore as _WrapperStore
except ImportError:  # zarr 2: object stores are written by zarr 3 only
    _WrapperStore = object  # type: ignore[assignment,misc]


class HeldRoot(_WrapperStore):  # type: ignore[type-arg]
    """A zarr store that keeps every metadata document (:data:`METADATA_DOCS`, of the
    root and of each group and array) in memory and passes the chunks to the wrapped
    store: nothing in it opens until :meth:`publish` writes them, the root's last.

    Shared by the copies zarr makes of it (``with_read_only``), and pickled with what it
    holds (the workers of a cluster write chunks through arrays they already know).
    """

    def __init__(self, store: Any, held: dict[str, bytes] | None = None) -> None:
        super().__init__(store)
        self._held: dict[str, bytes] = {} if held is None else held

    @staticmethod
    def holds(key: str) -> bool:
        return key.rpartition("/")[2] in METADATA_DOCS

    def _with_store(self, store: Any) -> HeldRoot:
        return type(self)(store, self._held)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._store, dict(self._held)))

    def __eq__(self, value: object) -> bool:
        return isinstance(value, HeldRoot) and self._store == value._store

    __hash__ = None  # type: ignore[assignment]

    async def get(self, key: str, prototype: Any, byte_range: Any = None) -> Any:
        if not self.holds(key):
            return await self._store.get(key, prototype, byte_range)
        return self._held_value(key, prototype, byte_range)

    def _held_value(self, key: str, prototype: Any, byte_range: Any) -> Any:
        if key not in self._held:
            return None
        data = self._held[key]
        if byte_range is not None:
            from zarr.abc.store import OffsetByteRequest, RangeByteRequest, SuffixByteRequest

            if isinstance(byte_range, RangeByteRequest):
                data = data[byte_range.start : byte_range.end]
            elif isinstance(byte_range, OffsetByteRequest):
                data = data[byte_range.offset :]
            elif isinstance(byte_range, SuffixByteRequest):
                data = data[-byte_range.suffix :] if byte_range.suffix else b""
        return prototype.buffer.from_bytes(data)

    async def _get_many(self, requests: Iterable[tuple[str, Any, Any]]) -> Any:
        for key, prototype, byte_range in requests:
            yield key, await self.get(key, prototype, byte_range)

    async def get_partial_values(
        self, prototype: Any, key_ranges: Iterable[tuple[str, Any]]
    ) -> list[Any]:
        return [await self.get(key, prototype, r) for key, r in key_ranges]

    async def exists(self, key: str) -> bool:
        if self.holds(key):
            return key in self._held
        return bool(await self._store.exists(key))

    def _hold(self, key: str, value: Any) -> None:
        """Write ``value`` under the held ``key``, in memory until the commit."""
        self._check_writable()
        self._held[key] = value.to_bytes()

    def _drop(self, key: str) -> None:
        """Remove the held ``key`` (nothing where it was never written)."""
        self._check_writable()
        self._held.pop(key, None)

    async def set(self, key: str, value: Any) -> None:
        if self.holds(key):
            self._hold(key, value)
        else:
            await self._store.set(key, value)

    def get_sync(self, key: str, *, prototype: Any = None, byte_range: Any = None) -> Any:
        if not self.holds(key):
            return self._store.get_sync(key, prototype=prototype, byte_range=byte_range)
        return self._held_value(key, prototype or buffer_prototype(), byte_range)

    def set_sync(self, key: str, value: Any) -> None:
        if self.holds(key):
            self._hold(key, value)
        else:
            self._store.set_sync(key, value)

    def delete_sync(self, key: str) -> None:
        if self.holds(key):
            self._drop(key)
        else:
            self._store.delete_sync(key)

    async def set_if_not_exists(self, key: str, value: Any) -> None:
        if self.holds(key):
            self._check_writable()
            self._held.setdefault(key, value.to_bytes())
            return
        await self._store.set_if_not_exists(key, value)

    async def _set_many(self, values: Iterable[tuple[str, Any]]) -> None:
        for key, value in values:
            await self.set(key, value)

    async def delete(self, key: str) -> None:
        if self.holds(key):
            self._drop(key)
        else:
            await self._store.delete(key)

    async def delete_dir(self, prefix: str) -> None:
        self._check_writable()
        under = prefix.rstrip("/") + "/" if prefix.strip("/") else ""
        for key in [k for k in self._held if k.startswith(under)]:
            del self._held[key]
        await self._store.delete_dir(prefix)

    async def clear(self) -> None:
        self._held.clear()
        await self._store.clear()

    async def is_empty(self, prefix: str) -> bool:
        under = prefix.rstrip("/") + "/" if prefix.strip("/") else ""
        if any(k.startswith(under) for k in self._held):
            return False
        async for _ in self.list_prefix(under):
            return False
        return True

    async def _merged(self, listing: AsyncIterator[str], extra: Iterable[str]) -> Any:
        seen = {INCOMPLETE}  # (written_in_place's marker is not the store's)
        async for key in listing:
            if key in seen:
                continue
            seen.add(key)
            yield key
        for key in extra:
            if key not in seen:
                seen.add(key)
                yield key

    def list(self) -> Any:
        return self._merged(self._store.list(), sorted(self._held))

    def list_prefix(self, prefix: str) -> Any:
        held = sorted(k for k in self._held if k.startswith(prefix))
        return self._merged(self._store.list_prefix(prefix), held)

    def list_dir(self, prefix: str) -> Any:
        under = prefix.rstrip("/") + "/" if prefix.strip("/") else ""
        # the direct children the held documents imply (an array with no chunk yet)
        held = sorted(
            {k[len(under) :].partition("/")[0] for k in self._held if k.startswith(under)}
        )
        return self._merged(self._store.list_dir(prefix), held)

    def publish(self) -> None:
        """Write the held documents to the wrapped store: those of groups and arrays
        first, the root's last (attributes before the group or array document), so that
        the store opens only once everything else is there."""

        def rank(key: str) -> tuple[int, int]:
            return ("/" not in key, key in ZARR_MARKERS or key == ".zmetadata")

        held = sorted(self._held, key=rank)
        put_documents(self._store, [(key, self._held[key]) for key in held])
        self._held.clear()


def held_locally(path: Path) -> HeldRoot:
    """A :class:`HeldRoot` over a new zarr store in the local directory ``path`` (made
    here): its chunks go to disk as they are written, its metadata documents when
    :meth:`HeldRoot.publish` is called; written in place, the directory being removed
    unless the write completes (:class:`daskpad._compat.zarr_io.InPlaceStore`)."""
    path.mkdir()
    return HeldRoot(InPlaceStore(path))


@contextlib.contextmanager
def written_in_place(location: Location, replace: bool) -> Iterator[HeldRoot]:
    """Write a new zarr store at the object-store ``location``, through the
    :class:`HeldRoot` this yields: its metadata is written when the block succeeds, and
    everything under the location is removed when it fails or is interrupted.

    An existing store there is refused, or with ``replace`` deleted first: not atomic, the
    old store is gone before the new one is complete. A bucket itself is refused: daskpad
    writes into a prefix of its own, which it may delete.

    (A computation on a dask.distributed cluster whose tasks are still running when the
    block fails may write chunks after the removal; they do not open, having no metadata.)
    """
    if location.is_root:
        raise ValueError(
            f"{location.text!r} is a bucket, not a store in it: write to a prefix such as "
            f"{location.text.rstrip('/')}/out.zarr"
        )
    if not location.is_empty():
        if not replace:
            raise FileExistsError(
                f"{location.text!r} exists; pass mode='w' (overwrite=True) to replace it"
            )
        location.remove()
    location.fs.pipe_file(location.key(INCOMPLETE), b"")
    store = HeldRoot(location.zarr_store())
    try:
        yield store
        store.publish()
        location.fs.rm_file(location.key(INCOMPLETE))
    except BaseException:
        try:
            location.remove()
        except Exception as e:  # the write's own error matters more: say what is left
            import warnings

            warnings.warn(
                f"could not remove what was written to {location.text!r} ({e}); it does not "
                "open as a store, delete it yourself",
                stacklevel=3,
            )
        raise
