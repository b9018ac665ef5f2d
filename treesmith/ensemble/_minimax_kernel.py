"""Compiled growth of a minimax tree (Nan, Wang & Saligrama 2015, Algorithm 1, GreedyTree).

At a node S with F(S) > 0 every examined feature t gets the risk
    R(t) = min over candidate stumps g of  max over outcomes i of  c(t) / (F(S) − F(S_g^i)),
i.e. c(t) / min_i ΔF_i with ΔF_i = F(S) − F(S_g^i); a stump that leaves some child with
F(S_g^i) = F(S) has R = ∞. The feature with the smallest R is chosen; free features (c = 0,
R = 0) are ranked by min_i ΔF; remaining ties go to the lowest feature index, then the lowest
threshold. F(S) = 0 makes a leaf. See docs/methods.md §4, §11.

Candidate stumps per numeric feature (paper §3): the thresholds at the values of 80 / 40 / 20
rows of the node drawn at random when it holds more than 2000 / 500 / fewer rows, plus
"non-missing left, missing right" when the node has missing values
(``treesmith._kernels.candidates``, the same draws as the engine's ``Minimax`` rule), or every
occupied bin. Missing values (the last bin) go to the side that gives the smaller risk; with none
in the node, to the child with more weight.

A categorical feature (its bins are category codes, ``treesmith.categorical``) is tested by a set
of categories sent left (``scan_category_sets``), never sampled: with m categories present in
the node, every partition when m <= ``EXHAUSTIVE_MAX_CATEGORIES`` (the minimax objective is not
solved by the prefixes of any ordering, even for two classes: categories with class counts
(0, 1), (1, 0), (1, 1) have F_0 = 4 and their best partition {(0, 1), (1, 0)} | {(1, 1)} leaves
F = 1 on both sides, while the class-1 order's prefixes leave 2), otherwise the prefixes of the
single tree's order (class-1 proportion for two classes, principal-component score for more;
docs/methods.md §11), a heuristic. The engine's ``Minimax(candidates="all")`` tries the same
sets and grows the same trees.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from .._kernels.candidates import candidate_state, draw_candidate_bins, n_sampled_candidates
from .._kernels.categorical import (
    _SMALLEST_WEIGHT,
    BITSET_WORDS,
    CATEGORICAL_SPLIT,
    EXHAUSTIVE_MAX_CATEGORIES,
    _clear_bits,
    _principal_component_keys,
    _set_bit,
    _sort_by_key,
    has_category,
    principal_component_scratch,
)
from .._kernels.random import initial_state, next_below
from .._kernels.splitting import sort_prefix
from .._kernels.stats import count_column, weight_column
from .._kernels.set_functions import set_function_kernel

LEAF = -1
UNDEFINED = -2
NO_SPLIT = -1
#: ``candidate_mode``: sample observed values as the paper does, or scan every occupied bin.
SAMPLED_CANDIDATES = 0
ALL_CANDIDATES = 1

#: The best test of a node so far, in ``is_better``'s order: its risk R, its reduction min_i
#: Delta F_i, its feature and candidate number (the tie rule: the first tried wins), and the
#: side of missing values.
BestTest = namedtuple("BestTest", ["risk", "reduction", "feature", "candidate", "missing_left"])
#: Scratch of ``scan_category_sets``, allocated once per tree (``category_set_scratch``):
#: ``bits`` the best set's bitset (the set of ``BestTest``); per class, ``left``, ``right``,
#: ``trial`` (the child that takes the missing values) and ``present`` (the present
#: categories' sum); the exhaustive path's subset sums ``left_sums[mask, k]``; the prefix
#: path's ordering: ``order`` (codes in key order), ``keys``, ``sorted_keys``, the bucket
#: sort's ``bucket_start`` and ``bucket_of``, and the principal component's
#: ``class_weights[k, j]``, ``weights``, ``inverse_weights`` and ``pc_scratch``.
CategorySetScratch = namedtuple("CategorySetScratch", [
    "bits", "left", "right", "trial", "present", "left_sums", "order", "keys", "sorted_keys",
    "bucket_start", "bucket_of", "class_weights", "weights", "inverse_weights", "pc_scratch"])


@njit(cache=True, nogil=True)
def category_set_scratch(n_classes, n_codes, principal_component):
    """``CategorySetScratch`` for categories of codes below ``n_codes`` (0: a fit without
    categorical features, which never reads it), with the principal component's arrays when
    ``principal_component`` (more than two classes)."""
    n_pc = n_codes if principal_component else 0
    return CategorySetScratch(
        np.zeros(BITSET_WORDS, dtype=np.uint64), np.zeros(n_classes), np.zeros(n_classes),
        np.zeros(n_classes), np.zeros(n_classes),
        np.zeros(((1 << (EXHAUSTIVE_MAX_CATEGORIES - 1)) if n_codes > 0 else 0, n_classes)),
        np.zeros(n_codes, dtype=np.int64), np.zeros(n_codes), np.zeros(n_codes),
        np.zeros(n_codes + 1, dtype=np.int64), np.zeros(n_codes, dtype=np.int64),
        np.zeros((n_classes, n_pc)), np.zeros(n_pc), np.zeros(n_pc),
        np.zeros(principal_component_scratch(n_classes, n_pc) if n_pc > 0 else 0))


@njit(cache=True, nogil=True)
def occupied_bins_in_order(occupied, touched, n_touched):
    """Sort ``touched[:n_touched]``, the bins marked in ``occupied``: a sort when few are
    occupied (small nodes), one pass over ``occupied`` when many are. Returns n_touched."""
    if 8 * n_touched < occupied.shape[0]:
        sort_prefix(touched, n_touched)
        return n_touched
    n_touched = 0
    for b in range(occupied.shape[0]):
        if occupied[b]:
            touched[n_touched] = b
            n_touched += 1
    return n_touched


@njit(cache=True, nogil=True)
def split_risk(set_code, set_parameter, f_node, left, right, cost):
    """(R, min ΔF) of a stump with child class counts ``left``/``right`` (R = inf when a child
    does not decrease F)."""
    delta_left = f_node - set_function_kernel(set_code, left, set_parameter)
    delta_right = f_node - set_function_kernel(set_code, right, set_parameter)
    smallest = min(delta_left, delta_right)
    if not smallest > 1e-12 * f_node:
        return np.inf, 0.0
    return cost / smallest, smallest


@njit(cache=True, nogil=True)
def is_better(risk, reduction, f, b, best_risk, best_reduction, best_f, best_b):
    """Order of candidate stumps: smaller R; among free tests (R = 0) larger min ΔF; then the
    lower feature and the lower threshold bin (docs/methods.md §4's tie rule)."""
    if risk != best_risk:
        return risk < best_risk
    if risk == 0.0 and reduction != best_reduction:
        return reduction > best_reduction
    if f != best_f:
        return f < best_f
    return b < best_b


@njit(cache=True, nogil=True)
def no_category_sets(histogram, touched, m, missing, has_missing, set_code, set_parameter,
                     f_node, cost, f, best, scratch):
    """Stand-in for ``scan_category_sets`` in the kernel's twin for fits without categorical
    features (``minimax_kernel``), which never call it: it compiles in no time."""
    return best


@njit(cache=True, nogil=True)
def category_order(histogram, touched, m, n_classes, scratch):
    """``scratch.order[:m]``: the present categories ``touched[:m]`` (codes, increasing) sorted
    by key, ties by code, as the single tree orders them (``_kernels.categorical``): the
    class-1 proportion for two classes, the principal-component score of the class
    proportions for more (``_principal_component_keys``, the same inputs and so the same
    bits), by the single tree's bucket sort (``_sort_by_key``)."""
    keys = scratch.keys
    weights = scratch.weights
    inverse_weights = scratch.inverse_weights
    low = np.inf
    high = -np.inf
    for j in range(m):
        b = touched[j]
        weight = 0.0
        for k in range(n_classes):
            weight += histogram[b, k]
        if n_classes == 2:
            key = histogram[b, 1] / weight if weight > 0.0 else 0.0
            keys[j] = key
            low = min(low, key)
            high = max(high, key)
        else:
            for k in range(n_classes):
                scratch.class_weights[k, j] = histogram[b, k]
            live = weight > _SMALLEST_WEIGHT
            weights[j] = weight if live else 0.0
            inverse_weights[j] = 1.0 / weight if live else 0.0
    if n_classes > 2:
        low, high = _principal_component_keys(scratch.class_weights, weights, inverse_weights,
                                              np.int64(m), keys, scratch.pc_scratch)
    _sort_by_key(touched, keys, np.int64(m), low, high, scratch.sorted_keys, scratch.order,
                 scratch.bucket_start, scratch.bucket_of)


@njit(cache=True, nogil=True)
def _set_bits(bits, codes, n):
    """``bits``: the 256-bit set of ``codes[:n]``."""
    _clear_bits(bits)
    for j in range(n):
        _set_bit(bits, codes[j])


@njit(cache=True, nogil=True)
def scan_category_sets(histogram, touched, m, missing, has_missing, set_code, set_parameter,
                       f_node, cost, f, best, scratch):
    """The minimax-best test "category in S" of one categorical feature against the best so far.

    # IN  histogram[code, k]: class weights per category, ``touched[:m]`` the present codes in
    #     increasing order, ``missing`` the missing bin's class weights
    # IN  best: the best test so far (``BestTest``), ``scratch.bits`` its set if categorical
    # OUT the best test after this feature's (``BestTest``), ``scratch.bits`` rewritten when
    #     one of this feature's wins; ``b`` numbers the candidates in the order tried (the
    #     tie rule: the first tried wins); ``scratch``: a ``CategorySetScratch

    m <= EXHAUSTIVE_MAX_CATEGORIES: every partition S | rest with the last present category
    in the rest (S = mask over the others, mask = 1 .. 2^(m-1) - 1, candidate b = mask), each
    with missing values right then left; then, with missing values, "every category | missing"
    (b = 2^(m-1)). Subset sums ``left_sums[mask]`` take one row addition each. Larger m: the
    prefixes of ``category_order`` (b = prefix length - 1), then "every category | missing"."""
    left, right, trial, present = scratch.left, scratch.right, scratch.trial, scratch.present
    left_sums, order, best_bits = scratch.left_sums, scratch.order, scratch.bits
    n_classes = left.shape[0]
    if m == 0:
        return best
    best_risk, best_reduction, best_f, best_b, best_missing_left = best
    exhaustive = m <= EXHAUSTIVE_MAX_CATEGORIES
    # candidates b = first .. n_candidates - 1, then b = n_candidates: "every category | missing"
    first = 1 if exhaustive else 0
    n_candidates = (np.int64(1) << (m - 1)) if exhaustive else m - 1
    if exhaustive:
        for k in range(n_classes):
            left_sums[0, k] = 0.0
        top = 0  # highest bit of mask
        for mask in range(1, n_candidates):
            if mask >> (top + 1):
                top += 1
            for k in range(n_classes):
                left_sums[mask, k] = left_sums[mask ^ (1 << top), k] + histogram[touched[top], k]
    else:
        category_order(histogram, touched, m, n_classes, scratch)
    for k in range(n_classes):  # loops: an array expression allocates
        present[k] = 0.0  # the present categories' class weights
        for j in range(m):
            present[k] += histogram[touched[j], k]
        left[k] = 0.0
    last = touched[m - 1]
    for b in range(first, n_candidates):
        for k in range(n_classes):
            if exhaustive:  # the complement's sum: no subtraction
                left[k] = left_sums[b, k]
                right[k] = left_sums[(n_candidates - 1) ^ b, k] + histogram[last, k]
            else:  # a prefix, the rest by difference (as the numeric scan)
                left[k] += histogram[order[b], k]
                right[k] = present[k] - left[k]
        for side in range(2 if has_missing else 1):
            missing_left = side == 1
            for k in range(n_classes):  # the child that takes the missing values
                trial[k] = (left[k] if missing_left else right[k]) + missing[k]
            if missing_left:
                risk, reduction = split_risk(set_code, set_parameter, f_node, trial, right, cost)
            else:
                risk, reduction = split_risk(set_code, set_parameter, f_node, left, trial, cost)
            if not is_better(risk, reduction, f, b, best_risk, best_reduction, best_f, best_b):
                continue
            best_risk, best_reduction, best_f, best_b = risk, reduction, f, b
            best_missing_left = missing_left
            if exhaustive:  # order: scratch for the set's codes
                n_left = 0
                for j in range(m - 1):
                    if (b >> j) & 1:
                        order[n_left] = touched[j]
                        n_left += 1
                _set_bits(best_bits, order, n_left)
            else:
                _set_bits(best_bits, order, b + 1)
    if has_missing:  # every present category left, missing values right
        b = n_candidates
        risk, reduction = split_risk(set_code, set_parameter, f_node, present, missing, cost)
        if is_better(risk, reduction, f, b, best_risk, best_reduction, best_f, best_b):
            best_risk, best_reduction, best_f, best_b = risk, reduction, f, b
            best_missing_left = False
            _set_bits(best_bits, touched, m)
    return BestTest(best_risk, best_reduction, best_f, best_b, best_missing_left)


@njit(cache=True, nogil=True)
def grow_minimax(X_binned, sample_idx, y_code, sample_weight, n_classes, missing_bin,
                 is_categorical, set_code, set_parameter, feature_cost, cost_group, free_reuse,
                 candidate_mode, size_limits, n_draws, max_depth, max_features, seed):
    """Grow one minimax tree depth-first on the rows ``sample_idx`` (positive weights).

    # IN  X_binned (n, m) uint8/uint16, missing values in bin ``missing_bin``;
    #     ``is_categorical`` per feature: its bins are category codes, tested by sets
    # IN  y_code int64 class codes, sample_weight float64 (class counts are weighted sums)
    # IN  set_code/set_parameter: F (``set_functions``), feature_cost/cost_group per feature;
    #     ``free_reuse``: a group already tested on the path is free (c = 0) when choosing
    # IN  max_depth < 0: unlimited; max_features: features drawn per node (m: all)
    # OUT children_left, children_right, feature, bin_threshold (``CATEGORICAL_SPLIT`` for a
    #     set of categories), next_bin, missing_go_left, impurity (F of the node), depth,
    #     stats (rows in ``_kernels.stats`` layout: class weights, class row counts), score
    #     (R of the chosen split), left_categories (uint64 (n_nodes, 4): the set sent left,
    #     0 for numeric splits and leaves), in preorder.
    """
    n_features = X_binned.shape[1]
    n_bins = missing_bin + 1
    sample_idx = sample_idx.copy()
    n_samples = sample_idx.shape[0]
    capacity = 2 * n_samples + 1
    children_left = np.full(capacity, LEAF, dtype=np.int64)
    children_right = np.full(capacity, LEAF, dtype=np.int64)
    parent = np.full(capacity, -1, dtype=np.int64)
    feature = np.full(capacity, UNDEFINED, dtype=np.int64)
    bin_threshold = np.full(capacity, NO_SPLIT, dtype=np.int64)
    next_bin = np.full(capacity, NO_SPLIT, dtype=np.int64)
    missing_go_left = np.zeros(capacity, dtype=np.bool_)
    impurity = np.zeros(capacity)
    depth = np.zeros(capacity, dtype=np.int64)
    stats = np.zeros((capacity, 2 * n_classes))
    score = np.zeros(capacity)
    has_categorical = n_features > 0 and is_categorical.any()
    left_categories = np.zeros((capacity if has_categorical else 1, BITSET_WORDS),
                               dtype=np.uint64)

    state = np.empty(1, dtype=np.uint64)
    state[0] = initial_state(seed)
    histogram = np.zeros((n_bins, n_classes))  # scratch: all zeros between features
    rows_per_bin = np.zeros(n_bins)
    occupied = np.zeros(n_bins, dtype=np.bool_)
    touched = np.empty(n_bins, dtype=np.int64)  # the occupied bins, then sorted
    present_rows = np.empty(n_bins)  # rows of the occupied non-missing bins, in order
    is_candidate = np.zeros(n_bins, dtype=np.bool_)  # per occupied non-missing bin
    total = np.zeros(n_classes)
    left = np.zeros(n_classes)
    right = np.zeros(n_classes)
    missing = np.zeros(n_classes)
    trial = np.zeros(n_classes)
    group_paid = np.zeros(cost_group.max() + 1 if n_features > 0 else 1, dtype=np.bool_)
    features = np.arange(n_features)
    goes_left = np.zeros(X_binned.shape[0], dtype=np.bool_)
    scratch = np.empty(n_samples, dtype=np.int64)
    # categorical features' scratch (``scan_category_sets``): sized for the widest, or empty
    scratch_of_sets = category_set_scratch(n_classes, n_bins if has_categorical else 0,
                                           n_classes > 2)
    best_bits = scratch_of_sets.bits

    # pending nodes: their rows, depth, parent and side; a node gets its id when popped, so
    # ids come in depth-first preorder (scikit-learn's numbering), children after parents
    pending_start = np.empty(capacity, dtype=np.int64)
    pending_end = np.empty(capacity, dtype=np.int64)
    pending_parent = np.empty(capacity, dtype=np.int64)
    pending_is_left = np.empty(capacity, dtype=np.bool_)
    top = 0
    pending_start[0], pending_end[0], pending_parent[0] = 0, n_samples, -1
    n_nodes = 0
    while top >= 0:
        start, end = pending_start[top], pending_end[top]
        up, is_left = pending_parent[top], pending_is_left[top]
        top -= 1
        node = n_nodes
        n_nodes += 1
        parent[node] = up
        if up >= 0:
            depth[node] = depth[up] + 1
            if is_left:
                children_left[up] = node
            else:
                children_right[up] = node
        total[:] = 0.0
        for p in range(start, end):
            row = sample_idx[p]
            total[y_code[row]] += sample_weight[row]
            stats[node, count_column(n_classes, y_code[row])] += 1.0
        for k in range(n_classes):
            stats[node, weight_column(n_classes, k)] = total[k]
        f_node = set_function_kernel(set_code, total, set_parameter)
        impurity[node] = f_node
        if f_node <= 0.0 or (max_depth >= 0 and depth[node] >= max_depth):
            continue
        # groups already paid on the path to this node
        group_paid[:] = False
        if free_reuse:
            ancestor = parent[node]
            while ancestor >= 0:
                group_paid[cost_group[feature[ancestor]]] = True
                ancestor = parent[ancestor]
        n_rows = end - start
        n_examined = n_features
        if max_features < n_features:  # partial Fisher-Yates: the first max_features
            n_examined = max_features
            for i in range(n_examined):
                j = i + next_below(state, n_features - i)
                features[i], features[j] = features[j], features[i]
        best_risk, best_reduction = np.inf, 0.0
        best_f, best_b, best_missing_left = -1, -1, False
        n_draw = n_sampled_candidates(n_rows, size_limits, n_draws)
        for i in range(n_examined):
            f = features[i]
            # the feature's histogram over the bins the node occupies (``touched``, sorted)
            n_touched = 0
            for p in range(start, end):
                row = sample_idx[p]
                b = X_binned[row, f]
                if not occupied[b]:
                    occupied[b] = True
                    touched[n_touched] = b
                    n_touched += 1
                histogram[b, y_code[row]] += sample_weight[row]
                rows_per_bin[b] += 1.0
            n_touched = occupied_bins_in_order(occupied, touched, n_touched)
            has_missing = occupied[missing_bin]
            n_present = n_touched - 1 if has_missing else n_touched  # missing bin is last
            cost = 0.0 if free_reuse and group_paid[cost_group[f]] else feature_cost[f]
            if is_categorical[f]:
                best_risk, best_reduction, best_f, best_b, best_missing_left = \
                    scan_category_sets(histogram, touched, n_present, histogram[missing_bin],
                                       has_missing, set_code, set_parameter, f_node, cost, f,
                                       BestTest(best_risk, best_reduction, best_f, best_b,
                                                best_missing_left), scratch_of_sets)
            else:  # thresholds at the (sampled) occupied bins
                for j in range(n_present):
                    present_rows[j] = rows_per_bin[touched[j]]
                    is_candidate[j] = candidate_mode == ALL_CANDIDATES
                if candidate_mode != ALL_CANDIDATES:
                    draw_candidate_bins(present_rows, n_present, n_rows, n_draw,
                                        candidate_state(seed, stats[node], n_classes, f),
                                        is_candidate)
                    if has_missing and n_present > 0:  # "non-missing left, missing right"
                        is_candidate[n_present - 1] = True
                missing[:] = histogram[missing_bin]
                left[:] = 0.0
                for j in range(n_present):
                    b = touched[j]
                    for k in range(n_classes):
                        left[k] += histogram[b, k]
                    if not is_candidate[j]:
                        continue
                    for k in range(n_classes):  # loops: an array expression allocates
                        right[k] = total[k] - left[k] - missing[k]
                        trial[k] = right[k] + missing[k]
                    risk, reduction = split_risk(set_code, set_parameter, f_node, left, trial, cost)
                    if is_better(risk, reduction, f, b, best_risk, best_reduction, best_f, best_b):
                        best_risk, best_reduction, best_f, best_b = risk, reduction, f, b
                        best_missing_left = False
                    if has_missing:
                        for k in range(n_classes):
                            trial[k] = left[k] + missing[k]
                        risk, reduction = split_risk(set_code, set_parameter, f_node, trial, right,
                                                     cost)
                        if is_better(risk, reduction, f, b, best_risk, best_reduction, best_f,
                                     best_b):
                            best_risk, best_reduction, best_f, best_b = risk, reduction, f, b
                            best_missing_left = True
            for j in range(n_touched):  # leave the scratch all zeros for the next feature
                b = touched[j]
                histogram[b, :] = 0.0
                rows_per_bin[b] = 0.0
                occupied[b] = False
        if best_f < 0:
            continue
        # next occupied bin above the threshold (for a midpoint threshold), and the side of
        # missing values when the node has none: the heavier child
        f, b = best_f, best_b
        on_set = is_categorical[f]
        following = NO_SPLIT
        weight_left, weight_right, has_missing = 0.0, 0.0, False
        for p in range(start, end):
            row = sample_idx[p]
            value = X_binned[row, f]
            if value == missing_bin:
                has_missing = True
                goes_left[row] = best_missing_left
            elif on_set:
                goes_left[row] = has_category(best_bits, np.int64(value))
            else:
                goes_left[row] = value <= b
                if value > b and (following == NO_SPLIT or value < following):
                    following = value
            if goes_left[row]:
                weight_left += sample_weight[row]
            else:
                weight_right += sample_weight[row]
        if not has_missing:
            best_missing_left = weight_left >= weight_right
        # stable partition: left rows first
        n_left = 0
        n_right = 0
        for p in range(start, end):
            row = sample_idx[p]
            if goes_left[row]:
                sample_idx[start + n_left] = row
                n_left += 1
            else:
                scratch[n_right] = row
                n_right += 1
        sample_idx[start + n_left:end] = scratch[:n_right]
        feature[node], bin_threshold[node], next_bin[node] = f, b, following
        if on_set:
            bin_threshold[node] = CATEGORICAL_SPLIT
            left_categories[node, :] = best_bits
        missing_go_left[node] = best_missing_left
        score[node] = best_risk
        top += 1  # right child, popped after the whole left subtree
        pending_start[top], pending_end[top] = start + n_left, end
        pending_parent[top], pending_is_left[top] = node, False
        top += 1
        pending_start[top], pending_end[top] = start, start + n_left
        pending_parent[top], pending_is_left[top] = node, True
    return (children_left[:n_nodes], children_right[:n_nodes], feature[:n_nodes],
            bin_threshold[:n_nodes], next_bin[:n_nodes], missing_go_left[:n_nodes],
            impurity[:n_nodes], depth[:n_nodes], stats[:n_nodes], score[:n_nodes],
            left_categories[:n_nodes] if has_categorical
            else np.zeros((n_nodes, BITSET_WORDS), dtype=np.uint64))


def minimax_kernel(has_categorical: bool, principal_component: bool):
    """``grow_minimax``, or its twin compiled without what the fit never calls: with no
    categorical feature, without the scan of category sets; with two classes, without the
    principal-component order (``_kernels.categorical.no_principal_component_keys`` in its
    place). The categorical code is most of the kernel's compile time (about 6 of 12 s, 4 of
    them the principal component): a fit compiles only the kernel it runs."""
    from .._kernels.categorical import no_principal_component_keys
    from .._kernels.pointers import twin

    if not has_categorical:
        return twin(grow_minimax, "numeric", scan_category_sets=no_category_sets)
    if principal_component:
        return grow_minimax
    order = twin(category_order, "two_classes",
                 _principal_component_keys=no_principal_component_keys)
    scan = twin(scan_category_sets, "two_classes", category_order=order)
    return twin(grow_minimax, "two_classes", scan_category_sets=scan)
