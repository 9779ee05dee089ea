"""daskpad: numpy.pad for arrays that do not fit in memory, lazily, on Dask."""

from ._pad import pad

__version__ = "0.1.0"
__all__ = ["__version__", "pad"]
