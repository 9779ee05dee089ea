"""SRC opened lazily and padded as a :class:`daskpad.cli.request.Request` asks: the step
``daskpad pad`` and ``daskpad info`` share (:func:`open_and_pad`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from daskpad.cli.budget import open_in_pieces
from daskpad.cli.errors import CliError, with_notes
from daskpad.cli.io import (
    check_dims,
    decode,
    locate_or_explain,
    open_source,
    select_variables,
    source_kind,
)
from daskpad.cli.request import Request
from daskpad.store.places.commit import local_threads
from daskpad.store.places.locations import Location
from daskpad.xarray.store_numbers import StoredPads, pad_stored


@dataclass(frozen=True)
class PaddedSource:
    """SRC opened and padded, the datasets as stored
    (:func:`daskpad.xarray.store_numbers.pad_stored`)."""

    #: where SRC is
    src: Location
    #: its kind: ``zarr``, or the netCDF format's
    kind: str
    #: the input dataset (its chunks as read: ``--chunks``, within ``--memory``)
    ds: Any
    #: the padded dataset, lazy; None without ``--width`` (daskpad info)
    padded: Any
    #: how each padded variable's pads are made
    how: Mapping[Any, StoredPads]


def open_and_pad(
    request: Request, check: Callable[[Location], None] | None = None
) -> PaddedSource:
    """Open SRC lazily and pad it; ``check(src)``, if given, runs before SRC is opened."""
    src = locate_or_explain(request.src, request.src_options, "SRC")
    if check is not None:
        check(src)
    kind = source_kind(src)
    names = list(request.variables)
    ds = own = select_variables(open_source(src, kind), names)
    check_dims("--width", request.widths, ds)
    check_dims("--chunks", request.chunks, ds)
    if request.chunks:
        # Asked-for chunk sizes are read that way; padding then keeps them regular.
        ds = select_variables(open_source(src, kind, request.chunks), names)
    if request.memory is not None:  # daskpad pad (info computes nothing)
        # blocks over the budget are read in pieces, or refused
        threads = request.workers or local_threads()
        ds = open_in_pieces(src, kind, ds, own, request.chunks, request.memory, threads)
    if not request.widths:
        return PaddedSource(src, kind, ds, None, {})
    try:
        padded, how = pad_stored(
            ds,
            decode(ds, src),
            request.widths,
            mode=request.mode,
            coords=request.coords,
            # on a rectilinear grid the pads keep chunks of their own
            chunks=None if request.rectilinear else request.chunk_policy,
            **request.kwargs,
        )
    except (ValueError, TypeError, OverflowError) as e:
        # refused when the graph is built (a fill that does not fit the dtype, a pad of
        # more blocks than the limit): say which options asked for it
        raise CliError(f"{request.padding_options()}: {with_notes(e)}") from None
    return PaddedSource(src, kind, ds, padded, how)
