"""The ``daskpad`` command line: ``daskpad demo``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any


def _demo(args: argparse.Namespace) -> int:
    import dask.array as da
    import numpy as np

    from . import pad

    data = np.arange(12, dtype=np.int64).reshape(3, 4)
    x = da.from_array(data, chunks=2)
    print(f"input: a {x.shape} dask array in chunks {x.chunks}\n{data}\n")
    cases: tuple[tuple[str, dict[str, Any]], ...] = (
        ("reflect", {"reflect_type": "odd"}),
        ("wrap", {}),
        ("linear_ramp", {"end_values": -1}),
        ("median", {"stat_length": 2}),
    )
    for mode, kwargs in cases:
        y = pad(x, ((1, 2), (3, 1)), mode=mode, **kwargs)
        same = np.array_equal(y.compute(), np.pad(data, ((1, 2), (3, 1)), mode=mode, **kwargs))
        print(f"mode={mode!r} {kwargs or ''} -> shape {y.shape}, chunks {y.chunks}")
        print(f"{y.compute()}\nequal to numpy.pad: {same}\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="daskpad", description="numpy.pad on dask arrays")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="pad a small array with a few modes and show it")
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
