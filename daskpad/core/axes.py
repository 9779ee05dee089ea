"""Padding every axis in numpy's order, each by its mode's family builder, in one grid.

Axes are padded one after another, in numpy's order, each on the array that already carries
the pads of the earlier axes, so corners come out as numpy's by construction. For one axis,
the builder its mode's family registered (:data:`daskpad.core.registry.BUILDERS`) returns
the blocks before and after the array along that axis; each block is computed by the
family's kernel from the few input elements its mode needs, sliced out of the edge chunks
first (overlap style). The interior is never touched.
"""

from __future__ import annotations

from collections.abc import Callable

import dask.array as da
import numpy as np

from daskpad.core.chunks import merge_slivers, output_chunks, pad_layout
from daskpad.core.grid import new_grid
from daskpad.core.plan import PadPlan
from daskpad.core.registry import ALIGNS, BUILDERS, PREPARES


def _family(plan: PadPlan) -> str:
    """The family that builds an axis of ``plan`` (one mode's plan, or a step's: a mode per
    axis and a function handed whole lines are padded elsewhere)."""
    family = plan.family
    if family is None:
        raise TypeError(f"a plan without a family of builders reached the grid: {plan!r}")
    return family


def _views(
    input_chunks: tuple[tuple[int, ...], ...], plan: PadPlan
) -> Callable[[int, int], list[int] | None]:
    """Where each pad side must be cut so that every block is a view of one input block
    (see :func:`daskpad.core.chunks.pad_layout`), as the axis's mode family says
    (:data:`daskpad.core.registry.ALIGNS`: the even copying modes); None where it has no
    say. Each axis is padded after the earlier ones, which leaves its own chunks as they
    were."""

    def align(axis: int, side: int) -> list[int] | None:
        ap, sub = plan.along(axis)
        hook = ALIGNS.get(_family(sub))
        return None if hook is None else hook(ap, sub, input_chunks[axis], side)

    return align


def pad_axes(x: da.Array, plan: PadPlan, chunks: object = None) -> da.Array:
    """Pad every axis in numpy's order; each axis reads the result of the ones before,
    with its own mode where the plan has a mode per axis.

    The pad sides' chunks come from :mod:`daskpad.core.chunks`: from the budget by default, cut
    at the output chunks' boundaries when ``chunks`` asks for output chunks, so that each
    output block is assembled from whole pad blocks and the input blocks it overlaps.
    """
    widths = [(ap.before, ap.after) for ap in plan.axes]
    target = output_chunks(chunks, x.chunks, plan.new_shape, x.dtype, widths)
    numpy_blocks = type(x._meta) is np.ndarray
    views = [
        numpy_blocks and sub.mode is not None and sub.mode.views
        for sub in (plan.along(axis)[1] for axis in range(x.ndim))
    ]
    layout = pad_layout(x.chunks, x.dtype.itemsize, widths, target, _views(x.chunks, plan), views)
    grid = new_grid(x)
    along = [plan.along(axis) for axis in range(x.ndim)]
    for family in sorted({_family(sub) for _ap, sub in along if _ap.padded}):
        if family in PREPARES:
            grid.prepared[family] = PREPARES[family](grid, along)
    for axis in range(x.ndim):
        ap, sub = plan.along(axis)
        if ap.padded:
            grid.add(axis, *BUILDERS[_family(sub)](grid, ap, sub, layout[axis]))
    if isinstance(chunks, str) and chunks == "merge":
        target = merge_slivers(tuple(grid.chunks), dict(enumerate(widths)))
    return grid.assemble(target)
