"""Links of the pages into the repository outside ``docs/``, pointed at the site's pages.

A page read on its own (in a checkout, or on a code host) links to ``../README.md#...`` or
``../benchmarks/RESULTS.md``; on the site those files are not pages, so each such link,
and each anchor of a page whose section moved, is rewritten to the page that holds it
before the page is parsed. A link to a repository file outside ``docs/`` that is neither
here nor a file (a missing page, a moved section) is left as it is, and fails the build
as a broken reference.
"""

from __future__ import annotations

import re
from typing import Any

from sphinx.application import Sphinx

#: link target as a page writes it -> the site's page (and section)
MOVED = {
    "../README.md#performance": "performance.md",
    "../README.md#limitations": "differences.md#limitations",
    "../README.md#daskpad-numpypad-daskarraypad-and-xarrays-pad": (
        "differences.md#daskpad-numpypad-daskarraypad-and-xarrays-pad"
    ),
    "../README.md": "index.md",
    "../CHANGELOG.md": "changelog.md",
    "../benchmarks/RESULTS.md": "benchmark-results.md",
    "../benchmarks/CHUNKINGS.md": "benchmark-chunkings.md",
    # the sections of the former single page of the Python API, now in the user guide
    "api.md#daskpadpad": "modes.md#daskpadpad",
    "api.md#functions-that-write-into-the-blocks": "modes.md#functions-that-write-into-the-blocks",
    "api.md#a-mode-per-axis": "per-axis.md",
    "api.md#a-mode-per-dimension": "per-axis.md#xarray-a-mode-per-dimension",
    "api.md#daskpadmap_overlap": "halos.md#daskpadmap_overlap",
    "api.md#from-dask-in-one-import-daskpaddaskmap_overlap": (
        "halos.md#from-dask-in-one-import-daskpaddaskmap_overlap"
    ),
    "api.md#daskpadto_zarr": "chunks.md#storing-with-bounded-memory-daskpadto_zarr",
    "api.md#chunks-and-writing-the-result": "labelled.md#chunks-and-writing-the-result",
    "api.md#pad2-labelled-padding-for-xarray": "labelled.md",
}

_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _rewrite(app: Sphinx, docname: str, source: list[str]) -> None:
    if app.env.doc2path(docname).suffix != ".md":
        return
    source[0] = _LINK.sub(lambda m: f"]({MOVED.get(m.group(1), m.group(1))})", source[0])


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("source-read", _rewrite)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
