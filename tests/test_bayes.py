"""BayesianTreeClassifier: scikit-learn conventions, bad input, outputs, averaging, tuning."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

import treesmith
from treesmith import BayesianTreeClassifier, BayesianTreeRegressor
from treesmith.bayes import plot_trace

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
    ({"n_iter": 0}, "n_iter must be an int >= 1"),
    ({"n_iter": 2.5}, "n_iter"),
    ({"n_chains": 0}, "n_chains must be an int"),
    ({"burn_in": 600}, "burn_in must be an int in [0, n_iter=600)"),
    ({"burn_in": 1.0}, "burn_in must be a float in [0.0, 1.0)"),
    ({"burn_in": -1}, "burn_in"),
    ({"max_leaves": 0}, "max_leaves must be an int >= 1 or None"),
    ({"max_depth": -1}, "max_depth must be an int >= 0 or None"),
    ({"init": "random"}, "init must be 'root' or 'prior'"),
    ({"averaging": "mean"}, "averaging must be 'map' or 'posterior'"),
    ({"n_jobs": 0}, "n_jobs must be None, -1 or an int >= 1"),
    ({"random_state": "seed"}, "random_state must be None, an int"),
])
def test_bad_parameters_raise_errors_naming_them(iris, params, message):
    X, y = iris
    with pytest.raises(ValueError) as error:
        BayesianTreeClassifier(**{**FAST, **params}).fit(X, y)
    assert message in str(error.value)


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
    expected = np.zeros((rows.shape[0], 3))
    for t in range(sample.n_trees):
        base = sample.offsets[t]
        for i, x in enumerate(rows):
            node = 0
            while sample.left[base + node] >= 0:
                go_left = x[sample.feature[base + node]] <= sample.threshold[base + node]
                node = sample.left[base + node] if go_left else sample.right[base + node]
            expected[i] += sample.weights[t] * sample.leaf_prediction[base + node]
    expected /= sample.weights.sum()
    np.testing.assert_allclose(fitted.predict_proba(rows), expected)
    np.testing.assert_allclose(fitted.predict_proba(X).sum(axis=1), 1.0)


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
    ({"lam": 0.0}, "lam must be a float > 0 or None"),
    ({"mu_bar": np.inf}, "mu_bar must be a finite float or None"),
    ({"sigma": 2.0}, "sigma must be a float in (0.0, 1.0]"),
    ({"n_iter": 0}, "n_iter must be an int"),
])
def test_regressor_bad_parameters(diabetes, params, message):
    X, y = diabetes
    with pytest.raises(ValueError) as error:
        BayesianTreeRegressor(**{**FAST, **params}).fit(X[:50], y[:50])
    assert message in str(error.value)


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
_NO_JIT_SNIPPET = """
import json
import treesmith
from sklearn.datasets import load_iris

X, y = load_iris(return_X_y=True)
model = treesmith.BayesianTreeClassifier(n_iter=300, n_chains=2, averaging="posterior",
                                         random_state=0).fit(X, y)
print(json.dumps({"trace": model.log_posterior_trace_.tolist(),
                  "proba": model.predict_proba(X[::10]).tolist()}))
"""


def test_sampler_runs_as_python_under_numba_disable_jit(iris):
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
    X, y = iris
    model = BayesianTreeClassifier(n_iter=300, n_chains=2, averaging="posterior",
                                   random_state=0).fit(X, y)
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
