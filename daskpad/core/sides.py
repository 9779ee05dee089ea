"""The blocks of one pad side: the dask operations every graph builder shares.

A pad side is the blocks before or after the array along one axis. Its chunks along the
axis come from :func:`daskpad.core.chunks.pad_layout`; its blocks beside each face block of the
array padded so far are made in one ``blockwise`` layer, each task told which chunk it
computes (:func:`blockwise_chunks`) or making a block of one length (:func:`blockwise_along`).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import dask.array as da
import numpy as np
from dask.array.core import PerformanceWarning
from dask.array.utils import meta_from_array

from daskpad._compat.forms import per_graph_mode
from daskpad.core import kernels as k
from daskpad.core.chunks import AFTER, BEFORE, chunk_budget, face_nbytes
from daskpad.core.grid import BlockGrid, LayeredGrid, block_index
from daskpad.core.plan import AxisPlan

Sides = tuple[da.Array | None, da.Array | None]
SideChunks = tuple[tuple[int, ...], tuple[int, ...]]  # a pad side's chunks, before and after


def with_axis(
    x: BlockGrid | da.Array, axis: int, chunks: Sequence[int]
) -> tuple[tuple[int, ...], ...]:
    """``x``'s chunks, with ``chunks`` along ``axis``."""
    return tuple(tuple(chunks) if i == axis else c for i, c in enumerate(x.chunks))


def per_pad_block(
    ap: AxisPlan,
    sides: SideChunks,
    make: Callable[[int, tuple[int, ...], int], da.Array],
) -> Sides:
    """For each side with a pad, ``make(side, chunks, offset)`` builds its blocks:
    ``chunks`` along the axis (from :func:`daskpad.core.chunks.pad_layout`), ``offset`` where
    the side starts in padded coordinates."""
    result: list[da.Array | None] = []
    for side, width, offset in ((BEFORE, ap.before, 0), (AFTER, ap.after, ap.before + ap.length)):
        result.append(make(side, sides[side], offset) if width else None)
    return result[0], result[1]


def _contracted(
    ndim: int, along: int, inputs: Sequence[da.Array]
) -> list[da.Array | tuple[int, ...]]:
    """blockwise arguments for ``inputs``, each seen whole along ``along``: every input gets
    its own contracted symbol there, since their lengths differ."""
    args: list[da.Array | tuple[int, ...]] = []
    for j, a in enumerate(inputs):
        args += [a, tuple(ndim + 1 + j if i == along else i for i in range(ndim))]
    return args


def blockwise_chunks(
    kernel: Callable[..., k.Block],
    like: BlockGrid | da.Array,
    along: int,
    chunks: tuple[int, ...],
    offset: int,
    inputs: Sequence[da.Array],
    kwargs: Mapping[str, object],
    extra: Sequence[tuple[object, tuple[int, ...] | None]] = (),
) -> da.Array:
    """All blocks of one pad side in one layer: for each output chunk along ``along`` and
    each face block of ``like``, ``kernel(*inputs, *extra, start=, stop=, **kwargs)`` with
    each input whole along ``along``; ``start``/``stop`` are the chunk's padded positions.
    Each task is handed the index of the chunk it computes
    (:func:`daskpad.core.grid.block_index`)."""
    ndim = like.ndim
    out = tuple(ndim if i == along else i for i in range(ndim))
    args: list[object] = [block_index(len(chunks)), (ndim,), *_contracted(ndim, along, inputs)]
    for pair in extra:
        args += list(pair)
    # an array, not a tuple: dask walks tuples in kwargs looking for collections
    bounds = np.cumsum((offset, *chunks), dtype=np.int64)
    with warnings.catch_warnings():
        # the side has more blocks than the slabs it reads: that is the point, not a problem
        warnings.simplefilter("ignore", PerformanceWarning)
        return cast(
            "da.Array",
            da.blockwise(
                k.per_chunk,
                out,
                *args,
                new_axes={ndim: tuple(chunks)},  # one chunk per block of the index
                align_arrays=False,  # (the inputs share the face chunks already)
                dtype=like.dtype,
                meta=meta_from_array(like._meta, ndim=ndim),
                token=kernel.__name__,
                kernel=kernel,
                bounds=bounds,
                along=along,
                **kwargs,
            ),
        )


def blockwise_along(
    kernel: Callable[..., k.Block],
    like: BlockGrid | da.Array,
    along: int,
    size: int,
    inputs: Sequence[da.Array],
    kwargs: Mapping[str, object],
) -> da.Array:
    """One task per face block of ``like``: ``kernel`` sees each input whole along axis
    ``along`` and returns a block of ``size`` there. ``kwargs`` go to the kernel."""
    ndim = like.ndim
    out = tuple(ndim if i == along else i for i in range(ndim))
    return cast(
        "da.Array",
        da.blockwise(
            k.along_axis,
            out,
            *_contracted(ndim, along, inputs),
            new_axes={ndim: size},
            align_arrays=False,  # (the inputs share the face chunks already)
            dtype=like.dtype,
            meta=meta_from_array(like._meta, ndim=ndim),
            token=kernel.__name__,
            kernel=kernel,
            along=along,
            **kwargs,
        ),
    )


def face_block_nbytes(x: BlockGrid | da.Array, axis: int, length: int) -> int:
    """Bytes of ``x``'s largest face block (every axis but ``axis``) ``length`` long."""
    return face_nbytes(x.chunks, axis, x.dtype.itemsize) * length


def _side_from_grid(
    x: BlockGrid,
    axis: int,
    chunks: tuple[int, ...],
    offset: int,
    spans: Callable[[int, int], list[tuple[int, int, int]]],
    kernel: Callable[..., k.Block],
    **kwargs: Any,
) -> da.Array:
    # classic graphs: one lazy layer whose tasks cut the grid blocks they read
    assert isinstance(x, LayeredGrid)  # (new_grid's form with classic graphs)
    return x.side_from_spans(axis, chunks, offset, spans, kernel, kwargs)


def _side_from_slabs(
    x: BlockGrid,
    axis: int,
    chunks: tuple[int, ...],
    offset: int,
    spans: Callable[[int, int], list[tuple[int, int, int]]],
    kernel: Callable[..., k.Block],
    **kwargs: Any,
) -> da.Array:
    # query planning: one layer per side reading the side's few slabs, or one per block
    # where the slabs would exceed the budget
    def layer(chunks: tuple[int, ...], offset: int, found: list[tuple[int, int, int]]) -> da.Array:
        pieces = [x.slab(axis, lo, hi) for _c, lo, hi in found]
        starts = tuple(lo for _c, lo, _hi in found)
        extra = dict(axis=axis, piece_starts=starts, **kwargs)
        return blockwise_chunks(kernel, x, axis, chunks, offset, pieces, extra)

    side_spans = spans(offset, offset + sum(chunks))
    length = sum(hi - lo for _c, lo, hi in side_spans)
    if len(chunks) == 1 or face_block_nbytes(x, axis, length) <= chunk_budget():
        # every block of this side reads the same few slabs: one layer for the side
        return layer(chunks, offset, side_spans)
    # a side so wide that its slabs exceed the budget: each block reads only its own
    limits = np.cumsum((offset, *chunks)).tolist()
    blocks = [layer((hi - lo,), lo, spans(lo, hi)) for lo, hi in itertools.pairwise(limits)]
    return cast("da.Array", da.concatenate(blocks, axis=axis))


side_from_spans = per_graph_mode(
    "side_from_spans",
    """The blocks of one pad side, ``chunks`` along ``axis`` from padded position ``offset``,
    the block at ``[start, stop)`` computed as ``kernel(*pieces, axis=, piece_starts=,
    start=, stop=, **kwargs)`` from the input elements ``spans(start, stop)`` names
    (``(chunk, lo, hi)`` each): with classic graphs one lazy layer whose tasks cut the grid
    blocks they read (:meth:`daskpad.core.grid.LayeredGrid.side_from_spans`); under query planning
    one layer per side reading the side's few slabs, or one per block where the slabs would
    exceed the budget.""",
    classic=_side_from_grid,
    planned=_side_from_slabs,
)
