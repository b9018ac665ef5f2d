"""Parameterised classification criteria (docs/methods.md §3): Renyi, Tsallis and the
parameterised impurities PE, PG, PR, PT, GE, ABI of the parameterised-impurity (PIDT) paper; the
(alpha, beta)-Tsallis and product families of Balcan and Sharma, "Learning Accurate and
Interpretable Decision Trees" (2024); CART's loss-matrix Gini (Breiman et al. 1984).

Each family declares its parameters (``parameter_domains``) and compiled impurity; the base
class (:class:`treesmith.criteria.Criterion`) stores constructor arguments as given
(scikit-learn's ``clone`` checks identity), validates them with a ValueError naming the
parameter, and emits a :class:`ConcavityWarning` when they are legal but outside the range where
the family is proven concave. Exponents live in [EXPONENT_LOW, EXPONENT_HIGH] = [0.001, 100]
(``_checks``), where the families are numerically meaningful. Defaults recover the classic
member of the family (e.g. ``Tsallis()`` is Gini, ``PE()`` is entropy), so the registered string
names are usable too; the canonical way is the object with its parameters.
"""

import numpy as np

from . import _impurity
from ._base import Criterion, Parameter, register
from ._checks import EXPONENT_HIGH, EXPONENT_LOW
from ._compiled import compiled


def _exponent(default: float) -> Parameter:
    """An exponent of a family: a real in [EXPONENT_LOW, EXPONENT_HIGH]."""
    return Parameter(default, low=EXPONENT_LOW, high=EXPONENT_HIGH, low_open=False)


#: Tsallis' outer exponent beta: a positive integer, at most 100 (beyond, (sum pi^alpha)^beta
#: underflows for every impure node).
_BETA = Parameter(1, low=1.0, high=100.0, low_open=False, integer=True)


def _power_caveat(name, value, what):
    if value > 1.0:
        return (f"{name}={value} > 1: {what}^{name} is proven concave only for {name} in (0, 1] "
                f"(PIDT paper §2.2); gains may be negative.")
    return None


def _renyi_caveat(gamma):
    if gamma > 1.0:
        return (f"gamma={gamma} > 1: Renyi entropy is concave only for gamma in (0, 1] in general "
                f"(for two classes up to gamma = 2); gains may be negative.")
    return None


def _first(*caveats):
    for caveat in caveats:
        if caveat:
            return caveat
    return None


@register("loss_matrix_gini")
class LossMatrixGini(Criterion):
    """Loss-matrix Gini sum_{k != k'} L[k, k'] pi_k pi_k' (Breiman et al. 1984, §4.4).

    ``matrix[k, k']`` is the cost of classifying a class-k object as k' (rows and columns in the
    order of the estimator's ``classes_``): square, finite, non-negative, zero diagonal, one row
    per class. ``matrix=None`` is the 0-1 loss (every off-diagonal entry 1), i.e. Gini. The
    impurity is concave exactly when the symmetric part of L is negative semi-definite on
    {v : sum v = 0}; a matrix without that property is allowed with a :class:`ConcavityWarning`.
    """

    formula = "sum_{k!=k'} L[k,k'] pi_k pi_k'"
    parameter_ranges = ("matrix: K x K, finite, >= 0, zero diagonal, K = number of classes; "
                        "None = 0-1 loss (Gini)")
    _param_names = ("matrix",)

    def __init__(self, matrix=None):
        super().__init__(matrix=matrix)

    def _as_array(self, n_classes=2) -> np.ndarray:
        if self.matrix is None:
            return np.ones((n_classes, n_classes)) - np.eye(n_classes)
        try:
            matrix = np.asarray(self.matrix, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(
                f"matrix must be a square array of non-negative numbers, got {self.matrix!r}."
            ) from error
        return matrix

    def _check_parameters(self):
        matrix = self._as_array()
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 2:
            raise ValueError(
                f"matrix must be a square K x K array with K >= 2, got shape {matrix.shape}."
            )
        if not np.all(np.isfinite(matrix)):
            raise ValueError("matrix must contain only finite values.")
        if np.any(matrix < 0):
            raise ValueError("matrix must be non-negative (misclassification costs).")
        if np.any(np.diag(matrix) != 0):
            raise ValueError("matrix must have a zero diagonal (a correct class costs nothing).")

    def _check_n_classes(self, n_classes):
        if self.matrix is None:
            return
        size = self._as_array().shape[0]
        if size != n_classes:
            raise ValueError(
                f"matrix is {size} x {size} but the data has {n_classes} classes; give one row "
                f"and column per class, in the order of classes_."
            )

    def _largest_curvature(self) -> float:
        """Largest eigenvalue of the symmetric part of L on the tangent space {v : sum v = 0}
        of the simplex, relative to the largest entry (h = pi' L pi is a quadratic form)."""
        matrix = self._as_array()
        size = matrix.shape[0]
        symmetric = (matrix + matrix.T) / 2.0
        tangent = np.linalg.svd(np.ones((1, size)))[2][1:]  # orthonormal basis, sum v = 0
        curvature = np.linalg.eigvalsh(tangent @ symmetric @ tangent.T).max()
        return curvature / max(1.0, np.abs(symmetric).max())

    def concavity_caveat(self, n_classes=None):
        curvature = self._largest_curvature()
        if curvature > 1e-12:
            return ("the loss matrix is not negative semi-definite on the simplex (largest "
                    f"relative curvature {curvature:.3g} > 0), so this impurity is not concave "
                    "and gains may be negative.")
        return None

    def strictly_concave(self):
        return bool(self._largest_curvature() < -1e-12)

    def parameters(self):
        if self.matrix is None:
            return np.zeros(1)
        return np.ascontiguousarray(self._as_array(), dtype=np.float64).ravel()

    def impurity_function(self):
        return compiled(_impurity.gini if self.matrix is None else _impurity.loss_matrix_gini)


@register("tsallis")
class Tsallis(Criterion):
    """(alpha, beta)-Tsallis entropy (1 - (sum_k pi_k^alpha)^beta) / (alpha - 1) (Balcan and
    Sharma 2024, §3).

    alpha in [0.001, 100], beta an integer in [1, 100]. alpha -> 1 gives beta * (-sum pi ln pi)
    (nats; used within 1e-9 of 1); (2, 1) is Gini, (1/2, 2) is Kearns-Mansour. Proven concave
    for alpha not in (1/beta, 1) (Balcan and Sharma 2024, Prop. 3.2); inside that interval a
    ConcavityWarning is given.
    """

    formula = "(1 - (sum_k pi_k^alpha)^beta) / (alpha - 1); alpha->1: beta (-sum pi ln pi)"
    parameter_ranges = ("alpha in [0.001, 100], beta in {1, ..., 100}; concave when alpha not in "
                        "(1/beta, 1)")
    parameter_domains = {"alpha": _exponent(2.0), "beta": _BETA}
    impurity = staticmethod(_impurity.tsallis)
    near_one = ("alpha", _impurity.tsallis_near_one)
    strict_concavity = "where proven"

    def concavity_caveat(self, n_classes=None):
        alpha, beta = float(self.alpha), float(self.beta)
        if 1.0 / beta < alpha < 1.0 - _impurity.LIMIT_TOLERANCE:
            return (f"alpha={alpha} lies in (1/beta, 1) = ({1.0 / beta:.4g}, 1), where (alpha, "
                    "beta)-Tsallis is not proven concave (Balcan and Sharma 2024, Prop. 3.2); "
                    "gains may be negative.")
        return None


@register("renyi")
class Renyi(Criterion):
    """Renyi entropy log2(sum_k pi_k^gamma) / (1 - gamma) in bits (PIDT paper, eq. 3).

    Measured in bits so that gamma -> 1 is exactly ``entropy`` (the limit is used within 1e-9).
    """

    formula = "log2(sum_k pi_k^gamma) / (1 - gamma); gamma->1: entropy (bits)"
    parameter_ranges = "gamma in [0.001, 100]; concave for gamma <= 1 (binary: <= 2)"
    parameter_domains = {"gamma": _exponent(1.0)}
    impurity = staticmethod(_impurity.renyi)
    near_one = ("gamma", _impurity.renyi_near_one)
    strict_concavity = "where proven"

    def concavity_caveat(self, n_classes=None):
        return _renyi_caveat(float(self.gamma))


@register("tsallis_classic")
class TsallisClassic(Criterion):
    """Tsallis entropy (1 - sum_k pi_k^gamma) / (gamma - 1) (PIDT paper, eq. 4).

    The PIDT paper prints the denominator as 1 - gamma, which makes the value negative for every
    gamma; docs/methods.md §3 uses gamma - 1. gamma -> 1 gives -sum pi ln pi (nats). Concave
    for all
    gamma > 0; gamma = 2 is Gini.
    """

    formula = "(1 - sum_k pi_k^gamma) / (gamma - 1); gamma->1: -sum pi ln pi"
    parameter_ranges = "gamma in [0.001, 100] (concave for all)"
    parameter_domains = {"gamma": _exponent(2.0)}
    impurity = staticmethod(_impurity.tsallis_classic)
    near_one = ("gamma", _impurity.tsallis_classic_near_one)
    strict_concavity = "where proven"


@register("pe")
class PE(Criterion):
    """Parameterised entropy entropy^alpha, entropy in bits (PIDT paper, eq. 5); PE(1) = entropy."""

    formula = "(-sum_k pi_k log2 pi_k)^alpha"
    parameter_ranges = "alpha in [0.001, 1] (up to 100 allowed, not concave)"
    parameter_domains = {"alpha": _exponent(1.0)}
    impurity = staticmethod(_impurity.parameterised_entropy)
    strict_concavity = "where proven"

    def concavity_caveat(self, n_classes=None):
        return _power_caveat("alpha", float(self.alpha), "entropy")


@register("pg")
class PG(Criterion):
    """Parameterised Gini gini^alpha (PIDT paper, eq. 6); PG(1) = Gini."""

    formula = "(1 - sum_k pi_k^2)^alpha"
    parameter_ranges = "alpha in [0.001, 1] (up to 100 allowed, not concave)"
    parameter_domains = {"alpha": _exponent(1.0)}
    impurity = staticmethod(_impurity.parameterised_gini)
    strict_concavity = "where proven"

    def concavity_caveat(self, n_classes=None):
        return _power_caveat("alpha", float(self.alpha), "gini")


@register("pr")
class PR(Criterion):
    """Parameterised Renyi renyi_gamma^alpha, Renyi in bits (PIDT paper, eq. 7)."""

    formula = "(log2(sum_k pi_k^gamma) / (1 - gamma))^alpha"
    parameter_ranges = "alpha in [0.001, 1], gamma in [0.001, 100]; concave for gamma <= 1"
    parameter_domains = {"alpha": _exponent(1.0), "gamma": _exponent(1.0)}
    impurity = staticmethod(_impurity.parameterised_renyi)
    near_one = ("gamma", _impurity.parameterised_renyi_near_one)
    strict_concavity = "where proven"

    def concavity_caveat(self, n_classes=None):
        return _first(_power_caveat("alpha", float(self.alpha), "renyi"),
                      _renyi_caveat(float(self.gamma)))


@register("pt")
class PT(Criterion):
    """Parameterised Tsallis tsallis_classic_gamma^alpha (PIDT paper, eq. 8)."""

    formula = "((1 - sum_k pi_k^gamma) / (gamma - 1))^alpha"
    parameter_ranges = "alpha in [0.001, 1], gamma in [0.001, 100]"
    parameter_domains = {"alpha": _exponent(1.0), "gamma": _exponent(2.0)}
    impurity = staticmethod(_impurity.parameterised_tsallis)
    near_one = ("gamma", _impurity.parameterised_tsallis_near_one)
    strict_concavity = "where proven"

    def concavity_caveat(self, n_classes=None):
        return _power_caveat("alpha", float(self.alpha), "tsallis")


@register("ge")
class GE(Criterion):
    """Gini-entropy gini^alpha + entropy^beta, entropy in bits (PIDT paper, eq. 9)."""

    formula = "(1 - sum_k pi_k^2)^alpha + (-sum_k pi_k log2 pi_k)^beta"
    parameter_ranges = "alpha, beta in [0.001, 1] (up to 100 allowed, not concave)"
    parameter_domains = {"alpha": _exponent(1.0), "beta": _exponent(1.0)}
    impurity = staticmethod(_impurity.gini_entropy)
    strict_concavity = "where proven"

    def concavity_caveat(self, n_classes=None):
        return _first(_power_caveat("alpha", float(self.alpha), "gini"),
                      _power_caveat("beta", float(self.beta), "entropy"))


@register("abi")
class ABI(Criterion):
    """Alpha-beta impurity sum_k pi_k^alpha (1 - pi_k)^beta (PIDT paper, eq. 10); ABI(1, 1) = Gini.

    Concave for alpha, beta in (0, 1]: each term's second derivative is
    f [alpha(alpha-1)/x^2 + beta(beta-1)/(1-x)^2 - 2 alpha beta / (x(1-x))] <= 0.
    """

    formula = "sum_k pi_k^alpha (1 - pi_k)^beta"
    parameter_ranges = "alpha, beta in [0.001, 1] (up to 100 allowed, not concave)"
    parameter_domains = {"alpha": _exponent(1.0), "beta": _exponent(1.0)}
    impurity = staticmethod(_impurity.alpha_beta_impurity)
    strict_concavity = "where proven"

    def concavity_caveat(self, n_classes=None):
        for name in ("alpha", "beta"):
            value = float(getattr(self, name))
            if value > 1.0:
                return (f"{name}={value} > 1: ABI is proven concave only for alpha, beta in "
                        "(0, 1]; gains may be negative.")
        return None


@register("product")
class Product(Criterion):
    """Product family (prod_k pi_k)^gamma (Balcan and Sharma 2024, §3); binary: gamma = 1/2 is
    Kearns-Mansour and gamma = 1 Gini, up to constants.

    Proven concave for two classes (gamma in (0, 1]) and, for K classes, when gamma <= 1/K (a
    power <= 1 of the concave geometric mean). For K > 2 it is zero whenever a class is absent,
    not only at the vertices of the simplex.
    """

    formula = "(prod_k pi_k)^gamma"
    parameter_ranges = ("gamma in [0.001, 1] (up to 100 allowed); concave for 2 classes, for K "
                        "classes when gamma <= 1/K")
    parameter_domains = {"gamma": _exponent(1.0)}
    impurity = staticmethod(_impurity.product)
    strict_concavity = False  # zero on every face of the simplex when K > 2

    def concavity_caveat(self, n_classes=None):
        gamma = float(self.gamma)
        if gamma > 1.0:
            return (f"gamma={gamma} > 1: the product family is proven concave only for gamma in "
                    "(0, 1] (Balcan and Sharma 2024, §3); gains may be negative.")
        if n_classes is not None and n_classes > 2 and gamma > 1.0 / n_classes:
            return (f"gamma={gamma} > 1/K with K={n_classes} classes: (prod pi_k)^gamma is "
                    "proven concave only for two classes or gamma <= 1/K; gains may be negative.")
        return None

