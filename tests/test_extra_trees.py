"""Extremely randomized trees: the drawn split (treesmith._kernels.random_thresholds),
splitter="random" on the single trees (treesmith.splitters) and the ExtraTrees forests."""

import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency, chisquare
from sklearn import ensemble as sklearn_ensemble
from sklearn import tree as sklearn_tree
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine, make_classification
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

import treesmith
from treesmith import DecisionTreeClassifier, DecisionTreeRegressor
from treesmith._kernels.pointers import impurity_pointer
from treesmith._kernels.random import initial_state, next_below
from treesmith._kernels.random_thresholds import (
    MAX_GATHERED_SAMPLES,
    _cut_bin_among,
    _drawn_cut_bin,
    choose_features_visiting,
    cut_position,
    random_cut_naive,
    random_scan_workspace,
    scan_random_categories,
    scan_random_categories_in_work,
    scan_random_threshold,
    scan_random_threshold_in_work,
    visit_features,
)
from treesmith._kernels.records import (
    SPLIT_DTYPE,
    BinLayout,
    FeatureSampling,
    Impurity,
    NodeScan,
    SplitRule,
    ThresholdDraw,
    TrainingData,
)
from treesmith._kernels.split_rules import NO_SPLIT, RULE_GAIN
from treesmith._kernels.splitting import scan_workspace
from treesmith.binning import BinMapper
from treesmith.criteria import Gini
from treesmith.criteria._base import resolve_criterion
from treesmith.ensemble import ExtraTreesClassifier, ExtraTreesRegressor
from treesmith.estimators import ExtraTreeClassifier, ExtraTreeRegressor
from treesmith.grower import StoppingRules, TreeGrower
from treesmith.splitters import bin_values


# -- the drawn split on one node ------------------------------------------------------------
def node_scan(hist, seed, values, criterion=None, min_samples_leaf=1, missing_bin=None):
    """The ``NodeScan`` of a two-class node whose histogram is ``hist`` (bins x [w0, w1, n0,
    n1]) under the gain rule with the draw ``ThresholdDraw(seed, values)``."""
    criterion = criterion or Gini()
    totals = hist.sum(axis=0)
    weight = totals[:2].sum()
    h = criterion.impurity_function()
    parent = weight * h(totals[:2] / weight, criterion.parameters())
    rule = SplitRule(RULE_GAIN, np.zeros(1), np.zeros(1), 0, False, False,
                     ThresholdDraw(int(seed), np.ascontiguousarray(values, dtype=np.float64)))
    impurity = Impurity(impurity_pointer(h), criterion.parameters())
    return NodeScan(2, impurity, rule, int(min_samples_leaf), 0.0, float(parent), float(weight),
                    np.ascontiguousarray(totals))


def two_class_histogram(counts_0, counts_1, missing=(0, 0)):
    """Histogram rows [w0, w1, n0, n1] per bin, unit weights, the missing row last."""
    counts = np.array(list(zip(counts_0, counts_1)) + [missing], dtype=np.float64)
    return np.ascontiguousarray(np.hstack([counts, counts]))


def draw(hist, seed, values, scan=scan_random_threshold, **kwargs):
    n_bins_non_missing = hist.shape[0] - 1
    node = node_scan(hist, seed, values, **kwargs)
    results = np.zeros(1, dtype=SPLIT_DTYPE)
    work = scan_workspace(1, 4, 2)[0]
    if scan is scan_random_categories:
        scan(hist, n_bins_non_missing, n_bins_non_missing, node, work, results, 0,
             scan_random_threshold)
    else:
        scan(hist, n_bins_non_missing, n_bins_non_missing, node, work, results, 0)
    return results[0]


#: Exactly binned values of a feature (bin b holds VALUES[b]); the node occupies bins 0-4, not
#: bin 5, so its range is [0, 8] and the gaps 1, 2, 4, 1 are the cut probabilities x 8.
VALUES = np.array([[0.0, 1.0, 3.0, 7.0, 8.0, 9.0, np.inf]])
GAP_PROBABILITIES = np.array([1.0, 2.0, 4.0, 1.0]) / 8.0


def test_drawn_cut_is_uniform_in_value_on_exact_bins():
    """Over 4000 seeds the cut after bin b falls with probability (gap after b) / range: the
    uniform-in-value measure of scikit-learn's random splitter (chi-square, fixed seeds)."""
    hist = two_class_histogram([3, 1, 2, 0, 4, 0], [1, 2, 2, 5, 1, 0])
    cuts = np.array([draw(hist, seed, VALUES)["bin_threshold"] for seed in range(4000)])
    assert set(np.unique(cuts)) <= {0, 1, 2, 3}
    observed = np.bincount(cuts, minlength=4)
    assert chisquare(observed, GAP_PROBABILITIES * cuts.size).pvalue > 1e-3


def test_kernel_draws_the_reference_cut():
    hist = two_class_histogram([3, 1, 2, 0, 4, 0], [1, 2, 2, 5, 1, 0])
    occupied = VALUES[0, :5]
    for seed in range(50):
        cut, _ = random_cut_naive(seed, hist.sum(axis=0), 2, 0, occupied)
        assert draw(hist, seed, VALUES)["bin_threshold"] == cut


def test_drawn_cut_skips_empty_bins_and_reports_the_next_occupied_one():
    values = np.array([[0.0, 1.0, 2.0, 3.0, 4.0, np.inf]])
    hist = two_class_histogram([2, 0, 0, 0, 3], [0, 0, 0, 0, 1])
    for seed in range(20):
        split = draw(hist, seed, values)
        assert split["bin_threshold"] == 0 and split["next_bin"] == 4


def test_a_constant_feature_gets_no_split():
    hist = two_class_histogram([0, 3, 0], [0, 4, 0], missing=(0, 0))
    split = draw(hist, 0, np.array([[0.0, 1.0, 2.0, np.inf]]))
    assert split["bin_threshold"] == NO_SPLIT
    # one non-missing value and missing values: constant for the random splitter too
    hist = two_class_histogram([0, 3, 0], [0, 0, 0], missing=(0, 4))
    assert draw(hist, 0, np.array([[0.0, 1.0, 2.0, np.inf]]))["bin_threshold"] == NO_SPLIT


def test_a_drawn_cut_that_breaks_min_samples_leaf_is_rejected():
    hist = two_class_histogram([1, 5], [0, 5])
    split = draw(hist, 0, np.array([[0.0, 1.0, np.inf]]), min_samples_leaf=2)
    assert split["bin_threshold"] == NO_SPLIT


def test_missing_values_go_to_a_random_side_or_alone_to_the_right():
    """Missing values take a side drawn with probability 1/2 (scikit-learn >= 1.6), unless the
    split "non-missing left, missing right" scores better: here the missing rows are the only
    class-1 rows, so that split is perfect and always kept."""
    values = np.array([[0.0, 1.0, 2.0, np.inf]])
    pure = two_class_histogram([3, 2, 4], [0, 0, 0], missing=(0, 5))
    for seed in range(20):
        split = draw(pure, seed, values)
        assert split["bin_threshold"] == 2 and not split["missing_go_left"]
    mixed = two_class_histogram([3, 2, 4], [4, 1, 3], missing=(2, 2))
    sides = [draw(mixed, seed, values) for seed in range(2000)]
    drawn = [split for split in sides if split["bin_threshold"] < 2]
    left = np.mean([split["missing_go_left"] for split in drawn])
    assert len(drawn) > 1000 and abs(left - 0.5) < 0.05


def test_the_growth_loops_scans_draw_what_the_allocating_ones_draw():
    """The growth loop's scans find their scratch in the work block (``*_in_work``, a block of
    ``random_scan_workspace``); the Python entries allocate it: the same
    splits, field by field, and a plain ``scan_workspace`` block is refused by name rather
    than overrun."""
    rng = np.random.default_rng(0)
    values = np.array([[0.0, 1.0, 3.0, 7.0, 8.0, 9.0, np.inf]])
    for seed in range(40):
        hist = two_class_histogram(rng.integers(0, 4, 6), rng.integers(0, 4, 6),
                                   missing=tuple(rng.integers(0, 3, 2)))
        if hist[:, 2:].sum() == 0:
            continue
        for allocating, in_work, extra in (
                (scan_random_threshold, scan_random_threshold_in_work, ()),
                (scan_random_categories, scan_random_categories_in_work,
                 (scan_random_threshold_in_work,))):
            node = node_scan(hist, seed, values)
            expected = np.zeros(1, dtype=SPLIT_DTYPE)
            allocating(hist, 6, 6, node, scan_workspace(1, 4, 2)[0], expected, 0, *extra)
            got = np.zeros(1, dtype=SPLIT_DTYPE)
            in_work(hist, 6, 6, node, random_scan_workspace(1, 4, 2, 7, 0)[0], got, 0, *extra)
            assert got.tobytes() == expected.tobytes()
    with pytest.raises(ValueError, match="random_scan_workspace"):
        scan_random_threshold_in_work(hist, 6, 6, node, scan_workspace(1, 4, 2)[0],
                                      np.zeros(1, dtype=SPLIT_DTYPE), 0)


def test_categorical_partition_is_uniform_over_partitions():
    """Three present categories (of five codes) have 2^2 - 1 = 3 partitions with the last one
    right: {a}, {b}, {a, b} left, each with probability 1/3."""
    hist = two_class_histogram([2, 0, 3, 0, 1], [1, 0, 1, 0, 4])
    codes = np.zeros((1, 6))
    seen = []
    for seed in range(3000):
        split = draw(hist, seed, codes, scan=scan_random_categories)
        assert split["bin_threshold"] == -2
        left = int(split["left_categories"][0])
        assert left & ~0b101 == 0 and left & 0b101  # present categories 0, 2 (4 stays right)
        seen.append(left)
    observed = np.array([seen.count(0b1), seen.count(0b100), seen.count(0b101)])
    assert observed.sum() == 3000 and chisquare(observed).pvalue > 1e-3


# -- which features a node examines -------------------------------------------------------------
def visited_reference(state, constant, max_features):
    """scikit-learn's feature loop: draw without replacement, every draw counts against
    max_features, go on only until a non-constant feature is drawn."""
    n_features = len(constant)
    order = list(range(n_features))
    n_visited, chosen = 0, []
    for i in range(n_features):
        if n_visited >= max_features and chosen:
            break
        j = i + int(next_below(state, n_features - i))
        order[i], order[j] = order[j], order[i]
        n_visited += 1
        if not constant[order[i]]:
            chosen.append(order[i])
    return sorted(chosen)


@pytest.mark.parametrize("max_features", [1, 2, 5])
def test_constant_features_count_against_max_features_as_in_scikit_learn(max_features):
    rng = np.random.default_rng(0)
    n = 30
    X_binned = rng.integers(0, 4, size=(n, 5)).astype(np.uint8)
    X_binned[:, [0, 3]] = 2  # constant
    X_binned[:, 4] = np.where(rng.random(n) < 0.5, 7, 1)  # one value, and missing values
    X_binned = np.asfortranarray(X_binned)
    constant = [True, False, False, True, True]
    data = TrainingData(X_binned, np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                        np.ones(n), np.zeros((0, 0)), np.zeros(0, dtype=np.int64), 2)
    bins = BinLayout(8, 7, np.full(5, 4, dtype=np.int64), np.zeros(5, dtype=np.bool_))
    for seed in range(30):
        state = np.array([initial_state(seed)], dtype=np.uint64)
        expected = visited_reference(state.copy(), constant, max_features)
        features = choose_features_visiting(
            FeatureSampling(max_features, seed), False, np.zeros((0, 0, 0)), data, 0, n, bins,
            state, np.zeros(5, dtype=np.int64), np.zeros(5, dtype=np.bool_))
        assert list(features) == expected and 1 <= len(features) <= max(max_features, 1)


def test_the_growth_loops_feature_choice_writes_what_the_python_entry_returns():
    rng = np.random.default_rng(2)
    n = 40
    X_binned = np.asfortranarray(rng.integers(0, 3, size=(n, 7)).astype(np.uint8))
    X_binned[:, [1, 4]] = 0
    data = TrainingData(X_binned, np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                        np.ones(n), np.zeros((0, 0)), np.zeros(0, dtype=np.int64), 2)
    bins = BinLayout(4, 3, np.full(7, 3, dtype=np.int64), np.zeros(7, dtype=np.bool_))
    for seed in range(20):
        for max_features in (1, 3, 7):
            arguments = (FeatureSampling(max_features, seed), False, np.zeros((0, 0, 0)), data,
                         0, n, bins)
            state = np.array([initial_state(seed)], dtype=np.uint64)
            expected = choose_features_visiting(*arguments, state.copy(),
                                                np.zeros(7, dtype=np.int64),
                                                np.zeros(7, dtype=np.bool_))
            chosen, out = np.zeros(7, dtype=np.bool_), np.full(7, -1, dtype=np.int64)
            n_chosen = visit_features(*arguments, state, np.zeros(7, dtype=np.int64), chosen,
                                      out)
            assert list(out[:n_chosen]) == list(expected) and not chosen.any()


def test_with_one_feature_per_node_the_non_constant_feature_is_always_found():
    rng = np.random.default_rng(1)
    X = np.ones((200, 10))
    X[:, 6] = rng.random(200)
    y = (X[:, 6] > 0.5).astype(int)
    for seed in range(10):
        tree = ExtraTreeClassifier(max_features=1, max_depth=1, random_state=seed).fit(X, y)
        assert tree.tree_.feature[0] == 6


# -- the chosen split is the best drawn one --------------------------------------------------------
def gini_gain(left, total):
    def weighted(counts):
        w = counts.sum()
        return 0.0 if w == 0 else w * (1.0 - np.sum((counts / w) ** 2))
    return weighted(total) - weighted(left) - weighted(total - left)


@pytest.mark.parametrize("seed", range(6))
def test_root_split_is_the_best_of_the_drawn_cuts_by_brute_force(seed):
    """Each feature's drawn cut (the reference draw, seeded as the kernel is), scored by a
    plain numpy Gini gain: the root takes the best (lowest feature on ties)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(120, 4)) * 3) / 3
    y = (X[:, 0] + rng.normal(size=120) * 2 > X[:, 1]).astype(np.int64)
    mapper = BinMapper(max_bins=None).fit(X)
    X_binned = mapper.transform(X)
    values = bin_values(mapper, X)
    grower = TreeGrower(mapper, resolve_criterion("gini", "classification"), 2,
                        StoppingRules(max_depth=1), seed=seed, threshold_values=values)
    tree = grower.grow(X_binned, y, np.ones(120))
    totals = np.bincount(y, minlength=2).astype(float)
    stats_row = np.concatenate([totals, totals])
    best = (-np.inf, None, None)
    for f in range(4):
        occupied = np.unique(X_binned[:, f])
        cut, _ = random_cut_naive(seed, stats_row, 2, f, values[f, occupied])
        left = np.bincount(y[X_binned[:, f] <= occupied[cut]], minlength=2).astype(float)
        gain = gini_gain(left, totals)
        if gain > best[0] + 1e-12:
            best = (gain, f, occupied[cut])
    assert (tree.feature[0], tree.bin_threshold[0]) == (best[1], best[2])


# -- estimators ----------------------------------------------------------------------------------
def expected_failures(estimator):
    if getattr(estimator, "bootstrap", False):
        reason = "bootstrap: an integer weight is not equivalent to repeating the row"
        return {"check_sample_weight_equivalence_on_dense_data": reason,
                "check_sample_weight_equivalence_on_sparse_data": reason}
    return {}


@parametrize_with_checks([ExtraTreesClassifier(n_estimators=5, random_state=0),
                          ExtraTreesRegressor(n_estimators=5, random_state=0),
                          ExtraTreeClassifier(random_state=0),
                          ExtraTreeRegressor(random_state=0)],
                         expected_failed_checks=expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_defaults_are_scikit_learns():
    for ours, theirs in [(ExtraTreesClassifier(), sklearn_ensemble.ExtraTreesClassifier()),
                         (ExtraTreesRegressor(), sklearn_ensemble.ExtraTreesRegressor()),
                         (ExtraTreeClassifier(), sklearn_tree.ExtraTreeClassifier()),
                         (ExtraTreeRegressor(), sklearn_tree.ExtraTreeRegressor())]:
        mine, sklearns = ours.get_params(), theirs.get_params()
        for name in ("n_estimators", "bootstrap", "max_features", "oob_score", "max_samples",
                     "splitter", "criterion", "min_samples_leaf", "warm_start"):
            if name in sklearns:
                assert mine[name] == sklearns[name], name
    assert DecisionTreeClassifier().splitter == "best"


def mean_score(make, X, y, seeds):
    scores = []
    for seed in seeds:
        X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=seed)
        scores.append(make(seed).fit(X_train, y_train).score(X_test, y_test))
    return np.mean(scores)


@pytest.mark.slow
@pytest.mark.parametrize("load, ours, theirs, tolerance", [
    (load_breast_cancer, ExtraTreesClassifier, sklearn_ensemble.ExtraTreesClassifier, 0.02),
    (load_wine, ExtraTreesClassifier, sklearn_ensemble.ExtraTreesClassifier, 0.025),
    (load_diabetes, ExtraTreesRegressor, sklearn_ensemble.ExtraTreesRegressor, 0.04),
])
def test_accuracy_matches_scikit_learns_extra_trees(load, ours, theirs, tolerance):
    """Mean test score over 5 splits and seeds within ``tolerance`` of scikit-learn's: the
    spread of one 50-tree forest's score between seeds is ~0.01 (accuracy, 143 and 45 test
    rows) and ~0.02 (R^2, 111 rows); the tolerance is about twice the standard error of the
    difference of two 5-seed means plus the binning's effect (255 quantile bins on the
    continuous features, where scikit-learn draws between raw values)."""
    X, y = load(return_X_y=True)
    seeds = range(5)
    mine = mean_score(lambda s: ours(50, random_state=s), X, y, seeds)
    reference = mean_score(lambda s: theirs(50, random_state=s), X, y, seeds)
    assert abs(mine - reference) <= tolerance, (mine, reference)


def test_single_tree_with_exact_bins_draws_like_scikit_learns():
    """The root cut of a depth-1 tree on one exactly binned feature, over 300 seeds each: the
    counts per gap of ours and scikit-learn's are from one distribution (chi-square test of
    homogeneity), the uniform-in-value measure."""
    rng = np.random.default_rng(0)
    x = np.repeat([0.0, 1.0, 3.0, 7.0, 8.0], 8)
    y = (rng.random(x.size) < 0.5).astype(int)
    X = x[:, None]
    gaps = np.array([0.5, 2.0, 5.0, 7.5])  # the midpoints between the values

    def gap_of(threshold):
        return int(np.searchsorted(gaps, threshold - 1e-9))

    ours = np.zeros(4, dtype=int)
    theirs = np.zeros(4, dtype=int)
    for seed in range(300):
        tree = ExtraTreeClassifier(max_depth=1, max_bins=None, random_state=seed).fit(X, y)
        ours[gap_of(tree.tree_.threshold[0])] += 1
        reference = sklearn_tree.ExtraTreeClassifier(max_depth=1, random_state=seed).fit(X, y)
        theirs[min(np.searchsorted([1.0, 3.0, 7.0], reference.tree_.threshold[0]), 3)] += 1
    assert chi2_contingency(np.vstack([ours, theirs])).pvalue > 1e-3
    assert chisquare(ours, GAP_PROBABILITIES * 300).pvalue > 1e-3


@pytest.mark.parametrize("Forest", [ExtraTreesClassifier, ExtraTreesRegressor])
def test_same_forest_whatever_n_jobs(Forest):
    X, y = make_classification(400, 8, random_state=0)
    X[::7, 2] = np.nan
    one = Forest(6, random_state=3, n_jobs=1).fit(X, y)
    two = Forest(6, random_state=3, n_jobs=2).fit(X, y)
    for a, b in zip(one.estimators_, two.estimators_):
        np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
        np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
        np.testing.assert_array_equal(a.tree_.missing_go_left, b.tree_.missing_go_left)


def test_subtrees_grown_apart_draw_as_in_place(monkeypatch):
    """ExtraTreeRegressor examines every feature (max_features=1.0), so large fits grow their
    subtrees apart on threads: the draws, seeded by the node, give the same tree as one
    growth, whatever the number of threads."""
    import treesmith.grower as grower_module

    rng = np.random.default_rng(0)
    X = rng.normal(size=(6000, 12))
    y = X[:, 0] * 2 + np.sin(X[:, 1] * 3) + rng.normal(size=6000) * 0.3
    apart = ExtraTreeRegressor(random_state=0, n_jobs=2).fit(X, y)
    monkeypatch.setattr(grower_module, "SUBTREE_MIN_WORK", 1 << 40)
    in_place = ExtraTreeRegressor(random_state=0, n_jobs=1).fit(X, y)
    for name in ("feature", "threshold", "children_left", "value"):
        np.testing.assert_array_equal(getattr(apart.tree_, name), getattr(in_place.tree_, name))


def test_missing_values_are_learned_and_routed():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] > 0).astype(int)
    X[rng.random(600) < 0.3, 0] = np.nan
    y[np.isnan(X[:, 0])] = 1  # missingness is informative
    forest = ExtraTreesClassifier(30, random_state=0).fit(X, y)
    assert forest.score(X, y) > 0.95
    missing = np.full((5, 4), np.nan)
    assert np.all(forest.predict(missing) == 1)
    sklearns = sklearn_ensemble.ExtraTreesClassifier(30, random_state=0).fit(X, y)
    X_test = rng.normal(size=(300, 4))
    X_test[rng.random(300) < 0.3, 0] = np.nan
    y_test = np.where(np.isnan(X_test[:, 0]), 1, (X_test[:, 0] > 0).astype(int))
    assert forest.score(X_test, y_test) >= sklearns.score(X_test, y_test) - 0.03


def test_categorical_columns_get_random_partitions():
    rng = np.random.default_rng(0)
    city = rng.choice(list("abcdefg"), size=500)
    X = pd.DataFrame({"city": pd.Categorical(city), "noise": rng.normal(size=500)})
    y = np.isin(city, ["a", "c", "f"]).astype(int)
    forest = ExtraTreesClassifier(20, random_state=0).fit(X, y)
    assert forest.score(X, y) == 1.0
    first = forest.estimators_[0].tree_
    internal = first.children_left >= 0
    assert np.any(first.left_categories[internal & (first.feature == 0)].any(axis=1))
    tree = ExtraTreeClassifier(random_state=0).fit(X, y)
    assert tree.score(X, y) == 1.0


@pytest.mark.parametrize("params", [
    {"criterion": "entropy"}, {"criterion": "misclassification"},
    {"split_rule": "gain_ratio"}, {"split_rule": "ecart", "feature_costs": [1.0, 2.0, 1.0, 3.0]},
    {"max_features": None}, {"max_features": 1}, {"min_samples_leaf": 5},
    {"max_leaf_nodes": 6}, {"class_weight": "balanced"}, {"monotonic_cst": [1, 0, 0, 0]},
])
def test_every_criterion_and_rule_scores_the_drawn_splits(params):
    X, y = make_classification(300, 4, n_informative=3, n_redundant=0, random_state=1)
    tree = ExtraTreeClassifier(random_state=0, **params).fit(X, y)
    assert tree.score(X, y) > 0.75
    if "max_leaf_nodes" in params:
        assert tree.get_n_leaves() <= 6


@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "tweedie"])
def test_regression_criteria(criterion):
    X, y = make_classification(300, 4, random_state=2)
    y = y * 3.0 + 1.0
    tree = ExtraTreeRegressor(criterion=criterion, random_state=0, max_depth=4).fit(X, y)
    assert tree.score(X, y) > 0.3


def test_hostile_inputs():
    one_row = ExtraTreeClassifier(random_state=0).fit([[1.0, 2.0]], [3])  # a root leaf
    assert one_row.get_n_leaves() == 1 and one_row.predict([[0.0, 0.0]])[0] == 3
    two_rows = ExtraTreeClassifier(random_state=0).fit([[1.0, 2.0], [1.0, 2.0]], [3, 4])
    assert two_rows.get_n_leaves() == 1
    constant = ExtraTreesRegressor(5, random_state=0).fit(np.ones((20, 3)), np.arange(20.0))
    assert all(tree.get_n_leaves() == 1 for tree in constant.estimators_)
    X, y = make_classification(100, 5, random_state=0)
    for max_features in (1, 5, 1.0, "sqrt", "log2", None):
        ExtraTreesClassifier(3, max_features=max_features, random_state=0).fit(X, y)
    only_missing = np.full((10, 2), np.nan)
    only_missing[:, 1] = np.arange(10)
    tree = ExtraTreeClassifier(random_state=0).fit(only_missing, np.arange(10) % 2)
    assert set(tree.tree_.feature[tree.tree_.children_left >= 0]) == {1}


def test_bad_splitter_and_incompatible_options_are_named():
    X, y = make_classification(50, 3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(ValueError, match="splitter"):
        DecisionTreeClassifier(splitter="middle").fit(X, y)
    with pytest.raises(ValueError, match="significance"):
        ExtraTreeClassifier(significance=0.05).fit(X, y)
    with pytest.raises(ValueError, match="oob_score"):
        ExtraTreesClassifier(oob_score=True).fit(X, y)
    with pytest.raises(ValueError, match="max_samples"):
        ExtraTreesClassifier(max_samples=0.5).fit(X, y)


def test_bootstrap_and_oob_as_random_forests():
    X, y = load_breast_cancer(return_X_y=True)
    forest = ExtraTreesClassifier(30, bootstrap=True, oob_score=True, max_samples=0.8,
                                  random_state=0).fit(X, y)
    assert 0.9 < forest.oob_score_ <= 1.0


def test_decision_tree_with_random_splitter_is_the_extra_tree():
    X, y = make_classification(200, 6, random_state=0)
    a = DecisionTreeRegressor(splitter="random", max_features=1.0, random_state=4).fit(X, y)
    b = ExtraTreeRegressor(random_state=4).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)


def test_warm_start_equals_one_fit():
    X, y = make_classification(200, 6, random_state=0)
    grown = ExtraTreesClassifier(3, warm_start=True, random_state=0).fit(X, y)
    grown.set_params(n_estimators=6).fit(X, y)
    once = ExtraTreesClassifier(6, random_state=0).fit(X, y)
    np.testing.assert_array_equal(grown.predict_proba(X), once.predict_proba(X))


def test_pickle_and_model_files(tmp_path):
    X, y = make_classification(200, 6, random_state=0)
    X[::5, 1] = np.nan
    for model in (ExtraTreesClassifier(5, random_state=0).fit(X, y),
                  ExtraTreesRegressor(5, random_state=0).fit(X, y.astype(float)),
                  ExtraTreeClassifier(random_state=0).fit(X, y)):
        restored = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(restored.predict(X), model.predict(X))
        path = tmp_path / f"{type(model).__name__}.json"
        treesmith.save(model, path)
        loaded = treesmith.load(path)
        assert type(loaded) is type(model)
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_pooled_histograms_and_small_node_passes_draw_the_same_tree(task, monkeypatch):
    """A node with a pooled histogram draws among its occupied bins (``scan_random_threshold``),
    a small node from two passes over its samples (``scan_small_node_random``): the same cut,
    so the same tree whichever path each node takes."""
    import treesmith.grower as grower_module

    X, y = make_classification(700, 6, n_informative=4, random_state=3)
    X[::9, 1] = np.nan
    Tree = ExtraTreeClassifier if task == "classification" else ExtraTreeRegressor
    trees = []
    for size in (1, 10**9):
        monkeypatch.setattr(grower_module, "_small_node_size", lambda *args, size=size: size)
        trees.append(Tree(random_state=5, max_features=3).fit(X, y).tree_)
    for name in ("feature", "bin_threshold", "missing_go_left", "children_left"):
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))


@pytest.mark.parametrize("task", ["classification", "weighted", "regression"])
def test_gathered_and_in_place_small_nodes_draw_the_same_tree(task, monkeypatch):
    """Small nodes gather their samples' classes and weights (or regression statistics) once
    for all features, up to ``MAX_GATHERED_SAMPLES``; a larger one (this root) reads them in
    place. Both give the splits of pooled histograms, bit for bit."""
    import treesmith.grower as grower_module

    rng = np.random.default_rng(4)
    n = MAX_GATHERED_SAMPLES + 3000
    X = np.round(rng.normal(size=(n, 3)), 2)
    X[rng.random(n) < 0.05, 2] = np.nan
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)
    weight = rng.integers(1, 4, size=n).astype(float) if task == "weighted" else None
    Tree = ExtraTreeRegressor if task == "regression" else ExtraTreeClassifier
    trees = []
    for size in (1, 10**9):
        monkeypatch.setattr(grower_module, "_small_node_size", lambda *args, size=size: size)
        trees.append(Tree(random_state=1, max_depth=5, max_features=2).fit(
            X, y, sample_weight=weight).tree_)
    for name in ("feature", "bin_threshold", "missing_go_left", "children_left", "impurity"):
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=40, unique=True),
       st.floats(0.0, 1.0, exclude_max=True))
def test_cut_position_is_the_last_value_not_above_the_drawn_threshold(values, u):
    values = np.array(sorted(values))
    t = values[0] + u * (values[-1] - values[0])
    if t >= values[-1]:
        t = values[0]
    expected = max(i for i in range(values.size - 1) if values[i] <= t)
    assert cut_position(values, np.int64(values.size), u) == expected


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 47), st.integers(2, 40), st.booleans())
def test_the_cut_found_among_a_nodes_bins_splits_as_the_searched_cut(seed, n, n_bins, ties):
    """A small node's cut is found among its samples' bins (``_cut_bin_among``), a larger
    node's by a search over the bins' values (``_drawn_cut_bin``): from the same generator
    state they send the same samples left (non-decreasing values, ties included)."""
    rng = np.random.default_rng(seed)
    missing_bin = n_bins
    values = np.full((2, n_bins + 1), np.inf)
    steps = rng.integers(0, 2, n_bins) if ties else rng.random(n_bins) + 0.01
    values[1, :n_bins] = np.cumsum(steps) - 5.0
    node_bins = rng.integers(0, n_bins + 1, n)  # the missing bin too
    present = node_bins[node_bins != missing_bin]
    if present.size == 0 or present.min() == present.max():
        return
    low_bin, high_bin = np.int64(present.min()), np.int64(present.max())
    cuts = []
    for find in (_cut_bin_among, _drawn_cut_bin):
        state = np.array([initial_state(np.int64(seed))], dtype=np.uint64)
        arguments = (values, np.int64(1), low_bin, high_bin, state)
        cuts.append(find(node_bins, *arguments) if find is _cut_bin_among else find(*arguments))
    np.testing.assert_array_equal(present <= cuts[0], present <= cuts[1])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(20, 200), st.floats(0.0, 0.4))
def test_random_trees_are_valid_and_fit_their_training_leaves(seed, n, missing):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 1)
    X[rng.random(n) < missing, 0] = np.nan
    y = rng.integers(0, 3, size=n)
    tree = ExtraTreeClassifier(max_features=2, random_state=seed).fit(X, y)
    tree.tree_.validate()
    proba = tree.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    leaves = tree.apply(X)
    assert np.all(tree.tree_.children_left[leaves] == -1)
