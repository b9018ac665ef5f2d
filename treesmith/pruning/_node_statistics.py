"""Per-node quantities the pruning methods are built from: risks, error counts, routed data.

Counts for the count-based tests (TDP, C4.5, BUP) are the per-class training *weights*
rescaled so that the root holds ``n_node_samples[0]`` objects: with unit sample weights they are
the plain class counts, with ``class_weight`` / ``sample_weight`` they respect the weighting
that chose each leaf's class.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..tree import Tree


def is_classification(tree: Tree) -> bool:
    return tree.n_classes > 0


def check_tree(tree) -> None:
    """A TypeError naming ``tree`` when it is not a :class:`~treesmith.tree.Tree` (the tree-level
    functions read its arrays: anything else failed with an AttributeError on one of them)."""
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a treesmith.tree.Tree (a fitted estimator's tree_), got "
                        f"{type(tree).__name__}.")


def require_classification(tree: Tree, method: str) -> None:
    check_tree(tree)
    if not is_classification(tree):
        raise ValueError(f"pruning method {method!r} needs a classification tree.")


def predicted_class(tree: Tree) -> np.ndarray:
    """Class index each node predicts when it is a leaf (argmax of ``value``, lowest on ties)."""
    return np.argmax(tree.value, axis=1)


def training_counts(tree: Tree) -> np.ndarray:
    """Per-class training weights rescaled to the root's number of objects, (n_nodes, K)."""
    scale = tree.n_node_samples[0] / tree.weighted_n_node_samples[0]
    return tree.weighted_value * scale


def training_errors(tree: Tree) -> tuple[np.ndarray, np.ndarray]:
    """``(errors, n)``: training errors of each node as a leaf, and the objects it holds."""
    counts = training_counts(tree)
    n = counts.sum(axis=1)
    errors = n - counts[np.arange(tree.node_count), predicted_class(tree)]
    return np.maximum(errors, 0.0), n


def resubstitution_risk(tree: Tree, risk: str) -> np.ndarray:
    """R(t) of every node as a leaf, as a share of the root's weight (docs/methods.md §6;
    Breiman et al. 1984).

    * ``"impurity"``: R(t) = w(t)/w(root) * impurity(t), scikit-learn's choice, for which the
      path equals ``cost_complexity_pruning_path``.
    * ``"misclassification"``: R(t) = (w(t) - max_k w_k(t)) / w(root), Breiman's weighted
      misclassification cost (classification only).
    """
    check_tree(tree)
    root_weight = tree.weighted_n_node_samples[0]
    if risk == "impurity":
        return tree.weighted_n_node_samples * tree.impurity / root_weight
    if risk == "misclassification":
        require_classification(tree, "cost-complexity with risk='misclassification'")
        weights = tree.weighted_value
        errors = tree.weighted_n_node_samples - weights.max(axis=1)
        return np.maximum(errors, 0.0) / root_weight
    raise ValueError(f"risk must be 'impurity' or 'misclassification', got {risk!r}.")


def routed_losses(tree: Tree, node_indicator: sp.spmatrix, target: np.ndarray,
                  sample_weight: np.ndarray) -> np.ndarray:
    """Loss that the samples reaching each node would incur if that node were a leaf.

    ``node_indicator`` is the (n_samples, n_nodes) decision-path matrix of the samples.
    Classification (``target``: class index per sample, -1 for a label unseen in training):
    weighted number of errors of the node's predicted class. Regression (``target``: labels):
    weighted sum of squared errors around the node's mean.
    """
    indicator = sp.csr_matrix(node_indicator, dtype=np.float64)
    n_samples = indicator.shape[0]
    weight = np.asarray(sample_weight, dtype=np.float64)
    reach = indicator.T.tocsr()  # (n_nodes, n_samples)
    total = reach @ weight
    if is_classification(tree):
        target = np.asarray(target, dtype=np.int64)
        correct = np.zeros((n_samples, tree.n_classes))
        known = np.flatnonzero(target >= 0)
        correct[known, target[known]] = weight[known]
        per_class = np.asarray(reach @ correct)  # (n_nodes, K)
        right = per_class[np.arange(tree.node_count), predicted_class(tree)]
        return np.maximum(total - right, 0.0)
    y = np.asarray(target, dtype=np.float64)
    mean = tree.value[:, 0]
    sum_wy = reach @ (weight * y)
    sum_wyy = reach @ (weight * y * y)
    return np.maximum(sum_wyy - 2.0 * mean * sum_wy + mean * mean * total, 0.0)
