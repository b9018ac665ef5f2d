"""Compiled admissible set functions of class counts (docs/methods.md §3, §11).

Nan, Wang & Saligrama, "Feature-Budgeted Random Forest" (ICML 2015): threshold-Pairs (eq. 11,
each unordered class pair once) F_α = Σ_{i<j} [[n_i − α]₊[n_j − α]₊ − α²]₊ and Powers (eq. 14)
F_l = (Σ n_k)^l − Σ n_k^l. Each kernel evaluates F on the counts ``a[k] + b_scale * b[k]``
(k < ``n_classes``), so that the split scan gets F of a node (left + right, ``b_scale`` = 1) or
of one child (``b_scale`` = 0) from the children's statistics rows without allocating. The
Python objects and plain-Python references are ``treesmith.rules.set_functions``.
"""

import numpy as np
from numba import njit

#: Set-function codes (``Minimax`` rule parameter 0, GreedyTree's ``set_code``).
THRESHOLD_PAIRS = 0
POWERS = 1


@njit(cache=True, nogil=True)
def threshold_pairs_of_sum(a, b, b_scale, n_classes, alpha):
    """F_α (eq. 11) of the counts a + b_scale·b."""
    total = 0.0
    alpha_squared = alpha * alpha
    for i in range(n_classes):
        excess_i = a[i] + b_scale * b[i] - alpha
        if excess_i <= 0.0:
            continue
        for j in range(i + 1, n_classes):
            excess_j = a[j] + b_scale * b[j] - alpha
            if excess_j <= 0.0:
                continue
            term = excess_i * excess_j - alpha_squared
            if term > 0.0:
                total += term
    return total


@njit(cache=True, nogil=True)
def powers_of_sum(a, b, b_scale, n_classes, power):
    """F_l (eq. 14) of the counts a + b_scale·b."""
    total = 0.0
    sum_powers = 0.0
    for k in range(n_classes):
        count = a[k] + b_scale * b[k]
        total += count
        sum_powers += count ** power
    value = total ** power - sum_powers
    # rounding can leave -0 (or a negative rounding error) on pure sets; an overflow (inf -
    # inf) stays NaN, never 0: an impure set must not look pure
    return 0.0 if value <= 0.0 else value


@njit(cache=True, nogil=True)
def set_function_of_sum(code, a, b, b_scale, n_classes, parameter):
    """Dispatch on the set-function ``code`` (THRESHOLD_PAIRS or POWERS)."""
    if code == THRESHOLD_PAIRS:
        return threshold_pairs_of_sum(a, b, b_scale, n_classes, parameter)
    return powers_of_sum(a, b, b_scale, n_classes, parameter)


@njit(cache=True, nogil=True)
def set_function_kernel(code, counts, parameter):
    """F of one class-count vector ``counts`` (float64, one entry per class)."""
    return set_function_of_sum(code, counts, counts, 0.0, counts.shape[0], parameter)
