"""User pad functions of every kind numpy.pad accepts, for tests and examples: one that
writes the pads in place, one that shuffles whole lines, one that returns a new line
(which numpy ignores), one that writes in place and returns, one that writes the data
too."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from daskpad.core.ndarrays import Numbers, Values


def pad_with_constant(
    vector: Numbers, iaxis_pad_width: tuple[int, int], iaxis: int, kwargs: Mapping[str, object]
) -> None:
    """numpy's docstring example, verbatim: ``kwargs["padder"]`` (default 10) in the pads.

    With an after-width of 0, ``vector[-0:]`` is the whole line, so the whole line is
    overwritten, in numpy as in daskpad: a test that lines really are whole.
    """
    pad_value = kwargs.get("padder", 10)
    vector[: iaxis_pad_width[0]] = pad_value
    vector[-iaxis_pad_width[1] :] = pad_value


def pad_with_shuffled_line(
    vector: Values, iaxis_pad_width: tuple[int, int], iaxis: int, kwargs: Mapping[str, int]
) -> None:
    """Pads read from the line (including earlier axes' pads), in an order set by the axis and
    ``kwargs["shift"]``: data-dependent, dtype-agnostic, sensitive to the order of axes."""
    before, after = iaxis_pad_width
    n = len(vector) - before - after
    if n == 0:
        return
    interior = vector[before : before + n].copy()
    shift = iaxis + kwargs.get("shift", 0)
    vector[:before] = interior[::-1][(np.arange(before) + shift) % n]
    vector[before + n :] = interior[(2 * np.arange(after) + shift) % n]


def pad_returning_new(
    vector: Values, iaxis_pad_width: tuple[int, int], iaxis: int, kwargs: Mapping[str, object]
) -> Values:
    """Legacy style: leaves ``vector`` alone and returns a new, edge-padded vector."""
    before, after = iaxis_pad_width
    n = len(vector) - before - after
    out = vector.copy()
    if n:
        out[:before] = vector[before]
        out[before + n :] = vector[before + n - 1]
    return out


def pad_inplace_and_return(
    vector: Values, iaxis_pad_width: tuple[int, int], iaxis: int, kwargs: Mapping[str, object]
) -> Values:
    """Writes into ``vector`` (before: the line's last value; after: its first) and returns
    it."""
    before, after = iaxis_pad_width
    if before:
        vector[:before] = vector[-1]
    if after:
        vector[len(vector) - after :] = vector[0]
    return vector


def pad_and_reverse_data(
    vector: Values, iaxis_pad_width: tuple[int, int], iaxis: int, kwargs: Mapping[str, object]
) -> None:
    """Pads with the line's first and last values, then reverses the data part of lines
    whose first and last data values differ: a function that writes the data too, on some
    lines only (numpy keeps what it wrote)."""
    before, after = iaxis_pad_width
    n = len(vector) - before - after
    if n == 0:
        return
    vector[:before] = vector[before]
    vector[before + n :] = vector[before + n - 1]
    data = vector[before : before + n]
    if bool(data[0] != data[-1]):
        data[:] = data[::-1].copy()
