"""How ``daskpad pad`` writes DST: so that it opens only once complete, and a failed or
stopped run leaves nothing behind (:func:`write`), on the regular grid
(:func:`write_regular`) or as :mod:`daskpad.cli.copy_plans` plans it."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from daskpad.cli.budget import UNBOUNDED
from daskpad.cli.cluster import Cluster, stopping_first
from daskpad.cli.copy_plans import write_into
from daskpad.cli.errors import WriteFailed
from daskpad.cli.io import ARRAY_VARIABLE, compute_with_progress
from daskpad.cli.request import Run
from daskpad.cli.stops import holding_signals
from daskpad.store.places.commit import written_whole
from daskpad.store.places.locations import Location
from daskpad.store.planning.tiling import TilePlan
from daskpad.store.tiles import to_zarr, write_tiled


def write(
    run: Run,
    ds: Any,
    dst: Location,
    fmt: int,
    cluster: Cluster | None,
    progress: bool,
    tiling: TilePlan,
    rect: Any = None,
) -> None:
    """Write ``ds`` so that DST opens only once complete; on any failure or interruption
    what was written is removed (:func:`daskpad.store.places.commit.written_whole`), the
    computation stopped first (:func:`daskpad.cli.cluster.stopping_first`). A signal in
    ``run.arrivals`` (one whose exception Python dropped) stops the run before its commit.

    A local DST is written to a temporary sibling, then moved into place (replacing an old
    DST only then). An object store has no rename: DST is written in place with its root
    metadata held back until everything else is written, and an old DST is deleted first,
    which the command says (and records in ``run.deleted``).
    """
    client = cluster.client if cluster is not None else None

    def deleting(location: Location) -> None:
        run.deleted.append(location.text)
        print(
            f"daskpad: note: deleted the old {location.text} before writing (an object store "
            "has no rename: --overwrite is not atomic there)",
            file=sys.stderr,
        )

    try:
        with contextlib.ExitStack() as committing:
            with written_whole(
                dst,
                run.request.overwrite,
                fence=lambda: stopping_first(cluster),
                deleting=deleting,
            ) as store:
                if rect is not None:  # (plan, SRC's store): daskpad.cli.copy_plans
                    compute = lambda writes: compute_with_progress(writes, client, progress)  # noqa: E731
                    the_plan, src_store = rect
                    write_into(ds, store, the_plan, src_store, client, compute, progress)
                else:
                    write_regular(ds, store, fmt, client, progress, tiling, run.request.memory)
                # DST is complete: from here to the end of its commit (an old DST moved
                # away and removed), Ctrl-C and SIGTERM come too late to stop the run
                committing.enter_context(holding_signals())
                if run.arrivals is not None:
                    run.arrivals.stop_if_any()
                    run.arrivals.decide()
    except Exception as e:
        raise WriteFailed(
            _failure(e), "the old DST was deleted before writing" if run.deleted else ""
        ) from e


def write_regular(
    ds: Any,
    store: Any,
    fmt: int,
    client: Any,
    progress: bool,
    tiling: TilePlan,
    memory: int | None,
) -> None:
    """Write ``ds`` into the new zarr ``store``, metadata consolidated (zarr v3 too: xarray
    then opens DST with one read, without warning)."""
    if list(ds.variables) == [ARRAY_VARIABLE]:  # SRC was a bare zarr array
        write_array(ds[ARRAY_VARIABLE], store, fmt, progress, None if tiling.whole else memory)
    else:
        # in one computation when whole (a distributed progress bar on a cluster), else
        # tile by tile; consolidated here, not by xarray (whose last task would, on a worker)
        write_tiled(
            ds,
            store,
            tiling,
            progress,
            consolidated=True,
            compute=lambda writes: compute_with_progress(writes, client, progress),
            zarr_format=fmt,
        )


def _failure(e: BaseException) -> str:
    hint = ""
    if isinstance(e, NotImplementedError) and "dask-expr" in str(e):
        hint = "; xarray cannot write zarr with DASK_ARRAY__QUERY_PLANNING on, unset it"
    return f"{type(e).__name__}: {e}{hint}"


def write_array(var: Any, store: Any, fmt: int, progress: bool, memory: int | None) -> None:
    """A padded bare zarr array, written as a bare zarr array with its dimension names and
    attributes (:func:`daskpad.to_zarr`, in tiles reading about ``memory`` bytes of input,
    or in one computation for None)."""

    attrs = dict(var.attrs)
    names: dict[str, Any] = {"dimension_names": list(var.dims)} if fmt == 3 else {}
    if fmt == 2:
        attrs["_ARRAY_DIMENSIONS"] = list(var.dims)
    to_zarr(
        var.data,
        store,
        memory=memory if memory is not None else UNBOUNDED,
        progress=progress,
        zarr_format=fmt,
        attributes=attrs,
        **names,
    )
