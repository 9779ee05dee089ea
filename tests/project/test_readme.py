"""README's examples run, the values their comments show are the values, and README stays
what a visitor needs first (the documentation site has the rest)."""

from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path

import numpy as np
import pytest
from helpers.markers import WRITES

xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")

from daskpad.cli import main  # noqa: E402  (needs xarray)

README = Path(__file__).resolve().parents[2] / "README.md"

# the big arrays of the text, made small to compute in a test
SMALL = [("20_000", "2_000"), ("chunks=2_000", "chunks=200"), ('memory="1GB"', 'memory="1MB"')]


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


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


def _commands() -> list[list[str]]:
    """README's ``daskpad ...`` command lines, as argument lists (without ``daskpad``)."""
    lines = [line for block in blocks("bash") for line in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("daskpad ")]


def test_readme_is_short_and_has_one_example_each():
    assert len(README.read_bytes()) < 8 * 1024
    python = blocks("python")
    assert any("daskpad.pad(" in b for b in python) and any(".pad2(" in b for b in python)
    assert [argv[0] for argv in _commands()][:1] == ["pad"]
    assert "sphinx-build -W -b html docs docs/_build/html" in README.read_text()


@WRITES
def test_readme_examples_run_in_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the examples write padded.zarr where they run
    space: dict = {"np": np, "ds": _dataset()}
    for block in blocks("python"):
        for big, small in SMALL:
            block = block.replace(big, small)
        exec(compile(block, str(README), "exec"), space)
    with xr.open_zarr(tmp_path / "padded.zarr") as written:
        xr.testing.assert_allclose(written.load(), space["padded"].load())


@WRITES
def test_readme_commands_run(tmp_path, monkeypatch, capsys):
    """The command lines, on a small SRC.zarr of README's ``ds``: DST is ``pad2`` of SRC."""
    monkeypatch.chdir(tmp_path)
    ds = _dataset()
    ds.to_zarr("SRC.zarr")
    for argv in _commands():
        assert main(argv) == 0, (argv, capsys.readouterr())
    padded = ds.pad2(lat=2, lon=(3, 5), mode={"lon": "wrap", "lat": "symmetric"})
    with xr.open_zarr("DST.zarr") as written:
        xr.testing.assert_allclose(written.load(), padded.load())


def test_readme_comments_show_the_values():
    """Each ``expr  # value`` line, evaluated after its block ran (up to it) at the text's
    own sizes (nothing big is computed: the lines compared are lazy)."""
    space: dict = {"np": np, "ds": _dataset()}
    checked = 0
    for block in blocks("python"):
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
    assert checked >= 3
