"""Monotonic constraints on fitted trees (docs/methods.md §4): clipping node values to their
bounds, and restoring monotonicity after a pruning step that recomputes node values.

The growth loop (``treesmith._kernels.monotonic``) admits only splits whose children respect
the constraint and the node's bounds, and bounds the children of a constrained split at the
middle of their values; :func:`clip_values` then clips every node's value to its bounds, as
scikit-learn's ``clip_node_value`` does. Pruning that turns a node into a leaf keeps that
node's value, which lies within the node's bounds, so predictions stay monotone. C4.5's subtree
raising moves training objects and recomputes values; :func:`restore_monotonicity` clips them
again with bounds derived from the tree itself.
"""

from __future__ import annotations

import numpy as np

from ._dtypes import TREE_LEAF
from .tree import Tree


def check_numeric_features(monotonic_cst, is_categorical, feature_names=None) -> None:
    """Refuse a constraint on a categorical feature: its categories have no order, so
    "increasing" has no meaning for a split that sends a set of categories left."""
    if monotonic_cst is None or is_categorical is None:
        return
    is_categorical = np.asarray(is_categorical, dtype=bool)
    constrained = np.flatnonzero(is_categorical & (np.asarray(monotonic_cst) != 0))
    if constrained.size:
        j = int(constrained[0])
        name = repr(str(feature_names[j])) if feature_names is not None else f"index {j}"
        raise ValueError(
            f"monotonic_cst constrains feature {name}, which is categorical: categories have "
            "no order. Set its constraint to 0, or treat the column as numeric with "
            "categorical_features (a mask, indices or names that leave it out).")


def _monotone_column(value: np.ndarray) -> int:
    """Column of ``value`` that the constraints bound: class 1 of a binary classifier (column
    1 of two), the mean label of a regressor (column 0 of one)."""
    return 1 if value.shape[1] == 2 else 0


def clip_values(value: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
    """Clip each node's value to ``[lower, upper]`` in place (scikit-learn's
    ``clip_node_value``). ``value`` is ``(n_nodes, 1)`` (regression: the mean) or
    ``(n_nodes, 2)`` (binary classification: class proportions; a clipped node gets class 1's
    proportion clipped and class 0's as its complement)."""
    column = _monotone_column(value)
    clipped = np.clip(value[:, column], lower, upper)
    changed = clipped != value[:, column]
    value[changed, column] = clipped[changed]
    if value.shape[1] == 2:
        value[changed, 0] = 1.0 - clipped[changed]


def value_bounds(tree: Tree, direction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bounds ``(lower, upper)`` on every node's value, derived top-down from the tree's own
    values as the growth loop derives them: a split on a feature with direction d != 0 bounds
    its children at the middle m of their values (left <= m <= right for d = 1), clamped into
    the node's bounds; other splits pass the node's bounds on. Nodes are numbered parents
    first."""
    column = _monotone_column(tree.value)
    values = tree.value[:, column]
    lower = np.full(tree.node_count, -np.inf)
    upper = np.full(tree.node_count, np.inf)
    for node in range(tree.node_count):
        left, right = tree.children_left[node], tree.children_right[node]
        if left == TREE_LEAF:
            continue
        lower[left] = lower[right] = lower[node]
        upper[left] = upper[right] = upper[node]
        sign = direction[tree.feature[node]]
        if sign == 0:
            continue
        middle = min(max(0.5 * values[left] + 0.5 * values[right], lower[node]), upper[node])
        if sign > 0:
            upper[left] = lower[right] = middle
        else:
            lower[left] = upper[right] = middle
    return lower, upper


def restore_monotonicity(tree: Tree, direction: np.ndarray) -> Tree:
    """``tree`` with every node's value clipped to its :func:`value_bounds` (a new tree):
    predictions become monotone in each feature of ``direction`` (int per feature, -1, 0, 1),
    whatever the values were."""
    lower, upper = value_bounds(tree, direction)
    arrays = tree.to_arrays()
    value = np.array(arrays["value"], dtype=np.float64, copy=True)
    clip_values(value, lower, upper)
    arrays["value"] = value
    return Tree(tree.n_features, tree.n_classes, **arrays)
