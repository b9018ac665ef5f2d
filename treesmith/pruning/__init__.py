"""Pruning of fitted trees (docs/methods.md §6, §8).

``prune(estimator, method, **params)`` returns a *new* fitted estimator (a deep copy whose
``tree_`` is pruned; the original is untouched). Methods and their parameters:

=========  ==================================================================================
"ccp"      cost-complexity at ``ccp_alpha`` (required); ``risk="impurity"`` (scikit-learn's
           weighted impurity) or ``"misclassification"`` (Breiman's).
"rep"      reduced-error pruning on a validation set ``X``, ``y`` (``sample_weight``).
"tdp"      pessimistic top-down pruning; ``n_standard_errors=1.0``.
"c45"      C4.5 / J48 error-based pruning; ``confidence_factor=0.25``, ``collapse=True``,
           ``subtree_raising=False`` (raising needs the training data ``X``, ``y``,
           ``sample_weight``).
"bup"      pessimistic bottom-up pruning (Mansour 1997); ``c1=0.1``, ``c2=0.0``.
"nodes"    turn the given ``nodes`` (ids in ``estimator.tree_``) into leaves.
=========  ==================================================================================

Choosing alpha: :func:`select_ccp_alpha` (K-fold CV, min or 1-SE rule), :func:`tune_ccp_alpha`
(exact ERM across problem instances), :func:`select_by_explainability` (held-out error +
eta * leaves); any other method's parameters: :func:`select_pruning_parameters` (K-fold CV).
The tree-level functions (``prune_tree_ccp``, ``reduced_error_prune_tree``, ...) work on
:class:`treesmith.tree.Tree` objects directly.
"""

from __future__ import annotations

from ._prune import METHODS, prune
from ._traversal import PruningState, prune_bottom_up, prune_top_down, prune_weakest_link
from .bottom_up_pessimistic import bottom_up_pessimistic_prune_tree
from .cost_complexity import (
    CCPSelection,
    cost_complexity_path,
    cost_complexity_pruning_path,
    prune_tree_ccp,
    select_ccp_alpha,
    tune_ccp_alpha,
)
from .error_based import added_errors, error_based_prune_tree, error_based_prune_tree_with_raising
from .explainability import ExplainabilitySelection, select_by_explainability
from .parameter_search import select_pruning_parameters
from .reduced_error import reduced_error_prune_tree
from .top_down_pessimistic import top_down_pessimistic_prune_tree

__all__ = [
    "METHODS",
    "CCPSelection",
    "ExplainabilitySelection",
    "PruningState",
    "added_errors",
    "bottom_up_pessimistic_prune_tree",
    "cost_complexity_path",
    "cost_complexity_pruning_path",
    "error_based_prune_tree",
    "error_based_prune_tree_with_raising",
    "prune",
    "prune_bottom_up",
    "prune_top_down",
    "prune_tree_ccp",
    "prune_weakest_link",
    "reduced_error_prune_tree",
    "select_by_explainability",
    "select_ccp_alpha",
    "select_pruning_parameters",
    "top_down_pessimistic_prune_tree",
    "tune_ccp_alpha",
]
