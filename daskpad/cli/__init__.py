"""The ``daskpad`` command: pad a zarr or netCDF dataset into a new zarr store.

``daskpad pad SRC DST --width lat=2 --width lon=3:5 --mode wrap`` opens SRC lazily with its own
chunks, pads it with the ``pad2`` accessor, and writes DST as zarr with regular chunks,
showing progress. ``daskpad info`` describes SRC and what a padding would produce without
computing; ``daskpad demo`` shows it all on a small synthetic dataset.

Each command is parse -> open -> pad -> write; the parser is :mod:`daskpad.cli.args`, the
helpers live in :mod:`daskpad.cli.io` (option values, opening, messages),
:mod:`daskpad.cli.cluster` (clusters, stopping), :mod:`daskpad.cli.signals` (Ctrl-C and
SIGTERM), :mod:`daskpad.store.tiling` and :mod:`daskpad.store.tiles` (tiled writing). The
installed command starts in ``_daskpad_launcher``, which answers Ctrl-C and SIGTERM while
this package is imported.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import traceback
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import daskpad.xarray  # noqa: F401  (registers the pad2 accessor)
from daskpad.cli.args import (
    MODE_OPTIONS,
    parse_by_dim,
    parse_chunks,
    parse_memory,
    parse_reflect_type,
    parse_storage_options,
    parse_value,
    parse_widths,
    parser,
)
from daskpad.cli.budget import open_in_pieces
from daskpad.cli.cluster import client_for, stopping_first
from daskpad.cli.demo import demo
from daskpad.cli.encoding import decoded
from daskpad.cli.grids import (
    check_request,
    described,
    plan_for,
    rectilinear,
    rectilinear_readable,
    workers_read_rectilinear,
    write_into,
)
from daskpad.cli.io import (
    ARRAY_VARIABLE,
    CliError,
    Modes,
    Widths,
    WriteFailed,
    check_destination,
    check_dims,
    compute_with_progress,
    decode,
    describe,
    disk_usage,
    fmt_bytes,
    irregular_variables,
    locate_or_explain,
    modes_of,
    open_source,
    prepare_for_zarr,
    select_variables,
    source_kind,
    zarr_format_of,
)
from daskpad.cli.signals import Arrivals, Terminated, answered, deferred
from daskpad.core.registry import MODES, modes_taking
from daskpad.store.commit import leftovers, local_threads, written_whole
from daskpad.store.locations import Location
from daskpad.store.tiles import to_zarr, write_tiled
from daskpad.store.tiling import Plan, default_memory
from daskpad.store.tiling import plan as plan_tiles
from daskpad.xarray.stored import StoredPads, pad_stored


# --------------------------------------------------------------------------------------
# Options -> the padding to do
# --------------------------------------------------------------------------------------
def _padding(
    args: argparse.Namespace, widths: Mapping[str, tuple[int, int]]
) -> tuple[Any, dict[str, Any]]:
    """The mode (one, or ``{dim: mode}``) and its keyword arguments (each one value, or
    ``{dim: value}``), refusing options that fit no padded dimension's mode."""
    mode = parse_by_dim(args.mode or (), "--mode", widths, str) or "constant"
    modes = modes_of(mode, widths)
    kwargs: dict[str, Any] = {}
    for attr, (flag, kwarg) in MODE_OPTIONS.items():
        texts = getattr(args, attr)
        if not texts:
            continue
        if kwarg == "reflect_type":
            parse: Any = parse_reflect_type
        else:
            integer = kwarg == "stat_length"

            def parse(text: str, flag: str = flag, integer: bool = integer) -> Any:
                return parse_value(text, flag, integer=integer)

        value = parse_by_dim(texts, flag, widths, parse)
        fits = " or ".join(modes_taking([kwarg]))
        takers = [d for d, m in modes.items() if kwarg in MODES[m].kwargs]
        if isinstance(value, dict):
            for dim in value:
                if dim not in takers:
                    text = next(t for t in texts if t.partition("=")[0].strip() == dim)
                    raise CliError(
                        f"{flag} {text} does not apply to --mode {dim}={modes[dim]} "
                        f"({_takes(modes[dim])}); {flag} is for --mode {fits}"
                    )
        elif not takers:
            if isinstance(mode, str):
                raise CliError(
                    f"{flag} does not apply to --mode {mode} ({_takes(mode)}); {flag} is "
                    f"for --mode {fits}"
                )
            raise CliError(
                f"{flag} does not apply to the mode of any padded dimension (--mode "
                f"{Modes(mode, widths)}); {flag} is for --mode {fits}"
            )
        kwargs[kwarg] = value
    return mode, kwargs


def _takes(mode: str) -> str:
    takes = ", ".join(f for f, k in MODE_OPTIONS.values() if k in MODES[mode].kwargs)
    return f"it takes {takes or 'no other option'}"


def _storage_options(args: argparse.Namespace, which: str) -> dict[str, Any]:
    """``--storage-option``, then ``--src-storage-option`` or ``--dst-storage-option``."""
    common = parse_storage_options(args.storage_option or ())
    own = parse_storage_options(getattr(args, f"{which}_storage_option", None) or ())
    return {**common, **own}


#: a DST that ``--overwrite`` deleted before writing (an object store), for the message
#: of a run stopped afterwards
_DELETED: list[str] = []


def _memory(args: argparse.Namespace) -> int:
    """``--memory``, or its default."""
    return parse_memory(args.memory) if args.memory is not None else default_memory()


def _open_and_pad(
    args: argparse.Namespace, check: Any = None
) -> tuple[Location, str, Any, Any, dict[Any, StoredPads]]:
    """Parse, open SRC lazily, pad it: ``(src, kind, input dataset, padded dataset, how
    each padded variable's pads are made)``, the datasets as stored
    (:func:`daskpad.xarray.stored.pad_stored`).

    Every option is parsed before anything is opened; ``check()``, if given, runs between.
    """

    widths = parse_widths(args.width or ())
    mode, kwargs = _padding(args, widths)
    policy, chunks = parse_chunks(args.chunks or ())
    src = locate_or_explain(args.src, _storage_options(args, "src"), "SRC")
    if check is not None:
        check(src)
    kind = source_kind(src)
    ds = own = select_variables(open_source(src, kind), args.var or [])
    check_dims("--width", widths, ds)
    check_dims("--chunks", chunks, ds)
    if chunks:
        # Asked-for chunk sizes are read that way; padding then keeps them regular.
        ds = select_variables(open_source(src, kind, chunks), args.var or [])
    if hasattr(args, "memory"):  # daskpad pad (info computes nothing)
        # blocks over the budget are read in pieces, or refused
        threads = args.workers or local_threads()
        ds = open_in_pieces(src, kind, ds, own, chunks, _memory(args), threads)
    if not widths:
        return src, kind, ds, None, {}
    try:
        # on a rectilinear grid the pads keep chunks of their own
        policy_or_none = None if rectilinear(args) else policy
        padded, how = pad_stored(
            ds,
            decode(ds, src),
            widths,
            mode=mode,
            coords=args.coords,
            chunks=policy_or_none,
            **kwargs,
        )
    except (ValueError, TypeError, OverflowError) as e:
        # refused when the graph is built (a fill that does not fit the dtype, a pad of
        # more blocks than the limit): say which options asked for it
        given = [f"--width {Widths(widths)}", f"--mode {Modes(mode, widths)}"]
        given += [
            f"{flag} {text}"
            for attr, (flag, _) in MODE_OPTIONS.items()
            for text in getattr(args, attr) or ()
        ]
        raise CliError(f"{' '.join(given)}: {e}") from None
    return src, kind, ds, padded, how


# --------------------------------------------------------------------------------------
# The commands
# --------------------------------------------------------------------------------------
def _info(args: argparse.Namespace) -> int:
    src, kind, ds, padded, how = _open_and_pad(args)
    fmt = f"zarr v{zarr_format_of(src)}" if kind == "zarr" else "netCDF"
    title = f"{src} ({fmt}), {len(ds.data_vars)} data variable(s)"
    print(describe(ds, title, decoded=decoded(ds)))
    if padded is not None:
        widths = parse_widths(args.width)
        mode, _ = _padding(args, widths)
        title = (
            f"padded with --width {Widths(widths)} --mode {Modes(mode, widths)} "
            "(nothing computed):"
        )
        print(describe(padded, title, widths, modes_of(mode, widths)))
        print(_made(how))
    return 0


def _made(how: Mapping[Any, StoredPads]) -> str:
    """Per padded variable, which dimensions' pads copy stored numbers and which are
    computed from decoded values and encoded."""
    lines = ["pads, per variable (copied: stored numbers; computed: from decoded values):"]
    width = max((len(str(n)) for n in how), default=0)
    for name, each in how.items():
        said = [
            f"{what} along {', '.join(map(str, dims))}"
            for what, dims in (("copied", each.copied), ("computed", each.computed))
            if dims
        ]
        shown = "(array)" if name == ARRAY_VARIABLE else str(name)
        lines.append(f"  {shown:<{width}}  {'; '.join(said)}")
    return "\n".join(lines)


def _pad(args: argparse.Namespace, *, progress: bool | None = None) -> int:
    if not args.width:
        raise CliError("daskpad pad needs at least one --width DIM=WIDTH (see --help)")
    memory = _memory(args)
    check_request(args)
    dst = locate_or_explain(args.dst, _storage_options(args, "dst"), "DST")
    src, kind, ds, padded, _ = _open_and_pad(
        args, check=lambda src: check_destination(src, dst, args.overwrite)
    )
    fmt = _zarr_format(args, src, kind)
    # SRC's chunks copied as bytes (on rectilinear grids, or regular ones that keep them
    # whole), or None; each other chunk is then written by one task, holding its input
    rect = plan_for(args, src, kind, ds, padded, parse_widths(args.width), fmt)
    tiling = plan_tiles(padded, parse_widths(args.width), 2**62 if rect else memory)
    how = (
        ""
        if tiling.whole
        else f" in {tiling.ntiles} tiles, each holding about {fmt_bytes(memory)} at most "
        "(--memory; the input blocks at tile edges are read twice)"
    )
    if args.dry_run:
        rc = _info(args)
        if rect is not None:
            print(described(rect[0]))
        print(f"would write {dst} (zarr v{fmt}){how}; --dry-run wrote nothing")
        return rc
    if how:
        print(f"writing {dst}{how}")
    bad = [] if rect else irregular_variables(padded)
    if bad:
        raise CliError(
            f"the padded variables {', '.join(bad)} have chunks zarr cannot store "
            f"({padded[bad[0]].chunks}); this is a daskpad bug, please report it"
        )
    for stale in leftovers(dst.local_path) if dst.local else ():
        print(
            f"daskpad: note: {stale} is left from an interrupted run; delete it", file=sys.stderr
        )

    same = kind == "zarr" and fmt == zarr_format_of(src)
    out = prepare_for_zarr(padded, same_format=same)
    replacing = not dst.is_empty()  # (checked: only with --overwrite, and a zarr store)
    client = None
    try:
        client = client_for(args)
        if client is not None:
            workers_read_rectilinear(client)
        start = time.perf_counter()
        show = args.progress if progress is None else progress
        if show is None:  # neither --progress nor --no-progress: when someone watches
            show = sys.stderr.isatty()
        arrivals = getattr(args, "arrivals", None)  # (main's; none in the demo's runs)
        _write(out, dst, args.overwrite, fmt, client, show, tiling, memory, rect, arrivals)
    finally:
        if client is not None:
            client.close()
    seconds = time.perf_counter() - start
    widths = parse_widths(args.width)
    modes = modes_of(_padding(args, widths)[0], widths)
    shape = " x ".join(
        f"{d} {ds.sizes[d]}->{n} ({modes[str(d)]})" if ds.sizes[d] != n else f"{d} {n}"
        for d, n in padded.sizes.items()
    )
    replaced = " (replaced the old DST)" if replacing else ""
    print(
        f"padded {src} -> {dst}{replaced}: {len(padded.data_vars)} variable(s), {shape}; wrote "
        f"{fmt_bytes(padded.nbytes)} ({fmt_bytes(disk_usage(dst))} on disk) in {seconds:.1f} s"
    )
    return 0


def _write(
    ds: Any,
    dst: Location,
    overwrite: bool,
    fmt: int,
    client: Any,
    progress: bool,
    tiling: Plan,
    memory: int,
    rect: Any = None,
    arrivals: Arrivals | None = None,
) -> None:
    """Write ``ds`` so that DST opens only once complete; on any failure or interruption
    what was written is removed (:func:`daskpad.store.commit.written_whole`), the
    computation stopped first (:func:`daskpad.cli.cluster.stopping_first`). A signal in
    ``arrivals`` (one whose exception Python dropped) stops the run before its commit.

    A local DST is written to a temporary sibling, then moved into place (replacing an old
    DST only then). An object store has no rename: DST is written in place with its root
    metadata held back until everything else is written, and an old DST is deleted first,
    which the command says.
    """
    deleted: list[str] = []

    def deleting(location: Location) -> None:
        deleted.append(location.text)
        _DELETED.append(location.text)
        print(
            f"daskpad: note: deleted the old {location.text} before writing (an object store "
            "has no rename: --overwrite is not atomic there)",
            file=sys.stderr,
        )

    try:
        with contextlib.ExitStack() as committing:
            with written_whole(
                dst, overwrite, fence=lambda: stopping_first(client), deleting=deleting
            ) as store:
                if rect is not None:  # (plan, SRC's store): daskpad.cli.grids
                    compute = lambda writes: compute_with_progress(writes, client, progress)  # noqa: E731
                    the_plan, src_store = rect
                    write_into(ds, store, the_plan, src_store, client, compute, progress)
                else:
                    _write_into(ds, store, fmt, client, progress, tiling, memory)
                # DST is complete: from here to the end of its commit (an old DST moved
                # away and removed), Ctrl-C and SIGTERM come too late to stop the run
                committing.enter_context(deferred())
                if arrivals is not None:
                    arrivals.stop_if_any()
                    arrivals.decide()
    except Exception as e:
        raise WriteFailed(
            _failure(e), "the old DST was deleted before writing" if deleted else ""
        ) from e


def _write_into(
    ds: Any, store: Any, fmt: int, client: Any, progress: bool, tiling: Plan, memory: int
) -> None:
    """Write ``ds`` into the new zarr ``store``, metadata consolidated (zarr v3 too: xarray
    then opens DST with one read, without warning)."""
    if list(ds.variables) == [ARRAY_VARIABLE]:  # SRC was a bare zarr array
        _write_array(ds[ARRAY_VARIABLE], store, fmt, progress, None if tiling.whole else memory)
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


def _write_array(var: Any, store: Any, fmt: int, progress: bool, memory: int | None) -> None:
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
        memory=memory if memory is not None else 2**62,
        progress=progress,
        zarr_format=fmt,
        attributes=attrs,
        **names,
    )


def _zarr_format(args: argparse.Namespace, src: Location, kind: str) -> int:
    if args.zarr_format is not None:
        return int(args.zarr_format)
    if rectilinear(args):
        return 3
    return zarr_format_of(src) if kind == "zarr" else 3


# --------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The ``daskpad`` command's argument parser, its subcommands running the functions
    above (a factory without arguments, as documentation tools render it)."""
    return parser(
        {"pad": _pad, "info": _info, "demo": lambda args: demo(args, build_parser, _pad, _padding)}
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``daskpad ...``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # a bare ``daskpad``: what it can do
        build_parser().print_help(sys.stderr)
        return 2
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, or a usage error already printed
        return e.code if isinstance(e.code, int) else 2
    try:
        with warnings.catch_warnings(), answered() as arrivals, rectilinear_readable():
            warnings.showwarning = _show_warning
            args.arrivals = arrivals
            status = int(args.run(args))
            if not arrivals.decided:  # a signal whose exception Python dropped stops it
                arrivals.stop_if_any()
            return status
    except BrokenPipeError:
        # stdout's reader went away (``daskpad info | head -1``): stop quietly, as other
        # tools do, with the status of a SIGPIPE
        _stdout_to_devnull()
        return 141
    except (KeyboardInterrupt, Terminated) as e:
        what = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
        old = "; the old DST had been deleted (--overwrite in an object store)" if _DELETED else ""
        print(f"daskpad: {what}; nothing was written to DST{old}", file=sys.stderr)
        return 143 if isinstance(e, Terminated) else 130
    except Exception as e:
        if args.debug:
            traceback.print_exc()
        # Refusals (what the user asked for cannot be done) are exit status 2; a failed
        # write or anything unexpected is 1, with the way to see more.
        known = isinstance(e, (CliError, ValueError, TypeError, FileNotFoundError))
        if isinstance(e, WriteFailed):
            what = f"writing DST failed, {e.dst or 'DST left as it was'}: {e}"
        else:
            what = str(e) if known else f"{type(e).__name__}: {e}"
        hint = "" if args.debug or known else " (--debug shows the traceback)"
        print(f"daskpad: error: {what}{hint}", file=sys.stderr)
        return 2 if known else 1
    finally:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _stdout_to_devnull()


def _stdout_to_devnull() -> None:
    """Point stdout at os.devnull, so that the flush at exit does not complain of the
    closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (stdout replaced): nothing to do
        pass


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """A warning as one line saying what happened, not which library file noticed it."""
    print(f"daskpad: warning: {category.__name__}: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
