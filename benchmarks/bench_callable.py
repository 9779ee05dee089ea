"""callable: mode=<function> on a ~1 GB lazily generated float32 array, padded and
reduced on local threads: time and peak memory.

The function is ``common.user_pad`` (a ramp away from each edge), pad 4 and 64. asv: the
``--quick`` size (1024 x 1024 in 256 x 256 chunks).
"""

from __future__ import annotations

import dask
import numpy as np

from .bench_correctness import skip_unless_right, verdict
from .common import LIBS, QUICK, _progress, _record, tasks, user_pad
from .sources import source
from .timing import rounds


def _callable_geometry(cfg):
    """(shape, chunks) of the lazily generated source."""
    if cfg.quick:
        return (1_024, 1_024), (256, 256)
    return (16_384, 16_384), (2_048, 2_048)


WIDTHS = [4, 64]


def section_callable(cfg) -> list[dict]:
    x = source(*_callable_geometry(cfg))
    rows = []
    with dask.config.set(scheduler="threads"):
        for w in WIDTHS:
            row = {"array": f"{x.nbytes / 1e9:.2f} GB float32", "width": w}
            padded = {lib: fn(x, w, user_pad) for lib, fn in LIBS.items()}
            got = rounds(
                {lib: lambda y=y: y.sum(dtype=np.float64).compute() for lib, y in padded.items()},
                cfg.repeat,
            )
            for lib, y in padded.items():
                ok = verdict(lib, "callable") == "ok"
                t, m = got.median(lib), got.median_mb(lib)
                _record(row, lib, t, m, y, ok, rss=got.rss[lib])
            rows.append(row)
            _progress(cfg, "callable", row)
    return rows


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class UserFunction:
    """A user function as the mode: pad + sum on local threads."""

    params = (list(LIBS), WIDTHS)
    param_names = ("library", "width")

    def setup(self, lib: str, width: int) -> None:
        skip_unless_right(lib, "callable")
        self.y = LIBS[lib](source(*_callable_geometry(QUICK)), width, user_pad)

    def time_pad_sum(self, lib: str, width: int) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.sum(dtype=np.float64).compute()

    def peakmem_pad_sum(self, lib: str, width: int) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.sum(dtype=np.float64).compute()

    def track_tasks(self, lib: str, width: int) -> int:
        return tasks(self.y)

    track_tasks.unit = "tasks"
