"""README's Python examples run, and the values their comments show are the values."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import dask
import numpy as np
import pytest

xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")

README = Path(__file__).resolve().parent.parent / "README.md"

# the big arrays of the text, made small to compute in a test
SMALL = [("20_000", "2_000"), ("chunks=2_000", "chunks=200"), ('memory="1GB"', 'memory="1MB"')]


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def _dataset() -> xr.Dataset:
    """A small global dataset, as README's ``ds``: 2.5-degree longitudes from 0."""
    lat = np.arange(-88.75, 90.0, 2.5)
    lon = np.arange(0.0, 360.0, 2.5)
    t = np.cos(np.deg2rad(lat))[:, None] * np.sin(np.deg2rad(lon))[None, :]
    return xr.Dataset({"t": (("lat", "lon"), t)}, coords={"lat": lat, "lon": lon}).chunk(36)


def _claims(block: str) -> list[tuple[str, str]]:
    """``(expression, shown value)`` for each line ``expression  # value: ...`` whose
    comment starts with a literal Python (or numpy-printed) value."""
    out = []
    for line in block.splitlines():
        code, sep, comment = line.partition("  # ")
        value = comment.split(":")[0].strip()
        if sep and value[:1] in "([" and not code.lstrip().startswith(("import", "@")):
            out.append((code.strip(), value))
    return out


def test_readme_has_the_examples_this_file_runs():
    blocks = python_blocks()
    assert len(blocks) >= 4
    assert any("daskpad.pad(" in b for b in blocks) and any("pad2(" in b for b in blocks)


@pytest.mark.xfail(
    dask.config.get("array.query-planning", None) is True,
    reason="README's rolling mean: xarray's rolling calls numpy's result_type on the dask "
    "array, and dask's array-expr does not implement __array_function__ (dask 2026.8)",
    raises=NotImplementedError,
    strict=True,
)
def test_readme_examples_run_in_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the examples write padded.zarr where they run
    space: dict = {"np": np, "ds": _dataset()}
    for block in python_blocks():
        for big, small in SMALL:
            block = block.replace(big, small)
        exec(compile(block, str(README), "exec"), space)
    assert (tmp_path / "padded.zarr").is_dir()
    # the writer examples: each store holds the padded dataset
    for store in ("padded-any-chunks.zarr", "padded-regular.zarr"):
        with xr.open_zarr(tmp_path / store) as written:
            xr.testing.assert_allclose(written.load(), space["padded"].load())
    # the halo by dimension name is the call by axis on the data
    by_axis = space["daskpad"].map_overlap(
        space["smooth"], space["ds"].t.data, 1, {0: "symmetric", 1: "wrap"}
    )
    np.testing.assert_array_equal(space["blurred"].t.compute().values, by_axis.compute())
    # block 2's claim: the user function gives what numpy.pad gives
    a = space["x"].compute()
    got = space["daskpad"].pad(space["x"], 16, space["step_away"]).compute()
    np.testing.assert_array_equal(got, np.pad(a, 16, space["step_away"]))


def test_readme_comments_show_the_values(tmp_path):
    """Each ``expr  # value`` line, evaluated after its block ran (up to it) at the text's
    own sizes (nothing big is computed: the lines compared are lazy)."""
    space: dict = {"np": np, "ds": _dataset()}
    checked = 0
    for block in python_blocks():
        claims = _claims(block)
        if not claims:
            continue
        lines = block.splitlines()
        exprs = {expr for expr, _ in claims}
        upto = max(i for i, line in enumerate(lines) if line.partition("  # ")[0].strip() in exprs)
        # the block up to its last claim, without the lines that compute or write
        lazy = "\n".join(
            line
            for line in lines[: upto + 1]
            if ".compute()" not in line and "to_zarr" not in line
        )
        exec(compile(lazy, str(README), "exec"), space)
        for expr, shown in claims:
            got = eval(expr, space)
            if isinstance(got, np.ndarray):
                want = np.array(ast.literal_eval(re.sub(r"(?<=\d)\.(?=[\s,\]])", ".0", shown)))
                np.testing.assert_allclose(got, want)
            else:
                assert got == ast.literal_eval(shown), (expr, got, shown)
            checked += 1
    assert checked >= 2
