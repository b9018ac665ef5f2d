"""Losses a parameter search minimises over problem instances (lower is better).

=================  =============================================================================
``"error"``        misclassification rate (classifiers), mean squared error (regressors)
``"auc"``          1 - ROC AUC of ``predict_proba`` (one-vs-rest macro average for > 2 classes)
``"expected_cost"`` expected feature-acquisition cost of the test rows (docs/methods.md §5)
``"explainability"`` error + eta * |leaves|: how many points of error a leaf is worth
                   (Balcan & Sharma, "Learning accurate and interpretable decision trees",
                   2024, §5; docs/methods.md §6)
callable           ``loss(fitted_estimator, X_test, y_test) -> float``
=================  =============================================================================
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Callable

import numpy as np
from sklearn.base import is_classifier

from .._validation import Interval, check_parameter

LOSSES = ("error", "auc", "expected_cost", "explainability")


@dataclass(frozen=True)
class Loss:
    """A named loss with its parameter (``eta`` for the explainability objective)."""

    name: str
    eta: float = 0.0
    function: Callable | None = None

    def __call__(self, model, X, y) -> float:
        if self.function is not None:
            value = float(self.function(model, X, y))
            if not np.isfinite(value):
                raise ValueError(f"the scoring callable returned {value!r}; it must return a "
                                 f"finite loss.")
            return value
        if self.name == "error":
            return prediction_error(model, X, y)
        if self.name == "explainability":
            return prediction_error(model, X, y) + self.eta * int(model.tree_.n_leaves)
        if self.name == "auc":
            from .lambda_selection import validation_auc

            return 1.0 - validation_auc(model, X, y)
        from ..metrics import expected_cost

        return float(expected_cost(model, X))

    @property
    def label(self) -> str:
        if self.function is not None:
            return getattr(self.function, "__name__", "loss")
        return f"error + {self.eta:g} * leaves" if self.name == "explainability" else self.name


def prediction_error(model, X, y) -> float:
    """Misclassification rate, or mean squared error for a regressor."""
    prediction = model.predict(X)
    y = np.asarray(y)
    if is_classifier(model):
        return float(np.mean(prediction != y))
    return float(np.mean((np.asarray(prediction, dtype=np.float64) - y) ** 2))


def check_scoring(scoring, eta, estimator) -> Loss:
    """The :class:`Loss` for ``scoring`` (a name of :data:`LOSSES` or a callable)."""
    # the validation room's interval: an int beyond int64 (10**30) was an object to
    # np.isfinite (a TypeError), one beyond float64 is refused by name
    check_parameter("eta", eta, [Interval(numbers.Real, 0.0, None)])
    if callable(scoring):
        return Loss("callable", float(eta), scoring)
    if not isinstance(scoring, str) or scoring not in LOSSES:
        raise ValueError(f"scoring must be one of {LOSSES} or a callable loss(estimator, X, y), "
                         f"got {scoring!r}.")
    if scoring == "auc" and not is_classifier(estimator):
        raise ValueError("scoring='auc' needs a classifier.")
    if scoring != "explainability" and eta != 0:
        raise ValueError(f"eta applies to scoring='explainability' only, not {scoring!r}.")
    return Loss(scoring, float(eta))
