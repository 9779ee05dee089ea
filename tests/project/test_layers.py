"""The house in layers (docs/design.md, "The layers"), read from the source itself.

import-linter checks the layers' order (pyproject.toml's contracts, run by ci/test.sh);
these tests check what it does not: no import of daskpad's own modules inside a function,
no cycle between modules, dask's, distributed's and zarr's internals and the graph-mode
switch only behind the compat door (each exception named, with its reason), and the mode
table as the one list of modes.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pickle
import re
from pathlib import Path

import pytest

import daskpad
from daskpad.core.registry import MODES

PACKAGE = Path(daskpad.__file__).parent


def _modules() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = ast.parse(path.read_text(), str(path))
    return out


MODULES = _modules()


def _imports(tree: ast.Module, *, inside_functions: bool) -> list[tuple[int, str]]:
    """``(line, module)`` of the imports at module level (or only those inside functions),
    ``from a import b`` counted as ``a.b`` where ``a.b`` is a module."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if inner == inside_functions:
                if isinstance(child, ast.Import):
                    found.extend((child.lineno, a.name) for a in child.names)
                elif isinstance(child, ast.ImportFrom) and child.module:
                    assert child.level == 0, "daskpad imports its own modules absolutely"
                    for a in child.names:
                        sub = f"{child.module}.{a.name}"
                        found.append((child.lineno, sub if sub in MODULES else child.module))
            visit(child, inner)

    visit(tree, False)
    return found


def test_no_module_of_daskpad_is_imported_inside_a_function():
    late = [
        f"{name}:{line} imports {module}"
        for name, tree in MODULES.items()
        for line, module in _imports(tree, inside_functions=True)
        if module == "daskpad" or module.startswith("daskpad.")
    ]
    assert late == []


def test_no_cycle_between_modules():
    graph = {
        name: {m for _, m in _imports(tree, inside_functions=False) if m in MODULES and m != name}
        for name, tree in MODULES.items()
    }
    # a module's package (its __init__) runs first on import: not an edge of the module's
    graph = {n: {m for m in deps if not n.startswith(m + ".")} for n, deps in graph.items()}
    state: dict[str, int] = {}
    cycles = []

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt) :] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                walk(nxt, [*path, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name, [name])
    assert cycles == []


#: dask's, distributed's and zarr's names outside their documented API, where the compat
#: door does not hold them, each with its reason
INTERNALS_ALLOWED = {
    # (none: every such name is reached through daskpad._compat)
}

#: documented public API of dask, distributed and zarr that modules outside the door use
PUBLIC = re.compile(
    r"^(dask|dask\.array|dask\.array\.core\.(normalize_chunks|PerformanceWarning)"
    r"|dask\.array\.overlap\.overlap|dask\.array\.utils\.(meta_from_array|assert_eq)"
    r"|dask\.base\.(tokenize|is_dask_collection|compute)|dask\.utils\.(format_bytes|"
    r"parse_bytes)|dask\.delayed|dask\.config|dask\.diagnostics(\.progress)?\.ProgressBar"
    r"|distributed|distributed\.(Client|LocalCluster|get_client|wait|progress|futures_of)"
    r"|zarr|zarr\.abc\.store\.\w+|zarr\.(storage|errors|codecs)(\.\w+)?)$"
)


def _third_party_names(tree: ast.Module) -> list[tuple[int, str]]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            if root in ("dask", "distributed", "zarr"):
                names += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            names += [
                (node.lineno, a.name)
                for a in node.names
                if a.name.split(".")[0] in ("dask", "distributed", "zarr")
            ]
    return names


def _public(name: str) -> bool:
    if PUBLIC.match(name):
        return True
    # a module imported whole (``from dask import array``) or a public module's name
    head = name.rpartition(".")[0]
    return bool(PUBLIC.match(head)) and head in ("dask", "dask.array", "distributed", "zarr")


def test_internals_of_dask_distributed_and_zarr_only_behind_the_door():
    outside = {
        f"{name}:{line} {what}"
        for name, tree in MODULES.items()
        if not name.startswith("daskpad._compat")
        for line, what in _third_party_names(tree)
        if not _public(what) and (name, what) not in INTERNALS_ALLOWED
    }
    assert outside == set()


#: the steps with a form per graph mode (daskpad._compat.forms.per_graph_mode), by module
PER_GRAPH_MODE = {
    # the block grid (lazy layers of picked keys, or concatenated expressions) and the
    # blocks of a constant side
    "daskpad.core.grid": 2,
    # an array in other chunks: one lazy layer, or dask's one-stage rechunk
    "daskpad.core.regrid": 1,
    # a pad side's blocks from the input elements they map to (the copying modes)
    "daskpad.core.sides": 1,
    # map_overlap's trim: in one step with the pad's crop, or dask's own trim (array-expr's
    # overlap takes no graph-built array)
    "daskpad.api.overlap": 1,
    # pad2's check of computed pads: the pad's picked layer picked again, or sliced parts
    "daskpad.xarray.storable": 1,
}


def _calls(tree: ast.AST, name: str) -> int:
    return sum(
        isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) == name
        for n in ast.walk(tree)
    )


def test_only_the_door_reads_the_graph_mode():
    outside = {n: t for n, t in MODULES.items() if not n.startswith("daskpad._compat")}
    readers = [
        n
        for n, t in outside.items()
        if _calls(t, "query_planning")
        or _calls(t, "array_expr_enabled")
        or any(
            isinstance(c, ast.Constant) and c.value == "array.query-planning" for c in ast.walk(t)
        )
    ]
    importers = [
        n
        for n, t in outside.items()
        for node in ast.walk(t)
        if isinstance(node, ast.ImportFrom)
        and any(a.name in {"query_planning", "array_expr_enabled"} for a in node.names)
    ]
    assert readers == importers == []
    steps = {n: _calls(t, "per_graph_mode") for n, t in outside.items()}
    assert {n: c for n, c in steps.items() if c} == PER_GRAPH_MODE
    # each pair is bound in its module under the name it was given (it pickles so)
    for name, count in PER_GRAPH_MODE.items():
        module = importlib.import_module(name)
        bound = {
            k: v
            for k, v in vars(module).items()
            if getattr(getattr(v, "__code__", None), "co_name", None) == "chosen"
        }
        assert len(bound) == count
        assert all(v.__name__ == k and v.__module__ == name for k, v in bound.items())
        assert all(pickle.loads(pickle.dumps(v)) is v for v in bound.values())


@pytest.mark.parametrize(
    "where",
    [
        daskpad.pad,
        daskpad.xarray.pad2,
        daskpad.core.registry.Mode,
        daskpad.modes,
    ],
    ids=lambda w: getattr(w, "__qualname__", getattr(w, "__name__", str(w))),
)
def test_docstrings_that_list_modes_list_the_table(where):
    doc = inspect.getdoc(where) or ""
    listed = {m for m in MODES if re.search(rf"\b{m}\b", doc)}
    assert listed == set(MODES), sorted(set(MODES) - listed)


#: a module's lines and a function body's (its docstring apart) that a reader takes in
MODULE_LINES, FUNCTION_LINES = 550, 70


def test_modules_and_functions_stay_readable():
    long = []
    for name, tree in MODULES.items():
        lines = max((getattr(n, "end_lineno", 0) or 0) for n in ast.walk(tree))
        if lines > MODULE_LINES:
            long.append(f"{name}: {lines} lines")
        for f in ast.walk(tree):
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = (
                    f.body[1:] if ast.get_docstring(f) is not None and len(f.body) > 1 else f.body
                )
                length = (f.end_lineno or 0) - body[0].lineno + 1
                if length > FUNCTION_LINES:
                    long.append(f"{name}.{f.name}: a body of {length} lines")
    assert long == []


#: the lines of code (docstrings and comments apart) a package's __init__ may hold
INIT_LINES = 40

PACKAGES = sorted(
    n for n in MODULES if (PACKAGE.parent / n.replace(".", "/") / "__init__.py").exists()
)
#: packages whose __init__ still holds work of its own, each with why (strict: a package
#: that is mended fails here until it leaves this list)
INIT_EXCEPTIONS: dict[str, str] = {}


def _package_params() -> list[object]:
    return [
        pytest.param(p, marks=pytest.mark.xfail(reason=INIT_EXCEPTIONS[p], strict=True))
        if p in INIT_EXCEPTIONS
        else p
        for p in PACKAGES
    ]


@pytest.mark.parametrize("package", _package_params())
def test_a_package_init_only_names_what_it_offers(package):
    """Imports and ``__all__``: the work lives in modules named for it, and no function
    of the package hides one of its modules (``daskpad.xarray.pad2`` is the function)."""
    tree = MODULES[package]
    body = tree.body[1:] if ast.get_docstring(tree) is not None else tree.body
    defined = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defined == [], f"{package} defines {defined}: they belong in a module of their own"
    lines = sum((n.end_lineno or n.lineno) - n.lineno + 1 for n in body)
    assert lines <= INIT_LINES, f"{package}: {lines} lines of code"
    module = importlib.import_module(package)
    folder = PACKAGE.parent.joinpath(*package.split("."))
    hidden = [
        p.stem
        for p in folder.glob("*.py")
        if p.stem != "__init__"
        and hasattr(module, p.stem)
        and not inspect.ismodule(getattr(module, p.stem))
    ]
    assert hidden == [], f"{package}: {hidden} name a module and something else"
