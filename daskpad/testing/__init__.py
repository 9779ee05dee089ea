"""Helpers for checking daskpad against numpy, for daskpad's tests and for users.

:func:`assert_pad_matches_numpy` runs ``numpy.pad`` (the oracle) and :func:`daskpad.pad` on the
same data and says precisely how they differ; :func:`chained_numpy_pad` is numpy.pad with a
mode per axis, by definition. The padding functions here (``pad_with_*``) are user functions
of every kind numpy accepts. The helpers need numpy and dask only
(:mod:`daskpad.testing.reference`); the ``hypothesis`` strategies that draw inputs
(:mod:`daskpad.testing.hypothesis_strategies`, also importable as :mod:`daskpad.strategies`) are
reachable here by name too where hypothesis is installed.

Examples
--------
>>> import numpy as np
>>> from daskpad.testing import assert_pad_matches_numpy
>>> assert_pad_matches_numpy(np.arange(5), ((2, 3),), 7, "reflect", reflect_type="odd")
"""

from daskpad.testing.available import HYPOTHESIS, STRATEGIES
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

if HYPOTHESIS:
    from daskpad.testing.hypothesis_strategies import *  # noqa: F403  (STRATEGIES: their __all__)

    __all__ += STRATEGIES
else:  # the helpers work without it; the strategies say what they need
    from daskpad.testing.available import refuse_strategy as __getattr__  # noqa: F401
