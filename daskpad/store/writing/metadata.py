"""The one metadata writer of every plan: a new zarr store's documents, written before any
chunk, then edited where the plan's grid or copied codecs differ from what was written.

A dataset's documents are xarray's (:func:`dataset_documents`: attributes, dimension names,
encodings, fill values, the in-memory variables' values), a bare array's zarr's
(:func:`array_documents`). A dask-backed variable stands in as an empty dask array
(:func:`empty_stand_in`) wherever its values are written by daskpad, so that xarray builds
no write of its own for it; a plan then rewrites each array's document
(:func:`rewrite_documents`): a rectilinear chunk grid, or the codecs, fill value and data
type that read the input's copied objects.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from daskpad._compat.libraries import get_document, put_documents
from daskpad.store.objects.sources import key

if TYPE_CHECKING:
    import dask.array as da
    import xarray as xr
    import zarr

#: an edit of one array's zarr v3 document, in place
Edit = Callable[[dict[str, Any]], None]

#: the keywords of a plan's ``write`` itself, which a writer's ``**kwargs`` (xarray's
#: ``to_zarr``'s, zarr's ``create_array``'s) may not carry
OWN_KEYWORDS = ("compute", "copied", "copying", "consolidated", "progress")


def check_keywords(kwargs: Mapping[str, object], writer: str, passed_on: str) -> None:
    """Refuse, as a TypeError, a keyword of ``kwargs`` that ``writer`` does not hand on to
    ``passed_on`` (the keywords of a plan's ``write``: ``compute=False`` would not write)."""
    own = [k for k in OWN_KEYWORDS if k in kwargs]
    if own:
        raise TypeError(
            f"{writer} got {', '.join(f'{k}=' for k in own)}, which it does not pass to "
            f"{passed_on}: it computes and writes the whole store itself"
        )


def largest_blocks(chunks: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """The regular chunk shape of an array's largest blocks (at least 1 along each axis):
    the grid zarr creates an array on before a plan declares its own."""
    return tuple(max(max(c, default=1), 1) for c in chunks)


def with_scalars_loaded(ds: xr.Dataset) -> xr.Dataset:
    """A shallow copy of ``ds`` whose dask-backed variables of no dimensions are loaded:
    written with the metadata."""
    ds = ds.copy(deep=False)
    for var in ds.variables.values():
        if var.chunks is not None and var.ndim == 0:
            # (xarray 2025.6 leaves load untyped)
            var.load()  # type: ignore[no-untyped-call, unused-ignore]
    return ds


def with_scalars_unread(ds: xr.Dataset) -> xr.Dataset:
    """A shallow copy of ``ds`` whose dask-backed variables of no dimensions are zeros of
    their dtype, nothing read (what a plan that computes nothing writes them as)."""
    ds = ds.copy(deep=False)
    for var in ds.variables.values():
        if var.chunks is not None and var.ndim == 0:
            var.data = np.zeros((), dtype=var.dtype)
    return ds


def empty_stand_in(var: xr.Variable | da.Array, regular: bool = True) -> da.Array:
    """An empty dask array of ``var``'s shape and dtype, in ``var``'s chunks or (with
    ``regular``) on a regular grid of its largest blocks: what xarray writes an array's
    metadata from, with nothing to compute (zarr wants a regular grid, which a plan may
    then make rectilinear)."""
    import dask.array as da

    assert var.chunks is not None  # (dask-backed)
    chunks: tuple[int, ...] | tuple[tuple[int, ...], ...] = tuple(
        tuple(int(c) for c in cs) for cs in var.chunks
    )
    if regular:
        chunks = largest_blocks(var.chunks)
    empty: da.Array = da.empty(var.shape, chunks=chunks, dtype=var.dtype)
    return empty


def dataset_documents(
    ds: xr.Dataset,
    store: Any,
    stand_ins: Mapping[Hashable, da.Array],
    edits: Mapping[Hashable, Edit] | None = None,
    **kwargs: Any,
) -> zarr.Group:
    """xarray writes the documents of ``ds`` and its in-memory variables into the new
    ``store`` (``kwargs`` go to its ``to_zarr``), each variable named in ``stand_ins``
    written from its stand-in; then each array named in ``edits`` has its document
    edited. Returns the store's root group, open for writing.

    xarray builds, and drops, a write of every block of every dask-backed variable it is
    given: for thousands of blocks, a quarter of a second. Numbers are stored (packed,
    filled, cast) without a look at their values, so a dask-backed variable of numbers
    is given as one empty block (:func:`one_block`), its zarr chunks declared as its
    blocks would have made them (in its encoding, or in ``kwargs``'s where that names the
    variable: xarray takes that one instead), unless ``kwargs``'s encoding names its chunks
    or shards (which xarray then checks against its blocks)."""
    import zarr

    named = dict(kwargs.get("encoding") or {})
    shown = ds.copy(deep=False)
    for name, var in shown.variables.items():
        data = stand_ins.get(name, None if var.chunks is None else var.data)
        given = named.get(name)
        asked = given is not None and any(k in given for k in ("chunks", "shards"))
        if data is not None and var.ndim and data.dtype.kind in "biufc" and not asked:
            chunks = largest_blocks(data.chunks)
            if given is None:
                var.encoding = {**var.encoding, "chunks": chunks}
            else:
                named[name] = {**given, "chunks": chunks}
            data = one_block(data)
        if data is not None:  # (a stand-in, or a dask-backed variable)
            var.data = data
    if named:
        kwargs = {**kwargs, "encoding": named}
    shown.to_zarr(store, **{"mode": "w-", **kwargs}, compute=False, consolidated=False)
    if edits:
        rewrite_documents(store, edits)
    return zarr.open_group(store, mode="r+")


def one_block(x: da.Array) -> da.Array:
    """An empty dask array of ``x``'s shape and dtype in one block."""
    import dask.array as da

    empty: da.Array = da.empty(x.shape, chunks=x.shape, dtype=x.dtype)
    return empty


def array_documents(
    x: da.Array,
    store: Any,
    chunks: tuple[int, ...],
    edit: Edit | None = None,
    **kwargs: Any,
) -> zarr.Array[Any]:
    """zarr writes the document of a new array of ``x``'s shape and dtype in ``chunks``
    into ``store`` (``kwargs`` go to :func:`zarr.create_array`); then ``edit`` edits it.
    Returns the array, open for writing."""
    import zarr

    z = zarr.create_array(store, shape=x.shape, dtype=x.dtype, chunks=chunks, **kwargs)
    if edit is None:
        return z
    rewrite_documents(store, {"": edit})
    return zarr.open_array(store, mode="r+")


def rewrite_documents(store: Any, edits: Mapping[Hashable, Edit]) -> None:
    """Edit, in place, the zarr v3 array document of each array named in ``edits`` (the
    root array for an empty name), and write them back into ``store``."""
    documents = []
    for name, edit in edits.items():
        where = key(name, "zarr.json")
        doc = json.loads(get_document(store, where) or b"{}")
        edit(doc)
        documents.append((where, json.dumps(doc, indent=2).encode()))
    put_documents(store, documents)
