"""Cost-complexity pruning: the path against scikit-learn, hand-computed paths, alpha selection
by cross-validation (against a brute-force reference), exact ERM tuning and the
explainability objective."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.model_selection import KFold
from sklearn.tree import DecisionTreeClassifier as SklearnTree
from test_pruning import build_tree

import treesmith
from treesmith.pruning import (
    cost_complexity_path,
    cost_complexity_pruning_path,
    prune,
    prune_tree_ccp,
    select_by_explainability,
    select_ccp_alpha,
    tune_ccp_alpha,
)
from treesmith.pruning._node_statistics import resubstitution_risk
from treesmith.tree import Tree

LOADERS = {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer}


def tree_from_sklearn(model) -> Tree:
    """The arrays of a fitted scikit-learn classifier or regressor as a treesmith Tree."""
    t = model.tree_
    leaf = t.children_left == -1
    value = t.value[:, 0, :].copy()
    n_classes = value.shape[1] if hasattr(model, "classes_") else 0
    counts = value * t.n_node_samples[:, None] if n_classes else np.zeros((t.node_count, 0))
    return Tree(
        t.n_features, n_classes,
        children_left=t.children_left.astype(np.int64),
        children_right=t.children_right.astype(np.int64),
        feature=np.where(leaf, -2, t.feature).astype(np.int64),
        threshold=np.where(leaf, np.nan, t.threshold),
        bin_threshold=np.where(leaf, -1, 0).astype(np.int64),
        missing_go_left=np.zeros(t.node_count, dtype=bool),
        impurity=t.impurity.copy(), n_node_samples=t.n_node_samples.astype(np.int64),
        weighted_n_node_samples=t.weighted_n_node_samples.copy(), value=value,
        class_counts=counts,
        depth=np.zeros(t.node_count, dtype=np.int64),
    )


# -- the path and pruning at alpha, against scikit-learn -----------------------------------

@pytest.mark.parametrize("name", sorted(LOADERS))
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_path_and_pruning_equal_sklearn_on_sklearn_trees(name, criterion):
    """The same traversal on scikit-learn's own arrays gives its path (to rounding: the sums are
    added children first, not in scikit-learn's bubble-up order) and its pruned trees."""
    X, y = LOADERS[name](return_X_y=True)
    weight = np.random.default_rng(1).uniform(0.5, 2.0, y.size)
    model = SklearnTree(criterion=criterion, random_state=0).fit(X, y, sample_weight=weight)
    expected = model.cost_complexity_pruning_path(X, y, sample_weight=weight)
    path = cost_complexity_path(tree_from_sklearn(model))
    assert path.ccp_alphas.shape == expected.ccp_alphas.shape
    np.testing.assert_allclose(path.ccp_alphas, expected.ccp_alphas, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(path.impurities, expected.impurities, rtol=1e-12, atol=1e-15)
    for alpha in expected.ccp_alphas[1::3]:
        reference = SklearnTree(criterion=criterion, random_state=0, ccp_alpha=alpha)
        reference.fit(X, y, sample_weight=weight)
        pruned = prune_tree_ccp(tree_from_sklearn(model), alpha)
        assert np.array_equal(pruned.children_left, reference.tree_.children_left)
        assert np.array_equal(pruned.children_right, reference.tree_.children_right)


def test_regression_path_equals_sklearn_on_sklearn_trees():
    from sklearn.datasets import load_diabetes
    from sklearn.tree import DecisionTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    model = DecisionTreeRegressor(random_state=0, min_samples_leaf=5).fit(X, y)
    expected = model.cost_complexity_pruning_path(X, y)
    path = cost_complexity_path(tree_from_sklearn(model))
    assert path.ccp_alphas.shape == expected.ccp_alphas.shape
    np.testing.assert_allclose(path.ccp_alphas, expected.ccp_alphas, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(path.impurities, expected.impurities, rtol=1e-12, atol=1e-15)


def _same_partition(ours: Tree, theirs) -> bool:
    """Same shape and, node for node, the same class counts (tied splits on different features
    are allowed: they produce the same statistics, which is all the path depends on)."""
    return (ours.node_count == theirs.node_count
            and np.array_equal(ours.children_left, theirs.children_left)
            and np.array_equal(ours.children_right, theirs.children_right)
            and np.allclose(ours.class_counts,
                            theirs.value[:, 0, :] * theirs.n_node_samples[:, None]))


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_path_equals_sklearn_on_identically_grown_trees(name):
    X, y = LOADERS[name](return_X_y=True)
    ours = treesmith.DecisionTreeClassifier(criterion="gini", max_bins=None).fit(X, y)
    # scikit-learn breaks ties between features at random; try seeds until the trees match.
    for seed in range(60):
        theirs = SklearnTree(criterion="gini", random_state=seed).fit(X, y)
        if _same_partition(ours.tree_, theirs.tree_):
            break
    else:
        pytest.fail(f"no scikit-learn seed grows the treesmith tree on {name}")
    expected = theirs.cost_complexity_pruning_path(X, y)
    path = cost_complexity_pruning_path(ours, X, y)
    assert path.ccp_alphas.shape == expected.ccp_alphas.shape
    np.testing.assert_allclose(path.ccp_alphas, expected.ccp_alphas, rtol=1e-12, atol=0)
    np.testing.assert_allclose(path.impurities, expected.impurities, rtol=1e-12, atol=1e-15)
    assert path.n_leaves[0] == ours.tree_.n_leaves and path.n_leaves[-1] == 1


def test_cost_complexity_pruning_path_grows_an_unpruned_tree_on_the_given_data():
    X, y = load_iris(return_X_y=True)
    model = treesmith.DecisionTreeClassifier(max_depth=2)  # unfitted is fine
    path = cost_complexity_pruning_path(model, X, y)
    full = treesmith.DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert path.n_leaves[0] == full.tree_.n_leaves == 3  # setosa is pure at depth 1
    assert not hasattr(model, "tree_")


# -- a path worked out by hand --------------------------------------------------------------

def test_misclassification_path_by_hand():
    # Ids: 0 root [16,34]; 1 [15,6]; 2 [10,1]; 3 [10,0]; 4 [0,1]; 5 [5,5]; 6 [1,28]; 7 [0,20];
    # 8 [1,8]. Errors as leaves (over N = 50): 2: 1, 1: 6, 6: 1, 0: 16; leaves 5: 5, 8: 1.
    # g(6) = (1-1)/1 = 0 first; then g(1) = (6-5)/2 = 0.5 < g(2) = 1 < g(0) = (16-6)/3;
    # collapsing 1 removes 2; last the root: (16-7)/1 = 9. Divide by N = 50.
    tree = build_tree((0, (1, (0, [10, 0], [0, 1]), [5, 5]), (1, [0, 20], [1, 8])))
    path = cost_complexity_path(tree, risk="misclassification")
    np.testing.assert_allclose(path.ccp_alphas, [0, 0, 0.5 / 50, 9 / 50])
    np.testing.assert_allclose(path.impurities, [6 / 50, 6 / 50, 7 / 50, 16 / 50])
    assert path.n_leaves.tolist() == [5, 4, 2, 1]
    assert path.pruned_nodes.tolist() == [-1, 6, 1, 0]
    assert prune_tree_ccp(tree, 0.0, "misclassification").n_leaves == 4
    assert prune_tree_ccp(tree, 0.0099, "misclassification").n_leaves == 4
    assert prune_tree_ccp(tree, 0.01, "misclassification").n_leaves == 2
    assert prune_tree_ccp(tree, np.inf, "misclassification").n_leaves == 1


def test_pruning_at_zero_keeps_every_useful_split():
    tree = build_tree((0, [9, 1], [1, 9]))
    assert prune_tree_ccp(tree, 0.0).node_count == 3
    assert prune_tree_ccp(tree, 0.0, "misclassification").node_count == 3


# -- choosing alpha by cross-validation ----------------------------------------------------

def _brute_force_cv_error(estimator, X, y, folds, alphas):
    """Refit per fold, prune at each alpha with prune(), count the errors (no shortcuts)."""
    errors = np.zeros(len(alphas))
    for train, test in folds:
        model = treesmith.DecisionTreeClassifier(**estimator.get_params()).fit(X[train], y[train])
        for j, alpha in enumerate(alphas):
            pruned = prune(model, "ccp", ccp_alpha=alpha)
            errors[j] += np.sum(pruned.predict(X[test]) != y[test])
    return errors / y.size


@pytest.mark.parametrize("rule", ["min", "1se"])
def test_select_ccp_alpha_matches_brute_force(rule):
    X, y = load_wine(return_X_y=True)
    estimator = treesmith.DecisionTreeClassifier(criterion="entropy", random_state=0)
    folds = list(KFold(5, shuffle=True, random_state=3).split(X))
    result = select_ccp_alpha(estimator, X, y, cv=folds, rule=rule)
    np.testing.assert_allclose(result.cv_error,
                               _brute_force_cv_error(estimator, X, y, folds, result.cv_alphas))
    full = treesmith.DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y)
    path = cost_complexity_path(full.tree_)
    breakpoints = np.unique(path.ccp_alphas)
    # CART's candidates: geometric means between breakpoints, then +inf (the root).
    np.testing.assert_allclose(result.cv_alphas[1:-1],
                               np.sqrt(breakpoints[1:-1] * breakpoints[2:]))
    assert result.cv_alphas[0] == 0.0 and result.cv_alphas[-1] == np.inf
    assert result.ccp_alpha in breakpoints
    best = result.cv_error.min()
    if rule == "min":
        assert result.cv_error[result.index] == best
        assert np.all(result.cv_error[result.index + 1:] > best)
    else:
        se = result.cv_error_se[np.flatnonzero(result.cv_error == best)[-1]]
        assert result.cv_error[result.index] <= best + se
        assert np.all(result.cv_error[result.index + 1:] > best + se)
    pruned = result.estimator
    assert pruned.tree_.n_leaves == result.n_leaves == result.cv_n_leaves[result.index]
    reference = prune(full, "ccp", ccp_alpha=result.ccp_alpha)
    assert pruned.tree_.node_count == reference.tree_.node_count


def test_one_se_rule_never_chooses_a_larger_tree_and_parallel_folds_agree():
    X, y = load_breast_cancer(return_X_y=True)
    estimator = treesmith.DecisionTreeClassifier(random_state=0)
    smallest = select_ccp_alpha(estimator, X, y, cv=5, rule="min", n_jobs=1)
    one_se = select_ccp_alpha(estimator, X, y, cv=5, rule="1se", n_jobs=2)
    assert one_se.n_leaves <= smallest.n_leaves
    assert one_se.ccp_alpha >= smallest.ccp_alpha
    again = select_ccp_alpha(estimator, X, y, cv=5, rule="min", n_jobs=2)
    np.testing.assert_array_equal(again.cv_error, smallest.cv_error)
    assert set(smallest.as_dict()) >= {"ccp_alpha", "n_leaves", "cv_alphas", "cv_error"}


def test_select_on_breakpoints_evaluates_the_union_of_fold_breakpoints():
    X, y = load_iris(return_X_y=True)
    estimator = treesmith.DecisionTreeClassifier(random_state=0)
    folds = list(KFold(4, shuffle=True, random_state=0).split(X))
    result = select_ccp_alpha(estimator, X, y, cv=folds, candidates="breakpoints")
    np.testing.assert_allclose(result.cv_error,
                               _brute_force_cv_error(estimator, X, y, folds, result.cv_alphas))
    assert result.cv_error[result.index] == result.cv_error.min()


def test_select_ccp_alpha_for_a_regressor_uses_squared_error():
    X, y = load_iris(return_X_y=True)
    target = X[:, 3] + y
    result = select_ccp_alpha(treesmith.DecisionTreeRegressor(random_state=0), X[:, :3], target,
                              cv=KFold(3))
    assert np.all(np.isfinite(result.cv_error[:-1]))
    assert result.cv_error[result.index] == result.cv_error.min()
    # The last candidate is the root alone: it predicts the training fold's mean.
    root_error = sum(np.sum((target[test] - target[train].mean()) ** 2)
                     for train, test in KFold(3).split(X)) / target.size
    assert result.cv_error[-1] == pytest.approx(root_error)


def test_select_ccp_alpha_rejects_bad_parameters():
    X, y = load_iris(return_X_y=True)
    estimator = treesmith.DecisionTreeClassifier()
    for kwargs, word in [({"rule": "2se"}, "rule"), ({"candidates": "grid"}, "candidates"),
                         ({"risk": "gini"}, "risk")]:
        with pytest.raises(ValueError, match=word):
            select_ccp_alpha(estimator, X, y, **kwargs)


# -- exact ERM across instances, and the explainability objective ---------------------------

def _split_instances(n_instances=4):
    X, y = load_wine(return_X_y=True)
    rng = np.random.default_rng(7)
    instances = []
    for _ in range(n_instances):
        order = rng.permutation(y.size)
        train, test = order[:120], order[120:]
        model = treesmith.DecisionTreeClassifier(random_state=0).fit(X[train], y[train])
        instances.append((model, X[test], y[test]))
    return instances


def test_tune_ccp_alpha_finds_the_exact_minimiser():
    instances = _split_instances()
    result = tune_ccp_alpha(instances)

    def mean_loss(alpha):
        return np.mean([np.mean(prune(m, "ccp", ccp_alpha=alpha).predict(X) != y)
                        for m, X, y in instances])

    assert mean_loss(result.ccp_alpha) == pytest.approx(result.mean_loss.min())
    grid = np.concatenate([np.linspace(0, result.alphas.max() * 1.1, 20), result.alphas])
    assert min(mean_loss(a) for a in grid) >= result.mean_loss.min() - 1e-12


def test_explainability_objective_trades_error_for_leaves():
    instances = _split_instances(1)
    model, X_val, y_val = instances[0]
    exact = select_by_explainability(model, X_val, y_val, eta=0.0)
    curve = exact.curves[0]
    assert exact.error == curve["error"].min()
    # Brute force over the path with prune().
    for alpha, error, leaves in zip(curve["ccp_alphas"], curve["error"], curve["n_leaves"]):
        pruned = prune(model, "ccp", ccp_alpha=alpha)
        assert pruned.tree_.n_leaves == leaves
        assert np.mean(pruned.predict(X_val) != y_val) == pytest.approx(error)
    assert select_by_explainability(model, X_val, y_val, eta=1.0).n_leaves == 1
    middle = select_by_explainability(model, X_val, y_val, eta=0.02)
    assert middle.objective == pytest.approx(middle.error + 0.02 * middle.n_leaves)
    assert middle.objective == pytest.approx(np.min(curve["error"] + 0.02 * curve["n_leaves"]))
    assert middle.estimator.tree_.n_leaves == middle.n_leaves


def test_explainability_objective_chooses_among_splitting_criteria():
    X, y = load_wine(return_X_y=True)
    candidates = [treesmith.DecisionTreeClassifier(criterion=c, random_state=0).fit(X[::2], y[::2])
                  for c in ("gini", "entropy")]
    result = select_by_explainability(candidates, X[1::2], y[1::2], eta=0.01)
    best = min(np.min(c["error"] + 0.01 * c["n_leaves"]) for c in result.curves)
    assert result.objective == pytest.approx(best)
    assert result.estimator.criterion == ("gini", "entropy")[result.candidate]


# -- rounding: the path's alphas are non-negative and non-decreasing -----------------------

def test_cancelling_subtree_sums_give_alpha_zero_not_a_negative_one():
    # Node 0 [0.3, 2.2] with leaves [0.1, 1.1] and [0.2, 1.1]: every node predicts class 1,
    # so the split removes no error, g(0) = ((0.1 + 0.2) - 0.1 - 0.2) / W = 0 exactly; in
    # floats the root's error 0.30000000000000004 minus the leaves' gave g = -9.7e-17 / W.
    tree = build_tree((0, [0.1, 1.1], [0.2, 1.1]))
    raw = resubstitution_risk(tree, "misclassification")
    assert raw[0] - raw[1] - raw[2] < 0  # the round-off the path must not show
    path = cost_complexity_path(tree, risk="misclassification")
    assert path.ccp_alphas.tolist() == [0.0, 0.0]
    assert path.n_leaves.tolist() == [2, 1]
    assert prune_tree_ccp(tree, 0.0, "misclassification").n_leaves == 1


@pytest.mark.parametrize("risk", ["impurity", "misclassification"])
def test_path_alphas_are_non_negative_non_decreasing_and_prune_to_their_subtree(risk):
    """Weighted trees whose split gains cancel (weights 0.1, 0.2, 0.3, 0.7) gave alphas a few
    ulps below 0 or below the alpha before (277 of 600 paths). Pruning at each alpha gives the
    path's subtree: the last one of that alpha, up to the 1e-10 tie tolerance."""
    for seed in range(30):
        rng = np.random.default_rng(seed)
        X = rng.integers(0, 4, size=(40, 3)).astype(float)
        y = rng.integers(0, 2, 40)
        w = rng.choice([0.1, 0.2, 0.3, 0.7], 40)
        tree = treesmith.DecisionTreeClassifier(criterion="entropy").fit(
            X, y, sample_weight=w).tree_
        path = cost_complexity_path(tree, risk=risk)
        alphas = path.ccp_alphas
        assert alphas[0] == 0.0 and np.all(alphas >= 0.0) and np.all(np.diff(alphas) >= 0.0)
        for alpha in alphas:
            last = np.flatnonzero(alphas <= alpha + 1e-10 * alpha)[-1]
            assert prune_tree_ccp(tree, alpha, risk).n_leaves == path.n_leaves[last]


# -- hostile alphas and risks ---------------------------------------------------------------

def test_an_int_alpha_beyond_int64_prunes_to_the_root():
    """ccp_alpha=10**30 (an int: the estimators' table accepts any real >= 0) reached
    np.isnan as an object array and raised "ufunc 'isnan' not supported"."""
    X, y = load_iris(return_X_y=True)
    tree = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    assert prune_tree_ccp(tree, 10**30).n_leaves == prune_tree_ccp(tree, 1e30).n_leaves == 1
    assert treesmith.DecisionTreeClassifier(ccp_alpha=10**30).fit(X, y).get_n_leaves() == 1
    assert treesmith.DecisionTreeRegressor(ccp_alpha=2**64).fit(X, y).get_n_leaves() == 1


@pytest.mark.parametrize("alpha", [np.nan, -1, -np.inf, "0.1", None, True, 10**400,
                                   np.array([0.1, 0.2]), 1 + 0j],
                         ids=["nan", "-1", "-inf", "str", "None", "True", "10**400", "array",
                              "complex"])
def test_a_bad_alpha_is_named(alpha):
    X, y = load_iris(return_X_y=True)
    tree = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y).tree_
    with pytest.raises(ValueError, match=r"ccp_alpha must be a float >= 0"):
        prune_tree_ccp(tree, alpha)


@pytest.mark.parametrize("risk", [np.array(["impurity", "impurity"]), None, ["impurity"],
                                  "IMPURITY"])
def test_a_bad_risk_is_named(risk):
    """A numpy array of names raised numpy's "truth value of an array is ambiguous"."""
    X, y = load_iris(return_X_y=True)
    tree = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y).tree_
    with pytest.raises(ValueError, match=r"risk must be one of \('impurity', "):
        cost_complexity_path(tree, risk)
