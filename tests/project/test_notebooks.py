"""The notebooks in ``notebooks/`` run from top to bottom, and are stored without outputs.

Each notebook is executed with nbclient in a fresh kernel of this interpreter; any cell error
fails the test. The documentation site's build runs them too (myst-nb), keeping each
notebook that ran without error in its cache: with ``DASKPAD_NOTEBOOK_CACHE`` set to that
cache (``docs/_build/.jupyter_cache``; CI sets it after building the site in the same
environment), the test asks the cache for a successful run of the notebook as it is now
(its code cells' hash) instead of running it again, and fails where there is none.

Stored notebooks must be stripped of outputs and execution counts, so diffs
stay readable and no stale result is ever shown as if it were current.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from daskpad._compat.graphs import query_planning

# The notebooks show dask.array.pad side by side and write zarr, neither of which dask's
# array-expr implements yet; they document daskpad on dask's default graphs.
pytestmark = pytest.mark.skipif(
    query_planning(), reason="dask.array.pad and store are not implemented for array-expr"
)

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")
pytest.importorskip("xarray")
pytest.importorskip("distributed")
pytest.importorskip("scipy")  # (04-halos checks its blur against scipy.ndimage)

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
# Notebooks that start a dask.distributed cluster (ci/test.sh's second run leaves those out).
CLUSTER = {"03-at-scale.ipynb"}
KERNEL = "python3"


def _param(path: Path):
    marks = [pytest.mark.slow]
    if path.name in CLUSTER:
        marks.append(pytest.mark.cluster)
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.fixture(scope="session")
def kernel_name() -> str:
    """The ``python3`` kernel, checked to start this interpreter.

    ipykernel installs a ``python3`` kernelspec whose command is the bare word ``python``,
    and jupyter_client replaces that word with ``sys.executable`` when it launches the kernel,
    so the notebooks run in the environment the tests run in (on a fresh CI machine as in a
    virtualenv), with no kernelspec to install.
    """
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(KERNEL)
    python = spec.argv[0]
    bare = {"python", f"python{sys.version_info[0]}", "python{}.{}".format(*sys.version_info)}
    if python not in bare and Path(python).resolve() != Path(sys.executable).resolve():
        pytest.fail(
            f"kernel {KERNEL!r} would start {python}, not this interpreter ({sys.executable}); "
            f"remove or fix the kernelspec at {spec.resource_dir}"
        )
    return KERNEL


def test_there_are_notebooks():
    assert [p.name for p in PATHS] == [
        "01-modes-gallery.ipynb",
        "02-xarray-climate.ipynb",
        "03-at-scale.ipynb",
        "04-halos.ipynb",
    ]


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_stored_without_outputs(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [
        i
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None)
    ]
    assert not dirty, (
        f"{path.name}: code cells {dirty} carry outputs or execution counts; strip them "
        "before committing (Jupyter: Edit > Clear Outputs of All Cells, then save)"
    )


# No warning filter is needed: the kernel is a subprocess, so warnings raised inside the
# notebooks are printed in cell outputs, not raised here, and with jupyter_core 5.9 /
# jupyter_client 8.10 launching it warns of nothing in this process. (Older jupyter_core
# versions emit a DeprecationWarning "Jupyter is migrating its paths to use standard
# platformdirs"; if CI pins one, filter that message here.)
#: the site build's notebook cache, where it holds this run's notebooks (see above)
BUILT = os.environ.get("DASKPAD_NOTEBOOK_CACHE")


@pytest.mark.parametrize("path", [_param(p) for p in PATHS])
def test_notebook_runs(path: Path, kernel_name: str, tmp_path: Path):
    nb = nbformat.read(path, as_version=4)
    if BUILT:
        from jupyter_cache import get_cache

        if not Path(BUILT).is_dir():
            pytest.fail(f"DASKPAD_NOTEBOOK_CACHE={BUILT}: no such cache (build the site first)")
        cache = get_cache(BUILT)
        try:
            cache.match_cache_notebook(nb)
        except KeyError:
            pytest.fail(
                f"{path.name}: the site build at {BUILT} has no successful run of this "
                "notebook as it is now (unset DASKPAD_NOTEBOOK_CACHE to run it here)"
            )
        finally:
            cache.db.dispose()  # (its sqlite connections, closed)
        return
    client = nbclient.NotebookClient(
        nb,
        kernel_name=kernel_name,
        timeout=300,  # per cell
        resources={"metadata": {"path": str(tmp_path)}},  # any file a notebook writes
    )
    client.execute()  # raises CellExecutionError, with the cell and traceback, on any error
