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
def _accumulate_class_counts(column, sample_idx, start, end, count_columns, n_classes, hist_f):
    """``_accumulate_classification`` for unit sample weights: only the counts are summed and
    the weight columns copied from them. A sum of ones is exact, so the weights are the same
    bit for bit, for one read-modify-write per sample instead of two and no weight load.
    ``count_columns[p]`` is the count column of the sample at ``sample_idx[start + p]``,
    computed once per node for all features (``class_count_columns``)."""
    hist_rows = hist_f.reshape(hist_f.size)
    n_stats = hist_f.shape[1]
    for p in range(end - start):
        hist_rows[np.int64(column[sample_idx[start + p]]) * n_stats + count_columns[p]] += 1.0
    for b in range(hist_f.shape[0]):
        for k in range(n_classes):
            hist_f[b, weight_column(n_classes, k)] = hist_f[b, count_column(n_classes, k)]


@njit(cache=True, nogil=True)
def class_count_columns(sample_idx, start, end, y_code, n_classes):
    """The count column (``stats.count_column``) of each sample of ``sample_idx[start:end]``,
    in that order: looked up once per node rather than once per feature."""
    columns = np.empty(end - start, dtype=np.int64)
    for p in range(end - start):
        columns[p] = count_column(n_classes, y_code[sample_idx[start + p]])
    return columns


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
                   group_code, n_classes, unit_weights, count_columns, hist):
    hist_f = hist[f]
    for b in range(hist_f.shape[0]):
        for s in range(hist_f.shape[1]):
            hist_f[b, s] = 0.0
    if n_classes > 0 and unit_weights:
        _accumulate_class_counts(X_binned[:, f], sample_idx, start, end, count_columns,
                                 n_classes, hist_f)
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
    count_columns = (class_count_columns(sample_idx, start, end, y_code, n_classes)
                     if unit_weights else np.empty(0, dtype=np.int64))
    if n_features * (end - start) >= parallel_threshold:
        for f in prange(n_features):
            # prange's index is unsigned: cast, so both paths share one _build_feature.
            _build_feature(X_binned, np.int64(f), sample_idx, start, end, y_code,
                           sample_weight, sample_stats, group_code, n_classes, unit_weights,
                           count_columns, hist)
    else:
        for f in range(n_features):
            _build_feature(X_binned, f, sample_idx, start, end, y_code, sample_weight,
                           sample_stats, group_code, n_classes, unit_weights, count_columns,
                           hist)


@internal_kernel(reference_counted=False)
def subtract_histograms(parent, child, n_classes):
    """``parent -= child`` in place: the parent's histogram becomes the sibling's.

    For classification a class whose count reaches zero gets a weight of exactly zero, so that
    rounding never leaves a phantom class behind.

    Two passes over the flat buffers: the subtraction (vectorised), then the zeroing without
    a data-dependent branch (``subtract_histograms_naive`` is the reference).
    """
    n_features, n_bins, n_stats = parent.shape
    n_rows = n_features * n_bins
    parent_flat = parent.reshape(n_rows * n_stats)
    child_flat = child.reshape(n_rows * n_stats)
    for j in range(n_rows * n_stats):
        parent_flat[j] -= child_flat[j]
    # A class is kept by and-ing its two cells' bits with all ones, cleared to +0.0 with zeros:
    # a branch (or a select LLVM turns back into one) per bin and class mispredicted on every
    # bin holding some classes but not others.
    bits = parent_flat.view(np.uint64)
    for r in range(n_rows):
        row = r * n_stats
        for k in range(n_classes):
            weight = row + weight_column(n_classes, k)
            count = row + count_column(n_classes, k)
            keep = np.uint64(0) - np.uint64(not parent_flat[count] <= 0.0)
            bits[weight] &= keep
            bits[count] &= keep


def subtract_histograms_naive(parent, child, n_classes):
    """Reference of ``subtract_histograms`` for the tests: the parent's histogram minus the
    child's, a class whose count is not positive zeroed (weight and count); returns a new
    array."""
    out = parent - child
    if n_classes:
        absent = out[..., n_classes:2 * n_classes] <= 0.0
        out[..., :n_classes][absent] = 0.0
        out[..., n_classes:2 * n_classes][absent] = 0.0
    return out


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
