"""How a run answers Ctrl-C (SIGINT) and SIGTERM: a stopped run unwinds (what it wrote is
removed on the way out), and a step that must not be cut midway holds them back.

While a run records them (:func:`recording_stops`: the command's), SIGINT raises
:class:`KeyboardInterrupt` and SIGTERM raises :class:`Terminated`, and both are recorded,
so that one whose exception Python dropped still stops the run before its commit
(:class:`Arrivals`). While worker processes start, both are held (:func:`held_while`):
remembered, and acted on as soon as the start returns. While a complete store is
committed, both are held (:func:`holding_signals`): the run has succeeded once the commit
begins. While copy threads are handed out, a signal is acted on once they all are
(:func:`acted_on_after`: the pool would otherwise lose count of a thread just started).
Before the package is imported, the command's entry point ``_daskpad_launcher`` answers
them itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from multiprocessing import resource_tracker
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")


@contextlib.contextmanager
def holding_signals() -> Iterator[list[int]]:
    """While the block runs, SIGINT and SIGTERM are remembered, not raised: yields the list
    of those that arrived, for the caller to act on. (One ignored, as SIGINT in a background
    job, stays ignored; outside the main thread nothing is changed.)"""
    arrived: list[int] = []

    def remember(signum: int, frame: Any) -> None:
        arrived.append(signum)

    previous: dict[int, Any] = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) not in (signal.SIG_IGN, None):
                previous[signum] = signal.signal(signum, remember)
    except ValueError:  # not the main thread: signals are not ours to change
        pass
    try:
        yield arrived
    finally:
        for held, handler in previous.items():
            signal.signal(held, handler)


@contextlib.contextmanager
def acted_on_after() -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM are remembered (:func:`holding_signals`); the
    first that arrived is then raised again, to the handler in place after the block."""
    with holding_signals() as arrived:
        yield
    if arrived:
        signal.raise_signal(arrived[0])


class Terminated(BaseException):
    """SIGTERM arrived (a batch system stopping the job): unwinds like Ctrl-C, so the
    temporary store is removed on the way out."""


def stop(signum: int) -> NoReturn:
    """Raise what the signal ``signum`` raises while the command runs."""
    if signum == signal.SIGTERM:
        raise Terminated
    raise KeyboardInterrupt


class Arrivals:
    """The signals that arrived while the command ran (:func:`recording_stops`), in order.

    Python drops the exception a signal's handler raises while it runs a callback it cannot
    propagate from (a weak reference's, a garbage collector's: distributed's diagnostics
    install one), and the run goes on. The record is what counts: :meth:`stop_if_any`
    before the commit stops a run that such a signal should have stopped; once
    :meth:`decide` has been called (the commit has begun), signals no longer stop it.
    """

    def __init__(self) -> None:
        self.signals: list[int] = []
        self.decided = False

    def stop_if_any(self) -> None:
        """Raise what the first signal that arrived raises, if one did."""
        if self.signals:
            stop(self.signals[0])

    def decide(self) -> None:
        """The run's outcome is decided: from now on signals are recorded, not raised."""
        self.decided = True

    def _answer(self, signum: int, frame: Any) -> None:
        self.signals.append(signum)
        if not self.decided:
            stop(signum)

    def _unraisable(self, previous: Callable[[Any], object]) -> Callable[[Any], None]:
        """Python's hook for exceptions it cannot raise, silent for those of :meth:`_answer`
        (recorded already, and answered by the command's one line)."""

        def hook(unraisable: Any) -> None:
            ours = issubclass(unraisable.exc_type, (KeyboardInterrupt, Terminated))
            if not (self.signals and ours):
                previous(unraisable)

        return hook


@contextlib.contextmanager
def recording_stops() -> Iterator[Arrivals]:
    """While the command runs, SIGINT raises :class:`KeyboardInterrupt` and SIGTERM
    :class:`Terminated` in the main thread, each also recorded in the :class:`Arrivals`
    yielded. SIGINT ignored (a background job) stays ignored, as does one whose handler is
    not Python's (SIG_DFL); outside the main thread nothing is changed."""
    arrivals = Arrivals()
    previous: dict[int, Any] = {}
    try:
        if callable(signal.getsignal(signal.SIGINT)):
            previous[signal.SIGINT] = signal.signal(signal.SIGINT, arrivals._answer)
        previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, arrivals._answer)
    except ValueError:  # not the main thread: leave signals to whoever runs us
        pass
    hook = sys.unraisablehook
    sys.unraisablehook = arrivals._unraisable(hook)
    try:
        yield arrivals
    finally:
        sys.unraisablehook = hook
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def held_while(start: Callable[[], T], undo: Callable[[T], object]) -> T:
    """``start()`` (which starts processes), with SIGINT and SIGTERM held while it runs; a
    signal that arrived meanwhile is acted on once it returns: ``undo(result)``, then
    :class:`KeyboardInterrupt` or :class:`Terminated` is raised (and if ``start()`` failed,
    that instead of its exception).

    Held means remembered (:func:`holding_signals`), not raised in the middle of ``start()``, and,
    for SIGINT, blocked in every thread ``start()`` creates: the processes those threads
    start inherit the block, so a Ctrl-C in a terminal (which reaches every process of the
    foreground job) is answered by the command alone, without a traceback from each of
    them. Where threads cannot block signals (Windows), SIGINT is ignored while ``start()``
    runs instead (a Ctrl-C then is lost).
    """
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover  (Windows)
        return _ignoring_sigint(start)
    _start_resource_tracker()
    with holding_signals() as arrived:
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
