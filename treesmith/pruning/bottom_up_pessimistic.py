"""Pessimistic pruning based on tree size, bottom-up (BUP; Mansour 1997, as Balcan and Sharma
2024, §4 write it).

Bottom-up, node h with n_h training objects is replaced by a leaf when

    e_leaf <= e_h + c1 * sqrt((t_h * log(a) + c2) / n_h),

e_leaf the training error rate of h as a leaf, e_h that of the (already pruned) subtree rooted at
h, t_h the number of nodes of that subtree and a the number of features (natural logarithm).
c1 and c2 are the tunable parameters of Balcan and Sharma 2024, Theorem 4.2 (tune them with
``select_pruning_parameters``). The defaults c1 = 0.1, c2 = 0 are what 5-fold CV chose most
often on the training parts of iris, wine, breast cancer and digits; the constants of
Mansour's uniform bound (c1 of order 1, c2 = log(1/delta)) prune far more (digits: 8 leaves,
59% accuracy with c1 = 1).
"""

from __future__ import annotations

import numpy as np

from ..tree import Tree
from ._node_statistics import require_classification, training_errors
from ._parameters import check_pruning_parameters
from ._traversal import at_most, prune_bottom_up


def bottom_up_pessimistic_prune_tree(tree: Tree, c1: float = 0.1, c2: float = 0.0) -> Tree:
    """BUP of a classification ``tree`` from its training class counts alone."""
    require_classification(tree, "bup")
    check_pruning_parameters("bup", {"c1": c1, "c2": c2}, "bottom_up_pessimistic_prune_tree")
    c1, c2 = float(c1), float(c2)
    errors, n_objects = training_errors(tree)
    log_features = np.log(max(tree.n_features, 1))

    def complexity_penalty_covers_gain(node, state):
        n = n_objects[node]
        if n <= 0:
            return True
        penalty = c1 * np.sqrt((state.n_nodes[node] * log_features + c2) / n)
        return at_most(state.leaf_cost[node] / n, state.subtree_cost[node] / n + penalty)

    return prune_bottom_up(tree, errors, complexity_penalty_covers_gain).pruned_tree()
