"""Signals held back while a step that must not be cut midway runs: remembered, not
raised, and acted on by the caller (the command's commit) or raised once the step is
done (:func:`acted_on_after`: handing out the copy threads, whose pool would otherwise lose
count of a thread just started)."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any


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
