"""A computation on a cluster in parts: the tasks of a graph that do not read one another
(each time-run of a variable whose time dimension is not padded, each group of a
rectilinear grid's computed chunks) run together as one task, by dask's synchronous
scheduler in the worker that gets it (:func:`in_parts`).

A write of padded blocks is thousands of small tasks, each one a read, a cut, an encode.
On a cluster the scheduler spends about a millisecond on each and the workers wait
between them; on 2 cores, where the scheduler shares the cores with the workers, that
made a local cluster 1.25-1.3x slower than threads. A part's tasks never leave the worker:
the blocks a pad reads are decoded and used where they are, and the scheduler handles a
few tasks per thread instead of thousands.
"""

from __future__ import annotations

import uuid
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from daskpad._compat.schedulers import run_synchronously
from daskpad._compat.tasks import (
    DataNode,
    Task,
    TaskRef,
    convert_legacy_graph,
    culled,
    dependencies,
)

#: the parts per thread of the cluster: enough that a thread that finishes early takes
#: another, few enough that the scheduler's cost per task does not count
PARTS_PER_THREAD = 8

#: the fewest groups of tasks that do not read one another, per thread, that run in parts
#: (fewer would leave threads idle at the end)
GROUPS_PER_THREAD = 4

#: the tasks of a part, about, at most, where the groups allow: a progress bar moves
#: part by part, and a large store's write makes more parts rather than longer ones
TASKS_PER_PART = 1000


def in_parts(
    dsk: Mapping[Hashable, Any], keys: Sequence[Hashable], threads: int, tag: str = ""
) -> dict[Hashable, Any] | None:
    """``dsk`` (an optimised graph computing ``keys``) with the tasks that ``keys`` do not
    name cut into parts, each part one task (its key ending with ``tag``) that runs its
    tasks with dask's synchronous scheduler and hands on the results the tasks of ``keys``
    read. Tasks that read one another share a part; the parts are neighbours in the
    graph's order, about as many tasks each: :data:`PARTS_PER_THREAD` per thread, more
    where parts would have more than :data:`TASKS_PER_PART` tasks.
    None where the graph has fewer than :data:`GROUPS_PER_THREAD` groups of tasks that do
    not read one another per thread: it then runs as it is."""
    graph = culled(convert_legacy_graph(dict(dsk)), keys)
    outputs = set(keys)
    if any(
        d in outputs for k, node in graph.items() if k not in outputs for d in dependencies(node)
    ):
        return None  # (a result read by other tasks: the parts could not hand it on)
    # values held in the graph (an input array's zarr array, which every read of it
    # reads) join nothing: each part that reads one gets its own copy
    data = {k for k, node in graph.items() if isinstance(node, DataNode) and k not in outputs}
    parent: dict[Hashable, Hashable] = {}

    def root(k: Hashable) -> Hashable:
        while parent.setdefault(k, k) != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for key, node in graph.items():
        if key in outputs or key in data:
            continue
        a = root(key)
        for dep in dependencies(node):
            if dep in graph and dep not in outputs and dep not in data:
                b = root(dep)
                if a != b:
                    parent[b] = a
    groups: dict[Hashable, list[Hashable]] = {}
    for key in graph:
        if key not in outputs and key not in data:
            groups.setdefault(root(key), []).append(key)
    if len(groups) < GROUPS_PER_THREAD * max(1, threads):
        return None
    ntasks = sum(len(g) for g in groups.values())
    wanted = max(PARTS_PER_THREAD * max(1, threads), -(-ntasks // TASKS_PER_PART))
    wanted = min(len(groups), wanted)
    read_by_outputs = {d for k in outputs if k in graph for d in dependencies(graph[k])}
    out: dict[Hashable, Any] = {k: graph[k] for k in outputs | (read_by_outputs & data)}
    name = f"daskpad-part-{uuid.uuid4().hex}{tag}"
    for i, members in enumerate(_dealt(list(groups.values()), wanted)):
        sub = {k: graph[k] for k in members}
        read = {d for k in members for d in dependencies(graph[k])}
        sub.update((d, graph[d]) for d in read & data)
        ends = [k for k in members if k not in read]
        handed = sorted((k for k in members if k in read_by_outputs), key=str)
        part = (name, i)
        out[part] = Task(part, run_part, Subgraph(sub, f"{name}-{i}"), ends, handed)
        for k in handed:
            out[k] = Task(k, handed_on, TaskRef(part), DataNode(None, k))
    return out


def _dealt(groups: list[list[Hashable]], parts: int) -> list[list[Hashable]]:
    """``groups`` (in the graph's order) joined, neighbours with neighbours, into
    ``parts`` lists of about as many keys each."""
    total = sum(len(g) for g in groups)
    out: list[list[Hashable]] = [[]]
    done = 0
    for g in groups:
        if out[-1] and done >= total * len(out) / parts:
            out.append([])
        out[-1].extend(g)
        done += len(g)
    return out


@dataclass(frozen=True)
class Subgraph:
    """The tasks of a part, as the argument of its task: dask tokenizes a graph it is
    handed, every argument of every task, which took 2-3 s for the parts of the ERA5-like
    store's write on 2 cores; a part's tasks are its own and its name says which."""

    tasks: Mapping[Hashable, Any]
    name: str

    def __dask_tokenize__(self) -> str:
        return self.name


def run_part(sub: Subgraph, ends: list[Hashable], handed: list[Hashable]) -> Any:
    """Run the tasks of ``sub`` (those that ``ends`` need: all of them) with dask's
    synchronous scheduler; the results of ``handed``, by key."""
    wanted: list[Any] = list(dict.fromkeys([*ends, *handed]))
    results = run_synchronously(sub.tasks, wanted)
    got = dict(zip(wanted, results))
    return {k: got[k] for k in handed}


def handed_on(results: Mapping[Hashable, Any], key: Hashable) -> Any:
    """The result of task ``key`` from the results of its part."""
    return results[key]
