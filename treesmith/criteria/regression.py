"""Regression criteria computed from additive per-bin statistics (seed 002 §3.2)."""

import numpy as np
from numba import njit

from .._dtypes import IMPURITY_SIGNATURE
from ._base import RegressionCriterion, register


@njit(IMPURITY_SIGNATURE, cache=True, nogil=True)
def _mse(stats, params):
    """Weighted variance sum_wyy/sum_w - (sum_wy/sum_w)^2 from stats [n, sum_w, sum_wy, sum_wyy]."""
    sum_w = stats[1]
    if sum_w <= 0.0:
        return 0.0
    mean = stats[2] / sum_w
    value = stats[3] / sum_w - mean * mean
    return value if value > 0.0 else 0.0


@register("squared_error", "mse")
class MSE(RegressionCriterion):
    """Mean squared error (weighted variance of the node's labels)."""

    formula = "(1/|y|) sum (y - mean(y))^2"

    def impurity_function(self):
        return _mse

    def sample_statistics(self, y, sample_weight):
        stats = np.empty((y.shape[0], 4), dtype=np.float64)
        stats[:, 0] = 1.0
        stats[:, 1] = sample_weight
        stats[:, 2] = sample_weight * y
        stats[:, 3] = sample_weight * y * y
        return stats
