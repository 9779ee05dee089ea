"""A zarr or netCDF store padded into a new zarr store: :func:`plan_store` opens SRC,
checks DST and plans the write (a :class:`StorePlan`, whose :meth:`~StorePlan.describe`
says what it would write and :meth:`~StorePlan.write` writes it); :func:`pad_store` does
both. The ``daskpad pad`` command is this, with its options.

SRC is opened lazily with its own chunks, its decoded values padded as
:func:`daskpad.xarray.pad2` pads them and encoded back
(:func:`daskpad.xarray.store_numbers.pad_stored`), and DST is written so that it opens only
once complete (:func:`daskpad.store.places.commit.written_whole`). The write is one of the
store's plans: SRC's whole chunks copied as stored bytes and only the pads computed
(:class:`daskpad.store.writing.chunk_plans.ChunkPlan`: on zarr's rectilinear grid where
asked, or on the regular grid where that grid keeps SRC's chunks whole), or tiles of a
regular grid within the memory budget (:class:`daskpad.store.writing.tile_plans.TilePlan`).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from daskpad._compat.libraries import fused_codecs
from daskpad.pipeline.cluster import (
    Cluster,
    cluster_for_run,
    compute_with_progress,
    rectilinear_readable,
    stopping_first,
    warm_local_workers,
    workers_reading_rectilinear,
)
from daskpad.pipeline.description import show_source
from daskpad.pipeline.destination import check_destination
from daskpad.pipeline.options import PadOptions, modes_of, pair
from daskpad.pipeline.refusals import Refused, WriteFailed, located
from daskpad.pipeline.rereads import ReadAgain, chunks_read_again, said
from daskpad.pipeline.sizes import fmt_bytes
from daskpad.pipeline.source import (
    ARRAY_VARIABLE,
    PaddedSource,
    open_padded,
    zarr_format_of,
)
from daskpad.store.objects.sources import ShardsMisfit
from daskpad.store.places.commit import leftovers, written_whole
from daskpad.store.places.locations import Location
from daskpad.store.planning.budget import default_memory, memory_budget
from daskpad.store.stops import Arrivals, holding_signals
from daskpad.store.writing.chunk_plans import (
    ChunkPlan,
    RectilinearUnsupported,
    check_support,
    plan_copies,
)
from daskpad.store.writing.tile_plans import TilePlan, plan_array_tiles, plan_tiles
from daskpad.xarray.coords import LAYOUT_ENCODING

# Encoding keys that belong to one zarr format's codec pipeline.
_CODEC_KEYS = ("compressor", "compressors", "filters", "serializer", "fill_value", "_FillValue")


@dataclass
class StorePlan:
    """SRC opened and padded, DST checked, and the write planned (:func:`plan_store`)."""

    options: PadOptions
    #: SRC, opened and padded
    source: PaddedSource
    #: where DST is
    dst: Location
    #: DST's zarr format
    zarr_format: int
    #: how DST is written: chunks copied or computed, or tiles of a regular grid
    writer: ChunkPlan | TilePlan
    #: temporary stores that interrupted runs left beside a local DST
    leftovers: list[Path] = field(default_factory=list)

    @property
    def src(self) -> Location:
        return self.source.src

    def describe(self) -> str:
        """What :meth:`write` would write, nothing computed: SRC and its padding (what
        ``daskpad info`` prints), the chunks copied and computed, and DST."""
        lines = [show_source(self.source)]
        if isinstance(self.writer, ChunkPlan):
            lines.append(self.writer.describe())
        else:
            lines.append(said(self.chunks_read_again()))
        lines.append(f"would write {self.dst} (zarr v{self.zarr_format}){self.how()}")
        return "\n".join(lines)

    def chunks_read_again(self) -> list[ReadAgain]:
        """Per variable, how many of SRC's chunks a write of tiles reads more than once,
        counted in the computations it would run, nothing computed (none for a plan that
        copies chunks: it reads each chunk a pad needs once)."""
        writer = self.writer
        if isinstance(writer, ChunkPlan):
            return []
        out = _prepared(self.source.padded, same_format=self._same_format())
        writer = replace(writer, ds=_prepared_plan(writer, out))
        runs = writer.task_runs(**_write_options(self, out))
        return chunks_read_again(self.source.ds, runs)

    def _same_format(self) -> bool:
        return self.source.kind == "zarr" and self.zarr_format == zarr_format_of(self.src)

    def how(self) -> str:
        """How DST is written, where a plan of tiles says more than one computation."""
        if isinstance(self.writer, TilePlan) and not self.writer.whole:
            return " " + self.writer.describe()
        return ""

    def write(
        self,
        *,
        progress: bool = False,
        stops: Arrivals | None = None,
        deleting: Callable[[Location], None] | None = None,
    ) -> StoreWritten:
        """Write DST so that it opens only once complete: on any failure or interruption
        what was written is removed (:class:`WriteFailed`, or the interruption itself), the
        computation stopped first. With ``progress``, bars on stderr. ``stops``, the
        signals recorded while the run goes on (one whose exception Python dropped), stops
        it before its commit.

        A local DST is written to a temporary sibling, then moved into place (replacing an
        old DST only then). An object store has no rename: DST is written in place with its
        root metadata held back until everything else is written, and an old DST is
        deleted first; ``deleting(dst)`` is called before (default: nothing is said).

        A plan writes once: DST exists afterwards, and a second ``write`` is refused
        unless the options asked to overwrite. A Ctrl-C or SIGTERM that arrives once DST
        is complete, while it is committed, does not stop it and is not raised: the write
        has succeeded by then.
        """
        out = _prepared(self.source.padded, same_format=self._same_format())
        replacing = not self.dst.is_empty()  # (checked: only with overwrite, a zarr store)
        deleted: list[Location] = []

        def noting(location: Location) -> None:
            deleted.append(location)
            if deleting is not None:
                deleting(location)

        with contextlib.ExitStack() as stack:
            stack.enter_context(rectilinear_readable())
            stack.enter_context(fused_codecs())
            cluster = stack.enter_context(cluster_for_run(self.options))
            if cluster is not None:
                stack.enter_context(workers_reading_rectilinear(cluster))
            start = time.perf_counter()  # (a cluster's start is not the write's time)
            try:
                self._write(out, cluster, progress, stops, noting)
            except Exception as e:
                old = "the old DST was deleted before writing" if deleted else ""
                raise WriteFailed(_failure(e), old) from e
            seconds = time.perf_counter() - start
        return StoreWritten(self, replacing, seconds)

    def _write(
        self,
        out: Any,
        cluster: Cluster | None,
        progress: bool,
        stops: Arrivals | None,
        deleting: Callable[[Location], None],
    ) -> None:
        client = cluster.client if cluster is not None else None

        def compute(writes: list[Any]) -> None:
            # (in parts on the command's own cluster, which a stopped run closes: an
            # external cluster's running tasks are waited for, and a part is long)
            own = cluster is not None and cluster.own
            compute_with_progress(writes, client, progress, parts=own)

        writer = self.writer
        with contextlib.ExitStack() as committing:
            with written_whole(
                self.dst,
                self.options.overwrite,
                fence=lambda: stopping_first(cluster),
                deleting=deleting,
            ) as store:
                if isinstance(writer, ChunkPlan):
                    bar = (
                        _Bytes(writer.nbytes, len(writer.pairs))
                        if progress and writer.pairs
                        else None
                    )
                    plan = writer

                    def computing(writes: list[Any]) -> None:
                        compute(writes)
                        if bar is not None:
                            bar.watch()

                    writer = replace(writer, ds=out)
                    writer.write(
                        store,
                        compute=computing,
                        copied=bar.add if bar is not None else None,
                        copying=(lambda how: bar.start(plan, how)) if bar is not None else None,
                    )
                    if bar is not None:
                        bar.finish()
                else:
                    writer = replace(writer, ds=_prepared_plan(writer, out))
                    writer.write(
                        store, progress=progress, compute=compute, **_write_options(self, out)
                    )
                # DST is complete: from here to the end of its commit (an old DST moved
                # away and removed), Ctrl-C and SIGTERM come too late to stop the run
                committing.enter_context(holding_signals())
                if stops is not None:
                    stops.stop_if_any()
                    stops.decide()


@dataclass(frozen=True)
class StoreWritten:
    """What :meth:`StorePlan.write` wrote; its text is one line saying so."""

    plan: StorePlan
    #: whether an old DST was replaced
    replaced: bool
    seconds: float

    def __str__(self) -> str:
        plan = self.plan
        ds, padded = plan.source.ds, plan.source.padded
        modes = modes_of(plan.options.mode, plan.options.widths)
        shape = " x ".join(
            f"{d} {ds.sizes[d]}->{n} ({modes[str(d)]})" if ds.sizes[d] != n else f"{d} {n}"
            for d, n in padded.sizes.items()
        )
        replaced = " (replaced the old DST)" if self.replaced else ""
        return (
            f"padded {plan.src} -> {plan.dst}{replaced}: {len(padded.data_vars)} variable(s), "
            f"{shape}; wrote {fmt_bytes(padded.nbytes)} ({fmt_bytes(plan.dst.size())} on "
            f"disk) in {self.seconds:.1f} s"
        )


def plan_store(options: PadOptions) -> StorePlan:
    """Open SRC and pad it, check DST, and plan the write, as ``options`` say; nothing is
    written. Refusals are :class:`daskpad.pipeline.refusals.Refused`, raised before
    anything is written: DST is SRC, lies inside it or contains it; DST exists without
    ``overwrite``, or is not a zarr store; a dimension SRC does not have; a padding pad2
    refuses; a rectilinear grid where zarr-python cannot write one."""
    if options.memory is None:
        options = replace(options, memory=default_memory())
    _check_grid(options)
    # (a SRC on zarr's rectilinear grid opens too; its arrays keep zarr's faster codec
    # pipeline, where zarr has one, for the write)
    with rectilinear_readable(), fused_codecs():
        return _planned(options)


def _planned(options: PadOptions) -> StorePlan:
    dst = located(options.dst, options.dst_options, "DST")
    opened = open_padded(options, check=lambda src: check_destination(src, dst, options.overwrite))
    fmt = _zarr_format(options, opened)
    writer: ChunkPlan | TilePlan | None = _copies(options, opened, fmt)
    if writer is None:
        writer = _tiles(options, opened)
        if not writer.whole and opened.own is not None:
            # tiles cut SRC's larger blocks: read in SRC's chunks, each tile reading its own
            opened = open_padded(options, grouped=False)
            writer = _tiles(options, opened)
    stale = leftovers(dst.local_path) if dst.local else []
    return StorePlan(options, opened, dst, fmt, writer, stale)


def _tiles(options: PadOptions, opened: PaddedSource) -> TilePlan:
    """The write of ``opened.padded`` in tiles of a regular grid within the memory
    budget."""
    if list(opened.ds.variables) == [ARRAY_VARIABLE]:
        return plan_array_tiles(opened.padded[ARRAY_VARIABLE].data, options.memory)
    return plan_tiles(opened.padded, options.memory, options.widths)


def pad_store(
    src: str,
    dst: str,
    widths: Mapping[str, int | tuple[int, int]],
    mode: str | Mapping[str, str] = "constant",
    *,
    progress: bool = False,
    **options: Any,
) -> StoreWritten:
    """Pad the zarr or netCDF store ``src`` into the new zarr store ``dst``, as the
    ``daskpad pad`` command does: lazily, the values xarray decodes padded as
    :func:`daskpad.xarray.pad2` pads them and stored in SRC's encoding, DST opening only
    once complete.

    Parameters
    ----------
    src, dst : str
        Local paths or fsspec URLs (``s3://bucket/in.zarr``); DST is a new zarr store.
    widths : mapping
        ``{dim: width}`` or ``{dim: (before, after)}``.
    mode : str or mapping
        numpy.pad's mode, or ``{dim: mode}``.
    progress : bool
        Progress bars on stderr.
    **options
        The other fields of :class:`daskpad.pipeline.options.PadOptions`
        (``chunk_grid="rectilinear"``, ``memory``, ``overwrite``, ``workers``, ...) and
        the modes' keyword arguments (``constant_values``, ``stat_length``, ...: each one
        value, or ``{dim: value}``).

    Returns
    -------
    StoreWritten
        What was written; its text is the line the command prints.

    Raises
    ------
    daskpad.pipeline.refusals.Refused
        A request that cannot be done, before anything is written.
    daskpad.pipeline.refusals.WriteFailed
        The write failed; what it wrote was removed.
    """
    fields = set(PadOptions.__dataclass_fields__)
    kwargs = {k: v for k, v in options.items() if k not in fields}
    given = {k: v for k, v in options.items() if k in fields}
    pairs = {d: pair(w) for d, w in widths.items()}
    memory = memory_budget(given.pop("memory", None))
    the_options = PadOptions(
        src=src, dst=dst, widths=pairs, mode=mode, kwargs=kwargs, memory=memory, **given
    )
    warm_local_workers(the_options)  # (a local cluster's fork server imports meanwhile)
    return plan_store(the_options).write(progress=progress)


def _check_grid(options: PadOptions) -> None:
    """Refuse, before anything is opened, what rectilinear grids cannot do here."""
    if not options.rectilinear:
        return
    if options.zarr_format == 2:
        raise Refused("--chunk-grid rectilinear writes zarr v3; --zarr-format 2 has no such grid")
    try:
        check_support()
    except RectilinearUnsupported as e:
        raise Refused(f"--chunk-grid rectilinear: {e}") from None


def _copies(options: PadOptions, opened: PaddedSource, fmt: int) -> ChunkPlan | None:
    """The write of ``opened.padded`` that copies SRC's chunks as bytes: on rectilinear
    grids where ``options`` ask for them, else on the regular grids the tiles would write
    where those keep SRC's chunks whole (SRC and DST zarr v3, a dataset); None where the
    tiles write as they do."""
    src, kind, ds, padded = opened.src, opened.kind, opened.ds, opened.padded
    bare = list(ds.variables) == [ARRAY_VARIABLE]
    if options.rectilinear and bare:
        raise Refused(
            "--chunk-grid rectilinear writes datasets; SRC is a bare zarr array (write it with "
            "the regular grid, or store it as a variable of a group)"
        )
    if not options.rectilinear and (
        bare or kind != "zarr" or fmt != 3 or zarr_format_of(src) != 3
    ):
        return None
    store = _source_store(src, kind)
    try:
        return plan_copies(
            padded,
            ds,
            options.widths,
            store,
            "rectilinear" if options.rectilinear else "regular",
            stored=opened.own,
        )
    except ShardsMisfit as e:
        raise Refused(f"--chunk-grid rectilinear: {e}") from None


def _source_store(src: Location, kind: str) -> Any:
    """SRC's zarr store, read only (None for netCDF)."""
    if kind != "zarr":
        return None
    if src.local:
        from zarr.storage import LocalStore

        return LocalStore(src.local_path, read_only=True)
    return src.zarr_store(read_only=True)


def _zarr_format(options: PadOptions, opened: PaddedSource) -> int:
    if options.zarr_format is not None:
        return int(options.zarr_format)
    if options.rectilinear:
        return 3
    return zarr_format_of(opened.src) if opened.kind == "zarr" else 3


def _prepared(ds: Any, same_format: bool) -> Any:
    """A shallow copy whose encodings let the dask chunks set the zarr chunks, and drop the
    codec settings of another zarr format."""
    out = ds.copy(deep=False)
    drop = LAYOUT_ENCODING + (() if same_format else _CODEC_KEYS)  # the output's from its chunks
    for var in out.variables.values():
        var.encoding = {k: v for k, v in var.encoding.items() if k not in drop}
    return out


def _prepared_plan(writer: TilePlan, out: Any) -> Any:
    """The dataset ``writer`` writes, its encodings those of ``out``."""
    if writer.ds is None:
        return None
    ds = writer.ds.copy(deep=False)
    for name, var in ds.variables.items():
        var.encoding = dict(out.variables[name].encoding)
    return ds


def _write_options(plan: StorePlan, out: Any) -> dict[str, Any]:
    """What a plan of tiles is written with: the zarr format, a dataset's metadata
    consolidated, a padded bare zarr array's attributes and dimension names."""
    writer = plan.writer
    if not isinstance(writer, TilePlan) or writer.array is None:
        return {"zarr_format": plan.zarr_format, "consolidated": True}
    var = out[ARRAY_VARIABLE]
    attrs = dict(var.attrs)
    extra: dict[str, Any] = {"zarr_format": plan.zarr_format, "attributes": attrs}
    if plan.zarr_format == 3:
        extra["dimension_names"] = list(var.dims)
    else:
        attrs["_ARRAY_DIMENSIONS"] = list(var.dims)
    return extra


def _failure(e: BaseException) -> str:
    hint = ""
    if isinstance(e, NotImplementedError) and "dask-expr" in str(e):
        hint = "; xarray cannot write zarr with DASK_ARRAY__QUERY_PLANNING on, unset it"
    return f"{type(e).__name__}: {e}{hint}"


class _Bytes:
    """A line on stderr counting the objects copied, shown once the computation is done
    and the copies are not."""

    def __init__(self, nbytes: int, count: int):
        self.nbytes, self.count, self.done = nbytes, count, 0
        self.lock = threading.Lock()
        self.watching = False

    def start(self, plan: ChunkPlan, how: str) -> None:
        computed = sum(plan.computed_chunks(n) for n in plan.layouts)
        print(
            f"copying {len(plan.pairs)} chunks ({fmt_bytes(plan.nbytes)}) as stored bytes "
            f"({how}); computing {computed} chunks",
            file=sys.stderr,
        )

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
