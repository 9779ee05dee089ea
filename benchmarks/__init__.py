"""daskpad's benchmarks: one runner, one module per section.

``python benchmarks/run.py [SECTION | GROUP ...] [--quick]`` runs the sections and prints
one markdown table each (``--json`` writes the rows with the machine, date and command;
``run.py``'s docstring lists the sections and their options). Each ``bench_<section>.py``
holds the section (``section_<section>(cfg)``) and what it measures, declared once as cases
(``common.Case``) or probes (``common.Probe``), and asv benchmark classes that make the same
ones at the ``--quick`` sizes, a few lines over ``common``'s ``_CaseSuite`` or
``_ProbeSuite`` (``asv run --python=same --quick``, ``asv.conf.json`` in the repository
root); ``bench_rectilinear.py`` alone has none: it times whole processes and the disk, which
asv's timings of its own process cannot. What they share: ``timing.py`` (the one loop of
interleaved rounds, and a command in a process of its own), ``sources.py`` (every input
array), ``common.py`` (the libraries, the modes' arguments, verdicts, tables, cases and
probes). ``plot.py`` draws
``build_scaling.png`` from the JSON of a "build" run.
"""
