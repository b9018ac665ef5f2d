"""What a forest costs at prediction time: per example, the union of the features its paths
test in all trees, each cost group paid once (docs/methods.md §5; Nan, Wang & Saligrama 2015,
eq. 2: C(f, x) is modular in the support of the features f uses on x).

These functions serve ``treesmith.expected_cost``, ``max_cost`` and ``predict_lazy`` when they
are given a forest (an estimator with ``estimators_`` of fitted trees), and
:func:`features_used` exports the forest's per-example feature usage.
"""

from __future__ import annotations

import numpy as np

from ..costs import group_costs, resolve_cost_groups, resolve_feature_costs

_LEAF = -1


def is_forest(estimator) -> bool:
    """A fitted forest: ``estimators_`` of fitted trees and no ``tree_`` of its own."""
    return getattr(estimator, "tree_", None) is None and bool(
        getattr(estimator, "estimators_", None))


def members(forest) -> list:
    """The fitted trees of ``forest``; a ValueError for anything else (a single tree, a string:
    an AttributeError on ``estimators_``)."""
    trees = getattr(forest, "estimators_", None)
    if trees is None or getattr(forest, "tree_", None) is not None or not len(trees):
        raise ValueError(f"expected a fitted forest (an estimator with estimators_ of fitted "
                         f"trees), got {type(forest).__name__}.")
    return list(np.ravel(trees))


def leaf_path_groups(tree, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """Bool (n_nodes, n_groups): the cost groups tested on the path from the root to each node
    (the node's own test excluded)."""
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    feature = np.asarray(tree.feature)
    path = np.zeros((left.shape[0], n_groups), dtype=bool)
    for node in np.flatnonzero(left != _LEAF):  # parents are stored before their children
        below = path[node].copy()
        below[groups[feature[node]]] = True
        path[left[node]] = below
        path[right[node]] = below
    return path


def cost_setting(forest, feature_costs=None, cost_groups=None):
    """(per-feature cost, per-feature group id) given or fitted (unit costs by default)."""
    n_features = int(getattr(forest, "n_features_in_", None) or
                     members(forest)[0].n_features_in_)
    names = getattr(forest, "feature_names_in_", None)
    if feature_costs is None:
        feature_costs = getattr(forest, "feature_costs_", None)
    if cost_groups is None:
        cost_groups = getattr(forest, "cost_groups_", None)
    return (resolve_feature_costs(feature_costs, n_features, names),
            resolve_cost_groups(cost_groups, n_features, names))


def member_leaves(forest, X) -> np.ndarray:
    """Leaf of every row in every member, shape (n_samples, n_members): treesmith's forests'
    own ``apply`` (their categorical columns encoded once, with the forest's categories), else
    member by member on the values of X."""
    if type(forest).__module__.startswith("treesmith.") and callable(
            getattr(forest, "apply", None)):
        return np.asarray(forest.apply(X))
    values = np.asarray(X, dtype=np.float64) if hasattr(X, "iloc") else X
    return np.column_stack([member.apply(values) for member in members(forest)])


def groups_acquired(forest, X, groups: np.ndarray) -> np.ndarray:
    """Bool (n_samples, n_groups): the groups tested on each row's paths in any tree."""
    n_groups = int(groups.max()) + 1
    leaves = member_leaves(forest, X)
    acquired = None
    for t, member in enumerate(members(forest)):
        # the leaf's path holds every test the row passed
        tested = leaf_path_groups(member.tree_, groups, n_groups)[leaves[:, t]]
        acquired = tested if acquired is None else acquired | tested
    return acquired


def features_used(forest, X) -> np.ndarray:
    """Bool (n_samples, n_features): the features tested on each row's paths in any tree —
    what must be acquired to predict the row. ``features_used(forest, X).mean()`` is the share
    of features used per example (Nan et al. 2015, Table 1)."""
    n_features = cost_setting(forest)[0].shape[0]
    return groups_acquired(forest, X, np.arange(n_features))


def forest_path_costs(forest, X, feature_costs=None, cost_groups=None) -> np.ndarray:
    """Cost of each row: Σ over the cost groups tested on its paths in any tree."""
    costs, groups = cost_setting(forest, feature_costs, cost_groups)
    acquired = groups_acquired(forest, X, groups)
    return acquired.astype(np.float64) @ group_costs(costs, groups)


def forest_max_cost(forest, X=None, feature_costs=None, cost_groups=None) -> float:
    """Largest per-example cost over the rows of ``X``. A forest's worst case over all inputs
    would need the consistent combinations of paths across trees, so ``X`` is required."""
    if X is None:
        raise ValueError("max_cost of a forest needs X: the worst case is taken over examples "
                         "(paths of different trees cannot be combined freely).")
    cost = forest_path_costs(forest, X, feature_costs, cost_groups)
    if cost.shape[0] == 0:
        raise ValueError("X has no rows: the maximum cost is undefined.")
    return float(cost.max())


def forest_predict_lazy(forest, get_feature, n_samples: int, *, batch: bool = False,
                        feature_costs=None, cost_groups=None):
    """Predict with a forest, acquiring a feature value the first time any tree's path needs it
    and reusing it in the other trees; each cost group is paid once per example.

    Same protocol as ``treesmith.predict_lazy`` (``get_feature(row, j)`` or, with
    ``batch=True``, ``get_feature(rows, j)``; NaN = missing). Returns its ``LazyPrediction``
    with ``leaves`` of shape (n_samples, n_trees).
    """
    from .._precision import fitted_numeric_precision
    from ..categorical import UNSEEN_AS_MISSING, UnseenValues, fitted_categories
    from ..metrics import LazyPrediction, _goes_left, _missing_go_left, _request

    n_samples = int(n_samples)
    if n_samples < 0:
        raise ValueError(f"n_samples must be >= 0, got {n_samples}.")
    costs, groups = cost_setting(forest, feature_costs, cost_groups)
    group_cost = group_costs(costs, groups)
    known = np.full((n_samples, costs.shape[0]), np.nan)
    asked = np.zeros((n_samples, costs.shape[0]), dtype=bool)
    paid = np.zeros((n_samples, group_cost.shape[0]), dtype=bool)
    trees = [member.tree_ for member in members(forest)]
    leaves = np.empty((n_samples, len(trees)), dtype=np.int64)
    n_requests = 0
    unseen = UnseenValues(forest)  # values asked once per row, reported once per call
    for t, tree in enumerate(trees):
        left, right = np.asarray(tree.children_left), np.asarray(tree.children_right)
        feature, threshold = np.asarray(tree.feature), np.asarray(tree.threshold)
        missing_left = _missing_go_left(tree)
        rows_at = {0: np.arange(n_samples, dtype=np.int64)}
        for node in range(left.shape[0]):  # parents before children
            rows = rows_at.pop(node, None)
            if rows is None or rows.size == 0:
                continue
            if left[node] == _LEAF:
                leaves[rows, t] = node
                continue
            j = int(feature[node])
            new = rows[~asked[rows, j]]
            if new.size:
                known[new, j] = _request(get_feature, new, j, batch,
                                         fitted_categories(forest, j), unseen,
                                         fitted_numeric_precision(forest))
                asked[new, j] = True
                n_requests += new.size
            paid[rows, groups[j]] = True
            values = known[rows, j]
            go_left = _goes_left(tree, node, values, threshold, missing_left)
            rows_at[int(left[node])] = rows[go_left]
            rows_at[int(right[node])] = rows[~go_left]
    unseen.warn(UNSEEN_AS_MISSING)
    predictions = forest._predict_from_leaves(leaves)
    return LazyPrediction(predictions, paid.astype(np.float64) @ group_cost, leaves, n_requests)
