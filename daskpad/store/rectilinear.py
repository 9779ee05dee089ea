"""Writing a padded dataset on zarr's rectilinear chunk grid: the input's whole chunks
copied as stored bytes, only the pads (and the input's partial last chunks) computed; and
the same on zarr's regular grid, where that grid keeps the input's chunks whole.

Each padded array's grid is :func:`daskpad.store.planning.rectilinear_grid.layout`'s: along every
axis the pad before, the input's chunks, the pad after, so that each whole input chunk is an output
chunk under a shifted index. Where a zarr v3 document reads the input's chunk objects as
stored (a zarr v3 array, its shards where sharded, or a zarr v2 array under zarr v3 keys:
:mod:`daskpad.store.objects.sources`) and the padding keeps its dtype, those objects are copied
(:mod:`daskpad.store.objects.copier`), while the pads are computed; arrays that are not padded
are copied whole, their grid unchanged. Every other chunk (pads, partial chunks, arrays
of a netCDF input or that no v3 codec reads as stored, arrays whose dtype the padding
changed) is computed from the padded dask array, one task per chunk, each chunk written
whole, once.

The metadata is xarray's (what the regular path writes: attributes, dimension names,
fill values), then each dask-backed array's grid is made rectilinear and, where its chunks
are copied, its codecs, fill value and data type are those reading the input's objects,
its chunk keys zarr v3's default encoding, so that the copied bytes read as they did.
zarr reads rectilinear grids only with its flag ``array.rectilinear_chunks`` on
(zarr-python 3.2 or newer): daskpad turns it on while it writes, and readers need it too.

Where every array's grid is regular
(:attr:`daskpad.store.planning.rectilinear_grid.Layout.regular`: each before-pad a whole number of
the input's chunks, no pad after a partial last chunk) and is the grid the regular path stores the
padded dask array on, the plan's grid is ``"regular"``: the same copies and computed chunks,
declared on zarr's regular grid, which needs no flag and any zarr-python 3.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from daskpad._compat.libraries import (
    chunk_key_encoder,
    get_document,
    put_documents,
    rectilinear_grid,
    rectilinear_grids,
    rectilinear_support,
    regular_grid,
)
from daskpad.core.regrid import regrid
from daskpad.store.objects.copier import Copier, copying_in_background, stored_sizes
from daskpad.store.objects.sources import (
    ShardsMisfit,
    copied_note,
    inner_chunks,
    shards_misfit,
    stored_array,
    stored_chunks,
    target_document,
    why_computed,
)
from daskpad.store.objects.sources import key as _key
from daskpad.store.planning.rectilinear_grid import Layout, layout
from daskpad.store.writing.consolidation import consolidate


class RectilinearUnsupported(ValueError):
    """zarr-python here cannot write rectilinear chunk grids."""


def check_support() -> None:
    """Refuse, in one line, where zarr-python cannot write rectilinear grids."""
    why = rectilinear_support()
    if why is not None:
        raise RectilinearUnsupported(why)


@dataclass
class CopyPlan:
    """What writing a dataset on rectilinear grids (or, where :attr:`grid` says so, on
    regular ones) does, per array: its layout (None for an array copied whole or written
    by xarray with the metadata), and the objects copied as bytes (``(source key, target
    key)``) with their total size."""

    layouts: dict[Hashable, Layout | None] = field(default_factory=dict)
    whole: list[Hashable] = field(default_factory=list)  # copied whole, grid unchanged
    pairs: list[tuple[str, str]] = field(default_factory=list)
    nbytes: int = 0
    sources: dict[Hashable, dict[str, Any]] = field(default_factory=dict)  # copied: SRC doc
    notes: dict[Hashable, str] = field(default_factory=dict)  # per array, in words
    grid: str = "rectilinear"  # or "regular"

    def copied_chunks(self, name: Hashable) -> int:
        each = self.layouts.get(name)
        return each.ncopied if each is not None else 0

    def computed_chunks(self, name: Hashable) -> int:
        each = self.layouts.get(name)
        return each.ncomputed if each is not None else 0


def plan(
    padded: Any,
    inputs: Any,
    pads: Mapping[Hashable, tuple[int, int]],
    src: Any,
    grid: str = "rectilinear",
) -> CopyPlan | None:
    """The rectilinear write of ``padded`` (the padded dataset as stored), padded from
    ``inputs`` (the input dataset as stored, its dask chunks those it was read in) by
    ``pads`` per dimension; ``src`` is the input's zarr store (None for netCDF).

    With ``grid="regular"``, the same write on regular grids, or None where it does not
    fit them (:func:`fits_regular_grids`); SRC is listed only where it does."""
    out = CopyPlan()
    for name, var in padded.variables.items():
        if var.chunks is None or var.ndim == 0:
            continue  # written by xarray with the metadata
        before = inputs.variables[name]
        widths = [pads.get(d, (0, 0)) for d in var.dims]
        doc, why = stored_array(src, name)
        why = why or why_computed(doc, var, tuple(before.shape))
        copied = why is None
        note = why if doc is None or why else copied_note(doc)
        if note:
            out.notes[name] = note
        if copied and not any(w != (0, 0) for w in widths):
            out.whole.append(name)
            out.layouts[name] = None
            out.sources[name] = doc  # type: ignore[assignment]
            continue
        if copied:
            misfit = shards_misfit(name, doc, var.dims, widths)  # type: ignore[arg-type]
            if misfit and grid == "regular":
                return None  # (the regular path writes it, tiled within --memory)
            if misfit:
                raise ShardsMisfit(misfit)
            sizes: list[Any] = list(stored_chunks(doc))  # type: ignore[arg-type]
        else:
            sizes = [tuple(int(c) for c in cs) for cs in before.chunks]
        out.layouts[name] = layout(before.shape, sizes, widths, copied)
        if copied and out.layouts[name] is not None:
            out.sources[name] = doc  # type: ignore[assignment]
    if grid == "regular" and not fits_regular_grids(out, padded):
        return None  # (the regular path writes it, tiled within --memory)
    out.grid = grid
    _pairs(out, src)
    return out


def fits_regular_grids(out: CopyPlan, padded: Any) -> bool:
    """Make ``out`` a write on the regular grids the regular path stores ``padded`` on
    (each array's dask chunks there, the first along each axis xarray's zarr chunk): an
    array whose grid is that and whose input chunks are of that shape, unsharded, keeps
    its copies; any other is computed on that grid. False where some array's grid is not
    regular, or where no padded array copies any chunk."""
    copies = False
    for name, each in list(out.layouts.items()):
        var = padded.variables[name]
        chunks = tuple(tuple(int(c) for c in cs) for cs in var.chunks)
        shape = tuple(cs[0] for cs in chunks)
        source = out.sources.get(name)
        kept = (
            source is not None
            and not inner_chunks(source)  # (the regular path writes no shards)
            and stored_chunks(source) == shape
            and (each is None or (each.regular == shape and each.chunks == chunks))
        )
        if kept:
            copies = copies or (each is not None and each.ncopied > 0)
            continue
        computed = Layout(chunks, (0,) * var.ndim, (0,) * var.ndim, copied=False)
        if computed.regular is None:
            return False
        out.layouts[name] = computed
        out.sources.pop(name, None)
        out.notes.pop(name, None)
        if name in out.whole:
            out.whole.remove(name)
    return copies


def _pairs(out: CopyPlan, src: Any) -> None:
    """The objects ``out`` copies: those the input has (a chunk it never wrote stays
    unwritten), with their sizes."""
    for name, doc in out.sources.items():
        present = stored_sizes(src, _key(name, ""))
        each = out.layouts[name]
        read, written = chunk_key_encoder(doc), chunk_key_encoder(target_document(doc))
        if each is None:  # every chunk, at its own index
            grid = stored_chunks(doc)
            counts = (range(-(-int(n) // int(c))) for n, c in zip(doc["shape"], grid))
            indices: Any = ((i, i) for i in itertools.product(*counts))
        else:
            indices = each.copied_chunks()
        found = []
        for a, b in indices:
            key = _key(name, read(a))
            if key in present:
                found.append((key, _key(name, written(b))))
        out.pairs += found
        out.nbytes += sum(present[a] or 0 for a, _ in found)


def write_metadata(ds: Any, store: Any, the_plan: CopyPlan, **kwargs: Any) -> None:
    """xarray writes the metadata of ``ds`` (and its in-memory variables) into ``store``;
    then each planned array's grid is made rectilinear (or the plan's regular one), and an
    array whose chunks are copied takes the codecs, fill value and data type reading the
    input's objects, its chunk keys zarr v3's default encoding (an array copied whole, the
    input's grid too)."""
    stand_in = ds.copy(deep=False)
    for name, var in stand_in.variables.items():
        if name in the_plan.layouts:
            var.data = empty_stand_in(var)
    stand_in.to_zarr(store, **{"mode": "w-", **kwargs}, compute=False, consolidated=False)

    def edit(name: Hashable) -> Callable[[dict[str, Any]], None]:
        each, source = the_plan.layouts[name], the_plan.sources.get(name)

        def made_rectilinear(doc: dict[str, Any]) -> None:
            if source is not None:
                target = target_document(source)
                for k in ("codecs", "fill_value", "chunk_key_encoding", "data_type"):
                    doc[k] = target[k]
            if each is None:  # copied whole
                doc["chunk_grid"] = source["chunk_grid"]  # type: ignore[index]
            elif the_plan.grid == "regular":
                doc["chunk_grid"] = regular_grid(each.regular or ())
            else:
                doc["chunk_grid"] = rectilinear_grid(each.declared)

        return made_rectilinear

    rewrite_documents(store, {name: edit(name) for name in the_plan.layouts})


def empty_stand_in(var: Any) -> Any:
    """An empty dask array of ``var``'s shape and dtype on a regular grid of its largest
    blocks: what xarray writes an array's metadata from (zarr wants a regular grid), with
    nothing to compute, before its grid is made rectilinear."""
    import dask.array as da

    regular = tuple(max(max(c, default=1), 1) for c in var.chunks)
    return da.empty(var.shape, chunks=regular, dtype=var.dtype)


def rewrite_documents(
    store: Any, edits: Mapping[Hashable, Callable[[dict[str, Any]], None]]
) -> None:
    """Edit, in place, the zarr v3 array document of each array named in ``edits`` (the
    root array for an empty name), and write them back into ``store``."""
    documents = []
    for name, edit in edits.items():
        key = _key(name, "zarr.json")
        doc = json.loads(get_document(store, key) or b"{}")
        edit(doc)
        documents.append((key, json.dumps(doc, indent=2).encode()))
    put_documents(store, documents)


def chunk_writes(data: Any, target: Any, each: Layout) -> list[Any]:
    """Dask arrays whose computation writes the chunks of ``target`` that ``each``
    computes, from ``data`` (the padded array), one task per chunk, each chunk whole."""
    y = regrid(data, each.chunks)
    writes = []
    for region in each.computed():
        part = y[region]
        offset = tuple(s.start for s in region)
        writes.append(
            part.map_blocks(
                write_chunk,
                target=target,
                offset=offset,
                dtype=bool,
                chunks=tuple((1,) * len(c) for c in part.chunks),
                meta=np.empty((0,) * part.ndim, bool),
            )
        )
    return writes


def write_chunk(
    block: Any, target: Any, offset: tuple[int, ...], block_info: Any = None
) -> np.ndarray:
    """Write ``block`` into the zarr array ``target`` where dask's ``block_info`` places
    it, shifted by ``offset`` (the region's start): one whole chunk of ``target``."""
    where = block_info[0]["array-location"]
    region = tuple(slice(o + a, o + b) for o, (a, b) in zip(offset, where))
    target[region] = np.asarray(block)
    return np.ones((1,) * block.ndim, bool)


def write(
    ds: Any,
    store: Any,
    the_plan: CopyPlan,
    copier: Copier | None,
    compute: Callable[[list[Any]], None],
    progress: Callable[[int], None] | None = None,
    **kwargs: Any,
) -> None:
    """Write ``ds`` into the new zarr ``store`` as ``the_plan`` says: metadata, copied
    objects (on threads, while ``compute`` computes the chunk writes), metadata
    consolidated at the end. ``progress(n)`` is called as each ``n`` objects are copied;
    ``kwargs`` go to xarray's ``to_zarr`` for the metadata."""
    import zarr

    regular = the_plan.grid == "regular"
    if not regular:
        check_support()
    with contextlib.nullcontext() if regular else rectilinear_grids():
        ds = ds.copy(deep=False)
        for var in ds.variables.values():
            if var.chunks is not None and var.ndim == 0:
                var.load()  # a scalar: written with the metadata
        write_metadata(ds, store, the_plan, zarr_format=3, **kwargs)
        root: Any = zarr.open_group(store, mode="r+")
        writes = []
        for name, each in the_plan.layouts.items():
            if each is not None and all(each.shape):
                target = root[str(name)] if str(name) else zarr.open_array(store, mode="r+")
                writes += chunk_writes(ds.variables[name].data, target, each)
        if copier is None or not the_plan.pairs:
            compute(writes)
        else:
            with copying_in_background(copier, the_plan.pairs, progress or _nothing) as finish:
                compute(writes)
                finish()
        consolidate(store, 3)


def _nothing(n: int) -> None:
    pass
