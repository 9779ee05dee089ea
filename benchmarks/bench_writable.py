"""writable: what writable pad blocks would cost: every pad block a fresh copy, beside
daskpad's read-only pad blocks and dask.array.pad, pad + sum on local threads.

daskpad hands out its pad blocks read-only (docs/api.md, "Functions that write into the
blocks"). This measures the copies alone, by swapping the kernel step that makes a pad
block read-only (``daskpad.core.kernels.read_only``) for one returning a copy it owns; the
dependencies that writable blocks would also need (each input block at the edge reaching
a function only after the pads had read it) are not built, so the copies are a lower
bound. Pad 3000 on 12000 x 12000 float64 in chunks of 500 by default
(``--writable-size SIDE CHUNK WIDTH``), modes ``edge``, ``reflect`` and ``mean:16``
(``--writable-modes``); each round runs the unpadded sum, the two daskpad variants and
dask.array.pad in turn, the order rotating; each ratio is the median of the per-round
ratios to the unpadded sum (``--repeat``, at least 7). ``constant`` and ``empty`` are not
measured, nor an ``edge_function``: their blocks are made read-only without that step.
asv: the copies and the read-only blocks at the ``--quick`` size, from the same probes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import daskpad
import daskpad.core.kernels as kernels

from .bench_ahead import square
from .common import (
    Made,
    Probe,
    _ProbeSuite,
    _progress,
    attempt,
    dask_pad,
    key_params,
    probes,
    timed,
)

READ_ONLY = kernels.read_only
MODES = ["edge", "reflect", "mean:16"]


def owned(block: Any) -> Any:
    """A copy of a numpy block, writable and sharing memory with nothing."""
    return np.array(block) if type(block) is np.ndarray else block


def _with(step: Callable[[Any], Any], y: Any) -> float:
    kernels.read_only = step  # type: ignore[assignment]
    try:
        return float(y.sum().compute())
    finally:
        kernels.read_only = READ_ONLY  # type: ignore[assignment]


def _spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``MODE`` or ``MODE:STAT_LENGTH``: the mode and its keywords."""
    mode, _, stat = spec.partition(":")
    return mode, {"stat_length": int(stat)} if stat else {}


def _runs(x: Any, width: int, mode: str, kwargs: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """daskpad's pad + sum with read-only pad blocks and with copies, and dask.array.pad's
    (where it has the mode)."""
    ours = daskpad.pad(x, width, mode=mode, **kwargs)
    theirs, _ = attempt(lambda: dask_pad(x, width, mode, **kwargs))
    runs: dict[str, Callable[[], Any]] = {
        "read-only": lambda: _with(READ_ONLY, ours),
        "copies": lambda: _with(owned, ours),
    }
    if theirs is not None:
        runs["dask"] = lambda: float(theirs.sum().compute())
    return runs


def _size(cfg: Any) -> tuple[int, int, int]:
    """(side, chunk, width): ``--writable-size``, or the default of the run."""
    return getattr(cfg, "writable_size", None) or (
        (60, 10, 15) if cfg.quick else (12_000, 500, 3_000)
    )


def _probe(spec: str) -> Probe:
    """The unpadded sum and the pad + sums of ``_runs`` of one mode, at the run's size."""

    def make(cfg: Any) -> Made:
        side, chunk, width = _size(cfg)
        x = square(side, chunk)
        unpadded = {"unpadded": lambda: float(x.sum().compute())}
        return Made(unpadded | _runs(x, width, *_spec(spec)))

    return Probe((spec,), make)


PROBES = probes(*(_probe(spec) for spec in MODES))


def section_writable(cfg: Any) -> list[dict]:
    side, chunk, width = _size(cfg)
    repeat = max(cfg.repeat, 1 if cfg.quick else 7)
    rows = []
    for spec in cfg.writable_modes or MODES:
        probe = _probe(spec)
        made = probe.make(cfg)
        with probe.scheduled():
            got = made.timed(repeat, memory=False)
        theirs = got.ratio("dask", "unpadded") if "dask" in made.runs else "none"
        row = {
            "geometry": f"pad {width} on {side}² float64, chunks {chunk}",
            "mode": spec,
            "read-only (daskpad) ratio": got.ratio("read-only", "unpadded"),
            "copies ratio": got.ratio("copies", "unpadded"),
            "dask.array.pad ratio": theirs,
        }
        rows.append(row)
        _progress(cfg, "writable", row)
    return rows


class WritablePads(_ProbeSuite):
    """pad + sum with read-only pad blocks and with every pad block a fresh copy, pad 15
    on 60² in chunks of 10 (the ``--quick`` size)."""

    probes = PROBES
    params, param_names = key_params(PROBES, "mode")
    time_read_only = timed("read-only")
    time_copies = timed("copies")
