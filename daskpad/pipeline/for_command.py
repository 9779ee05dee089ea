"""What the ``daskpad`` command reads of the library besides :mod:`daskpad.pipeline`'s API:
the words it parses its options with (the keyword table, the modes, storage options,
memory sizes, coordinate policies), how it answers Ctrl-C and SIGTERM
(:mod:`daskpad.store.stops`), and how it describes what it reads and writes. The command
imports the library through :mod:`daskpad.pipeline` and this module alone (an
import-linter contract)."""

from __future__ import annotations

from daskpad.core.keywords import KEYWORDS, Keyword, keyword_misfits, keywords_of
from daskpad.core.registry import MODES
from daskpad.pipeline.cluster import rectilinear_readable
from daskpad.pipeline.description import Modes, Widths, describe
from daskpad.pipeline.options import modes_of
from daskpad.pipeline.refusals import located, with_notes
from daskpad.pipeline.sizes import fmt_bytes
from daskpad.pipeline.source import open_source
from daskpad.store.places.locations import Location, storage_options
from daskpad.store.planning.budget import default_memory, memory_budget
from daskpad.store.stops import Arrivals, Terminated, recording_stops
from daskpad.xarray.coords import COORDS_POLICIES, CoordsPolicy
from daskpad.xarray.dim_args import other_name

__all__ = [
    "COORDS_POLICIES",
    "KEYWORDS",
    "MODES",
    "Arrivals",
    "CoordsPolicy",
    "Keyword",
    "Location",
    "Modes",
    "Terminated",
    "Widths",
    "default_memory",
    "describe",
    "fmt_bytes",
    "keyword_misfits",
    "keywords_of",
    "located",
    "memory_budget",
    "modes_of",
    "open_source",
    "other_name",
    "recording_stops",
    "rectilinear_readable",
    "storage_options",
    "with_notes",
]
