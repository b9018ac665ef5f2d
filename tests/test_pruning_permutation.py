"""The compiled permutation test of S-pruning (treesmith/_kernels/permutation.py, Stamate et al. 2018 §3).

The observed gain against a brute-force enumeration of thresholds and missing-value sides;
the p-value's distribution under the null (labels independent of the feature) and on a
strong signal; reproducibility; the max-over-features variant.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treesmith._kernels.permutation import (
    permutation_test,
    permutation_test_max,
    permutation_test_naive,
)
from treesmith.criteria._impurity import entropy, gini

NO_PARAMS = np.zeros(1)
MISSING_BIN = 255


def python_gini(p):
    return 1.0 - float(np.sum(p ** 2))


def python_entropy(p):
    p = p[p > 0]
    return float(-np.sum(p * np.log2(p)))


def run(bins, y, weight=None, n_classes=2, n_bins=8, h=gini, min_samples_leaf=1,
        n_permutations=199, seed=0):
    bins = np.ascontiguousarray(bins, dtype=np.int64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    weight = np.ones(y.size) if weight is None else np.ascontiguousarray(weight, dtype=float)
    return permutation_test(bins, y, weight, n_classes, n_bins, MISSING_BIN, h, NO_PARAMS,
                            min_samples_leaf, 0.0, n_permutations, seed)


@settings(max_examples=60, deadline=None)
@given(
    data=st.integers(2, 40).flatmap(lambda n: st.tuples(
        hnp.arrays(np.int64, n, elements=st.sampled_from([0, 1, 2, 3, 4, 5, MISSING_BIN])),
        hnp.arrays(np.int64, n, elements=st.integers(0, 2)),
        hnp.arrays(np.float64, n, elements=st.sampled_from([0.5, 1.0, 2.0])),
    )),
    min_samples_leaf=st.integers(1, 4),
    use_entropy=st.booleans(),
)
def test_observed_gain_equals_brute_force(data, min_samples_leaf, use_entropy):
    bins, y, weight = data
    h, python_h = (entropy, python_entropy) if use_entropy else (gini, python_gini)
    gain, p_value = run(bins, y, weight, n_classes=3, n_bins=6, h=h,
                        min_samples_leaf=min_samples_leaf, n_permutations=0)
    expected, _ = permutation_test_naive(bins, y, weight, 3, 6, MISSING_BIN, python_h,
                                         min_samples_leaf=min_samples_leaf)
    if expected == -np.inf:
        assert gain == -np.inf and p_value == 1.0
    else:
        assert gain == pytest.approx(expected, abs=1e-12)
        assert p_value == 1.0  # (1 + 0) / (1 + 0)


def test_known_gain_and_missing_values_on_either_side():
    # Bins 0,0,1,1 with labels 0,0,1,1 and two missing values of class 1: the best test sends
    # bin 0 left and the rest right: gini(1/3, 2/3)... = 4/9 - 0 = 4/9 gain.
    bins = [0, 0, 1, 1, MISSING_BIN, MISSING_BIN]
    y = [0, 0, 1, 1, 1, 1]
    gain, _ = run(bins, y, n_bins=2, n_permutations=0)
    assert gain == pytest.approx(1 - (1 / 9 + 4 / 9))
    # Missing values of class 0 must join bin 0 to give the same perfect split.
    gain, _ = run(bins, [0, 0, 1, 1, 0, 0], n_bins=2, n_permutations=0)
    assert gain == pytest.approx(1 - (4 / 9 + 1 / 9))


def test_no_valid_split_gives_minus_infinity_and_p_one():
    assert run([3] * 10, [0, 1] * 5) == (-np.inf, 1.0)  # a constant feature
    assert run([0, 1, 2, 3], [0, 0, 1, 1], min_samples_leaf=3) == (-np.inf, 1.0)


def test_strong_signal_reaches_the_smallest_p_value():
    rng = np.random.default_rng(0)
    bins = rng.integers(0, 8, 300)
    y = (bins >= 4).astype(np.int64)
    for t in (99, 999):
        gain, p_value = run(bins, y, n_permutations=t)
        assert gain == pytest.approx(0.5, abs=0.02)
        assert p_value == 1 / (t + 1)


def test_p_values_are_nearly_uniform_under_the_null():
    """Labels independent of the feature: P(p <= s) <= s up to sampling noise (a valid test),
    and not far below s (ties between permuted gains make it only slightly conservative)."""
    rng = np.random.default_rng(1)
    p_values = []
    for seed in range(300):
        bins = rng.integers(0, 8, 60)
        y = rng.integers(0, 2, 60)
        p_values.append(run(bins, y, n_permutations=99, seed=seed)[1])
    p_values = np.array(p_values)
    # 300 runs: the binomial sd of a 5% rate is 1.3%, so 9% is three sd away.
    assert np.mean(p_values <= 0.05) <= 0.09
    for s in (0.1, 0.25, 0.5, 0.75, 0.9):
        assert s - 0.1 <= np.mean(p_values <= s) <= s + 0.08
    assert 0.45 <= np.mean(p_values) <= 0.6


def test_reproducible_and_seed_dependent():
    rng = np.random.default_rng(2)
    bins, y = rng.integers(0, 8, 80), rng.integers(0, 2, 80)
    first = run(bins, y, seed=123)
    assert run(bins, y, seed=123) == first
    others = {run(bins, y, seed=s)[1] for s in range(5)}
    assert len(others) > 1


def test_permutations_keep_weights_with_their_labels():
    # With class-0 samples weighted 10x, a shuffle that moved weights away from labels would
    # change the node's class totals; with pairs kept, every permutation has the same parent
    # impurity, so a perfect split is still the most extreme outcome.
    bins = np.repeat([0, 1], 20)
    y = np.repeat([0, 1], 20)
    weight = np.where(y == 0, 10.0, 1.0)
    gain, p_value = run(bins, y, weight, n_permutations=99)
    assert gain == pytest.approx(python_gini(np.array([200, 20]) / 220))
    assert p_value == 1 / 100


def test_max_over_features_controls_the_level_whatever_the_number_of_features():
    rng = np.random.default_rng(3)
    n_features = 5
    per_feature, best_of = [], []
    for seed in range(150):
        X = np.asfortranarray(rng.integers(0, 8, (60, n_features)))
        y = rng.integers(0, 2, 60)
        w = np.ones(60)
        gains = [run(X[:, f], y, n_permutations=0)[0] for f in range(n_features)]
        chosen = int(np.argmax(gains))
        per_feature.append(run(X[:, chosen], y, n_permutations=99, seed=seed)[1])
        gain, p_value = permutation_test_max(X, y, w, 2, np.full(n_features, 8), MISSING_BIN,
                                             gini, NO_PARAMS, 1, 0.0, 99, seed,
                                             np.zeros(n_features, dtype=bool), None)
        assert gain == pytest.approx(max(gains))
        best_of.append(p_value)
    # Re-testing only the chosen feature (Stamate et al. 2018) rejects far too often at s = 0.05;
    # the maximum over features does not.
    assert np.mean(np.array(per_feature) <= 0.05) > 0.1
    assert np.mean(np.array(best_of) <= 0.05) <= 0.1
    X = np.asfortranarray(np.column_stack([rng.integers(0, 8, 200) for _ in range(3)]))
    y = (X[:, 2] >= 4).astype(np.int64)
    assert permutation_test_max(X, y, np.ones(200), 2, np.full(3, 8), MISSING_BIN, gini,
                                NO_PARAMS, 1, 0.0, 99, 0, np.zeros(3, dtype=bool), None)[1] == 1 / 100


def test_a_categorical_column_is_scored_by_its_best_set_of_categories():
    """``permutation_test_max`` re-scores a categorical column with more than 10 categories
    (the categorical scan's ordered path) by its best set of categories: with two classes and
    gini the class-1 proportion order holds it (Breiman et al. 1984, Thm 4.5), so ``G`` is
    the best prefix's gain of that order, computed here in numpy."""
    from treesmith._kernels.pointers import impurity_pointer, scan_pointer

    rng = np.random.default_rng(4)
    n_categories = 25
    codes = rng.integers(0, n_categories, 600)
    y = (rng.random(600) < rng.random(n_categories)[codes]).astype(np.int64)
    X = np.asfortranarray(codes[:, None].astype(np.int64))
    gain, _ = permutation_test_max(X, y, np.ones(600), 2, np.array([n_categories]), MISSING_BIN,
                                   impurity_pointer(gini), NO_PARAMS, 1, 0.0, 0, 0,
                                   np.array([True]), scan_pointer(in_order=True))
    counts = np.zeros((n_categories, 2))
    np.add.at(counts, (codes, y), 1.0)
    order = sorted(range(n_categories), key=lambda c: (counts[c, 1] / counts[c].sum(), c))
    total = counts.sum(axis=0)

    def weighted_gini(c):
        return c.sum() * python_gini(c / c.sum())

    best = max((weighted_gini(total) - weighted_gini(counts[order[:k]].sum(axis=0))
                - weighted_gini(counts[order[k:]].sum(axis=0))) / 600.0
               for k in range(1, n_categories))
    assert gain == pytest.approx(best, rel=1e-12)
