"""edge_function: a user pad function, whole lines or edges only: pad + sum on local
threads, time and peak memory.

A lazily generated float32 array (``common.lazy_source``) padded with ``common.user_pad``
(a ramp away from each edge; it reads one value next to each edge and writes only the
pads): "unpadded" (the same sum without padding), "daskpad function" (the function as it
is: whole lines, axis after axis), "daskpad edge_function"
(``daskpad.edge_function(user_pad, reads=1)``: pads from the edge chunks) and
"dask.array.pad function". ``edge_function.py`` runs each case in a fresh process; asv
runs them at ``ASV_SIZE``.
"""

from __future__ import annotations

import time

import dask
import dask.array as da
import numpy as np

import daskpad

from .common import PeakRSS, lazy_source, tasks, user_pad

CASES = ("unpadded", "daskpad function", "daskpad edge_function", "dask.array.pad function")
#: (side, chunk, width) of the asv benchmarks: 16 MB in 16 x 16 chunks
ASV_SIZE = (2_000, 125, 16)


def padded_sum(case: str, side: int, chunk: int, width: int) -> da.Array:
    """The float64 sum of a side x side source in chunks of chunk, padded as ``case``."""
    x = lazy_source((side, side), (chunk, chunk))
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
