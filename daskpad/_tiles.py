"""Writing a padded dataset to zarr tile by tile, so that the memory it holds stays bounded.

An output grid shifted by a pad (``chunks="regular"`` or ``"even"``) is assembled from the
tail of one input block and the head of the next. Written in one computation, dask's
ordering lets input blocks wait for neighbours it takes much later; the threaded scheduler
then holds some rows of input blocks at once, so memory grows with the grid's side (see
docs/performance.md, "Storing a bigger grid"). Here the command writes the dask-backed
variables one tile of output blocks at a time, each tile its own computation of a zarr
region: whatever dask's order inside a tile, it holds at most the input blocks the tile
reads. Along a padded dimension a tile also reads the input block before (or after) it, so
the input blocks at tile edges are read twice; tiles are made as large as the memory budget
allows. The statistics a pad repeats are computed before the tiles
(:func:`settle_statistics`), so a statistic of the whole axis is read once, not by every
tile at an edge. On a distributed cluster every computation has keys of its own
(:func:`fresh_keys`).

Nothing here pads: :mod:`daskpad.cli` calls :func:`write_tiled` with the padded dataset,
and :func:`to_zarr` (public as ``daskpad.to_zarr``) does the same for one dask array.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import sys
import time
import uuid
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from ._assemble import BLOCK_INDEX
from ._dask import (
    key_values,
    layer_dependencies,
    layer_keys,
    optimized_graph,
    progress_callback,
    renamed,
    with_values,
)
from ._kernels import repeat_block

Chunks = tuple[tuple[int, ...], ...]


def default_memory() -> int:
    """2 GiB, or a quarter of this machine's memory if that is less."""
    try:
        quarter = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")) // 4
    except (AttributeError, OSError, ValueError):
        quarter = 2**31
    return min(2**31, quarter)


def zarr_can_store(chunks: Chunks) -> bool:
    """Whether zarr can store blocks of these chunks as its own: along every axis all equal
    but a smaller last one."""
    return not any(len(c) > 1 and (len(set(c[:-1])) > 1 or c[-1] > c[0]) for c in chunks)


def storable_chunks(chunks: Chunks) -> Chunks:
    """``chunks`` where zarr can store them; otherwise, along each axis it cannot,
    regular chunks of the size that covers most of the axis (the larger where two tie):
    for an array padded in the default chunks, the input's own, the pads cut to it.

    >>> storable_chunks(((256, 333, 333, 333, 1, 256), (4, 4, 2)))
    ((333, 333, 333, 333, 180), (4, 4, 2))
    >>> storable_chunks(((10, 100, 10),))  # one input chunk, two pad chunks
    ((100, 20),)
    """
    out = []
    for c in chunks:
        if zarr_can_store((c,)):
            out.append(tuple(c))
            continue
        size = max(Counter(c).items(), key=lambda sc: (sc[0] * sc[1], sc[0]))[0]
        full, rest = divmod(sum(c), size)
        out.append((size,) * full + ((rest,) if rest else ()))
    return tuple(out)


def storable(x: Any) -> Any:
    """The dask array ``x`` in :func:`storable_chunks`, each block assembled in one task
    from the blocks it overlaps."""
    from ._assemble import regrid

    target = storable_chunks(tuple(tuple(int(n) for n in c) for c in x.chunks))
    return x if target == x.chunks else regrid(x, target)


def _is_local_path(store: Any) -> bool:
    return isinstance(store, (str, os.PathLike)) and "://" not in os.fspath(store)


@contextlib.contextmanager
def written_whole(
    store: Any, replace: bool, storage_options: Mapping[str, Any] | None = None
) -> Iterator[Any]:
    """Where to write a new store so that it opens only once complete, and a failed or
    interrupted write leaves nothing that opens:

    - a local path (or ``file://`` URL): a hidden temporary sibling, moved into place when
      the block succeeds (replacing an existing store only with ``replace``) and removed
      when it fails;
    - an fsspec URL (``s3://``, ``gs://``, ..., reached with ``storage_options``): the store
      itself, its root metadata held back until the block succeeds and everything removed
      when it fails (:func:`daskpad._stores.written_in_place`; ``replace`` deletes an
      existing store first);
    - any other store (a zarr store object): as it is.
    """
    from ._stores import is_url, locate, written_in_place

    if isinstance(store, (str, os.PathLike)) and is_url(os.fspath(store)):
        location = locate(os.fspath(store), storage_options)
        if not location.local:
            with written_in_place(location, replace) as held, own_threads():
                yield held
            return
        store = location.path
    if not _is_local_path(store):
        yield store
        return
    from pathlib import Path

    from ._cli_io import commit, remove_quietly, temporary_sibling

    dst = Path(store)
    empty = dst.is_dir() and not dst.is_symlink() and not any(dst.iterdir())
    if not replace and not empty and (dst.exists() or dst.is_symlink()):
        raise FileExistsError(f"{str(dst)!r} exists; pass mode='w' (overwrite=True) to replace it")
    tmp = temporary_sibling(dst, "tmp")
    try:
        with own_threads():
            yield str(tmp)
        if empty:
            dst.rmdir()  # an empty directory made for the store (tempfile.mkdtemp())
        commit(tmp, dst, replace)
    except BaseException:
        remove_quietly(tmp)
        raise


@contextlib.contextmanager
def own_threads() -> Iterator[None]:
    """While the block runs, dask's threaded scheduler uses a pool of threads of its own
    (otherwise it shares one module-wide pool): on the way out, after a failure or an
    interruption too, queued tasks are cancelled and those already running are waited
    for, so that none writes into a temporary store after it is removed."""
    from concurrent.futures import ThreadPoolExecutor

    import dask

    pool = ThreadPoolExecutor(dask.config.get("num_workers", None) or os.cpu_count() or 1)
    try:
        with dask.config.set(pool=pool):
            yield
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def memory_budget(memory: int | str | None) -> int:
    """``memory=`` of the public writers: bytes, a size such as ``"512MB"``, or ``None``
    for :func:`default_memory`."""
    if memory is None:
        return default_memory()
    from dask.utils import parse_bytes

    try:
        n = int(parse_bytes(memory))
    except (ValueError, TypeError):
        n = -1
    if n <= 0:
        raise ValueError(f"memory must be a positive number of bytes, got {memory!r}")
    return n


@dataclass(frozen=True)
class Group:
    """Dask-backed variables with the same dimensions and chunks, written together."""

    names: tuple[Hashable, ...]
    dims: tuple[Hashable, ...]
    chunks: Chunks
    block_bytes: int  # one block of every variable of the group (the largest block)


def groups(ds: Any) -> list[Group]:
    """The dask-backed variables of ``ds`` (data and coordinates), grouped by their
    dimensions and chunks, in the dataset's order."""
    found: dict[tuple[Any, ...], list[Hashable]] = {}
    for name, var in ds.variables.items():
        if var.chunks is not None:  # 0-d ones too: one tile of one block
            found.setdefault((var.dims, var.chunks), []).append(name)
    out = []
    for (dims, chunks), names in found.items():
        block = math.prod(max(c, default=0) for c in chunks)
        nbytes = sum(block * ds.variables[n].dtype.itemsize for n in names)
        out.append(Group(tuple(names), tuple(dims), tuple(chunks), nbytes))
    return out


def tile_shape(
    numblocks: Sequence[int], halo: Sequence[int], block_bytes: int, budget: int
) -> tuple[int, ...]:
    """Blocks per tile along each axis: as many as keep the blocks a tile reads (its own,
    plus ``halo`` more along each axis) within ``budget`` bytes, grown evenly across axes.
    A tile is one block when even that is over budget."""

    def footprint(k: Sequence[int]) -> int:
        return block_bytes * math.prod(min(ki + h, n) for ki, h, n in zip(k, halo, numblocks))

    k = [1] * len(numblocks)
    while True:
        # grow the axis whose tiles cover the smallest share of it
        growable = [a for a, n in enumerate(numblocks) if k[a] < n]
        growable.sort(key=lambda a: (k[a] / numblocks[a], a))
        for a in growable:
            trial = k.copy()
            trial[a] += 1
            if footprint(trial) <= budget:
                k = trial
                break
        else:
            return tuple(k)


def tiles(chunks: Chunks, shape: Sequence[int]) -> Iterator[tuple[slice, ...]]:
    """The element slices of each tile of ``shape`` blocks, in C order of the tiles."""
    bounds = [np.cumsum((0, *c)).tolist() for c in chunks]
    starts = [range(0, len(c), k) for c, k in zip(chunks, shape)]
    for first in itertools.product(*starts):
        yield tuple(
            slice(b[f], b[min(f + k, len(b) - 1)]) for b, f, k in zip(bounds, first, shape)
        )


@dataclass(frozen=True)
class Plan:
    """How the dask-backed variables are written: per group, its tile shape."""

    shapes: tuple[tuple[Group, tuple[int, ...]], ...]

    @property
    def ntiles(self) -> int:
        return sum(
            math.prod(math.ceil(len(c) / k) for c, k in zip(g.chunks, shape))
            for g, shape in self.shapes
        )

    @property
    def whole(self) -> bool:
        """Every group fits in one tile: write the dataset in one computation."""
        return all(all(k >= len(c) for c, k in zip(g.chunks, shape)) for g, shape in self.shapes)

    def regions(self) -> Iterator[tuple[Group, dict[Hashable, slice]]]:
        for g, shape in self.shapes:
            for slices in tiles(g.chunks, shape):
                yield g, dict(zip(g.dims, slices))


def plan(ds: Any, padded_dims: Collection[Hashable], budget: int) -> Plan:
    """Tiles for writing ``ds`` holding about ``budget`` bytes of input at once; a padded
    dimension counts one more block per tile (the neighbour its edge block reads). The
    statistics a pad repeats are not counted: the writers settle them first
    (:func:`settle_statistics`)."""
    out = []
    for g in groups(ds):
        numblocks = [len(c) for c in g.chunks]
        halo = [int(d in padded_dims and len(c) > 1) for d, c in zip(g.dims, g.chunks)]
        out.append((g, tile_shape(numblocks, halo, g.block_bytes, budget)))
    return Plan(tuple(out))


class TileProgress:
    """One progress bar over all the tiles' computations (local threads: a dask callback
    counts each tile's tasks; a cluster: whole tiles), on stderr unless ``out`` says."""

    width = 40

    def __init__(
        self, ntiles: int, out: TextIO | None = None, every: float = 0.1, what: str = "tile"
    ):
        self.ntiles = ntiles
        self.what = what
        self.out = sys.stderr if out is None else out
        self.every = every
        self.done_tiles = 0
        self.start = time.perf_counter()
        self._drawn = -math.inf

    def callback(self) -> Any:
        """A dask callback drawing the bar as the current tile's tasks finish."""
        return progress_callback(self.draw)

    def tile_done(self) -> None:
        self.done_tiles += 1
        self.draw(0.0, force=True)

    def draw(self, within: float, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self._drawn < self.every:
            return
        self._drawn = now
        frac = min((self.done_tiles + within) / self.ntiles, 1.0)
        hashes = "#" * int(self.width * frac)
        self.out.write(
            f"\r[{hashes:<{self.width}}] | {frac:4.0%} Completed | {self.what} "
            f"{min(self.done_tiles + 1, self.ntiles)} of {self.ntiles} | "
            f"{now - self.start:.1f}s"
        )
        self.out.flush()

    def finish(self) -> None:
        self.out.write("\n")
        self.out.flush()


def store_tiles(jobs: Iterable[list[Any]], ntiles: int, progress: bool) -> None:
    """Compute each job (a list of dask collections writing one tile) in its own
    computation: a tile's input is released before the next tile starts.

    It runs on the default scheduler, a distributed client's cluster when there is one.
    There each tile's tasks get keys of their own (:func:`fresh_keys`): neighbouring tiles
    read the same input blocks, and a graph that names keys the scheduler is still releasing
    from the previous tile can fail in distributed's scheduler (a KeyError for an input
    key, distributed 2026.8; dask/dask#9888).
    """
    bar = TileProgress(ntiles) if progress else None
    for writes in jobs:
        with _step(bar):
            compute_apart(writes)
    if bar is not None:
        bar.finish()


@contextlib.contextmanager
def _step(bar: TileProgress | None) -> Iterator[None]:
    """One step of ``bar`` (``None``: no bar): drawn as the computation inside runs, then
    counted done."""
    if bar is None:
        yield
        return
    with bar.callback():
        yield
    bar.tile_done()


#: the keys of the computation this process last handed to a distributed cluster: a run
#: that stops waits for those still running before it removes what they write into
#: (:func:`daskpad.cli`)
submitted_keys: set[Any] = set()


def compute_apart(collections: Sequence[Any]) -> Sequence[Any]:
    """``dask.compute(*collections)``; on a distributed cluster, under keys of their own
    (:func:`fresh_keys`), the results in the order of the collections' flattened keys."""
    import dask
    from dask.base import get_scheduler

    schedule = get_scheduler(collections=collections)
    if _is_distributed(schedule):
        return list(schedule(*fresh_keys(collections)))
    return dask.compute(*collections)


def _is_distributed(schedule: Any) -> bool:
    """Whether ``schedule`` (from ``dask.base.get_scheduler``) is a distributed client's."""
    client = getattr(schedule, "__self__", None)
    return type(client).__module__.startswith("distributed")


def fresh_keys(collections: Sequence[Any]) -> tuple[dict[Any, Any], list[Any]]:
    """The graph that computes ``collections`` (optimised as ``dask.compute`` does) with
    every key renamed to one no other computation uses, and its output keys; its keys are
    recorded in :data:`submitted_keys`."""
    dsk, keys = optimized_graph(collections)
    graph, rename = renamed(dsk, uuid.uuid4().hex)
    submitted_keys.clear()  # what a stopped run waits for (daskpad.cli)
    submitted_keys.update(graph)
    return graph, [rename(key) for key in keys]


def settle_statistics(arrays: Sequence[Any], budget: int, progress: bool = False) -> list[Any]:
    """``arrays`` with the statistics their pad blocks repeat (modes maximum, mean, median,
    minimum) computed now and put into their graphs as data.

    A statistic of the whole axis reads every block along it. Left in the graph, every
    tile at the array's edge would read the axis again; settled first, the statistics are
    read once per padded axis, and a tile reads only its own blocks. They are computed
    axis after axis (a later axis's statistic reads the earlier pads), a few face blocks
    per computation: those whose lines add up to about ``budget`` bytes of input (a median
    holds its whole lines). Arrays without statistics, or whose graphs are not layered
    (dask's array query planning), are returned as they are. ``progress``: one bar over
    the computations.
    """
    out = list(arrays)
    pending: dict[int, set[str]] = {}
    for i, x in enumerate(out):
        layers = layer_dependencies(x)
        if layers is not None:
            names = {
                d
                for name, deps in layers.items()
                if name.startswith(_REPEAT_LAYER)
                for d in deps
                if not d.startswith(_INDEX)
            }
            if names:
                pending[i] = names
    # keys per computation, for each statistic layer: a few face blocks of whole lines,
    # each reading about the array's bytes over the layer's keys
    per: dict[str, int] = {}
    computations = 0
    for i, names in pending.items():
        for name in names - set(per):
            nkeys = len(layer_keys(out[i], name))
            per[name] = max(1, budget * nkeys // max(out[i].nbytes, 1))
            computations += -(-nkeys // per[name])
    bar = TileProgress(computations, what="statistics") if progress and per else None
    settled: dict[str, Any] = {}  # statistic layer -> its values, as a layer
    while pending:
        for i, names in pending.items():
            layers = layer_dependencies(out[i])
            assert layers is not None
            for name in names:
                if name in settled or _reads_any(layers, name, names - {name}):
                    continue
                settled[name] = _settle_layer(out[i], name, per[name], bar)
        for i, names in list(pending.items()):
            out[i] = with_values(out[i], {n: settled[n] for n in names if n in settled})
            pending[i] = names - set(settled)
            if not pending[i]:
                del pending[i]
    if bar is not None:
        bar.finish()
    return out


def _reads_any(layers: Mapping[str, set[str]], name: str, others: set[str]) -> bool:
    """Whether layer ``name`` depends, at any depth, on one of ``others`` (``layers``: the
    layers each layer reads)."""
    seen, stack = set(), [name]
    while stack:
        for dep in layers[stack.pop()]:
            if dep in others:
                return True
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return False


def _settle_layer(x: Any, name: str, per: int, bar: TileProgress | None) -> dict[Any, Any]:
    """The values of the keys of layer ``name`` of ``x``'s graph, computed ``per`` keys at
    a time."""
    keys = sorted(layer_keys(x, name), key=str)
    values: dict[Any, Any] = {}
    for start in range(0, len(keys), per):
        batch = keys[start : start + per]
        with _step(bar):
            results = compute_apart(key_values(x, name, batch))
        values.update(zip(batch, results))
    return values


# the layers of daskpad's graph that repeat a statistic into pad blocks (named after their
# kernel), and the tiny block-index layers they also read (see daskpad._graph.build_stat)
_REPEAT_LAYER = f"{repeat_block.__name__}-"
_INDEX = f"{BLOCK_INDEX}-"


def write_region(array: Any, target: Any, region: tuple[slice, ...]) -> list[Any]:
    """The dask collections that write ``array[region]`` into ``target[region]`` (none,
    having written it, when that part of ``array`` is in memory already)."""
    from dask.base import is_dask_collection

    piece = array[region]
    if is_dask_collection(piece):
        return [_writes(piece, target, region)]
    target[region] = piece  # (xarray loads a variable of size 0 as it writes its metadata)
    return []


def _writes(piece: Any, target: Any, region: tuple[slice, ...]) -> Any:
    """A dask array of one flag per block of ``piece``, each computed by writing the block
    into ``target`` at ``region``'s offset. (``map_blocks`` rather than
    ``dask.array.store``, which dask's array query planning does not implement.)"""
    origin = tuple(s.start or 0 for s in region)
    return piece.map_blocks(
        _write_block,
        target=target,
        origin=origin,
        chunks=tuple((1,) * len(c) for c in piece.chunks),
        dtype=bool,
        meta=np.empty((0,) * piece.ndim, dtype=bool),
    )


def _write_block(
    block: Any, *, target: Any, origin: tuple[int, ...], block_info: Any = None
) -> Any:
    # tiles follow the zarr chunks: each block is whole zarr chunks, written by no other task
    location = block_info[0]["array-location"]
    where = tuple(slice(o + a, o + b) for o, (a, b) in zip(origin, location))
    target[where] = block
    return np.ones((1,) * block.ndim, dtype=bool)


def write_tiled(
    ds: Any, store: Any, the_plan: Plan, progress: bool, consolidated: bool | None, **kwargs: Any
) -> None:
    """Write ``ds`` to the new zarr ``store``: xarray writes the metadata and the in-memory
    variables (``kwargs`` go to its ``to_zarr``), then the dask-backed variables are
    written tile by tile, one computation per tile; metadata is consolidated at the end
    unless ``consolidated`` is False.

    A variable xarray stores as it is (numbers, no CF encoding left to apply: the command
    reads values undecoded) goes straight into its zarr array; one that xarray encodes
    (scale_factor, _FillValue, times, strings, ...) goes through xarray's region writes,
    which encode it as the store says.
    """
    import xarray as xr
    import zarr

    ds = ds.copy(deep=False)
    for var in ds.variables.values():
        if var.chunks is not None and var.ndim == 0:
            var.load()  # a scalar: written with the metadata
    if the_plan.ntiles > 1:
        lazy = [v for v in ds.variables.values() if v.chunks is not None and v.ndim]
        budget = max(g.block_bytes * math.prod(k) for g, k in the_plan.shapes)
        arrays = settle_statistics([v.data for v in lazy], budget, progress)
        for var, settled in zip(lazy, arrays):
            var.data = settled
    ds.to_zarr(store, **{"mode": "w-", **kwargs}, compute=False, consolidated=False)
    root: Any = zarr.open_group(store, mode="r+")
    fmt = root.metadata.zarr_format
    # the zarr arrays written straight, opened and checked once
    targets = {}
    for group, _ in the_plan.shapes:
        for name in group.names:
            var = ds.variables[name]
            if not group.dims or needs_encoding(var):
                continue
            target = targets[name] = root[str(name)]
            if (target.shape, getattr(target, "dtype", None)) != (var.shape, var.dtype):
                raise RuntimeError(  # xarray made the array; this would be a daskpad bug
                    f"the zarr array {name!r} is {target.shape}, not {var.dims} {var.shape}"
                )

    def jobs() -> Iterator[list[Any]]:
        for group, region in the_plan.regions():
            if not group.dims:
                yield []  # the scalars, written with the metadata
                continue
            where = tuple(region[d] for d in group.dims)
            writes: list[Any] = []
            encoded = {}
            for name in group.names:
                var = ds.variables[name]
                if name in targets:
                    writes += write_region(var.data, targets[name], where)
                else:
                    # attrs too: the store has them, and xarray's region write takes the
                    # encoding from the store (an undecoded _FillValue attr would clash)
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

    store_tiles(jobs(), the_plan.ntiles, progress)
    if consolidated or consolidated is None:
        consolidate(store, fmt)


def consolidate(store: Any, zarr_format: int) -> None:
    """Consolidate the store's metadata, so that xarray opens it with one read (and
    without warning that it is not consolidated), zarr v3 included."""
    import zarr

    with v3_consolidation_quietly():
        zarr.consolidate_metadata(store, zarr_format=zarr_format)  # type: ignore[arg-type]


@contextlib.contextmanager
def v3_consolidation_quietly() -> Iterator[None]:
    """Without zarr's warning that consolidated metadata is not part of the v3
    specification yet: not news to whoever asked for it."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Consolidated metadata is currently not")
        yield


def to_zarr(
    x: Any, store: Any, *, memory: int | str | None = None, progress: bool = False, **kwargs: Any
) -> Any:
    """Store a dask array in a new zarr array tile by tile, holding about ``memory`` bytes
    of input at once.

    ``dask.array.to_zarr`` computes the whole array at once. For a padded array in regular
    chunks (``daskpad.pad(..., chunks="regular")`` or ``"even"``) that holds rows of input
    blocks, more the more blocks a row has: each output block needs the tail of the input
    block before it, and dask's ordering does not take the rows in that order. Here each
    tile of output blocks is stored in its own computation and reads about ``memory`` bytes
    of input at most: its own blocks and the neighbouring block its edges may read along
    every axis (so the input blocks along tile edges are read twice), plus, for a tile at
    the array's edge, the blocks its pad is taken from (for ``wrap``, at the far edge).
    The statistics a pad repeats (maximum, mean, median, minimum) are computed first, axis
    after axis, so a statistic of the whole axis is read once per padded axis, not by every
    tile at an edge.

    It takes any dask array: chunks zarr cannot store (the default chunks of a padded
    array, whose pads are cut from the budget) are first laid out as
    :func:`storable_chunks` says, each block in one task. A local path is written under a
    hidden temporary name and moved into place once complete: a failed or interrupted
    write leaves nothing that opens, and an existing store is replaced only with
    ``overwrite=True``. An object store (``s3://``, ``gs://``, ...) has no rename: the array
    is written in place, its metadata document last, and a failed write removes what it
    wrote; ``overwrite=True`` deletes an existing store there first. Other stores are
    written in place.

    Parameters
    ----------
    x : dask.array.Array
        Any chunks; zarr's chunks are ``x``'s where zarr can store them.
    store
        Where to create the zarr array: a local path, an fsspec URL (``s3://bucket/a.zarr``;
        see ``storage_options``) or any store :func:`zarr.create_array` takes.
    memory : int or str, optional
        Bytes of input a tile may read (``"512MB"`` works too); default 2 GiB, or a quarter
        of this machine's memory if less. A tile is at least one block.
    progress : bool
        Show one progress bar over all the tiles.
    **kwargs
        Passed to :func:`zarr.create_array` (``compressors=``, ``zarr_format=``,
        ``overwrite=``, ...), except ``storage_options``: those of the filesystem of a URL
        ``store`` (``{"endpoint_url": ...}``, credentials), which travel with the store to
        the workers of a cluster.

    Returns
    -------
    zarr.Array
        The array written.

    Examples
    --------
    >>> import dask.array as da, daskpad, numpy as np, tempfile, zarr
    >>> x = da.from_array(np.arange(100).reshape(10, 10), chunks=3)
    >>> y = daskpad.pad(x, 2, mode="reflect", chunks="regular")
    >>> z = daskpad.to_zarr(y, tempfile.mkdtemp(), memory=16 * y.dtype.itemsize * 9)
    >>> z.chunks
    (3, 3)
    >>> bool((z[...] == np.pad(np.arange(100).reshape(10, 10), 2, mode="reflect")).all())
    True
    """
    import zarr

    x = storable(x)
    chunks = tuple(tuple(int(c) for c in cs) for cs in x.chunks)
    budget = memory_budget(memory)
    numblocks = [len(c) for c in chunks]
    block_bytes = math.prod(max(c, default=0) for c in chunks) * x.dtype.itemsize
    halo = [int(n > 1) for n in numblocks]
    shape = tile_shape(numblocks, halo, block_bytes, budget)
    options = kwargs.pop("storage_options", None)
    with written_whole(store, bool(kwargs.get("overwrite")), options) as where:
        z = zarr.create_array(
            where,
            shape=x.shape,
            dtype=x.dtype,
            chunks=tuple(max(max(c, default=1), 1) for c in chunks),
            **kwargs,
        )
        regions = list(tiles(chunks, shape))
        if len(regions) > 1:
            (x,) = settle_statistics([x], budget, progress)
        store_tiles((write_region(x, z, r) for r in regions), len(regions), progress)
    if where is store:
        return z
    return zarr.open_array(store, mode="r+", **({"storage_options": options} if options else {}))


def needs_encoding(var: Any) -> bool:
    """Whether xarray would change ``var``'s values when storing it: CF encoding left to
    apply (a decoded variable), or a dtype zarr does not take as it is."""
    if var.dtype.kind not in "biufc":
        return True
    enc = var.encoding
    cf = ("_FillValue", "missing_value", "scale_factor", "add_offset", "units", "calendar")
    if any(k in enc for k in cf):
        return True
    return "dtype" in enc and np.dtype(enc["dtype"]) != var.dtype
