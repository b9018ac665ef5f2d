"""Minimal cost-complexity pruning (Breiman et al. 1984 ch. 3 and 11; Balcan and Sharma 2024, §4).

    R_alpha(T) = R(T) + alpha |leaves(T)|,    g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1).

Weakest-link cutting collapses the internal node of smallest g(t) until only the root is left;
the strengths met on the way are the breakpoints ``alpha_0 = 0 <= alpha_1 <= ...`` and the
subtree pruned at alpha is the one reached before the first strength above alpha. ``R`` is the
weighted impurity ``w(t)/w(root) * impurity(t)`` (``risk="impurity"``, the default, for which the
path equals scikit-learn's ``cost_complexity_pruning_path``) or Breiman's weighted
misclassification cost (``risk="misclassification"``).

Choosing alpha (K-fold CV, exact ERM across problem instances) lives in
:mod:`treesmith.model_selection`.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from ..tree import Tree
from ._estimator import fitted_tree, unpruned_clone
from ._node_statistics import resubstitution_risk
from ._parameters import check_pruning_parameters
from ._traversal import at_most, prune_weakest_link

RISKS = ("impurity", "misclassification")


def check_risk(risk: str) -> None:
    if not isinstance(risk, str) or risk not in RISKS:
        raise ValueError(f"risk must be one of {RISKS}, got {risk!r}.")


def cost_complexity_path(tree: Tree, risk: str = "impurity") -> Bunch:
    """The whole weakest-link sequence of ``tree``.

    Returns a Bunch with, per step k (step 0 = the full tree):
    ``ccp_alphas`` (the weakest link's strength, 0 for step 0; non-negative and
    non-decreasing, rounding below the previous value clipped, docs/methods.md §6), ``impurities`` (R(T_k), named
    as in scikit-learn), ``n_leaves`` and ``pruned_nodes`` (the node collapsed at step k, -1 for
    step 0); and ``risk``.
    """
    check_risk(risk)
    alphas, risks, leaves, nodes = [], [], [], []

    def record(strength, node, state):
        risk_of_tree, n_leaves = state.risk_and_leaves(0)
        # In exact arithmetic the strengths met are >= 0 and non-decreasing; R(t) - R(T_t)
        # summed in another order can come out a few ulps below 0 (or below the strength
        # before), which the path clips: alpha_k = max(g_k, alpha_{k-1}), alpha_0 = 0.
        alphas.append(max(strength, alphas[-1]) if alphas else 0.0)
        nodes.append(node)
        risks.append(risk_of_tree)
        leaves.append(n_leaves)

    prune_weakest_link(tree, resubstitution_risk(tree, risk), record=record)
    return Bunch(
        ccp_alphas=np.asarray(alphas),
        impurities=np.asarray(risks),
        n_leaves=np.asarray(leaves, dtype=np.int64),
        pruned_nodes=np.asarray(nodes, dtype=np.int64),
        risk=risk,
    )


def prune_tree_ccp(tree: Tree, ccp_alpha: float, risk: str = "impurity") -> Tree:
    """The subtree minimising R_alpha: weakest links collapsed while their strength <= alpha."""
    check_risk(risk)
    # any real >= 0, as the estimators' table (an int such as 10**30 too); inf prunes to the root
    check_pruning_parameters("ccp", {"ccp_alpha": ccp_alpha})
    ccp_alpha = float(ccp_alpha)
    # Strengths within at_most's rounding tolerance of ccp_alpha count as equal to it, so
    # that a breakpoint read from a path prunes at that breakpoint however it was summed.
    state = prune_weakest_link(tree, resubstitution_risk(tree, risk),
                               stop=lambda strength: not at_most(strength, ccp_alpha))
    return state.pruned_tree()


def cost_complexity_pruning_path(estimator, X, y, sample_weight=None, risk: str = "impurity"
                                 ) -> Bunch:
    """Grow the estimator's full tree on ``(X, y)`` and return its pruning path.

    The same contract as scikit-learn's ``cost_complexity_pruning_path``: ``ccp_alphas`` and
    ``impurities`` (total leaf risk of each subtree), plus ``n_leaves`` and ``pruned_nodes``.
    """
    full = unpruned_clone(estimator).fit(X, y, sample_weight=sample_weight)
    return cost_complexity_path(fitted_tree(full), risk)


def subtree_breakpoints(path: Bunch) -> np.ndarray:
    """Distinct alphas at which the full tree's pruned subtree changes (0 first)."""
    return np.unique(np.maximum.accumulate(path.ccp_alphas))


#: Moved to :mod:`treesmith.model_selection`; importing them from here still works for one
#: release, with a DeprecationWarning.
_MOVED = ("CCPSelection", "select_ccp_alpha", "tune_ccp_alpha")


def __getattr__(name):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..model_selection._moved import moved_attribute

    return moved_attribute(__name__, name)
