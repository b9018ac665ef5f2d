"""Sampled candidate thresholds of the minimax rule (docs/methods.md §4, §11).

Nan, Wang & Saligrama, "Feature-Budgeted Random Forest" (ICML 2015), §3: the minimisation over
a feature's stumps "is approximated by randomly generating 80, 40 and 20 stumps if the number
of examples exceeds 2000, 500 and less than 500". Here a stump is a threshold at an observed
value: ``n`` rows of the node are drawn uniformly with replacement (``n`` = 80 / 40 / 20 when
the node holds more than 2000 / more than 500 / at most 500 rows), and each drawn row's bin
of the feature becomes a candidate "x <= that value"; a drawn row whose value is missing adds
none. When the node has missing values, "non-missing left, missing right" is always a
candidate too (the paper has no missing values; this is the one test they add).

Drawing a row uniformly is drawing a bin with probability (rows in the bin) / (rows in the
node), so the draw needs only the node's per-bin row counts, which both the engine's
histograms and GreedyTree's kernel have. The generator of a (node, feature) is seeded from
the tree's seed, the feature and the node's class counts (``candidate_state``): the draws are
reproducible for a fixed ``random_state`` and do not depend on the order nodes are grown in,
so subtrees grown apart on other threads draw exactly what they would have drawn in place.

``scan_sampled_candidates`` is the engine's per-feature scan for the rule: it merges the bins
between consecutive candidates into one histogram row and runs the ordinary scan
(``splitting.scan_feature``) on those rows, so every other aspect of the scan (missing
values, leaf-size limits, tie rule) stays the engine's. ``sampled_candidates_naive`` is the
reference the tests use.
"""

import numpy as np
from numba import njit

from .random import initial_state, next_below
from .splitting import bin_at, scan_feature, sort_prefix
from .split_rules import NO_SPLIT
from .stats import bin_count, count_column, stats_count

#: The paper's candidate draws per feature: ``CANDIDATE_DRAWS[i]`` when the node holds more
#: than ``CANDIDATE_SIZE_LIMITS[i]`` rows (limits decreasing), else the last entry.
CANDIDATE_SIZE_LIMITS = np.array([2000, 500], dtype=np.int64)
CANDIDATE_DRAWS = np.array([80, 40, 20], dtype=np.int64)
#: Positions of the minimax rule's kernel parameters: [set-function code, its parameter,
#: sampled (1.0) or every bin (0.0), seed].
SAMPLED_FLAG = 2
SEED = 3


@njit(cache=True, nogil=True)
def n_sampled_candidates(n_rows, size_limits, n_draws):
    """Candidate draws for a node of ``n_rows`` rows: ``n_draws[i]`` for the first
    ``size_limits[i]`` it exceeds (limits in decreasing order), else ``n_draws[-1]``."""
    for i in range(size_limits.shape[0]):
        if n_rows > size_limits[i]:
            return n_draws[i]
    return n_draws[n_draws.shape[0] - 1]


@njit(cache=True, nogil=True)
def candidate_state(seed, stats_row, n_classes, f):
    """Generator state (1-element uint64 array, ``random.next_below``) of feature ``f`` at
    the node whose statistics row is ``stats_row``: splitmix64 steps over the seed, the
    node's row count of each class (``stats.count_column``) and the feature."""
    z = initial_state(np.int64(seed))
    for k in range(n_classes):
        z = initial_state(np.int64(z ^ np.uint64(np.int64(stats_row[count_column(n_classes,
                                                                                   k)]))))
    state = np.empty(1, dtype=np.uint64)
    state[0] = initial_state(np.int64(z ^ np.uint64(f)))
    return state


@njit(cache=True, nogil=True)
def draw_candidate_bins(rows_per_bin, n_bins_non_missing, n_rows, n_draws, state,
                        is_candidate):
    """Mark in ``is_candidate`` (bool, all False on entry) the bins of ``n_draws`` rows drawn
    uniformly with replacement from a node of ``n_rows`` rows, ``rows_per_bin[b]`` of them in
    non-missing bin ``b`` (the rest are missing: a draw there marks nothing)."""
    if n_rows <= 0:
        return
    positions = np.empty(n_draws, dtype=np.int64)
    for i in range(n_draws):
        positions[i] = next_below(state, n_rows)
    sort_prefix(positions, n_draws)
    i = 0
    below = 0.0  # rows in the bins before b
    for b in range(n_bins_non_missing):
        below += rows_per_bin[b]
        while i < n_draws and positions[i] < below:
            is_candidate[b] = True
            i += 1
        if i == n_draws:
            return


#: The scan of every bin when no thresholds are sampled; ``scan_feature``'s twin that takes
#: the bins in ``NodeScan.bin_order`` in ``scan_sampled_candidates_in_order``.
scan_every_bin = scan_feature


@njit(cache=True, nogil=True)
def scan_sampled_candidates(hist_f, n_bins_non_missing, missing_bin, node, work, results, f):
    """``splitting.scan_feature`` restricted to the paper's sampled thresholds when the
    minimax rule asks for them (``node.rule.parameters[SAMPLED_FLAG]``), every bin otherwise.

    Same signature and output as ``scan_feature`` (the engine calls it through
    ``pointers.sampled_candidates_scan_pointer``). Bins from one candidate to the next are
    merged into one row, the last occupied bins after the last candidate into a final row:
    the scan's cuts are then exactly the candidates (and, after the final row, "non-missing
    left, missing right"); the chosen row is translated back to its bin. Its twin
    ``scan_sampled_candidates_in_order`` takes the bins in ``node.bin_order``, thresholds then
    being positions in it (``splitting.bin_at``), and scans every bin with
    ``scan_feature``'s twin (``scan_every_bin``; ``pointers.sampled_candidates_scan_pointer``).
    """
    parameters = node.rule.parameters
    if parameters.shape[0] <= SEED or parameters[SAMPLED_FLAG] == 0.0:
        scan_every_bin(hist_f, n_bins_non_missing, missing_bin, node, work, results, f)
        return
    n_classes = node.n_classes
    n_stats = hist_f.shape[1]
    n_rows = np.int64(stats_count(node.totals, n_classes))
    bin_order = node.bin_order
    rows_per_bin = np.empty(n_bins_non_missing)  # by position (bin_at)
    for b in range(n_bins_non_missing):
        rows_per_bin[b] = bin_count(hist_f, bin_at(bin_order, b), n_classes)
    is_candidate = np.zeros(n_bins_non_missing, dtype=np.bool_)
    state = candidate_state(np.int64(parameters[SEED]), node.totals, n_classes, f)
    draw_candidate_bins(rows_per_bin, n_bins_non_missing, n_rows,
                        n_sampled_candidates(n_rows, CANDIDATE_SIZE_LIMITS, CANDIDATE_DRAWS),
                        state, is_candidate)
    grouped = np.zeros((n_bins_non_missing + 1, n_stats))
    last_bin = np.empty(n_bins_non_missing + 1, dtype=np.int64)
    n_groups = 0
    is_open = False
    for b in range(n_bins_non_missing):
        if rows_per_bin[b] <= 0.0:
            continue
        row = bin_at(bin_order, b)
        for s in range(n_stats):
            grouped[n_groups, s] += hist_f[row, s]
        is_open = True
        if is_candidate[b]:
            last_bin[n_groups] = b
            n_groups += 1
            is_open = False
    if is_open:
        last_bin[n_groups] = NO_SPLIT
        n_groups += 1
    for s in range(n_stats):
        grouped[n_groups, s] = hist_f[missing_bin, s]
    # the groups are rows in order: scan_feature, which ignores node.bin_order
    scan_feature(grouped, n_groups, n_groups, node, work, results, f)
    split = results[f]
    b = split["bin_threshold"]
    if b == NO_SPLIT:
        return
    if b == n_groups - 1:  # non-missing left, missing right
        split["bin_threshold"] = n_bins_non_missing - 1
    else:
        split["bin_threshold"] = last_bin[b]


def sampled_candidates_naive(seed, class_counts, f, bins_of_rows, n_bins_non_missing):
    """Reference: the candidate bins of feature ``f`` at a node with per-class row counts
    ``class_counts`` whose rows have the (non-missing or missing >= ``n_bins_non_missing``)
    bins ``bins_of_rows``, listed in the node's row order. Draws the same positions as the
    kernel, then reads the bins of the sorted rows; returns a sorted array of bins."""
    n_classes = len(class_counts)
    row = np.zeros(2 * n_classes)
    row[n_classes:] = class_counts
    state = candidate_state(int(seed), row, n_classes, int(f))
    n_rows = len(bins_of_rows)
    n_draws = int(n_sampled_candidates(n_rows, CANDIDATE_SIZE_LIMITS, CANDIDATE_DRAWS))
    positions = [int(next_below(state, n_rows)) for _ in range(n_draws)]
    ordered = np.sort(np.asarray(bins_of_rows), kind="stable")
    drawn = {int(ordered[p]) for p in positions}
    return np.array(sorted(b for b in drawn if b < n_bins_non_missing), dtype=np.int64)
