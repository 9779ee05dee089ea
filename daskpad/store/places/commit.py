"""The commit protocol: a new store opens only once it is complete, and a failed or
interrupted write leaves nothing that opens.

One context manager, :func:`written_whole`, says where to write and commits on the way out.
:func:`daskpad.to_zarr`, :func:`daskpad.xarray.to_zarr` and the command all write through
it:

- a local path (or ``file://`` URL): a hidden temporary sibling (same filesystem, so a
  rename moves it), written through a :class:`~daskpad.store.places.locations.HeldRoot` whose
  metadata documents go to disk only when the block succeeds (so a run killed before that
  leaves chunks that open neither with zarr nor with xarray), then moved into place,
  replacing an existing store only when asked and only after the new one is in place
  (:func:`commit`); removed when the block fails;
- an fsspec URL (``s3://``, ``gs://``, ...): the store itself, its root metadata held back
  until the block succeeds and everything removed when it fails
  (:func:`daskpad.store.places.locations.written_in_place`; replacing deletes the old store
  first: an object store has no rename);
- any other store (a zarr store object): as it is.

While the block runs, the computation is fenced (by default :func:`own_threads`), so that
no task still running writes into a temporary store after it is removed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import warnings
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import dask

from daskpad.store.places.locations import Location, held_locally, is_url, locate, written_in_place

#: what a temporary or old store next to DST is called: ``.DST.daskpad-<what>-<pid>-<hex>``
SIBLING = ".{name}.daskpad-"


class ReplacedWarning(UserWarning):
    """DST was replaced, but the old copy stayed behind."""


def local_threads() -> int:
    """The threads dask's threaded scheduler runs: its ``num_workers`` setting, else the
    machine's cores."""
    return int(dask.config.get("num_workers", None) or os.cpu_count() or 1)


@contextlib.contextmanager
def own_threads() -> Iterator[None]:
    """While the block runs, dask's threaded scheduler uses a pool of threads of its own
    (otherwise it shares one module-wide pool): on the way out, after a failure or an
    interruption too, queued tasks are cancelled and those already running are waited
    for, so that none writes into a temporary store after it is removed."""
    pool = ThreadPoolExecutor(local_threads())
    try:
        with dask.config.set(pool=pool):
            yield
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def temporary_sibling(dst: Path, what: str) -> Path:
    """A hidden, unique path next to ``dst``: same filesystem, so a rename moves it."""
    prefix = SIBLING.format(name=dst.name)
    return dst.parent / f"{prefix}{what}-{os.getpid()}-{secrets.token_hex(3)}"


def leftovers(dst: Path) -> list[Path]:
    """Temporary stores of earlier runs next to the local ``dst`` (killed before cleaning
    up)."""
    return sorted(dst.parent.glob(SIBLING.format(name=dst.name) + "*"))


def remove_quietly(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def commit(tmp: Path, dst: Path, replace: bool) -> None:
    """Move the complete store ``tmp`` to ``dst``, replacing an existing ``dst`` (only with
    ``replace``) only after the new store is in place. If this is interrupted between its
    two renames, the old store survives under a hidden ``.DST.daskpad-old-*`` name."""
    if not (dst.exists() or dst.is_symlink()):
        os.rename(tmp, dst)
        return
    if not replace:
        raise FileExistsError(
            f"{str(dst)!r} appeared while it was being written; not replacing it"
        )
    old = temporary_sibling(dst, "old")
    os.rename(dst, old)
    try:
        os.rename(tmp, dst)
    except BaseException:
        os.rename(old, dst)
        raise
    try:
        shutil.rmtree(old)
    except OSError as e:  # DST is replaced all the same: say so, and what is left where
        warnings.warn(
            f"{str(dst)!r} was replaced, but its old copy could not be removed ({e}); "
            f"delete {str(old)!r}",
            ReplacedWarning,
            stacklevel=2,
        )


@contextlib.contextmanager
def written_whole(
    store: Any,
    replace: bool,
    storage_options: Mapping[str, Any] | None = None,
    *,
    fence: Callable[[], contextlib.AbstractContextManager[Any]] = own_threads,
    deleting: Callable[[Location], None] | None = None,
) -> Iterator[Any]:
    """Yield where to write a new store at ``store`` (a local path, a URL reached with
    ``storage_options``, a :class:`~daskpad.store.places.locations.Location`, or a zarr store
    object), and commit it when the block succeeds; on any failure or interruption what was
    written is removed. The block runs inside ``fence()``. ``deleting(location)`` is called
    before an existing store in object storage is deleted to be replaced."""
    if isinstance(store, (str, os.PathLike)) and is_url(os.fspath(store)):
        store = locate(os.fspath(store), storage_options)
    if isinstance(store, Location):
        if not store.local:
            if replace and not store.is_empty() and deleting is not None:
                deleting(store)
            with written_in_place(store, replace) as held, fence():
                yield held
            return
        store = store.local_path
    if not isinstance(store, (str, os.PathLike)):
        with fence():
            yield store
        return
    dst = Path(store)
    empty = dst.is_dir() and not dst.is_symlink() and not any(dst.iterdir())
    if not replace and not empty and (dst.exists() or dst.is_symlink()):
        raise FileExistsError(f"{str(dst)!r} exists; pass mode='w' (overwrite=True) to replace it")
    tmp = temporary_sibling(dst, "tmp")
    try:
        # the metadata last, as in an object store: a run killed (SIGKILL) before the
        # commit leaves a temporary directory of chunks that does not open
        held = held_locally(tmp)
        with fence():
            yield held
        held.publish()
        if empty:
            dst.rmdir()  # an empty directory made for the store (tempfile.mkdtemp())
        commit(tmp, dst, replace)
    except BaseException:
        remove_quietly(tmp)
        raise
