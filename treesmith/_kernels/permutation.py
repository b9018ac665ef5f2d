"""Permutation test of one feature's best split, the S-condition of S-pruning
(docs/methods.md §6).

At a node S whose best test uses feature ``X_c`` with gain ``G``, the labels are shuffled
``t`` times and the best gain of the *same feature* is recomputed each time. The p-value is

    p = (1 + #{permutations with gain >= G}) / (1 + t)

(Phipson & Smyth's estimate; the S-pruning paper counts ``#{...} / t``, which can reach 0 and
so is not a valid p-value). The node becomes a leaf when ``p > s`` (docs/methods.md §6).

Labels move together with their sample weights, so the node's class totals, hence ``h(S)``,
are the same in every permutation: the null hypothesis is "the feature's bins are independent
of (label, weight)". The gain of a candidate is the impurity decrease of the node,

    Delta_h(S, d) = h(S) - sum_v w(S_v)/w(S) h(S_v),

computed by the engine's own per-feature histogram (``histogram._accumulate_classification``)
and per-feature bin scan (``splitting.scan_feature``): same thresholds, same missing-value
handling (missing values may go to either side, or form a child of their own), same
``min_samples_leaf`` / ``min_weight_leaf``. The shuffles use a private xorshift64* generator
seeded by ``seed``, so the result is reproducible and independent of Numba's global state.
"""

import numpy as np
from numba import njit

from .categorical import categorical_scan_workspace, scan_categorical
from .decorators import internal_kernel, pointer_kernel
from .histogram import _accumulate_classification
from .random import initial_state, next_below
from .records import (
    GROWTH_CRITERION_FAILED,
    SPLIT_DTYPE,
    STATUS_CODE,
    STATUS_DEPTH,
    STATUS_END,
    STATUS_FEATURE,
    STATUS_IN_PERMUTATION_TEST,
    STATUS_NODE,
    STATUS_START,
    Impurity,
    Monotonicity,
    NodeScan,
)
from .split_rules import NO_SPLIT, gain_rule
from .splitting import scan_feature, scan_workspace

# Arguments (kept as documentation; compiled lazily so that import stays fast):
# types.int64[::1],  # feature_bins: bin of each node sample for the tested feature
# types.int64[::1],  # y_code: class code of each node sample, in [0, n_classes)
# types.float64[::1],  # sample_weight: weight of each node sample
# types.int64,  # n_classes
# types.int64,  # n_bins: non-missing bins of the feature are 0 .. n_bins - 1
# types.int64,  # missing_bin: bin index of missing values (>= n_bins)
# IMPURITY_FUNCTION_TYPE,  # h(proportions, params)
# types.float64[::1],  # h_params
# types.int64,  # min_samples_leaf
# types.float64,  # min_weight_leaf
# types.int64,  # n_permutations
# types.int64,  # seed

@njit(cache=True, nogil=True)
def _shuffle_pairs(y_code, sample_weight, state):
    """Fisher-Yates shuffle of the (label, weight) pairs, in place."""
    for i in range(y_code.shape[0] - 1, 0, -1):
        j = next_below(state, i + 1)
        y_code[i], y_code[j] = y_code[j], y_code[i]
        sample_weight[i], sample_weight[j] = sample_weight[j], sample_weight[i]


@njit(cache=True, nogil=True)
def _best_gain(feature_bins, sample_idx, y_code, sample_weight, n_bins, node, hist_f, work,
               out, categorical, scan_in_order):
    """Largest Delta_h over the feature's thresholds, or over its sets of categories when
    ``categorical`` (-inf when no valid split exists); ``scan_in_order`` is the numeric scan's
    twin that takes the bins in ``NodeScan.bin_order`` (``pointers.scan_pointer(...,
    in_order=True)``), which the categorical scan scores its candidates with, or None when no
    feature is categorical.

    ``node`` is the node's ``records.NodeScan`` under the gain rule, with the node's own weight
    as total weight; ``node.totals``, ``hist_f``, ``work`` and ``out`` are scratch.
    """
    n_classes = node.n_classes
    hist_f[:] = 0.0
    _accumulate_classification(feature_bins, sample_idx, 0, sample_idx.shape[0], y_code,
                               sample_weight, n_classes, hist_f)
    totals = node.totals
    totals[:] = 0.0
    for b in range(hist_f.shape[0]):
        for s in range(hist_f.shape[1]):
            totals[s] += hist_f[b, s]
    # n_bins is also the missing bin of the compact bins
    if scan_in_order is None:
        scan_feature(hist_f, n_bins, n_bins, node, work, out, np.int64(0))
    elif categorical:
        scan_categorical(hist_f, n_bins, n_bins, node, work, out, np.int64(0), scan_in_order)
    else:
        scan_feature(hist_f, n_bins, n_bins, node, work, out, np.int64(0))
    if out[0]["impurity_failed"]:  # h failed on some candidate: the test cannot be trusted
        return np.nan
    if out[0]["bin_threshold"] == NO_SPLIT:
        return -np.inf
    return out[0]["score"]


@njit(cache=True, nogil=True)
def _compact_bins(feature_bins, missing_bin, out):
    """Renumber the occupied bins 0..m-1 in order, missing values to m; write ``out``, return m.

    Empty bins are skipped by the scan anyway, so the candidate splits are unchanged; the
    histogram then has m + 1 rows instead of up to 65 536, which is what small nodes need.
    """
    n_rows = missing_bin + 1
    for i in range(feature_bins.shape[0]):
        n_rows = max(n_rows, feature_bins[i] + 1)
    rank = np.zeros(n_rows, dtype=np.int64)
    for i in range(feature_bins.shape[0]):
        rank[feature_bins[i]] = 1
    n_occupied = 0
    for b in range(n_rows):
        if b == missing_bin:
            continue
        if rank[b] > 0:
            rank[b] = n_occupied
            n_occupied += 1
    rank[missing_bin] = n_occupied
    for i in range(feature_bins.shape[0]):
        out[i] = rank[feature_bins[i]]
    return n_occupied


@njit(cache=True, nogil=True)
def _weighted_parent_impurity(y_code, sample_weight, n_classes, h, h_params):
    """``(w(S), w(S) h(S))`` of the node."""
    proportions = np.zeros(n_classes)
    node_weight = 0.0
    for i in range(y_code.shape[0]):
        node_weight += sample_weight[i]
        proportions[y_code[i]] += sample_weight[i]
    if node_weight <= 0.0:
        return node_weight, 0.0
    for k in range(n_classes):
        proportions[k] /= node_weight
    return node_weight, node_weight * h(proportions, h_params)


# Arguments (kept as documentation; compiled lazily so that import stays fast):
# types.int64[:, :],  # node_bins: (n_samples, n_features) node bins, any memory order
# types.int64[::1],  # y_code
# types.float64[::1],  # sample_weight
# types.int64,  # n_classes
# types.int64[::1],  # n_bins: non-missing bins of each feature
# types.int64,  # missing_bin
# IMPURITY_FUNCTION_TYPE,  # h
# types.float64[::1],  # h_params
# types.int64,  # min_samples_leaf
# types.float64,  # min_weight_leaf
# types.int64,  # n_permutations
# types.int64,  # seed
# types.boolean[::1],  # is_categorical: columns split by sets of categories
# scan pointer or None  # the numeric scan's in-order twin, for the categorical columns
#                         (None: none is)


@njit(cache=True, nogil=True)
def permutation_test_max(node_bins, y_code, sample_weight, n_classes, n_bins, missing_bin, h,
                         h_params, min_samples_leaf, min_weight_leaf, n_permutations, seed,
                         is_categorical, scan_in_order):
    """Like :func:`permutation_test`, for the best gain over *all* features of the node.

    Seed 001 re-tests only the chosen feature, which ignores that it was chosen as the best of
    d: under the null its p-value is close to the smallest of d uniform p-values. Taking the
    maximum over all features in every permutation gives a test of the node's best split whose
    level is ``s`` whatever d (at up to d times the cost; a permutation stops at the first
    feature that reaches ``G``).
    """
    n_samples, n_features = node_bins.shape
    node_weight, weighted_parent_impurity = _weighted_parent_impurity(
        y_code, sample_weight, n_classes, h, h_params)
    if n_samples == 0 or node_weight <= 0.0:
        return -np.inf, 1.0
    compact = np.empty((n_samples, n_features), dtype=np.int64).T.copy().T  # Fortran order
    n_occupied = np.empty(n_features, dtype=np.int64)
    for f in range(n_features):
        n_occupied[f] = _compact_bins(node_bins[:, f], missing_bin, compact[:, f])
    sample_idx = np.arange(n_samples)
    n_stats = 2 * n_classes
    hist_f = np.zeros((n_occupied.max() + 1, n_stats))
    totals = np.zeros(n_stats)
    work = (scan_workspace(np.int64(1), n_stats, n_classes) if scan_in_order is None
            else categorical_scan_workspace(np.int64(1), n_stats, n_classes,
                                            np.int64(hist_f.shape[0])))[0]
    out = np.empty(1, dtype=SPLIT_DTYPE)
    # Gains only, and no skip_same_class_runs: valid for any h.
    # Unconstrained: the test asks whether the feature is associated with the labels at all.
    node = NodeScan(n_classes, Impurity(h, h_params), gain_rule(), min_samples_leaf,
                    min_weight_leaf, weighted_parent_impurity, node_weight, totals,
                    Monotonicity(np.zeros(0, dtype=np.int64), -np.inf, np.inf),
                    np.zeros(0, dtype=np.int64))

    observed = -np.inf
    for f in range(n_features):
        gain = _best_gain(compact[:, f], sample_idx, y_code, sample_weight, n_occupied[f], node,
                          hist_f[:n_occupied[f] + 1], work, out, is_categorical[f],
                          scan_in_order)
        if gain != gain:  # the criterion failed: p is NaN, and the grower raises
            return gain, np.nan
        observed = max(observed, gain)
    if observed == -np.inf:
        return observed, 1.0

    shuffled_y = y_code.copy()
    shuffled_w = sample_weight.copy()
    state = np.empty(1, dtype=np.uint64)
    state[0] = initial_state(seed)
    n_at_least = 0
    for _ in range(n_permutations):
        _shuffle_pairs(shuffled_y, shuffled_w, state)
        for f in range(n_features):
            gain = _best_gain(compact[:, f], sample_idx, shuffled_y, shuffled_w, n_occupied[f],
                              node, hist_f[:n_occupied[f] + 1], work, out, is_categorical[f],
                              scan_in_order)
            if gain != gain:
                return observed, np.nan
            if gain >= observed - 1e-12:
                n_at_least += 1
                break
    return observed, (1.0 + n_at_least) / (1.0 + n_permutations)


@njit(cache=True, nogil=True)
def permutation_test(feature_bins, y_code, sample_weight, n_classes, n_bins, missing_bin, h,
                     h_params, min_samples_leaf, min_weight_leaf, n_permutations, seed):
    """Observed best gain ``G`` of one feature at a node and its permutation p-value.

    IN: the node's samples only (``feature_bins``, ``y_code``, ``sample_weight``, same length;
    non-missing bins below ``n_bins``, missing values in ``missing_bin``).
    OUT: ``(G, p)``; ``G = -inf`` and ``p = 1`` when the feature has no valid split.
    ``p = (1 + #{gain_perm >= G}) / (1 + n_permutations)`` with a 1e-12 tolerance on ties, so
    that a permutation reproducing the observed partition always counts.
    """
    node_bins = np.empty((1, feature_bins.shape[0]), dtype=np.int64).T  # Fortran order
    node_bins[:, 0] = feature_bins
    column_bins = np.full(1, n_bins, dtype=np.int64)
    return permutation_test_max(node_bins, y_code, sample_weight, n_classes, column_bins,
                                missing_bin, h, h_params, min_samples_leaf, min_weight_leaf,
                                n_permutations, seed, np.zeros(1, dtype=np.bool_), None)


def permutation_test_naive(feature_bins, y_code, sample_weight, n_classes, n_bins, missing_bin,
                           h, min_samples_leaf=1, n_permutations=0, seed=0):
    """Reference in plain numpy for the tests: brute force over thresholds and missing sides.

    ``h`` is a Python callable of the proportion vector. Uses numpy's generator for the
    shuffles, so it agrees with :func:`permutation_test` on ``G`` and, for
    ``n_permutations=0``, on ``p``; with permutations it estimates the same p-value.
    """
    feature_bins = np.asarray(feature_bins)
    y_code = np.asarray(y_code)
    sample_weight = np.asarray(sample_weight, dtype=np.float64)

    def impurity(mask, labels, weights):
        w = weights[mask]
        if w.sum() <= 0:
            return 0.0, 0.0
        totals = np.bincount(labels[mask], weights=w, minlength=n_classes)
        return w.sum(), h(totals / w.sum())

    def best_gain(labels, weights):
        node_w, node_h = impurity(np.ones(labels.shape, bool), labels, weights)
        missing = feature_bins == missing_bin
        best = -np.inf
        candidates = []
        for b in range(n_bins):
            for missing_left in (False, True):
                left = (feature_bins <= b) & ~missing
                candidates.append(left | missing if missing_left else left)
        candidates.append(~missing)
        for left in candidates:
            n_left = left.sum()
            if min(n_left, left.size - n_left) < max(min_samples_leaf, 1):
                continue
            w_l, h_l = impurity(left, labels, weights)
            w_r, h_r = impurity(~left, labels, weights)
            best = max(best, (node_w * node_h - w_l * h_l - w_r * h_r) / node_w)
        return best

    observed = best_gain(y_code, sample_weight)
    if observed == -np.inf:
        return observed, 1.0
    rng = np.random.default_rng(seed)
    n_at_least = 0
    for _ in range(n_permutations):
        order = rng.permutation(y_code.size)
        n_at_least += best_gain(y_code[order], sample_weight[order]) >= observed - 1e-12
    return observed, (1.0 + n_at_least) / (1.0 + n_permutations)


@internal_kernel
def record_failure(status, node, f, start, end, depth):
    """``status`` (``records.STATUS_*``): the impurity failed at ``node`` (samples
    ``start:end``, depth ``depth``), on feature ``f``; the grower explains and raises."""
    status[STATUS_CODE] = GROWTH_CRITERION_FAILED
    status[STATUS_NODE] = node
    status[STATUS_FEATURE] = f
    status[STATUS_START] = start
    status[STATUS_END] = end
    status[STATUS_DEPTH] = depth


# -- the node test the growth kernel calls through a function pointer -------------------------
@njit(cache=True, nogil=True)
def node_is_significant(data, start, end, f, bins, impurity, stopping, significance, seed,
                        scan_in_order, status, node, depth):
    """S-condition: is the best gain of feature ``f`` (or, ``significance.over_features``, the
    node's best gain over all features) significant at ``significance.level``? The node's
    samples are ``data.sample_idx[start:end]``; the p-value is ``permutation_test_max``'s on
    the node's bins of that one feature (S-pruning's test) or of every feature, a categorical
    feature re-scored by sets of categories with ``scan_in_order`` (the numeric scan's twin
    that takes bins in ``NodeScan.bin_order``). A NaN p-value (the impurity failed on
    shuffled labels) is reported in ``status`` (``records.STATUS_*``) like a failed scan.

    The growth loop calls it through ``pointers.significance_test_pointer``, so that only fits
    with S-pruning compile the permutation test.
    """
    X_binned = data.X_binned
    over_features = significance.over_features
    n = end - start
    n_columns = X_binned.shape[1] if over_features else 1
    node_bins = np.empty((n_columns, n), dtype=np.int64).T  # Fortran order
    n_bins = np.empty(n_columns, dtype=np.int64)
    categorical = np.empty(n_columns, dtype=np.bool_)
    labels = np.empty(n, dtype=np.int64)
    weights = np.empty(n)
    for c in range(n_columns):
        n_bins[c] = bins.n_bins_non_missing[c if over_features else f]
        categorical[c] = bins.is_categorical[c if over_features else f]
    for t in range(n):
        i = data.sample_idx[start + t]
        labels[t] = data.y_code[i]
        weights[t] = data.sample_weight[i]
        for c in range(n_columns):
            node_bins[t, c] = X_binned[i, c if over_features else f]
    p_value = permutation_test_max(
        node_bins, labels, weights, data.n_classes, n_bins, bins.missing_bin, impurity.h,
        impurity.h_params, stopping.min_samples_leaf, stopping.min_weight_leaf,
        significance.n_permutations, seed, categorical, scan_in_order)[1]
    if p_value != p_value:
        record_failure(status, node, f, start, end, depth)
        status[STATUS_IN_PERMUTATION_TEST] = 1
    return p_value <= significance.level


@pointer_kernel
def node_test_skipped(data, start, end, f, bins, impurity, stopping, significance, seed,
                      scan_in_order, status, node, depth):
    """Without S-pruning every split stands: ``node_is_significant``'s stand-in, which the
    growth loop never calls (it tests ``significance.level > 0`` first) but whose pointer
    type it needs."""
    return True
