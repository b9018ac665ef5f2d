"""Choosing ECART's λ on validation data (docs/methods.md §8).

The complexity-aware trees paper (EC4.5 / ECART, §6) tunes λ "by starting with a large λ and
gradually decreasing it before a significant drop (larger than 1%) is seen in the predictive
accuracy over the validation set": the tree keeps the accuracy of the impurity-driven tree
(large λ) while the B + E terms cut its expected cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real

import numpy as np

from .._validation import Interval, Options, check_parameter
from .instances import check_estimator_instance, check_labels

#: Default grid, largest first: from "behaves like cost-benefit gain" down to ASR (λ = 0).
DEFAULT_LAMBDAS = (1000.0, 300.0, 100.0, 30.0, 10.0, 3.0, 1.0, 0.3, 0.1, 0.03, 0.01, 0.0)


@dataclass
class LambdaSelection:
    """Result of :func:`select_lambda`; unpacks as ``lam, curve = select_lambda(...)``.

    Attributes:
        lam: the chosen λ.
        curve: λ -> (validation ROC AUC, validation expected cost), largest λ first, for every
            λ that was fitted.
        estimator: the estimator fitted with the chosen λ.
        start_auc: validation AUC at the largest λ, the reference the tolerance applies to.
    """

    lam: float
    curve: dict = field(default_factory=dict)
    estimator: object = None
    start_auc: float = float("nan")

    def __iter__(self):
        return iter((self.lam, self.curve))


def validation_auc(estimator, X, y) -> float:
    """ROC AUC of ``estimator.predict_proba`` (one-vs-rest, macro average, for multiclass)."""
    from sklearn.metrics import roc_auc_score

    proba = estimator.predict_proba(X)
    classes = estimator.classes_
    if len(classes) == 2:
        return float(roc_auc_score(y, proba[:, 1]))
    present = np.isin(classes, np.unique(y))
    if present.sum() < 2:
        raise ValueError("y_val must contain at least two classes to compute a ROC AUC.")
    scores = proba[:, present]
    scores = scores / np.maximum(scores.sum(axis=1, keepdims=True), np.finfo(float).tiny)
    return float(roc_auc_score(y, scores, multi_class="ovr", labels=classes[present]))


def select_lambda(estimator, X_train, y_train, X_val, y_val, lambdas=None, *,
                  sample_weight=None, tolerance=0.01, exhaustive=True,
                  choose="last") -> LambdaSelection:
    """The ECART paper's λ search: start at the largest λ and decrease it while the validation
    ROC AUC stays within ``tolerance`` (default 0.01, "1 point") of the AUC at the largest λ.

    ``estimator`` is a tree classifier with a ``split_rule`` parameter; each λ is fitted on a
    clone with ``split_rule=ECART(lam=λ)``. The chosen λ is the last one of the decreasing
    sequence before the first that falls out of tolerance. With ``exhaustive=True`` (default)
    the λ after that drop are still fitted, so that ``curve`` shows the whole trade-off; with
    ``exhaustive=False`` the search stops at the drop. Expected cost (on the validation set,
    unweighted) uses the estimator's own ``feature_costs_`` / ``cost_groups_`` / ``cost_model_``.

    ``choose="last"`` (default) is the protocol as written; ``choose="cheapest"`` takes,
    among the λ of that same in-tolerance run, the one of lowest validation expected cost
    (larger λ on ties) — the protocol's aim ("reduce the complexity as much as possible"),
    for data where the cost is not monotone in λ.
    """
    from sklearn.base import clone

    from ..metrics import expected_cost
    from ..rules import ECART

    if lambdas is None:
        lambdas = DEFAULT_LAMBDAS
    if isinstance(lambdas, (str, bytes)):  # '3' was converted to the float 3.0
        raise ValueError(f"lambdas must be a non-empty sequence of finite floats >= 0, got "
                         f"{lambdas!r}.")
    lambdas = np.asarray(lambdas, dtype=np.float64).ravel()
    if lambdas.size == 0 or not np.all(np.isfinite(lambdas)) or np.any(lambdas < 0):
        raise ValueError(f"lambdas must be a non-empty sequence of finite floats >= 0, "
                         f"got {lambdas!r}.")
    # np.isfinite('x') raised a TypeError, arrays numpy's ambiguous truth; exhaustive='no'
    # was true
    check_estimator_instance(estimator, "select_lambda")
    check_parameter("tolerance", tolerance, [Interval(Real, 0.0, None)], "select_lambda")
    check_parameter("choose", choose, [Options({"last", "cheapest"})], "select_lambda")
    check_parameter("exhaustive", exhaustive, ["boolean"], "select_lambda")
    tolerance = float(tolerance)
    check_labels(y_val, X_val, "select_lambda", "X_val", "y_val")
    lambdas = np.unique(lambdas)[::-1]

    fit_kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
    curve, fitted, run = {}, {}, []
    start_auc, dropped = None, False
    for lam in lambdas:
        model = clone(estimator).set_params(split_rule=ECART(lam=float(lam)))
        model.fit(X_train, y_train, **fit_kwargs)
        auc = validation_auc(model, X_val, y_val)
        curve[float(lam)] = (auc, float(expected_cost(model, X_val)))
        fitted[float(lam)] = model
        if start_auc is None:
            start_auc = auc
        if not dropped and auc >= start_auc - tolerance:
            run.append(float(lam))
        else:
            dropped = True
            if not exhaustive:
                break
    chosen = run[-1] if choose == "last" else min(run, key=lambda v: (curve[v][1], -v))
    fitted = {chosen: fitted[chosen]}
    return LambdaSelection(lam=chosen, curve=curve, estimator=fitted[chosen],
                           start_auc=float(start_auc))
