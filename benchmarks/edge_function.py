"""A user pad function, whole lines or edges only: time and peak memory of pad + sum.

    python benchmarks/edge_function.py [--side 15600] [--chunk 1000] [--width 16] [--repeat 3]

Pads a lazily generated float32 array (``common.lazy_source``, 0.97 GB at the default
size) with ``common.user_pad`` (a ramp away from each edge; it reads one value next to each
edge and writes only the pads) and sums it on dask's threaded scheduler, each case in a
fresh process so that peak memory is its own: "unpadded" (the same sum without padding),
"daskpad function" (the function as it is: whole lines, axis after axis), "daskpad
edge_function" (``daskpad.edge_function(user_pad, reads=1)``: pads from the edge chunks)
and "dask.array.pad function". Runs ``--repeat`` rounds of all four cases (paired: each
round's ratios divide by that round's unpadded time) and prints, per case, the median
seconds, the largest peak extra resident MB and the median of the rounds' time ratios.
The cases are built in ``benchmarks/bench_edge_function.py``, which also holds them as asv
benchmarks (``asv run --python=same --quick``; see ``asv.conf.json``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

# run as a script (python benchmarks/edge_function.py): the scenario modules are the
# package ``benchmarks`` in the repository root (appended: daskpad stays the one found
# first)
sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_edge_function import CASES, one


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--side", type=int, default=15_600)
    parser.add_argument("--chunk", type=int, default=1_000)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3, help="paired rounds (default 3)")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        one(args.case, args.side, args.chunk, args.width)
        return 0
    print(f"{args.side} x {args.side} float32 in chunks of {args.chunk}, pad {args.width}")
    seconds: dict[str, list[float]] = {case: [] for case in CASES}
    mbs: dict[str, list[float]] = {case: [] for case in CASES}
    ratios: dict[str, list[float]] = {case: [] for case in CASES}
    for _round in range(args.repeat):
        for case in CASES:
            s, mb = _run(case, args)
            seconds[case].append(s)
            mbs[case].append(mb)
            ratios[case].append(s / seconds["unpadded"][-1])
    print(f"median of {args.repeat} paired rounds")
    print("| case | seconds | peak extra MB | time ratio | ratios of the rounds |")
    print("|---|---|---|---|---|")
    for case in CASES:
        spread = ", ".join(f"{r:.2f}" for r in ratios[case])
        print(
            f"| {case} | {statistics.median(seconds[case]):.2f} | {max(mbs[case]):.0f} "
            f"| {statistics.median(ratios[case]):.2f}x | {spread} |",
            flush=True,
        )
    return 0


def _run(case: str, args: argparse.Namespace) -> tuple[float, float]:
    """One case in a fresh process: (seconds, peak extra resident MB)."""
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--case",
            case,
            "--side",
            str(args.side),
            "--chunk",
            str(args.chunk),
            "--width",
            str(args.width),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[-2]), float(out[-1])


if __name__ == "__main__":
    sys.exit(main())
