"""Draw ``docs/gallery.png``: every padding mode, computed by ``daskpad.pad``.

Run from the repository root::

    python docs/gallery.py            # writes docs/gallery.png
    python docs/gallery.py out.png    # or anywhere else

Each panel is ``daskpad.pad`` of the same small chunked image, computed, and checked
against ``numpy.pad`` before it is drawn (the script fails if they differ), so the picture
cannot drift from what the code does. The white frame marks the original image; everything
outside it is padding.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle

import daskpad

WIDTH = 6  # on every side, of a 10 x 14 image


def image() -> np.ndarray:
    """A small asymmetric picture: a gradient with a bright "F", so every reflection,
    wrap and statistic shows."""
    rows, cols = np.mgrid[0:10, 0:14]
    img = 0.25 * rows / 9 + 0.35 * cols / 13
    img[2:8, 3] = 1.0  # the stem of the F
    img[2, 3:9] = 1.0  # its top bar
    img[4, 3:7] = 0.9  # its middle bar
    img[6:9, 10:12] = 0.0  # a dark block near the right edge
    return img


def fill_stripes(vector: np.ndarray, pad: tuple[int, int], iaxis: int, kwargs: Any) -> None:
    """A user function, numpy.pad style: alternate the pad between two values."""
    before, after = pad
    stripes = np.resize(np.array([0.0, 1.0]), len(vector))
    vector[:before] = stripes[:before]
    vector[len(vector) - after :] = stripes[len(vector) - after :]


# (title, mode, keyword arguments, pad_width); pad_width None means WIDTH everywhere.
CASES: list[tuple[str, Any, dict[str, Any], Any]] = [
    ("constant", "constant", {"constant_values": 0.5}, None),
    ("edge", "edge", {}, None),
    ("linear_ramp", "linear_ramp", {"end_values": 0.0}, None),
    ("maximum\nstat_length=3", "maximum", {"stat_length": 3}, None),
    ("mean", "mean", {}, None),
    ("median", "median", {}, None),
    ("minimum\nstat_length=3", "minimum", {"stat_length": 3}, None),
    ("reflect", "reflect", {}, None),
    ("reflect\nreflect_type='odd'", "reflect", {"reflect_type": "odd"}, None),
    ("symmetric", "symmetric", {}, None),
    ("symmetric\nreflect_type='odd'", "symmetric", {"reflect_type": "odd"}, None),
    ("wrap", "wrap", {}, None),
    ("wrap, wider than the image\n((15, 15), (18, 18))", "wrap", {}, ((15, 15), (18, 18))),
    ("reflect, wider than the image\n((15, 15), (18, 18))", "reflect", {}, ((15, 15), (18, 18))),
    ("a function\n(numpy's calling convention)", fill_stripes, {}, None),
    ("empty\n(values undefined)", "empty", {}, None),
]


def figure(modes: list[Any] | None = None, ncols: int = 4) -> Any:
    """The panels of the cases whose mode is in ``modes`` (all cases for None), in a
    matplotlib figure of ``ncols`` columns."""
    cases = [case for case in CASES if modes is None or case[1] in modes]
    nrows = -(-len(cases) // ncols)
    size = (12, 11.5) if modes is None else (3 * ncols, 3 * nrows)
    fig, axes = plt.subplots(nrows, ncols, figsize=size, layout="constrained", squeeze=False)
    for ax in axes.flat[len(cases) :]:
        ax.set_axis_off()
    for ax, case in zip(axes.flat, cases):
        _panel(ax, *case)
    if modes is None:
        fig.suptitle(
            "daskpad.pad, every mode: a 10 x 14 image in (4, 5) chunks, padded by 6 "
            "(white frame: the original)",
            fontsize=12,
        )
    return fig


def _panel(ax: Any, title: str, mode: Any, kwargs: dict[str, Any], pad_width: Any) -> None:
    """One case, computed by daskpad.pad, checked against numpy.pad and drawn on ``ax``."""
    img = image()
    x = da.from_array(img, chunks=(4, 5))
    widths = ((WIDTH, WIDTH), (WIDTH, WIDTH)) if pad_width is None else pad_width
    padded = daskpad.pad(x, widths, mode=mode, **kwargs).compute()
    if mode == "empty":
        # np.empty's contents are whatever memory held: draw only the shape.
        shown = np.full(padded.shape, np.nan)
        (b0, _), (b1, _) = widths
        shown[b0 : b0 + img.shape[0], b1 : b1 + img.shape[1]] = img
        ax.set_facecolor("0.9")  # NaN pixels are transparent: the hatch shows through
        ax.patch.set_hatch("//")
        ax.patch.set_edgecolor("0.6")
    else:
        expected = np.pad(img, widths, mode=mode, **kwargs)
        # exact, except mean over a slab of several chunks (summed block by block)
        same = np.allclose if mode == "mean" else np.array_equal
        if not same(padded, expected):
            raise AssertionError(f"daskpad.pad differs from numpy.pad for {title!r}")
        shown = padded
    ax.imshow(shown, cmap="viridis", interpolation="nearest")
    (b0, _), (b1, _) = widths
    ax.add_patch(
        Rectangle((b1 - 0.5, b0 - 0.5), img.shape[1], img.shape[0], fill=False, ec="white", lw=2)
    )
    ax.set_title(title, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])


def draw(path: Path) -> None:
    """Write the figure of every case to ``path``."""
    fig = figure()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else Path(__file__).with_name("gallery.png")
    draw(path)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
