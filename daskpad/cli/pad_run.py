"""``daskpad pad SRC DST --width DIM=N ... --mode MODE``: :func:`daskpad.pipeline.plan_store`
with the command's options, then what it would write (``--dry-run``) or the write
(:meth:`daskpad.pipeline.StorePlan.write`), and one line saying what was written."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from daskpad.cli.errors import CliError
from daskpad.pipeline import PaddingRefused, StorePlan, plan_store

if TYPE_CHECKING:
    from daskpad.cli.request import Run
    from daskpad.pipeline import PadOptions
    from daskpad.pipeline.for_command import Location


def pad(run: Run) -> int:
    """Run ``daskpad pad`` (``--dry-run``: say what it would write); returns the exit
    status."""
    request = run.request
    plan = planned(request.options, request.padding_options())
    for stale in plan.leftovers:
        print(
            f"daskpad: note: {stale} is left from an interrupted run; delete it", file=sys.stderr
        )
    if request.dry_run:
        print(f"{plan.describe()}; --dry-run wrote nothing")
        return 0
    if plan.how():
        print(f"writing {plan.dst}{plan.how()}")

    def deleting(location: Location) -> None:
        run.deleted.append(location.text)
        print(
            f"daskpad: note: deleted the old {location.text} before writing (an object store "
            "has no rename: --overwrite is not atomic there)",
            file=sys.stderr,
        )

    progress = request.progress
    if progress is None:  # neither --progress nor --no-progress: when someone watches
        progress = sys.stderr.isatty()
    print(plan.write(progress=progress, stops=run.arrivals, deleting=deleting))
    return 0


def planned(options: PadOptions, asked: str) -> StorePlan:
    """:func:`daskpad.pipeline.plan_store`, a padding it refuses said with the options
    that ``asked`` for it."""
    try:
        return plan_store(options)
    except PaddingRefused as e:
        raise CliError(f"{asked}: {e}") from None
