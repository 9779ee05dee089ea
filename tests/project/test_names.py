"""Each name in the package says one thing: no two modules of ``daskpad/`` share a
basename (``__init__.py`` aside), no two classes share a name, and no module is named
for a past participle (a module holds things; its name says which)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "daskpad"


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py")


def test_no_two_modules_share_a_basename():
    where = defaultdict(list)
    for path in _modules():
        where[path.name].append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


def test_no_two_classes_share_a_name():
    where = defaultdict(list)
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert {name: places for name, places in where.items() if len(places) > 1} == {}


def test_no_module_is_named_for_a_past_participle():
    """(``opened.py``, ``made.py``: name what the module holds instead.)"""
    named = [
        str(p.relative_to(PACKAGE))
        for p in _modules()
        if p.stem.endswith("ed") and p.stem not in {"embed", "speed", "seed", "need"}
    ]
    assert named == []
