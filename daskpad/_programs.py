"""Fill programs: numpy's iterative reflect/symmetric/wrap fill, replayed on indices.

numpy.pad fills a reflecting, symmetric or wrapping pad wider than the axis in rounds, each
round copying from what the rounds before wrote. A *fill program* (:func:`fill_program`),
computed once per axis, describes those rounds at the index level: which data index (and,
for odd reflection, which affine step) each padded position takes its value from. The
graph builder uses it to find which input elements an output block needs
(:func:`needed_ranges`, :func:`run_starts`), and the block kernel
(:func:`daskpad._kernels.gather_block`) uses the same program to compute the block, so
the two cannot disagree. Plain numpy, pure, no dask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, cast

import numpy as np

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


def source_index(program: Program, positions: np.ndarray) -> np.ndarray:
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
    return cast("np.ndarray", np.clip(q, 0, n - 1))


def run_starts(program: Program, bounds: Sequence[int], start: int, stop: int) -> np.ndarray:
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
    return cast("np.ndarray", q[(q >= q0) & (q < q1)] + program.lo)


def locate(program: Program, pos: np.ndarray) -> np.ndarray:
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
