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

import numba
import numpy as np
from numba import njit, prange, types

from .._dtypes import IMPURITY_FUNCTION_TYPE
from .pointers import function_pointer

#: Bin threshold of "no valid split". A numpy integer, not a Python int: Numba types a Python
#: int global as a literal, and every kernel called with it would be compiled twice.
NO_SPLIT = np.int64(-1)


@njit(cache=True, nogil=True)
def stats_count(stats, n_classes):
    """Unweighted number of samples summarised by ``stats``."""
    if n_classes > 0:
        total = 0.0
        for k in range(n_classes):
            total += stats[n_classes + k]
        return total
    return stats[0]


@njit(cache=True, nogil=True)
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
def _proportions(stats, n_classes, out):
    """Write the class proportions of ``stats`` into ``out``; return the node weight."""
    weight = 0.0
    for k in range(n_classes):
        if stats[n_classes + k] > 0.0:
            weight += stats[k]
    for k in range(n_classes):
        out[k] = stats[k] / weight if (stats[n_classes + k] > 0.0 and weight > 0.0) else 0.0
    return weight


@njit(cache=True, nogil=True)
def _bin_count(hist_f, b, n_classes):
    if n_classes > 0:
        count = 0.0
        for k in range(n_classes):
            count += hist_f[b, n_classes + k]
        return count
    return hist_f[b, 0]


@njit(cache=True, nogil=True)
def _next_occupied(hist_f, b, n_bins_non_missing, n_classes):
    b += 1
    while b < n_bins_non_missing and _bin_count(hist_f, b, n_classes) <= 0.0:
        b += 1
    return b if b < n_bins_non_missing else NO_SPLIT


@njit(cache=True, nogil=True)
def _pure_class(hist_f, b, n_classes):
    """The only class present in bin ``b``, or -1 when the bin holds several classes."""
    found = -1
    for k in range(n_classes):
        if hist_f[b, n_classes + k] > 0.0:
            if found >= 0:
                return -1
            found = k
    return found


#: Relative margin by which a candidate must beat the incumbent: scores that are equal in exact
#: arithmetic can differ by rounding, and the tie rule (lowest feature, lowest threshold) must
#: not depend on that.
TIE_TOLERANCE = 1e-12


@njit(cache=True, nogil=True)
def beats(score, best, scale):
    """``score`` is better than ``best`` by more than rounding noise.

    ``scale`` is the magnitude of the terms a score is computed from (e.g. p(S) h(S) for a
    gain), which is what the rounding error of a difference of such terms is relative to.
    """
    if best == -np.inf:
        return score > best
    return score > best + TIE_TOLERANCE * max(abs(best), scale)


@njit(cache=True, nogil=True)
def pairs_of(stats, n_classes):
    """phi: unordered pairs of objects with different classes, from unweighted class counts."""
    total = 0.0
    squares = 0.0
    for k in range(n_classes):
        count = stats[n_classes + k]
        total += count
        squares += count * count
    return 0.5 * (total * total - squares)


@njit(cache=True, nogil=True)
def _efficiency(child, n_classes, n_groups, group_q, weight_child, weight_node, pairs_child,
                pairs_node, total_weight):
    """One child's share of ECART's E term (SPEC §4, seed 000 eq. 2), in probability units.

    sum over the child's objects of p(x_i) * [1 - (p(child) - q_i)_+ / (p(S) - q_i)
    * phi(child) / phi(S)], objects with p(S) <= q_i contributing 0. Objects are grouped by their
    distinct q_i: with one group the child's weight stands for the group's weight, otherwise
    ``child[2K + g]`` holds the weight of group g.
    """
    p_child = weight_child / total_weight
    p_node = weight_node / total_weight
    pair_ratio = pairs_child / pairs_node if pairs_node > 0.0 else 0.0
    total = 0.0
    for g in range(max(n_groups, 1)):
        q = group_q[g]
        if p_node <= q:
            continue
        group_weight = child[2 * n_classes + g] if n_groups > 0 else weight_child
        covered = p_child - q
        covered = max(covered, 0.0)
        total += group_weight / total_weight * (1.0 - covered / (p_node - q) * pair_ratio)
    return total


@njit(cache=True, nogil=True)
def scan_feature(hist_f, totals, n_bins_non_missing, missing_bin, n_classes, h, h_params,
                 weighted_parent_impurity, total_weight, min_samples_leaf, min_weight_leaf,
                 skip_same_class_runs, work, out):
    """Best split of one feature by gain: ``scan_feature_rule`` with RULE_GAIN.

    Returns ``(score, bin_threshold, missing_go_left)``; ``out`` (length >= 5) is scratch,
    passed in because the permutation test calls this for every shuffle.
    """
    scan_feature_rule(hist_f, totals, n_bins_non_missing, missing_bin, n_classes, h, h_params,
                      weighted_parent_impurity, total_weight, min_samples_leaf, min_weight_leaf,
                      skip_same_class_runs, work, np.int64(0), 0.0, np.int64(0), work[6, :1],
                      out)
    return out[0], np.int64(out[1]), out[2] > 0.5


@njit(cache=True, nogil=True)
def scan_feature_rule(hist_f, totals, n_bins_non_missing, missing_bin, n_classes, h, h_params,
                      weighted_parent_impurity, total_weight, min_samples_leaf,
                      min_weight_leaf, skip_same_class_runs, work, rule, lam, n_groups,
                      group_q, out):
    """Best split of one feature from its histogram ``hist_f[bin, stat]`` under a rule.

    OUT ``out[:5]``: ``(score, bin_threshold, missing_go_left (1.0 = left), weight_left,
    gain)`` of the best candidate; ``bin_threshold == NO_SPLIT`` when no valid split exists.
    The kernels call it through ``scan_pointer``. The score is the rule's
    numerator (SPEC §4; the node divides by the feature's cost): the gain
    p(S) Delta_h (gain, gain ratio, cost-benefit), B + E + lam * D (ECART, lam = 0 for ASR),
    phi(S) - phi(L) - phi(R) (impure pairs), -|p(L) - p(R)| (balanced). ``n_groups`` and
    ``group_q`` describe ECART's per-object q_i = max(p(x_i), theta) (see ``_efficiency``). ``bin_threshold == n_bins_non_missing - 1`` marks the split "non-missing
    left, missing right". Candidates violating min_samples_leaf / min_weight_leaf are skipped.

    With ``skip_same_class_runs`` (gain of a strictly concave impurity, no leaf-size
    constraint), a cut
    between two occupied bins that are pure in the same class is not evaluated: along such a run
    the children's class-weight vectors move on a line, where the weighted child impurity
    (a sum of perspectives of the concave h) is concave, so the gain is maximised at the run's
    ends, strictly (Fayyad & Irani 1992, generalised). The first cut is always evaluated.

    ``work`` is scratch space of shape ``(7, max(n_stats, n_classes))`` (see ``scan_workspace``).
    The loop indexes scalars and calls ``h`` directly: array views and passing the function
    pointer through helpers cost several times the arithmetic here.
    """
    n_stats = hist_f.shape[1]
    classification = n_classes > 0
    missing = work[0]
    non_missing = work[1]
    left = work[2]
    right = work[3]
    candidate_left = work[4, :n_stats]
    candidate_right = work[5, :n_stats]
    proportions = work[6, :max(n_classes, 1)]
    for s in range(n_stats):
        missing[s] = hist_f[missing_bin, s]
        non_missing[s] = totals[s] - missing[s]
        left[s] = 0.0
    n_missing = stats_count(missing, n_classes)
    node_weight = stats_weight(totals, n_classes)
    node_pairs = pairs_of(totals, n_classes) if classification else 0.0
    if rule == 4:
        scale = node_pairs
    else:
        scale = (abs(weighted_parent_impurity) + node_weight) / total_weight
    best_score = -np.inf
    best_bin = NO_SPLIT
    # np.bool_, not the literal False: Numba compiles a callee for every type a variable takes
    # during inference, so a literal initial value compiles _write_result twice.
    best_missing_left = np.bool_(False)
    best_weight_left = 0.0
    best_gain = -np.inf
    b = _next_occupied(hist_f, NO_SPLIT, n_bins_non_missing, n_classes)
    pure_here = -1
    if skip_same_class_runs and b != NO_SPLIT:
        pure_here = _pure_class(hist_f, b, n_classes)
    first_cut = True
    while b != NO_SPLIT:
        next_b = _next_occupied(hist_f, b, n_bins_non_missing, n_classes)
        for s in range(n_stats):
            left[s] += hist_f[b, s]
            right[s] = non_missing[s] - left[s]
        if next_b == NO_SPLIT:
            # All non-missing values are left: only "missing values right" remains.
            if n_missing <= 0.0:
                break
            cut = n_bins_non_missing - 1
            n_variants = 1
        else:
            cut = b
            n_variants = 2 if n_missing > 0.0 else 1
            pure_next = _pure_class(hist_f, next_b, n_classes) if skip_same_class_runs else -1
            skip = pure_here >= 0 and pure_here == pure_next and not first_cut
            pure_here = pure_next
            first_cut = False
            if skip:
                b = next_b
                continue
        for variant in range(n_variants):
            # variant 0: missing values right (or none); variant 1: missing values left.
            if next_b == NO_SPLIT:
                for s in range(n_stats):
                    candidate_left[s] = non_missing[s]
                    candidate_right[s] = missing[s]
            elif variant == 0:
                for s in range(n_stats):
                    candidate_left[s] = left[s]
                    candidate_right[s] = right[s] + missing[s]
            else:
                for s in range(n_stats):
                    candidate_left[s] = left[s] + missing[s]
                    candidate_right[s] = right[s]
            if (stats_count(candidate_left, n_classes) < min_samples_leaf
                    or stats_count(candidate_right, n_classes) < min_samples_leaf):
                continue
            if classification:
                weight_left = _proportions(candidate_left, n_classes, proportions)
                impurity_left = h(proportions, h_params) if weight_left > 0.0 else 0.0
                weight_right = _proportions(candidate_right, n_classes, proportions)
                impurity_right = h(proportions, h_params) if weight_right > 0.0 else 0.0
            else:
                weight_left = candidate_left[1]
                impurity_left = h(candidate_left, h_params)
                weight_right = candidate_right[1]
                impurity_right = h(candidate_right, h_params)
            if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                continue
            gain = (weighted_parent_impurity - weight_left * impurity_left
                    - weight_right * impurity_right) / total_weight
            if rule == 3:  # ECART: B + E + lam * D
                if (stats_count(candidate_left, n_classes)
                        >= stats_count(candidate_right, n_classes)):
                    balance = (node_weight - weight_left) / total_weight
                else:
                    balance = (node_weight - weight_right) / total_weight
                pairs_left = pairs_of(candidate_left, n_classes)
                pairs_right = pairs_of(candidate_right, n_classes)
                efficiency = (
                    _efficiency(candidate_left, n_classes, n_groups, group_q, weight_left,
                                node_weight, pairs_left, node_pairs, total_weight)
                    + _efficiency(candidate_right, n_classes, n_groups, group_q, weight_right,
                                  node_weight, pairs_right, node_pairs, total_weight))
                score = balance + efficiency + lam * gain
            elif rule == 4:  # impure pairs
                score = (node_pairs - pairs_of(candidate_left, n_classes)
                         - pairs_of(candidate_right, n_classes))
            elif rule == 5:  # balanced
                score = -abs(weight_left - weight_right) / total_weight
            else:  # gain, gain ratio, cost-benefit
                score = gain
            if beats(score, best_score, scale):
                best_score = score
                best_gain = gain
                best_weight_left = weight_left
                best_bin = cut
                if n_missing > 0.0:
                    best_missing_left = variant == 1
                else:
                    best_missing_left = weight_left >= weight_right
        if next_b == NO_SPLIT:
            break
        b = next_b
    _write_result(out, best_score, best_bin, best_missing_left, best_weight_left, best_gain)


@njit(cache=True, nogil=True)
def _write_result(out, score, b, missing_left, weight_left, gain):
    out[0] = score
    out[1] = b
    out[2] = 1.0 if missing_left else 0.0
    out[3] = weight_left
    out[4] = gain


@njit(cache=True)
def scan_workspace(n_features, n_stats, n_classes):
    """Scratch space for ``scan_feature``: one ``(7, width)`` block per feature."""
    return np.zeros((n_features, 7, max(n_stats, n_classes, 1)))


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


#: Signature of the per-feature scan called through a function pointer (``scan_pointer``):
#: the arguments of ``scan_feature_rule``, the last one its output.
SCAN_SIGNATURE = types.void(
    types.float64[:, ::1], types.float64[::1], types.int64, types.int64, types.int64,
    IMPURITY_FUNCTION_TYPE, types.float64[::1], types.float64, types.float64, types.int64,
    types.float64, types.boolean, types.float64[:, ::1], types.int64, types.float64,
    types.int64, types.float64[::1], types.float64[::1])
SCAN_FUNCTION_TYPE = types.FunctionType(SCAN_SIGNATURE)


_SCAN_POINTER = []


def scan_pointer():
    """The per-feature scan (``scan_feature_rule``) as a first-class function pointer.

    The scan is the largest piece of compiled code; called directly it would be compiled again
    into every caller (``treesmith._kernels.pointers``). Through the pointer it is compiled
    once, which took seconds off the first fit. The call costs nanoseconds against a scan's
    microseconds.
    """
    if not _SCAN_POINTER:
        _SCAN_POINTER.append(function_pointer(scan_feature_rule, SCAN_SIGNATURE))
    return _SCAN_POINTER[0]


@njit(cache=True, nogil=True)
def scan_features_serial(hist, features, totals, n_bins_non_missing, missing_bin, n_classes, h,
                         h_params, weighted_parent_impurity, total_weight, min_samples_leaf,
                         min_weight_leaf, skip_same_class_runs, rule, lam, n_groups, group_q,
                         results, work, scan):
    """Best split of each feature in ``features`` through ``scan`` (``scan_pointer()``).

    OUT ``results[f]``: score, bin, missing side (1.0 = left), left weight, gain, next bin
    (NO_SPLIT: the bin after the threshold is found from the histogram).
    """
    for i in range(features.shape[0]):
        f = features[i]
        scan(hist[f], totals, n_bins_non_missing[f], missing_bin, n_classes, h, h_params,
             weighted_parent_impurity, total_weight, min_samples_leaf, min_weight_leaf,
             skip_same_class_runs, work[f], rule, lam, n_groups, group_q, results[f])
        results[f, 5] = NO_SPLIT


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


#: Shell sort gaps (Ciura's sequence), largest first; ending with 1 makes the last pass an
#: insertion sort.
_SHELL_GAPS = np.array([701, 301, 132, 57, 23, 10, 4, 1], dtype=np.int64)


@njit(cache=True, nogil=True)
def sort_prefix(values, n):
    """Sort ``values[:n]`` in place: the occupied bins of a small node (n < a few hundred).

    Shell sort: a few lines that compile in a fraction of the time ``np.sort`` takes, and for
    n <= 16, where only the final gap of 1 applies, it is a plain insertion sort.
    """
    for g in range(_SHELL_GAPS.shape[0]):
        gap = _SHELL_GAPS[g]
        for i in range(gap, n):
            key = values[i]
            j = i
            while j >= gap and values[j - gap] > key:
                values[j] = values[j - gap]
                j -= gap
            values[j] = key


@njit(cache=True, nogil=True)
def compact_feature_histogram(X_binned, f, sample_idx, start, end, y_code, sample_weight,
                              sample_stats, group_code, n_classes, missing_bin, scratch,
                              touched, compact):
    """Histogram of one feature restricted to the bins the node's samples occupy.

    For a small node this costs O(n log n) instead of O(n_bins): samples are accumulated in
    ``scratch`` (all zeros on entry and on exit), the occupied bins are sorted into
    ``touched[:n_occupied]`` and their rows copied to ``compact``, followed by the missing-value
    row. Returns ``n_occupied`` non-missing bins; ``compact[:n_occupied + 1]`` can then be
    scanned by ``scan_feature`` exactly like a full histogram.
    """
    n_stats = scratch.shape[1]
    n_touched = np.int64(0)
    for position in range(start, end):
        i = sample_idx[position]
        b = X_binned[i, f]
        if n_classes > 0:
            k = y_code[i]
            fresh = True
            for kk in range(n_classes):
                if scratch[b, n_classes + kk] > 0.0:
                    fresh = False
                    break
            scratch[b, k] += sample_weight[i]
            scratch[b, n_classes + k] += 1.0
            if group_code.shape[0] > 0:
                scratch[b, 2 * n_classes + group_code[i]] += sample_weight[i]
        else:
            fresh = scratch[b, 0] == 0.0
            for s in range(n_stats):
                scratch[b, s] += sample_stats[i, s]
        if fresh:
            touched[n_touched] = b
            n_touched += 1
    sort_prefix(touched, n_touched)
    n_occupied = n_touched
    if n_touched > 0 and touched[n_touched - 1] == missing_bin:
        n_occupied -= 1
    for j in range(n_occupied):
        for s in range(n_stats):
            compact[j, s] = scratch[touched[j], s]
    for s in range(n_stats):
        compact[n_occupied, s] = scratch[missing_bin, s]
    for j in range(n_touched):
        for s in range(n_stats):
            scratch[touched[j], s] = 0.0
    return n_occupied


@njit(cache=True, nogil=True)
def scan_features_sparse(X_binned, features, sample_idx, start, end, y_code, sample_weight,
                         sample_stats, group_code, n_classes, missing_bin, n_bins_non_missing,
                         totals, h, h_params, weighted_parent_impurity, total_weight,
                         min_samples_leaf, min_weight_leaf, skip_same_class_runs, rule, lam,
                         n_groups, group_q, scratch, touched, compact, results, work, scan):
    """Small-node counterpart of ``scan_features_serial``: same scan on compact histograms.

    Bins are translated back from compact to full indices; ``results[f, 5]`` gets the next
    occupied bin after the chosen one.
    """
    if features.shape[0] == 0:
        return
    block = work[features[0]]  # features of one call are scanned one after another
    for t in range(features.shape[0]):
        f = features[t]
        n_occupied = compact_feature_histogram(
            X_binned, f, sample_idx, start, end, y_code, sample_weight, sample_stats,
            group_code, n_classes, missing_bin, scratch, touched, compact)
        row = results[f]
        scan(compact, totals, n_occupied, n_occupied, n_classes, h, h_params,
             weighted_parent_impurity, total_weight, min_samples_leaf, min_weight_leaf,
             skip_same_class_runs, block, rule, lam, n_groups, group_q, row)
        b = np.int64(row[1])
        if b == NO_SPLIT:
            row[5] = NO_SPLIT
        elif b == n_occupied - 1:  # non-missing left, missing right
            row[1] = n_bins_non_missing[f] - 1
            row[5] = NO_SPLIT
        else:
            row[1] = touched[b]
            row[5] = touched[b + 1]


@njit(cache=True, parallel=True)
def scan_node_sparse(X_binned, features, sample_idx, start, end, y_code, sample_weight,
                     sample_stats, group_code, n_classes, missing_bin, n_bins_non_missing, totals,
                     h, h_params, weighted_parent_impurity, total_weight, min_samples_leaf,
                     min_weight_leaf, skip_same_class_runs, rule, lam, n_groups, group_q,
                     scratch, touched, compact, results, work, scan, n_chunks):
    """``scan_features_sparse`` over the node's ``features``, cut into ``n_chunks`` chunks run
    on separate threads (1: on this thread). Chunk ``c`` uses ``scratch[c]``, ``touched[c]``
    and ``compact[c]``; results are per feature, so they do not depend on ``n_chunks``.

    The growth loop calls it through ``sparse_scan_pointer`` (see ``scan_pointer``).
    """
    if n_chunks <= 1:
        scan_features_sparse(X_binned, features, sample_idx, start, end, y_code, sample_weight,
                             sample_stats, group_code, n_classes, missing_bin,
                             n_bins_non_missing, totals, h, h_params, weighted_parent_impurity,
                             total_weight, min_samples_leaf, min_weight_leaf,
                             skip_same_class_runs, rule, lam, n_groups, group_q, scratch[0],
                             touched[0], compact[0], results, work, scan)
        return
    n = features.shape[0]
    for c in prange(n_chunks):
        first = c * n // n_chunks
        last = (c + 1) * n // n_chunks
        scan_features_sparse(X_binned, features[first:last], sample_idx, start, end, y_code,
                             sample_weight, sample_stats, group_code, n_classes, missing_bin,
                             n_bins_non_missing, totals, h, h_params, weighted_parent_impurity,
                             total_weight, min_samples_leaf, min_weight_leaf,
                             skip_same_class_runs, rule, lam, n_groups, group_q, scratch[c],
                             touched[c], compact[c], results, work, scan)


def _sparse_scan_signature(x_binned_type):
    int64_1d, float64_1d = types.int64[::1], types.float64[::1]
    return types.void(
        x_binned_type, int64_1d, int64_1d, types.int64, types.int64, int64_1d, float64_1d,
        types.float64[:, ::1], int64_1d, types.int64, types.int64, int64_1d, float64_1d,
        IMPURITY_FUNCTION_TYPE, float64_1d, types.float64, types.float64, types.int64,
        types.float64, types.boolean, types.int64, types.float64, types.int64, float64_1d,
        types.float64[:, :, ::1], types.int64[:, ::1], types.float64[:, :, ::1],
        types.float64[:, ::1], types.float64[:, :, ::1], SCAN_FUNCTION_TYPE, types.int64)


_SPARSE_SCAN_POINTERS = {}


def sparse_scan_pointer(X_binned):
    """``scan_node_sparse`` as a first-class function pointer for binned features like
    ``X_binned``: compiled once, not again inside the growth loop, like the scan itself
    (``scan_pointer``).

    The pointer's type must be the one the growth loop sees, so it is compiled for Numba's
    type of ``X_binned``: uint8 or uint16, Fortran order, or C order when the array is both
    (a single feature or a single row).
    """
    x_binned_type = numba.typeof(X_binned)
    if x_binned_type not in _SPARSE_SCAN_POINTERS:
        _SPARSE_SCAN_POINTERS[x_binned_type] = function_pointer(
            scan_node_sparse, _sparse_scan_signature(x_binned_type))
    return _SPARSE_SCAN_POINTERS[x_binned_type]


@njit(cache=True, nogil=True)
def is_constant_in_node(column, sample_idx, start, end):
    """True when all samples of the node share one bin of this column."""
    first = column[sample_idx[start]]
    for position in range(start + 1, end):
        if column[sample_idx[position]] != first:
            return False
    return True
