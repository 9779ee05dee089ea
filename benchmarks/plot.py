"""Plot graph build time and tasks against number of chunks, daskpad vs dask.array.pad.

    python benchmarks/plot.py [results.json] [--out benchmarks/build_scaling.png]

Reads the JSON that ``benchmarks/run.py`` writes (its "build" section).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIBS = ("daskpad", "dask.array.pad")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", nargs="?", type=Path, default=HERE / "results.json")
    p.add_argument("--out", type=Path, default=HERE / "build_scaling.png")
    args = p.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = json.loads(args.results.read_text())
    rows = results["sections"]["build"]
    modes = sorted({r["mode"] for r in rows}, key=[r["mode"] for r in rows].index)
    fig, (ax_t, ax_n) = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"daskpad": "-", "dask.array.pad": "--"}
    for mode in modes:
        sub = sorted((r for r in rows if r["mode"] == mode), key=lambda r: r["chunks"])
        chunks = [r["chunks"] for r in sub]
        for lib in LIBS:
            label = f"{lib}, {mode}"
            ax_t.plot(
                chunks, [r[f"{lib} build s"] for r in sub], styles[lib], marker="o", label=label
            )
            ax_n.plot(
                chunks, [r[f"{lib} tasks"] for r in sub], styles[lib], marker="o", label=label
            )
    for ax, ylabel in ((ax_t, "graph build + materialise (s)"), (ax_n, "tasks added by the pad")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("chunks in the input array")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    ax_n.legend(fontsize=7)
    fig.suptitle(
        f"Graph size and build time: 2-D array, pad width 3\n{results['machine']}", fontsize=8
    )
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
