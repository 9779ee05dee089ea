"""The annotations of numpy arrays and dtypes of any kind, in forms that numpy 2.1's stubs
(which give a bare ``np.ndarray`` or ``np.dtype`` no type arguments) and newer ones both
take: an array's dtype parameter is covariant, so ``Values`` takes an array of any dtype.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

#: a numpy array of any dtype (a block, a padded array)
Values: TypeAlias = npt.NDArray[np.generic]
#: a numpy dtype of any kind
DType: TypeAlias = np.dtype[np.generic]
#: an array of positions, indices or counts
Positions: TypeAlias = npt.NDArray[np.intp]
#: an array of truth values (a mask, a comparison's result)
Flags: TypeAlias = npt.NDArray[np.bool]
#: a dtype whose kind (``dtype.kind``) the code tests as it runs, which numpy's stubs cannot
#: follow: unchecked where they need one kind (``finfo``, ``iinfo``, ``datetime_data``)
KnownKind: TypeAlias = np.dtype[Any]
#: an array that arithmetic is done on or any value is written into, of a dtype known only
#: as it runs, unchecked (numpy 2.1's stubs give arithmetic only to arrays of a known kind
#: of number or of an unchecked dtype, newer ones write only array_likes into the others)
Numbers: TypeAlias = np.ndarray[tuple[int, ...], KnownKind]
