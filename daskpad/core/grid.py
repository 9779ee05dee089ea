"""Putting the padded array together: pad blocks and untouched interior blocks.

The builders in :mod:`daskpad.modes.builders` produce, for each padded axis, the blocks before and
after the array padded so far. This module keeps track of the resulting block grid and turns
it into dask arrays:

- :meth:`Grid.slab` gives a builder the edge slab of the array padded so far (only the
  blocks the slab touches);
- :meth:`Grid.assemble` gives the final array, with the output chunks the user chose.

With dask's classic graphs both are a single layer whose entries are computed on demand:
each block picks the key that holds it however many axes are padded (the final array is a
``Blockwise`` layer that dask fuses its consumer into:
:func:`daskpad._compat.graphs.picked_array`),
and building the layer costs nothing per block (padding 10^6 chunks takes milliseconds).
With dask's array query planning the same structure is expressed with public
``concatenate``/``rechunk`` expressions, which dask optimises itself.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array
from dask.base import tokenize

from daskpad._compat.graphs import (
    Shifted,
    SparseLazyLayer,
    chunk_index,
    copy_of,
    lazy_array,
    picked_array,
    query_planning,
    task,
)
from daskpad.core import kernels as k

Chunks = tuple[tuple[int, ...], ...]


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


BLOCK_INDEX = "pad-index"  # the name of block_index's layers (and a token)


def block_index(n: int) -> Any:
    """A ``blockwise`` argument telling each task of a blockwise pad side which of its
    ``n`` chunks it computes (:func:`daskpad._compat.graphs.chunk_index`)."""
    return chunk_index(n, BLOCK_INDEX, tokenize(n))


def blocks_from_nothing(
    prefix: str, chunks: Chunks, kernel: Callable[..., Any], meta: Any, **kwargs: Any
) -> da.Array:
    """An array without inputs whose block at each index is
    ``kernel(shape=<that block's shape>, **kwargs)``, in one lazy layer (``map_blocks``
    builds a ``block_info`` for every block up front: seconds for a million blocks)."""
    name = f"{prefix}-{tokenize(chunks, kernel, meta, kwargs)}"

    def make(index: tuple[int, ...]) -> Any:
        shape = tuple(c[i] for c, i in zip(chunks, index))
        return task((name, *index), kernel, shape=shape, **kwargs)

    return lazy_array(name, chunks, make, [], meta)


@dataclass(frozen=True)
class _Padded:
    """One padded axis of the grid: its before/after block arrays and block counts."""

    axis: int
    nbefore: int
    ninner: int
    before: da.Array | None
    after: da.Array | None


class Grid:
    """The block grid of the array padded so far, without materialising it."""

    def __init__(self, x: da.Array):
        self.x = x
        # some arrays (xarray's, under query planning) carry a 0-d meta: give it x's ndim
        self.meta = meta_from_array(x._meta, ndim=x.ndim)
        self.chunks: list[tuple[int, ...]] = list(x.chunks)
        self.padded: list[_Padded] = []
        self.concatenated: da.Array = self._with_meta(x)  # the query-planning form
        self.copies = 0  # how many statistics read x again through fresh_copy
        # a statistic's partials along several axes at once, per input block (see
        # daskpad.modes.statistics.share_partials): stat -> (array of tuples, the axes)
        self.shared_partials: dict[str, tuple[da.Array, tuple[int, ...]]] = {}

    def _with_meta(self, x: da.Array) -> da.Array:
        if query_planning() and np.ndim(x._meta) != x.ndim:
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

    # -- what builders see -------------------------------------------------------------

    @property
    def ndim(self) -> int:
        return cast("int", self.x.ndim)

    @property
    def dtype(self) -> np.dtype:
        return cast("np.dtype[Any]", self.x.dtype)

    @property
    def _meta(self) -> Any:
        return self.meta

    def slab(self, axis: int, start: int, stop: int) -> da.Array:
        """``[start:stop]`` along ``axis`` (not padded yet) of the array padded so far."""
        index = tuple(slice(start, stop) if i == axis else slice(None) for i in range(self.ndim))
        if not self.padded or query_planning():
            return cast("da.Array", self.concatenated[index])
        bounds = np.cumsum((0, *self.chunks[axis]))
        nblocks = len(self.chunks[axis])
        # the blocks [first, last) holding [start, stop); at least one, for an empty slab
        first = min(int(np.searchsorted(bounds, start, side="right")) - 1, nblocks - 1)
        last = min(max(int(np.searchsorted(bounds, stop, side="left")), first + 1), nblocks)
        view = self._view(axis, first, last)
        offset = int(bounds[first])
        if start == offset and stop == bounds[last]:
            return view
        local = tuple(
            slice(start - offset, stop - offset) if i == axis else slice(None)
            for i in range(self.ndim)
        )
        return cast("da.Array", view[local])

    def map_slab(
        self,
        axis: int,
        start: int,
        stop: int,
        fn: Callable[[da.Array], da.Array],
        copy: bool = False,
        on_input: Callable[[da.Array], da.Array] | None = None,
    ) -> da.Array:
        """``fn`` of the slab ``[start:stop]`` along ``axis``, for an ``fn`` that reduces the
        slab to length one along ``axis`` independently for each face position (a
        statistic). With ``copy``, the input's part of the slab is read from a
        :func:`fresh_copy` of it.

        ``fn`` is applied to the slab of each array the grid is made of (the input and the
        pad blocks of earlier axes, each complete along ``axis``) and the results are laid
        out like the grid, so interior blocks are read directly, never through aliases.
        ``on_input``, where given, takes ``fn``'s place for the input's slab.
        """
        x = fresh_copy(self.x, self.copies) if copy else self.x
        index = tuple(slice(start, stop) if i == axis else slice(None) for i in range(self.ndim))
        if query_planning() and on_input is not None:
            # the input's slab apart from the pads', joined like the grid
            return self._concatenated_over(on_input(x[index]), lambda a: fn(a[index]))
        if query_planning():
            grid = self._concatenated_over(x) if copy else self.concatenated
            return fn(grid[index])
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

        def make(block: tuple[int, ...]) -> Any:
            name, *key = self._source(padded, block)
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
        kernel: Callable[..., Any],
        kwargs: Mapping[str, Any],
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

        def make(index: tuple[int, ...]) -> Any:
            start, stop = bounds[index[axis]], bounds[index[axis] + 1]
            found = spans(start, stop)
            keys = []
            for c, _lo, _hi in found:
                at = tuple(c if j == axis else i for j, i in enumerate(index))
                keys.append(self._source(padded, at))
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

    # -- growing the grid --------------------------------------------------------------

    def add(self, axis: int, before: da.Array | None, after: da.Array | None) -> None:
        nb = len(before.chunks[axis]) if before is not None else 0
        self.padded.append(_Padded(axis, nb, len(self.chunks[axis]), before, after))
        self.chunks[axis] = (
            (before.chunks[axis] if before is not None else ())
            + self.chunks[axis]
            + (after.chunks[axis] if after is not None else ())
        )
        if query_planning():
            parts = [p for p in (before, self.concatenated, after) if p is not None]
            self.concatenated = da.concatenate(parts, axis=axis)

    def _source(self, padded: Sequence[_Padded], index: tuple[int, ...]) -> tuple[Any, ...]:
        """The key holding block ``index`` of the grid made by ``padded``."""
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
        return (self.x.name, *original)

    def _sources(self, padded: Sequence[_Padded]) -> Callable[[tuple[int, ...]], Any]:
        """:meth:`_source` of the grid made by ``padded``, with the blocks of the input (most
        of them, materialised once per block) found by a shift of their index."""
        inside = self._interior(padded)

        def source(index: tuple[int, ...]) -> Any:
            return inside.key(index) if inside.holds(index) else self._source(padded, index)

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

        def make(index: tuple[int, ...]) -> Any:
            grid_index = tuple(i + first if j == axis else i for j, i in enumerate(index))
            return self._source(padded, grid_index)

        token = tokenize(self.x.name, [_names(p) for p in padded], axis, first, last)
        return lazy_array(f"pad-slab-{token}", chunks, make, self._dependencies(), self.meta)

    # -- the result ----------------------------------------------------------------------

    def assemble(self, target: Chunks | None) -> da.Array:
        """The padded array, in the grid's own chunks or in ``target`` chunks (then
        remembering the array in the grid's own, :func:`own_grid`)."""
        if query_planning():
            y = self.concatenated
            if target is None or target == y.chunks:
                return y
            return _remembering(y.rechunk(target), lambda: y)
        padded = tuple(self.padded)
        grid_chunks = tuple(self.chunks)
        token = tokenize(self.x.name, [_names(p) for p in padded], target)
        if target is None or target == grid_chunks:
            return self._picked(padded)
        regridded = _regrid_array(
            f"pad-{token}",
            grid_chunks,
            target,
            self._sources(padded),
            self._dependencies(),
            self.x,
            self._runs(padded),
        )
        return _remembering(regridded, lambda: self._picked(padded))

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


ONE_STAGE = 2**62  # a rechunk graph-growth threshold no plan reaches


def regrid(a: da.Array, target: Chunks) -> da.Array:
    """``a`` in ``target`` chunks: each block cut out of, or joined from, the blocks of ``a``
    it overlaps, in one lazy layer (no rechunk plan to build); dask's ``rechunk`` under
    query planning, in one stage: array-expr's rechunk (dask 2026.8) builds tasks with
    malformed keys when it plans intermediate stages, as it does between many
    one-element chunks and wider ones."""
    target = tuple(tuple(int(c) for c in cs) for cs in target)
    if target == a.chunks:
        return a
    if query_planning():
        rechunked = cast("da.Array", a.rechunk(target, threshold=ONE_STAGE))
        return _remembering(rechunked, lambda: own_grid(a))
    name = f"pad-regrid-{tokenize(a.name, target)}"
    return _remembering(
        _regrid_array(name, a.chunks, target, lambda index: (a.name, *index), [a], a),
        lambda: own_grid(a),
    )


#: the attribute of a regridded array holding what makes the array in the chunks it was
#: made from (made on demand: most regridded arrays are never asked)
_OWN_GRID = "_daskpad_own_grid"


def _remembering(regridded: da.Array, own: Callable[[], da.Array]) -> da.Array:
    setattr(regridded, _OWN_GRID, own)
    return regridded


def own_grid(y: Any) -> Any:
    """The array ``y`` was regridded from (by :func:`regrid` or ``pad(..., chunks=)``),
    with the same values in the blocks it was made of; ``y`` itself for any other array.
    A writer that stores blocks into another grid anyway (:mod:`daskpad.store.stream`) reads
    these, each once, instead of the regridded blocks made of up to 2**ndim of them."""
    own = getattr(y, _OWN_GRID, None)
    return y if own is None else own()


def _regrid_array(
    name: str,
    grid: Chunks,
    target: Chunks,
    source: Callable[[tuple[int, ...]], Any],
    dependencies: Sequence[da.Array],
    like: da.Array,
    runs: Sequence[Sequence[int]] | None = None,
) -> da.Array:
    """The blocks of ``grid`` (keys given by ``source``) laid out in ``target`` chunks.

    Each output block reads directly the grid blocks it takes most of (along every axis);
    the smaller parts it needs of other blocks are first cut out and copied by their own
    tasks (:func:`daskpad.core.kernels.cut_part`). A grid block is then released as soon as the
    one output block taking most of it has run, instead of waiting for every neighbour:
    writing a shifted grid row by row holds thin slivers of the previous row, not the row.

    ``runs`` gives, per axis, the first grid block of each run of blocks along it such
    that ``source`` takes the keys of all blocks in the same run along every axis from
    one array (by default one run per axis: one array). The layers declare as their
    dependencies exactly the arrays their tasks read (:func:`_arrays_read`), as dask's
    graph validation requires; the layer of parts is left out where no output
    block cuts one.
    """
    pieces = [_Pieces(g, t) for g, t in zip(grid, target)]
    part_name = f"{name}-part"

    def direct(t: tuple[int, ...], g: tuple[int, ...]) -> bool:
        return all(pieces[a].owner(gi) == ti for a, (ti, gi) in enumerate(zip(t, g)))

    def parts_of(t: tuple[int, ...]) -> list[list[tuple[int, tuple[int, int] | None]]]:
        return [pieces[a][ti] for a, ti in enumerate(t)]

    def one_whole_block(parts: list[list[tuple[int, tuple[int, int] | None]]]) -> bool:
        return all(len(p) == 1 and p[0][1] is None for p in parts)

    def make(t: tuple[int, ...]) -> Any:
        parts = parts_of(t)
        if one_whole_block(parts):
            return source(tuple(p[0][0] for p in parts))
        keys, cut = [], []
        for n, combo in enumerate(itertools.product(*parts)):
            g = tuple(b for b, _ in combo)
            if direct(t, g):
                keys.append(source(g))
            else:
                keys.append((part_name, *t, *g))
                cut.append(n)
        return (
            k.assemble_block,
            _nest(keys, [len(p) for p in parts]),
            tuple(tuple(s for _, s in p) for p in parts),
            tuple(cut),
        )

    def make_part(index: tuple[int, ...]) -> Any:
        ndim = len(pieces)
        t, g = index[:ndim], index[ndim:]
        spans = []
        for a, (ti, gi) in enumerate(zip(t, g)):
            part = dict(pieces[a][ti]).get(gi, ...)
            if part is ...:
                raise KeyError((part_name, *index))
            size = pieces[a].gb[gi + 1] - pieces[a].gb[gi]
            spans.append((0, size) if part is None else part)
        if direct(t, g):
            raise KeyError((part_name, *index))
        return (k.cut_part, source(g), tuple(spans))

    def part_keys() -> Iterator[tuple[int, ...]]:
        for t in itertools.product(*(range(len(c)) for c in target)):
            parts = parts_of(t)
            if one_whole_block(parts):
                continue
            for combo in itertools.product(*parts):
                g = tuple(b for b, _ in combo)
                if not direct(t, g):
                    yield (*t, *g)

    if runs is None:
        runs = [[0] for _ in grid]
    read, cut_from = _arrays_read(pieces, runs, source)
    below = {part_name: SparseLazyLayer(part_name, make_part, part_keys)} if cut_from else {}
    reads = {name: read | set(below), **{n: cut_from for n in below}}
    return lazy_array(name, target, make, dependencies, like._meta, below, reads)


def _arrays_read(
    pieces: Sequence[_Pieces],
    runs: Sequence[Sequence[int]],
    source: Callable[[tuple[int, ...]], Any],
) -> tuple[set[str], set[str]]:
    """The names of the arrays whose blocks :func:`_regrid_array`'s output blocks read
    directly, and of those its part tasks cut from, without going through the blocks:
    along each axis, the kinds of pieces (:meth:`_Pieces.kinds`) each run of blocks gives,
    then for each combination of runs (one per axis: at most 3^ndim, each of one array)
    whether an output block takes pieces of those kinds there."""
    kinds = [p.kinds(starts) for p, starts in zip(pieces, runs)]
    read: set[str] = set()
    cut_from: set[str] = set()
    # the bits of each kind in the masks: (whole, direct) at bit 2 * whole + direct
    whole, owned, several, several_owned, not_owned = 0b1100, 0b1010, 0b11, 0b10, 0b101
    given = [[(run, mask) for run, mask in enumerate(masks) if mask] for masks in kinds]
    for combo in itertools.product(*given):
        found = [mask for _, mask in combo]
        array = source(tuple(runs[a][run] for a, (run, _) in enumerate(combo)))[0]
        # a whole block as the output block, along every axis; or owned pieces (along
        # every axis) of an output block of several pieces (along one axis at least)
        if all(m & whole for m in found) or (
            all(m & owned for m in found) and any(m & several_owned for m in found)
        ):
            read.add(array)
        # a piece of an output block of several pieces, not owned along some axis
        if any(m & several & not_owned for m in found) or any(
            f & several and g & not_owned
            for a, f in enumerate(found)
            for b, g in enumerate(found)
            if a != b
        ):
            cut_from.add(array)
    return read, cut_from


def _nest(flat: list[Any], shape: list[int]) -> Any:
    """``flat`` (C order) as nested lists of ``shape``."""
    if len(shape) <= 1:
        return flat if shape else flat[0]
    step = len(flat) // shape[0]
    return [_nest(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def _names(p: _Padded) -> tuple[Any, ...]:
    return (p.axis, getattr(p.before, "name", None), getattr(p.after, "name", None))


class _Pieces:
    """For each target chunk along one axis, the grid blocks it takes and which part of each
    (``None`` for the whole block); for each grid block, the target chunk taking most of it
    (its owner). Worked out for all chunks at once with numpy (a target may have millions
    of chunks), each target's list of parts when asked for."""

    def __init__(self, grid: tuple[int, ...], target: tuple[int, ...]):
        self._gb = np.cumsum((0, *grid), dtype=np.int64)
        self._tb = np.cumsum((0, *target), dtype=np.int64)
        self.nblocks = len(grid)
        # answers already worked out: a graph asks the same ones for every block it meets
        self._parts: dict[int, list[tuple[int, tuple[int, int] | None]]] = {}

    @functools.cached_property
    def gb(self) -> list[int]:
        """The grid's block boundaries (as Python ints, made when tasks are)."""
        return cast("list[int]", self._gb.tolist())

    @functools.cached_property
    def tb(self) -> list[int]:
        """The target's chunk boundaries (as Python ints, made when tasks are)."""
        return cast("list[int]", self._tb.tolist())

    @functools.cached_property
    def _ranks(self) -> tuple[np.ndarray, np.ndarray]:
        """For each grid boundary, how many target boundaries lie at or before it, and how
        many strictly before it (the only searches: the rest follows by counting)."""
        gb, tb = self._gb, self._tb
        return np.searchsorted(tb, gb, side="right"), np.searchsorted(tb, gb, side="left")

    @functools.cached_property
    def _taken(self) -> tuple[np.ndarray, np.ndarray]:
        """Per target chunk, the grid blocks ``[first, stop)`` it takes a part of: those it
        overlaps, or for an empty chunk the one block at its place."""
        at_or_before, before = self._ranks
        n = len(self._tb)
        # grid boundaries at or before each target boundary, and strictly before it
        first = np.cumsum(np.bincount(before, minlength=n))[:-1] - 1
        stop = np.minimum(np.cumsum(np.bincount(at_or_before, minlength=n))[1:n], self.nblocks)
        empty = self._tb[:-1] == self._tb[1:]
        if empty.any():
            first = np.where(empty, np.minimum(first, self.nblocks - 1), first)
            stop = np.where(empty, first + 1, stop)
        return first, stop

    @functools.cached_property
    def _owners(self) -> np.ndarray:
        """The owner of each grid block: of the target chunks from the one holding its
        start to the last one starting before its end, the first with the largest overlap
        (the first one for an empty block)."""
        tb, lo, hi = self._tb, self._gb[:-1], self._gb[1:]
        at_or_before, before = self._ranks
        n = len(tb) - 1
        first = np.minimum(np.maximum(at_or_before[:-1] - 1, 0), n - 1)
        stop = np.minimum(np.maximum(first + 1, before[1:]), n)
        owners = first.copy()
        two = np.flatnonzero(stop - first == 2)  # the common case of more than one, at once
        t = first[two]
        one = np.minimum(hi[two], tb[t + 1]) - np.maximum(lo[two], tb[t])
        other = np.minimum(hi[two], tb[t + 2]) - np.maximum(lo[two], tb[t + 1])
        owners[two] = t + (other > one)
        many = np.flatnonzero(stop - first > 2)
        if len(many):
            which, t, starts = _expand(first[many], stop[many])
            b = many[which]
            size = np.minimum(hi[b], tb[t + 1]) - np.maximum(lo[b], tb[t])
            largest = np.maximum.reduceat(size, starts)[which]
            at = np.where(size == largest, np.arange(len(size)), len(size))
            owners[many] = t[np.minimum.reduceat(at, starts)]
        return cast("np.ndarray", owners)

    @functools.cached_property
    def _owner_list(self) -> list[int]:
        return cast("list[int]", self._owners.tolist())

    def owner(self, g: int) -> int:
        """The target chunk taking the largest part of grid block ``g`` (the first of
        equals)."""
        return self._owner_list[g]

    def kinds(self, runs: Sequence[int]) -> list[int]:
        """For each run of grid blocks (``runs``: the first block of each), the kinds of
        the pieces its blocks give, as a mask with bit ``2 * whole + direct`` set for
        each kind given: ``whole`` when the target chunk taking the piece is one whole
        block, ``direct`` when that chunk owns the block. From the first and last piece
        of each target chunk, with numpy: no loop over chunks."""
        first, stop = self._taken
        gb, tb, owners = self._gb, self._tb, self._owners
        count = stop - first
        several = np.flatnonzero(count > 1)
        # the first piece of each target chunk, and the last of each taking several
        blocks = np.concatenate((first, stop[several] - 1))
        chunk = np.concatenate((np.arange(len(count)), several))
        whole = (count == 1) & (tb[:-1] <= gb[first]) & (gb[first + 1] <= tb[1:])
        whole = np.concatenate((whole, np.zeros(len(several), dtype=bool)))
        starts = np.asarray(runs, dtype=np.int64)
        run = np.searchsorted(starts, blocks, side="right") - 1
        codes = run * 4 + whole * 2 + (owners[blocks] == chunk)
        given = np.bincount(codes, minlength=4 * len(runs)).reshape(len(runs), 4) > 0
        masks = given @ np.array([1, 2, 4, 8])
        # those between: whole blocks strictly inside a chunk of several, which owns them
        inner = np.flatnonzero(count > 2)
        if len(inner):
            lo, hi = first[inner] + 1, stop[inner] - 1  # sorted, disjoint
            ends = np.append(starts[1:], self.nblocks)
            at = np.minimum(np.searchsorted(hi, starts, side="right"), len(hi) - 1)
            meets = (hi[at] > starts) & (lo[at] < ends)
            masks = masks | np.where(meets, 2, 0)
        return cast("list[int]", masks.tolist())

    def __getitem__(self, i: int) -> list[tuple[int, tuple[int, int] | None]]:
        try:
            return self._parts[i]
        except KeyError:
            self._parts[i] = found = self._pieces(i)
            return found

    def _pieces(self, i: int) -> list[tuple[int, tuple[int, int] | None]]:
        gb, start, stop = self.gb, self.tb[i], self.tb[i + 1]
        first, last = self._taken
        parts: list[tuple[int, tuple[int, int] | None]] = []
        for b in range(int(first[i]), int(last[i])):
            lo, hi = max(start, gb[b]), min(stop, gb[b + 1])
            whole = lo == gb[b] and hi == gb[b + 1]
            parts.append((b, None if whole else (lo - gb[b], hi - gb[b])))
        return parts


def _expand(first: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ranges ``[first[i], stop[i])`` (none empty) laid end to end: for each element,
    its range ``i`` and its value, and where each range starts among them."""
    counts = stop - first
    starts = np.cumsum(counts) - counts
    which = np.repeat(np.arange(len(counts)), counts)
    return which, first[which] + np.arange(int(counts.sum())) - starts[which], starts
