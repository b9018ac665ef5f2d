"""Per-node histograms: for every feature and bin, the sums of the node's per-sample statistics.

Layout ``hist[feature, bin, stat]`` (float64, C order); each ``hist[f, b]`` is a statistics
row as described in ``treesmith._kernels.stats`` (class weights, class counts, ECART groups;
or the regression criterion's statistics).

Only the smaller child of a split is built from its samples; the larger one is the parent minus
the smaller (``subtract_histograms``). ``build_histogram_naive`` is the reference the tests use.
"""

import numpy as np
from numba import njit, prange

from .decorators import internal_kernel, pointer_kernel
from .stats import count_column, group_column, weight_column


@internal_kernel
def _accumulate_classification(column, sample_idx, start, end, y_code, sample_weight,
                               n_classes, hist_f):
    for position in range(start, end):
        i = sample_idx[position]
        b = column[i]
        k = y_code[i]
        hist_f[b, weight_column(n_classes, k)] += sample_weight[i]
        hist_f[b, count_column(n_classes, k)] += 1.0


@internal_kernel
def _accumulate_class_counts(column, sample_idx, start, end, y_code, n_classes, hist_f):
    """``_accumulate_classification`` for unit sample weights: only the counts are summed and
    the weight columns copied from them. A sum of ones is exact, so the weights are the same
    bit for bit, for one read-modify-write per sample instead of two and no weight load."""
    for position in range(start, end):
        i = sample_idx[position]
        hist_f[column[i], count_column(n_classes, y_code[i])] += 1.0
    for b in range(hist_f.shape[0]):
        for k in range(n_classes):
            hist_f[b, weight_column(n_classes, k)] = hist_f[b, count_column(n_classes, k)]


@internal_kernel
def has_unit_weights(sample_weight, sample_idx, start, end):
    """True when every sample of ``sample_idx[start:end]`` weighs exactly 1."""
    for position in range(start, end):
        if sample_weight[sample_idx[position]] != 1.0:
            return False
    return True


@internal_kernel
def _accumulate_dense(column, sample_idx, start, end, sample_stats, hist_f):
    n_stats = sample_stats.shape[1]
    for position in range(start, end):
        i = sample_idx[position]
        b = column[i]
        for s in range(n_stats):
            hist_f[b, s] += sample_stats[i, s]


@internal_kernel
def _accumulate_groups(column, sample_idx, start, end, group_code, sample_weight, n_classes,
                       hist_f):
    """ECART's per-q-group weights (``stats.group_column``)."""
    for position in range(start, end):
        i = sample_idx[position]
        hist_f[column[i], group_column(n_classes, group_code[i])] += sample_weight[i]


@internal_kernel
def _build_feature(X_binned, f, sample_idx, start, end, y_code, sample_weight, sample_stats,
                   group_code, n_classes, unit_weights, hist):
    hist_f = hist[f]
    for b in range(hist_f.shape[0]):
        for s in range(hist_f.shape[1]):
            hist_f[b, s] = 0.0
    if n_classes > 0 and unit_weights:
        _accumulate_class_counts(X_binned[:, f], sample_idx, start, end, y_code, n_classes,
                                 hist_f)
        if group_code.shape[0] > 0:
            _accumulate_groups(X_binned[:, f], sample_idx, start, end, group_code,
                               sample_weight, n_classes, hist_f)
    elif n_classes > 0:
        _accumulate_classification(X_binned[:, f], sample_idx, start, end, y_code,
                                   sample_weight, n_classes, hist_f)
        if group_code.shape[0] > 0:
            _accumulate_groups(X_binned[:, f], sample_idx, start, end, group_code,
                               sample_weight, n_classes, hist_f)
    else:
        _accumulate_dense(X_binned[:, f], sample_idx, start, end, sample_stats, hist_f)


@njit(cache=True, parallel=True)
def build_histogram(data, start, end, hist, parallel_threshold):
    """Fill ``hist`` (OUT) from samples ``data.sample_idx[start:end]`` (``records.TrainingData``).

    Features are spread over threads when the node has at least ``parallel_threshold``
    sample-features, and built one after another below it (no thread start-up for small
    nodes). ECART's q groups (``data.group_code``, empty unless needed) add the groups' weights
    after the class columns. With unit weights (checked per node, a pass over its samples)
    only the class counts are summed (``_accumulate_class_counts``). One function for both
    paths: one compile.
    """
    # A parallel loop cannot take a record holding arrays: it gets the fields.
    X_binned, sample_idx, y_code, sample_weight, sample_stats, group_code, n_classes = data
    n_features = X_binned.shape[1]
    unit_weights = n_classes > 0 and has_unit_weights(sample_weight, sample_idx, start, end)
    if n_features * (end - start) >= parallel_threshold:
        for f in prange(n_features):
            # prange's index is unsigned: cast, so both paths share one _build_feature.
            _build_feature(X_binned, np.int64(f), sample_idx, start, end, y_code,
                           sample_weight, sample_stats, group_code, n_classes, unit_weights,
                           hist)
    else:
        for f in range(n_features):
            _build_feature(X_binned, f, sample_idx, start, end, y_code, sample_weight,
                           sample_stats, group_code, n_classes, unit_weights, hist)


@internal_kernel
def subtract_histograms(parent, child, n_classes):
    """``parent -= child`` in place: the parent's histogram becomes the sibling's.

    For classification a class whose count reaches zero gets a weight of exactly zero, so that
    rounding never leaves a phantom class behind.
    """
    n_features, n_bins, n_stats = parent.shape
    for f in range(n_features):
        for b in range(n_bins):
            for s in range(n_stats):
                parent[f, b, s] -= child[f, b, s]
            for k in range(n_classes):
                if parent[f, b, count_column(n_classes, k)] <= 0.0:
                    parent[f, b, weight_column(n_classes, k)] = 0.0
                    parent[f, b, count_column(n_classes, k)] = 0.0


@pointer_kernel
def no_histogram_build(data, start, end, hist, parallel_threshold):
    """``build_histogram``'s stand-in for fits in which no node gets a pooled histogram (the
    root has fewer than ``EngineSettings.small_node_size`` samples, so every node has): the
    growth loop never calls it, and such fits do not compile the histogram build
    (``pointers.histogram_pointer``). Were it called, the histogram would be NaN, which the
    scan reports as a failed impurity rather than splitting on garbage."""
    for f in range(hist.shape[0]):
        for b in range(hist.shape[1]):
            for s in range(hist.shape[2]):
                hist[f, b, s] = np.nan


def build_histogram_naive(X_binned, sample_idx, y_code, sample_weight, sample_stats, n_classes,
                          n_bins, group_code=None, n_groups=0):
    """Reference implementation with numpy (``np.add.at``), used by the tests."""
    n_features = X_binned.shape[1]
    if n_classes > 0:
        stats = np.zeros((sample_idx.size, 2 * n_classes + n_groups))
        rows = np.arange(sample_idx.size)
        stats[rows, y_code[sample_idx]] = sample_weight[sample_idx]
        stats[rows, n_classes + y_code[sample_idx]] = 1.0
        if n_groups:
            stats[rows, 2 * n_classes + group_code[sample_idx]] = sample_weight[sample_idx]
    else:
        stats = sample_stats[sample_idx]
    hist = np.zeros((n_features, n_bins, stats.shape[1]))
    for f in range(n_features):
        np.add.at(hist[f], X_binned[sample_idx, f].astype(np.int64), stats)
    return hist
