"""to_sklearn(): the converted scikit-learn estimator predicts as treesmith, and the scikit-learn
tree ecosystem (SHAP, ONNX, dtreeviz, plot_tree/export_graphviz, partial dependence) reads it.

The ecosystem packages are in the ``test`` extra (through ``interop``): a missing one fails here
rather than skipping."""

import matplotlib

matplotlib.use("Agg")

import warnings

import numpy as np
import pytest
import sklearn.tree
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.inspection import partial_dependence

import treesmith
from treesmith._dtypes import TREE_LEAF
from treesmith.interop import to_sklearn


def _with_missing(X, every=7, column=3):
    X = X.copy()
    X.iloc[::every, column] = np.nan
    return X


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return _with_missing(X), y


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    return _with_missing(X, every=5, column=2), y


CLASSIFIERS = [
    dict(),
    dict(max_bins=None),
    dict(criterion="entropy", max_depth=5, class_weight="balanced"),
    dict(criterion=treesmith.criteria.Tsallis(alpha=2.45, beta=2), max_leaf_nodes=12),
    dict(split_rule=treesmith.rules.ECART(lam=10), min_weight_fraction_split=0.01),
]


@pytest.mark.parametrize("params", CLASSIFIERS, ids=range(len(CLASSIFIERS)))
def test_classifier_predicts_as_treesmith(cancer, params):
    X, y = cancer
    model = treesmith.DecisionTreeClassifier(random_state=0, **params).fit(X, y)
    converted = model.to_sklearn()
    assert isinstance(converted, sklearn.tree.DecisionTreeClassifier)
    np.testing.assert_array_equal(converted.apply(X), model.apply(X))
    np.testing.assert_array_equal(converted.predict(X), model.predict(X))
    np.testing.assert_allclose(converted.predict_proba(X), model.predict_proba(X), rtol=0,
                               atol=1e-15)
    np.testing.assert_array_equal(converted.feature_names_in_, model.feature_names_in_)
    assert converted.get_depth() == model.get_depth()
    assert converted.get_n_leaves() == model.get_n_leaves()


def test_missing_values_take_the_learned_side(cancer):
    X, y = cancer
    model = treesmith.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    converted = model.to_sklearn()
    # every row missing every value: each split's learned side decides the path
    all_missing = X.iloc[:20].copy()
    all_missing.loc[:, :] = np.nan
    np.testing.assert_array_equal(converted.apply(all_missing), model.apply(all_missing))
    tree = model.tree_
    internal = tree.children_left != TREE_LEAF
    np.testing.assert_array_equal(converted.tree_.missing_go_to_left[internal].astype(bool),
                                  tree.missing_go_left[internal])


def test_threshold_equal_to_a_training_value_goes_left():
    # a quantile bin edge is a training value; float32 must not push that value to the right
    rng = np.random.default_rng(0)
    x = np.round(rng.uniform(0, 1, 2000), 4) + 0.1357
    X = x[:, None]
    y = (x > np.median(x)).astype(int)
    model = treesmith.DecisionTreeClassifier(max_depth=3).fit(X, y)
    converted = model.to_sklearn()
    thresholds = model.tree_.threshold[model.tree_.children_left != TREE_LEAF]
    probe = np.concatenate([thresholds, x])[:, None]
    np.testing.assert_array_equal(converted.apply(probe), model.apply(probe))


def test_regressor_predicts_as_treesmith(diabetes):
    X, y = diabetes
    for criterion in ("squared_error", "poisson", treesmith.criteria.Tweedie(power=0.5)):
        model = treesmith.DecisionTreeRegressor(criterion=criterion, max_depth=6).fit(X, y)
        converted = model.to_sklearn()
        assert isinstance(converted, sklearn.tree.DecisionTreeRegressor)
        np.testing.assert_array_equal(converted.apply(X), model.apply(X))
        np.testing.assert_allclose(converted.predict(X), model.predict(X), rtol=1e-15)


def test_string_classes_and_numpy_input():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    model = treesmith.DecisionTreeClassifier().fit(X, names)
    converted = model.to_sklearn()
    np.testing.assert_array_equal(converted.classes_, model.classes_)
    np.testing.assert_array_equal(converted.predict(X), model.predict(X))
    assert not hasattr(converted, "feature_names_in_")


def test_unfitted_model_is_refused():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        treesmith.DecisionTreeClassifier().to_sklearn()


def test_shap_values_add_up_to_treesmith_probabilities(cancer):
    import shap
    X, y = cancer
    model = treesmith.DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    explainer = shap.TreeExplainer(model.to_sklearn())
    rows = X.iloc[:60]
    values = explainer.shap_values(rows, check_additivity=True)  # (rows, features, classes)
    total = values.sum(axis=1) + np.asarray(explainer.expected_value)
    np.testing.assert_allclose(total, model.predict_proba(rows), atol=1e-6)


def test_shap_regression_additivity(diabetes):
    import shap
    X, y = diabetes
    model = treesmith.DecisionTreeRegressor(max_depth=5).fit(X, y)
    explainer = shap.TreeExplainer(model.to_sklearn())
    values = explainer.shap_values(X.iloc[:50])
    np.testing.assert_allclose(values.sum(axis=1) + explainer.expected_value,
                               model.predict(X.iloc[:50]), rtol=1e-6)


def test_onnx_outputs_equal_treesmith(cancer):
    import onnxruntime
    from skl2onnx import to_onnx

    X, y = cancer
    X = X.fillna(0.0)  # ONNX's tree operator has no learned missing side
    model = treesmith.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    X32 = X.to_numpy(dtype=np.float32)
    onx = to_onnx(model.to_sklearn(), X32[:1], options={"zipmap": False})
    session = onnxruntime.InferenceSession(onx.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    labels, probabilities = session.run(None, {session.get_inputs()[0].name: X32})
    np.testing.assert_array_equal(labels, model.predict(X))
    np.testing.assert_allclose(probabilities, model.predict_proba(X), atol=1e-6)


def test_sklearn_plot_and_graphviz_export(cancer):
    import matplotlib.pyplot as plt

    X, y = cancer
    model = treesmith.DecisionTreeClassifier(max_depth=3).fit(X, y)
    converted = model.to_sklearn()
    dot = sklearn.tree.export_graphviz(converted, feature_names=list(X.columns))
    first_split = model.tree_.feature[0]
    assert X.columns[first_split] in dot
    assert dot.count("->") == model.tree_.node_count - 1
    figure = plt.figure()
    annotations = sklearn.tree.plot_tree(converted, feature_names=list(X.columns))
    node_boxes = [a for a in annotations if "samples = " in a.get_text()]
    assert len(node_boxes) == model.tree_.node_count
    plt.close(figure)
    text = sklearn.tree.export_text(converted, feature_names=list(X.columns))
    assert text.count("class:") == model.get_n_leaves()


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_dtreeviz_reads_the_converted_tree(cancer):
    import dtreeviz
    X, y = cancer
    X = X.fillna(0.0)
    model = treesmith.DecisionTreeClassifier(max_depth=3).fit(X, y)
    viz = dtreeviz.model(model.to_sklearn(), X, y, feature_names=list(X.columns),
                         target_name="diagnosis", class_names=["malignant", "benign"])
    explanation = viz.explain_prediction_path(X.iloc[0].to_numpy())
    root_feature = X.columns[model.tree_.feature[0]]
    assert root_feature in explanation
    # the leaf-size view reads n_node_samples through dtreeviz's scikit-learn adaptor
    assert sorted(viz.shadow_tree.get_leaf_sample_counts()[1]) == sorted(
        model.tree_.n_node_samples[model.tree_.children_left == TREE_LEAF])


def _partial_dependence_reference(tree, feature, value):
    """Friedman's recursion: at a split on ``feature`` follow ``value``; elsewhere average the
    children by their training weight."""
    def walk(node):
        left, right = tree.children_left[node], tree.children_right[node]
        if left == TREE_LEAF:
            return tree.value[node, 0]
        if tree.feature[node] == feature:
            return walk(left if value <= tree.threshold[node] else right)
        w_left = tree.weighted_n_node_samples[left]
        w_right = tree.weighted_n_node_samples[right]
        return (w_left * walk(left) + w_right * walk(right)) / (w_left + w_right)
    return walk(0)


def test_partial_dependence_recursion(diabetes):
    X, y = diabetes
    X = X.fillna(X.median())
    model = treesmith.DecisionTreeRegressor(max_depth=5).fit(X, y)
    result = partial_dependence(model.to_sklearn(), X, [2], method="recursion",
                                grid_resolution=15)
    grid = result["grid_values"][0]
    expected = [_partial_dependence_reference(model.tree_, 2, v) for v in grid]
    np.testing.assert_allclose(result["average"][0], expected, rtol=1e-12)


def _float32_cannot_route(tree, X):
    """Rows whose path meets a test x <= t where x > t but float32(x) <= float32(t)."""
    rows = np.zeros(X.shape[0], dtype=bool)
    for i, x in enumerate(X):
        node = 0
        while tree.children_left[node] != TREE_LEAF:
            value, t = x[tree.feature[node]], tree.threshold[node]
            if not np.isnan(value) and value > t and np.float32(value) <= np.float32(t):
                rows[i] = True
            left = tree.missing_go_left[node] if np.isnan(value) else value <= t
            node = tree.children_left[node] if left else tree.children_right[node]
    return rows


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_forest_converts_and_shap_explains_it(cancer, diabetes, task):
    import shap
    from sklearn.ensemble import RandomForestClassifier as SkForest
    from sklearn.ensemble import RandomForestRegressor as SkForestRegressor

    from treesmith.ensemble import RandomForestClassifier, RandomForestRegressor

    if task == "classification":
        X, y = cancer
        forest = RandomForestClassifier(8, max_depth=5, random_state=0).fit(X, y)
        converted = forest.to_sklearn()
        assert isinstance(converted, SkForest)
        np.testing.assert_array_equal(converted.predict(X), forest.predict(X))
        np.testing.assert_allclose(converted.predict_proba(X), forest.predict_proba(X),
                                   atol=1e-12)
        expected = forest.predict_proba(X.iloc[:20])
    else:
        X, y = diabetes
        forest = RandomForestRegressor(8, max_depth=5, random_state=0).fit(X, y)
        converted = forest.to_sklearn()
        assert isinstance(converted, SkForestRegressor)
        # diabetes holds training values a float32 step above a threshold (e.g. 2e-17 apart):
        # float32(t) would send them left; the thresholds chosen from the training values on
        # either side send every training row where treesmith does
        assert any(_float32_cannot_route(member.tree_, X.to_numpy()).any()
                   for member in forest.estimators_)
        np.testing.assert_allclose(converted.predict(X), forest.predict(X), rtol=1e-12)
        expected = forest.predict(X.iloc[:20])
    np.testing.assert_array_equal(converted.apply(X), forest.apply(X))
    explainer = shap.TreeExplainer(converted)
    values = explainer.shap_values(X.iloc[:20], check_additivity=True)
    total = values.sum(axis=1) + np.asarray(explainer.expected_value)
    np.testing.assert_allclose(total, expected, atol=1e-6)



@pytest.mark.parametrize("task", ["classification", "regression"])
def test_extra_trees_convert_to_scikit_learns_extra_trees(cancer, diabetes, task):
    """An ExtraTrees forest becomes scikit-learn's ExtraTrees (members ExtraTree*), not its
    random forest: the same predictions, and SHAP explains it additively."""
    import shap
    from sklearn import ensemble, tree

    from treesmith.ensemble import ExtraTreesClassifier, ExtraTreesRegressor

    X, y = cancer if task == "classification" else diabetes
    Forest = ExtraTreesClassifier if task == "classification" else ExtraTreesRegressor
    forest = Forest(6, max_depth=5, random_state=0).fit(X, y)
    converted = forest.to_sklearn()
    kind = "Classifier" if task == "classification" else "Regressor"
    assert type(converted) is getattr(ensemble, "ExtraTrees" + kind)
    assert type(converted.estimator_) is getattr(tree, "ExtraTree" + kind)
    if task == "classification":
        np.testing.assert_allclose(converted.predict_proba(X), forest.predict_proba(X),
                                   atol=1e-12)
        expected = forest.predict_proba(X.iloc[:10])
    else:
        np.testing.assert_allclose(converted.predict(X), forest.predict(X), rtol=1e-12)
        expected = forest.predict(X.iloc[:10])
    explainer = shap.TreeExplainer(converted)
    values = explainer.shap_values(X.iloc[:10], check_additivity=True)
    np.testing.assert_allclose(values.sum(axis=1) + np.asarray(explainer.expected_value),
                               expected, atol=1e-6)

# -- acceptance review: float32 thresholds ----------------------------------------------------
def test_bootstrap_forest_members_predict_as_treesmith(diabetes):
    """A node's midpoint between two training values can fall within a float32 step of a value
    outside the node (diabetes' evenly spaced ages): float32(t) sent that value left in
    scikit-learn, right in treesmith (the forest's predictions differed by up to 61)."""
    X, y = diabetes
    forest = treesmith.RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    converted = forest.to_sklearn()
    for member, twin in zip(forest.estimators_, converted.estimators_):
        np.testing.assert_array_equal(twin.apply(X), member.apply(X))
    np.testing.assert_allclose(converted.predict(X), forest.predict(X), rtol=1e-15)


def test_float32_training_values_on_both_sides_of_a_midpoint():
    """Adjacent float32 values a < b: their midpoint rounds (ties to even) to b, which
    scikit-learn then sent left."""
    a = np.nextafter(np.float32(1.0), np.float32(2.0))
    b = np.nextafter(a, np.float32(2.0))
    X = np.repeat(np.array([[a], [b]], dtype=np.float32), 10, axis=0)
    y = np.repeat([0, 1], 10)
    model = treesmith.DecisionTreeClassifier().fit(X, y)
    assert np.float32(model.tree_.threshold[0]) == b  # the rounding this test is about
    np.testing.assert_array_equal(model.to_sklearn().predict(X), y)


def test_values_float32_cannot_separate_are_warned_about():
    x = np.repeat([1.0, 1.0 + 1e-12, 2.0], 10)
    X = np.c_[np.zeros_like(x), x]
    y = np.repeat([0, 1, 1], 10)
    model = treesmith.DecisionTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)
    with pytest.warns(treesmith.Float32ThresholdWarning,
                      match=r"1 split\(s\) separate training values .*'x1' \(1\)"):
        converted = model.to_sklearn()
    assert (converted.predict(X) != y).sum() == 10  # 1 + 1e-12 is 1 in float32
    forest = treesmith.RandomForestClassifier(n_estimators=3, bootstrap=False).fit(X, y)
    with pytest.warns(treesmith.Float32ThresholdWarning, match="in the 3 trees"):
        forest.to_sklearn()
    as_float32 = treesmith.DecisionTreeClassifier().fit(X.astype(np.float32), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", treesmith.Float32ThresholdWarning)
        np.testing.assert_array_equal(as_float32.to_sklearn().predict(X),
                                      as_float32.predict(X.astype(np.float32)))


def test_quantile_binned_values_float32_cannot_separate_are_warned_about():
    """400 distinct values 1e8 + k (quantile bins, whose training values are not kept) are 8
    apart in float32: the converted tree predicted otherwise on training rows, silently."""
    x = 1e8 + np.arange(400.0)
    X = np.c_[x, np.zeros_like(x)]
    y = (np.arange(400) // 3) % 2
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    assert not model.bin_mapper_.is_exact_[0]
    with pytest.warns(treesmith.Float32ThresholdWarning, match=r"'x0'"):
        converted = model.to_sklearn()
    assert (converted.predict(X) != model.predict(X)).any()  # what the warning is about
    spread = treesmith.DecisionTreeClassifier(random_state=0).fit(np.c_[x - 1e8, x * 0], y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", treesmith.Float32ThresholdWarning)
        spread.to_sklearn()  # the same bins where float32 separates them: no warning


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_onnx_outputs_of_converted_forests_equal_treesmith(cancer, diabetes, task):
    """Complete rows only: skl2onnx 1.20 does not route NaN as scikit-learn's own forests do
    (their ONNX regression forest differs on rows with NaN too)."""
    import onnxruntime
    from skl2onnx import to_onnx

    X, y = cancer if task == "classification" else diabetes
    X = X.fillna(X.median())
    Forest = getattr(treesmith, "RandomForestClassifier" if task == "classification"
                     else "RandomForestRegressor")
    forest = Forest(5, max_depth=5, random_state=0).fit(X, y)
    X32 = X.to_numpy(dtype=np.float32)
    options = {"zipmap": False} if task == "classification" else None
    onx = to_onnx(forest.to_sklearn(), X32[:1], options=options)
    session = onnxruntime.InferenceSession(onx.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    outputs = session.run(None, {session.get_inputs()[0].name: X32})
    if task == "classification":
        np.testing.assert_allclose(outputs[1], forest.predict_proba(X), atol=1e-6)
    else:
        np.testing.assert_allclose(outputs[0].ravel(), forest.predict(X), rtol=1e-5)


def test_boolean_columns_convert_as_thresholds_at_one_half():
    """A bool column is categorical by default: to_sklearn refused every model with one (also
    unsplit); scikit-learn reads False/True as 0/1, so its splits are x <= 0.5, with the
    children exchanged where True goes left."""
    import pandas as pd
    import shap

    rng = np.random.default_rng(0)
    n = 500
    b, c, x = rng.random(n) < 0.5, rng.random(n) < 0.3, rng.normal(size=n)
    y = ((b & (x > 0)) | (~c & (x < -1))).astype(int)
    X = pd.DataFrame({"b": b, "c": c, "x": x})
    X.loc[::9, "c"] = None  # an object column of bools and missing cells
    model = treesmith.DecisionTreeClassifier(max_depth=5).fit(X, y)
    tree = model.tree_
    assert model.is_categorical_[:2].all()
    left_sets = [{bool(model.categories_[tree.feature[node]][code])
                  for code in tree.categories_left(node)}
                 for node in np.flatnonzero(tree.is_categorical_split)]
    assert {True} in left_sets and {False} in left_sets  # both orientations are exercised
    converted = model.to_sklearn()
    numeric = X.astype(float)
    for rows in (numeric, numeric.assign(c=np.nan)):
        np.testing.assert_array_equal(converted.apply(rows), model.apply(X.loc[rows.index]
                                                                         .assign(c=rows["c"])))
    np.testing.assert_allclose(converted.predict_proba(numeric), model.predict_proba(X),
                               rtol=0, atol=1e-15)
    explainer = shap.TreeExplainer(converted)
    values = explainer.shap_values(numeric.iloc[:40])
    np.testing.assert_allclose(values.sum(axis=1) + explainer.expected_value,
                               model.predict_proba(X.iloc[:40]), atol=1e-9)
    with pytest.raises(ValueError, match="Feature 'city' is categorical"):
        treesmith.DecisionTreeClassifier(max_depth=1).fit(
            X.assign(city=rng.choice(["u", "v"], n)), y).to_sklearn()


@pytest.mark.parametrize("kind", ["tree", "forest"])
def test_boolean_split_of_both_values_against_missing_values_converts(kind):
    """A bool column's split {False, True} | missing (both values left, missing values right)
    became x <= 0.5, which sends True right: the converted model predicted otherwise for every
    True row (review 15b)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 200
    c = pd.Series(rng.random(n) < 0.5, dtype=object)
    c[::4] = None
    x = rng.normal(size=n)
    y = c.isna().to_numpy().astype(int)
    X = pd.DataFrame({"c": c, "x": x})
    if kind == "tree":
        model = treesmith.DecisionTreeClassifier(max_depth=1).fit(X, y)
        tree = model.tree_
        assert {bool(model.categories_[0][code]) for code in tree.categories_left(0)} == {
            False, True}
    else:
        model = treesmith.ensemble.RandomForestClassifier(
            n_estimators=3, max_depth=2, random_state=0).fit(X, y)
    converted = model.to_sklearn()
    np.testing.assert_array_equal(converted.predict(X.astype(float)), model.predict(X))
    np.testing.assert_array_equal(converted.predict(X.astype(float)), y)


def test_bayesian_map_tree_converts_with_its_posterior_predictive_leaves(cancer, diabetes):
    """A Bayesian CART's MAP tree predicts the leaves' posterior means, not their training
    proportions / means: the converted tree carries those, so it predicts the same."""
    from treesmith.bayes import BayesianTreeClassifier, BayesianTreeRegressor

    X, y = cancer
    model = BayesianTreeClassifier(n_iter=200, n_chains=1, random_state=0).fit(X, y)
    converted = model.to_sklearn()
    np.testing.assert_allclose(converted.predict_proba(X), model.predict_proba(X), rtol=1e-12)
    X, y = diabetes
    model = BayesianTreeRegressor(n_iter=200, n_chains=1, random_state=0).fit(X, y)
    converted = to_sklearn(model)
    np.testing.assert_allclose(converted.predict(X), model.predict(X), rtol=1e-12)


def test_bayesian_posterior_average_is_refused_naming_the_parameter(cancer):
    from treesmith.bayes import BayesianTreeClassifier

    X, y = cancer
    model = BayesianTreeClassifier(n_iter=100, n_chains=1, averaging="posterior",
                                   random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="averaging='posterior'"):
        to_sklearn(model)


def test_c45_is_refused_rather_than_converted_to_a_model_that_predicts_otherwise(cancer):
    """C4.5 spreads a missing value over every branch and tests nominal columns on their
    codes; its binary view ``tree_`` cannot carry that, so a conversion would predict
    otherwise (here: probabilities off by up to 0.38 on rows with missing values)."""
    X, y = cancer
    model = treesmith.C45Classifier().fit(X, y)
    with pytest.raises(TypeError, match="C45Classifier"):
        to_sklearn(model)


@pytest.mark.parametrize("make", ["budget", "sklearn", "list"])
def test_models_without_a_treesmith_tree_get_a_type_error_naming_what_converts(cancer, make):
    """Not the misleading "not fitted yet" (a fitted BudgetForest) nor an AttributeError (a
    scikit-learn tree)."""
    X, y = cancer
    if make == "budget":
        model = treesmith.ensemble.BudgetForestClassifier(max_estimators=3, random_state=0)
        model.fit(X, y)
    elif make == "sklearn":
        model = sklearn.tree.DecisionTreeClassifier(max_depth=2).fit(X.fillna(0), y)
    else:
        model = [1, 2]
    with pytest.raises(TypeError, match="to_sklearn converts"):
        to_sklearn(model)
