"""Impurity criteria: a registry of compiled h(proportions, params) functions (SPEC §3).

Choose one by name (``criterion="gini"``) or by object (``criterion=Tsallis(alpha=2.45, beta=2)``);
``available()`` lists every family with its formula and parameter ranges. ``Custom(func, **params)``
compiles a plain Python impurity with Numba so it runs inside the same kernels.
"""

from ._base import (
    ConcavityWarning,
    Criterion,
    RegressionCriterion,
    available,
    registered,
    resolve_criterion,
)
from .classification import KM96, Entropy, Gini, Misclassification
from .custom import Custom
from .parametric import (
    ABI,
    GE,
    PE,
    PG,
    PR,
    PT,
    LossMatrixGini,
    Product,
    Renyi,
    Tsallis,
    TsallisClassic,
)
from .regression import MSE, Poisson, Tweedie

__all__ = [
    "ConcavityWarning",
    "Criterion",
    "RegressionCriterion",
    "available",
    "registered",
    "resolve_criterion",
    "Gini",
    "Entropy",
    "Misclassification",
    "LossMatrixGini",
    "Tsallis",
    "Renyi",
    "TsallisClassic",
    "PE",
    "PG",
    "PR",
    "PT",
    "GE",
    "ABI",
    "Product",
    "KM96",
    "Custom",
    "MSE",
    "Poisson",
    "Tweedie",
]
