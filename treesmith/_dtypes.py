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

#: Task codes passed to the kernels.
CLASSIFICATION = 0
REGRESSION = 1

#: Signature of every impurity function h(vector, params) -> float.
#: For classification the vector is the class-proportion vector pi (sums to 1);
#: for regression it is the node's vector of additive sufficient statistics.
IMPURITY_SIGNATURE = types.float64(types.float64[::1], types.float64[::1])
#: The first-class function type the split kernels take, so that one cached kernel serves
#: every impurity, built-in or user-defined.
IMPURITY_FUNCTION_TYPE = types.FunctionType(IMPURITY_SIGNATURE)

#: Small positive constant for "is this improvement / weight zero" decisions.
EPSILON = np.finfo(np.float64).eps

#: Split-selection rules (SPEC §4), as passed to the kernels. The kernel computes each rule's
#: numerator per candidate; the division by the feature cost happens per node.
RULE_GAIN = 0  # p(S) * Delta_h
RULE_GAIN_RATIO = 1  # C4.5: gain / split info among features with at least average gain
RULE_COST_BENEFIT = 2  # gain / c
RULE_ECART = 3  # (B + E + lambda * D) / c; lambda = 0 is ASR
RULE_IMPURE_PAIRS = 4  # (phi(S) - sum_v phi(S_v)) / c
RULE_BALANCED = 5  # maximise -|p(left) - p(right)|

#: Cost models (SPEC §5).
COST_PER_TEST = 0
COST_PER_FEATURE = 1
