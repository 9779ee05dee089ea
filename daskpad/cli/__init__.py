"""The ``daskpad`` command: pad a zarr or netCDF dataset into a new zarr store.

``daskpad pad SRC DST --width lat=2 --width lon=3:5 --mode wrap`` opens SRC lazily with its own
chunks, pads the values xarray decodes from it as :func:`daskpad.xarray.pad2` does
(:func:`daskpad.xarray.store_numbers.pad_stored`), and writes DST as zarr with regular chunks,
showing progress. ``daskpad info`` describes SRC and what a padding would produce without
computing; ``daskpad demo`` shows it all on a small synthetic dataset.

Each command is parse -> open -> pad -> write:

- :mod:`daskpad.cli.command`: :func:`main` and :func:`build_parser`, exit statuses,
  Ctrl-C and SIGTERM (:mod:`daskpad.cli.stops`)
- :mod:`daskpad.cli.args`: the parser and the parsing of option values;
  :mod:`daskpad.cli.request`: the options read once into a frozen request, and one run of
  a command
- one module per subcommand: :mod:`daskpad.cli.pad_run`, :mod:`daskpad.cli.info`,
  :mod:`daskpad.cli.demo`
- the steps: :mod:`daskpad.cli.source` (open SRC and pad it), :mod:`daskpad.cli.budget`
  (within ``--memory``), :mod:`daskpad.cli.copy_plans` (stored chunks copied as bytes),
  :mod:`daskpad.cli.cluster` (dask.distributed), :mod:`daskpad.cli.write` (DST written
  whole or not at all); :mod:`daskpad.cli.io` and :mod:`daskpad.cli.encoding` (opening,
  checking, describing)

The installed command starts in ``_daskpad_launcher``, which answers Ctrl-C and SIGTERM while
this package is imported.
"""

from __future__ import annotations

from daskpad.cli.command import build_parser, main

__all__ = ["build_parser", "main"]
