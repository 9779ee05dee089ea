"""daskpad's benchmarks: one module per scenario, in the layout of airspeed velocity (asv).

``bench_<scenario>.py`` holds a scenario twice: its section of the side-by-side report
(``section_<scenario>(cfg)``, rows with daskpad, dask.array.pad and numpy.pad in one run)
and asv benchmark classes on the same cases, the library a parameter (``time_*``,
``peakmem_*``, ``track_*``). ``common.py`` holds what they share. The report's commands:

    python benchmarks/run.py [--quick]         # correctness, inmem, build, pipeline,
                                               # cluster, callable, wide, storemem, cli, big
    python benchmarks/chunkings.py [--quick]   # remainders, widebuild, widesum
    python benchmarks/edge_function.py         # edge_function
    python benchmarks/plot.py                  # build_scaling.png from results.json

The same scenarios under asv (``asv.conf.json`` in the repository root), in this Python
environment: ``asv run --python=same --quick`` (``--bench REGEX`` picks some).
"""
