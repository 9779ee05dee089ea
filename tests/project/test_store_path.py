"""One path to a store: every write is a plan of one of two kinds, each with the one method
that writes it; one module writes the documents of a new store; and the command is a thin
shell, its modules importing each other at most four deep."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "daskpad"

#: the plans of a write, by kind (tiles of a regular grid; chunks copied or computed), and
#: the pipeline's plan of a store padded into another (SRC opened, DST checked, and one of
#: the two)
PLANS = {
    "TilePlan": "store/writing/tile_plans.py",
    "ChunkPlan": "store/writing/chunk_plans.py",
    "StorePlan": "pipeline/store_plans.py",
}
#: the one module that writes a new store's documents
METADATA = "store/writing/metadata.py"
#: how deep the command's modules may import each other
CLI_FLOORS = 4


def _modules() -> dict[str, ast.Module]:
    return {
        str(p.relative_to(PACKAGE)): ast.parse(p.read_text(), str(p))
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_each_plan_has_a_describe_and_a_write_and_no_other_writer_orchestrates():
    found = {}
    for path, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                methods = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
                if "write" in methods:
                    found[node.name] = (path, {"describe", "write"} <= methods)
    assert found == {name: (path, True) for name, path in PLANS.items()}
    store = {p: t for p, t in _modules().items() if p.startswith("store/")}
    functions = [
        f"{p}:{n.name}"
        for p, t in store.items()
        for n in t.body
        if isinstance(n, ast.FunctionDef) and n.name.startswith("write")
        and n.name not in ("write_chunk", "write_region", "write_owned")
    ]  # fmt: skip
    assert functions == []  # (a chunk's, a region's and a block's writes are tasks, not plans)


def _calls(tree: ast.Module, name: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and (getattr(n.func, "attr", None) == name or getattr(n.func, "id", None) == name)
    ]


def test_one_module_writes_a_new_stores_documents():
    """xarray's ``to_zarr(..., compute=False)`` of a whole dataset and zarr's
    ``create_array`` are called in one module; a region write is a write of values."""
    writers = set()
    for path, tree in _modules().items():
        for call in _calls(tree, "to_zarr"):
            words = {k.arg for k in call.keywords}
            if "compute" in words and "region" not in words:
                writers.add(path)
        if _calls(tree, "create_array"):
            writers.add(path)
    assert writers == {METADATA}


@cache
def _runtime_imports(path: str) -> frozenset[str]:
    """The daskpad.cli modules ``path`` (under cli/) imports when it runs (imports under
    ``if TYPE_CHECKING:`` are for the type checker only)."""
    tree = _modules()[path]
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("daskpad.cli."):
            names.add(node.module.removeprefix("daskpad.cli."))
        if isinstance(node, ast.Import):
            names.update(
                a.name.removeprefix("daskpad.cli.")
                for a in node.names
                if a.name.startswith("daskpad.cli.")
            )
    return frozenset(names)


@cache
def _floors(module: str) -> int:
    below = _runtime_imports(f"cli/{module}.py")
    return 1 + max((_floors(m) for m in below), default=0)


def test_the_command_is_at_most_four_floors_deep():
    modules = [p.stem for p in (PACKAGE / "cli").glob("*.py") if p.stem != "__init__"]
    floors = {m: _floors(m) for m in modules}
    assert max(floors.values()) <= CLI_FLOORS, floors
    assert floors["command"] == max(floors.values())  # (main is the top floor)
