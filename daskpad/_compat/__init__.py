"""The one door to dask's, distributed's and zarr's internals.

Everything daskpad needs that those libraries do not publish, or that differs between
dask's classic graphs and its array query planning, or between versions, is a primitive
here: graph layers made on demand (:mod:`daskpad._compat.lazy_layers`); picked arrays,
tasks and renamed graphs, and the graph mode (:mod:`daskpad._compat.graphs`); steps with
one form per graph mode (:mod:`daskpad._compat.forms`); dask's task types for hand-written
graph programs (:mod:`daskpad._compat.tasks`); what the schedulers do not publish
(:mod:`daskpad._compat.schedulers`); and names of distributed and zarr outside their
documented API (:mod:`daskpad._compat.libraries`). The rest of daskpad calls these and the
libraries' public API only (``tests/project/test_layers.py`` checks it).
"""
