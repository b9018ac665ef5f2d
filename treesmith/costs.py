"""Feature acquisition costs, cost groups and cost models (docs/methods.md §5), validated and
resolved.

* ``feature_costs``: one non-negative finite cost per input column, given by position (an
  array of length ``n_features``) or by name/position (a dict or a pandas Series; columns it
  does not list cost 1, as ``class_weight`` treats unlisted classes). ``None`` = all 1.
* ``cost_groups``: columns that share one acquisition (the one-hot columns made from one
  measurement). A list of groups (each a list of column names or positions), a dict
  ``group name -> columns``, or an int array with one group id per column (the fitted
  ``cost_groups_`` form). Groups must be disjoint; unlisted columns form groups of their own.
  The columns of one group must cost the same: the group is paid once, at that cost.
* ``cost_model``: ``"per_test"`` (every test on the path pays its cost, as in the EC4.5/ECART
  experiments) or ``"per_feature"`` (a group is paid once per path, later tests on it are free,
  as in Nan, Wang and Saligrama's "Feature-Budgeted Random Forest", 2015).

:func:`resolve_costs` turns the three into the arrays the growth kernel and the metrics use;
:func:`path_cost` defines what one path costs and :func:`node_path_costs` computes it for every
node of a tree in one pass (the metrics, the exports and ``compare`` all use it).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._dtypes import COST_PER_FEATURE, COST_PER_TEST

#: Cost model name -> the code the growth kernel takes.
COST_MODELS = {"per_test": COST_PER_TEST, "per_feature": COST_PER_FEATURE}
DEFAULT_COST_MODEL = "per_test"


@dataclass(frozen=True)
class ResolvedCosts:
    """What the engine and the metrics use: per-feature cost (float64), per-feature group id
    (int64, 0..n_groups-1 in order of first appearance) and the cost model code."""

    feature_cost: np.ndarray
    cost_group: np.ndarray
    cost_model: int = COST_MODELS[DEFAULT_COST_MODEL]

    @property
    def model_name(self) -> str:
        return next(name for name, code in COST_MODELS.items() if code == self.cost_model)

    @property
    def group_cost(self) -> np.ndarray:
        """Cost of each group (the common cost of its columns)."""
        return group_costs(self.feature_cost, self.cost_group)


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _shorten(names, limit: int = 8) -> str:
    names = [str(n) for n in names]
    shown = ", ".join(repr(n) for n in names[:limit])
    return f"[{shown}{', …' if len(names) > limit else ''}]"


def _column_index(column, n_features: int, names, parameter: str) -> int:
    """Position of ``column`` (an int position or a feature name)."""
    if _is_int(column):
        if not 0 <= column < n_features:
            raise ValueError(f"{parameter}: column position {column} is outside "
                             f"[0, {n_features}).")
        return int(column)
    if isinstance(column, str):
        if names is None:
            raise ValueError(f"{parameter}: column {column!r} is named, but the data has no "
                             f"feature names (fit on a pandas DataFrame, or use positions).")
        positions = np.flatnonzero(np.asarray(names, dtype=object) == column)
        if positions.size == 0:
            raise ValueError(f"{parameter}: no feature is named {column!r}; the features are "
                             f"{_shorten(names)}.")
        return int(positions[0])
    raise ValueError(f"{parameter}: a column must be a position (int) or a feature name (str), "
                     f"got {column!r}.")


def _check_cost(value, where: str) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool) \
            or not np.isfinite(value) or value < 0:
        raise ValueError(f"feature_costs must be non-negative finite numbers; {where} is "
                         f"{value!r}.")
    return float(value)


def resolve_feature_costs(feature_costs, n_features: int, feature_names=None) -> np.ndarray:
    """One float64 cost per column from ``None``, an array (by position) or a dict/Series."""
    if feature_costs is None:
        return np.ones(n_features, dtype=np.float64)
    if hasattr(feature_costs, "index") and hasattr(feature_costs, "to_dict"):  # pandas Series
        feature_costs = feature_costs.to_dict()
    if isinstance(feature_costs, dict):
        costs = np.ones(n_features, dtype=np.float64)
        for column, value in feature_costs.items():
            position = _column_index(column, n_features, feature_names, "feature_costs")
            costs[position] = _check_cost(value, f"the cost of column {column!r}")
        return costs
    if isinstance(feature_costs, str):
        raise ValueError(f"feature_costs must be None, an array with one cost per column or a "
                         f"dict {{column: cost}}, got {feature_costs!r}.")
    values = np.asarray(feature_costs, dtype=object)
    if values.ndim != 1 or values.shape[0] != n_features:
        raise ValueError(f"feature_costs must have one cost per column ({n_features}), got "
                         f"shape {values.shape}.")
    return np.asarray([_check_cost(v, f"entry {j}") for j, v in enumerate(values)],
                      dtype=np.float64)


def resolve_cost_groups(cost_groups, n_features: int, feature_names=None) -> np.ndarray:
    """One int64 group id per column (0..n_groups-1 in order of first appearance)."""
    if cost_groups is None:
        return np.arange(n_features, dtype=np.int64)
    if isinstance(cost_groups, (str, bytes)) or not isinstance(cost_groups, dict) and (
            not hasattr(cost_groups, "__iter__") or getattr(cost_groups, "ndim", 1) == 0):
        # a number (or a 0-d array) is not a grouping: iterating it raised a TypeError
        raise ValueError(f"cost_groups must be None, a list of column groups, a dict "
                         f"{{group: columns}} or one group id per column, got {cost_groups!r}.")
    groups = list(cost_groups.values()) if isinstance(cost_groups, dict) else list(cost_groups)
    if groups and all(_is_int(g) for g in groups):
        if len(groups) != n_features:
            raise ValueError(f"cost_groups given as group ids must have one id per column "
                             f"({n_features}), got {len(groups)}.")
        # renumbered in order of first appearance; any ints are labels (2**63 included)
        ranks: dict = {}
        return np.asarray([ranks.setdefault(int(g), len(ranks)) for g in groups],
                          dtype=np.int64)
    ids = np.full(n_features, -1, dtype=np.int64)
    for group_index, group in enumerate(groups):
        if isinstance(group, (str, numbers.Number)) or not hasattr(group, "__iter__"):
            raise ValueError(f"cost_groups: group {group_index} must be a list of columns, got "
                             f"{group!r}.")
        for column in group:
            position = _column_index(column, n_features, feature_names, "cost_groups")
            if ids[position] not in (-1, group_index):
                raise ValueError(f"cost_groups must be disjoint: column {column!r} is in groups "
                                 f"{ids[position]} and {group_index}.")
            ids[position] = group_index
    alone = ids == -1
    ids[alone] = len(groups) + np.arange(int(alone.sum()))
    return _first_appearance(ids)


def _first_appearance(ids: np.ndarray) -> np.ndarray:
    """Renumber ids 0, 1, … in order of first appearance along the columns."""
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    rank = np.empty(first.shape[0], dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0])
    return rank[inverse.ravel()].astype(np.int64)


def check_cost_model(cost_model) -> str:
    """``None`` -> ``"per_test"``; otherwise one of the names of :data:`COST_MODELS`."""
    if cost_model is None:
        return DEFAULT_COST_MODEL
    if not isinstance(cost_model, str) or cost_model not in COST_MODELS:
        raise ValueError(f"cost_model must be one of {list(COST_MODELS)}, got {cost_model!r}.")
    return cost_model


def group_costs(costs: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Cost of each group id: the (common) cost of its columns."""
    out = np.zeros(int(groups.max()) + 1 if groups.size else 0, dtype=np.float64)
    np.maximum.at(out, groups, costs)
    return out


def resolve_costs(feature_costs, cost_groups, cost_model, n_features: int,
                  feature_names=None) -> ResolvedCosts:
    """Validate the three cost parameters (docs/methods.md §5); return the arrays the engine uses.

    Returns ``ResolvedCosts(feature_cost, cost_group, cost_model)``: float64 (n_features,),
    int64 (n_features,) ids 0..n_groups-1 (columns without a group get their own id), and the
    kernel's cost model code (``COST_MODELS[name]``). Raises ``ValueError`` naming the
    parameter on negative / non-finite costs, a wrong number of costs, unknown columns,
    overlapping groups or unequal costs inside a group.
    """
    n_features = int(n_features)
    if feature_names is not None:
        feature_names = np.asarray(feature_names, dtype=object)
        if feature_names.shape[0] != n_features:
            raise ValueError(f"feature_names has {feature_names.shape[0]} names for "
                             f"{n_features} features.")
    costs = resolve_feature_costs(feature_costs, n_features, feature_names)
    groups = resolve_cost_groups(cost_groups, n_features, feature_names)
    model = check_cost_model(cost_model)
    shared = group_costs(costs, groups)
    unequal = np.flatnonzero(costs != shared[groups])
    if unequal.size:
        members = np.flatnonzero(groups == groups[unequal[0]])
        labels = [repr(feature_names[k]) if feature_names is not None else str(k)
                  for k in members]
        raise ValueError(
            "feature_costs must be equal inside a cost group of cost_groups (one acquisition, "
            f"one cost): columns {', '.join(labels)} cost "
            f"{', '.join(f'{costs[k]:g}' for k in members)}.")
    return ResolvedCosts(costs, groups, COST_MODELS[model])


# -- the cost of a path (the one definition the metrics, the exports and compare use) ----------
def _model_name(cost_model) -> str:
    if isinstance(cost_model, str):
        return check_cost_model(cost_model)
    names = [name for name, code in COST_MODELS.items() if code == cost_model]
    if not names:
        raise ValueError(f"cost_model must be one of {list(COST_MODELS)}, got {cost_model!r}.")
    return names[0]


def path_cost(tested_features, feature_cost, cost_group=None, cost_model="per_test") -> float:
    """Cost of evaluating one path whose tests use ``tested_features`` (column ids, root first).

    per_test: every test pays the cost of its column, c(path) = Σ_t c(f_t) (the setting of the
    EC4.5/ECART experiments). per_feature: a cost group (a column, or the columns of one
    acquisition) is paid once per path, at its cost, and later tests on it are free (Nan, Wang
    and Saligrama, "Feature-Budgeted Random Forest", 2015); docs/methods.md §5. This is the
    definition; :func:`node_path_costs` computes it for every node of a tree at once, and the
    growth kernel's marginal cost of a test is ``path_cost(path + [f]) - path_cost(path)``.
    A C4.5 prediction, which follows every branch below a missing value, costs ``path_cost``
    of all the tests it visits (``treesmith.c45._costs``): a column tested on two visited
    branches pays twice per_test, once per_feature.
    """
    feature_cost = np.asarray(feature_cost, dtype=np.float64)
    features = [int(f) for f in tested_features]
    if _model_name(cost_model) == "per_test":
        return float(sum(feature_cost[f] for f in features))
    groups = np.arange(feature_cost.shape[0]) if cost_group is None else np.asarray(cost_group)
    paid, total = set(), 0.0
    for f in features:
        if int(groups[f]) not in paid:
            paid.add(int(groups[f]))
            total += float(feature_cost[f])
    return total


def node_path_costs(tree, feature_cost, cost_group=None, cost_model="per_test",
                    repeated_test=None) -> np.ndarray:
    """The path costs of :func:`_node_path_costs`, refused by name when one overflows float64
    (finite costs such as 1e308 summed along a path gave inf, with only numpy's overflow
    warning, and expected_cost / max_cost returned inf)."""
    with np.errstate(over="ignore"):
        cost = _node_path_costs(tree, feature_cost, cost_group, cost_model, repeated_test)
    return check_finite_path_costs(cost, feature_cost)


def check_finite_path_costs(cost: np.ndarray, feature_cost) -> np.ndarray:
    """``cost`` (path costs: sums of feature costs), or a ValueError naming feature_costs when
    one overflowed float64 (costs such as 1e308 summed along a path)."""
    if not np.all(np.isfinite(cost)):
        largest = float(np.max(np.asarray(feature_cost, dtype=np.float64), initial=0.0))
        raise ValueError(f"feature_costs are too large for float64 path costs: a path's sum "
                         f"overflows (largest cost {largest:.3g}). Divide feature_costs by a "
                         "constant (the costs' unit does not change the trees).")
    return cost


def _node_path_costs(tree, feature_cost, cost_group=None, cost_model="per_test",
                     repeated_test=None) -> np.ndarray:
    """Cost of the tests on the path from the root to every node (the node's own test not
    included), float64 ``(n_nodes,)``: at a leaf, the cost of classifying an example that
    reaches it (:func:`path_cost` of its path).

    ``repeated_test`` (bool, one per node, optional): True where a node renders the same test
    as its parent (a C4.5 multiway test drawn as a chain of binary tests,
    :meth:`treesmith.c45.C45Tree.binary_repeated_tests`); such a node is not charged again,
    since one test is evaluated. Without it every node is a test of its own.

    ``tree`` is any array tree with ``children_left``, ``children_right`` and ``feature``
    (treesmith's or scikit-learn's ``tree_``; a leaf has ``children_left == -1``). One pass over
    the nodes, carrying the path's state (O(n_nodes) time and memory, whatever the depth):
    per_test level by level with NumPy; per_feature as a depth-first walk that counts, per
    cost group, the tests on the current path.
    """
    left = np.asarray(tree.children_left, dtype=np.int64)
    right = np.asarray(tree.children_right, dtype=np.int64)
    feature = np.asarray(tree.feature, dtype=np.int64)
    feature_cost = np.asarray(feature_cost, dtype=np.float64)
    n_nodes = left.shape[0]
    internal = left != -1
    test_cost = np.zeros(n_nodes)
    test_cost[internal] = feature_cost[feature[internal]]
    if repeated_test is not None:
        repeated_test = np.asarray(repeated_test, dtype=bool)
        if repeated_test.shape != (n_nodes,):
            raise ValueError(f"repeated_test must have one entry per node ({n_nodes}), got "
                             f"shape {repeated_test.shape}.")
        test_cost[repeated_test] = 0.0  # per_feature: the same column, already paid
    cost = np.zeros(n_nodes)
    if n_nodes == 0:
        return cost
    if _model_name(cost_model) == "per_test":
        frontier = np.zeros(1, dtype=np.int64)
        while frontier.size:
            frontier = frontier[internal[frontier]]
            for children in (left[frontier], right[frontier]):
                cost[children] = cost[frontier] + test_cost[frontier]
            frontier = np.concatenate([left[frontier], right[frontier]])
        return cost
    groups = (np.arange(feature_cost.shape[0]) if cost_group is None
              else np.asarray(cost_group, dtype=np.int64))
    node_group = np.full(n_nodes, -1, dtype=np.int64)
    node_group[internal] = groups[feature[internal]]
    left_list, right_list = left.tolist(), right.tolist()
    group_list, cost_list = node_group.tolist(), test_cost.tolist()
    on_path = [0] * (int(groups.max()) + 1 if groups.size else 0)
    out = [0.0] * n_nodes
    stack = [0]  # node id to enter, or ~node to leave
    while stack:
        node = stack.pop()
        if node < 0:
            on_path[group_list[~node]] -= 1
            continue
        if left_list[node] == -1:
            continue
        group = group_list[node]
        child_cost = out[node] + (0.0 if on_path[group] else cost_list[node])
        out[left_list[node]] = out[right_list[node]] = child_cost
        on_path[group] += 1
        stack.extend((~node, right_list[node], left_list[node]))
    return np.asarray(out, dtype=np.float64)
