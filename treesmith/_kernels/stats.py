"""The layout of a statistics row, the only place that knows it.

Every histogram bin, node and child is summarised by one float64 row of additive statistics:

* classification with K classes: ``[w_0 .. w_{K-1}, n_0 .. n_{K-1}, g_0 .. g_{G-1}]``, the
  class-weighted sums, the unweighted per-class counts (for min_samples_leaf and the count-based
  rules of docs/methods.md §4) and, for ECART with per-object q groups, the weight of each group;
* regression: the criterion's per-sample statistics summed, ``[n, w, w*y, ...]`` (count first,
  weight second; the rest is the criterion's business).

The kernels read and write rows only through these helpers; the Python side
(``treesmith.grower``) uses the ``*_slice`` functions at the bottom.
"""

import numpy as np

from numba import njit

from .decorators import internal_kernel

#: Regression rows: count, weight and weighted target sum columns.
REGRESSION_COUNT = 0
REGRESSION_WEIGHT = 1
REGRESSION_WEIGHTED_TARGET = 2


@internal_kernel
def weight_column(n_classes, k):
    """Column of class ``k``'s weight sum."""
    return k


@internal_kernel
def count_column(n_classes, k):
    """Column of class ``k``'s unweighted count."""
    return n_classes + k


@internal_kernel
def group_column(n_classes, g):
    """Column of ECART q-group ``g``'s weight."""
    return 2 * n_classes + g


def n_stats(n_classes, n_groups, n_sample_stats):
    """Width of a row: 2K + G for classification, the criterion's statistics for regression."""
    return 2 * n_classes + n_groups if n_classes else n_sample_stats


@njit(cache=True, nogil=True, inline="always")
def add_sample(rows, r, i, y_code, sample_weight, sample_stats, group_code, n_classes):
    """``rows[r] += statistics of sample i``; returns True when the row held no sample before.

    Takes the matrix and a row index, not a row view: a view per sample costs more than the
    additions in the small-node loops that call this. Inlined into the caller's loop over
    samples: a call per sample took an atomic incref/decref pair on each of its five arrays.
    """
    if n_classes > 0:
        fresh = True
        for k in range(n_classes):
            if rows[r, count_column(n_classes, k)] > 0.0:
                fresh = False
                break
        k = y_code[i]
        rows[r, weight_column(n_classes, k)] += sample_weight[i]
        rows[r, count_column(n_classes, k)] += 1.0
        if group_code.shape[0] > 0:
            rows[r, group_column(n_classes, group_code[i])] += sample_weight[i]
        return fresh
    fresh = rows[r, REGRESSION_COUNT] == 0.0
    for s in range(rows.shape[1]):
        rows[r, s] += sample_stats[i, s]
    return fresh


@internal_kernel
def stats_count(stats, n_classes):
    """Unweighted number of samples summarised by ``stats``."""
    if n_classes > 0:
        total = 0.0
        for k in range(n_classes):
            total += stats[count_column(n_classes, k)]
        return total
    return stats[REGRESSION_COUNT]


@internal_kernel
def stats_weight(stats, n_classes):
    """Total sample weight summarised by ``stats`` (classes without samples count 0)."""
    if n_classes > 0:
        total = 0.0
        for k in range(n_classes):
            if stats[count_column(n_classes, k)] > 0.0:
                total += stats[weight_column(n_classes, k)]
        return total
    return stats[REGRESSION_WEIGHT]


@njit(cache=True, nogil=True, inline="always")
def bin_count(hist_f, b, n_classes):
    """Unweighted number of samples in bin ``b`` of a feature's histogram. Inlined into the
    loops over bins that call it: a call per bin that passes the histogram took an atomic
    incref/decref pair on it in a counting caller."""
    if n_classes > 0:
        count = 0.0
        for k in range(n_classes):
            count += hist_f[b, count_column(n_classes, k)]
        return count
    return hist_f[b, REGRESSION_COUNT]


@internal_kernel
def pure_class_of_bin(hist_f, b, n_classes):
    """The only class present in bin ``b``, or -1 when the bin holds several classes."""
    found = -1
    for k in range(n_classes):
        if hist_f[b, count_column(n_classes, k)] > 0.0:
            if found >= 0:
                return -1
            found = k
    return found


@internal_kernel
def class_proportions(stats, n_classes, out):
    """Write the class proportions of ``stats`` into ``out``; return the weight.

    Classes without samples get proportion exactly 0.
    """
    weight = stats_weight(stats, n_classes)
    for k in range(n_classes):
        present = stats[count_column(n_classes, k)] > 0.0 and weight > 0.0
        out[k] = stats[weight_column(n_classes, k)] / weight if present else 0.0
    return weight


@internal_kernel(reference_counted=False)
def impurity_of(stats, n_classes, h, h_params, proportions):
    """h of a row: of its class proportions (classification) or its statistics (regression).

    ``proportions`` is a scratch vector of length ``n_classes``.
    """
    if n_classes > 0:
        if class_proportions(stats, n_classes, proportions) <= 0.0:
            return 0.0
        return h(proportions, h_params)
    return h(stats, h_params)


@internal_kernel
def pairs_of(stats, n_classes):
    """phi: unordered pairs of objects with different classes, from unweighted class counts."""
    total = 0.0
    squares = 0.0
    for k in range(n_classes):
        count = stats[count_column(n_classes, k)]
        total += count
        squares += count * count
    return 0.5 * (total * total - squares)


# -- the same layout for Python code (node arrays of a grown tree) ---------------------------
def class_weights_slice(n_classes):
    """Columns of the class weight sums."""
    return slice(0, n_classes)


def class_counts_slice(n_classes):
    """Columns of the unweighted class counts."""
    return slice(n_classes, 2 * n_classes)


def node_counts(stats, n_classes):
    """Unweighted sample count of each row of ``stats`` (n_rows, n_stats), as int64."""
    if n_classes:
        # column by column: the counts are integers, exact in any order, and numpy's sum
        # over a short axis took ~30 ns a row (a tenth of the Python part of a forest tree)
        columns = stats[:, class_counts_slice(n_classes)]
        counts = columns[:, 0].copy()
        for k in range(1, n_classes):
            counts += columns[:, k]
    else:
        counts = stats[:, REGRESSION_COUNT]
    return np.rint(counts).astype(np.int64)


def node_weights(stats, n_classes):
    """Weight of each row of ``stats`` (n_rows, n_stats)."""
    if n_classes:
        return stats[:, class_weights_slice(n_classes)].sum(axis=1)
    return stats[:, REGRESSION_WEIGHT].copy()
