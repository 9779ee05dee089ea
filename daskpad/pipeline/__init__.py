"""A store padded into a new zarr store: what the ``daskpad pad`` command does, as a
library (:func:`pad_store`, or :func:`plan_store` to look before writing).

>>> import daskpad.pipeline as pipeline  # doctest: +SKIP
>>> plan = pipeline.plan_store(
...     pipeline.PadOptions(src="era5.zarr", dst="padded.zarr", widths={"lon": (8, 8)},
...                         mode="wrap", memory=2**30))  # doctest: +SKIP
>>> print(plan.describe())  # doctest: +SKIP
>>> print(plan.write(progress=True))  # doctest: +SKIP

The steps are library API too: :func:`open_padded` opens SRC and pads it,
:func:`check_destination` refuses a DST whose writing could lose data, :func:`show_source`
and :meth:`StorePlan.describe` say what a padding would produce.

This module is also the command's one door into the library (an import-linter contract):
besides the pipeline it names what the command parses its options with (the keyword
table, the modes, storage options, memory sizes, coordinate policies) and how it answers
Ctrl-C and SIGTERM (:mod:`daskpad.store.stops`).
"""

from __future__ import annotations

from daskpad.core.keywords import KEYWORDS, Keyword, keyword_misfits, keywords_of
from daskpad.core.registry import MODES
from daskpad.pipeline.cluster import rectilinear_readable
from daskpad.pipeline.description import Modes, Widths, describe, show_source
from daskpad.pipeline.destination import check_destination
from daskpad.pipeline.options import PadOptions, modes_of
from daskpad.pipeline.refusals import Refused, WriteFailed, located, with_notes
from daskpad.pipeline.sizes import fmt_bytes
from daskpad.pipeline.source import (
    ARRAY_VARIABLE,
    PaddedSource,
    PaddingRefused,
    open_padded,
    open_source,
)
from daskpad.pipeline.store_plans import StorePlan, StoreWritten, pad_store, plan_store
from daskpad.store.places.locations import Location, storage_options
from daskpad.store.planning.budget import default_memory, memory_budget
from daskpad.store.stops import Arrivals, Terminated, recording_stops
from daskpad.xarray.coords import COORDS_POLICIES, CoordsPolicy
from daskpad.xarray.dim_args import other_name

__all__ = [
    "ARRAY_VARIABLE",
    "COORDS_POLICIES",
    "KEYWORDS",
    "MODES",
    "Arrivals",
    "CoordsPolicy",
    "Keyword",
    "Location",
    "Modes",
    "PadOptions",
    "PaddedSource",
    "PaddingRefused",
    "Refused",
    "StorePlan",
    "StoreWritten",
    "Terminated",
    "Widths",
    "WriteFailed",
    "check_destination",
    "default_memory",
    "describe",
    "fmt_bytes",
    "keyword_misfits",
    "keywords_of",
    "located",
    "memory_budget",
    "modes_of",
    "open_padded",
    "open_source",
    "other_name",
    "pad_store",
    "plan_store",
    "recording_stops",
    "rectilinear_readable",
    "show_source",
    "storage_options",
    "with_notes",
]
