"""Complexity of a fitted tree: what evaluating it costs (docs/methods.md §5).

Every function works on any fitted tree estimator exposing ``tree_`` (``children_left``,
``feature``, ``threshold``; treesmith's or scikit-learn's) and ``decision_path``. The costs
default to the estimator's fitted ``feature_costs_`` / ``cost_groups_`` / ``cost_model_``
(unit costs, one group per feature and ``"per_test"`` when it has none).

Cost of one example x on its path (:func:`treesmith.costs.path_cost`, computed for every leaf
at once by :func:`treesmith.costs.node_path_costs`, in time linear in the number of nodes):
**per_test** — Σ over the tests on the path of c(feature); **per_feature** — Σ over the
distinct cost groups tested on the path of the group's cost.
Expected cost (the EC4.5/ECART complexity measure; docs/methods.md §5):
c(T) = Σ_x p(x)·cost(x), p = normalised sample weights.
A forest (``estimators_`` of trees) pays, per example, once for each cost group tested on any
of its paths (docs/methods.md §5). A ``C45Classifier`` pays for the tests its prediction
evaluates: every branch below a missing value, as C4.5 classifies (``treesmith.c45._costs``).

:func:`predict_lazy` evaluates a tree while acquiring features on demand, asking for a value
only when the example's path reaches a test on it, and reports the cost actually paid.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from ._precision import fitted_numeric_precision, rounded_values
from .categorical import UNSEEN_AS_MISSING, UnseenValues, fitted_categories
from ._validation import Interval, check_parameter, check_sample_weight
from .costs import (
    check_cost_model,
    check_finite_path_costs,
    group_costs,
    node_path_costs,
    resolve_cost_groups,
    resolve_feature_costs,
)

_LEAF = -1


def _fitted_tree(estimator):
    """``estimator.tree_``, the one tree its predictions walk; a ValueError when it has none,
    or when its predictions average many trees (a Bayesian tree with averaging='posterior',
    whose ``tree_`` is only its best tree: that tree's costs are not its predictions')."""
    tree = getattr(estimator, "tree_", None)
    if tree is None:
        raise ValueError(f"estimator must be a fitted tree with a tree_ attribute, got "
                         f"{type(estimator).__name__}.")
    if getattr(estimator, "posterior_sample_", None) is not None and \
            getattr(estimator, "averaging", "map") != "map":
        raise ValueError(
            f"{type(estimator).__name__}(averaging='posterior') predicts with every tree of "
            "its posterior sample, so the costs of its best tree (tree_) are not what its "
            "predictions cost; for the best tree's costs and predictions, "
            "set_params(averaging='map') (no refit needed).")
    return tree


def _cost_setting(estimator, n_features, feature_costs, cost_groups, cost_model):
    """(per-feature cost, per-feature group id, model name): given ones or the fitted ones."""
    names = getattr(estimator, "feature_names_in_", None)
    if feature_costs is None:
        feature_costs = getattr(estimator, "feature_costs_", None)
    if cost_groups is None:
        cost_groups = getattr(estimator, "cost_groups_", None)
    if cost_model is None:
        cost_model = getattr(estimator, "cost_model_", None)
    costs = resolve_feature_costs(feature_costs, n_features, names)
    groups = resolve_cost_groups(cost_groups, n_features, names)
    return costs, groups, check_cost_model(cost_model)


def _node_features(tree) -> tuple[np.ndarray, np.ndarray]:
    """Internal node ids and the feature each one tests."""
    internal = np.flatnonzero(np.asarray(tree.children_left) != _LEAF)
    return internal, np.asarray(tree.feature)[internal].astype(np.int64)


def path_costs(estimator, X, feature_costs=None, cost_groups=None,
               cost_model=None) -> np.ndarray:
    """Cost paid by each row of ``X`` on its decision path (float64, one per row).

    A forest (an estimator with ``estimators_`` of fitted trees and no ``tree_``) is costed as
    docs/methods.md §5 says: per example, the union of the cost groups tested on its paths in
    all trees, each paid once (``cost_model`` does not apply). A ``C45Classifier`` pays for
    every test its prediction evaluates: below a missing value C4.5 follows every branch, and
    per_test charges each test visited, per_feature each cost group once
    (docs/methods.md §5).
    """
    if getattr(estimator, "tree_", None) is None and getattr(estimator, "estimators_", None):
        with np.errstate(over="ignore"):
            cost = _forest_costs(estimator, X, feature_costs, cost_groups)
        return check_finite_path_costs(cost, _used_costs(estimator, feature_costs))
    if _is_c45(estimator):
        with np.errstate(over="ignore"):
            cost = _c45_visits(estimator, X, feature_costs, cost_groups, cost_model).cost
        return check_finite_path_costs(cost, _used_costs(estimator, feature_costs))
    tree = _fitted_tree(estimator)
    leaf_cost = node_path_costs(tree, *_cost_setting(
        estimator, _n_features(estimator, tree), feature_costs, cost_groups, cost_model))
    return leaf_cost[np.asarray(estimator.apply(X), dtype=np.int64)]


def _used_costs(estimator, feature_costs):
    """The feature costs a metric charges (given, else fitted), for an overflow message."""
    used = getattr(estimator, "feature_costs_", None) if feature_costs is None else feature_costs
    if isinstance(used, dict) or used is None:
        return np.zeros(0) if not isinstance(used, dict) else np.asarray(
            list(used.values()), dtype=np.float64)
    return used


def _is_c45(estimator) -> bool:
    return getattr(estimator, "c45_tree_", None) is not None


def _c45_visits(estimator, X, feature_costs=None, cost_groups=None, cost_model=None):
    """Cost, number and depth of the tests C4.5's prediction of each row of ``X`` evaluates
    (:func:`treesmith.c45._costs.visit_costs`)."""
    from .c45._costs import visit_costs

    setting = _cost_setting(estimator, estimator.n_features_in_, feature_costs, cost_groups,
                            cost_model)
    return visit_costs(estimator.c45_tree_, estimator._encode_predict(X), *setting)


def _node_costs(estimator, tree, feature_costs, cost_groups, cost_model) -> np.ndarray:
    """:func:`node_path_costs` of ``tree``; a C4.5 model's multiway tests, drawn in ``tree_``
    as chains of binary tests, are charged once."""
    repeated = estimator.c45_tree_.binary_repeated_tests() if _is_c45(estimator) else None
    return node_path_costs(tree, *_cost_setting(
        estimator, _n_features(estimator, tree), feature_costs, cost_groups, cost_model),
        repeated_test=repeated)


def _forest_costs(forest, X, feature_costs, cost_groups) -> np.ndarray:
    members = list(np.ravel(forest.estimators_))
    n_features = int(getattr(forest, "n_features_in_", None) or members[0].n_features_in_)
    costs, groups, _ = _cost_setting(forest, n_features, feature_costs, cost_groups, None)
    # a random forest's members are fitted without column names, BudgetRF's with its own
    named = getattr(members[0], "feature_names_in_", None) is not None
    values = np.asarray(X) if hasattr(X, "iloc") and not named else X
    acquired = None
    for member in members:
        tested = _tested_groups(sp.csr_matrix(member.decision_path(values)), member.tree_,
                                groups)
        acquired = tested if acquired is None else acquired.maximum(tested)
    return np.asarray(acquired @ group_costs(costs, groups), dtype=np.float64).ravel()


def _tested_groups(paths, tree, groups) -> sp.csr_matrix:
    """Example x group indicator (0/1): the group is tested on the example's path."""
    internal, features = _node_features(tree)
    n_groups = int(groups.max()) + 1 if groups.size else 0
    node_group = sp.csr_matrix((np.ones(internal.size), (internal, groups[features])),
                               shape=(paths.shape[1], n_groups))
    tested = sp.csr_matrix(paths @ node_group)
    tested.data = np.minimum(tested.data, 1.0)
    return tested


def _n_features(estimator, tree) -> int:
    n = getattr(estimator, "n_features_in_", None)
    return int(n if n is not None else tree.n_features)


def _normalised_weight(sample_weight, n_samples) -> np.ndarray:
    """p(x): ``sample_weight`` checked and normalised to sum 1 (uniform when None)."""
    return check_sample_weight(sample_weight, n_samples, positive_sum=True, normalize=True)


def expected_cost(estimator, X, sample_weight=None, feature_costs=None, cost_groups=None,
                  cost_model=None) -> float:
    """c(T) = Σ_x p(x)·cost(x) over the rows of ``X`` (docs/methods.md §5).

    ``p`` is ``sample_weight`` normalised to sum 1 (uniform when None). The costs, groups and
    cost model default to the fitted estimator's; pass them to evaluate another setting.
    """
    cost = path_costs(estimator, X, feature_costs, cost_groups, cost_model)
    if cost.shape[0] == 0:
        raise ValueError("X has no rows: the expected cost is undefined.")
    return float(cost @ _normalised_weight(sample_weight, cost.shape[0]))


def max_cost(estimator, X=None, feature_costs=None, cost_groups=None,
             cost_model=None) -> float:
    """Worst cost of evaluating the tree: over the rows of ``X``, or over every root-to-leaf
    path of the tree when ``X`` is None (for a ``C45Classifier``, the paths of complete
    examples; a row with missing values, which C4.5 sends down several branches, can cost
    more: pass ``X``)."""
    if getattr(estimator, "tree_", None) is None and getattr(estimator, "estimators_", None):
        from .ensemble.costs import forest_max_cost  # a forest: the union per example

        with np.errstate(over="ignore"):
            worst = forest_max_cost(estimator, X, feature_costs, cost_groups)
        return float(check_finite_path_costs(np.asarray([worst]),
                                             _used_costs(estimator, feature_costs))[0])
    tree = _fitted_tree(estimator)
    if X is None:
        node_cost = _node_costs(estimator, tree, feature_costs, cost_groups, cost_model)
        return float(node_cost[np.asarray(tree.children_left) == _LEAF].max())
    cost = path_costs(estimator, X, feature_costs, cost_groups, cost_model)
    if cost.shape[0] == 0:
        raise ValueError("X has no rows: the maximum cost is undefined.")
    return float(cost.max())


def expected_depth(estimator, X, sample_weight=None) -> float:
    """Σ_x p(x)·(number of tests on the path of x): the expected cost with unit costs.

    A ``C45Classifier`` counts the tests on C4.5's own path (a multiway test is one test); a row
    with a missing value, which C4.5 sends down several branches, has the mean depth of the
    ends of its branches, weighted by the fractions C4.5 gives them (its number of tests
    evaluated is its per_test cost with unit costs, :func:`path_costs`).
    """
    if _is_c45(estimator):
        depth = _c45_visits(estimator, X).depth
        if depth.shape[0] == 0:
            raise ValueError("X has no rows: the expected depth is undefined.")
        return float(depth @ _normalised_weight(sample_weight, depth.shape[0]))
    if getattr(estimator, "tree_", None) is not None:
        _fitted_tree(estimator)  # not a posterior average of many trees
    elif getattr(estimator, "estimators_", None) is not None:
        # a forest's decision_path is (indicator, n_nodes_ptr): a TypeError in csr_matrix
        raise ValueError(f"expected_depth is the number of tests on one tree's paths; "
                         f"{type(estimator).__name__} has {len(estimator.estimators_)} trees. "
                         "Use expected_cost (unit costs by default: each feature paid once per "
                         "example, whatever the trees) or expected_depth of each member of "
                         "estimators_.")
    else:  # not a tree: 'str' object has no attribute 'decision_path'
        _fitted_tree(estimator)
    paths = sp.csr_matrix(estimator.decision_path(X))
    if paths.shape[0] == 0:
        raise ValueError("X has no rows: the expected depth is undefined.")
    depth = np.diff(paths.indptr) - 1  # nodes on the path minus the leaf
    return float(depth @ _normalised_weight(sample_weight, paths.shape[0]))


# -- cost-aware prediction ----------------------------------------------------------------
@dataclass
class LazyPrediction:
    """Result of :func:`predict_lazy`.

    Attributes:
        predictions: class labels (classifier) or predicted values (regressor), one per row.
        costs: cost paid by each row under the cost model (same as :func:`path_costs`).
        leaves: the leaf each row reached (of ``tree_``; a ``C45Classifier`` row with a missing
            value reaches several of C4.5's leaves, and this is its ``apply``: the heaviest
            branch's).
        n_requests: number of feature values requested (each (row, feature) at most once).
        probabilities: class probabilities as ``predict_proba`` gives them, for a
            ``C45Classifier`` (whose lazy walk combines its branches' distributions); None
            otherwise.
    """

    predictions: np.ndarray
    costs: np.ndarray
    leaves: np.ndarray
    n_requests: int
    probabilities: np.ndarray | None = None

    def __iter__(self):
        return iter((self.predictions, self.costs))


def _check_rows_fit_in_memory(estimator, n_samples: int) -> None:
    """Refuse, naming n_samples, a number of examples whose per-row state (values and
    acquisitions per feature, cost, leaf per tree: at least 24 + 9 per feature + 8 per tree
    bytes) cannot fit in the available memory: n_samples=2**31 failed in numpy's allocation."""
    from .grower import refuse_beyond_memory

    n_features = int(getattr(estimator, "n_features_in_", 0) or 0)
    n_trees = len(getattr(estimator, "estimators_", None) or ()) or 1
    refuse_beyond_memory(n_samples * (24 + 9 * n_features + 8 * n_trees),
                         f"predict_lazy: n_samples={n_samples} examples",
                         "predict them in smaller batches.", " of state")


def predict_lazy(estimator, get_feature, n_samples: int, *, batch: bool = False,
                 feature_costs=None, cost_groups=None, cost_model=None) -> LazyPrediction:
    """Predict ``n_samples`` examples, acquiring each feature value only when needed.

    Each example walks its path from the root; at a test on feature j the value is requested
    (once per example and feature) with ``get_feature(row_index, j)``, or, with
    ``batch=True``, for every example waiting at that node at once with
    ``get_feature(row_indices, j)`` (an int array; return one value per index). A value is a
    float, NaN = missing (the test sends it to its learned side). A ``C45Classifier`` takes
    values as its ``predict`` does (categories of nominal columns) and follows C4.5: below a
    missing value it descends every branch, asking for the features each branch tests, and
    predicts exactly as ``predict`` / ``predict_proba`` (``probabilities``). Features off the
    visited paths are never requested. Returns predictions and the cost paid per example under
    the estimator's (or the given) cost model: per_test charges every test visited,
    per_feature charges a cost group the first time a visited test uses one of its columns
    (:func:`path_costs`).

    Unpacks as ``predictions, costs = predict_lazy(...)``.
    """
    check_parameter("n_samples", n_samples, [Interval(Integral, 0, None)], "predict_lazy")
    check_parameter("batch", batch, ["boolean"], "predict_lazy")
    if not callable(get_feature):  # was "'str' object is not callable" at the first request
        raise ValueError(f"predict_lazy: get_feature must be a callable get_feature(row, j) "
                         f"(get_feature(rows, j) with batch=True), got {get_feature!r}.")
    _check_rows_fit_in_memory(estimator, int(n_samples))
    if getattr(estimator, "tree_", None) is None and getattr(estimator, "estimators_", None):
        from .ensemble.costs import forest_predict_lazy  # one request per feature and row

        with np.errstate(over="ignore"):
            result = forest_predict_lazy(estimator, get_feature, n_samples, batch=batch,
                                         feature_costs=feature_costs, cost_groups=cost_groups)
        check_finite_path_costs(result.costs, _used_costs(estimator, feature_costs))
        return result
    tree = _fitted_tree(estimator)
    n_samples = int(n_samples)
    n_features = _n_features(estimator, tree)
    costs, groups, model = _cost_setting(estimator, n_features, feature_costs, cost_groups,
                                         cost_model)
    if _is_c45(estimator):  # every branch below a missing value
        from .c45._lazy import c45_predict_lazy

        with np.errstate(over="ignore"):
            result = c45_predict_lazy(estimator, get_feature, n_samples, batch, costs, groups,
                                      model)
        check_finite_path_costs(result.costs, costs)
        return result
    group_cost = group_costs(costs, groups)
    node_path_costs(tree, costs, groups, model)  # a path whose cost overflows is named first
    unseen = UnseenValues(estimator)
    precision = fitted_numeric_precision(estimator)
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    feature = np.asarray(tree.feature)
    threshold = np.asarray(tree.threshold, dtype=np.float64)
    missing_left = _missing_go_left(tree)

    known: dict[int, np.ndarray] = {}      # feature -> values (NaN until requested)
    asked: dict[int, np.ndarray] = {}      # feature -> bool mask of rows already asked
    paid: dict[int, np.ndarray] = {}       # group -> bool mask of rows that paid it
    paid_cost = np.zeros(n_samples)
    leaves = np.empty(n_samples, dtype=np.int64)
    n_requests = 0
    rows_at = {0: np.arange(n_samples, dtype=np.int64)}
    # Children are stored after their parents, so one pass in node order visits every node
    # after the examples reaching it are known.
    for node in range(left.shape[0]):
        rows = rows_at.pop(node, None)
        if rows is None or rows.size == 0:
            continue
        if left[node] == _LEAF:
            leaves[rows] = node
            continue
        j = int(feature[node])
        if j not in known:
            known[j] = np.full(n_samples, np.nan)
            asked[j] = np.zeros(n_samples, dtype=bool)
        new = rows[~asked[j][rows]]
        if new.size:
            known[j][new] = _request(get_feature, new, j, batch,
                                     fitted_categories(estimator, j), unseen, precision)
            asked[j][new] = True
            n_requests += new.size
        if model == "per_test":
            paid_cost[rows] += costs[j]
        else:
            g = int(groups[j])
            mask = paid.setdefault(g, np.zeros(n_samples, dtype=bool))
            payers = rows[~mask[rows]]
            paid_cost[payers] += group_cost[g]
            mask[payers] = True
        values = known[j][rows]
        go_left = _goes_left(tree, node, values, threshold, missing_left)
        rows_at[int(left[node])] = rows[go_left]
        rows_at[int(right[node])] = rows[~go_left]

    unseen.warn(UNSEEN_AS_MISSING)  # once per call, as predict warns
    return LazyPrediction(_leaf_predictions(estimator, tree, leaves), paid_cost, leaves,
                          n_requests)


def _goes_left(tree, node, values, threshold, missing_left) -> np.ndarray:
    """Rows of ``values`` that go left at ``node``: :meth:`treesmith.tree.Tree.goes_left`
    (categorical splits included), or ``x <= threshold`` for a scikit-learn tree."""
    if hasattr(tree, "goes_left"):
        return tree.goes_left(node, values)
    return np.where(np.isnan(values), bool(missing_left[node]), values <= threshold[node])


def _missing_go_left(tree) -> np.ndarray:
    for name in ("missing_go_left", "missing_go_to_left"):  # treesmith, scikit-learn
        if hasattr(tree, name):
            return np.asarray(getattr(tree, name), dtype=bool)
    return np.zeros(len(tree.children_left), dtype=bool)


def _request(get_feature, rows: np.ndarray, j: int, batch: bool,
             categories=None, unseen=None, precision: str = "float64") -> np.ndarray:
    """Feature ``j`` of ``rows`` from ``get_feature``, as floats rounded to the model's
    fitted ``precision`` (``numeric_precision_``, as ``predict`` rounds X); a categorical
    feature's values (``categories``: its ``categorical.FittedColumn``) as category codes,
    those unseen at fit recorded in ``unseen`` (a ``categorical.UnseenValues``)."""
    values = requested_values(get_feature, rows, j, batch)
    if categories is not None:
        from .categorical import codes_of

        values = codes_of(values, categories, unseen, j)
    else:
        try:
            values = values.astype(np.float64)
        except (TypeError, ValueError):
            bad = next(v for v in values.tolist() if not _is_number_or_missing(v))
            raise ValueError(f"get_feature returned {bad!r} for feature {j}, which is "
                             "numeric: expected a number, or NaN/None for a missing "
                             "value.") from None
        values = rounded_values(values, precision)
    if np.any(np.isinf(values)):
        raise ValueError(f"get_feature returned an infinite value for feature {j}; use NaN "
                         f"for a missing value.")
    return values


def _is_number_or_missing(value) -> bool:
    try:
        np.float64(value)
    except (TypeError, ValueError):
        return False
    return True


def requested_values(get_feature, rows: np.ndarray, j: int, batch: bool) -> np.ndarray:
    """What ``get_feature`` gives for feature ``j`` of ``rows`` (one call with ``batch``, else
    one per row), as a 1-D array of one value per row, or a ``ValueError`` saying what
    came back instead: a batch call must return one value per row, a single call one value (a
    number, a category, or NaN/None), not a list, an array or a dict."""
    if batch:
        returned = get_feature(rows, j)
        values = (returned if isinstance(returned, np.ndarray)
                  else np.asarray(returned, dtype=object)).ravel()
        if values.shape[0] != rows.shape[0]:
            raise ValueError(f"get_feature(rows, {j}) returned {values.shape[0]} values for "
                             f"{rows.shape[0]} rows.")
        if values.dtype == object:  # a numeric array needs no check, value by value
            for value in values.tolist():
                _check_one_value(value, f"get_feature(rows, {j}) must return one value per "
                                        "row")
        return values
    values = np.empty(rows.shape[0], dtype=object)
    for k, row in enumerate(rows.tolist()):
        value = get_feature(row, j)
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value[()]
        _check_one_value(value, f"get_feature({row}, {j}) must return one value")
        values[k] = value
    return values


def _check_one_value(value, context: str) -> None:
    if isinstance(value, (np.ndarray, list, tuple, dict, set)) or \
            not isinstance(value, Hashable):
        raise ValueError(f"{context} (a number, a category, or NaN/None for "
                         f"missing), got {type(value).__name__} {_short(value)}.")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _leaf_predictions(estimator, tree, leaves: np.ndarray) -> np.ndarray:
    """What ``estimator`` predicts at each of ``leaves``: from its ``_node_predictions`` (a
    Bayesian tree's posterior means, ``tree.value`` otherwise)."""
    node_predictions = getattr(estimator, "_node_predictions", None)
    value = np.asarray(tree.value if node_predictions is None else node_predictions())
    value = value.reshape(value.shape[0], -1)[leaves]
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        return value[:, 0]
    return np.asarray(classes)[np.argmax(value, axis=1)]
