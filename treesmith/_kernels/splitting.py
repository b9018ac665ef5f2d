"""Split finding on histograms: scan every bin threshold of a feature in both missing-value
directions and score each candidate with the node's impurity function (SPEC §2-4).

A candidate split ``(feature f, bin b, missing side)`` sends bins ``<= b`` left, the other
non-missing bins right and the missing bin to its side. The score is the weighted impurity
decrease in probability units (SPEC §4, "gain"):

    score = [w(S) h(S) - w(L) h(L) - w(R) h(R)] / w(root) = p(S) * Delta_h(S, d).

Ties are broken deterministically: the lowest feature, then the lowest threshold, then missing
values to the right before missing values to the left (strict ``>`` while scanning in that
order). When the node has no missing values, missing values at prediction time go to the child
with more weight.

The impurity ``h`` arrives as a first-class function (``IMPURITY_FUNCTION_TYPE``), so this code
never changes when a criterion is added.
"""

import numpy as np
from numba import njit, prange

NO_SPLIT = -1


@njit(cache=True, nogil=True, inline="always")
def stats_count(stats, n_classes):
    """Unweighted number of samples summarised by ``stats``."""
    if n_classes > 0:
        total = 0.0
        for k in range(n_classes):
            total += stats[n_classes + k]
        return total
    return stats[0]


@njit(cache=True, nogil=True, inline="always")
def stats_weight(stats, n_classes):
    """Total sample weight summarised by ``stats``."""
    if n_classes > 0:
        total = 0.0
        for k in range(n_classes):
            if stats[n_classes + k] > 0.0:
                total += stats[k]
        return total
    return stats[1]


@njit(cache=True, nogil=True)
def impurity_of(stats, n_classes, h, h_params, proportions):
    """h of a node: of its class proportions (classification) or its statistics (regression).

    ``proportions`` is a scratch vector of length ``n_classes``. Classes without samples get
    proportion exactly 0.
    """
    if n_classes > 0:
        weight = stats_weight(stats, n_classes)
        if weight <= 0.0:
            return 0.0
        for k in range(n_classes):
            proportions[k] = stats[k] / weight if stats[n_classes + k] > 0.0 else 0.0
        return h(proportions, h_params)
    return h(stats, h_params)


@njit(cache=True, nogil=True)
def _evaluate(left, right, n_classes, h, h_params, weighted_parent_impurity, total_weight,
              min_samples_leaf, min_weight_leaf, proportions):
    """Score of one candidate (-inf when a child violates min_samples_leaf / min_weight_leaf)."""
    if stats_count(left, n_classes) < min_samples_leaf:
        return -np.inf
    if stats_count(right, n_classes) < min_samples_leaf:
        return -np.inf
    weight_left = stats_weight(left, n_classes)
    weight_right = stats_weight(right, n_classes)
    if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
        return -np.inf
    impurity_left = impurity_of(left, n_classes, h, h_params, proportions)
    impurity_right = impurity_of(right, n_classes, h, h_params, proportions)
    return (weighted_parent_impurity - weight_left * impurity_left
            - weight_right * impurity_right) / total_weight


@njit(cache=True, nogil=True)
def scan_feature(hist_f, totals, n_bins_non_missing, missing_bin, n_classes, h, h_params,
                 weighted_parent_impurity, total_weight, min_samples_leaf, min_weight_leaf):
    """Best split of one feature from its histogram ``hist_f[bin, stat]``.

    Returns ``(score, bin_threshold, missing_go_left)``; ``bin_threshold == NO_SPLIT`` when no
    valid split exists. ``bin_threshold == n_bins_non_missing - 1`` marks the split "non-missing
    left, missing right".
    """
    n_stats = hist_f.shape[1]
    proportions = np.empty(max(n_classes, 1))
    missing = hist_f[missing_bin]
    n_missing = stats_count(missing, n_classes)
    non_missing = totals - missing
    left = np.zeros(n_stats)
    right = np.empty(n_stats)
    with_missing = np.empty(n_stats)
    best_score = -np.inf
    best_bin = NO_SPLIT
    best_missing_left = False
    last_nonempty = NO_SPLIT
    for b in range(n_bins_non_missing):
        if stats_count(hist_f[b], n_classes) <= 0.0:
            continue
        last_nonempty = b
        for s in range(n_stats):
            left[s] += hist_f[b, s]
            right[s] = non_missing[s] - left[s]
        if stats_count(right, n_classes) <= 0.0:
            break
        if n_missing > 0.0:
            for s in range(n_stats):
                with_missing[s] = right[s] + missing[s]
            score = _evaluate(left, with_missing, n_classes, h, h_params,
                              weighted_parent_impurity, total_weight, min_samples_leaf,
                              min_weight_leaf, proportions)
            if score > best_score:
                best_score, best_bin, best_missing_left = score, b, False
            for s in range(n_stats):
                with_missing[s] = left[s] + missing[s]
            score = _evaluate(with_missing, right, n_classes, h, h_params,
                              weighted_parent_impurity, total_weight, min_samples_leaf,
                              min_weight_leaf, proportions)
            if score > best_score:
                best_score, best_bin, best_missing_left = score, b, True
        else:
            score = _evaluate(left, right, n_classes, h, h_params, weighted_parent_impurity,
                              total_weight, min_samples_leaf, min_weight_leaf, proportions)
            if score > best_score:
                best_score, best_bin = score, b
                best_missing_left = (stats_weight(left, n_classes)
                                     >= stats_weight(right, n_classes))
    # Non-missing values left, missing values right.
    if n_missing > 0.0 and last_nonempty != NO_SPLIT:
        score = _evaluate(non_missing, missing, n_classes, h, h_params,
                          weighted_parent_impurity, total_weight, min_samples_leaf,
                          min_weight_leaf, proportions)
        if score > best_score:
            best_score, best_bin, best_missing_left = score, n_bins_non_missing - 1, False
    return best_score, best_bin, best_missing_left


@njit(cache=True, nogil=True)
def next_nonempty_bin(hist_f, bin_threshold, n_bins_non_missing, n_classes):
    """First non-missing bin after ``bin_threshold`` holding node samples (-1 if none)."""
    for b in range(bin_threshold + 1, n_bins_non_missing):
        if stats_count(hist_f[b], n_classes) > 0.0:
            return b
    return NO_SPLIT


@njit(cache=True, nogil=True)
def is_constant(hist_f, n_bins_non_missing, missing_bin, n_classes):
    """True when the node's samples occupy at most one bin of the feature (missing included)."""
    occupied = 1 if stats_count(hist_f[missing_bin], n_classes) > 0.0 else 0
    for b in range(n_bins_non_missing):
        if stats_count(hist_f[b], n_classes) > 0.0:
            occupied += 1
            if occupied > 1:
                return False
    return True


@njit(cache=True, nogil=True)
def _scan_one(hist, f, totals, n_bins_non_missing, missing_bin, n_classes, h, h_params,
              weighted_parent_impurity, total_weight, min_samples_leaf, min_weight_leaf,
              scores, bins, missing_left):
    score, b, goes_left = scan_feature(
        hist[f], totals, n_bins_non_missing[f], missing_bin, n_classes, h, h_params,
        weighted_parent_impurity, total_weight, min_samples_leaf, min_weight_leaf)
    scores[f] = score
    bins[f] = b
    missing_left[f] = goes_left


@njit(cache=True, nogil=True)
def scan_features_serial(hist, features, totals, n_bins_non_missing, missing_bin, n_classes, h,
                         h_params, weighted_parent_impurity, total_weight, min_samples_leaf,
                         min_weight_leaf, scores, bins, missing_left):
    """Best split of each feature in ``features`` (OUT: scores, bins, missing_left by feature)."""
    for i in range(features.shape[0]):
        _scan_one(hist, features[i], totals, n_bins_non_missing, missing_bin, n_classes, h,
                  h_params, weighted_parent_impurity, total_weight, min_samples_leaf,
                  min_weight_leaf, scores, bins, missing_left)


@njit(cache=True, parallel=True)
def scan_features_parallel(hist, features, totals, n_bins_non_missing, missing_bin, n_classes,
                           h, h_params, weighted_parent_impurity, total_weight,
                           min_samples_leaf, min_weight_leaf, scores, bins, missing_left):
    """``scan_features_serial`` with features spread over threads."""
    for i in prange(features.shape[0]):
        _scan_one(hist, features[i], totals, n_bins_non_missing, missing_bin, n_classes, h,
                  h_params, weighted_parent_impurity, total_weight, min_samples_leaf,
                  min_weight_leaf, scores, bins, missing_left)


@njit(cache=True, nogil=True)
def partition(sample_idx, start, end, column, bin_threshold, missing_bin, missing_go_left,
              buffer):
    """Stable in-place partition of ``sample_idx[start:end]``: left samples first.

    Returns the position of the first right sample. Keeping the original order inside each
    child keeps later histogram builds reading the binned columns nearly sequentially.
    """
    n_left = start
    n_right = 0
    for position in range(start, end):
        i = sample_idx[position]
        b = column[i]
        go_left = missing_go_left if b == missing_bin else b <= bin_threshold
        if go_left:
            sample_idx[n_left] = i
            n_left += 1
        else:
            buffer[n_right] = i
            n_right += 1
    for j in range(n_right):
        sample_idx[n_left + j] = buffer[j]
    return n_left
