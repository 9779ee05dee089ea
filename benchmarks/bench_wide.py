"""wide: pads wider than the axis, 3x and 2x the axis plus a bit, on a float64 array in
memory, padded and computed on local threads ("ratio" = time / numpy.pad).

2000 x 1500 in 500 x 500 chunks; asv: the ``--quick`` size (200 x 150 in 50 x 50 chunks),
the library a parameter; a library whose values differ from numpy.pad's is skipped.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np

from .common import LIBS, NUMPY, QUICK, WITH_NUMPY, _progress, _record, once, same, skip, tasks
from .sources import normal
from .timing import rounds

WIDE_CASES = [
    ("reflect", {}),
    ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {}),
    ("wrap", {}),
    ("edge", {}),
    ("linear_ramp", {"end_values": 1.5}),
    ("mean", {"stat_length": 10}),
]


def _wide_input(cfg):
    """(the in-memory array, its dask array, the widths)."""
    shape, chunks = ((200, 150), (50, 50)) if cfg.quick else ((2_000, 1_500), (500, 500))
    widths = tuple((3 * n, 2 * n + 7) for n in shape)  # 3x and 2x the axis, plus a bit
    a = normal(shape, 3)
    return a, da.from_array(a, chunks=chunks), widths


def _label(mode: str, kwargs: dict) -> str:
    return mode + "".join(f" {k}={v}" for k, v in kwargs.items())


def section_wide(cfg) -> list[dict]:
    a, x, widths = _wide_input(cfg)
    rows = []
    with dask.config.set(scheduler="threads"):
        for mode, kwargs in WIDE_CASES:
            padded = {lib: fn(x, widths, mode, **kwargs) for lib, fn in LIBS.items()}
            fns = {"numpy": lambda m=mode, kw=kwargs: np.pad(a, widths, mode=m, **kw)}
            got = rounds(fns | {lib: y.compute for lib, y in padded.items()}, cfg.repeat)
            want = got.results["numpy"]
            row = {
                "mode": _label(mode, kwargs),
                "out MB": want.nbytes / 1e6,
                "numpy s": got.median("numpy"),
                "numpy MB": got.median_mb("numpy"),
            }
            for lib, y in padded.items():
                ok = same(mode, got.results[lib], want)
                _record(row, lib, got.median(lib), got.median_mb(lib), y, ok)
            del got, want
            rows.append(row)
            _progress(cfg, "wide", row)
    return rows


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------

CASE_LABELS = [_label(mode, kwargs) for mode, kwargs in WIDE_CASES]


def _wide_case(lib: str, label: str):
    """(the padding, run once) of one library at the ``--quick`` size: a dask library whose
    values differ from numpy.pad's is skipped, as the report shows "wrong" there."""
    mode, kwargs = WIDE_CASES[CASE_LABELS.index(label)]
    a, x, widths = _wide_input(QUICK)
    if lib == NUMPY:
        return None, lambda: np.pad(a, widths, mode=mode, **kwargs)
    y = LIBS[lib](x, widths, mode, **kwargs)

    def right() -> bool:
        with dask.config.set(scheduler="threads"):
            return same(mode, y.compute(), np.pad(a, widths, mode=mode, **kwargs))

    if not once(("wide", lib, label), right):
        skip(f"{lib} {label}: values differ from numpy.pad's")
    return y, y.compute


class Wide:
    """Pads wider than the axis, computed into memory, beside numpy.pad."""

    params = (WITH_NUMPY, CASE_LABELS)
    param_names = ("library", "mode")

    def setup(self, lib: str, label: str) -> None:
        self.run = _wide_case(lib, label)[1]

    def time_pad(self, lib: str, label: str) -> None:
        with dask.config.set(scheduler="threads"):
            self.run()


class WideTasks:
    """Tasks in the padded array's graph (the input's included)."""

    params = (list(LIBS), CASE_LABELS)
    param_names = ("library", "mode")

    def setup(self, lib: str, label: str) -> None:
        self.y = _wide_case(lib, label)[0]

    def track_tasks(self, lib: str, label: str) -> int:
        return tasks(self.y)

    track_tasks.unit = "tasks"
