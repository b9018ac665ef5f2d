"""Compiled kernels of the C4.5 / J48 grower (``treesmith.c45``).

C4.5 works on exact attribute values, not bins: a numeric attribute is scanned in sorted order
and every gap between two values more than 1e-5 apart is a candidate cut. The arithmetic
follows Weka's J48 (``EntropyBasedSplitCrit``, ``InfoGainSplitCrit``, ``GainRatioSplitCrit``)
step by step, in weighted object counts and with its tolerance of 1e-6 on comparisons, so that
near-ties are broken the way J48 breaks them (docs/methods.md §11):

* ``ln_term(x) = x ln x`` (0 below 1e-6);
* entropy before the split ``E0 = (lnf(N_known) - sum_k lnf(n_k)) / ln 2``;
* after ``E1 = -(sum_b [sum_k lnf(n_bk) - lnf(n_b)]) / ln 2``;
* information gain ``(E0 - E1) / N`` where N is the node's total weight, objects with a missing
  value included (Quinlan's factor F = known / total times the gain per known object);
* split information ``(lnf(N) - sum_b lnf(n_b) - lnf(N - N_known)) / (N ln 2)``, the missing
  objects forming one more branch; gain ratio = gain / split information.

Each kernel has a plain-Python twin in ``treesmith.c45._reference`` that the tests compare
against.

Node data layout (``# IN`` unless marked): ``rows`` global row of each object of the node,
``weights`` its (possibly fractional) weight in this node, ``order[a]`` the node-local positions
sorted by numeric attribute ``a`` with the missing values last, ``n_known[a]`` how many have a
known value.
"""

import numpy as np
from numba import njit

#: Weka's ``Utils.SMALL``: comparisons of gains, weights and thresholds use this tolerance.
SMALL = 1e-6
#: Two values closer than this are not separated by a cut (J48's ``C45Split``).
MIN_CUT_GAP = 1e-5
LOG2 = np.log(2.0)


@njit(cache=True, inline="always")
def _branch_of(kind, threshold, value):
    """Branch a known ``value`` takes at a node: numeric (kind 0; J48's <= with its 1e-6
    tolerance), binary nominal value test (kind 2: the value itself goes left), else multiway
    (one branch per nominal value)."""
    if kind == 0:
        return 0 if (value - threshold < SMALL or value <= threshold) else 1
    if kind == 2:
        return 0 if value == threshold else 1
    return int(value)


@njit(cache=True, nogil=True)
def ln_term(x):
    """x ln x, zero for x < 1e-6 (Weka's ``lnFunc``)."""
    if x < SMALL:
        return 0.0
    return x * np.log(x)


@njit(cache=True, nogil=True)
def ln_term_of(x, xlogx):
    """``ln_term(x)``, looked up in ``xlogx[c] = c ln c`` when the weights are whole numbers
    (unit weights, no missing values: every count is an integer) — the same numbers, no log."""
    if xlogx.shape[0] > 0:
        return xlogx[int(x + 0.5)]
    return ln_term(x)


def xlogx_table(n: int) -> np.ndarray:
    """``c ln c`` for c = 0 … n, computed as :func:`ln_term` computes it."""
    counts = np.arange(n + 1, dtype=np.float64)
    table = np.zeros(n + 1)
    table[1:] = counts[1:] * np.log(counts[1:])
    return table


@njit(cache=True, nogil=True)
def entropy_before(class_weight):
    """Weighted entropy of the known objects in bits times their weight (Weka's ``oldEnt``)."""
    total = 0.0
    value = 0.0
    for k in range(class_weight.shape[0]):
        value += ln_term(class_weight[k])
        total += class_weight[k]
    return (ln_term(total) - value) / LOG2


@njit(cache=True, nogil=True)
def entropy_after(bag_class_weight, bag_weight):
    """Weighted entropy after the split (Weka's ``newEnt``), ``bag_class_weight[b, k]``."""
    value = 0.0
    for b in range(bag_class_weight.shape[0]):
        for k in range(bag_class_weight.shape[1]):
            value += ln_term(bag_class_weight[b, k])
        value -= ln_term(bag_weight[b])
    return -(value / LOG2)


@njit(cache=True, nogil=True)
def information_gain(entropy_known, bag_class_weight, bag_weight, known_weight, total_weight):
    """Gain per object of the node, missing values charged (Weka's ``InfoGainSplitCrit``)."""
    unknown_rate = (total_weight - known_weight) / total_weight
    numerator = (1.0 - unknown_rate) * (entropy_known - entropy_after(bag_class_weight,
                                                                      bag_weight))
    if abs(numerator) < SMALL:
        return 0.0
    return numerator / known_weight


@njit(cache=True, nogil=True)
def gain_ratio(gain, bag_weight, known_weight, total_weight):
    """Gain / split information, the missing objects as one more branch (Weka's
    ``GainRatioSplitCrit``); 0 when the split information vanishes."""
    split_info = 0.0
    if known_weight > SMALL:
        for b in range(bag_weight.shape[0]):
            split_info -= ln_term(bag_weight[b])
        split_info -= ln_term(total_weight - known_weight)
        split_info += ln_term(total_weight)
    split_info /= LOG2
    if abs(split_info) < SMALL:
        return 0.0
    return gain / (split_info / total_weight)


@njit(cache=True, nogil=True)
def best_numeric_cut(sorted_values, sorted_y, sorted_w, n_known, n_classes, min_objects,
                     total_weight, mdl_correction, bag_class_weight, xlogx):
    """C4.5's test ``x <= cut`` on one numeric attribute of one node.

    Returns ``(gain, ratio, n_left, n_cuts)``: the MDL-corrected gain
    ``max gain - log2(n_cuts) / N`` (C4.5 release 8), its gain ratio, the number of sorted
    known objects that go left, and the number of admissible cuts; ``n_left = -1`` when the
    attribute offers no test (too few known objects, no admissible cut, corrected gain <= 0).
    A cut is admissible when both sides weigh at least
    ``clamp(0.1 * N_known / n_classes, min_objects, 25)``. ``sorted_values``, ``sorted_y``,
    ``sorted_w``: the node's objects in increasing order of the attribute, the ``n_known``
    known ones first; ``bag_class_weight`` a (2, n_classes) scratch.
    """
    bag_class_weight[:, :] = 0.0
    bag_weight = np.zeros(2)
    known_weight = 0.0
    for i in range(n_known):
        bag_class_weight[1, sorted_y[i]] += sorted_w[i]
        bag_weight[1] += sorted_w[i]
        known_weight += sorted_w[i]
    min_split = 0.1 * known_weight / n_classes
    if min_split - min_objects < SMALL:
        min_split = min_objects
    elif min_split - 25.0 > SMALL:
        min_split = 25.0
    if 2.0 * min_split - n_known > SMALL:
        return 0.0, 0.0, -1, 0
    entropy_known = entropy_before(bag_class_weight[1])
    unknown_rate = (total_weight - known_weight) / total_weight
    best_gain = 0.0
    best_left = -1
    n_cuts = 0
    last = 0
    for nxt in range(1, n_known):
        if sorted_values[nxt - 1] + MIN_CUT_GAP < sorted_values[nxt]:
            for i in range(last, nxt):
                w = sorted_w[i]
                k = sorted_y[i]
                bag_class_weight[1, k] -= w
                bag_weight[1] -= w
                bag_class_weight[0, k] += w
                bag_weight[0] += w
            if min_split - bag_weight[0] < SMALL and min_split - bag_weight[1] < SMALL:
                # information_gain(), with x ln x looked up when the counts are whole
                after = 0.0
                for b in range(2):
                    for k in range(n_classes):
                        after += ln_term_of(bag_class_weight[b, k], xlogx)
                    after -= ln_term_of(bag_weight[b], xlogx)
                numerator = (1.0 - unknown_rate) * (entropy_known + after / LOG2)
                gain = 0.0 if abs(numerator) < SMALL else numerator / known_weight
                if gain - best_gain > SMALL:
                    best_gain = gain
                    best_left = nxt
                n_cuts += 1
            last = nxt
    if n_cuts == 0:
        return 0.0, 0.0, -1, 0
    if mdl_correction:
        best_gain -= np.log2(n_cuts) / total_weight
    if best_gain - 0.0 < SMALL:  # Weka's smOrEq(gain, 0)
        return best_gain, 0.0, -1, n_cuts
    # the distribution of the chosen cut, added up afresh as J48 does
    bag_class_weight[:, :] = 0.0
    bag_weight[:] = 0.0
    for i in range(n_known):
        side = 0 if i < best_left else 1
        bag_class_weight[side, sorted_y[i]] += sorted_w[i]
        bag_weight[side] += sorted_w[i]
    ratio = gain_ratio(best_gain, bag_weight, known_weight, total_weight)
    return best_gain, ratio, best_left, n_cuts


@njit(cache=True, nogil=True)
def select_attribute(valid, gain, ratio, counted):
    """C4.5's choice among the attributes' tests (J48's ``C45ModelSelection``): among the
    tests whose gain is at least the average gain of the ``counted`` ones less 1e-3, the
    first of highest gain ratio (to 1e-6). -1 when there is none or its ratio is 0."""
    total = 0.0
    n_counted = 0
    for a in range(valid.shape[0]):
        if valid[a] and counted[a]:
            total += gain[a]
            n_counted += 1
    if n_counted == 0:
        return -1
    average = total / n_counted
    best = -1
    best_ratio = 0.0
    for a in range(valid.shape[0]):
        if valid[a] and gain[a] >= average - 1e-3 and ratio[a] - best_ratio > SMALL:
            best = a
            best_ratio = ratio[a]
    if best < 0 or abs(best_ratio) < SMALL:
        return -1
    return best


@njit(cache=True, nogil=True)
def nominal_distribution(values, y_code, weights, n_values, n_classes):
    """Per-value class weights of the known objects (``values`` are category codes)."""
    out = np.zeros((n_values, n_classes))
    for p in range(values.shape[0]):
        v = values[p]
        if not np.isnan(v):
            out[int(v), y_code[p]] += weights[p]
    return out


@njit(cache=True, nogil=True)
def count_heavy_bags(bag_weight, min_objects):
    """How many branches weigh at least ``min_objects`` (Weka's ``Distribution.check``)."""
    count = 0
    for b in range(bag_weight.shape[0]):
        if min_objects - bag_weight[b] < SMALL:
            count += 1
    return count


@njit(cache=True, nogil=True)
def multiway_nominal_split(distribution, min_objects, total_weight):
    """C4.5's one-branch-per-value test: ``(gain, ratio, valid)``; valid when at least two
    branches weigh ``min_objects`` or more."""
    bag_weight = distribution.sum(axis=1)
    if count_heavy_bags(bag_weight, min_objects) < 2:
        return 0.0, 0.0, False
    known_weight = bag_weight.sum()
    entropy_known = entropy_before(distribution.sum(axis=0))
    gain = information_gain(entropy_known, distribution, bag_weight, known_weight,
                            total_weight)
    return gain, gain_ratio(gain, bag_weight, known_weight, total_weight), True


@njit(cache=True, nogil=True)
def binary_nominal_split(distribution, min_objects, total_weight):
    """J48 ``-B``: the test ``x == v`` with the highest gain ratio over the values ``v``.

    Returns ``(gain, ratio, value)``, ``value = -1`` when no value qualifies. As in Weka's
    ``BinC45Split`` the first value is taken whenever it qualifies and a later one must beat
    the best ratio by more than 1e-6.
    """
    n_values, n_classes = distribution.shape
    bag_weight_all = distribution.sum(axis=1)
    known_weight = bag_weight_all.sum()
    entropy_known = entropy_before(distribution.sum(axis=0))
    pair = np.zeros((2, n_classes))
    pair_weight = np.zeros(2)
    best_gain, best_ratio, best_value = 0.0, 0.0, -1
    for v in range(n_values):
        if min_objects - bag_weight_all[v] >= SMALL:
            continue
        for k in range(n_classes):
            pair[0, k] = distribution[v, k]
            pair[1, k] = 0.0
            for u in range(n_values):
                if u != v:
                    pair[1, k] += distribution[u, k]
        pair_weight[0] = bag_weight_all[v]
        pair_weight[1] = 0.0
        for k in range(n_classes):
            pair_weight[1] += pair[1, k]
        if count_heavy_bags(pair_weight, min_objects) < 2:
            continue
        gain = information_gain(entropy_known, pair, pair_weight, known_weight, total_weight)
        ratio = gain_ratio(gain, pair_weight, known_weight, total_weight)
        if v == 0 or ratio - best_ratio > SMALL:
            best_gain, best_ratio, best_value = gain, ratio, v
    return best_gain, best_ratio, best_value


@njit(cache=True, nogil=True)
def partition_node(subset, branch_fraction, rows, weights, order, sorted_values, sorted_y,
                   n_known, n_branches):
    """Objects of each branch, an object with a missing test value going to every branch
    with weight ``w * branch_fraction[b]`` (C4.5's fractional objects; J48 skips fractions
    <= 1e-6).

    ``subset[p]`` is the branch of node-local object p (-1 when its value is missing).
    Returns ``(offsets, child_rows, child_weights, child_order, child_values, child_y,
    child_n_known)``: branch b holds objects ``offsets[b]:offsets[b + 1]`` of ``child_rows``
    and ``child_weights``; its sorted columns (order, values, classes; positions local to the
    branch) are the block ``n_numeric * offsets[b] : n_numeric * offsets[b + 1]`` of the flat
    ``child_*`` outputs, a C-ordered (n_numeric, count) matrix. A stable filter keeps them
    sorted.
    """
    m = rows.shape[0]
    n_numeric = order.shape[0]
    counts = np.zeros(n_branches, dtype=np.int64)
    single = np.empty(m, dtype=np.int64)  # position in its branch (objects with a known value)
    n_missing = 0
    for p in range(m):
        b = subset[p]
        if b >= 0:
            single[p] = counts[b]
            counts[b] += 1
        else:
            n_missing += 1
    # objects with a missing value: a position in every branch that receives them
    spread = np.full((n_branches, m if n_missing > 0 else 0), -1, dtype=np.int64)
    if n_missing > 0:
        for p in range(m):
            if subset[p] < 0:
                for c in range(n_branches):
                    if branch_fraction[c] > SMALL:
                        spread[c, p] = counts[c]
                        counts[c] += 1
    offsets = np.zeros(n_branches + 1, dtype=np.int64)
    for c in range(n_branches):
        offsets[c + 1] = offsets[c] + counts[c]
    total = offsets[n_branches]
    child_rows = np.empty(total, dtype=np.int64)
    child_weights = np.empty(total)
    for p in range(m):
        b = subset[p]
        if b >= 0:
            child_rows[offsets[b] + single[p]] = rows[p]
            child_weights[offsets[b] + single[p]] = weights[p]
        else:
            for c in range(n_branches):
                q = spread[c, p]
                if q >= 0:
                    child_rows[offsets[c] + q] = rows[p]
                    child_weights[offsets[c] + q] = weights[p] * branch_fraction[c]
    child_order = np.empty(n_numeric * total, dtype=np.int64)
    child_values = np.empty(n_numeric * total)
    child_y = np.empty(n_numeric * total, dtype=sorted_y.dtype)
    child_n_known = np.zeros((n_branches, n_numeric), dtype=np.int64)
    fill = np.zeros(n_branches, dtype=np.int64)
    base = np.empty(n_branches, dtype=np.int64)
    # one read per object: branch and position packed together (-1: missing, spread)
    packed = np.empty(m, dtype=np.int64)
    for p in range(m):
        packed[p] = single[p] * n_branches + subset[p] if subset[p] >= 0 else -1
    for a in range(n_numeric):
        fill[:] = 0
        for c in range(n_branches):
            base[c] = n_numeric * offsets[c] + a * counts[c]
        known = n_known[a]
        for i in range(m):
            code = packed[order[a, i]]
            if code >= 0:
                b = code % n_branches
                target = base[b] + fill[b]
                child_order[target] = code // n_branches
                child_values[target] = sorted_values[a, i]
                child_y[target] = sorted_y[a, i]
                fill[b] += 1
                if i < known:
                    child_n_known[b, a] += 1
            else:
                p = order[a, i]
                for c in range(n_branches):
                    q = spread[c, p]
                    if q >= 0:
                        target = base[c] + fill[c]
                        child_order[target] = q
                        child_values[target] = sorted_values[a, i]
                        child_y[target] = sorted_y[a, i]
                        fill[c] += 1
                        if i < known:
                            child_n_known[c, a] += 1
    return offsets, child_rows, child_weights, child_order, child_values, child_y, child_n_known


@njit(cache=True, nogil=True)
def column_of(X, rows, column):
    """``X[rows, column]`` (the node's values of one attribute)."""
    out = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        out[i] = X[rows[i], column]
    return out


@njit(cache=True, nogil=True)
def fill_sorted_column(values, y_local, order, out_values, out_classes):
    """``out_values = values[order]``, ``out_classes = y_local[order]``."""
    for i in range(order.shape[0]):
        out_values[i] = values[order[i]]
        out_classes[i] = y_local[order[i]]


@njit(cache=True, nogil=True)
def running_split_point(column, middle):
    """J48's ``setSplitPoint`` loop over all training values in data order: the running
    maximum of the values <= ``middle`` (to 1e-6), updated only by a value larger by more
    than 1e-6."""
    best = -np.finfo(np.float64).max
    for i in range(column.shape[0]):
        value = column[i]
        if np.isnan(value):
            continue
        if value - best > SMALL and (value - middle < SMALL or value <= middle):
            best = value
    return best


@njit(cache=True, nogil=True)
def evaluate_numeric_attributes(sorted_values, sorted_y, order, n_known, weights, unit_weights,
                                n_classes, min_objects, total_weight, mdl_correction, xlogx):
    """:func:`best_numeric_cut` for every numeric attribute of a node in one call.

    ``sorted_values[a]``, ``sorted_y[a]``: the node's values and classes in increasing order
    of attribute a (``order[a]`` their node-local positions, ``weights`` node-local; with
    ``unit_weights`` every weight is 1 and none is read). Returns ``(gain, ratio, n_left,
    middle)`` per attribute: ``middle`` is the midpoint of the cut (the lower value when no
    double lies strictly between), NaN without a test.
    """
    n_columns = sorted_values.shape[0]
    m = sorted_values.shape[1]
    gain = np.zeros(n_columns)
    ratio = np.zeros(n_columns)
    n_left = np.full(n_columns, -1, dtype=np.int64)
    middle = np.full(n_columns, np.nan)
    sorted_w = np.ones(m)
    scratch = np.empty((2, n_classes))
    for a in range(n_columns):
        known = n_known[a]
        if not unit_weights:
            for i in range(known):
                sorted_w[i] = weights[order[a, i]]
        values = sorted_values[a]
        g, r, left, _ = best_numeric_cut(values, sorted_y[a], sorted_w, known, n_classes,
                                         min_objects, total_weight, mdl_correction, scratch,
                                         xlogx)
        gain[a], ratio[a], n_left[a] = g, r, left
        if left >= 0:
            low = values[left - 1]
            high = values[left]
            mid = (low + high) / 2.0
            middle[a] = low if mid == high else mid
    return gain, ratio, n_left, middle


@njit(cache=True, nogil=True)
def training_errors_of(class_weight):
    """Per row (node): weight outside the first class that beats the running maximum by more
    than 1e-6 (Weka's ``numIncorrect``)."""
    out = np.empty(class_weight.shape[0])
    for i in range(class_weight.shape[0]):
        total = 0.0
        best = 0.0
        best_k = 0
        for k in range(class_weight.shape[1]):
            total += class_weight[i, k]
            if class_weight[i, k] - best > SMALL:
                best = class_weight[i, k]
                best_k = k
        out[i] = total - class_weight[i, best_k]
    return out


@njit(cache=True, nogil=True)
def added_errors(n, errors, confidence_factor, z):
    """C4.5's pessimistic extra errors of a leaf with ``n`` objects, ``errors`` misclassified
    (Weka's ``Stats.addErrs``; formula in ``treesmith.c45._prune.ErrorBound``)."""
    if errors < 1.0:
        base = n * (1.0 - confidence_factor ** (1.0 / n))
        if errors == 0.0:
            return base
        return base + errors * (added_errors(n, 1.0, confidence_factor, z) - base)
    if errors + 0.5 >= n:
        return max(n - errors, 0.0)
    f = (errors + 0.5) / n
    r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) \
        / (1.0 + z * z / n)
    return r * n - errors


@njit(cache=True, nogil=True)
def estimated_errors(class_weight, confidence_factor, z):
    """E + added_errors(N, E) for a leaf with these class weights; E is the weight outside
    the first class that beats the running maximum by more than 1e-6 (Weka's ``maxClass``)."""
    total = 0.0
    best = 0.0
    best_k = 0
    for k in range(class_weight.shape[0]):
        total += class_weight[k]
        if class_weight[k] - best > SMALL:
            best = class_weight[k]
            best_k = k
    if abs(total) < SMALL:
        return 0.0
    errors = total - class_weight[best_k]
    return errors + added_errors(total, errors, confidence_factor, z)


@njit(cache=True, nogil=True)
def _branch_charge(node, routed, class_weight, add_own, attribute, child_start, n_children,
                   children, confidence_factor, z):
    """Σ over the leaves below ``node`` of the charge of (own objects if ``add_own``) + routed
    objects, added up child by child as J48's recursion adds them."""
    if attribute[node] < 0:
        weight = routed[node].copy()
        if add_own:
            weight += class_weight[node]
        return estimated_errors(weight, confidence_factor, z)
    total = 0.0
    for b in range(n_children[node]):
        total += _branch_charge(children[child_start[node] + b], routed, class_weight, add_own,
                                attribute, child_start, n_children, children,
                                confidence_factor, z)
    return total


@njit(cache=True, nogil=True)
def branch_charge(X, rows, weights, y_code, start, attribute, kind, threshold, child_start,
                  n_children, children, class_weight, add_own, confidence_factor, z, routed):
    """Charge of the subtree at node ``start`` if the objects (rows, weights) reached it
    (J48's ``getEstimatedErrorsForBranch``), for objects with no missing tested value.

    The tree is the pruner's tree-wide arrays (``attribute`` -1 at a leaf). With ``add_own``
    the leaves keep their own objects (``class_weight``) and ``rows`` are only the others.
    ``routed`` is a zeroed (n_nodes, n_classes) scratch, left zeroed. Returns
    ``(charge, ok)``; ``ok`` is False when an object meets a missing tested value (the
    caller then routes fractional objects itself).
    """
    ok = True
    for i in range(rows.shape[0]):
        row = rows[i]
        node = start
        while attribute[node] >= 0:
            value = X[row, attribute[node]]
            if np.isnan(value):
                ok = False
                break
            node = children[child_start[node] + _branch_of(kind[node], threshold[node], value)]
        if not ok:
            break
        routed[node, y_code[row]] += weights[i]
    charge = 0.0
    if ok:
        charge = _branch_charge(start, routed, class_weight, add_own, attribute, child_start,
                                n_children, children, confidence_factor, z)
    for i in range(rows.shape[0]):  # leave the scratch zeroed
        node = start
        row = rows[i]
        while attribute[node] >= 0:
            value = X[row, attribute[node]]
            if np.isnan(value):
                break
            node = children[child_start[node] + _branch_of(kind[node], threshold[node], value)]
        if attribute[node] < 0:
            routed[node, :] = 0.0
    return charge, ok
