"""inmem: ~300 MB numpy arrays in 1, 2 and 3 dimensions, padded and computed into memory.

Every mode, float64 standard normal data in a ``da.from_array`` of the array; each library
against numpy.pad of the same array ("ratio" = time / numpy.pad). asv: the ``--quick``
arrays (0.8, 0.8 and 0.9 MB), the library a parameter.
"""

from __future__ import annotations

from types import SimpleNamespace

import dask.array as da
import numpy as np

from .bench_correctness import skip_unless_right, verdict
from .common import (
    ALL_MODES,
    LIBS,
    QUICK,
    WITH_NUMPY,
    Case,
    _CaseSuite,
    _progress,
    _record,
    asv_params,
    cases,
    mode_arg,
    same,
)
from .sources import normal


def _arrays(cfg):
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


def _inputs(label: str, cfg) -> SimpleNamespace:
    """The in-memory array ``a``, its dask array ``x`` and the ``widths`` of one array."""
    _, shape, chunks, widths = next(c for c in _arrays(cfg) if c[0] == label)
    a = normal(shape, 1)
    return SimpleNamespace(a=a, x=da.from_array(a, chunks=chunks), widths=widths)


def _case(label: str, name: str) -> Case:
    mode = mode_arg(name)
    return Case(
        (label, name),
        inputs=lambda cfg: _inputs(label, cfg),
        pad=lambda fn, i: fn(i.x, i.widths, mode),
        anchor=lambda i: np.pad(i.a, i.widths, mode=mode),
    )


CASES = cases(*(_case(label, name) for label, *_ in _arrays(QUICK) for name in ALL_MODES))


def section_inmem(cfg) -> list[dict]:
    rows = []
    for label, shape, *_ in _arrays(cfg):
        i = _inputs(label, cfg)  # one array for every mode
        interior = tuple(slice(b, b + n) for (b, _), n in zip(i.widths, shape))
        for name in ALL_MODES:
            case = CASES[label, name]
            padded = case.padded(i, [lib for lib in LIBS if verdict(lib, name) != "unsupported"])
            got = case.timed(i, padded, cfg.repeat)
            row = {
                "array": f"{label} {i.a.nbytes / 1e6:.0f} MB",
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


class InMem(_CaseSuite):
    """Pad and compute into memory: the dask libraries and numpy.pad side by side; a
    library that lacks the mode or gets it wrong on the tricky cases is skipped."""

    cases = CASES
    params, param_names = asv_params(WITH_NUMPY, CASES, "array", "mode")

    def check(self, lib, case, inputs, y) -> None:
        skip_unless_right(lib, case.key[1])
