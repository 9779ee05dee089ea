"""dask's task types, for the graph programs daskpad writes by hand (the streamed
writer's, :mod:`daskpad.store.writing.blockgraph`): ``Task``, ``Alias`` and ``TaskRef`` of dask's
task spec (``dask._task_spec``, dask 2024.12 and later), the parser of a task's arguments,
the conversion of a graph of tuples, ``Delayed``, the collection a graph program is
computed as, and the keys a node of a graph reads (:func:`dependencies`)."""

from __future__ import annotations

from collections.abc import Hashable

from dask._task_spec import Alias, Task, TaskRef, convert_legacy_graph, parse_input
from dask.delayed import Delayed

__all__ = ["Alias", "Delayed", "Task", "TaskRef", "convert_legacy_graph", "parse_input"]


def dependencies(node: object) -> frozenset[Hashable]:
    """The keys the node ``node`` of a graph (a task spec's ``GraphNode``) reads; none for
    anything else (a plain value)."""
    found = getattr(node, "dependencies", None)
    if found is None or isinstance(found, (str, bytes)) or not hasattr(found, "__iter__"):
        return frozenset()
    return frozenset(found)
