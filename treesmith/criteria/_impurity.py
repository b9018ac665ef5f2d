"""Compiled impurity functions h(pi, params) of the classic classification criteria (SPEC §3).

Each has the shared signature ``IMPURITY_SIGNATURE`` and is cached, so the split kernels that
take it through a function pointer are compiled once per installation.
"""

import numpy as np
from numba import njit

from .._dtypes import IMPURITY_SIGNATURE


@njit(IMPURITY_SIGNATURE, cache=True, nogil=True)
def gini(proportions, params):
    """Gini index 1 - sum_k pi_k^2 (Breiman et al. 1984; seed 004)."""
    total = 0.0
    for k in range(proportions.shape[0]):
        total += proportions[k] * proportions[k]
    return 1.0 - total


@njit(IMPURITY_SIGNATURE, cache=True, nogil=True)
def entropy(proportions, params):
    """Shannon entropy in bits, -sum_k pi_k log2 pi_k with 0 log 0 = 0."""
    total = 0.0
    for k in range(proportions.shape[0]):
        p = proportions[k]
        if p > 0.0:
            total -= p * np.log2(p)
    return total


@njit(IMPURITY_SIGNATURE, cache=True, nogil=True)
def misclassification(proportions, params):
    """Misclassification rate 1 - max_k pi_k."""
    largest = 0.0
    for k in range(proportions.shape[0]):
        if proportions[k] > largest:
            largest = proportions[k]
    return 1.0 - largest
