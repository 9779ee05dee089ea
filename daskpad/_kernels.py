"""Block kernels: plain numpy functions that run on workers.

Nothing here knows about dask graphs. Each kernel receives small numpy(-like) blocks and
keyword geometry, allocates with ``*_like`` so the chunk type survives (masked arrays, cupy),
and reproduces numpy.pad's arithmetic exactly. They are pure and deterministic: a worker that
dies and is replaced recomputes the same bytes.

The index geometry of the copying modes (edge, reflect, symmetric, wrap) is a *fill
program* (:mod:`daskpad._programs`), computed once per axis: the graph builder uses it to
find which input elements an output block needs, and :func:`gather_block` uses the same
program to compute the block, so the two cannot disagree.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._programs import Program, locate, source_index


def concatenate_blocks(pieces: Sequence[Any], axis: int) -> Any:
    """Join blocks along ``axis``, keeping masked arrays masked."""
    if len(pieces) == 1:
        return pieces[0]
    if isinstance(pieces[0], np.ma.MaskedArray):
        return np.ma.concatenate(pieces, axis=axis)  # type: ignore[no-untyped-call]
    return np.concatenate(pieces, axis=axis)


def gather_block(
    *pieces: Any,
    axis: int,
    piece_starts: Sequence[int],
    program: Program,
    start: int,
    stop: int,
) -> Any:
    """Padded positions ``[start, stop)`` along ``axis`` of a copying mode.

    ``pieces`` are slices of the array along ``axis`` holding the data indices
    ``piece_starts[i] ..`` (sorted, disjoint); together they hold every index
    :func:`needed_ranges` lists for these positions. Runs of consecutive indices (forwards for
    wrap, backwards for a reflection) are taken as slices and a repeated index (edge) as a
    broadcast, so a block that is one run is a view of the slab; the rest is gathered.
    """
    lows = np.asarray(piece_starts, dtype=np.intp)
    like = pieces[0]
    before = (slice(None),) * axis

    def shaped(length: int) -> tuple[int, ...]:
        return (*like.shape[:axis], length, *like.shape[axis + 1 :])

    def data(d: np.ndarray) -> Any:
        # read from the pieces themselves (never joined: for a wide pad they hold the
        # whole axis, and each block takes only its part)
        i = np.searchsorted(lows, d, side="right") - 1
        local = d - lows[i]
        if d.size and bool(np.all(i == i[0])):
            piece = pieces[int(i[0])]
            if d.size > 1 and type(piece) is np.ndarray and bool(np.all(local == local[0])):
                # one element repeated (edge): a read-only broadcast view, as dask's own
                # broadcast_to makes
                one = piece[(*before, slice(int(local[0]), int(local[0]) + 1))]
                return np.broadcast_to(one, shaped(d.size))
            return piece[(*before, _as_slice(local))]
        out = np.empty_like(like, shape=shaped(d.size))
        starts = _run_starts(i, local)
        if starts.size <= max(d.size // 64, 8):
            # few runs (a reflection turning, a chunk boundary): each run copied as a slice
            for lo, hi in itertools.pairwise((*starts.tolist(), d.size)):
                piece = pieces[int(i[lo])]
                out[(*before, slice(lo, hi))] = piece[(*before, _as_slice(local[lo:hi]))]
            return out
        for p in np.unique(i):
            at = np.flatnonzero(i == p)
            out[(*before, _as_slice(at))] = pieces[int(p)][(*before, _as_slice(local[at]))]
        return out

    def odd_values(p: np.ndarray) -> Any:
        """Odd reflection, numpy's rounds replayed recursively (for a few positions)."""
        inside = (p >= program.lo) & (p < program.hi)
        if inside.all():
            return data(p - program.lo)
        outside = np.flatnonzero(~inside)
        which = locate(program, p[outside])
        out = np.empty_like(like, shape=shaped(p.size))
        if inside.any():
            out[(*before, inside)] = data(p[inside] - program.lo)
        # positions arrive sorted (or reversed), so each fill's share is one run of them
        cuts = np.flatnonzero(np.diff(which)) + 1
        for lo, hi in zip((0, *cuts.tolist()), (*cuts.tolist(), which.size)):
            f = program.fills[which[lo]]
            at = outside[lo:hi]
            v = odd_values(f.offset + f.step * p[at])
            v = 2 * odd_values(np.array([f.edge], dtype=np.intp)) - v
            out[(*before, _as_slice(at))] = v
        return out

    # the even modes copy through the periodic map: a view of the slab where the block is
    # one run (reflect, symmetric, wrap, edge); whoever uses the block copies it anyway,
    # and so does dask's final concatenation
    positions = np.arange(start, stop, dtype=np.intp)
    if not program.odd:
        return data(source_index(program, positions))
    if positions.size <= 64:
        return odd_values(positions)
    return _odd_reflection(program, positions, odd_values, data, shaped, like, axis)


def _odd_reflection(
    program: Program,
    positions: np.ndarray,
    values: Callable[[np.ndarray], Any],
    data: Callable[[np.ndarray], Any],
    shaped: Callable[[int], tuple[int, ...]],
    like: Any,
    axis: int,
    step: int = 1 << 16,
) -> Any:
    """:func:`gather_block`'s odd reflection, level by level for all positions at once.

    Each round of numpy's fill maps a position onto an earlier one and writes
    ``2 * edge - value`` there. Positions are followed back to the data round by round
    (vectorised), then the rounds are applied again, innermost first, with numpy's own
    arithmetic, so the values are numpy's bit for bit. Done ``step`` positions at a time,
    so the rounds' bookkeeping stays small for a block of millions of positions.
    """
    before = (slice(None),) * axis
    offsets = np.array([f.offset for f in program.fills], dtype=np.intp)
    steps = np.array([f.step for f in program.fills], dtype=np.intp)
    edges: dict[int, Any] = {}  # fill -> the value at its edge (length one along axis)

    def edge(i: int) -> Any:
        if i not in edges:
            edges[i] = values(np.array([program.fills[i].edge], dtype=np.intp))
        return edges[i]

    def outside(p: np.ndarray) -> np.ndarray:
        return (p < program.lo) | (p >= program.hi)

    out = np.empty_like(like, shape=shaped(positions.size))
    for first in range(0, positions.size, step):
        current = positions[first : first + step].copy()
        rounds = []
        active = np.flatnonzero(outside(current))
        while active.size:
            which = locate(program, current[active])
            rounds.append((active, which))
            current[active] = offsets[which] + steps[which] * current[active]
            active = active[outside(current[active])]
        here = (*before, slice(first, first + current.size))
        in_place = type(out) is np.ndarray  # (a masked view would not share a new mask)
        v = out[here] if in_place else np.empty_like(like, shape=shaped(current.size))
        if in_place and _one_round_from_one_edge(rounds, current.size):
            # the common block (a pad no wider than the axis): numpy's ``2 * edge - chunk``
            # from the data straight into the block, without copying the data first
            twice = 2 * edge(int(rounds[0][1][0]))
            np.subtract(twice, data(current - program.lo), out=v, casting="unsafe")
            continue
        v[...] = data(current - program.lo)
        for active, which in reversed(rounds):
            cuts = np.flatnonzero(np.diff(which)) + 1
            if in_place and cuts.size > max(8, active.size // 64):
                # many short runs (a short axis reflected far): the round at once, by index
                fills = np.unique(which)
                twice_all = np.concatenate([2 * edge(int(i)) for i in fills], axis=axis)
                at = (*before, active)
                v[at] = np.subtract(
                    np.take(twice_all, np.searchsorted(fills, which), axis=axis),
                    v[at],
                    dtype=v.dtype,
                    casting="unsafe",
                )
                continue
            # positions arrive sorted (or reversed), so each fill's share of a round is one
            # run of them: a slice of v, whose edge broadcasts along the axis
            for lo, hi in zip((0, *cuts.tolist()), (*cuts.tolist(), which.size)):
                run = _as_slice(active[lo:hi])
                at = (*before, run)
                twice = 2 * edge(int(which[lo]))
                if isinstance(run, slice) and in_place:
                    # numpy's ``2 * edge - chunk``, stored with its assignment's cast
                    np.subtract(twice, v[at], out=v[at], casting="unsafe")
                else:
                    v[at] = twice - v[at]
        if not in_place:
            out[here] = v
    return out


def _one_round_from_one_edge(rounds: list[tuple[np.ndarray, np.ndarray]], size: int) -> bool:
    """Whether every one of ``size`` positions is reflected once, all about the same edge."""
    if len(rounds) != 1:
        return False
    active, which = rounds[0]
    return active.size == size and bool(np.all(which == which[0]))


def _run_starts(piece: np.ndarray, local: np.ndarray) -> np.ndarray:
    """Where the runs of ``local`` begin: stretches in one piece whose indices step by one,
    all the same way (a run may be a single position)."""
    if local.size < 2:
        return np.zeros(min(local.size, 1), dtype=np.intp)
    step = np.diff(local)
    cut = (np.diff(piece) != 0) | (np.abs(step) != 1)  # cut[t]: a run starts at t + 1
    # a turn (two steps of one run differing) starts a run at the position after it
    cut[1:] |= ~cut[1:] & ~cut[:-1] & (step[1:] != step[:-1])
    return np.concatenate(([0], np.flatnonzero(cut) + 1))


def _as_slice(index: np.ndarray) -> slice | np.ndarray:
    """``index`` as a slice when it is a run of consecutive positions (either way)."""
    if index.size == 0:
        return index
    first, last = int(index[0]), int(index[-1])
    if index.size == 1:
        return slice(first, first + 1)
    step = int(index[1]) - first
    if step in (1, -1) and bool(np.all(np.diff(index) == step)):
        stop = last + step
        return slice(first, stop if stop >= 0 else None, step)
    return index


def per_chunk(
    which: Any,
    *args: Any,
    kernel: Callable[..., Any],
    bounds: Sequence[int],
    along: int,
    **kwargs: Any,
) -> Any:
    """Call ``kernel`` for output chunk ``which[0]`` of a pad side, whose positions are
    ``bounds[i]:bounds[i + 1]``; arguments given as lists of blocks are joined along
    ``along`` first."""
    i = int(np.asarray(which).ravel()[0])
    start, stop = int(bounds[i]), int(bounds[i + 1])
    return kernel(*_joined(args, along), start=start, stop=stop, **kwargs)


def along_axis(
    *args: Any, kernel: Callable[..., Any], along: int, pick: int | None = None, **kwargs: Any
) -> Any:
    """Call ``kernel`` with arguments given as lists of blocks joined along ``along``; with
    ``pick``, each block is a tuple of which the ``pick``-th item is taken first."""
    if pick is not None:
        args = tuple([b[pick] for b in a] if isinstance(a, list) else a[pick] for a in args)
    return kernel(*_joined(args, along), **kwargs)


def _joined(args: Sequence[Any], along: int) -> list[Any]:
    """Lists of blocks (dask's blockwise hands over one list per input it contracts) joined
    along ``along``; one block is passed on as it is, without a copy. Kernels only read
    what they are given (broadcast views stay views: :func:`_join_views`)."""
    return [_join_views(a, along) if isinstance(a, list) else a for a in args]


def _join_views(pieces: Sequence[Any], axis: int) -> Any:
    """``pieces`` joined along ``axis``; numpy pieces that are all broadcasts along another
    axis (stride 0 there: pad blocks of an earlier axis) are joined on one line of it and
    broadcast back, a read-only view holding no more than their distinct lines."""
    if len(pieces) == 1:
        return pieces[0]
    return on_distinct_lines(lambda p: concatenate_blocks(p, axis), pieces, axis)


def on_distinct_lines(
    compute: Callable[[Sequence[Any]], Any], pieces: Sequence[Any], axis: int
) -> Any:
    """``compute(pieces)``, for a ``compute`` that works line by line along ``axis``, done
    once per distinct line: where numpy pieces are all broadcasts along another axis
    (stride 0 there: the pad blocks of an earlier axis), it runs on one line of each
    repeat and its result is broadcast back (a read-only view), so a corner costs what
    its distinct lines cost."""
    first = pieces[0]
    if not all(type(p) is np.ndarray for p in pieces):
        return compute(pieces)
    flat = [
        i
        for i in range(first.ndim)
        if i != axis and first.shape[i] > 1 and all(p.strides[i] == 0 for p in pieces)
    ]
    if not flat:
        return compute(pieces)
    one = tuple(slice(0, 1) if i in flat else slice(None) for i in range(first.ndim))
    value = compute([p[one] for p in pieces])
    shape = tuple(first.shape[i] if i in flat else n for i, n in enumerate(value.shape))
    return np.broadcast_to(value, shape)


def cut_then(
    *blocks: Any,
    kernel: Callable[..., Any],
    axis: int,
    cuts: Sequence[tuple[int, int]],
    **kwargs: Any,
) -> Any:
    """Call ``kernel`` with the parts ``cuts[i]`` along ``axis`` of each of ``blocks``."""
    before = (slice(None),) * axis
    pieces = [b[(*before, slice(lo, hi))] for b, (lo, hi) in zip(blocks, cuts)]
    return kernel(*pieces, axis=axis, **kwargs)


def identity(block: Any) -> Any:
    return block


def assemble_block(
    blocks: Any, parts: Sequence[Sequence[tuple[int, int] | None]], cut: Sequence[int] = ()
) -> Any:
    """One output block from neighbouring blocks: ``blocks`` is nested one list level per
    axis; ``parts[axis][i]`` is the ``(start, stop)`` taken from the i-th block along that
    axis (``None``: all of it). The blocks numbered in ``cut`` (in C order) were cut to
    their parts already (by :func:`cut_part`)."""
    ndim = len(parts)
    flat: list[Any] = []
    _flatten(blocks, ndim, flat)
    grid = list(itertools.product(*(range(len(p)) for p in parts)))
    pieces = [
        b if n in cut else b[tuple(_slice(parts[a][i]) for a, i in enumerate(index))]
        for n, (b, index) in enumerate(zip(flat, grid))
    ]
    if all(type(b) is np.ndarray for b in pieces):
        # numpy: each piece copied once, straight into its place
        sizes = [[pieces[_first_along(parts, a, i)].shape[a] for i in range(len(parts[a]))]
                 for a in range(ndim)]  # fmt: skip
        starts = [np.cumsum([0, *s[:-1]]).tolist() for s in sizes]
        out = np.empty(tuple(sum(s) for s in sizes), dtype=np.result_type(*pieces))
        for piece, index in zip(pieces, grid):
            out[tuple(slice(starts[a][i], starts[a][i] + sizes[a][i])
                      for a, i in enumerate(index))] = piece  # fmt: skip
        return out

    def join(axis: int, first: int, step: int) -> Any:
        # the pieces of the sub-grid starting at flat index ``first``, joined from ``axis`` on
        if axis == ndim:
            return pieces[first]
        inner = step // len(parts[axis])
        return concatenate_blocks(
            [join(axis + 1, first + i * inner, inner) for i in range(len(parts[axis]))], axis
        )

    return join(0, 0, len(pieces))


def _slice(part: tuple[int, int] | None) -> slice:
    return slice(None) if part is None else slice(*part)


def cut_part(block: Any, slices: Sequence[tuple[int, int]]) -> Any:
    """A copy of ``block[slices]``: a part of a block that another output block takes
    mostly, so that the block itself can be released once that one has read it."""
    return block[tuple(slice(lo, hi) for lo, hi in slices)].copy()


def _flatten(nested: Any, depth: int, out: list[Any]) -> None:
    if depth == 0:
        out.append(nested)
        return
    for item in nested:
        _flatten(item, depth - 1, out)


def _first_along(parts: Sequence[Sequence[Any]], axis: int, i: int) -> int:
    """The flat (C order) number of the first block whose index along ``axis`` is ``i``."""
    return i * int(np.prod([len(p) for p in parts[axis + 1 :]], dtype=np.int64))


# --------------------------------------------------------------------------------------
# constant / empty
# --------------------------------------------------------------------------------------


def fill_block(
    *, like: Any, value: Any, fill: bool, shape: Any = None, block_info: Any = None
) -> Any:
    """A block of ``shape`` (or the chunk shape given by dask), filled with ``value`` (or
    left empty); for numpy, a read-only broadcast view of one element, as dask's own
    ``broadcast_to`` makes (whoever uses the block copies it anyway)."""
    if shape is None:
        shape = block_info[None]["chunk-shape"]
    view = type(like) is np.ndarray
    out = np.empty_like(like, shape=(1,) * len(shape) if view else shape)
    if fill:
        out[...] = value  # numpy.pad assigns too: the same casting rules apply
    return np.broadcast_to(out, tuple(shape)) if view else out


# --------------------------------------------------------------------------------------
# linear_ramp
# --------------------------------------------------------------------------------------


def _ramp_operands(edge: Any, end_value: Any, width: int, axis: int) -> tuple[Any, Any, Any]:
    """``(computation dtype, delta, stop)`` exactly as ``numpy.linspace`` forms them."""
    stop = np.squeeze(edge, axis=axis)
    dt = np.linspace(end_value, stop, num=0).dtype
    delta = np.subtract(stop, end_value, dtype=type(dt))
    return dt, delta, stop


def ramp_step_is_zero(
    edge: Any, *, end_value: Any, width: int, along: int, axis: Any = None, keepdims: bool = False
) -> Any:
    """Whether any ``step`` of the ramps from ``edge`` (a block, or dask's nested lists of
    blocks) is 0: numpy then computes every ramp of that side differently (to protect
    denormals), so this is asked of the whole face. (``axis``/``keepdims`` are dask's
    reduction's, when the face is reduced in a tree; the ramp runs along ``along``.)"""
    if isinstance(edge, list):
        return np.bool_(
            any(ramp_step_is_zero(e, end_value=end_value, width=width, along=along) for e in edge)
        )
    _, delta, _ = _ramp_operands(edge, end_value, width, along)
    flag = np.any(np.asarray(delta / width == 0))
    return np.full((1,) * edge.ndim if keepdims else (), flag)


def any_of(flags: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Combine per-block flags (a list of them, or one array) into one."""
    if isinstance(flags, list):
        return np.full((1,) * np.ndim(flags[0]) if keepdims else (), any(np.any(f) for f in flags))
    return np.any(flags, axis=axis, keepdims=keepdims)


def ramp_block(
    edge: Any,
    any_step_zero: Any,
    *,
    end_value: Any,
    width: int,
    start: int,
    stop: int,
    reverse: bool,
    axis: int,
) -> Any:
    """Elements ``[start, stop)`` of ``numpy.linspace(end_value, edge, width,
    endpoint=False, dtype=edge.dtype)`` along ``axis`` (reversed for the after side), with
    numpy's arithmetic, so that a ramp split over many blocks equals numpy's in every bit.
    """
    dt, delta, _ = _ramp_operands(edge, end_value, width, axis)
    lo, hi = (width - stop, width - start) if reverse else (start, stop)
    # the ramp's positions along ``axis`` (counting down for the after side), so that the
    # values come out in the block's own layout: numpy's operations, element by element
    positions = np.arange(lo, hi, dtype=dt)
    if reverse:
        positions = positions[::-1]
    along = [1] * np.ndim(edge)
    along[axis] = -1
    y = positions.reshape(along)
    delta = np.expand_dims(delta, axis)
    if bool(np.any(any_step_zero)):
        y = y / width  # numpy: y /= div, then y * delta
    else:
        delta = delta / width  # numpy: y * step
    if type(edge) is not np.ndarray:
        values = _ramp_values(y, delta, end_value, edge.dtype)
        if values.dtype == edge.dtype and type(values) is type(edge):
            return values  # computed in the data's own dtype: already the block
        out = np.empty_like(edge, shape=values.shape)
        out[...] = values  # the same cast numpy.pad's assignment performs
        return out
    # numpy: computed a slice of rows at a time, within the CPU's cache, and stored into
    # the block with numpy.pad's cast (in float64 for float32 data with numpy's default
    # end values): the block is written once, with no intermediate of its size
    out = np.empty(np.broadcast_shapes(y.shape, delta.shape), dtype=edge.dtype)
    row = max(math.prod(out.shape[1:]) * np.dtype(dt).itemsize, 1)
    rows = max(RAMP_TILE // row, 1)
    for first in range(0, out.shape[0], rows):
        cut = slice(first, first + rows)
        out[cut] = _ramp_values(_rows(y, cut), _rows(delta, cut), end_value, edge.dtype)
    return out


#: Bytes of a ramp computed at a time: within a core's L2 cache.
RAMP_TILE = 1 << 19


def _rows(a: Any, cut: slice) -> Any:
    """Rows ``cut`` of an operand that may broadcast along the first axis."""
    return a[cut] if a.shape[0] > 1 else a


def _ramp_values(y: Any, delta: Any, end_value: Any, dtype: np.dtype) -> Any:
    """numpy.linspace's last steps, ``y * delta + start`` (floored for integer data), in
    the computation's dtype."""
    values = y * delta
    values += end_value
    if np.issubdtype(dtype, np.integer):
        np.floor(values, out=values)
    return values
