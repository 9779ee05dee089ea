#!/usr/bin/env bash
# The project's test command (README: "Run the tests").
# The static checks run first (ruff, mypy in strict mode, import-linter's layers). Then the
# suite runs twice: with dask's classic graphs and with dask's array query planning (array-expr), which dask
# will switch on by default in a later release. Cluster tests (process workers) run in the
# first pass only, and so do the slow end-to-end runs (marker "slow": the quick benchmark
# commands and the notebooks), which exercise no graph path the rest of the suite leaves out.
# CI (.ci/run) runs this once per stack of dependencies, and narrows the floor stack's run
# with two switches: DASKPAD_CHECKS=0 leaves out the static checks (one stack runs them),
# DASKPAD_GRAPHS=classic leaves out the query-planning pass. The classic pass reports line
# coverage of daskpad/ (pytest-cov); DASKPAD_COVERAGE=0 leaves it out. Each step prints its
# duration.
set -euo pipefail
cd "$(dirname "$0")/.."
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
SECONDS=0
took() { echo "== ($1: ${SECONDS}s)"; SECONDS=0; }
if [ "${DASKPAD_CHECKS:-1}" != 0 ]; then
echo "== checks: ruff, mypy --strict (pyproject.toml)"
python -m ruff check .
python -m ruff format --check .
python -m mypy
echo "== layers: lint-imports (pyproject.toml's contracts)"
lint-imports --no-cache
took checks
fi
echo "== daskpad demo"
python -m daskpad demo
took demo
echo "== daskpad tests: classic dask graphs"
COVERAGE=()
if [ "${DASKPAD_COVERAGE:-1}" != 0 ]; then
    COVERAGE=(--cov=daskpad --cov-report=term:skip-covered)
    # Python 3.12+ traces through sys.monitoring: a fraction of the C tracer's cost
    if python -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
        export COVERAGE_CORE=sysmon
    fi
fi
python -m pytest ${COVERAGE[@]+"${COVERAGE[@]}"} "$@"
took "classic graphs"
if [ "${DASKPAD_GRAPHS:-all}" != classic ]; then
echo "== daskpad tests: dask array query planning (DASK_ARRAY__QUERY_PLANNING=True)"
DASK_ARRAY__QUERY_PLANNING=True python -m pytest -m "not cluster and not slow" -p no:cacheprovider "$@"
took "query planning"
fi
