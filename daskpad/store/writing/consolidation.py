"""Consolidated metadata: every array's and group's document gathered in the root's, so
that xarray opens a store with one read."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


def consolidate(store: Any, zarr_format: int) -> None:
    """Consolidate the store's metadata, so that xarray opens it with one read (and
    without warning that it is not consolidated), zarr v3 included."""
    import zarr

    with v3_consolidation_quietly():
        zarr.consolidate_metadata(store, zarr_format=zarr_format)  # type: ignore[arg-type]


@contextlib.contextmanager
def v3_consolidation_quietly() -> Iterator[None]:
    """Without zarr's warning that consolidated metadata is not part of the v3
    specification yet: not news to whoever asked for it."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Consolidated metadata is currently not")
        yield
