"""Putting the padded array together: pad blocks and untouched interior blocks.

Each mode family's builder (:mod:`daskpad.modes`) produces, for each padded axis, the
blocks before and after the array padded so far. This module keeps track of the resulting
block grid and turns it into dask arrays:

- :meth:`BlockGrid.slab` gives a builder the edge slab of the array padded so far (only the
  blocks the slab touches);
- :meth:`BlockGrid.assemble` gives the final array, with the output chunks the user chose.

Both forms share :class:`BlockGrid`. With dask's classic graphs (:class:`LayeredGrid`)
both are a single layer whose entries are made on demand: each block is dask's alias of
the key that holds it however many axes are padded
(:func:`daskpad._compat.graphs.picked_array`), and building the layer costs nothing per
block (padding 10^6 chunks takes milliseconds); its pad sides can also be one lazy layer
cutting the grid blocks they read (:meth:`LayeredGrid.side_from_spans`). With dask's array
query planning (:class:`PlannedGrid`) the same structure is expressed with public
``concatenate``/``rechunk`` expressions, which dask optimises itself. :func:`new_grid`
gives the form for dask's current graph mode.
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array
from dask.base import tokenize

from daskpad._compat.forms import per_graph_mode
from daskpad._compat.graphs import (
    ArrayBlockIdDep,
    Shifted,
    chunk_index,
    copy_of,
    picked_array,
    task,
)
from daskpad._compat.layouts import one_stage_rechunk
from daskpad._compat.lazy_layers import lazy_array
from daskpad.core import kernels as k
from daskpad.core.regrid import BlockKey, Chunks, _regrid_array

if TYPE_CHECKING:
    from daskpad._compat.tasks import Task

COPY_MOST_BLOCKS = 10**5  # larger inputs are read once, not copied


def fresh_copy(x: da.Array, n: int) -> da.Array:
    """Copy number ``n`` of ``x``: ``x`` computed again, under keys no other array (nor
    another copy) uses, so tasks that read the copy do not keep ``x``'s blocks alive, at
    the cost of computing (reading) ``x`` again. The copy is a renamed, materialised graph
    (:func:`daskpad._compat.graphs.copy_of`), so an input of more than ``COPY_MOST_BLOCKS`` blocks
    is returned as it is (read once, held longer)."""
    if int(np.prod(x.numblocks, dtype=np.int64)) > COPY_MOST_BLOCKS:
        return x  # the renamed graph is materialised: too slow to build for so many blocks
    return copy_of(x, f"copy{n}-{tokenize(x.name)}")


def block_index(n: int) -> ArrayBlockIdDep:
    """A ``blockwise`` argument telling each task of a blockwise pad side which of its
    ``n`` chunks it computes (:func:`daskpad._compat.graphs.chunk_index`)."""
    return chunk_index(n)


def _blocks_from_nothing_layer(
    prefix: str, chunks: Chunks, kernel: Callable[..., k.Block], meta: k.Block, **kwargs: Any
) -> da.Array:
    # classic graphs: one lazy layer (map_blocks would build a block_info for every block
    # up front: seconds for a million blocks)
    name = f"{prefix}-{tokenize(chunks, kernel, meta, kwargs)}"

    def make(index: tuple[int, ...]) -> Task:
        shape = tuple(c[i] for c, i in zip(chunks, index))
        return task((name, *index), kernel, shape=shape, **kwargs)

    return lazy_array(name, chunks, make, [], meta)


def _blocks_from_nothing_mapped(
    prefix: str, chunks: Chunks, kernel: Callable[..., k.Block], meta: k.Block, **kwargs: Any
) -> da.Array:
    # query planning: map_blocks, the shape coming as block_info
    return cast(
        "da.Array", da.map_blocks(kernel, chunks=chunks, dtype=meta.dtype, meta=meta, **kwargs)
    )


blocks_from_nothing = per_graph_mode(
    "blocks_from_nothing",
    """An array without inputs whose block at each index is ``kernel(shape=<that block's
    shape>, **kwargs)`` (under query planning, the shape comes as ``block_info``).""",
    classic=_blocks_from_nothing_layer,
    planned=_blocks_from_nothing_mapped,
)


@dataclass(frozen=True)
class _Padded:
    """One padded axis of the grid: its before/after block arrays and block counts."""

    axis: int
    nbefore: int
    ninner: int
    before: da.Array | None
    after: da.Array | None


class BlockGrid(abc.ABC):
    """The block grid of the array padded so far, without materialising it: what a mode
    family's builder reads (its chunks, dtype, meta and slabs), grown axis by axis
    (:meth:`add`) and assembled at the end (:meth:`assemble`)."""

    def __init__(self, x: da.Array):
        self.x = x
        # some arrays (xarray's, under query planning) carry a 0-d meta: give it x's ndim
        self.meta: k.Block = meta_from_array(x._meta, ndim=x.ndim)
        self.chunks: list[tuple[int, ...]] = list(x.chunks)
        self.padded: list[_Padded] = []
        #: what each mode family's prepare hook (daskpad.core.registry.PREPARES) made for
        #: this pad, by family: its builder reads it back
        self.prepared: dict[str, Any] = {}

    @property
    def ndim(self) -> int:
        return cast("int", self.x.ndim)

    @property
    def dtype(self) -> np.dtype[np.generic]:
        return cast("np.dtype[np.generic]", self.x.dtype)

    @property
    def _meta(self) -> k.Block:
        return self.meta

    @abc.abstractmethod
    def slab(self, axis: int, start: int, stop: int) -> da.Array:
        """``[start:stop]`` along ``axis`` (not padded yet) of the array padded so far."""

    @abc.abstractmethod
    def map_slab(
        self,
        axis: int,
        start: int,
        stop: int,
        fn: Callable[[da.Array], da.Array],
        copy: int | None = None,
        on_input: Callable[[da.Array], da.Array] | None = None,
    ) -> da.Array:
        """``fn`` of the slab ``[start:stop]`` along ``axis``, for an ``fn`` that reduces the
        slab to length one along ``axis`` independently for each face position (a
        statistic). With ``copy``, the input's part of the slab is read from that
        :func:`fresh_copy` of it (copy number ``copy``); ``on_input``, where given, takes
        ``fn``'s place for the input's slab."""

    def add(self, axis: int, before: da.Array | None, after: da.Array | None) -> None:
        """The pad sides of ``axis`` (``None``: no pad on that side) join the grid."""
        nb = len(before.chunks[axis]) if before is not None else 0
        self.padded.append(_Padded(axis, nb, len(self.chunks[axis]), before, after))
        self.chunks[axis] = (
            (before.chunks[axis] if before is not None else ())
            + self.chunks[axis]
            + (after.chunks[axis] if after is not None else ())
        )

    @abc.abstractmethod
    def assemble(self, target: Chunks | None) -> da.Array:
        """The padded array, in the grid's own chunks or in ``target`` chunks (then
        carrying the array in the grid's own in its graph,
        :func:`daskpad.core.regrid.own_grid`)."""


class LayeredGrid(BlockGrid):
    """The block grid with dask's classic graphs: slabs, pad sides and the result are
    lazy layers picking or cutting the grid's blocks."""

    def slab(self, axis: int, start: int, stop: int) -> da.Array:
        index = _along(self.ndim, axis, start, stop)
        if not self.padded:
            return cast("da.Array", self.x[index])
        bounds = np.cumsum((0, *self.chunks[axis]))
        nblocks = len(self.chunks[axis])
        # the blocks [first, last) holding [start, stop); at least one, for an empty slab
        first = min(int(np.searchsorted(bounds, start, side="right")) - 1, nblocks - 1)
        last = min(max(int(np.searchsorted(bounds, stop, side="left")), first + 1), nblocks)
        view = self._view(axis, first, last)
        offset = int(bounds[first])
        if start == offset and stop == bounds[last]:
            return view
        return cast("da.Array", view[_along(self.ndim, axis, start - offset, stop - offset)])

    def map_slab(
        self,
        axis: int,
        start: int,
        stop: int,
        fn: Callable[[da.Array], da.Array],
        copy: int | None = None,
        on_input: Callable[[da.Array], da.Array] | None = None,
    ) -> da.Array:
        # fn is applied to the slab of each array the grid is made of (the input and the
        # pad blocks of earlier axes, each complete along axis) and the results are laid
        # out like the grid, so interior blocks are read directly, never through aliases
        x = self.x if copy is None else fresh_copy(self.x, copy)
        index = _along(self.ndim, axis, start, stop)
        first = on_input or fn
        if not self.padded:
            return first(x[index])
        results = {self.x.name: first(x[index])}
        for p in self.padded:
            for a in (p.before, p.after):
                if a is not None:
                    results[a.name] = fn(a[index])
        padded = tuple(self.padded)
        chunks = tuple((1,) if i == axis else c for i, c in enumerate(self.chunks))
        xname = self.x.name

        def make(block: tuple[int, ...]) -> BlockKey:
            name, *key = _source(xname, padded, block)
            return (results[name].name, *key)

        token = tokenize(self.x.name, [r.name for r in results.values()], axis, start, stop)
        some = next(iter(results.values()))
        return lazy_array(f"pad-stat-{token}", chunks, make, list(results.values()), some._meta)

    def side_from_spans(
        self,
        axis: int,
        chunks: tuple[int, ...],
        offset: int,
        spans: Callable[[int, int], list[tuple[int, int, int]]],
        kernel: Callable[..., k.Block],
        kwargs: Mapping[str, object],
    ) -> da.Array:
        """The blocks of one pad side along ``axis`` (not padded yet), in one lazy layer:
        ``chunks`` along the axis, starting at padded position ``offset``, the face blocks
        of the grid elsewhere. The block at padded positions ``[start, stop)`` is
        ``kernel(*pieces, piece_starts=, start=, stop=, **kwargs)``, where the pieces are
        ``spans(start, stop)``: ``(c, lo, hi)``, the elements ``lo:hi`` of the axis, which
        lie in the grid's block ``c`` along it (cut inside the task: no task per slice).
        """
        padded = tuple(self.padded)
        chunk_starts = np.cumsum((0, *self.chunks[axis]), dtype=np.int64).tolist()
        bounds = np.cumsum((offset, *chunks), dtype=np.int64).tolist()
        out_chunks = tuple(tuple(chunks) if i == axis else c for i, c in enumerate(self.chunks))
        xname = self.x.name

        def make(index: tuple[int, ...]) -> tuple[object, ...]:
            start, stop = bounds[index[axis]], bounds[index[axis] + 1]
            found = spans(start, stop)
            keys = []
            for c, _lo, _hi in found:
                at = tuple(c if j == axis else i for j, i in enumerate(index))
                keys.append(_source(xname, padded, at))
            call = functools.partial(
                k.cut_then,
                kernel=kernel,
                axis=axis,
                cuts=tuple((lo - chunk_starts[c], hi - chunk_starts[c]) for c, lo, hi in found),
                piece_starts=tuple(lo for _c, lo, _hi in found),
                start=start,
                stop=stop,
                **kwargs,
            )
            return (call, *keys)

        token = tokenize(
            self.x.name, [_names(p) for p in padded], axis, chunks, offset, kernel, kwargs
        )
        name = f"{kernel.__name__}-side-{token}"
        return lazy_array(name, out_chunks, make, self._dependencies(), self.meta)

    def _sources(self, padded: Sequence[_Padded]) -> Callable[[tuple[int, ...]], BlockKey]:
        """:func:`_source` of the grid made by ``padded``, with the blocks of the input (most
        of them, materialised once per block) found by a shift of their index."""
        inside = self._interior(padded)
        name = self.x.name

        def source(index: tuple[int, ...]) -> BlockKey:
            return inside.key(index) if inside.holds(index) else _source(name, padded, index)

        return source

    def _interior(self, padded: Sequence[_Padded]) -> Shifted:
        """Where the grid made by ``padded`` holds the input's blocks as they are."""
        first = [0] * len(self.chunks)
        for p in padded:
            first[p.axis] += p.nbefore
        stop = [f + n for f, n in zip(first, self.x.numblocks)]
        return Shifted(self.x.name, tuple(first), tuple(stop))

    def _runs(self, padded: Sequence[_Padded]) -> list[list[int]]:
        """Per axis, the first block of each run of blocks of the grid made by ``padded``
        along it (the pad before, the input, the pad after): the blocks in the same run
        along every axis are all held by one array (:meth:`_source`)."""
        starts = [{0} for _ in range(self.ndim)]
        for p in padded:
            starts[p.axis] |= {p.nbefore, p.nbefore + p.ninner}
        return [sorted(s) for s in starts]

    def _dependencies(self) -> list[da.Array]:
        deps = [self.x]
        for p in self.padded:
            deps += [a for a in (p.before, p.after) if a is not None]
        return deps

    def _view(self, axis: int, first: int, last: int) -> da.Array:
        """Blocks ``first:last`` along ``axis`` of the grid so far, all blocks elsewhere."""
        padded = tuple(self.padded)
        chunks = tuple(c[first:last] if i == axis else c for i, c in enumerate(self.chunks))
        xname = self.x.name

        def make(index: tuple[int, ...]) -> BlockKey:
            grid_index = tuple(i + first if j == axis else i for j, i in enumerate(index))
            return _source(xname, padded, grid_index)

        token = tokenize(self.x.name, [_names(p) for p in padded], axis, first, last)
        return lazy_array(f"pad-slab-{token}", chunks, make, self._dependencies(), self.meta)

    # -- the result ----------------------------------------------------------------------

    def assemble(self, target: Chunks | None) -> da.Array:
        padded = tuple(self.padded)
        grid_chunks = tuple(self.chunks)
        token = tokenize(self.x.name, [_names(p) for p in padded], target)
        if target is None or target == grid_chunks:
            return self._picked(padded)
        return _regrid_array(
            f"pad-{token}",
            grid_chunks,
            target,
            self._sources(padded),
            self._dependencies(),
            self.x,
            self._runs(padded),
            assemble=k.assemble_read_only,  # (as every pad block: kernels.read_only)
            laid_out_from=self._picked(padded),
        )

    def _picked(self, padded: tuple[_Padded, ...]) -> da.Array:
        """The padded array in the grid's own chunks."""
        return picked_array(
            f"pad-{tokenize(self.x.name, [_names(p) for p in padded], None)}",
            tuple(self.chunks),
            source=self._sources(padded),
            dependencies=self._dependencies(),
            meta=self.meta,
            shifted=self._interior(padded),
        )


class PlannedGrid(BlockGrid):
    """The block grid under dask's array query planning: the array padded so far is kept
    as public ``concatenate`` expressions of the input and the pad sides, which dask's
    optimiser reads; slabs are slices of it."""

    def __init__(self, x: da.Array):
        super().__init__(x)
        self.concatenated: da.Array = self._with_meta(x)

    def _with_meta(self, x: da.Array) -> da.Array:
        if np.ndim(x._meta) != x.ndim:
            # concatenate needs metas of the array's ndim; a blockwise identity (fused away
            # by dask's optimiser) gives x one
            return cast("da.Array", da.map_blocks(k.identity, x, meta=self.meta, dtype=x.dtype))
        return x

    def _concatenated_over(
        self, x: da.Array, pads: Callable[[da.Array], da.Array] = lambda a: a
    ) -> da.Array:
        """The query-planning form of the grid, with ``x`` in place of the input and
        ``pads`` of each pad side in place of the side."""
        y = self._with_meta(x)
        for p in self.padded:
            parts = [pads(p.before) if p.before is not None else None, y]
            parts.append(pads(p.after) if p.after is not None else None)
            y = da.concatenate([a for a in parts if a is not None], axis=p.axis)
        return y

    def slab(self, axis: int, start: int, stop: int) -> da.Array:
        index = _along(self.ndim, axis, start, stop)
        return cast("da.Array", self.concatenated[index])

    def map_slab(
        self,
        axis: int,
        start: int,
        stop: int,
        fn: Callable[[da.Array], da.Array],
        copy: int | None = None,
        on_input: Callable[[da.Array], da.Array] | None = None,
    ) -> da.Array:
        x = self.x if copy is None else fresh_copy(self.x, copy)
        index = _along(self.ndim, axis, start, stop)
        if on_input is not None:
            # the input's slab apart from the pads', joined like the grid
            return self._concatenated_over(on_input(x[index]), lambda a: fn(a[index]))
        grid = self.concatenated if copy is None else self._concatenated_over(x)
        return fn(grid[index])

    def add(self, axis: int, before: da.Array | None, after: da.Array | None) -> None:
        super().add(axis, before, after)
        parts = [p for p in (before, self.concatenated, after) if p is not None]
        self.concatenated = da.concatenate(parts, axis=axis)

    def assemble(self, target: Chunks | None) -> da.Array:
        y = self.concatenated
        if target is None or target == y.chunks:
            return y
        # (dask's rechunk joins writable blocks: a layer making them read-only would be
        # tasks of its own, not fused with the rechunk's); in one stage, which keeps y
        # in the result's expression (daskpad.core.regrid.own_grid)
        return one_stage_rechunk(y, target)


new_grid = per_graph_mode(
    "new_grid",
    "The block grid of ``x``: a :class:`LayeredGrid` with classic graphs, a "
    ":class:`PlannedGrid` under query planning.",
    classic=LayeredGrid,
    planned=PlannedGrid,
)


def _along(ndim: int, axis: int, start: int, stop: int) -> tuple[slice, ...]:
    """The index of ``[start:stop]`` along ``axis`` of an array of ``ndim`` dimensions."""
    return tuple(slice(start, stop) if i == axis else slice(None) for i in range(ndim))


def _names(p: _Padded) -> tuple[int, str | None, str | None]:
    return (p.axis, getattr(p.before, "name", None), getattr(p.after, "name", None))


def _source(name: str, padded: Sequence[_Padded], index: tuple[int, ...]) -> BlockKey:
    """The key holding block ``index`` of the grid over the input named ``name`` made by
    ``padded``. (A function of names, not a method: pad blocks' tasks are made by closures,
    and a closure over the grid, which holds the pad blocks, would make each padded graph a
    reference cycle, kept with its input until Python's cyclic collector runs.)"""
    original = list(index)
    for p in padded:
        original[p.axis] -= p.nbefore
    for n, p in enumerate(reversed(padded)):
        i = index[p.axis]
        if p.nbefore <= i < p.nbefore + p.ninner:
            continue
        source = p.before if i < p.nbefore else p.after
        assert source is not None
        local = i if i < p.nbefore else i - p.nbefore - p.ninner
        # axes padded before this one keep their padded index; later ones are original
        earlier = {q.axis for q in padded[: len(padded) - 1 - n]}
        key = [
            local if j == p.axis else (index[j] if j in earlier else original[j])
            for j in range(len(index))
        ]
        return (source.name, *key)
    return (name, *original)
