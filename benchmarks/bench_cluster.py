"""cluster: the pipeline scenario on a 2-worker LocalCluster (process workers).

By default on 12288 x 12288 (0.6 GB, 2048 x 2048 chunks), pad 64 (``run.py``'s
``--cluster-*`` options), pad+reduce and pad+store against the same pipeline unpadded.
asv: the ``--quick`` size (1024 x 1024 in 256 x 256 chunks, pad 8), one cluster started in
``setup`` for each timed call, so one sample per parameter combination.
"""

from __future__ import annotations

from typing import Any

from . import bench_pipeline
from .bench_pipeline import _pipelines, asv_cases
from .common import WITH_UNPADDED, asv_params, local_cluster


def section_cluster(cfg) -> list[dict]:
    import distributed

    with local_cluster() as cluster, distributed.Client(cluster):
        if cfg.quick:
            return _pipelines(cfg, "cluster", ["reflect", "mean"], ["reflect"], cluster=True)
        modes = ["constant", "edge", "reflect", "wrap", "linear_ramp", "mean", "maximum"]
        return _pipelines(cfg, "cluster", modes, ["constant", "reflect", "mean"], cluster=True)


class ClusterPipeline(bench_pipeline.Pipeline):
    """pad+reduce and pad+store on a 2-worker LocalCluster, beside the same pipeline
    unpadded: timed only."""

    cases = asv_cases(["reflect", "mean"], cluster=True)
    params, param_names = asv_params(WITH_UNPADDED, cases, "pipeline", "mode")
    peakmem_case = track_tasks = None  # type: ignore[assignment]
    # a cluster per sample: one sample, no warm-up rounds
    number = 1
    repeat = 1
    warmup_time = 0.0
    timeout = 180.0
    cluster: Any = None
    client: Any = None

    def setup(self, lib: str, *key: Any) -> None:
        import distributed

        super().setup(lib, *key)
        self.cluster = local_cluster()
        self.client = distributed.Client(self.cluster)

    def teardown(self, *params: Any) -> None:
        if self.client is not None:
            self.client.close()
            self.cluster.close()
            self.client = self.cluster = None
        super().teardown(*params)
