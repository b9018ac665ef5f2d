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

Choosing alpha or any other pruning parameter (``select_ccp_alpha``, ``tune_ccp_alpha``,
``select_by_explainability``, ``select_pruning_parameters``) lives in
:mod:`treesmith.model_selection`; the old names here still work for one release, with a
DeprecationWarning.
The tree-level functions (``prune_tree_ccp``, ``reduced_error_prune_tree``, ...) work on
:class:`treesmith.tree.Tree` objects directly.
"""

from __future__ import annotations

from ._prune import METHODS, prune
from ._traversal import PruningState, prune_bottom_up, prune_top_down, prune_weakest_link
from .bottom_up_pessimistic import bottom_up_pessimistic_prune_tree
from .cost_complexity import cost_complexity_path, cost_complexity_pruning_path, prune_tree_ccp
from .error_based import added_errors, error_based_prune_tree, error_based_prune_tree_with_raising
from .reduced_error import reduced_error_prune_tree
from .top_down_pessimistic import top_down_pessimistic_prune_tree

__all__ = [
    "METHODS",
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
    "top_down_pessimistic_prune_tree",
]

#: Moved to treesmith.model_selection (old import path kept for one release).
_MOVED = ("CCPSelection", "ExplainabilitySelection", "select_by_explainability",
          "select_ccp_alpha", "select_pruning_parameters", "tune_ccp_alpha")


def __getattr__(name):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..model_selection._moved import moved_attribute

    return moved_attribute(__name__, name)
