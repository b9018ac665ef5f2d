"""The engine's splits against a brute-force oracle that enumerates every threshold (tests/_oracle.py).

Gain = p(S) h(S) - p(L) h(L) - p(R) h(R) (docs/methods.md §2, §4). With ``max_bins=None`` (exact
binning) every midpoint between adjacent distinct values is a candidate, with missing values
sent either way, so the engine's chosen split must reach the oracle's best gain (to 1e-12) and,
when that best is unique, be the same test. Ties go to the lowest feature index, then the
lowest threshold; a node that saw no missing value sends them to the heavier child.
"""

import numpy as np
import pytest
from _oracle import (
    MISSING_ALONE,
    Candidate,
    best_by_partition,
    best_candidates,
    enumerate_splits,
    exact_ties,
    midpoint,
    node_members,
    tie_break_choice,
    tree_split_gain,
)

import treesmith
from treesmith.criteria import registered

GAIN_ATOL = 1e-12


def _classification_criteria():
    """One registered name per classification criterion class (aliases dropped)."""
    names, seen = [], set()
    for name, cls in registered().items():
        if cls.task == "classification" and cls not in seen:
            seen.add(cls)
            names.append(name)
    return names


CLASSIFICATION_CRITERIA = _classification_criteria()
ALL_CRITERIA = CLASSIFICATION_CRITERIA + ["squared_error"]


def _oracle_criterion(name):
    """Classic names go to the oracle's own formulas; other families through their object."""
    if name in ("gini", "entropy", "misclassification", "squared_error"):
        return name
    return registered()[name]()


def make_data(seed, *, regression=False, weighted=False, missing=False, n_classes=3):
    """Small node data mixing heavy duplicates (integers) and continuous values."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(12, 60))
    X = np.column_stack([
        rng.integers(0, 6, n).astype(float),
        np.round(rng.normal(size=n), 2),
        rng.integers(0, 3, n).astype(float),
    ])
    signal = (X[:, 0] > 2) + (X[:, 1] > 0.3)
    if regression:
        y = signal + rng.normal(scale=0.7, size=n)
    else:
        y = (signal + rng.integers(0, 2, n)) % n_classes
    if missing:
        for feature in (0, 1):
            X[rng.random(n) < 0.2, feature] = np.nan
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    return X, y, w


def _estimator(criterion, **params):
    cls = treesmith.DecisionTreeRegressor if criterion == "squared_error" else \
        treesmith.DecisionTreeClassifier
    return cls(criterion=criterion, max_bins=None, **params)


def _targets(est, y):
    """Class indices for the oracle (classification) or the labels (regression)."""
    if hasattr(est, "classes_"):
        return np.searchsorted(est.classes_, y), len(est.classes_)
    return np.asarray(y, dtype=float), None


def _engine_left_mask(est, X, rows, node):
    """Which of ``rows`` the fitted tree sends to the left child of ``node``."""
    path = est.decision_path(X[rows])
    return np.asarray(path[:, est.tree_.children_left[node]].todense()).ravel().astype(bool)


def _describe(candidates, limit=4):
    return "; ".join(
        f"feature={c.feature} threshold={c.threshold!r} missing_left={c.missing_left} "
        f"gain={c.gain!r}" for c in candidates[:limit]
    )


def check_node_against_oracle(est, X, y, w, criterion, node, rows, *, min_samples_leaf=1):
    """Assert the engine's test at ``node`` (over training ``rows``) is an oracle-optimal test."""
    tree = est.tree_
    targets, n_classes = _targets(est, y)
    weights = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    candidates = enumerate_splits(
        X[rows], targets[rows], weights[rows], criterion=_oracle_criterion(criterion),
        n_classes=n_classes, total_weight=weights.sum(), min_samples_leaf=min_samples_leaf,
    )
    best = best_candidates(candidates, atol=GAIN_ATOL)
    best_gain = best[0].gain if best else 0.0
    where = f"node {node} ({len(rows)} samples), criterion={criterion}"
    if tree.children_left[node] == -1:
        assert best_gain <= GAIN_ATOL, (
            f"{where}: the engine made a leaf but the oracle finds a split with positive gain: "
            f"{_describe(best)}"
        )
        return None
    assert candidates, f"{where}: the engine split a node that has no valid test"
    engine_gain = tree_split_gain(tree, node)
    assert engine_gain == pytest.approx(best_gain, abs=GAIN_ATOL), (
        f"{where}: engine split feature={tree.feature[node]} threshold={tree.threshold[node]!r} "
        f"missing_left={tree.missing_go_left[node]} gains {engine_gain!r}; oracle best: "
        f"{_describe(best)}"
    )
    left = _engine_left_mask(est, X, rows, node)
    engine_key = Candidate(int(tree.feature[node]), 0.0, None, engine_gain, left).partition_key
    assert engine_key in {c.partition_key for c in best}, (
        f"{where}: the engine's partition is not among the oracle's best tests: {_describe(best)}"
    )
    return best


CLASSIC = ["gini", "entropy", "misclassification", "squared_error"]
ROOT_CASES = [(criterion, seed) for criterion in ALL_CRITERIA
              for seed in range(6 if criterion in CLASSIC else 2)]


@pytest.mark.filterwarnings("ignore:.*concave")
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "nan"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("criterion, seed", ROOT_CASES)
def test_root_split_is_the_oracle_best(criterion, seed, weighted, missing):
    regression = criterion == "squared_error"
    X, y, w = make_data(seed, regression=regression, weighted=weighted, missing=missing)
    est = _estimator(criterion, max_depth=1).fit(X, y, sample_weight=w)
    rows = np.arange(len(y))
    best = check_node_against_oracle(est, X, y, w, criterion, 0, rows)
    tree = est.tree_
    if best is None:
        return
    ranked = best_by_partition(best)
    if len(ranked) == 1 and len({c.feature for c in best}) == 1:
        winner = min(best, key=lambda c: c.threshold)
        assert tree.feature[0] == winner.feature
        if winner.threshold == MISSING_ALONE:
            return
        column = X[:, winner.feature]
        low = np.nanmax(column[column <= winner.threshold])
        high = np.nanmin(column[column > winner.threshold])
        assert low <= tree.threshold[0] < high
        assert tree.threshold[0] == pytest.approx(midpoint(low, high), rel=1e-12)
    # counts and weights of the three nodes agree with direct computation
    weights = np.ones(len(y)) if w is None else w
    left = _engine_left_mask(est, X, rows, 0)
    for node, mask in ((0, np.ones(len(y), bool)), (tree.children_left[0], left),
                       (tree.children_right[0], ~left)):
        assert tree.n_node_samples[node] == mask.sum()
        assert tree.weighted_n_node_samples[node] == pytest.approx(weights[mask].sum(), rel=1e-12)


@pytest.mark.parametrize("min_samples_leaf", [3, 7])
@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
def test_root_split_respects_min_samples_leaf(criterion, min_samples_leaf):
    for seed in range(4):
        X, y, w = make_data(100 + seed, regression=criterion == "squared_error", weighted=True,
                            missing=seed % 2 == 1)
        est = _estimator(criterion, max_depth=1, min_samples_leaf=min_samples_leaf)
        est.fit(X, y, sample_weight=w)
        check_node_against_oracle(est, X, y, w, criterion, 0, np.arange(len(y)),
                                  min_samples_leaf=min_samples_leaf)


@pytest.mark.filterwarnings("ignore:.*concave")
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "nan"])
@pytest.mark.parametrize("criterion", ALL_CRITERIA)
def test_every_node_of_a_deep_tree_is_optimal(criterion, missing):
    """Below the root the histograms come from subtraction: every node must still be optimal."""
    for seed in range(3 if criterion in CLASSIC else 1):
        X, y, w = make_data(200 + seed, regression=criterion == "squared_error", weighted=True,
                            missing=missing)
        est = _estimator(criterion, max_depth=6).fit(X, y, sample_weight=w)
        path = est.decision_path(X).tocsc()
        tree = est.tree_
        for node in range(tree.node_count):
            rows = node_members(path, node)
            assert len(rows) == tree.n_node_samples[node]
            if tree.depth[node] == 6:
                assert tree.children_left[node] == -1
                continue
            if tree.children_left[node] != -1 and criterion != "squared_error":
                classes = np.unique(np.searchsorted(est.classes_, y[rows])[w[rows] > 0])
                assert len(classes) > 1, f"node {node} is pure but was split"
            check_node_against_oracle(est, X, y, w, criterion, node, rows)


@pytest.mark.parametrize("missing", [False, True], ids=["complete", "nan"])
@pytest.mark.parametrize("criterion", ["gini", "misclassification"])
def test_exact_ties_follow_the_documented_rule(criterion, missing):
    """Where several tests have exactly the same gain (rational arithmetic, integer weights), the
    engine takes the lowest feature index, then the lowest threshold (docs/methods.md §4), whatever the
    rounding of its own floating-point scores."""
    n_checked = 0
    for seed in range(6):
        X, y, _ = make_data(300 + seed, missing=missing)
        w = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
        est = _estimator(criterion, max_depth=4).fit(X, y, sample_weight=w)
        tree, path = est.tree_, est.decision_path(X).tocsc()
        targets, n_classes = _targets(est, y)
        for node in np.flatnonzero(tree.children_left != -1):
            rows = node_members(path, node)
            candidates = enumerate_splits(X[rows], targets[rows], w[rows], criterion=criterion,
                                          n_classes=n_classes, total_weight=w.sum())
            tied = exact_ties(candidates, targets[rows], w[rows], n_classes, criterion)
            first = tie_break_choice(tied)
            # the rule does not order the two missing-value sides of one threshold
            allowed = {c.partition_key for c in tied
                       if (c.feature, c.threshold) == (first.feature, first.threshold)}
            left = _engine_left_mask(est, X, rows, node)
            engine_key = Candidate(0, 0.0, None, 0.0, left).partition_key
            assert tree.feature[node] == first.feature and engine_key in allowed, (
                f"seed {seed} node {node} ({len(rows)} samples): engine chose feature "
                f"{tree.feature[node]} threshold {tree.threshold[node]!r} missing_left="
                f"{tree.missing_go_left[node]}; exactly tied: {_describe(tied, 8)}")
            n_checked += len(tied) > 1
    assert n_checked >= 3  # the data really produce exact ties


def test_ties_go_to_the_lowest_threshold():
    # thresholds 1.5 and 3.5 give mirror-image partitions with exactly the same gain
    X = np.arange(6, dtype=float)[:, None]
    y = np.array([0, 0, 1, 1, 0, 0])
    est = treesmith.DecisionTreeClassifier(max_depth=1, max_bins=None).fit(X, y)
    assert est.tree_.threshold[0] == 1.5


def test_ties_go_to_the_lowest_feature_before_the_lowest_threshold():
    x = np.arange(6, dtype=float)
    y = np.array([0, 0, 1, 1, 0, 0])
    # both features reach the same best partitions; feature 1's thresholds are all lower
    X = np.column_stack([x, x - 10.0])
    est = treesmith.DecisionTreeClassifier(max_depth=1, max_bins=None).fit(X, y)
    assert est.tree_.feature[0] == 0
    assert est.tree_.threshold[0] == 1.5


@pytest.mark.parametrize("criterion", ["gini", "entropy", "misclassification"])
def test_identical_columns_choose_the_first(criterion):
    rng = np.random.default_rng(3)
    informative = rng.normal(size=40)
    y = (informative > 0.1).astype(int)
    X = np.column_stack([rng.normal(size=40), informative, informative, informative])
    est = treesmith.DecisionTreeClassifier(criterion=criterion, max_bins=None).fit(X, y)
    assert est.tree_.feature[0] == 1


@pytest.mark.parametrize("weights, goes_left", [(None, False), ([5, 5, 5, 1, 1, 1, 1, 1, 1, 1],
                                                                True)])
def test_unseen_missing_values_go_to_the_heavier_child(weights, goes_left):
    X = np.arange(10, dtype=float)[:, None]
    y = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 1])
    est = treesmith.DecisionTreeClassifier(max_bins=None).fit(X, y, sample_weight=weights)
    assert est.tree_.node_count == 3
    assert bool(est.tree_.missing_go_left[0]) is goes_left
    assert est.predict([[np.nan]])[0] == (0 if goes_left else 1)


def test_unseen_missing_values_go_to_the_heavier_child_at_every_node():
    rng = np.random.default_rng(7)
    n = 300
    X = rng.normal(size=(n, 4))
    X[rng.random(n) < 0.3, 0] = np.nan  # only feature 0 ever sees missing values
    y = ((np.nan_to_num(X[:, 0]) + X[:, 1] - X[:, 2]) > 0).astype(int)
    w = rng.uniform(0.2, 2.0, n)
    est = treesmith.DecisionTreeClassifier(max_depth=6).fit(X, y, sample_weight=w)
    tree = est.tree_
    path = est.decision_path(X).tocsc()
    checked = 0
    for node in np.flatnonzero(tree.children_left != -1):
        rows = node_members(path, node)
        if np.isnan(X[rows, tree.feature[node]]).any():
            continue
        w_left = tree.weighted_n_node_samples[tree.children_left[node]]
        w_right = tree.weighted_n_node_samples[tree.children_right[node]]
        if w_left != w_right:
            assert bool(tree.missing_go_left[node]) == (w_left > w_right), f"node {node}"
            checked += 1
    assert checked >= 3


def test_missing_versus_present_is_a_candidate_split():
    """When only missingness carries the label, the test 'missing or not' is the best split."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.zeros(40, dtype=int)
    y[:15] = 1
    X[:15, 1] = np.nan
    est = treesmith.DecisionTreeClassifier(max_depth=1, max_bins=None).fit(X, y)
    assert est.tree_.feature[0] == 1
    assert est.score(X, y) == 1.0


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_learned_missing_side(criterion):
    """Missing values seen in training go to the side that maximises the gain."""
    X = np.array([[0.0], [1.0], [2.0], [3.0], [np.nan], [np.nan], [np.nan]])
    y = np.array([0, 0, 1, 1, 1, 1, 1])
    est = treesmith.DecisionTreeClassifier(criterion=criterion, max_bins=None).fit(X, y)
    assert est.tree_.threshold[0] == 1.5
    assert not est.tree_.missing_go_left[0]
    assert est.score(X, y) == 1.0
    X2 = np.array([[0.0], [1.0], [2.0], [3.0], [np.nan], [np.nan], [np.nan]])
    y2 = np.array([0, 0, 1, 1, 0, 0, 0])
    est2 = treesmith.DecisionTreeClassifier(criterion=criterion, max_bins=None).fit(X2, y2)
    assert est2.tree_.missing_go_left[0]
    assert est2.score(X2, y2) == 1.0
