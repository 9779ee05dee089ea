"""The ``daskpad`` command: pad a zarr or netCDF dataset into a new zarr store.

``daskpad pad SRC DST --width lat=2 --width lon=3:5 --mode wrap`` opens SRC lazily with its own
chunks, pads the values xarray decodes from it as :func:`daskpad.xarray.pad2` does, and writes
DST as zarr, showing progress. ``daskpad info`` describes SRC and what a padding would produce
without computing; ``daskpad demo`` shows it all on a small synthetic dataset.

The work is done by :mod:`daskpad.pipeline` (:func:`~daskpad.pipeline.plan_store`,
:func:`~daskpad.pipeline.pad_store`, :func:`~daskpad.pipeline.open_padded`,
:func:`~daskpad.pipeline.show_source`), which with :mod:`daskpad.pipeline.for_command` is
the command's one way into the library (an import-linter contract): this package parses
the command line, hands the pipeline its options and says how a run ended.
Its modules import each other at most four deep:

- :mod:`daskpad.cli.command`: :func:`main`, exit statuses, and the one line a run ends
  with on Ctrl-C, SIGTERM or an error
- :mod:`daskpad.cli.args`: :func:`build_parser` and the parsing of option values;
  :mod:`daskpad.cli.request`: the options read once into a frozen
  :class:`~daskpad.cli.request.Request` (:func:`~daskpad.cli.request.request_from`), which
  holds the pipeline's :class:`~daskpad.pipeline.PadOptions` and what only the command
  reads, and one run of a command
- :mod:`daskpad.cli.errors`: :class:`~daskpad.cli.errors.CliError`, a command line that
  asks for what cannot be done (exit status 2)
- one module per subcommand: :mod:`daskpad.cli.pad_run` (:func:`~daskpad.pipeline.plan_store`,
  then the plan's ``describe()`` for ``--dry-run`` or its ``write()``), :mod:`daskpad.cli.info`
  (:func:`~daskpad.pipeline.open_padded` and :func:`~daskpad.pipeline.show_source`),
  :mod:`daskpad.cli.demo` (:func:`~daskpad.pipeline.pad_store`)

The installed command starts in ``_daskpad_launcher``, which answers Ctrl-C and SIGTERM while
this package is imported.
"""

from __future__ import annotations

from daskpad.cli.command import build_parser, main

__all__ = ["build_parser", "main"]
