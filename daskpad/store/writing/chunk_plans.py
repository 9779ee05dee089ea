"""Writes of whole chunks, each copied as stored bytes or computed by one task:
:class:`ChunkPlan`, on zarr's rectilinear grid or on a regular grid that keeps the input's
chunks whole.

Two builders make such plans:

- :func:`plan_copies`, the write of a padded dataset from a zarr input. Each padded
  array's grid is :func:`daskpad.store.planning.rectilinear_grid.layout`'s: along every
  axis the pad before, the input's chunks, the pad after, so that each whole input chunk
  is an output chunk under a shifted index. Where a zarr v3 document reads the input's
  chunk objects as stored (a zarr v3 array, its shards where sharded, or a zarr v2 array
  under zarr v3 keys: :mod:`daskpad.store.objects.sources`) and the padding keeps its
  dtype, those objects are copied (:mod:`daskpad.store.objects.copier`) while the pads
  are computed; arrays that are not padded are copied whole, their grid unchanged. Every
  other chunk (pads, partial chunks, arrays of a netCDF input or that no v3 codec reads as
  stored, arrays whose dtype the padding changed) is computed from the padded dask array.
  Where every array's grid is regular (each before-pad a whole number of the input's
  chunks) and is the grid the regular path stores the
  padded array on, ``grid="regular"`` declares the same chunks on zarr's regular grid,
  which needs no flag and any zarr-python 3.
- :func:`plan_own_grids` and :func:`plan_own_grid`, a dataset's or one dask array's
  blocks as they were made (:func:`daskpad.core.regrid.own_grid`: for a padded array in
  regular chunks, the input's blocks and the pad's), each block one chunk of a rectilinear
  grid, computed once and written whole (``chunk_grid="rectilinear"`` of
  :func:`daskpad.to_zarr` and :func:`daskpad.xarray.to_zarr`). A variable xarray encodes
  (CF encoding left to apply, times, strings) is encoded block by block with the encoding
  xarray wrote into its store, as xarray's region writes encode. zarr has no rectilinear
  grid for an array of no dimensions or with an axis of length 0: such an array stays on
  the regular grid.

The documents are written first (:mod:`daskpad.store.writing.metadata`), then the copies
run on threads while one dask computation writes the computed chunks; the metadata is
consolidated at the end. zarr reads rectilinear grids only with its flag
``array.rectilinear_chunks`` on (zarr-python 3.2 or newer): the plan turns it on while it
writes, and readers need it too.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from dask.utils import format_bytes

from daskpad._compat.libraries import (
    chunk_key_encoder,
    rectilinear_grid,
    rectilinear_grids,
    rectilinear_support,
    regular_grid,
    zarr_encoded,
)
from daskpad._compat.zarr_io import write_region
from daskpad.core.ndarrays import Values
from daskpad.core.regrid import own_grid, regrid
from daskpad.store.objects.copier import Copier, copying_in_background, stored_sizes
from daskpad.store.objects.sources import (
    ShardsMisfit,
    copied_note,
    inner_chunks,
    key,
    shards_misfit,
    stored_array,
    stored_chunks,
    target_document,
    why_computed,
)
from daskpad.store.planning.rectilinear_grid import Layout, layout
from daskpad.store.planning.write_groups import chunk_size, groups, within
from daskpad.store.planning.zarr_chunks import CF_KEYS, needs_encoding, storable
from daskpad.store.writing.consolidation import consolidate
from daskpad.store.writing.metadata import (
    Edit,
    array_documents,
    dataset_documents,
    empty_stand_in,
    largest_blocks,
    with_scalars_loaded,
)
from daskpad.store.writing.settle import compute_tiles

if TYPE_CHECKING:
    import dask.array as da
    import xarray as xr
    import zarr

Chunks = tuple[tuple[int, ...], ...]

#: computes a list of dask collections (the chunk writes): dask's default scheduler, a
#: distributed client with a progress bar, ...
Compute = Callable[[list[Any]], object]


class RectilinearUnsupported(ValueError):
    """zarr-python here cannot write rectilinear chunk grids."""


def check_support() -> None:
    """Refuse, in one line, where zarr-python cannot write rectilinear grids."""
    why = rectilinear_support()
    if why is not None:
        raise RectilinearUnsupported(why)


#: the values of ``chunk_grid=``
CHUNK_GRIDS = ("regular", "rectilinear")


def asks_rectilinear(chunk_grid: str, zarr_format: int | None) -> bool:
    """Whether ``chunk_grid=`` asks for rectilinear grids; a ValueError for anything but
    :data:`CHUNK_GRIDS`, for ``zarr_format=2`` with ``"rectilinear"``, and (a
    :class:`RectilinearUnsupported`) where zarr-python here cannot write rectilinear
    grids."""
    if chunk_grid not in CHUNK_GRIDS:
        raise ValueError(f"chunk_grid must be 'regular' or 'rectilinear', got {chunk_grid!r}")
    if chunk_grid == "regular":
        return False
    if zarr_format is not None and zarr_format != 3:
        raise ValueError(
            f"chunk_grid='rectilinear' is a zarr v3 grid: zarr_format must be 3 (or left "
            f"out), got {zarr_format!r}; use chunk_grid='regular' for zarr v2"
        )
    check_support()
    return True


@dataclass
class ChunkPlan:
    """A write of whole chunks, per array: its layout (None for an array copied whole),
    the objects copied as bytes (``(source key, target key)``) with their total size, and
    what is written: the dataset ``ds`` (or the bare dask array ``array``), and ``src``,
    the zarr store the copies read (None where nothing is copied).

    :meth:`describe` says what the plan does; :meth:`write` does it."""

    layouts: dict[Hashable, Layout | None] = field(default_factory=dict)
    whole: list[Hashable] = field(default_factory=list)  # copied whole, grid unchanged
    pairs: list[tuple[str, str]] = field(default_factory=list)
    nbytes: int = 0
    sources: dict[Hashable, dict[str, Any]] = field(default_factory=dict)  # copied: SRC doc
    notes: dict[Hashable, str] = field(default_factory=dict)  # per array, in words
    grid: str = "rectilinear"  # or "regular"
    ds: xr.Dataset | None = None
    array: da.Array | None = None
    src: Any = None
    #: the dask arrays each computed array's chunks are written from, by name (default:
    #: the variable's data)
    data: dict[Hashable, da.Array] = field(default_factory=dict)
    #: the variables encoded block by block as xarray stores them
    encoded: list[Hashable] = field(default_factory=list)

    def copied_chunks(self, name: Hashable) -> int:
        each = self.layouts.get(name)
        return each.ncopied if each is not None else 0

    def computed_chunks(self, name: Hashable) -> int:
        each = self.layouts.get(name)
        return each.ncomputed if each is not None else 0

    def describe(self) -> str:
        """Per array, the chunks copied as bytes and those computed (and why every chunk
        is, or what the copied objects are, where that needs saying)."""
        grid = " of DST's regular grid" if self.grid == "regular" else ""
        lines = [f"chunks{grid}, per array (copied: stored bytes of SRC; computed: written anew):"]
        width = max((len(str(n)) for n in self.layouts), default=0)
        for name, each in self.layouts.items():
            note = self.notes.get(name)
            if each is None:
                said = f"copied whole (not padded; SRC's grid{f'; {note}' if note else ''})"
            else:
                chunks = " x ".join(f"({_runs(c)})" for c in each.chunks)
                said = f"{each.ncopied} copied, {each.ncomputed} computed"
                said += f" ({note}); chunks {chunks}" if note else f"; chunks {chunks}"
            lines.append(f"  {name!s:<{width}}  {said}")
        total = f"{len(self.pairs)} objects, {format_bytes(self.nbytes)}"
        lines.append(f"  copied as stored bytes in all: {total}")
        return "\n".join(lines)

    def write(
        self,
        store: Any,
        *,
        progress: bool = False,
        compute: Compute | None = None,
        copied: Callable[[int], None] | None = None,
        copying: Callable[[str], None] | None = None,
        consolidated: bool = True,
        **kwargs: Any,
    ) -> zarr.Array[Any] | None:
        """Write the plan into the new zarr ``store``: documents, then the copies (on
        threads, while ``compute(writes)`` computes the chunk writes; default: in one
        dask computation of keys of its own, with ``progress`` a bar), metadata
        consolidated at the end unless ``consolidated`` is False. ``copied(n)`` is called
        as each ``n`` objects are copied, ``copying(how)`` before they start (how they
        are copied, in words); ``kwargs`` go to xarray's ``to_zarr`` (a
        dataset) or :func:`zarr.create_array` (a bare array). Returns the bare array
        written."""
        regular = self.grid == "regular"
        if not regular:
            check_support()
        with contextlib.nullcontext() if regular else rectilinear_grids():
            writes, z = self._documents_and_writes(store, kwargs)
            copier = Copier(self.src, store) if self.src is not None and self.pairs else None
            run = compute or (lambda writes: compute_tiles([writes], 1, progress))
            if copier is None:
                run(writes)
            else:
                if copying is not None:
                    copying(copier.how)
                with copying_in_background(copier, self.pairs, copied or _nothing) as finish:
                    run(writes)
                    finish()
            if consolidated and self.ds is not None:
                consolidate(store, 3)
        return z

    def _documents_and_writes(
        self, store: Any, kwargs: Mapping[str, Any]
    ) -> tuple[list[Any], zarr.Array[Any] | None]:
        """The documents written (:mod:`daskpad.store.writing.metadata`); the dask
        collections writing the computed chunks, and the bare array written."""
        if self.array is not None:
            (each,) = self.layouts.values()
            assert each is not None
            edit = _grid_edit(self, "")
            z = array_documents(
                self.array,
                store,
                largest_blocks(each.chunks),
                edit,
                **{**kwargs, "zarr_format": 3},
            )
            return chunk_writes(self.data.get("", self.array), z, each), z
        import zarr

        assert self.ds is not None
        ds = with_scalars_loaded(self.ds)
        stand_ins = {
            name: storable(ds.variables[name].data)
            if name in self.encoded
            else empty_stand_in(ds.variables[name])
            for name in self.layouts
        }
        edits = {name: _grid_edit(self, name) for name in self.layouts}
        root = dataset_documents(ds, store, stand_ins, edits, **{**kwargs, "zarr_format": 3})
        encodings = stored_encodings(store, self.encoded)
        writes = []
        for name, each in self.layouts.items():
            if each is not None and all(each.shape):
                var = ds.variables[name]
                data = self.data.get(name, var.data)
                target = root[str(name)]
                assert isinstance(target, zarr.Array)  # (xarray wrote it so)
                enc = (var.dims, encodings[name], name) if name in encodings else None
                writes += chunk_writes(data, target, each, enc)
        return writes, None


def _grid_edit(plan: ChunkPlan, name: Hashable) -> Edit:
    """The edit of array ``name``'s document: its grid, and for an array whose chunks are
    copied, the codecs, fill value, data type and chunk keys reading the input's objects
    (an array copied whole keeps the input's grid too)."""
    each, source = plan.layouts[name], plan.sources.get(name)

    def edit(doc: dict[str, Any]) -> None:
        if source is not None:
            target = target_document(source)
            for k in ("codecs", "fill_value", "chunk_key_encoding", "data_type"):
                doc[k] = target[k]
        if each is None:  # copied whole
            assert source is not None
            doc["chunk_grid"] = source["chunk_grid"]
        elif plan.grid == "regular":
            doc["chunk_grid"] = regular_grid(each.regular or ())
        else:
            # (a dask array's empty blocks are no chunks of zarr's: its edges are >= 1)
            doc["chunk_grid"] = rectilinear_grid(
                tuple(tuple(c for c in cs if c) for cs in each.declared)
            )

    return edit


def plan_copies(
    padded: xr.Dataset,
    inputs: xr.Dataset,
    pads: Mapping[Any, tuple[int, int]],
    src: Any,
    grid: str = "rectilinear",
    stored: xr.Dataset | None = None,
) -> ChunkPlan | None:
    """The write of ``padded`` (the padded dataset as stored) that copies the input's
    chunks as bytes: ``inputs`` is the input dataset as stored (its dask chunks those it
    was read in), padded by ``pads`` per dimension; ``src`` is the input's zarr store
    (None for netCDF). ``stored`` is the input dataset in the chunks an array computed
    whole is written in, where ``inputs`` reads some in larger blocks (default:
    ``inputs``' chunks).

    With ``grid="regular"``, the same write on regular grids, or None where it does not
    fit them (:func:`fits_regular_grids`); SRC is listed only where it does."""
    out = ChunkPlan(ds=padded, src=src)
    for name, var in padded.variables.items():
        if var.chunks is None or var.ndim == 0:
            continue  # written by xarray with the metadata
        before = inputs.variables[name]
        widths = [pads.get(d, (0, 0)) for d in var.dims]
        doc, why = stored_array(src, name)
        why = why or why_computed(doc, var, tuple(before.shape))
        if why is not None or doc is None:
            if why:
                out.notes[name] = why
            own = before if stored is None else stored.variables[name]
            assert own.chunks is not None  # (as the padded variable, dask-backed)
            sizes = [tuple(int(c) for c in cs) for cs in own.chunks]
            each = layout(before.shape, sizes, widths, False)
            if each is not None:  # (else an empty axis: xarray writes it, with nothing)
                out.layouts[name] = each
            continue
        note = copied_note(doc)
        if note:
            out.notes[name] = note
        if not any(w != (0, 0) for w in widths):
            out.whole.append(name)
            out.layouts[name] = None
            out.sources[name] = doc
            continue
        misfit = shards_misfit(name, doc, var.dims, widths)
        if misfit and grid == "regular":
            return None  # (the regular path writes it, tiled within --memory)
        if misfit:
            raise ShardsMisfit(misfit)
        each = layout(before.shape, list(stored_chunks(doc)), widths, True)
        if each is not None:
            out.layouts[name] = each
            out.sources[name] = doc
    if grid == "regular" and not fits_regular_grids(out, padded):
        return None  # (the regular path writes it, tiled within --memory)
    out.grid = grid
    _pairs(out, src)
    if not out.pairs:
        out.src = None
    return out


def fits_regular_grids(out: ChunkPlan, padded: xr.Dataset) -> bool:
    """Make ``out`` a write on the regular grids the regular path stores ``padded`` on
    (each array's dask chunks there, the first along each axis xarray's zarr chunk): an
    array whose grid is that and whose input chunks are of that shape, unsharded, keeps
    its copies; any other is computed on that grid. False where some array's grid is not
    regular, or where no padded array copies any chunk."""
    copies = False
    for name, each in list(out.layouts.items()):
        var = padded.variables[name]
        assert var.chunks is not None
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


def _pairs(out: ChunkPlan, src: Any) -> None:
    """The objects ``out`` copies: those the input has (a chunk it never wrote stays
    unwritten), with their sizes."""
    for name, doc in out.sources.items():
        present = stored_sizes(src, key(name, ""))
        each = out.layouts[name]
        read, written = chunk_key_encoder(doc), chunk_key_encoder(target_document(doc))
        indices: Iterable[tuple[tuple[int, ...], tuple[int, ...]]]
        if each is None:  # every chunk, at its own index
            grid = stored_chunks(doc)
            counts = (range(-(-int(n) // int(c))) for n, c in zip(doc["shape"], grid))
            indices = ((i, i) for i in itertools.product(*counts))
        else:
            indices = each.copied_chunks()
        found = []
        for a, b in indices:
            where = key(name, read(a))
            if where in present:
                found.append((where, key(name, written(b))))
        out.pairs += found
        out.nbytes += sum(present[a] or 0 for a, _ in found)


def grid_of(x: da.Array) -> Chunks | None:
    """The rectilinear grid of the dask array ``x``: the chunks of the blocks it was made
    of (:func:`daskpad.core.regrid.own_grid`), empty blocks left out; None where zarr has
    no rectilinear grid for it (no dimensions, or an axis of length 0)."""
    if x.ndim == 0 or 0 in x.shape:
        return None
    return tuple(tuple(int(c) for c in cs if c) for cs in own_grid(x).chunks)


def _own_layout(x: da.Array) -> tuple[da.Array, Layout]:
    own = own_grid(x)
    chunks = tuple(tuple(int(c) for c in cs) for cs in own.chunks)
    start = (0,) * own.ndim
    return own, Layout(chunks, start, start, copied=False)


def plan_own_grids(ds: xr.Dataset) -> ChunkPlan:
    """Each dask-backed variable of ``ds`` that has a rectilinear grid (:func:`grid_of`)
    stored on the grid of the blocks it was made of, each block one chunk."""
    out = ChunkPlan(ds=ds)
    for name, var in ds.variables.items():
        if var.chunks is None or grid_of(var.data) is None:
            continue
        out.data[name], out.layouts[name] = _own_layout(var.data)
        if needs_encoding(var):
            out.encoded.append(name)
    return out


def plan_own_grid(x: da.Array) -> ChunkPlan | None:
    """The dask array ``x`` stored as a bare zarr array on the grid of the blocks it was
    made of; None where it has no rectilinear grid (:func:`grid_of`)."""
    if grid_of(x) is None:
        return None
    own, each = _own_layout(x)
    return ChunkPlan(layouts={"": each}, array=x, data={"": own})


def chunk_writes(
    data: da.Array,
    target: zarr.Array[Any],
    each: Layout,
    encoding: tuple[Sequence[Hashable], Mapping[str, Any], Hashable] | None = None,
    group_bytes: int | None = None,
) -> list[da.Array]:
    """Dask arrays whose computation writes the chunks of ``target`` that ``each``
    computes, from ``data`` (the padded array), each chunk whole; with ``encoding`` (the
    variable's dimensions, the CF encoding its store holds, its name), each chunk encoded
    as xarray stores it.

    One task writes a group of neighbouring chunks (:func:`groups`: up to
    ``group_bytes``, by default dask's ``array.chunk-size``) in one call to zarr, which
    encodes and stores them concurrently: a pad is mostly chunks far smaller than the
    input's, and zarr's cost per call is then most of the time."""
    import dask.array as da

    if group_bytes is None:
        group_bytes = chunk_size()
    data = own_grid(data)  # (the blocks it was made of, each read by one group)
    itemsize = np.dtype(data.dtype).itemsize
    writes = []
    extra = {} if encoding is None else {"encoding": encoding}
    for region in each.computed():
        grouped = groups(
            within(each.chunks, region),
            within(data.chunks, region),
            itemsize,
            group_bytes,
            each.padded or (False,) * data.ndim,
        )
        part = regrid(data[region], grouped)
        offset = tuple(int(s.start) for s in region)
        writes.append(
            da.map_blocks(
                write_chunk,
                part,
                target=target,
                offset=offset,
                dtype=bool,
                chunks=tuple((1,) * len(c) for c in part.chunks),
                meta=np.empty((0,) * part.ndim, bool),
                **extra,
            )
        )
    return writes


def write_chunk(
    block: Values,
    target: zarr.Array[Any],
    offset: tuple[int, ...],
    encoding: tuple[Sequence[Hashable], Mapping[str, Any], Hashable] | None = None,
    block_info: Any = None,
) -> Values:
    """Write ``block`` into the zarr array ``target`` where dask's ``block_info`` places
    it, shifted by ``offset`` (the region's start): one whole chunk of ``target``; with
    ``encoding`` (:func:`chunk_writes`), encoded as xarray stores it."""
    where = block_info[0]["array-location"]
    region = tuple(slice(o + a, o + b) for o, (a, b) in zip(offset, where))
    values = np.asarray(block) if encoding is None else zarr_encoded(block, *encoding)
    write_region(target, region, values)  # (in this thread, where zarr can)
    return np.ones((1,) * block.ndim, bool)


#: the keys of a stored variable's encoding that say how its values are stored
STORED_KEYS = (*CF_KEYS, "dtype")


def stored_encodings(store: Any, names: Iterable[Hashable]) -> dict[Hashable, dict[str, Any]]:
    """The CF encoding (:data:`STORED_KEYS`) xarray reads back from ``store`` for each of
    ``names``: what it encodes their values with. Run it with zarr's rectilinear grids
    on."""
    import xarray as xr

    names = list(names)
    if not names:
        return {}
    opened = xr.open_zarr(store, consolidated=False, chunks=None)
    return {
        n: {k: v for k, v in opened.variables[n].encoding.items() if k in STORED_KEYS}
        for n in names
    }


def _runs(sizes: tuple[int, ...]) -> str:
    """Chunk sizes with runs of one size shortened: ``256, 32x1024, 256``."""
    parts = []
    for size, run in itertools.groupby(sizes):
        n = len(list(run))
        parts.append(f"{n}x{size}" if n > 2 else ", ".join([str(size)] * n))
    return ", ".join(parts)


def _nothing(n: int) -> None:
    pass
