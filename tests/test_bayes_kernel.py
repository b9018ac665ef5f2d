"""The Metropolis–Hastings sampler of treesmith._kernels.bayes against exact answers.

On toy problems small enough to enumerate every tree, an independent Python enumeration gives
the exact prior and posterior of every tree; the sampler's visiting frequencies must match them
(total variation). With the likelihood switched off the sampler must draw from the prior: its
tree-size distribution is checked against a recursion over value intervals. Incremental
bookkeeping is checked by recomputing the state's log prior and log likelihood from scratch.
"""

import itertools
import math
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treesmith._kernels import bayes as kernel

LEAF_KEY = (-2, -1)
CATEGORICAL = int(kernel.CATEGORICAL_SPLIT)


def binned_data(X_binned, y, sample_weight=None, is_categorical=None):
    X_binned = np.asfortranarray(X_binned, dtype=np.uint8)
    n = X_binned.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    n_bins = int(X_binned.max()) + 1  # the largest bin plays the missing-value bin
    y = np.asarray(y)
    y_code = y.astype(np.int64) if y.dtype.kind in "iu" else np.zeros(n, dtype=np.int64)
    y_value = np.asarray(y, dtype=np.float64) if y.dtype.kind == "f" else np.zeros(0)
    if is_categorical is None:
        is_categorical = np.zeros(X_binned.shape[1], dtype=bool)
    return kernel.BinnedData(X_binned, np.flatnonzero(w > 0).astype(np.int64), y_code,
                             y_value, w, n_bins, n_bins - 1,
                             np.asarray(is_categorical, dtype=bool))


def make_prior(sigma=0.95, phi=1.0, a=(1.0, 1.0), max_depth=-1, max_leaves=64, power=1.0):
    return kernel.TreePrior(float(sigma), float(phi), kernel.CLASSIFICATION,
                            np.asarray(a, dtype=np.float64), int(max_depth), int(max_leaves),
                            float(power))


def make_settings(n_iter, burn_in=0, start_from_prior=False, record=True):
    return kernel.SamplerSettings(int(n_iter), int(burn_in),
                                  kernel.DEFAULT_MOVE_PROBABILITIES.copy(),
                                  bool(start_from_prior), bool(record))


def set_codes(words):
    """Codes of a 256-bit category set (four uint64 words)."""
    return tuple(c for c in range(256) if (int(words[c >> 6]) >> (c & 63)) & 1)


def tree_key(feature, bins, categories):
    """Preorder key of a compact tree: (feature, bin) per node, a categorical rule's key
    (feature, -2, codes sent left...)."""
    return tuple((f, b) if b != CATEGORICAL else (f, b, *set_codes(words))
                 for f, b, words in zip(feature.tolist(), bins.tolist(), categories))


def best_key(r):
    return tree_key(r[5], r[6], r[21])


def sample_frequencies(results):
    """Visiting frequency of every tree (preorder key, ``tree_key``) over the chains."""
    counts = Counter()
    for r in results:
        offsets, weights = r[13], r[14]
        feature, bins, categories = r[15], r[16], r[22]
        for t in range(weights.shape[0]):
            lo, hi = offsets[t], offsets[t + 1]
            counts[tree_key(feature[lo:hi], bins[lo:hi], categories[lo:hi])] += weights[t]
    total = sum(counts.values())
    return {key: count / total for key, count in counts.items()}


# -- the exact answer, computed independently ---------------------------------------------
def log_marginal(y_rows, w_rows, a):
    counts = np.array([w_rows[y_rows == k].sum() for k in range(len(a))])
    return (math.lgamma(sum(a)) - sum(math.lgamma(x) for x in a)
            + sum(math.lgamma(c + x) for c, x in zip(counts, a))
            - math.lgamma(counts.sum() + sum(a)))


def split_probability(prior, depth):
    if 0 <= prior.max_depth <= depth:
        return 0.0
    return prior.sigma * (1.0 + depth) ** (-prior.phi)


def feature_rules(X, rows, f, categorical):
    """The rules of feature f available on ``rows``, each (key, rows going left): thresholds
    at every distinct value but the largest; for a categorical feature, every non-empty set
    of its distinct values that leaves out the largest (one per partition)."""
    values = np.unique(X[rows, f])
    if not categorical:
        return [((f, int(b)), X[rows, f] <= b) for b in values[:-1]]
    rules = []
    for size in range(1, values.size):
        for subset in itertools.combinations(values[:-1].tolist(), size):
            rules.append(((f, CATEGORICAL, *subset), np.isin(X[rows, f], subset)))
    return rules


def enumerate_trees(X, y, w, prior, likelihood=None, is_categorical=None):
    """Every tree on (X, y) under the prior's rules with at most ``prior.max_leaves`` leaves:
    {key: (log prior, log likelihood, leaves)}, the prior being the generative one *before*
    conditioning on max_leaves. ``likelihood(list of leaf row arrays)`` defaults to the
    Dirichlet-multinomial one."""
    categorical = np.zeros(X.shape[1], dtype=bool) if is_categorical is None else is_categorical
    if likelihood is None:
        a = list(prior.leaf_parameters)

        def likelihood(leaves):
            return sum(log_marginal(y[rows], w[rows], a) for rows in leaves)

    def trees(rows, depth, budget):
        values = [np.unique(X[rows, f]) for f in range(X.shape[1])]
        usable = [f for f in range(X.shape[1]) if values[f].size >= 2]
        p = split_probability(prior, depth) if usable else 0.0
        stop = math.log1p(-p) if p < 1 else -math.inf
        out = [([LEAF_KEY], stop, [rows])]
        if p == 0.0 or budget < 2:
            return out
        for f in usable:
            rules = feature_rules(X, rows, f, categorical[f])
            for rule_key, goes_left in rules:
                rule = math.log(p) - math.log(len(usable)) - math.log(len(rules))
                left, right = rows[goes_left], rows[~goes_left]
                for key_l, pri_l, leaves_l in trees(left, depth + 1, budget - 1):
                    for key_r, pri_r, leaves_r in trees(right, depth + 1,
                                                        budget - len(leaves_l)):
                        out.append(([rule_key] + key_l + key_r, rule + pri_l + pri_r,
                                    leaves_l + leaves_r))
        return out

    rows = np.flatnonzero(w > 0)
    return {tuple(key): (pri, likelihood(leaves), len(leaves))
            for key, pri, leaves in trees(rows, 0, prior.max_leaves)}


def mean_shift_log_likelihood(y, w, a, nu, lam, mu_bar):
    """CGM98's mean-shift marginal likelihood written with s_i and t_i as in the paper."""
    def likelihood(leaves):
        n = sum(w[rows].sum() for rows in leaves)
        total, separable = 0.0, 0.0
        for rows in leaves:
            n_i = w[rows].sum()
            mean = np.dot(w[rows], y[rows]) / n_i
            s_i = np.dot(w[rows], (y[rows] - mean) ** 2)
            t_i = n_i * a / (n_i + a) * (mean - mu_bar) ** 2
            total += s_i + t_i
            separable += 0.5 * math.log(a) - 0.5 * math.log(n_i + a)
        return (-n / 2 * math.log(2 * math.pi) + nu / 2 * math.log(nu * lam / 2)
                - math.lgamma(nu / 2) + separable + math.lgamma((n + nu) / 2)
                - (n + nu) / 2 * math.log((total + nu * lam) / 2))

    return likelihood


def exact_distribution(enumerated, prior):
    """Target of the sampler: prior conditioned on max_leaves, times likelihood^power."""
    keys = [k for k, (_, _, n) in enumerated.items() if n <= prior.max_leaves]
    logs = np.array([enumerated[k][0] + prior.likelihood_power * enumerated[k][1]
                     for k in keys])
    probs = np.exp(logs - logs.max())
    probs /= probs.sum()
    return dict(zip(keys, probs))


def total_variation(p, q):
    keys = set(p) | set(q)
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in keys)


@pytest.fixture(scope="module")
def toy():
    """Two features with three bins each; feature 1 is missing (bin 3) in two rows."""
    X = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [2, 0], [2, 1], [2, 2],
                  [0, 0], [2, 2], [1, 3], [2, 3]])
    y = np.array([0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0])
    return X, y


def run(data, prior, settings, seeds):
    return [kernel.run_chain(data, prior, settings, seed) for seed in seeds]


# -- tests ---------------------------------------------------------------------------------
def test_enumeration_oracle_is_a_distribution_on_a_hand_checked_case():
    """One feature with two values: the root alone or one split."""
    X = np.array([[0], [1]])
    y = np.array([0, 1])
    prior = make_prior(sigma=0.5, phi=1.0)
    trees = enumerate_trees(X, y, np.ones(2), prior)
    assert set(trees) == {(LEAF_KEY,), ((0, 0), LEAF_KEY, LEAF_KEY)}
    assert math.exp(trees[(LEAF_KEY,)][0]) == pytest.approx(0.5)
    assert math.exp(trees[((0, 0), LEAF_KEY, LEAF_KEY)][0]) == pytest.approx(0.5)
    # Dirichlet(1, 1): p(y) = 1/2 * 1/3 for the root ([1, 1] -> Beta(2,2)/Beta(1,1) = 1/6),
    # 1/2 * 1/2 for the split (each leaf [1, 0] -> 1/2).
    assert math.exp(trees[(LEAF_KEY,)][1]) == pytest.approx(1 / 6)
    assert math.exp(trees[((0, 0), LEAF_KEY, LEAF_KEY)][1]) == pytest.approx(1 / 4)


@pytest.mark.parametrize("power, max_depth, max_leaves", [
    (1.0, 2, 64),  # the posterior over the 77 trees of depth <= 2
    (0.0, 2, 64),  # the prior
    (1.0, -1, 3),  # the posterior conditioned on at most 3 leaves, any depth
])
def test_sampler_visits_trees_with_their_exact_probabilities(toy, power, max_depth, max_leaves):
    check_against_enumeration(toy, power, max_depth, max_leaves, n_iter=100_000, tolerance=0.04)


@pytest.mark.slow
def test_sampler_matches_the_exact_posterior_over_trees_of_depth_3(toy):
    """1 240 trees; total variation of 2 x 400 000 iterations is about 0.03 (it falls as
    1 / sqrt(iterations): 0.076 at 1e5, 0.024 at 1e6 in one measurement)."""
    check_against_enumeration(toy, 1.0, 3, 64, n_iter=400_000, tolerance=0.05)


def check_against_enumeration(toy, power, max_depth, max_leaves, n_iter, tolerance):
    X, y = toy
    prior = make_prior(sigma=0.9, phi=0.5, a=(0.7, 1.3), max_depth=max_depth,
                       max_leaves=max_leaves, power=power)
    exact = exact_distribution(enumerate_trees(X, y, np.ones(len(y)), prior), prior)
    assert len(exact) > 20
    results = run(binned_data(X, y), prior, make_settings(n_iter, burn_in=2_000), [1, 2])
    sampled = sample_frequencies(results)
    assert set(sampled) <= set(exact)  # every visited tree is a valid tree
    tv = total_variation(sampled, exact)
    assert tv < tolerance, tv
    # the five most probable trees one by one: within 1.5 percentage points
    for key in sorted(exact, key=exact.get)[-5:]:
        assert abs(sampled.get(key, 0.0) - exact[key]) < 0.015, key


def test_sampler_with_sample_weights_matches_the_weighted_posterior(toy):
    X, y = toy
    w = np.array([1, 2, 0, 1, 3, 1, 0.5, 1, 1, 2, 1, 1, 0])  # zero weights: rows ignored
    prior = make_prior(sigma=0.9, phi=0.5, max_depth=2)
    exact = exact_distribution(enumerate_trees(X, y, w, prior), prior)
    sampled = sample_frequencies(run(binned_data(X, y, w), prior,
                                     make_settings(100_000, burn_in=1_000), [3, 4]))
    assert total_variation(sampled, exact) < 0.05


def test_prior_tree_sizes_match_the_interval_recursion():
    """No likelihood (power 0), one feature with 12 distinct values: the number of leaves is
    distributed as the recursion over value intervals says, conditioned on <= 8 leaves."""
    n_values, max_leaves = 12, 8
    sigma, phi = 0.95, 0.8

    @lru_cache(maxsize=None)
    def leaves(m, depth):
        """Distribution (array over 0..max_leaves) of the leaf count of a node holding m
        distinct values at this depth, before conditioning."""
        p = sigma * (1.0 + depth) ** (-phi) if m >= 2 else 0.0
        out = np.zeros(max_leaves + 1)
        out[1] = 1.0 - p
        for k in range(1, m):
            conv = np.convolve(leaves(k, depth + 1), leaves(m - k, depth + 1))[:max_leaves + 1]
            out += p / (m - 1) * conv
        return out

    exact = leaves(n_values, 0)
    exact = exact / exact.sum()
    X = np.arange(n_values).repeat(2)[:, None]
    y = np.zeros(X.shape[0], dtype=np.int64)
    prior = make_prior(sigma=sigma, phi=phi, a=(1.0,), max_leaves=max_leaves, power=0.0)
    results = run(binned_data(X, y), prior, make_settings(200_000, burn_in=1_000,
                                                          record=False), [5, 6])
    sizes = np.concatenate([r[2][1_000:] for r in results])
    sampled = np.bincount(sizes, minlength=max_leaves + 1) / sizes.size
    assert 0.5 * np.abs(sampled - exact).sum() < 0.02, (sampled, exact)


def test_state_bookkeeping_matches_a_recomputation(toy):
    """The best tree's log prior and log likelihood, kept incrementally over thousands of
    moves, equal the enumeration's values for that tree."""
    X, y = toy
    prior = make_prior(sigma=0.9, phi=0.5, max_depth=3)
    trees = enumerate_trees(X, y, np.ones(len(y)), prior)
    for seed in (7, 8):
        r = kernel.run_chain(binned_data(X, y), prior, make_settings(5_000), seed)
        key = best_key(r)
        assert r[11] == pytest.approx(trees[key][0], abs=1e-9)
        assert r[12] == pytest.approx(trees[key][1], abs=1e-9)
        # the MAP is the enumeration's best tree on this small problem
        best = max(trees, key=lambda k: trees[k][0] + trees[k][1])
        assert r[11] + r[12] == pytest.approx(trees[best][0] + trees[best][1])


def test_chains_are_reproducible_and_independent_of_each_other(toy):
    X, y = toy
    data, prior = binned_data(X, y), make_prior()
    settings = make_settings(2_000)
    first = kernel.run_chain(data, prior, settings, 11)
    again = kernel.run_chain(data, prior, settings, 11)
    other = kernel.run_chain(data, prior, settings, 12)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


def test_start_from_prior_draws_a_tree_and_the_chain_still_targets_the_posterior(toy):
    X, y = toy
    prior = make_prior(sigma=0.9, phi=0.5, max_depth=2)
    exact = exact_distribution(enumerate_trees(X, y, np.ones(len(y)), prior), prior)
    settings = make_settings(60_000, burn_in=1_000, start_from_prior=True)
    results = run(binned_data(X, y), prior, settings, [21, 22])
    assert total_variation(sample_frequencies(results), exact) < 0.06
    starts = {kernel.run_chain(binned_data(X, y), prior, make_settings(1, start_from_prior=True),
                               seed)[2][0] for seed in range(20)}
    assert len(starts) > 1  # prior draws of different sizes


def test_leaves_without_a_usable_split_and_max_depth_are_respected():
    X = np.array([[0, 5], [0, 5], [1, 5], [1, 5]])
    y = np.array([0, 0, 1, 1])
    prior = make_prior(sigma=1.0, phi=0.0, max_depth=-1)  # split whenever possible
    r = kernel.run_chain(binned_data(X, y), prior, make_settings(500), 0)
    # only feature 0 varies, once: the single split is forced (p_split = 1 at the root)
    assert r[5].tolist() == [0, -2, -2] and r[6].tolist() == [0, -1, -1]
    assert np.all(r[2][-100:] == 2)
    capped = make_prior(sigma=1.0, phi=0.0, max_depth=0)
    r = kernel.run_chain(binned_data(X, y), capped, make_settings(500), 0)
    assert np.all(r[2] == 1)


def test_log_marginal_matches_the_beta_function_formula():
    weights = np.array([3.0, 5.0])
    a = np.array([0.5, 2.0])
    expected = (math.lgamma(2.5) - math.lgamma(0.5) - math.lgamma(2.0) + math.lgamma(3.5)
                + math.lgamma(7.0) - math.lgamma(10.5))
    assert kernel.dirichlet_log_marginal(weights, a) == pytest.approx(expected)


def test_uniform_draws_cover_the_unit_interval():
    state = np.array([kernel.initial_state(3)], dtype=np.uint64)
    draws = np.array([kernel.uniform(state) for _ in range(20_000)])
    assert draws.min() >= 0.0 and draws.max() < 1.0
    counts = np.histogram(draws, bins=10, range=(0, 1))[0]
    assert np.all(np.abs(counts - 2_000) < 200)


def test_mean_shift_marginal_likelihood_matches_numerical_integration():
    """One leaf, three points: integrate N(y | mu, s2) N(mu | mu_bar, s2 / a) InvGamma(s2)
    over mu and log s2 on a fine grid (trapezoid rule; the integrand is smooth)."""
    from scipy import integrate, stats

    y = np.array([0.3, 1.1, 0.8])
    a, nu, lam, mu_bar = 0.5, 3.0, 0.4, 0.2
    log_s2 = np.linspace(math.log(1e-5), math.log(1e4), 601)
    mu = np.linspace(-8.0, 8.0, 801)
    s2 = np.exp(log_s2)[:, None]
    log_integrand = (stats.norm.logpdf(y[:, None, None], mu, np.sqrt(s2)).sum(axis=0)
                     + stats.norm.logpdf(mu, mu_bar, np.sqrt(s2 / a))
                     + stats.invgamma.logpdf(s2, nu / 2, scale=nu * lam / 2)
                     + np.log(s2))  # d s2 = s2 d log s2
    value = integrate.trapezoid(integrate.trapezoid(np.exp(log_integrand), mu, axis=1),
                                log_s2)
    formula = mean_shift_log_likelihood(y, np.ones(3), a, nu, lam, mu_bar)([np.arange(3)])
    assert formula == pytest.approx(math.log(value), abs=1e-5)
    # the kernel's leaf terms, on statistics of y - mu_bar
    prior = kernel.TreePrior(0.5, 1.0, kernel.REGRESSION, np.array([a, nu, lam, 3.0]), -1, 8,
                             1.0)
    centred = y - mu_bar
    stats_row = np.array([3.0, centred.sum(), (centred ** 2).sum()])
    separable, residual = kernel.leaf_terms(stats_row, prior)
    assert separable + kernel.shared_log_likelihood(prior, residual) == pytest.approx(formula)


@pytest.mark.parametrize("max_depth, max_leaves", [(2, 64), (-1, 3)])
def test_regression_sampler_visits_trees_with_their_exact_probabilities(toy, max_depth,
                                                                        max_leaves):
    X, _ = toy
    y = np.array([0.1, 0.4, 2.0, 0.2, 1.5, 1.9, 2.2, 1.4, 2.1, 0.0, 2.4, 0.3, 0.6])
    w = np.array([1, 1, 2, 1, 1, 1, 1, 3, 1, 1, 1, 0.5, 1])
    a, nu, lam, mu_bar = 1 / 3, 3.0, 0.2, 1.0
    prior = kernel.TreePrior(0.9, 0.5, kernel.REGRESSION, np.array([a, nu, lam, w.sum()]),
                             max_depth, max_leaves, 1.0)
    trees = enumerate_trees(X, y, w, prior, mean_shift_log_likelihood(y, w, a, nu, lam, mu_bar))
    exact = exact_distribution(trees, prior)
    data = binned_data(X, y - mu_bar, w)
    results = run(data, prior, make_settings(100_000, burn_in=2_000), [9, 10])
    sampled = sample_frequencies(results)
    assert set(sampled) <= set(exact)
    assert total_variation(sampled, exact) < 0.04
    # the running log likelihood of the best tree equals the formula
    for r in results:
        key = best_key(r)
        assert r[12] == pytest.approx(trees[key][1], rel=1e-9)


def score_tree(X, y, w, prior, key, is_categorical=None):
    """(log prior, log likelihood) of one tree given by its preorder key, computed directly;
    raises AssertionError if a rule is not available in its node."""
    categorical = np.zeros(X.shape[1], dtype=bool) if is_categorical is None else is_categorical
    a = list(prior.leaf_parameters)
    position = [0]

    def walk(rows, depth):
        node_key = key[position[0]]
        f = node_key[0]
        position[0] += 1
        values = [np.unique(X[rows, g]) for g in range(X.shape[1])]
        usable = [g for g in range(X.shape[1]) if values[g].size >= 2]
        p = split_probability(prior, depth) if usable else 0.0
        if f < 0:
            stop = math.log1p(-p) if p < 1 else -math.inf
            return stop, log_marginal(y[rows], w[rows], a)
        rules = dict(feature_rules(X, rows, f, categorical[f])) if f in usable else {}
        assert node_key in rules, node_key
        rule = math.log(p) - math.log(len(usable)) - math.log(len(rules))
        goes_left = rules[node_key]
        pri_l, lik_l = walk(rows[goes_left], depth + 1)
        pri_r, lik_r = walk(rows[~goes_left], depth + 1)
        return rule + pri_l + pri_r, lik_l + lik_r

    return walk(np.flatnonzero(w > 0), 0)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_incremental_bookkeeping_matches_a_direct_score_on_random_problems(data):
    """On random small problems, numeric and categorical features mixed, the best tree's
    running log prior and log likelihood equal a direct computation, every recorded tree is
    valid, and the trace never exceeds the MAP."""
    n = data.draw(st.integers(2, 14))
    n_features = data.draw(st.integers(1, 3))
    categorical = np.array(data.draw(st.lists(st.booleans(), min_size=n_features,
                                              max_size=n_features)))
    X = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=n_features,
                                             max_size=n_features), min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n,
                                    max_size=n)))
    if not w.sum() > 0:
        w[0] = 1.0
    prior = make_prior(sigma=data.draw(st.floats(0.05, 1.0)), phi=data.draw(st.floats(0, 3)),
                       a=(0.5, 1.0, 2.0), max_leaves=data.draw(st.integers(1, 6)))
    r = kernel.run_chain(binned_data(X, y, w, categorical), prior, make_settings(400),
                         data.draw(st.integers(0, 2**31 - 1)))
    log_prior, log_likelihood = score_tree(X, y, w, prior, best_key(r), categorical)
    if np.isfinite(log_prior):
        assert r[11] == pytest.approx(log_prior, abs=1e-9)
    assert r[12] == pytest.approx(log_likelihood, abs=1e-9)
    assert np.all(r[0] <= r[11] + r[12] + 1e-9)
    assert np.all(r[2] <= prior.max_leaves)
    for t in range(r[14].shape[0]):
        lo, hi = r[13][t], r[13][t + 1]
        score_tree(X, y, w, prior, tree_key(r[15][lo:hi], r[16][lo:hi], r[22][lo:hi]),
                   categorical)


# -- categorical rules ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def categorical_toy():
    """Feature 0 categorical with codes 0, 1, 2 and missing values (bin 3, four distinct
    bins: 7 partitions at the root); feature 1 numeric with three values."""
    X = np.array([[0, 0], [0, 1], [1, 2], [1, 0], [2, 1], [2, 2], [3, 0], [3, 2], [0, 2],
                  [2, 0], [1, 1], [3, 1]])
    y = np.array([0, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0])
    return X, y, np.array([True, False])


def test_categorical_rule_draws_are_uniform_over_the_partitions_of_the_present_bins():
    """The prior's rule draw at a node holding codes 0, 2, 5 and the missing bin 6 (code 1, 3,
    4 absent): each of the 2^3 - 1 = 7 sets of {0, 2, 5} (the largest present bin, 6, stays
    right) equally likely (chi-square), nothing else drawn, and the logged rule count is
    log 7."""
    from scipy.stats import chisquare

    X = np.array([0, 2, 5, 6, 0, 2, 5, 6])[:, None]
    data = binned_data(X, np.array([0, 1] * 4), is_categorical=[True])
    nodes, scratch = kernel.new_state(data, make_prior())
    state = np.array([kernel.initial_state(3)], dtype=np.uint64)
    counts = Counter()
    for _ in range(7_000):
        f, b, following, n_usable, log_n_rules = kernel.draw_rule(data, nodes, scratch, 0,
                                                                  state)
        assert (f, b, following, n_usable) == (0, CATEGORICAL, -1, 1)
        assert log_n_rules == pytest.approx(math.log(7))
        counts[set_codes(scratch.rule_sets[0])] += 1
    expected = {subset for size in (1, 2, 3) for subset in itertools.combinations((0, 2, 5),
                                                                                   size)}
    assert set(counts) == expected
    assert chisquare([counts[k] for k in sorted(expected)]).pvalue > 1e-3


def test_partition_counts_are_exact_in_logs():
    for m in (2, 3, 4, 10, 64, 65, 256):
        assert kernel.log_n_partitions(m) == pytest.approx(math.log(2 ** (m - 1) - 1),
                                                           rel=1e-15, abs=1e-15)


def test_a_categorical_rule_is_available_only_in_its_canonical_form():
    """On a slice holding codes {0, 1, 3}: a set of present codes without 3 is available (log
    of 2^2 - 1 rules), a set with an absent code (2) or with the largest present code (3) is
    not."""
    X = np.asfortranarray(np.array([[0], [1], [3], [1]], dtype=np.uint8))
    samples = np.arange(4, dtype=np.int64)
    present = np.zeros(4, dtype=np.bool_)

    def count(codes):
        words = np.zeros(4, dtype=np.uint64)
        for c in codes:
            words[c >> 6] |= np.uint64(1) << np.uint64(c & 63)
        return kernel.category_rule_log_count(X, samples, 0, 4, 0, words, present)

    assert count([0, 1]) == pytest.approx(math.log(3))
    assert count([1]) == pytest.approx(math.log(3))
    assert count([0, 2]) == -np.inf
    assert count([3]) == -np.inf
    assert not present.any()  # the scratch is left clean


@pytest.mark.parametrize("power, max_depth, max_leaves, n_iter", [
    (1.0, 2, 64, 200_000),  # the posterior over the 265 trees of depth <= 2
    (0.0, 1, 64, 50_000),  # the prior over the 10 stumps: the grow proposal's rule draw
    (1.0, -1, 3, 100_000),  # the 86 trees of at most 3 leaves, any depth
])
def test_sampler_with_a_categorical_feature_visits_trees_with_their_exact_probabilities(
        categorical_toy, power, max_depth, max_leaves, n_iter):
    """Total variation against the enumeration falls as 1 / sqrt(iterations), as a correct
    sampler's does (depth <= 2, two chains, two seed pairs: 0.031-0.035 at 1e5 iterations,
    0.013-0.015 at 4e5, 0.008 at 1.6e6)."""
    X, y, categorical = categorical_toy
    prior = make_prior(sigma=0.9, phi=0.5, a=(0.7, 1.3), max_depth=max_depth,
                       max_leaves=max_leaves, power=power)
    exact = exact_distribution(enumerate_trees(X, y, np.ones(len(y)), prior,
                                               is_categorical=categorical), prior)
    results = run(binned_data(X, y, is_categorical=categorical), prior,
                  make_settings(n_iter, burn_in=2_000), [1, 2])
    _assert_visits_match(results, exact)
    for r in results:  # the best tree's running scores equal the direct ones
        assert r[11] == pytest.approx(exact_scores(X, y, prior, best_key(r), categorical)[0],
                                      abs=1e-9)



def test_sampler_with_two_categorical_features_visits_trees_with_their_exact_probabilities():
    """Both features categorical: feature 0 with codes 0-2 and missing values (bin 3), feature
    1 with codes 0-2 and a code 3 held by one row only, so that change and swap moves keep
    proposing set rules whose categories a child no longer holds (prior 0, rejected). The
    194 trees of at most 3 leaves, visited with their exact posterior probabilities."""
    X = np.array([[0, 0], [0, 1], [1, 2], [1, 0], [2, 1], [2, 2], [3, 0], [3, 1], [0, 2],
                  [1, 2], [2, 0], [3, 3]])
    y = np.array([0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1])
    categorical = np.array([True, True])
    prior = make_prior(sigma=0.95, phi=1.0, a=(1.0, 1.0), max_leaves=3)
    exact = exact_distribution(enumerate_trees(X, y, np.ones(len(y)), prior,
                                               is_categorical=categorical), prior)
    assert len(exact) == 194
    results = run(binned_data(X, y, is_categorical=categorical), prior,
                  make_settings(200_000, burn_in=2_000), [1, 2])
    _assert_visits_match(results, exact)


def _assert_visits_match(results, exact):
    """The chains visit only enumerated trees, within total variation 0.04 of the exact
    posterior, and the five likeliest trees within 0.015 each."""
    sampled = sample_frequencies(results)
    assert set(sampled) <= set(exact)
    tv = total_variation(sampled, exact)
    assert tv < 0.04, tv
    for key in sorted(exact, key=exact.get)[-5:]:
        assert abs(sampled.get(key, 0.0) - exact[key]) < 0.015, key


def exact_scores(X, y, prior, key, categorical):
    return score_tree(X, y, np.ones(len(y)), prior, key, categorical)
