"""What a store is padded with, and where it goes: :class:`PadOptions`, one frozen record
that every step of the pipeline reads (the command builds it from its options)."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from daskpad.store.writing.chunk_plans import CHUNK_GRIDS
from daskpad.xarray.coords import CoordsPolicy


@dataclass(frozen=True, kw_only=True)
class PadOptions:
    """How SRC is padded into DST (:func:`daskpad.pipeline.pad_store`).

    Widths, mode and keywords are :func:`daskpad.xarray.pad2`'s, by dimension name; the
    rest say how SRC is read and DST written."""

    #: SRC and DST: a local path or an fsspec URL (``s3://bucket/in.zarr``); DST is a zarr
    #: store (empty for :func:`daskpad.pipeline.open_padded` alone)
    src: str
    dst: str = ""
    #: the fsspec options of SRC's and DST's file systems (``{"endpoint_url": ...}``)
    src_options: Mapping[str, Any] = field(default_factory=dict)
    dst_options: Mapping[str, Any] = field(default_factory=dict)
    #: ``{dim: (before, after)}``
    widths: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: one mode, or ``{dim: mode}`` (a padded dimension not named: constant)
    mode: str | Mapping[str, str] = "constant"
    #: the modes' keyword arguments (``constant_values``, ...): each one value, or
    #: ``{dim: value}``
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    #: the policy that makes the padded chunks regular (``"regular"``, ``"even"``), and
    #: the sizes SRC is read with, by dimension (its own chunks elsewhere)
    chunk_policy: str = "regular"
    chunks: Mapping[str, int] = field(default_factory=dict)
    #: the data variables padded (all where empty)
    variables: tuple[str, ...] = ()
    #: what becomes of index coordinates along padded dimensions (pad2's ``coords=``)
    coords: CoordsPolicy = "extend"
    #: bytes a write may hold (also the largest block SRC is read in); None: nothing is
    #: computed (a source opened to be described)
    memory: int | None = None
    #: replace an existing DST (a zarr store, or an empty directory)
    overwrite: bool = False
    #: DST's zarr format (None: SRC's for a zarr SRC, else 3)
    zarr_format: int | None = None
    #: zarr's chunk grid for DST: ``"regular"``, or ``"rectilinear"`` (SRC's chunks copied
    #: as bytes, only the pads computed; zarr v3, zarr-python 3.2 or newer)
    chunk_grid: str = "regular"
    #: where the computation runs: a scheduler's address, a scheduler file, or a local
    #: cluster of this many single-threaded worker processes (none: local threads)
    scheduler: str | None = None
    scheduler_file: str | None = None
    workers: int | None = None
    #: seconds to wait for a scheduler
    scheduler_timeout: float = 10.0

    def __post_init__(self) -> None:
        if self.chunk_grid not in CHUNK_GRIDS:
            raise ValueError(
                f"chunk_grid must be 'regular' or 'rectilinear', got {self.chunk_grid!r}"
            )
        # normalised once, as pad2 takes them: a width as one int or a (before, after)
        # pair, one variable's name as a str
        object.__setattr__(self, "widths", {d: pair(w) for d, w in self.widths.items()})
        if isinstance(self.variables, str):
            object.__setattr__(self, "variables", (self.variables,))
        if not isinstance(self.chunks, Mapping):
            raise TypeError(
                f"chunks: the sizes SRC is read with, {{dim: size}}, got {self.chunks!r} "
                "(the padded chunks' policy is chunk_policy=)"
            )

    @property
    def rectilinear(self) -> bool:
        return self.chunk_grid == "rectilinear"


def modes_of(mode: str | Mapping[str, str], widths: Mapping[str, Any]) -> dict[str, str]:
    """The mode of each padded dimension: ``mode`` itself, or its entry in a
    ``{dim: mode}`` mapping (constant for a dimension it does not name)."""
    if isinstance(mode, Mapping):
        return {d: mode.get(d, "constant") for d in widths}
    return dict.fromkeys(widths, mode)


def pair(width: object) -> tuple[int, int]:
    """A dimension's width as ``(before, after)``: one int for both sides, or a pair."""
    if isinstance(width, tuple | list) and len(width) == 2:
        return operator.index(width[0]), operator.index(width[1])
    try:
        one = operator.index(width)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"a width is an int or a (before, after) pair, got {width!r}") from None
    return one, one
