"""The one timing loop: interleaved rounds, medians, ratios to an anchor.

:func:`rounds` runs a set of functions in turn, ``repeat`` rounds, the order rotating round
by round, so that a case and its anchor (the same work unpadded, ``dask.array.pad``, a copy
of the store, ``cp -r``) see the same machine: a small VM drifts by 10-30% over minutes. It
reports each function's seconds per round and the medians and median per-round ratios of
them. A function that times itself (a command in a process of its own, a region inside a
larger call) returns :class:`Took`, whose seconds and MB stand in for the loop's own.

:func:`command` runs ``daskpad`` in a fresh process as the installed command runs
(``_daskpad_launcher``: a local cluster's fork server started before the package is
imported, modules the command does not use held off): seconds in its ``main``, the
process's whole wall time and its peak resident memory.
"""

from __future__ import annotations

import gc
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


class PeakRSS:
    """Sample this process's resident set size in a background thread: ``mb`` the peak
    above the size on entry, ``peak`` the peak in bytes."""

    def __init__(self, interval: float = 0.003):
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()

    def __enter__(self) -> PeakRSS:
        gc.collect()
        self.base = _rss()
        self.peak = self.base
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _rss())
            time.sleep(self.interval)

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())

    @property
    def mb(self) -> float:
        return (self.peak - self.base) / 2**20


@dataclass
class Took:
    """What a function that times itself returns: its seconds, its MB (peak resident, or
    None: this process's growth is sampled instead) and its value."""

    seconds: float
    mb: float | None = None
    value: Any = None


def measure(fn: Callable[[], Any], memory: bool = True) -> tuple[float, float, float, Any]:
    """One call: (seconds, peak extra resident MB, peak absolute resident MB, result). With
    ``memory`` False nothing samples the process (0.0 for both MB)."""
    gc.collect()
    if not memory:
        t0 = time.perf_counter()
        out = fn()
        seconds, extra, absolute = time.perf_counter() - t0, 0.0, 0.0
    else:
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            out = fn()
            seconds = time.perf_counter() - t0
        extra, absolute = mem.mb, mem.peak / 2**20
    if isinstance(out, Took):
        return out.seconds, out.mb if out.mb is not None else extra, absolute, out.value
    return seconds, extra, absolute, out


@dataclass
class Rounds:
    """Seconds and MB per round of each function, its last result, the highest absolute
    resident MB of this process while it ran, and the functions that raised."""

    seconds: dict[str, list[float]]
    mb: dict[str, list[float]]
    rss: dict[str, float]
    results: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def median(self, name: str) -> float:
        return statistics.median(self.seconds[name])

    def median_mb(self, name: str) -> float:
        return statistics.median(self.mb[name])

    def ratio(self, name: str, anchor: str) -> float:
        """The median of the per-round ratios ``name / anchor``."""
        return statistics.median(a / b for a, b in zip(self.seconds[name], self.seconds[anchor]))


def error_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("|", "/").replace("\n", " ")
    return "error: " + (text if len(text) < 160 else text[:157] + "...")


def rounds(
    fns: Mapping[str, Callable[[], Any]],
    repeat: int,
    *,
    memory: bool = True,
    catch: bool = False,
) -> Rounds:
    """Run ``fns`` in turn, ``repeat`` rounds, the order rotating by one each round. With
    ``catch``, a function that raises is recorded in ``errors`` and not run again;
    ``memory`` False leaves the process unsampled (for ratios, no sampling thread)."""
    names = list(fns)
    out = Rounds({n: [] for n in names}, {n: [] for n in names}, dict.fromkeys(names, 0.0))
    for r in range(repeat):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            if name in out.errors:
                continue
            out.results.pop(name, None)
            try:
                seconds, extra, absolute, result = measure(fns[name], memory)
            except Exception as exc:
                if not catch:
                    raise
                out.errors[name] = error_text(exc)
                continue
            out.seconds[name].append(seconds)
            out.mb[name].append(extra)
            out.rss[name] = max(out.rss[name], absolute)
            out.results[name] = result
    return out


# The peak resident set of the process: VmHWM (its own), not ru_maxrss, which Linux
# carries over from the forking parent (this benchmark, after its other sections).
_LAUNCHER = """
import sys, time
import _daskpad_launcher as launcher
t0 = None
def load():
    global t0
    main = launcher.load_command()
    t0 = time.perf_counter()
    return main
rc = launcher.launch(load)
t = 0.0 if t0 is None else time.perf_counter() - t0  # (None: stopped while importing)
with open("/proc/self/status") as f:
    kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
print(f"BENCH rc={rc} s={t} maxrss_kb={kb}")
"""


@dataclass
class Command:
    """A run of ``daskpad``: seconds in ``main``, seconds of the whole process (its start
    included), peak resident MB, and its stdout."""

    main_s: float
    process_s: float
    mb: float
    stdout: str


# daskpad's modules compiled to bytecode, as pip compiles a package it installs: an
# editable install run under PYTHONDONTWRITEBYTECODE would compile every module at each
# start (0.3 s on the 2-core machine), a cost no installed command has.
_COMPILE = """
import compileall, os, daskpad
compileall.compile_dir(os.path.dirname(daskpad.__file__), quiet=1)
"""
_compiled: set[tuple[tuple[str, str], ...]] = set()


def command(argv: list[str], env: Mapping[str, str] | None = None) -> Command:
    """Run ``daskpad ARGV`` in a fresh process (its modules' bytecode compiled first, once
    per environment); RuntimeError if it fails."""
    environ = None if env is None else {**os.environ, **env}
    key = tuple(sorted((env or {}).items()))
    if key not in _compiled:
        subprocess.run([sys.executable, "-c", _COMPILE], check=True, env=environ)
        _compiled.add(key)
    t0 = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *argv],
        capture_output=True,
        text=True,
        env=environ,
    )
    process_s = time.perf_counter() - t0
    last = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    if run.returncode or not last.startswith("BENCH rc=0 "):
        raise RuntimeError(f"daskpad {' '.join(argv)} failed:\n{run.stdout}\n{run.stderr}")
    fields = dict(f.split("=") for f in last.split()[1:])
    return Command(float(fields["s"]), process_s, int(fields["maxrss_kb"]) / 1024, run.stdout)
