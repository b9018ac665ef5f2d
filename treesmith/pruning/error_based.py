"""C4.5 error-based pruning with a confidence factor, as in C4.5 (Quinlan 1993, ch. 4) and
Weka's J48 (``C45PruneableClassifierTree``).

A leaf holding N objects, E of them misclassified, is charged the upper limit of a binomial
confidence interval on its error count, ``U_CF(E, N) * N = E + added_errors(N, E, CF)``:

* E = 0: N (1 - CF^(1/N)) (exact binomial bound);
* 0 < E < 1: linear interpolation between E = 0 and E = 1;
* E + 1/2 >= N: N - E (nothing can be added);
* otherwise the normal approximation with the continuity correction: with z = Phi^-1(1 - CF)
  and f = (E + 1/2) / N,
      r = (f + z^2/2N + z sqrt(f/N - f^2/N + z^2/4N^2)) / (1 + z^2/N),   added = r N - E.

Bottom-up, a subtree is replaced by a leaf when the leaf's estimate is at most the sum of its
leaves' estimates + 0.1 (the constant of C4.5 and J48). Before pruning, J48 *collapses* (top
down) every subtree that does not reduce the training errors (``collapse=True``).

With **subtree raising** the largest branch (the child with most training weight) may replace
its parent: the parent's training objects are then routed through that branch and its leaves
re-estimated (``estimated_errors_for_branch``). This changes the class distributions of the
raised nodes, so it cannot be expressed as a collapse; it needs the training data ``(X, y)``
and rebuilds the tree from the re-routed statistics. The result is then no longer a subtree of
the original.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from numbers import Real

import numpy as np
from scipy.stats import norm

from .._dtypes import TREE_LEAF, TREE_UNDEFINED
from .._validation import Interval, check_parameter
from ..tree import Tree, goes_left
from ._node_statistics import require_classification, training_errors
from ._parameters import check_pruning_parameters
from ._traversal import at_most, prune_bottom_up, prune_top_down

#: Added to the subtree's estimate before comparing (C4.5 and J48).
SUBTREE_TOLERANCE = 0.1
#: Tolerance of J48's collapse step on training errors.
COLLAPSE_TOLERANCE = 1e-3


def check_confidence_factor(confidence_factor: float, collapse=True,
                            owner: str = "error_based_prune_tree") -> None:
    """The C4.5 parameters by the pruning table: CF in (0, 0.5], ``collapse`` a bool."""
    check_pruning_parameters("c45", {"confidence_factor": confidence_factor,
                                     "collapse": collapse}, owner)


@lru_cache(maxsize=64)
def _normal_quantile(confidence_factor: float) -> float:
    """z = Phi^-1(1 - CF), computed once per confidence factor (it was a quarter of the
    pruning time when every leaf estimate called scipy's ppf)."""
    return float(norm.ppf(1.0 - confidence_factor))


def added_errors(n: float, errors: float, confidence_factor: float) -> float:
    """Pessimistic extra errors of a leaf with ``n`` objects and ``errors`` errors (C4.5):
    ``n`` >= 0 and ``errors`` >= 0 finite numbers, ``confidence_factor`` in (0, 0.5]."""
    for name, value in (("n", n), ("errors", errors)):
        check_parameter(name, value, [Interval(Real, 0.0, None)], "added_errors")
    check_confidence_factor(confidence_factor, owner="added_errors")
    return _added_errors(float(n), float(errors), float(confidence_factor))


def _added_errors(n: float, errors: float, confidence_factor: float) -> float:
    """``added_errors`` of checked numbers (the pruning loops call it once per node)."""
    if n <= 0:
        return 0.0
    if errors < 1.0:
        base = n * (1.0 - confidence_factor ** (1.0 / n))
        if errors == 0.0:
            return base
        return base + errors * (_added_errors(n, 1.0, confidence_factor) - base)
    if errors + 0.5 >= n:
        return max(n - errors, 0.0)
    z = _normal_quantile(float(confidence_factor))
    f = (errors + 0.5) / n
    r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) \
        / (1.0 + z * z / n)
    return r * n - errors


def estimated_errors(n: float, errors: float, confidence_factor: float) -> float:
    """E + added_errors(N, E, CF): the leaf's pessimistic error count."""
    return errors + _added_errors(n, errors, confidence_factor) if n > 0 else 0.0


def collapse_unhelpful_subtrees(tree: Tree) -> Tree:
    """J48's collapse: top-down, a subtree with no fewer training errors than its root as a
    leaf (to 1e-3) becomes that leaf."""
    errors, _ = training_errors(tree)

    def subtree_does_not_help(node, state):
        return state.subtree_cost[node] >= state.leaf_cost[node] - COLLAPSE_TOLERANCE

    return prune_top_down(tree, errors, subtree_does_not_help).pruned_tree()


def error_based_prune_tree(tree: Tree, confidence_factor: float = 0.25,
                           collapse: bool = True) -> Tree:
    """C4.5 pruning without subtree raising, from the tree's training class counts alone."""
    require_classification(tree, "c45")
    check_confidence_factor(confidence_factor, collapse)
    if collapse:
        tree = collapse_unhelpful_subtrees(tree)
    errors, n_objects = training_errors(tree)
    leaf_estimate = np.array([estimated_errors(n, e, confidence_factor)
                              for n, e in zip(n_objects, errors)])

    def leaf_is_no_worse(node, state):
        return at_most(state.leaf_cost[node], state.subtree_cost[node] + SUBTREE_TOLERANCE)

    return prune_bottom_up(tree, leaf_estimate, leaf_is_no_worse).pruned_tree()


class _RaisingPruner:
    """J48's recursive prune() with subtree raising, on a mutable copy of the tree's structure.

    Node ids are those of the input tree; raising child c into node t copies c's test and
    children into t. Per node it keeps the per-class weight and count of the training objects
    that currently reach it.
    """

    def __init__(self, tree: Tree, X: np.ndarray, y_code: np.ndarray, weight: np.ndarray,
                 confidence_factor: float):
        self.tree = tree
        self.left = tree.children_left.copy()
        self.right = tree.children_right.copy()
        self.feature = tree.feature.copy()
        self.threshold = tree.threshold.copy()
        self.bin_threshold = tree.bin_threshold.copy()
        self.missing_go_left = tree.missing_go_left.copy()
        self.left_categories = tree.left_categories.copy()
        self.X, self.y_code, self.weight = X, y_code, weight
        # C4.5 counts objects; weights are rescaled to a mean of one.
        self.count_scale = weight.size / weight.sum()
        self.cf = confidence_factor
        self.class_weight = np.zeros((tree.node_count, tree.n_classes))
        self.class_count = np.zeros((tree.node_count, tree.n_classes))

    # -- routing ----------------------------------------------------------------------------
    def is_leaf(self, node: int) -> bool:
        return self.left[node] == TREE_LEAF

    def split_rows(self, node: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values = self.X[rows, self.feature[node]]
        go_left = goes_left(values, self.threshold[node], self.missing_go_left[node],
                            self.left_categories[node])
        return rows[go_left], rows[~go_left]

    def class_totals(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = self.tree.n_classes
        return (np.bincount(self.y_code[rows], weights=self.weight[rows], minlength=k),
                np.bincount(self.y_code[rows], minlength=k).astype(np.float64))

    def distribute(self, node: int, rows: np.ndarray) -> None:
        """Record the class totals of ``rows`` at ``node`` and every node below it."""
        self.class_weight[node], self.class_count[node] = self.class_totals(rows)
        if not self.is_leaf(node):
            left_rows, right_rows = self.split_rows(node, rows)
            self.distribute(self.left[node], left_rows)
            self.distribute(self.right[node], right_rows)

    # -- C4.5 estimates -----------------------------------------------------------------------
    def estimate(self, class_weight: np.ndarray) -> float:
        counts = class_weight * self.count_scale
        n = counts.sum()
        return estimated_errors(n, max(n - counts.max(), 0.0), self.cf) if n > 0 else 0.0

    def subtree_estimate(self, node: int) -> float:
        if self.is_leaf(node):
            return self.estimate(self.class_weight[node])
        return self.subtree_estimate(self.left[node]) + self.subtree_estimate(self.right[node])

    def branch_estimate(self, node: int, rows: np.ndarray) -> float:
        """Estimated errors if ``rows`` were classified by the subtree at ``node``."""
        if self.is_leaf(node):
            return self.estimate(self.class_totals(rows)[0])
        left_rows, right_rows = self.split_rows(node, rows)
        return (self.branch_estimate(self.left[node], left_rows)
                + self.branch_estimate(self.right[node], right_rows))

    def prune(self, node: int, rows: np.ndarray) -> None:
        if self.is_leaf(node):
            return
        left_rows, right_rows = self.split_rows(node, rows)
        self.prune(self.left[node], left_rows)
        self.prune(self.right[node], right_rows)
        children = (self.left[node], self.right[node])
        largest = children[int(self.class_weight[children[1]].sum()
                               > self.class_weight[children[0]].sum())]
        branch = self.branch_estimate(largest, rows)
        leaf = self.estimate(self.class_weight[node])
        subtree = self.subtree_estimate(node)
        if (at_most(leaf, subtree + SUBTREE_TOLERANCE)
                and at_most(leaf, branch + SUBTREE_TOLERANCE)):
            self.left[node] = self.right[node] = TREE_LEAF
            return
        if at_most(branch, subtree + SUBTREE_TOLERANCE):
            for array in (self.left, self.right, self.feature, self.threshold,
                          self.bin_threshold, self.missing_go_left, self.left_categories):
                array[node] = array[largest]
            self.distribute(node, rows)
            self.prune(node, rows)

    # -- output -------------------------------------------------------------------------------
    def to_tree(self, impurity: Callable[[np.ndarray], float]) -> Tree:
        order, stack = [], [0]
        while stack:  # pre-order, left first: children after parents
            node = stack.pop()
            order.append(node)
            if not self.is_leaf(node):
                stack.extend((self.right[node], self.left[node]))
        new_id = {node: i for i, node in enumerate(order)}
        order = np.asarray(order, dtype=np.int64)
        leaf = np.array([self.is_leaf(node) for node in order])
        weighted_n = self.class_weight[order].sum(axis=1)
        value = np.zeros((order.size, self.tree.n_classes))
        depth = np.zeros(order.size, dtype=np.int64)
        children_left = np.full(order.size, TREE_LEAF, dtype=np.int64)
        children_right = np.full(order.size, TREE_LEAF, dtype=np.int64)
        parent = np.zeros(order.size, dtype=np.int64)
        for i, node in enumerate(order):
            if weighted_n[i] > 0:
                value[i] = self.class_weight[node] / weighted_n[i]
            elif i > 0:  # no training object reaches it: predict as its parent does
                value[i] = value[parent[i]]
            if not leaf[i]:
                left, right = new_id[self.left[node]], new_id[self.right[node]]
                children_left[i], children_right[i] = left, right
                parent[left] = parent[right] = i
                depth[left] = depth[right] = depth[i] + 1
        return Tree(
            self.tree.n_features, self.tree.n_classes,
            children_left=children_left, children_right=children_right,
            feature=np.where(leaf, TREE_UNDEFINED, self.feature[order]),
            threshold=np.where(leaf, np.nan, self.threshold[order]),
            bin_threshold=np.where(leaf, -1, self.bin_threshold[order]),
            missing_go_left=np.where(leaf, False, self.missing_go_left[order]),
            impurity=np.array([impurity(v) for v in value]),
            n_node_samples=self.class_count[order].sum(axis=1).astype(np.int64),
            weighted_n_node_samples=weighted_n,
            value=value,
            class_counts=self.class_count[order].copy(),
            depth=depth,
            left_categories=np.where(leaf[:, None], np.uint64(0), self.left_categories[order]),
        )


def error_based_prune_tree_with_raising(tree: Tree, X: np.ndarray, y_code: np.ndarray,
                                        sample_weight: np.ndarray,
                                        impurity: Callable[[np.ndarray], float],
                                        confidence_factor: float = 0.25,
                                        collapse: bool = True) -> Tree:
    """C4.5 pruning with subtree raising, re-routing the training data ``(X, y_code)``.

    ``sample_weight`` must be the weights the tree was grown with (class weights included);
    ``impurity`` maps a proportion vector to the criterion's impurity, to fill the rebuilt
    tree's ``impurity`` array.
    """
    require_classification(tree, "c45")
    check_confidence_factor(confidence_factor, collapse, "error_based_prune_tree_with_raising")
    if collapse:
        tree = collapse_unhelpful_subtrees(tree)
    if np.any(y_code < 0):
        raise ValueError("y holds a label the tree was not trained on; subtree raising needs "
                         "the training data.")
    pruner = _RaisingPruner(tree, X, y_code, np.asarray(sample_weight, dtype=np.float64),
                            confidence_factor)
    rows = np.arange(y_code.shape[0])
    pruner.distribute(0, rows)
    pruner.prune(0, rows)
    return pruner.to_tree(impurity)
