"""big: a lazily generated float32 array larger than this machine's memory, padded in
every mode and reduced on local threads, with peak resident memory; daskpad only.

``--big-gb`` (48 by default) in 4096 x 4096 chunks, pad 256; each mode is timed right after
the same sum unpadded, its baseline. ``median`` reads 256 elements at each edge
(``median:256``): a whole-axis median holds whole lines along each axis in turn, about the
whole array (``--big-modes median`` runs it). asv: the ``--quick`` size (0.03 GB in
256 x 256 chunks, pad 16), "unpadded" shown as one more library.
"""

from __future__ import annotations

import math

import dask
import numpy as np

import daskpad

from .common import ALL_MODES, QUICK, UNPADDED, _progress, _record, tasks
from .sources import source
from .timing import rounds

# the bigger-than-memory modes: a whole-axis median would hold about the whole array
BIG_MODES = [m for m in ALL_MODES if m != "median"] + ["median:256"]


def _big_geometry(cfg):
    """(side, chunk side, pad width) of the square source."""
    gb = 0.03 if cfg.quick else cfg.big_gb
    side = int(math.sqrt(gb * 1e9 / 4))
    side -= side % 4_096 if not cfg.quick else side % 256
    c = 256 if cfg.quick else 4_096
    w = 256 if not cfg.quick else 16
    return side, c, w


def _big_pad(x, w: int, mode: str):
    """daskpad.pad of one BIG_MODES entry ("name" or "name:stat_length")."""
    name, _, length = mode.partition(":")
    kwargs = {"stat_length": int(length)} if length else {}
    return daskpad.pad(x, w, name, **kwargs)


def section_big(cfg) -> list[dict]:
    side, c, w = _big_geometry(cfg)
    x = source((side, side), (c, c))
    rows = []
    with dask.config.set(scheduler="threads"):
        for mode in cfg.big_modes or BIG_MODES:
            name, _, length = mode.partition(":")
            y = _big_pad(x, w, mode)
            # each mode right after its own unpadded baseline (this VM drifts by 10-30%)
            got = rounds(
                {
                    "unpadded": lambda: x.sum(dtype=np.float64).compute(),
                    "daskpad": lambda y=y: y.sum(dtype=np.float64).compute(),
                },
                cfg.repeat,
            )
            label = f"{name} stat_length={length}" if length else mode
            row = {"mode": label, "GB": y.nbytes / 1e9, "unpadded s": got.median("unpadded")}
            row["unpadded MB"] = got.median_mb("unpadded")
            t, m = got.median("daskpad"), got.median_mb("daskpad")
            _record(row, "daskpad", t, m, y, True, rss=got.rss["daskpad"])
            rows.append(row)
            _progress(cfg, "big", row)
    return rows


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class Big:
    """Pad + sum of a lazily generated array, beside the same sum unpadded."""

    params = ([UNPADDED, "daskpad"], BIG_MODES)
    param_names = ("library", "mode")

    def setup(self, lib: str, mode: str) -> None:
        side, c, w = _big_geometry(QUICK)
        x = source((side, side), (c, c))
        self.y = x if lib == UNPADDED else _big_pad(x, w, mode)

    def time_sum(self, lib: str, mode: str) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.sum(dtype=np.float64).compute()

    def peakmem_sum(self, lib: str, mode: str) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.sum(dtype=np.float64).compute()

    def track_tasks(self, lib: str, mode: str) -> int:
        return tasks(self.y)

    track_tasks.unit = "tasks"
