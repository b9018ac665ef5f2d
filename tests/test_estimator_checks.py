"""scikit-learn conventions: the estimator checks, meta-estimators, cloning, pandas, pickling."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

import treesmith
from treesmith import DecisionTreeClassifier, DecisionTreeRegressor

#: Checks judged inapplicable, per estimator class, with the reason (none so far).
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "DecisionTreeClassifier": {},
    "DecisionTreeRegressor": {},
}


def expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks([DecisionTreeClassifier(), DecisionTreeRegressor()],
                         expected_failed_checks=expected_failed_checks)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture
def iris(real_dataset):
    return real_dataset("iris")


def test_pipeline_grid_search_and_cross_validation(iris):
    X, y = iris
    pipe = make_pipeline(StandardScaler(), DecisionTreeClassifier(random_state=0))
    scores = cross_val_score(pipe, X, y, cv=StratifiedKFold(5, shuffle=True, random_state=0))
    assert scores.shape == (5,) and scores.mean() > 0.85
    search = GridSearchCV(DecisionTreeClassifier(), {"max_depth": [1, 3], "criterion":
                                                     ["gini", "entropy"]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["max_depth"] == 3
    assert search.best_estimator_.get_depth() <= 3
    assert search.score(X, y) > 0.9


def test_get_params_set_params_and_clone():
    est = DecisionTreeClassifier(max_depth=4, criterion="entropy", max_bins=None)
    params = est.get_params()
    expected = {"criterion", "max_depth", "min_samples_split", "min_samples_leaf",
                "min_weight_fraction_leaf", "min_weight_fraction_split", "max_features",
                "max_leaf_nodes", "min_impurity_decrease", "class_weight", "max_bins",
                "random_state"}
    assert expected <= set(params)
    assert params["max_depth"] == 4 and params["max_bins"] is None
    assert est.set_params(max_depth=2, min_samples_leaf=3) is est
    assert est.max_depth == 2 and est.min_samples_leaf == 3
    copy = clone(est)
    assert copy is not est and copy.get_params() == est.get_params()
    with pytest.raises(ValueError):
        est.set_params(not_a_parameter=1)
    regressor_params = DecisionTreeRegressor().get_params()
    assert "class_weight" not in regressor_params
    assert regressor_params["criterion"] == "squared_error"


def test_clone_of_a_fitted_estimator_is_unfitted(iris):
    X, y = iris
    est = DecisionTreeClassifier().fit(X, y)
    copy = clone(est)
    assert not hasattr(copy, "tree_")


def test_pandas_input_keeps_feature_names(iris):
    X, y = iris
    frame = pd.DataFrame(X, columns=["sepal length", "sepal width", "petal length", "petal width"])
    est = DecisionTreeClassifier(random_state=0).fit(frame, y)
    np.testing.assert_array_equal(est.feature_names_in_, frame.columns.to_numpy())
    assert est.n_features_in_ == 4
    np.testing.assert_array_equal(est.predict(frame), DecisionTreeClassifier(random_state=0)
                                  .fit(X, y).predict(X))
    series_labels = pd.Series(np.array(["setosa", "versicolor", "virginica"])[y])
    est.fit(frame, series_labels)
    assert est.classes_.tolist() == ["setosa", "versicolor", "virginica"]
    numpy_fit = DecisionTreeClassifier().fit(X, y)
    assert not hasattr(numpy_fit, "feature_names_in_")


def test_pandas_with_missing_values(iris):
    X, y = iris
    frame = pd.DataFrame(X.copy(), columns=list("abcd"))
    frame.iloc[::7, 2] = np.nan
    est = DecisionTreeClassifier().fit(frame, y)
    assert est.score(frame, y) > 0.95


@pytest.mark.parametrize("labels", [
    np.array(["setosa", "versicolor", "virginica"]),
    np.array([-10, 3, 1000]),
    np.array([1.0, 3.0, -2.0]),
    np.array([True, False, True]),
])
def test_string_and_non_contiguous_labels(iris, labels):
    X, y = iris
    if labels.dtype == bool:
        y = (y > 0).astype(int)
        labels = np.array([False, True])
    mapped = labels[y]
    est = DecisionTreeClassifier(random_state=0).fit(X, mapped)
    reference = DecisionTreeClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(est.classes_, np.unique(mapped))
    assert est.n_classes_ == len(np.unique(mapped))
    order = np.argsort(labels[np.unique(y)])  # classes_ are sorted by label value
    np.testing.assert_allclose(est.predict_proba(X), reference.predict_proba(X)[:, order])
    np.testing.assert_array_equal(est.predict(X), labels[reference.predict(X)])
    assert est.predict(X).dtype == mapped.dtype


def test_fitted_attributes(iris):
    X, y = iris
    est = DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert est.n_outputs_ == 1
    assert est.n_classes_ == 3
    assert est.n_features_in_ == 4
    assert isinstance(est.tree_, treesmith.tree.Tree)
    assert isinstance(est.bin_mapper_, treesmith.BinMapper)
    assert est.feature_importances_.shape == (4,)
    assert est.feature_importances_.sum() == pytest.approx(1.0)
    assert est.get_depth() == 3
    assert est.get_n_leaves() == est.tree_.n_leaves
    leaves = est.apply(X)
    assert leaves.shape == (150,) and np.all(est.tree_.children_left[leaves] == -1)
    path = est.decision_path(X)
    assert path.shape == (150, est.tree_.node_count)
    np.testing.assert_array_equal(np.asarray(path.sum(axis=1)).ravel(),
                                  est.tree_.depth[leaves] + 1)


def test_feature_importances_are_weighted_impurity_decreases(iris):
    X, y = iris
    est = DecisionTreeClassifier(max_depth=4).fit(X, y)
    tree = est.tree_
    importances = np.zeros(4)
    for node in np.flatnonzero(tree.children_left != -1):
        left, right = tree.children_left[node], tree.children_right[node]
        importances[tree.feature[node]] += (
            tree.weighted_n_node_samples[node] * tree.impurity[node]
            - tree.weighted_n_node_samples[left] * tree.impurity[left]
            - tree.weighted_n_node_samples[right] * tree.impurity[right])
    np.testing.assert_allclose(est.feature_importances_, importances / importances.sum())


@pytest.mark.parametrize("Estimator", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_pickle_round_trip(iris, Estimator):
    X, y = iris
    X = X.copy()
    X[::9, 1] = np.nan
    est = Estimator(max_leaf_nodes=9, criterion="entropy" if Estimator is
                    DecisionTreeClassifier else "squared_error").fit(X, y)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X), est.predict(X))
    np.testing.assert_array_equal(restored.apply(X), est.apply(X))
    assert restored.get_params() == est.get_params()
    if Estimator is DecisionTreeClassifier:
        np.testing.assert_array_equal(restored.predict_proba(X), est.predict_proba(X))
    refit = pickle.loads(pickle.dumps(Estimator())).fit(X, y)  # unfitted pickles too
    assert refit.get_n_leaves() >= 1
