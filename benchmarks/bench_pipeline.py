"""pipeline: pad+reduce and pad+store (zarr) of a lazily generated float32 array, local
threads, against the same pipeline without padding.

Pad 64 on 28672 x 28672 (3.3 GB, 4096 x 4096 chunks), the scale targets' "3 GB" case.
"pad+store": into a new zarr store with zarr's default codec (zstd), daskpad's result with
``daskpad.to_zarr`` (default memory), dask.array.pad's rechunked to the same chunks and
stored with ``dask.array.to_zarr``, as is the unpadded array. In the report each case is
run in turn with its unpadded baseline, round by round, so both see the same machine.
asv: 1024 x 1024 in 256 x 256 chunks, pad 8 (the ``--quick`` size),
"unpadded" shown as one more library beside daskpad and dask.array.pad.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import dask

import daskpad
from daskpad.core.chunks import regular_chunks

from .bench_correctness import skip_unless_right, verdict
from .common import (
    ALL_MODES,
    LIBS,
    WITH_UNPADDED,
    Case,
    _CaseSuite,
    _progress,
    _record,
    asv_params,
    cases,
    total,
)
from .sources import source, store_zarr


def _inputs(cfg, cluster: bool = False) -> SimpleNamespace:
    """The lazily generated float32 source ``x``, the pad width ``w`` and a new temporary
    directory ``tmp`` for the stores."""
    if cfg.quick:
        shape, chunks, w = (1_024, 1_024), (256, 256), 8
    elif cluster:  # 12_288 / 2_048 / 64 by default: 0.6 GB
        n, c = cfg.cluster_side, cfg.cluster_chunk
        shape, chunks, w = (n, n), (c, c), cfg.cluster_width
    else:  # the scale targets' "pad of 64 on a 3 GB lazily generated array": 3.3 GB
        shape, chunks, w = (28_672, 28_672), (4_096, 4_096), 64
    tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-", dir=cfg.tmp))
    return SimpleNamespace(x=source(shape, chunks), w=w, tmp=tmp)


def _unpadded(pipeline: str, i: SimpleNamespace) -> Any:
    """The pipeline without the pad."""
    if pipeline == "reduce":
        return total(i.x)
    return store_zarr(i.x, str(i.tmp / "x.zarr"), i.x.chunks)


def _store(y, i: SimpleNamespace, lib: str, policy: str) -> Any:
    """daskpad's result with its own writer; dask.array.pad's rechunked to the same
    chunks."""
    if lib == "daskpad":
        return daskpad.to_zarr(y, i.tmp / "daskpad.zarr", overwrite=True)
    target = regular_chunks(i.x.chunks, y.shape, even=policy == "even")
    return store_zarr(y, str(i.tmp / f"{lib}.zarr"), target)


def pipeline_case(pipeline: str, mode: str, policy: str | None, cluster: bool = False) -> Case:
    """pad+reduce, or pad+store with daskpad's result in the chunk ``policy``."""

    def pad(fn, i: SimpleNamespace):
        if pipeline == "store" and fn is daskpad.pad:
            return daskpad.pad(i.x, i.w, mode, chunks=policy)
        return fn(i.x, i.w, mode)

    return Case(
        (pipeline, mode),
        inputs=lambda cfg: _inputs(cfg, cluster),
        pad=pad,
        anchor=lambda i: _unpadded(pipeline, i),
        run=total if pipeline == "reduce" else lambda y, i, lib: _store(y, i, lib, policy),
        scheduler=None if cluster else "threads",
    )


def _pipeline_cases(modes: list[str], store_modes: list[str]):
    """(pipeline, mode, chunk policy) of every row."""
    return [("reduce", mode, None) for mode in modes] + [
        ("store", mode, policy) for policy in ("regular", "even") for mode in store_modes
    ]


def _pipelines(cfg, label: str, modes: list[str], store_modes: list[str], cluster=False):
    i = _inputs(cfg, cluster)
    byte_ratio = math.prod(n + 2 * i.w for n in i.x.shape) / math.prod(i.x.shape)
    rows = []
    try:
        for pipeline, mode, policy in _pipeline_cases(modes, store_modes):
            row: dict[str, Any] = {
                "pipeline": f"pad+{pipeline}",
                "mode": mode if policy is None else f"{mode} chunks={policy}",
            }
            case = pipeline_case(pipeline, mode, policy, cluster)
            padded = case.padded(i, [lib for lib in LIBS if verdict(lib, mode) != "unsupported"])
            # each case is timed in turn with its own unpadded baseline, round by round
            got = case.timed(i, padded, cfg.repeat, anchor="unpadded")
            row["unpadded s"] = got.median("unpadded")
            row["unpadded MB"] = got.median_mb("unpadded")
            row["bytes ratio"] = byte_ratio
            for lib in LIBS:
                if lib not in padded:
                    row[f"{lib} s"] = "unsupported"
                    continue
                t, m = got.median(lib), got.median_mb(lib)
                _record(row, lib, t, m, padded[lib], verdict(lib, mode) == "ok")
            rows.append(row)
            _progress(cfg, label, row)
    finally:
        shutil.rmtree(i.tmp, ignore_errors=True)
    return rows


def section_pipeline(cfg) -> list[dict]:
    with dask.config.set(scheduler="threads"):
        return _pipelines(cfg, "pipeline", ALL_MODES, ["constant", "reflect", "wrap", "mean"])


def asv_cases(modes: list[str], cluster: bool = False) -> dict[tuple, Case]:
    """pad+reduce and pad+store (chunks "regular") in each mode, at the ``--quick`` size."""
    return cases(
        *(
            pipeline_case(pipeline, mode, "regular" if pipeline == "store" else None, cluster)
            for pipeline in ("reduce", "store")
            for mode in modes
        )
    )


class Pipeline(_CaseSuite):
    """pad+reduce and pad+store on local threads, beside the same pipeline unpadded; the
    tasks are those of the graph the pipeline reads (the input's included)."""

    cases = asv_cases(["constant", "reflect", "wrap", "mean"])
    anchor = "unpadded"
    params, param_names = asv_params(WITH_UNPADDED, cases, "pipeline", "mode")

    def check(self, lib, case, inputs, y) -> None:
        skip_unless_right(lib, case.key[1])
