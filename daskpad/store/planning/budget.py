"""The memory a write may hold: the budget (``memory=``, ``--memory``) and what this
process may use, and the pieces a block over the budget is read in."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from daskpad._compat.libraries import process_memory_limit


def default_memory() -> int:
    """2 GiB, or a quarter of the memory this process may use if that is less."""
    return min(2**31, memory_limit() // 4)


def memory_limit() -> int:
    """The memory this process may use: distributed's ``memory_limit`` (the machine's
    memory, a container's cgroup limit, ``RLIMIT_RSS``), else psutil's total memory."""
    limit = process_memory_limit()
    if limit is not None:
        return limit
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except ImportError:
        pass
    # dask[array] alone brings neither: then the machine's memory, blind to containers
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return 2**33


def memory_budget(memory: int | str | None) -> int:
    """``memory=`` of the public writers: bytes, a size such as ``"512MB"``, or ``None``
    for :func:`default_memory`."""
    if memory is None:
        return default_memory()
    from dask.utils import parse_bytes

    try:
        n = int(parse_bytes(memory))
    except (ValueError, TypeError):
        n = -1
    if n <= 0:
        raise ValueError(f"memory must be a positive number of bytes, got {memory!r}")
    return n


#: a block read in pieces is cut to this share of the budget per thread: a thread holds
#: a few blocks at work (read, padded, encoded) besides what its tile holds
PIECES_PER_THREAD = 8


def piece_limit(budget: int, threads: int) -> int:
    """The bytes of one block of an input read in pieces: ``budget`` over
    :data:`PIECES_PER_THREAD` blocks per thread.

    >>> piece_limit(64 * 10**6, 2)
    4000000
    """
    return max(1, budget // (PIECES_PER_THREAD * max(1, threads)))


def pieces(
    block: Sequence[int], free: Sequence[bool], itemsize: int, limit: int
) -> tuple[int, ...]:
    """A block of at most ``limit`` bytes cut from ``block`` (its size along each axis),
    cutting only the ``free`` axes, leading ones first: each to 1 in turn until the rest
    fits, the last one cut into equal parts that fit (so a stored order's piece is one
    run of bytes, or few). As far as it goes when even 1 along every free axis is over.

    >>> pieces((100, 500, 1000), (True, True, True), 8, 4 * 10**6)
    (1, 500, 1000)
    >>> pieces((100, 500, 1000), (True, True, True), 8, 10**6)  # 4 rows of 125
    (1, 125, 1000)
    >>> pieces((100, 500, 1000), (False, True, True), 8, 10**6)  # 100 x 1 x 1000
    (100, 1, 1000)
    >>> pieces((100, 500), (True, True), 8, 10**6)  # fits as it is
    (100, 500)
    """
    out = list(block)
    for a, cut in enumerate(free):
        others = itemsize * math.prod(out[:a] + out[a + 1 :])
        if others * out[a] <= limit or not cut:
            continue
        fit = limit // others
        if fit >= 1:
            parts = -(-out[a] // fit)
            out[a] = -(-out[a] // parts)
            break
        out[a] = 1
    return tuple(out)
