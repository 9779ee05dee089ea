"""Writes on zarr's regular grid, tile by tile when large, so that the memory a write
holds stays bounded: :class:`TilePlan`.

Every dask-backed variable zarr takes as it is goes through streamed writes
(:mod:`daskpad.store.writing.stream`): each block the variable was made of (its source in
the tiling: for a padded array in regular chunks, the input's blocks and the pad's) is
computed once and written into the zarr chunks it overlaps, each chunk whole, once. Such a
write holds a few blocks per thread and the thin edges blocks hand on, so most datasets are
written in one computation; above the memory budget they are written one tile of zarr
chunks at a time (:mod:`daskpad.store.planning.tiling`), each tile its own computation, and
the input blocks along tile edges are read by both tiles. A variable xarray encodes (CF
attributes, strings, times) goes through xarray's region writes of its regular blocks
instead, each assembled from the blocks it overlaps, and a tile holds what it reads. The
statistics a pad repeats are computed before the tiles
(:func:`daskpad.store.writing.settle.settle_statistics`), so a statistic of the whole axis
is read once, not by every tile at an edge. On a distributed cluster every computation has
keys of its own (:func:`daskpad.store.writing.settle.fresh_keys`).

:func:`plan_tiles` plans a dataset's write, :func:`plan_array_tiles` one dask array's (a
bare zarr array).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from dask.utils import format_bytes

from daskpad._compat.graphs import optimized_graph
from daskpad._compat.tasks import task_runs
from daskpad.core.regrid import regrid
from daskpad.store.planning.budget import memory_budget
from daskpad.store.planning.tiling import Tiling, array_tiling, tiling_for
from daskpad.store.planning.zarr_chunks import storable
from daskpad.store.writing.consolidation import consolidate
from daskpad.store.writing.metadata import (
    array_documents,
    dataset_documents,
    empty_stand_in,
    largest_blocks,
    with_scalars_loaded,
    with_scalars_unread,
)
from daskpad.store.writing.settle import Run, compute_tiles, settle_statistics
from daskpad.store.writing.stream import streamed_writes

if TYPE_CHECKING:
    import dask.array as da
    import xarray as xr
    import zarr


@dataclass(frozen=True)
class TilePlan:
    """A write on zarr's regular grid of the dataset ``ds`` (or of the bare dask array
    ``array``), in chunks zarr can store, tiled by ``tiling`` so that a tile holds about
    ``budget`` bytes.

    :meth:`describe` says how it is written; :meth:`write` writes it."""

    tiling: Tiling
    budget: int
    ds: xr.Dataset | None = None
    array: da.Array | None = None

    @property
    def ntiles(self) -> int:
        return self.tiling.ntiles

    @property
    def whole(self) -> bool:
        """Written in one computation."""
        return self.tiling.whole

    @property
    def hold(self) -> int:
        """The bytes each streamed array may hold, rather than read again, of the blocks
        that tasks far away or late read: in one computation, half the budget, shared by
        the arrays; none in tiles."""
        if not self.whole:
            return 0
        streamed = [n for g, _ in self.tiling.shapes for n in g.streamed] or [""]
        return self.budget // (2 * len(streamed))

    def describe(self) -> str:
        """How the plan writes, in words."""
        if self.whole:
            return "in one computation"
        return (
            f"in {self.ntiles} tiles, each holding about {format_bytes(self.budget)} at most "
            "(the memory budget)"
        )

    def write(
        self,
        store: Any,
        *,
        progress: bool = False,
        compute: Callable[[list[Any]], object] | None = None,
        consolidated: bool = True,
        run: Run | None = None,
        **kwargs: Any,
    ) -> zarr.Array[Any] | None:
        """Write the plan into the new zarr ``store``: the documents and in-memory
        variables first (``kwargs`` go to xarray's ``to_zarr``, or to
        :func:`zarr.create_array` for a bare array), then the dask-backed variables tile
        by tile, one computation per tile (or, when the plan is one tile and ``compute``
        is given, by ``compute(collections)``); a dataset's metadata is consolidated at
        the end unless ``consolidated`` is False. Returns the bare array written.

        A variable xarray stores as it is goes straight into its zarr array; one that
        xarray encodes (scale_factor, _FillValue, times, strings, ...) goes through
        xarray's region writes, which encode it as the store says. ``run`` runs each
        computation of a tile or of the statistics settled first (default: dask's, as
        :func:`daskpad.store.writing.settle.compute_apart`)."""
        import zarr

        sources = dict(self.tiling.sources)
        if self.array is not None:
            ((group, _),) = self.tiling.shapes
            z = array_documents(self.array, store, largest_blocks(group.chunks), **kwargs)
            if self.ntiles > 1:
                # (the memory budget, which a bare array's tiles hold)
                (sources[""],) = settle_statistics([sources[""]], self.budget, progress, run)
            jobs = self._jobs(None, store, {"": z}, sources, z.metadata.zarr_format)
            _run(jobs, self, compute, progress, run)
            return z
        assert self.ds is not None
        ds = with_scalars_loaded(self.ds)
        streamed = [name for group, _ in self.tiling.shapes for name in group.streamed]
        if not self.whole:
            lazy = [n for n, v in ds.variables.items() if v.chunks is not None and v.ndim]
            settled = settle_statistics([sources[n] for n in lazy], self.budget, progress, run)
            for name, done in zip(lazy, settled):
                var = ds.variables[name]
                if done is not sources[name] and name not in streamed:
                    var.data = regrid(done, _chunks(var.chunks))  # for xarray's region writes
                sources[name] = done
        # xarray builds (and drops) a write of every dask-backed variable, whose graph, for
        # a padded array of 87 x 87 blocks in regular chunks, takes seconds: those written
        # straight stand in as empty arrays of their chunks, one layer of blocks
        stand_ins = {n: empty_stand_in(ds.variables[n], regular=False) for n in streamed}
        root = dataset_documents(ds, store, stand_ins, **kwargs)
        fmt = root.metadata.zarr_format
        targets: dict[Hashable, zarr.Array[Any]] = {}
        for name in streamed:  # the zarr arrays written straight, opened and checked once
            var = ds.variables[name]
            target = root[str(name)]
            if not isinstance(target, zarr.Array):
                raise RuntimeError(f"{name!r} is a group in the store, not an array")
            targets[name] = target
            if (target.shape, getattr(target, "dtype", None)) != (var.shape, var.dtype):
                raise RuntimeError(  # xarray made the array; this would be a daskpad bug
                    f"the zarr array {name!r} is {target.shape}, not {var.dims} {var.shape}"
                )
        _run(self._jobs(ds, store, targets, sources, fmt), self, compute, progress, run)
        if consolidated:
            consolidate(store, fmt)
        return None

    def task_runs(self, **kwargs: Any) -> Counter[Hashable]:
        """How many times each task of the computations :meth:`write` (given ``kwargs``)
        runs would run, nothing computed: the documents written into memory, each
        computation's graph built and optimised as dask's would be, and its tasks counted
        (:func:`daskpad._compat.tasks.task_runs`: a block a task reads anew counts again).
        The statistics settled first stand in unknown, the scalars as zeros."""
        from zarr.storage import MemoryStore

        runs: Counter[Hashable] = Counter()

        def counted(collections: Sequence[Any]) -> list[None]:
            dsk, keys = optimized_graph(list(collections))
            runs.update(task_runs(dsk, keys))
            return [None] * len(collections)

        ds = None if self.ds is None else with_scalars_unread(self.ds)
        plan = replace(self, ds=ds)
        kwargs = {**kwargs, "consolidated": False}
        plan.write(MemoryStore(), compute=counted, run=counted, **kwargs)
        return runs

    def _jobs(
        self,
        ds: xr.Dataset | None,
        store: Any,
        targets: Mapping[Hashable, Any],
        sources: Mapping[Hashable, da.Array],
        fmt: int,
    ) -> Iterator[list[Any]]:
        """Per tile, the dask collections that write it."""
        import xarray as xr

        hold = self.hold
        for group, region in self.tiling.regions():
            if not group.dims and ds is not None:
                yield []  # a dataset's scalars, written with the metadata
                continue
            where = tuple(region[d] for d in group.dims)
            writes: list[Any] = []
            encoded = {}
            for name in group.names:
                if name in targets:
                    writes += write_region(sources[name], targets[name], where, hold)
                else:
                    assert ds is not None
                    # attrs too: the store has them, and xarray's region write takes the
                    # encoding from the store (an undecoded _FillValue attr would clash)
                    var = ds.variables[name]
                    encoded[name] = xr.Variable(var.dims, var.data[where])
            if encoded:
                writes.append(
                    xr.Dataset(encoded).to_zarr(
                        store,
                        region={str(d): s for d, s in region.items()},
                        compute=False,
                        consolidated=False,
                        zarr_format=fmt,
                    )
                )
            yield writes


def _chunks(chunks: tuple[tuple[int, ...], ...] | None) -> tuple[tuple[int, ...], ...]:
    assert chunks is not None  # (dask-backed)
    return chunks


def _run(
    jobs: Iterator[list[Any]],
    plan: TilePlan,
    compute: Callable[[list[Any]], object] | None,
    progress: bool,
    run: Run | None,
) -> None:
    if compute is not None and plan.whole:
        compute([w for writes in jobs for w in writes])
    else:
        compute_tiles(jobs, plan.ntiles, progress, run)


def write_region(
    source: da.Array, target: zarr.Array[Any], region: tuple[slice, ...], hold: int = 0
) -> list[Any]:
    """The dask collections that write ``source[region]`` into ``target[region]``:
    ``source`` is the array of the blocks a variable was made of (its tiling's: for a
    padded array in regular chunks, the input's blocks and the pad's), each computed once
    and written into the zarr chunks it overlaps, each chunk whole by one task
    (:mod:`daskpad.store.writing.stream`); ``region`` is on the target's chunk bounds.
    Empty for an array without elements."""
    writes = streamed_writes(source, target, region, hold)
    return [] if writes is None else [writes]


def plan_tiles(
    ds: xr.Dataset,
    memory: int | str | None,
    padded_dims: Collection[Hashable] | None = None,
) -> TilePlan:
    """How ``ds`` is written within ``memory`` bytes
    (:func:`daskpad.store.planning.budget.memory_budget`): its dask-backed variables laid
    out in chunks zarr can store (:func:`daskpad.store.planning.zarr_chunks.storable`),
    tiled over all its dimensions, those ``padded_dims`` counting the neighbour an edge
    block reads (default: every dimension)."""
    budget = memory_budget(memory)
    ds = ds.copy(deep=False)
    for var in ds.variables.values():
        if var.chunks is not None:
            var.data = storable(var.data)  # zarr's chunks: regular along every dimension
    if padded_dims is None:
        padded_dims = {d for v in ds.variables.values() for d in v.dims}
    return TilePlan(tiling_for(ds, padded_dims, budget), budget, ds=ds)


def plan_array_tiles(x: da.Array, memory: int | str | None) -> TilePlan:
    """The tiles of a streamed write of the dask array ``x`` holding about ``memory``
    bytes, in zarr chunks ``x``'s where zarr can store them, as a bare zarr array."""
    budget = memory_budget(memory)
    x = storable(x)
    return TilePlan(array_tiling(x, budget), budget, array=x)
