"""treesmith.model_selection: learning parameters over problem instances, exact 1-D searches,
and the moved selection functions (old import paths deprecated)."""

import importlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine
from sklearn.metrics import roc_auc_score

import treesmith
from treesmith.criteria import LossMatrixGini, Tsallis
from treesmith.metrics import expected_cost
from treesmith.model_selection import (
    Exact,
    PessimisticRay,
    Range,
    cv_instances,
    learn_parameters,
    select_by_explainability,
    select_ccp_alpha,
    select_lambda,
    select_pruning_parameters,
    split_instances,
    tune_ccp_alpha,
)
from treesmith.model_selection.exact import PiecewiseLoss, flip_position

MOVED = [
    ("treesmith.pruning", "select_ccp_alpha"),
    ("treesmith.pruning", "tune_ccp_alpha"),
    ("treesmith.pruning", "select_by_explainability"),
    ("treesmith.pruning", "select_pruning_parameters"),
    ("treesmith.pruning", "CCPSelection"),
    ("treesmith.pruning.cost_complexity", "select_ccp_alpha"),
    ("treesmith.pruning.explainability", "select_by_explainability"),
    ("treesmith.pruning.parameter_search", "select_pruning_parameters"),
    ("treesmith.rules", "select_lambda"),
    ("treesmith.rules.lambda_selection", "select_lambda"),
    ("treesmith.rules.lambda_selection", "validation_auc"),
]


@pytest.fixture(scope="module")
def wine_instances():
    X, y = load_wine(return_X_y=True)
    return split_instances(X, y, n_splits=3, test_size=0.3, random_state=1)


def tsallis_tree(**params):
    return treesmith.DecisionTreeClassifier(criterion=Tsallis(), max_depth=4, random_state=0,
                                            **params)


def direct_loss(estimator, params, instance, loss=None):
    """The loss of one point on one instance, fitted the plain way."""
    model = clone(estimator).set_params(**params).fit(instance.X_train, instance.y_train)
    if loss is not None:
        return loss(model, instance.X_test, instance.y_test)
    return float(np.mean(model.predict(instance.X_test) != instance.y_test))


# -- the move -------------------------------------------------------------------------------
@pytest.mark.parametrize("module, name", MOVED)
def test_old_import_paths_warn_and_give_the_same_object(module, name):
    new_module = importlib.import_module("treesmith.model_selection._moved").NEW_HOMES[name]
    with pytest.warns(DeprecationWarning, match="moved to treesmith.model_selection"):
        old = getattr(importlib.import_module(module), name)
    assert old is getattr(importlib.import_module(new_module), name)


def test_new_paths_do_not_warn_and_unknown_names_still_fail():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from treesmith.model_selection import select_ccp_alpha  # noqa: F401
        assert treesmith.select_lambda is treesmith.model_selection.select_lambda
        import treesmith.pruning as pruning
        pruning.prune  # noqa: B018 - still there, no warning
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        treesmith.pruning.nothing_here  # noqa: B018


# -- grid ERM -------------------------------------------------------------------------------
def test_grid_choice_is_the_brute_force_minimiser_of_the_average_loss(wine_instances):
    estimator = tsallis_tree()
    space = {"criterion__alpha": [0.5, 2.0, 3.0], "criterion__beta": [1, 2]}
    result = learn_parameters(estimator, space, wine_instances, n_jobs=2)
    assert len(result.values) == 6
    for k, values in enumerate(result.values):
        expected = [direct_loss(estimator, values, instance) for instance in wine_instances]
        np.testing.assert_allclose(result.losses[:, k], expected)
    np.testing.assert_allclose(result.mean_loss, result.losses.mean(axis=0))
    best = int(np.flatnonzero(result.mean_loss <= result.mean_loss.min() + 1e-12)[0])
    assert result.best_index == best
    assert result.best_params == result.values[best]
    model = result.best_estimator()
    assert model.criterion.alpha == result.best_params["criterion__alpha"]
    assert estimator.criterion == Tsallis()  # the caller's estimator is untouched


def test_batch_size_and_workers_do_not_change_the_result(wine_instances):
    space = {"criterion__alpha": Range(0.5, 3.0, 4), "criterion__beta": [1, 3]}
    one = learn_parameters(tsallis_tree(), space, wine_instances, n_jobs=1, batch_size=1)
    many = learn_parameters(tsallis_tree(), space, wine_instances, n_jobs=2, batch_size=3)
    np.testing.assert_array_equal(one.losses, many.losses)
    assert one.best_params == many.best_params


def test_refinement_zooms_around_the_best_cell(wine_instances):
    space = {"criterion__alpha": Range(0.5, 3.5, 4), "criterion__beta": [1, 2]}
    plain = learn_parameters(tsallis_tree(), space, wine_instances)
    refined = learn_parameters(tsallis_tree(), space, wine_instances, refine=2)
    assert refined.best_loss <= plain.best_loss
    initial = [v for v, r in zip(refined.values, refined.rounds) if r == 0]
    assert initial == plain.values
    best_alpha = plain.best_params["criterion__alpha"]
    step = 1.0
    for values, round_ in zip(refined.values, refined.rounds):
        if round_ == 1:  # round 1 stays within one cell of the first best
            assert abs(values["criterion__alpha"] - best_alpha) <= step + 1e-12
            assert values["criterion__beta"] == plain.best_params["criterion__beta"]


def test_integer_ranges_stay_integer():
    values = Range(1, 8, 20, integer=True).values()
    assert values.tolist() == list(range(1, 9))
    assert Range(0.01, 1, 3, log=True).values().tolist() == pytest.approx([0.01, 0.1, 1])


FAMILIES = [  # (estimator, space): every family's parameters reach the fit
    (treesmith.DecisionTreeClassifier(criterion=treesmith.criteria.Product(), max_depth=3),
     {"criterion__gamma": [0.3, 1.0]}),
    (treesmith.DecisionTreeClassifier(criterion=treesmith.criteria.PR(), max_depth=3),
     {"criterion__alpha": [0.5, 1.0], "criterion__gamma": [0.5, 2.0]}),
    (treesmith.DecisionTreeClassifier(split_rule=treesmith.rules.ECART(), max_depth=3),
     {"split_rule__lam": [0.0, 10.0]}),
    (treesmith.DecisionTreeClassifier(pruning={"method": "bup"}),
     {"pruning__c1": [0.0, 0.5], "pruning__c2": [0.0, 2.0]}),
    (treesmith.DecisionTreeClassifier(pruning={"method": "c45"}),
     {"pruning__confidence_factor": [0.05, 0.25]}),
    (treesmith.DecisionTreeClassifier(significance=0.05, n_permutations=49, random_state=0),
     {"significance": [None, 0.01]}),
]


@pytest.mark.parametrize("estimator, space", FAMILIES)
def test_every_family_is_searched_through_its_estimator_parameters(estimator, space):
    X, y = load_iris(return_X_y=True)
    instances = split_instances(X, y, n_splits=2, random_state=3)
    result = learn_parameters(estimator, space, instances)
    for k, params in enumerate(result.params):
        expected = [direct_loss(estimator, params, i) for i in instances]
        np.testing.assert_allclose(result.losses[:, k], expected)
    assert len({repr(p) for p in result.params}) == len(result.params)
    if "pruning__c1" in space:  # nested keys of the dict parameter, the method kept
        assert result.params[0]["pruning"] == {"method": "bup", "c1": 0.0, "c2": 0.0}


def test_regression_families_and_other_scikit_learn_estimators():
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = np.exp(X[:, 0]) + rng.poisson(1.0, size=150)
    instances = [(X[:100], y[:100], X[100:], y[100:])]
    tweedie = treesmith.DecisionTreeRegressor(criterion=treesmith.criteria.Tweedie(),
                                              max_depth=3, random_state=0)
    result = learn_parameters(tweedie, {"criterion__power": [0.0, 0.5, 1.0]}, instances)
    for k, params in enumerate(result.params):
        model = clone(tweedie).set_params(**params).fit(X[:100], y[:100])
        assert result.losses[0, k] == pytest.approx(np.mean((model.predict(X[100:])
                                                             - y[100:]) ** 2))
    # Any estimator with set_params works on a grid (explainability needs a tree_).
    Xi, yi = load_iris(return_X_y=True)
    other = learn_parameters(SklearnTree(random_state=0), {"max_depth": [1, 2, 3]},
                             split_instances(Xi, yi, n_splits=2), scoring="explainability",
                             eta=0.01)
    assert other.best_params["max_depth"] in (2, 3)


# -- exact axes -----------------------------------------------------------------------------
def test_exact_ccp_alpha_matches_fitting_at_every_breakpoint(wine_instances):
    estimator = treesmith.DecisionTreeClassifier(random_state=0)
    result = learn_parameters(estimator, {"criterion": ["gini", "entropy"], "ccp_alpha": Exact()},
                              wine_instances)
    assert result.columns == ("criterion", "ccp_alpha")
    rng = np.random.default_rng(0)
    for k in rng.choice(len(result.values), size=8, replace=False):
        values = result.values[k]
        expected = [direct_loss(estimator, values, instance) for instance in wine_instances]
        np.testing.assert_allclose(result.losses[:, k], expected)
    # No alpha of a fine grid does better than the exact minimiser.
    grid = learn_parameters(estimator, {"criterion": ["gini", "entropy"],
                                        "ccp_alpha": list(np.linspace(0, 0.1, 41))},
                            wine_instances)
    assert result.best_loss <= grid.best_loss + 1e-12


def test_exact_ccp_alpha_agrees_with_tune_ccp_alpha(wine_instances):
    from treesmith.model_selection import tune_ccp_alpha

    estimator = treesmith.DecisionTreeClassifier(criterion="gini", random_state=0)
    result = learn_parameters(estimator, {"ccp_alpha": Exact()}, wine_instances)
    fitted = [(clone(estimator).fit(i.X_train, i.y_train), i.X_test, i.y_test)
              for i in wine_instances]
    tuned = tune_ccp_alpha(fitted)
    np.testing.assert_allclose([v["ccp_alpha"] for v in result.values], tuned.alphas)
    np.testing.assert_allclose(result.mean_loss, tuned.mean_loss)
    assert result.best_params["ccp_alpha"] == pytest.approx(tuned.ccp_alpha)


def test_pessimistic_ray_matches_fitting_inside_every_segment(wine_instances):
    estimator = treesmith.DecisionTreeClassifier(random_state=0, max_depth=6)
    ray = PessimisticRay(c1=1.0, c2=2.0)
    result = learn_parameters(estimator, {"pruning": ray}, wine_instances)
    positions = np.asarray([v["pruning__c1"] for v in result.values])
    assert positions[0] == 0 and np.all(np.diff(positions) > 0) and len(positions) > 3
    # Inside each segment (midpoints, and beyond the last start) fitting agrees.
    probes = np.append((positions[:-1] + positions[1:]) / 2, positions[-1] * 2)
    for k, r in enumerate(probes):
        pruning = {"method": "bup", "c1": r * ray.c1, "c2": r * ray.c2}
        expected = [direct_loss(estimator, {"pruning": pruning}, i) for i in wine_instances]
        np.testing.assert_allclose(result.losses[:, k], expected, err_msg=f"r={r}")
    # The last segment is the root alone: the error of the majority class.
    assert result.losses[:, -1].tolist() == [
        float(np.mean(i.y_test != np.bincount(i.y_train).argmax())) for i in wine_instances]


def test_pessimistic_ray_with_ccp_applies_both_in_the_estimator_order(wine_instances):
    estimator = treesmith.DecisionTreeClassifier(random_state=0, ccp_alpha=0.01)
    result = learn_parameters(estimator, {"pruning": PessimisticRay(1.0, 0.0)},
                              wine_instances[:1])
    for k in (0, len(result.values) // 2):
        expected = direct_loss(estimator, result.params[k], wine_instances[0])
        assert result.losses[0, k] == pytest.approx(expected)


@settings(max_examples=60, deadline=None)
@given(gap=st.floats(1e-6, 10), complexity=st.floats(0, 50), n=st.floats(1, 1e4),
       u1=st.floats(1e-3, 10), u2=st.floats(0, 10))
def test_flip_position_is_the_root_of_the_pessimistic_test(gap, complexity, n, u1, u2):
    r = flip_position(gap, complexity, n, u1, u2)
    if complexity == 0 and u2 == 0:
        assert r == np.inf
        return
    value = r * u1 * np.sqrt((complexity + r * u2) / n)
    assert value == pytest.approx(gap, rel=1e-9)
    below = r * (1 - 1e-6)
    assert below * u1 * np.sqrt((complexity + below * u2) / n) < gap


def test_piecewise_loss_lookup():
    piece = PiecewiseLoss(np.array([0.0, 0.5, 2.0]), np.array([3.0, 2.0, 1.0]),
                          np.array([5, 3, 1]))
    assert piece.at([0, 0.49, 0.5, 1.9, 2.0, 100]).tolist() == [3, 3, 2, 2, 1, 1]


# -- scoring --------------------------------------------------------------------------------
def _auc_loss(model, X, y):
    return 1.0 - roc_auc_score(y, model.predict_proba(X), multi_class="ovr")


def _cost_loss(model, X, y):
    return expected_cost(model, X)


def _explainability_loss(model, X, y):
    return float(np.mean(model.predict(X) != y)) + 0.02 * model.tree_.n_leaves


@pytest.mark.parametrize("scoring, eta, reference", [
    ("auc", 0.0, _auc_loss),
    ("expected_cost", 0.0, _cost_loss),
    ("explainability", 0.02, _explainability_loss),
    (_explainability_loss, 0.0, _explainability_loss),
])
def test_scorings_equal_their_definitions(wine_instances, scoring, eta, reference):
    estimator = treesmith.DecisionTreeClassifier(random_state=0,
                                                 feature_costs=np.arange(1.0, 14.0))
    result = learn_parameters(estimator, {"max_depth": [1, 3]}, wine_instances,
                              scoring=scoring, eta=eta)
    for k, values in enumerate(result.values):
        expected = [direct_loss(estimator, values, i, reference) for i in wine_instances]
        np.testing.assert_allclose(result.losses[:, k], expected)


def test_regressors_use_squared_error():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = X[:, 0] * 2 + rng.normal(scale=0.1, size=120)
    instances = [(X[:80], y[:80], X[80:], y[80:])]
    estimator = treesmith.DecisionTreeRegressor(random_state=0)
    result = learn_parameters(estimator, {"max_depth": [1, 4]}, instances)
    model = clone(estimator).set_params(max_depth=4).fit(X[:80], y[:80])
    assert result.losses[0, 1] == pytest.approx(np.mean((model.predict(X[80:]) - y[80:]) ** 2))


def test_held_out_instances_are_scored_with_the_refitted_choice():
    X, y = load_iris(return_X_y=True)
    instances = split_instances(X, y, n_splits=2, random_state=0)
    held = split_instances(X, y, n_splits=2, random_state=10)
    estimator = tsallis_tree()
    result = learn_parameters(estimator, {"criterion__alpha": [0.5, 2.0]}, instances,
                              held_out=held)
    expected = [direct_loss(estimator, result.best_params, i) for i in held]
    np.testing.assert_allclose(result.held_out_losses, expected)
    assert result.held_out_loss == pytest.approx(np.mean(expected))


def test_cv_instances_and_dataset_items_expand_into_folds():
    X, y = load_iris(return_X_y=True)
    folds = cv_instances(X, y, cv=3)
    from_item = learn_parameters(tsallis_tree(), {"max_depth": [2]}, [(X, y, 3)])
    from_folds = learn_parameters(tsallis_tree(), {"max_depth": [2]}, folds)
    assert from_item.losses.shape == (3, 1)
    np.testing.assert_array_equal(from_item.losses, from_folds.losses)


def test_surface_csv_and_plot(wine_instances, tmp_path):
    result = learn_parameters(tsallis_tree(), {"criterion__alpha": [0.5, 2.0, 3.0],
                                               "criterion__beta": [1, 2]}, wine_instances)
    alphas, betas, table = result.surface("criterion__alpha", "criterion__beta")
    assert alphas == [0.5, 2.0, 3.0] and betas == [1, 2] and table.shape == (2, 3)
    assert table[1, 0] == result.mean_loss[result.values.index(
        {"criterion__alpha": 0.5, "criterion__beta": 2})]
    path = tmp_path / "surface.csv"
    result.to_csv(path)
    lines = path.read_text().splitlines()
    assert lines[0].startswith("criterion__alpha,criterion__beta,round,mean_loss,loss_0")
    assert len(lines) == 7
    import matplotlib

    matplotlib.use("Agg")
    ax = result.plot_surface("criterion__alpha", "criterion__beta", accuracy=True)
    assert ax.get_xlabel() == "criterion__alpha"
    with pytest.raises(ValueError, match="not a searched column"):
        result.surface("criterion__gamma")


# -- bad input ------------------------------------------------------------------------------
@pytest.mark.parametrize("space, message", [
    ({}, "space is empty"),
    ({"max_depth": []}, "has no values"),
    ({"max_dept": [1, 2]}, "no parameter 'max_dept'"),
    ({"ccp_alpha": PessimisticRay()}, "searches 'pruning'"),
    ({"ccp_alpha": Exact(), "pruning": PessimisticRay()}, "only one exact axis"),
    ({"max_depth": "3"}, "must be a list"),
    ({"max_depth": Range(1, 2, 1000), "min_samples_leaf": Range(1, 2, 1001)}, "grid points"),
    # listed before the grid's size was checked: 8 GB and a killed process
    ({"min_impurity_decrease": Range(0, 1, 10**9)}, "is a Range of 1000000000 points"),
    ({"min_samples_leaf": [1, -4]}, None),
])
def test_bad_spaces_fail_before_any_fit(wine_instances, space, message):
    estimator = treesmith.DecisionTreeClassifier()
    if message is None:  # a value the estimator only rejects at fit: named with its point
        with pytest.raises(RuntimeError, match="min_samples_leaf"):
            learn_parameters(estimator, space, wine_instances)
        return
    with pytest.raises(ValueError, match=message):
        learn_parameters(estimator, space, wine_instances)


def test_a_string_criterion_explains_how_to_search_inside_it(wine_instances):
    with pytest.raises(ValueError, match="pass an object"):
        learn_parameters(treesmith.DecisionTreeClassifier(criterion="tsallis"),
                         {"criterion__alpha": [1.5]}, wine_instances)


def test_invalid_values_are_named_before_fitting(wine_instances):
    with pytest.raises(ValueError, match="beta"):
        learn_parameters(tsallis_tree(), {"criterion__beta": [1, 1.5]}, wine_instances)


def test_instances_are_checked(wine_instances):
    X, y = load_wine(return_X_y=True)
    estimator = treesmith.DecisionTreeClassifier(feature_costs=np.ones(13))
    narrow = (X[:100, :5], y[:100], X[100:, :5], y[100:])
    with pytest.raises(ValueError, match=r"instances\[1\] has 5 features"):
        learn_parameters(estimator, {"max_depth": [2]}, [wine_instances[0], narrow])
    with pytest.raises(ValueError, match="X_train has 13 features, X_test 5"):
        learn_parameters(treesmith.DecisionTreeClassifier(), {"max_depth": [2]},
                         [(X[:100], y[:100], X[100:, :5], y[100:])])
    two_classes = (X[y < 2], y[y < 2], X[y < 2], y[y < 2])
    with pytest.raises(ValueError, match="same label set"):
        learn_parameters(treesmith.DecisionTreeClassifier(criterion=LossMatrixGini(
            np.ones((3, 3)) - np.eye(3))), {"max_depth": [2]}, [wine_instances[0], two_classes])
    one_class_test = (X, y, X[y == 0], y[y == 0])
    with pytest.raises(ValueError, match="one class only"):
        learn_parameters(treesmith.DecisionTreeClassifier(), {"max_depth": [2]},
                         [one_class_test], scoring="auc")
    with pytest.raises(ValueError, match="instances is empty"):
        learn_parameters(treesmith.DecisionTreeClassifier(), {"max_depth": [2]}, [])
    with pytest.raises(ValueError, match="length 2"):
        learn_parameters(treesmith.DecisionTreeClassifier(), {"max_depth": [2]}, [(X, y)])


def test_bad_options_are_named(wine_instances):
    estimator = treesmith.DecisionTreeClassifier()
    for kwargs, message in [({"scoring": "accuracy"}, "scoring must be one of"),
                            ({"eta": 0.1}, "eta applies to scoring='explainability'"),
                            ({"backend": "spark"}, "backend must be one of"),
                            ({"refine": 1}, "refine needs at least one Range"),
                            ({"batch_size": 0}, "batch_size must be"),
                            ({"n_jobs": 0}, "n_jobs must be None or a nonzero int"),
                            ({"n_jobs": 1.5}, "n_jobs must be None or a nonzero int")]:
        with pytest.raises(ValueError, match=message):
            learn_parameters(estimator, {"max_depth": [2]}, wine_instances, **kwargs)
    with pytest.raises(ValueError, match="needs a classifier"):
        learn_parameters(treesmith.DecisionTreeRegressor(), {"max_depth": [2]},
                         wine_instances, scoring="auc")


def test_an_unreachable_scheduler_is_reported_before_fitting(wine_instances, monkeypatch):
    import treesmith.model_selection.execution as execution

    def no_fit(*args, **kwargs):  # pragma: no cover - must not be reached
        raise AssertionError("a fit started")

    monkeypatch.setattr(execution, "run_task", no_fit)
    with pytest.raises(ConnectionError, match="no dask scheduler answers at 'tcp://127.0.0.1:9'"):
        learn_parameters(treesmith.DecisionTreeClassifier(), {"max_depth": [2]},
                         wine_instances, backend="dask", scheduler="tcp://127.0.0.1:9",
                         scheduler_timeout=1.0)


# -- hostile arguments (the parameter fuzz): each named, before any fit where it can be -------
@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.mark.parametrize("kwargs, message", [
    # arrays met `in` / `<`: numpy's "truth value of an array is ambiguous"
    ({"rule": np.array(["min", "1se"])}, r"select_ccp_alpha: rule must be one of"),
    ({"candidates": np.array([1.0])}, r"select_ccp_alpha: candidates must be one of"),
    # joblib's own errors: '2 * n_jobs' too long to evaluate, int(inf), int([1])
    ({"n_jobs": 10**12}, None),
    ({"n_jobs": float("inf")}, r"select_ccp_alpha: n_jobs must be None or a nonzero int"),
    ({"n_jobs": [1]}, r"select_ccp_alpha: n_jobs must be None or a nonzero int"),
    # y='bogus' reached np.asarray(y).shape[0] (IndexError); a short y indexed missing rows
    ({"y": "bogus"}, r"select_ccp_alpha: y must be 1-D, one label per row of X"),
    ({"y": [0, 1]}, r"inconsistent numbers of rows: X has 150, y has 2"),
    ({"X": "bogus"}, r"select_ccp_alpha: X must be 2-D \(samples x features\), got shape \(\)"),
    ({"cv": True}, r"select_ccp_alpha: cv must be an int >= 2, a cross-validation splitter"),
    ({"cv": []}, r"select_ccp_alpha: cv gives no \(train, test\) split"),
    # a scalar weight (which fit takes) was indexed by each fold's rows: 'float' object is not
    # subscriptable
    ({"sample_weight": 2.5}, None),
])
def test_select_ccp_alpha_arguments_are_named(iris, kwargs, message):
    X, y = iris
    call = {"X": X, "y": y, "cv": 3, **kwargs}
    estimator = treesmith.DecisionTreeClassifier(random_state=0)
    if message is None:  # accepted: the same choice as the plain call
        plain = select_ccp_alpha(estimator, X, y, cv=3)
        assert select_ccp_alpha(estimator, **call).ccp_alpha == plain.ccp_alpha
        return
    with pytest.raises(ValueError, match=message):
        select_ccp_alpha(estimator, **call)


@pytest.mark.parametrize("kwargs, message", [
    ({"method": np.array(["tdp"])}, r"method must be one of"),
    ({"cv": []}, r"select_pruning_parameters: cv gives no \(train, test\) split"),  # was 1 / 0
    ({"y": "bogus"}, r"select_pruning_parameters: y must be 1-D"),
    ({"X": [1.0]}, r"select_pruning_parameters: X must be 2-D"),  # IndexError in take_rows
    ({"n_jobs": 2**31}, None),
])
def test_select_pruning_parameters_arguments_are_named(iris, kwargs, message):
    X, y = iris
    call = {"X": X, "y": y, "method": "tdp", "param_grid": {"n_standard_errors": [0.5, 1.0]},
            "cv": 3, **kwargs}
    estimator = treesmith.DecisionTreeClassifier(random_state=0)
    if message is None:
        assert select_pruning_parameters(estimator, **call).params
        return
    with pytest.raises(ValueError, match=message):
        select_pruning_parameters(estimator, **call)


@pytest.mark.parametrize("eta, message", [
    ("x", r"select_by_explainability: eta must be a float >= 0.0, got 'x'"),  # np.isfinite's
    ([0.1], r"eta must be a float >= 0.0"),  # TypeError; numpy's ambiguous truth
    (float("nan"), r"eta must be"),
    (2**63, None),  # was an OverflowError in eta * n_leaves (int64)
])
def test_select_by_explainability_eta_is_named(iris, eta, message):
    X, y = iris
    tree = treesmith.DecisionTreeClassifier(random_state=0).fit(X[::2], y[::2])
    if message is None:
        assert select_by_explainability(tree, X[1::2], y[1::2], eta=eta).n_leaves == 1
        return
    with pytest.raises(ValueError, match=message):
        select_by_explainability(tree, X[1::2], y[1::2], eta=eta)


@pytest.mark.parametrize("kwargs, message", [
    ({"tolerance": "x"}, r"select_lambda: tolerance must be a float >= 0.0"),
    ({"tolerance": [0.1]}, r"select_lambda: tolerance must be"),
    ({"choose": np.array(["last"])}, r"select_lambda: choose must be one of"),
    # 'no' is true: exhaustive='no' fitted every lambda
    ({"exhaustive": "no"}, r"select_lambda: exhaustive must be a bool, got 'no'"),
    # y_val of 1 label for 75 rows: IndexError in the AUC
    ({"y_val": [1]}, r"inconsistent numbers of rows: X_val has 75, y_val has 1"),
    ({"lambdas": "3"}, r"lambdas must be a non-empty sequence of finite floats >= 0, got '3'"),
])
def test_select_lambda_arguments_are_named(iris, kwargs, message):
    X, y = iris
    call = {"X_train": X[::2], "y_train": y[::2], "X_val": X[1::2], "y_val": y[1::2],
            "lambdas": [1.0], **kwargs}
    with pytest.raises(ValueError, match=message):
        select_lambda(treesmith.DecisionTreeClassifier(criterion="entropy", random_state=0),
                      **call)


def test_tune_ccp_alpha_names_a_malformed_instance(iris):
    X, y = iris
    tree = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"instances must be a sequence of \(fitted_estimator, "):
        tune_ccp_alpha(3)  # was "'int' object is not iterable"
    # split_instances' (X_train, y_train, X_test, y_test): the error printed the whole array
    with pytest.raises(ValueError, match=r"instances\[0\] must be \(fitted_estimator, "
                                         r"X_heldout, y_heldout\[, sample_weight\]\), got a "
                                         r"Instance of length 4 starting with a ndarray"):
        tune_ccp_alpha(split_instances(X, y, n_splits=1))
    with pytest.raises(ValueError, match=r"instances\[1\] must be"):
        tune_ccp_alpha([(tree, X, y), (tree, X)])


@pytest.mark.parametrize("kwargs, message", [
    ({"n_splits": 2.5}, r"split_instances: n_splits must be an int >= 1, got 2.5"),
    ({"n_splits": "3"}, r"split_instances: n_splits must be"),
    ({"stratify": "no"}, r"split_instances: stratify must be a bool"),  # 'no' stratified
    ({"random_state": None}, r"split_instances: random_state must be an int in"),
    ({"random_state": 2**32 - 1, "n_splits": 2}, r"random_state \+ n_splits - 1 = 4294967296 "
                                                 r"is not a seed"),
    # one copy of the data per split: 10**12 splits ran until killed
    ({"n_splits": 10**12}, r"split_instances: n_splits=1000000000000 copies of the data"),
    ({"n_splits": np.uint64(2**63)}, r"split_instances: n_splits=9223372036854775808 copies"),
    ({"y": "bogus"}, r"split_instances: y must be 1-D"),
])
def test_split_instances_arguments_are_named(iris, kwargs, message):
    X, y = iris
    with pytest.raises(ValueError, match=message):
        split_instances(**{"X": X, "y": y, **kwargs})


@pytest.mark.parametrize("kwargs, message", [
    ({"classifier": "no"}, r"cv_instances: classifier must be a bool"),
    ({"cv": True}, r"cv_instances: cv must be an int >= 2"),
    ({"y": "bogus"}, r"cv_instances: y must be 1-D"),  # IndexError: tuple index out of range
    ({"X": [1.0]}, r"cv_instances: X must be 2-D"),  # IndexError in take_rows
])
def test_cv_instances_arguments_are_named(iris, kwargs, message):
    X, y = iris
    with pytest.raises(ValueError, match=message):
        cv_instances(**{"X": X, "y": y, "cv": 3, **kwargs})


@pytest.mark.parametrize("kwargs, error, message", [
    ({"estimator": "tree"}, TypeError, r"estimator must be a scikit-learn estimator instance"),
    ({"eta": 10**30, "scoring": "explainability"}, None, None),  # np.isfinite's TypeError
    ({"scoring": np.array(["error"])}, ValueError, r"scoring must be one of"),
    ({"backend": np.array(["joblib"])}, ValueError, r"backend must be one of"),
    ({"n_jobs": 2**31}, None, None),  # joblib: 'Numeric literal 2147483648 is too large'
    ({"n_jobs": np.int64(2)}, None, None),  # refused as not an int
    ({"refine": np.int64(0)}, None, None),
    ({"instances": np.array(3)}, TypeError, r"instances must be a list of"),
])
def test_learn_parameters_arguments_are_named(wine_instances, kwargs, error, message):
    call = {"estimator": treesmith.DecisionTreeClassifier(random_state=0),
            "space": {"max_depth": [1, 2]}, "instances": wine_instances[:2], **kwargs}
    if error is None:
        assert learn_parameters(**call).best_params
        return
    with pytest.raises(error, match=message):
        learn_parameters(**call)


def test_an_estimator_first_instance_is_named_as_tune_ccp_alphas_form(wine_instances):
    """(fitted_estimator, X, y) was read as (X, y, cv): cv was the labels, split as pairs
    ("cannot unpack non-iterable numpy.int64 object")."""
    X, y = load_wine(return_X_y=True)
    tree = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"instances\[0\] starts with an estimator"):
        learn_parameters(treesmith.DecisionTreeClassifier(), {"max_depth": [2]}, [(tree, X, y)])
    with pytest.raises(ValueError, match=r"instances\[0\] = \(X, y, cv\): cv must be an int"):
        learn_parameters(treesmith.DecisionTreeClassifier(), {"max_depth": [2]}, [(X, y, y)])


@pytest.mark.parametrize("kwargs, message", [
    ({"log": "no"}, r"Range: log must be a bool, got 'no'"),  # 'no' made the axis geometric
    ({"integer": "no"}, r"Range: integer must be a bool, got 'no'"),  # and rounded it
    ({"log": np.array([True, False])}, r"Range: log must be a bool"),
    ({"low": 10**30, "high": 10**31}, None),  # np.isfinite's TypeError on an int > int64
    ({"low": 10**400}, r"Range: low must be a float"),
    ({"n_points": 2.0}, r"Range: n_points must be an int >= 1, got 2.0"),
])
def test_range_arguments_are_named(kwargs, message):
    call = {"low": 0.0, "high": 1.0, "n_points": 3, **kwargs}
    if message is None:
        assert Range(**call).values().shape == (3,)
        return
    with pytest.raises(ValueError, match=message):
        Range(**call)


def test_pessimistic_ray_arguments_are_named():
    assert PessimisticRay(c1=10**30).pruning(1.0)["c1"] == 1e30  # was np.isfinite's TypeError
    with pytest.raises(ValueError, match=r"PessimisticRay: c2 must be a float >= 0.0, got -1"):
        PessimisticRay(c2=-1)


@pytest.mark.parametrize("cv", [0, 1, [1], np.array(3), [(np.arange(3),)]])
def test_a_cv_that_gives_no_folds_is_named(iris, cv):
    """cv=[1] and a 0-d array reached scikit-learn's unpacking ('cannot unpack non-iterable int
    object', 'iteration over a 0-d array')."""
    X, y = iris
    for call in (lambda: select_ccp_alpha(treesmith.DecisionTreeClassifier(), X, y, cv=cv),
                 lambda: cv_instances(X, y, cv)):
        with pytest.raises(ValueError, match=r"cv must be an int >= 2, a cross-validation "
                                             r"splitter or an iterable of \(train, test\)"):
            call()


@pytest.mark.parametrize("estimator", ["tree", [], treesmith.DecisionTreeClassifier])
def test_an_estimator_that_is_not_one_is_named(iris, estimator):
    """'tree' reached scikit-learn's is_classifier ('no attribute __sklearn_tags__'), [] the
    clone's set_params."""
    X, y = iris
    for owner, call in (
            ("select_ccp_alpha", lambda: select_ccp_alpha(estimator, X, y)),
            ("select_pruning_parameters", lambda: select_pruning_parameters(
                estimator, X, y, "tdp", {"n_standard_errors": [1.0]})),
            ("select_lambda", lambda: select_lambda(estimator, X, y, X, y))):
        with pytest.raises(TypeError, match=rf"{owner}: estimator must be a scikit-learn "
                                            r"estimator instance"):
            call()


def test_a_c45_tree_is_named_as_not_post_prunable(iris):
    """select_ccp_alpha(C45Classifier()) fitted every fold and then failed with "property
    'tree_' of 'C45Classifier' object has no setter"; select_by_explainability likewise."""
    X, y = iris
    with pytest.raises(TypeError, match=r"a C45Classifier's tree cannot be post-pruned"):
        select_ccp_alpha(treesmith.C45Classifier(), X, y)
    with pytest.raises(TypeError, match=r"a C45Classifier's tree cannot be post-pruned"):
        select_by_explainability(treesmith.C45Classifier().fit(X, y), X, y)

