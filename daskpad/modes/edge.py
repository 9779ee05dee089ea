"""edge: pads that repeat the edge value.

A copying mode like reflect, symmetric and wrap, built by their builder
(:func:`daskpad.modes.reflect.build_gather`) from a fill program whose every round repeats
the edge element: each pad block is a read-only broadcast of the one-element edge slab of
its face, so its chunks grow to the budget and any cut of the side will do.
"""

from __future__ import annotations

from daskpad.core.registry import Mode, register
from daskpad.modes.reflect import build_gather

register(
    [
        Mode(
            "edge",
            "gather",
            views=True,
            copies=True,
            words={"scipy": ("nearest",), "dask": ("nearest",), "torch": ("replicate",)},
        )
    ],
    build_gather,
)
