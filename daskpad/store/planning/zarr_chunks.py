"""What zarr stores as it is: chunks regular along every axis but for a smaller last
one, and values with no CF encoding left to apply."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from daskpad.core.regrid import regrid

Chunks = tuple[tuple[int, ...], ...]

#: the CF encoding keys a decoded variable carries, which xarray applies as it stores it
CF_KEYS = ("_FillValue", "missing_value", "scale_factor", "add_offset", "units", "calendar")


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

    target = storable_chunks(tuple(tuple(int(n) for n in c) for c in x.chunks))
    return x if target == x.chunks else regrid(x, target)


def needs_encoding(var: Any) -> bool:
    """Whether xarray would change ``var``'s values when storing it: CF encoding left to
    apply (a decoded variable), or a dtype zarr does not take as it is."""
    if var.dtype.kind not in "biufc":
        return True
    enc = var.encoding
    if any(k in enc for k in CF_KEYS):
        return True
    return "dtype" in enc and np.dtype(enc["dtype"]) != var.dtype
