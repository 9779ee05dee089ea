"""Where a dask array keeps the array it was laid out from: the array whose values it
holds in other chunks (a regrid's input), in its own graph or expression, so that it
travels with the array (:func:`laid_out_from`)."""

from __future__ import annotations

from typing import Any, cast

import dask.array as da

from daskpad._compat.graphs import Chunks, query_planning
from daskpad._compat.lazy_layers import LazyLayer

#: the graph-growth threshold of :func:`one_stage_rechunk`: no rechunk plan reaches it
ONE_STAGE = 2**62


def one_stage_rechunk(x: da.Array, chunks: Chunks) -> da.Array:
    """``x`` rechunked to ``chunks`` in one stage (dask's ``rechunk`` with the threshold
    :data:`ONE_STAGE`), which :func:`laid_out_from` recognises under query planning; by
    tasks, whatever ``array.rechunk.method`` says (its ``p2p`` needs a cluster)."""
    return cast("da.Array", x.rechunk(chunks, threshold=ONE_STAGE, method="tasks"))


def laid_out_from(y: Any) -> da.Array | None:
    """The array whose values the dask array ``y`` holds in other chunks, as ``y``'s own
    graph says, or None: with classic graphs, the array kept on the layer that makes
    ``y``'s blocks (``laid_out_from`` of :func:`daskpad._compat.lazy_layers.lazy_array`);
    under query planning, the input of ``y``'s expression where that is a
    :func:`one_stage_rechunk`. It travels with ``y`` (its graph, its expression), not
    beside it in a table."""
    if query_planning():
        from dask.array._array_expr._collection import (  # type: ignore[attr-defined]
            new_collection,
        )
        from dask.array._array_expr._rechunk import Rechunk

        expr = getattr(y, "expr", None)
        if isinstance(expr, Rechunk) and expr.operand("threshold") == ONE_STAGE:
            return cast("da.Array", new_collection(expr.array))
        return None
    from dask.highlevelgraph import HighLevelGraph

    graph = y.__dask_graph__()
    if not isinstance(graph, HighLevelGraph):
        return None
    layer = graph.layers.get(y.name)
    made = getattr(layer, "mapping", layer)
    return made.laid_out_from if isinstance(made, LazyLayer) else None
