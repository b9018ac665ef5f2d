"""The compiled growth loop: depth-first or best-first, with the stopping rules of SPEC §4.

Each node is evaluated when it is created (its histogram is at hand then): either it becomes a
leaf or its best split is recorded. Splitting a node partitions its sample slice, builds the
histogram of the smaller child from its samples and turns the parent's histogram into the larger
child's by subtraction. Histograms live in a pool of reusable buffers; when the pool is full a
pending node drops its histogram and its children are later built from their samples, which
bounds memory in best-first growth without changing the result.
"""

import numpy as np
from numba import njit

from .._dtypes import (
    COST_PER_FEATURE,
    EPSILON,
    RULE_COST_BENEFIT,
    RULE_ECART,
    RULE_GAIN_RATIO,
    RULE_IMPURE_PAIRS,
    TREE_LEAF as LEAF,
    TREE_UNDEFINED as UNDEFINED,
)
from .histogram import build_histogram, subtract_histograms
from .random import initial_state, next_below
from .splitting import (
    NO_SPLIT,
    TIE_TOLERANCE,
    beats,
    impurity_of,
    is_constant,
    is_constant_in_node,
    next_nonempty_bin,
    pairs_of,
    partition,
    scan_features_serial,
    scan_workspace,
    stats_count,
    stats_weight,
)

#: Sample-features of a small node above which its features are scanned on all threads
#: (measured on 1e6 x 50: 12.1 s at 16384, 10.5 s at 512-2048).
SPARSE_PARALLEL_WORK = 1024


# Copies are written as loops throughout this module: an array-to-array slice assignment makes
# Numba compile its broadcasting error path (shape formatting, string joins), which costs more
# compile time than the whole function around it.


@njit(cache=True)
def _resize_1d(array, size):
    out = np.empty(size, dtype=array.dtype)
    for i in range(array.shape[0]):
        out[i] = array[i]
    return out


@njit(cache=True)
def _resize_2d(array, size):
    out = np.empty((size, array.shape[1]), dtype=array.dtype)
    for i in range(array.shape[0]):
        for j in range(array.shape[1]):
            out[i, j] = array[i, j]
    return out


@njit(cache=True)
def _resize_pool(pool, size):
    """A histogram pool with room for ``size`` histograms, holding those of ``pool``."""
    out = np.empty((size, pool.shape[1], pool.shape[2], pool.shape[3]))
    for slot in range(pool.shape[0]):
        for f in range(pool.shape[1]):
            for b in range(pool.shape[2]):
                for s in range(pool.shape[3]):
                    out[slot, f, b, s] = pool[slot, f, b, s]
    return out


@njit(cache=True)
def _acquire(pool, n_used, free, n_free, max_histograms):
    """A histogram slot: a freed one, else a new one (the pool doubles when full).

    ``free[:n_free]`` is the stack of released slots, as long as the pool. Returns
    ``(slot, pool, n_used, free, n_free)``; the caller holds at most ``max_histograms``.
    """
    if n_free > 0:
        return free[n_free - 1], pool, n_used, free, n_free - 1
    if n_used == pool.shape[0]:
        size = min(2 * pool.shape[0], max_histograms)
        pool = _resize_pool(pool, size)
        free = _resize_1d(free, size)
    return n_used, pool, n_used + 1, free, n_free


@njit(cache=True)
def _heap_less(key_a, node_a, key_b, node_b):
    return key_a < key_b or (key_a == key_b and node_a < node_b)


@njit(cache=True)
def _heap_push(keys, nodes, size, key, node):
    """Push ``(key, node)`` on the binary min-heap ``keys[:size], nodes[:size]`` (ordered by key,
    then node id, as Python orders tuples); returns the new size."""
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if _heap_less(keys[parent], nodes[parent], key, node):
            break
        keys[i] = keys[parent]
        nodes[i] = nodes[parent]
        i = parent
    keys[i] = key
    nodes[i] = node
    return size + 1


@njit(cache=True)
def _heap_pop(keys, nodes, size):
    """Remove the smallest entry of the min-heap of ``size`` entries; returns its node."""
    top = nodes[0]
    size -= 1
    key = keys[size]
    node = nodes[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _heap_less(keys[child + 1], nodes[child + 1], keys[child],
                                           nodes[child]):
            child += 1
        if not _heap_less(keys[child], nodes[child], key, node):
            break
        keys[i] = keys[child]
        nodes[i] = nodes[child]
        i = child
    keys[i] = key
    nodes[i] = node
    return top


@njit(cache=True)
def _node_totals(hist, n_classes, out):
    """Sum of the node's statistics over all bins of feature 0."""
    for s in range(out.shape[0]):
        out[s] = 0.0
    for b in range(hist.shape[1]):
        for s in range(hist.shape[2]):
            out[s] += hist[0, b, s]


@njit(cache=True)
def _sibling_totals(parent, child, n_classes, out):
    for s in range(parent.shape[0]):
        out[s] = parent[s] - child[s]
    if n_classes > 0:
        for k in range(n_classes):
            if out[n_classes + k] <= 0.0:
                out[k] = 0.0
                out[n_classes + k] = 0.0


@njit(cache=True)
def _sum_samples(sample_idx, start, end, y_code, sample_weight, sample_stats, group_code,
                 n_classes, out):
    """Statistics of a node summed directly over its samples (for nodes without histogram)."""
    for s in range(out.shape[0]):
        out[s] = 0.0
    for position in range(start, end):
        i = sample_idx[position]
        if n_classes > 0:
            out[y_code[i]] += sample_weight[i]
            out[n_classes + y_code[i]] += 1.0
            if group_code.shape[0] > 0:
                out[2 * n_classes + group_code[i]] += sample_weight[i]
        else:
            for s in range(out.shape[0]):
                out[s] += sample_stats[i, s]


@njit(cache=True)
def _is_pure(stats, n_classes, impurity):
    if n_classes > 0:
        present = 0
        for k in range(n_classes):
            if stats[n_classes + k] > 0.0 and stats[k] > 0.0:
                present += 1
        return present <= 1
    return impurity <= 1e-14 * max(1.0, abs(stats[2] / stats[1]) if stats[1] > 0 else 1.0)


@njit(cache=True)
def _path_costs(node, parent, feature, feature_cost, cost_group, cost_model, paid, out):
    """Cost of testing each feature at ``node`` (SPEC §5).

    per_test: every test pays its feature's cost. per_feature: a feature whose cost group was
    already tested on the path from the root is free. ``paid`` is all False on entry and exit.
    """
    for f in range(out.shape[0]):
        out[f] = feature_cost[f]
    if cost_model != COST_PER_FEATURE:
        return
    ancestor = parent[node]
    while ancestor >= 0:
        paid[cost_group[feature[ancestor]]] = True
        ancestor = parent[ancestor]
    for f in range(out.shape[0]):
        if paid[cost_group[f]]:
            out[f] = 0.0
    ancestor = parent[node]
    while ancestor >= 0:
        paid[cost_group[feature[ancestor]]] = False
        ancestor = parent[ancestor]


@njit(cache=True)
def _select_split(results, features, costs, rule, node_weight, scale):
    """The feature whose best split wins under ``rule`` (-1 when none is valid).

    Cost-divided rules rank free tests (cost 0) with a positive numerator by their numerator
    ahead of paid ones, which are ranked by numerator / cost (SPEC §5); a free test whose
    numerator is zero (0/0) counts as no benefit. Gain ratio is C4.5's: among features whose gain is
    at least the average gain of the valid features, the largest gain / split information.
    Ties (up to rounding relative to ``scale``, see ``splitting.beats``) go to the lowest
    feature index.
    """
    mean_gain = 0.0
    if rule == RULE_GAIN_RATIO:
        n_valid = 0
        for i in range(features.shape[0]):
            f = features[i]
            if results[f, 1] != NO_SPLIT:
                mean_gain += results[f, 4]
                n_valid += 1
        if n_valid > 0:
            mean_gain /= n_valid
    best = -1
    best_tier = -1
    best_value = -np.inf
    for i in range(features.shape[0]):
        f = features[i]
        if results[f, 1] == NO_SPLIT:
            continue
        numerator = results[f, 0]
        tier = 0
        value_scale = scale
        if rule == RULE_GAIN_RATIO:
            if results[f, 4] < mean_gain - 1e-12 * abs(mean_gain):
                continue
            left = results[f, 3] / node_weight
            right = 1.0 - left
            split_info = 0.0
            if left > 0.0:
                split_info -= left * np.log2(left)
            if right > 0.0:
                split_info -= right * np.log2(right)
            value = numerator / split_info if split_info > 0.0 else -np.inf
            value_scale = scale / split_info if split_info > 0.0 else scale
        elif rule == RULE_COST_BENEFIT or rule == RULE_ECART or rule == RULE_IMPURE_PAIRS:
            if costs[f] <= 0.0:
                if numerator > TIE_TOLERANCE * scale:
                    tier = 1
                    value = numerator
                else:  # 0 / 0: a free test that brings nothing
                    value = 0.0
            else:
                value = numerator / costs[f]
                value_scale = scale / costs[f]
        else:
            value = numerator
        if tier > best_tier or (tier == best_tier and beats(value, best_value, value_scale)):
            best, best_tier, best_value = f, tier, value
    return best


@njit(cache=True)
def _choose_features(max_features, dense, hist, X_binned, sample_idx, start, end,
                     n_bins_non_missing, missing_bin, n_classes, state, order, chosen):
    """Features examined at a node: the first ``max_features`` non-constant ones of a random
    permutation (constant features do not count, as in scikit-learn), in increasing order.

    ``state`` is the generator (``random.next_below``); ``order`` (int64) and ``chosen`` (bool,
    all False on entry and exit) are scratch of length n_features. Returns a new array.
    """
    n_features = order.shape[0]
    for i in range(n_features):
        order[i] = i
    n_chosen = 0
    for i in range(n_features):  # Fisher-Yates, drawn as far as needed
        if n_chosen == max_features:
            break
        j = i + next_below(state, n_features - i)
        f = order[j]
        order[j] = order[i]
        order[i] = f
        if dense:
            constant = is_constant(hist[f], n_bins_non_missing[f], missing_bin, n_classes)
        else:
            constant = is_constant_in_node(X_binned[:, f], sample_idx, start, end)
        if not constant:
            chosen[f] = True
            n_chosen += 1
    features = np.empty(n_chosen, dtype=np.int64)
    n_chosen = 0
    for f in range(n_features):
        if chosen[f]:
            features[n_chosen] = f
            n_chosen += 1
            chosen[f] = False
    return features


@njit(cache=True)
def _significant(X_binned, sample_idx, start, end, f, y_code, sample_weight, n_classes,
                 missing_bin, h, h_params, min_samples_leaf, min_weight_leaf, n_permutations,
                 seed, significance, over_features, n_bins_non_missing, node_test):
    """S-condition: is the best gain of feature ``f`` (or, ``over_features``, the node's best
    gain over all features) significant at level ``significance``? ``node_test`` computes
    the permutation p-value (treesmith._kernels.permutation)."""
    n = end - start
    n_columns = X_binned.shape[1] if over_features else 1
    node_bins = np.empty((n_columns, n), dtype=np.int64).T  # Fortran order
    n_bins = np.empty(n_columns, dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    weights = np.empty(n)
    for c in range(n_columns):
        n_bins[c] = n_bins_non_missing[c if over_features else f]
    for t in range(n):
        i = sample_idx[start + t]
        labels[t] = y_code[i]
        weights[t] = sample_weight[i]
        for c in range(n_columns):
            node_bins[t, c] = X_binned[i, c if over_features else f]
    p_value = node_test(node_bins, labels, weights, n_classes, n_bins, missing_bin, h,
                        h_params, min_samples_leaf, min_weight_leaf, n_permutations, seed)
    return p_value <= significance


@njit(cache=True)
def _preorder(children_left, children_right, n_nodes):
    """Permutation listing node ids in depth-first preorder (scikit-learn's numbering)."""
    order = np.empty(n_nodes, dtype=np.int64)
    stack = np.empty(n_nodes, dtype=np.int64)
    top = 0
    stack[0] = 0
    count = 0
    while top >= 0:
        node = stack[top]
        top -= 1
        order[count] = node
        count += 1
        if children_left[node] != LEAF:
            top += 1
            stack[top] = children_right[node]
            top += 1
            stack[top] = children_left[node]
    return order


@njit(cache=True)
def grow(X_binned, sample_idx, y_code, sample_weight, sample_stats, n_classes, n_bins,
         missing_bin, n_bins_non_missing, h, h_params, max_depth, min_samples_split,
         min_samples_leaf, min_weight_leaf, min_weight_split, min_impurity_decrease,
         max_leaf_nodes, max_features, seed, parallel_threshold, sparse_threshold, n_threads,
         max_histograms, skip_same_class_runs, significance, n_permutations,
         significance_over_features, node_test, rule, lam,
         group_code, group_q, feature_cost, cost_group, cost_model, scan, sparse_scan):
    """Grow one tree on the samples ``sample_idx`` (positive weights only).

    Splits are chosen by ``rule`` (``treesmith._dtypes.RULE_*``; ``lam`` is ECART's lambda,
    ``group_code``/``group_q`` its per-object q groups, empty when all q_i are equal and then
    ``group_q[0]`` is the common q) with test costs ``feature_cost`` under ``cost_model``
    (``cost_group`` maps features to acquisition groups).
    Nodes with fewer than ``sparse_threshold`` samples are scanned on compact per-node
    histograms instead of full ones (same scan, same result, cost proportional to the node);
    the larger of them spread their features over ``n_threads`` chunks.
    ``skip_same_class_runs`` lets the scan skip cuts inside runs of same-class bins (valid for
    the gain of a strictly concave impurity without leaf-size constraints; see ``scan_feature``).
    With ``significance`` s > 0 (classification), a node whose best split fails the permutation
    test of SPEC §6 (p-value of the best feature's gain > s, ``n_permutations`` shuffles seeded
    from ``seed`` and the node id) becomes a leaf: S-pruning of seed 001 §3; with
    ``significance_over_features`` each permutation takes the best gain over all features;
    ``node_test`` is the p-value function pointer (``permutation.node_test_pointer``), ``scan``
    the per-feature scan's (``splitting.scan_pointer``), ``sparse_scan`` the small-node scan's
    (``splitting.sparse_scan_pointer``).
    Weights are absolute (``min_weight_split`` is theta times the total weight) and
    ``min_impurity_decrease`` applies to the chosen split's gain. ``max_depth``,
    ``max_leaf_nodes`` < 0 mean unlimited; ``max_leaf_nodes`` >= 2 switches to best-first growth
    (largest rule score first).
    Returns the node arrays, nodes numbered in preorder (depth-first) or creation order
    (best-first): children_left, children_right, feature, bin_threshold, next_bin,
    missing_go_left, impurity, depth, stats, score.
    """
    n_features = X_binned.shape[1]
    n_samples = sample_idx.shape[0]
    n_groups = group_q.shape[0] if group_code.shape[0] > 0 else 0
    n_stats = 2 * n_classes + n_groups if n_classes > 0 else sample_stats.shape[1]
    best_first = max_leaf_nodes > 0
    state = np.empty(1, dtype=np.uint64)
    state[0] = initial_state(seed)
    scan_all = max_features >= n_features
    all_features = np.arange(n_features)
    feature_order = np.empty(n_features, dtype=np.int64)
    feature_chosen = np.zeros(n_features, dtype=np.bool_)

    # Counters start as np.int64: a Python int literal would make Numba compile every kernel
    # they are passed to once more, for the literal's type.
    capacity = np.int64(64)
    children_left = np.full(capacity, LEAF, dtype=np.int64)
    children_right = np.full(capacity, LEAF, dtype=np.int64)
    parent = np.full(capacity, -1, dtype=np.int64)
    feature = np.full(capacity, UNDEFINED, dtype=np.int64)
    bin_threshold = np.full(capacity, NO_SPLIT, dtype=np.int64)
    next_bin = np.full(capacity, NO_SPLIT, dtype=np.int64)
    missing_go_left = np.zeros(capacity, dtype=np.bool_)
    impurity = np.zeros(capacity)
    depth = np.zeros(capacity, dtype=np.int64)
    score = np.zeros(capacity)
    start = np.zeros(capacity, dtype=np.int64)
    end = np.zeros(capacity, dtype=np.int64)
    slot = np.full(capacity, -1, dtype=np.int64)
    stats = np.zeros((capacity, n_stats))
    pending = np.empty(capacity, dtype=np.int64)  # depth-first: stack of node ids
    heap_keys = np.empty(capacity)  # best-first: min-heap of (-score, node id)
    heap_nodes = np.empty(capacity, dtype=np.int64)
    n_pending = np.int64(0)

    pool = np.empty((min(4, max_histograms), n_features, n_bins, n_stats))
    n_used = np.int64(0)  # slots handed out so far
    free = np.empty(pool.shape[0], dtype=np.int64)  # stack of released slots
    n_free = np.int64(0)
    proportions = np.empty(max(n_classes, 1))
    results = np.empty((n_features, 6))
    costs = np.empty(n_features)
    n_cost_groups = 1
    for f in range(n_features):
        n_cost_groups = max(n_cost_groups, cost_group[f] + 1)
    paid = np.zeros(n_cost_groups, dtype=np.bool_)
    buffer = np.empty(n_samples, dtype=np.int64)
    n_chunks = max(n_threads, 1)
    scratch = np.zeros((n_chunks, n_bins, n_stats))
    touched = np.empty((n_chunks, n_bins), dtype=np.int64)
    compact = np.empty((n_chunks, n_bins + 1, n_stats))
    work = scan_workspace(n_features, n_stats, n_classes)

    total_weight = 0.0
    for i in range(n_samples):
        total_weight += sample_weight[sample_idx[i]]

    # Root.
    start[0] = 0
    end[0] = n_samples
    root_slot, pool, n_used, free, n_free = _acquire(pool, n_used, free, n_free, max_histograms)
    build_histogram(X_binned, sample_idx, start[0], end[0], y_code, sample_weight,
                    sample_stats, group_code, n_classes, pool[root_slot], np.int64(0))
    _node_totals(pool[root_slot], n_classes, stats[0])
    slot[0] = root_slot
    held = np.int64(1)
    n_nodes = np.int64(1)
    new_nodes = np.zeros(2, dtype=np.int64)
    n_new = np.int64(1)
    n_leaves = np.int64(1)

    while True:
        # Evaluate the nodes just created: leaf, or record the best split.
        for t in range(n_new):
            node = new_nodes[t]
            node_stats = stats[node]
            impurity[node] = impurity_of(node_stats, n_classes, h, h_params, proportions)
            count = stats_count(node_stats, n_classes)
            weight = stats_weight(node_stats, n_classes)
            splittable = not (
                (max_depth >= 0 and depth[node] >= max_depth)
                or count < min_samples_split
                or count < 2 * min_samples_leaf
                or weight <= min_weight_split
                or weight < 2.0 * min_weight_leaf
                or _is_pure(node_stats, n_classes, impurity[node])
            )
            if splittable:
                dense = slot[node] >= 0
                hist = pool[slot[node] if dense else 0]
                if scan_all:
                    features = all_features
                else:
                    features = _choose_features(max_features, dense, hist, X_binned,
                                                sample_idx, start[node], end[node],
                                                n_bins_non_missing, missing_bin, n_classes,
                                                state, feature_order, feature_chosen)
                results[:, 1] = NO_SPLIT
                weighted_impurity = weight * impurity[node]
                if not dense:
                    chunks = n_chunks if count * features.shape[0] >= SPARSE_PARALLEL_WORK else 1
                    sparse_scan(X_binned, features, sample_idx, start[node], end[node], y_code,
                                sample_weight, sample_stats, group_code, n_classes, missing_bin,
                                n_bins_non_missing, node_stats, h, h_params, weighted_impurity,
                                total_weight, min_samples_leaf, min_weight_leaf,
                                skip_same_class_runs, rule, lam, n_groups, group_q, scratch,
                                touched, compact, results, work, scan, chunks)
                else:
                    scan_features_serial(hist, features, node_stats, n_bins_non_missing,
                                         missing_bin, n_classes, h, h_params,
                                         weighted_impurity, total_weight, min_samples_leaf,
                                         min_weight_leaf, skip_same_class_runs, rule, lam,
                                         n_groups, group_q, results, work, scan)
                _path_costs(node, parent, feature, feature_cost, cost_group, cost_model, paid,
                            costs)
                if rule == RULE_IMPURE_PAIRS:
                    scale = pairs_of(node_stats, n_classes)
                else:
                    scale = (abs(weighted_impurity) + weight) / total_weight
                best = _select_split(results, features, costs, rule, weight, scale)
                if best < 0 or results[best, 4] + EPSILON < min_impurity_decrease:
                    splittable = False
                elif significance > 0.0 and not _significant(
                        X_binned, sample_idx, start[node], end[node], best, y_code,
                        sample_weight, n_classes, missing_bin, h, h_params, min_samples_leaf,
                        min_weight_leaf, n_permutations, seed * 1000003 + node, significance,
                        significance_over_features, n_bins_non_missing, node_test):
                    splittable = False
                else:
                    feature[node] = best
                    bin_threshold[node] = np.int64(results[best, 1])
                    missing_go_left[node] = results[best, 2] > 0.5
                    score[node] = results[best, 0]
                    if dense:
                        next_bin[node] = next_nonempty_bin(hist[best], bin_threshold[node],
                                                           n_bins_non_missing[best], n_classes)
                    else:
                        next_bin[node] = np.int64(results[best, 5])
            if not splittable or (held > max_histograms - 2):
                if slot[node] >= 0:
                    free[n_free] = slot[node]
                    n_free += 1
                    slot[node] = -1
                    held -= 1
            if splittable:
                if best_first:
                    n_pending = _heap_push(heap_keys, heap_nodes, n_pending, -score[node], node)
                else:
                    pending[n_pending] = node
                    n_pending += 1

        # Pick the next node to split.
        if n_pending == 0 or (best_first and n_leaves >= max_leaf_nodes):
            break
        if best_first:
            node = _heap_pop(heap_keys, heap_nodes, n_pending)
        else:
            node = pending[n_pending - 1]
        n_pending -= 1

        # Room for two children.
        if n_nodes + 2 > capacity:
            capacity *= 2
            children_left = _resize_1d(children_left, capacity)
            children_right = _resize_1d(children_right, capacity)
            parent = _resize_1d(parent, capacity)
            feature = _resize_1d(feature, capacity)
            bin_threshold = _resize_1d(bin_threshold, capacity)
            next_bin = _resize_1d(next_bin, capacity)
            missing_go_left = _resize_1d(missing_go_left, capacity)
            impurity = _resize_1d(impurity, capacity)
            depth = _resize_1d(depth, capacity)
            score = _resize_1d(score, capacity)
            start = _resize_1d(start, capacity)
            end = _resize_1d(end, capacity)
            slot = _resize_1d(slot, capacity)
            stats = _resize_2d(stats, capacity)
            pending = _resize_1d(pending, capacity)
            heap_keys = _resize_1d(heap_keys, capacity)
            heap_nodes = _resize_1d(heap_nodes, capacity)

        f = feature[node]
        mid = partition(sample_idx, start[node], end[node], X_binned[:, f], bin_threshold[node],
                        missing_bin, missing_go_left[node], buffer)
        left = n_nodes
        right = n_nodes + 1
        n_nodes += 2
        n_leaves += 1
        children_left[node] = left
        children_right[node] = right
        for child in (left, right):
            children_left[child] = LEAF
            children_right[child] = LEAF
            parent[child] = node
            feature[child] = UNDEFINED
            bin_threshold[child] = NO_SPLIT
            next_bin[child] = NO_SPLIT
            missing_go_left[child] = False
            depth[child] = depth[node] + 1
            score[child] = 0.0
            slot[child] = -1
        start[left] = start[node]
        end[left] = mid
        start[right] = mid
        end[right] = end[node]
        if mid - start[node] <= end[node] - mid:
            small, large = left, right
        else:
            small, large = right, left

        if end[large] - start[large] < sparse_threshold:
            # Both children are small: no histograms, statistics summed from the samples.
            if slot[node] >= 0:
                free[n_free] = slot[node]
                n_free += 1
                slot[node] = -1
                held -= 1
            _sum_samples(sample_idx, start[small], end[small], y_code, sample_weight,
                         sample_stats, group_code, n_classes, stats[small])
        else:
            small_slot, pool, n_used, free, n_free = _acquire(pool, n_used, free, n_free,
                                                        max_histograms)
            held += 1
            build_histogram(X_binned, sample_idx, start[small], end[small], y_code,
                            sample_weight, sample_stats, group_code, n_classes, pool[small_slot],
                            parallel_threshold)
            slot[small] = small_slot
            _node_totals(pool[small_slot], n_classes, stats[small])
            if slot[node] >= 0:
                subtract_histograms(pool[slot[node]], pool[small_slot], n_classes)
                slot[large] = slot[node]
                slot[node] = -1
            else:
                large_slot, pool, n_used, free, n_free = _acquire(pool, n_used, free, n_free,
                                                            max_histograms)
                held += 1
                build_histogram(X_binned, sample_idx, start[large], end[large], y_code,
                                sample_weight, sample_stats, group_code, n_classes,
                                pool[large_slot], parallel_threshold)
                slot[large] = large_slot
        _sibling_totals(stats[node], stats[small], n_classes, stats[large])
        new_nodes[0] = left
        new_nodes[1] = right
        n_new = 2

    # Nodes left in the best-first frontier stay leaves. Leaf statistics are summed again over
    # their samples: the larger child of a split got parent - sibling, whose round-off would
    # otherwise show in predictions (e.g. -1e-12 for a leaf of zero labels).
    for i in range(n_nodes):
        if children_left[i] == LEAF:
            _sum_samples(sample_idx, start[i], end[i], y_code, sample_weight, sample_stats,
                         group_code, n_classes, stats[i])
            impurity[i] = impurity_of(stats[i], n_classes, h, h_params, proportions)
            feature[i] = UNDEFINED
            bin_threshold[i] = NO_SPLIT
            next_bin[i] = NO_SPLIT
            missing_go_left[i] = False
            score[i] = 0.0

    if best_first:
        order = np.arange(n_nodes)
    else:
        order = _preorder(children_left, children_right, n_nodes)
    new_id = np.empty(n_nodes, dtype=np.int64)
    for i in range(n_nodes):
        new_id[order[i]] = i
    out_left = np.full(n_nodes, LEAF, dtype=np.int64)
    out_right = np.full(n_nodes, LEAF, dtype=np.int64)
    out_feature = np.empty(n_nodes, dtype=np.int64)
    out_bin_threshold = np.empty(n_nodes, dtype=np.int64)
    out_next_bin = np.empty(n_nodes, dtype=np.int64)
    out_missing_go_left = np.empty(n_nodes, dtype=np.bool_)
    out_impurity = np.empty(n_nodes)
    out_depth = np.empty(n_nodes, dtype=np.int64)
    out_stats = np.empty((n_nodes, n_stats))
    out_score = np.empty(n_nodes)
    for i in range(n_nodes):
        old = order[i]
        if children_left[old] != LEAF:
            out_left[i] = new_id[children_left[old]]
            out_right[i] = new_id[children_right[old]]
        out_feature[i] = feature[old]
        out_bin_threshold[i] = bin_threshold[old]
        out_next_bin[i] = next_bin[old]
        out_missing_go_left[i] = missing_go_left[old]
        out_impurity[i] = impurity[old]
        out_depth[i] = depth[old]
        out_score[i] = score[old]
        for s in range(n_stats):
            out_stats[i, s] = stats[old, s]
    return (out_left, out_right, out_feature, out_bin_threshold, out_next_bin,
            out_missing_go_left, out_impurity, out_depth, out_stats, out_score)
