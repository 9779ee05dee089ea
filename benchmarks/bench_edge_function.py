"""edge_function: a user pad function, whole lines or edges only: pad + sum on local
threads, time and peak memory, each case in a fresh process.

``sources.source`` in float32 (15600 x 15600 in chunks of 1000, 0.97 GB, by default;
``--edge-size SIDE CHUNK WIDTH``), padded by 16 with ``common.user_pad`` (a ramp away
from each edge; it reads one value next to each edge and writes only the pads):
"unpadded" (the same sum without padding), "daskpad function" (the function as it is:
whole lines, axis after axis), "daskpad edge_function"
(``daskpad.edge_function(user_pad, reads=1)``: pads from the edge chunks) and
"dask.array.pad function". Each round runs the four cases in turn, each in a process of
its own so that its peak memory is its own; reported per case: the median seconds, the
largest peak extra resident MB and the median of the rounds' ratios to the unpadded sum.
asv runs the cases in its own processes at ``ASV_SIZE``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import dask
import dask.array as da
import numpy as np

import daskpad

from .common import Case, _CaseSuite, _progress, cases, total, user_pad
from .sources import source
from .timing import PeakRSS, Took, rounds

#: each case: the source (x) padded by w, or not
PADS = {
    "unpadded": lambda x, w: x,
    "daskpad function": lambda x, w: daskpad.pad(x, w, user_pad),
    "daskpad edge_function": lambda x, w: daskpad.pad(
        x, w, daskpad.edge_function(user_pad, reads=1)
    ),
    "dask.array.pad function": lambda x, w: da.pad(x, w, user_pad),
}
CASES = tuple(PADS)
#: (side, chunk, width) of the asv benchmarks: 16 MB in 16 x 16 chunks
ASV_SIZE = (2_000, 125, 16)
ROOT = Path(__file__).resolve().parents[1]


def _inputs(side: int, chunk: int, width: int) -> SimpleNamespace:
    return SimpleNamespace(x=source((side, side), (chunk, chunk)), w=width)


#: the cases, their library the case's name; asv's at ``ASV_SIZE``
CASE = Case((), lambda cfg: _inputs(*ASV_SIZE), lambda fn, i: fn(i.x, i.w), run=total, libs=PADS)


def padded_sum(case: str, side: int, chunk: int, width: int) -> da.Array:
    """The float64 sum of a side x side source in chunks of chunk, padded as ``case``."""
    return CASE.pad(PADS[case], _inputs(side, chunk, width)).sum(dtype=np.float64)


def one(case: str, side: int, chunk: int, width: int) -> None:
    """Compute one case on local threads and print "seconds peak-extra-MB"."""
    y = padded_sum(case, side, chunk, width)
    with dask.config.set(scheduler="threads"), PeakRSS() as mem:
        t0 = time.perf_counter()
        y.compute()
        seconds = time.perf_counter() - t0
    print(f"{seconds} {mem.mb}")


_ONE = (
    "import sys; from benchmarks.bench_edge_function import one; "
    "one(sys.argv[1], *map(int, sys.argv[2:]))"
)


def _in_process(case: str, size: tuple[int, int, int]) -> Took:
    """One case in a fresh process: its seconds and peak extra resident MB."""
    argv = [sys.executable, "-c", _ONE, case, *map(str, size)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=ROOT)
    seconds, mb = out.stdout.split()[-2:]
    return Took(float(seconds), float(mb))


def section_edge_function(cfg: Any) -> list[dict]:
    size = cfg.edge_size or ((512, 64, 8) if cfg.quick else (15_600, 1_000, 16))
    got = rounds(
        {case: lambda case=case: _in_process(case, size) for case in CASES},
        cfg.repeat,
        memory=False,
    )
    rows = []
    for case in CASES:
        row = {
            "array": "{0} x {0} float32, chunks {1}, pad {2}".format(*size),
            "case": case,
            "seconds": got.median(case),
            "peak extra MB": max(got.mb[case]),
            "time ratio": got.ratio(case, "unpadded"),
            "ratios of the rounds": ", ".join(
                f"{a / b:.2f}" for a, b in zip(got.seconds[case], got.seconds["unpadded"])
            ),
        }
        rows.append(row)
        _progress(cfg, "edge_function", row)
    return rows


_by_key = cases(CASE)


class EdgeFunction(_CaseSuite):
    """A user function padding whole lines, or from the edge chunks only: pad + sum."""

    cases = _by_key
    params, param_names = (list(CASES),), ("case",)
