"""daskpad: numpy.pad for arrays that do not fit in memory, lazily, on Dask.

``import daskpad`` also registers the ``pad2`` accessor on ``xarray.Dataset`` and
``xarray.DataArray`` when xarray is installed (it is optional).
"""

from importlib.util import find_spec

from daskpad.api.overlap import map_overlap
from daskpad.api.pad import pad
from daskpad.api.shapes import crop, pad_to, widths_for
from daskpad.core.registry import edge_function
from daskpad.store.writing.array_writer import to_zarr

__version__ = "0.1.0"
__all__ = [
    "__version__",
    "crop",
    "edge_function",
    "map_overlap",
    "pad",
    "pad_to",
    "to_zarr",
    "widths_for",
]

if find_spec("xarray") is not None:
    # (imported by name: a plain ``import xarray`` here would bind ``daskpad.xarray`` to
    # xarray itself and hide our submodule)
    from daskpad import xarray as _xarray  # noqa: F401  registers ds.pad2 / da.pad2
