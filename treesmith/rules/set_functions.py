"""Admissible impurity *set* functions of class counts, for minimax splits (docs/methods.md §3).

Nan, Wang & Saligrama, "Feature-Budgeted Random Forest" (ICML 2015), §2.2–2.3 and appendix:
a set function F of the examples in a node is *admissible* when it is non-negative, zero on
pure sets, monotone (F(G) ≥ F(R) for R ⊆ G), supermodular (F(G ∪ j) − F(G) ≥ F(R ∪ j) − F(R)
for R ⊆ G) and log F(S) = O(log n). With such an F the greedy minimax tree has a max-cost within
O(log n) of the optimum. Both functions below depend only on the class counts n_k of the set:

* threshold-Pairs (eq. 11), counting each unordered class pair once as in the paper's worked
  example (F₀ = 30·30 = 900 for 30/30):
  F_α(G) = Σ_{i<j} [ [n_i − α]₊ [n_j − α]₊ − α² ]₊ ,  α ≥ 0;
* Powers (eq. 14): F_l(G) = (Σ_k n_k)^l − Σ_k n_k^l ,  l = 2, 3, …

Counts may be weighted (bootstrap multiplicities, sample weights): the functions are evaluated
on the summed weights per class. The compiled kernels are ``treesmith._kernels.set_functions``;
the plain-Python references (``*_reference``) here are what the tests compare them with. The
objects are the ``impurity`` of ``treesmith.rules.Minimax`` and of the forests of
``treesmith.ensemble``.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._kernels.set_functions import POWERS, THRESHOLD_PAIRS, set_function_kernel
from .._parameters import ParameterObject
from .._validation import COUNT_LIMIT, Interval, check_parameter


def threshold_pairs_reference(counts, alpha) -> float:
    """Eq. 11 term by term, in Python (test oracle)."""
    counts = [float(c) for c in counts]
    return sum(max(max(counts[i] - alpha, 0.0) * max(counts[j] - alpha, 0.0) - alpha ** 2, 0.0)
               for i in range(len(counts)) for j in range(i + 1, len(counts)))


def powers_reference(counts, power) -> float:
    """Eq. 14 in Python (test oracle)."""
    counts = [float(c) for c in counts]
    return sum(counts) ** power - sum(c ** power for c in counts)


class SetFunction(ParameterObject):
    """Base of the admissible set functions: ``code``, one parameter, evaluation on counts."""

    code: int = -1
    name: str = ""
    formula: str = ""

    def __init__(self):
        self._check_parameters()

    def parameter(self) -> float:
        return float(self.parameters()[0])

    def __call__(self, counts) -> float:
        """F of a class-count vector (compiled kernel)."""
        counts = np.ascontiguousarray(counts, dtype=np.float64).ravel()
        if counts.size and (not np.all(np.isfinite(counts)) or counts.min() < 0):
            raise ValueError(f"{self.name}: class counts must be finite and >= 0, got "
                             f"{counts!r}.")
        self.check_total_weight(float(counts.sum()))
        return float(set_function_kernel(self.code, counts, self.parameter()))

    def bound_power(self) -> float:
        """p with F ≤ (Σ n)^p: 2 for threshold-Pairs (Σ_{i<j} n_i n_j ≤ (Σ n)² / 2)."""
        return 2.0

    def check_total_weight(self, total_weight: float) -> None:
        """Raise when F of a sample of this total weight may overflow float64.

        F grows as a power of the summed weights (weights near 1e160, or Powers(200) on 100
        rows, overflow it). F is monotone, so a finite bound at the whole sample keeps every
        node's F and every reduction F(S) − F(S_v) finite; otherwise the compiled kernels
        would make inf (a tree that cannot split) or inf − inf = NaN (Powers: F = 0, a
        "pure" root). F is not invariant to scaling the weights (α counts objects), so the
        weights are not rescaled silently.
        """
        exponent = self.bound_power()
        with np.errstate(over="ignore"):
            bound = np.float64(total_weight) ** exponent
        if not np.isfinite(bound):
            raise ValueError(
                f"sample_weight is too large for {self!r}: F of the whole sample (total "
                f"weight {total_weight:.3g}, F up to total^{exponent:g}) overflows float64. F "
                "counts objects: divide the weights by a constant (with threshold-Pairs, "
                "divide alpha by it too), or use a smaller Powers power.")


class ThresholdPairs(SetFunction):
    """threshold-Pairs F_α(G) = Σ_{i<j} [[n_i − α]₊[n_j − α]₊ − α²]₊ (Nan et al. 2015, eq. 11).

    α ≥ 0 tolerates up to about α objects of a minority class in a leaf: a node whose classes
    have at most α objects but one is already a leaf (F = 0), so larger α grows shallower,
    cheaper trees. α = 0 gives the number of impure pairs φ(S) (docs/methods.md §2).
    """

    code = THRESHOLD_PAIRS
    name = "threshold_pairs"
    formula = "sum_{i<j} [[n_i - alpha]_+ [n_j - alpha]_+ - alpha^2]_+"
    _param_names = ("alpha",)

    def __init__(self, alpha=0.0):
        self.alpha = alpha
        super().__init__()

    def _check_parameters(self):
        check_parameter("alpha", self.alpha, [Interval(Real, 0.0, None)], "ThresholdPairs")


class Powers(SetFunction):
    """Powers F_l(G) = (Σ_k n_k)^l − Σ_k n_k^l, l = 2, 3, … (Nan et al. 2015, eq. 14).

    l = 2 gives twice the number of impure pairs; larger l weighs large impure sets more.
    """

    code = POWERS
    name = "powers"
    formula = "(sum_k n_k)^l - sum_k n_k^l"
    _param_names = ("power",)

    def __init__(self, power=2):
        self.power = power
        super().__init__()

    def bound_power(self) -> float:
        return float(self.power)

    def _check_parameters(self):
        # eq. 14's l; the kernels take it as a float64, exact up to 2**53
        check_parameter("power", self.power, [Interval(Integral, 2, COUNT_LIMIT, "both")],
                        "Powers")


def resolve_set_function(impurity) -> SetFunction:
    """A SetFunction from an object or a name ("threshold_pairs", "powers")."""
    if isinstance(impurity, SetFunction):
        return impurity
    if isinstance(impurity, str) and impurity == "threshold_pairs":
        return ThresholdPairs()
    if isinstance(impurity, str) and impurity == "powers":
        return Powers()
    raise ValueError(f"impurity must be ThresholdPairs(alpha), Powers(power), "
                     f"'threshold_pairs' or 'powers', got {impurity!r}.")
