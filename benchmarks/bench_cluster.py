"""cluster: the pipeline scenario on a 2-worker LocalCluster (process workers).

By default on 12288 x 12288 (0.6 GB, 2048 x 2048 chunks), pad 64 (``run.py``'s
``--cluster-*`` options), pad+reduce and pad+store against the same pipeline unpadded.
asv: the ``--quick`` size (1024 x 1024 in 256 x 256 chunks, pad 8), one cluster started in
``setup`` for each timed call, so one sample per parameter combination.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from .bench_pipeline import _pipelines, pipeline_case
from .common import WITH_UNPADDED, local_cluster


def section_cluster(cfg) -> list[dict]:
    import distributed

    with local_cluster() as cluster, distributed.Client(cluster):
        if cfg.quick:
            return _pipelines(cfg, "cluster", ["reflect", "mean"], ["reflect"], cluster=True)
        modes = ["constant", "edge", "reflect", "wrap", "linear_ramp", "mean", "maximum"]
        return _pipelines(cfg, "cluster", modes, ["constant", "reflect", "mean"], cluster=True)


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


class ClusterPipeline:
    """pad+reduce and pad+store on a 2-worker LocalCluster, beside the same pipeline
    unpadded."""

    params = (WITH_UNPADDED, ["reduce", "store"], ["reflect", "mean"])
    param_names = ("library", "pipeline", "mode")
    # a cluster per sample: one sample, no warm-up rounds
    number = 1
    repeat = 1
    warmup_time = 0.0
    timeout = 180.0
    tmp: Path | None = None
    cluster: Any = None
    client: Any = None

    def setup(self, lib: str, pipeline: str, mode: str) -> None:
        import distributed

        self.tmp = Path(tempfile.mkdtemp(prefix="daskpad-bench-"))
        self.y, self.run = pipeline_case(lib, pipeline, mode, self.tmp, cluster=True)
        self.cluster = local_cluster()
        self.client = distributed.Client(self.cluster)

    def teardown(self, lib: str, pipeline: str, mode: str) -> None:
        # (asv calls it after a skipped setup too)
        if self.client is not None:
            self.client.close()
            self.cluster.close()
            self.client = self.cluster = None
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def time_pipeline(self, lib: str, pipeline: str, mode: str) -> None:
        self.run()
