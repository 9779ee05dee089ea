"""A throwaway module of the tests' own, written to a file and imported as a user's module
would be (tests/core/test_mode_registry.py, tests/core/test_keyword_table.py)."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType


@contextlib.contextmanager
def imported(folder: Path, name: str, source: str) -> Iterator[ModuleType]:
    """The module ``name`` of ``source`` (dedented), written into ``folder`` and imported
    (its top level runs: it registers what it registers); out of ``sys.modules`` after."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[name]
