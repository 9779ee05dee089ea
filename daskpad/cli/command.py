"""``main(argv)``: the ``daskpad`` command line parsed (:func:`build_parser`) and read once
into a request (:func:`daskpad.cli.request.request_from`), its subcommand run, and what
ends it (Ctrl-C, SIGTERM, an error) said in one line with its exit status."""

from __future__ import annotations

import gc
import os
import sys
import traceback
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from daskpad.cli.args import build_parser
from daskpad.cli.demo import demo
from daskpad.cli.errors import CliError
from daskpad.cli.info import info
from daskpad.cli.pad_run import pad
from daskpad.cli.request import Run, request_from
from daskpad.pipeline import WriteFailed
from daskpad.pipeline.for_command import (
    Terminated,
    recording_stops,
    rectilinear_readable,
    with_notes,
)

__all__ = ["COMMANDS", "build_parser", "main"]

#: each subcommand's function, run with its :class:`daskpad.cli.request.Run`
COMMANDS: Mapping[str, Callable[[Run], int]] = {"pad": pad, "info": info, "demo": demo}


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
    run: Run | None = None
    try:
        with warnings.catch_warnings(), recording_stops() as arrivals, rectilinear_readable():
            warnings.showwarning = _show_warning
            run = Run(request_from(args), arrivals)
            status = int(COMMANDS[run.request.command](run))
            if not arrivals.decided:  # a signal whose exception Python dropped stops it
                arrivals.stop_if_any()
            return status
    except BrokenPipeError:
        # stdout's reader went away (``daskpad info | head -1``): stop quietly, as other
        # tools do, with the status of a SIGPIPE
        _stdout_to_devnull()
        return 141
    except (KeyboardInterrupt, Terminated) as e:
        _release_interrupted(e)
        what = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
        deleted = run is not None and run.deleted
        old = "; the old DST had been deleted (--overwrite in an object store)" if deleted else ""
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
            what = with_notes(e) if known else f"{type(e).__name__}: {with_notes(e)}"
        hint = "" if args.debug or known else " (--debug shows the traceback)"
        print(f"daskpad: error: {what}{hint}", file=sys.stderr)
        return 2 if known else 1
    finally:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _stdout_to_devnull()


def _release_interrupted(e: BaseException) -> None:
    """Free the frames a signal stopped (``e``'s traceback, and those of the exceptions
    it was raised during) now, with warnings silenced. Freed after the command's one line
    they would print warnings of work the signal cut short, such as a coroutine created
    but never awaited when Ctrl-C came while zarr opened SRC."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seen: set[int] = set()
        chained: BaseException | None = e
        while chained is not None and id(chained) not in seen:
            seen.add(id(chained))
            traceback.clear_frames(chained.__traceback__)
            chained.__traceback__ = None
            chained = chained.__context__
        gc.collect()


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
