"""daskpad's benchmarks: one module per scenario.

``bench_<scenario>.py`` holds a scenario's section of the side-by-side report
(``section_<scenario>(cfg)``, rows with daskpad, dask.array.pad and numpy.pad in one run);
``common.py`` holds what they share. The report's commands:

    python benchmarks/run.py [--quick]         # correctness, inmem, build, pipeline,
                                               # cluster, callable, wide, storemem, cli, big
    python benchmarks/chunkings.py [--quick]   # remainders, widebuild, widesum
    python benchmarks/edge_function.py         # edge_function
    python benchmarks/plot.py                  # build_scaling.png from results.json
"""
