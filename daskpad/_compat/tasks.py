"""dask's task types, for the graph programs daskpad writes by hand (the streamed
writer's, :mod:`daskpad.store.writing.blockgraph`): ``Task``, ``Alias`` and ``TaskRef`` of dask's
task spec (``dask._task_spec``, dask 2024.12 and later), the parser of a task's arguments,
the conversion of a graph of tuples, and ``Delayed``, the collection a graph program is
computed as."""

from __future__ import annotations

from dask._task_spec import Alias, Task, TaskRef, convert_legacy_graph, parse_input
from dask.delayed import Delayed

__all__ = ["Alias", "Delayed", "Task", "TaskRef", "convert_legacy_graph", "parse_input"]
