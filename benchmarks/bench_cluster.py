"""cluster: the pipeline scenario on a 2-worker LocalCluster (process workers).

By default on 12288 x 12288 (0.6 GB, 2048 x 2048 chunks), pad 64 (``run.py``'s
``--cluster-*`` options), pad+reduce and pad+store against the same pipeline unpadded.
"""

from __future__ import annotations

from .bench_pipeline import _pipelines


def _local_cluster():
    import distributed

    return distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )


def section_cluster(cfg) -> list[dict]:
    import distributed

    with _local_cluster() as cluster, distributed.Client(cluster):
        if cfg.quick:
            return _pipelines(cfg, "cluster", ["reflect", "mean"], ["reflect"], cluster=True)
        modes = ["constant", "edge", "reflect", "wrap", "linear_ramp", "mean", "maximum"]
        return _pipelines(cfg, "cluster", modes, ["constant", "reflect", "mean"], cluster=True)
