"""Fitted numeric precision (``numeric_precision_``, docs/methods.md §2): a model fitted on
float32 numbers compares its numeric input in float32, so the same values read back in float64
(a CSV round trip) are routed as the float32 data is, by every estimator family and every
prediction path."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SklearnClassifier

import treesmith
from treesmith import io
from treesmith._precision import UNRECORDED_PRECISION, rounded_to, rounded_values


def _float32_data(seed=0, n_rows=2000):
    """Float32 features rounded to 2 decimals (many repeated values, more distinct values than
    max_bins: quantile edges fall on training values) and their CSV round trip in float64."""
    rng = np.random.RandomState(seed)
    X32 = rng.normal(size=(n_rows, 2)).round(2).astype(np.float32)
    y = (X32[:, 0] + X32[:, 1] + 0.5 * rng.normal(size=n_rows) > 0).astype(np.int64)
    X64 = X32.astype(str).astype(np.float64)  # what writing and reading a CSV gives
    return X32, X64, y


@pytest.fixture(scope="module")
def data():
    return _float32_data()


def test_the_reproducer_disagreed_before_and_agrees_now(data):
    """Seed 0: walking the float32 model's tree with the float64 values (what predict did
    before, ``tree_.apply``) sends 162 of 2000 rows to another leaf; predict now rounds them to
    float32 and every row reaches the leaf of its float32 twin."""
    X32, X64, y = data
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X32, y)
    assert model.numeric_precision_ == "float32"
    before = model.tree_.apply(X64) != model.tree_.apply(X32)
    assert before.sum() == 162
    np.testing.assert_array_equal(model.apply(X64), model.apply(X32))
    np.testing.assert_array_equal(model.predict(X64), model.predict(X32))
    np.testing.assert_array_equal(model.predict_proba(X64), model.predict_proba(X32))
    assert (model.decision_path(X64) != model.decision_path(X32)).nnz == 0


def _adjacent_float32_pair():
    """a < b adjacent float32 values with b's last mantissa bit 0, and t = (a + b) / 2 exactly
    (float64): float32(t) is b (a tie goes to the even one), but t <= t in float64. (Near
    1000, 6e-5 apart: scikit-learn does not cut between values closer than 1e-7.)"""
    a = np.nextafter(np.float32(1000.0), np.float32(2000.0))  # mantissa ...001: odd
    b = np.nextafter(a, np.float32(2000.0))                    # mantissa ...010: even
    t = float(a) / 2 + float(b) / 2
    assert np.float32(t) == b and float(a) < t < float(b)
    return a, b, t


def test_a_midpoint_threshold_by_hand_agrees_with_scikit_learn():
    """Two rows a < b (adjacent float32 values) of two classes: both libraries split at their
    midpoint t. The float64 value t rounds to b in float32, so scikit-learn (which casts X to
    float32) predicts b's class; so does treesmith now (before: t <= t went left, a's class)."""
    a, b, t = _adjacent_float32_pair()
    X = np.array([[a], [b]], dtype=np.float32)
    y = np.array([0, 1])
    ours = treesmith.DecisionTreeClassifier(max_bins=None).fit(X, y)
    theirs = SklearnClassifier(random_state=0).fit(X, y)
    assert ours.tree_.threshold[0] == theirs.tree_.threshold[0] == t
    probe = np.array([[t]])
    assert ours.tree_.predict_class(probe, ours.classes_)[0] == 0  # the float64 walk
    assert ours.predict(probe)[0] == theirs.predict(probe)[0] == 1
    np.testing.assert_array_equal(ours.predict_proba(probe), theirs.predict_proba(probe))
    np.testing.assert_array_equal(ours.predict(X.astype(np.float64)), theirs.predict(X))


def test_scikit_learn_on_the_same_float32_data_agrees_on_float64_input():
    """An exact tree (max_bins=None) on float32 data is scikit-learn's tree: on the float64
    round trip of the data both predict what they predict on the float32 data."""
    X32, X64, y = _float32_data(1, 600)
    ours = treesmith.DecisionTreeClassifier(max_bins=None, random_state=0).fit(X32, y)
    theirs = SklearnClassifier(random_state=0).fit(X32, y)
    np.testing.assert_array_equal(ours.predict_proba(X64), theirs.predict_proba(X64))
    np.testing.assert_array_equal(ours.predict_proba(X64), ours.predict_proba(X32))
    converted = ours.to_sklearn()
    np.testing.assert_array_equal(converted.predict(X64), ours.predict(X64))


def test_a_c45_threshold_is_a_training_value():
    """C4.5 cuts at a training value and sends a value left when it is below the cut or less
    than 1e-6 above it (J48's tolerance). float32(1000.1) = 1000.0999756 is 2.4e-5 below 1000.1,
    so the float64 1000.1 (the same number read from text) went right of the cut; now it goes
    left with its float32 twin, in predict, apply and predict_lazy."""
    X = np.array([[999.9], [1000.0], [1000.1], [1000.2], [1000.3], [1000.4]], dtype=np.float32)
    y = np.array([0, 0, 0, 1, 1, 1])
    model = treesmith.C45Classifier().fit(X, y)
    assert model.numeric_precision_ == "float32"
    assert model.c45_tree_.threshold[0] == float(np.float32(1000.1)) < 1000.1 - 1e-6
    probe = np.array([[1000.1]])
    assert model.c45_tree_.predict_proba(probe)[0].argmax() == 1  # the float64 walk
    assert model.predict(probe)[0] == model.predict(X[2:3])[0] == 0
    assert model.apply(probe)[0] == model.apply(X[2:3])[0]
    lazy = treesmith.predict_lazy(model, lambda row, j: 1000.1, 1)
    assert lazy.predictions[0] == 0


_FAMILIES = {
    "tree": lambda: treesmith.DecisionTreeClassifier(random_state=0),
    "regressor": lambda: treesmith.DecisionTreeRegressor(random_state=0),
    "extra_tree": lambda: treesmith.ExtraTreeClassifier(random_state=0),
    "extra_tree_regressor": lambda: treesmith.ExtraTreeRegressor(random_state=0),
    "forest": lambda: treesmith.RandomForestClassifier(n_estimators=5, random_state=0),
    "forest_regressor": lambda: treesmith.RandomForestRegressor(n_estimators=5, random_state=0),
    "extra_trees": lambda: treesmith.ExtraTreesClassifier(n_estimators=5, random_state=0),
    "extra_trees_regressor": lambda: treesmith.ExtraTreesRegressor(n_estimators=5,
                                                                   random_state=0),
    "greedy": lambda: treesmith.ensemble.GreedyTreeClassifier(random_state=0),
    "budget": lambda: treesmith.BudgetForestClassifier(alphas=[0], max_estimators=3,
                                                       random_state=0),
    "bayes_map": lambda: treesmith.BayesianTreeClassifier(n_iter=200, n_chains=1,
                                                          random_state=0),
    "bayes_posterior": lambda: treesmith.BayesianTreeRegressor(
        n_iter=200, n_chains=1, averaging="posterior", random_state=0),
    "c45": lambda: treesmith.C45Classifier(),
    "pruned": lambda: treesmith.DecisionTreeClassifier(pruning="rep", random_state=0),
}


def _prediction_methods(model):
    return [name for name in ("predict", "predict_proba", "apply") if hasattr(model, name)]


@pytest.mark.parametrize("family", list(_FAMILIES))
def test_every_family_routes_float64_input_as_its_float32_twin(family, data):
    X32, X64, y = data
    model = _FAMILIES[family]().fit(X32, y.astype(float) if "regressor" in family
                                    or family == "bayes_posterior" else y)
    assert model.numeric_precision_ == "float32"
    for member in getattr(model, "estimators_", []):
        assert member.numeric_precision_ == "float32"
    for name in _prediction_methods(model):
        np.testing.assert_array_equal(getattr(model, name)(X64), getattr(model, name)(X32),
                                      err_msg=name)
    float64_model = _FAMILIES[family]().fit(X64, y.astype(float) if "regressor" in family
                                            or family == "bayes_posterior" else y)
    assert float64_model.numeric_precision_ == "float64"


@pytest.mark.parametrize("family", ["tree", "forest", "c45"])
def test_predict_lazy_rounds_the_values_it_acquires(family, data):
    X32, X64, y = data
    model = _FAMILIES[family]().fit(X32, y)
    lazy = treesmith.predict_lazy(model, lambda row, j: X64[row, j], X64.shape[0])
    np.testing.assert_array_equal(lazy.predictions, model.predict(X32))


def test_a_frame_of_float32_numeric_columns_and_a_categorical_one(data):
    """The codes of a categorical column make the fitted matrix float64; the numeric columns
    were float32, and that is the precision recorded. Categories are untouched."""
    X32, X64, y = data
    city = np.array(["a", "b", "c"])[np.arange(X32.shape[0]) % 3]
    frame32 = pd.DataFrame({"x0": X32[:, 0], "x1": X32[:, 1], "city": city})
    frame64 = pd.DataFrame({"x0": X64[:, 0], "x1": X64[:, 1], "city": city})
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(frame32, y)
    assert model.numeric_precision_ == "float32"
    np.testing.assert_array_equal(model.predict_proba(frame64), model.predict_proba(frame32))
    mixed = frame32.assign(x1=X64[:, 1])  # a float64 numeric column: fitted as float64
    assert treesmith.DecisionTreeClassifier().fit(mixed, y).numeric_precision_ == "float64"


def test_a_float64_fit_is_walked_without_a_copy(data):
    X32, X64, y = data
    assert rounded_to(X64, "float64") is X64
    assert rounded_to(X32, "float32") is X32
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X64, y)
    assert model.numeric_precision_ == "float64"
    np.testing.assert_array_equal(model.apply(X64), model.tree_.apply(X64))


def test_values_beyond_float32_go_right_of_every_threshold_and_infinity_is_refused(data):
    """1e300 does not round to infinity (which predict refuses) but to the largest float32:
    right of every threshold, as in float64. A true infinity is still refused, named."""
    X32, _, y = data
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X32, y)
    big = np.array([[1e300, -1e300], [3.5e38, 0.0]])
    np.testing.assert_array_equal(model.apply(big), model.tree_.apply(big))
    with pytest.raises(ValueError, match="'x1' .*infinite"):
        model.predict(np.array([[0.0, np.inf]]))


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True, width=64))
def test_rounding_is_float32_rounding_with_saturation(value):
    rounded = rounded_values(np.array([value]), "float32")[0]
    limit = float(np.finfo(np.float32).max)
    if np.isnan(value):
        assert np.isnan(rounded)
    elif np.isinf(value) or abs(value) <= limit:
        with np.errstate(over="ignore"):
            expected = float(np.float32(value))
        assert rounded == expected or (abs(value) > limit and abs(rounded) == limit)
    else:
        assert rounded == np.copysign(limit, value)


@pytest.mark.parametrize("family", ["tree", "forest", "budget", "c45"])
def test_the_precision_round_trips_through_a_model_file(family, data):
    X32, X64, y = data
    model = _FAMILIES[family]().fit(X32, y)
    document = io.to_dict(model)
    assert document["schema_version"] == io.SCHEMA_VERSION == 5
    assert document["attributes"]["numeric_precision_"] == "float32"
    loaded, _ = io.loads(json.dumps(document, allow_nan=False))
    assert loaded.numeric_precision_ == "float32"
    for member in getattr(loaded, "estimators_", []):
        assert member.numeric_precision_ == "float32"
    np.testing.assert_array_equal(loaded.predict(X64), model.predict(X32))


@pytest.mark.parametrize("family", ["tree", "forest"])
def test_a_schema_4_file_loads_as_float64_as_it_predicted(family, data):
    X32, X64, y = data
    model = _FAMILIES[family]().fit(X32, y)
    document = json.loads(json.dumps(io.to_dict(model), allow_nan=False))
    document["schema_version"] = 4
    for part in [document] + document["attributes"].get("estimators_", []):
        part["attributes"].pop("numeric_precision_")
    old, _ = io.loads(json.dumps(document))
    assert old.numeric_precision_ == UNRECORDED_PRECISION == "float64"
    for member in getattr(old, "estimators_", []):
        assert member.numeric_precision_ == "float64"
    if family == "tree":  # what schema 4 predicted: the float64 walk
        np.testing.assert_array_equal(old.apply(X64), model.tree_.apply(X64))
    document["attributes"]["numeric_precision_"] = "float32"
    with pytest.raises(io.ModelFileError, match="not an attribute of schema version 4"):
        io.loads(json.dumps(document))


def test_a_model_file_with_a_bad_precision_is_refused(data):
    X32, _, y = data
    forest = _FAMILIES["forest"]().fit(X32, y)
    document = json.loads(json.dumps(io.to_dict(forest), allow_nan=False))
    document["attributes"]["numeric_precision_"] = "float16"
    with pytest.raises(io.ModelFileError, match="numeric_precision_ must be one of"):
        io.loads(json.dumps(document))
    document["attributes"]["numeric_precision_"] = "float32"
    document["attributes"]["estimators_"][0]["attributes"]["numeric_precision_"] = "float64"
    with pytest.raises(io.ModelFileError, match="numeric_precision_ differs"):
        io.loads(json.dumps(document))


def test_a_pickle_without_the_attribute_predicts_as_before(data):
    """A model pickled before the attribute existed (simulated) walks X as it is."""
    X32, X64, y = data
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X32, y)
    del model.numeric_precision_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(model.apply(X64), model.tree_.apply(X64))


def test_a_warm_start_on_another_precision_walks_every_tree_in_float64(data):
    """The kept trees' thresholds are float32 values, the new ones' float64 values: no single
    rounding suits both, so the forest (and every tree) compares in float64, as before."""
    X32, X64, y = data
    forest = treesmith.RandomForestClassifier(n_estimators=2, warm_start=True, random_state=0)
    forest.fit(X32, y)
    assert forest.numeric_precision_ == "float32"
    forest.set_params(n_estimators=4).fit(X32, y)
    assert forest.numeric_precision_ == "float32"
    forest.set_params(n_estimators=6).fit(X64, y)
    assert forest.numeric_precision_ == "float64"
    assert [m.numeric_precision_ for m in forest.estimators_] == ["float64"] * 6
    loaded, _ = io.loads(json.dumps(io.to_dict(forest), allow_nan=False))
    np.testing.assert_array_equal(loaded.predict_proba(X64), forest.predict_proba(X64))
