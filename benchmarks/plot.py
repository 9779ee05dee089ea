"""Plot graph build time and tasks against number of chunks, daskpad vs dask.array.pad.

    python benchmarks/plot.py [results.json] [--out benchmarks/build_scaling.png]

Reads the JSON that ``benchmarks/run.py build --json FILE`` writes (its "build" rows).
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
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    panels = [
        ("call s", "the pad call (s)"),
        ("build s", "pad call + graph materialisation (s)"),
        ("tasks", "tasks added by the pad"),
    ]
    styles = {"daskpad": "-", "dask.array.pad": "--"}
    for mode in modes:
        sub = sorted((r for r in rows if r["mode"] == mode), key=lambda r: r["chunks"])
        for lib in LIBS:
            for ax, (column, _) in zip(axes, panels):
                # cells not measured (None) or unsupported (a word) leave a gap
                points = [
                    (r["chunks"], r.get(f"{lib} {column}"))
                    for r in sub
                    if isinstance(r.get(f"{lib} {column}"), (int, float))
                ]
                if points:
                    xs, ys = zip(*points)
                    ax.plot(xs, ys, styles[lib], marker="o", label=f"{lib}, {mode}")
    for ax, (_, ylabel) in zip(axes, panels):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("chunks in the input array")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=6)
    fig.suptitle(
        f"Graph size and build time: 2-D array, pad width 3\n{results['machine']}", fontsize=8
    )
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
