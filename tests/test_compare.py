"""treesmith.compare: the method registry, the metrics of one fit and the repeated-split runner."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import treesmith
from treesmith import compare
from treesmith.compare import (
    METHODS,
    FitContext,
    available_methods,
    get_method,
    markdown_table,
    path_cost,
    register_method,
    roc_auc,
    run_comparison,
    summarise,
    summary_cells,
)


@pytest.fixture(scope="module")
def iris():
    return treesmith.load_dataset("sklearn:iris")


def test_default_panel_has_cart_c45_and_pruned_cart():
    assert available_methods()[:3] == ["cart", "c45", "cart-pruned"]
    assert METHODS["cart-pruned"].requires == ("treesmith.pruning",)


def test_methods_whose_modules_are_missing_are_left_out():
    @register_method("needs-missing-module", "test only", requires=("treesmith._no_such_module",))
    def _fit(X, y, context):  # pragma: no cover - never called
        raise AssertionError

    try:
        assert "needs-missing-module" not in available_methods()
        with pytest.raises(ValueError, match="not available"):
            get_method("needs-missing-module")
        with pytest.raises(ValueError, match="already registered"):
            register_method("needs-missing-module", "again")(_fit)
    finally:
        del METHODS["needs-missing-module"]
    with pytest.raises(ValueError, match="unknown method 'id3'"):
        get_method("id3")


def test_methods_fit_the_trees_they_name(iris):
    X, y = iris
    context = FitContext(random_state=3, params={"max_depth": 2})
    cart = get_method("cart").fit(X, y, context)
    assert cart.get_params()["criterion"] == "gini" and cart.get_params()["max_depth"] == 2
    # "c45" is J48's C4.5: J48's iris tree; it has no max_depth and says so
    c45 = get_method("c45").fit(X, y, FitContext(random_state=3))
    assert isinstance(c45, treesmith.C45Classifier) and c45.get_n_leaves() == 5
    with pytest.raises(ValueError, match="c45 method .* no parameter"):
        get_method("c45").fit(X, y, context)
    pruned = get_method("cart-pruned").fit(X, y, FitContext(random_state=0))
    full = get_method("cart").fit(X, y, FitContext(random_state=0))
    assert pruned.tree_.n_leaves <= full.tree_.n_leaves
    with pytest.raises(ValueError, match="unknown estimator parameter"):
        get_method("cart").fit(X, y, FitContext(params={"depth": 2}))


def test_path_cost_is_the_sum_over_decision_paths(iris):
    X, y = iris
    model = treesmith.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    tree = model.tree_
    costs = np.array([1.0, 2.0, 5.0, 10.0])
    paths = model.decision_path(X).toarray().astype(bool)
    brute = [sum(costs[tree.feature[n]] for n in np.flatnonzero(row) if not tree.is_leaf[n])
             for row in paths]
    assert path_cost(model, X, costs) == pytest.approx(np.mean(brute), rel=1e-12)
    # Unit costs: mean path length minus one, weighted by the sample weights.
    weights = np.linspace(1, 3, X.shape[0])
    lengths = paths.sum(axis=1) - 1
    assert path_cost(model, X, sample_weight=weights) == pytest.approx(
        np.average(lengths, weights=weights), rel=1e-12)
    with pytest.raises(ValueError, match="feature_costs must have 4"):
        path_cost(model, X, costs[:2])
    with pytest.raises(ValueError, match="sample_weight"):
        path_cost(model, X, sample_weight=-weights)


def test_roc_auc_matches_scikit_learn():
    rng = np.random.default_rng(0)
    y = np.array(["a", "b", "c"] * 10)
    proba = rng.dirichlet(np.ones(3), size=30)
    expected = roc_auc_score(y, proba, multi_class="ovr", average="macro")
    assert roc_auc(y, proba, np.array(["a", "b", "c"])) == pytest.approx(expected)
    binary = np.array(["no", "yes"] * 10)
    scores = rng.random((20, 2))
    assert roc_auc(binary, scores, np.array(["no", "yes"])) == pytest.approx(
        roc_auc_score(binary == "yes", scores[:, 1]))
    # A class missing from the test part is left out of the macro average.
    present = y != "c"
    assert roc_auc(y[present], proba[present], np.array(["a", "b", "c"])) == pytest.approx(
        np.mean([roc_auc_score(y[present] == k, proba[present, i])
                 for i, k in enumerate("ab")]))
    assert np.isnan(roc_auc(np.array(["a", "a"]), proba[:2], np.array(["a", "b", "c"])))


def test_runner_uses_one_split_per_repeat_for_every_method(iris):
    X, y = iris
    seen = []
    runs = run_comparison(X, y, ["cart", "c45"], n_repeats=3, test_size=0.3, random_state=5,
                          n_jobs=1, progress=seen.append)
    assert len(seen) == 6 and list(runs["method"]) == ["cart"] * 3 + ["c45"] * 3
    assert list(runs["seed"]) == [5, 6, 7] * 2
    # Re-scoring repeat 1 of cart by hand gives the same numbers.
    train, test = compare.split_indices(y, 0.3, 6)
    model = treesmith.DecisionTreeClassifier(criterion="gini", random_state=6).fit(
        X.iloc[train], y[train])
    row = runs[(runs["method"] == "cart") & (runs["repeat"] == 1)].iloc[0]
    assert row["accuracy"] == pytest.approx(np.mean(model.predict(X.iloc[test]) == y[test]))
    assert row["n_leaves"] == model.tree_.n_leaves and row["depth"] == model.tree_.max_depth
    assert row["expected_cost"] == pytest.approx(path_cost(model, X.iloc[test]))
    assert (runs["fit_time"] > 0).all()


def test_runner_rejects_bad_settings(iris):
    X, y = iris
    with pytest.raises(ValueError, match="n_repeats"):
        run_comparison(X, y, ["cart"], n_repeats=0)
    with pytest.raises(ValueError, match="test_size"):
        run_comparison(X, y, ["cart"], test_size=1.5)
    with pytest.raises(ValueError, match="at least 2 examples"):
        run_comparison(X.iloc[:51], y[:51], ["cart"])


def test_summary_and_tables():
    runs = pd.DataFrame({"method": ["a", "a", "b", "b"], "repeat": [0, 1, 0, 1],
                         "accuracy": [0.8, 0.9, 0.7, 0.7], "roc_auc": [0.8, np.nan, 0.6, 0.8],
                         "expected_cost": [2.0, 4.0, 1.0, 1.0], "n_leaves": [3, 5, 2, 2],
                         "depth": [2, 3, 1, 1], "fit_time": [0.01, 0.03, 0.02, 0.02]})
    summary = summarise(runs)
    a = summary.iloc[0]
    assert a["method"] == "a" and a["n_repeats"] == 2
    assert a["accuracy_mean"] == pytest.approx(0.85)
    assert a["accuracy_std"] == pytest.approx(np.std([0.8, 0.9], ddof=1))
    assert a["roc_auc_mean"] == pytest.approx(0.8) and a["roc_auc_std"] == 0.0
    header, rows = summary_cells(summary)
    assert header[3] == compare.UNIT_COST_LABEL
    assert rows[0][:2] == ["a", "0.850 ± 0.071"]
    _, compact = summary_cells(summary, compact=True)
    assert compact[0][1] == "85.0±7.1" and compact[0][6] == "20±14"
    table = markdown_table(summary).splitlines()
    assert table[0].startswith("| method | accuracy | ROC AUC |")
    assert table[2] == "| a | 0.850 ± 0.071 | 0.800 ± 0.000 | 3.00 ± 1.41 | 4.0 ± 1.4 | " \
                       "2.5 ± 0.7 | 0.020 ± 0.014 |"


def test_reference_rows_are_last_and_measure_the_majority_rate():
    from treesmith.compare import below_majority, reference_methods

    assert reference_methods() == ["majority", "sklearn-cart"]
    assert available_methods()[-2:] == ["majority", "sklearn-cart"]
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"noise": rng.normal(size=200)})
    y = np.where(np.arange(200) < 140, "good", "bad")  # 70% majority, nothing to learn
    runs = run_comparison(X, y, ["cart", "majority", "sklearn-cart"], n_repeats=2, n_jobs=1)
    summary = summarise(runs)
    majority = summary[summary["method"] == "majority"].iloc[0]
    assert majority["accuracy_mean"] == pytest.approx(0.7, abs=0.02)
    assert majority["roc_auc_mean"] == 0.5 and majority["n_leaves_mean"] == 1
    assert majority["expected_cost_mean"] == 0.0
    assert below_majority(summary)[0] == majority["accuracy_mean"]
    crafted = pd.DataFrame({"method": ["cart", "c45", "majority", "sklearn-cart"],
                            "accuracy_mean": [0.65, 0.75, 0.70, 0.60]})
    assert below_majority(crafted) == (0.70, ["cart"])  # reference rows are not flagged
    assert below_majority(crafted.iloc[:2])[1] == []


def test_sklearn_reference_is_scikit_learns_tree(iris):
    X, y = iris
    fitted = get_method("sklearn-cart").fit(X, y, FitContext(random_state=1))
    assert type(fitted).__module__.startswith("sklearn.tree")
    assert fitted.get_params()["random_state"] == 1


def test_score_fit_counts_a_c45_trees_own_leaves_and_depth():
    """A C4.5 tree with a multiway nominal test: its binary view ``tree_`` draws that test as
    a chain (one more level, one more node per branch beyond two); the scores report C4.5's
    own leaves and depth, as ``get_n_leaves``/``get_depth`` and J48 count them."""
    from treesmith import C45Classifier
    from treesmith.compare import score_fit

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"outlook": rng.choice(["sunny", "rain", "overcast"], 300),
                      "temp": rng.normal(20, 5, 300)})
    y = (((X.outlook == "sunny") & (X.temp > 20)) | (X.outlook == "overcast")).astype(int)
    model = C45Classifier().fit(X, y)
    scores = score_fit(model, X, y)
    assert (scores["n_leaves"], scores["depth"]) == (4, 2)
    assert (model.tree_.n_leaves, model.tree_.max_depth) == (4, 3)  # the chain's extra level


@pytest.mark.parametrize("kwargs, match", [
    # 10**20 repeats listed 10**20 tasks first: a MemoryError after 80 s (`compare --repeats`)
    ({"n_repeats": 10**20}, r"n_repeats=100000000000000000000 splits from random_state=0 need "
                            r"seeds up to 99999999999999999999 .* beyond 4294967295"),
    # the last repeat's seed 2**32 was refused by numpy only when its turn came
    ({"n_repeats": 2, "random_state": 2**32 - 1}, r"need seeds up to 4294967296"),
    ({"n_repeats": 2**31, "random_state": 0}, r"need at least .* for their results .* more "
                                              r"than the .* of memory available"),
    ({"n_repeats": 2.0}, r"^run_comparison: n_repeats must be an int >= 1, got 2.0\.$"),
    ({"test_size": np.nan}, r"^run_comparison: test_size must be a float in \(0.0, 1.0\)"),
    ({"random_state": -1}, r"^run_comparison: random_state must be an int in \[0, 4294967295\]"),
    # joblib's "n_jobs == 0 in Parallel has no meaning"; 10**20 overflowed a C int
    ({"n_jobs": 0}, r"^n_jobs must be None or a non-zero int"),
])
def test_runner_checks_its_settings_before_any_fit(iris, kwargs, match, monkeypatch):
    X, y = iris
    if kwargs.get("n_repeats") == 2**31:  # a machine of 1 GiB, whatever this one has
        monkeypatch.setattr("treesmith.grower.available_memory_bytes", lambda: 2**30)
    with pytest.raises(ValueError, match=match):
        run_comparison(X, y, ["cart"], **kwargs)


def test_runner_takes_a_huge_n_jobs_as_every_core(iris):
    X, y = iris
    runs = run_comparison(X, y, ["majority"], n_repeats=2, n_jobs=10**20)
    assert len(runs) == 2
