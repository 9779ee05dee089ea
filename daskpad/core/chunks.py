"""Output chunks: sizes from budgets, never from one neighbour.

Everything that decides how big the blocks of a padded array are lives here:

- :func:`pad_chunks`, the chunks of one pad side along the padded axis (the default policy);
- :func:`output_chunks`, the policies users ask for with ``chunks=`` (``"merge"``,
  ``"regular"``, ``"even"`` and dask's own forms);
- :func:`check_block_count`, the limit on how many blocks a pad may build.

The rule for a pad side, worked through in docs/chunks.md:

1. Start from the axis's *largest* input chunk, never from the chunk at the edge (a last
   chunk of one element is common: 721 latitudes in chunks of 360).
2. Cap it so that one block of the side, with the widest face block beside it, stays
   within dask's ``array.chunk-size``.
3. Where a side is wider than that and its blocks would be far below the budget (less
   than an eighth: 1 MB chunks against dask's 128 MiB), grow them in whole input chunks
   to an eighth of the budget, where a copy is cheaper than the tasks it saves; or to the
   whole budget where a side would still hold more than 16 chunks (tiny input chunks, a
   pad many times wider than the array). The eighth is measured beside the input's own
   face blocks, which hold most of a side; the blocks beside the earlier axes' pads (the
   corners) may grow larger, up to half the budget. The modes whose pad blocks are read-only
   broadcast views (constant, empty, edge and the statistics, for numpy blocks) hold one
   face slice in memory whatever a block's length, so their sides grow to the budget
   whenever they are wider than the input chunk.
4. Cut the side into chunks of that size, the remainder outermost, so the chunks next to
   the data are full. When the user asked for output chunks, the side is cut at those
   chunks' boundaries instead, so each output block takes whole pad blocks. The copying
   modes (reflect, symmetric, wrap) cut their sides where the images of the input chunks
   begin and end instead (unless grown), so that each pad block is a view of one input
   block, as a slice would be; a piece under a quarter of the size joins a neighbour
   where the two fit in the size.

Sizes are computed from sizes: the number of blocks is known, and checked against
:data:`MAX_BLOCKS`, before any tuple of chunks is built, so a width of 10**12 costs what a
width of 10 costs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import cast

import dask
import dask.array as da
import numpy as np
from dask.array.core import normalize_chunks
from dask.utils import parse_bytes

from daskpad.core.ndarrays import DType

Chunks = tuple[tuple[int, ...], ...]

BEFORE, AFTER = 0, 1

#: The most blocks a padded array (or its intermediate grid) may have: a graph of more
#: would take longer to build, ship and schedule than computing it is worth.
MAX_BLOCKS = 10**8

#: Pad blocks smaller than ``budget / FAR_BELOW`` are grown to that size (rule 3 above) ...
FAR_BELOW = 8

#: ... or to the budget where a side would still hold more chunks than this.
GROW_AFTER = 16

#: A grown side's widest block (beside the earlier axes' pads) is at most budget / this.
WIDEST_GROWN = 2


def chunk_budget() -> int:
    """Bytes one task may hold per input or output block: dask's ``array.chunk-size``."""
    return int(parse_bytes(dask.config.get("array.chunk-size")))


def face_nbytes(chunks: Sequence[Sequence[int]], axis: int, itemsize: int) -> int:
    """Bytes of the largest face block (every axis but ``axis``) per element along ``axis``."""
    face = [max(c, default=0) for i, c in enumerate(chunks) if i != axis]
    return math.prod(face) * max(itemsize, 1)


def pad_chunk_size(
    base: int,
    face_bytes: int,
    budget: int | None = None,
    width: int = 0,
    views: bool = False,
    input_face_bytes: int | None = None,
) -> int:
    """The size of a pad side's chunks along the padded axis (the rules 1-3 above).

    ``base`` is the axis's largest input chunk, ``face_bytes`` what one element along the
    axis takes across the largest face block, ``width`` the wider pad side and ``views``
    whether the mode's pad blocks are broadcast views. ``input_face_bytes``: the same
    across the largest face block of the input alone, where the earlier axes' pads make
    ``face_bytes`` larger (rule 3 grows the blocks beside the input's face).

    >>> budget = 128 * 2**20  # dask's default array.chunk-size
    >>> pad_chunk_size(base=2048, face_bytes=2048 * 8, budget=budget, width=5000)  # kept
    2048
    >>> pad_chunk_size(base=8192, face_bytes=8192 * 8, budget=budget, width=5000)  # capped
    2048
    >>> pad_chunk_size(base=333, face_bytes=333 * 8, budget=budget, width=200)  # narrow: kept
    333
    >>> pad_chunk_size(base=333, face_bytes=333 * 8, budget=budget, width=5000)  # grown to 1/8
    5994
    >>> pad_chunk_size(base=333, face_bytes=333 * 8, budget=budget, width=10**6)  # to all
    50283
    >>> pad_chunk_size(base=2, face_bytes=16, budget=budget, width=10**8)  # grown
    8388608
    >>> pad_chunk_size(base=333, face_bytes=333 * 8, budget=budget, width=5000, views=True)
    50382
    """
    budget = chunk_budget() if budget is None else budget
    face_bytes = max(face_bytes, 1)
    base = max(base, 1)
    limit = max(budget // face_bytes, 1)  # the widest block within the budget
    if base >= limit or views:
        return limit
    typical = face_bytes if input_face_bytes is None else max(min(input_face_bytes, face_bytes), 1)
    if width > base and base * typical * FAR_BELOW < budget:
        # far below the budget: grow in whole input chunks to an eighth of it beside the
        # input's face (a copy that size is cheaper than the tasks it saves), the widest
        # block within half of it; or to all of it where a side would still hold many
        # chunks (a pad many times wider than the array)
        size = max(budget // FAR_BELOW // typical // base, 1) * base
        widest = max(budget // WIDEST_GROWN // face_bytes // base, 1) * base
        size = max(min(size, widest), base)
        return size if -(-width // size) <= GROW_AFTER else limit // base * base
    return base


def pad_chunks(
    width: int, side: int, size: int, cuts: Sequence[int] | None = None
) -> tuple[int, ...]:
    """Chunks of a pad side ``width`` wide: of ``size``, the remainder outermost; or, given
    ``cuts`` (the output chunk boundaries inside the side, measured from its start), cut
    there, with any piece larger than ``size`` cut into near-equal parts no larger."""
    if width == 0:
        return ()
    if cuts is None:
        full, rest = divmod(width, size)
        if not rest:
            return (size,) * full
        return (rest,) + (size,) * full if side == BEFORE else (size,) * full + (rest,)
    bounds = [0, *(c for c in cuts if 0 < c < width), width]
    out: list[int] = []
    for lo, hi in itertools.pairwise(bounds):
        out += near_equal(hi - lo, size)
    return tuple(out)


def pad_chunk_count(width: int, size: int, cuts: Sequence[int] | None = None) -> int:
    """``len(pad_chunks(width, side, size, cuts))``, without building it."""
    if width == 0:
        return 0
    if cuts is None:
        return -(-width // size)
    bounds = [0, *(c for c in cuts if 0 < c < width), width]
    return sum(-(-(hi - lo) // size) for lo, hi in itertools.pairwise(bounds))


def pad_layout(
    input_chunks: Chunks,
    itemsize: int,
    widths: Sequence[tuple[int, int]],
    target: Chunks | None = None,
    align: Callable[[int, int], Sequence[int] | None] | None = None,
    views: bool | Sequence[bool] = False,
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The ``(before, after)`` chunks of every axis's pad sides, for padding the axes in
    order (each axis's face includes the pads of the axes before it).

    Counts and largest chunks are worked out from sizes first, and the grid's block count
    is checked against :data:`MAX_BLOCKS` before any tuple of chunks is built. With a
    ``target``, the sides are cut at its chunk boundaries (see :func:`pad_chunks`).
    Otherwise, where the side's chunks keep the input's size, ``align(axis, side)`` may
    name where to cut it (measured from the side's start): the images of the input chunks
    for a copying mode. A piece under a quarter of the size joins a neighbour where the
    two fit in the size. ``views``: the mode's pad blocks are broadcast views (rule 3), for
    every axis or one flag per axis.
    """
    ndim = len(input_chunks)
    shape = [sum(c) + b + a for c, (b, a) in zip(input_chunks, widths)]
    largest = [max(c, default=0) for c in input_chunks]
    counts = [len(c) for c in input_chunks]
    plans = []
    for axis, (before, after) in enumerate(widths):
        n = sum(input_chunks[axis])
        face = math.prod(largest[i] for i in range(ndim) if i != axis) * max(itemsize, 1)
        own = math.prod(max(input_chunks[i], default=0) for i in range(ndim) if i != axis)
        wider = max(before, after)
        view = views if isinstance(views, bool) else views[axis]
        size = pad_chunk_size(largest[axis], face, None, wider, view, own * max(itemsize, 1))
        cuts: list[Sequence[int] | None] = [None, None]
        few = max(GROW_AFTER, counts[axis])  # sides of at most this many chunks are aligned
        if target is None and align is not None and size == largest[axis]:
            for side, width in ((BEFORE, before), (AFTER, after)):
                found = align(axis, side) if 0 < -(-width // size) <= few else None
                cuts[side] = None if found is None else thin_cuts(found, width, size // 4, size)
        elif target is not None and (before or after):
            bounds = np.cumsum((0, *target[axis]), dtype=np.int64)
            inside = bounds[(bounds > 0) & (bounds < before)]
            cuts[BEFORE] = inside.tolist()
            start = before + n
            inside = bounds[(bounds > start) & (bounds < start + after)] - start
            cuts[AFTER] = inside.tolist()
        sides = ((BEFORE, before), (AFTER, after))
        for side, width in sides:
            if width:
                counts[axis] += pad_chunk_count(width, size, cuts[side])
                largest[axis] = max(largest[axis], _largest(width, size, cuts[side]))
        plans.append((size, sides, cuts))
    check_block_count(counts, shape, widths, "pad grid")
    return [
        tuple(pad_chunks(width, side, size, cuts[side]) for side, width in sides)  # type: ignore[misc]
        for size, sides, cuts in plans
    ]


def thin_cuts(cuts: Sequence[int], width: int, least: int, most: int) -> list[int]:
    """``cuts`` (sorted, inside ``(0, width)``) less those next to a piece shorter than
    ``least``, where dropping the cut joins that piece to a neighbour within ``most``.

    >>> thin_cuts([1, 5, 6, 9], 10, least=2, most=5)
    [5]
    """
    kept: list[int] = []
    last = 0
    for c, following in zip(cuts, [*cuts[1:], width]):
        short = c - last < least or following - c < least
        if short and following - last <= most:
            continue
        kept.append(c)
        last = c
    return kept


def _largest(width: int, size: int, cuts: Sequence[int] | None) -> int:
    """``max(pad_chunks(width, side, size, cuts))``, without building them."""
    if cuts is None:
        return min(width, size)
    bounds = [0, *cuts, width]
    return max(-(-(hi - lo) // -(-(hi - lo) // size)) for lo, hi in itertools.pairwise(bounds))


def near_equal(length: int, most: int) -> tuple[int, ...]:
    """``length`` in as few near-equal parts of at most ``most`` as there can be, the larger
    first (one part of 0 for a length of 0)."""
    parts = max(-(-length // most), 1)
    base, extra = divmod(length, parts)
    return (base + 1,) * extra + (base,) * (parts - extra)


def check_block_count(
    counts: Sequence[int], shape: Sequence[int], widths: Sequence[tuple[int, int]], what: str
) -> None:
    """Refuse a padded array of more than :data:`MAX_BLOCKS` blocks (``counts`` along each
    axis), naming the widths, the padded shape and the count."""
    total = math.prod(counts)
    if total > MAX_BLOCKS:
        raise ValueError(
            f"padding by {_widths_text(widths)} gives the shape {tuple(shape)} in "
            f"{' x '.join(str(c) for c in counts)} = {total:,} {what} blocks, more than "
            f"daskpad builds ({MAX_BLOCKS:,}); ask for larger output chunks (chunks=...), "
            f"raise dask's array.chunk-size, or pad less"
        )


def _widths_text(widths: Sequence[tuple[int, int]]) -> str:
    pairs = [tuple(int(v) for v in w) for w in widths]
    if len(set(pairs)) == 1 and pairs[0][0] == pairs[0][1]:
        return str(pairs[0][0])
    return str(tuple(pairs))


# --------------------------------------------------------------------------------------
# the policies users ask for
# --------------------------------------------------------------------------------------


def output_chunks(
    chunks: object,
    input_chunks: Chunks,
    shape: tuple[int, ...],
    dtype: DType,
    widths: Sequence[tuple[int, int]],
) -> Chunks | None:
    """The output chunks asked for with ``chunks=``, for the padded ``shape``: ``None`` for
    the default (and for ``"merge"``, which :func:`merge_slivers` works out from the grid
    once it is built); the count of blocks is checked before any tuple is built.

    ``"regular"`` and ``"even"`` give chunks all equal but the last, as zarr needs
    (:func:`regular_chunks`); anything else is read as dask reads ``chunks`` (an int, a
    tuple, a dict, ``"auto"``...) for the padded shape, with the input's chunks as the
    previous ones.
    """
    if chunks is None or (isinstance(chunks, str) and chunks == "merge"):
        return None
    if isinstance(chunks, str) and chunks in ("regular", "even"):
        sizes = regular_sizes(input_chunks, shape, even=chunks == "even")
        check_block_count(
            [-(-n // s) if n else 1 for n, s in zip(shape, sizes)], shape, widths, "output"
        )
        return _chunks_of_sizes(sizes, shape)
    if isinstance(chunks, str) and chunks != "auto":
        raise ValueError(
            "chunks must be None, 'merge', 'regular', 'even' or a dask chunks specification, "
            f"got {chunks!r}"
        )
    counts = _counts_of_block_sizes(chunks, shape)
    if counts is not None:
        check_block_count(counts, shape, widths, "output")
    # dask sizes "auto" from the itemsize, which object arrays lack: count pointers
    dtype = np.dtype(np.intp) if dtype.kind == "O" else dtype
    if 0 in shape:
        chunks = _auto_whole(chunks)  # (dask divides by the size of an empty block)
    # (an empty axis has no previous chunk size to keep)
    previous = input_chunks if all(max(c, default=0) > 0 for c in input_chunks) else None
    try:
        target = normalize_chunks(chunks, shape, dtype=dtype, previous_chunks=previous)
    except (ValueError, TypeError, NotImplementedError) as exc:
        raise type(exc)(
            f"{exc}; chunks={chunks!r} does not describe chunks for the padded shape {shape}"
        ) from None
    check_block_count([len(c) for c in target], shape, widths, "output")
    return tuple(target)


def _auto_whole(chunks: object) -> object:
    """``chunks`` with every ``"auto"`` made one whole chunk, for an array of no elements,
    where every chunking holds the same nothing."""
    if isinstance(chunks, str) and chunks == "auto":
        return -1
    if isinstance(chunks, Mapping):
        return {k: _auto_whole(v) for k, v in chunks.items()}
    if isinstance(chunks, (tuple, list)):
        return type(chunks)(_auto_whole(c) for c in chunks)
    return chunks


def _counts_of_block_sizes(chunks: object, shape: tuple[int, ...]) -> list[int] | None:
    """Blocks per axis for chunks given as block sizes (an int, one per axis, or a dict of
    them), which dask would expand into a tuple per axis; ``None`` for any other form."""
    if isinstance(chunks, Mapping):
        sizes = [chunks.get(i, chunks.get(i - len(shape))) for i in range(len(shape))]
    elif isinstance(chunks, (int, np.integer)):
        sizes = [chunks] * len(shape)
    elif isinstance(chunks, (tuple, list)) and len(chunks) == len(shape):
        sizes = list(chunks)
    else:
        return None
    counts = []
    for size, n in zip(sizes, shape):
        if not isinstance(size, (int, np.integer)) or size <= 0:
            counts.append(1)  # -1, None, "auto", explicit tuples: no more blocks than asked
        else:
            counts.append(max(-(-n // int(size)), 1))
    return counts


def regular_sizes(input_chunks: Chunks, shape: tuple[int, ...], even: bool = False) -> list[int]:
    """The chunk size along each axis of :func:`regular_chunks`."""
    out = []
    for c, n in zip(input_chunks, shape):
        size = max(max(c, default=0) or n, 1)  # an empty axis that was extended: one chunk
        if even:
            size = max(-(-n // max(int(n / size + 0.5), 1)), 1)
        out.append(size)
    return out


def regular_chunks(input_chunks: Chunks, shape: tuple[int, ...], even: bool = False) -> Chunks:
    """Chunks all equal but the last (shorter), as zarr stores them, along each axis:

    - ``"regular"``: the input's largest chunk along the axis;
    - ``"even"``: the padded length cut into as many chunks as it holds the input's largest
      chunk, rounded to the nearest (so 0.67-1.5x its size): a pad leaves no thin last
      chunk, which zarr would store as a whole one.
    """
    return _chunks_of_sizes(regular_sizes(input_chunks, shape, even), shape)


def _chunks_of_sizes(sizes: Sequence[int], shape: tuple[int, ...]) -> Chunks:
    """Chunks of ``sizes[i]`` along each axis, the last shorter."""
    return tuple(normalize_chunks((s,), (n,))[0] for s, n in zip(sizes, shape))


def merge_slivers(grid: Chunks, padded_axes: Mapping[int, tuple[int, int]]) -> Chunks:
    """The ``"merge"`` policy: the thin outer pad chunk of each side joins its neighbour
    (the edge chunk when the pad is narrower than it), so no chunk smaller than its
    neighbour is left at the ends of an axis and none grows beyond twice the edge chunk."""
    out = []
    for axis, chunks in enumerate(grid):
        before, after = padded_axes.get(axis, (0, 0))
        c = list(chunks)
        if before and len(c) > 1 and c[0] < c[1]:
            c[0:2] = [c[0] + c[1]]
        if after and len(c) > 1 and c[-1] < c[-2]:
            c[-2:] = [c[-2] + c[-1]]
        out.append(tuple(c))
    return tuple(out)


def whole_along(x: da.Array, axis: int) -> tuple[tuple[int, ...], ...]:
    """Chunks whole along ``axis``, the other axes cut so one block fits the budget."""
    wanted: dict[int, int | str] = {i: (-1 if i == axis else "auto") for i in range(x.ndim)}
    if 0 in x.shape:
        return tuple((n,) if i == axis else c for i, (n, c) in enumerate(zip(x.shape, x.chunks)))
    # dask sizes "auto" chunks from the itemsize, which object arrays do not have: count
    # each element as a pointer
    dtype = np.dtype(np.intp) if x.dtype.kind == "O" else x.dtype
    return cast(
        "tuple[tuple[int, ...], ...]",
        normalize_chunks(
            tuple(wanted[i] for i in range(x.ndim)),
            x.shape,
            limit=chunk_budget(),
            dtype=dtype,
            previous_chunks=x.chunks,
        ),
    )
