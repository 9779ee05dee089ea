"""What the test modules share, imported as ``helpers.<module>`` (tests/ is on sys.path:
pytest inserts the rootdir of tests/conftest.py). No test module imports another.

- ``cli_launcher``: ``daskpad`` as the installed command runs it, with faults the tests
  inject; also run as a script (``python tests/helpers/cli_launcher.py ARGS...``).
- ``counted_blocks``: an array whose blocks are generated on demand and counted while
  alive (how many input blocks a write holds at once).
- ``encoded_data``: the dataset of encoded variables the command tests pad, and the
  command's options each case pads it with.
- ``graphfacts``: facts read out of dask graphs (input blocks read, tasks, aliases, nesting).
- ``labelled_data``: the small dataset the ``pad2`` tests pad, its chunks and widths.
- ``markers``: marks the test modules share (``WRITES``).
- ``stores``: small zarr stores the command tests write (plain, sharded), what their
  metadata says, the chunks zarr reads, the mark for tests needing rectilinear grids.
- ``throwaway_modules``: a module of the tests' own, written to a file and imported as a
  user's module would be.

Fixtures more than one test module uses are in tests/conftest.py.
"""
