"""dask's task types, for the graph programs daskpad writes by hand (the streamed
writer's, :mod:`daskpad.store.writing.blockgraph`): ``Task``, ``Alias`` and ``TaskRef`` of dask's
task spec (``dask._task_spec``, dask 2024.12 and later), the parser of a task's arguments,
the conversion of a graph of tuples, ``Delayed``, the collection a graph program is
computed as, and the keys a node of a graph reads (:func:`dependencies`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from dask._task_spec import Alias, DataNode, Task, TaskRef, convert_legacy_graph, parse_input
from dask._task_spec import NestedContainer as _Container
from dask.delayed import Delayed

__all__ = [
    "Alias",
    "DataNode",
    "Delayed",
    "Task",
    "TaskRef",
    "convert_legacy_graph",
    "parse_input",
]


def dependencies(node: object) -> frozenset[Hashable]:
    """The keys the node ``node`` of a graph (a task spec's ``GraphNode``) reads; none for
    anything else (a plain value)."""
    found = getattr(node, "dependencies", None)
    if found is None or isinstance(found, (str, bytes)) or not hasattr(found, "__iter__"):
        return frozenset()
    return frozenset(found)


def task_runs(
    graph: Mapping[Any, object], keys: Iterable[Hashable] | None = None
) -> Counter[Hashable]:
    """How many times each task of ``graph`` runs when ``keys`` (default: every key) are
    computed: a task those keys need runs once at its own key, and once more for every
    place it is embedded in the arguments of another that runs (a task dask fused into
    another, a block a step computes inside itself). dask's schedulers run only what
    the keys need, a graph optimised for them may hold more."""
    graph = convert_legacy_graph(dict(graph))  # (tuples of older graphs as tasks)
    needed = graph if keys is None else culled(graph, list(keys))
    runs: Counter[Hashable] = Counter()
    stack: list[object] = list(needed.values())
    while stack:
        node = stack.pop()
        if isinstance(node, Task):
            if node.key is not None and not isinstance(node, _Container):
                runs[node.key] += 1
            stack.extend(node.args)
            stack.extend(node.kwargs.values())
        elif isinstance(node, DataNode):
            stack.append(node.value)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return runs


def culled(graph: Mapping[Any, Any], keys: Iterable[Any]) -> dict[Any, Any]:
    """The nodes of ``graph`` that computing ``keys`` runs, in the graph's order (a graph
    optimised for them may hold more, which dask's schedulers leave out)."""
    needed: set[Any] = set()
    stack = list(keys)
    while stack:
        k = stack.pop()
        if k in needed or k not in graph:
            continue
        needed.add(k)
        stack.extend(dependencies(graph[k]))
    return {k: node for k, node in graph.items() if k in needed}
