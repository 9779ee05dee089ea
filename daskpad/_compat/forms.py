"""Steps with one form per dask graph mode.

Some of daskpad's steps have two forms: one for dask's classic graphs (a lazy layer of
tasks made on demand, keys picked from other arrays) and one for dask's array query
planning (array-expr), where the same step is written with public expressions
(``concatenate``, slicing, ``rechunk``) that dask's optimiser reads. A module with such a
step writes each form as its own function and joins them with :func:`per_graph_mode`.
Outside :mod:`daskpad._compat` nothing reads the graph mode itself
(``tests/project/test_layers.py`` checks it, and pins where the pairs are).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from daskpad._compat.graphs import query_planning

P = ParamSpec("P")
R = TypeVar("R")


def per_graph_mode(
    name: str, doc: str, *, classic: Callable[P, R], planned: Callable[P, R]
) -> Callable[P, R]:
    """One step in two forms: a callable that runs ``classic`` with dask's classic graphs
    and ``planned`` under array query planning. The mode is read at each call; dask reads
    its setting (``array.query-planning``) when ``dask.array`` is first imported, so in
    practice it is fixed for the process.

    The callable is named ``name`` in the module of ``classic``, where it must be bound
    to that name (so that it pickles by reference and tracebacks name it), with ``doc``
    as its docstring."""

    def chosen(*args: P.args, **kwargs: P.kwargs) -> R:
        return (planned if query_planning() else classic)(*args, **kwargs)

    chosen.__name__ = chosen.__qualname__ = name
    chosen.__module__ = getattr(classic, "__module__", __name__)
    chosen.__doc__ = doc
    return chosen
