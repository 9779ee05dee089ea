"""A pytest plugin (``-p dask_suite_plugin``) that runs dask's own ``map_overlap`` tests
with ``dask.array.map_overlap`` and ``Array.map_overlap`` routed to
``daskpad.dask.map_overlap``; tests/api/test_dask_suite.py runs it. dask's test code is
imported from the installed dask, never copied.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import dask.array.overlap
import pytest

from daskpad._compat.graphs import query_planning
from daskpad.dask import map_overlap

#: dask's tests that daskpad.dask fails on purpose, and why
DIFFERENCES = {
    "test_map_overlap_multiarray_different_depths": (
        "dask refuses a depth wider than the axis (ValueError); daskpad.dask pads it as "
        "numpy.pad does (docs/boundaries.md, 'What differs from dask')"
    ),
}
if query_planning():
    DIFFERENCES["test_map_overlap_deprecated_signature"] = (
        "under array-expr the pad is cropped off by slicing, which cannot slice the "
        "scalar this test's func returns for each block (dask's trim keeps it)"
    )


def _method(
    self: Any, func: Any, depth: Any, boundary: Any = None, trim: bool = True, **kwargs: Any
) -> Any:
    """``Array.map_overlap``, routed."""
    return map_overlap(func, self, depth=depth, boundary=boundary, trim=trim, **kwargs)


def pytest_configure(config: pytest.Config) -> None:
    patch = pytest.MonkeyPatch()
    patch.setattr(da, "map_overlap", map_overlap)
    patch.setattr(dask.array.overlap, "map_overlap", map_overlap)
    patch.setattr(da.Array, "map_overlap", _method)
    config.stash[_PATCH] = patch


def pytest_unconfigure(config: pytest.Config) -> None:
    config.stash[_PATCH].undo()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and hasattr(module, "map_overlap"):
            module.map_overlap = map_overlap  # (a name imported from dask)
        name = getattr(item, "originalname", item.name)
        if name in DIFFERENCES:
            item.add_marker(pytest.mark.xfail(strict=True, reason=DIFFERENCES[name]))


_PATCH = pytest.StashKey[pytest.MonkeyPatch]()
