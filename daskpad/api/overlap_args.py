"""The arguments of :func:`daskpad.map_overlap`, normalised at the door: which positional
arguments are arrays, a depth, mode or boundary per array, and the arrays' chunks aligned
and made at least as wide as the halo, keeping dask's block correspondence.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import dask.array as da

from daskpad._compat.libraries import minimum_chunks

T = TypeVar("T")


def is_array(value: object) -> bool:
    """Whether a positional argument of ``map_overlap`` is an array: anything with a
    shape and a number of dimensions (numpy's, dask's and other duck arrays); ints,
    tuples, dicts, lists and words are the depth and the mode of the older call
    ``map_overlap(func, x, depth, mode)``."""
    return hasattr(value, "ndim") and hasattr(value, "shape")


def split_positional(
    args: Sequence[T], depth: T | None, mode: T | None
) -> tuple[list[T], T | None, T | None]:
    """The arrays among ``args``, and ``depth`` and ``mode``, given by keyword or as the
    one or two positional arguments after the arrays (``map_overlap(f, x, 1, "wrap")``).

    Raises
    ------
    TypeError
        No array first, more than two positional arguments after the arrays, or a depth
        or mode given both ways.
    """
    arrays = list(itertools.takewhile(is_array, args))
    rest = list(args[len(arrays) :])
    if not arrays:
        raise TypeError(
            f"map_overlap: expected one or more arrays after func, got {args[:1]!r}; "
            "wrap a list as numpy.asarray(...) to give it as data"
        )
    if len(rest) > 2 or any(is_array(r) for r in rest):
        raise TypeError(
            f"map_overlap: after the arrays, at most a depth and a mode may be positional, "
            f"got {rest!r}; give them as depth= and mode="
        )
    for name, given, value in zip(("depth", "mode"), (depth, mode), rest):
        if given is not None:
            raise TypeError(f"map_overlap: {name} given by position ({value!r}) and as {name}=")
    if rest:
        depth = rest[0]
    if len(rest) == 2:
        mode = rest[1]
    return arrays, depth, mode


def per_array(value: Any, ndims: Sequence[int], name: str) -> list[Any]:
    """``value`` as one entry per array (of ``ndims`` dimensions): a list is one entry
    per array (as dask takes it); anything else is every array's. With one array, a list
    is also one entry per axis (as a tuple is): it is the array's entry unless it has one
    element that is itself per axis (a tuple, dict or list), or one element for an array
    of other than one dimension.

    Raises
    ------
    ValueError
        A list of another length than the number of arrays (two or more).
    """
    n = len(ndims)
    if not isinstance(value, list):
        return [value] * n
    if n == 1:
        one = len(value) == 1 and (ndims[0] != 1 or isinstance(value[0], (tuple, list, Mapping)))
        return [value[0] if one else value]
    if len(value) != n:
        raise ValueError(
            f"{name}={value!r}: a list is one entry per array, {len(value)} for {n} arrays; "
            "give a tuple or a dict for one entry per axis"
        )
    return list(value)


def aligned(xs: Sequence[da.Array]) -> list[da.Array]:
    """``xs`` rechunked to common chunks along each axis they share (axes counted from
    the end, as numpy broadcasts them; an axis of length one is broadcast and keeps its
    chunk), as dask's ``map_overlap`` aligns them.

    Raises
    ------
    ValueError
        Shapes that do not broadcast.
    """
    ndim = max(x.ndim for x in xs)
    chunks = [list(x.chunks) for x in xs]
    for k in range(1, ndim + 1):
        sharing = [i for i, x in enumerate(xs) if x.ndim >= k and x.shape[-k] != 1]
        if len({xs[i].shape[-k] for i in sharing}) > 1:
            raise ValueError(
                f"map_overlap: the arrays' shapes {[x.shape for x in xs]} do not broadcast"
            )
        cuts = sorted({c for i in sharing for c in itertools.accumulate(xs[i].chunks[-k])})
        common = tuple(b - a for a, b in zip([0, *cuts], cuts))
        for i in sharing:
            chunks[i][-k] = common
    return [x if x.chunks == tuple(c) else x.rechunk(tuple(c)) for x, c in zip(xs, chunks)]


def fitted(
    xs: Sequence[da.Array], depths: Sequence[Sequence[int]]
) -> list[tuple[tuple[int, ...], ...]]:
    """Each array's chunks none narrower than the widest halo along that axis (axes
    counted from the end) among the arrays chunked alike there, so that their blocks
    still correspond; the whole axis in one chunk where it is narrower."""
    out = [list(x.chunks) for x in xs]
    ndim = max(x.ndim for x in xs)
    for k in range(1, ndim + 1):
        having = [i for i, x in enumerate(xs) if x.ndim >= k]
        reference = max((xs[i].chunks[-k] for i in having), key=len)
        alike = [i for i in having if xs[i].chunks[-k] == reference]
        widest = max(depths[i][-k] for i in alike)
        for i in having:
            own = widest if i in alike else depths[i][-k]
            out[i][-k] = fit(xs[i].chunks[-k], own)
    return [tuple(c) for c in out]


def fit(chunks: tuple[int, ...], depth: int) -> tuple[int, ...]:
    """``chunks`` none narrower than ``depth`` (the whole axis in one where it is
    narrower)."""
    if not depth or min(chunks) >= depth:
        return chunks
    if sum(chunks) <= depth:
        return (sum(chunks),)
    return minimum_chunks(depth, chunks)
