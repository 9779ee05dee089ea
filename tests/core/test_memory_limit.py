"""The default memory budget reads the memory this process may use as distributed reads it
for its workers (a container's cgroup limit included), without importing distributed, and
sizes are printed as dask's ``parse_bytes`` reads them back."""

from __future__ import annotations

import subprocess
import sys

import pytest
from dask.utils import parse_bytes

from daskpad.pipeline.for_command import fmt_bytes
from daskpad.store.planning import budget
from daskpad.store.planning.budget import default_memory, memory_limit

psutil = pytest.importorskip("psutil")


def _limits(tmp_path, *values: str) -> tuple[str, ...]:
    """Files that hold ``values`` as a cgroup's limit files hold them."""
    paths = []
    for i, value in enumerate(values):
        path = tmp_path / f"limit-{i}"
        path.write_text(f"{value}\n")
        paths.append(str(path))
    return (*paths, str(tmp_path / "missing"))


def _machine() -> int:
    """The machine's memory, or the process's RLIMIT_RSS where that is less."""
    rss = budget._rss_limit()
    total = psutil.virtual_memory().total
    return min(total, rss) if rss > 0 else total


def test_a_container_limit_bounds_the_default_budget(monkeypatch, tmp_path):
    monkeypatch.setattr(budget, "CGROUP_LIMITS", _limits(tmp_path, "max", str(2**30)))
    assert memory_limit() == min(2**30, _machine())
    assert default_memory() == memory_limit() // 4 == 2**28


def test_without_a_limit_the_budget_is_at_most_2_gib(monkeypatch, tmp_path):
    monkeypatch.setattr(budget, "CGROUP_LIMITS", _limits(tmp_path, str(2**40), "max"))
    assert memory_limit() == _machine()
    assert default_memory() == min(2**31, memory_limit() // 4)


def test_the_limit_is_distributeds():
    system = pytest.importorskip("distributed.system")
    assert memory_limit() == system.memory_limit()


def test_the_budget_does_not_import_distributed():
    # (distributed takes a third of a second to import; a threaded run needs none of it)
    code = "import daskpad.store.planning.budget as b, sys; b.default_memory(); "
    code += "print('distributed' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


@pytest.mark.parametrize("n", [0, 999, 1000, 1536, 10**6, 3 * 2**30, 10**13])
def test_sizes_read_back_as_about_the_same_count(n):
    assert parse_bytes(fmt_bytes(n)) == pytest.approx(n, rel=0.01, abs=1)
