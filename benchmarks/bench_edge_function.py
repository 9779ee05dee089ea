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
from typing import Any

import dask
import dask.array as da
import numpy as np

import daskpad

from .common import _progress, tasks, user_pad
from .sources import source
from .timing import PeakRSS, Took, rounds

CASES = ("unpadded", "daskpad function", "daskpad edge_function", "dask.array.pad function")
#: (side, chunk, width) of the asv benchmarks: 16 MB in 16 x 16 chunks
ASV_SIZE = (2_000, 125, 16)
ROOT = Path(__file__).resolve().parents[1]


def padded_sum(case: str, side: int, chunk: int, width: int) -> da.Array:
    """The float64 sum of a side x side source in chunks of chunk, padded as ``case``."""
    x = source((side, side), (chunk, chunk))
    y = {
        "unpadded": lambda: x,
        "daskpad function": lambda: daskpad.pad(x, width, user_pad),
        "daskpad edge_function": lambda: daskpad.pad(
            x, width, daskpad.edge_function(user_pad, reads=1)
        ),
        "dask.array.pad function": lambda: da.pad(x, width, user_pad),
    }[case]()
    return y.sum(dtype=np.float64)


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


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class EdgeFunction:
    """A user function padding whole lines, or from the edge chunks only: pad + sum."""

    params = (list(CASES),)
    param_names = ("case",)

    def setup(self, case: str) -> None:
        self.y = padded_sum(case, *ASV_SIZE)

    def time_pad_sum(self, case: str) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.compute()

    def peakmem_pad_sum(self, case: str) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.compute()

    def track_tasks(self, case: str) -> int:
        return tasks(self.y)

    track_tasks.unit = "tasks"
