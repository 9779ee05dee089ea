"""Graph facts of what a consumer of a padded array runs: dask's fused subgraphs nest no
deeper in daskpad's graphs than in dask.array.pad's (classic graphs) or than in the
unpadded consumer's (query planning), for every mode and the consumers people use; the
interior blocks are the input's and fuse with the input's own tasks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from helpers.graphfacts import MODE_KWARGS, deepest_nesting

import daskpad
from daskpad._compat.graphs import query_planning
from daskpad.core.registry import MODES
from daskpad.testing import pad_with_constant

#: what a consumer of the padded array does, as the dask users' everyday forms
CONSUMERS: dict[str, Callable[[da.Array], Any]] = {
    "sum": lambda y: y.sum(),
    "mean": lambda y: y.mean(axis=0),
    "map_blocks": lambda y: y.map_blocks(np.negative, dtype=y.dtype),
    "store": lambda y: da.store(y, np.empty(y.shape, y.dtype), lock=False, compute=False),
}

KWARGS: dict[str, dict[str, Any]] = {**MODE_KWARGS, "reflect": {"reflect_type": "odd"}}

MODE_ARGS = [*sorted(MODES), pad_with_constant]


def source() -> da.Array:
    """A lazily generated input (blockwise tasks of its own, as a reader's are), with a
    remainder chunk along each axis."""
    return da.random.default_rng(0).random((70, 52), chunks=(16, 12))


def _dask_pad(x: da.Array, width: Any, mode: Any) -> da.Array | None:
    """dask.array.pad's result, or None for the mode dask.array.pad does not have."""
    if mode == "median":
        return None
    return da.pad(x, width, mode=mode, **KWARGS.get(str(mode), {}))


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
@pytest.mark.parametrize("mode", MODE_ARGS, ids=lambda m: getattr(m, "__name__", m))
@pytest.mark.parametrize("width", [5, ((0, 20), (13, 3))], ids=["narrow", "wide"])
def test_no_subgraph_nests_deeper_than_dasks(mode, consumer, width):
    if consumer == "store" and query_planning():
        pytest.skip("dask.array.store is not implemented for dask's array-expr")
    x = source()
    consume = CONSUMERS[consumer]
    y = daskpad.pad(x, width, mode=mode, **KWARGS.get(str(mode), {}))
    ours = deepest_nesting(consume(y))
    if query_planning():  # (dask.array.pad is not an array-expr function)
        assert ours <= max(deepest_nesting(consume(x)), 1)
        return
    theirs = _dask_pad(x, width, mode)
    # where dask.array.pad lacks the mode, its constant pad is the bar
    bar = deepest_nesting(consume(theirs if theirs is not None else da.pad(x, width)))
    assert ours <= bar, (ours, bar)


@pytest.mark.skipif(query_planning(), reason="a classic graph's tasks by key")
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap", "mean"])
def test_interior_blocks_are_the_inputs_and_fuse_with_its_tasks(mode):
    x = source()
    y = daskpad.pad(x, 4, mode=mode, **KWARGS.get(mode, {}))
    (optimised,) = dask.optimize(y.sum())
    graph = dict(optimised.__dask_graph__())
    # the input's interior blocks (no pad side reads them: the last chunk along axis 1 is
    # 4 long, so a reflection of 4 reads the one before it too) are computed inside the
    # fused task of their consumer, never as tasks of their own
    interior = {(x.name, i, j) for i in range(1, 4) for j in range(1, 3)}
    assert not interior & set(graph)
    y_keys = {k for k in dict(y.__dask_graph__()) if isinstance(k, tuple) and k[0] == y.name}
    assert not y_keys & set(graph)
    np.testing.assert_allclose(optimised.compute(), y.compute().sum())
