"""Block kernels: plain numpy functions that run on workers.

Nothing here knows about dask graphs. Each kernel receives small numpy(-like) blocks and
keyword geometry, allocates with ``*_like`` so the chunk type survives (masked arrays, cupy),
and reproduces numpy.pad's arithmetic exactly. They are pure and deterministic: a worker that
dies and is replaced recomputes the same bytes.

The index geometry of the copying modes (edge, reflect, symmetric, wrap) is a *fill
program* (:mod:`daskpad.modes.reflect`), computed once per axis: the graph builder uses it to
find which input elements an output block needs, and :func:`gather_block` uses the same
program to compute the block, so the two cannot disagree.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

    #: a block: a numpy array, or an array of another type with numpy's API (a masked
    #: array, cupy's)
    Block: TypeAlias = npt.NDArray[np.generic]

T = TypeVar("T")


def concatenate_blocks(pieces: Sequence[Block], axis: int) -> Block:
    """Join blocks along ``axis``, keeping masked arrays masked."""
    if len(pieces) == 1:
        return pieces[0]
    if isinstance(pieces[0], np.ma.MaskedArray):
        masked: Block = np.ma.concatenate(pieces, axis=axis)  # type: ignore[no-untyped-call,unused-ignore]
        return masked
    return np.concatenate(pieces, axis=axis)


def per_chunk(
    which: tuple[int, ...],
    *args: object,
    kernel: Callable[..., Block],
    bounds: Sequence[int],
    along: int,
    **kwargs: Any,
) -> Block:
    """Call ``kernel`` for output chunk ``which[0]`` of a pad side, whose positions are
    ``bounds[i]:bounds[i + 1]``; arguments given as lists of blocks are joined along
    ``along`` first."""
    i = int(which[0])
    start, stop = int(bounds[i]), int(bounds[i + 1])
    return read_only(kernel(*_joined(args, along), start=start, stop=stop, **kwargs))


def along_axis(
    *args: Any, kernel: Callable[..., Block], along: int, pick: int | None = None, **kwargs: Any
) -> Block:
    """Call ``kernel`` with arguments given as lists of blocks joined along ``along``; with
    ``pick``, each block is a tuple of which the ``pick``-th item is taken first."""
    if pick is not None:
        args = tuple([b[pick] for b in a] if isinstance(a, list) else a[pick] for a in args)
    return read_only(kernel(*_joined(args, along), **kwargs))


def read_only(block: Block) -> Block:
    """``block`` as a read-only view, for numpy: a pad block that a function of the user's
    could write into. Many pad blocks are views of the input blocks they were read from
    (reflect, wrap) or broadcasts of one element (edge, constant, the statistics), and
    every pad block but constant's and empty's is made from input blocks that a function
    writing in place could change first. A read-only block makes such a function fail
    loudly, as it does on ``dask.array.full``'s blocks, rather than return wrong values;
    ``.map_blocks(np.copy)`` before it hands it blocks it owns. A new view, so the array it
    was cut from (another task's result) is left as it was; other array types (masked
    arrays among them) pass unchanged."""
    if type(block) is np.ndarray and block.flags.writeable:
        block = block.view()
        block.flags.writeable = False
    return block


def _joined(args: Sequence[object], along: int) -> list[object]:
    """Lists of blocks (dask's blockwise hands over one list per input it contracts) joined
    along ``along``; one block is passed on as it is, without a copy. Kernels only read
    what they are given (broadcast views stay views: :func:`_join_views`)."""
    return [_join_views(a, along) if isinstance(a, list) else a for a in args]


def _join_views(pieces: Sequence[Block], axis: int) -> Block:
    """``pieces`` joined along ``axis``; numpy pieces that are all broadcasts along another
    axis (stride 0 there: pad blocks of an earlier axis) are joined on one line of it and
    broadcast back, a read-only view holding no more than their distinct lines."""
    if len(pieces) == 1:
        return pieces[0]
    return on_distinct_lines(lambda p: concatenate_blocks(p, axis), pieces, axis)


def on_distinct_lines(
    compute: Callable[[Sequence[Block]], Block], pieces: Sequence[Block], axis: int
) -> Block:
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
    *blocks: Block,
    kernel: Callable[..., Block],
    axis: int,
    cuts: Sequence[tuple[int, int]],
    **kwargs: Any,
) -> Block:
    """Call ``kernel`` with the parts ``cuts[i]`` along ``axis`` of each of ``blocks``."""
    before = (slice(None),) * axis
    pieces = [b[(*before, slice(lo, hi))] for b, (lo, hi) in zip(blocks, cuts)]
    return read_only(kernel(*pieces, axis=axis, **kwargs))


def identity(block: T) -> T:
    return block


def assemble_block(
    blocks: Any, parts: Sequence[Sequence[tuple[int, int] | None]], cut: Sequence[int] = ()
) -> Block:
    """One output block from neighbouring blocks: ``blocks`` is nested one list level per
    axis; ``parts[axis][i]`` is the ``(start, stop)`` taken from the i-th block along that
    axis (``None``: all of it). The blocks numbered in ``cut`` (in C order) were cut to
    their parts already (by :func:`cut_part`)."""
    ndim = len(parts)
    flat: list[Block] = []
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

    def join(axis: int, first: int, step: int) -> Block:
        # the pieces of the sub-grid starting at flat index ``first``, joined from ``axis`` on
        if axis == ndim:
            return pieces[first]
        inner = step // len(parts[axis])
        return concatenate_blocks(
            [join(axis + 1, first + i * inner, inner) for i in range(len(parts[axis]))], axis
        )

    return join(0, 0, len(pieces))


def assemble_read_only(
    blocks: Any, parts: Sequence[Sequence[tuple[int, int] | None]], cut: Sequence[int] = ()
) -> Block:
    """:func:`assemble_block`, read-only (:func:`read_only`): a block of a padded array in
    chunks of the user's, which may hold pad values or be read by a pad."""
    return read_only(assemble_block(blocks, parts, cut))


def _slice(part: tuple[int, int] | None) -> slice:
    return slice(None) if part is None else slice(*part)


def cut_part(block: Block, slices: Sequence[tuple[int, int]]) -> Block:
    """A copy of ``block[slices]``: a part of a block that another output block takes
    mostly, so that the block itself can be released once that one has read it."""
    return block[tuple(slice(lo, hi) for lo, hi in slices)].copy()


def _flatten(nested: Any, depth: int, out: list[Block]) -> None:
    if depth == 0:
        out.append(nested)
        return
    for item in nested:
        _flatten(item, depth - 1, out)


def _first_along(parts: Sequence[Sequence[object]], axis: int, i: int) -> int:
    """The flat (C order) number of the first block whose index along ``axis`` is ``i``."""
    return i * int(np.prod([len(p) for p in parts[axis + 1 :]], dtype=np.int64))


# --------------------------------------------------------------------------------------
# constant / empty
# --------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------
# linear_ramp
# --------------------------------------------------------------------------------------
