"""Split finding on histograms: scan every bin threshold of a feature in both missing-value
directions and score each candidate with the node's impurity function (docs/methods.md §2-§4).

A candidate split ``(feature f, bin b, missing side)`` sends bins ``<= b`` left, the other
non-missing bins right and the missing bin to its side. The score is the weighted impurity
decrease in probability units (docs/methods.md §4, "gain"):

    score = [w(S) h(S) - w(L) h(L) - w(R) h(R)] / w(root) = p(S) * Delta_h(S, d).

Ties are broken deterministically: the lowest feature, then the lowest threshold, then missing
values to the right before missing values to the left (strict ``>`` while scanning in that
order). When the node has no missing values, missing values at prediction time go to the child
with more training weight, ties to the left (scikit-learn: more samples, ties to the right; the
same with unit weights except on ties). Weight is what p(S) measures everywhere else, so a
weighted model sends unseen missing values where most of its probability mass went.

The impurity ``h`` arrives as a first-class function (``IMPURITY_FUNCTION_TYPE``) and the
rule's numerator comes from ``split_rules``, so this code changes neither when a criterion nor
when a rule is added. A node either has a histogram in the growth loop's pool
(``scan_features_with_histogram``) or is small and gets compact per-feature histograms built
from its samples (``scan_small_node``).
"""

import numpy as np
from numba import njit, prange

from .categorical import has_category
from .decorators import internal_kernel, pointer_kernel
from .histogram import has_unit_weights
from .monotonic import is_admissible, node_value
from .records import (
    SCAN_WORK_ROWS,
    BinLayout,
    Impurity,
    Monotonicity,
    NodeScan,
    SmallNodeWorkspace,
    SplitRule,
    ThresholdDraw,
    TrainingData,
)
from .split_rules import (
    NO_SPLIT,
    beats,
    numerator_is_gain,
    rule_numerator,
    tie_scale,
)
from .stats import (
    REGRESSION_COUNT,
    bin_count,
    class_proportions,
    count_column,
    group_column,
    pairs_of,
    pure_class_of_bin,
    stats_count,
    stats_weight,
    weight_column,
)


@njit(cache=True, nogil=True, inline="always")
def bin_at(bin_order, position):
    """The bin a scan takes at ``position``: the position itself in the scans of numeric
    features. Their twins ``*_in_order`` (``pointers.scan_pointer(..., in_order=True)``), to
    which the categorical scan hands its categories in key order, bind this name to
    ``bin_in_order``: one compiled scan per order, and no test per bin in either."""
    return position


@njit(cache=True, nogil=True, inline="always")
def bin_in_order(bin_order, position):
    """The bin at ``position`` of ``NodeScan.bin_order`` (see ``bin_at``)."""
    return bin_order[position]


@njit(cache=True, nogil=True, inline="always")
def _next_occupied(hist_f, bin_order, p, n_bins_non_missing, n_classes):
    """The first position after ``p`` whose bin (``bin_at``) is occupied, or ``NO_SPLIT``.
    Inlined: a call that passes ``bin_order`` costs an NRT incref/decref pair per bin."""
    p += 1
    while p < n_bins_non_missing and bin_count(hist_f, bin_at(bin_order, p),
                                               n_classes) <= 0.0:
        p += 1
    return p if p < n_bins_non_missing else NO_SPLIT


@njit(cache=True, nogil=True, inline="always")
def _child_class_impurity(child, weight, n_classes, proportions, h, h_params):
    """h of a child's class proportions (a class's weight over ``weight``, 0 for a class
    without samples), 0 for a child of weight 0; ``proportions`` is scratch."""
    if not weight > 0.0:
        return 0.0
    for k in range(n_classes):
        present = child[count_column(n_classes, k)] > 0.0
        proportions[k] = child[weight_column(n_classes, k)] / weight if present else 0.0
    return h(proportions, h_params)


@njit(cache=True, nogil=True, inline="always")
def _admissible_children(candidate_left, candidate_right, node, direction, proportions, h,
                         h_params):
    """(admitted, count_left, count_right, weight_left, impurity_left, weight_right,
    impurity_right) of a candidate whose children hold the statistics rows
    ``candidate_left`` / ``candidate_right``: admitted when both hold at least
    ``node.min_samples_leaf`` samples and ``node.min_weight_leaf`` weight and, for a feature
    of monotonic ``direction`` (not 0), their values respect it and the node's bounds
    (else the weights and impurities may be 0). A class's proportion is its weight over the
    child's, 0 for a class without samples.
    Shared by ``scan_feature`` and ``scan_two_rows`` (the same arithmetic: the same bits);
    inlined, and the counts and proportions written out: a call per candidate that passes a
    row costs an NRT incref/decref pair per array, more than the sums."""
    n_classes = node.n_classes
    min_samples_leaf = node.min_samples_leaf
    if n_classes > 0:
        count_left = 0.0
        count_right = 0.0
        weight_left = 0.0
        weight_right = 0.0
        for k in range(n_classes):
            count_left += candidate_left[count_column(n_classes, k)]
            count_right += candidate_right[count_column(n_classes, k)]
            if candidate_left[count_column(n_classes, k)] > 0.0:
                weight_left += candidate_left[weight_column(n_classes, k)]
            if candidate_right[count_column(n_classes, k)] > 0.0:
                weight_right += candidate_right[weight_column(n_classes, k)]
        if count_left < min_samples_leaf or count_right < min_samples_leaf:
            return False, count_left, count_right, 0.0, 0.0, 0.0, 0.0
        impurity_left = _child_class_impurity(candidate_left, weight_left, n_classes,
                                              proportions, h, h_params)
        impurity_right = _child_class_impurity(candidate_right, weight_right, n_classes,
                                               proportions, h, h_params)
    else:
        count_left = stats_count(candidate_left, n_classes)
        count_right = stats_count(candidate_right, n_classes)
        if count_left < min_samples_leaf or count_right < min_samples_leaf:
            return False, count_left, count_right, 0.0, 0.0, 0.0, 0.0
        weight_left = stats_weight(candidate_left, n_classes)
        impurity_left = h(candidate_left, h_params)
        weight_right = stats_weight(candidate_right, n_classes)
        impurity_right = h(candidate_right, h_params)
    admitted = not (weight_left < node.min_weight_leaf or weight_right < node.min_weight_leaf)
    if admitted and direction != 0:
        monotonicity = node.monotonicity
        admitted = is_admissible(node_value(candidate_left, n_classes),
                                 node_value(candidate_right, n_classes), direction,
                                 monotonicity.lower, monotonicity.upper)
    return (admitted, count_left, count_right, weight_left, impurity_left, weight_right,
            impurity_right)


@pointer_kernel(reference_counted=False)
def scan_feature(hist_f, n_bins_non_missing, missing_bin, node, work, results, f):
    """Best split of one feature from its histogram ``hist_f[bin, stat]`` under the node's rule.

    OUT ``results[f]`` (a ``records.SPLIT_DTYPE`` record): the rule's numerator as ``score``
    (``split_rules.rule_numerator``; the node divides by the feature's cost), the ``gain``
    p(S) Delta_h, the left weight, the threshold bin (``NO_SPLIT`` when no valid split
    exists; ``n_bins_non_missing - 1`` marks the split "non-missing left, missing right") and
    the missing side. ``node`` is a ``records.NodeScan``. Candidates violating
    min_samples_leaf / min_weight_leaf are skipped. The kernels call it through
    ``pointers.scan_pointer``.

    With the rule's ``skip_same_class_runs`` (gain of a strictly concave impurity, no leaf-size
    constraint), a cut between two occupied bins that are pure in the same class is not
    evaluated: along such a run the children's class-weight vectors move on a line, where the
    weighted child impurity (a sum of perspectives of the concave h) is concave, so the gain is
    maximised at the run's ends, strictly (Fayyad & Irani 1992, generalised). The first cut is
    always evaluated.

    Monotonic constraints (``node.monotonicity``, docs/methods.md §4): on a constrained
    feature, a candidate whose children's values break the direction or leave the node's
    bounds is skipped before the rule scores it (``monotonic.is_admissible``), so every rule
    chooses among admissible splits only; same-class runs are then scanned in full (a cut
    inside a run may be admissible where the run's ends are not). Unconstrained fits
    (empty ``direction``) test one flag per feature.

    ``work`` is scratch space of shape ``(7, max(n_stats, n_classes))`` (see ``scan_workspace``).
    Bins are taken in their own order; this scan's twins ``*_in_order`` take them in
    ``node.bin_order``, and thresholds are then positions in it (``bin_at``).

    The loop indexes scalars and calls ``h`` directly: array views and passing the function
    pointer through helpers cost several times the arithmetic here. Compiled without reference
    counting (it allocates nothing): the atomic incref/decref pairs on its arrays and on each
    call's array arguments were two thirds of a two-bin scan (340 -> 100 ns) and a tenth of a
    255-bin one.
    """
    n_stats = hist_f.shape[1]
    totals = node.totals
    n_classes = node.n_classes
    h = node.impurity.h
    h_params = node.impurity.h_params
    rule = node.rule
    total_weight = node.total_weight
    weighted_parent_impurity = node.weighted_parent_impurity
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
    scale = tie_scale(rule, weighted_parent_impurity, node_weight, node_pairs, total_weight)
    monotonicity = node.monotonicity
    direction = (monotonicity.direction[f] if monotonicity.direction.shape[0] > 0
                 else np.int64(0))
    skip_same_class_runs = rule.skip_same_class_runs and direction == 0
    score_is_gain = numerator_is_gain(rule.code)
    best_score = -np.inf
    best_bin = NO_SPLIT
    # np.bool_, not the literal False: Numba compiles a callee for every type a variable takes
    # during inference.
    best_missing_left = np.bool_(False)
    best_weight_left = 0.0
    best_gain = -np.inf
    bin_order = node.bin_order
    # b and next_b are positions (bin_at)
    b = _next_occupied(hist_f, bin_order, NO_SPLIT, n_bins_non_missing, n_classes)
    pure_here = -1
    if skip_same_class_runs and b != NO_SPLIT:
        pure_here = pure_class_of_bin(hist_f, bin_at(bin_order, b), n_classes)
    first_cut = True
    failed = False
    while b != NO_SPLIT:
        next_b = _next_occupied(hist_f, bin_order, b, n_bins_non_missing, n_classes)
        row = bin_at(bin_order, b)
        for s in range(n_stats):
            left[s] += hist_f[row, s]
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
            pure_next = (pure_class_of_bin(hist_f, bin_at(bin_order, next_b), n_classes)
                         if skip_same_class_runs else -1)
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
            (admitted, count_left, count_right, weight_left, impurity_left, weight_right,
             impurity_right) = _admissible_children(candidate_left, candidate_right, node,
                                                    direction, proportions, h, h_params)
            if not admitted:
                continue
            gain = (weighted_parent_impurity - weight_left * impurity_left
                    - weight_right * impurity_right) / total_weight
            if not gain < np.inf:  # +inf or NaN: h failed here (a Custom criterion's -inf)
                failed = True
            if score_is_gain:
                score = gain
            else:
                score = rule_numerator(rule, gain, candidate_left, candidate_right, count_left,
                                       count_right, weight_left, weight_right, node_weight,
                                       node_pairs, total_weight, n_classes)
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
    split = results[f]
    split["score"] = best_score
    split["gain"] = best_gain
    split["weight_left"] = best_weight_left
    split["bin_threshold"] = best_bin
    split["next_bin"] = NO_SPLIT
    split["missing_go_left"] = best_missing_left
    split["impurity_failed"] = failed


@njit(cache=True, nogil=True, inline="always")
def impurity_through_pointer(h, proportions, h_params):
    """``h(proportions, h_params)``: how ``scan_feature_unit_weights`` evaluates the impurity.
    Its twins for the built-in criteria (``pointers.scan_pointer``) bind this name to a direct
    call of the criterion's function, which LLVM inlines (a call through the pointer cannot
    be)."""
    return h(proportions, h_params)


@pointer_kernel
def scan_feature_unit_weights(hist_f, n_bins_non_missing, missing_bin, node, work, results, f):
    """``scan_feature`` for a classification fit in which every sample weighs 1, under a rule
    whose numerator is the gain, without monotonic constraints: the same candidates, the same
    floating-point operations in the same order on the same values, hence the same result bit
    for bit, at a fraction of the cost.

    With unit weights a histogram's weight columns equal its count columns (sums of ones are
    exact below 2^53; ``histogram.has_unit_weights``), so a child's weight is its count and a
    class proportion is ``n_k / n`` (``0 / n`` is the 0 that ``scan_feature`` writes for an
    absent class): only the K weight columns are read. The same holds for integer weights of
    at least 1 (a forest's bootstrap multiplicities) when ``min_samples_leaf`` is 1: every sum
    is exact, a class's weight is 0 exactly where its count is, and a child holds a row exactly
    when its weight reaches 1 (``grower.TreeGrower._unit_weight_scan``). The impurity is
    ``impurity_through_pointer``, which the twins of the built-in criteria replace by a direct,
    inlined call (``pointers.scan_pointer``, which hands out this scan only when all of this
    holds). The next occupied bin and the same-class-run test are written out in the loop,
    and scratch rows are indexed rather than sliced: per bin, a call and an array view (an
    NRT incref/decref pair) cost more than the sums. Bins are taken in their own order, or
    in ``node.bin_order`` by the twins ``*_in_order`` (``bin_at``), as in ``scan_feature``.
    """
    n_classes = node.n_classes
    h = node.impurity.h
    h_params = node.impurity.h_params
    total_weight = node.total_weight
    weighted_parent_impurity = node.weighted_parent_impurity
    min_samples_leaf = node.min_samples_leaf
    min_weight_leaf = node.min_weight_leaf
    skip_same_class_runs = node.rule.skip_same_class_runs
    bin_order = node.bin_order
    # work rows: 0 missing, 1 non-missing, 2 running left, 4 / 5 the candidate's children,
    # 6 the proportions handed to h.
    proportions = work[6, :n_classes]
    totals = node.totals
    n_missing = 0.0
    node_weight = 0.0
    for k in range(n_classes):
        column = weight_column(n_classes, k)
        work[0, k] = hist_f[missing_bin, column]
        work[1, k] = totals[column] - work[0, k]
        work[2, k] = 0.0
        n_missing += work[0, k]
        node_weight += totals[column]
    scale = tie_scale(node.rule, weighted_parent_impurity, node_weight, 0.0, total_weight)
    best_score = -np.inf
    best_bin = NO_SPLIT
    best_missing_left = np.bool_(False)
    best_weight_left = 0.0
    best_gain = -np.inf
    failed = False
    first_cut = True
    pure_here = np.int64(-1)
    # b, next_b: positions in bin_order; row, next_row: their bins
    b = np.int64(-1)  # the current occupied position; -1: before the first
    row = b
    while True:
        # The next occupied position (n_bins_non_missing: none) and, for the run test, its
        # class if it holds one class only (-1 otherwise).
        next_b = b + 1
        next_row = next_b
        while next_b < n_bins_non_missing:
            next_row = bin_at(bin_order, next_b)
            count = 0.0
            for k in range(n_classes):
                count += hist_f[next_row, weight_column(n_classes, k)]
            if count > 0.0:
                break
            next_b += 1
        pure_next = np.int64(-1)
        if skip_same_class_runs and next_b < n_bins_non_missing:
            n_present = 0
            for k in range(n_classes):
                present = hist_f[next_row, weight_column(n_classes, k)] > 0.0
                n_present += present
                pure_next = k if present else pure_next
            if n_present != 1:
                pure_next = np.int64(-1)
        if b < 0:
            if next_b >= n_bins_non_missing:
                break  # no non-missing value
            b = next_b
            row = next_row
            pure_here = pure_next
            continue
        for k in range(n_classes):
            work[2, k] += hist_f[row, weight_column(n_classes, k)]
        last = next_b >= n_bins_non_missing
        if last:
            # All non-missing values are left: only "missing values right" remains.
            if n_missing <= 0.0:
                break
            cut = n_bins_non_missing - 1
            n_variants = 1
        else:
            cut = b
            n_variants = 2 if n_missing > 0.0 else 1
            skip = pure_here >= 0 and pure_here == pure_next and not first_cut
            pure_here = pure_next
            first_cut = False
            if skip:
                b = next_b
                row = next_row
                continue
        for variant in range(n_variants):
            # variant 0: missing values right (or none); variant 1: missing values left. The
            # children's counts as scan_feature forms them: right = non-missing - left, plus
            # the missing counts on their side (+ 0.0 when there are none: exact).
            count_left = 0.0
            count_right = 0.0
            for k in range(n_classes):
                if last:
                    in_left = work[1, k]
                    in_right = work[0, k]
                elif variant == 0:
                    in_left = work[2, k]
                    in_right = (work[1, k] - work[2, k]) + work[0, k]
                else:
                    in_left = work[2, k] + work[0, k]
                    in_right = work[1, k] - work[2, k]
                work[4, k] = in_left
                work[5, k] = in_right
                count_left += in_left
                count_right += in_right
            if count_left < min_samples_leaf or count_right < min_samples_leaf:
                continue
            # weight = count; a class's proportion n_k / n, 0 for an absent class.
            impurity_left = 0.0
            if count_left > 0.0:
                for k in range(n_classes):
                    proportions[k] = work[4, k] / count_left
                impurity_left = impurity_through_pointer(h, proportions, h_params)
            impurity_right = 0.0
            if count_right > 0.0:
                for k in range(n_classes):
                    proportions[k] = work[5, k] / count_right
                impurity_right = impurity_through_pointer(h, proportions, h_params)
            if count_left < min_weight_leaf or count_right < min_weight_leaf:
                continue
            gain = (weighted_parent_impurity - count_left * impurity_left
                    - count_right * impurity_right) / total_weight
            if not gain < np.inf:  # +inf or NaN: h failed here
                failed = True
            if beats(gain, best_score, scale):
                best_score = gain
                best_gain = gain
                best_weight_left = count_left
                best_bin = cut
                if n_missing > 0.0:
                    best_missing_left = variant == 1
                else:
                    best_missing_left = count_left >= count_right
        if last:
            break
        b = next_b
        row = next_row
    split = results[f]
    split["score"] = best_score
    split["gain"] = best_gain
    split["weight_left"] = best_weight_left
    split["bin_threshold"] = best_bin
    split["next_bin"] = NO_SPLIT
    split["missing_go_left"] = best_missing_left
    split["impurity_failed"] = failed


@internal_kernel
def scan_workspace(n_blocks, n_stats, n_classes):
    """Scratch space for ``scan_feature``: ``n_blocks`` blocks of ``(SCAN_WORK_ROWS, width)``
    (one per thread chunk)."""
    return np.zeros((n_blocks, SCAN_WORK_ROWS, max(n_stats, n_classes, 1)))


@internal_kernel(reference_counted=False)
def next_nonempty_bin(hist_f, bin_threshold, n_bins_non_missing, n_classes):
    """First non-missing bin after ``bin_threshold`` holding node samples (-1 if none)."""
    for b in range(bin_threshold + 1, n_bins_non_missing):
        if bin_count(hist_f, b, n_classes) > 0.0:
            return b
    return NO_SPLIT


@njit(cache=True, nogil=True)
def is_constant(hist_f, n_bins_non_missing, missing_bin, n_classes):
    """True when the node's samples occupy at most one bin of the feature (missing included)."""
    occupied = 1 if bin_count(hist_f, missing_bin, n_classes) > 0.0 else 0
    for b in range(n_bins_non_missing):
        if bin_count(hist_f, b, n_classes) > 0.0:
            occupied += 1
            if occupied > 1:
                return False
    return True


@internal_kernel(reference_counted=False)
def scan_features_with_histogram(hist, features, bins, node, results, work, scan,
                                 categorical_scan):
    """Best split of each feature in ``features`` of a node that has a pooled histogram
    ``hist[feature, bin, stat]``, through ``scan`` (``pointers.scan_pointer()``), or
    ``categorical_scan`` for a categorical feature (``pointers.categorical_scan_pointer()``),
    which scores its candidates with ``scan`` (in a fit with a categorical feature, the twin
    that takes the bins in ``node.bin_order``); ``work`` is one scratch block of
    ``scan_workspace``."""
    for i in range(features.shape[0]):
        f = features[i]
        if bins.is_categorical[f]:
            categorical_scan(hist[f], bins.n_bins_non_missing[f], bins.missing_bin, node, work,
                             results, f, scan)
        else:
            scan(hist[f], bins.n_bins_non_missing[f], bins.missing_bin, node, work, results, f)


@internal_kernel(reference_counted=False)
def partition(sample_idx, start, end, column, bin_threshold, missing_bin, missing_go_left,
              buffer):
    """Stable in-place partition of ``sample_idx[start:end]``: left samples first.

    Returns the position of the first right sample. Keeping the original order inside each
    child keeps later histogram builds reading the binned columns nearly sequentially.

    Each sample is written to both destinations and only its side's count advances: no branch
    on the side, which for a drawn cut (extremely randomized trees) is a coin toss per sample
    and was mispredicted about every other one. The other write is harmless: ``n_left`` never
    passes ``position``, so it lands on a sample already read (or the current one), and it is
    overwritten by the next left sample or by the right samples copied back; a stray entry
    of ``buffer`` is overwritten by the next right sample.
    """
    n_left = start
    n_right = 0
    for position in range(start, end):
        i = sample_idx[position]
        b = column[i]
        go_left = missing_go_left if b == missing_bin else b <= bin_threshold
        sample_idx[n_left] = i
        buffer[n_right] = i
        n_left += np.int64(go_left)
        n_right += 1 - np.int64(go_left)
    for j in range(n_right):
        sample_idx[n_left + j] = buffer[j]
    return n_left


#: Shell sort gaps (Ciura's sequence), largest first; ending with 1 makes the last pass an
#: insertion sort.
_SHELL_GAPS = np.array([701, 301, 132, 57, 23, 10, 4, 1], dtype=np.int64)


@internal_kernel
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


#: Lowest set bit of a uint64 by de Bruijn multiplication (Leiserson, Prokop & Randall, "Using
#: de Bruijn sequences to index a 1 in a computer word", 1998): ``(w & -w) * DE_BRUIJN >> 58``
#: is distinct for each of the 64 bits; the table maps it back to the bit's index.
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DE_BRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    _DE_BRUIJN_INDEX[((1 << _bit) * 0x03F79D71B4CB0A89 % 2**64) >> 58] = _bit
_ONE = np.uint64(1)
_SIX = np.uint64(6)
_LOW_SIX_BITS = np.uint64(63)
_TOP_SHIFT = np.uint64(58)


@internal_kernel
def _lowest_set_bit(word):
    """Index of the lowest set bit of a non-zero uint64 ``word``."""
    low = word & (~word + _ONE)
    return _DE_BRUIJN_INDEX[(low * _DE_BRUIJN) >> _TOP_SHIFT]


@njit(cache=True, nogil=True, inline="always")
def compact_feature_histogram(data, f, start, end, missing_bin, scratch, touched, compact,
                              occupied, unit_weights):
    """Histogram of one feature restricted to the bins a small node's samples occupy.

    For a small node this costs O(n) instead of O(n_bins): samples are accumulated in
    ``scratch`` (all zeros on entry and on exit) and their bins marked in the bitmap
    ``occupied`` (uint64 words, all zeros on entry and on exit); the occupied bins are then
    read off the bitmap in increasing order into ``touched[:n_occupied]`` (one step per
    occupied bin, ``_lowest_set_bit``) and their rows copied to ``compact``, followed by the
    missing-value row. When the bitmap has more words than the node has samples (tens of
    thousands of exact bins), the occupied bins are collected as they come and sorted instead.
    Returns ``n_occupied`` non-missing bins; ``compact[:n_occupied + 1]`` can then be scanned
    by ``scan_feature`` exactly like a full histogram. With ``unit_weights`` (every sample of
    the node weighs 1, ``histogram.has_unit_weights``) only the class counts are summed and
    the weights copied from them: a sum of ones is exact, so they are equal bit for bit.

    Measured on nodes of 16-256 samples (1e6 x 50, 255 bins, 3 classes): the sort of the
    touched bins took 60 % of this function (shell sort, ~20 ns per sample); the bitmap reads
    them in order for a few ns each. Inlined (Numba IR) into its caller, which calls it once
    per feature: a call takes a reference to each of its ten arrays (an atomic NRT
    incref/decref pair each), ~20 % of the per-feature time of a node of 4-32 samples.
    """
    n_stats = scratch.shape[1]
    n_touched = np.int64(0)
    n_words = occupied.shape[0]
    collect = n_words > end - start
    # The per-sample loop reads plain locals and writes the stats row in place (the layout
    # through the ``stats`` column helpers, which take scalars only): passing arrays to a
    # helper per sample, even an inlined one, costs an NRT incref/decref pair (atomics) per
    # array and sample, which made small-node fits ~1.5x slower than the arithmetic.
    X_binned = data.X_binned
    sample_idx = data.sample_idx
    y_code = data.y_code
    sample_weight = data.sample_weight
    sample_stats = data.sample_stats
    group_code = data.group_code
    n_classes = data.n_classes
    has_groups = group_code.shape[0] > 0
    for position in range(start, end):
        i = sample_idx[position]
        b = np.int64(X_binned[i, f])
        word = b >> 6
        bit = _ONE << (np.uint64(b) & _LOW_SIX_BITS)
        if collect and (occupied[word] & bit) == 0:
            touched[n_touched] = b
            n_touched += 1
        occupied[word] |= bit
        if n_classes > 0:
            k = y_code[i]
            if not unit_weights:
                scratch[b, weight_column(n_classes, k)] += sample_weight[i]
            scratch[b, count_column(n_classes, k)] += 1.0
            if has_groups:
                scratch[b, group_column(n_classes, group_code[i])] += sample_weight[i]
        else:
            for s in range(n_stats):
                scratch[b, s] += sample_stats[i, s]
    if collect:
        sort_prefix(touched, n_touched)
        for j in range(n_touched):
            occupied[touched[j] >> 6] = 0
    else:
        for w in range(n_words):
            word = occupied[w]
            if word == 0:
                continue
            occupied[w] = 0
            while word != 0:
                touched[n_touched] = (w << 6) + _lowest_set_bit(word)
                n_touched += 1
                word &= word - _ONE
    n_occupied = n_touched
    if n_touched > 0 and touched[n_touched - 1] == missing_bin:
        n_occupied -= 1
    if unit_weights and not has_groups:
        # Only the count columns were summed: copy them to both column groups and clear
        # them in one pass (the missing row last, touched or not).
        for j in range(n_occupied + 1):
            b = touched[j] if j < n_occupied else missing_bin
            for k in range(n_classes):
                count = scratch[b, count_column(n_classes, k)]
                compact[j, weight_column(n_classes, k)] = count
                compact[j, count_column(n_classes, k)] = count
                scratch[b, count_column(n_classes, k)] = 0.0
        return n_occupied
    for j in range(n_occupied):
        for s in range(n_stats):
            compact[j, s] = scratch[touched[j], s]
    for s in range(n_stats):
        compact[n_occupied, s] = scratch[missing_bin, s]
    if unit_weights:
        for j in range(n_occupied + 1):
            for k in range(n_classes):
                compact[j, weight_column(n_classes, k)] = compact[j, count_column(n_classes, k)]
    for j in range(n_touched):
        for s in range(n_stats):
            scratch[touched[j], s] = 0.0
    return n_occupied


@internal_kernel
def _categories_of_rows(bits, touched, n_rows):
    """Rewrite a category bitset over the rows of a compact histogram as one over the category
    codes (row j holds code ``touched[j]``), in place: the codes increase with the rows, so
    ``touched[j] >= j``, and taking the rows from the last down, a code is only ever written
    at a position whose row has been read already (no scratch bitset to allocate)."""
    for j in range(n_rows - 1, -1, -1):
        row_bit = np.uint64(1) << np.uint64(j & 63)
        if bits[j >> 6] & row_bit:
            bits[j >> 6] &= ~row_bit
            code = touched[j]
            bits[code >> 6] |= np.uint64(1) << np.uint64(code & 63)


@internal_kernel(reference_counted=False)
def scan_small_node_features(data, bins, features, start, end, node, workspace, chunk, results,
                             scan, categorical_scan):
    """Small-node counterpart of ``scan_features_with_histogram``: the same scan on compact
    histograms built from the node's samples, with chunk ``chunk`` of ``workspace``
    (``records.SmallNodeWorkspace``).

    Bins are translated back from compact to full indices; ``results[f]["next_bin"]`` gets the
    next occupied bin after the chosen one.

    Compiled without Numba's reference counting (the ``_nrt`` option; it allocates nothing,
    Numba refuses to compile an allocation there): per feature, the views of the workspace
    and the compact histogram's arguments took atomic incref/decref pairs.
    """
    if features.shape[0] == 0:
        return
    scratch = workspace.scratch[chunk]
    touched = workspace.touched[chunk]
    compact = workspace.compact[chunk]
    block = workspace.work[chunk]
    occupied = workspace.occupied[chunk]
    unit_weights = data.n_classes > 0 and has_unit_weights(data.sample_weight, data.sample_idx,
                                                           start, end)
    for t in range(features.shape[0]):
        f = features[t]
        n_occupied = compact_feature_histogram(data, f, start, end, bins.missing_bin, scratch,
                                               touched, compact, occupied, unit_weights)
        if bins.is_categorical[f]:
            categorical_scan(compact, n_occupied, n_occupied, node, block, results, f, scan)
            _categories_of_rows(results[f]["left_categories"], touched, n_occupied)
            continue
        scan(compact, n_occupied, n_occupied, node, block, results, f)
        split = results[f]
        b = split["bin_threshold"]
        if b == NO_SPLIT:
            pass
        elif b == n_occupied - 1:  # non-missing left, missing right
            split["bin_threshold"] = bins.n_bins_non_missing[f] - 1
        else:
            split["bin_threshold"] = touched[b]
            split["next_bin"] = touched[b + 1]


@njit(cache=True, parallel=True)
def scan_small_node(data, bins, features, start, end, node, workspace, results, scan,
                    n_chunks, categorical_scan):
    """``scan_small_node_features`` over the node's ``features``, cut into ``n_chunks`` chunks
    run on separate threads (1: on this thread). Chunk ``c`` uses slice ``c`` of the workspace;
    results are per feature, so they do not depend on ``n_chunks``.

    The growth loop calls it through ``pointers.small_node_scan_pointer``.
    """
    if n_chunks <= 1:
        scan_small_node_features(data, bins, features, start, end, node, workspace,
                                 np.int64(0), results, scan, categorical_scan)
        return
    # A parallel loop cannot take records holding arrays: it gets their fields and builds the
    # records again inside.
    X_binned, sample_idx, y_code, sample_weight, sample_stats, group_code, n_classes = data
    n_bins, missing_bin, n_bins_non_missing, is_categorical = bins
    (_, impurity, rule, min_samples_leaf, min_weight_leaf, weighted_parent_impurity,
     total_weight, totals, monotonicity, bin_order) = node
    h, h_params = impurity
    (code, parameters, group_q, n_groups, divides_by_cost, skip_same_class_runs,
     threshold_draw) = rule
    # a nested record cannot enter the parallel region: its fields do, and it is rebuilt there
    draw_seed, draw_values = threshold_draw
    direction, lower, upper = monotonicity
    scratch, touched, compact, work, occupied = workspace
    n = features.shape[0]
    for c in prange(n_chunks):
        first = c * n // n_chunks
        last = (c + 1) * n // n_chunks
        chunk_node = NodeScan(
            n_classes, Impurity(h, h_params),
            SplitRule(code, parameters, group_q, n_groups, divides_by_cost,
                      skip_same_class_runs, ThresholdDraw(draw_seed, draw_values)),
            min_samples_leaf, min_weight_leaf, weighted_parent_impurity, total_weight, totals,
            Monotonicity(direction, lower, upper), bin_order)
        scan_small_node_features(
            TrainingData(X_binned, sample_idx, y_code, sample_weight, sample_stats, group_code,
                         n_classes),
            BinLayout(n_bins, missing_bin, n_bins_non_missing, is_categorical),
            features[first:last], start,
            end, chunk_node, SmallNodeWorkspace(scratch, touched, compact, work, occupied),
            np.int64(c), results, scan, categorical_scan)


@pointer_kernel(reference_counted=False)
def scan_small_node_serial(data, bins, features, start, end, node, workspace, results, scan,
                           n_chunks, categorical_scan):
    """``scan_small_node`` on the calling thread, whatever ``n_chunks`` says (same results:
    they are per feature).

    The growth loop gets it instead of ``scan_small_node`` when no small node can be wide
    enough to be scanned on several threads (``pointers.small_node_scan_pointer``): the
    parallel region is then never entered, and a first fit does not pay for compiling it.
    """
    scan_small_node_features(data, bins, features, start, end, node, workspace, np.int64(0),
                             results, scan, categorical_scan)


@njit(cache=True, nogil=True)
def is_constant_in_node(column, sample_idx, start, end):
    """True when all samples of the node share one bin of this column."""
    first = column[sample_idx[start]]
    for position in range(start + 1, end):
        if column[sample_idx[position]] != first:
            return False
    return True


@internal_kernel(reference_counted=False)
def scan_two_rows(hist_f, n_bins_non_missing, node, work, results, f):
    """``scan_feature(hist_f, n_bins_non_missing, n_bins_non_missing, node, work, results, f)``
    on the histograms that score a drawn split (``random_thresholds``), without the scan's
    walk over bins: two occupied rows and an empty missing row 2 (the drawn cut, missing
    values folded into its sides) or one occupied row and an occupied missing row 1 (the split
    "non-missing left, missing right"). On these the scan evaluates one candidate; this
    evaluates it with the same arithmetic in the same order, so it writes the same record, bit
    for bit (``tests/test_splitting.py``). Any other histogram, and the rules whose numerator
    is not the gain (``split_rules.rule_numerator``, whose code would double this kernel's
    compilation), go to ``scan_feature``.

    The growth loop of a fit of extremely randomized trees scores one such histogram per
    (node, feature): the generic scan's set-up and bin walk were 7-16 % of the fit.
    ``scan_two_rows_inlined`` is its body, which the small nodes' drawn splits inline: the
    call passed some ninety words (the records' arrays field by field), 12 % of their scan.
    """
    scan_two_rows_inlined(hist_f, n_bins_non_missing, node, work, results, f)


@njit(cache=True, nogil=True, inline="always")
def scan_two_rows_inlined(hist_f, n_bins_non_missing, node, work, results, f):
    """``scan_two_rows``, inlined into its caller (Numba IR): for the per-(node, feature) call
    of a small node's drawn split, where passing the records cost more than scoring."""
    n_classes = node.n_classes
    n_stats = hist_f.shape[1]
    missing_bin = n_bins_non_missing
    n_missing = bin_count(hist_f, missing_bin, n_classes)
    if n_bins_non_missing == 2:
        one_candidate = (bin_count(hist_f, 0, n_classes) > 0.0
                         and bin_count(hist_f, 1, n_classes) > 0.0 and not n_missing > 0.0)
    else:
        one_candidate = (n_bins_non_missing == 1 and n_missing > 0.0
                         and bin_count(hist_f, 0, n_classes) > 0.0)
    if not one_candidate or not numerator_is_gain(node.rule.code):
        scan_feature(hist_f, n_bins_non_missing, missing_bin, node, work, results, f)
        return
    totals = node.totals
    candidate_left = work[4, :n_stats]
    candidate_right = work[5, :n_stats]
    proportions = work[6, :max(n_classes, 1)]
    # the scan's running sums: left = 0 + row 0, right = (totals - missing) - left
    for s in range(n_stats):
        missing_s = hist_f[missing_bin, s]
        non_missing_s = totals[s] - missing_s
        if n_bins_non_missing == 2:
            left_s = 0.0 + hist_f[0, s]
            candidate_left[s] = left_s
            candidate_right[s] = (non_missing_s - left_s) + missing_s
        else:
            candidate_left[s] = non_missing_s
            candidate_right[s] = missing_s
    h = node.impurity.h
    h_params = node.impurity.h_params
    split = results[f]
    split["score"] = -np.inf
    split["gain"] = -np.inf
    split["weight_left"] = 0.0
    split["bin_threshold"] = NO_SPLIT
    split["next_bin"] = NO_SPLIT
    split["missing_go_left"] = False
    split["impurity_failed"] = False
    monotonicity = node.monotonicity
    direction = (monotonicity.direction[f] if monotonicity.direction.shape[0] > 0
                 else np.int64(0))
    (admitted, count_left, count_right, weight_left, impurity_left, weight_right,
     impurity_right) = _admissible_children(candidate_left, candidate_right, node, direction,
                                            proportions, h, h_params)
    if not admitted:
        return
    gain = (node.weighted_parent_impurity - weight_left * impurity_left
            - weight_right * impurity_right) / node.total_weight
    split["impurity_failed"] = not gain < np.inf
    if gain > -np.inf:  # beats(gain, -inf, scale): the scan's first candidate
        split["score"] = gain
        split["gain"] = gain
        split["weight_left"] = weight_left
        split["bin_threshold"] = 0
        # with missing values (one row) the candidate sends them right; without, the
        # heavier child takes them at prediction
        split["missing_go_left"] = n_bins_non_missing == 2 and weight_left >= weight_right
