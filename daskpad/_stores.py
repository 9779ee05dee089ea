"""Where stores live: local paths and fsspec URLs (``s3://``, ``gs://``, ``file://``, ...).

A :class:`Location` is what the user named, resolved once: a local path, or a filesystem
and a path within it, with the storage options (credentials, endpoint) that reach it. The
writers and the command ask a location whether it exists, what it holds and how to store
into it; nothing else in daskpad speaks to fsspec.

Writing a new store so that nothing half-written ever opens:

- a local path is written under a hidden temporary name and renamed into place
  (:func:`daskpad._tiles.written_whole`);
- an object store has no rename, so the store is written in place through
  :class:`HeldRoot`, which keeps the root metadata documents in memory while the arrays and
  their chunks go to the store, and writes them last (:func:`written_in_place`): until
  then the store has no root group or array, so neither zarr nor xarray opens it, and a
  failed or interrupted write removes what it wrote.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: the package an object-store protocol needs, and daskpad's extra that installs it
DRIVERS: dict[str, tuple[str, str | None]] = {
    "s3": ("s3fs", "s3"),
    "s3a": ("s3fs", "s3"),
    "gs": ("gcsfs", "gcs"),
    "gcs": ("gcsfs", "gcs"),
    "az": ("adlfs", None),
    "abfs": ("adlfs", None),
    "abfss": ("adlfs", None),
}

#: the metadata documents at the top of a zarr store (v3; v2 group, attributes, array,
#: consolidated): while none is there, nothing opens the store
ROOT_DOCS = ("zarr.json", ".zgroup", ".zattrs", ".zarray", ".zmetadata")
#: the documents that make a store a zarr group or array
ZARR_MARKERS = ("zarr.json", ".zgroup", ".zarray")


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
        return not self.fs.exists(self.path) or not self.fs.find(self.path, maxdepth=None)

    def looks_like_zarr(self) -> bool:
        """A zarr group or array at the top, or the remains of a write that never got its
        root metadata: zarr arrays one level down."""
        if any(self.has(m) for m in ZARR_MARKERS):
            return True
        if self.local:
            return False
        children = self.fs.ls(self.path, detail=False) if self.fs.isdir(self.path) else []
        return any(self.fs.isfile(f"{c}/{m}") for c in children for m in ZARR_MARKERS)

    def same_or_within(self, other: Location) -> bool:
        """Whether this location is ``other`` or lies under it (same filesystem only)."""
        if self.local != other.local:
            return False
        if self.local:
            here, there = self.local_path.resolve(), other.local_path.resolve()
            return here == there or there in here.parents
        if self.protocol != other.protocol:
            return False
        inner, outer = self.path.rstrip("/"), other.path.rstrip("/")
        return inner == outer or inner.startswith(outer + "/")

    def remove(self) -> None:
        """Delete everything under the location; what cannot be deleted is left."""
        if self.local:
            import shutil

            shutil.rmtree(self.local_path, ignore_errors=True)
            return
        with contextlib.suppress(FileNotFoundError):
            self.fs.rm(self.path, recursive=True)

    def size(self) -> int:
        """Bytes stored under the location."""
        if self.local:
            return sum(p.stat().st_size for p in self.local_path.rglob("*") if p.is_file())
        return int(self.fs.du(self.path, total=True))

    def zarr_store(self, read_only: bool = False) -> Any:
        """What zarr and xarray open: the path for a local location, else a zarr
        ``FsspecStore`` carrying the storage options (they travel with it to the workers of
        a cluster)."""
        if self.local:
            return self.path
        from zarr.storage import FsspecStore

        return FsspecStore.from_url(
            self.fs.unstrip_protocol(self.path),
            storage_options=dict(self.options),
            read_only=read_only,
        )


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
        package, extra = DRIVERS.get(protocol, (None, None))
        if package is None:
            raise StoreError(f"{prefix}{protocol}:// needs a package that is missing ({e})") from e
        how = f"pip install 'daskpad[{extra}]'" if extra else f"pip install {package}"
        raise StoreError(f"{prefix}{protocol}:// needs the {package} package ({how})") from e
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


class HeldRoot(_WrapperStore):
    """A zarr store that keeps its root metadata documents (:data:`ROOT_DOCS`) in memory
    and passes every other key to the wrapped store: the arrays' metadata and chunks are
    written, but the store opens as a group or array only after :meth:`publish`.

    Shared by the copies zarr makes of it (``with_read_only``), and pickled with what it
    holds, so a worker that reads the root sees what the client wrote.
    """

    def __init__(self, store: Any, held: dict[str, bytes] | None = None) -> None:
        super().__init__(store)
        self._held: dict[str, bytes] = {} if held is None else held

    def _with_store(self, store: Any) -> HeldRoot:
        return type(self)(store, self._held)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._store, dict(self._held)))

    def __eq__(self, value: object) -> bool:
        return isinstance(value, HeldRoot) and self._store == value._store

    __hash__ = None  # type: ignore[assignment]

    async def get(self, key: str, prototype: Any, byte_range: Any = None) -> Any:
        if key in ROOT_DOCS:
            if key not in self._held:
                return None
            data = self._held[key]
            if byte_range is not None:
                start = getattr(byte_range, "start", None) or 0
                end = getattr(byte_range, "end", None)
                data = data[start:end]
            return prototype.buffer.from_bytes(data)
        return await self._store.get(key, prototype, byte_range)

    async def _get_many(self, requests: Iterable[tuple[str, Any, Any]]) -> Any:
        for key, prototype, byte_range in requests:
            yield key, await self.get(key, prototype, byte_range)

    async def get_partial_values(
        self, prototype: Any, key_ranges: Iterable[tuple[str, Any]]
    ) -> list[Any]:
        return [await self.get(key, prototype, r) for key, r in key_ranges]

    async def exists(self, key: str) -> bool:
        if key in ROOT_DOCS:
            return key in self._held
        return bool(await self._store.exists(key))

    async def set(self, key: str, value: Any) -> None:
        if key in ROOT_DOCS:
            self._held[key] = value.to_bytes()
            return
        await self._store.set(key, value)

    async def set_if_not_exists(self, key: str, value: Any) -> None:
        if key in ROOT_DOCS:
            self._held.setdefault(key, value.to_bytes())
            return
        await self._store.set_if_not_exists(key, value)

    async def _set_many(self, values: Iterable[tuple[str, Any]]) -> None:
        for key, value in values:
            await self.set(key, value)

    async def delete(self, key: str) -> None:
        if key in ROOT_DOCS:
            self._held.pop(key, None)
            return
        await self._store.delete(key)

    async def is_empty(self, prefix: str) -> bool:
        if not prefix and self._held:
            return False
        return bool(await self._store.is_empty(prefix))

    async def _listed(self, listing: AsyncIterator[str], extra: Iterable[str]) -> Any:
        seen = set()
        async for key in listing:
            if key not in ROOT_DOCS:
                seen.add(key)
                yield key
        for key in extra:
            if key not in seen:
                yield key

    def list(self) -> Any:
        return self._listed(self._store.list(), sorted(self._held))

    def list_prefix(self, prefix: str) -> Any:
        return self._listed(
            self._store.list_prefix(prefix),
            [k for k in sorted(self._held) if k.startswith(prefix)],
        )

    def list_dir(self, prefix: str) -> Any:
        return self._listed(
            self._store.list_dir(prefix), sorted(self._held) if prefix in ("", "/") else []
        )

    def publish(self) -> None:
        """Write the held documents to the wrapped store: the store opens from now on."""
        from zarr.core.buffer import default_buffer_prototype
        from zarr.core.sync import sync

        proto = default_buffer_prototype()
        # the group or array document last: a store with attributes alone does not open
        order = sorted(self._held, key=lambda k: k in ZARR_MARKERS)
        for key in order:
            sync(self._store.set(key, proto.buffer.from_bytes(self._held[key])))
        self._held.clear()


@contextlib.contextmanager
def written_in_place(location: Location, replace: bool) -> Iterator[HeldRoot]:
    """Write a new zarr store at the object-store ``location``, through the
    :class:`HeldRoot` this yields: its root metadata is written when the block succeeds,
    and everything under the location is removed when it fails or is interrupted.

    An existing store there is refused, or with ``replace`` deleted first: not atomic, the
    old store is gone before the new one is complete.
    """
    if not location.is_empty():
        if not replace:
            raise FileExistsError(
                f"{location.text!r} exists; pass mode='w' (overwrite=True) to replace it"
            )
        location.remove()
    store = HeldRoot(location.zarr_store())
    try:
        yield store
        store.publish()
    except BaseException:
        location.remove()
        raise
