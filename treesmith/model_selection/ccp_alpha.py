"""Choosing the cost-complexity strength alpha (Breiman et al. 1984 §3.4; docs/methods.md §6, §8).

:func:`select_ccp_alpha` chooses alpha on one dataset by K-fold cross-validation over the full
tree's breakpoints, evaluated at the geometric means ``sqrt(alpha_k alpha_{k+1})`` (CART
§3.4.2; ``candidates="cart"``) with the minimum or the one-standard-error rule, or exactly over
the union of all the folds' breakpoints (each held-out loss is piecewise constant in alpha, so
the minimiser lies at a breakpoint; Balcan & Sharma, "Learning accurate and interpretable
decision trees", 2024, §4; ``candidates="breakpoints"``). :func:`tune_ccp_alpha` is that exact
minimiser of the average held-out loss over several problem instances.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import is_classifier
from sklearn.utils import Bunch

from ..pruning._estimator import (
    check_prunable,
    check_sample_weight,
    fitted_tree,
    held_out_data,
    take_rows,
    unpruned_clone,
    with_tree,
)
from ..pruning._held_out import sequence_losses, steps_applied, weighted_mean_and_se
from ..pruning.cost_complexity import check_risk, cost_complexity_path, subtree_breakpoints
from .._validation import Options, check_parameter
from .execution import joblib_workers
from .instances import check_estimator_instance, check_labels, cv_folds

RULES = ("min", "1se")
CANDIDATES = ("cart", "breakpoints")

@dataclass
class CCPSelection:
    """Result of :func:`select_ccp_alpha`.

    ccp_alpha : the chosen alpha, a breakpoint of the full tree's path.
    n_leaves : leaves of the selected tree.
    estimator : a copy of the full tree pruned at ``ccp_alpha``.
    cv_alphas : the alphas evaluated by cross-validation (geometric means for "cart").
    cv_error, cv_error_se : held-out loss at each of them (error rate, or MSE for regression)
        and its standard error.
    cv_n_leaves : leaves of the full tree pruned at each ``cv_alphas`` value.
    path : the full tree's :func:`cost_complexity_path`.
    index : position of the choice in ``cv_alphas``.
    """

    ccp_alpha: float
    n_leaves: int
    estimator: object = field(repr=False)
    cv_alphas: np.ndarray = field(repr=False)
    cv_error: np.ndarray = field(repr=False)
    cv_error_se: np.ndarray = field(repr=False)
    cv_n_leaves: np.ndarray = field(repr=False)
    path: Bunch = field(repr=False)
    index: int = 0
    rule: str = "min"

    def as_dict(self) -> dict:
        return {
            "ccp_alpha": self.ccp_alpha, "n_leaves": self.n_leaves, "rule": self.rule,
            "cv_alphas": self.cv_alphas, "cv_error": self.cv_error,
            "cv_error_se": self.cv_error_se, "cv_n_leaves": self.cv_n_leaves,
        }


def _cart_candidates(breakpoints: np.ndarray) -> np.ndarray:
    """CART's beta_k = sqrt(alpha_k alpha_{k+1}), and +inf (the root alone) for the last."""
    low, high = breakpoints[:-1], breakpoints[1:]
    middles = np.where(low > 0, np.sqrt(np.clip(low, 0, None) * high), low)
    return np.append(middles, np.inf)


def _fold_path(estimator, X, y, sample_weight, train, risk):
    weight = None if sample_weight is None else sample_weight[train]
    model = unpruned_clone(estimator).fit(take_rows(X, train), take_rows(y, train),
                                          sample_weight=weight)
    return model, cost_complexity_path(fitted_tree(model), risk)


def _fold_losses(estimator, X, y, sample_weight, train, test, risk, candidates):
    """Per-sample held-out losses of the fold's tree pruned at each candidate alpha."""
    model, path = _fold_path(estimator, X, y, sample_weight, train, risk)
    return _losses_at(model, path, take_rows(X, test), take_rows(y, test), candidates)


def _losses_at(model, path, X, y, alphas):
    indicator, target, _ = held_out_data(model, X, y)
    order = np.argsort(alphas, kind="stable")
    n_steps = steps_applied(path.ccp_alphas[1:], alphas[order])
    losses = np.empty((indicator.shape[0], len(alphas)))
    losses[:, order] = sequence_losses(fitted_tree(model), path.pruned_nodes[1:], n_steps,
                                       indicator, target)
    return losses


def _choose(error: np.ndarray, error_se: np.ndarray, rule: str) -> int:
    """Index of the chosen candidate; candidates run from the largest tree to the smallest."""
    best = float(error.min())
    if rule == "min":
        return int(np.flatnonzero(error <= best)[-1])
    threshold = best + float(error_se[int(np.flatnonzero(error <= best)[-1])])
    return int(np.flatnonzero(error <= threshold)[-1])


def select_ccp_alpha(estimator, X, y, cv=5, rule: str = "min", risk: str = "impurity",
                     sample_weight=None, candidates: str = "cart", n_jobs=None
                     ) -> CCPSelection:
    """Choose alpha by K-fold cross-validation over the full tree's pruning path (CART §3.4).

    The full tree T_max is grown on all of ``(X, y)``; each fold grows its own tree on the
    training part and is scored, pruned at every candidate alpha, on its held-out part (0/1
    error for classifiers, squared error for regressors, weighted by ``sample_weight``).
    ``rule="min"`` takes the smallest CV error (ties: the smaller tree); ``rule="1se"`` the
    smallest tree within one standard error of it. Folds run in parallel with joblib
    (``n_jobs``; threads unless a ``joblib.parallel_backend`` says otherwise). ``cv`` is
    anything :func:`sklearn.model_selection.check_cv` accepts (stratified K-fold for
    classifiers when an int).
    """
    check_estimator_instance(estimator, "select_ccp_alpha")
    check_prunable(estimator)  # C4.5: "property 'tree_' has no setter" after the folds
    check_risk(risk)
    check_parameter("rule", rule, [Options(RULES)], "select_ccp_alpha")
    check_parameter("candidates", candidates, [Options(CANDIDATES)], "select_ccp_alpha")
    joblib_workers(n_jobs, 1, "select_ccp_alpha")
    y_array = check_labels(y, X, "select_ccp_alpha")
    weight = check_sample_weight(sample_weight, y_array.shape[0])
    # the folds take the checked weights (a scalar sample_weight was indexed by fold rows)
    fold_weight = None if sample_weight is None else weight
    folds = cv_folds(cv, y_array, is_classifier(estimator), "select_ccp_alpha")

    full = unpruned_clone(estimator).fit(X, y, sample_weight=sample_weight)
    path = cost_complexity_path(fitted_tree(full), risk)
    breakpoints = subtree_breakpoints(path)
    # Threads by default: the engine's kernels release the GIL and workers start instantly.
    parallel = Parallel(n_jobs=joblib_workers(n_jobs, len(folds), "select_ccp_alpha"),
                        prefer="threads")
    if candidates == "cart":
        cv_alphas = _cart_candidates(breakpoints)
        fold_losses = parallel(
            delayed(_fold_losses)(estimator, X, y, fold_weight, train, test, risk, cv_alphas)
            for train, test in folds
        )
    else:
        fitted = parallel(delayed(_fold_path)(estimator, X, y, fold_weight, train, risk)
                          for train, _ in folds)
        pooled = [breakpoints] + [subtree_breakpoints(fold_path) for _, fold_path in fitted]
        cv_alphas = np.unique(np.concatenate(pooled))
        fold_losses = [_losses_at(model, fold_path, take_rows(X, test), take_rows(y, test),
                                  cv_alphas)
                       for (model, fold_path), (_, test) in zip(fitted, folds)]

    losses = np.empty((y_array.shape[0], cv_alphas.size))
    for (_, test), fold_loss in zip(folds, fold_losses):
        losses[test] = fold_loss
    cv_error, cv_error_se = weighted_mean_and_se(losses, weight)
    index = _choose(cv_error, cv_error_se, rule)

    # The tree T_k the chosen candidate stands for, named by its breakpoint alpha_k.
    n_steps = steps_applied(path.ccp_alphas[1:], cv_alphas)
    cv_n_leaves = path.n_leaves[n_steps]
    chosen_steps = int(n_steps[index])
    alpha = float(np.maximum.accumulate(path.ccp_alphas)[chosen_steps])
    tree = fitted_tree(full).collapse(path.pruned_nodes[1:chosen_steps + 1])
    return CCPSelection(
        ccp_alpha=alpha, n_leaves=int(tree.n_leaves), estimator=with_tree(full, tree),
        cv_alphas=cv_alphas, cv_error=cv_error, cv_error_se=cv_error_se,
        cv_n_leaves=cv_n_leaves, path=path, index=index, rule=rule,
    )


def tune_ccp_alpha(instances, risk: str = "impurity") -> Bunch:
    """Exact ERM choice of alpha across problem instances (docs/methods.md §8; Balcan & Sharma 2024,
    Theorem 4.1).

    ``instances`` is a sequence of ``(fitted_estimator, X_heldout, y_heldout)`` (optionally a
    fourth item, the held-out sample weights). Each instance's held-out loss is piecewise
    constant in alpha with breakpoints on its own pruning path, so the average loss is minimised
    at one of the union of breakpoints: all are evaluated, no grid. Ties go to the larger alpha.

    Returns a Bunch with ``ccp_alpha``, ``alphas`` (the union), ``mean_loss`` (average over
    instances of each instance's mean held-out loss) and ``losses`` (instances x alphas).
    """
    check_risk(risk)
    if isinstance(instances, (str, bytes)) or not hasattr(instances, "__iter__") or getattr(
            instances, "ndim", 1) == 0:
        raise ValueError(f"instances must be a sequence of (fitted_estimator, X_heldout, "
                         f"y_heldout[, sample_weight]), got {type(instances).__name__}.")
    prepared = []
    for position, instance in enumerate(instances):
        if not isinstance(instance, (tuple, list)) or len(instance) not in (3, 4) \
                or not hasattr(instance[0], "get_params"):
            shown = (f"a {type(instance).__name__} of length {len(instance)} starting with a "
                     f"{type(instance[0]).__name__}"
                     if isinstance(instance, (tuple, list)) and len(instance) else
                     f"a {type(instance).__name__}")
            raise ValueError(f"instances[{position}] must be (fitted_estimator, X_heldout, "
                             f"y_heldout[, sample_weight]), got {shown}.")
        model, X, y, *rest = instance
        weight = rest[0] if rest else None
        prepared.append((model, cost_complexity_path(fitted_tree(model), risk), X, y, weight))
    if not prepared:
        raise ValueError("instances must hold at least one (estimator, X, y) triple.")
    alphas = np.unique(np.concatenate([subtree_breakpoints(path) for _, path, *_ in prepared]))
    table = np.empty((len(prepared), alphas.size))
    for row, (model, path, X, y, weight) in enumerate(prepared):
        losses = _losses_at(model, path, X, y, alphas)
        table[row] = weighted_mean_and_se(losses, check_sample_weight(weight, losses.shape[0]))[0]
    mean_loss = table.mean(axis=0)
    index = int(np.flatnonzero(mean_loss <= mean_loss.min())[-1])
    return Bunch(ccp_alpha=float(alphas[index]), alphas=alphas, mean_loss=mean_loss,
                 losses=table)
