"""An array laid out in other chunks: each output block assembled from the blocks it
overlaps, in one task (:func:`regrid`), never through a finer grid or a general rechunk.
With classic graphs the layer is made on demand and declares exactly the arrays its tasks
read (:func:`_arrays_read`). A regridded array carries, in its own graph, the array in the
chunks it was made from (:func:`own_grid`), which the store's writers read block by block.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Unpack, cast

import dask.array as da
import numpy as np
from dask.base import is_dask_collection, tokenize

from daskpad._compat.forms import per_graph_mode
from daskpad._compat.layouts import laid_out_from, one_stage_rechunk
from daskpad._compat.lazy_layers import SparseLazyLayer, lazy_array
from daskpad.core import kernels as k
from daskpad.core.ndarrays import Positions

Chunks = tuple[tuple[int, ...], ...]
#: The key of an array's block: the array's name and the block's index.
BlockKey = tuple[str, Unpack[tuple[int, ...]]]


def regrid(a: da.Array, target: Chunks) -> da.Array:
    """``a`` in ``target`` chunks: each block cut out of, or joined from, the blocks of ``a``
    it overlaps, in one lazy layer (no rechunk plan to build); dask's ``rechunk`` under
    query planning, in one stage: array-expr's rechunk (dask 2026.8) builds tasks with
    malformed keys when it plans intermediate stages, as it does between many
    one-element chunks and wider ones."""
    target = tuple(tuple(int(c) for c in cs) for cs in target)
    if target == a.chunks:
        return a
    return _regridded(a, target)


def _regrid_layer(a: da.Array, target: Chunks) -> da.Array:
    name = f"pad-regrid-{tokenize(a.name, target)}"
    source = a.name
    return _regrid_array(
        name, a.chunks, target, lambda index: (source, *index), [a], a, laid_out_from=a
    )


def _regrid_rechunk(a: da.Array, target: Chunks) -> da.Array:
    return one_stage_rechunk(a, target)


_regridded = per_graph_mode(
    "_regridded",
    "``a`` in ``target`` chunks: one lazy layer, or dask's one-stage rechunk.",
    classic=_regrid_layer,
    planned=_regrid_rechunk,
)


def own_grid(y: Any) -> Any:
    """The array ``y`` was regridded from (by :func:`regrid` or ``pad(..., chunks=)``),
    with the same values in the blocks it was made of; ``y`` itself for any other array.
    A writer that stores blocks into another grid anyway (:mod:`daskpad.store.writing.stream`)
    reads these, each once, instead of the regridded blocks made of up to 2**ndim of them.
    Read from ``y``'s own graph (:func:`daskpad._compat.layouts.laid_out_from`)."""
    source = laid_out_from(y) if is_dask_collection(y) else None
    return y if source is None else own_grid(source)


def _regrid_array(
    name: str,
    grid: Chunks,
    target: Chunks,
    source: Callable[[tuple[int, ...]], BlockKey],
    dependencies: Sequence[da.Array],
    like: da.Array,
    runs: Sequence[Sequence[int]] | None = None,
    assemble: Callable[..., k.Block] = k.assemble_block,
    laid_out_from: da.Array | None = None,
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
    block cuts one. ``assemble`` joins a block's pieces
    (:func:`daskpad.core.kernels.assemble_block`'s arguments). ``laid_out_from``: the
    array in ``grid`` chunks, kept in the result's graph (:func:`own_grid`).
    """
    pieces = [_Pieces(g, t) for g, t in zip(grid, target)]
    part_name = f"{name}-part"

    def direct(t: tuple[int, ...], g: tuple[int, ...]) -> bool:
        return all(pieces[a].owner(gi) == ti for a, (ti, gi) in enumerate(zip(t, g)))

    def parts_of(t: tuple[int, ...]) -> list[list[tuple[int, tuple[int, int] | None]]]:
        return [pieces[a][ti] for a, ti in enumerate(t)]

    def one_whole_block(parts: list[list[tuple[int, tuple[int, int] | None]]]) -> bool:
        return all(len(p) == 1 and p[0][1] is None for p in parts)

    def make(t: tuple[int, ...]) -> tuple[object, ...]:
        parts = parts_of(t)
        if one_whole_block(parts):
            return source(tuple(p[0][0] for p in parts))
        keys: list[Hashable] = []
        cut: list[int] = []
        for n, combo in enumerate(itertools.product(*parts)):
            g = tuple(b for b, _ in combo)
            if direct(t, g):
                keys.append(source(g))
            else:
                keys.append((part_name, *t, *g))
                cut.append(n)
        return (
            assemble,
            _nest(keys, [len(p) for p in parts]),
            tuple(tuple(s for _, s in p) for p in parts),
            tuple(cut),
        )

    def make_part(index: tuple[int, ...]) -> tuple[object, ...]:
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
    return lazy_array(
        name, target, make, dependencies, like._meta, below, reads, laid_out_from=laid_out_from
    )


def _arrays_read(
    pieces: Sequence[_Pieces],
    runs: Sequence[Sequence[int]],
    source: Callable[[tuple[int, ...]], BlockKey],
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


def _nest(flat: Sequence[object], shape: list[int]) -> object:
    """``flat`` (C order) as nested lists of ``shape``."""
    if len(shape) <= 1:
        return flat if shape else flat[0]
    step = len(flat) // shape[0]
    return [_nest(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


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
        listed: list[int] = self._gb.tolist()
        return listed

    @functools.cached_property
    def tb(self) -> list[int]:
        """The target's chunk boundaries (as Python ints, made when tasks are)."""
        listed: list[int] = self._tb.tolist()
        return listed

    @functools.cached_property
    def _ranks(self) -> tuple[Positions, Positions]:
        """For each grid boundary, how many target boundaries lie at or before it, and how
        many strictly before it (the only searches: the rest follows by counting)."""
        gb, tb = self._gb, self._tb
        return np.searchsorted(tb, gb, side="right"), np.searchsorted(tb, gb, side="left")

    @functools.cached_property
    def _taken(self) -> tuple[Positions, Positions]:
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
    def _owners(self) -> Positions:
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
        return cast("Positions", owners)

    @functools.cached_property
    def _owner_list(self) -> list[int]:
        listed: list[int] = self._owners.tolist()
        return listed

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
        listed: list[int] = masks.tolist()
        return listed

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


def _expand(first: Positions, stop: Positions) -> tuple[Positions, Positions, Positions]:
    """The ranges ``[first[i], stop[i])`` (none empty) laid end to end: for each element,
    its range ``i`` and its value, and where each range starts among them."""
    counts = stop - first
    starts = np.cumsum(counts) - counts
    which = np.repeat(np.arange(len(counts)), counts)
    return which, first[which] + np.arange(int(counts.sum())) - starts[which], starts
