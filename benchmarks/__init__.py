"""daskpad's benchmarks: one runner, one module per section.

``python benchmarks/run.py [SECTION | GROUP ...] [--quick]`` runs the sections and prints
one markdown table each (``--json`` writes the rows with the machine, date and command;
``run.py``'s docstring lists the sections and their options). Each ``bench_<section>.py``
holds the section's cases (``section_<section>(cfg)``) and, on the same cases at the
``--quick`` sizes, asv benchmark classes (``asv run --python=same --quick``, ``asv.conf.json``
in the repository root). What they share: ``timing.py`` (the one loop of interleaved
rounds, and a command in a process of its own), ``sources.py`` (every input array),
``common.py`` (the libraries, the modes' arguments, verdicts, tables). ``plot.py`` draws
``build_scaling.png`` from the JSON of a "build" run.
"""
