"""Cost metrics and cost-aware prediction (treesmith.metrics, docs/methods.md §5)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SkTree

import treesmith
from treesmith.metrics import (
    expected_cost,
    expected_depth,
    max_cost,
    path_costs,
    predict_lazy,
)


def _data(seed, n=200, d=6, missing=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).round(1)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n) > 0).astype(int)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


def _brute_force_costs(estimator, X, costs, groups, model):
    """Cost of each row, walking the node ids of its decision path one by one."""
    tree = estimator.tree_
    paths = estimator.decision_path(X).toarray()
    out = []
    for row in paths:
        total, acquired = 0.0, set()
        for node in np.flatnonzero(row):
            if tree.children_left[node] == -1:
                continue
            j = tree.feature[node]
            if model == "per_test":
                total += costs[j]
            elif groups[j] not in acquired:
                acquired.add(groups[j])
                total += costs[j]
        out.append(total)
    return np.array(out)


COSTS = np.array([1.0, 4.0, 4.0, 2.5, 0.0, 7.0])
GROUPS = [[1, 2]]
GROUP_IDS = np.array([0, 1, 1, 2, 3, 4])


@pytest.mark.parametrize("model", ["per_test", "per_feature"])
@pytest.mark.parametrize("seed", [0, 1])
def test_expected_cost_is_the_brute_force_sum(model, seed):
    X, y = _data(seed, missing=0.05)
    tree = treesmith.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    X_eval, _ = _data(seed + 10, n=150, missing=0.05)
    weight = np.random.default_rng(seed).random(150)
    brute = _brute_force_costs(tree, X_eval, COSTS, GROUP_IDS, model)
    assert np.allclose(path_costs(tree, X_eval, COSTS, GROUPS, model), brute)
    assert expected_cost(tree, X_eval, weight, COSTS, GROUPS, model) == pytest.approx(
        np.sum(weight * brute) / weight.sum(), rel=1e-12)
    assert expected_cost(tree, X_eval, None, COSTS, GROUPS, model) == pytest.approx(
        brute.mean(), rel=1e-12)
    assert max_cost(tree, X_eval, COSTS, GROUPS, model) == brute.max()


def test_per_feature_never_costs_more_than_per_test():
    X, y = _data(3)
    tree = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    per_test = path_costs(tree, X, COSTS, None, "per_test")
    per_feature = path_costs(tree, X, COSTS, None, "per_feature")
    assert np.all(per_feature <= per_test + 1e-12)
    assert np.any(per_feature < per_test)  # some path tests a feature twice


def test_defaults_come_from_the_fitted_estimator():
    X, y = _data(4)
    tree = treesmith.DecisionTreeClassifier(
        max_depth=5, feature_costs=COSTS, cost_groups=GROUPS, cost_model="per_feature",
        random_state=0).fit(X, y)
    assert expected_cost(tree, X) == pytest.approx(
        _brute_force_costs(tree, X, COSTS, GROUP_IDS, "per_feature").mean())
    # without costs: unit costs, per test = expected depth
    plain = treesmith.DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    assert expected_cost(plain, X) == pytest.approx(expected_depth(plain, X))


def test_expected_depth_and_max_cost_over_the_tree():
    X, y = _data(5)
    tree = treesmith.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    leaves = tree.apply(X)
    assert expected_depth(tree, X) == pytest.approx(tree.tree_.depth[leaves].mean())
    # over all root-to-leaf paths with unit costs, per test: the tree's depth
    assert max_cost(tree, feature_costs=np.ones(6)) == tree.get_depth()
    # the structural worst case bounds every example's cost
    assert max_cost(tree, None, COSTS, GROUPS, "per_feature") >= max_cost(
        tree, X, COSTS, GROUPS, "per_feature")


def test_works_for_scikit_learn_trees():
    X, y = _data(6)
    sk = SkTree(max_depth=5, random_state=0).fit(X, y)
    brute = _brute_force_costs(sk, X, COSTS, GROUP_IDS, "per_feature")
    assert expected_cost(sk, X, None, COSTS, GROUPS, "per_feature") == pytest.approx(
        brute.mean())
    assert expected_cost(sk, X) == pytest.approx(expected_depth(sk, X))
    predictions, costs = predict_lazy(sk, lambda i, j: X[i, j], X.shape[0],
                                      feature_costs=COSTS)
    assert np.array_equal(predictions, sk.predict(X))
    assert np.allclose(costs, path_costs(sk, X, COSTS))


def test_single_leaf_tree_costs_nothing():
    X = np.zeros((5, 2))
    tree = treesmith.DecisionTreeClassifier().fit(X, [0, 1, 0, 1, 0])
    assert tree.tree_.node_count == 1
    assert expected_cost(tree, X, feature_costs=[3.0, 5.0]) == 0.0
    assert max_cost(tree) == 0.0
    result = predict_lazy(tree, lambda i, j: pytest.fail("asked a feature"), 5)
    assert result.n_requests == 0 and np.all(result.costs == 0)


def test_bad_inputs():
    X, y = _data(7, n=50)
    tree = treesmith.DecisionTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="sample_weight"):
        expected_cost(tree, X, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="feature_costs"):
        expected_cost(tree, X, feature_costs=[1.0, -1.0, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="cost_model"):
        expected_cost(tree, X, cost_model="per_leaf")
    with pytest.raises(ValueError, match="tree_"):
        expected_cost(object(), X)


class RecordingSource:
    """get_feature that records every request and serves values from a matrix."""

    def __init__(self, X):
        self.X = X
        self.requests = []

    def __call__(self, row, j):
        self.requests.append((int(row), int(j)))
        return self.X[row, j]

    def batch(self, rows, j):
        self.requests.extend((int(r), int(j)) for r in rows)
        return self.X[rows, j]


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("model", ["per_test", "per_feature"])
def test_predict_lazy_matches_predict_and_asks_only_on_path(batch, model):
    X, y = _data(8, missing=0.1)
    tree = treesmith.DecisionTreeClassifier(
        max_depth=7, feature_costs=COSTS, cost_groups=GROUPS, cost_model=model,
        random_state=0).fit(X, y)
    X_new, _ = _data(9, n=120, missing=0.1)
    source = RecordingSource(X_new)
    result = predict_lazy(tree, source.batch if batch else source, X_new.shape[0], batch=batch)

    assert np.array_equal(result.predictions, tree.predict(X_new))
    assert np.array_equal(result.leaves, tree.apply(X_new))
    assert np.allclose(result.costs, path_costs(tree, X_new))
    assert np.mean(result.costs) == pytest.approx(expected_cost(tree, X_new))
    # exactly the features tested on each row's path, each asked once
    assert len(source.requests) == len(set(source.requests)) == result.n_requests
    paths = tree.decision_path(X_new).toarray()
    internal = tree.tree_.children_left != -1
    expected = {(i, int(tree.tree_.feature[node]))
                for i, row in enumerate(paths) for node in np.flatnonzero(row & internal)}
    assert set(source.requests) == expected


def test_predict_lazy_regressor():
    X, _ = _data(10)
    target = X[:, 0] * 2 + X[:, 3]
    tree = treesmith.DecisionTreeRegressor(max_depth=5).fit(X, target)
    predictions, costs = predict_lazy(tree, lambda i, j: X[i, j], X.shape[0])
    assert np.allclose(predictions, tree.predict(X))
    assert np.allclose(costs, path_costs(tree, X))


def test_predict_lazy_bad_source():
    X, y = _data(11, n=60)
    tree = treesmith.DecisionTreeClassifier(max_depth=3).fit(X, y)
    with pytest.raises(ValueError, match="returned 1 values"):
        predict_lazy(tree, lambda rows, j: [0.0], 60, batch=True)
    with pytest.raises(ValueError, match="infinite"):
        predict_lazy(tree, lambda i, j: np.inf, 60)
    with pytest.raises(ValueError, match="n_samples"):
        predict_lazy(tree, lambda i, j: 0.0, -1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 6),
       model=st.sampled_from(["per_test", "per_feature"]))
def test_expected_cost_property(seed, depth, model):
    """Random trees, costs and weights: expected_cost = weighted brute-force path sum."""
    rng = np.random.default_rng(seed)
    X, y = _data(seed, n=80)
    costs = rng.integers(0, 10, 6).astype(float)
    tree = treesmith.DecisionTreeClassifier(max_depth=depth).fit(X, y)
    weight = rng.random(80) + 0.01
    brute = _brute_force_costs(tree, X, costs, np.arange(6), model)
    assert expected_cost(tree, X, weight, costs, None, model) == pytest.approx(
        np.average(brute, weights=weight), rel=1e-12, abs=1e-12)


def test_forest_pays_the_union_of_its_trees_features_once():
    """docs/methods.md §5: per example, the union of the groups used on its paths in all trees."""
    from sklearn.ensemble import RandomForestClassifier

    X, y = _data(12, n=150)
    forest = RandomForestClassifier(n_estimators=4, max_depth=3, random_state=0).fit(X, y)
    expected = []
    for i in range(X.shape[0]):
        acquired = set()
        for member in forest.estimators_:
            path = member.decision_path(X[i:i + 1]).indices
            acquired |= {GROUP_IDS[member.tree_.feature[node]] for node in path
                         if member.tree_.children_left[node] != -1}
        expected.append(sum(COSTS[np.flatnonzero(GROUP_IDS == g)[0]] for g in acquired))
    assert np.allclose(path_costs(forest, X, COSTS, GROUPS), expected)
    assert expected_cost(forest, X, None, COSTS, GROUPS) == pytest.approx(np.mean(expected))


@pytest.mark.parametrize("n_samples", [2.7, 3.0, "5", None, True, -1])
def test_predict_lazy_n_samples_must_be_a_count(n_samples):
    X, y = _data(0, n=40)
    tree = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"predict_lazy: n_samples must be an int >= 0"):
        predict_lazy(tree, lambda i, j: X[i, j], n_samples)
    with pytest.raises(ValueError, match=r"predict_lazy: batch must be a bool"):
        predict_lazy(tree, lambda i, j: X[i, j], 3, batch="yes")
    assert predict_lazy(tree, lambda i, j: X[i, j], np.int64(3)).predictions.shape == (3,)


@pytest.mark.parametrize("model", ["tree", "c45", "forest"])
def test_predict_lazy_refuses_more_rows_than_memory_holds_before_allocating(model):
    """n_samples=2**31 failed in numpy's allocation of the per-row state (16 GiB), 10**12
    with 'Unable to allocate 7.28 TiB', np.uint64(2**63) with 'Maximum allowed dimension
    exceeded'."""
    X, y = _data(0, n=40)
    estimator = {"tree": treesmith.DecisionTreeClassifier(max_depth=2, random_state=0),
                 "c45": treesmith.C45Classifier(),
                 "forest": treesmith.RandomForestClassifier(3, random_state=0)}[model].fit(X, y)
    for n_samples in (10**12, np.uint64(2**63)):
        with pytest.raises(ValueError, match=rf"predict_lazy: n_samples={int(n_samples)} "
                                             r"examples need at least .* more than the .* of "
                                             r"memory available"):
            predict_lazy(estimator, lambda i, j: X[i, j], n_samples)


@pytest.mark.parametrize("get_feature", ["X", None, 3, [lambda i, j: 0.0]])
def test_predict_lazy_get_feature_must_be_callable(get_feature):
    """A str was called at the first request ("'str' object is not callable")."""
    X, y = _data(0, n=40)
    tree = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"predict_lazy: get_feature must be a callable "
                                         r"get_feature\(row, j\)"):
        predict_lazy(tree, get_feature, 3)


def test_expected_depth_of_a_forest_says_what_to_use():
    """A forest's decision_path is (indicator, n_nodes_ptr): csr_matrix raised "object of type
    'numpy.int64' has no len()"; BudgetForest has no decision_path (AttributeError)."""
    X, y = _data(0, n=60)
    for forest in (treesmith.RandomForestClassifier(3, random_state=0).fit(X, y),
                   treesmith.BudgetForestClassifier(max_estimators=2, alphas=[0],
                                                    random_state=0).fit(X, y)):
        with pytest.raises(ValueError, match=r"expected_depth is the number of tests on one "
                                             r"tree's paths; .* has \d+ trees. Use "
                                             r"expected_cost"):
            expected_depth(forest, X)


def test_metric_weights_use_the_shared_checker():
    X, y = _data(0, n=40)
    tree = treesmith.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"sample_weight must be finite; it contains NaN or "
                                         r"infinity at rows 2"):
        expected_depth(tree, X, sample_weight=np.where(np.arange(40) == 2, np.nan, 1.0))
    with pytest.raises(ValueError, match=r"sample_weight must have a positive sum"):
        expected_cost(tree, X, sample_weight=np.zeros(40))
    # weights whose float64 sum overflows are rescaled exactly: p(x) is unchanged
    assert expected_depth(tree, X, sample_weight=np.full(40, 1e307)) == pytest.approx(
        expected_depth(tree, X))


def test_predict_lazy_predicts_what_a_bayesian_tree_predicts():
    """A Bayesian tree's leaves predict posterior means, not their training means: lazy
    prediction read ``tree_.value`` and was up to 1.2 away from ``predict`` on diabetes."""
    from sklearn.datasets import load_diabetes

    from treesmith.bayes import BayesianTreeRegressor

    X, y = load_diabetes(return_X_y=True)
    model = BayesianTreeRegressor(n_iter=200, n_chains=1, random_state=0).fit(X, y)
    predictions, _ = predict_lazy(model, lambda rows, j: X[rows, j], X.shape[0], batch=True)
    np.testing.assert_allclose(predictions, model.predict(X), rtol=1e-12)
    posterior = BayesianTreeRegressor(n_iter=100, n_chains=1, averaging="posterior",
                                      random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="averaging='posterior'"):
        predict_lazy(posterior, lambda rows, j: X[rows, j], X.shape[0], batch=True)


def test_predict_lazy_follows_c45_down_every_branch_of_a_missing_value():
    """C4.5 sends a row with a missing value down every branch, weighted; the lazy walk used
    to follow one path (the binary view's heaviest branch), disagreed with predict on 605 of
    4000 rows with 30% missing values, and so refused such rows. It now follows every branch
    and predicts as predict does; its costs are path_costs'."""
    from treesmith.c45 import C45Classifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    model = C45Classifier().fit(X, y)
    X_missing = X.copy()
    X_missing[rng.random(X.shape) < 0.3] = np.nan
    for data in (X, X_missing):
        lazy = predict_lazy(model, lambda rows, j: data[rows, j], 400, batch=True)
        np.testing.assert_array_equal(lazy.predictions, model.predict(data))
        np.testing.assert_array_equal(lazy.probabilities, model.predict_proba(data))
        np.testing.assert_array_equal(lazy.costs, path_costs(model, data))


def _objects(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    for k, item in enumerate(items):
        out[k] = item
    return out


def _lazy_models():
    """A tree, a forest and a C4.5 model on a frame with a nominal and a numeric column."""
    from treesmith.c45 import C45Classifier
    from treesmith.ensemble.forest import RandomForestClassifier

    X = pd.DataFrame({"a": pd.Categorical(list("xyzxyz") * 3), "u": np.arange(18.0)})
    y = np.array([0, 1, 2, 0, 1, 1] * 3)
    return X, [treesmith.DecisionTreeClassifier(random_state=0).fit(X, y),
               RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y),
               C45Classifier(min_objects=1).fit(X, y)]


@pytest.mark.parametrize("returned", [[1.0, 2.0], [], np.array([[1.0]]), {"a": 1}, {1.0}])
def test_predict_lazy_says_get_feature_must_return_one_value(returned):
    """A get_feature that returns a list, an array or a dict for one (row, feature) gets an
    error naming the call and what came back (it was numpy's broadcast error or 'unhashable
    type'), for trees, forests and C4.5 alike; a 0-d array is its one value."""
    X, models = _lazy_models()
    for model in models:
        with pytest.raises(ValueError, match=r"get_feature\(0, \d\) must return one value "
                                             r"\(a number, a category, or NaN/None"):
            predict_lazy(model, lambda i, j: returned, 4)
        with pytest.raises(ValueError, match=r"get_feature\(rows, \d\) (must return one "
                                             r"value per row|returned \d+ values for 4)"):
            predict_lazy(model, lambda rows, j: _objects([returned] * len(rows)), 4,
                         batch=True)
        expected = model.predict(X.iloc[:4])
        got = predict_lazy(model, lambda i, j: np.array(X.iat[i, j], dtype=object), 4)
        np.testing.assert_array_equal(got.predictions, expected)


def test_predict_lazy_names_a_non_numeric_value_of_a_numeric_feature():
    X, models = _lazy_models()
    for model in models[:2]:
        with pytest.raises(ValueError, match=r"get_feature returned 'abc' for feature 1, "
                                             r"which is numeric"):
            predict_lazy(model, lambda i, j: X.iat[i, j] if j == 0 else "abc", 4)


@pytest.mark.parametrize("n_samples", [2.7, "5", None, -1])
def test_predict_lazy_of_a_forest_checks_n_samples_too(n_samples):
    """A forest took int(n_samples): 2.7 predicted 2 rows silently."""
    X, models = _lazy_models()
    with pytest.raises(ValueError, match=r"predict_lazy: n_samples must be an int >= 0"):
        predict_lazy(models[1], lambda i, j: X.iat[i, j], n_samples)
    with pytest.raises(ValueError, match=r"predict_lazy: batch must be a bool"):
        predict_lazy(models[1], lambda i, j: X.iat[i, j], 3, batch="yes")


# -- unseen categories in a lazy prediction --------------------------------------------------
def _lazy_unseen_estimators():
    from treesmith.ensemble.greedy_tree import GreedyTreeClassifier

    return [treesmith.DecisionTreeClassifier(random_state=0),
            treesmith.DecisionTreeRegressor(random_state=0),
            treesmith.RandomForestClassifier(n_estimators=4, random_state=0),
            treesmith.ExtraTreesRegressor(n_estimators=3, random_state=0),
            treesmith.BudgetForestClassifier(budget=5, random_state=0),
            treesmith.BayesianTreeClassifier(n_iter=200, n_chains=1, random_state=0),
            GreedyTreeClassifier(), treesmith.C45Classifier()]


@pytest.mark.parametrize("estimator", _lazy_unseen_estimators(),
                         ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("batch", [False, True])
def test_predict_lazy_warns_once_about_unseen_categories_as_predict_does(estimator, batch):
    rng = np.random.default_rng(0)
    city = rng.choice(["Lyon", "Nice", "Paris"], 120)
    x = rng.normal(size=120)
    X = pd.DataFrame({"city": pd.Categorical(city), "x": x})
    y = ((city == "Nice") ^ (x > 0)).astype(int)
    estimator.fit(X, y)
    new = pd.DataFrame({"city": ["Lyon", "Rome", "Oslo", "Rome", np.nan],
                        "x": [0.1, -0.2, 1.0, 0.5, 0.0]})
    get = (lambda rows, j: new.iloc[rows, j].to_numpy()) if batch else \
        (lambda row, j: new.iloc[row, j])
    with pytest.warns(treesmith.UnseenLevelWarning) as caught:
        result = treesmith.predict_lazy(estimator, get, len(new), batch=batch)
    unseen = [w for w in caught if issubclass(w.category, treesmith.UnseenLevelWarning)]
    assert len(unseen) == 1  # once per call, not per row or tree
    message = str(unseen[0].message)
    assert "column 'city' has 3 value(s) not seen at fit time: 'Oslo', 'Rome'" in message
    assert "'Lyon'" in message and "missing" in message
    with pytest.warns(treesmith.UnseenLevelWarning):
        expected = estimator.predict(new)
    np.testing.assert_array_equal(result.predictions, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # known categories and NaN: no warning
        treesmith.predict_lazy(estimator, get, 1, batch=batch)


@pytest.mark.parametrize("model", ["tree", "c45", "forest", "budget"])
def test_costs_whose_path_sums_overflow_are_named(model):
    """feature_costs=[1e308] * 6 are finite, but a path testing two features costs inf:
    expected_cost, max_cost and path_costs returned inf (with numpy's overflow warning at
    best), predict_lazy's costs too."""
    X, y = _data(0, n=120)
    estimator = {"tree": treesmith.DecisionTreeClassifier(random_state=0),
                 "c45": treesmith.C45Classifier(),
                 "forest": treesmith.RandomForestClassifier(3, random_state=0),
                 "budget": treesmith.BudgetForestClassifier(max_estimators=2, alphas=[0],
                                                            random_state=0)}[model].fit(X, y)
    huge = [1e308] * X.shape[1]
    message = r"feature_costs are too large for float64 path costs: a path's sum overflows"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning on the way
        for metric in (expected_cost, path_costs, max_cost):
            with pytest.raises(ValueError, match=message):
                metric(estimator, X, feature_costs=huge)
        with pytest.raises(ValueError, match=message):
            predict_lazy(estimator, lambda i, j: X[i, j], 5, feature_costs=huge)
    assert np.isfinite(expected_cost(estimator, X, feature_costs=[1e300] * X.shape[1]))


@pytest.mark.parametrize("estimator", ["tree", 3, None, treesmith.DecisionTreeClassifier()])
def test_expected_depth_names_what_is_not_a_fitted_tree(estimator):
    """A string raised "'str' object has no attribute 'decision_path'"."""
    X, _ = _data(0, n=20)
    with pytest.raises(ValueError, match=r"estimator must be a fitted tree with a tree_ "
                                         r"attribute"):
        expected_depth(estimator, X)

