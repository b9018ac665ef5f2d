"""The explainability objective: held-out error + eta * |leaves| (docs/methods.md §6, §8).

    L_eta(T) = L(T, D_heldout) + eta |leaves(T)|

Unlike cost-complexity pruning, where alpha |leaves| regularises the *training* objective, eta
is part of the *test* objective: it states how many points of error one leaf is worth. Over the
cost-complexity path of each candidate tree (trees grown with different splitting criteria or
parameters, Theorem 5.1 of the paper below) every distinct subtree is scored on held-out data
and the one with the smallest L_eta wins (ties: fewer leaves, then the earlier candidate).
Balcan & Sharma, "Learning accurate and interpretable decision trees" (2024), §5.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real

import numpy as np

from .._validation import Interval, check_parameter
from ..pruning._estimator import check_prunable, fitted_tree, held_out_data, with_tree
from ..pruning._held_out import sequence_losses, steps_applied, weighted_mean_and_se
from ..pruning.cost_complexity import check_risk, cost_complexity_path, subtree_breakpoints


@dataclass
class ExplainabilitySelection:
    """Result of :func:`select_by_explainability`.

    estimator : a pruned copy of the winning candidate.
    candidate : index of the winning candidate estimator.
    ccp_alpha, n_leaves, error, objective : the chosen subtree's alpha (a breakpoint of its
        path), size, held-out loss and L_eta.
    curves : one dict per candidate with ``ccp_alphas``, ``n_leaves``, ``error``, ``objective``
        over its distinct subtrees.
    """

    estimator: object = field(repr=False)
    candidate: int
    ccp_alpha: float
    n_leaves: int
    error: float
    objective: float
    eta: float
    curves: list = field(repr=False, default_factory=list)


def select_by_explainability(estimators, X, y, eta: float = 0.01, sample_weight=None,
                             risk: str = "impurity") -> ExplainabilitySelection:
    """Minimise held-out error (0/1 loss, or squared error for regressors) + eta * |leaves|.

    ``estimators``: one fitted tree estimator or a sequence of them (e.g. grown with different
    criteria); ``(X, y)``: held-out data not used to grow them.
    """
    check_risk(risk)
    # np.isfinite('x') raised a TypeError, [0.1] numpy's ambiguous truth; 2**63 overflowed
    # eta * n_leaves (int64)
    check_parameter("eta", eta, [Interval(Real, 0.0, None)], "select_by_explainability")
    eta = float(eta)
    candidates = list(estimators) if isinstance(estimators, (list, tuple)) else [estimators]
    if not candidates:
        raise ValueError("estimators must hold at least one fitted estimator.")
    best, curves = None, []
    for position, model in enumerate(candidates):
        check_prunable(model)  # C4.5: "property 'tree_' has no setter" at the end
        tree = fitted_tree(model)
        path = cost_complexity_path(tree, risk)
        alphas = subtree_breakpoints(path)
        n_steps = steps_applied(path.ccp_alphas[1:], alphas)
        indicator, target, weight = held_out_data(model, X, y, sample_weight)
        losses = sequence_losses(tree, path.pruned_nodes[1:], n_steps, indicator, target)
        error = weighted_mean_and_se(losses, weight)[0]
        n_leaves = path.n_leaves[n_steps]
        objective = error + eta * n_leaves
        curves.append({"ccp_alphas": alphas, "n_leaves": n_leaves, "error": error,
                       "objective": objective})
        k = int(np.lexsort((n_leaves, objective))[0])
        key = (objective[k], n_leaves[k])
        if best is None or key < best[0]:
            best = (key, position, k, int(n_steps[k]), path)
    (objective_value, n_leaves_value), position, k, steps, path = best
    model = candidates[position]
    tree = fitted_tree(model).collapse(path.pruned_nodes[1:steps + 1])
    return ExplainabilitySelection(
        estimator=with_tree(model, tree), candidate=position,
        ccp_alpha=float(curves[position]["ccp_alphas"][k]), n_leaves=int(n_leaves_value),
        error=float(curves[position]["error"][k]), objective=float(objective_value), eta=eta,
        curves=curves,
    )
