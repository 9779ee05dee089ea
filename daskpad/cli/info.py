"""``daskpad info SRC [--width ...]``: SRC's dimensions, chunks and sizes, how each variable
is read and stored, and, given ``--width``, what the padding would produce, nothing
computed (:func:`daskpad.pipeline.open_padded`, :func:`daskpad.pipeline.show_source`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from daskpad.cli.errors import CliError
from daskpad.pipeline import PaddingRefused, open_padded, show_source

if TYPE_CHECKING:
    from daskpad.cli.request import Run


def info(run: Run) -> int:
    """Run ``daskpad info``; returns the exit status."""
    request = run.request
    try:
        opened = open_padded(request.options)
    except PaddingRefused as e:
        raise CliError(f"{request.padding_options()}: {e}") from None
    print(show_source(opened))
    return 0
