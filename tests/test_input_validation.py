"""Bad input gets a ValueError (or NotFittedError) that names the parameter or column at fault."""

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from treesmith import DecisionTreeClassifier, DecisionTreeRegressor

ESTIMATORS = [DecisionTreeClassifier, DecisionTreeRegressor]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = (X[:, 0] > 0).astype(int)
    return X, y


# (parameter, bad value) for both estimators
BAD_PARAMETERS = [
    ("max_depth", 0), ("max_depth", -1), ("max_depth", 1.5), ("max_depth", "3"),
    ("min_samples_split", 1), ("min_samples_split", 0), ("min_samples_split", -2),
    ("min_samples_leaf", 0), ("min_samples_leaf", -1),
    ("min_weight_fraction_leaf", -0.1), ("min_weight_fraction_leaf", 0.6),
    ("min_weight_fraction_split", -0.1), ("min_weight_fraction_split", 1.5),
    ("max_features", 0), ("max_features", 1.5), ("max_features", 0.0), ("max_features", -1),
    ("max_features", "foo"), ("max_features", 5),
    ("max_leaf_nodes", 1), ("max_leaf_nodes", 0), ("max_leaf_nodes", -3),
    ("min_impurity_decrease", -0.1),
    ("max_bins", 1), ("max_bins", 0), ("max_bins", 70000), ("max_bins", 2.5),
    ("criterion", "foo"), ("criterion", None),
    ("random_state", "foo"),
]


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("name, value", BAD_PARAMETERS)
def test_out_of_range_parameter_is_named(Estimator, name, value, data):
    X, y = data
    with pytest.raises(ValueError, match=name):
        Estimator(**{name: value}).fit(X, y)


@pytest.mark.parametrize("class_weight", ["foo", 1.5, {0: -1.0, 1: 1.0}])
def test_invalid_class_weight_is_named(class_weight, data):
    X, y = data
    with pytest.raises(ValueError, match="class_weight"):
        DecisionTreeClassifier(class_weight=class_weight).fit(X, y)


@pytest.mark.parametrize("Estimator, criterion", [
    (DecisionTreeClassifier, "squared_error"), (DecisionTreeRegressor, "gini"),
    (DecisionTreeRegressor, "entropy"),
])
def test_criterion_of_the_other_task_is_rejected(Estimator, criterion, data):
    X, y = data
    with pytest.raises(ValueError, match="criterion"):
        Estimator(criterion=criterion).fit(X, y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_labels(Estimator, bad, data):
    X, y = data
    y = y.astype(float)
    y[3] = bad
    with pytest.raises(ValueError, match=r"(?i)\by\b|label|target"):
        Estimator().fit(X, y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_infinite_feature_is_named(Estimator, bad, data):
    X, y = data
    X = X.copy()
    X[5, 2] = bad
    with pytest.raises(ValueError, match=r"(?i)(inf.*\b2\b|\b2\b.*inf)"):
        Estimator().fit(X, y)
    frame = pd.DataFrame(X, columns=["age", "height", "glucose", "weight"])
    with pytest.raises(ValueError, match="glucose"):
        Estimator().fit(frame, y)


@pytest.mark.parametrize(("Estimator", "method"), [
    (Estimator, method) for Estimator in ESTIMATORS
    for method in ("predict", "predict_proba", "predict_log_proba", "apply", "decision_path")
    if hasattr(Estimator, method)])
def test_infinite_feature_at_predict_is_rejected_and_named(Estimator, method, data):
    X, y = data
    est = Estimator().fit(X, y)
    X_bad = X.copy()
    X_bad[-1, 1] = -np.inf
    with pytest.raises(ValueError, match=r"(?i)inf.*\b1\b|\b1\b.*inf"):
        getattr(est, method)(X_bad)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("shape", [(0, 3), (5, 0), (0, 0)])
def test_empty_data(Estimator, shape):
    X = np.zeros(shape)
    y = np.zeros(shape[0])
    with pytest.raises(ValueError, match=r"(?i)sample|feature|empty"):
        Estimator().fit(X, y)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_one_sample(Estimator):
    """One sample: either a clear error (scikit-learn's wording) or a valid one-leaf tree."""
    X, y = np.array([[1.0, 2.0]]), np.array([1])
    try:
        est = Estimator().fit(X, y)
    except ValueError as error:
        assert any(phrase in str(error) for phrase in
                   ("1 sample", "n_samples = 1", "n_samples=1", "one sample", "1 class",
                    "one class")), str(error)
        return
    assert est.tree_.node_count == 1
    assert est.predict([[5.0, -1.0]])[0] == 1


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_mismatched_lengths(Estimator, data):
    X, y = data
    with pytest.raises(ValueError, match=r"(?i)inconsistent|samples|length"):
        Estimator().fit(X, y[:-1])
    with pytest.raises(ValueError, match="sample_weight"):
        Estimator().fit(X, y, sample_weight=np.ones(len(y) + 2))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("weights", [
    pytest.param(lambda n: -np.ones(n), id="negative"),
    pytest.param(lambda n: np.where(np.arange(n) == 2, np.nan, 1.0), id="nan"),
    pytest.param(lambda n: np.where(np.arange(n) == 2, np.inf, 1.0), id="inf"),
    pytest.param(lambda n: np.zeros(n), id="all_zero"),
])
def test_bad_sample_weight_is_named(Estimator, weights, data):
    X, y = data
    with pytest.raises(ValueError, match="(?i)sample.weight"):
        Estimator().fit(X, y, sample_weight=weights(len(y)))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_wrong_feature_count_at_predict(Estimator, data):
    X, y = data
    est = Estimator().fit(X, y)
    for method in ("predict", "apply", "decision_path"):
        with pytest.raises(ValueError, match="features"):
            getattr(est, method)(X[:, :3])
    if Estimator is DecisionTreeClassifier:
        with pytest.raises(ValueError, match="features"):
            est.predict_proba(np.hstack([X, X]))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_wrong_feature_names_at_predict(Estimator, data):
    X, y = data
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    est = Estimator().fit(frame, y)
    with pytest.raises(ValueError, match="(?i)feature names"):
        est.predict(frame.rename(columns={"c": "z"}))
    with pytest.raises(ValueError, match="(?i)feature names"):
        est.predict(frame[["b", "a", "c", "d"]])


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_predict_before_fit(Estimator, data):
    X, _ = data
    est = Estimator()
    methods = ["predict", "apply", "decision_path"]
    if Estimator is DecisionTreeClassifier:
        methods += ["predict_proba", "predict_log_proba"]
    for method in methods:
        with pytest.raises(NotFittedError):
            getattr(est, method)(X)
    for method in ("get_depth", "get_n_leaves"):
        with pytest.raises(NotFittedError):
            getattr(est, method)()
    with pytest.raises(NotFittedError):
        _ = est.feature_importances_


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_parameters_are_validated_at_fit_not_construction(Estimator, data):
    est = Estimator(max_depth=-5)  # scikit-learn convention: __init__ stores, fit validates
    assert est.max_depth == -5
    with pytest.raises(ValueError, match="max_depth"):
        est.fit(*data)


def test_multi_output_labels_are_rejected(data):
    X, y = data
    with pytest.raises(ValueError, match=r"(?i)\by\b|output|label|target"):
        DecisionTreeClassifier().fit(X, np.column_stack([y, y]))


def _text_frame():
    X = pd.DataFrame({"a": np.arange(20.0), "city": ["Nice", "Brest"] * 10})
    return X, np.arange(20) % 2


def test_text_column_hint_for_trees_points_at_categorical_features():
    from treesmith import BayesianTreeClassifier
    from treesmith.ensemble import BudgetForestClassifier, GreedyTreeClassifier

    X, y = _text_frame()
    for estimator in (DecisionTreeClassifier(categorical_features=None),
                      BayesianTreeClassifier(n_iter=10, categorical_features=None),
                      GreedyTreeClassifier(categorical_features=None),
                      BudgetForestClassifier(budget=2.0, categorical_features=None)):
        with pytest.raises(ValueError, match="name it in categorical_features"):
            estimator.fit(X, y)


def test_warning_and_error_classes_are_public():
    """The classes users catch or filter are importable from the package root."""
    import warnings

    import treesmith
    from treesmith._criterion_failure import CriterionFailure
    from treesmith.grower import LargeTreeWarning

    assert treesmith.CriterionFailure is CriterionFailure
    assert treesmith.LargeTreeWarning is LargeTreeWarning
    for name in ("CriterionFailure", "LargeTreeWarning", "UnseenLevelWarning",
                 "ConcavityWarning", "ModelFileError"):
        assert name in treesmith.__all__
    with warnings.catch_warnings():
        warnings.simplefilter("error", treesmith.ConcavityWarning)
        with pytest.raises(treesmith.ConcavityWarning):
            DecisionTreeClassifier(criterion=treesmith.criteria.Renyi(gamma=2.0)).fit(
                np.arange(20.0)[:, None], np.arange(20) % 2)


def _every_public_estimator():
    """One small instance of every public estimator (the package root and its submodules)."""
    import treesmith
    from treesmith.ensemble import GreedyTreeClassifier

    return [DecisionTreeClassifier(), DecisionTreeRegressor(), treesmith.C45Classifier(),
            treesmith.BayesianTreeClassifier(n_iter=10), treesmith.BayesianTreeRegressor(n_iter=10),
            GreedyTreeClassifier(), treesmith.BudgetForestClassifier(budget=2.0),
            treesmith.RandomForestClassifier(n_estimators=2),
            treesmith.RandomForestRegressor(n_estimators=2)]


@pytest.mark.parametrize("estimator", _every_public_estimator(), ids=lambda e: type(e).__name__)
def test_multi_output_y_is_named_by_every_estimator(estimator, data):
    """Every public estimator says multi-output is not supported (the forests and C4.5 said
    'y should be a 1d array' / 'y must be 1-D')."""
    X, y = data
    with pytest.raises(ValueError, match="multi-output targets are not supported"):
        estimator.fit(X, np.column_stack([y, y]))


@pytest.mark.parametrize("forest", ["RandomForestClassifier", "RandomForestRegressor"])
def test_forest_text_column_without_categorical_support_says_how_to_enable_it(forest):
    """A forest with categorical_features=None named the column no more than numpy did
    ("could not convert string to float: 'Nice'")."""
    import treesmith

    X, y = _text_frame()
    with pytest.raises(ValueError, match="'city' \\(column 1\\).*name it in categorical_"):
        getattr(treesmith, forest)(n_estimators=2, categorical_features=None).fit(X, y)
    model = getattr(treesmith, forest)(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="'a' \\(column 0\\).*numeric at fit time"):
        model.predict(X.assign(a=["Nice"] * 20))


@pytest.mark.parametrize("fill_value", [0.0, np.nan])
@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_frame_of_sparse_columns_is_told_to_use_sparse_to_dense(Estimator, data, fill_value):
    """A DataFrame whose columns are all sparse was turned into a sparse matrix by
    scikit-learn, whose error then said ``.toarray()`` (which a DataFrame lacks); with a NaN
    fill value it said 'fill value must be 0 when converting to COO matrix'."""
    X, y = data
    sparse = pd.DataFrame({f"c{j}": pd.arrays.SparseArray(X[:, j], fill_value=fill_value)
                           for j in range(X.shape[1])})
    with pytest.raises(TypeError, match=r"all sparse.*X\.sparse\.to_dense\(\)"):
        Estimator().fit(sparse, y)
    model = Estimator(random_state=0).fit(sparse.sparse.to_dense(), y)  # the hint works
    dense = Estimator(random_state=0).fit(pd.DataFrame(X, columns=sparse.columns), y)
    np.testing.assert_array_equal(model.predict(sparse.sparse.to_dense()),
                                  dense.predict(sparse.sparse.to_dense()))
    with pytest.raises(TypeError, match=r"X\.sparse\.to_dense\(\)"):
        model.predict(sparse)


@pytest.mark.parametrize("weight, match", [
    (-np.ones(30), r"sample_weight must be non-negative"),
    (np.r_[np.nan, np.ones(29)], r"sample_weight must be finite"),
    (np.zeros(30), r"sample_weight must have a positive sum"),
    (np.ones(3), r"sample_weight must be a 1-D array with one weight per sample \(30\)"),
])
def test_score_checks_sample_weight_as_fit_does(weight, match):
    """score(X, y, sample_weight=-1 * ones) was 1.0: scikit-learn's accuracy_score and
    r2_score average with negative weights."""
    from treesmith import DecisionTreeClassifier, DecisionTreeRegressor

    X = np.random.default_rng(0).normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    classifier = DecisionTreeClassifier(random_state=0).fit(X, y)
    regressor = DecisionTreeRegressor(random_state=0).fit(X, X[:, 0])
    with pytest.raises(ValueError, match=match):
        classifier.score(X, y, sample_weight=weight)
    with pytest.raises(ValueError, match=match):
        regressor.score(X, X[:, 0], sample_weight=weight)
