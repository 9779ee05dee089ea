"""overlap: a 3 x 3 and a 9 x 9 box filter through ``daskpad.map_overlap`` and
``dask.array.map_overlap`` with the matching boundary, side by side, on a lazily generated
float32 array (24576 x 24576, 2.4 GB, in 4096 x 4096 chunks; ``--quick``: 1024 x 1024 in
256 x 256), reduced on local threads: time and peak memory, paired rounds.

dask names numpy's ``edge`` "nearest", ``symmetric`` "reflect" and ``wrap`` "periodic";
numpy's ``reflect`` (the edge not repeated) it does not have: that row is daskpad's alone.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np

import daskpad

from .common import QUICK, _progress, lazy_source, tasks, timed_together

#: numpy.pad's mode, and dask's boundary for it (None: dask has none)
MODES = {"constant": 0.0, "edge": "nearest", "symmetric": "reflect", "wrap": "periodic"}
MODES_DASKPAD_ONLY = ("reflect",)
STENCILS = (3, 9)


def box(block: np.ndarray, k: int) -> np.ndarray:
    """The mean over a k x k window around each point (separable: k shifted sums per
    axis); points within k // 2 of the block's edge see a wrapped window (trimmed)."""
    out = block.astype(np.float32, copy=True)
    r = k // 2
    for axis in (0, 1):
        acc = out.copy()
        for s in range(1, r + 1):
            acc += np.roll(out, s, axis) + np.roll(out, -s, axis)
        out = acc
    return out / (k * k)


def _geometry(cfg):
    if cfg.quick:
        return (1_024, 1_024), (256, 256)
    return (24_576, 24_576), (4_096, 4_096)


def section_overlap(cfg) -> list[dict]:
    x = lazy_source(*_geometry(cfg))
    rows = []
    with dask.config.set(scheduler="threads"):
        for k in STENCILS:
            depth = k // 2
            for mode in (*MODES, *MODES_DASKPAD_ONLY):
                ours = daskpad.map_overlap(box, x, depth, mode, k=k, dtype=np.float32)
                cases = {"daskpad": lambda y=ours: y.sum(dtype=np.float64).compute()}
                theirs = None
                if mode in MODES:
                    theirs = da.map_overlap(
                        box, x, depth=depth, boundary=MODES[mode], k=k, dtype=np.float32
                    )
                    cases["dask.map_overlap"] = lambda y=theirs: y.sum(dtype=np.float64).compute()
                got = timed_together(cases, repeat=cfg.repeat)
                row = {
                    "array": f"{x.nbytes / 1e9:.2f} GB float32",
                    "stencil": f"{k} x {k}",
                    "mode": mode,
                    "dask boundary": repr(MODES[mode]) if mode in MODES else "none",
                    "daskpad s": got["daskpad"][0],
                    "daskpad MB": got["daskpad"][1],
                    "daskpad tasks": tasks(ours),
                }
                if theirs is not None:
                    t, m = got["dask.map_overlap"]
                    row |= {
                        "dask.map_overlap s": t,
                        "dask.map_overlap MB": m,
                        "dask.map_overlap tasks": tasks(theirs),
                        "ratio (daskpad/dask)": f"{got['daskpad'][0] / t:.2f}x",
                    }
                rows.append(row)
                _progress(cfg, "overlap", row)
    return rows


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class Stencil:
    """A box filter with a halo, reduced on local threads: daskpad.map_overlap with
    numpy's mode against dask.array.map_overlap with the matching boundary."""

    params = (["daskpad", "dask.map_overlap"], list(MODES), list(STENCILS))
    param_names = ("library", "mode", "stencil")

    def setup(self, lib: str, mode: str, k: int) -> None:
        x = lazy_source(*_geometry(QUICK))
        if lib == "daskpad":
            self.y = daskpad.map_overlap(box, x, k // 2, mode, k=k, dtype=np.float32)
        else:
            self.y = da.map_overlap(
                box, x, depth=k // 2, boundary=MODES[mode], k=k, dtype=np.float32
            )

    def time_stencil_sum(self, lib: str, mode: str, k: int) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.sum(dtype=np.float64).compute()

    def peakmem_stencil_sum(self, lib: str, mode: str, k: int) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.sum(dtype=np.float64).compute()

    def track_tasks(self, lib: str, mode: str, k: int) -> int:
        return tasks(self.y)

    track_tasks.unit = "tasks"
