"""Randomly drawn splits: the split-finding mode of extremely randomized trees
(docs/methods.md §7).

Geurts, Ernst & Wehenkel, "Extremely randomized trees" (Machine Learning, 2006), the
Extra-Trees splitting algorithm for numerical attributes: at a node, each examined feature a gets one cut-point a_c drawn uniformly in
[min_S a, max_S a], the node's smallest and largest value of a, and the node takes the best of
these drawn splits under the score. Here the score is the node's impurity and split rule,
exactly as for a best split: the drawn cut is laid out as a two-row histogram and scored as
the ordinary scan (``splitting.scan_feature``) scores it, so every criterion, rule, leaf-size
limit and monotonic constraint applies unchanged (``splitting.scan_two_rows``: the scan's one
candidate on such a histogram, the same arithmetic without its walk over bins).

**The binned draw.** The engine sees bins, not values: a bin b of feature f has the value
``values[f, b]`` (``records.ThresholdDraw``; the distinct value of an exactly binned feature,
the middle of a quantile bin otherwise, ``treesmith.splitters.bin_values``). With the node's
occupied bins b_0 < ... < b_{m-1}, t is drawn uniformly in [v(b_0), v(b_{m-1})) (t = max is
replaced by the min, as scikit-learn does) and the cut sends left the bins whose value is
<= t. On an exactly binned feature that is scikit-learn's ``RandomSplitter`` cut for cut:
P(cut after b_i) = (v(b_{i+1}) - v(b_i)) / (v(b_{m-1}) - v(b_0)).

**Missing values**, as scikit-learn >= 1.6's random splitter: when the node has missing values
of the feature, they go to a side drawn at random (probability 1/2) with the drawn cut, and
the split "non-missing left, missing right" is a second candidate, kept when it scores
better. A node without missing values sends them, at prediction, to the heavier child (the
engine's rule, ``splitting.scan_feature``).

**A categorical feature** (bins are category codes): the analogue of a uniform cut-point is a
uniformly random partition of the m categories present in the node: the last present category
stays right and each other goes left with probability 1/2, drawn again when none does, so each
of the 2^(m-1) - 1 partitions is equally likely; missing values as above.

**Reproducibility.** The generator of a (node, feature) is seeded from the tree's seed, the
node's weight statistics (rounded to float32: the same whichever thread grows the node, and
the same for a row of weight 2 as for two copies of it) and the feature (``draw_state``), never
from a stream shared along the growth order: a subtree grown apart on another thread draws what
it would have drawn in place. (Two nodes of one tree with equal weights draw the same uniform
number for a feature; their ranges, and so their cuts, differ.)

**Two paths, one cut.** A node with a pooled histogram draws among its occupied bins
(``scan_random_threshold_in_work``, ``random_cut``); a small node (``scan_small_node_random``)
makes two passes over its samples, as scikit-learn's splitter does: the smallest and largest
bin, then the sums of the left, right and missing samples (``_drawn_cut_from_gathered``, on the
node's classes and weights or regression statistics gathered once for all its features;
``_drawn_cut_from_samples`` in place). Both send left the bins whose value is <= t, so they cut
the same way; ``random_cut_naive`` is the reference the tests use.

**Cost per node.** Randomized trees are deep, so the fixed cost of a node dominates a fit. The
kernels the growth loop calls allocate nothing and are compiled without reference counting
(docs/ENGINE_API.md, "Reference counting in the hot kernels"): their scratch follows the
per-feature scan's rows in the engine's work block (``random_scan_workspace``), the node key is
computed once per small node, and the features examined go to a buffer of the loop
(``visit_features``). ``scan_random_threshold`` and ``scan_random_categories`` are the same
scans for callers from Python, with any ``splitting.scan_workspace`` block.

Which features a node examines (``visit_features``; ``choose_features_visiting`` from Python)
follows scikit-learn's feature loop: features are drawn without replacement, every drawn
feature counts against ``max_features``, constant ones included (non-missing values in one bin,
or none), and the draw goes on past ``max_features`` only until one non-constant feature is
drawn.
"""

import numpy as np
from numba import njit

from .categorical import CATEGORICAL_SPLIT, _clear_bits, _no_split, _set_bit
from .decorators import internal_kernel, pointer_kernel
from .random import draw_without_replacement, initial_state, marked_in_order, next_below
from .split_rules import NO_SPLIT, beats, node_tie_scale
from .splitting import (
    compact_feature_histogram,
    scan_feature,
    scan_two_rows,
    scan_two_rows_inlined,
)
from .histogram import has_unit_weights
from .records import SCAN_WORK_ROWS
from .stats import (
    REGRESSION_COUNT,
    bin_count,
    count_column,
    group_column,
    weight_column,
)

#: ``random_cut``'s answer when the drawn split is "non-missing left, missing right".
NON_MISSING_LEFT = np.int64(-2)
#: Mixed into the tree's seed so that the threshold draws and the feature sampling (seeded
#: with the tree's seed itself) use unrelated streams.
_DRAW_SALT = np.int64(0x5EED7A1E)


@internal_kernel(reference_counted=False)
def node_key(seed, totals, n_classes):
    """The part of a node's generator seed that all its features share: splitmix64 steps over
    the tree's seed and the node's weight statistics (the class weights; a regression row but
    its row count) rounded to float32.

    Weights, not row counts, so that a row of weight 2 draws what two copies of it draw
    (scikit-learn's sample-weight equivalence); rounded to float32, so that the round-off of
    summing the same weights in another order (a histogram's totals, parent - sibling) does
    not change the draw, which then depends on the seed, the node and the feature only.
    (The float32's bits are read as a scalar view: no array per call.)
    """
    z = initial_state(np.int64(seed) ^ _DRAW_SALT)
    n_weights = n_classes if n_classes > 0 else totals.shape[0]
    for s in range(n_weights):
        if n_classes == 0 and s == REGRESSION_COUNT:
            continue
        rounded = np.float32(totals[weight_column(n_classes, s)] if n_classes > 0
                             else totals[s])
        z = initial_state(np.int64(z ^ np.uint64(np.int64(rounded.view(np.int32)))))
    return z


@internal_kernel(reference_counted=False)
def seed_feature(key, f, state):
    """Seed the generator ``state`` (1-element uint64 array) of feature ``f`` at the node whose
    ``node_key`` is ``key``."""
    state[0] = initial_state(np.int64(key ^ np.uint64(f)))


@internal_kernel
def draw_state(seed, totals, n_classes, f):
    """A new generator state (``random.next_below``) of feature ``f`` at the node whose
    statistics row is ``totals`` (``node_key``, ``seed_feature``): the reference's
    (``random_cut_naive``); the kernels seed a state of their scratch instead."""
    state = np.empty(1, dtype=np.uint64)
    seed_feature(node_key(seed, totals, n_classes), f, state)
    return state


@internal_kernel(reference_counted=False)
def uniform(state):
    """A float uniform on [0, 1) with 53 random bits (two draws of ``random.next_below`` with
    power-of-two bounds, which are exactly uniform)."""
    high = next_below(state, np.int64(1) << 26)
    low = next_below(state, np.int64(1) << 27)
    return (high * 134217728.0 + low) / 9007199254740992.0


@njit(cache=True, nogil=True, inline="always")
def _threshold_between(low, high, u):
    """t = low + u (high - low) for u uniform on [0, 1); t >= high becomes low (scikit-learn's
    rule: the cut then sends the smallest value left)."""
    t = low + u * (high - low)
    return low if t >= high else t


@internal_kernel(reference_counted=False)
def cut_position(values, m, u):
    """Index i of the cut ``x <= t`` among ``m`` >= 2 increasing values, for t drawn as
    ``values[0] + u (values[m-1] - values[0])`` (t >= the largest value becomes the smallest,
    scikit-learn's rule): the largest i <= m - 2 with ``values[i] <= t``.

    A binary search written as selects (the half of the range kept is selected; it keeps a
    range that holds the answer and may hold larger indices, whose values exceed t): the
    direction of each step is a coin toss for a drawn t. LLVM may still compile the select
    to a branch (it does when the compared value is loaded in a loop); the small nodes, where
    the search weighed most, find their cut among their samples' bins instead
    (``_cut_bin_among``)."""
    t = _threshold_between(values[0], values[m - 1], u)
    # largest i in [0, m - 2] with values[i] <= t (values[0] <= t always)
    i = np.int64(0)
    n = np.int64(m - 1)
    while n > 1:
        half = n >> 1
        i = i + half if values[i + half] <= t else i
        n -= half
    return i


@internal_kernel(reference_counted=False)
def _score_drawn(hist_f, rows, goes_left, m, missing_row, missing_left, node, work, results,
                 f, grouped):
    """Score the drawn split (rows ``rows[j]`` with ``goes_left[j]`` left, the missing row on
    the side ``missing_left``) and, when the node has missing values, the split "non-missing
    left, missing right", with ``scan_feature`` on two-row histograms ``grouped`` (3, n_stats).
    Writes ``results[f]`` and returns 0 (the drawn split), ``NON_MISSING_LEFT`` or
    ``NO_SPLIT`` (neither is valid)."""
    n_classes = node.n_classes
    n_stats = hist_f.shape[1]
    has_missing = bin_count(hist_f, missing_row, n_classes) > 0.0
    for r in range(3):
        for s in range(n_stats):
            grouped[r, s] = 0.0
    for j in range(m):
        side = 0 if goes_left[j] else 1
        for s in range(n_stats):
            grouped[side, s] += hist_f[rows[j], s]
    if has_missing:
        side = 0 if missing_left else 1
        for s in range(n_stats):
            grouped[side, s] += hist_f[missing_row, s]
    # two non-missing rows and an empty missing row: the one cut between them
    scan_two_rows(grouped, np.int64(2), node, work, results, f)
    split = results[f]
    drawn_valid = split["bin_threshold"] != NO_SPLIT
    if drawn_valid and has_missing:
        split["missing_go_left"] = missing_left
    if not has_missing:
        return np.int64(0) if drawn_valid else NO_SPLIT
    drawn_score = split["score"]
    drawn_gain = split["gain"]
    drawn_weight_left = split["weight_left"]
    drawn_failed = split["impurity_failed"]
    # "non-missing left, missing right": one non-missing row and the missing row
    for s in range(n_stats):
        grouped[0, s] = grouped[0, s] + grouped[1, s] - (hist_f[missing_row, s])
        grouped[1, s] = hist_f[missing_row, s]
    scan_two_rows(grouped, np.int64(1), node, work, results, f)
    split["impurity_failed"] = split["impurity_failed"] or drawn_failed
    if split["bin_threshold"] != NO_SPLIT:
        if not drawn_valid or beats(split["score"], drawn_score, node_tie_scale(node)):
            split["missing_go_left"] = False
            return NON_MISSING_LEFT
    if not drawn_valid:
        return NO_SPLIT
    split["score"] = drawn_score
    split["gain"] = drawn_gain
    split["weight_left"] = drawn_weight_left
    split["missing_go_left"] = missing_left
    return np.int64(0)


@internal_kernel(reference_counted=False)
def random_cut(hist_f, rows, values, m, missing_row, node, work, results, f, grouped,
               goes_left, state):
    """The drawn split of a numeric feature whose node occupies the histogram rows
    ``rows[:m]`` (increasing values ``values[:m]``; ``missing_row`` the missing values), with
    the generator ``state`` of the node and feature (``seed_feature``).
    Writes ``results[f]`` (but ``bin_threshold`` and ``next_bin``, the caller's) and returns
    the index i of the cut after ``rows[i]``, ``NON_MISSING_LEFT`` or ``NO_SPLIT`` (a constant
    feature, or no valid split)."""
    if m < 2:
        return NO_SPLIT
    i = cut_position(values, m, uniform(state))
    missing_left = next_below(state, 2) == 1 if bin_count(hist_f, missing_row,
                                                          node.n_classes) > 0.0 else False
    for j in range(m):
        goes_left[j] = j <= i
    chosen = _score_drawn(hist_f, rows, goes_left, m, missing_row, missing_left, node, work,
                          results, f, grouped)
    return i if chosen == 0 else chosen


@internal_kernel(reference_counted=False)
def random_partition(hist_f, rows, m, missing_row, node, work, results, f, grouped,
                     goes_left, state):
    """The drawn split of a categorical feature whose node holds the categories of the
    histogram rows ``rows[:m]``: ``goes_left[:m]`` a uniformly random partition (the last
    category right, each other left with probability 1/2, redrawn until one is), missing values
    as for a numeric feature, drawn from ``state`` (``seed_feature``). Writes ``results[f]``
    (but the categories, the caller's) and returns 0 (``goes_left`` holds the partition),
    ``NON_MISSING_LEFT`` (every present category left) or ``NO_SPLIT``."""
    if m < 2:
        return NO_SPLIT
    n_left = 0
    while n_left == 0:
        for j in range(m - 1):
            goes_left[j] = next_below(state, 2) == 1
            if goes_left[j]:
                n_left += 1
    goes_left[m - 1] = False
    missing_left = next_below(state, 2) == 1 if bin_count(hist_f, missing_row,
                                                          node.n_classes) > 0.0 else False
    return _score_drawn(hist_f, rows, goes_left, m, missing_row, missing_left, node, work,
                        results, f, grouped)


@internal_kernel(reference_counted=False)
def _clear_split(split):
    """``split`` holds no split, missing values right (``categorical._no_split``)."""
    _no_split(split)
    split["missing_go_left"] = False


@internal_kernel(reference_counted=False)
def _set_categories(split, codes, goes_left, m, every_one):
    """The categories ``codes[j]`` with ``goes_left[j]`` (all of them: ``every_one``) as the
    split's left set."""
    bits = split["left_categories"]
    _clear_bits(bits)
    for j in range(m):
        if every_one or goes_left[j]:
            _set_bit(bits, codes[j])


# -- scratch ---------------------------------------------------------------------------------
# The drawn split's scratch lives in the engine's work block, after the rows of the per-feature
# scan (records.SCAN_WORK_ROWS), as the categorical scan's does: the random scans and the
# small-node scan are compiled without reference counting, so they allocate nothing.
@njit(cache=True, nogil=True)
def drawn_split_scratch_floats(n_stats, n_bins):
    """Float64 slots of the drawn split's scratch for rows of ``n_stats`` statistics and up to
    ``n_bins`` histogram rows (``_drawn_split_scratch``): two (3, n_stats) blocks, the
    generator state, the occupied rows (int64), their values and their sides (bools, eight a
    slot)."""
    return 6 * n_stats + 1 + 2 * n_bins + (n_bins + 7) // 8


#: Largest small node whose samples are gathered (``scan_small_node_random``): larger ones, a few
#: near the root when every node is scanned from its samples, read them in place, so the
#: gathering room stays within a few MiB whatever the training set.
MAX_GATHERED_SAMPLES = 1 << 16


@njit(cache=True, nogil=True, inline="always")
def gathered_floats_per_sample(n_stats, n_classes):
    """Float64 slots a small node's gathered sample takes (``scan_small_node_random``): its bin
    of the feature scanned, then its class and weight (classification) or its statistics row
    (regression)."""
    return 1 + (2 if n_classes > 0 else n_stats)


@internal_kernel
def random_scan_workspace(n_blocks, n_stats, n_classes, n_bins, n_gathered):
    """Scratch of fits of extremely randomized trees: ``n_blocks`` blocks, each a per-feature
    scan's ``SCAN_WORK_ROWS`` rows (``splitting.scan_workspace``) followed by the rows that
    hold the drawn split's scratch for up to ``n_bins`` histogram rows
    (``drawn_split_scratch_floats``) and room to gather the samples of small nodes of up to
    ``n_gathered`` samples (at most ``MAX_GATHERED_SAMPLES``; ``gathered_floats_per_sample``).
    (``np.zeros`` as the other workspaces: its implementation is compiled once for all.)"""
    width = max(n_stats, n_classes, 1)
    n_gathered = min(max(n_gathered, 0), MAX_GATHERED_SAMPLES)
    n_floats = (drawn_split_scratch_floats(n_stats, max(n_bins, 1))
                + n_gathered * gathered_floats_per_sample(n_stats, n_classes))
    return np.zeros((n_blocks, SCAN_WORK_ROWS + (n_floats + width - 1) // width, width))


@njit(cache=True, nogil=True, inline="always")
def _drawn_split_scratch(scratch, n_stats, n_bins):
    """Views of ``scratch`` (1-D float64, ``drawn_split_scratch_floats`` slots): ``grouped``
    and ``sums`` (3, n_stats), the generator ``state`` (1 uint64), ``rows`` (n_bins int64),
    ``values`` (n_bins) and ``goes_left`` (at least n_bins bools). Inlined: the views follow
    the caller's reference counting."""
    grouped = scratch[:3 * n_stats].reshape((3, n_stats))
    sums = scratch[3 * n_stats:6 * n_stats].reshape((3, n_stats))
    at = 6 * n_stats
    state = scratch[at:at + 1].view(np.uint64)
    at += 1
    rows = scratch[at:at + n_bins].view(np.int64)
    at += n_bins
    values = scratch[at:at + n_bins]
    at += n_bins
    goes_left = scratch[at:at + (n_bins + 7) // 8].view(np.bool_)
    return grouped, sums, state, rows, values, goes_left


@njit(cache=True, nogil=True, inline="always")
def _scratch_of_work(work, n_stats, n_bins):
    """The drawn split's scratch in the rows of the work block ``work`` after the per-feature
    scan's (``random_scan_workspace``); a ValueError if they are too few."""
    width = work.shape[1]
    n_floats = drawn_split_scratch_floats(n_stats, n_bins)
    if (work.shape[0] - SCAN_WORK_ROWS) * width < n_floats:
        raise ValueError("the work block is smaller than random_scan_workspace's")
    return work.reshape(-1)[SCAN_WORK_ROWS * width:SCAN_WORK_ROWS * width + n_floats]


# -- the histogram path ----------------------------------------------------------------------
@njit(cache=True, nogil=True, inline="always")
def _occupied_rows(hist_f, n_bins_non_missing, node, results, f, rows, state):
    """The histogram scans' start: ``rows[:m]`` the occupied non-missing bins of ``hist_f``,
    ``results[f]`` cleared, and, when there are two or more (a split to draw), ``state``
    seeded for this node and feature. Returns m."""
    n_classes = node.n_classes
    m = 0
    for b in range(n_bins_non_missing):
        if bin_count(hist_f, b, n_classes) > 0.0:
            rows[m] = b
            m += 1
    split = results[f]
    _clear_split(split)
    split["impurity_failed"] = False
    if m >= 2:
        seed_feature(node_key(node.rule.threshold_draw.seed, node.totals, n_classes), f,
                     state)
    return m


@pointer_kernel(reference_counted=False)
def scan_random_threshold_in_work(hist_f, n_bins_non_missing, missing_bin, node, work, results,
                                  f):
    """One drawn split of a numeric feature from its histogram ``hist_f[bin, stat]``, with the
    signature and output of ``splitting.scan_feature``, which it replaces in the growth loop
    of a fit of extremely randomized trees (``pointers.random_threshold_scan_pointer``):
    ``random_cut`` among the node's occupied bins. ``work`` is a block of
    ``random_scan_workspace``: the scan's rows, then this kernel's scratch (a ValueError if
    smaller). Without a draw (``node.rule.threshold_draw`` empty: a caller with a plain rule)
    every threshold is scanned. Compiled without reference counting: it allocates nothing."""
    values_f = node.rule.threshold_draw.values
    if values_f.shape[0] == 0:
        scan_feature(hist_f, n_bins_non_missing, missing_bin, node, work, results, f)
        return
    n_rows = max(n_bins_non_missing, 1)
    grouped, _, state, rows, values, goes_left = _drawn_split_scratch(
        _scratch_of_work(work, hist_f.shape[1], n_rows), hist_f.shape[1], n_rows)
    m = _occupied_rows(hist_f, n_bins_non_missing, node, results, f, rows, state)
    for j in range(m):
        values[j] = values_f[f, rows[j]]
    split = results[f]
    i = NO_SPLIT
    if m >= 2:
        i = random_cut(hist_f, rows, values, m, missing_bin, node, work, results, f, grouped,
                       goes_left, state)
    if i == NO_SPLIT:
        split["bin_threshold"] = NO_SPLIT
    elif i == NON_MISSING_LEFT:
        split["bin_threshold"] = n_bins_non_missing - 1
    else:
        split["bin_threshold"] = rows[i]
        split["next_bin"] = rows[i + 1]


@pointer_kernel(reference_counted=False)
def scan_random_categories_in_work(hist_f, n_bins_non_missing, missing_bin, node, work,
                                   results, f, scan_in_order):
    """One drawn partition of a categorical feature from its histogram (rows = category
    codes): the categorical scan of a fit of extremely randomized trees, with the signature of
    ``categorical.scan_categorical`` (``pointers.random_categorical_scan_pointer``;
    ``scan_in_order`` unused: the drawn split is scored by ``scan_feature`` on a two-row
    histogram). ``work`` is a block of ``random_scan_workspace`` (a ValueError if smaller).
    Compiled without reference counting: it allocates nothing."""
    n_rows = max(n_bins_non_missing, 1)
    grouped, _, state, rows, _, goes_left = _drawn_split_scratch(
        _scratch_of_work(work, hist_f.shape[1], n_rows), hist_f.shape[1], n_rows)
    m = _occupied_rows(hist_f, n_bins_non_missing, node, results, f, rows, state)
    split = results[f]
    chosen = NO_SPLIT
    if m >= 2:
        chosen = random_partition(hist_f, rows, m, missing_bin, node, work, results, f,
                                  grouped, goes_left, state)
    if chosen == NO_SPLIT:
        split["bin_threshold"] = NO_SPLIT
        return
    split["bin_threshold"] = CATEGORICAL_SPLIT
    split["next_bin"] = NO_SPLIT
    _set_categories(split, rows, goes_left, m, chosen == NON_MISSING_LEFT)


def _drawn_split_block(hist_f, n_bins_non_missing, work):
    """A ``random_scan_workspace`` block as wide as ``work`` (a block of
    ``splitting.scan_workspace``) for a scan called from Python (the entries below)."""
    n_stats = hist_f.shape[1]
    n_classes = work.shape[1] if work.shape[1] > n_stats else 0
    return random_scan_workspace(np.int64(1), np.int64(n_stats), np.int64(n_classes),
                                 np.int64(max(n_bins_non_missing, 1)), np.int64(0))[0]


def scan_random_threshold(hist_f, n_bins_non_missing, missing_bin, node, work, results, f):
    """``scan_random_threshold_in_work`` for calls from Python with any block ``work`` of
    ``splitting.scan_workspace``: the drawn split's scratch is allocated for the call."""
    scan_random_threshold_in_work(hist_f, n_bins_non_missing, missing_bin, node,
                                  _drawn_split_block(hist_f, n_bins_non_missing, work),
                                  results, f)


def scan_random_categories(hist_f, n_bins_non_missing, missing_bin, node, work, results, f,
                           scan_in_order=None):
    """``scan_random_categories_in_work`` for calls from Python with any block ``work`` of
    ``splitting.scan_workspace`` (``scan_in_order`` is ignored)."""
    scan_random_categories_in_work(hist_f, n_bins_non_missing, missing_bin, node,
                                   _drawn_split_block(hist_f, n_bins_non_missing, work),
                                   results, f, scan_random_threshold_in_work)


@njit(cache=True, nogil=True, inline="always")
def _side_of(b, missing_bin, cut_bin, threshold_bin, next_bin):
    """The row of the side sums bin ``b`` adds to (0 left: ``b`` <= ``cut_bin``, 1 right, 2
    missing: the missing bin is above every other), with the largest occupied bin <=
    ``cut_bin`` and the next occupied bin updated. Computed, not branched on: on a cut drawn
    at random a branch per sample was mispredicted about every other sample (the summing
    pass of a small node took 2.4x as long). Inlined: no call per sample."""
    right = b > cut_bin
    is_missing = b == missing_bin
    return (np.int64(right) + np.int64(is_missing),
            max(threshold_bin, threshold_bin if right else b),
            min(next_bin, b if right and not is_missing else next_bin))


@njit(cache=True, nogil=True, inline="always")
def _sum_statistics_by_side(X_binned, sample_idx, y_code, sample_weight, sample_stats,
                            group_code, n_classes, f, start, end, missing_bin, cut_bin,
                            threshold_bin, next_bin, sums):
    """The second pass of ``_drawn_cut_from_samples``: each sample's statistics added to row 0
    (bin <= ``cut_bin``), 1 (above) or 2 (missing) of ``sums`` (zeroed first). Returns
    the largest occupied bin <= ``cut_bin`` and the next occupied bin (``threshold_bin`` and
    ``next_bin`` on entry: the node's smallest and largest bins). Inlined: no call per
    sample."""
    n_stats = sums.shape[1]
    has_groups = group_code.shape[0] > 0
    for r in range(3):
        for s in range(n_stats):
            sums[r, s] = 0.0
    for position in range(start, end):
        i = sample_idx[position]
        b = np.int64(X_binned[i, f])
        r, threshold_bin, next_bin = _side_of(b, missing_bin, cut_bin, threshold_bin, next_bin)
        if n_classes > 0:
            k = y_code[i]
            sums[r, weight_column(n_classes, k)] += sample_weight[i]
            sums[r, count_column(n_classes, k)] += 1.0
            if has_groups:
                sums[r, group_column(n_classes, group_code[i])] += sample_weight[i]
        else:
            for s in range(n_stats):
                sums[r, s] += sample_stats[i, s]
    return threshold_bin, next_bin


@njit(cache=True, nogil=True, inline="always")
def _sum_classes_by_side(node_bins, labels, weights, n_classes, missing_bin, cut_bin,
                         threshold_bin, next_bin, sums):
    """The second pass of ``_drawn_cut_from_gathered`` for classes and weights gathered in
    ``labels``, ``weights``: each sample's weight and count added to row 0 (bin <=
    ``cut_bin``), 1 (above) or 2 (missing) of ``sums`` (zeroed first; ``_side_of``). The same
    additions in the same order as the pass in place: the same sums, bit for bit. With unit
    weights (``weights`` empty) only the counts are summed and the weight sums copied from
    them: a sum of ones is exact, so the same bits, for half the read-modify-writes (each
    waits for the previous one's store when two samples in a row share a side and class).
    Returns the largest occupied bin <= ``cut_bin`` and the next occupied bin
    (``threshold_bin``, ``next_bin`` on entry: the node's smallest and largest bins)."""
    for r in range(3):
        for s in range(sums.shape[1]):
            sums[r, s] = 0.0
    if weights.shape[0] == 0:  # every weight 1 (_gathered_samples): weights are the counts
        for j in range(node_bins.shape[0]):
            r, threshold_bin, next_bin = _side_of(node_bins[j], missing_bin, cut_bin,
                                                  threshold_bin, next_bin)
            sums[r, count_column(n_classes, labels[j])] += 1.0
        for r in range(3):
            for k in range(n_classes):
                sums[r, weight_column(n_classes, k)] = sums[r, count_column(n_classes, k)]
        return threshold_bin, next_bin
    for j in range(node_bins.shape[0]):
        r, threshold_bin, next_bin = _side_of(node_bins[j], missing_bin, cut_bin, threshold_bin,
                                              next_bin)
        k = labels[j]
        sums[r, weight_column(n_classes, k)] += weights[j]
        sums[r, count_column(n_classes, k)] += 1.0
    return threshold_bin, next_bin


@njit(cache=True, nogil=True, inline="always")
def _sum_four_statistics_by_side(node_bins, stat_rows, missing_bin, cut_bin, threshold_bin,
                                 next_bin, sums):
    """The second pass of ``_drawn_cut_from_gathered`` for regression rows of four statistics
    (every built-in criterion's, ``[n, w, wy, ...]``) gathered in ``stat_rows``: the left,
    right and missing sums held in twelve scalars rather than in ``sums``, whose row chosen per
    sample made each addition wait for the previous one's store. The same additions in the
    same order: the same sums, bit for bit (the other side adds +0.0, which changes no sum:
    one that starts at +0.0 is never -0.0). The side is a select, not a branch: a branch per
    sample was mispredicted about every other sample (a third of a small node's scan).
    Returns the threshold and next occupied bins."""
    l0 = l1 = l2 = l3 = 0.0
    r0 = r1 = r2 = r3 = 0.0
    m0 = m1 = m2 = m3 = 0.0
    for j in range(node_bins.shape[0]):
        b = node_bins[j]
        s0 = stat_rows[j, 0]
        s1 = stat_rows[j, 1]
        s2 = stat_rows[j, 2]
        s3 = stat_rows[j, 3]
        if b == missing_bin:  # rare, or every time: predicted
            m0 += s0
            m1 += s1
            m2 += s2
            m3 += s3
        else:  # the side is selected, not branched to (a drawn cut: a coin toss per sample)
            left = b <= cut_bin
            l0 += s0 if left else 0.0
            l1 += s1 if left else 0.0
            l2 += s2 if left else 0.0
            l3 += s3 if left else 0.0
            r0 += 0.0 if left else s0
            r1 += 0.0 if left else s1
            r2 += 0.0 if left else s2
            r3 += 0.0 if left else s3
            threshold_bin = max(threshold_bin, b if left else threshold_bin)
            next_bin = min(next_bin, next_bin if left else b)
    sums[0, 0], sums[0, 1], sums[0, 2], sums[0, 3] = l0, l1, l2, l3
    sums[1, 0], sums[1, 1], sums[1, 2], sums[1, 3] = r0, r1, r2, r3
    sums[2, 0], sums[2, 1], sums[2, 2], sums[2, 3] = m0, m1, m2, m3
    return threshold_bin, next_bin


#: Gathered nodes of fewer samples find the drawn cut among their samples' bins
#: (``_cut_bin_among``) rather than by a search over the bins' values (``_drawn_cut_bin``).
CUT_AMONG_SAMPLES_BELOW = 48


@njit(cache=True, nogil=True, inline="always")
def _drawn_cut_bin(values_f, f, low_bin, high_bin, state):
    """The largest bin in [low_bin, high_bin) whose value is <= t, for t drawn uniformly
    between the values of ``low_bin`` and ``high_bin`` (``cut_position`` over those bins)."""
    return low_bin + cut_position(values_f[f, low_bin:high_bin + 1], high_bin - low_bin + 1,
                                  uniform(state))


@njit(cache=True, nogil=True, inline="always")
def _cut_bin_among(node_bins, values_f, f, low_bin, high_bin, state):
    """``_drawn_cut_bin``'s cut for a node whose bins of feature ``f`` are ``node_bins`` (the
    missing bin, above every other, included), found among them: the largest bin of the node
    below ``high_bin`` whose value is <= t. It is not the searched bin, but no bin of the node
    lies between the two, so the samples split the same way and the split records the same
    bins (the largest occupied bin <= the cut and the next one). For a few samples a pass over
    their bins costs less than the search, whose steps (a coin toss each, for a drawn t) were
    mispredicted half the time: a third of a small node's scan."""
    t = _threshold_between(values_f[f, low_bin], values_f[f, high_bin], uniform(state))
    cut_bin = low_bin
    for j in range(node_bins.shape[0]):
        b = node_bins[j]
        below = np.int64(b < high_bin) * np.int64(values_f[f, b] <= t)
        cut_bin = max(cut_bin, b * below)
    return cut_bin


@njit(cache=True, nogil=True, inline="always")
def _score_side_sums(sums, has_missing, missing_left, threshold_bin, next_bin, node, work,
                     results, f, grouped, rows, goes_left):
    """Score the split whose left, right and missing sums are the rows of ``sums``
    (``_score_drawn``) and write its bins to ``results[f]``. Without missing values ``sums``
    is already the two-row histogram ``_score_drawn`` would build (its sums start at +0.0, so
    adding them to zeros changes no bit): it goes to the scan as it is."""
    if not has_missing:
        scan_two_rows(sums, np.int64(2), node, work, results, f)
        chosen = np.int64(0) if results[f]["bin_threshold"] != NO_SPLIT else NO_SPLIT
    else:
        rows[0] = 0
        rows[1] = 1
        goes_left[0] = True
        goes_left[1] = False
        chosen = _score_drawn(sums, rows, goes_left, np.int64(2), np.int64(2), missing_left,
                              node, work, results, f, grouped)
    _record_drawn_bins(results[f], chosen, threshold_bin, next_bin)


@njit(cache=True, nogil=True, inline="always")
def _record_drawn_bins(split, chosen, threshold_bin, next_bin):
    """The bins of the split ``chosen`` (``_score_drawn``'s answer) into the record
    ``split``: the largest occupied bin <= the cut and the next, or ``NON_MISSING_LEFT``."""
    if chosen == NON_MISSING_LEFT:
        split["bin_threshold"] = NON_MISSING_LEFT
    elif chosen != NO_SPLIT:
        split["bin_threshold"] = threshold_bin
        split["next_bin"] = next_bin


@njit(cache=True, nogil=True, inline="always")
def _occupied_bin_range(X_binned, sample_idx, start, end, f, missing_bin, node_bins, keep):
    """(smallest, largest) non-missing bin of feature ``f`` over the samples ``start:end``
    ((``missing_bin``, -1) when there is none) and whether one is missing; ``keep``: the bins
    also written to ``node_bins`` (from 0). Inlined: one pass, no call per sample."""
    low_bin = np.int64(missing_bin)
    high_bin = np.int64(-1)
    has_missing = False
    for position in range(start, end):
        b = np.int64(X_binned[sample_idx[position], f])
        if keep:
            node_bins[position - start] = b
        if b == missing_bin:
            has_missing = True
            continue
        if b < low_bin:
            low_bin = b
        if b > high_bin:
            high_bin = b
    return low_bin, high_bin, has_missing


@internal_kernel(reference_counted=False)
def _drawn_cut_from_samples(data, f, start, end, missing_bin, values_f, state, node, work,
                            results, sums, grouped, rows, goes_left):
    """The drawn split of numeric feature ``f`` at a small node, from its samples: one pass
    finds the smallest and largest bin and whether values are missing, the cut is drawn
    between their values, a second pass sums the left, right and missing samples into
    ``sums`` (3, n_stats), scored as ``random_cut`` scores it (the same cut: the bins whose
    value is <= t go left). Two passes over the samples, as scikit-learn's random splitter
    makes, instead of a compact histogram of the feature. Writes ``results[f]``; ``rows``,
    ``goes_left`` are scratch of 2. (``_drawn_cut_from_gathered`` reads the same samples
    gathered.)

    Compiled without reference counting and with the per-sample sums written out (inlined
    helpers, no call per sample): each array passed to a call per sample cost an atomic
    incref/decref pair, which made this loop 3x slower than the arithmetic."""
    X_binned = data.X_binned
    sample_idx = data.sample_idx
    n_classes = data.n_classes
    low_bin, high_bin, has_missing = _occupied_bin_range(X_binned, sample_idx, start, end, f,
                                                         missing_bin, sums[0], False)
    if high_bin <= low_bin:  # constant, or every value missing
        return
    cut_bin = _drawn_cut_bin(values_f, f, low_bin, high_bin, state)
    missing_left = next_below(state, 2) == 1 if has_missing else False
    # the largest occupied bin <= cut_bin, and the next occupied one
    threshold_bin, next_bin = _sum_statistics_by_side(
        X_binned, sample_idx, data.y_code, data.sample_weight, data.sample_stats,
        data.group_code, n_classes, f, start, end, missing_bin, cut_bin, low_bin, high_bin,
        sums)
    _score_side_sums(sums, has_missing, missing_left, threshold_bin, next_bin, node, work,
                     results, f, grouped, rows, goes_left)


@njit(cache=True, nogil=True, inline="always")
def _drawn_cut_from_gathered(X_binned, sample_idx, start, node_bins, labels, weights,
                             stat_rows, n_classes, f, missing_bin, values_f, state, node, work,
                             results, sums, grouped, rows, goes_left):
    """``_drawn_cut_from_samples`` on a node whose classes and weights (``labels``,
    ``weights``: classification without q groups) or statistics rows (``stat_rows``: regression
    rows of four statistics) were gathered once for all its features: the first pass gathers
    the feature's bins into ``node_bins`` (the only reads scattered over the training set),
    the second reads contiguous arrays. The same additions in the same order: the same split,
    bit for bit."""
    n = node_bins.shape[0]
    low_bin, high_bin, has_missing = _occupied_bin_range(X_binned, sample_idx, start, start + n,
                                                         f, missing_bin, node_bins, True)
    if high_bin <= low_bin:  # constant, or every value missing
        return
    if n < CUT_AMONG_SAMPLES_BELOW:
        cut_bin = _cut_bin_among(node_bins, values_f, f, low_bin, high_bin, state)
    else:
        cut_bin = _drawn_cut_bin(values_f, f, low_bin, high_bin, state)
    missing_left = next_below(state, 2) == 1 if has_missing else False
    # the largest occupied bin <= cut_bin, and the next occupied one
    if n_classes > 0:
        threshold_bin, next_bin = _sum_classes_by_side(node_bins, labels, weights, n_classes,
                                                       missing_bin, cut_bin, low_bin,
                                                       high_bin, sums)
    else:
        threshold_bin, next_bin = _sum_four_statistics_by_side(
            node_bins, stat_rows, missing_bin, cut_bin, low_bin, high_bin, sums)
    if has_missing:
        _score_side_sums(sums, has_missing, missing_left, threshold_bin, next_bin, node, work,
                         results, f, grouped, rows, goes_left)
        return
    # the common case, scored with scan_two_rows' body inlined (one copy, here): a call
    # passed some ninety words per (node, feature), 12 % of this scan
    scan_two_rows_inlined(sums, np.int64(2), node, work, results, f)
    _record_drawn_bins(results[f], np.int64(0) if results[f]["bin_threshold"] != NO_SPLIT
                       else NO_SPLIT, threshold_bin, next_bin)


@pointer_kernel(reference_counted=False)
def scan_small_node_random(data, bins, features, start, end, node, workspace, results, scan,
                           n_chunks, categorical_scan):
    """The drawn split of each feature in ``features`` of a small node, from its samples: the
    small-node scan of a fit of extremely randomized trees, with the signature of
    ``splitting.scan_small_node`` (``scan``, ``categorical_scan`` and ``n_chunks`` unused:
    one thread, the same draws). A numeric feature takes two passes over the node's samples
    (``_drawn_cut_from_gathered``: their classes and weights, or statistics, gathered once
    for all features, so that only the feature's bins are read scattered over the training
    set; ``_drawn_cut_from_samples`` in place otherwise); a categorical one a compact histogram
    (``splitting.compact_feature_histogram``), whose rows' codes (``touched``) are the
    categories the partition is drawn over. The node key is computed once for all features.

    Compiled without reference counting, allocating nothing: its scratch follows the
    per-feature scan's rows in ``workspace.work[0]`` (``random_scan_workspace``; a ValueError
    if smaller), so the calls per feature take no atomic incref/decref pair per array."""
    if features.shape[0] == 0:
        return
    work = workspace.work[0]
    n_stats = workspace.compact.shape[2]
    grouped, sums, state, rows, _, goes_left = _drawn_split_scratch(
        _scratch_of_work(work, n_stats, bins.n_bins), n_stats, bins.n_bins)
    values_f = node.rule.threshold_draw.values
    key = node_key(node.rule.threshold_draw.seed, node.totals, node.n_classes)
    for t in range(features.shape[0]):  # categorical features first, as before
        f = features[t]
        if bins.is_categorical[f]:
            split = results[f]
            _clear_split(split)
            split["impurity_failed"] = False
            _drawn_partition_of_small_node(data, bins, f, start, end, node, workspace, results,
                                           key, state, grouped, rows, goes_left)
    node_bins, labels, weights, stat_rows = _gathered_samples(data, start, end, work, n_stats,
                                                              bins.n_bins)
    gathered = node_bins.shape[0] == end - start
    for t in range(features.shape[0]):
        f = features[t]
        if bins.is_categorical[f]:
            continue
        split = results[f]
        _clear_split(split)
        split["impurity_failed"] = False
        seed_feature(key, f, state)
        if gathered:
            _drawn_cut_from_gathered(data.X_binned, data.sample_idx, start, node_bins, labels,
                                     weights, stat_rows, data.n_classes, f, bins.missing_bin,
                                     values_f, state, node, work, results, sums, grouped,
                                     rows, goes_left)
        else:
            _drawn_cut_from_samples(data, f, start, end, bins.missing_bin, values_f, state,
                                    node, work, results, sums, grouped, rows, goes_left)
        if split["bin_threshold"] == NON_MISSING_LEFT:
            split["bin_threshold"] = bins.n_bins_non_missing[f] - 1


@njit(cache=True, nogil=True, inline="always")
def _gathered_samples(data, start, end, work, n_stats, n_bins):
    """The node's samples gathered into the work block's gathering room
    (``random_scan_workspace``), once for all its numeric features: ``node_bins`` (room for
    one feature's bins), ``labels`` and ``weights`` (classification without q groups) or
    ``stat_rows`` (regression rows of four statistics); ``weights`` is empty when every
    weight is 1. ``node_bins`` is empty when the node is not gathered (too large for the
    room, or another layout): its features then read the samples in place
    (``_drawn_cut_from_samples``). Inlined: the views follow the caller's reference
    counting."""
    n_classes = data.n_classes
    n = end - start
    flat = work.reshape(-1)
    at = SCAN_WORK_ROWS * work.shape[1] + drawn_split_scratch_floats(n_stats, n_bins)
    layout = (data.group_code.shape[0] == 0) if n_classes > 0 else n_stats == 4
    if not layout or flat.shape[0] - at < n * gathered_floats_per_sample(n_stats, n_classes):
        n = 0
    node_bins = flat[at:at + n].view(np.int64)
    at += n
    n_labels = n if n_classes > 0 else 0
    labels = flat[at:at + n_labels].view(np.int64)
    weights = flat[at + n_labels:at + 2 * n_labels]
    at += 2 * n_labels
    n_rows = n - n_labels
    stat_rows = flat[at:at + n_rows * n_stats].reshape((n_rows, n_stats))
    sample_idx = data.sample_idx
    if n_classes > 0:
        y_code = data.y_code
        sample_weight = data.sample_weight
        unit_weights = True
        for j in range(n_labels):
            i = sample_idx[start + j]
            labels[j] = y_code[i]
            weights[j] = sample_weight[i]
            unit_weights &= sample_weight[i] == 1.0
        if unit_weights:  # (_sum_classes_by_side then sums the counts only)
            weights = weights[:0]
    else:
        sample_stats = data.sample_stats
        for j in range(n_rows):
            i = sample_idx[start + j]
            for s in range(n_stats):
                stat_rows[j, s] = sample_stats[i, s]
    return node_bins, labels, weights, stat_rows


@internal_kernel(reference_counted=False)
def _drawn_partition_of_small_node(data, bins, f, start, end, node, workspace, results, key,
                                   state, grouped, rows, goes_left):
    """``random_partition`` of categorical feature ``f`` at a small node (generator seeded
    from the node's ``key``), on a compact histogram of its samples; writes ``results[f]``
    with the categories' codes. ``rows`` and ``goes_left`` are scratch of ``bins.n_bins``."""
    scratch = workspace.scratch[0]
    touched = workspace.touched[0]
    compact = workspace.compact[0]
    occupied = workspace.occupied[0]
    unit_weights = data.n_classes > 0 and has_unit_weights(data.sample_weight, data.sample_idx,
                                                           start, end)
    m = compact_feature_histogram(data, f, start, end, bins.missing_bin, scratch, touched,
                                  compact, occupied, unit_weights)
    if m < 2:
        return
    for r in range(m):
        rows[r] = r
    seed_feature(key, f, state)
    chosen = random_partition(compact, rows, m, m, node, workspace.work[0], results, f,
                              grouped, goes_left, state)
    if chosen != NO_SPLIT:
        split = results[f]
        split["bin_threshold"] = CATEGORICAL_SPLIT
        _set_categories(split, touched, goes_left, m, chosen == NON_MISSING_LEFT)


@njit(cache=True, nogil=True, inline="always")
def _is_constant_non_missing(has_histogram, hist, data, start, end, bins, f):
    """Whether the node's non-missing values of feature ``f`` lie in one bin (or there are
    none): scikit-learn's random splitter skips such a feature."""
    missing_bin = bins.missing_bin
    if has_histogram:
        occupied = 0
        hist_f = hist[f]
        for b in range(bins.n_bins_non_missing[f]):
            if bin_count(hist_f, b, data.n_classes) > 0.0:
                occupied += 1
                if occupied > 1:
                    return False
        return True
    column = data.X_binned[:, f]
    sample_idx = data.sample_idx
    first = -1
    for position in range(start, end):
        b = np.int64(column[sample_idx[position]])
        if b == missing_bin:
            continue
        if first < 0:
            first = b
        elif b != first:
            return False
    return True


@pointer_kernel(reference_counted=False)
def visit_features(sampling, has_histogram, hist, data, start, end, bins, state, order, chosen,
                   features):
    """Features examined at a node, as scikit-learn's feature loop visits them: features drawn
    without replacement (``state``, ``random.next_below``), each counting against
    ``sampling.max_features`` whether constant or not (``_is_constant_non_missing``), the
    draw going on past ``max_features`` only until a non-constant one is drawn. Writes the
    non-constant features drawn, in increasing order, to ``features`` and returns their number;
    the signature of ``growth.choose_features``, whose scratch ``order`` and ``chosen`` it uses
    alike. Compiled without reference counting: it allocates nothing."""
    n_features = order.shape[0]
    for i in range(n_features):
        order[i] = i
    n_visited = 0
    n_chosen = 0
    for i in range(n_features):
        if n_visited >= sampling.max_features and n_chosen > 0:
            break
        f = draw_without_replacement(order, i, state)
        n_visited += 1
        if not _is_constant_non_missing(has_histogram, hist, data, start, end, bins, f):
            chosen[f] = True
            n_chosen += 1
    return marked_in_order(chosen, features)


@pointer_kernel
def choose_features_visiting(sampling, has_histogram, hist, data, start, end, bins, state,
                             order, chosen):
    """``visit_features``' choice as a new array (for calls from Python; the growth loop
    calls ``visit_features`` with a buffer of its own)."""
    features = np.empty(order.shape[0], dtype=np.int64)
    n_chosen = visit_features(sampling, has_histogram, hist, data, start, end, bins, state,
                              order, chosen, features)
    return features[:n_chosen].copy()


def random_cut_naive(seed, class_counts_or_stats, n_classes, f, values):
    """Reference of the drawn cut: the index i (cut after the i-th of the node's occupied
    bins, values ``values`` increasing) and the missing side the kernels draw for feature
    ``f`` at a node with statistics row ``class_counts_or_stats`` (a classification row
    ``[w_0..w_{K-1}, n_0..n_{K-1}]`` or a regression row), in plain Python floats."""
    state = draw_state(np.int64(seed), np.ascontiguousarray(class_counts_or_stats,
                                                            dtype=np.float64),
                       np.int64(n_classes), np.int64(f))
    high = int(next_below(state, 1 << 26))
    low = int(next_below(state, 1 << 27))
    u = (high * 2.0**27 + low) / 2.0**53
    t = values[0] + u * (values[-1] - values[0])
    if t >= values[-1]:
        t = values[0]
    i = max(j for j in range(len(values) - 1) if values[j] <= t)
    return i, bool(next_below(state, 2) == 1)
