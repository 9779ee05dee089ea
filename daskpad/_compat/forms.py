"""The one place daskpad asks which graph mode dask is in.

Some of daskpad's steps have two forms: one for dask's classic graphs (a lazy layer of
tasks made on demand, keys picked from other arrays) and one for dask's array query
planning (array-expr), where the same step is written with public expressions
(``concatenate``, slicing, ``rechunk``) that dask's optimiser reads. A module with such a
step writes each form as its own function and joins them with :func:`per_graph_mode`;
nothing outside :mod:`daskpad._compat` reads the graph mode itself
(``tests/test_layers.py`` checks it, and pins where the pairs are).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from daskpad._compat.graphs import query_planning

P = ParamSpec("P")
R = TypeVar("R")


def per_graph_mode(*, classic: Callable[P, R], planned: Callable[P, R]) -> Callable[P, R]:
    """One step in two forms: a callable that runs ``classic`` with dask's classic graphs
    and ``planned`` under array query planning, chosen at each call (the mode is dask's
    configuration, ``array.query-planning``, which an import of dask.array reads)."""

    def chosen(*args: P.args, **kwargs: P.kwargs) -> R:
        return (planned if query_planning() else classic)(*args, **kwargs)

    chosen.__name__ = chosen.__qualname__ = getattr(classic, "__name__", "chosen")
    chosen.__doc__ = (
        f"{chosen.__name__} in dask's current graph mode: classic graphs "
        f"{_where(classic)}, array query planning {_where(planned)}."
    )
    return chosen


def _where(form: Callable[..., object]) -> str:
    return f"{getattr(form, '__module__', '?')}.{getattr(form, '__qualname__', form)}"
