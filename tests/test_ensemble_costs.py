"""Costs of forests (treesmith.ensemble.costs) through treesmith.expected_cost, max_cost and
predict_lazy: per example, the union of the features on its paths in all trees."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

import treesmith
from treesmith.ensemble import BudgetForestClassifier, RandomForestClassifier, features_used
from treesmith.ensemble.costs import leaf_path_groups


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(300, 6, n_informative=4, random_state=0)
    X[::11, 1] = np.nan
    return X, y


@pytest.fixture(scope="module", params=["random", "budget"])
def forest(request, data):
    X, y = data
    costs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    if request.param == "random":
        return RandomForestClassifier(5, max_depth=3, feature_costs=costs,
                                      random_state=0).fit(X, y)
    return BudgetForestClassifier(None, alphas=[4], max_estimators=5, feature_costs=costs,
                                  random_state=0).fit(X, y)


def naive_features_used(forest, X):
    used = np.zeros(X.shape, dtype=bool)
    for member in forest.estimators_:
        tree = member.tree_
        paths = tree.decision_path(X).toarray().astype(bool)
        for node in np.flatnonzero(tree.children_left != -1):
            used[paths[:, node], tree.feature[node]] = True
    return used


def test_features_used_is_the_union_of_path_features(forest, data):
    X, _ = data
    assert np.array_equal(features_used(forest, X), naive_features_used(forest, X))


def test_expected_and_max_cost_pay_each_feature_once(forest, data):
    X, _ = data
    per_example = naive_features_used(forest, X) @ forest.feature_costs_
    assert treesmith.expected_cost(forest, X) == pytest.approx(per_example.mean())
    assert treesmith.max_cost(forest, X) == pytest.approx(per_example.max())
    with pytest.raises(ValueError, match="needs X"):
        treesmith.max_cost(forest)
    # unit costs: the number of distinct features per example
    ones = np.ones(X.shape[1])
    assert treesmith.expected_cost(forest, X, feature_costs=ones) == pytest.approx(
        naive_features_used(forest, X).sum(axis=1).mean())


def test_cost_groups_are_paid_once(forest, data):
    X, _ = data
    groups = [[0, 1], [2, 3], [4, 5]]
    costs = [2.0, 2.0, 3.0, 3.0, 7.0, 7.0]
    used = naive_features_used(forest, X)
    group_used = np.c_[used[:, :2].any(1), used[:, 2:4].any(1), used[:, 4:].any(1)]
    expected = (group_used @ np.array([2.0, 3.0, 7.0])).mean()
    assert treesmith.expected_cost(forest, X, feature_costs=costs,
                                   cost_groups=groups) == pytest.approx(expected)


@pytest.mark.parametrize("batch", [False, True])
def test_predict_lazy_asks_each_feature_once_per_example(forest, data, batch):
    X, _ = data
    asked = []

    def get_feature(row, j):
        asked.append((np.atleast_1d(row).tolist(), j))
        return X[row, j]

    result = treesmith.predict_lazy(forest, get_feature, X.shape[0], batch=batch)
    pairs = [(r, j) for rows, j in asked for r in rows]
    assert len(pairs) == len(set(pairs)) == result.n_requests
    used = naive_features_used(forest, X)
    assert set(pairs) == {(int(r), int(j)) for r, j in zip(*np.nonzero(used))}
    assert np.array_equal(result.predictions, forest.predict(X))
    assert np.allclose(result.costs, used @ forest.feature_costs_)
    assert result.leaves.shape == (X.shape[0], len(forest.estimators_))


def test_leaf_path_groups_on_a_hand_made_tree():
    tree = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(
        *make_classification(100, 3, n_informative=3, n_redundant=0, random_state=1)).tree_
    path = leaf_path_groups(tree, np.arange(3), 3)
    assert not path[0].any()
    left = tree.children_left[0]
    assert path[left].sum() == 1 and path[left, tree.feature[0]]


def test_features_used_names_what_is_not_a_fitted_forest():
    """A single tree or a string raised AttributeError on estimators_."""
    import numpy as np
    from sklearn.datasets import make_classification

    import treesmith
    from treesmith.ensemble import features_used

    X, y = make_classification(60, 3, n_redundant=0, random_state=0)
    for model in (treesmith.DecisionTreeClassifier().fit(X, y), "forest",
                  treesmith.RandomForestClassifier(2)):
        with pytest.raises(ValueError, match=r"expected a fitted forest \(an estimator with "
                                             r"estimators_ of fitted trees\)"):
            features_used(model, X)
    assert features_used(treesmith.RandomForestClassifier(2, random_state=0).fit(X, y),
                         X).dtype == np.bool_
