"""Compiled impurity functions h(pi, params) of every classification family (docs/methods.md §3).

Each public function is an ``@impurity``, compiled for the shared signature ``IMPURITY_SIGNATURE``
(or loaded from Numba's disk cache) when a criterion first uses it, so importing this module
costs nothing and a fit compiles only its own criterion; the split kernels take it through a
function pointer and are compiled once per installation. ``pi`` is the class-proportion vector
(non-negative, sums to 1); ``params`` the family's parameters in the order of the criterion
class's ``_param_names``.

Conventions:

* 0 · log 0 = 0; a class with proportion 0 contributes nothing to a sum over classes.
* entropy, renyi, PE, PR and GE measure in **bits** (log base 2), so that renyi(γ → 1) and
  PE(1) equal ``entropy`` exactly; tsallis and tsallis_classic are power sums whose α → 1
  limits are in **nats** (−Σ π ln π), as the formulas give.
* Parameterised families whose value feeds a power (PE, PG, PR, PT, GE) or can round below zero
  are clamped at 0, so a rounding error of 1e-17 never turns into a NaN.
* Near a removable singularity (α or γ → 1) the ``*_near_one`` variants use
  Σ π^a − 1 = Σ π (π^(a−1) − 1) with ``expm1`` (no cancellation), and within
  ``LIMIT_TOLERANCE`` of 1 the analytic limit. They are separate functions, chosen once by the
  criterion object, because the rarely used branch slows the common one down ~3x when both
  live in one compiled function.
* Helpers that take the proportion vector are inlined by Numba (``inline="always"``): a
  compiled call with an array argument costs reference counting, ~20 ns, more than the work.
"""

import numpy as np
from numba import njit

from ._compiled import impurity

#: Within this distance of a removable singularity (α = 1, γ = 1) the analytic limit is used.
LIMIT_TOLERANCE = 1e-9
#: Closer than this to 1, a family with a removable singularity uses its ``*_near_one`` variant
#: (sums of expm1, no cancellation); beyond it the direct power sum loses at most ~1e-12 to
#: cancellation and is several times faster. The criterion classes choose the variant.
NEAR_ONE = 1e-3
_LN2 = np.log(2.0)


# -- shared building blocks ------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _power(x, exponent):
    """x ** exponent for x >= 0; the common exponents (1/2, 1, 2, 3, 4) without ``pow``."""
    if exponent == 2.0:
        return x * x
    if exponent == 0.5:
        return np.sqrt(x)
    if exponent == 1.0:
        return x
    if exponent == 3.0:
        return x * x * x
    if exponent == 4.0:
        square = x * x
        return square * square
    return x ** exponent


@njit(cache=True, nogil=True)
def _integer_power(x, n):
    """x ** n for a positive integer n (given as a float) by repeated squaring."""
    result = 1.0
    base = x
    remaining = int(n)
    while remaining > 0:
        if remaining & 1:
            result *= base
        base *= base
        remaining >>= 1
    return result


@njit(cache=True, nogil=True, inline="always")
def _gini(proportions):
    total = 0.0
    for k in range(proportions.shape[0]):
        total += proportions[k] * proportions[k]
    return 1.0 - total


@njit(cache=True, nogil=True, inline="always")
def _entropy_nats(proportions):
    total = 0.0
    for k in range(proportions.shape[0]):
        p = proportions[k]
        if p > 0.0:
            total -= p * np.log(p)
    return total


@njit(cache=True, nogil=True, inline="always")
def _power_sum(proportions, exponent):
    """sum_k pi_k^a over the classes present."""
    total = 0.0
    for k in range(proportions.shape[0]):
        p = proportions[k]
        if p > 0.0:
            total += _power(p, exponent)
    return total


@njit(cache=True, nogil=True, inline="always")
def _power_sum_minus_one_near_one(proportions, exponent):
    """sum_k pi_k^a - 1 as sum_k pi_k expm1((a - 1) ln pi_k): no cancellation when a ~ 1
    (equal to the direct sum when sum_k pi_k = 1)."""
    total = 0.0
    shift = exponent - 1.0
    for k in range(proportions.shape[0]):
        p = proportions[k]
        if p > 0.0:
            total += p * np.expm1(shift * np.log(p))
    return total


@njit(cache=True, nogil=True, inline="always")
def _renyi_bits(proportions, gamma):
    value = np.log2(_power_sum(proportions, gamma)) / (1.0 - gamma)
    return value if value > 0.0 else 0.0


@njit(cache=True, nogil=True, inline="always")
def _renyi_bits_near_one(proportions, gamma):
    if abs(gamma - 1.0) <= LIMIT_TOLERANCE:
        return _entropy_nats(proportions) / _LN2
    excess = _power_sum_minus_one_near_one(proportions, gamma)
    value = np.log1p(excess) / (_LN2 * (1.0 - gamma))
    return value if value > 0.0 else 0.0


@njit(cache=True, nogil=True, inline="always")
def _tsallis_classic(proportions, gamma):
    value = (1.0 - _power_sum(proportions, gamma)) / (gamma - 1.0)
    return value if value > 0.0 else 0.0


@njit(cache=True, nogil=True, inline="always")
def _tsallis_classic_near_one(proportions, gamma):
    if abs(gamma - 1.0) <= LIMIT_TOLERANCE:
        return _entropy_nats(proportions)
    value = -_power_sum_minus_one_near_one(proportions, gamma) / (gamma - 1.0)
    return value if value > 0.0 else 0.0


@njit(cache=True, nogil=True)
def _nonnegative_power(value, exponent):
    return _power(value, exponent) if value > 0.0 else 0.0


# -- classic impurities (Breiman et al. 1984) --------------------------------------

@impurity
def gini(proportions, params):
    """Gini index 1 - sum_k pi_k^2 (Breiman et al. 1984)."""
    return _gini(proportions)


@impurity
def entropy(proportions, params):
    """Shannon entropy in bits, -sum_k pi_k log2 pi_k with 0 log 0 = 0."""
    total = 0.0
    for k in range(proportions.shape[0]):
        p = proportions[k]
        if p > 0.0:
            total -= p * np.log2(p)
    return total


@impurity
def misclassification(proportions, params):
    """Misclassification rate 1 - max_k pi_k."""
    largest = 0.0
    for k in range(proportions.shape[0]):
        if proportions[k] > largest:
            largest = proportions[k]
    return 1.0 - largest


@impurity
def loss_matrix_gini(proportions, params):
    """Loss-matrix Gini sum_{k != k'} L[k, k'] pi_k pi_k' (Breiman et al. 1984, CART §4.4).

    ``params`` is the K x K loss matrix flattened in C order (zero diagonal), K the length of
    ``proportions``. The size is not checked here (a check costs as much as the sum); the
    criterion's ``validate(n_classes)``, which every fit and call runs first, refuses a matrix
    of the wrong size.
    """
    n_classes = proportions.shape[0]
    total = 0.0
    for k in range(n_classes):
        row = 0.0
        for other in range(n_classes):
            row += params[k * n_classes + other] * proportions[other]
        total += proportions[k] * row
    return total


# -- Balcan and Sharma 2024, §3: (alpha, beta)-Tsallis, product-gamma, Kearns-Mansour --------

@impurity
def tsallis(proportions, params):
    """(alpha, beta)-Tsallis (1 - (sum_k pi_k^alpha)^beta) / (alpha - 1), C = 1
    (Balcan and Sharma 2024, §3).

    params = [alpha, beta], beta a positive integer; for |alpha - 1| >= NEAR_ONE
    (``tsallis_near_one`` covers the rest).
    """
    alpha = params[0]
    beta = params[1]
    power_sum = _power_sum(proportions, alpha)
    if beta != 1.0:
        power_sum = _integer_power(power_sum, beta)
    value = (1.0 - power_sum) / (alpha - 1.0)
    return value if value > 0.0 else 0.0


@impurity
def tsallis_near_one(proportions, params):
    """(alpha, beta)-Tsallis for |alpha - 1| < NEAR_ONE, without cancellation:
    -expm1(beta log1p(sum_k pi_k^alpha - 1)) / (alpha - 1), and within LIMIT_TOLERANCE the
    limit beta * (-sum_k pi_k ln pi_k) (Balcan and Sharma 2024, App. B)."""
    alpha = params[0]
    beta = params[1]
    if abs(alpha - 1.0) <= LIMIT_TOLERANCE:
        return beta * _entropy_nats(proportions)
    excess = _power_sum_minus_one_near_one(proportions, alpha)
    value = -np.expm1(beta * np.log1p(excess)) / (alpha - 1.0)
    return value if value > 0.0 else 0.0


@impurity
def km96(proportions, params):
    """Kearns-Mansour (1996) criterion = tsallis(1/2, 2) = 2((sum_k sqrt(pi_k))^2 - 1)
    = 2 sum_{i != j} sqrt(pi_i pi_j) (ordered pairs); binary: 4 sqrt(pi (1 - pi))
    (Balcan and Sharma 2024, Prop. 3.1)."""
    total = 0.0
    for k in range(proportions.shape[0]):
        total += np.sqrt(proportions[k])
    value = 2.0 * (total * total - 1.0)
    return value if value > 0.0 else 0.0


@impurity
def product(proportions, params):
    """Product family (prod_k pi_k)^gamma (Balcan and Sharma 2024, §3, C = 1). params = [gamma]."""
    gamma = params[0]
    value = 1.0
    for k in range(proportions.shape[0]):
        if proportions[k] <= 0.0:
            return 0.0
        value *= proportions[k]
    if value > 1e-300:
        return _power(value, gamma)
    # Many classes: the product underflows although its gamma-th power may not.
    log_value = 0.0
    for k in range(proportions.shape[0]):
        log_value += np.log(proportions[k])
    return np.exp(gamma * log_value)


# -- PIDT paper §2: Renyi, Tsallis and the parameterised impurities ----------------------------

@impurity
def renyi(proportions, params):
    """Renyi entropy in bits log2(sum_k pi_k^gamma) / (1 - gamma) (001 eq. 3); params = [gamma],
    |gamma - 1| >= NEAR_ONE."""
    return _renyi_bits(proportions, params[0])


@impurity
def renyi_near_one(proportions, params):
    """Renyi entropy for |gamma - 1| < NEAR_ONE; gamma -> 1 is entropy (bits)."""
    return _renyi_bits_near_one(proportions, params[0])


@impurity
def tsallis_classic(proportions, params):
    """Tsallis entropy (1 - sum_k pi_k^gamma) / (gamma - 1) (PIDT paper eq. 4, sign as in
    docs/methods.md §3);
    params = [gamma], |gamma - 1| >= NEAR_ONE."""
    return _tsallis_classic(proportions, params[0])


@impurity
def tsallis_classic_near_one(proportions, params):
    """Tsallis entropy for |gamma - 1| < NEAR_ONE; gamma -> 1 is -sum_k pi_k ln pi_k (nats)."""
    return _tsallis_classic_near_one(proportions, params[0])


@impurity
def parameterised_entropy(proportions, params):
    """PE = entropy^alpha (001 eq. 5), entropy in bits. params = [alpha]."""
    return _nonnegative_power(_entropy_nats(proportions) / _LN2, params[0])


@impurity
def parameterised_gini(proportions, params):
    """PG = gini^alpha (001 eq. 6). params = [alpha]."""
    return _nonnegative_power(_gini(proportions), params[0])


@impurity
def parameterised_renyi(proportions, params):
    """PR = renyi_gamma^alpha (001 eq. 7), renyi in bits. params = [alpha, gamma],
    |gamma - 1| >= NEAR_ONE."""
    return _nonnegative_power(_renyi_bits(proportions, params[1]), params[0])


@impurity
def parameterised_renyi_near_one(proportions, params):
    """PR for |gamma - 1| < NEAR_ONE."""
    return _nonnegative_power(_renyi_bits_near_one(proportions, params[1]), params[0])


@impurity
def parameterised_tsallis(proportions, params):
    """PT = tsallis_classic_gamma^alpha (001 eq. 8). params = [alpha, gamma],
    |gamma - 1| >= NEAR_ONE."""
    return _nonnegative_power(_tsallis_classic(proportions, params[1]), params[0])


@impurity
def parameterised_tsallis_near_one(proportions, params):
    """PT for |gamma - 1| < NEAR_ONE."""
    return _nonnegative_power(_tsallis_classic_near_one(proportions, params[1]), params[0])


@impurity
def gini_entropy(proportions, params):
    """GE = gini^alpha + entropy^beta (001 eq. 9), entropy in bits. params = [alpha, beta]."""
    return (_nonnegative_power(_gini(proportions), params[0])
            + _nonnegative_power(_entropy_nats(proportions) / _LN2, params[1]))


@impurity
def alpha_beta_impurity(proportions, params):
    """ABI = sum_k pi_k^alpha (1 - pi_k)^beta (001 eq. 10). params = [alpha, beta]."""
    alpha = params[0]
    beta = params[1]
    total = 0.0
    for k in range(proportions.shape[0]):
        p = proportions[k]
        if 0.0 < p < 1.0:
            total += _power(p, alpha) * _power(1.0 - p, beta)
    return total
