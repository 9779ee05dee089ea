"""Where a store's padding computes: local threads, or a dask.distributed cluster it
connects to (a scheduler's address or file) or starts (local worker processes); with
progress bars; and a run stopped there without losing data: the tasks still running are
waited for before what they write is removed."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing import forkserver
from typing import Any

from daskpad._compat.libraries import (
    rectilinear_grids,
    rectilinear_support,
    set_rectilinear_grids,
    split_address,
)
from daskpad._compat.schedulers import local_get, placed_graph, tasks_running
from daskpad._compat.tasks import dependencies
from daskpad.pipeline.options import PadOptions
from daskpad.pipeline.parts import in_parts
from daskpad.pipeline.refusals import Refused
from daskpad.store.places.commit import own_threads
from daskpad.store.stops import held_while
from daskpad.store.writing.settle import fresh_keys, run_tag


@dataclass(frozen=True)
class Cluster:
    """The dask.distributed cluster a run computes on (:func:`cluster_for_run`)."""

    #: its distributed Client
    client: Any
    #: whether the command started it (``--workers``): then a stopped run closes it first
    own: bool


@contextlib.contextmanager
def stopping_first(cluster: Cluster | None) -> Iterator[None]:
    """The computation stops before the temporary store is removed. Local threads of the
    command's own (``cluster`` None): their running tasks are waited for
    (:func:`daskpad.store.places.commit.own_threads`). A local cluster the command started
    (``--workers``): closed, its workers with it. An external cluster's tasks are cancelled
    with their futures (:func:`compute_with_progress`)."""
    if cluster is None:
        with own_threads():
            yield
        return
    try:
        yield
    except BaseException:
        if cluster.own:
            with contextlib.suppress(Exception):
                cluster.client.close()
        else:
            _wait_for_running(cluster.client)
        raise


#: how long a stopped run waits for the tasks an external cluster is still running
WAIT_FOR_RUNNING = 60.0


def _wait_for_running(client: Any, bound: float = WAIT_FOR_RUNNING) -> None:
    """Wait (at most ``bound`` seconds) until no worker runs a task this run submitted:
    their futures are cancelled, and the scheduler forgets them at once, but a task already
    running on a worker runs to its end, and a store task would write into the temporary
    store after its removal. The workers are asked, by the tag of this client's key names
    (:func:`daskpad.store.writing.settle.run_tag`)."""

    tag = run_tag(client)
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        try:
            running = client.run(tasks_running, tag=tag)
        except Exception:  # the cluster is gone: nothing of ours runs any more
            return
        if not any(running.values()):
            return
        time.sleep(0.1)


@contextlib.contextmanager
def cluster_for_run(options: PadOptions) -> Iterator[Cluster | None]:
    """The cluster of ``--scheduler``, ``--scheduler-file`` or ``--workers`` for the run's
    length, else None (local threads). Its client is closed at the end (with it the
    cluster the command started), and the log levels and environment the command quieted
    while it ran are restored."""
    if options.scheduler is None and options.workers is None and options.scheduler_file is None:
        yield None
        return
    try:
        from distributed import Client
    except ImportError:
        raise Refused(
            "--scheduler, --scheduler-file and --workers need dask.distributed "
            "(pip install distributed)"
        ) from None
    with _quiet_logs():
        cluster = _cluster(Client, options)
        try:
            yield cluster
        finally:
            cluster.client.close()


def _cluster(client: Any, options: PadOptions) -> Cluster:
    """A client of the cluster ``request`` names, or of a local one started for it."""
    if options.scheduler_file is not None:
        address = _address_in(options.scheduler_file)
        what = f"--scheduler-file {options.scheduler_file} (scheduler {address})"
        return Cluster(_connect(client, address, options.scheduler_timeout, what), own=False)
    if options.scheduler is not None:
        return Cluster(_connect(client, options.scheduler, options.scheduler_timeout), own=False)
    # a local cluster: no dashboard port to fight over, and the same quiet workers;
    # Ctrl-C or SIGTERM while the workers start: acted on once they are up (closed)
    warm_local_workers(options)
    started = held_while(lambda: _local(client, options), undo=lambda client: client.close())
    return Cluster(started, own=True)  # closed first when a run stops


#: how a local cluster's worker processes start on Linux: forked from multiprocessing's
#: fork server, which imported what they run (:func:`warm_local_workers`); elsewhere
#: spawned, as distributed does by default (on macOS a process that has loaded the system's
#: numerical libraries is not safe to fork)
FORK_SERVER = "forkserver"


def forks_workers() -> bool:
    """Whether a local cluster's workers are forked from the fork server here."""
    linux = sys.platform.startswith("linux")
    return linux and FORK_SERVER in multiprocessing.get_all_start_methods()


#: what the fork server imports: the modules a worker of a run unpickles its tasks from
WORKER_IMPORTS = ("distributed", "daskpad.pipeline")


def warm_local_workers(options: PadOptions) -> None:
    """Where the run starts a local cluster (``--workers``) and its workers are forked
    (:func:`forks_workers`): start multiprocessing's fork server now, importing what
    the workers run (:data:`WORKER_IMPORTS`: dask, distributed, xarray, zarr, daskpad), so
    that it imports while SRC is opened and the write planned, and each worker, forked
    from it, starts with all of it imported: spawned, each worker imported it all anew
    before its first task (1-1.5 s on 2 cores, beside the command's own imports). The
    server, like the workers, does not receive Ctrl-C (held as a cluster's start holds it,
    :func:`daskpad.store.stops.held_while`), and ends with the command. A fork server
    already running (started earlier in the process) is used as it is."""
    if options.workers is None or options.scheduler or options.scheduler_file:
        return
    if not forks_workers():
        return
    try:
        import distributed  # noqa: F401  (its configuration: the workers' environment)
    except ImportError:  # (refused with the cluster: cluster_for_run)
        return
    multiprocessing.get_context(FORK_SERVER).set_forkserver_preload(list(WORKER_IMPORTS))
    with _environment({**QUIETED_ENVIRONMENT, **spawn_environment()}):
        held_while(forkserver.ensure_running, undo=lambda _: None)


#: what a local cluster's workers leave out of distributed's environment for processes it
#: spawns (``distributed.nanny.pre-spawn-environ``): its allocation thresholds (:func:`_local`)
NOT_SPAWNED_WITH = ("MALLOC_TRIM_THRESHOLD_",)


def spawn_environment() -> dict[str, str]:
    """The environment distributed starts a worker process in, before Python starts
    (``distributed.nanny.pre-spawn-environ``: numpy's thread pools of one thread, ...; a
    variable already set keeps its value), less :data:`NOT_SPAWNED_WITH`: what the fork
    server starts in, since its workers start as it did."""
    import dask
    import distributed  # noqa: F401  (its configuration)

    wanted = dask.config.get("distributed.nanny.pre-spawn-environ")
    return {
        name: os.environ.get(name, str(value))
        for name, value in wanted.items()
        if value is not None and name not in NOT_SPAWNED_WITH
    }


def _local(client: Any, options: PadOptions) -> Any:
    """A client of a local cluster of ``--workers`` processes of one thread each (forked
    from the fork server where there is one, which started in distributed's environment
    for them, :func:`spawn_environment`), whose workers do not sample their own stacks
    (distributed's statistical profiler: a thread per worker that wakes every few
    milliseconds, on the cores the run's codecs need; a local cluster started for one run
    has no dashboard to show the profile in), and allocate memory as Python processes do
    by default."""
    import dask

    quiet: dict[str, object] = {
        "distributed.worker.profile.enabled": False,
        # glibc's own allocation thresholds: distributed's (MALLOC_TRIM_THRESHOLD_) fixes
        # them, and every buffer above 128 KiB, a decoded chunk's, is then mapped and
        # zeroed anew (the ERA5-like pad: 5.5 -> 3.1 s of system time)
        "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    }
    if forks_workers():
        quiet["distributed.worker.multiprocessing-method"] = FORK_SERVER
    with dask.config.set(quiet):
        return client(
            n_workers=options.workers,
            threads_per_worker=1,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        )


#: the levels of the loggers whose messages about a stopped run are not for its user
QUIETED_LOGGERS = {"distributed": logging.ERROR, "asyncio": logging.CRITICAL}
#: the environment a local cluster's worker processes read: their own log silenced, as
#: what goes wrong on one reaches the command as the task's exception, and what a stopped
#: run makes them log (a heartbeat closing, an object store's client session closed with
#: the worker) is not for the user
QUIETED_ENVIRONMENT = {
    "DASK_LOGGING__DISTRIBUTED": "critical",
    "DASK_LOGGING__ASYNCIO": "critical",
}


@contextlib.contextmanager
def _quiet_logs() -> Iterator[None]:
    """While the command uses a cluster: a stopped run cancels its futures, and what
    distributed and asyncio then log about them (cancelled tasks, a gather that never
    finished) is not for the command's user. The levels and environment are restored
    after."""
    loggers = {name: logging.getLogger(name) for name in QUIETED_LOGGERS}
    levels = {name: logger.level for name, logger in loggers.items()}
    try:
        for name, logger in loggers.items():
            logger.setLevel(QUIETED_LOGGERS[name])
        with _environment(QUIETED_ENVIRONMENT):
            yield
    finally:
        for name, logger in loggers.items():
            logger.setLevel(levels[name])


@contextlib.contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` in the environment while the block runs (the processes started
    meanwhile read it), the environment restored after."""
    environment = {name: os.environ.get(name) for name in values}
    try:
        os.environ.update(values)
        yield
    finally:
        for name, value in environment.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _address_in(path: str) -> str:
    """The scheduler address a ``--scheduler-file`` (written by ``dask scheduler
    --scheduler-file`` and by dask-jobqueue's clusters) holds. Read here, not by
    ``Client(scheduler_file=...)``, which waits out its timeout for a missing file and does
    not name a malformed one; the address is then checked at once (:func:`_connect`)."""
    import json

    what = f"--scheduler-file {path}"
    try:
        with open(path) as f:
            address = json.load(f)["address"]
    except FileNotFoundError:
        raise Refused(f"{what}: no such file") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Refused(f"{what}: not a dask scheduler file (JSON with an address): {e!r}") from None
    if not isinstance(address, str):
        raise Refused(f"{what}: its address is {address!r}, not a string")
    return address


def _connect(client: Any, address: str, timeout: float, what: str | None = None) -> Any:
    """A Client of the scheduler at ``address``, or a Refused naming ``--scheduler``
    within about ``timeout`` seconds: a malformed address or a refused connection at once
    (distributed itself would retry until its timeout)."""
    what = what or f"--scheduler {address}"
    wait = f"(--scheduler-timeout {timeout:g} s)"
    try:
        protocol, location = split_address(address)
        if protocol in ("tcp", "tls"):
            host, port = location
            if not host or port is None:
                raise ValueError(f"expected HOST:PORT, got {address!r}")
    except (ValueError, TypeError) as e:
        raise Refused(
            f"{what} is malformed: {e}; expected an address like tcp://HOST:8786"
        ) from None
    if protocol in ("tcp", "tls"):
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except OSError as e:
            reason = "timed out" if isinstance(e, TimeoutError) else str(e)
            raise Refused(f"{what}: no dask scheduler answers there {wait}: {reason}") from None
    try:
        return client(address, timeout=timeout)
    except Exception as e:  # distributed raises OSError, TimeoutError and others
        raise Refused(f"{what}: cannot connect {wait}: {type(e).__name__}: {e}") from None


def rectilinear_readable() -> contextlib.AbstractContextManager[Any]:
    """A context in which this process reads (and writes) zarr's rectilinear chunk grids,
    where zarr-python can."""
    return rectilinear_grids() if rectilinear_support() is None else contextlib.nullcontext()


@contextlib.contextmanager
def workers_reading_rectilinear(cluster: Cluster) -> Iterator[None]:
    """While a run uses ``cluster``, its workers read and write zarr's rectilinear chunk
    grids where zarr-python can; on a cluster the run did not start, those that had the
    grids off have them off again after."""
    if rectilinear_support() is not None:
        yield
        return
    was = cluster.client.run(set_rectilinear_grids, True)
    try:
        yield
    finally:
        off = [worker for worker, on in was.items() if not (cluster.own or on)]
        if off:
            with contextlib.suppress(Exception):  # (a worker gone meanwhile)
                cluster.client.run(set_rectilinear_grids, False, workers=off)


def compute_with_progress(
    collections: list[Any], client: Any, progress: bool, parts: bool = False
) -> None:
    """Compute ``collections`` locally (dask's ProgressBar) or on ``client``
    (distributed's), the bar on stderr; on ``client`` in parts where ``parts``
    (:func:`daskpad.pipeline.parts.in_parts`)."""
    if not collections:
        return
    if client is None:
        from dask.base import compute
        from dask.diagnostics.progress import ProgressBar

        scheduler = local_get()
        if progress:
            with ProgressBar(out=sys.stderr):
                compute(*collections, scheduler=scheduler)
        else:
            compute(*collections, scheduler=scheduler)
        return

    # the optimised graph under keys of this run's own: a stopped run knows which of the
    # cluster's tasks are its own (:func:`stopping_first` waits for them); the tasks that
    # do not read one another each run as one part (:func:`daskpad.pipeline.parts.in_parts`),
    # or, where there are too few such groups, each block's tasks placed with the blocks
    # beside it (:func:`neighbourhoods`)
    dsk, keys = fresh_keys(collections)
    nthreads = client.nthreads()  # (every worker: scheduler_info lists a few)
    graph: Any = None
    if parts:
        graph = in_parts(dsk, keys, sum(nthreads.values()), run_tag(client))
    if graph is None:
        graph = placed_graph(dsk, neighbourhoods(dsk, sorted(nthreads)))
    futures = client.get(graph, keys, sync=False)
    try:
        if progress:
            from distributed import progress as distributed_progress

            with contextlib.redirect_stdout(sys.stderr):  # its bar prints to stdout
                distributed_progress(futures)
                print(flush=True)
        client.gather(futures)
    except BaseException:
        client.cancel(futures)
        raise


def neighbourhoods(dsk: Mapping[Any, Any], workers: Sequence[str]) -> Callable[[Any], Any]:
    """Where each task of ``dsk`` runs. The layers (keys ``(name, i, j, ...)``) of one
    number of dimensions are cut along one axis, the longest of their largest layer:
    into runs of neighbours, :data:`RUNS` per worker, dealt to the workers in turn. A
    block goes to the run that holds its middle, as a fraction of its layer's blocks
    along that axis, so that the layers cut alike: a block and the blocks it reads and
    writes share a worker, whatever the size of each layer's blocks. Thus the blocks a
    pad or a chunk joins are decoded and used on one worker, not sent between them (along
    that axis, only at the runs' ends), and each worker gets blocks from all along the
    axis, as costly as the others'. Each group of layers that read one another (a
    variable's reads, pads and writes: :func:`layer_groups`) starts the dealing one worker
    further on, so that what does not divide evenly (408 steps in blocks of 54: seven
    runs of 54 and one of 30, a worker with 216 steps and one with 192) falls to each
    worker in turn. Anywhere (None): other keys, a layer with fewer blocks along the axis
    than there are workers, and every key with fewer than two workers or more workers
    than the largest layer has blocks along its axis."""
    spans: dict[Any, list[tuple[int, int]]] = {}
    size: dict[Any, int] = {}
    for key in dsk:
        if isinstance(key, tuple) and len(key) > 1 and all(type(i) is int for i in key[1:]):
            span = spans.get(key[0])
            if span is None:
                spans[key[0]] = [(i, i) for i in key[1:]]
            elif len(span) == len(key) - 1:
                spans[key[0]] = [(min(a, i), max(b, i)) for (a, b), i in zip(span, key[1:])]
            size[key[0]] = size.get(key[0], 0) + 1
    largest: dict[int, Any] = {}
    for name, span in spans.items():
        other = largest.get(len(span))
        if other is None or size[name] > size[other]:
            largest[len(span)] = name
    n = len(workers)
    axis, runs = {}, {}
    for ndim, name in largest.items():
        span = spans[name]
        axis[ndim] = max(range(ndim), key=lambda d: span[d][1] - span[d][0])
        first, last = span[axis[ndim]]
        runs[ndim] = min(n * RUNS, last - first + 1)

    def where(key: Any) -> list[str] | None:
        if n < 2 or not isinstance(key, tuple) or key[0] not in spans:
            return None
        span = spans[key[0]]
        if len(key) - 1 != len(span) or runs[len(span)] < n:
            return None
        d = axis[len(span)]
        first, last = span[d]
        i = key[1 + d]
        if type(i) is not int or not first <= i <= last or last - first + 1 < n:
            return None
        run = int((i - first + 0.5) * runs[len(span)] / (last - first + 1))
        return [workers[(run + group[key[0]]) % n]]

    group = layer_groups(dsk)
    return where


def layer_groups(dsk: Mapping[Any, Any]) -> dict[Any, int]:
    """The layers of ``dsk`` (the names of its keys ``(name, i, ...)``, or the keys
    themselves), each numbered by the group of layers joined to it through what their
    tasks read, in the order the groups' first keys come; all 0 where no task is seen to
    read another (a graph whose nodes do not say what they read: one group, rather than
    layers that read one another dealt apart)."""
    parent: dict[Any, Any] = {}
    joined = False

    def root(layer: Any) -> Any:
        while parent.setdefault(layer, layer) != layer:
            parent[layer] = parent[parent[layer]]
            layer = parent[layer]
        return layer

    for key, node in dsk.items():
        a = root(_layer(key))
        for dep in dependencies(node):
            joined = True
            b = root(_layer(dep))
            if a != b:
                parent[b] = a
    if not joined:
        return dict.fromkeys(parent, 0)
    order: dict[Any, int] = {}
    for key in dsk:
        order.setdefault(root(_layer(key)), len(order))
    return {layer: order[root(layer)] for layer in parent}


def _layer(key: Any) -> Any:
    return key[0] if isinstance(key, tuple) and key else key


#: the runs of neighbouring blocks each worker gets along a layer (:func:`neighbourhoods`)
RUNS = 4
