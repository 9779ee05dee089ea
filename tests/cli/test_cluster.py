"""daskpad on a real cluster: process workers, pickled graphs, a killed worker, a small
memory limit.

Each worker is a separate process started here, so every graph and kernel crosses a
process boundary; the results must still equal :func:`numpy.pad` exactly (mean within
floating-point summation order). Select these tests with ``-m cluster``.
"""

from __future__ import annotations

import os
import pickle
import signal
import time

import dask
import dask.array as da
import numpy as np
import pytest

import daskpad
from daskpad.core.registry import MODES

distributed = pytest.importorskip("distributed")
zarr = pytest.importorskip("zarr")

pytestmark = [
    pytest.mark.cluster,
    pytest.mark.xdist_group("cluster"),  # one test process runs them: one cluster at a time
    # distributed's node start-up (distributed/node.py) probes ports with sockets it leaves
    # to the garbage collector; when one is collected during a test, Python reports it as an
    # unclosed socket. That is distributed's own housekeeping, not daskpad's.
    pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning"),
    pytest.mark.filterwarnings(
        "ignore:Exception ignored in. <socket.socket:pytest.PytestUnraisableExceptionWarning"
    ),
]


def _cluster(**kwargs):
    return distributed.LocalCluster(
        n_workers=kwargs.pop("n_workers", 2),
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        **kwargs,
    )


@pytest.fixture(scope="module")
def client():
    with _cluster() as cluster, distributed.Client(cluster) as c:
        yield c


# --------------------------------------------------------------------------------------
# every mode, on process workers
# --------------------------------------------------------------------------------------


def counting_pad(vector, iaxis_pad_width, iaxis, kwargs):
    """A user pad function at module level, so plain pickle ships it to the workers."""
    before, after = iaxis_pad_width
    step = kwargs.get("step", 1)
    if before:
        vector[:before] = -step * np.arange(before, 0, -1) - iaxis
    if after:
        vector[len(vector) - after :] = step * np.arange(1, after + 1) + iaxis


CASES = {
    "constant": {"constant_values": ((1, 2), (3, 4))},
    "empty": {},
    "edge": {},
    "linear_ramp": {"end_values": ((-5, 7), (9, -1))},
    "maximum": {"stat_length": ((3, 40), (5, 11))},
    "mean": {"stat_length": None},
    "median": {"stat_length": ((6, 38), (2, 35))},
    "minimum": {},
    "reflect": {"reflect_type": "odd"},
    "symmetric": {},
    "wrap": {},
    counting_pad.__name__: {"step": 3},
}
assert set(CASES) == {*MODES, counting_pad.__name__}, "one case per mode in the mode table"

SHAPE, CHUNKS = (45, 38), (8, 7)
# widths wider than the axis on both axes, so wide reflection/wrap are crossed too
WIDTHS = ((50, 3), (9, 41))
# a tiny task budget (dask's array.chunk-size) at build time, so that long statistics reduce
# in a tree, median and the user function split their whole lines over many tasks
BUDGET = {"array.chunk-size": "2KiB"}
# the user function's stripes (whole lines, half a budget each) would be single elements at
# 2 KiB, some 35000 tasks; at 4 KiB they are a few lines, still over many tasks
BUDGETS = {counting_pad.__name__: {"array.chunk-size": "4KiB"}}


def _mode(name: str):
    return counting_pad if name == counting_pad.__name__ else name


def _input() -> tuple[np.ndarray, da.Array]:
    rng = np.random.default_rng(42)
    a = rng.integers(-1000, 1000, size=SHAPE).astype(np.float64)
    return a, da.from_array(a, chunks=CHUNKS)


def _padded(name: str, **config) -> tuple[np.ndarray, da.Array]:
    a, x = _input()
    with dask.config.set(BUDGETS.get(name, BUDGET), **config):
        return a, daskpad.pad(x, WIDTHS, mode=_mode(name), **CASES[name])


def _assert_matches_numpy(name: str, got: np.ndarray, a: np.ndarray) -> None:
    want = np.pad(a, WIDTHS, mode=_mode(name), **CASES[name])
    assert got.shape == want.shape and got.dtype == want.dtype
    if name == "empty":  # numpy leaves the pad undefined: only the interior is known
        inner = tuple(slice(b, b + n) for (b, _), n in zip(WIDTHS, SHAPE))
        np.testing.assert_array_equal(got[inner], a)
    elif name == "mean":  # a tree of partial sums: numpy's value up to summation order
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_mode_equals_numpy_on_process_workers(client, name):
    a, y = _padded(name)
    assert y.npartitions >= 40, "the pad must be spread over many tasks"
    _assert_matches_numpy(name, client.compute(y).result(), a)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tasks_pickle_plainly_and_compute_in_another_process(client, name):
    """Every task of the graph survives plain pickle (module-level kernels, no closures, no
    cloudpickle), and a worker process computes the unpickled graph to numpy's values.

    With a client active dask plans rechunks as p2p shuffles, which only the distributed
    scheduler can run; the copy is computed with the synchronous scheduler inside the
    worker, so its graph is built with task-based rechunks."""
    a, y = _padded(name, **{"array.rechunk.method": "tasks"})
    payload = pickle.dumps((dict(y.__dask_graph__()), y.__dask_keys__()))
    got, pid = client.submit(_compute_in_worker, payload, pure=False).result()
    assert pid != os.getpid()
    _assert_matches_numpy(name, got, a)


def _compute_in_worker(payload: bytes) -> tuple[np.ndarray, int]:
    graph, keys = pickle.loads(payload)
    return da.core.concatenate3(dask.get(graph, keys)), os.getpid()


@pytest.mark.parametrize("mode", ["reflect", "wrap", "mean"])
def test_tiled_writers_on_process_workers(client, tmp_path, mode):
    xr = pytest.importorskip("xarray")
    graphs = _GraphKeys(f"daskpad-graph-keys-{mode}")
    client.register_plugin(graphs)
    x = da.random.default_rng(7).random((300, 260), chunks=50)
    expected = np.pad(x.compute(), 7, mode=mode)
    y = daskpad.pad(x, 7, mode=mode, chunks="regular")
    # tiles of a few blocks: the zarr array travels to the workers in each tile's tasks
    z = daskpad.to_zarr(y, tmp_path / "a.zarr", memory=9 * 50 * 50 * 8)
    np.testing.assert_allclose(z[...], expected, rtol=1e-12 if mode == "mean" else 0)
    ds = xr.Dataset({"v": (("r", "c"), x)}).pad2(r=7, c=7, mode=mode, chunks="regular")
    daskpad.xarray.to_zarr(ds, tmp_path / "b.zarr", memory="40kB", zarr_format=2)
    got = xr.open_zarr(tmp_path / "b.zarr").v.values
    np.testing.assert_allclose(got, expected, rtol=1e-12 if mode == "mean" else 0)
    # the blocks were written by the cluster's workers
    assert client.run_on_scheduler(_has_task_prefix, "daskpad-store")
    # every tile's graph had keys of its own, though neighbouring tiles read the same input
    # blocks: the scheduler could still be releasing the previous tile's keys (mean: the
    # statistics are computed first, in graphs of their own too)
    seen = client.run_on_scheduler(_graph_keys, graphs.name)
    assert len(seen) >= 8  # the tiles of both writers
    assert sum(map(len, seen)) == len(set().union(*seen))


class _GraphKeys(distributed.diagnostics.plugin.SchedulerPlugin):
    """Records the keys of every graph the scheduler receives."""

    def __init__(self, name):
        self.name = name
        self.graphs = []

    def update_graph(self, scheduler, *, tasks, **kwargs):
        self.graphs.append(sorted(map(str, tasks)))


def _graph_keys(name, dask_scheduler=None):
    return [set(g) for g in dask_scheduler.plugins[name].graphs]


def _has_task_prefix(prefix, dask_scheduler=None):
    return prefix in dask_scheduler.task_prefixes


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_collection_itself_pickles(name):
    """A padded array can be pickled whole (to hand to a worker, cache or checkpoint it),
    keeping its name, chunks and values."""
    a, y = _padded(name, **{"array.rechunk.method": "tasks"})
    y2 = pickle.loads(pickle.dumps(y))
    assert y2.name == y.name and y2.chunks == y.chunks and y2.dtype == y.dtype
    _assert_matches_numpy(name, y2.compute(scheduler="sync"), a)


# --------------------------------------------------------------------------------------
# failures survived
# --------------------------------------------------------------------------------------


def slow_copy(block: np.ndarray, delay: float) -> np.ndarray:
    time.sleep(delay)
    return block.copy()


def _worker_pids(c) -> dict[str, int]:
    return c.run(os.getpid)


def test_killed_worker_mid_computation_still_gives_numpys_result():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((120, 90))
    x = da.from_array(a, chunks=(10, 10))
    widths = ((15, 25), (30, 5))
    y = daskpad.pad(x, widths, mode="reflect", reflect_type="odd")
    # slow every padded block down so the computation runs for a few seconds
    z = y.map_blocks(slow_copy, delay=0.05, dtype=y.dtype, meta=y._meta)
    assert z.npartitions >= 150
    with _cluster() as cluster, distributed.Client(cluster) as c:
        c.wait_for_workers(2)
        pids = _worker_pids(c)
        future = c.compute(z)
        # wait until the victim holds finished blocks, so losing it loses real work
        victim = sorted(pids)[0]
        deadline = time.monotonic() + 60
        while not c.has_what().get(victim) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert c.has_what().get(victim), "the computation never reached the victim"
        assert not future.done(), "the computation finished before the kill; slow it down"
        os.kill(pids[victim], signal.SIGKILL)
        got = future.result(timeout=120)
        # the nanny replaced the killed process: the pid behind the workers changed
        c.wait_for_workers(2, timeout=60)
        assert pids[victim] not in set(_worker_pids(c).values())
    np.testing.assert_array_equal(got, np.pad(a, widths, mode="reflect", reflect_type="odd"))


def _source(shape: tuple[int, int], chunks: tuple[int, int]) -> da.Array:
    """``x[i, j] = i * n1 + j`` in int32, generated lazily block by block: cheap to make,
    every value names its position, and any region is easy to recompute for checking."""
    template = da.empty(shape, chunks=chunks, dtype=np.int32)
    return template.map_blocks(_positions, n1=shape[1], dtype=np.int32)


def _positions(block: np.ndarray, n1: int, block_info=None) -> np.ndarray:
    (r0, r1), (c0, c1) = block_info[None]["array-location"]
    rows = np.arange(r0, r1, dtype=np.int32)[:, None] * np.int32(n1)
    return rows + np.arange(c0, c1, dtype=np.int32)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "kwargs"),
    [("reflect", {}), ("mean", {"stat_length": None})],
    ids=["reflect", "whole-axis-mean"],
)
def test_small_memory_worker_pads_and_stores_several_gib(tmp_path, mode, kwargs):
    shape, chunks = (20_000, 20_000), (2_000, 2_000)  # int32: 1.5 GiB in, 2.1 GiB out
    widths = ((1_000, 3_000), (2_500, 500))
    x = _source(shape, chunks)
    # chunks="regular": the store's grid, built directly (zarr needs equal chunks)
    y = daskpad.pad(x, widths, mode=mode, chunks="regular", **kwargs)
    assert y.nbytes > 2 * 2**30
    assert set(y.chunks[0][:-1]) == {2_000} and set(y.chunks[1][:-1]) == {2_000}
    path = tmp_path / "padded.zarr"
    with (
        _cluster(n_workers=1, memory_limit="1GiB") as cluster,
        distributed.Client(cluster) as c,
    ):
        c.wait_for_workers(1)
        pid_before = _worker_pids(c)
        # uncompressed: the test is about memory, not about zstd's speed on 2 cores
        # (made here: dask 2025.4, the floor, hands to_zarr's keywords to zarr's legacy create)
        target = zarr.create_array(
            str(path), shape=y.shape, chunks=x.chunks[0][:1] * 2, dtype=y.dtype, compressors=None
        )
        da.to_zarr(y, target)
        # the same process did all the work: it was never killed and restarted
        assert _worker_pids(c) == pid_before
        (peak_rss,) = c.run(_peak_rss).values()
    assert peak_rss < 2**30, f"worker peak RSS {peak_rss / 2**20:.0f} MiB"

    stored = zarr.open_array(str(path), mode="r")
    assert stored.shape == y.shape and stored.dtype == y.dtype
    # check a sample of stored blocks (corners, edges, interior) against numpy.pad of
    # the input region each block depends on
    bounds = [np.cumsum((0, *c)) for c in y.chunks]
    rows = [0, 1, 5, len(y.chunks[0]) - 1]
    cols = [0, 1, 6, len(y.chunks[1]) - 2, len(y.chunks[1]) - 1]
    reference = _ReflectReference(x, widths) if mode == "reflect" else _MeanReference(x, widths)
    for bi in rows:
        r0, r1 = int(bounds[0][bi]), int(bounds[0][bi + 1])
        band = reference.rows(r0, r1)
        for bj in cols:
            c0, c1 = int(bounds[1][bj]), int(bounds[1][bj + 1])
            np.testing.assert_array_equal(stored[r0:r1, c0:c1], band(c0, c1))


def _peak_rss() -> int:
    """Peak resident memory of the calling process, in bytes (Linux: ru_maxrss in KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _ReflectReference:
    """numpy.pad(mode="reflect") of the whole input, evaluated on a few blocks only.

    Reflection maps every output index to one input index per axis, so the reference is
    numpy.pad of one index vector per axis, then a gather of those input elements."""

    def __init__(self, x: da.Array, widths):
        self.x = x
        self.index = [np.pad(np.arange(n), w, mode="reflect") for n, w in zip(x.shape, widths)]

    def rows(self, r0: int, r1: int):
        rows = self.index[0][r0:r1]

        def band(c0: int, c1: int) -> np.ndarray:
            cols = self.index[1][c0:c1]
            region = self.x[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1].compute(
                scheduler="threads"
            )
            return region[np.ix_(rows - rows.min(), cols - cols.min())]

        return band


class _MeanReference:
    """numpy.pad(mode="mean", stat_length=None) of the whole input, on a few row bands.

    numpy pads axis 0 first with each column's mean (rounded, for integers), then pads
    every row of that result with the row's own mean. The values ``i * n1 + j`` keep every
    partial sum an exact integer in float64, so the comparison can be exact."""

    def __init__(self, x: da.Array, widths):
        self.x, self.widths = x, widths
        col_mean = x.mean(axis=0, dtype=np.float64).compute(scheduler="threads")
        self.col_mean = np.around(col_mean).astype(x.dtype)

    def rows(self, r0: int, r1: int):
        (b0, _), (b1, a1) = self.widths
        n0, n1 = self.x.shape
        rows = np.arange(r0, r1) - b0
        inside = (rows >= 0) & (rows < n0)
        band0 = np.empty((r1 - r0, n1), dtype=self.x.dtype)
        band0[~inside] = self.col_mean
        if inside.any():
            lo, hi = int(rows[inside].min()), int(rows[inside].max()) + 1
            band0[inside] = self.x[lo:hi].compute(scheduler="threads")[rows[inside] - lo]
        padded = np.pad(band0, ((0, 0), (b1, a1)), mode="mean")

        def band(c0: int, c1: int) -> np.ndarray:
            return padded[:, c0:c1]

        return band
