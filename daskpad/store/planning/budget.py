"""The memory a write may hold: the budget (``memory=``, ``--memory``) and what this
process may use, and the pieces a block over the budget is read in."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence


def default_memory() -> int:
    """2 GiB, or a quarter of the memory this process may use if that is less."""
    return min(2**31, memory_limit() // 4)


def memory_limit() -> int:
    """The memory this process may use: the least of the machine's memory (psutil's, else
    the pages the system reports), a container's cgroup limit (v1 or v2, hard or soft:
    :data:`CGROUP_LIMITS`) and ``RLIMIT_RSS``, as distributed reads it for its workers."""
    limits = [_machine_memory(), *_cgroup_limits(CGROUP_LIMITS), _rss_limit()]
    return min(n for n in limits if n > 0)


def _rss_limit() -> int:
    """The hard ``RLIMIT_RSS`` of this process; 0 where there is none or no such limit."""
    try:
        import resource

        return int(resource.getrlimit(resource.RLIMIT_RSS)[1])
    except (ImportError, AttributeError, OSError, ValueError):  # (Windows: no resource)
        return 0


#: the files that hold a container's memory limit, where the system has cgroups
CGROUP_LIMITS = (
    "/sys/fs/cgroup/memory/memory.limit_in_bytes",  # v1, hard
    "/sys/fs/cgroup/memory/memory.soft_limit_in_bytes",  # v1, soft
    "/sys/fs/cgroup/memory.max",  # v2, hard
    "/sys/fs/cgroup/memory.high",  # v2, soft
    "/sys/fs/cgroup/memory.low",  # v2, softest
)


def _cgroup_limits(paths: Sequence[str]) -> list[int]:
    """The limits in bytes that the files of ``paths`` hold: those that exist and hold a
    number (cgroup v2 writes ``max`` for none)."""
    found = []
    for path in paths:
        try:
            with open(path) as f:
                found.append(int(f.read()))
        except (OSError, ValueError):
            continue
    return found


def _machine_memory() -> int:
    try:
        import psutil  # (distributed's dependency; dask[array] alone has none)

        return int(psutil.virtual_memory().total)
    except ImportError:
        pass
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
