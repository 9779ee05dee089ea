"""reflect, symmetric and wrap: pads copied from the array, block by block (edge, which
repeats one element, has a builder and kernel of its own: :mod:`daskpad.modes.edge`).

numpy.pad fills a reflecting, symmetric or wrapping pad wider than the axis in rounds, each
round copying from what the rounds before wrote. A *fill program* (:func:`fill_program`),
computed once per axis, describes those rounds at the index level: which data index (and,
for odd reflection, which affine step) each padded position takes its value from. The
graph builder (:func:`build_gather`) uses it to find which input elements an output block
needs (:func:`needed_ranges`), and the block kernel (:func:`gather_block`) uses the same
program to compute the block, so the two cannot disagree. Even modes cut their sides so
that each block is a view of one input block (:func:`align`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import NamedTuple, cast

import dask.array as da
import numpy as np

from daskpad.core.chunks import BEFORE
from daskpad.core.grid import BlockGrid
from daskpad.core.ndarrays import Flags, Numbers, Positions, Values
from daskpad.core.plan import AxisPlan, PadPlan
from daskpad.core.registry import Mode, register
from daskpad.core.sides import (
    SideChunks,
    Sides,
    per_pad_block,
    side_from_spans,
)

# --------------------------------------------------------------------------------------
# Fill programs: numpy's iterative reflect/symmetric/wrap fill, at the index level.
# --------------------------------------------------------------------------------------


class Fill(NamedTuple):
    """Positions ``[start, stop)`` of the padded axis are filled from other positions.

    Position ``p`` takes the value at ``offset + step * p`` (``step`` is -1 for a
    reflection, +1 for a wrap, 0 for an edge copy). With odd reflection the value is
    ``2 * value(edge) - value(offset - p)`` instead, computed in the array's dtype as numpy
    does. Source positions always lie in regions filled earlier (or in the data).
    """

    start: int
    stop: int
    offset: int
    step: int
    edge: int


class Program(NamedTuple):
    """How one axis is padded by a copying mode: data at ``[lo, hi)``, the rest by ``fills``."""

    lo: int
    hi: int
    fills: tuple[Fill, ...]
    odd: bool
    #: the even copy it amounts to (see :func:`source_index`): edge, reflect, symmetric, wrap
    kind: str = "edge"


def fill_program(mode: str, n: int, before: int, after: int, reflect_type: str) -> Program:
    """The fill program numpy's ``pad`` follows for one axis of length ``n >= 1``.

    numpy pads reflect, symmetric and wrap widths larger than the axis iteratively, each
    round copying (or, for odd reflection, negating about the current edge) a window of the
    region filled so far. This replays those rounds on positions only, so its cost is the
    number of rounds, not the width.
    """
    total = before + n + after
    lo, hi = before, before + n
    fills: list[Fill] = []
    if mode == "edge" or (mode in ("reflect", "symmetric") and n == 1):
        # Legacy numpy: reflecting an axis of length one repeats its value.
        if before:
            fills.append(Fill(0, before, lo, 0, lo))
        if after:
            fills.append(Fill(hi, total, hi - 1, 0, hi - 1))
        return Program(lo, hi, tuple(sorted(fills)), odd=False)

    left, right = before, after  # widths still to fill on each side
    while left > 0 or right > 0:
        valid = total - left - right  # length filled so far (data and earlier rounds)
        if mode == "wrap":
            period = valid // n * n
            if left > 0:
                c = min(period, left)
                fills.append(Fill(left - c, left, period, 1, left))
            if right > 0:
                c = min(period, right)
                start = total - right
                fills.append(Fill(start, start + c, -period, 1, start - 1))
            left = max(left - period, 0)
            right = max(right - period, 0)
            continue
        if mode == "symmetric":
            window, shift = valid // n * n, 1
        else:  # reflect: the edge itself is not repeated
            window, shift = (valid - 1) // (n - 1) * (n - 1), 0
        if left > 0:
            c = min(window, left)
            # position left-1-t mirrors left+t (symmetric) or left+1+t (reflect)
            fills.append(Fill(left - c, left, 2 * left - shift, -1, left))
            left -= c
        if right > 0:
            c = min(window, right)
            start = total - right
            fills.append(Fill(start, start + c, 2 * start + shift - 2, -1, start - 1))
            right -= c
    return Program(lo, hi, tuple(sorted(fills)), odd=reflect_type == "odd", kind=mode)


def source_index(program: Program, positions: Positions) -> Positions:
    """The data index (``0 .. n-1``) each padded position copies, for an even program.

    numpy's rounds of reflect, symmetric and wrap each copy a whole number of periods of
    what is already there, so together they continue the data periodically: wrap with
    period ``n``, symmetric ``2n`` and reflect ``2n - 2`` (triangle waves); edge repeats
    the ends. (The property tests against numpy.pad hold this to numpy's own rounds.)
    Odd reflection also adds the edge values of each round, so it replays the rounds.
    """
    n = program.hi - program.lo
    q = positions - program.lo
    if program.kind == "wrap":
        return q % n
    if program.kind == "symmetric":
        r = q % (2 * n)
        return np.where(r < n, r, 2 * n - 1 - r)
    if program.kind == "reflect":
        r = q % (2 * n - 2)
        return np.where(r < n, r, 2 * n - 2 - r)
    clipped: Positions = np.clip(q, 0, n - 1)
    return clipped


def run_starts(program: Program, bounds: Sequence[int], start: int, stop: int) -> Positions:
    """Positions in ``(start, stop)`` where an even copying program begins a new run: a
    stretch of positions that copies consecutive indices of one input chunk (chunks
    ``bounds[i]:bounds[i + 1]``) in one direction, that is, a view of that chunk.

    The runs follow from :func:`source_index`'s periodic map: in each period, a run starts
    where the map turns and where it enters another chunk.
    """
    n = program.hi - program.lo
    inner = np.asarray(bounds[1:-1], dtype=np.int64)  # chunk starts other than 0
    if n == 1:
        return np.empty(0, dtype=np.int64)  # one element repeated: a broadcast
    if program.kind == "wrap":
        period, residues = n, [np.zeros(1, np.int64), inner]
    elif program.kind == "symmetric":
        period, residues = 2 * n, [np.array([0, n]), inner, 2 * n - inner]
    elif program.kind == "reflect":
        period, residues = 2 * n - 2, [np.array([0, n]), inner, 2 * n - 1 - inner]
    else:
        return np.empty(0, dtype=np.int64)  # edge: one repeated element, a broadcast
    r = np.unique(np.concatenate(residues) % period)
    q0, q1 = start + 1 - program.lo, stop - program.lo  # cuts at q in [q0, q1)
    first, last = q0 // period, (q1 - 1) // period
    q = (np.arange(first, last + 1, dtype=np.int64)[:, None] * period + r).ravel()
    return cast("Positions", q[(q >= q0) & (q < q1)] + program.lo)


def locate(program: Program, pos: Positions) -> Positions:
    """Index into ``program.fills`` of the fill that wrote each (non-data) position."""
    starts = np.fromiter((f.start for f in program.fills), dtype=np.intp)
    return np.searchsorted(starts, pos, side="right") - 1


def needed_ranges(program: Program, start: int, stop: int) -> list[tuple[int, int]]:
    """Sorted, disjoint ``[a, b)`` ranges of data indices (``0 .. n-1``) whose values the
    padded positions ``[start, stop)`` depend on.

    Ranges, not positions: each fill maps a range of positions onto one earlier range, so
    the work follows the number of fills (numpy's rounds), not the width of the pad.
    """
    found: list[tuple[int, int]] = []
    pending = [(start, stop)]
    seen: set[tuple[int, int]] = set()
    seen_edges: set[int] = set()
    while pending:
        a, b = pending.pop()
        if a >= b or (a, b) in seen:
            continue
        seen.add((a, b))
        lo, hi = max(a, program.lo), min(b, program.hi)
        if lo < hi:
            found.append((lo - program.lo, hi - program.lo))
        for f in program.fills:
            s, e = max(a, f.start), min(b, f.stop)
            if s >= e:
                continue
            if f.step == 0:
                pending.append((f.offset, f.offset + 1))
            elif f.step > 0:
                pending.append((f.offset + s, f.offset + e))
            else:
                pending.append((f.offset - (e - 1), f.offset - s + 1))
            if program.odd and f.edge not in seen_edges:
                seen_edges.add(f.edge)
                pending.append((f.edge, f.edge + 1))
    merged: list[tuple[int, int]] = []
    for a, b in sorted(found):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


# --------------------------------------------------------------------------------------
# the builder
# --------------------------------------------------------------------------------------


def _reflect_type(plan: PadPlan) -> str:
    """The plan's ``reflect_type`` (wrap takes none: ``"even"``)."""
    return str(plan.options.get("reflect_type", "even"))


def build_gather(x: BlockGrid, ap: AxisPlan, plan: PadPlan, sides: SideChunks) -> Sides:
    """reflect, symmetric, wrap: each block reads the input elements it maps to."""
    assert plan.mode is not None
    program = fill_program(plan.mode.name, ap.length, ap.before, ap.after, _reflect_type(plan))
    bounds = np.cumsum((0, *x.chunks[ap.axis]))

    def spans(start: int, stop: int) -> list[tuple[int, int, int]]:
        """The input elements padded positions ``[start, stop)`` map to, as one span
        ``(chunk, lo, hi)`` per input chunk they fall in, from the first to the last
        element needed there."""
        found: dict[int, tuple[int, int]] = {}  # chunk -> (first, last + 1) needed in it
        for a, b in needed_ranges(program, start, stop):
            first = int(np.searchsorted(bounds, a, side="right")) - 1
            last = int(np.searchsorted(bounds, b - 1, side="right")) - 1
            for c in range(first, last + 1):
                lo, hi = max(a, int(bounds[c])), min(b, int(bounds[c + 1]))
                old = found.get(c, (lo, hi))
                found[c] = (min(old[0], lo), max(old[1], hi))
        return [(c, lo, hi) for c, (lo, hi) in sorted(found.items())]

    def make(side: int, chunks: tuple[int, ...], offset: int) -> da.Array:
        return side_from_spans(x, ap.axis, chunks, offset, spans, gather_block, program=program)

    return per_pad_block(ap, sides, make)


def align(ap: AxisPlan, plan: PadPlan, input_chunks: Sequence[int], side: int) -> list[int] | None:
    """Where the even copying modes cut a pad side so that every block is a view of one
    input block (:func:`daskpad.core.chunks.pad_layout`): the starts of the runs its fill
    program copies from one input chunk; None for odd reflection (computed, not copied)."""
    if _reflect_type(plan) == "odd" or plan.mode is None:
        return None
    program = fill_program(plan.mode.name, ap.length, ap.before, ap.after, _reflect_type(plan))
    bounds = np.cumsum((0, *input_chunks)).tolist()
    end = ap.before + ap.length
    start, stop = (0, ap.before) if side == BEFORE else (end, end + ap.after)
    return cast("list[int] | None", (run_starts(program, bounds, start, stop) - start).tolist())


# --------------------------------------------------------------------------------------
# the kernels
# --------------------------------------------------------------------------------------


def gather_block(
    *pieces: Values,
    axis: int,
    piece_starts: Sequence[int],
    program: Program,
    start: int,
    stop: int,
) -> Values:
    """Padded positions ``[start, stop)`` along ``axis`` of a copying mode.

    ``pieces`` are slices of the array along ``axis`` holding the data indices
    ``piece_starts[i] ..`` (sorted, disjoint); together they hold every index
    :func:`needed_ranges` lists for these positions. Runs of consecutive indices (forwards for
    wrap, backwards for a reflection) are taken as slices and a repeated index (an axis of
    length one reflected, which numpy pads as edge) as a broadcast, so a block that is one
    run is a view of the slab; the rest is gathered.
    """
    reader = _Reader(pieces, piece_starts, program, axis)
    # the even modes copy through the periodic map: a view of the slab where the block is
    # one run (reflect, symmetric, wrap), made read-only by the task that calls this
    # (:func:`daskpad.core.kernels.read_only`); dask's final concatenation copies it
    positions = np.arange(start, stop, dtype=np.intp)
    if not program.odd:
        return reader.data(source_index(program, positions))
    if positions.size <= 64:
        return reader.odd_values(positions)
    return _odd_reflection(reader, positions)


class _Reader:
    """:func:`gather_block`'s reads from its pieces. An object rather than nested functions:
    a recursive closure is a reference cycle, which would keep the pieces (views of whole
    input blocks) alive after the task until Python's cycle collector ran, so the blocks'
    memory could not be reused."""

    def __init__(
        self,
        pieces: Sequence[Values],
        piece_starts: Sequence[int],
        program: Program,
        axis: int,
    ) -> None:
        self.pieces = pieces
        self.lows = np.asarray(piece_starts, dtype=np.intp)
        self.like = pieces[0]
        self.program = program
        self.before = (slice(None),) * axis

    def shaped(self, length: int) -> tuple[int, ...]:
        axis = len(self.before)
        return (*self.like.shape[:axis], length, *self.like.shape[axis + 1 :])

    def data(self, d: Positions) -> Values:
        """The data at indices ``d``, read from the pieces themselves (never joined: for a
        wide pad they hold the whole axis, and each block takes only its part)."""
        before, pieces = self.before, self.pieces
        i = np.searchsorted(self.lows, d, side="right") - 1
        local = d - self.lows[i]
        if d.size and bool(np.all(i == i[0])):
            piece = pieces[int(i[0])]
            if d.size > 1 and type(piece) is np.ndarray and bool(np.all(local == local[0])):
                # one element repeated (an axis of length one): a read-only broadcast
                # view, as dask's own broadcast_to makes
                one = piece[(*before, slice(int(local[0]), int(local[0]) + 1))]
                return np.broadcast_to(one, self.shaped(d.size))
            return piece[(*before, _as_slice(local))]
        out = np.empty_like(self.like, shape=self.shaped(d.size))
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

    def odd_values(self, p: Positions) -> Numbers:
        """Odd reflection, numpy's rounds replayed recursively (for a few positions)."""
        program, before = self.program, self.before
        inside = (p >= program.lo) & (p < program.hi)
        if inside.all():
            return self.data(p - program.lo)
        outside = np.flatnonzero(~inside)
        which = locate(program, p[outside])
        out = np.empty_like(self.like, shape=self.shaped(p.size))
        if inside.any():
            out[before + (inside,)] = self.data(p[inside] - program.lo)
        # positions arrive sorted (or reversed), so each fill's share is one run of them
        cuts = np.flatnonzero(np.diff(which)) + 1
        for lo, hi in zip((0, *cuts.tolist()), (*cuts.tolist(), which.size)):
            f = program.fills[which[lo]]
            at = outside[lo:hi]
            v = self.odd_values(f.offset + f.step * p[at])
            v = 2 * self.odd_values(np.array([f.edge], dtype=np.intp)) - v
            out[(*before, _as_slice(at))] = v
        return out


def _odd_reflection(reader: _Reader, positions: Positions, step: int = 1 << 16) -> Values:
    """:func:`gather_block`'s odd reflection, level by level for all positions at once.

    Each round of numpy's fill maps a position onto an earlier one and writes
    ``2 * edge - value`` there. Positions are followed back to the data round by round
    (vectorised), then the rounds are applied again, innermost first, with numpy's own
    arithmetic, so the values are numpy's bit for bit. Done ``step`` positions at a time,
    so the rounds' bookkeeping stays small for a block of millions of positions.
    """
    program, before, like = reader.program, reader.before, reader.like
    data, shaped = reader.data, reader.shaped
    axis = len(before)
    offsets = np.array([f.offset for f in program.fills], dtype=np.intp)
    steps = np.array([f.step for f in program.fills], dtype=np.intp)
    edges: dict[int, Numbers] = {}  # fill -> the value at its edge (length one along axis)

    def edge(i: int) -> Numbers:
        if i not in edges:
            edges[i] = reader.odd_values(np.array([program.fills[i].edge], dtype=np.intp))
        return edges[i]

    def outside(p: Positions) -> Flags:
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
        v: Numbers = out[here] if in_place else np.empty_like(like, shape=shaped(current.size))
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
                at: tuple[slice | Positions, ...] = (*before, active)
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


def _one_round_from_one_edge(rounds: list[tuple[Positions, Positions]], size: int) -> bool:
    """Whether every one of ``size`` positions is reflected once, all about the same edge."""
    if len(rounds) != 1:
        return False
    active, which = rounds[0]
    return active.size == size and bool(np.all(which == which[0]))


def _run_starts(piece: Positions, local: Positions) -> Positions:
    """Where the runs of ``local`` begin: stretches in one piece whose indices step by one,
    all the same way (a run may be a single position)."""
    if local.size < 2:
        return np.zeros(min(local.size, 1), dtype=np.intp)
    step = np.diff(local)
    cut = (np.diff(piece) != 0) | (np.abs(step) != 1)  # cut[t]: a run starts at t + 1
    # a turn (two steps of one run differing) starts a run at the position after it
    cut[1:] |= ~cut[1:] & ~cut[:-1] & (step[1:] != step[:-1])
    return np.concatenate(([0], np.flatnonzero(cut) + 1))


def _as_slice(index: Positions) -> slice | Positions:
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


register(
    [
        Mode(
            "reflect",
            "gather",
            copies=True,
            words={"scipy": ("mirror",), "torch": ("reflect",)},
        ),
        Mode(
            "symmetric",
            "gather",
            copies=True,
            words={"scipy": ("reflect", "grid-mirror"), "dask": ("reflect",)},
        ),
        Mode(
            "wrap",
            "gather",
            copies=True,
            words={"scipy": ("wrap", "grid-wrap"), "dask": ("periodic",), "torch": ("circular",)},
        ),
    ],
    build_gather,
    align=align,
)
