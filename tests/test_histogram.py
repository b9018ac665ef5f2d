"""Histogram kernels against the numpy reference, and subtraction."""

import numpy as np
import pytest

from treesmith._kernels.histogram import (
    build_histogram,
    build_histogram_naive,
    has_unit_weights,
    subtract_histograms,
    subtract_histograms_naive,
)
from treesmith._kernels.pointers import histogram_pointer
from treesmith._kernels.records import TrainingData

#: build_histogram's parallel_threshold: 0 spreads features over threads, a huge value builds
#: them one after another.
PATHS = {"parallel": 0, "serial": 2**62}


def data(n_classes, seed=0):
    rng = np.random.default_rng(seed)
    X_binned = np.asfortranarray(rng.integers(0, 9, size=(400, 5)).astype(np.uint8))
    y = rng.integers(0, max(n_classes, 1), size=400).astype(np.int64)
    w = rng.uniform(0.1, 3.0, size=400)
    stats = np.column_stack([np.ones(400), w, w * y, w * y * y]) if n_classes == 0 \
        else np.zeros((0, 0))
    return X_binned, y, w, stats


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("n_classes", [0, 2, 3])
def test_histogram_matches_naive(path, n_classes):
    X_binned, y, w, stats = data(n_classes)
    sample_idx = np.random.default_rng(1).permutation(400).astype(np.int64)
    n_stats = 2 * n_classes if n_classes else 4
    hist = np.full((5, 10, n_stats), 7.0)  # stale values must be overwritten
    data_record = TrainingData(X_binned, sample_idx, y, w, stats, np.zeros(0, dtype=np.int64),
                               n_classes)
    build_histogram(data_record, 50, 300, hist, PATHS[path])
    expected = build_histogram_naive(X_binned, sample_idx[50:300], y, w, stats, n_classes, 10)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("path", PATHS)
def test_histogram_with_ecart_groups_matches_naive(path):
    X_binned, y, w, stats = data(3)
    groups = np.random.default_rng(2).integers(0, 4, size=400).astype(np.int64)
    sample_idx = np.arange(400, dtype=np.int64)
    hist = np.zeros((5, 10, 2 * 3 + 4))
    build_histogram(TrainingData(X_binned, sample_idx, y, w, stats, groups, 3), 0, 400, hist,
                    PATHS[path])
    expected = build_histogram_naive(X_binned, sample_idx, y, w, stats, 3, 10, groups, 4)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-12)
    # the group slots partition each bin's weight
    np.testing.assert_allclose(hist[..., 6:].sum(-1), hist[..., :3].sum(-1), atol=1e-12)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("n_groups", [0, 4])
def test_unit_weights_give_the_weighted_histogram_bit_for_bit(path, n_groups):
    """With every weight 1 only counts are summed; the weight columns equal them exactly,
    groups included, and one weight other than 1 in the node switches the path back."""
    X_binned, y, _, stats = data(3)
    w = np.ones(400)
    groups = np.random.default_rng(2).integers(0, n_groups, size=400 if n_groups else 0)
    sample_idx = np.random.default_rng(1).permutation(400).astype(np.int64)
    record = TrainingData(X_binned, sample_idx, y, w, stats, groups.astype(np.int64), 3)
    assert has_unit_weights(w, sample_idx, 0, 400)
    hist = np.full((5, 10, 6 + n_groups), 7.0)
    build_histogram(record, 20, 390, hist, PATHS[path])
    expected = build_histogram_naive(X_binned, sample_idx[20:390], y, w, stats, 3, 10,
                                     groups if n_groups else None, n_groups)
    np.testing.assert_array_equal(hist, expected)
    w[sample_idx[100]] = 2.0
    assert not has_unit_weights(w, sample_idx, 20, 390)
    assert has_unit_weights(w, sample_idx, 101, 390)
    build_histogram(record, 20, 390, hist, PATHS[path])
    expected = build_histogram_naive(X_binned, sample_idx[20:390], y, w, stats, 3, 10,
                                     groups if n_groups else None, n_groups)
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-12)


def test_subtraction_gives_the_sibling_and_clears_absent_classes():
    X_binned, y, w, stats = data(3)
    idx = np.arange(400, dtype=np.int64)
    parent = build_histogram_naive(X_binned, idx, y, w, stats, 3, 10)
    left = build_histogram_naive(X_binned, idx[:123], y, w, stats, 3, 10)
    right = build_histogram_naive(X_binned, idx[123:], y, w, stats, 3, 10)
    subtract_histograms(parent, left, 3)
    np.testing.assert_allclose(parent, right, atol=1e-12)
    absent = right[..., 3:] == 0
    assert np.all(parent[..., :3][absent] == 0.0)


@pytest.mark.parametrize("n_classes, n_stats", [(0, 4), (2, 4), (3, 6), (3, 9)])
@pytest.mark.parametrize("seed", range(3))
def test_subtraction_equals_the_naive_one_bit_for_bit(n_classes, n_stats, seed):
    # rounding residues, exact zeros, negative counts (a class the child had more of), a NaN,
    # and ECART group columns after the class columns: the same bits as the reference
    rng = np.random.default_rng(seed)
    parent = np.round(rng.normal(size=(4, 7, n_stats)), 1)
    child = np.where(rng.random(parent.shape) < 0.4, parent, np.round(rng.random(parent.shape), 2))
    parent[0, 0, -1] = np.nan
    expected = subtract_histograms_naive(parent, child, n_classes)
    subtract_histograms(parent, child, n_classes)
    np.testing.assert_array_equal(parent.view(np.uint64), expected.view(np.uint64))


@pytest.mark.parametrize("n_classes", [0, 3])
def test_the_serial_twin_builds_the_parallel_kernels_histogram(n_classes):
    # what the growth loop gets from histogram_pointer for fits too small for threads
    X_binned, y, w, stats = data(n_classes)
    groups = (np.random.default_rng(2).integers(0, 4, size=400).astype(np.int64)
              if n_classes else np.zeros(0, dtype=np.int64))
    n_stats = 2 * n_classes + 4 if n_classes else 4
    sample_idx = np.random.default_rng(1).permutation(400).astype(np.int64)
    record = TrainingData(X_binned, sample_idx, y, w, stats, groups, n_classes)
    serial = histogram_pointer(record, parallel=False)
    assert serial is not histogram_pointer(record, parallel=True)
    assert serial is histogram_pointer(record, parallel=False)  # compiled once
    hists = []
    for builder, threshold in ((build_histogram, 0), (serial, 0), (serial, 2**62)):
        hist = np.full((5, 10, n_stats), 7.0)
        builder(record, 50, 300, hist, threshold)
        hists.append(hist)
    np.testing.assert_array_equal(hists[1], hists[0])
    np.testing.assert_array_equal(hists[2], hists[0])
