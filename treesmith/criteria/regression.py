"""Regression criteria computed exactly from additive per-bin statistics (Balcan and Sharma,
"Learning Accurate and Interpretable Decision Trees", 2024, §3.2).

A node's impurity is a function of column sums ``[n, W, S_wy, S_extra]`` with W = sum w,
S_wy = sum w y and one criterion-specific column, so children are scanned bin by bin and the
larger child comes from subtraction. All three criteria here are exact from those sums:

* mse: S_extra = sum w y^2; h = S_extra / W - mu^2, mu = S_wy / W.
* half Poisson deviance: S_extra = sum w y ln y; since sum w (y ln(y/mu) - y + mu) =
  S_extra - S_wy ln mu, h = S_extra / W - mu ln mu.
* Tweedie with power p in [0, 1]: with E_p(z) = (z^(1-p) - 1) / (1 - p) (E_1 = ln, E_0(z) = z - 1)
  and S_extra = sum w y E_p(y), the paper's mean deviance is
  h = 2 (S_extra / W - mu E_p(mu)) / (2 - p),
  the same quantity as (2/W) sum w (y^(2-p)/((1-p)(2-p)) - y mu^(1-p)/(1-p) + mu^(2-p)/(2-p)) but
  without its 0/0 at p = 1: E_p is evaluated with ``expm1``, so p -> 1 is continuous.

Balcan and Sharma print the middle term of the Tweedie deviance as y mu / (1 - p); a typo for
y mu^(1-p) / (1 - p) (Zhou et al. 2022; scikit-learn's ``mean_tweedie_deviance``), the only form
for which the stated limits hold. With the paper's factor 2, tweedie(0) = mse exactly and
tweedie(p -> 1) = 2 x half Poisson deviance (the same splits; the doubled scale shows in impurity
values and ``min_impurity_decrease``).

A node whose labels are all zero has mean 0; its deviance is 0 (pure), computed without log(0).
"""

import numpy as np
from numba import njit

from ._base import Parameter, RegressionCriterion, register
from ._compiled import impurity

#: Within this distance of p = 1 the Tweedie log-power E_p is the natural log.
_POWER_LIMIT_TOLERANCE = 1e-12


@impurity
def _mse(stats, params):
    """Weighted variance sum_wyy/sum_w - (sum_wy/sum_w)^2 from stats [n, sum_w, sum_wy, sum_wyy]."""
    sum_w = stats[1]
    if sum_w <= 0.0:
        return 0.0
    mean = stats[2] / sum_w
    value = stats[3] / sum_w - mean * mean
    return value if value > 0.0 else 0.0


@impurity
def _half_poisson_deviance(stats, params):
    """Half Poisson deviance S_wylny/W - mu ln mu from stats [n, W, S_wy, S_wylny].

    A node whose mean is (numerically) 0 gets +inf: a Poisson leaf predicting 0 has infinite
    deviance on any positive label, so such a child must never be chosen (scikit-learn rejects
    these splits too); valid nodes always have a positive sum.
    """
    sum_w = stats[1]
    if sum_w <= 0.0:
        return 0.0
    if stats[2] <= 1e-12 * sum_w:
        return np.inf
    mean = stats[2] / sum_w
    value = stats[3] / sum_w - mean * np.log(mean)
    return value if value > 0.0 else 0.0


@njit(cache=True, nogil=True)
def _tweedie_log(z, power):
    """E_p(z) = (z^(1-p) - 1) / (1 - p): z - 1 at p = 0, ln z at p = 1 (z > 0 unless p = 0)."""
    if power == 0.0:
        return z - 1.0
    shift = 1.0 - power
    if shift <= _POWER_LIMIT_TOLERANCE:
        return np.log(z)
    return np.expm1(shift * np.log(z)) / shift


@njit(cache=True, nogil=True)
def _tweedie_extra_column(y, sample_weight, power, out):
    """OUT ``out[i] = w_i y_i E_p(y_i)`` (0 for y_i = 0 when p > 0: y E_p(y) -> 0)."""
    for i in range(y.shape[0]):
        if power > 0.0 and y[i] <= 0.0:
            out[i] = 0.0
        else:
            out[i] = sample_weight[i] * y[i] * _tweedie_log(y[i], power)


@impurity
def _tweedie(stats, params):
    """Mean Tweedie deviance 2 (S_extra/W - mu E_p(mu)) / (2 - p) (Balcan and Sharma 2024,
    §3.2). params = [p]."""
    power = params[0]
    sum_w = stats[1]
    if sum_w <= 0.0:
        return 0.0
    mean = stats[2] / sum_w
    if power > 0.0 and mean <= 1e-12:
        return np.inf  # a zero-mean child is never a valid split (see _half_poisson_deviance)
    value = 2.0 * (stats[3] / sum_w - mean * _tweedie_log(mean, power)) / (2.0 - power)
    return value if value > 0.0 else 0.0


def _base_statistics(y, sample_weight, n_stats):
    y = np.asarray(y, dtype=np.float64)
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    stats = np.empty((y.shape[0], n_stats), dtype=np.float64)
    stats[:, 0] = 1.0
    stats[:, 1] = sample_weight
    stats[:, 2] = sample_weight * y
    return y, sample_weight, stats


def _check_non_negative(y, criterion):
    y = np.asarray(y, dtype=np.float64)
    if np.any(y < 0):
        raise ValueError(
            f"y must be non-negative for criterion {criterion}; found {int(np.sum(y < 0))} "
            f"negative label(s) (smallest {y.min()!r})."
        )
    return y


@register("squared_error", "mse")
class MSE(RegressionCriterion):
    """Mean squared error (weighted variance of the node's labels)."""

    formula = "(1/|y|) sum (y - mean(y))^2"
    impurity = staticmethod(_mse)

    def sample_statistics(self, y, sample_weight):
        y, sample_weight, stats = _base_statistics(y, sample_weight, 4)
        stats[:, 3] = sample_weight * y * y
        return stats


@register("poisson")
class Poisson(RegressionCriterion):
    """Half Poisson deviance (1/|y|) sum (y ln(y / mean) - y + mean) (Balcan and Sharma 2024,
    §3.2).

    Labels must be non-negative with a positive sum (as scikit-learn's ``poisson``). A split
    that leaves a child with only zero labels is never chosen: its deviance is +inf.
    """

    formula = "(1/|y|) sum (y log(y/mean) - y + mean), y >= 0"
    parameter_ranges = "no parameters; y >= 0, sum(y) > 0"
    impurity = staticmethod(_half_poisson_deviance)

    def validate_targets(self, y):
        y = _check_non_negative(y, "'poisson'")
        if not np.sum(y) > 0:
            raise ValueError(
                "y must have a positive sum for criterion 'poisson' (all labels are 0).")

    def sample_statistics(self, y, sample_weight):
        y, sample_weight, stats = _base_statistics(y, sample_weight, 4)
        with np.errstate(divide="ignore", invalid="ignore"):
            stats[:, 3] = np.where(y > 0, sample_weight * y * np.log(np.where(y > 0, y, 1.0)), 0.0)
        return stats


@register("tweedie")
class Tweedie(RegressionCriterion):
    """Mean Tweedie deviance with power p in [0, 1] (Balcan and Sharma 2024, §3.2).

    (2/|y|) sum (max(y,0)^(2-p)/((1-p)(2-p)) - y mean^(1-p)/(1-p) + mean^(2-p)/(2-p));
    p = 0 is mse, p -> 1 twice the half Poisson deviance. For p > 0 labels must be >= 0.
    """

    formula = ("(2/|y|) sum (y^(2-p)/((1-p)(2-p)) - y mean^(1-p)/(1-p) + mean^(2-p)/(2-p)); "
               "p=0: mse, p->1: 2 x half Poisson")
    parameter_ranges = "power p in [0, 1]; y >= 0 when p > 0"
    parameter_domains = {"power": Parameter(0.5, low=0.0, high=1.0, low_open=False)}
    impurity = staticmethod(_tweedie)

    def validate_targets(self, y):
        self._check_parameters()
        if float(self.power) > 0.0:
            _check_non_negative(y, f"'tweedie' with power={self.power} > 0")

    def sample_statistics(self, y, sample_weight):
        y, sample_weight, stats = _base_statistics(y, sample_weight, 4)
        _tweedie_extra_column(y, sample_weight, float(self.power), stats[:, 3])
        return stats
