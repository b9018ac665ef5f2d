"""Split kernels: dense scan vs compact (small-node) scan vs exhaustive scan, and partition."""

import numpy as np
import pytest

from treesmith._kernels.histogram import build_histogram_naive
from treesmith._kernels.splitting import (
    NO_SPLIT,
    partition,
    scan_feature,
    scan_features_sparse,
    scan_node_sparse,
    scan_pointer,
    scan_workspace,
)
from treesmith.criteria import Entropy, Gini
from treesmith.grower import impurity_pointer


def node(seed, n=60, n_bins=12, n_classes=3, missing=True):
    rng = np.random.default_rng(seed)
    missing_bin = n_bins
    X_binned = rng.integers(0, n_bins, size=(n, 2)).astype(np.uint8)
    if missing:
        X_binned[rng.random(n) < 0.15, 0] = missing_bin
    y = rng.integers(0, n_classes, size=n).astype(np.int64)
    w = rng.uniform(0.5, 2.0, size=n)
    return np.asfortranarray(X_binned), y, w, missing_bin


def best_by_brute_force(hist_f, n_bins, missing_bin, n_classes, h, total_weight):
    """Enumerate every cut and missing side with numpy; return (best score, bin, side)."""
    totals = hist_f.sum(axis=0)

    def weighted_h(stats):
        weight = stats[:n_classes].sum()
        return 0.0 if weight <= 0 else weight * h(stats[:n_classes] / weight)

    best = (-np.inf, NO_SPLIT, False)
    parent = weighted_h(totals)
    missing = hist_f[missing_bin]
    for b in range(n_bins):
        left = hist_f[: b + 1].sum(axis=0)
        right = totals - left - missing
        if right[n_classes:].sum() == 0 or left[n_classes:].sum() == 0:
            continue
        for side, (l, r) in enumerate([(left, right + missing), (left + missing, right)]):
            score = (parent - weighted_h(l) - weighted_h(r)) / total_weight
            if score > best[0] + 1e-15:
                best = (score, b, bool(side))
    return best


@pytest.mark.parametrize("criterion", [Gini(), Entropy()])
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("skip", [False, True])
def test_scan_matches_brute_force(criterion, seed, skip):
    X_binned, y, w, missing_bin = node(seed)
    idx = np.arange(y.size, dtype=np.int64)
    hist = build_histogram_naive(X_binned, idx, y, w, None, 3, missing_bin + 1)
    h = impurity_pointer(criterion.impurity_function())
    params = criterion.parameters()
    totals = hist[0].sum(axis=0)
    weight = w.sum()
    props = totals[:3] / weight
    parent = weight * criterion(props)
    work = scan_workspace(1, 6, 3)[0]
    score, b, _ = scan_feature(hist[0], totals, missing_bin, missing_bin, 3, h, params, parent,
                               weight, 1, 0.0, skip, work, np.empty(5))
    expected = best_by_brute_force(hist[0], missing_bin, missing_bin, 3, criterion, weight)
    assert score == pytest.approx(expected[0], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("min_samples_leaf", [1, 5])
def test_compact_scan_equals_dense_scan(seed, min_samples_leaf):
    X_binned, y, w, missing_bin = node(seed, n=40, n_bins=30)
    n_bins_non_missing = np.array([30, 30], dtype=np.int64)
    idx = np.random.default_rng(seed).permutation(y.size).astype(np.int64)
    hist = build_histogram_naive(X_binned, idx, y, w, None, 3, missing_bin + 1)
    criterion = Gini()
    h = impurity_pointer(criterion.impurity_function())
    params = criterion.parameters()
    totals = hist[0].sum(axis=0)
    parent = w.sum() * criterion(totals[:3] / w.sum())
    work = scan_workspace(2, 6, 3)
    dense = [scan_feature(hist[f], totals, 30, missing_bin, 3, h, params, parent, w.sum(),
                          min_samples_leaf, 0.0, False, work[f], np.empty(5)) for f in range(2)]
    results = np.empty((2, 6))
    scan_features_sparse(X_binned, np.arange(2), idx, 0, y.size, y, w, np.zeros((0, 0)),
                         np.zeros(0, dtype=np.int64), 3, missing_bin, n_bins_non_missing, totals,
                         h, params, parent, w.sum(), min_samples_leaf, 0.0, False, 0, 0.0, 0,
                         np.zeros(1), np.zeros((missing_bin + 1, 6)),
                         np.empty(missing_bin + 1, dtype=np.int64),
                         np.empty((missing_bin + 2, 6)), results, work, scan_pointer())
    for f in range(2):
        assert results[f, 0] == pytest.approx(dense[f][0], rel=1e-12, abs=1e-15)
        assert results[f, 1] == dense[f][1] and bool(results[f, 2]) == dense[f][2]


@pytest.mark.parametrize("n_chunks", [1, 2, 3])
def test_small_node_scan_is_the_same_in_any_number_of_chunks(n_chunks):
    X_binned, y, w, missing_bin = node(7, n=50, n_bins=30)
    X_binned = np.asfortranarray(np.column_stack([X_binned, X_binned[:, ::-1]]))
    n_bins_non_missing = np.full(4, 30, dtype=np.int64)
    idx = np.arange(y.size, dtype=np.int64)
    hist = build_histogram_naive(X_binned, idx, y, w, None, 3, missing_bin + 1)
    criterion = Entropy()
    h = impurity_pointer(criterion.impurity_function())
    totals = hist[0].sum(axis=0)
    parent = w.sum() * criterion(totals[:3] / w.sum())
    features = np.arange(4, dtype=np.int64)
    results = {}
    for chunks in (1, n_chunks):
        out = np.full((4, 6), np.nan)
        scan_node_sparse(X_binned, features, idx, 0, y.size, y, w, np.zeros((0, 0)),
                         np.zeros(0, dtype=np.int64), 3, missing_bin, n_bins_non_missing, totals,
                         h, criterion.parameters(), parent, w.sum(), 1, 0.0, True, 0, 0.0, 0,
                         np.zeros(1), np.zeros((chunks, missing_bin + 1, 6)),
                         np.empty((chunks, missing_bin + 1), dtype=np.int64),
                         np.empty((chunks, missing_bin + 2, 6)), out, scan_workspace(4, 6, 3),
                         scan_pointer(), chunks)
        results[chunks] = out
    assert not np.isnan(results[n_chunks]).any()
    np.testing.assert_array_equal(results[n_chunks], results[1])


def test_partition_is_stable_and_routes_missing_values():
    column = np.array([0, 5, 9, 2, 5, 9, 1], dtype=np.uint8)  # 9 = missing bin
    idx = np.arange(7, dtype=np.int64)
    mid = partition(idx, 0, 7, column, 2, 9, True, np.empty(7, dtype=np.int64))
    assert mid == 5
    assert list(idx) == [0, 2, 3, 5, 6, 1, 4]
