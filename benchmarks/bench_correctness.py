"""correctness: dask.array.pad and daskpad against numpy.pad on small tricky cases per mode.

Widths wider than the axis, odd reflection, per-side values, on a 7 x 5 float64 array in
chunks of 3 x 2, computed on the synchronous scheduler. The verdicts ("ok", "wrong",
"unsupported", "error (...)") are kept per library and mode in ``VERDICT``: a mode that
dask.array.pad gets wrong here shows "wrong" in every later table of ``run.py``, and the
asv classes of the other scenarios skip it (``skip_unless_right``).
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np

from .common import (
    LIBS,
    Made,
    Probe,
    _ProbeSuite,
    key_params,
    mode_arg,
    probes,
    same,
    skip,
    timed,
    tracked,
)

TRICKY: dict[str, list[dict[str, Any]]] = {
    "constant": [{"constant_values": ((1, 2), (3, 4))}],
    "empty": [{}],
    "edge": [{}],
    "linear_ramp": [{"end_values": ((1, 2), (3, 4))}],
    "maximum": [{}, {"stat_length": ((2, 3), (1, 4))}],
    "mean": [{}, {"stat_length": ((2, 3), (1, 4))}],
    "median": [{}, {"stat_length": ((2, 3), (1, 4))}],
    "minimum": [{}, {"stat_length": ((2, 3), (1, 4))}],
    "reflect": [{}, {"reflect_type": "odd"}],
    "symmetric": [{}, {"reflect_type": "odd"}],
    "wrap": [{}],
    "callable": [{}],
}
TRICKY_WIDTHS = [((2, 1), (1, 2)), ((9, 2), (3, 12))]

VERDICT: dict[str, dict[str, str]] = {}  # lib -> mode -> "ok" / "wrong" / "unsupported"
_CHECKED: set[str] = set()  # the modes whose tricky cases have run in this process


def _tricky_input() -> tuple[np.ndarray, da.Array]:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 100, (7, 5)).astype(np.float64)
    return a, da.from_array(a, chunks=(3, 2))


def _tricky(lib: str, name: str, x: da.Array, widths, kwargs: dict) -> np.ndarray:
    """One library's pad of a tricky case, computed on the synchronous scheduler."""
    return LIBS[lib](x, widths, mode_arg(name), **kwargs).compute(scheduler="sync")


def _tricky_row(a: np.ndarray, x: da.Array, widths, name: str, kwargs: dict) -> dict:
    """One tricky case: each library's verdict, also folded into ``VERDICT`` (the worst)."""
    want = np.pad(a, widths, mode=mode_arg(name), **kwargs)
    row = {"mode": name, "kwargs": repr(kwargs), "widths": repr(widths)}
    for lib in LIBS:
        try:
            got = _tricky(lib, name, x, widths, kwargs)
            verdict = "ok" if same(name, got, want) else "wrong"
        except NotImplementedError:
            verdict = "unsupported"
        except Exception as e:  # any failure is a verdict
            verdict = f"error ({type(e).__name__})"
        row[lib] = verdict
        worst = VERDICT.setdefault(lib, {}).get(name, "ok")
        if worst == "ok":
            VERDICT[lib][name] = verdict
    return row


def section_correctness(cfg) -> list[dict]:
    rows = []
    a, x = _tricky_input()
    for widths in TRICKY_WIDTHS:
        for name, kwargs_list in TRICKY.items():
            for kwargs in kwargs_list:
                rows.append(_tricky_row(a, x, widths, name, kwargs))
    _CHECKED.update(TRICKY)
    return rows


def verdict(lib: str, mode: str) -> str:
    return VERDICT.get(lib, {}).get(mode, "ok")


def mode_verdict(lib: str, mode: str) -> str:
    """``verdict(lib, mode)``, running that mode's tricky cases first where they have not
    run in this process (asv runs each scenario without this section)."""
    if mode in TRICKY and mode not in _CHECKED:
        a, x = _tricky_input()
        for widths in TRICKY_WIDTHS:
            for kwargs in TRICKY[mode]:
                _tricky_row(a, x, widths, mode, kwargs)
        _CHECKED.add(mode)
    return verdict(lib, mode)


def skip_unless_right(lib: str, mode: str) -> None:
    """Skip (NotImplementedError, asv's signal) a mode the library lacks or gets wrong on the
    tricky cases: the report shows "unsupported" or "wrong" there instead of a time."""
    found = mode_verdict(lib, mode)
    if found != "ok":
        skip(f"{lib} mode={mode}: {found} on the tricky cases")


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


def _probe(lib: str, mode: str) -> Probe:
    """All tricky cases of one mode, one library (skipped where it lacks the mode or
    fails): the run "tricky cases", the count "equal to numpy"."""

    def make(cfg) -> Made:
        found = mode_verdict(lib, mode)
        if found == "unsupported" or found.startswith("error"):
            skip(f"{lib} mode={mode}: {found}")
        a, x = _tricky_input()
        tricky = [(w, kw) for w in TRICKY_WIDTHS for kw in TRICKY[mode]]

        def equal() -> int:
            want = (np.pad(a, w, mode=mode_arg(mode), **kw) for w, kw in tricky)
            return sum(same(mode, _tricky(lib, mode, x, *c), e) for c, e in zip(tricky, want))

        runs = {"tricky cases": lambda: [_tricky(lib, mode, x, *case) for case in tricky]}
        return Made(runs, {"equal to numpy": equal})

    return Probe((lib, mode), make, scheduler=None)


PROBES = probes(*(_probe(lib, mode) for lib in LIBS for mode in TRICKY))


class TrickyCases(_ProbeSuite):
    """All tricky cases of one mode, padded and computed on the synchronous scheduler;
    "equal to numpy", how many of them equal numpy.pad's result."""

    probes = PROBES
    params, param_names = key_params(PROBES, "library", "mode")
    time_tricky_cases = timed("tricky cases")
    track_equal_to_numpy = tracked("equal to numpy", "cases")
