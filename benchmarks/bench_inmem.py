"""inmem: ~300 MB numpy arrays in 1, 2 and 3 dimensions, padded and computed into memory.

Every mode, float64 standard normal data in a ``da.from_array`` of the array; each library
against numpy.pad of the same array ("ratio" = time / numpy.pad). asv: the ``--quick``
arrays (0.8, 0.8 and 0.9 MB), the library a parameter.
"""

from __future__ import annotations

import dask.array as da
import numpy as np

from .bench_correctness import skip_unless_right, verdict
from .common import (
    ALL_MODES,
    LIBS,
    NUMPY,
    QUICK,
    WITH_NUMPY,
    _progress,
    _record,
    mode_arg,
    same,
    tasks,
)
from .sources import normal
from .timing import rounds


def _inmem_cases(cfg):
    if cfg.quick:
        return [
            ("1-D", (100_000,), (25_000,), ((100, 300),)),
            ("2-D", (300, 320), (100, 160), ((5, 10), (8, 3))),
            ("3-D", (48, 48, 48), (24, 24, 24), ((2, 2), (2, 2), (2, 2))),
        ]
    return [  # float64, ~300 MB each
        ("1-D", (37_500_000,), (2_500_000,), ((1_000, 3_000),)),
        ("2-D", (6_000, 6_250), (1_000, 1_250), ((50, 100), (75, 25))),
        ("3-D", (336, 336, 336), (112, 112, 112), ((8, 8), (8, 8), (8, 8))),
    ]


def section_inmem(cfg) -> list[dict]:
    rows = []
    for label, shape, chunks, widths in _inmem_cases(cfg):
        a = normal(shape, 1)
        x = da.from_array(a, chunks=chunks)
        interior = tuple(slice(b, b + n) for (b, _), n in zip(widths, shape))
        for name in ALL_MODES:
            mode = mode_arg(name)
            fns = {"numpy": lambda a=a, w=widths, m=mode: np.pad(a, w, mode=m)}
            padded = {
                lib: fn(x, widths, mode)
                for lib, fn in LIBS.items()
                if verdict(lib, name) != "unsupported"
            }
            fns.update({lib: y.compute for lib, y in padded.items()})
            got = rounds(fns, cfg.repeat)
            row = {
                "array": f"{label} {a.nbytes / 1e6:.0f} MB",
                "mode": name,
                "numpy s": got.median("numpy"),
                "numpy MB": got.median_mb("numpy"),
            }
            want = got.results["numpy"]
            for lib in LIBS:
                if lib not in padded:
                    row[f"{lib} s"] = "unsupported"
                    continue
                ok = verdict(lib, name) == "ok" and same(name, got.results[lib], want, interior)
                _record(row, lib, got.median(lib), got.median_mb(lib), padded[lib], ok)
            del got, want
            rows.append(row)
            _progress(cfg, "inmem", row)
    return rows


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------

ARRAYS = [label for label, *_ in _inmem_cases(QUICK)]


def _inmem_case(lib: str, label: str, name: str):
    """(the in-memory array, the padded dask array or None for numpy.pad, the widths) of
    one library on one of the ``--quick`` arrays."""
    _, shape, chunks, widths = next(c for c in _inmem_cases(QUICK) if c[0] == label)
    a = normal(shape, 1)
    if lib == NUMPY:
        return a, None, widths
    skip_unless_right(lib, name)
    return a, LIBS[lib](da.from_array(a, chunks=chunks), widths, mode_arg(name)), widths


class InMem:
    """Pad and compute into memory: the dask libraries and numpy.pad side by side."""

    params = (WITH_NUMPY, ARRAYS, ALL_MODES)
    param_names = ("library", "array", "mode")

    def setup(self, lib: str, label: str, name: str) -> None:
        a, y, widths = _inmem_case(lib, label, name)
        mode = mode_arg(name)
        self.run = (lambda: np.pad(a, widths, mode=mode)) if y is None else y.compute

    def time_pad(self, lib: str, label: str, name: str) -> None:
        self.run()

    def peakmem_pad(self, lib: str, label: str, name: str) -> None:
        self.run()


class InMemTasks:
    """Tasks in the padded array's graph (the input's included)."""

    params = (list(LIBS), ARRAYS, ALL_MODES)
    param_names = ("library", "array", "mode")

    def setup(self, lib: str, label: str, name: str) -> None:
        self.y = _inmem_case(lib, label, name)[1]

    def track_tasks(self, lib: str, label: str, name: str) -> int:
        return tasks(self.y)

    track_tasks.unit = "tasks"
