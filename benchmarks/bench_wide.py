"""wide: pads wider than the axis, 3x and 2x the axis plus a bit, on a float64 array in
memory, padded and computed on local threads ("ratio" = time / numpy.pad).

2000 x 1500 in 500 x 500 chunks; asv: the ``--quick`` size (200 x 150 in 50 x 50 chunks),
the library a parameter; a library whose values differ from numpy.pad's is skipped.
"""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace

import dask.array as da
import numpy as np

from .common import (
    WITH_NUMPY,
    Case,
    _CaseSuite,
    _progress,
    _record,
    asv_params,
    cases,
    same,
)
from .sources import normal

WIDE_CASES = [
    ("reflect", {}),
    ("reflect", {"reflect_type": "odd"}),
    ("symmetric", {}),
    ("wrap", {}),
    ("edge", {}),
    ("linear_ramp", {"end_values": 1.5}),
    ("mean", {"stat_length": 10}),
]


def _inputs(cfg) -> SimpleNamespace:
    """The in-memory array ``a``, its dask array ``x``, the ``widths``."""
    shape, chunks = ((200, 150), (50, 50)) if cfg.quick else ((2_000, 1_500), (500, 500))
    widths = tuple((3 * n, 2 * n + 7) for n in shape)  # 3x and 2x the axis, plus a bit
    a = normal(shape, 3)
    return SimpleNamespace(a=a, x=da.from_array(a, chunks=chunks), widths=widths)


def _case(mode: str, kwargs: dict) -> Case:
    return Case(
        (mode + "".join(f" {k}={v}" for k, v in kwargs.items()),),
        inputs=_inputs,
        pad=lambda fn, i: fn(i.x, i.widths, mode, **kwargs),
        anchor=lambda i: np.pad(i.a, i.widths, mode=mode, **kwargs),
    )


CASES = cases(*(_case(mode, kwargs) for mode, kwargs in WIDE_CASES))


def section_wide(cfg) -> list[dict]:
    i = _inputs(cfg)
    rows = []
    for (label,), case in CASES.items():
        padded = case.padded(i)
        got = case.timed(i, padded, cfg.repeat)
        want = got.results["numpy"]
        row = {
            "mode": label,
            "out MB": want.nbytes / 1e6,
            "numpy s": got.median("numpy"),
            "numpy MB": got.median_mb("numpy"),
        }
        for lib, y in padded.items():
            ok = same(label.split()[0], got.results[lib], want)
            _record(row, lib, got.median(lib), got.median_mb(lib), y, ok)
        del got, want
        rows.append(row)
        _progress(cfg, "wide", row)
    return rows


class Wide(_CaseSuite):
    """Pads wider than the axis, computed into memory, beside numpy.pad; a dask library
    whose values differ from numpy.pad's is skipped, as the report shows "wrong" there."""

    cases = CASES
    params, param_names = asv_params(WITH_NUMPY, CASES, "mode")

    def check(self, lib, case, inputs, y) -> None:
        self.skip_unless_anchor(lib, y, partial(same, case.key[0].split()[0]))
