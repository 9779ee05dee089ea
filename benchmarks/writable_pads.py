"""What writable pad blocks would cost: every pad block a fresh copy, beside daskpad's
read-only pad blocks and dask.array.pad, pad + sum on threads.

    python benchmarks/writable_pads.py [--modes edge reflect mean:16] [--side 12000]
                                       [--chunk 500] [--width 3000] [--rounds 7]

daskpad hands out its pad blocks read-only (docs/api.md, "Functions that write into the
blocks"). This measures the copies alone, by swapping the kernel step that makes a pad
block read-only (``daskpad.core.kernels.read_only``) for one returning a copy it owns; the
dependencies that writable blocks would also need (each input block at the edge reaching
a function only after the pads had read it) are not built, so the copies are a lower
bound. Each round runs the unpadded sum, the two daskpad variants and dask.array.pad in
turn (the order rotating: ``benchmarks.bench_ahead.paired_ratios``); each ratio is the
median of the per-round ratios to the unpadded sum. ``constant`` and ``empty`` are not
measured, nor an ``edge_function``: their blocks are made read-only without that step.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
import numpy as np

import daskpad
import daskpad.core.kernels as kernels

# run as a script (python benchmarks/writable_pads.py): the scenario modules are the
# package ``benchmarks`` in the repository root (appended: daskpad stays the one found first)
sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_ahead import _dask_pad, paired_ratios, source

READ_ONLY = kernels.read_only


def owned(block: Any) -> Any:
    """A copy of a numpy block, writable and sharing memory with nothing."""
    return np.array(block) if type(block) is np.ndarray else block


def _with(step: Callable[[Any], Any], y: Any) -> float:
    kernels.read_only = step  # type: ignore[assignment]
    try:
        return float(y.sum().compute())
    finally:
        kernels.read_only = READ_ONLY  # type: ignore[assignment]


def _runs(x: Any, width: int, mode: str, kwargs: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """daskpad's pad + sum with read-only pad blocks and with copies, and dask.array.pad's
    (where it has the mode); ``paired_ratios`` adds the unpadded sum."""
    ours = daskpad.pad(x, width, mode=mode, **kwargs)
    theirs = _dask_pad(x, width, mode, **kwargs)
    runs: dict[str, Callable[[], Any]] = {
        "read-only": lambda: _with(READ_ONLY, ours),
        "copies": lambda: _with(owned, ours),
    }
    if theirs is not None:
        runs["dask"] = lambda: float(theirs.sum().compute())
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(
        description="What writable pad blocks would cost: pad + sum with every pad block a "
        "fresh copy, beside daskpad's read-only pad blocks and dask.array.pad."
    )
    parser.add_argument("--modes", nargs="+", default=["edge", "reflect", "mean:16"])
    parser.add_argument("--side", type=int, default=12000)
    parser.add_argument("--chunk", type=int, default=500)
    parser.add_argument("--width", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(
        f"pad {args.width} on {args.side}² float64 in chunks of {args.chunk}, pad + sum, "
        f"threads, median of {args.rounds} paired rounds (ratio to the unpadded sum)"
    )
    print("| mode | read-only (daskpad) | copies | dask.array.pad |\n|---|---|---|---|")
    for spec in args.modes:
        mode, _, stat = spec.partition(":")
        kwargs = {"stat_length": int(stat)} if stat else {}
        x = source(args.side, args.chunk)
        runs = _runs(x, args.width, mode, kwargs)
        with dask.config.set(scheduler="threads"):
            ratio, _base, _results = paired_ratios(x, runs, args.rounds)
        dask_ratio = f"{ratio['dask']:.2f}" if "dask" in ratio else "none"
        print(f"| {spec} | {ratio['read-only']:.2f} | {ratio['copies']:.2f} | {dask_ratio} |")


if __name__ == "__main__":
    main()
