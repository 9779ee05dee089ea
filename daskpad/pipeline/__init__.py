"""A store padded into a new zarr store: what the ``daskpad pad`` command does, as a
library (:func:`pad_store`, or :func:`plan_store` to look before writing).

>>> import daskpad.pipeline as pipeline  # doctest: +SKIP
>>> options = pipeline.PadOptions(
...     src="era5.zarr", dst="padded.zarr", widths={"lon": 8}, mode="wrap", memory=2**30
... )  # doctest: +SKIP
>>> plan = pipeline.plan_store(options)  # doctest: +SKIP
>>> print(plan.describe())  # doctest: +SKIP
>>> print(plan.write(progress=True))  # doctest: +SKIP

The steps are library API too: :func:`open_padded` opens SRC and pads it,
:func:`check_destination` refuses a DST whose writing could lose data, :func:`show_source`
and :meth:`StorePlan.describe` say what a padding would produce.
"""

from __future__ import annotations

from daskpad.pipeline.description import show_source
from daskpad.pipeline.destination import check_destination
from daskpad.pipeline.options import PadOptions
from daskpad.pipeline.refusals import Refused, WriteFailed
from daskpad.pipeline.source import PaddedSource, PaddingRefused, open_padded
from daskpad.pipeline.store_plans import StorePlan, StoreWritten, pad_store, plan_store

__all__ = [
    "PadOptions",
    "PaddedSource",
    "PaddingRefused",
    "Refused",
    "StorePlan",
    "StoreWritten",
    "WriteFailed",
    "check_destination",
    "open_padded",
    "pad_store",
    "plan_store",
    "show_source",
]
