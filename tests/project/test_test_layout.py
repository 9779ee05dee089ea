"""The layout of the tests: what test modules share lives in tests/helpers/ or a conftest.py,
so no test module imports another, and each fixture name is defined once under tests/."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _parsed() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(), str(path)) for path in sorted(TESTS.rglob("*.py"))}


def _imported(tree: ast.Module) -> set[str]:
    """The names of the modules ``tree`` imports, absolute or relative, each dotted part."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.update(alias.name.split("."))
        elif isinstance(node, ast.ImportFrom):
            names.update((node.module or "").split("."))
            names.update(alias.name for alias in node.names)  # from . import test_x
    return names


def _is_fixture(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) in ("pytest.fixture", "fixture")


def test_no_test_module_imports_another():
    test_modules = {path.stem for path in TESTS.rglob("test_*.py")}
    found = []
    for path, tree in _parsed().items():
        if path.name.startswith("test_"):
            others = (_imported(tree) & test_modules) - {path.stem}
            found += [f"{path.relative_to(TESTS)} imports {name}" for name in sorted(others)]
    assert not found, "shared code belongs in tests/helpers/ or a conftest.py:\n" + "\n".join(
        found
    )


def test_each_fixture_is_defined_once():
    where = defaultdict(list)
    for path, tree in _parsed().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                _is_fixture(d) for d in node.decorator_list
            ):
                where[node.name].append(f"{path.relative_to(TESTS)}:{node.lineno}")
    twice = {name: places for name, places in where.items() if len(places) > 1}
    assert not twice, f"fixtures defined in more than one place: {twice}"


def test_the_checks_see_the_tests():
    """(The checks above read something: the test modules and a shared fixture.)"""
    trees = _parsed()
    assert len([path for path in trees if path.name.startswith("test_")]) > 30
    assert any(
        node.name == "sharded" and any(_is_fixture(d) for d in node.decorator_list)
        for node in ast.walk(trees[TESTS / "conftest.py"])
        if isinstance(node, ast.FunctionDef)
    )
