"""The default memory budget reads the memory this process may use as distributed reads it
(a container's cgroup limit included), and sizes are printed as dask's ``parse_bytes``
reads them back."""

from __future__ import annotations

import builtins
import io

import pytest
from dask.utils import parse_bytes

from daskpad.pipeline.for_command import fmt_bytes
from daskpad.store.planning.budget import default_memory, memory_limit

system = pytest.importorskip("distributed.system")


def _cgroup_v2(limit: int):
    """``open`` for distributed.system: a cgroup v2 ``memory.max`` of ``limit`` bytes."""

    def fake_open(path, *args, **kwargs):
        if str(path) == "/sys/fs/cgroup/memory.max":
            return io.StringIO(f"{limit}\n")
        if str(path).startswith("/sys/fs/cgroup/"):
            raise FileNotFoundError(path)
        return builtins.open(path, *args, **kwargs)

    return fake_open


def test_a_container_limit_bounds_the_default_budget(monkeypatch):
    monkeypatch.setattr(system, "open", _cgroup_v2(2**30), raising=False)
    assert memory_limit() == min(2**30, system.psutil.virtual_memory().total)
    assert default_memory() == memory_limit() // 4 == 2**28


def test_without_a_limit_the_budget_is_at_most_2_gib(monkeypatch):
    monkeypatch.setattr(system, "open", _cgroup_v2(2**40), raising=False)
    assert default_memory() == min(2**31, memory_limit() // 4)


@pytest.mark.parametrize("n", [0, 999, 1000, 1536, 10**6, 3 * 2**30, 10**13])
def test_sizes_read_back_as_about_the_same_count(n):
    assert parse_bytes(fmt_bytes(n)) == pytest.approx(n, rel=0.01, abs=1)
