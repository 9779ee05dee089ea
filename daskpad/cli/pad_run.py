"""``daskpad pad SRC DST --width DIM=N ... --mode MODE``: SRC opened lazily with its own
chunks, its decoded values padded as :func:`daskpad.xarray.pad2` pads them and encoded back
(:func:`daskpad.xarray.store_numbers.pad_stored`), written as zarr DST with regular chunks (or on
rectilinear grids), so that DST opens only once complete."""

from __future__ import annotations

import contextlib
import sys
import time

from daskpad.cli.budget import UNBOUNDED
from daskpad.cli.cluster import cluster_for_run
from daskpad.cli.copy_plans import (
    check_request,
    plan_for,
    plan_summary,
    workers_reading_rectilinear,
)
from daskpad.cli.errors import CliError
from daskpad.cli.info import show
from daskpad.cli.io import (
    check_destination,
    disk_usage,
    fmt_bytes,
    irregular_variables,
    locate_or_explain,
    prepare_for_zarr,
    zarr_format_of,
)
from daskpad.cli.request import Request, Run
from daskpad.cli.source import PaddedSource, open_and_pad
from daskpad.cli.write import write
from daskpad.store.places.commit import leftovers
from daskpad.store.places.locations import Location
from daskpad.store.planning.tiling import plan as plan_tiles


def pad(run: Run) -> int:
    """Run ``daskpad pad`` (``--dry-run``: say what it would write); returns the exit
    status."""
    request = run.request
    memory = request.memory
    assert memory is not None  # (parsed for daskpad pad)
    check_request(request)
    dst = locate_or_explain(request.dst, request.dst_options, "DST")
    opened = open_and_pad(
        request, check=lambda src: check_destination(src, dst, request.overwrite)
    )
    src, padded = opened.src, opened.padded
    fmt = _zarr_format(request, opened)
    # SRC's chunks copied as bytes (on rectilinear grids, or regular ones that keep them
    # whole), or None; each other chunk is then written by one task, holding its input
    rect = plan_for(request, opened, fmt)
    tiling = plan_tiles(padded, request.widths, UNBOUNDED if rect else memory)
    how = (
        ""
        if tiling.whole
        else f" in {tiling.ntiles} tiles, each holding about {fmt_bytes(memory)} at most "
        "(--memory; the input blocks at tile edges are read twice)"
    )
    for stale in leftovers(dst.local_path) if dst.local else ():
        print(
            f"daskpad: note: {stale} is left from an interrupted run; delete it", file=sys.stderr
        )
    if request.dry_run:
        show(opened, request)
        if rect is not None:
            print(plan_summary(rect[0]))
        print(f"would write {dst} (zarr v{fmt}){how}; --dry-run wrote nothing")
        return 0
    if how:
        print(f"writing {dst}{how}")
    bad = [] if rect else irregular_variables(padded)
    if bad:
        raise CliError(
            f"the padded variables {', '.join(bad)} have chunks zarr cannot store "
            f"({padded[bad[0]].chunks}); this is a daskpad bug, please report it"
        )

    same = opened.kind == "zarr" and fmt == zarr_format_of(src)
    out = prepare_for_zarr(padded, same_format=same)
    replacing = not dst.is_empty()  # (checked: only with --overwrite, and a zarr store)
    with contextlib.ExitStack() as stack:
        cluster = stack.enter_context(cluster_for_run(request))
        if cluster is not None:
            stack.enter_context(workers_reading_rectilinear(cluster))
        start = time.perf_counter()
        show_progress = request.progress
        if show_progress is None:  # neither --progress nor --no-progress: when someone watches
            show_progress = sys.stderr.isatty()
        write(run, out, dst, fmt, cluster, show_progress, tiling, rect)
    seconds = time.perf_counter() - start
    print(_said(opened, dst, replacing, seconds, request))
    return 0


def _said(
    opened: PaddedSource, dst: Location, replacing: bool, seconds: float, request: Request
) -> str:
    """The line that says what a run wrote."""
    ds, padded, modes = opened.ds, opened.padded, request.modes
    shape = " x ".join(
        f"{d} {ds.sizes[d]}->{n} ({modes[str(d)]})" if ds.sizes[d] != n else f"{d} {n}"
        for d, n in padded.sizes.items()
    )
    replaced = " (replaced the old DST)" if replacing else ""
    return (
        f"padded {opened.src} -> {dst}{replaced}: {len(padded.data_vars)} variable(s), "
        f"{shape}; wrote {fmt_bytes(padded.nbytes)} ({fmt_bytes(disk_usage(dst))} on disk) "
        f"in {seconds:.1f} s"
    )


def _zarr_format(request: Request, opened: PaddedSource) -> int:
    if request.zarr_format is not None:
        return int(request.zarr_format)
    if request.rectilinear:
        return 3
    return zarr_format_of(opened.src) if opened.kind == "zarr" else 3
