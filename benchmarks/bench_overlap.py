"""overlap: a 3 x 3 and a 9 x 9 box filter through ``daskpad.map_overlap`` and
``dask.array.map_overlap`` with the matching boundary, side by side, on a lazily generated
float32 array (24576 x 24576, 2.4 GB, in 4096 x 4096 chunks; ``--quick``: 1024 x 1024 in
256 x 256), reduced on local threads: time and peak memory, paired rounds.

dask names numpy's ``edge`` "nearest", ``symmetric`` "reflect" and ``wrap`` "periodic";
numpy's ``reflect`` (the edge not repeated) it does not have: that row is daskpad's alone.

A boundary per axis: the same filters with ``mode={0: "symmetric", 1: "wrap"}`` against
dask's ``boundary={0: "reflect", 1: "periodic"}`` (time, memory, tasks); and one
``daskpad.pad`` with that mode per axis (widths of ``PAD``) against the two chained
``daskpad.pad`` calls, one axis each, padded and reduced (time, memory, tasks).

Two arrays: a centred difference of u along axis 1 weighted by v, periodic, through
``daskpad.dask.map_overlap`` and ``dask.array.map_overlap`` in the same words, both arrays
with a halo of 1 and v with none (time, memory, tasks).
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np

import daskpad
import daskpad.dask

from .common import QUICK, _progress, tasks
from .sources import source
from .timing import rounds

#: numpy.pad's mode, and dask's boundary for it (None: dask has none)
MODES = {"constant": 0.0, "edge": "nearest", "symmetric": "reflect", "wrap": "periodic"}
MODES_DASKPAD_ONLY = ("reflect",)
STENCILS = (3, 9)
#: a mode per axis, numpy's words, and dask's boundary for it
PER_AXIS = {0: "symmetric", 1: "wrap"}
PER_AXIS_DASK = {0: "reflect", 1: "periodic"}
#: the width of the per-axis pad compared with two chained pads
PAD = 64


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


def _summed(y: da.Array):
    return lambda: y.sum(dtype=np.float64).compute()


def _paired_row(
    cfg,
    head: dict,
    ours: da.Array,
    theirs: da.Array | None,
    other: str = "dask.map_overlap",
    ratio: str = "ratio (daskpad/dask)",
) -> dict:
    """``head`` and the time, memory and tasks of summing ``ours`` (daskpad) and, unless
    None, ``theirs`` (``other``), timed in paired rounds; reported as progress."""
    cases = {"daskpad": _summed(ours)}
    if theirs is not None:
        cases[other] = _summed(theirs)
    got = rounds(cases, cfg.repeat)
    row = head | {
        "daskpad s": got.median("daskpad"),
        "daskpad MB": got.median_mb("daskpad"),
        "daskpad tasks": tasks(ours),
    }
    if theirs is not None:
        row |= {
            f"{other} s": got.median(other),
            f"{other} MB": got.median_mb(other),
            f"{other} tasks": tasks(theirs),
            ratio: f"{got.median('daskpad') / got.median(other):.2f}x",
        }
    _progress(cfg, "overlap", row)
    return row


def section_overlap(cfg) -> list[dict]:
    x = source(*_geometry(cfg))
    rows = []
    with dask.config.set(scheduler="threads"):
        for k in STENCILS:
            depth = k // 2
            for mode in (*MODES, *MODES_DASKPAD_ONLY):
                ours = daskpad.map_overlap(box, x, depth, mode, k=k, dtype=np.float32)
                theirs = None
                if mode in MODES:
                    theirs = da.map_overlap(
                        box, x, depth=depth, boundary=MODES[mode], k=k, dtype=np.float32
                    )
                head = {
                    "array": f"{x.nbytes / 1e9:.2f} GB float32",
                    "stencil": f"{k} x {k}",
                    "mode": mode,
                    "dask boundary": repr(MODES[mode]) if mode in MODES else "none",
                }
                rows.append(_paired_row(cfg, head, ours, theirs))
        rows += _per_axis_rows(cfg, x)
        rows += _two_array_rows(cfg, x)
    return rows


def weighted_difference(bu: np.ndarray, bv: np.ndarray) -> np.ndarray:
    """The centred difference of u along axis 1 weighted by v, on u's block (a halo of 1
    on every side, trimmed); v's block has the same halo or none."""
    out = np.zeros_like(bu)
    v = bv[1:-1, 1:-1] if bv.shape == bu.shape else bv
    out[1:-1, 1:-1] = (bu[1:-1, 2:] - bu[1:-1, :-2]) * v
    return out


def two_arrays(u: da.Array, v: da.Array, depths: list[int], lib: str) -> da.Array:
    """:func:`weighted_difference` of ``u`` and ``v`` with a halo of ``depths`` (one per
    array), periodic at the edges, through ``lib``."""
    words = ["periodic" if d else "none" for d in depths]
    if lib == "daskpad":
        run = daskpad.dask.map_overlap
    else:
        run = da.map_overlap
    return run(weighted_difference, u, v, depth=depths, boundary=words, dtype=np.float32)


def _two_array_rows(cfg, u: da.Array) -> list[dict]:
    """Two arrays, u and v, through each library: both with a halo of 1, and v with none."""
    v = u * np.float32(0.5) + np.float32(1)
    rows = []
    for depths in ([1, 1], [1, 0]):
        ours, theirs = (two_arrays(u, v, depths, lib) for lib in ("daskpad", "dask"))
        head = {
            "array": f"2 x {u.nbytes / 1e9:.2f} GB float32",
            "stencil": f"(u[j+1] - u[j-1]) * v, depths {depths}",
            "mode": "wrap",
            "dask boundary": repr(["periodic" if d else "none" for d in depths]),
        }
        rows.append(_paired_row(cfg, head, ours, theirs))
    return rows


def per_axis_overlap(x: da.Array, k: int, lib: str) -> da.Array:
    """The k x k box filter with a boundary per axis, through ``lib``."""
    if lib == "daskpad":
        return daskpad.map_overlap(box, x, k // 2, PER_AXIS, k=k, dtype=np.float32)
    return da.map_overlap(box, x, depth=k // 2, boundary=PER_AXIS_DASK, k=k, dtype=np.float32)


def per_axis_pad(x: da.Array, calls: str) -> da.Array:
    """``x`` padded by ``PAD`` with :data:`PER_AXIS`, in one ``daskpad.pad`` call or in two
    chained ones (axis 0, then axis 1: numpy's order, so the same corners)."""
    if calls == "one call":
        return daskpad.pad(x, PAD, PER_AXIS)
    y = daskpad.pad(x, ((PAD, PAD), (0, 0)), PER_AXIS[0])
    return daskpad.pad(y, ((0, 0), (PAD, PAD)), PER_AXIS[1])


def _per_axis_rows(cfg, x: da.Array) -> list[dict]:
    rows = []
    array, shown = f"{x.nbytes / 1e9:.2f} GB float32", repr(PER_AXIS)
    for k in STENCILS:
        ours, theirs = (per_axis_overlap(x, k, lib) for lib in ("daskpad", "dask"))
        head = {
            "array": array,
            "stencil": f"{k} x {k}",
            "mode": shown,
            "dask boundary": repr(PER_AXIS_DASK),
        }
        rows.append(_paired_row(cfg, head, ours, theirs))
    one, two = per_axis_pad(x, "one call"), per_axis_pad(x, "two calls")
    head = {"array": array, "stencil": f"daskpad.pad {PAD}, summed", "mode": shown}
    rows.append(_paired_row(cfg, head, one, two, "two daskpad.pad calls", "ratio (one/two calls)"))
    return rows


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class _Summed:
    """asv benchmarks of ``self.y`` (made by ``setup``): its tasks, and its sum on local
    threads for the subclass's time and memory benchmarks."""

    y: da.Array

    def _sum(self) -> None:
        with dask.config.set(scheduler="threads"):
            self.y.sum(dtype=np.float64).compute()

    def track_tasks(self, *params) -> int:
        return tasks(self.y)

    track_tasks.unit = "tasks"


class _StencilSum(_Summed):
    def time_stencil_sum(self, *params) -> None:
        self._sum()

    def peakmem_stencil_sum(self, *params) -> None:
        self._sum()


class Stencil(_StencilSum):
    """A box filter with a halo, reduced on local threads: daskpad.map_overlap with
    numpy's mode against dask.array.map_overlap with the matching boundary."""

    params = (["daskpad", "dask.map_overlap"], list(MODES), list(STENCILS))
    param_names = ("library", "mode", "stencil")

    def setup(self, lib: str, mode: str, k: int) -> None:
        x = source(*_geometry(QUICK))
        if lib == "daskpad":
            self.y = daskpad.map_overlap(box, x, k // 2, mode, k=k, dtype=np.float32)
        else:
            self.y = da.map_overlap(
                box, x, depth=k // 2, boundary=MODES[mode], k=k, dtype=np.float32
            )


class PerAxis(_StencilSum):
    """A box filter with a boundary per axis (symmetric latitude, periodic longitude),
    reduced on local threads: daskpad.map_overlap against dask.array.map_overlap."""

    params = (["daskpad", "dask.map_overlap"], list(STENCILS))
    param_names = ("library", "stencil")

    def setup(self, lib: str, k: int) -> None:
        self.y = per_axis_overlap(source(*_geometry(QUICK)), k, lib)


class PerAxisPad(_Summed):
    """A pad with a mode per axis in one daskpad.pad call against two chained calls,
    padded and reduced on local threads."""

    params = (["one call", "two calls"],)
    param_names = ("calls",)

    def setup(self, calls: str) -> None:
        self.y = per_axis_pad(source(*_geometry(QUICK)), calls)

    def time_pad_sum(self, calls: str) -> None:
        self._sum()


class TwoArrays(_StencilSum):
    """A centred difference of u weighted by v, through daskpad.dask.map_overlap and
    dask.array.map_overlap (periodic; v with a halo of 1 or none), reduced on local
    threads."""

    params = (["daskpad", "dask.map_overlap"], ["1,1", "1,0"])
    param_names = ("library", "depths")

    def setup(self, lib: str, depths: str) -> None:
        u = source(*_geometry(QUICK))
        v = u * np.float32(0.5) + np.float32(1)
        self.y = two_arrays(u, v, [int(d) for d in depths.split(",")], lib)
