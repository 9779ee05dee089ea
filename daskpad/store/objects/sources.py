"""What SRC's chunk objects are, for copying them into DST as bytes.

A chunk object can be copied where a zarr v3 array document reads its bytes, so that DST
(zarr v3) declares that document's codecs, fill value and data type and the copy reads as
the original did. :func:`stored_array` finds the document for each of SRC's arrays:

- a zarr v3 array: its own ``zarr.json``;
- a zarr v2 array: the document zarr's own migration to v3 writes from its ``.zarray``,
  where a v3 codec reads the same bytes: C order, no filters, no compressor or blosc, zstd
  or gzip, a plain number dtype (bool, integers, floats, complex: the stored bytes are the
  values, in the dtype's byte order). Its fill value is concrete: v2's, or where v2's is
  null what zarr reads a missing chunk as (0, the dtype's default; xarray then masks
  nothing, and DST, with no ``_FillValue`` either, reads the same). The keys are renamed:
  ``i.j`` (or ``i/j``) in SRC, ``c/i/j`` in DST (:func:`target_document`);
- a sharded zarr v3 array (``sharding_indexed``): its shards are the objects copied, whole.
  A rectilinear grid keeps the sharding codec only where every shard is a whole number of
  inner chunks, so the pads must be whole inner chunks, and no pad may follow a partial
  last shard that is not (:func:`shards_misfit`: refused before anything is written).

Every other array (netCDF inputs, zarr v2 arrays no v3 codec reads as stored, arrays whose
dtype the padding changes) is decoded and encoded: each chunk computed.

Plain Python over the stores' documents; the conversion of v2 documents is zarr's
(:func:`daskpad._compat.libraries.v3_document_of_v2`).
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from daskpad._compat.libraries import get_document, v3_document_of_v2

#: the zarr v2 compressors a zarr v3 codec of the same name reads (None: no compressor)
V2_COMPRESSORS = (None, "blosc", "zstd", "gzip")

#: zarr v3's default chunk key encoding, DST's where SRC's keys are v2's
DEFAULT_KEYS: dict[str, Any] = {"name": "default", "configuration": {"separator": "/"}}


class ShardsMisfit(ValueError):
    """A pad that a sharded array's inner chunks do not divide."""


def key(name: Hashable, rest: str) -> str:
    """The key ``rest`` of the array ``name`` (the root array for an empty name)."""
    return f"{name}/{rest}" if str(name) else rest


def stored_array(src: Any, name: Hashable) -> tuple[dict[str, Any] | None, str | None]:
    """The zarr v3 document reading the chunk objects of ``name`` in the zarr store
    ``src`` (None for netCDF), or None and why its chunks are computed."""
    if src is None:
        return None, "netCDF: decoded"
    raw = get_document(src, key(name, "zarr.json"))
    if raw is not None:
        doc = json.loads(raw)
        return (doc, None) if doc.get("node_type") == "array" else (None, "not an array")
    raw = get_document(src, key(name, ".zarray"))
    if raw is None:
        return None, "no zarr array document"
    zarray = json.loads(raw)
    why = v2_computed(zarray)
    if why is not None:
        return None, why
    try:
        return v3_document_of_v2(zarray), None
    except (ValueError, TypeError) as e:  # (e.g. blosc's automatic shuffle, -1)
        return None, f"zarr v2 {_said(zarray.get('compressor'))}: {e}"


def v2_computed(zarray: dict[str, Any]) -> str | None:
    """Why no zarr v3 codec reads the chunk objects of the zarr v2 array ``zarray``
    describes as they are stored, or None where one does."""
    if zarray.get("order", "C") != "C":
        return f"zarr v2 order {zarray.get('order')}"
    if zarray.get("filters"):
        return "zarr v2 filters " + ", ".join(_said(f) for f in zarray["filters"])
    compressor = zarray.get("compressor")
    if (compressor or {}).get("id") not in V2_COMPRESSORS:
        return f"zarr v2 compressor {_said(compressor)}"
    try:
        kind: str = np.dtype(zarray["dtype"]).kind
    except (TypeError, KeyError, ValueError):
        kind = ""
    if kind not in "biufc" or not kind:
        return f"zarr v2 dtype {zarray.get('dtype')!r}"
    return None


def _said(codec: Any) -> str:
    return str(codec.get("id", codec)) if isinstance(codec, dict) else str(codec)


def why_computed(doc: dict[str, Any] | None, var: Any, shape: tuple[int, ...]) -> str | None:
    """Why ``var``'s whole input chunks cannot be copied from the array ``doc`` reads (a
    zarr v3 array of ``shape`` on a regular grid, of ``var``'s dtype), or None."""
    if doc is None or doc.get("zarr_format") != 3 or tuple(doc.get("shape", ())) != shape:
        return "no zarr v3 document of its shape"
    if doc.get("chunk_grid", {}).get("name") != "regular":
        return f"SRC's {doc.get('chunk_grid', {}).get('name')} grid"
    try:
        stored = np.dtype(doc["data_type"])
    except (TypeError, KeyError, ValueError):
        return f"data type {doc.get('data_type')!r}"
    if stored != var.dtype.newbyteorder("="):
        return f"its dtype changes ({stored} to {var.dtype})"
    return None


def target_document(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` as DST declares it: its chunk keys zarr v3's default encoding (``c/i/j``),
    whatever SRC's keys are, as the regular path writes them."""
    return {**doc, "chunk_key_encoding": DEFAULT_KEYS}


def stored_chunks(doc: dict[str, Any]) -> tuple[int, ...]:
    """The chunk (or shard) shape of the regular grid ``doc`` declares."""
    return tuple(int(c) for c in doc["chunk_grid"]["configuration"]["chunk_shape"])


def inner_chunks(doc: dict[str, Any]) -> tuple[int, ...] | None:
    """The inner chunk shape of a sharded array's ``doc``, or None where unsharded."""
    for codec in doc.get("codecs", []):
        if codec.get("name") == "sharding_indexed":
            return tuple(int(c) for c in codec["configuration"]["chunk_shape"])
    return None


def shards_misfit(
    name: Hashable,
    doc: dict[str, Any],
    dims: Sequence[Hashable],
    pads: Sequence[tuple[int, int]],
) -> str | None:
    """Why the sharded array ``name`` (``doc``) padded by ``pads`` along ``dims`` has
    shards that are not whole inner chunks on a rectilinear grid, in one line (with the
    widths that work), or None where each is."""
    inner = inner_chunks(doc)
    if inner is None:
        return None
    shards = stored_chunks(doc)
    wrong, working, partial = [], [], []
    for d, n, shard, c, (before, after) in zip(dims, doc["shape"], shards, inner, pads):
        # a partial last shard stays last in DST (declared whole), or it and the pad after
        # it are one stretch, cut in shards: the last of them must be whole inner chunks
        rest = n % shard
        if before % c or (after and (rest + after) % c):
            wrong.append(f"--width {d}={before}:{after}")
            if rest % c and after:
                partial.append(
                    f"{d}'s last shard of {rest} and the pad of {after} after it make "
                    f"{rest + after}, not a multiple of {c}"
                )
            if rest % c:
                working.append(
                    f"{d}=B:A with B a multiple of {c} and A 0 or {-rest % c} plus a "
                    f"multiple of {c}"
                )
            else:
                working.append(f"{d}=B:A with B and A multiples of {c}")
    if not wrong:
        return None
    return (
        f"{name} is stored in shards of inner chunks {tuple(inner)}, and DST's shards must be "
        f"whole inner chunks: {', '.join(wrong)} makes some that are not"
        + (f" ({'; '.join(partial)})" if partial else "")
        + f"; widths that work: {', '.join(working)} (or --chunk-grid regular)"
    )


def copied_note(doc: dict[str, Any]) -> str | None:
    """What the objects copied from the array ``doc`` reads are, where they are not plain
    zarr v3 chunks under DST's keys: shards, or chunks under other keys (a zarr v2
    array's), renamed."""
    inner = inner_chunks(doc)
    if inner is not None:
        return f"shards of inner chunks {inner}"
    keys = doc.get("chunk_key_encoding", DEFAULT_KEYS)
    if keys.get("name") == "v2":
        separator = keys.get("configuration", {}).get("separator", ".")
        return f"from keys i{separator}j"
    return None
