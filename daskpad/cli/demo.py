"""``daskpad demo``: a small synthetic global dataset padded by the command in a few ways,
each result compared with numpy.pad."""

from __future__ import annotations

import shlex
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daskpad.cli.errors import CliError
from daskpad.pipeline import pad_store
from daskpad.pipeline.for_command import default_memory, describe, located, open_source

if TYPE_CHECKING:
    from daskpad.cli.request import Run


def _demo_dataset() -> Any:
    """The demo's input: a synthetic global 2-m temperature, 12 months on a 4 x 5 degree
    grid."""
    import numpy as np
    import xarray as xr

    lat = np.arange(-88.0, 90.0, 4.0)
    lon = np.arange(0.0, 360.0, 5.0)
    time_ = 15 + 30 * np.arange(12)
    t, y, x = np.meshgrid(time_, np.deg2rad(lat), np.deg2rad(lon), indexing="ij")
    t2m = (
        288
        - 30 * np.sin(y) ** 2
        + 5 * np.cos(x) * np.cos(y)
        + 8 * np.sin(2 * np.pi * t / 360) * np.sin(y)
    )
    return xr.Dataset(
        {"t2m": (("time", "lat", "lon"), t2m.astype("float32"), {"units": "K"})},
        coords={
            "time": ("time", time_, {"units": "days since 2000-01-01"}),
            "lat": lat,
            "lon": lon,
        },
        attrs={"title": "daskpad demo: a synthetic global 2-m temperature"},
    )


def demo(run: Run) -> int:
    """``daskpad demo [DIR]``: make a small dataset, pad it with ``daskpad pad`` in a few
    ways, and compare each result with numpy.pad; returns the exit status."""
    import numpy as np
    import zarr

    start = time.perf_counter()
    directory = run.request.directory
    where = Path(directory) if directory else Path(tempfile.mkdtemp(prefix="daskpad-demo-"))
    where.mkdir(parents=True, exist_ok=True)
    src = where / "input.zarr"
    if src.exists():
        raise CliError(f"{src} already exists; give daskpad demo a new or empty DIR")

    ds = _demo_dataset()
    ds.chunk(time=4, lat=15, lon=24).to_zarr(src, zarr_format=3, consolidated=False)
    print(f"daskpad demo: writing into {where}")
    print(
        describe(open_source(located(str(src), {}, "SRC"), "zarr"), f"made {src} (zarr v3)") + "\n"
    )

    # (DST, the options as typed, and as the library takes them)
    cases: list[tuple[str, str, dict[str, Any]]] = [
        ("lon_wrap.zarr", "--width lon=3 --mode wrap", {"widths": {"lon": 3}, "mode": "wrap"}),
        (
            "lat_symmetric.zarr",
            "--width lat=2 --mode symmetric",
            {"widths": {"lat": 2}, "mode": "symmetric"},
        ),
        (
            "mean.zarr",
            "--width lat=1 --width lon=2:4 --mode mean --stat-length 3",
            {"widths": {"lat": 1, "lon": (2, 4)}, "mode": "mean", "stat_length": 3},
        ),
        (
            "time_ramp.zarr",
            "--width time=0:3 --mode linear_ramp --end-value 270",
            {"widths": {"time": (0, 3)}, "mode": "linear_ramp", "end_values": 270},
        ),
        (
            "global.zarr",
            "--width lat=2 --width lon=3 --mode lat=symmetric --mode lon=wrap",
            {"widths": {"lat": 2, "lon": 3}, "mode": {"lat": "symmetric", "lon": "wrap"}},
        ),
    ]
    stored = np.asarray(zarr.open_array(src / "t2m", mode="r")[...])
    for name, typed, asked in cases:
        print(f"$ daskpad pad {shlex.quote(str(src))} {shlex.quote(str(where / name))} {typed}")
        asked = dict(asked)
        widths, mode = asked.pop("widths"), asked.pop("mode")
        print(
            pad_store(str(src), str(where / name), widths, mode, memory=default_memory(), **asked)
        )
        pairs = [_pair(widths.get(d, 0)) for d in ("time", "lat", "lon")]
        if isinstance(mode, dict):  # a mode per dimension: numpy.pad once per axis, in order
            expected = stored
            for k, d in enumerate(("time", "lat", "lon")):
                each = [(0, 0)] * 3
                each[k] = pairs[k]
                expected = np.pad(expected, each, mode=mode.get(d, "constant"), **asked)
        else:
            expected = np.pad(stored, pairs, mode=mode, **asked)
        got = zarr.open_array(where / name / "t2m", mode="r")
        lon_out = np.asarray(zarr.open_array(where / name / "lon", mode="r")[...])
        same = np.array_equal(np.asarray(got[...]), expected)
        print(
            f"  t2m {stored.shape} -> {got.shape} in zarr chunks {got.chunks}; equal to "
            f"numpy.pad: {same}; lon {lon_out[0]:g} .. {lon_out[-1]:g}\n"
        )
    seconds = time.perf_counter() - start
    print(f"done in {seconds:.1f} s. Try: daskpad info {src} --width lon=3 --mode wrap")
    return 0


def _pair(width: int | tuple[int, int]) -> tuple[int, int]:
    return (width, width) if isinstance(width, int) else width
