"""J48's post-growth steps on a grown C4.5 tree (docs/methods.md §6, §11).

* **collapse** (top down): a subtree whose leaves misclassify at least as much training weight
  as its root would as a leaf (to 1e-3) becomes that leaf. J48 always does this, ``-U`` too.
* **error-based pruning** (bottom up, Quinlan 1993 ch. 4): a leaf with N objects, E of them
  misclassified, is charged E + added_errors(N, E, CF), the upper limit of a binomial
  confidence interval (:class:`ErrorBound`). A subtree becomes a leaf when the leaf's charge is
  at most the subtree's (sum of its leaves) + 0.1; with **subtree raising** its largest branch
  replaces it when that branch, re-fed with all the node's objects, is charged at most the
  subtree + 0.1, after which the raised node is pruned again.
* **reduced-error pruning** (J48 ``-R``): a subtree becomes a leaf when the leaf misclassifies
  no more of the held-out fold than the subtree (Quinlan 1987).

The confidence factor is a Java ``float`` in J48 (0.1 means 0.100000001490116…); the bound
uses it as such, and the normal quantile z = Φ⁻¹(1 − CF) is computed once per fit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from .._kernels import c45 as kernels
from ._grow import (NOMINAL_BINARY, NUMERIC, SMALL, GrowthData, Node, branch_weights,
                    largest_branch, majority_class)

#: Added to the subtree's charge before comparing (C4.5 and J48).
SUBTREE_TOLERANCE = 0.1
#: Tolerance of J48's collapse on training errors.
COLLAPSE_TOLERANCE = 1e-3


@dataclass(frozen=True)
class ErrorBound:
    """C4.5's pessimistic error count for a confidence factor CF in (0, 0.5].

    added_errors(N, E):
      E = 0: N (1 − CF^(1/N)) (exact binomial bound); 0 < E < 1: linear in E between E = 0 and 1;
      E + ½ ≥ N: N − E; otherwise, with f = (E + ½)/N,
      r = (f + z²/2N + z √(f/N − f²/N + z²/4N²)) / (1 + z²/N) and added = rN − E.
    """

    confidence_factor: float
    z: float

    @classmethod
    def for_confidence(cls, confidence_factor: float) -> "ErrorBound":
        cf = np.float32(confidence_factor)
        return cls(float(cf), float(ndtri(float(np.float32(1.0) - cf))))

    def added_errors(self, n: float, errors: float) -> float:
        return kernels.added_errors(float(n), float(errors), self.confidence_factor, self.z)

    def estimated_errors(self, class_weight: np.ndarray) -> float:
        """E + added_errors(N, E) of a leaf with these class weights (0 for no weight)."""
        return kernels.estimated_errors(np.asarray(class_weight, dtype=np.float64),
                                        self.confidence_factor, self.z)



def at_most(a: float, b: float) -> bool:
    """Weka's ``smOrEq``: a <= b to 1e-6."""
    return a - b < SMALL or a <= b


# -- routing objects through a test ------------------------------------------------------------
def route(node: Node, data: GrowthData, rows: np.ndarray, weights: np.ndarray,
          distribution_from_data: bool = True):
    """The objects (rows, weights) reaching each branch of ``node``.

    An object with a missing tested value goes down every branch, weighted by the branch's
    share; the shares come from ``rows`` themselves (J48's ``resetDistribution``) or, with
    ``distribution_from_data=False``, from the node's training distribution.
    """
    values = data.X[rows, node.attribute]
    n_branches = len(node.children)
    if node.kind == NUMERIC:
        goes_left = at_most_array(values, node.threshold)
    elif node.kind == NOMINAL_BINARY:
        goes_left = values == node.threshold
    else:
        goes_left = None
    missing = np.isnan(values)
    any_missing = bool(missing.any())
    if goes_left is not None and not any_missing:  # the common case: two plain branches
        goes_right = ~goes_left
        return [(rows[goes_left], weights[goes_left]), (rows[goes_right], weights[goes_right])]
    subset = np.full(rows.shape[0], -1, dtype=np.int64)
    known = ~missing
    if goes_left is not None:
        subset[known] = np.where(goes_left[known], 0, 1)
    else:
        subset[known] = values[known].astype(np.int64)
    if not any_missing:
        return [(rows[subset == b], weights[subset == b]) for b in range(n_branches)]
    if distribution_from_data:
        bag, _ = branch_weights(subset, data.y_code[rows], weights, n_branches, data.n_classes)
    else:
        bag = node.branch_weight
    total = bag.sum()
    share = bag / total if total > 0 else np.zeros(n_branches)
    out = []
    for b in range(n_branches):
        here = subset == b
        if share[b] > SMALL:
            take = here | missing
            w = np.where(missing, weights * share[b], weights)[take]
            out.append((rows[take], w))
        else:
            out.append((rows[here], weights[here]))
    return out


def at_most_array(values, threshold):
    return (values - threshold < SMALL) | (values <= threshold)


def class_weight_of(data: GrowthData, rows, weights) -> np.ndarray:
    return np.bincount(data.y_code[rows], weights=weights, minlength=data.n_classes)


# -- collapse -----------------------------------------------------------------------------------
def collapse(root: Node) -> None:
    """J48's ``collapse``: top down, a subtree not reducing training errors becomes a leaf.

    The subtrees' training errors are added up once, bottom up (collapsing a node changes
    nothing above it that is still to be decided: its ancestors were kept already)."""
    pre_order, stack = [], [root]
    while stack:
        node = stack.pop()
        node.index = len(pre_order)
        pre_order.append(node)
        stack.extend(node.children)
    own = kernels.training_errors_of(np.array([node.class_weight for node in pre_order]))
    subtree = own.tolist()
    for node in reversed(pre_order):  # children before parents
        if node.children:
            subtree[node.index] = sum(subtree[child.index] for child in node.children)
    stack = [root]
    while stack:
        current = stack.pop()
        if current.is_leaf:
            continue
        if subtree[current.index] >= own[current.index] - COLLAPSE_TOLERANCE:
            current.make_leaf()
        else:
            stack.extend(current.children)


# -- error-based pruning ------------------------------------------------------------------------
class ErrorBasedPruner:
    """J48's ``C45PruneableClassifierTree.prune`` (with or without subtree raising).

    Besides the ``Node`` objects, the tree lives in tree-wide arrays indexed by node id
    (test, children, class weights) that the compiled :func:`branch_charge` routes objects
    through; pruning and raising update both.
    """

    def __init__(self, data: GrowthData, bound: ErrorBound, subtree_raising: bool):
        self.data, self.bound, self.subtree_raising = data, bound, subtree_raising
        # whole-number weights and no missing value: every object sits wholly in one leaf
        self.whole_weights = data.xlogx.shape[0] > 0

    # -- the tree-wide arrays -------------------------------------------------------------------
    def _index(self, root: Node) -> None:
        nodes, stack = [], [root]
        while stack:
            node = stack.pop()
            node.index = len(nodes)
            nodes.append(node)
            stack.extend(reversed(node.children))
        n = len(nodes)
        self.attribute = np.array([node.attribute if node.children else -1 for node in nodes],
                                  dtype=np.int64)
        self.kind = np.array([node.kind for node in nodes], dtype=np.int64)
        self.threshold = np.array([node.threshold for node in nodes], dtype=np.float64)
        self.n_children = np.array([len(node.children) for node in nodes], dtype=np.int64)
        self.child_start = np.zeros(n, dtype=np.int64)
        np.cumsum(self.n_children[:-1], out=self.child_start[1:])
        self.children = np.array([child.index for node in nodes for child in node.children],
                                 dtype=np.int64)
        self.class_weight = np.array([node.class_weight for node in nodes],
                                     dtype=np.float64).reshape(n, self.data.n_classes)
        self.routed = np.zeros_like(self.class_weight)

    def _copy_test(self, node: Node, source: Node) -> None:
        i, j = node.index, source.index
        for array in (self.attribute, self.kind, self.threshold, self.child_start,
                      self.n_children):
            array[i] = array[j]

    # -- charges ----------------------------------------------------------------------------------
    def leaf_estimate(self, node: Node) -> float:
        """The node's charge as a leaf, cached until its objects change."""
        if node.estimate is None:
            node.estimate = self.bound.estimated_errors(node.class_weight)
        return node.estimate

    def branch_estimate(self, parent: Node, largest: int) -> float:
        """Charge of the parent's largest branch if all the parent's objects reached it."""
        node = parent.children[largest]
        if node.is_leaf and self.whole_weights:  # the parent's objects as one leaf
            return self.leaf_estimate(parent)
        if self.whole_weights:
            # the branch's own objects already sit in its leaves; route the others only
            others = [child.rows for b, child in enumerate(parent.children) if b != largest]
            rows = np.concatenate(others) if others else np.empty(0, dtype=np.int64)
            weights = self.data.weights[rows]
        else:
            rows, weights = parent.rows, parent.weights
        charge, ok = kernels.branch_charge(
            self.data.X, rows, weights, self.data.y_code, node.index, self.attribute,
            self.kind, self.threshold, self.child_start, self.n_children, self.children,
            self.class_weight, self.whole_weights, self.bound.confidence_factor, self.bound.z,
            self.routed)
        if ok:
            return charge
        return self.routed_estimate(node, parent.rows, parent.weights)

    def routed_estimate(self, node: Node, rows, weights) -> float:
        """:meth:`branch_estimate` node by node, objects with missing values split up."""
        if node.is_leaf:
            return self.bound.estimated_errors(class_weight_of(self.data, rows, weights))
        total = 0.0  # a plain loop: deep trees recurse in Python frames only
        for child, (child_rows, child_weights) in zip(node.children,
                                                      route(node, self.data, rows, weights)):
            total += self.routed_estimate(child, child_rows, child_weights)
        return total

    def redistribute(self, node: Node, rows, weights) -> None:
        """Give ``node`` and its subtree the statistics of new objects (``newDistribution``)."""
        node.rows, node.weights = rows, weights
        node.class_weight = class_weight_of(self.data, rows, weights)
        self.class_weight[node.index] = node.class_weight
        node.estimate = None
        if abs(node.class_weight.sum()) >= SMALL:
            node.is_empty = False
        if node.is_leaf:
            return
        parts = route(node, self.data, rows, weights)
        node.branch_weight = np.array([w.sum() for _, w in parts])
        for child, (child_rows, child_weights) in zip(node.children, parts):
            self.redistribute(child, child_rows, child_weights)

    # -- pruning ----------------------------------------------------------------------------------
    def prune_tree(self, root: Node) -> None:
        if self.subtree_raising:
            self._index(root)
        self.prune(root)

    def prune(self, node: Node) -> float:
        """Prune the subtree at ``node``; return its charge (sum over its leaves)."""
        if node.is_leaf:
            return self.leaf_estimate(node)
        subtree = 0.0
        for child in node.children:
            subtree += self.prune(child)
        largest = largest_branch(node.branch_weight)
        if self.subtree_raising:
            branch = self.branch_estimate(node, largest)
        else:
            branch = np.inf
        leaf = self.leaf_estimate(node)
        if at_most(leaf, subtree + SUBTREE_TOLERANCE) \
                and at_most(leaf, branch + SUBTREE_TOLERANCE):
            node.make_leaf()
            if self.subtree_raising:
                self.attribute[node.index] = -1
            return leaf
        if at_most(branch, subtree + SUBTREE_TOLERANCE):
            raised = node.children[largest]
            node.attribute, node.kind, node.threshold = (raised.attribute, raised.kind,
                                                         raised.threshold)
            node.children, node.branch_weight = raised.children, raised.branch_weight
            self._copy_test(node, raised)
            self.redistribute(node, node.rows, node.weights)
            return self.prune(node)
        return subtree


# -- reduced-error pruning ----------------------------------------------------------------------
def held_out_distributions(node: Node, data: GrowthData, rows, weights, out: dict) -> None:
    """Per node, the per-branch class weights of the held-out objects (J48's ``m_test``),
    routed with the training distribution's shares."""
    if node.is_leaf:
        out[id(node)] = class_weight_of(data, rows, weights)[None, :]
        return
    parts = route(node, data, rows, weights, distribution_from_data=False)
    out[id(node)] = np.array([class_weight_of(data, r, w) for r, w in parts])
    for child, (child_rows, child_weights) in zip(node.children, parts):
        held_out_distributions(child, data, child_rows, child_weights, out)


def reduced_error_prune(node: Node, held_out: dict) -> None:
    """J48's ``PruneableClassifierTree.prune``: bottom up, leaf when its held-out errors are
    at most the subtree's."""

    def errors_as_leaf(current: Node) -> float:
        test = held_out[id(current)]
        return float(test.sum() - test[:, majority_class(current.class_weight)].sum())

    def errors_of_tree(current: Node) -> float:
        if current.is_leaf:
            return errors_as_leaf(current)
        test = held_out[id(current)]
        majority = majority_class(current.class_weight)
        total = 0.0
        for b, child in enumerate(current.children):
            if abs(current.branch_weight[b]) < SMALL:
                total += test[b].sum() - test[b, majority]
            else:
                total += errors_of_tree(child)
        return total

    def prune(current: Node) -> None:
        if current.is_leaf:
            return
        for child in current.children:
            prune(child)
        if at_most(errors_as_leaf(current), errors_of_tree(current)):
            held_out[id(current)] = held_out[id(current)].sum(axis=0, keepdims=True)
            current.make_leaf()

    prune(node)


__all__ = ["ErrorBound", "ErrorBasedPruner", "collapse", "reduced_error_prune",
           "held_out_distributions"]
