"""The minimax rule's sampled candidate thresholds (treesmith._kernels.candidates): the paper's
80 / 40 / 20 draws by node size, seeded, and the engine's scan restricted to them."""

import numpy as np
import pytest
from sklearn.utils import check_random_state

import treesmith
from treesmith._kernels.candidates import (
    CANDIDATE_DRAWS,
    CANDIDATE_SIZE_LIMITS,
    candidate_state,
    draw_candidate_bins,
    n_sampled_candidates,
    sampled_candidates_naive,
)
from treesmith._kernels.random import next_below
from treesmith.rules import Minimax, ThresholdPairs


@pytest.mark.parametrize("n_rows, expected", [(5000, 80), (2001, 80), (2000, 40), (501, 40),
                                              (500, 20), (3, 20)])
def test_draws_by_node_size_are_the_papers(n_rows, expected):
    """Nan, Wang & Saligrama 2015, §3: 80, 40, 20 stumps when the node holds more than 2000,
    more than 500, fewer examples."""
    assert n_sampled_candidates(n_rows, CANDIDATE_SIZE_LIMITS, CANDIDATE_DRAWS) == expected


def node_row(class_counts):
    row = np.zeros(2 * len(class_counts))
    row[len(class_counts):] = class_counts
    return row


@pytest.mark.parametrize("n_rows, n_draws", [(300, 20), (1000, 40), (4000, 80)])
def test_candidates_are_the_bins_of_exactly_n_draws_drawn_rows(n_rows, n_draws):
    """Every row in a bin of its own: the candidates are exactly the distinct positions of the
    first n_draws draws of the (node, feature) generator, no more, no fewer."""
    counts = [n_rows // 2, n_rows - n_rows // 2]
    candidates = np.zeros(n_rows, dtype=bool)
    draw_candidate_bins(np.ones(n_rows), n_rows, n_rows,
                        n_sampled_candidates(n_rows, CANDIDATE_SIZE_LIMITS, CANDIDATE_DRAWS),
                        candidate_state(7, node_row(counts), 2, 3), candidates)
    replay = candidate_state(7, node_row(counts), 2, 3)
    positions = {int(next_below(replay, n_rows)) for _ in range(n_draws)}
    assert set(np.flatnonzero(candidates)) == positions
    assert len(positions) <= n_draws


def test_draws_match_the_reference_with_repeated_values_and_missing():
    rng = np.random.default_rng(0)
    n_bins = 30
    bins = rng.integers(0, n_bins + 1, size=700)  # bin n_bins: missing
    y = rng.integers(0, 3, size=700)
    counts = np.bincount(y, minlength=3).astype(float)
    for f in range(4):
        candidates = np.zeros(n_bins, dtype=bool)
        rows_per_bin = np.bincount(bins, minlength=n_bins + 1)[:n_bins].astype(float)
        draw_candidate_bins(rows_per_bin, n_bins, 700, 40,
                            candidate_state(11, node_row(counts), 3, f), candidates)
        expected = sampled_candidates_naive(11, counts, f, bins, n_bins)
        assert np.array_equal(np.flatnonzero(candidates), expected)


def test_draws_are_seeded_per_tree_feature_and_node():
    def drawn(seed, counts, f):
        candidates = np.zeros(5000, dtype=bool)
        draw_candidate_bins(np.ones(5000), 5000, 5000, 80,
                            candidate_state(seed, node_row(counts), 2, f), candidates)
        return np.flatnonzero(candidates)

    base = drawn(1, [2500, 2500], 0)
    assert np.array_equal(base, drawn(1, [2500, 2500], 0))  # reproducible
    for other in (drawn(2, [2500, 2500], 0), drawn(1, [2500, 2500], 1),
                  drawn(1, [2499, 2501], 0)):
        assert not np.array_equal(base, other)


def test_the_engine_chooses_the_best_sampled_threshold():
    """Root of a one-feature tree: the chosen bin is the candidate of least risk among the
    reference's sampled candidates (brute force over them), not the best over all bins."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=3000).round(3)
    y = (x + rng.normal(size=3000) > 0.3).astype(int)
    X = x[:, None]
    F = ThresholdPairs(2)
    model = treesmith.DecisionTreeClassifier(split_rule=Minimax(F), max_depth=1,
                                             random_state=0).fit(X, y)
    seed = int(check_random_state(0).randint(0, 2**31 - 1))  # as the estimator draws it
    bins = model.bin_mapper_.transform(X)[:, 0].astype(np.int64)
    n_bins = int(model.bin_mapper_.n_bins_non_missing_[0])
    counts = np.bincount(y, minlength=2).astype(float)
    candidates = sampled_candidates_naive(seed, counts, 0, bins, n_bins)
    assert 1 <= candidates.size <= 80

    def risk(b):
        left = np.bincount(y[bins <= b], minlength=2)
        right = counts - left
        smallest = min(F(counts) - F(left), F(counts) - F(right))
        return 1.0 / smallest if smallest > 0 else np.inf

    risks = [risk(b) for b in candidates]
    assert model.tree_.bin_threshold[0] == candidates[int(np.argmin(risks))]
    exact = treesmith.DecisionTreeClassifier(split_rule=Minimax(F, candidates="all"),
                                             max_depth=1).fit(X, y)
    assert risk(exact.tree_.bin_threshold[0]) <= min(risks)


def test_draws_do_not_depend_on_the_order_nodes_are_grown_in(monkeypatch):
    """Subtrees grown apart (after the top of the tree, on any thread) draw the candidates
    they would have drawn in place: the same tree either way."""
    import treesmith.grower as grower

    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 5)).round(2)
    y = (X[:, 0] + X[:, 1] + rng.normal(size=3000) > 0).astype(int)

    def fit():
        return treesmith.DecisionTreeClassifier(split_rule=Minimax(ThresholdPairs(2)),
                                                random_state=0).fit(X, y).tree_

    in_place = fit()
    monkeypatch.setattr(grower, "SUBTREE_MIN_WORK", 1)  # nodes of 256-1023 rows grow apart
    calls = []
    grow_subtrees = grower.TreeGrower._grow_subtrees

    def spy(self, *args):
        calls.append(args[1][0].shape[0])  # how many subtrees were deferred
        return grow_subtrees(self, *args)

    monkeypatch.setattr(grower.TreeGrower, "_grow_subtrees", spy)
    apart = fit()
    assert calls and calls[0] >= 2
    assert np.array_equal(in_place.feature, apart.feature)
    assert np.array_equal(in_place.threshold, apart.threshold, equal_nan=True)
