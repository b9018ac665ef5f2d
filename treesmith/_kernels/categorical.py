"""Splits of a categorical feature by a set of categories (docs/methods.md §11).

A categorical feature's bins are its category codes 0..k-1 (``treesmith.categorical``), plus the
missing bin, so its histogram is the same per-bin statistics row as a numeric feature's. A
candidate split sends a set of categories left, the other categories right and the missing
bin (missing values and categories unseen in training) to its learned side. The scan never
scores a candidate itself: it lays out the categories of a candidate family as a compact
histogram and hands it to the numeric scan (``splitting.scan_feature`` through its pointer), so
the impurity, the split rule's numerator, min_samples_leaf / min_weight_leaf and the choice of
the missing side are exactly those of numeric features.

Candidates, with m the categories present in the node:

* the prefixes of the categories ordered by a key (ties by code) when that order is known to
  hold the best split: two classes, a gain-type rule, a strictly concave impurity of the
  class-1 proportion and no leaf-size constraint (the ``skip_same_class_runs`` condition), or
  regression (squared error, Poisson and Tweedie deviances: w(S) phi(mean) with phi concave)
  under a gain-type rule without leaf-size constraint. The key is the class-1 proportion or the
  mean target; the best gain is then a prefix (Breiman, Friedman, Olshen & Stone,
  "Classification and Regression Trees", 1984, Theorem 4.5; Fisher, "On grouping for maximum
  homogeneity", 1958). The missing bin, forced to one side, does not break this: the best
  ordered partition of the categories plus "missing" is one of the candidates.
* otherwise, when m <= ``EXHAUSTIVE_MAX_CATEGORIES``: every partition, 2^(m-1) - 1 of them
  (the last present category stays right), each with missing values left or right: exact for
  every rule, criterion, class count and leaf-size constraint (about 0.8 us per partition).
* otherwise (larger m): the best prefix over the orderings by the class-1 proportion (two
  classes), the mean (regression) or, for K > 2 classes, by each class's proportion (K
  orderings): a heuristic.

The chosen set is a 256-bit bitset (four uint64 words, bit ``c & 63`` of word ``c >> 6`` for
code c), stored per node by the growth loop and read by ``partition_categorical`` and the
prediction walk.
"""

import numpy as np
from numba import njit

from .decorators import internal_kernel, pointer_kernel
from .records import SPLIT_DTYPE
from .split_rules import NO_SPLIT, beats, numerator_is_gain, tie_scale
from .stats import (
    REGRESSION_WEIGHT,
    REGRESSION_WEIGHTED_TARGET,
    bin_count,
    pairs_of,
    stats_weight,
    weight_column,
)

#: ``bin_threshold`` of a split by a set of categories (``NO_SPLIT`` is -1).
CATEGORICAL_SPLIT = np.int64(-2)
#: Largest number of categories present in a node whose partitions are all tried: 2^9 - 1 = 511
#: candidates, each a numeric scan of a two-bin histogram.
EXHAUSTIVE_MAX_CATEGORIES = 10
#: Words of a category bitset: 256 bits, one per possible code of a uint8 bin.
BITSET_WORDS = 4


@njit(cache=True, nogil=True)
def _clear_bits(bits):
    for w in range(BITSET_WORDS):
        bits[w] = np.uint64(0)


@njit(cache=True, nogil=True)
def _set_bit(bits, code):
    bits[code >> 6] |= np.uint64(1) << np.uint64(code & 63)


@internal_kernel
def has_category(bits, code):
    """Whether category ``code`` (0 <= code < 256) is in the bitset ``bits``."""
    return (bits[code >> 6] >> np.uint64(code & 63)) & np.uint64(1) != np.uint64(0)


@njit(cache=True, nogil=True)
def _sort_key(hist_f, b, n_classes, ordering):
    """The key categories are ordered by: the weight proportion of class ``ordering`` (class 1
    for two classes), or the mean target (regression)."""
    if n_classes > 0:
        weight = 0.0
        for k in range(n_classes):
            weight += hist_f[b, weight_column(n_classes, k)]
        if weight <= 0.0:
            return 0.0
        return hist_f[b, weight_column(n_classes, ordering)] / weight
    weight = hist_f[b, REGRESSION_WEIGHT]
    return hist_f[b, REGRESSION_WEIGHTED_TARGET] / weight if weight > 0.0 else 0.0


#: Shell sort gaps (Ciura's sequence) for at most 255 categories; the last pass, gap 1, is an
#: insertion sort.
_GAPS = np.array([132, 57, 23, 10, 4, 1], dtype=np.int64)


@njit(cache=True, nogil=True)
def _sort_by_key(keys, order, m):
    """Sort ``order[:m]`` (category codes) by ``keys``, ties by code, in place: a Shell sort
    (an insertion sort of 255 categories took longer than the numeric scan itself; ``np.sort``
    costs more compile time than this whole module)."""
    for g in range(_GAPS.shape[0]):
        gap = _GAPS[g]
        for i in range(gap, m):
            code = order[i]
            key = keys[i]
            j = i
            while j >= gap and (keys[j - gap] > key
                                or (keys[j - gap] == key and order[j - gap] > code)):
                keys[j] = keys[j - gap]
                order[j] = order[j - gap]
                j -= gap
            keys[j] = key
            order[j] = code


@njit(cache=True, nogil=True)
def _ordering_is_exact(node):
    """Whether the best split of this node is a prefix of the categories in key order (see
    the module docstring): two classes under the ``skip_same_class_runs`` condition, or
    regression under a gain-type rule without leaf-size constraint."""
    if node.n_classes == 2:
        return node.rule.skip_same_class_runs
    return (node.n_classes == 0 and numerator_is_gain(node.rule.code)
            and node.min_samples_leaf <= 1 and node.min_weight_leaf <= 0.0)


@njit(cache=True, nogil=True)
def _copy_row(source, b, target, r):
    for s in range(source.shape[1]):
        target[r, s] = source[b, s]


@njit(cache=True, nogil=True)
def _keep_if_better(trial, best, best_score, scale):
    """Copy ``trial[0]`` over ``best[0]`` when its score beats ``best_score``; returns the best
    score (the bitset of ``best`` is filled by the caller)."""
    if trial[0]["bin_threshold"] == NO_SPLIT or not beats(trial[0]["score"], best_score, scale):
        return best_score, False
    record = best[0]
    record["score"] = trial[0]["score"]
    record["gain"] = trial[0]["gain"]
    record["weight_left"] = trial[0]["weight_left"]
    record["missing_go_left"] = trial[0]["missing_go_left"]
    record["bin_threshold"] = CATEGORICAL_SPLIT
    return trial[0]["score"], True


@njit(cache=True, nogil=True)
def scan_categorical(hist_f, n_bins_non_missing, missing_bin, node, work, results, f, scan):
    """Best set of categories of one feature from its histogram ``hist_f[code, stat]``.

    OUT ``results[f]``: as the numeric scan's record (``records.SPLIT_DTYPE``), with
    ``bin_threshold`` ``CATEGORICAL_SPLIT`` (``NO_SPLIT`` when no valid split exists),
    ``left_categories`` the bitset of the row indices of ``hist_f`` sent left and ``next_bin``
    ``NO_SPLIT``. ``scan`` is the numeric per-feature scan (``pointers.scan_pointer``), which
    scores every candidate; ``work`` its scratch block.
    """
    n_stats = hist_f.shape[1]
    n_classes = node.n_classes
    out = results[f]
    out["bin_threshold"] = NO_SPLIT
    out["next_bin"] = NO_SPLIT
    out["score"] = -np.inf
    out["gain"] = -np.inf
    out["impurity_failed"] = False
    _clear_bits(out["left_categories"])
    present = np.empty(max(n_bins_non_missing, 1), dtype=np.int64)
    # Indices are np.int64 throughout: a literal argument would compile a callee once more.
    m = np.int64(0)
    for b in range(n_bins_non_missing):
        if bin_count(hist_f, b, n_classes) > 0.0:
            present[m] = b
            m += 1
    if m == 0:
        return
    totals = node.totals
    scale = tie_scale(node.rule, node.weighted_parent_impurity, stats_weight(totals, n_classes),
                      pairs_of(totals, n_classes) if n_classes > 0 else 0.0, node.total_weight)
    trial = np.empty(1, dtype=SPLIT_DTYPE)
    best = np.empty(1, dtype=SPLIT_DTYPE)
    best_bits = best[0]["left_categories"]
    _clear_bits(best_bits)
    best_score = -np.inf
    failed = False  # h failed on some candidate (a failing user criterion)
    if m <= EXHAUSTIVE_MAX_CATEGORIES and not _ordering_is_exact(node):
        compact = np.empty((3, n_stats))
        _copy_row(hist_f, np.int64(missing_bin), compact, np.int64(2))
        if m == 1:  # the only candidate: the category on one side, missing values on the other
            _copy_row(hist_f, present[0], compact, np.int64(0))
            scan(compact[::2].copy(), np.int64(1), np.int64(1), node, work, trial, np.int64(0))
            failed = failed or trial[0]["impurity_failed"]
            best_score, better = _keep_if_better(trial, best, best_score, scale)
            if better:
                _set_bit(best_bits, present[0])
        for mask in range(1, 1 << (m - 1)):
            for s in range(n_stats):
                compact[0, s] = 0.0
                compact[1, s] = 0.0
            for j in range(m):
                row = 0 if (mask >> j) & 1 else 1
                for s in range(n_stats):
                    compact[row, s] += hist_f[present[j], s]
            scan(compact, np.int64(2), np.int64(2), node, work, trial, np.int64(0))
            failed = failed or trial[0]["impurity_failed"]
            best_score, better = _keep_if_better(trial, best, best_score, scale)
            if better:
                _clear_bits(best_bits)
                everything = trial[0]["bin_threshold"] == 1  # all present left, missing right
                for j in range(m):
                    if everything or (mask >> j) & 1:
                        _set_bit(best_bits, present[j])
    else:
        compact = np.empty((m + 1, n_stats))
        keys = np.empty(m)
        order = np.empty(m, dtype=np.int64)
        n_orderings = n_classes if n_classes > 2 else 1
        for ordering in range(n_orderings):
            key_class = ordering if n_classes > 2 else 1
            for j in range(m):
                order[j] = present[j]
                keys[j] = _sort_key(hist_f, present[j], n_classes, key_class)
            _sort_by_key(keys, order, np.int64(m))
            for j in range(m):
                _copy_row(hist_f, order[j], compact, np.int64(j))
            _copy_row(hist_f, np.int64(missing_bin), compact, m)
            scan(compact, np.int64(m), np.int64(m), node, work, trial, np.int64(0))
            failed = failed or trial[0]["impurity_failed"]
            best_score, better = _keep_if_better(trial, best, best_score, scale)
            if better:
                _clear_bits(best_bits)
                for j in range(trial[0]["bin_threshold"] + 1):
                    _set_bit(best_bits, order[j])
    out["impurity_failed"] = failed
    if best_score == -np.inf:
        return
    out["score"] = best[0]["score"]
    out["gain"] = best[0]["gain"]
    out["weight_left"] = best[0]["weight_left"]
    out["missing_go_left"] = best[0]["missing_go_left"]
    out["bin_threshold"] = CATEGORICAL_SPLIT
    for w in range(BITSET_WORDS):
        out["left_categories"][w] = best_bits[w]


@pointer_kernel
def no_categorical_scan(hist_f, n_bins_non_missing, missing_bin, node, work, results, f, scan):
    """Stand-in for ``scan_categorical`` in fits without categorical features (never
    called): the growth loop's pointer needs a function of that type, and this one compiles
    in no time."""
    results[f]["bin_threshold"] = NO_SPLIT


@pointer_kernel
def partition_categorical(sample_idx, start, end, column, left_categories, missing_bin,
                          missing_go_left, buffer):
    """``splitting.partition`` for a split by a set of categories: stable, in place, left
    samples (category in ``left_categories``, or missing and ``missing_go_left``) first.
    Returns the position of the first right sample. The growth loop calls it through
    ``pointers.categorical_partition_pointer``: fits without categorical features do not
    compile it."""
    n_left = start
    n_right = 0
    for position in range(start, end):
        i = sample_idx[position]
        b = np.int64(column[i])
        go_left = missing_go_left if b == missing_bin else has_category(left_categories, b)
        if go_left:
            sample_idx[n_left] = i
            n_left += 1
        else:
            buffer[n_right] = i
            n_right += 1
    for j in range(n_right):
        sample_idx[n_left + j] = buffer[j]
    return n_left


def scan_categorical_reference(hist_f, n_bins_non_missing, missing_bin, score_of):
    """Naive reference for the tests: every partition of the present categories, each with
    missing values left and right, scored by ``score_of(left_rows, right_rows)`` (row sums of
    ``hist_f``; None when invalid). Returns ``(best score, set of left codes, missing left)``;
    the first best in enumeration order on ties."""
    present = [b for b in range(n_bins_non_missing) if hist_f[b].any()]
    missing = hist_f[missing_bin]
    best = (-np.inf, None, None)
    m = len(present)
    for mask in range(1, 1 << m):
        if mask == (1 << m) - 1 and not missing.any():
            continue
        left_codes = {present[j] for j in range(m) if (mask >> j) & 1}
        left = sum((hist_f[b] for b in left_codes), np.zeros_like(missing))
        right = sum((hist_f[b] for b in present if b not in left_codes), np.zeros_like(missing))
        for missing_left in (False, True):
            if not missing.any() and missing_left:
                continue
            score = score_of(left + missing if missing_left else left,
                             right if missing_left else right + missing)
            if score is None:
                continue
            if best[0] == -np.inf or score > best[0] + 1e-12 * max(1.0, abs(best[0])):
                best = (score, left_codes, missing_left)
    return best
