"""treesmith.io: JSON model files round-trip exactly and reject anything malformed or hostile."""

import io as std_io
import json
import os
import pickle

import joblib
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import treesmith
from treesmith import io
from treesmith.io import SCHEMA_VERSION
from treesmith.criteria import LossMatrixGini, Tsallis
from treesmith.io import ModelFileError

# TREESMITH_FUZZ_EXAMPLES raises the budget for a longer fuzzing session (1500 ran clean).
FUZZ = settings(max_examples=int(os.environ.get("TREESMITH_FUZZ_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


def _round_trip(estimator, metadata=None):
    text = json.dumps(io.to_dict(estimator, metadata), allow_nan=False)
    return io.loads(text)


def _assert_same_predictions(a, b, X):
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.predict(X).dtype == b.predict(X).dtype
    if hasattr(a, "predict_proba"):
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.apply(X), b.apply(X))


def _assert_same_tree(a, b):
    from treesmith.tree import NODE_ARRAYS

    for name in NODE_ARRAYS:
        left, right = getattr(a.tree_, name), getattr(b.tree_, name)
        assert left.dtype == right.dtype, name
        np.testing.assert_array_equal(left, right, err_msg=name)


@pytest.fixture(scope="module")
def wine():
    X, y = treesmith.load_dataset("sklearn:wine")
    return X, y


@pytest.fixture(scope="module")
def fitted_wine(wine):
    X, y = wine
    return treesmith.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)


def test_classifier_with_string_classes_and_feature_names(wine, fitted_wine):
    X, _ = wine
    loaded, metadata = _round_trip(fitted_wine, {"dataset": "sklearn:wine", "target": "target"})
    assert metadata == {"dataset": "sklearn:wine", "target": "target"}
    _assert_same_predictions(fitted_wine, loaded, X)
    _assert_same_tree(fitted_wine, loaded)
    assert loaded.classes_.dtype == fitted_wine.classes_.dtype
    np.testing.assert_array_equal(loaded.feature_names_in_, fitted_wine.feature_names_in_)
    assert loaded.get_params() == fitted_wine.get_params()
    assert loaded.n_features_in_ == 13 and loaded.get_depth() == fitted_wine.get_depth()


@pytest.mark.parametrize("labels", [
    np.array([3, 1, 3, 7, 1, 7, 3, 1]),                        # non-contiguous ints
    np.array(["b", "a", "b", "c", "a", "c", "b", "a"]),        # numpy unicode strings
    np.array([True, False, True, True, False, False, True, False]),
    np.array([0.0, 2.0, 0.0, 2.0, 0.0, 2.0, 0.0, 2.0]),        # float labels
])
def test_class_dtypes_survive(labels):
    X = np.arange(16, dtype=np.float64).reshape(8, 2)
    model = treesmith.DecisionTreeClassifier().fit(X, labels)
    loaded, _ = _round_trip(model)
    assert loaded.classes_.dtype == model.classes_.dtype
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    _assert_same_predictions(model, loaded, X)


def test_regressor_and_parameter_objects(wine):
    X, y = treesmith.load_dataset("sklearn:diabetes")
    regressor = treesmith.DecisionTreeRegressor(max_depth=5, criterion="poisson").fit(X, y)
    loaded, _ = _round_trip(regressor)
    _assert_same_predictions(regressor, loaded, X)
    X, y = wine
    matrix = np.array([[0, 1, 2], [1, 0, 1], [5, 1, 0.0]])
    for criterion in (Tsallis(alpha=2.5, beta=2), LossMatrixGini(matrix)):
        model = treesmith.DecisionTreeClassifier(
            criterion=criterion, class_weight={"class_0": 2.0, "class_1": 1, "class_2": 1},
            max_leaf_nodes=6).fit(X, y)
        document = io.to_dict(model)
        assert document["params"]["criterion"]["__type__"] == "criterion"
        assert document["params"]["criterion"]["name"] in ("tsallis", "loss_matrix_gini")
        loaded, _ = _round_trip(model)
        assert loaded.get_params()["criterion"] == criterion
        assert loaded.get_params()["class_weight"] == {"class_0": 2.0, "class_1": 1,
                                                       "class_2": 1}
        _assert_same_predictions(model, loaded, X)


def test_random_state_objects_keep_their_stream(wine):
    X, y = wine
    model = treesmith.DecisionTreeClassifier(max_features=0.5,
                                             random_state=np.random.RandomState(7)).fit(X, y)
    loaded, _ = _round_trip(model)
    original, restored = model.random_state.get_state(), loaded.random_state.get_state()
    np.testing.assert_array_equal(original[1], restored[1])
    assert original[2:] == restored[2:]
    _assert_same_predictions(model, loaded, X)


def test_missing_values_route_the_same_way_after_loading():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    model = treesmith.DecisionTreeClassifier(max_depth=4).fit(X, y)
    loaded, _ = _round_trip(model)
    _assert_same_predictions(model, loaded, X)


def test_save_and_load_files(tmp_path, wine, fitted_wine):
    X, _ = wine
    path = tmp_path / "model.json"
    treesmith.save(fitted_wine, path, metadata={"note": "wine"})
    text = path.read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text  # strict JSON
    document = json.loads(text)
    assert document["format"] == "treesmith-model" and document["schema_version"] == SCHEMA_VERSION
    assert document["estimator"] == "DecisionTreeClassifier"
    _assert_same_predictions(fitted_wine, treesmith.load(path), X)
    _, metadata = io.load(path, return_metadata=True)
    assert metadata == {"note": "wine"}


def test_pickle_and_joblib_keep_working(wine, fitted_wine):
    X, _ = wine
    _assert_same_predictions(fitted_wine, pickle.loads(pickle.dumps(fitted_wine)), X)
    buffer = std_io.BytesIO()
    joblib.dump(fitted_wine, buffer)
    buffer.seek(0)
    _assert_same_predictions(fitted_wine, joblib.load(buffer), X)


def test_what_cannot_be_saved_says_why():
    with pytest.raises(ValueError, match="not fitted"):
        io.to_dict(treesmith.DecisionTreeClassifier())
    with pytest.raises(ValueError, match="treesmith's"):
        from sklearn.tree import DecisionTreeClassifier

        io.to_dict(DecisionTreeClassifier().fit([[0], [1]], [0, 1]))
    custom = treesmith.criteria.Custom(lambda p: 1.0 - np.sum(p * p))
    model = treesmith.DecisionTreeClassifier(criterion=custom).fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="use pickle or joblib"):
        io.to_dict(model)
    model = treesmith.DecisionTreeClassifier().fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="metadata"):
        io.to_dict(model, metadata={"bad": object()})


# -- property: random trees round-trip exactly --------------------------------------------------
@st.composite
def grown_trees(draw):
    n_samples = draw(st.integers(4, 60))
    n_features = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features)) * draw(st.sampled_from([1e-3, 1.0, 1e4]))
    if draw(st.booleans()):
        X[rng.random(X.shape) < 0.15] = np.nan
    n_classes = draw(st.integers(2, 4))
    codes = rng.integers(0, n_classes, size=n_samples)
    codes[:n_classes] = np.arange(n_classes)
    kind = draw(st.sampled_from(["int", "str", "regression"]))
    if kind == "regression":
        model = treesmith.DecisionTreeRegressor(max_depth=draw(st.integers(1, 6)))
        y = rng.normal(size=n_samples)
    else:
        model = treesmith.DecisionTreeClassifier(
            max_depth=draw(st.integers(1, 6)),
            criterion=draw(st.sampled_from(["gini", "entropy", "misclassification"])))
        y = np.array(["no", "yes", "maybe", "other"], dtype=object)[codes] if kind == "str" \
            else codes * 5 - 3
    if draw(st.booleans()):
        X = pd.DataFrame(X, columns=[f"f {j}" for j in range(n_features)])
    return model.fit(X, y), X


@FUZZ
@given(grown_trees())
def test_json_round_trip_of_random_trees(case):
    model, X = case
    loaded, _ = _round_trip(model)
    _assert_same_tree(model, loaded)
    _assert_same_predictions(model, loaded, X)
    assert loaded.get_params() == model.get_params()


# -- the loader refuses everything that is not a valid model ------------------------------------
@pytest.fixture(scope="module")
def valid_text():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0], [4.0, 0.5], [5.0, 3.0]])
    model = treesmith.DecisionTreeClassifier().fit(X, ["a", "b", "a", "b", "a", "b"])
    return json.dumps(io.to_dict(model))


def _loads_or_model_error(data):
    """The loader either returns a checked model or raises ModelFileError; nothing else."""
    try:
        estimator, metadata = io.loads(data)
    except ModelFileError:
        return None
    assert isinstance(metadata, dict)
    estimator.tree_.validate()
    estimator.predict(np.zeros((2, estimator.n_features_in_)))
    return estimator


@FUZZ
@given(st.data())
def test_truncated_files_are_refused(valid_text, data):
    cut = data.draw(st.integers(0, len(valid_text) - 1))
    with pytest.raises(ModelFileError):
        io.loads(valid_text[:cut])


@FUZZ
@given(st.data())
def test_corrupted_bytes_give_a_model_error_or_a_valid_model(valid_text, data):
    raw = bytearray(valid_text.encode())
    for _ in range(data.draw(st.integers(1, 4))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    _loads_or_model_error(bytes(raw))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


@FUZZ
@given(st.data())
def test_any_value_replaced_anywhere_gives_a_model_error_or_a_valid_model(valid_text, data):
    document = json.loads(valid_text)
    paths = [path for path in _paths(document) if path]
    path = data.draw(st.sampled_from(paths))
    replacement = data.draw(json_values | st.sampled_from(
        [{"__type__": "ndarray", "dtype": "<f8", "shape": [10**12], "data": []},
         {"__type__": "object", "class": "os.system", "params": {}, "state": {}},
         {"__type__": "criterion", "name": "__import__", "params": {}},
         {"__type__": "tuple", "items": [[[[]]]]}, -1, 10**40, "nan"]))
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = replacement
    _loads_or_model_error(json.dumps(document))


@FUZZ
@given(json_values)
def test_arbitrary_json_is_refused(value):
    with pytest.raises(ModelFileError):
        io.loads(json.dumps(value))


def _edit(valid_text, edit):
    document = json.loads(valid_text)
    edit(document)
    return json.dumps(document)


def _tree(document):
    return document["attributes"]["tree_"]["arrays"]


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(schema_version=SCHEMA_VERSION + 1), "newer than this treesmith reads"),
    (lambda d: d.update(format="pickle"), "not a treesmith model file"),
    (lambda d: d.update(estimator="Pipeline"), "unknown estimator 'Pipeline'"),
    (lambda d: d.update(extra=1), "expected the keys"),
    (lambda d: d["params"].update(depth_limit=3), "cannot build DecisionTreeClassifier"),
    (lambda d: d["params"].update(criterion={"__type__": "criterion", "name": "os.system",
                                             "params": {}}), "unknown criterion"),
    (lambda d: d["attributes"].update(x_={"__type__": "object", "class": "subprocess.Popen",
                                          "params": {}, "state": {}}), "may use"),
    (lambda d: d["attributes"].update(__class__=1), "not a fitted attribute"),
    (lambda d: _tree(d)["children_left"]["data"].__setitem__(0, 0), "after their parents"),
    (lambda d: _tree(d)["feature"]["data"].__setitem__(0, 7), "outside"),
    (lambda d: _tree(d)["depth"]["data"].__setitem__(0, 3), "depths"),
    (lambda d: _tree(d)["value"]["data"].__setitem__(0, -0.5), "proportions"),
    (lambda d: _tree(d)["threshold"]["data"].__setitem__(0, None), "NaN"),
    (lambda d: _tree(d)["threshold"].update(dtype="<i8"), "integer array"),
    (lambda d: _tree(d)["impurity"].update(dtype="<i8", data=[0] * 9), "dtype kind"),
    (lambda d: _tree(d)["value"].update(shape=[10**12, 2]), "list of"),
    (lambda d: _tree(d)["missing_go_left"]["data"].__setitem__(0, 1), "true/false"),
    (lambda d: d["attributes"]["classes_"].update(data=["a", "a"]), "duplicates"),
    (lambda d: d["attributes"].update(n_features_in_=3), "n_features_in_"),
    (lambda d: d["attributes"].pop("tree_"), "tree_ is missing"),
])
def test_hostile_or_inconsistent_files_are_refused(valid_text, edit, message):
    with pytest.raises(ModelFileError, match=message):
        io.loads(_edit(valid_text, edit))


def test_non_json_payloads_are_refused(valid_text, fitted_wine, tmp_path):
    for payload in (pickle.dumps(fitted_wine), b"\xff\xfe\x00", "[" * 100_000 + "]" * 100_000,
                    valid_text.replace("0.5", "NaN", 1), '{"a": 1, "a": 2}', ""):
        with pytest.raises(ModelFileError):
            io.loads(payload)
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(fitted_wine))
    with pytest.raises(ModelFileError, match="model.pkl"):
        treesmith.load(path)
    with pytest.raises(FileNotFoundError):
        treesmith.load(tmp_path / "absent.json")


def test_to_dict_is_deterministic_and_leaves_the_estimator_untouched(fitted_wine):
    keys = set(fitted_wine.__dict__)
    first = io.to_dict(fitted_wine)
    assert set(fitted_wine.__dict__) == keys
    assert json.dumps(first) == json.dumps(io.to_dict(fitted_wine))


def test_non_string_class_of_a_stored_object_is_a_model_error(tmp_path):
    """Found by the loader fuzzer: a JSON object where a class name belongs crashed the loader
    with TypeError (unhashable dict) instead of ModelFileError."""
    from treesmith.io import ModelFileError

    X = np.array([[0, 0], [1, 0.5], [2, 1], [3, 2], [4, 3], [5, 0]], float)
    model = treesmith.DecisionTreeClassifier().fit(X, np.array(list("ababbb")))
    data = json.loads(json.dumps(treesmith.to_dict(model)))
    data["attributes"]["bin_mapper_"]["class"] = {"__type__": "ndarray", "dtype": "<f8",
                                                  "shape": [10**12], "data": []}
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelFileError, match="bin_mapper_"):
        treesmith.load(path)


# -- Bayesian CART ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bayes_models():
    from treesmith.bayes import BayesianTreeClassifier, BayesianTreeRegressor

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    X.iloc[::7, 1] = np.nan
    y_class = np.where(X["a"] > 0.2, "yes", "no")
    y_reg = 2.0 * X["a"].to_numpy() + 0.1 * rng.normal(size=120)
    settings = dict(n_iter=300, n_chains=2, random_state=0)
    classifier = BayesianTreeClassifier(a=[1.0, 2.0], **settings).fit(X, y_class)
    regressor = BayesianTreeRegressor(**settings).fit(X, y_reg)
    posterior = BayesianTreeClassifier(averaging="posterior", **settings).fit(X, y_class)
    return X, classifier, regressor, posterior


def test_bayesian_trees_round_trip_with_identical_predictions(bayes_models, tmp_path):
    X, classifier, regressor, _ = bayes_models
    for model in (classifier, regressor):
        path = tmp_path / f"{type(model).__name__}.json"
        io.save(model, path)
        loaded = io.load(path)
        assert type(loaded) is type(model)
        assert loaded.get_params() == model.get_params()
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        if hasattr(model, "predict_proba"):
            np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
            np.testing.assert_array_equal(loaded.dirichlet_, model.dirichlet_)
        else:
            assert (loaded.mu_bar_, loaded.lam_) == (model.mu_bar_, model.lam_)
        np.testing.assert_array_equal(loaded.log_posterior_trace_, model.log_posterior_trace_)
        assert loaded.map_log_posterior_ == model.map_log_posterior_
        assert loaded.n_proposals_ == model.n_proposals_


def test_bayesian_posterior_sample_is_not_saved(bayes_models):
    X, classifier, _, posterior = bayes_models
    with pytest.raises(ValueError, match=r"store the MAP tree only, not the posterior sample"):
        io.to_dict(posterior)
    # a hand-edited file that asks for posterior averaging is refused on load
    model = io.to_dict(classifier)
    model["params"]["averaging"] = "posterior"
    with pytest.raises(ModelFileError, match=r"averaging must be 'map'"):
        io.from_dict(model)


@pytest.mark.parametrize("edit, message", [
    (lambda m: m["attributes"].update(dirichlet_=io.to_dict(
        treesmith.DecisionTreeClassifier().fit([[0], [1]], [0, 1]))["attributes"]["classes_"]),
     r"dirichlet_ must be the Dirichlet concentration"),
    (lambda m: m["params"].update(a=[1.0, 1.0]), r"dirichlet_ must be the Dirichlet"),
    (lambda m: m["params"].update(a=-1.0), r"a must be a float > 0"),
    (lambda m: m["params"].update(sigma=1.5), r"sigma must be a float"),
    (lambda m: m["params"].update(n_chains=1), r"map_chain_|log_posterior_trace_"),
    (lambda m: m["attributes"].update(map_chain_=-1), r"map_chain_ must be an int"),
    (lambda m: m["attributes"].update(burn_in_=10**6), r"burn_in_ must be an int"),
    (lambda m: m["attributes"].update(n_proposals_={"__type__": "dict", "items": []}),
     r"n_proposals_ must be a dict keyed by the moves"),
    (lambda m: m["attributes"].pop("log_likelihood_trace_"), r"log_likelihood_trace_ must be"),
])
def test_bayesian_classifier_file_is_validated(bayes_models, edit, message):
    model = io.to_dict(bayes_models[1])
    edit(model)
    with pytest.raises(ModelFileError, match=message):
        io.from_dict(model)


@pytest.mark.parametrize("edit, message", [
    (lambda m: m["attributes"].update(mu_bar_={"__type__": "float", "value": "nan"}),
     r"mu_bar_ must be a finite float"),
    (lambda m: m["params"].update(mu_bar=3.0), r"mu_bar_ must be a finite float \(equal"),
    (lambda m: m["attributes"].update(lam_=-1.0), r"lam_ must be a finite float >= 0"),
    (lambda m: m["params"].update(nu=0), r"nu must be a float > 0"),
])
def test_bayesian_regressor_file_is_validated(bayes_models, edit, message):
    model = io.to_dict(bayes_models[2])
    edit(model)
    with pytest.raises(ModelFileError, match=message):
        io.from_dict(model)


# -- forests, BudgetRF, GreedyTree and C4.5 ------------------------------------------------------
@pytest.fixture(scope="module")
def ensemble_models(wine):
    from treesmith.c45 import C45Classifier
    from treesmith.ensemble import (
        BudgetForestClassifier,
        GreedyTreeClassifier,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from treesmith.rules import ThresholdPairs

    X, y = wine
    X = X.copy()
    X.iloc[::7, 3] = np.nan
    nominal = X.assign(band=np.where(X.iloc[:, 0] > 13, "high", "low"))
    costs = np.arange(1.0, X.shape[1] + 1)
    return {
        "RandomForestClassifier": (RandomForestClassifier(
            6, max_depth=5, random_state=0, feature_costs=costs).fit(X, y), X),
        "RandomForestRegressor": (RandomForestRegressor(
            4, max_depth=4, random_state=0).fit(X, np.arange(len(y), dtype=float)), X),
        "BudgetForestClassifier": (BudgetForestClassifier(
            alphas=[0, 4], max_estimators=4, random_state=0).fit(X, y), X),
        "GreedyTreeClassifier": (GreedyTreeClassifier(
            ThresholdPairs(2), feature_costs=costs, random_state=0).fit(X, y), X),
        "C45Classifier": (C45Classifier(categorical_features=["band"]).fit(nominal, y), nominal),
    }


@pytest.mark.parametrize("name", ["RandomForestClassifier", "RandomForestRegressor",
                                  "BudgetForestClassifier", "GreedyTreeClassifier",
                                  "C45Classifier"])
def test_every_estimator_round_trips_with_identical_predictions(ensemble_models, name,
                                                                 tmp_path):
    model, X = ensemble_models[name]
    treesmith.save(model, tmp_path / "model.json")
    loaded = treesmith.load(tmp_path / "model.json")
    assert type(loaded) is type(model)
    assert repr(loaded.get_params(deep=False)) == repr(model.get_params(deep=False))
    _assert_same_predictions(model, loaded, X)
    if hasattr(model, "estimators_"):
        assert len(loaded.estimators_) == len(model.estimators_)
        for a, b in zip(model.estimators_, loaded.estimators_):
            _assert_same_tree(a, b)
            assert b.bin_mapper_ is loaded.bin_mapper_  # shared, written once
        assert (tmp_path / "model.json").read_text().count('"BinMapper"') == 1
        np.testing.assert_array_equal(treesmith.expected_cost(model, X),
                                      treesmith.expected_cost(loaded, X))
    else:
        _assert_same_tree(model, loaded)
    if name == "BudgetForestClassifier":
        assert type(loaded.budget_curve_) is type(model.budget_curve_)
        assert loaded.alpha_ == model.alpha_ and loaded.impurity_ == model.impurity_


def _forest_text(ensemble_models, name):
    return json.dumps(io.to_dict(ensemble_models[name][0]), allow_nan=False)


def _edit_member(ensemble_models, name, edit):
    model = json.loads(_forest_text(ensemble_models, name))
    edit(model)
    return json.dumps(model)


@pytest.mark.parametrize("edit, message", [
    (lambda m: m["attributes"].__setitem__("estimators_", []), "non-empty list"),
    (lambda m: m["attributes"]["estimators_"][0].__setitem__("estimator",
                                                            "DecisionTreeRegressor"),
     "cannot rebuild DecisionTreeRegressor"),
    (lambda m: m["attributes"]["estimators_"][0].update(
        {"estimator": "C45Classifier", "params": {}}), "'tree_' cannot be set"),
    (lambda m: m["attributes"]["estimators_"][0]["attributes"].pop("tree_"), "tree_"),
    (lambda m: m["attributes"]["estimators_"][1]["attributes"].__setitem__(
        "n_features_in_", 3), "n_features_in_"),
    (lambda m: m["attributes"]["estimators_"][0]["attributes"].__setitem__(
        "bin_mapper_", None), "fitted attribute name"),
    (lambda m: m["attributes"]["estimators_"][0].__setitem__("estimator", "os.system"),
     "unknown estimator"),
])
def test_hostile_forest_files_are_refused(ensemble_models, edit, message):
    with pytest.raises(ModelFileError, match=message):
        io.loads(_edit_member(ensemble_models, "RandomForestClassifier", edit))


def test_a_member_of_another_ensemble_is_refused(ensemble_models):
    budget_member = json.loads(_forest_text(ensemble_models, "BudgetForestClassifier"))[
        "attributes"]["estimators_"][0]

    def swap(model):
        model["attributes"]["estimators_"][0] = budget_member

    with pytest.raises(ModelFileError, match="must be a fitted DecisionTreeClassifier"):
        io.loads(_edit_member(ensemble_models, "RandomForestClassifier", swap))


def _c45_arrays(model):
    return model["attributes"]["c45_tree_"]["arrays"]


@pytest.mark.parametrize("edit, message", [
    (lambda m: _c45_arrays(m)["children"]["data"].__setitem__(0, 0), "after their parents"),
    (lambda m: _c45_arrays(m)["attribute"]["data"].__setitem__(0, 99), "outside"),
    (lambda m: _c45_arrays(m)["child_start"]["data"].__setitem__(0, 10**6), "outside"),
    (lambda m: _c45_arrays(m)["kind"]["data"].__setitem__(0, 7), "kind"),
    (lambda m: m["attributes"].__setitem__("categories_", None), "categories_"),
])
def test_hostile_c45_files_are_refused(ensemble_models, edit, message):
    with pytest.raises(ModelFileError, match=message):
        io.loads(_edit_member(ensemble_models, "C45Classifier", edit))


@FUZZ
@given(st.data())
def test_corrupted_forest_and_c45_files_give_a_model_error_or_a_valid_model(ensemble_models,
                                                                            data):
    name = data.draw(st.sampled_from(["RandomForestClassifier", "C45Classifier"]))
    raw = bytearray(_forest_text(ensemble_models, name).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    try:
        estimator, _ = io.loads(bytes(raw))
    except ModelFileError:
        return
    X = ensemble_models[name][1]
    try:
        estimator.predict(X)
    except ValueError as error:
        # a byte changed in C4.5's only copy of a column name gives a valid model of another
        # column: predicting the original frame is then refused by name
        if "feature names" not in str(error).lower():
            raise
        assert name == "C45Classifier"  # a forest's copies are compared when it loads


def test_a_forest_whose_feature_names_disagree_with_its_members_is_refused(ensemble_models):
    """One corrupted byte in the forest's copy of a feature name gave a 'valid' model whose
    predict raised scikit-learn's feature-name ValueError (hypothesis found it)."""
    text = _forest_text(ensemble_models, "RandomForestClassifier")
    name = str(ensemble_models["RandomForestClassifier"][1].columns[11])
    first = text.index(name)  # the forest's own feature_names_in_ come before its members'
    corrupted = text[:first] + " " + text[first + 1:]
    with pytest.raises(ModelFileError, match="feature_names_in_ differs from the ensemble's"):
        io.loads(corrupted.encode())


@pytest.mark.parametrize("name", ["ExtraTreesClassifier", "BudgetForestClassifier"])
@pytest.mark.parametrize("edit", ["reversed", "truncated", "null"])
def test_a_forest_whose_categories_disagree_with_its_members_is_refused(name, edit):
    """The ensemble encodes a frame with its own copy of the categories and its members' trees
    read the codes: a file whose copy was reversed or cut short loaded and predicted other
    classes without a word; one whose copy was null loaded and then refused the text column
    at predict as 'non-numeric'."""
    import pandas as pd

    from treesmith import ensemble

    rng = np.random.default_rng(0)
    codes = rng.integers(0, 5, 150)
    X = pd.DataFrame({"c": pd.Categorical.from_codes(codes, list("abcde")),
                      "x": rng.normal(size=150)})
    y = np.isin(codes, [0, 3]).astype(int)
    model = getattr(ensemble, name)(random_state=0, **(
        {"n_estimators": 3} if name == "ExtraTreesClassifier" else {"max_estimators": 3}))
    model.fit(X, y)
    text = json.loads(json.dumps(io.to_dict(model), allow_nan=False))
    column = text["attributes"]["categories_"][0]
    if edit == "reversed":
        column["data"] = column["data"][::-1]
    elif edit == "truncated":
        column["data"], column["shape"] = column["data"][:3], [3]
    else:
        text["attributes"]["categories_"] = None
    with pytest.raises(ModelFileError, match="categories_ differ from the ensemble's"):
        io.loads(json.dumps(text))


def test_a_categorical_column_with_no_category_saves_and_loads():
    """A text column empty in training (every cell missing) is categorical with no category;
    the model fitted and predicted, but its file was refused at load ("an array of 1 to 255
    categories")."""
    import pandas as pd

    from treesmith.ensemble import RandomForestClassifier

    X = pd.DataFrame({"c": pd.Series([None] * 20, dtype=object), "x": np.arange(20.0)})
    y = np.arange(20) % 3 == 0
    for model in (treesmith.DecisionTreeClassifier(), RandomForestClassifier(3, random_state=0)):
        model.fit(X, y)
        assert model.categories_[0].shape == (0,)
        loaded, _ = _round_trip(model)
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        assert loaded.categories_[0].shape == (0,) and loaded.is_categorical_[0]


def _float32_categories_model(make):
    """``make()`` fitted on a float32 categorical column of fractions (float32 cannot hold
    0.1 exactly) and a numeric one; the frame, and the frame of float64 values it was made
    from (0.1, not the float32 0.1 widened)."""
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 4, 200)
    values = np.array([0.1, 0.2, 0.3, 1.7])[codes]
    values[::13] = np.nan
    wide = pd.DataFrame({"c": values, "x": rng.normal(size=200)})
    X = wide.astype({"c": np.float32})
    y = (codes % 2 == 0).astype(int)
    return make().fit(X, y), X, wide


@pytest.mark.parametrize("make", [
    lambda: treesmith.DecisionTreeClassifier(categorical_features=["c"], random_state=0),
    lambda: treesmith.ExtraTreesClassifier(n_estimators=3, categorical_features=["c"],
                                           random_state=0),
], ids=["tree", "extra_trees"])
def test_the_fitted_precision_of_float_categories_round_trips(make):
    """category_precision_ is saved (schema 4) and read back, for an ensemble's members too:
    the loaded model reads the float64 0.1 as the float32-fitted category."""
    import warnings

    from treesmith.datasets import UnseenLevelWarning

    model, X, wide = _float32_categories_model(make)
    document = io.to_dict(model)
    assert document["schema_version"] == SCHEMA_VERSION == 5
    assert document["attributes"]["category_precision_"] == ["float32", None]
    loaded, _ = _round_trip(model)
    assert loaded.category_precision_ == ["float32", None]
    for member in getattr(loaded, "estimators_", []):
        assert member.category_precision_ == ["float32", None]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenLevelWarning)
        np.testing.assert_array_equal(loaded.predict_proba(wide), model.predict_proba(X))


def test_a_schema_3_file_without_the_precision_loads_and_matches_as_before():
    """A file written before category_precision_ existed loads; its float categories are
    matched exactly, as that version did (the float64 0.1 is unseen: warned, missing side),
    and the float32 cells it was fitted on still match."""
    from treesmith.datasets import UnseenLevelWarning

    model, X, wide = _float32_categories_model(
        lambda: treesmith.DecisionTreeClassifier(categorical_features=["c"], random_state=0))
    document = json.loads(json.dumps(io.to_dict(model), allow_nan=False))
    document["schema_version"] = 3
    document["attributes"].pop("category_precision_")
    document["attributes"].pop("numeric_precision_")  # since 5
    old, _ = io.loads(json.dumps(document))
    assert getattr(old, "category_precision_", None) is None
    np.testing.assert_array_equal(old.predict(X), model.predict(X))
    with pytest.warns(UnseenLevelWarning):
        old.predict(wide)
    document["attributes"]["category_precision_"] = ["float32", None]
    with pytest.raises(ModelFileError, match="not an attribute of schema version 3"):
        io.loads(json.dumps(document))


@pytest.mark.parametrize("precision, message", [
    (["float8", None], "each null or one of"),
    (["float32"], "list of 2 entries"),
    ("float32", "list of 2 entries"),
    (["float32", "float32"], "feature 1 has no numeric categories"),
    (["float16", None], "float16 cannot represent"),
])
def test_a_hostile_category_precision_is_refused(precision, message):
    model, _, _ = _float32_categories_model(
        lambda: treesmith.DecisionTreeClassifier(categorical_features=["c"], random_state=0))
    document = json.loads(json.dumps(io.to_dict(model), allow_nan=False))
    document["attributes"]["category_precision_"] = precision
    with pytest.raises(ModelFileError, match=message):
        io.loads(json.dumps(document))


def test_a_forest_whose_precision_disagrees_with_its_members_is_refused():
    model, _, _ = _float32_categories_model(
        lambda: treesmith.RandomForestClassifier(n_estimators=2, categorical_features=["c"],
                                                 random_state=0))
    document = json.loads(json.dumps(io.to_dict(model), allow_nan=False))
    document["attributes"]["estimators_"][1]["attributes"]["category_precision_"] = [
        "float64", None]
    with pytest.raises(ModelFileError, match="category_precision_ differs from the ensemble's"):
        io.loads(json.dumps(document))


# -- hostile arguments of save / load / to_dict ------------------------------------------------
def _small_model():
    X = np.random.default_rng(0).normal(size=(30, 2))
    return treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, X[:, 0] > 0)


@pytest.mark.parametrize("metadata", [[1, 2], "target=y", 3.0, False, 0, ""], ids=repr)
def test_metadata_that_is_not_a_dict_is_refused_when_saving(tmp_path, metadata):
    """A list or a str was written, and the file then refused by load ("metadata: must be an
    object"): a model saved by treesmith that treesmith could not read. False, 0 and "" were
    silently stored as {}."""
    with pytest.raises(ValueError, match=r"^metadata must be a dict or None, got "):
        io.save(_small_model(), tmp_path / "m.json", metadata=metadata)
    with pytest.raises(ValueError, match=r"^metadata must be a dict or None"):
        io.to_dict(_small_model(), metadata=metadata)


@pytest.mark.parametrize("path", [True, 1, 2, 3.5, None, ["m.json"]], ids=repr)
def test_a_path_that_is_not_a_file_name_is_refused(path):
    """open() takes an int as a file descriptor: save(model, True) wrote the JSON to standard
    output (and closed it), load(0) read standard input."""
    with pytest.raises(TypeError, match=r"^path must be a file name \(str or os.PathLike\)"):
        io.save(_small_model(), path)
    with pytest.raises(TypeError, match=r"^path must be a file name"):
        io.load(path)


def test_return_metadata_must_be_a_bool(tmp_path):
    """Any truthy value returned the pair: return_metadata='no' too."""
    io.save(_small_model(), tmp_path / "m.json", metadata={"a": 1})
    with pytest.raises(ValueError, match=r"^load: return_metadata must be a bool, got 'no'\.$"):
        io.load(tmp_path / "m.json", return_metadata="no")
    assert io.load(str(tmp_path / "m.json").encode(), return_metadata=True)[1] == {"a": 1}
