"""Dtypes, sentinels and the signatures shared by every compiled kernel, in one place.

Everything that crosses the Python/Numba boundary is described here so that the kernels,
the grower and the estimators agree on a single layout.
"""

import numpy as np
from numba import types

#: Binned features: uint8 when every feature fits in 255 bins (plus one missing-value bin),
#: uint16 above (up to 65 535 bins).
X_BINNED_DTYPE_SMALL = np.uint8
X_BINNED_DTYPE_LARGE = np.uint16
MAX_BINS_LIMIT = 65535

#: Child index of a leaf (scikit-learn's convention).
TREE_LEAF = -1
#: Feature index stored for a leaf.
TREE_UNDEFINED = -2

#: Signature of every impurity function h(vector, params) -> float.
#: For classification the vector is the class-proportion vector pi (sums to 1);
#: for regression it is the node's vector of additive sufficient statistics.
IMPURITY_SIGNATURE = types.float64(types.float64[::1], types.float64[::1])
#: The first-class function type the split kernels take, so that one cached kernel serves
#: every impurity, built-in or user-defined.
IMPURITY_FUNCTION_TYPE = types.FunctionType(IMPURITY_SIGNATURE)

#: Small positive constant for "is this improvement / weight zero" decisions.
EPSILON = np.finfo(np.float64).eps

#: Cost models (docs/methods.md §5).
COST_PER_TEST = 0
COST_PER_FEATURE = 1
