"""The annotations of numpy arrays and dtypes of any kind, in forms that numpy 2.1's stubs
(which give a bare ``np.ndarray`` or ``np.dtype`` no type arguments) and newer ones both
take: an array's dtype parameter is covariant, so ``Values`` takes an array of any dtype.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
import numpy.typing as npt

#: a numpy array of any dtype (a block, a padded array, its positions)
Values: TypeAlias = npt.NDArray[np.generic]
#: a numpy dtype of any kind
DType: TypeAlias = np.dtype[np.generic]
#: an array of positions, indices or counts
Positions: TypeAlias = npt.NDArray[np.intp]
