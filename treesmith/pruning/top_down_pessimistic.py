"""Pessimistic error pruning, top-down (TDP; Quinlan 1987, "Simplifying decision trees", §2.3).

With the continuity correction, a node t kept as a leaf is charged n'(t) = e(t) + 1/2 errors
and its subtree n'(T_t) = sum over its leaves of e(s) + |leaves(T_t)|/2, where e counts the
training errors. The subtree is replaced by a leaf when

    n'(t) <= n'(T_t) + SE,    SE = sqrt(n'(T_t) (N(t) - n'(T_t)) / N(t)),

N(t) the training objects at t. Quinlan examines the tree from the root down and does not look
below a node once it has been pruned. ``n_standard_errors`` (1 in the paper) scales SE.
"""

from __future__ import annotations

import numpy as np

from ..tree import Tree
from ._node_statistics import require_classification, training_errors
from ._parameters import check_pruning_parameters
from ._traversal import at_most, prune_top_down


def top_down_pessimistic_prune_tree(tree: Tree, n_standard_errors: float = 1.0) -> Tree:
    """TDP of a classification ``tree`` from its training class counts alone."""
    require_classification(tree, "tdp")
    check_pruning_parameters("tdp", {"n_standard_errors": n_standard_errors},
                             "top_down_pessimistic_prune_tree")
    n_standard_errors = float(n_standard_errors)
    errors, n_objects = training_errors(tree)
    corrected_errors = errors + 0.5

    def pessimistic_leaf_is_no_worse(node, state):
        subtree_errors = state.subtree_cost[node]
        n = n_objects[node]
        spread = max(subtree_errors * (n - subtree_errors), 0.0) / n if n > 0 else 0.0
        return at_most(state.leaf_cost[node],
                       subtree_errors + n_standard_errors * np.sqrt(spread))

    return prune_top_down(tree, corrected_errors, pessimistic_leaf_is_no_worse).pruned_tree()
