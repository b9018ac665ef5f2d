"""Impurity criteria: a registry of compiled h(proportions, params) functions (docs/methods.md §3).

Choose one by name (``criterion="gini"``) or by object (``criterion=Tsallis(alpha=2.45, beta=2)``);
``available()`` lists every family with its formula and parameter ranges
(``print(describe_available())`` shows them as a table). ``Custom(func, **params)`` compiles a
plain Python impurity with Numba so it runs inside the same kernels; a new built-in family is a
:class:`Criterion` subclass declaring its parameters and compiled function, registered with
``register`` (docs/how-to-add-an-impurity.md).
"""

from ._base import (
    ConcavityWarning,
    Criterion,
    Parameter,
    RegressionCriterion,
    available,
    describe_available,
    register,
    registered,
    resolve_criterion,
)
from ._compiled import impurity
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
    "Parameter",
    "RegressionCriterion",
    "available",
    "describe_available",
    "impurity",
    "register",
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
