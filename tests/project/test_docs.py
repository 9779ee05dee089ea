"""The documentation site's sources name what the code offers: the API reference lists
every public name (and nothing else), the accessor's methods and the command's parser.

The built site is checked in a browser by tests/project/test_site.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import daskpad
import daskpad.dask

xr = pytest.importorskip("xarray")
pytest.importorskip("hypothesis")  # daskpad.testing's strategies are public names too

import daskpad.testing  # noqa: E402
import daskpad.xarray  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _listed() -> dict[str, set[str]]:
    """Per ``currentmodule`` of docs/api.md, the names its autosummary tables list."""
    out: dict[str, set[str]] = {}
    module = None
    in_table = False
    for line in (DOCS / "api.md").read_text().splitlines():
        if m := re.match(r"\.\. currentmodule:: (\S+)", line):
            module, in_table = m.group(1), False
        elif line.startswith(".. autosummary::"):
            in_table = True
        elif in_table and re.match(r"   [A-Za-z_]", line):
            assert module is not None
            out.setdefault(module, set()).add(line.strip())
        elif in_table and line.startswith("```"):
            in_table = False
    return out


def _public(module: object) -> set[str]:
    return set(module.__all__) - {"__version__"}  # type: ignore[attr-defined]


@pytest.mark.parametrize("module", [daskpad, daskpad.dask, daskpad.xarray, daskpad.testing])
def test_reference_lists_every_public_name(module):
    listed = _listed().get(module.__name__, set())
    assert listed == _public(module), (
        f"docs/api.md lists {sorted(listed - _public(module))} that {module.__name__} does "
        f"not offer, and misses {sorted(_public(module) - listed)}"
    )


def test_reference_lists_the_accessor_and_its_methods():
    accessor = xr.Dataset.pad2  # (the accessor's class, read on the class)
    methods = {n for n in dir(accessor) if not n.startswith("_")}
    assert methods, "the pad2 accessor has no methods"
    want = {f"{cls}.pad2" for cls in ("Dataset", "DataArray")} | {
        f"{cls}.pad2.{m}" for cls in ("Dataset", "DataArray") for m in methods
    }
    assert _listed()["xarray"] == want


def test_command_reference_renders_the_parser_factory():
    page = (DOCS / "cli-reference.md").read_text()
    assert re.search(r":module: daskpad\.cli\n\s+:func: build_parser\n", page)
    from daskpad.cli import build_parser

    assert build_parser().prog  # a factory without arguments


def test_every_page_is_in_a_table_of_contents():
    """Each markdown page of docs/ is reachable from the index (or the user guide)."""
    tocs = "".join(
        (DOCS / page).read_text().split("```{toctree}")[-1]
        for page in ("index.md", "user-guide.md")
    )
    listed = set(re.findall(r"^([\w/-]+)$", tocs, flags=re.M))
    pages = {p.stem for p in DOCS.glob("*.md")} - {"index"}
    assert pages <= listed, sorted(pages - listed)


#: a path of the repository as the pages write it (in backticks or a link)
_PATH = re.compile(
    r"(?<![\w./-])((?:daskpad|tests|benchmarks|docs|ci|notebooks)/[\w./-]+\."
    r"(?:py|md|sh|ipynb|png|txt|json))"
)


def test_every_path_the_pages_name_exists():
    """A page that names a module, a test or a script names one that is there: the pages
    describe the code as it is (benchmarks/RESULTS.md and CHUNKINGS.md, recorded tables,
    name the commands that made them)."""
    root = DOCS.parent
    pages = [*DOCS.glob("*.md"), root / "README.md"]
    missing = {
        f"{page.relative_to(root)}: {path}"
        for page in pages
        for path in _PATH.findall(page.read_text())
        if not (root / path).exists()
    }
    assert not missing, sorted(missing)
