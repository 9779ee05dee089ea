"""The graph program of streamed writes: the graph of a dask array, optimised as
``dask.compute`` would, read for a program that runs one step per block of the array
(:class:`BlockGraph`), each step computing its block once and handing on what others need
(:mod:`daskpad.store.writing.stream` says which step writes which chunk). Works with classic graphs
and with query planning; dask's task types come through the door
(:mod:`daskpad._compat.tasks`).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from daskpad._compat.graphs import flatten_keys, optimized_graph
from daskpad._compat.tasks import Alias, Delayed, Task, TaskRef, convert_legacy_graph, parse_input

Index = tuple[int, ...]

#: a step of a block program: (block, blocks whose results it waits for, blocks it computes
#: anew inside itself, keyword arguments)
Step = tuple[Index, Sequence[Index], Sequence[Index], Mapping[str, Any]]


class BlockGraph:
    """The graph of the dask array ``x``, optimised as ``dask.compute`` would, read for a
    program that runs one step per block of ``x`` (:meth:`program`); with ``blocks`` (block
    indices), the graph of those blocks alone, culled before it is optimised (a tile's: its
    cost then follows the tile, not the array). Works with classic graphs and with query
    planning."""

    def __init__(self, x: Any, blocks: Collection[Index] | None = None):
        self.numblocks = tuple(x.numblocks)
        indices: Iterable[Index]
        if blocks is None:
            dsk, self.keys = optimized_graph([x])
            indices = np.ndindex(*self.numblocks)
        else:
            indices = sorted(blocks)
            own = list(flatten_keys(x.__dask_keys__()))
            dsk, mine = optimized_graph([x], [own[self._flat(i)] for i in indices])
            # (the optimised keys, which dask's array-expr collections name anew)
            self.keys = own
            for i, k in zip(indices, mine):
                self.keys[self._flat(i)] = k
        self.graph = convert_legacy_graph(dict(dsk))
        self.dependents: defaultdict[Hashable, list[Hashable]] = defaultdict(list)
        for k, node in self.graph.items():
            for d in node.dependencies:
                self.dependents[d].append(k)
        self.block_of = {self.key(i): tuple(int(a) for a in i) for i in indices}
        self._programmed = False

    def _flat(self, index: Index) -> int:
        return int(np.ravel_multi_index(index, self.numblocks)) if index else 0

    def key(self, index: Index) -> Hashable:
        return self.keys[self._flat(index)]

    def chain(self, index: Index) -> list[Hashable]:
        """The block's key and the keys its dask aliases lead to, the task's last."""
        chain = [self.key(index)]
        node = self.graph[chain[0]]
        while isinstance(node, Alias):
            target = node.target.key if isinstance(node.target, TaskRef) else node.target
            chain.append(target)
            node = self.graph[target]
        return chain

    def far(self, a: Index, b: Index) -> bool:
        """Whether blocks ``a`` and ``b`` are more than two blocks and half the grid apart
        along some axis."""
        return any(abs(i - j) > max(2, n // 2) for i, j, n in zip(a, b, self.numblocks))

    def steps_reading(self, key: Hashable, skip: Iterable[Hashable] = ()) -> set[Index]:
        """The blocks of ``x`` whose tasks read ``key`` (not through ``skip``)."""
        found: set[Index] = set()
        seen = set(skip)
        stack = [d for d in self.dependents[key] if d not in seen]
        while stack:
            k = stack.pop()
            if k in seen:
                continue
            seen.add(k)
            if k in self.block_of:
                found.add(self.block_of[k])
            else:
                stack.extend(self.dependents[k])
        return found

    @functools.cached_property
    def late_blocks(self) -> frozenset[Index]:
        """The blocks whose tasks read more than two other blocks (a pad made of a
        statistic of the whole axis, a linear ramp, whose arithmetic depends on its whole
        face, a reflected pad wider than two blocks), a block far away (:meth:`far`: a
        wrapped pad), or a late block: they run once most others have."""
        ends = {self.chain(i)[-1]: i for i in self.block_of.values()}
        reads: dict[Index, set[Index]] = {}
        for index in self.block_of.values():
            found: set[Index] = set()
            seen: set[Hashable] = set()
            stack = list(self.graph[self.chain(index)[-1]].dependencies)
            while stack:
                k = stack.pop()
                if k in seen or k not in self.graph:
                    continue
                seen.add(k)
                if k in ends:
                    found.add(ends[k])
                else:
                    stack.extend(self.graph[k].dependencies)
            found.discard(index)
            reads[index] = found
        late = {
            i for i, found in reads.items() if len(found) > 2 or any(self.far(r, i) for r in found)
        }
        while grown := {i for i, found in reads.items() if i not in late and found & late}:
            late |= grown
        return frozenset(late)

    @functools.cached_property
    def folds(self) -> dict[Index, list[tuple[Hashable, set[Index]]]]:
        """Per block not late, the tasks that read only it and lead only to the steps of
        late blocks (the partial statistics of a whole-axis pad, the edge a linear ramp
        starts from), and those steps: they can run inside the block's own step."""
        out: dict[Index, list[tuple[Hashable, set[Index]]]] = {}
        for index in self.block_of.values():
            if index in self.late_blocks:
                continue
            chain = self.chain(index)
            end = chain[-1]
            for d in self.dependents[end]:
                node = self.graph.get(d)
                if (
                    d in chain
                    or d in self.block_of
                    or not isinstance(node, Task)
                    or node.dependencies != {end}
                ):
                    continue
                reached = self.steps_reading(d)
                if reached and reached <= self.late_blocks:
                    out.setdefault(index, []).append((d, reached))
        return out

    def read_far(self) -> set[Index]:
        """The blocks that steps far away read too (:meth:`far`): a wrapped pad's."""
        out = set()
        for index in self.block_of.values():
            chain = self.chain(index)
            if any(self.far(r, index) for r in self.steps_reading(chain[-1], chain)):
                out.add(index)
        return out

    def owned_late(self, blocks: Collection[Index]) -> frozenset[Index]:
        """The late blocks among ``blocks`` that own the chunks they have a part of
        (:func:`daskpad.store.planning.ownership.jobs`): all of them when a task runs inside the
        step of one of ``blocks`` for them (:attr:`folds`, every step it leads to among
        ``blocks``), so that no block waits for a late one; otherwise none (a late block's
        chunks are then owned as any others', no block computed again for nothing)."""
        late = self.late_blocks & frozenset(blocks)
        if any(i in blocks and r <= late for i, fs in self.folds.items() for _, r in fs):
            return late
        return frozenset()

    def _folded(
        self, index: Index, chain: list[Hashable], late: frozenset[Index], taken: set[Hashable]
    ) -> list[tuple[Hashable, Any]]:
        """The tasks that run inside the block's step (:attr:`folds`), removed from the
        graph."""
        out = []
        for d, reached in self.folds.get(index, ()):
            # (once: two blocks of x may be one block read twice, a pad of a short axis)
            if index not in late and reached <= late and d not in taken:
                taken.add(d)
                out.append((d, self.graph.pop(d)))
                self.dependents[chain[-1]].remove(d)
        return out

    def _anew(self, index: Index) -> Any:
        """The block's task, to compute again inside another step (a block held in the
        graph as data: a reference to it)."""
        end = self.chain(index)[-1]
        return self.graph[end] if isinstance(self.graph[end], Task) else _ref(end)

    def program(
        self,
        steps: Sequence[Step],
        func: Callable[..., Any],
        last: Callable[..., Any],
        name: str,
        late: Collection[Index] = frozenset(),
        shared: bool = False,
    ) -> Any:
        """A delayed object whose computation runs, for each step ``(index, waits, rereads,
        kwargs)``, ``func(block, *results of the steps of the blocks it waits for,
        rereads=((index, that block computed anew), ...), **kwargs)`` on block ``index``
        of ``x``, and finally ``last(*results of the steps nobody waits for)``. ``func``
        returns a dict. ``late`` are the steps that own the chunks of late blocks
        (:meth:`owned_late`): no other step may wait for one of them. A graph makes one
        program.

        A block's own task runs inside its step, as dask fuses a linear chain, when nothing
        else in the graph reads it (through dask's aliases too): a block read from a store
        is then read and consumed by one task. A task that reads only the block and leads
        only to ``late`` steps (:attr:`folds`: the partial statistics of a whole-axis pad)
        runs inside the step too, on the same block, when the step is not late itself, and
        its result is taken from the step's right away: since steps that are not late
        never wait for late ones, no cycle. When other tasks read the block too, the step
        shares it if those lead only to steps of blocks nearby (along every axis at most
        ``max(2, n // 2)`` blocks away, of ``n``: a reflected pad beside the block, run
        about when the block is); if they lead further (a wrapped pad at the far edge that
        takes from two blocks), the step computes the block again inside itself, rather
        than keep it in memory until that step runs, unless ``shared``: then it is kept.
        Each step's result is released once the steps waiting for it have run."""
        if self._programmed:
            raise RuntimeError("a BlockGraph makes one program: its graph is changed by it")
        self._programmed = True
        graph, dependents = self.graph, self.dependents
        late = frozenset(late)
        for index, waits, _, _ in steps:
            if index not in late and set(waits) & late:
                raise RuntimeError(f"step {index} waits for a late step: a daskpad bug")
        taken: set[Hashable] = set()

        def first(index: Index, chain: list[Hashable]) -> Any:
            """The block's task, to run inline; or a reference to its key."""
            key, node = chain[0], graph[chain[-1]]
            if isinstance(node, Task) and node.func is _inside_result:
                return _ref(chain[-1])  # (taken from another step: others wait for it too)
            if isinstance(node, Task) and not dependents[key]:
                if all(len(dependents[k]) == 1 and k not in self.block_of for k in chain[1:]):
                    for k in chain:  # read by this step alone
                        del graph[k]
                    return node
                far = (self.far(r, index) for r in self.steps_reading(chain[-1], chain))
                if not shared and any(far):
                    return node  # computed again here: other steps, far away, read it too
            return _ref(chain[-1])

        # the tasks steps compute anew, taken before any step takes its own into itself
        rereads = {i: self._anew(i) for _, _, again, _ in steps for i in again}
        # what runs inside the steps, before any step takes its block's task into itself
        # (a folded task may be a late block's own: a wrapped pad's slab)
        insides = {}
        for index, *_ in steps:
            chain = self.chain(index)
            inside = insides[index] = [
                (d, node, chain[-1]) for d, node in self._folded(index, chain, late, taken)
            ]
            for d, _, _ in inside:
                graph[d] = Task(d, _inside_result, _ref((name, *index)), _InsideKey(d))
        waited: set[Index] = set()
        for index, waits, again, kwargs in steps:
            key = (name, *index)
            args = (first(index, self.chain(index)), *(_ref((name, *w)) for w in waits))
            extra: dict[str, Any] = {}
            if again:
                extra["rereads"] = parse_input(tuple((i, rereads[i]) for i in again))
            if insides[index]:
                extra["_inside"] = _Inside(tuple(insides[index]))
            # the results taken from the steps waited for are taken before this step runs,
            # so a waited step's result (the parts it hands on) is not held until the
            # late step that reads them runs
            after = [_ref(d) for w in waits for d, _, _ in insides.get(w, ())]
            if after:
                extra["_after"] = parse_input(tuple(after))
            graph[key] = Task(key, _run_step, *args, _func=func, **kwargs, **extra)
            waited.update(waits)
        end = f"{name}-done"
        graph[end] = Task(end, last, *(_ref((name, *s[0])) for s in steps if s[0] not in waited))
        return Delayed(end, graph)


def _ref(key: Any) -> Any:
    """dask's reference to ``key`` (dask types its keys more narrowly than ours)."""
    return TaskRef(key)


@dataclass(frozen=True)
class _Inside:
    """Tasks a step runs on its block: (key, task, the key the task reads the block as)."""

    tasks: tuple[tuple[Hashable, Any, Hashable], ...]


@dataclass(frozen=True)
class _InsideKey:
    """Where a step's result keeps the result of a task it ran inside."""

    key: Hashable


def _run_step(
    block: Any,
    *args: Any,
    _func: Callable[..., Any],
    _inside: _Inside | None = None,
    _after: Any = None,
    **kwargs: Any,
) -> dict[Any, Any]:
    """A step of :meth:`BlockGraph.program`: ``_func`` on the block, and the tasks that run
    inside the step on the same block (their results kept apart from what the block
    shares: a view of it would hold the whole block until the late step reading it)."""
    out = dict(_func(block, *args, **kwargs))
    for key, task, reads in _inside.tasks if _inside is not None else ():
        out[_InsideKey(key)] = _unshared(task({reads: block}), block)
    return out


def _unshared(value: Any, block: Any) -> Any:
    """``value`` with every array in it that shares memory with ``block`` copied."""
    if isinstance(value, (tuple, list)):
        return type(value)(_unshared(v, block) for v in value)
    if isinstance(value, dict):
        return {k: _unshared(v, block) for k, v in value.items()}
    if hasattr(value, "shape") and hasattr(value, "copy"):
        try:
            shared = bool(np.may_share_memory(value, block))
        except TypeError:  # (an array numpy cannot compare: a copy is safe)
            shared = True
        return value.copy() if shared else value
    return value


def _inside_result(result: Mapping[Any, Any], key: _InsideKey) -> Any:
    """The result of a task a step ran inside itself."""
    return result[key]
