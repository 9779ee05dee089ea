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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import dask.array as da
import numpy as np

import daskpad
from daskpad.core.chunks import regular_chunks

from .bench_correctness import skip_unless_right, verdict
from .common import ALL_MODES, LIBS, QUICK, UNPADDED, WITH_UNPADDED, _progress, _record, tasks
from .sources import source, store_zarr
from .timing import rounds


def _pipeline_geometry(cfg, cluster: bool = False):
    """(shape, chunks, pad width) of the lazily generated float32 source."""
    if cfg.quick:
        return (1_024, 1_024), (256, 256), 8
    if cluster:  # 12_288 / 2_048 / 64 by default: 0.6 GB
        n, c = cfg.cluster_side, cfg.cluster_chunk
        return (n, n), (c, c), cfg.cluster_width
    # the scale targets' "pad of 64 on a 3 GB lazily generated array": 3.3 GB, 7 x 7 chunks
    return (28_672, 28_672), (4_096, 4_096), 64


def _baselines(x: da.Array, tmp: Path) -> dict[str, Callable[[], Any]]:
    """Each pipeline without the pad."""
    return {
        "reduce": lambda: x.sum(dtype=np.float64).compute(),
        "store": lambda: store_zarr(x, str(tmp / "x.zarr"), x.chunks),
    }


def _padded_run(lib, fn, x, w, tmp: Path, pipeline: str, mode: str, policy):
    """(padded array, the pipeline on it) of one library."""
    if pipeline == "reduce":
        y = fn(x, w, mode)
        return y, lambda: y.sum(dtype=np.float64).compute()
    if lib == "daskpad":  # its own writer, in the policy's chunks
        y = daskpad.pad(x, w, mode, chunks=policy)
        return y, lambda: daskpad.to_zarr(y, tmp / "daskpad.zarr", overwrite=True)
    # dask.array.pad's result rechunked to the same chunks
    y = fn(x, w, mode)
    target = regular_chunks(x.chunks, y.shape, even=policy == "even")
    return y, lambda: store_zarr(y, str(tmp / f"{lib}.zarr"), target)


def _pipeline_cases(modes: list[str], store_modes: list[str]):
    """(pipeline, mode, chunk policy) of every row."""
    return [("reduce", mode, None) for mode in modes] + [
        ("store", mode, policy) for policy in ("regular", "even") for mode in store_modes
    ]


def _pipelines(cfg, label: str, modes: list[str], store_modes: list[str], cluster=False):
    shape, chunks, w = _pipeline_geometry(cfg, cluster)
    x = source(shape, chunks)
    padded_bytes = math.prod(n + 2 * w for n in shape) * 4
    byte_ratio = padded_bytes / x.nbytes
    tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-", dir=cfg.tmp))
    rows = []
    baselines = _baselines(x, tmp)
    try:
        for pipeline, mode, policy in _pipeline_cases(modes, store_modes):
            row: dict[str, Any] = {
                "pipeline": f"pad+{pipeline}",
                "mode": mode if policy is None else f"{mode} chunks={policy}",
            }
            runs: dict[str, Callable[[], Any]] = {"unpadded": baselines[pipeline]}
            padded: dict[str, da.Array] = {}
            for lib, fn in LIBS.items():
                if verdict(lib, mode) == "unsupported":
                    continue
                case = _padded_run(lib, fn, x, w, tmp, pipeline, mode, policy)
                if case is not None:
                    padded[lib], runs[lib] = case
            # each case is timed in turn with its own unpadded baseline, round by round
            got = rounds(runs, cfg.repeat)
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
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def section_pipeline(cfg) -> list[dict]:
    with dask.config.set(scheduler="threads"):
        return _pipelines(cfg, "pipeline", ALL_MODES, ["constant", "reflect", "wrap", "mean"])


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


def pipeline_case(lib: str, pipeline: str, mode: str, tmp: Path, cluster: bool = False):
    """(the array the pipeline reads, the pipeline) of one library at the ``--quick`` size,
    stores chunked "regular"; skips (NotImplementedError) what the report leaves out."""
    shape, chunks, w = _pipeline_geometry(QUICK, cluster)
    x = source(shape, chunks)
    if lib == UNPADDED:
        return x, _baselines(x, tmp)[pipeline]
    skip_unless_right(lib, mode)
    return _padded_run(lib, LIBS[lib], x, w, tmp, pipeline, mode, "regular")


class Pipeline:
    """pad+reduce and pad+store on local threads, beside the same pipeline unpadded."""

    params = (
        WITH_UNPADDED,
        ["reduce", "store"],
        ["constant", "reflect", "wrap", "mean"],
    )
    param_names = ("library", "pipeline", "mode")
    tmp: Path | None = None

    def setup(self, lib: str, pipeline: str, mode: str) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-"))
        self.y, self.run = pipeline_case(lib, pipeline, mode, self.tmp)

    def teardown(self, lib: str, pipeline: str, mode: str) -> None:
        # (asv calls it after a skipped setup too)
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def time_pipeline(self, lib: str, pipeline: str, mode: str) -> None:
        with dask.config.set(scheduler="threads"):
            self.run()

    def peakmem_pipeline(self, lib: str, pipeline: str, mode: str) -> None:
        with dask.config.set(scheduler="threads"):
            self.run()

    def track_tasks(self, lib: str, pipeline: str, mode: str) -> int:
        """Tasks in the graph of the array the pipeline reads (the input's included)."""
        return tasks(self.y)

    track_tasks.unit = "tasks"
