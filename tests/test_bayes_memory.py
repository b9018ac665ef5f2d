"""What Bayesian CART's chains allocate (``treesmith.bayes.chain_memory_bytes`` and
``sample_memory_bytes``, docs/methods.md §7): the estimates bound tracemalloc's peak (numba's
runtime allocates through CPython's allocator, so tracemalloc sees the kernel's arrays), a
request over the available memory fails before anything is allocated, and the posterior sample
of ``averaging="posterior"`` stays within the memory the chains leave."""

import tracemalloc

import numpy as np
import pytest

import treesmith.bayes as bayes
import treesmith.grower
from treesmith import BayesianTreeClassifier, BayesianTreeRegressor
from treesmith._kernels import bayes as kernel


def _data(estimator, n, n_features=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    if estimator is BayesianTreeClassifier:
        return X, (X[:, 0] + X[:, 1] > 0).astype(int)
    return X, X[:, 0] + rng.normal(size=n)


class _Measured:
    """Traced memory from the start of the chains to the end of fit, and the chains' results
    (the recorded sample's size)."""

    def __init__(self, monkeypatch):
        self.results = None
        self.start = 0
        run_chains = bayes.BaseBayesianTree._run_chains

        def measured(estimator, data, prior, settings, seeds):
            self.start = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            self.results = run_chains(estimator, data, prior, settings, seeds)
            return self.results

        monkeypatch.setattr(bayes.BaseBayesianTree, "_run_chains", measured)

    def fit(self, model, X, y):
        tracemalloc.start()
        try:
            model.fit(X, y)
            return tracemalloc.get_traced_memory()[1] - self.start
        finally:
            tracemalloc.stop()


def _estimate(model, results, n_samples, n_features):
    width = results[0].best_stats.shape[1]
    max_leaves = min(model.max_leaves or n_samples, n_samples)
    fixed = bayes.chain_memory_bytes(model.n_iter, model.n_chains, n_samples, max_leaves, width,
                                     n_features, bayes._bins_bound(model.max_bins),
                                     model._running_chains(model.n_chains))
    nodes = sum(r.sample_feature.shape[0] for r in results)
    trees = sum(r.sample_weights.shape[0] for r in results)
    return fixed + bayes.sample_memory_bytes(nodes, trees, width), nodes


@pytest.mark.parametrize("estimator,n,params", [
    (BayesianTreeClassifier, 400, dict(n_iter=20_000, n_chains=2)),
    (BayesianTreeRegressor, 400, dict(n_iter=20_000, n_chains=2)),
    (BayesianTreeClassifier, 8000, dict(n_iter=1000, n_chains=2, max_leaves=None)),
    (BayesianTreeClassifier, 400, dict(n_iter=10_000, n_chains=3, n_jobs=2,
                                       averaging="posterior")),
    (BayesianTreeRegressor, 400, dict(n_iter=10_000, n_chains=2, averaging="posterior")),
    (BayesianTreeClassifier, 1500, dict(n_iter=3000, n_chains=2, averaging="posterior",
                                        max_leaves=None, sigma=0.99, phi=0.2)),
])
def test_the_estimate_bounds_the_traced_peak_within_a_small_factor(monkeypatch, estimator, n,
                                                                   params):
    X, y = _data(estimator, n)
    estimator(**{**params, "n_iter": 20}).fit(X, y)  # compiled before measuring
    measured = _Measured(monkeypatch)
    model = estimator(**params, random_state=0)
    peak = measured.fit(model, X, y)
    estimate, nodes = _estimate(model, measured.results, n, X.shape[1])
    assert (nodes > 0) == (model.averaging == "posterior")
    assert peak <= estimate <= 3 * peak


def test_a_request_over_the_limit_fails_before_allocating(monkeypatch):
    """The error comes before binning and before any chain runs, and names the parameters."""
    X, y = _data(BayesianTreeClassifier, 200)

    def must_not_run(*args, **kwargs):
        raise AssertionError("allocated before the memory check")

    monkeypatch.setattr(bayes.BinMapper, "fit_transform", must_not_run)
    monkeypatch.setattr(kernel, "run_chain", must_not_run)
    monkeypatch.setattr(treesmith.grower, "available_memory_bytes", lambda: 2**20)
    with pytest.raises(ValueError) as error:
        BayesianTreeClassifier(n_iter=100_000, n_chains=2).fit(X, y)
    message = str(error.value)
    for part in ("n_iter=100000", "n_chains=2", "48 bytes per iteration", "max_leaves",
                 "of memory available"):
        assert part in message
    assert "averaging" not in message
    # averaging="posterior" needs room for one tree of the largest size per chain at least
    needed = bayes.chain_memory_bytes(100, 2, 200, 64, 2, 5, 256, 1)
    monkeypatch.setattr(treesmith.grower, "available_memory_bytes", lambda: needed + 1000)
    with pytest.raises(ValueError, match=r"averaging='posterior' at least .* lower n_iter, "
                                         r"n_chains or max_leaves, or use averaging='map'"):
        BayesianTreeClassifier(n_iter=100, n_chains=2, averaging="posterior").fit(X, y)


def test_the_posterior_sample_stops_at_the_memory_left(monkeypatch):
    """Given room for a few trees only, the chains stop recording there (their buffers never
    pass it) and fit says which parameters to change; with room, the same fit succeeds."""
    X, y = _data(BayesianTreeClassifier, 300)
    params = dict(n_iter=4000, n_chains=2, averaging="posterior", random_state=0)
    BayesianTreeClassifier(**{**params, "n_iter": 20}).fit(X, y)
    needed = bayes.chain_memory_bytes(4000, 2, 300, 64, 2, 5, 256, 1)
    node_bytes = bayes.sample_memory_bytes(1, 1, 2)
    room = 2 * 3 * 127  # three trees of the largest size per chain
    monkeypatch.setattr(treesmith.grower, "available_memory_bytes",
                        lambda: needed + room * node_bytes)
    measured = _Measured(monkeypatch)
    with pytest.raises(ValueError) as error:
        measured.fit(BayesianTreeClassifier(**params), X, y)
    message = str(error.value)
    for part in ("averaging='posterior'", "n_iter - burn_in = 4000 - 1000", "raise burn_in",
                 "use averaging='map'", "381 nodes"):
        assert part in message
    for r in measured.results:
        assert r.sample_feature.shape[0] <= room // 2
    assert any(r.sample_truncated for r in measured.results)
    monkeypatch.setattr(treesmith.grower, "available_memory_bytes", lambda: None)
    model = BayesianTreeClassifier(**params).fit(X, y)
    assert model.posterior_sample_.offsets[-1] > room


def test_the_kernels_limit_keeps_the_sample_below_it_and_changes_nothing_else():
    """``SamplerSettings.max_sample_nodes``: the recorded trees are those of an unlimited
    chain, up to the first that would pass the limit, where the chain stops."""
    rng = np.random.default_rng(1)
    X_binned = rng.integers(0, 8, size=(200, 3)).astype(np.uint8)
    y = (X_binned[:, 0] + X_binned[:, 1] > 7).astype(np.int64)
    data = kernel.BinnedData(np.asfortranarray(X_binned), np.arange(200, dtype=np.int64), y,
                             np.zeros(0), np.ones(200), 8, 7, np.zeros(3, dtype=bool))
    prior = kernel.TreePrior(0.95, 0.5, kernel.CLASSIFICATION, np.ones(2), -1, 16, 1.0)

    burn_in = 500

    def chain(limit):
        settings = kernel.SamplerSettings(3000, burn_in,
                                          kernel.DEFAULT_MOVE_PROBABILITIES.copy(), False, True,
                                          limit)
        return bayes.ChainResult(*kernel.run_chain(data, prior, settings, 3))

    full, unlimited = chain(-1), chain(10**9)
    assert not full.sample_truncated and not unlimited.sample_truncated
    for name in bayes.ChainResult._fields[:-1]:
        np.testing.assert_array_equal(getattr(full, name), getattr(unlimited, name))
    limit = int(full.sample_offsets[-1]) // 3
    cut = chain(limit)
    assert cut.sample_truncated
    n_trees = cut.sample_weights.shape[0]
    assert cut.sample_offsets[-1] <= limit < full.sample_offsets[n_trees + 1]
    np.testing.assert_array_equal(cut.sample_offsets, full.sample_offsets[:n_trees + 1])
    np.testing.assert_array_equal(cut.sample_feature,
                                  full.sample_feature[:cut.sample_offsets[-1]])
    # the chain stopped at the tree that would pass the limit: its traces are the unlimited
    # chain's up to that iteration (the first of the tree's run, after burn_in)
    n_run = cut.log_posterior.shape[0]
    assert burn_in < n_run < full.log_posterior.shape[0]
    for name in ("log_posterior", "log_likelihood", "n_leaves"):
        np.testing.assert_array_equal(getattr(cut, name), getattr(full, name)[:n_run])
    assert cut.n_proposed.sum() == n_run
    # every iteration from burn_in on but the last is recorded, each tree's run whole
    assert int(cut.sample_weights.sum()) == n_run - 1 - burn_in
    np.testing.assert_array_equal(cut.sample_weights, full.sample_weights[:n_trees])
