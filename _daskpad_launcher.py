"""The ``daskpad`` command's entry point (``[project.scripts]``), kept outside the
``daskpad`` package so that it runs before the package is imported.

``import daskpad`` loads numpy, dask, zarr and xarray, which takes a second or more. A
Ctrl-C (SIGINT) or SIGTERM in that time is answered as during the run, with one line on
stderr and the exit status 130 or 143, never with a traceback. So this module imports only
what Python's start-up has already loaded, puts its answer in place, and only then imports
:mod:`daskpad.cli` (inside a function, on purpose: that is the point of the module; the
package never imports it back). Once the command has returned its status, the outcome is
decided: a signal during the interpreter's exit ends the process with that status.

``python -m _daskpad_launcher ARGS`` runs the command as the installed ``daskpad`` does.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

#: what the command says when stopped before it has written anything
INTERRUPTED = "daskpad: interrupted; nothing was written to DST"
TERMINATED = "daskpad: terminated (SIGTERM); nothing was written to DST"


class _Terminated(BaseException):
    """SIGTERM arrived before the command installed its own handler."""


def _terminate(signum: int, frame: Any) -> None:
    raise _Terminated


def launch(load: Callable[[], Callable[[], int]]) -> int:
    """Import the command with ``load()`` (which returns its ``main``) and run it, answering
    SIGINT and SIGTERM from the first moment; returns the exit status.

    SIGINT raises KeyboardInterrupt (Python's own handler, left in place, or left ignored
    in a background job); SIGTERM, unless something set it otherwise, raises here too.
    While the command runs it answers both itself; what escapes it before or after is
    answered here with the same line.
    """
    try:
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread: signals are not ours to change
        pass
    try:
        status = load()()
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        status = 130
    except _Terminated:
        print(TERMINATED, file=sys.stderr)
        status = 143
    _exit_on_signal(status)
    return status


def _exit_on_signal(status: int) -> None:
    """From now on SIGINT and SIGTERM end the process at once with ``status``."""

    def leave(signum: int, frame: Any) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)

    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) not in (signal.SIG_IGN, None):
                signal.signal(signum, leave)
    except ValueError:  # not the main thread
        pass


def _command() -> Callable[[], int]:
    import daskpad.cli  # the one import of the package, after the handlers are in place

    return daskpad.cli.main


def main() -> int:
    """Run ``daskpad`` with ``sys.argv``; returns the exit status."""
    return launch(_command)


if __name__ == "__main__":
    sys.exit(main())
