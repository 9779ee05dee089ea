"""``daskpad`` as the installed command runs it, with faults the tests inject.

    python tests/helpers/cli_launcher.py ARGS...

With ``DASKPAD_TESTING_BLOCK_HOOK=fail`` in the environment every block of the data to
write raises; with ``sleep:S`` every block sleeps S seconds first (a slow run to stop). The
package is patched here, before ``daskpad.cli.main`` runs: the product has no test hooks.
The hook is defined in ``__main__``, so a cluster's workers receive it by value.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from _daskpad_launcher import launch, load_command

HOOK_ENV = "DASKPAD_TESTING_BLOCK_HOOK"
FAILURE = f"{HOOK_ENV}=fail: failing this block on purpose"
#: the argv prefix that runs this launcher
COMMAND = [sys.executable, str(Path(__file__).resolve())]


def hooked(env: dict[str, str] | None) -> bool:
    """Whether ``env`` asks for a hook (then the launcher must run the command)."""
    return bool(env and env.get(HOOK_ENV))


def _block(block: Any, action: str) -> Any:
    if action == "fail":
        raise RuntimeError(FAILURE)
    time.sleep(float(action.partition(":")[2]))
    return block


def _hooked(ds: Any, action: str) -> Any:
    """``ds`` (a shallow copy) with the hook in every block of its dask-backed data
    variables."""
    out = ds.copy(deep=False)
    for name in out.data_vars:
        data = out[name].data
        if hasattr(data, "map_blocks"):
            out[name].data = data.map_blocks(_block, action, dtype=data.dtype, meta=data._meta)
    return out


def _with_hook(prepare: Any, action: str) -> Any:
    def prepared(ds: Any, *args: Any, **kwargs: Any) -> Any:
        return _hooked(prepare(ds, *args, **kwargs), action)

    return prepared


def _planned_with_hook(plan: Any, action: str) -> Any:
    def planned(ds: Any, *args: Any, **kwargs: Any) -> Any:
        return plan(_hooked(ds, action), *args, **kwargs)

    return planned


def _array_planned_with_hook(plan: Any, action: str) -> Any:
    def planned(x: Any, *args: Any, **kwargs: Any) -> Any:
        return plan(x.map_blocks(_block, action, dtype=x.dtype, meta=x._meta), *args, **kwargs)

    return planned


def _hooked_command() -> Any:
    main = load_command()  # (as the installed command loads it)
    import daskpad.pipeline.store_plans as pipeline  # (where daskpad pad plans its writes)

    action = os.environ.get(HOOK_ENV)
    if action:
        # the data written: that of the dataset written (_prepared) and the blocks the tile
        # plans hand the writer (plan_tiles, plan_array_tiles)
        pipeline._prepared = _with_hook(pipeline._prepared, action)
        pipeline.plan_tiles = _planned_with_hook(pipeline.plan_tiles, action)
        pipeline.plan_array_tiles = _array_planned_with_hook(pipeline.plan_array_tiles, action)
    return main


if __name__ == "__main__":
    sys.exit(launch(_hooked_command))
