"""Compiled growth of a minimax tree (Nan, Wang & Saligrama 2015, Algorithm 1, GreedyTree).

At a node S with F(S) > 0 every examined feature t gets the risk
    R(t) = min over candidate stumps g of  max over outcomes i of  c(t) / (F(S) − F(S_g^i)),
i.e. c(t) / min_i ΔF_i with ΔF_i = F(S) − F(S_g^i); a stump that leaves some child with
F(S_g^i) = F(S) has R = ∞. The feature with the smallest R is chosen; free features (c = 0,
R = 0) are ranked by min_i ΔF; remaining ties go to the lowest feature index, then the lowest
threshold. F(S) = 0 makes a leaf. See docs/methods.md §4, §11.

Candidate stumps per feature (paper §3): the thresholds at the values of 80 / 40 / 20 rows of
the node drawn at random when it holds more than 2000 / 500 / fewer rows, plus "non-missing
left, missing right" when the node has missing values (``treesmith._kernels.candidates``, the
same draws as the engine's ``Minimax`` rule), or every occupied bin. Missing values (the last
bin) go to the side that gives the smaller risk; with none in the node, to the child with more
weight.
"""

import numpy as np
from numba import njit

from .._kernels.candidates import candidate_state, draw_candidate_bins, n_sampled_candidates
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
def grow_minimax(X_binned, sample_idx, y_code, sample_weight, n_classes, missing_bin,
                 set_code, set_parameter, feature_cost, cost_group, free_reuse,
                 candidate_mode, size_limits, n_draws, max_depth, max_features, seed):
    """Grow one minimax tree depth-first on the rows ``sample_idx`` (positive weights).

    # IN  X_binned (n, m) uint8/uint16, missing values in bin ``missing_bin``
    # IN  y_code int64 class codes, sample_weight float64 (class counts are weighted sums)
    # IN  set_code/set_parameter: F (``set_functions``), feature_cost/cost_group per feature;
    #     ``free_reuse``: a group already tested on the path is free (c = 0) when choosing
    # IN  max_depth < 0: unlimited; max_features: features drawn per node (m: all)
    # OUT children_left, children_right, feature, bin_threshold, next_bin, missing_go_left,
    #     impurity (F of the node), depth, stats (rows in ``_kernels.stats`` layout: class
    #     weights, class row counts), score (R of the chosen split), in preorder.
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
            cost = 0.0 if free_reuse and group_paid[cost_group[f]] else feature_cost[f]
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
        following = NO_SPLIT
        weight_left, weight_right, has_missing = 0.0, 0.0, False
        for p in range(start, end):
            row = sample_idx[p]
            value = X_binned[row, f]
            if value == missing_bin:
                has_missing = True
                goes_left[row] = best_missing_left
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
            impurity[:n_nodes], depth[:n_nodes], stats[:n_nodes], score[:n_nodes])
