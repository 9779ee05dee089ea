"""What daskpad reads of dask's schedulers that they do not publish: the distributed
client that would compute a collection, the tasks a distributed worker still runs, and the
local schedulers' progress."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence, Sized
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dask.callbacks import Callback
    from distributed import Client, Worker


def distributed_scheduler(collections: Sequence[object]) -> Callable[..., Sequence[object]] | None:
    """The ``get`` of the distributed client that would compute ``collections`` (it takes
    a graph and its keys), or None when dask's local schedulers would."""
    from dask.base import get_scheduler

    schedule = get_scheduler(collections=collections)
    client = getattr(schedule, "__self__", None)
    return schedule if type(client).__module__.startswith("distributed") else None


def local_get() -> Callable[..., object] | None:
    """The scheduler dask's ``compute`` would take for dask arrays where it is sure to be
    its threaded one: no scheduler configured and distributed never imported (no client
    can exist); else None (dask decides). Handing it over spares dask's own look for a
    client, which imports distributed: a third of a second."""
    import dask
    from dask.threaded import get

    if "distributed" in sys.modules or dask.config.get("scheduler", None) is not None:
        return None
    return get


def run_synchronously(graph: Mapping[Any, object], keys: Sequence[Any]) -> Sequence[object]:
    """The results of ``keys`` of ``graph``, computed by dask's synchronous scheduler in
    the calling thread (a part of a computation, in its worker:
    :func:`daskpad.pipeline.parts.run_part`)."""
    from dask.local import get_sync

    results: Sequence[object] = get_sync(dict(graph), list(keys))
    return results


def distributed_client(collections: Sequence[object]) -> Client | None:
    """The distributed client that would compute ``collections``, or None when dask's
    local schedulers would."""
    schedule = distributed_scheduler(collections)
    return None if schedule is None else getattr(schedule, "__self__", None)


def placed_graph(dsk: Mapping[object, object], where: Callable[[object], object]) -> object:
    """The graph ``dsk`` as a distributed client takes it (``client.get``), each task
    carrying the workers ``where(key)`` names (None: any) as a loose restriction: the
    scheduler runs it there while one of them is up, elsewhere otherwise (a worker lost
    and restarted under a new address). Given through a layer's annotations, the only
    per-task form ``client.get`` reads."""
    from dask.highlevelgraph import HighLevelGraph, MaterializedLayer

    layer = MaterializedLayer(
        dict(dsk), annotations={"workers": where, "allow_other_workers": True}
    )
    return HighLevelGraph({"placed": layer}, {"placed": set()})


def tasks_running(dask_worker: Worker, tag: str) -> int:
    """On a distributed worker (``client.run``): how many tasks whose key names end with
    ``tag`` it still runs (cancelled ones included: their thread goes on), read from the
    worker's state, which is not public."""
    busy = ("executing", "long-running", "cancelled", "resumed")
    return sum(
        1
        for ts in dask_worker.state.tasks.values()
        if ts.state in busy
        and str(ts.key[0] if isinstance(ts.key, tuple) else ts.key).endswith(tag)
    )


def progress_callback(draw: Callable[[float], None]) -> Callback:
    """A callback of dask's local schedulers calling ``draw(fraction of tasks done)`` as
    each task finishes (from the scheduler's state, which is not public)."""
    from dask.callbacks import Callback

    class _Tasks(Callback):
        def _start_state(self, dsk: object, state: Mapping[str, Sized]) -> None:
            self.state = state

        def _posttask(self, *args: object) -> None:
            s = self.state
            done = len(s["finished"])
            total = done + sum(len(s[k]) for k in ("ready", "waiting", "running"))
            draw(done / total if total else 1.0)

    return _Tasks()  # type: ignore[no-untyped-call]
