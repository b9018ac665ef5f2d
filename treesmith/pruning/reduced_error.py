"""Reduced-error pruning, REP (Quinlan 1987, "Simplifying decision trees", §2.2).

Bottom-up over a separate pruning (validation) set: replace the subtree T_t by a leaf whenever
the leaf makes no more validation errors than the (already pruned) subtree,

    E_val(t) <= E_val(T_t),

where a leaf predicts the class its *training* samples favour. Nodes that no validation sample
reaches cost 0 either way and are therefore pruned, as in Quinlan's description. For
regression trees the validation loss is the weighted sum of squared errors.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..tree import Tree
from ._node_statistics import routed_losses
from ._traversal import at_most, prune_bottom_up


def reduced_error_prune_tree(tree: Tree, node_indicator: sp.spmatrix, target: np.ndarray,
                             sample_weight: np.ndarray | None = None) -> Tree:
    """REP of ``tree`` on validation samples given by their decision paths and targets.

    ``target`` holds class indices (-1 for a class unseen in training) for classification
    trees and labels for regression trees.
    """
    if sample_weight is None:
        sample_weight = np.ones(node_indicator.shape[0])
    validation_loss = routed_losses(tree, node_indicator, target, sample_weight)

    def leaf_is_no_worse(node, state):
        return at_most(state.leaf_cost[node], state.subtree_cost[node])

    return prune_bottom_up(tree, validation_loss, leaf_is_no_worse).pruned_tree()
