"""daskpad: numpy.pad for arrays that do not fit in memory, lazily, on Dask.

``import daskpad`` also registers the ``pad2`` accessor on ``xarray.Dataset`` and
``xarray.DataArray`` when xarray is installed (it is optional).
"""

from ._pad import pad

__version__ = "0.1.0"
__all__ = ["__version__", "pad"]

try:
    import xarray  # noqa: F401
except ImportError:  # pragma: no cover - xarray is optional
    pass
else:
    from . import xarray as _xarray  # noqa: F401  (registers ds.pad2 / da.pad2)
