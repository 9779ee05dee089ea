"""Helpers for checking daskpad against numpy, for daskpad's tests and for users.

:func:`assert_pad_matches_numpy` runs ``numpy.pad`` (the oracle) and :func:`daskpad.pad` on the
same data and says precisely how they differ; :func:`chained_numpy_pad` is numpy.pad with a
mode per axis, by definition. The padding functions here (``pad_with_*``) are user functions
of every kind numpy accepts. The helpers need numpy and dask only
(:mod:`daskpad.testing.reference`); the ``hypothesis`` strategies that draw inputs
(:mod:`daskpad.testing.strategies`, also importable as :mod:`daskpad.strategies`) are
reachable here by name too where hypothesis is installed.

Examples
--------
>>> import numpy as np
>>> from daskpad.testing import assert_pad_matches_numpy
>>> assert_pad_matches_numpy(np.arange(5), ((2, 3),), 7, "reflect", reflect_type="odd")
"""

from daskpad.testing.functions import (
    pad_and_reverse_data,
    pad_inplace_and_return,
    pad_returning_new,
    pad_with_constant,
    pad_with_shuffled_line,
)
from daskpad.testing.reference import (
    DTYPES,
    assert_pad_matches_numpy,
    chained_numpy_pad,
    numpy_pad,
)

__all__ = [
    "DTYPES",
    "assert_pad_matches_numpy",
    "chained_numpy_pad",
    "numpy_pad",
    "pad_and_reverse_data",
    "pad_inplace_and_return",
    "pad_returning_new",
    "pad_with_constant",
    "pad_with_shuffled_line",
]

#: the names of :mod:`daskpad.testing.strategies` reachable here (its ``__all__``: a test
#: keeps the two equal)
STRATEGIES = [
    "CALLABLES",
    "PadCase",
    "chunkings",
    "data_arrays",
    "dtypes",
    "invalid_pad_cases",
    "mode_kwargs",
    "pad_cases",
    "pad_widths",
    "per_axis_kwargs",
    "per_axis_modes",
    "per_axis_pad_cases",
    "shapes",
]

try:
    import hypothesis  # noqa: F401
except ImportError:  # the helpers work without it; the strategies say what they need

    def __getattr__(name: str) -> object:
        if name in STRATEGIES:
            raise ImportError(f"daskpad.testing.{name} needs hypothesis (pip install hypothesis)")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

else:
    from daskpad.testing.strategies import *  # noqa: F403  (STRATEGIES: their __all__)

    __all__ += STRATEGIES
