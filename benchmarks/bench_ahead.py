"""ahead: pad + sum, daskpad beside dask.array.pad in the same run, each as a ratio to the
unpadded sum, in interleaved rounds (the unpadded sum and each library in a rotating order
each round), the median of the per-round ratios. ``--ahead-modes LABEL ...`` runs those
rows alone (``edge``, ``"mean stat_length=16"``, ...: the labels of :data:`MODES`), and
``--ahead-in-memory`` leaves out the cluster's rows.

Geometries: pad 64 on 20000 x 20000 float64 in chunks of 2000 (the slab modes'
everyday case), and pads wider than the chunks: 1500 on 3000 x 3000 in chunks of 250 and
3000 on 12000 x 12000 in chunks of 500; and pad 64 on 20000 x 20000 float32 read from a
zarr store on a 2-worker LocalCluster (process workers, one thread each).
``--quick``: 1024 x 1024 in chunks of 128, pad 8, and 384 x 384 in chunks of 32, pad 192.
The source is ``sources.source`` in float64, generated block by block. Targets (the "target" and
"met" columns): daskpad's ratio at most dask.array.pad's + 0.03 where dask.array.pad's
sum is right (it equals numpy.pad's, here: daskpad's, which the parity suites hold to
numpy.pad); in the first geometry also at most 1.10 for every mode that reads a slab of
the edge or nothing (every row but the whole-axis statistic) and 1.3 for the whole-axis
statistic.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import dask
import dask.array as da
import numpy as np

from .common import (
    DASK,
    UNPADDED,
    WITH_UNPADDED,
    Case,
    _CaseSuite,
    _progress,
    asv_params,
    cases,
    local_cluster,
    total,
)
from .sources import source
from .timing import rounds

#: (label, mode, keywords): every mode family, with the statistics' slab and whole axis
MODES: list[tuple[str, str, dict[str, Any]]] = [
    ("constant", "constant", {}),
    ("edge", "edge", {}),
    ("reflect", "reflect", {}),
    ("symmetric", "symmetric", {}),
    ("wrap", "wrap", {}),
    ("mean stat_length=16", "mean", {"stat_length": 16}),
    ("median stat_length=16", "median", {"stat_length": 16}),
    ("linear_ramp", "linear_ramp", {}),
    ("mean (whole axis)", "mean", {}),
]


def square(n: int, chunk: int) -> da.Array:
    """The float64 source, ``n x n`` in chunks of ``chunk``."""
    return source((n, n), chunk, np.float64)


def _total(y: da.Array, *_: Any) -> float:
    """The pipeline timed: the sum, accumulated in float64 whatever the dtype, so that the
    two libraries' sums of float32 data compare to 1e-9."""
    return float(total(y))


def _case(label: str, mode: str, kwargs: dict, scheduler: str | None = "threads") -> Case:
    """pad + sum beside the unpadded sum; its inputs ``x`` and ``w`` at the ``--quick``
    size are pad 8 on 1024², chunks 128 (``section_ahead`` sets its own geometries)."""
    return Case(
        (label,),
        inputs=lambda cfg: SimpleNamespace(x=square(1024, 128), w=8),
        pad=lambda fn, i: fn(i.x, i.w, mode, **kwargs),
        anchor=lambda i: _total(i.x),
        run=_total,
        scheduler=scheduler,
    )


CASES = cases(*(_case(*m) for m in MODES))


def _rows(
    cfg: Any,
    geometry: str,
    make: Callable[[], da.Array],
    width: int,
    repeat: int,
    everyday: bool,
    scheduler: str | None = "threads",
) -> list[dict]:
    """One row per case; ``make()`` gives the input, ``scheduler`` None: the active
    client's."""
    rows = []
    for label, mode, kwargs in MODES:
        if cfg.ahead_modes and label not in cfg.ahead_modes:
            continue
        case, i = _case(label, mode, kwargs, scheduler), SimpleNamespace(x=make(), w=width)
        padded = case.padded(i, tried=True)
        theirs = padded.get(DASK)
        got = case.timed(i, padded, repeat, anchor="unpadded", memory=False)
        ratio = {lib: got.ratio(lib, "unpadded") for lib in padded}
        results = got.results
        right = theirs is not None and bool(
            np.isclose(results[DASK], results["daskpad"], rtol=1e-9)
        )
        row: dict[str, Any] = {
            "geometry": geometry,
            "mode": label,
            "unpadded s": got.median("unpadded"),
            "daskpad ratio": ratio["daskpad"],
            DASK + " ratio": (
                ratio[DASK] if right else ("wrong" if theirs is not None else "none")
            ),
        }
        bars = [ratio[DASK] + 0.03] if right else []
        whole_axis = mode == "mean" and "stat_length" not in kwargs
        if everyday:
            bars.append(1.3 if whole_axis else 1.10)
        target = min(bars) if bars else None
        row["target"] = target
        row["met"] = "-" if target is None else ("yes" if ratio["daskpad"] <= target else "no")
        _progress(cfg, "ahead", row)
        rows.append(row)
    return rows


def _slab_reads(x: da.Array, width: int) -> float:
    """The sum of ``x`` and, in the same computation, the sums of its four edge slabs
    ``width`` wide: no pad, plain dask, only the reads a slab mode adds (every edge block
    read by two tasks, so dask cannot fuse its making into its sum)."""
    slabs = [x[:width], x[-width:], x[:, :width], x[:, -width:]]
    sums = dask.compute(*(a.sum(dtype=np.float64) for a in [x, *slabs]))
    return float(sum(sums))


def _slab_reads_row(cfg: Any, geometry: str, x: da.Array, width: int, repeat: int) -> dict:
    """The floor under a slab mode's ratio: plain dask's sum that also reads the edge slabs
    (:func:`_slab_reads`), as a ratio to the unpadded sum in the same rounds."""
    fns = {"unpadded": lambda: _total(x), "reads": lambda: _slab_reads(x, width)}
    with dask.config.set(scheduler="threads"):
        got = rounds(fns, repeat, memory=False)
    row = {
        "geometry": geometry,
        "mode": f"(no pad) the sum and its {width}-wide edge slabs' sums, plain dask",
        "unpadded s": got.median("unpadded"),
        "daskpad ratio": "-",
        "dask.array.pad ratio": "-",
        "slab reads ratio": got.ratio("reads", "unpadded"),
        "target": None,
        "met": "-",
    }
    _progress(cfg, "ahead", row)
    return row


def section_ahead(cfg: Any) -> list[dict]:
    repeat = max(cfg.repeat, 1 if cfg.quick else 7)
    if cfg.quick:
        geometries = [
            ("pad 8 on 1024², chunks 128", 1024, 128, 8),
            ("pad 192 on 384², chunks 32", 384, 32, 192),
        ]
    else:
        geometries = [
            ("pad 64 on 20000², chunks 2000", 20_000, 2_000, 64),
            ("pad 1500 on 3000², chunks 250", 3_000, 250, 1_500),
            ("pad 3000 on 12000², chunks 500", 12_000, 500, 3_000),
        ]
    rows = []
    for k, (geometry, n, chunk, width) in enumerate(geometries):
        make = functools.partial(square, n, chunk)
        rows += _rows(cfg, geometry, make, width, repeat, everyday=k == 0)
        if k == 0 and not cfg.ahead_modes:
            rows.append(_slab_reads_row(cfg, geometry, make(), width, repeat))
    if not cfg.quick and not cfg.ahead_in_memory:
        rows += _cluster_rows(cfg, repeat)
    return rows


def _cluster_rows(cfg: Any, repeat: int) -> list[dict]:
    """pad 64 on 20000² float32 read from a zarr store (zarr's default codec, 1.6 GB), on
    a 2-worker LocalCluster with one thread per worker process."""
    import distributed

    tmp = Path(tempfile.mkdtemp(prefix="daskpad-ahead-", dir=cfg.tmp))
    try:
        where = str(tmp / "source.zarr")
        with dask.config.set(scheduler="threads"):
            da.to_zarr(square(20_000, 2_000).astype(np.float32), where)
        with local_cluster() as cluster, distributed.Client(cluster):
            geometry = "pad 64 on a 20000² float32 zarr store, chunks 2000, 2 workers"
            return _rows(
                cfg,
                geometry,
                lambda: da.from_zarr(where),
                64,
                repeat,
                everyday=False,
                scheduler=None,
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class AheadPadSum(_CaseSuite):
    """pad + sum at the ``--quick`` size (pad 8 on 1024², chunks 128), beside the unpadded
    sum ("unpadded" as one more library)."""

    cases = CASES
    anchor = UNPADDED
    params, param_names = asv_params(WITH_UNPADDED, CASES, "mode")
