"""``daskpad info SRC [--width ...]``: SRC's dimensions, chunks and sizes, how each variable
is read and stored, and, given ``--width``, what the padding would produce, nothing
computed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from daskpad.cli.encoding import decoded
from daskpad.cli.io import ARRAY_VARIABLE, Modes, Widths, describe, zarr_format_of
from daskpad.cli.request import Request, Run
from daskpad.cli.source import PaddedSource, open_and_pad
from daskpad.xarray.store_numbers import StoredPads


def info(run: Run) -> int:
    """Run ``daskpad info``; returns the exit status."""
    show(open_and_pad(run.request), run.request)
    return 0


def show(opened: PaddedSource, request: Request) -> None:
    """Print SRC as ``opened`` and, where padded, the padding (``daskpad pad --dry-run``
    prints this too)."""
    src, ds = opened.src, opened.ds
    fmt = f"zarr v{zarr_format_of(src)}" if opened.kind == "zarr" else "netCDF"
    title = f"{src} ({fmt}), {len(ds.data_vars)} data variable(s)"
    print(describe(ds, title, decoded=decoded(ds)))
    if opened.padded is not None:
        widths = request.widths
        title = (
            f"padded with --width {Widths(widths)} --mode {Modes(request.mode, widths)} "
            "(nothing computed):"
        )
        print(describe(opened.padded, title, widths, request.modes))
        print(_made(opened.how))


def _made(how: Mapping[Any, StoredPads]) -> str:
    """Per padded variable, which dimensions' pads copy stored numbers and which are
    computed from decoded values and encoded."""
    lines = ["pads, per variable (copied: stored numbers; computed: from decoded values):"]
    width = max((len(str(n)) for n in how), default=0)
    for name, each in how.items():
        said = [
            f"{what} along {', '.join(map(str, dims))}"
            for what, dims in (("copied", each.copied), ("computed", each.computed))
            if dims
        ]
        shown = "(array)" if name == ARRAY_VARIABLE else str(name)
        lines.append(f"  {shown:<{width}}  {'; '.join(said)}")
    return "\n".join(lines)
