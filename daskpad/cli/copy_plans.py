"""``daskpad pad --chunk-grid rectilinear``: DST on zarr's rectilinear chunk grid, SRC's
whole chunks copied as stored bytes, only the pads computed
(:mod:`daskpad.store.rectilinear`); and the same on the regular grid, where it keeps SRC's
chunks whole (each before-pad a whole number of chunks, no pad after a partial last one)."""

from __future__ import annotations

import contextlib
import itertools
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from daskpad._compat.libraries import (
    rectilinear_grids,
    rectilinear_support,
    set_rectilinear_grids,
)
from daskpad.cli.cluster import Cluster
from daskpad.cli.errors import CliError
from daskpad.cli.io import ARRAY_VARIABLE, fmt_bytes, zarr_format_of
from daskpad.cli.request import Request
from daskpad.cli.source import PaddedSource
from daskpad.store.objects.copier import Copier
from daskpad.store.objects.sources import ShardsMisfit
from daskpad.store.places.locations import Location
from daskpad.store.rectilinear import CopyPlan, RectilinearUnsupported, check_support, plan, write


def rectilinear_readable() -> contextlib.AbstractContextManager[Any]:
    """A context in which daskpad reads (and writes) zarr's rectilinear chunk grids, where
    zarr-python can."""
    return rectilinear_grids() if rectilinear_support() is None else contextlib.nullcontext()


@contextlib.contextmanager
def workers_reading_rectilinear(cluster: Cluster) -> Iterator[None]:
    """The same for the workers of ``cluster``, while the run uses it; on a cluster the
    command did not start, those that had the grids off have them off again after."""
    if rectilinear_support() is not None:
        yield
        return
    was = cluster.client.run(set_rectilinear_grids, True)
    try:
        yield
    finally:
        off = [worker for worker, on in was.items() if not (cluster.own or on)]
        if off:
            with contextlib.suppress(Exception):  # (a worker gone meanwhile)
                cluster.client.run(set_rectilinear_grids, False, workers=off)


def check_request(request: Request) -> None:
    """Refuse, before anything is opened, what rectilinear grids cannot do here."""
    if not request.rectilinear:
        return
    if request.zarr_format == 2:
        raise CliError("--chunk-grid rectilinear writes zarr v3; --zarr-format 2 has no such grid")
    try:
        check_support()
    except RectilinearUnsupported as e:
        raise CliError(f"--chunk-grid rectilinear: {e}") from None


def source_store(src: Location, kind: str) -> Any:
    """SRC's zarr store, read only (None for netCDF)."""
    if kind != "zarr":
        return None
    if src.local:
        from zarr.storage import LocalStore

        return LocalStore(src.local_path, read_only=True)
    return src.zarr_store(read_only=True)


def plan_for(request: Request, opened: PaddedSource, fmt: int) -> tuple[CopyPlan, Any] | None:
    """The write of ``opened.padded`` that copies SRC's chunks as bytes, and SRC's store: on
    rectilinear grids where ``request`` asks for them, else on the regular grids the regular
    path writes where those keep SRC's chunks whole (SRC and DST zarr v3, a dataset);
    None where the regular path writes as it does."""
    src, kind, ds, padded = opened.src, opened.kind, opened.ds, opened.padded
    bare = list(ds.variables) == [ARRAY_VARIABLE]
    if request.rectilinear and bare:
        raise CliError(
            "--chunk-grid rectilinear writes datasets; SRC is a bare zarr array (write it with "
            "the regular grid, or store it as a variable of a group)"
        )
    if not request.rectilinear and (
        bare or kind != "zarr" or fmt != 3 or zarr_format_of(src) != 3
    ):
        return None
    store = source_store(src, kind)
    widths: Mapping[Any, tuple[int, int]] = request.widths
    try:
        the_plan = plan(
            padded, ds, widths, store, "rectilinear" if request.rectilinear else "regular"
        )
    except ShardsMisfit as e:
        raise CliError(f"--chunk-grid rectilinear: {e}") from None
    return None if the_plan is None else (the_plan, store)


def plan_summary(the_plan: CopyPlan) -> str:
    """Per array, the chunks copied as bytes and those computed (and why every chunk is,
    or what the copied objects are, where that needs saying)."""
    grid = " of DST's regular grid" if the_plan.grid == "regular" else ""
    lines = [f"chunks{grid}, per array (copied: stored bytes of SRC; computed: written anew):"]
    width = max((len(str(n)) for n in the_plan.layouts), default=0)
    for name, each in the_plan.layouts.items():
        note = the_plan.notes.get(name)
        if each is None:
            said = f"copied whole (not padded; SRC's grid{f'; {note}' if note else ''})"
        else:
            chunks = " x ".join(f"({_runs(c)})" for c in each.chunks)
            said = f"{each.ncopied} copied, {each.ncomputed} computed"
            said += f" ({note}); chunks {chunks}" if note else f"; chunks {chunks}"
        lines.append(f"  {name!s:<{width}}  {said}")
    total = f"{len(the_plan.pairs)} objects, {fmt_bytes(the_plan.nbytes)}"
    lines.append(f"  copied as stored bytes in all: {total}")
    return "\n".join(lines)


def write_into(
    ds: Any,
    store: Any,
    the_plan: CopyPlan,
    src_store: Any,
    client: Any,
    compute: Callable[[list[Any]], None],
    progress: bool,
) -> None:
    """Write ``ds`` into the new zarr ``store`` as ``the_plan`` says, copying from
    ``src_store``; on a cluster, its workers read and write rectilinear grids too."""
    copier = Copier(src_store, store) if src_store is not None else None
    bar = _Bytes(the_plan.nbytes, len(the_plan.pairs)) if progress and the_plan.pairs else None
    if copier is not None and progress:
        print(
            f"copying {len(the_plan.pairs)} chunks ({fmt_bytes(the_plan.nbytes)}) as stored "
            f"bytes ({copier.how}); computing "
            f"{sum(the_plan.computed_chunks(n) for n in the_plan.layouts)} chunks",
            file=sys.stderr,
        )

    def computing(writes: list[Any]) -> None:
        compute(writes)
        if bar is not None:
            bar.watch()

    write(ds, store, the_plan, copier, computing, bar.add if bar is not None else None)
    if bar is not None:
        bar.finish()


def _runs(sizes: tuple[int, ...]) -> str:
    """Chunk sizes with runs of one size shortened: ``256, 32x1024, 256``."""
    parts = []
    for size, run in itertools.groupby(sizes):
        n = len(list(run))
        parts.append(f"{n}x{size}" if n > 2 else ", ".join([str(size)] * n))
    return ", ".join(parts)


class _Bytes:
    """A line on stderr counting the objects copied, shown once the computation is done
    and the copies are not."""

    def __init__(self, nbytes: int, count: int):
        self.nbytes, self.count, self.done = nbytes, count, 0
        self.lock = threading.Lock()
        self.watching = False

    def add(self, n: int) -> None:
        with self.lock:
            self.done += n
        if self.watching:
            self.draw()

    def watch(self) -> None:
        self.watching = True
        self.draw()

    def draw(self) -> None:
        share = self.done / self.count if self.count else 1.0
        print(
            f"\rcopied {self.done} of {self.count} chunks ({share:4.0%} of "
            f"{fmt_bytes(self.nbytes)})",
            end="",
            file=sys.stderr,
            flush=True,
        )
        time.sleep(0)

    def finish(self) -> None:
        self.watching = True
        self.draw()
        print(file=sys.stderr)
