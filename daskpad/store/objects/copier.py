"""Copying stored objects (zarr chunks) from one store to another as bytes, never decoded.

The copy is the stores' own where they have one: a file copy between local directories
(``shutil.copyfile``, which the kernel does without the bytes passing through Python), a
server-side copy within an object store (fsspec's ``copy``: S3's CopyObject, GCS's
rewrite), and otherwise the bytes read and written through zarr's store API. Copies run on
a few threads, so that many small objects, or a cold disk, keep several requests in
flight; a copy stopped (an error, Ctrl-C) finishes the objects in flight and starts no more.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from typing import Any

from daskpad._compat.libraries import (
    fsspec_call,
    fsspec_of,
    get_document,
    innermost,
    listed,
    local_root,
    put_documents,
)
from daskpad.store.stops import acted_on_after

#: objects copied per request batch in an object store, and threads copying
BATCH = 64
THREADS = 4
#: seconds between the looks of a thread waiting for the copies at signals that arrived
WAKE = 0.1


class Copier:
    """Copies keys of the zarr store ``src`` to keys of the zarr store ``dst``."""

    def __init__(self, src: Any, dst: Any):
        self.src, self.dst = innermost(src), innermost(dst)
        self._dst_wrapper = dst  # (writes through any wrapper, e.g. one holding metadata)
        self.src_root, self.dst_root = local_root(self.src), local_root(self.dst)
        a, b = fsspec_of(self.src), fsspec_of(self.dst)
        self.remote: tuple[Any, str, str] | None = None
        if a is not None and b is not None and _same_filesystem(a[0], b[0]):
            self.remote = (a[0], a[1].rstrip("/"), b[1].rstrip("/"))

    @property
    def how(self) -> str:
        """How objects are copied, in words."""
        if self.src_root is not None and self.dst_root is not None:
            return "file copies"
        if self.remote is not None:
            return "copies within the object store"
        return "bytes read and written"

    def copy(
        self,
        pairs: Sequence[tuple[str, str]],
        stop: threading.Event,
        done: Callable[[int], None],
    ) -> None:
        """Copy each ``(source key, target key)``, calling ``done(n)`` after each ``n``
        objects; returns early once ``stop`` is set."""
        if self.src_root is not None and self.dst_root is not None:
            made: set[str] = set()
            for a, b in pairs:
                if stop.is_set():
                    return
                target = os.path.join(self.dst_root, b)
                folder = os.path.dirname(target)
                if folder not in made:
                    os.makedirs(folder, exist_ok=True)
                    made.add(folder)
                copy_file(os.path.join(self.src_root, a), target)
                done(1)
        elif self.remote is not None:
            fs, src_root, dst_root = self.remote
            for i in range(0, len(pairs), BATCH):
                if stop.is_set():
                    return
                batch = pairs[i : i + BATCH]
                sources = [f"{src_root}/{a}" for a, _ in batch]
                fsspec_call(fs, "copy", sources, [f"{dst_root}/{b}" for _, b in batch])
                done(len(batch))
        else:
            for a, b in pairs:
                if stop.is_set():
                    return
                data = get_document(self.src, a)
                if data is not None:
                    put_documents(self._dst_wrapper, [(b, data)])
                done(1)


def stored_sizes(store: Any, prefix: str) -> dict[str, int | None]:
    """The keys of the zarr ``store`` under ``prefix`` (relative to the store) and their
    sizes in bytes, where the listing gives them."""
    store = innermost(store)
    root = local_root(store)
    if root is not None:
        found: dict[str, int | None] = {}
        for folder, _, files in os.walk(os.path.join(root, prefix)):
            for f in files:
                path = os.path.join(folder, f)
                found[os.path.relpath(path, root).replace(os.sep, "/")] = os.path.getsize(path)
        return found
    fs = fsspec_of(store)
    if fs is not None:
        top = fs[1].rstrip("/")
        detail = fsspec_call(fs[0], "find", f"{top}/{prefix}", detail=True)
        return {k[len(top) + 1 :]: v.get("size") for k, v in detail.items()}
    return dict.fromkeys((prefix + k for k in listed(store, prefix)), None)


def copy_file(src: str, dst: str) -> None:
    """Copy the file ``src`` to ``dst`` within the kernel (``copy_file_range``: no bytes
    through Python, a reflink where the filesystem has them), else with ``shutil``."""
    with open(src, "rb") as a, open(dst, "wb") as b:
        left = os.fstat(a.fileno()).st_size
        try:
            while left > 0:
                n = os.copy_file_range(a.fileno(), b.fileno(), left)
                if n == 0:
                    break
                left -= n
            return
        except (AttributeError, OSError):  # (no copy_file_range: other systems, filesystems)
            pass
    shutil.copyfile(src, dst)


def _same_filesystem(a: Any, b: Any) -> bool:
    """Whether two fsspec filesystems reach the same objects (a copy between them is
    the server's)."""
    return bool(a is b or (type(a) is type(b) and a.storage_options == b.storage_options))


@contextmanager
def copying_in_background(
    copier: Copier, pairs: Sequence[tuple[str, str]], done: Callable[[int], None]
) -> Iterator[Callable[[], None]]:
    """Copy ``pairs`` on :data:`THREADS` threads while the block runs; yields ``finish()``,
    which waits for the copies (raising the first error). Leaving the block with an error,
    or without ``finish()``, stops the copies and waits for those in flight, so that
    nothing is written after the block."""
    stop = threading.Event()
    share = max(1, -(-len(pairs) // THREADS))
    futures: list[Future[None]] = []

    def finish() -> None:
        # waits of a moment each: a signal another thread received is acted on (its
        # Python handler run in this thread) within one, not once the copies end
        while True:
            first = wait(futures, timeout=WAKE, return_when=FIRST_EXCEPTION)
            for f in first.done:
                f.result()  # (the first error, raised)
            if not first.not_done:
                return

    with ThreadPoolExecutor(THREADS, thread_name_prefix="daskpad-copy") as pool:
        try:  # (a signal while the copies are handed out stops those already started)
            with acted_on_after():  # (raised in submit(), the pool would lose a thread)
                for i in range(0, len(pairs), share):
                    futures.append(pool.submit(copier.copy, pairs[i : i + share], stop, done))
            yield finish
            finish()
        finally:
            stop.set()  # (after finish(), a no-op; else the copies in flight end it)
