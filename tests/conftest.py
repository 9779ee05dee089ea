"""Shared test configuration: hypothesis profiles and the scheduler fixture.

Choose a hypothesis profile with the environment variable ``HYPOTHESIS_PROFILE``:
``dev`` (the default, quick), ``ci`` (what ``ci/test.sh`` runs: deterministic, about 200
examples per property), ``thorough`` (3000 examples per property, for a hunt before a release).
"""

from __future__ import annotations

import os

import dask
import pytest
from hypothesis import HealthCheck, settings

_SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=_SLOW_DATA,
)
settings.register_profile(
    "thorough",
    max_examples=3000,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SLOW_DATA,
)
settings.register_profile(
    "dev", max_examples=50, deadline=None, print_blob=True, suppress_health_check=_SLOW_DATA
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(scope="module")
def sync_scheduler():
    """Compute in the calling thread: the fastest scheduler for many tiny graphs, and the
    one whose tracebacks point at the failing kernel."""
    with dask.config.set(scheduler="sync"):
        yield
