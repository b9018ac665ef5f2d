"""Impurity criteria: a registry of compiled h(proportions, params) functions (SPEC §3).

Choose one by name (``criterion="gini"``) or by object (``criterion=Entropy()``);
``available()`` lists every family with its formula and parameter ranges.
"""

from ._base import Criterion, RegressionCriterion, available, registered, resolve_criterion
from .classification import Entropy, Gini, Misclassification
from .regression import MSE

__all__ = [
    "Criterion",
    "RegressionCriterion",
    "available",
    "registered",
    "resolve_criterion",
    "Gini",
    "Entropy",
    "Misclassification",
    "MSE",
]
