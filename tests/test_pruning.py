"""Post-pruning methods on hand-built trees with answers worked out by hand, and ``prune()``.

Each method gets a tree it must prune and one it must leave alone; the arithmetic is in the
comments. ``build_tree`` (also used by the other test_pruning_* files) turns a nested
description into a :class:`treesmith.tree.Tree`: a leaf is its list of class counts, an
internal node ``(feature, left, right)`` tests ``x[feature] <= 0.5``.
"""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_iris

import treesmith
from treesmith.pruning import (
    added_errors,
    bottom_up_pessimistic_prune_tree,
    error_based_prune_tree,
    error_based_prune_tree_with_raising,
    prune,
    prune_bottom_up,
    prune_top_down,
    prune_weakest_link,
    reduced_error_prune_tree,
    top_down_pessimistic_prune_tree,
)
from treesmith.tree import Tree


def gini(proportions):
    return 1.0 - float(np.sum(np.asarray(proportions) ** 2))


def build_tree(spec, n_features=2, impurity=gini):
    """A classification Tree from ``[counts]`` leaves and ``(feature, left, right)`` nodes."""
    rows = []

    def visit(node, depth):
        index = len(rows)
        rows.append(None)
        if isinstance(node, tuple):
            feature, left, right = node
            left_id, right_id = visit(left, depth + 1), visit(right, depth + 1)
            rows[index] = (left_id, right_id, feature, rows[left_id][3] + rows[right_id][3], depth)
        else:
            rows[index] = (-1, -1, -2, np.asarray(node, dtype=np.float64), depth)
        return index

    visit(spec, 0)
    counts = np.array([r[3] for r in rows])
    total = counts.sum(axis=1)
    value = counts / total[:, None]
    leaf = np.array([r[0] == -1 for r in rows])
    return Tree(
        n_features, counts.shape[1],
        children_left=np.array([r[0] for r in rows], dtype=np.int64),
        children_right=np.array([r[1] for r in rows], dtype=np.int64),
        feature=np.array([r[2] for r in rows], dtype=np.int64),
        threshold=np.where(leaf, np.nan, 0.5),
        bin_threshold=np.where(leaf, -1, 0).astype(np.int64),
        missing_go_left=np.zeros(len(rows), dtype=bool),
        impurity=np.array([impurity(v) for v in value]),
        n_node_samples=total.astype(np.int64),
        weighted_n_node_samples=total.astype(np.float64),
        value=value, class_counts=counts, depth=np.array([r[4] for r in rows], dtype=np.int64),
    )


def leaf_counts(tree):
    """Class counts of the leaves, in node order (a readable summary of a pruned tree)."""
    return [tree.class_counts[i].tolist() for i in np.flatnonzero(tree.is_leaf)]


# -- the shared traversal -------------------------------------------------------------------

def test_traversal_orders_and_aggregates():
    tree = build_tree((0, (1, [3, 0], [0, 2]), [1, 4]))  # ids: 0 root, 1 inner, 2, 3, 4 leaves
    cost = np.array([10.0, 4.0, 1.0, 2.0, 3.0])
    seen = []
    state = prune_bottom_up(tree, cost, lambda node, s: seen.append(node) or False)
    assert seen == [1, 0]  # children before parents
    assert state.subtree_cost.tolist() == [6.0, 3.0, 1.0, 2.0, 3.0]
    assert state.n_leaves.tolist() == [3, 2, 1, 1, 1]
    assert state.n_nodes.tolist() == [5, 3, 1, 1, 1]
    state.collapse(1)
    assert state.subtree_cost[0] == 7.0 and state.n_leaves[0] == 2 and state.n_nodes[0] == 3
    assert state.pruned_tree().node_count == 3

    seen.clear()
    prune_top_down(tree, cost, lambda node, s: seen.append(node) or node == 0)
    assert seen == [0]  # nothing below a collapsed node is visited


def test_weakest_link_takes_lowest_id_among_ties_and_records_every_step():
    tree = build_tree((0, (1, [3, 0], [0, 2]), (1, [1, 0], [0, 1])))
    cost = np.array([9.0, 2.0, 0.0, 0.0, 2.0, 0.0, 0.0])  # g(1) = g(4) = 2
    steps = []
    prune_weakest_link(tree, cost, record=lambda g, node, s: steps.append((g, node)))
    assert steps == [(0.0, -1), (2.0, 1), (2.0, 4), (5.0, 0)]
    stopped = prune_weakest_link(tree, cost, stop=lambda g: g > 2.0)
    assert stopped.collapsed_nodes().tolist() == [1, 4]


# -- reduced-error pruning ------------------------------------------------------------------

REP_TREE = (0, (1, [5, 0], [0, 5]), [0, 10])  # node 1 holds [5, 5] and predicts class 0


def _rep(tree, X_val, y_val):
    return reduced_error_prune_tree(tree, tree.decision_path(np.asarray(X_val, float)),
                                    np.asarray(y_val))


def test_rep_prunes_when_the_leaf_makes_fewer_validation_errors():
    tree = build_tree(REP_TREE)
    # At node 1 the subtree misclassifies the two (x1=1, y=0) points, the leaf (class 0) none.
    # At the root the pruned subtree makes 0 errors, the root leaf (class 1) 5: kept.
    X_val = [[0, 0]] * 3 + [[0, 1]] * 2 + [[1, 0]] * 2
    y_val = [0, 0, 0, 0, 0, 1, 1]
    pruned = _rep(tree, X_val, y_val)
    assert leaf_counts(pruned) == [[5, 5], [0, 10]]


def test_rep_keeps_a_subtree_that_makes_fewer_validation_errors():
    tree = build_tree(REP_TREE)
    X_val = [[0, 0]] * 3 + [[0, 1]] * 2 + [[1, 0]] * 2
    y_val = [0, 0, 0, 1, 1, 1, 1]  # the subtree is right everywhere, leaf 1 would miss 2
    assert _rep(tree, X_val, y_val).node_count == tree.node_count


def test_rep_prunes_subtrees_no_validation_sample_reaches():
    tree = build_tree(REP_TREE)
    pruned = _rep(tree, [[1, 0], [1, 1]], [1, 1])
    assert pruned.n_leaves == 1  # node 1 is empty (0 <= 0); then root leaf (class 1) is exact


# -- pessimistic top-down (TDP) -------------------------------------------------------------

def test_tdp_prunes_within_one_standard_error():
    # Leaves [7,3], [4,6]: n'(T) = 3 + 4 + 2/2 = 8, SE = sqrt(8 * 12 / 20) = 2.191;
    # root [11, 9] as a leaf: n'(t) = 9 + 1/2 = 9.5 <= 10.19 -> pruned; without the SE it is kept.
    tree = build_tree((0, [7, 3], [4, 6]))
    assert top_down_pessimistic_prune_tree(tree).n_leaves == 1
    assert top_down_pessimistic_prune_tree(tree, n_standard_errors=0.0).n_leaves == 2


def test_tdp_keeps_a_useful_split_and_prunes_below_it():
    # Root: leaves [9,1] and node ([2,3], [1,4]) -> n'(T) = 1 + 2 + 1 + 3/2 = 5.5,
    # SE = sqrt(5.5 * 14.5 / 20) = 1.997; n'(root) = 10 + 0.5 = 10.5 > 7.5: kept.
    # Node 2 ([3, 7]): n'(t) = 3.5, n'(T) = 2 + 1 + 1 = 4 -> pruned.
    tree = build_tree((0, [9, 1], (1, [2, 3], [1, 4])))
    assert leaf_counts(top_down_pessimistic_prune_tree(tree)) == [[9, 1], [3, 7]]


# -- pessimistic bottom-up (BUP) ------------------------------------------------------------

def test_bup_threshold_moves_with_c1():
    # Leaves [9,1], [1,9], a = 2 features: e_leaf = 10/20 = 0.5, e_h = 2/20 = 0.1, t_h = 3,
    # sqrt((3 ln 2 + 0) / 20) = 0.3224: c1 = 1 -> 0.5 > 0.422 kept; c1 = 2 -> 0.5 <= 0.745 pruned.
    tree = build_tree((0, [9, 1], [1, 9]))
    assert bottom_up_pessimistic_prune_tree(tree, c1=1.0).n_leaves == 2
    assert bottom_up_pessimistic_prune_tree(tree, c1=2.0).n_leaves == 1
    # c2 adds to the numerator: sqrt((3 ln 2 + 4) / 20) = 0.5496 -> 0.5 <= 0.65 pruned.
    assert bottom_up_pessimistic_prune_tree(tree, c1=1.0, c2=4.0).n_leaves == 1


def test_bup_uses_the_already_pruned_subtree():
    # Ids: 0 root [23,3], 1 leaf [20,0], 2 node [3,3] over leaves 3 [2,1] and 4 [1,2]; a = 2.
    tree = build_tree((0, [20, 0], (1, [2, 1], [1, 2])))
    # c1 = 0.5. Node 2: e_leaf = 3/6 = 0.5 <= e_h + 0.5 sqrt(3 ln 2 / 6) = 0.333 + 0.294:
    # pruned. Root: now e_h = (0 + 3)/26 = e_leaf: pruned too.
    assert bottom_up_pessimistic_prune_tree(tree, c1=0.5).n_leaves == 1
    # c1 = 0.1. Node 2: 0.5 > 0.333 + 0.059: kept. Root: e_leaf = 3/26 = 0.1154 >
    # e_h + 0.1 sqrt(5 ln 2 / 26) = 2/26 + 0.0365 = 0.1134 (t_h = 5 nodes): kept.
    assert bottom_up_pessimistic_prune_tree(tree, c1=0.1).node_count == tree.node_count


# -- C4.5 error-based -----------------------------------------------------------------------

def test_added_errors_matches_c45_formulas():
    cf = 0.25
    # E = 0: the exact binomial bound N (1 - CF^(1/N)) (Quinlan 1993: U(0, 6) = 0.206).
    assert added_errors(6, 0, cf) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)))
    assert added_errors(6, 0, cf) / 6 == pytest.approx(0.206, abs=5e-4)
    # E >= 1: the upper Wilson bound p with continuity correction, (f - p)^2 = z^2 p (1-p) / N.
    n, e, z = 16.0, 1.0, 0.6744897501960817
    p = (e + added_errors(n, e, cf)) / n
    f = (e + 0.5) / n
    assert p > f and (f - p) ** 2 == pytest.approx(z * z * p * (1 - p) / n)
    # 0 < E < 1: linear interpolation between E = 0 and E = 1.
    assert added_errors(10, 0.25, cf) == pytest.approx(
        0.75 * added_errors(10, 0, cf) + 0.25 * added_errors(10, 1, cf))
    # E + 1/2 >= N: nothing beyond N - E.
    assert added_errors(3, 2.6, cf) == pytest.approx(0.4)


def test_c45_prunes_a_subtree_whose_estimate_is_worse_and_keeps_one_whose_is_better():
    # Node 1 ([6,0], [9,0]): leaves 6 U(0,6) + 9 U(0,9) = 1.236 + 1.286 = 2.52 > 15 U(0,15)
    # = 1.325 as a leaf -> pruned. Root ([15,0], [0,1]): subtree 1.325 + 0.75 = 2.075;
    # as a leaf (16 objects, 1 error) 1 + 1.476 = 2.476 > 2.175 -> kept.
    tree = build_tree((0, (1, [6, 0], [9, 0]), [0, 1]))
    pruned = error_based_prune_tree(tree, collapse=False)
    assert leaf_counts(pruned) == [[15, 0], [0, 1]]
    # A higher confidence factor is less pessimistic: at CF = 0.5 node 1 as a leaf costs
    # 15 (1 - 0.5^(1/15)) = 0.68, its leaves 6 * 0.109 + 9 * 0.074 = 1.32: still pruned.
    assert error_based_prune_tree(tree, confidence_factor=0.5, collapse=False).n_leaves == 2


def test_c45_collapse_removes_splits_that_do_not_reduce_training_errors():
    tree = build_tree((0, [6, 1], [5, 2]))  # 3 training errors either way
    assert error_based_prune_tree(tree, collapse=True).n_leaves == 1
    tree = build_tree((0, [30, 0], [0, 30]))  # a clean split survives everything
    assert error_based_prune_tree(tree).n_leaves == 2


def _raising_problem():
    # Root tests x0; both children test x1. 20 objects have x0 = 0, 2 have x0 = 1.
    X = np.array([[0, 0]] * 10 + [[0, 1]] * 10 + [[1, 0], [1, 1]], dtype=np.float64)
    y = np.array([0] * 10 + [1] * 10 + [0, 1])
    tree = build_tree((0, (1, [10, 0], [0, 10]), (1, [1, 0], [0, 1])))
    return tree, X, y


def test_c45_subtree_raising_replaces_the_root_by_its_largest_branch():
    # Root: subtree estimate 20 (1 - 0.25^(1/10)) + 2 * 0.75 = 2.589 + 1.5 = 4.09; the largest
    # branch re-estimated on all 22 objects: leaves [11,0], [0,11] -> 22 (1 - 0.25^(1/11))
    # = 2.60 <= 4.19 -> raised. The leaf ([11,11]) is far worse.
    tree, X, y = _raising_problem()
    raised = error_based_prune_tree_with_raising(tree, X, y, np.ones(y.size), gini,
                                                 collapse=False)
    assert raised.node_count == 3 and raised.feature[0] == 1
    assert leaf_counts(raised) == [[11, 0], [0, 11]]
    assert raised.impurity[0] == pytest.approx(0.5) and raised.weighted_n_node_samples[0] == 22
    assert np.array_equal(raised.apply(X) == 1, y == 0)
    # Without raising nothing is pruned: every leaf is pure and the leaves estimate lower.
    assert error_based_prune_tree(tree, collapse=False).node_count == tree.node_count


# -- the estimator-level API ----------------------------------------------------------------

@pytest.fixture(scope="module")
def iris_tree():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(y.size)
    train, valid = order[:100], order[100:]
    model = treesmith.DecisionTreeClassifier(criterion="entropy", random_state=0)
    model.fit(X[train], y[train])
    return model, X[train], y[train], X[valid], y[valid]


@pytest.mark.parametrize("method, params", [
    ("ccp", {"ccp_alpha": 0.02}),
    ("ccp", {"ccp_alpha": 0.02, "risk": "misclassification"}),
    ("rep", "validation"),
    ("tdp", {}),
    ("c45", {}),
    ("c45", "raising"),
    ("bup", {"c1": 0.5}),
    ("nodes", "internal"),
])
def test_prune_returns_a_new_working_estimator(iris_tree, method, params):
    model, X, y, X_val, y_val = iris_tree
    if params == "validation":
        params = {"X": X_val, "y": y_val}
    elif params == "raising":
        params = {"subtree_raising": True, "X": X, "y": y}
    elif params == "internal":
        params = {"nodes": [np.flatnonzero(~model.tree_.is_leaf)[1]]}
    before = pickle.dumps(model)
    pruned = prune(model, method, **params)
    assert pickle.dumps(model) == before  # the original is untouched
    assert pruned is not model and pruned.tree_ is not model.tree_
    assert pruned.tree_.n_leaves < model.tree_.n_leaves
    pruned.tree_.validate()
    proba = pruned.predict_proba(X_val)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(pruned.predict(X_val), model.classes_[proba.argmax(axis=1)])
    assert pruned.get_n_leaves() == pruned.tree_.n_leaves
    restored = pickle.loads(pickle.dumps(pruned))
    assert np.array_equal(restored.predict(X_val), pruned.predict(X_val))


def test_prune_nodes_by_hand(iris_tree):
    model = iris_tree[0]
    internal = np.flatnonzero(~model.tree_.is_leaf)
    pruned = prune(model, "nodes", nodes=[internal[1]])
    assert pruned.tree_.node_count == model.tree_.collapse([internal[1]]).node_count
    assert prune(model, "nodes", nodes=[0]).tree_.n_leaves == 1


def test_prune_rejects_bad_calls(iris_tree):
    model = iris_tree[0]
    with pytest.raises(ValueError, match="method must be one of"):
        prune(model, "mystery")
    with pytest.raises(ValueError, match="unknown"):
        prune(model, "tdp", alpha=1.0)
    with pytest.raises(ValueError, match="needs"):
        prune(model, "ccp")
    with pytest.raises(ValueError, match="ccp_alpha"):
        prune(model, "ccp", ccp_alpha=-1.0)
    with pytest.raises(ValueError, match="confidence_factor"):
        prune(model, "c45", confidence_factor=0.9)
    with pytest.raises(ValueError, match="training data"):
        prune(model, "c45", subtree_raising=True)
    with pytest.raises(ValueError, match="nodes"):
        prune(model, "nodes", nodes=[10_000])
    with pytest.raises(ValueError, match="c1"):
        prune(model, "bup", c1=-1.0)
    with pytest.raises(ValueError, match="risk"):
        prune(model, "ccp", ccp_alpha=0.1, risk="gini")


def test_count_based_methods_need_a_classification_tree():
    X, y = load_iris(return_X_y=True)
    model = treesmith.DecisionTreeRegressor(max_depth=3).fit(X, y.astype(float))
    for method in ("tdp", "bup", "c45"):
        with pytest.raises(ValueError, match="classification"):
            prune(model, method)
    # Cost-complexity and REP work for regression too (squared error).
    assert prune(model, "ccp", ccp_alpha=0.05).tree_.n_leaves < model.tree_.n_leaves
    assert prune(model, "rep", X=X[::2], y=y[::2].astype(float)).tree_.n_leaves <= \
        model.tree_.n_leaves


# -- cross-validated parameters of the other methods ---------------------------------------

def test_select_pruning_parameters_matches_brute_force():
    from sklearn.datasets import load_wine
    from sklearn.model_selection import KFold

    from treesmith.pruning import select_pruning_parameters

    X, y = load_wine(return_X_y=True)
    estimator = treesmith.DecisionTreeClassifier(criterion="entropy", random_state=0)
    folds = list(KFold(4, shuffle=True, random_state=0).split(X))
    grid = {"c1": [0.0, 0.1, 1.0], "c2": [0.0, 2.0]}
    result = select_pruning_parameters(estimator, X, y, "bup", grid, cv=folds)
    errors = np.zeros(len(result.candidates))
    for train, test in folds:
        model = treesmith.DecisionTreeClassifier(criterion="entropy", random_state=0)
        model.fit(X[train], y[train])
        for i, params in enumerate(result.candidates):
            errors[i] += np.sum(prune(model, "bup", **params).predict(X[test]) != y[test])
    np.testing.assert_allclose(result.cv_error, errors / y.size)
    best = result.candidates.index(result.params)
    assert result.cv_error[best] == result.cv_error.min()
    full = treesmith.DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y)
    expected = prune(full, "bup", **result.params)
    assert result.estimator.tree_.node_count == expected.tree_.node_count
    with pytest.raises(ValueError, match="method"):
        select_pruning_parameters(estimator, X, y, "rep", grid)


def _fitted_iris():
    X, y = load_iris(return_X_y=True)
    return X, y, treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)


@pytest.mark.parametrize("method, params, message", [
    ("c45", {"confidence_factor": 5}, r"confidence_factor must be a float in \(0.0, 0.5\]"),
    ("c45", {"collapse": None}, r"collapse must be a bool"),
    ("tdp", {"n_standard_errors": -0.1}, r"n_standard_errors must be a float >= 0"),
    ("bup", {"c1": "big"}, r"c1 must be a float >= 0"),
    ("ccp", {"ccp_alpha": float("nan")}, r"ccp_alpha must be a float >= 0"),
    ("ccp", {"ccp_alpha": -np.inf}, r"ccp_alpha must be a float >= 0"),
    ("ccp", {"ccp_alpha": 0.0, "risk": "entropy"}, r"risk must be one of"),
    ("nodes", {"nodes": 3}, r"nodes must be an array-like"),
])
def test_prune_checks_parameters_by_table(method, params, message):
    _, _, grown = _fitted_iris()
    with pytest.raises(ValueError, match=rf"prune\(method='{method}'\): {message}"):
        treesmith.prune(grown, method, **params)


@pytest.mark.parametrize("rows", [{"X": 149}, {"y": 149}, {"sample_weight": 149}])
def test_c45_subtree_raising_checks_consistent_rows(rows):
    X, y, grown = _fitted_iris()
    data = {"X": X, "y": y, "sample_weight": np.ones(150)}
    for name, n in rows.items():
        data[name] = data[name][:n]
    name = next(iter(rows))
    with pytest.raises(ValueError, match=rf"inconsistent numbers of rows: .*{name} has 149"):
        treesmith.prune(grown, "c45", subtree_raising=True, **data)


def test_pruning_sample_weight_uses_the_shared_checker():
    X, y, grown = _fitted_iris()
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative; it is negative "
                                         r"at rows 3"):
        treesmith.prune(grown, "rep", X=X, y=y, sample_weight=np.where(np.arange(150) == 3, -1, 1))
    with pytest.raises(ValueError, match=r"sample_weight sums to infinity"):
        treesmith.prune(grown, "rep", X=X, y=y, sample_weight=np.full(150, 1e307))
    scalar = treesmith.prune(grown, "c45", subtree_raising=True, X=X, y=y, sample_weight=2.0)
    unit = treesmith.prune(grown, "c45", subtree_raising=True, X=X, y=y)
    assert scalar.get_n_leaves() <= unit.get_n_leaves()


def test_prune_c45_with_subtree_raising_keeps_a_constrained_tree_monotone():
    """Subtree raising recomputes node values; the estimator's own fit clips them again to
    keep monotonic_cst, but prune(model, "c45", subtree_raising=True, ...) returned a tree whose
    probability decreased along an increasing feature."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(800, 3))
    y = ((X[:, 0] - X[:, 1] + np.sin(3 * X[:, 2]) + rng.normal(size=800)) > 0).astype(int)
    constraints = [1, -1, 0]
    model = treesmith.DecisionTreeClassifier(monotonic_cst=constraints, random_state=0)
    pruned = prune(model.fit(X, y), "c45", subtree_raising=True, X=X, y=y)
    grid = np.linspace(-3, 3, 61)
    for feature, direction in ((0, 1), (1, -1)):
        rows = np.repeat(X[:60][None], grid.size, axis=0)
        rows[:, :, feature] = grid[:, None]
        proba = pruned.predict_proba(rows.reshape(-1, 3))[:, 1].reshape(grid.size, 60)
        assert np.all(direction * np.diff(proba, axis=0) >= 0)


# -- hostile parameters of the tree-level functions -----------------------------------------
_TREE = (0, [5, 1], (1, [0, 4], [3, 3]))


@pytest.mark.parametrize("call, match", [
    # np.isfinite of a str / None / an int beyond int64 raised numpy's TypeError, a list a
    # comparison TypeError, an array numpy's ambiguous truth; a bool was 0 or 1
    (lambda t: top_down_pessimistic_prune_tree(t, "1"), r"n_standard_errors must be a float"),
    (lambda t: top_down_pessimistic_prune_tree(t, None), r"n_standard_errors must be a float"),
    (lambda t: top_down_pessimistic_prune_tree(t, True), r"n_standard_errors must be a float"),
    (lambda t: top_down_pessimistic_prune_tree(t, 10**400), r"n_standard_errors must be"),
    (lambda t: top_down_pessimistic_prune_tree(t, np.array([1.0, 2.0])),
     r"n_standard_errors must be"),
    (lambda t: bottom_up_pessimistic_prune_tree(t, c1=[0.1]), r"c1 must be a float >= 0"),
    (lambda t: bottom_up_pessimistic_prune_tree(t, c2=True), r"c2 must be a float >= 0"),
    (lambda t: bottom_up_pessimistic_prune_tree(t, c1=np.nan), r"c1 must be a float >= 0"),
    # collapse="no" was true (any truthy value collapsed)
    (lambda t: error_based_prune_tree(t, collapse="no"), r"collapse must be a bool"),
    (lambda t: error_based_prune_tree(t, confidence_factor=True),
     r"confidence_factor must be a float in \(0.0, 0.5\]"),
    (lambda t: top_down_pessimistic_prune_tree("tree"),
     r"^tree must be a treesmith.tree.Tree \(a fitted estimator's tree_\), got str\.$"),
    (lambda t: error_based_prune_tree(t.to_arrays()), r"tree must be a treesmith.tree.Tree"),
])
def test_tree_level_functions_name_a_bad_parameter(call, match):
    exception = TypeError if "tree must be" in match else ValueError
    with pytest.raises(exception, match=match):
        call(build_tree(_TREE))


@pytest.mark.parametrize("n, errors, cf, match", [
    # NaN, negative counts and bools gave numbers (NaN, or a value for n=True); None, a str or
    # a list a comparison TypeError; cf=0 or cf=0.9 a quantile that C4.5 never uses
    (np.nan, 1.0, 0.25, r"^added_errors: n must be a float >= 0"),
    (-5.0, 1.0, 0.25, r"^added_errors: n must be a float >= 0"),
    (True, 0.0, 0.25, r"^added_errors: n must be"),
    (10.0, None, 0.25, r"^added_errors: errors must be a float >= 0"),
    (10.0, "1", 0.25, r"^added_errors: errors must be"),
    (10.0, 1.0, 0.0, r"^added_errors: confidence_factor must be a float in \(0.0, 0.5\]"),
    (10.0, 1.0, 0.9, r"^added_errors: confidence_factor must be"),
])
def test_added_errors_names_a_bad_argument(n, errors, cf, match):
    with pytest.raises(ValueError, match=match):
        added_errors(n, errors, cf)


@pytest.mark.parametrize("method", [{"method": "ccp"}, ["ccp"], np.array(["ccp"])],
                         ids=["dict", "list", "array"])
def test_prune_names_a_method_that_is_not_a_name(method):
    """An unhashable method raised "unhashable type: 'dict'" from the lookup."""
    X, y = load_iris(return_X_y=True)
    model = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^method must be one of \['bup', 'c45', 'ccp'"):
        prune(model, method)


@pytest.mark.parametrize("y_value", [np.nan, None])
def test_reduced_error_pruning_refuses_a_missing_held_out_label(y_value):
    """A NaN label was encoded as a class never seen (always an error) and pruned on."""
    X, y = load_iris(return_X_y=True)
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X[::2], y[::2])
    y_held = y[1::2].astype(object)
    y_held[3] = y_value
    with pytest.raises(ValueError, match=r"y has missing values \(None or NaN\) at rows 3"):
        prune(model, "rep", X=X[1::2], y=y_held)
    regressor = treesmith.DecisionTreeRegressor(random_state=0).fit(X[::2], y[::2] * 1.0)
    with pytest.raises(ValueError, match=r"y has missing values"):
        prune(regressor, "rep", X=X[1::2], y=np.where(np.arange(75) == 3, np.nan, 1.0))


@pytest.mark.parametrize("estimator", ["tree", None, 3.0], ids=str)
def test_pruning_helpers_say_what_is_not_an_estimator(estimator):
    """An AttributeError ("'str' object has no attribute 'decision_path'" / 'get_params')."""
    from treesmith.pruning import cost_complexity_pruning_path

    X, y = load_iris(return_X_y=True)
    with pytest.raises(TypeError, match=r"not an estimator|does not seem to be a scikit-learn "
                                        r"estimator"):
        prune(estimator, "rep", X=X, y=y)
    with pytest.raises(TypeError, match=r"does not seem to be a scikit-learn estimator"):
        cost_complexity_pruning_path(estimator, X, y)


@pytest.mark.parametrize("nodes", [[0.5], [1.7], [True], [10**30], ["a"], [np.nan], [-1]],
                         ids=str)
def test_prune_nodes_takes_int_node_ids_only(nodes):
    """numpy's cast to int64 truncated 0.5 to the root (every split pruned) and 1.7 to node 1,
    took True as node 1, and raised OverflowError for 10**30."""
    X, y = load_iris(return_X_y=True)
    model = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^nodes must be node ids \(ints\) in \[0, 5\)"):
        prune(model, "nodes", nodes=nodes)
    assert prune(model, "nodes", nodes=[np.int64(2)]).tree_.node_count == 3


def test_prune_names_a_c45_classifier_instead_of_failing_after_the_work():
    """"property 'tree_' of 'C45Classifier' object has no setter", once the pruning was done."""
    X, y = load_iris(return_X_y=True)
    model = treesmith.C45Classifier().fit(X, y)
    for method, params in [("ccp", {"ccp_alpha": 0.01}), ("tdp", {})]:
        with pytest.raises(TypeError, match=r"^a C45Classifier's tree cannot be post-pruned by "
                                            r"prune\(\): it is pruned by its own fit"):
            prune(model, method, **params)


@pytest.mark.parametrize("estimator", [[], (), {}], ids=repr)
def test_a_container_is_not_an_estimator(estimator):
    """clone() copies lists, tuples and dicts: get_params then raised an AttributeError."""
    from treesmith.pruning import cost_complexity_pruning_path

    X, y = load_iris(return_X_y=True)
    with pytest.raises(TypeError, match=r"^estimator must be a treesmith tree estimator, got "):
        cost_complexity_pruning_path(estimator, X, y)
