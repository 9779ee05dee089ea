"""The ``daskpad`` command's entry point (``[project.scripts]``), kept outside the
``daskpad`` package so that it runs before the package is imported.

``import daskpad`` loads numpy, dask, zarr and xarray, which takes a second or more. A
Ctrl-C (SIGINT) or SIGTERM in that time is answered as during the run, with one line on
stderr and the exit status 130 or 143, never with a traceback. So this module imports only
what Python's start-up has already loaded, puts its answer in place, and only then imports
:mod:`daskpad.cli` (inside a function, on purpose: that is the point of the module; the
package never imports it back). A run on a local cluster (``pad ... --workers N``) first
starts the fork server its workers are forked from, which imports the package meanwhile.
Once the command has returned its status, the outcome is decided: a signal during the
interpreter's exit ends the process with that status.

``python -m _daskpad_launcher ARGS`` runs the command as the installed ``daskpad`` does.
"""

from __future__ import annotations

import os
import signal
import sys

TYPE_CHECKING = False  # (typing is not imported: a signal while importing it would be lost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: what the command says when stopped before it has written anything
INTERRUPTED = "daskpad: interrupted; nothing was written to DST"
TERMINATED = "daskpad: terminated (SIGTERM); nothing was written to DST"


class _Terminated(BaseException):
    """SIGTERM arrived before the command installed its own handler."""


#: the signals that arrived while the launcher answered them, in order
_arrived: list[int] = []


def _stop(signum: int, frame: Any) -> None:
    """Remember the signal, then raise what it raises. The record is what counts: an
    exception raised while Python runs a callback it cannot propagate from (a weak
    reference's, as the import system's module locks use) is printed and dropped, and the
    import goes on."""
    _arrived.append(signum)
    if signum == signal.SIGTERM:
        raise _Terminated
    raise KeyboardInterrupt


def launch(load: Callable[[], Callable[[], int]]) -> int:
    """Import the command with ``load()`` (which returns its ``main``) and run it, answering
    SIGINT and SIGTERM from the first moment; returns the exit status.

    SIGINT raises KeyboardInterrupt (unless it is ignored, as in a background job, where it
    stays ignored); SIGTERM, unless something set it otherwise, raises here too. Either is
    also remembered, so that one arriving while the command is imported stops it even where
    its exception was dropped. While the command runs it answers both itself; what escapes
    it before or after is answered here with the same line.
    """
    _answer_signals()
    previous_hook = sys.unraisablehook
    sys.unraisablehook = _unraisable(previous_hook)
    status = None
    try:
        try:
            command = load()
        finally:
            sys.unraisablehook = previous_hook
        if not _arrived:  # (else its exception was dropped, and the import went on)
            status = command()
            _exit_on_signal(status)
            return status
    except (KeyboardInterrupt, _Terminated):
        if status is not None:  # the command had returned: its outcome stands
            _exit_on_signal(status)
            return status
    except Exception:
        if not _arrived:
            raise
    return _stopped(_arrived[0] if _arrived else signal.SIGINT)


def _stopped(signum: int) -> int:
    """Say that the signal ``signum`` stopped the command; returns the exit status."""
    terminated = signum == signal.SIGTERM
    print(TERMINATED if terminated else INTERRUPTED, file=sys.stderr)
    status = 143 if terminated else 130
    _exit_on_signal(status)
    return status


def _unraisable(previous: Callable[[Any], object]) -> Callable[[Any], None]:
    """Python's hook for exceptions it cannot raise, silent for those of :func:`_stop`
    (remembered already, and answered by the one line)."""

    def hook(unraisable: Any) -> None:
        if not (_arrived and issubclass(unraisable.exc_type, (KeyboardInterrupt, _Terminated))):
            previous(unraisable)

    return hook


def _answer_signals() -> None:
    """Put :func:`_stop` in place of Python's own SIGINT handler and of SIGTERM's default."""
    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    try:
        for signum, default in defaults.items():
            if signal.getsignal(signum) == default:
                signal.signal(signum, _stop)
    except ValueError:  # not the main thread: signals are not ours to change
        pass


def _exit_on_signal(status: int) -> None:
    """From now on SIGINT and SIGTERM end the process at once with ``status``."""

    def leave(signum: int, frame: Any) -> None:
        _flush()
        os._exit(status)

    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) not in (signal.SIG_IGN, None):
                signal.signal(signum, leave)
    except ValueError:  # not the main thread
        pass


def load_command() -> Callable[[], int]:
    """Import the command and return its ``main``: the fork server of a local cluster
    started first where the run asks for one (:func:`_warm_workers`), the modules of
    :data:`UNUSED_AT_START` held off while the package is imported."""
    _warm_workers(sys.argv[1:])
    held = [name for name in UNUSED_AT_START if name not in sys.modules]
    for name in held:  # (a module None in sys.modules: an import of it fails)
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import daskpad.cli  # the one import of the package, after the handlers are in place
    finally:
        for name in held:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    return daskpad.cli.main


#: what the package's import would load for nothing: dask.array imports scipy where it is
#: installed (scipy.fftpack for its fft module, scipy.sparse's matrices as a chunk type),
#: 0.25 to 0.45 s on 2 cores, and the command uses neither. Absent while the package is
#: imported (dask takes the ImportError as scipy missing, and its fft module and chunk
#: types stay so for the process), importable again afterwards: xarray's netCDF-3 engine
#: imports scipy when the command reads such a file.
UNUSED_AT_START = ("scipy",)


#: what the fork server of a local cluster's workers imports, and the environment it
#: starts in: daskpad.pipeline.cluster's WORKER_IMPORTS and QUIETED_ENVIRONMENT (which
#: this module cannot import without importing the package)
WORKER_IMPORTS = ("distributed", "daskpad.pipeline")
QUIETED_ENVIRONMENT = {
    "DASK_LOGGING__DISTRIBUTED": "critical",
    "DASK_LOGGING__ASYNCIO": "critical",
}
#: distributed's default environment for the worker processes it spawns (numpy's thread
#: pools of one thread), less its allocation thresholds: the defaults of what
#: daskpad.pipeline.cluster's spawn_environment reads from dask's configuration (which
#: is not read here: dask is not imported yet); a variable already set keeps its value
SPAWN_ENVIRONMENT = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def _warm_workers(argv: list[str]) -> None:
    """``daskpad pad ... --workers N`` (a run, not ``--dry-run``): start the fork server
    its local cluster's workers are forked from (``daskpad.pipeline.cluster``'s
    ``warm_local_workers``, which then finds it running) before the command imports the
    package, so that the server imports what the workers run while the command imports
    it too, on the other core: the workers are forked about half a second sooner. The
    server starts in the environment distributed gives the workers it spawns, with SIGINT
    blocked, as the workers must (a Ctrl-C in a terminal is answered by the command
    alone), and ends with the command."""
    words = [a for a in argv if not a.startswith("-")]  # (the command's own options: flags)
    if words[:1] != ["pad"] or "--dry-run" in argv:
        return
    if not any(a == "--workers" or a.startswith("--workers=") for a in argv):
        return
    if not sys.platform.startswith("linux"):  # (daskpad.pipeline.cluster.forks_workers)
        return
    import multiprocessing
    from multiprocessing import forkserver, resource_tracker

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return
    multiprocessing.get_context("forkserver").set_forkserver_preload(list(WORKER_IMPORTS))
    spawned = {name: os.environ.get(name, value) for name, value in SPAWN_ENVIRONMENT.items()}
    values = {**QUIETED_ENVIRONMENT, **spawned}
    environment = {name: os.environ.get(name) for name in values}
    # (the resource tracker first: starting, it unblocks SIGINT in the thread that starts it)
    resource_tracker.ensure_running()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        os.environ.update(values)
        forkserver.ensure_running()
    except OSError:  # (no process to spare: the workers start as they would otherwise)
        pass
    finally:
        for name, value in environment.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # (a SIGINT meanwhile: delivered)


def main() -> int:
    """Run ``daskpad`` with ``sys.argv``; returns the exit status.

    A run that a signal stopped has unwound by then (its temporary store removed, its
    cluster closed): the process ends at once with its status. The interpreter's own exit
    is left out there, because it can turn a KeyboardInterrupt it saw on the way, although
    caught, into a death by SIGINT (status -2 instead of 130).
    """
    status = launch(load_command)
    if status in (130, 143):
        _flush()
        os._exit(status)
    return status


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    sys.exit(main())
