"""The rectilinear chunk grid of a padded array: where each chunk comes from.

A regular grid shifted by a pad cuts every input chunk in two. On zarr's rectilinear grid
each axis has chunks of its own sizes: the pad before (in pieces no longer than the input's
chunk, the shorter piece outermost), the input's chunks, the pad after. Each whole input
chunk is then a chunk of the output under a shifted index, and its stored bytes can be
copied as they are; only the pads are computed. An input's partial last chunk is stored at
full chunk size on a regular grid: where no pad follows it, the output's last chunk along
that axis is declared at that full size too, past the array's end (as zarr allows, and
reads clipped), and its bytes are copied as well; where a pad follows, it is computed,
and laid out with that pad as one stretch in pieces no longer than the input's chunk (721
latitudes in chunks of 180, padded by 4: a last chunk of 5, not one of 1 and one of 4).

Where each before-pad is a whole number of the input's chunks, that grid is a regular one
(:attr:`Layout.regular`): zarr's regular grid then keeps the input's chunks whole too.

Plain Python: :mod:`daskpad.store.writing.chunk_plans` writes what this plans.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

Chunks = tuple[tuple[int, ...], ...]


def pieces(width: int, chunk: int, outer_first: bool) -> tuple[int, ...]:
    """``width`` in pieces of ``chunk`` at most, the shorter piece outermost (first for a
    pad before, last for a pad after)."""
    whole, rest = divmod(width, chunk)
    short = (rest,) if rest else ()
    return short + (chunk,) * whole if outer_first else (chunk,) * whole + short


@dataclass(frozen=True)
class Layout:
    """One array's rectilinear grid: ``chunks`` per axis (as the array holds them); the
    input's chunk ``i`` along an axis is the output's chunk ``first + i``; the first
    ``whole`` input chunks per axis are stored as the input stores them. ``overhang`` per
    axis: how far the last chunk is declared past the array's end (the rest of a partial
    input chunk that no pad follows). ``copied`` says whether the whole chunks are copied
    as stored bytes (else every chunk is computed)."""

    chunks: Chunks
    first: tuple[int, ...]
    whole: tuple[int, ...]
    copied: bool
    overhang: tuple[int, ...] = ()
    #: per axis, whether it is padded (empty: not known)
    padded: tuple[bool, ...] = ()

    @property
    def declared(self) -> Chunks:
        """The chunk sizes the array's metadata declares (the last ones past its end by
        :attr:`overhang`)."""
        extras = self.overhang or (0,) * len(self.chunks)
        return tuple(
            (*cs[:-1], cs[-1] + extra) if extra else cs for cs, extra in zip(self.chunks, extras)
        )

    @property
    def regular(self) -> tuple[int, ...] | None:
        """The chunk shape of the zarr regular grid the :attr:`declared` sizes make (along
        each axis one size, the last chunk no larger), or None where they make none."""
        shape = []
        for sizes in self.declared:
            if any(s != sizes[0] for s in sizes[:-1]) or sizes[-1] > sizes[0]:
                return None
            shape.append(sizes[0])
        return tuple(shape)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(sum(c) for c in self.chunks)

    @property
    def box(self) -> tuple[slice, ...]:
        """The elements made of whole input chunks (copied where :attr:`copied`)."""
        out = []
        for cs, f, n in zip(self.chunks, self.first, self.whole):
            start = sum(cs[:f])
            out.append(slice(start, start + sum(cs[f : f + n])))
        return tuple(out)

    def copied_chunks(self) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
        """``(input chunk index, output chunk index)`` of every chunk copied as bytes."""
        if not self.copied:
            return
        for index in itertools.product(*(range(n) for n in self.whole)):
            yield index, tuple(i + f for i, f in zip(index, self.first))

    @property
    def ncopied(self) -> int:
        return math.prod(self.whole) if self.copied else 0

    @property
    def ncomputed(self) -> int:
        return math.prod(len(c) for c in self.chunks) - self.ncopied

    def computed(self) -> list[tuple[slice, ...]]:
        """The elements computed, as a few boxes on chunk bounds that do not overlap."""
        if not self.copied:
            return [tuple(slice(0, n) for n in self.shape)]
        return outside(self.shape, self.box)


def layout(
    shape: Sequence[int],
    chunks: Sequence[int | Sequence[int]],
    pads: Sequence[tuple[int, int]],
    copied: bool,
) -> Layout | None:
    """The rectilinear grid of an input of ``shape``, stored in ``chunks`` (one size per
    axis, a regular grid, or the sizes along each axis), padded by ``pads`` per axis; None
    where an axis of the output is empty (zarr has no rectilinear grid for it)."""
    out_chunks, first, whole, overhang, padded = [], [], [], [], []
    for n, c, (before, after) in zip(shape, chunks, pads):
        sizes = _sizes(n, c)
        size = (c if isinstance(c, int) else max(sizes, default=0)) or max(before, after, 1)
        ahead = pieces(before, size, outer_first=True)
        # a regular grid's last chunk is stored at full size: whole where it is full, or
        # where it stays last (declared at that size, past the end)
        full = c if isinstance(c, int) else 0  # (a regular grid's chunk size)
        rest = n % full if full else 0
        if rest and after:  # (computed either way: one piece with the pad after it)
            behind = pieces(rest + after, size, outer_first=False)
            axis = ahead + sizes[:-1] + behind
        else:
            axis = ahead + sizes + pieces(after, size, outer_first=False)
        if not axis:
            return None
        out_chunks.append(axis)
        first.append(len(ahead))
        whole.append(len(sizes) - (1 if rest and after else 0))
        overhang.append(full - rest if rest and not after else 0)
        padded.append(bool(before or after))
    return Layout(
        tuple(out_chunks), tuple(first), tuple(whole), copied, tuple(overhang), tuple(padded)
    )


def _sizes(n: int, chunk: int | Sequence[int]) -> tuple[int, ...]:
    if not isinstance(chunk, int):
        return tuple(int(c) for c in chunk if c)
    whole, rest = divmod(n, chunk)
    return (chunk,) * whole + ((rest,) if rest else ())


def outside(shape: Sequence[int], box: Sequence[slice]) -> list[tuple[slice, ...]]:
    """The elements of ``shape`` outside ``box``, as at most ``2 * ndim`` boxes that do not
    overlap: along axis ``k``, those before and after the box there, inside it along the
    axes before ``k`` and anywhere along those after."""
    found = []
    for k, (n, b) in enumerate(zip(shape, box)):
        inside = tuple(box[:k])
        rest = tuple(slice(0, m) for m in shape[k + 1 :])
        for part in (slice(0, b.start), slice(b.stop, n)):
            if part.stop > part.start and all(s.stop > s.start for s in inside):
                found.append((*inside, part, *rest))
    return found
