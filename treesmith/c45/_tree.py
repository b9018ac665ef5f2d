"""The fitted C4.5 tree: flat arrays of a multiway tree, and how J48 classifies with it.

Node 0 is the root and children follow their parent (pre-order). Branch b of node i is node
``children[child_start[i] + b]``. Tests: numeric ``x <= threshold`` (to 1e-6, as J48 compares)
→ branch 0, else branch 1; nominal: branch = category code; binary nominal: ``x == threshold``
→ branch 0, else 1.

Class probabilities follow J48's ``ClassifierTree.getProbs``: a leaf gives its class
proportions (with ``laplace``: (n_k + 1)/(N + K)); an object whose tested value is missing
goes down every non-empty branch with weight ``branch_weight[b] / Σ branch_weight`` and the
results are added; a branch grown from no objects answers with its parent's proportions.
An unseen category counts as missing.

:meth:`C45Tree.to_binary_tree` renders it as a treesmith :class:`~treesmith.tree.Tree` (a
multiway test becomes a chain of ``code <= v + 0.5`` tests) so that the metrics, exports and
model files that read ``tree_`` work on it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .._dtypes import TREE_LEAF, TREE_UNDEFINED
from .._kernels.c45 import SMALL
from ..tree import Tree
from ._grow import NOMINAL, NOMINAL_BINARY, NUMERIC, Node

LEAF = -1


class C45Walk(NamedTuple):
    """The arrays of a :class:`C45Tree` that its prediction walk reads (the kernels' record)."""

    attribute: np.ndarray      # int64 (n_nodes,), column tested, -1 at a leaf
    kind: np.ndarray           # int64 (n_nodes,), NUMERIC / NOMINAL / NOMINAL_BINARY
    threshold: np.ndarray      # float64 (n_nodes,)
    child_start: np.ndarray    # int64 (n_nodes,)
    n_children: np.ndarray     # int64 (n_nodes,)
    children: np.ndarray       # int64 (n_branches,)
    branch_weight: np.ndarray  # float64 (n_branches,)
    is_empty: np.ndarray       # bool (n_nodes,)
    depth: np.ndarray          # int64 (n_nodes,)


class C45Tree:
    """Flat arrays of a fitted C4.5 tree (one entry per node).

    attribute: int64, column tested (-1 for a leaf); kind: int64, NUMERIC / NOMINAL /
    NOMINAL_BINARY; threshold: float64 (numeric cut or binary value code, NaN otherwise);
    child_start, n_children: int64, the node's slice of ``children``; children: int64;
    class_weight: float64 (n_nodes, n_classes), training weight per class reaching the node;
    branch_weight: float64 (n_children entries per node, aligned with ``children``);
    is_empty: bool, grown from no objects; depth: int64.
    """

    ARRAYS = ("attribute", "kind", "threshold", "child_start", "n_children", "children",
              "class_weight", "branch_weight", "is_empty", "depth")

    def __init__(self, n_features: int, n_classes: int, **arrays):
        self.n_features, self.n_classes = int(n_features), int(n_classes)
        for name in self.ARRAYS:
            setattr(self, name, arrays[name])

    @classmethod
    def from_nodes(cls, root: Node, n_features: int, n_classes: int) -> "C45Tree":
        order, depth_of = [], {}
        stack = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            order.append(node)
            depth_of[id(node)] = depth
            stack.extend((child, depth + 1) for child in reversed(node.children))
        index = {id(node): i for i, node in enumerate(order)}
        n = len(order)
        n_children = np.array([len(node.children) for node in order], dtype=np.int64)
        child_start = np.zeros(n, dtype=np.int64)
        np.cumsum(n_children[:-1], out=child_start[1:])
        children = np.array([index[id(c)] for node in order for c in node.children],
                            dtype=np.int64)
        branch_weight = np.array([w for node in order if node.children
                                  for w in node.branch_weight], dtype=np.float64)
        return cls(
            n_features, n_classes,
            attribute=np.array([node.attribute if node.children else LEAF for node in order],
                               dtype=np.int64),
            kind=np.array([node.kind for node in order], dtype=np.int64),
            threshold=np.array([node.threshold if node.children else np.nan
                                for node in order], dtype=np.float64),
            child_start=child_start, n_children=n_children, children=children,
            class_weight=np.array([node.class_weight for node in order],
                                  dtype=np.float64).reshape(n, n_classes),
            branch_weight=branch_weight,
            is_empty=np.array([node.is_empty for node in order], dtype=bool),
            depth=np.array([depth_of[id(node)] for node in order], dtype=np.int64),
        )

    def validate(self) -> None:
        """Check dtypes, shapes and the tree invariants a loaded model file must satisfy before
        the compiled prediction walks it; raise ``ValueError`` saying which failed.

        Children after their parents and every node but the root the child of exactly one
        branch (so walks end and a row visits each node at most once), branch slices inside
        ``children``, tested columns in ``[0, n_features)``, known test kinds, two branches
        for a numeric or binary-nominal test and at least one for a nominal one, weights
        finite and non-negative, depths matching the structure. O(n_nodes log n_nodes).
        """
        kinds = {"attribute": "i", "kind": "i", "threshold": "f", "child_start": "i",
                 "n_children": "i", "children": "i", "class_weight": "f",
                 "branch_weight": "f", "is_empty": "b", "depth": "i"}
        for name, kind in kinds.items():
            array = getattr(self, name)
            if not isinstance(array, np.ndarray) or array.dtype.kind != kind or \
                    array.ndim != (2 if name == "class_weight" else 1):
                raise ValueError(f"C4.5 tree array {name!r} must be a "
                                 f"{'2' if name == 'class_weight' else '1'}-D array of kind "
                                 f"{kind!r}")
        if self.n_features < 1 or self.n_classes < 1:
            raise ValueError("a C4.5 tree needs n_features >= 1 and n_classes >= 1")
        n = self.attribute.shape[0]
        if n < 1:
            raise ValueError("a C4.5 tree needs at least one node (the root)")
        for name in ("kind", "threshold", "child_start", "n_children", "is_empty", "depth",
                     "class_weight"):
            if getattr(self, name).shape[0] != n:
                raise ValueError(f"C4.5 tree array {name!r} must have one entry per node ({n})")
        if self.class_weight.shape[1] != self.n_classes:
            raise ValueError(f"class_weight must have {self.n_classes} columns")
        if self.branch_weight.shape != self.children.shape:
            raise ValueError("branch_weight must have one entry per child")
        for name in ("class_weight", "branch_weight"):
            values = getattr(self, name)
            if not np.all(np.isfinite(values)) or np.any(values < 0):
                raise ValueError(f"C4.5 tree array {name!r} must be finite and non-negative")
        leaf = self.attribute == LEAF
        internal = ~leaf
        if np.any(self.attribute[internal] < 0) or \
                np.any(self.attribute[internal] >= self.n_features):
            raise ValueError(f"a tested column is outside [0, {self.n_features})")
        if np.any(self.n_children[leaf] != 0):
            raise ValueError("a leaf must have no children")
        kind = self.kind[internal]
        count = self.n_children[internal]
        if np.any((kind != NUMERIC) & (kind != NOMINAL) & (kind != NOMINAL_BINARY)):
            raise ValueError("a test kind must be numeric, nominal or binary nominal")
        if np.any(np.where(kind == NOMINAL, count < 1, count != 2)):
            raise ValueError("a numeric or binary test needs 2 branches, a nominal one >= 1")
        if np.any(np.isnan(self.threshold[internal][kind != NOMINAL])):
            raise ValueError("a numeric or binary test threshold is NaN")
        start = self.child_start[internal]
        if np.any(start < 0) or np.any(start + count > self.children.shape[0]):
            raise ValueError("a node's branches point outside the children array")
        if int(count.sum()) != self.children.shape[0]:
            raise ValueError("the children array must hold each node's branches once")
        owner = np.repeat(np.flatnonzero(internal), count)
        slots = np.concatenate([np.arange(s, s + c) for s, c in zip(start, count)]) \
            if count.size else np.zeros(0, dtype=np.int64)
        if np.unique(slots).size != slots.size:
            raise ValueError("two nodes share branch slots")
        kids = self.children[slots]
        if np.any(kids <= owner) or np.any(kids >= n):
            raise ValueError("children must be stored after their parents, inside the tree")
        if np.unique(kids).size != kids.size or kids.size != n - 1:
            raise ValueError("every node but the root must be the child of exactly one branch")
        expected = np.zeros(n, dtype=np.int64)
        for parent, child in sorted(zip(owner.tolist(), kids.tolist())):
            expected[child] = expected[parent] + 1
        if not np.array_equal(expected, self.depth):
            raise ValueError("depths do not match the tree structure")

    # -- structure ----------------------------------------------------------------------------
    @property
    def node_count(self) -> int:
        return int(self.attribute.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.attribute == LEAF

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.is_leaf))

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    # -- prediction ---------------------------------------------------------------------------
    def walk(self) -> C45Walk:
        """The arrays the compiled prediction walk reads, as one record."""
        return C45Walk(*(getattr(self, name) for name in C45Walk._fields))

    def predict_proba(self, X: np.ndarray, laplace: bool = False) -> np.ndarray:
        """J48's class distribution for every row of X (float64, codes for nominal columns)."""
        out = np.zeros((X.shape[0], self.n_classes))
        _class_probabilities(np.ascontiguousarray(X, dtype=np.float64), self.walk(),
                             self.class_weight, laplace, out)
        return out

    # -- interoperability -----------------------------------------------------------------------
    def to_binary_tree(self) -> Tree:
        """The same partition of the input space as a binary treesmith ``Tree``.

        A multiway nominal test becomes a chain of ``code <= v + 0.5`` tests (one per value
        but the last), a binary nominal test ``x == v`` two tests ``code <= v - 0.5`` and
        ``code <= v + 0.5`` with the "other values" subtree under both outer branches, so
        depth, node and leaf counts of the view exceed C4.5's when nominal tests are present
        (``c45_tree_`` has C4.5's). Rows with a missing value take the heaviest branch in
        this view; the estimator's own predictions spread them over all branches as C4.5
        does. :meth:`binary_repeated_tests` says which nodes of the view repeat their parent's
        test.
        """
        records = self._binary_records()
        n = len(records)
        feature = np.array([r[0] for r in records], dtype=np.int64)
        leaf = feature == TREE_UNDEFINED
        class_weight = np.array([r[3] for r in records], dtype=np.float64)
        total = class_weight.sum(axis=1)
        value = np.divide(class_weight, total[:, None], out=np.zeros_like(class_weight),
                          where=total[:, None] > 0)
        parent = np.full(n, -1)
        left = np.array([r[5] for r in records], dtype=np.int64)
        right = np.array([r[6] for r in records], dtype=np.int64)
        parent[left[~leaf]] = np.flatnonzero(~leaf)
        parent[right[~leaf]] = np.flatnonzero(~leaf)
        for i in range(n):  # pre-order: parents first; empty nodes answer as their parent
            if total[i] <= 0 and parent[i] >= 0:
                value[i] = value[parent[i]]
        entropy = -np.sum(np.where(value > 0, value * np.log2(np.where(value > 0, value, 1)),
                                   0.0), axis=1)
        return Tree(
            self.n_features, self.n_classes,
            children_left=left, children_right=right, feature=feature,
            threshold=np.array([r[1] for r in records], dtype=np.float64),
            bin_threshold=np.where(leaf, -1, 0).astype(np.int64),
            missing_go_left=np.array([r[2] for r in records], dtype=bool),
            impurity=entropy,
            n_node_samples=np.rint(total).astype(np.int64),
            weighted_n_node_samples=total, value=value,
            class_counts=class_weight.copy(),
            depth=np.array([r[4] for r in records], dtype=np.int64),
        )

    def binary_repeated_tests(self) -> np.ndarray:
        """bool, one per node of :meth:`to_binary_tree`'s view: True where the node renders
        the same C4.5 test as its parent (the second and later links of a multiway nominal
        chain, the inner ``code <= v + 0.5`` of a binary nominal test). C4.5 evaluates such a
        test once, so a per-test cost charges it once (docs/methods.md §5)."""
        return np.array([r[7] for r in self._binary_records()], dtype=bool)

    def _binary_records(self) -> list:
        """The binary view's nodes in pre-order: (feature, threshold, missing_left,
        class_weight, depth, left, right, repeats_parent_test)."""
        records = []

        def add(node_id: int, depth: int) -> int:
            me = len(records)
            records.append(None)
            weight = self.class_weight[node_id]
            if self.attribute[node_id] == LEAF:
                records[me] = (TREE_UNDEFINED, np.nan, False, weight, depth, TREE_LEAF,
                               TREE_LEAF, False)
                return me
            start, count = self.child_start[node_id], self.n_children[node_id]
            kids = self.children[start:start + count]
            shares = self.branch_weight[start:start + count]
            heaviest = int(np.argmax(shares))
            feature = int(self.attribute[node_id])
            if self.kind[node_id] == NUMERIC:
                tests = [(self.threshold[node_id], 0)]
                branch_codes = None
            elif self.kind[node_id] == NOMINAL_BINARY:
                value = self.threshold[node_id]
                tests = [(value - 0.5, None), (value + 0.5, None)]
                branch_codes = None
            else:
                tests = [(b + 0.5, b) for b in range(count - 1)]
                branch_codes = list(range(count))
            if self.kind[node_id] == NOMINAL_BINARY:
                # code < v -> branch 1; code == v -> branch 0; code > v -> branch 1
                left_lt = add(kids[1], depth + 1)
                inner = len(records)
                records.append(None)
                eq = add(kids[0], depth + 2)
                gt = add(kids[1], depth + 2)
                records[inner] = (feature, value + 0.5, heaviest == 0, weight, depth + 1, eq,
                                  gt, True)
                records[me] = (feature, value - 0.5, False, weight, depth, left_lt, inner,
                               False)
                return me
            if branch_codes is None:  # numeric
                left = add(kids[0], depth + 1)
                right = add(kids[1], depth + 1)
                records[me] = (feature, float(tests[0][0]), heaviest == 0, weight, depth, left,
                               right, False)
                return me
            # multiway nominal: code <= 0.5 -> branch 0, else code <= 1.5 -> branch 1, ...
            current, current_depth = me, depth
            for b in range(count - 1):
                left = add(kids[b], current_depth + 1)
                if b == count - 2:
                    right = add(kids[count - 1], current_depth + 1)
                else:
                    right = len(records)
                    records.append(None)
                # a later link holds the rows of branches b, b + 1, ...: their weights
                rest = weight if b == 0 else self.class_weight[kids[b:]].sum(axis=0)
                records[current] = (feature, b + 0.5, heaviest <= b, rest, current_depth,
                                    left, right, b > 0)
                current, current_depth = right, current_depth + 1
            return me

        add(0, 0)
        return records


@njit(cache=True, nogil=True)
def _leaf_probability(class_weight, k, laplace):
    total = 0.0
    for j in range(class_weight.shape[0]):
        total += class_weight[j]
    if laplace:
        return (class_weight[k] + 1.0) / (total + class_weight.shape[0])
    if abs(total) < SMALL:
        return 0.0
    return class_weight[k] / total


@njit(cache=True, nogil=True)
def _branch_of(kind, threshold, value, n_children):
    if np.isnan(value):
        return -1
    if kind == 0:  # NUMERIC
        return 0 if (value - threshold < SMALL or value <= threshold) else 1
    if kind == 2:  # NOMINAL_BINARY
        return 0 if int(value) == int(threshold) else 1
    code = int(value)
    if code < 0 or code >= n_children or value != code:
        return -1  # unseen category: treated as missing
    return code


@njit(cache=True, nogil=True)
def _route(walk, node, value, weight, stack_node, stack_weight, top):
    """One step of C4.5's walk (J48's ``ClassifierTree.getProbs``) at test ``node``, the
    example's share ``weight`` holding ``value`` for the tested column: a known value goes down
    its branch; a missing or unseen one down every non-empty branch b, with weight
    ``weight · branch_weight[b] / Σ branch_weight`` (nowhere when that sum is 0). Children are
    pushed last first, so the walk pops them in pre-order (node order).

    Returns ``(top, stops)``: the new stack top, and whether the share stops at this test
    (its known value leads to a branch grown from no objects: it answers with this node's
    class distribution).
    """
    start = walk.child_start[node]
    count = walk.n_children[node]
    branch = _branch_of(walk.kind[node], walk.threshold[node], value, count)
    if branch >= 0:
        child = walk.children[start + branch]
        if walk.is_empty[child]:
            return top, True
        stack_node[top] = child
        stack_weight[top] = weight
        return top + 1, False
    total = 0.0
    for b in range(count):
        total += walk.branch_weight[start + b]
    if total > 0:
        for b in range(count - 1, -1, -1):
            child = walk.children[start + b]
            if not walk.is_empty[child]:
                stack_node[top] = child
                stack_weight[top] = weight * walk.branch_weight[start + b] / total
                top += 1
    return top, False


@njit(cache=True, nogil=True)
def _class_probabilities(X, walk, class_weight, laplace, out):  # OUT out (n_rows, n_classes)
    """Σ over the shares of each row's walk (:func:`_route`) of share · the class
    distribution where it ends: a leaf's, or the tested node's when the share stops there."""
    n_classes = class_weight.shape[1]
    n_nodes = walk.attribute.shape[0]
    stack_node = np.empty(n_nodes + 1, dtype=np.int64)
    stack_weight = np.empty(n_nodes + 1)
    for i in range(X.shape[0]):
        stack_node[0] = 0
        stack_weight[0] = 1.0
        top = 1
        while top > 0:
            top -= 1
            node = stack_node[top]
            weight = stack_weight[top]
            stops = walk.attribute[node] < 0
            if not stops:
                top, stops = _route(walk, node, X[i, walk.attribute[node]], weight,
                                    stack_node, stack_weight, top)
            if stops:
                for k in range(n_classes):
                    out[i, k] += weight * _leaf_probability(class_weight[node], k, laplace)


def predicted_class(probabilities: np.ndarray) -> np.ndarray:
    """J48's ``classifyInstance``: the first class whose probability beats the running
    maximum by more than 1e-6."""
    best = np.zeros(probabilities.shape[0], dtype=np.int64)
    best_value = np.full(probabilities.shape[0], -1.0)
    for k in range(probabilities.shape[1]):
        better = probabilities[:, k] - best_value > SMALL
        best[better] = k
        best_value[better] = probabilities[better, k]
    return best


__all__ = ["C45Tree", "C45Walk", "predicted_class"]
