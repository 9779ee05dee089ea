#!/usr/bin/env bash
# The project's test command (README: "Run the tests").
# The static checks run first (ruff, mypy in strict mode, import-linter's layers). Then the
# suite runs twice: with dask's classic graphs and with dask's array query planning (array-expr), which dask
# will switch on by default in a later release. Cluster tests (process workers) run in the
# first pass only.
set -euo pipefail
cd "$(dirname "$0")/.."
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
echo "== checks: ruff, mypy --strict (pyproject.toml)"
python -m ruff check .
python -m ruff format --check .
python -m mypy
echo "== layers: lint-imports (pyproject.toml's contracts)"
lint-imports --no-cache
echo "== daskpad demo"
python -m daskpad demo
echo "== daskpad tests: classic dask graphs"
python -m pytest "$@"
echo "== daskpad tests: dask array query planning (DASK_ARRAY__QUERY_PLANNING=True)"
DASK_ARRAY__QUERY_PLANNING=True python -m pytest -m "not cluster" -p no:cacheprovider "$@"
