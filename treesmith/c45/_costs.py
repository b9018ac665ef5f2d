"""What a C4.5 prediction costs: the tests it evaluates (docs/methods.md §5 and §11).

C4.5 (Quinlan 1993, ch. 3; Weka's J48 ``ClassifierTree.getProbs``) classifies an example whose
tested value is missing by sending it down every non-empty branch of the test, weighted by
the branches' training shares, and adding up the class distributions reached. To predict as
C4.5 does one must therefore evaluate every test on every branch visited: the example's
**visited tests** are the test nodes of its walk (all branches below a missing value,
recursively; only the taken branch where the value is known). Its cost is
:func:`treesmith.costs.path_cost` of the features of its visited tests, in pre-order:

* per_test: Σ over the visited test nodes of c(feature). A feature tested on two visited
  branches is charged twice: two tests are evaluated.
* per_feature: Σ over the distinct cost groups used by a visited test of the group's cost
  (paid once per example, whatever the number of branches testing it).

A multiway nominal test is one test (the binary view ``tree_`` draws it as a chain of tests on
the same column; :meth:`C45Tree.binary_repeated_tests`). An example with no missing tested
value visits one path, and its cost is that path's.

Depth is a path length, not a count of tests: an example's depth is the mean, weighted by the
fractions C4.5 gives its branches, of the depths (tests on the path) at which its fractions
stop: at a leaf, or after the test whose known value leads to an empty branch. Without a
missing value it is the depth of the leaf it reaches in C4.5's tree.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ._tree import _route


class CostSetting(NamedTuple):
    """What a visited test costs: its column's cost, and its column's cost group (per_feature
    charges a group once per example)."""

    feature_cost: np.ndarray   # float64 (n_features,)
    feature_group: np.ndarray  # int64 (n_features,), ids 0..n_groups-1
    n_groups: int
    per_feature: bool


class Visits(NamedTuple):
    """Per example: the cost of its visited tests, how many there are, and its depth."""

    cost: np.ndarray     # float64 (n_samples,)
    n_tests: np.ndarray  # int64 (n_samples,)
    depth: np.ndarray    # float64 (n_samples,)


def visit_costs(tree, X: np.ndarray, feature_cost, feature_group,
                cost_model: str = "per_test") -> Visits:
    """Cost, number of tests and depth of the C4.5 prediction of every row of ``X`` (float64,
    encoded as :meth:`C45Classifier.predict` encodes it: category codes, NaN missing).

    ``feature_cost`` one cost per column, ``feature_group`` one group id per column,
    ``cost_model`` ``"per_test"`` or ``"per_feature"``. O(visited tests) time per row and
    O(n_nodes + n_groups) extra memory in all.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    groups = np.ascontiguousarray(feature_group, dtype=np.int64)
    n_features = tree.n_features
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ValueError(f"X must have {n_features} columns, got shape {X.shape}.")
    for name, values in (("feature_cost", feature_cost), ("feature_group", groups)):
        if np.shape(values) != (n_features,):
            raise ValueError(f"{name} must have one entry per column ({n_features}), got "
                             f"shape {np.shape(values)}.")
    if groups.size and groups.min() < 0:
        raise ValueError("feature_group ids must be >= 0.")
    if cost_model not in ("per_test", "per_feature"):
        raise ValueError(f"cost_model must be 'per_test' or 'per_feature', got "
                         f"{cost_model!r}.")
    costs = CostSetting(np.ascontiguousarray(feature_cost, dtype=np.float64), groups,
                      int(groups.max()) + 1 if groups.size else 0,
                      cost_model == "per_feature")
    out = Visits(np.zeros(X.shape[0]), np.zeros(X.shape[0], dtype=np.int64),
                 np.zeros(X.shape[0]))
    _visit_costs(X, tree.walk(), costs, out)
    return out


@njit(cache=True, nogil=True)
def _visit_costs(X, walk, costs, out):  # IN X, walk (C45Walk), costs (CostSetting); OUT out
    """C4.5's walk of every row, as its prediction walks it (``_tree._route``), in pre-order,
    charging each visited test; a share ends at a leaf (its depth) or after a test that sends
    it nowhere further (an empty branch, or no branch weight: depth of the test + 1)."""
    n_nodes = walk.attribute.shape[0]
    stack_node = np.empty(n_nodes + 1, dtype=np.int64)
    stack_weight = np.empty(n_nodes + 1)
    paid_by = np.full(costs.n_groups, -1, dtype=np.int64)  # group -> last row that paid it
    for i in range(X.shape[0]):
        stack_node[0] = 0
        stack_weight[0] = 1.0
        top = 1
        sum_cost = 0.0
        n_tests = 0
        sum_depth = 0.0
        sum_weight = 0.0
        while top > 0:
            top -= 1
            node = stack_node[top]
            weight = stack_weight[top]
            feature = walk.attribute[node]
            if feature < 0:
                sum_depth += weight * walk.depth[node]
                sum_weight += weight
                continue
            n_tests += 1
            group = costs.feature_group[feature]
            if not costs.per_feature or paid_by[group] != i:
                paid_by[group] = i
                sum_cost += costs.feature_cost[feature]
            before = top
            top, _ = _route(walk, node, X[i, feature], weight, stack_node, stack_weight, top)
            if top == before:
                sum_depth += weight * (walk.depth[node] + 1)
                sum_weight += weight
        out.cost[i] = sum_cost
        out.n_tests[i] = n_tests
        out.depth[i] = sum_depth / sum_weight if sum_weight > 0 else 0.0


__all__ = ["CostSetting", "Visits", "visit_costs"]
