"""build: graph build at 10^4..10^6 chunks (2-D, 4x4 chunks, pad 3), each library and mode
on a fresh ``da.zeros`` input (a shared one would hand the second library the first one's
cached input layer). Columns per library:
"call s" the pad call alone; "materialise s" ``dict(y.__dask_graph__())``;
"build s" their sum and "build net s" the same minus "input materialise s"
(the bare input's own ``dict(x.__dask_graph__())``); "opt+mat s"
``dict(y.__dask_optimize__(graph, keys))``; "tasks" tasks added (the whole
graph minus "input tasks") and "tasks raw" the whole graph; "pad layers s"
the call plus the pad's own layers materialised and converted to dask's task
nodes, from an input whose layer is materialised already (the pad's share of
what a scheduler builds; the median of ``--repeat`` rounds, the libraries
alternating), "pad layers MB" those layers pickled as a client ships them,
and their ratio daskpad / dask.array.pad. Modes: reflect, constant, mean
stat_length=2, linear_ramp, mean and median with stat_length=None (the whole
axis; dask.array.pad has no median) and a user function. "-" is not
measured: "opt+mat s" from 10^6 chunks (minutes; ``--full-build`` measures
it), and from 10^6 chunks everything but "call s" for the whole-axis
statistics and everything but "call s" and the pad layers for the user
function.

The section and asv make the same probes (``_probe``: a library, a mode, a grid), each part
on an input of its own; asv at 10^2 and about 10^3 chunks (the ``--quick`` grids).
"""

from __future__ import annotations

import functools
import gc
import math
import pickle
import time
from typing import Any

import dask.array as da
import numpy as np

from .bench_correctness import mode_verdict, verdict
from .common import (
    DASK,
    LIBS,
    QUICK,
    Made,
    Probe,
    _ProbeSuite,
    _progress,
    _ratio,
    key_params,
    mode_arg,
    probes,
    skip,
    timed,
    tracked,
)
from .timing import Took, measure, rounds

BUILD_BIG_SIDE = 1_000  # from side x side = 10^6 chunks on, skip the slow measurements
BUILD_WIDTH = 3
# (label, mode, kwargs, what is measured). "full": call, materialise, tasks (and optimize
# below BUILD_BIG_SIDE or with --full-build); "whole": a statistic over the whole axis,
# "full" below BUILD_BIG_SIDE and the call alone from it on (its graph takes minutes);
# "whole+layers": as "whole", and the pad's layers ("pad layers s") at 10^6 chunks too
# ("callable": a user function, whose whole lines dask.array.pad makes by rechunking
# whole axes).
# No stat_length is numpy's stat_length=None (the whole axis): dask.array.pad rejects an
# explicit None but means the same without it.


BUILD_CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("reflect", "reflect", {}, "full"),
    ("constant", "constant", {}, "full"),
    ("mean stat_length=2", "mean", {"stat_length": 2}, "full"),
    ("linear_ramp", "linear_ramp", {}, "full"),
    ("mean stat_length=None", "mean", {}, "whole"),
    ("median stat_length=None", "median", {}, "whole"),
    ("a user function", "callable", {}, "whole+layers"),
]


def _build_input(side: int) -> da.Array:
    """A fresh input for every measurement: materialising a graph caches each layer's
    dict on the layer, so an input shared between libraries makes the second one cheap."""
    return da.zeros((side * 4, side * 4), chunks=4, dtype=np.float32)


def _probe(lib: str, label: str, side: int) -> Probe:
    """One library's pad in one mode of a grid of side x side chunks, each part on an
    input of its own (skipped where the library lacks the mode): the runs "call" (the pad
    call), "materialise" (``dict`` of a padded array's graph) and "optimize" (its graph
    optimised, then ``dict``), the count "tasks added" (the padded graph's tasks minus the
    input's)."""
    _, mode, kwargs, _ = next(c for c in BUILD_CASES if c[0] == label)

    def make(cfg) -> Made:
        if mode_verdict(lib, mode) == "unsupported":
            skip(f"{lib} has no mode={mode}")
        fn = LIBS[lib]

        def pad(x: da.Array) -> da.Array:
            return fn(x, BUILD_WIDTH, mode_arg(mode), **kwargs)

        x, y = _build_input(side), pad(_build_input(side))
        runs = {
            "call": lambda: pad(x),
            "materialise": lambda: dict(y.__dask_graph__()),
            "optimize": lambda: dict(y.__dask_optimize__(y.__dask_graph__(), y.__dask_keys__())),
        }
        added = {
            "tasks added": lambda: len(dict(y.__dask_graph__())) - len(dict(x.__dask_graph__()))
        }
        return Made(runs, added)

    return Probe((lib, label, side * side), make, scheduler=None)


def _build_cell(probe: Probe, cfg, materialise: bool, optimize: bool):
    """(call s, materialise s, tasks in the whole graph, optimize+materialise s) of one
    library and mode, None where not measured."""
    made = probe.make(cfg)
    t_call = measure(made.runs["call"], False)[0]
    t_mat = n_tasks = t_opt = None
    if materialise:  # what compute does first
        t_mat, _, _, graph = measure(made.runs["materialise"], False)
        n_tasks = len(graph)
        del graph
    del made
    gc.collect()
    if optimize:  # again from fresh inputs: nothing cached by the materialisation above
        made = probe.make(cfg)
        t_opt = measure(made.runs["optimize"], False)[0]
        del made
        gc.collect()
    return t_call, t_mat, n_tasks, t_opt


def _pad_layers_cell(fn, side: int, mode: str, kwargs: dict) -> Took:
    """The seconds of the pad's own layers, net of the input's: the call, the layers
    materialised and converted to dask's task nodes (what a scheduler runs); its value the
    MB of those layers pickled as a client ships them."""
    from dask._task_spec import convert_legacy_graph

    x = _build_input(side)
    graph = x.__dask_graph__()
    dict(graph)  # the input's layer materialised (and kept on the layer) first
    t0 = time.perf_counter()
    y = fn(x, BUILD_WIDTH, mode_arg(mode), **kwargs)
    new = [v for n, v in y.__dask_graph__().layers.items() if n not in graph.layers]
    tasks: dict = {}
    for layer in new:
        tasks.update(layer)
    convert_legacy_graph(tasks)
    t = time.perf_counter() - t0
    mb = len(pickle.dumps(new, protocol=pickle.HIGHEST_PROTOCOL)) / 1e6
    del x, y, graph, new, tasks
    gc.collect()
    return Took(t, value=mb)


def _pad_layers_cells(cfg, side: int, mode: str, kwargs: dict) -> dict[str, Any]:
    """Each library's "pad layers s" (the median of ``cfg.repeat`` rounds, the libraries
    alternating) and "pad layers MB"; none where the graph has no layers (query
    planning)."""
    libs = {lib: fn for lib, fn in LIBS.items() if verdict(lib, mode) != "unsupported"}
    if not libs or not hasattr(_build_input(1).__dask_graph__(), "layers"):
        return {}
    cells = {
        lib: functools.partial(_pad_layers_cell, fn, side, mode, kwargs)
        for lib, fn in libs.items()
    }
    got = rounds(cells, cfg.repeat, memory=False, catch=True)
    out: dict[str, Any] = {}
    for lib in libs:
        if got.seconds[lib]:
            out[f"{lib} pad layers MB"] = got.results[lib]
            out[f"{lib} pad layers s"] = got.median(lib)
    return out


def _build_sides(cfg) -> list[int]:
    """Sides of the grid of 4 x 4 chunks: 10^4, 10^5 and 10^6 chunks (``--quick``: 10^2,
    about 10^3)."""
    return [10, 32] if cfg.quick else [100, 316, 1000]


def section_build(cfg) -> list[dict]:
    rows = []
    for side in _build_sides(cfg):
        big = side >= BUILD_BIG_SIDE
        t_input = math.inf
        for _ in range(2):  # best of 2 fresh inputs: the first one pays for warm-up
            x = _build_input(side)
            t, _, _, graph = measure(lambda x=x: dict(x.__dask_graph__()), False)
            t_input, n_input = min(t_input, t), len(graph)
            del graph, x
            gc.collect()
        for label, mode, kwargs, what in BUILD_CASES:
            materialise = what == "full" or not big
            optimize = materialise and (not big or cfg.full_build)
            row: dict[str, Any] = {
                "chunks": side * side,
                "mode": label,
                "input materialise s": t_input,
                "input tasks": n_input,
            }
            for lib in LIBS:
                cells = dict.fromkeys(
                    ["call s", "materialise s", "build s", "build net s", "opt+mat s"]
                    + ["tasks", "tasks raw", "pad layers s", "pad layers MB"]
                )
                try:
                    t_call, t_mat, n_tasks, t_opt = _build_cell(
                        _probe(lib, label, side), cfg, materialise, optimize
                    )
                except NotImplementedError:
                    cells["call s"] = "unsupported"
                else:
                    cells["call s"] = t_call
                    cells["opt+mat s"] = t_opt
                    if t_mat is not None and n_tasks is not None:
                        cells["materialise s"] = t_mat
                        cells["build s"] = t_call + t_mat
                        cells["build net s"] = t_call + t_mat - t_input
                        cells["tasks"] = n_tasks - n_input
                        cells["tasks raw"] = n_tasks
                row.update({f"{lib} {k}": v for k, v in cells.items()})
            if materialise or what == "whole+layers":
                row.update(_pad_layers_cells(cfg, side, mode, kwargs))
            mine, theirs = row.get("daskpad pad layers s"), row.get(f"{DASK} pad layers s")
            if isinstance(mine, float) and isinstance(theirs, float):
                row["pad layers ratio (daskpad/dask)"] = _ratio(mine, theirs)
            rows.append(row)
            _progress(cfg, "build", row)
    return rows


# --------------------------------------------------------------------------------------
# asv
# --------------------------------------------------------------------------------------


#: asv's: the ``--quick`` grids
PROBES = probes(
    *(
        _probe(lib, label, side)
        for lib in LIBS
        for label, *_ in BUILD_CASES
        for side in _build_sides(QUICK)
    )
)


class Build(_ProbeSuite):
    """The pad call, the graph's materialisation and its optimisation, and tasks added."""

    probes = PROBES
    params, param_names = key_params(PROBES, "library", "mode", "chunks")
    time_call = timed("call")
    time_materialise = timed("materialise")
    time_optimize_materialise = timed("optimize")
    track_tasks_added = tracked("tasks added", "tasks")
