"""Byte counts and chunks written for people: compactly, and so that ``--memory`` (dask's
``parse_bytes``) reads a byte count back."""

from __future__ import annotations

import numpy as np
from dask.utils import format_bytes


def fmt_bytes(n: float) -> str:
    """A byte count for people: dask's ``format_bytes``, whose text ``--memory`` (dask's
    ``parse_bytes``) reads back as the same count, to three figures.

    >>> fmt_bytes(1536)
    '1.50 kiB'
    """
    return str(format_bytes(int(n)))


def fmt_at_least(n: int) -> str:
    """A byte count for ``--memory``, rounded up: ``--memory`` (dask's ``parse_bytes``)
    reads it back as at least ``n``.

    >>> fmt_at_least(25_000_001)
    '23.85MiB'
    """
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("kiB", 2**10)):
        if n >= size:
            hundredths = -(-n * 100 // size)
            while int(hundredths / 100 * size) < n:  # (a float may read back one short)
                hundredths += 1
            return f"{hundredths / 100:.2f}{unit}"
    return f"{n}B"


def fmt_dim_chunks(c: tuple[int, ...]) -> str:
    """One dimension's chunks, compactly.

    >>> fmt_dim_chunks((45, 45, 45))
    '3x45'
    >>> fmt_dim_chunks((45, 45, 4))
    '2x45+4'
    >>> fmt_dim_chunks((2, 45, 45, 2))
    '(2, 45, 45, 2)'
    """
    if len(c) == 1:
        return str(c[0])
    if len(set(c[:-1])) == 1 and c[-1] <= c[0]:
        return f"{len(c)}x{c[0]}" if c[-1] == c[0] else f"{len(c) - 1}x{c[0]}+{c[-1]}"
    if len(c) <= 6:
        return str(tuple(c))
    return f"({c[0]}, {c[1]}, {c[2]}, ..., {c[-2]}, {c[-1]}) [{len(c)} chunks]"


def fmt_chunks(chunks: tuple[tuple[int, ...], ...] | None) -> str:
    if chunks is None:
        return "in memory"
    n = int(np.prod([len(c) for c in chunks]))
    return f"chunks {' / '.join(fmt_dim_chunks(c) for c in chunks)} ({n} chunk{'s' * (n != 1)})"
