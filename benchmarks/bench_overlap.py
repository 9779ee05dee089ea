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

from types import SimpleNamespace

import dask
import dask.array as da
import numpy as np

import daskpad
import daskpad.dask

from .common import Case, _CaseSuite, _progress, asv_params, cases, tasks, total
from .sources import source

#: numpy.pad's mode, and dask's boundary for it (None: dask has none)
MODES = {"constant": 0.0, "edge": "nearest", "symmetric": "reflect", "wrap": "periodic"}
MODES_DASKPAD_ONLY = ("reflect",)
STENCILS = (3, 9)
#: a mode per axis, numpy's words (dask's boundary for it: ``MODES`` of each)
PER_AXIS = {0: "symmetric", 1: "wrap"}
#: the width of the per-axis pad compared with two chained pads
PAD = 64
THEIRS = "dask.map_overlap"


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


def _source(cfg) -> da.Array:
    if cfg.quick:
        return source((1_024, 1_024), (256, 256))
    return source((24_576, 24_576), (4_096, 4_096))


def _boundary(mode):
    """dask's boundary for numpy's mode, or for a mode per axis."""
    return {a: MODES[m] for a, m in mode.items()} if isinstance(mode, dict) else MODES[mode]


#: the k x k box filter with numpy's mode (or a mode per axis), through each library
OVERLAPS = {
    "daskpad": lambda x, k, mode: daskpad.map_overlap(box, x, k // 2, mode, k=k, dtype=np.float32),
    THEIRS: lambda x, k, mode: da.map_overlap(
        box, x, depth=k // 2, boundary=_boundary(mode), k=k, dtype=np.float32
    ),
}


def _stencil(mode, k: int, key: tuple) -> Case:
    return Case(key, _source, lambda fn, x: fn(x, k, mode), run=total, libs=OVERLAPS)


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
    run = daskpad.dask.map_overlap if lib == "daskpad" else da.map_overlap
    return run(weighted_difference, u, v, depth=depths, boundary=words, dtype=np.float32)


def _two(depths: str) -> Case:
    """Two arrays, u and v, through each library, with a halo of ``depths`` ("1,1")."""
    d = [int(n) for n in depths.split(",")]

    def inputs(cfg) -> SimpleNamespace:
        u = _source(cfg)
        return SimpleNamespace(u=u, v=u * np.float32(0.5) + np.float32(1))

    libs = {lib: lambda i, lib=lib: two_arrays(i.u, i.v, d, lib) for lib in OVERLAPS}
    return Case((depths,), inputs, lambda fn, i: fn(i), run=total, libs=libs)


def per_axis_pad(x: da.Array, calls: str) -> da.Array:
    """``x`` padded by ``PAD`` with :data:`PER_AXIS`, in one ``daskpad.pad`` call or in two
    chained ones (axis 0, then axis 1: numpy's order, so the same corners)."""
    if calls == "one call":
        return daskpad.pad(x, PAD, PER_AXIS)
    y = daskpad.pad(x, ((PAD, PAD), (0, 0)), PER_AXIS[0])
    return daskpad.pad(y, ((0, 0), (PAD, PAD)), PER_AXIS[1])


CALLS = {
    calls: lambda x, calls=calls: per_axis_pad(x, calls) for calls in ("one call", "two calls")
}
STENCIL = cases(*(_stencil(m, k, (m, k)) for m in MODES for k in STENCILS))
PER_AXIS_CASES = cases(*(_stencil(PER_AXIS, k, (k,)) for k in STENCILS))
PER_AXIS_PAD = cases(Case((), _source, lambda fn, x: fn(x), run=total, libs=CALLS))
TWO_ARRAYS = cases(_two("1,1"), _two("1,0"))


def _paired_row(cfg, head: dict, case: Case, inputs, libs=None, ratio="ratio (daskpad/dask)"):
    """``head`` and the time, memory and tasks of the case through each of its libraries
    (``libs``: {name: shown as}), timed in paired rounds; reported as progress."""
    libs = libs or {lib: lib for lib in case.libs}
    padded = case.padded(inputs, libs)
    got = case.timed(inputs, padded, cfg.repeat)
    row = dict(head)
    for lib, y in padded.items():
        row |= {f"{libs[lib]} s": got.median(lib), f"{libs[lib]} MB": got.median_mb(lib)}
        row[f"{libs[lib]} tasks"] = tasks(y)
    if len(padded) == 2:
        ours, other = padded
        row[ratio] = f"{got.median(ours) / got.median(other):.2f}x"
    _progress(cfg, "overlap", row)
    return row


def section_overlap(cfg) -> list[dict]:
    x = _source(cfg)
    array = f"{x.nbytes / 1e9:.2f} GB float32"
    rows = []
    with dask.config.set(scheduler="threads"):
        for k in STENCILS:
            for mode in (*MODES, *MODES_DASKPAD_ONLY):
                head = {"array": array, "stencil": f"{k} x {k}", "mode": mode}
                head["dask boundary"] = repr(MODES[mode]) if mode in MODES else "none"
                libs = None if mode in MODES else {"daskpad": "daskpad"}
                rows.append(_paired_row(cfg, head, _stencil(mode, k, ()), x, libs))
        for (k,), case in PER_AXIS_CASES.items():
            head = {"array": array, "stencil": f"{k} x {k}", "mode": repr(PER_AXIS)}
            head["dask boundary"] = repr(_boundary(PER_AXIS))
            rows.append(_paired_row(cfg, head, case, x))
        head = {"array": array, "stencil": f"daskpad.pad {PAD}, summed", "mode": repr(PER_AXIS)}
        (case,) = PER_AXIS_PAD.values()
        shown = {"one call": "daskpad", "two calls": "two daskpad.pad calls"}
        rows.append(_paired_row(cfg, head, case, x, shown, "ratio (one/two calls)"))
        for (depths,), case in TWO_ARRAYS.items():
            d = [int(n) for n in depths.split(",")]
            head = {
                "array": f"2 x {array}",
                "stencil": f"(u[j+1] - u[j-1]) * v, depths {d}",
                "mode": "wrap",
                "dask boundary": repr(["periodic" if n else "none" for n in d]),
            }
            rows.append(_paired_row(cfg, head, case, case.inputs(cfg)))
    return rows


class Stencil(_CaseSuite):
    """A box filter with a halo, reduced on local threads: daskpad.map_overlap with
    numpy's mode against dask.array.map_overlap with the matching boundary."""

    cases = STENCIL
    params, param_names = asv_params(list(OVERLAPS), STENCIL, "mode", "stencil")


class PerAxis(_CaseSuite):
    """A box filter with a boundary per axis (symmetric latitude, periodic longitude),
    reduced on local threads: daskpad.map_overlap against dask.array.map_overlap."""

    cases = PER_AXIS_CASES
    params, param_names = asv_params(list(OVERLAPS), PER_AXIS_CASES, "stencil")


class PerAxisPad(_CaseSuite):
    """A pad with a mode per axis in one daskpad.pad call against two chained calls,
    padded and reduced on local threads."""

    cases = PER_AXIS_PAD
    params, param_names = (list(CALLS),), ("calls",)


class TwoArrays(_CaseSuite):
    """A centred difference of u weighted by v, through daskpad.dask.map_overlap and
    dask.array.map_overlap (periodic; v with a halo of 1 or none), reduced on local
    threads."""

    cases = TWO_ARRAYS
    params, param_names = asv_params(list(OVERLAPS), TWO_ARRAYS, "depths")
