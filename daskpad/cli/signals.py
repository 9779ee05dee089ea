"""How the command answers Ctrl-C (SIGINT) and SIGTERM: a stopped run unwinds (the
temporary store is removed on the way out) and the command says one line.

Before :mod:`daskpad.cli` is imported, the entry point ``_daskpad_launcher`` answers them;
while the command runs, SIGINT raises :class:`KeyboardInterrupt` (Python's own handler, or
the launcher's, which also remembers it) and SIGTERM raises :class:`Terminated`
(:func:`terminated_on_sigterm`). While the worker
processes of ``--workers N`` start, both are held (:func:`held_while`): remembered, and
acted on as soon as the start returns. While a complete DST is committed, both are
:func:`deferred`: the run has succeeded once the commit begins.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from multiprocessing import resource_tracker
from typing import Any, NoReturn, TypeVar

from daskpad.store.signals import deferred

T = TypeVar("T")

__all__ = ["Terminated", "deferred", "held_while", "stop", "terminated_on_sigterm"]


class Terminated(BaseException):
    """SIGTERM arrived (a batch system stopping the job): unwinds like Ctrl-C, so the
    temporary store is removed on the way out."""


def stop(signum: int) -> NoReturn:
    """Raise what the signal ``signum`` raises while the command runs."""
    if signum == signal.SIGTERM:
        raise Terminated
    raise KeyboardInterrupt


@contextlib.contextmanager
def terminated_on_sigterm() -> Iterator[None]:
    """While the command runs, SIGTERM raises :class:`Terminated` in the main thread."""

    def terminate(signum: int, frame: Any) -> None:
        raise Terminated

    try:
        previous = signal.signal(signal.SIGTERM, terminate)
    except ValueError:  # not the main thread: leave signals to whoever runs us
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def held_while(start: Callable[[], T], undo: Callable[[T], object]) -> T:
    """``start()`` (which starts processes), with SIGINT and SIGTERM held while it runs; a
    signal that arrived meanwhile is acted on once it returns: ``undo(result)``, then
    :class:`KeyboardInterrupt` or :class:`Terminated` is raised (and if ``start()`` failed,
    that instead of its exception).

    Held means remembered (:func:`deferred`), not raised in the middle of ``start()``, and,
    for SIGINT, blocked in every thread ``start()`` creates: the processes those threads
    start inherit the block, so a Ctrl-C in a terminal (which reaches every process of the
    foreground job) is answered by the command alone, without a traceback from each of
    them. Where threads cannot block signals (Windows), SIGINT is ignored while ``start()``
    runs instead (a Ctrl-C then is lost).
    """
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover  (Windows)
        return _ignoring_sigint(start)
    _start_resource_tracker()
    with deferred() as arrived:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            try:
                result = start()
            finally:
                # a SIGINT that found every thread blocking it is pending: unblocking this
                # thread delivers it, to be remembered
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            if arrived:
                undo(result)  # (a second Ctrl-C meanwhile is remembered too)
        except Exception:
            if not arrived:
                raise
    if arrived:
        stop(arrived[0])
    return result


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (which every process it spawns is given)
    now, in this thread. Started later by the thread that spawns the first worker, it
    would unblock SIGINT in that thread, and the workers it spawns would receive Ctrl-C."""
    if os.name == "posix":
        resource_tracker.ensure_running()


def _ignoring_sigint(start: Callable[[], T]) -> T:  # pragma: no cover  (Windows)
    """``start()`` with SIGINT ignored, so that the processes it starts inherit that."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return start()
    finally:
        signal.signal(signal.SIGINT, previous)
