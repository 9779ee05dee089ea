#!/usr/bin/env bash
# The project's test command (README: "Run the tests").
# The static checks run first (ruff, mypy in strict mode, import-linter's layers). Then the
# suite runs twice: with dask's classic graphs and with dask's array query planning (array-expr), which dask
# will switch on by default in a later release. Cluster tests (process workers), the
# quick runs of the benchmark commands (marker "e2e": they time daskpad beside
# dask.array.pad, which array-expr does not have) and the command's tests (tests/cli: it
# writes with xarray's to_zarr, which array-expr cannot run) run in the first pass only.
# CI (.ci/run) runs this once per stack of dependencies, and narrows the floor stack's run
# with these switches: DASKPAD_CHECKS=0 leaves out the static checks, DASKPAD_CHECKS=mypy
# runs mypy alone (the floor stack: the types hold on the oldest releases too; ruff and
# the layers need to run once),
# DASKPAD_GRAPHS=classic leaves out the query-planning pass, DASKPAD_MARKERS is a pytest
# marker expression both passes add to their own (the floor: "not e2e and not slow",
# leaving out the quick runs of the benchmark commands and the tests of scale and timing),
# and HYPOTHESIS_PROFILE picks the number of draws.
# The classic pass reports line coverage of daskpad/ (pytest-cov); DASKPAD_COVERAGE=0 leaves
# it out. Each pass runs its tests in DASKPAD_TEST_PROCESSES processes (pytest-xdist; 2 by
# default, the cores CI has; 0 runs them in pytest's own process, without xdist), a module
# marked xdist_group in one of them. Each step prints its duration, each pass its 15 slowest
# tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
SECONDS=0
took() { echo "== ($1: ${SECONDS}s)"; SECONDS=0; }
CHECKS="${DASKPAD_CHECKS:-1}"
if [ "$CHECKS" = mypy ]; then
echo "== checks: mypy --strict (pyproject.toml)"
python -m mypy
took checks
elif [ "$CHECKS" != 0 ]; then
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
PROCESSES=()
WORKERS="${DASKPAD_TEST_PROCESSES:-2}"
if [ "$WORKERS" != 0 ]; then
    PROCESSES=(-n "$WORKERS" --dist loadgroup)
fi
MARKERS="${DASKPAD_MARKERS:-}"
CLASSIC=()
if [ -n "$MARKERS" ]; then
    CLASSIC=(-m "$MARKERS")
fi
python -m pytest ${PROCESSES[@]+"${PROCESSES[@]}"} ${COVERAGE[@]+"${COVERAGE[@]}"} \
    ${CLASSIC[@]+"${CLASSIC[@]}"} --durations=15 "$@"
took "classic graphs"
if [ "${DASKPAD_GRAPHS:-all}" != classic ]; then
echo "== daskpad tests: dask array query planning (DASK_ARRAY__QUERY_PLANNING=True)"
# The whole suite, less the command's tests (tests/cli) when no tests are named: the command
# writes DST through xarray's to_zarr, whose dask.array.store array-expr does not implement,
# so they would be expected failures; what it pads is pad2's (tests/xarray, both passes).
QP_SCOPE=()
if [ $# = 0 ]; then
    QP_SCOPE=(--ignore=tests/cli)
fi
# Its properties draw half the classic pass's examples (hypothesis profile "ci-qp", where
# the classic pass draws "ci"'s).
QP_PROFILE="$HYPOTHESIS_PROFILE"
if [ "$QP_PROFILE" = ci ]; then
    QP_PROFILE=ci-qp
fi
DASK_ARRAY__QUERY_PLANNING=True HYPOTHESIS_PROFILE="$QP_PROFILE" python -m pytest ${PROCESSES[@]+"${PROCESSES[@]}"} \
    -m "not cluster and not e2e${MARKERS:+ and ($MARKERS)}" -p no:cacheprovider --durations=15 \
    ${QP_SCOPE[@]+"${QP_SCOPE[@]}"} "$@"
took "query planning"
fi
