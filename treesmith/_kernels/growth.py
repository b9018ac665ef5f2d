"""The compiled growth loop: depth-first or best-first, with the stopping rules of
docs/methods.md §4.

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
    TREE_LEAF as LEAF,
    TREE_UNDEFINED as UNDEFINED,
)
from .categorical import BITSET_WORDS, categorical_scan_workspace
from .decorators import internal_kernel, pointer_kernel
from .histogram import subtract_histograms
from .monotonic import child_bounds, node_value
from .permutation import record_failure
from .random import draw_without_replacement, initial_state, marked_in_order
from .random_thresholds import random_scan_workspace
from .records import (
    GROWTH_COMPLETE,
    GROWTH_NODE_MEMORY,
    SPLIT_DTYPE,
    STATUS_CODE,
    STATUS_N_NODES,
    Monotonicity,
    NodeScan,
    SmallNodeWorkspace,
)
from .split_rules import NO_SPLIT, TIE_TOLERANCE, select_split, split_ranking, tie_scale
from .splitting import (
    is_constant,
    is_constant_in_node,
    next_nonempty_bin,
    partition,
    scan_features_with_histogram,
    scan_workspace,
)
from .stats import (
    REGRESSION_WEIGHT,
    REGRESSION_WEIGHTED_TARGET,
    add_sample,
    count_column,
    impurity_of,
    pairs_of,
    stats_count,
    stats_weight,
    weight_column,
)

#: Sample-features of a small node above which its features are scanned on all threads. Small
#: nodes are grown in parallel as whole subtrees instead (``treesmith.grower``): a parallel
#: region per small node cost 7x the one-thread time on a loaded 2-core machine (1e5 x 50,
#: ``benchmarks/bench_contention.py``), so only very wide small nodes get one.
SMALL_NODE_PARALLEL_WORK = 1 << 16


# Copies are written as loops throughout this module: an array-to-array slice assignment makes
# Numba compile its broadcasting error path (shape formatting, string joins), which costs more
# compile time than the whole function around it.


# The per-node fields of the growing tree live in three blocks, one per dtype, with a row per
# field and a column per node: a field is a row, a C-contiguous 1-D view (the type every kernel
# takes), and the tree grows by reallocating three blocks (plus the statistics and category
# rows) instead of twenty-one arrays. Every reallocation site is compiled, optimised and
# emitted again inside the growth loop, which is compiled by every first fit.
#: Rows of the int64 block.
(_CHILDREN_LEFT, _CHILDREN_RIGHT, _PARENT, _FEATURE, _BIN_THRESHOLD, _NEXT_BIN, _DEPTH, _START,
 _END, _SLOT, _PENDING, _HEAP_NODES, _N_INT_FIELDS) = range(13)
#: Rows of the float64 block; the best-first heap's keys (``heap_push``) take its last two.
_IMPURITY, _SCORE, _LOWER_BOUND, _UPPER_BOUND, _HEAP_KEYS = range(5)
_N_FLOAT_FIELDS = _HEAP_KEYS + 2
#: Rows of the bool block.
_MISSING_GO_LEFT, _DEFERRED, _N_BOOL_FIELDS = range(3)


@njit(cache=True, nogil=True, inline="always")
def _node_field_rows(int_block, float_block, bool_block):
    """The rows of the node blocks (one helper: each compiled helper costs a compilation;
    inlined, so that its views follow the caller's reference counting).
    int64: children_left, children_right, parent, feature, bin_threshold, next_bin, depth,
    start, end, slot (histogram pool slot, -1: none), pending (depth-first: stack of node
    ids), heap_nodes (best-first: the heap's node ids); float64: impurity, score,
    lower_bound, upper_bound (bounds on the node's value, monotonic constraints), heap_keys
    (best-first: the heap's two rows of keys, ``heap_push``); bool: missing_go_left,
    deferred."""
    return (int_block[_CHILDREN_LEFT], int_block[_CHILDREN_RIGHT], int_block[_PARENT],
            int_block[_FEATURE], int_block[_BIN_THRESHOLD], int_block[_NEXT_BIN],
            int_block[_DEPTH], int_block[_START], int_block[_END], int_block[_SLOT],
            int_block[_PENDING], int_block[_HEAP_NODES], float_block[_IMPURITY],
            float_block[_SCORE], float_block[_LOWER_BOUND], float_block[_UPPER_BOUND],
            float_block[_HEAP_KEYS:_HEAP_KEYS + 2], bool_block[_MISSING_GO_LEFT],
            bool_block[_DEFERRED])


@internal_kernel
def _copy_bytes_into(source, out):
    """Copy ``source`` into the leading rows and columns of ``out`` (both 2-D uint8).

    The growth loop grows its node storage by copying each old array into a larger one it
    allocates (Numba compiles ``np.empty`` once per dtype and per flags of the calling
    function, and the loop's allocations are compiled anyway), through uint8 views: one
    compiled copy serves every dtype (four dtypes cost four vectorised copies in the loop,
    0.3 s of a first fit). A node block (fields, capacity) keeps its nodes' columns; the
    statistics and category rows (capacity, width) keep their nodes' rows. The rest of
    ``out`` is left uninitialised (a node's fields are all written when it is created)."""
    for i in range(source.shape[0]):
        source_row = source[i]
        out_row = out[i]
        for j in range(source.shape[1]):
            out_row[j] = source_row[j]


@internal_kernel
def _grown_stack(stack, size):
    """An int64 stack of ``size`` entries holding those of ``stack`` first."""
    out = np.empty(size, dtype=np.int64)
    for i in range(stack.shape[0]):
        out[i] = stack[i]
    return out


@internal_kernel
def _resize_pool(pool, size):
    """A histogram pool with room for ``size`` histograms, holding those of ``pool``."""
    out = np.empty((size, pool.shape[1], pool.shape[2], pool.shape[3]))
    for slot in range(pool.shape[0]):
        for f in range(pool.shape[1]):
            for b in range(pool.shape[2]):
                for s in range(pool.shape[3]):
                    out[slot, f, b, s] = pool[slot, f, b, s]
    return out


@njit(cache=True, nogil=True, inline="always")
def _initial_histogram_slots(n_samples, small_node_size, max_histograms, max_depth):
    """Histogram slots the pool starts with: two per level a balanced tree takes to halve
    ``n_samples`` below ``small_node_size`` (capped by ``max_depth``), plus two, at most
    ``max_histograms``. Depth-first growth holds about one histogram per such level (each
    split's pending child); starting from one slot, the pool was copied at every doubling,
    2 % of an ExtraTreesRegressor fit on 1e5 x 50, whose 64 subtrees of ~1 500 samples each
    started from one."""
    levels = 0
    remaining = n_samples
    while remaining >= small_node_size and levels < 62:
        remaining //= 2
        levels += 1
    if max_depth >= 0:
        levels = min(levels, max_depth)
    return max(min(2 * levels + 2, max_histograms), 1)


@internal_kernel(reference_counted=False)
def _acquire(n_used, free, n_free):
    """A histogram slot: a freed one, else the next unused one (``_grow_nodes`` has asked
    ``grow`` to enlarge the pool beforehand when fewer than two were left).

    ``free[:n_free]`` is the stack of released slots, as long as the pool. Returns
    ``(slot, n_used, n_free)``.
    """
    if n_free > 0:
        return free[n_free - 1], n_used, n_free - 1
    return n_used, n_used + 1, n_free


@internal_kernel
def _heap_less(keys, i, node_i, first, second, node):
    """Entry ``i`` of ``keys`` (node ``node_i``) comes before ``(first, second, node)``."""
    return (keys[0, i] < first
            or (keys[0, i] == first and (keys[1, i] < second
                                         or (keys[1, i] == second and node_i < node))))


# The best-first heap is reached through EngineSettings pointers (``pointers.heap_pointers``):
# depth-first fits, the default, compile only the stand-ins below.
@pointer_kernel
def heap_push(keys, nodes, size, tier, value, node):
    """Push a node whose split its rule ranks ``(tier, value)`` (``split_rules.split_ranking``)
    on the binary min-heap ``keys[:, :size], nodes[:size]``, keyed ``(-tier, -value, node)`` in
    Python's tuple order: the node the rule ranks highest is popped first, the oldest on ties;
    returns the new size."""
    first = -float(tier)
    second = -value
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if _heap_less(keys, parent, nodes[parent], first, second, node):
            break
        keys[0, i] = keys[0, parent]
        keys[1, i] = keys[1, parent]
        nodes[i] = nodes[parent]
        i = parent
    keys[0, i] = first
    keys[1, i] = second
    nodes[i] = node
    return size + 1


@pointer_kernel
def heap_pop(keys, nodes, size):
    """Remove the smallest entry of the min-heap of ``size`` entries; returns its node."""
    top = nodes[0]
    size -= 1
    first = keys[0, size]
    second = keys[1, size]
    node = nodes[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _heap_less(keys, child + 1, nodes[child + 1], keys[0, child],
                                           keys[1, child], nodes[child]):
            child += 1
        if not _heap_less(keys, child, nodes[child], first, second, node):
            break
        keys[0, i] = keys[0, child]
        keys[1, i] = keys[1, child]
        nodes[i] = nodes[child]
        i = child
    keys[0, i] = first
    keys[1, i] = second
    nodes[i] = node
    return top


@pointer_kernel
def no_heap_push(keys, nodes, size, tier, value, node):
    """``heap_push``'s stand-in in depth-first growth, which never calls it."""
    return size


@pointer_kernel
def no_heap_pop(keys, nodes, size):
    """``heap_pop``'s stand-in in depth-first growth, which never calls it."""
    return nodes[size - 1]


@pointer_kernel
def no_categorical_partition(sample_idx, start, end, column, left_categories, missing_bin,
                             missing_go_left, buffer):
    """``categorical.partition_categorical``'s stand-in when no feature is categorical: the
    growth loop never calls it. Returns ``end`` (every sample right), were it called."""
    return end


@internal_kernel(reference_counted=False)
def _histogram_totals(hist, stats, node):
    """``stats[node]``: the node's histogram summed over the bins of feature 0."""
    for s in range(stats.shape[1]):
        stats[node, s] = 0.0
    for b in range(hist.shape[1]):
        for s in range(hist.shape[2]):
            stats[node, s] += hist[0, b, s]


@internal_kernel(reference_counted=False)
def _sum_samples(data, start, end, stats, node):
    """Statistics of a node summed over its samples (the root, the smaller child of a split,
    and a larger child whose parent - sibling difference cancels)."""
    for s in range(stats.shape[1]):
        stats[node, s] = 0.0
    sample_idx = data.sample_idx
    y_code = data.y_code
    sample_weight = data.sample_weight
    sample_stats = data.sample_stats
    group_code = data.group_code
    n_classes = data.n_classes
    for position in range(start, end):
        add_sample(stats, node, sample_idx[position], y_code, sample_weight, sample_stats,
                   group_code, n_classes)


@internal_kernel(reference_counted=False)
def _larger_child_totals(data, start, end, stats, node, small, large, exact):
    """``stats[large] = stats[node] - stats[small]``, or the sum over the larger child's
    samples when a statistic cancels (``|difference| <= 1e-9 |parent|``) and the statistics
    are not ``exact`` (``_integral_weights``: then every difference is exact, and the sum
    would give the same bits).

    A cancelling difference keeps round-off where the exact value is 0: the target sum of a
    child whose labels are all 0 came out as 1.6e-12 and a Poisson leaf predicting 0 was grown;
    a class absent from the child kept a residual weight. Summing every larger child instead
    costs a pass over half the samples per split (+27 % of a depth-8 fit at 1e6 rows), which
    only regression pays (see the growth loop).
    """
    cancels = False
    for s in range(stats.shape[1]):
        difference = stats[node, s] - stats[small, s]
        stats[large, s] = difference
        if stats[node, s] != 0.0 and abs(difference) <= 1e-9 * abs(stats[node, s]):
            cancels = True
    if cancels and not exact:
        _sum_samples(data, start, end, stats, large)


@njit(cache=True, nogil=True)
def _integral_weights(sample_weight, sample_idx):
    """Whether the samples' weights are integers summing below 2^53 (unit weights, a
    bootstrap's multiplicities): then every classification statistic (class weights, counts,
    group weights) is an integer, exact whatever the order of its additions and subtractions,
    so parent - sibling equals the sum over the larger child's samples bit for bit, and the
    growth loop need not sum it again where a class cancels (an extremely randomized tree's
    deep nodes mostly hold one or two classes: most of its splits did)."""
    total = 0.0
    for i in range(sample_idx.shape[0]):
        weight = sample_weight[sample_idx[i]]
        if weight != np.floor(weight):
            return False
        total += weight
    return total < 2.0**53


@internal_kernel(reference_counted=False)
def _is_pure(stats, n_classes, impurity):
    if n_classes > 0:
        present = 0
        for k in range(n_classes):
            if (stats[count_column(n_classes, k)] > 0.0
                    and stats[weight_column(n_classes, k)] > 0.0):
                present += 1
        return present <= 1
    weight = stats[REGRESSION_WEIGHT]
    mean = abs(stats[REGRESSION_WEIGHTED_TARGET] / weight) if weight > 0 else 1.0
    return impurity <= 1e-14 * max(1.0, mean)


@njit(cache=True, nogil=True)
def total_weight_of(sample_weight, sample_idx):
    """Total weight of the samples ``sample_idx``, summed in order (the growth loop's sum: a
    subtree grown apart must see the same float)."""
    total = 0.0
    for i in range(sample_idx.shape[0]):
        total += sample_weight[sample_idx[i]]
    return total


@internal_kernel(reference_counted=False)
def _path_costs(node, parent, feature, costs, paid, root_paid, out):
    """Cost of testing each feature at ``node`` (docs/methods.md §5), ``costs`` a
    ``records.TestCosts``.

    per_test: every test pays its feature's cost. per_feature: a feature whose cost group was
    already tested on the path from the root is free; ``root_paid`` (empty or bool per group)
    holds the groups tested above the root of a subtree grown apart. ``paid`` is all False on
    entry and exit.
    """
    for f in range(out.shape[0]):
        out[f] = costs.feature_cost[f]
    if costs.model != COST_PER_FEATURE:
        return
    cost_group = costs.cost_group
    ancestor = parent[node]
    while ancestor >= 0:
        paid[cost_group[feature[ancestor]]] = True
        ancestor = parent[ancestor]
    for f in range(out.shape[0]):
        if paid[cost_group[f]] or (root_paid.shape[0] > 0 and root_paid[cost_group[f]]):
            out[f] = 0.0
    ancestor = parent[node]
    while ancestor >= 0:
        paid[cost_group[feature[ancestor]]] = False
        ancestor = parent[ancestor]


@pointer_kernel(reference_counted=False)
def choose_features(sampling, has_histogram, hist, data, start, end, bins, state, order,
                    chosen, features):
    """Features examined at a node: the first ``sampling.max_features`` non-constant ones of a
    random permutation, in increasing order. Constant features do not count (scikit-learn's
    loop counts those it draws, and goes on past max_features only until one is not
    constant: ``random_thresholds.visit_features``, which the random splitter uses).

    ``state`` is the generator (``random.next_below``); ``order`` (int64) and ``chosen`` (bool,
    all False on entry and exit) are scratch of length n_features. Writes the features to
    ``features`` (int64, n_features) and returns their number: compiled without reference
    counting, it allocates nothing. The growth loop calls it through
    ``pointers.feature_sampling_pointer``: only fits that sample features compile it.
    """
    n_features = order.shape[0]
    for i in range(n_features):
        order[i] = i
    n_chosen = 0
    for i in range(n_features):  # Fisher-Yates, drawn as far as needed
        if n_chosen == sampling.max_features:
            break
        f = draw_without_replacement(order, i, state)
        if has_histogram:
            constant = is_constant(hist[f], bins.n_bins_non_missing[f], bins.missing_bin,
                                   data.n_classes)
        else:
            constant = is_constant_in_node(data.X_binned[:, f], data.sample_idx, start, end)
        if not constant:
            chosen[f] = True
            n_chosen += 1
    return marked_in_order(chosen, features)


@pointer_kernel(reference_counted=False)
def every_feature(sampling, has_histogram, hist, data, start, end, bins, state, order, chosen,
                  features):
    """Without feature sampling every feature is examined: ``choose_features``' stand-in,
    which the growth loop never calls (it scans all features itself) but whose pointer type
    it needs. Writes 0 .. n_features - 1 into ``features`` and returns n_features (no
    ``np.arange``: its compilation cost more than this whole function)."""
    for f in range(features.shape[0]):
        features[f] = f
    return np.int64(features.shape[0])


@internal_kernel(reference_counted=False)
def _report_failed_scan(results, features, status, node, start, end, depth):
    """Whether the scan of some feature in ``features`` met a candidate whose impurity failed
    (``SPLIT_DTYPE["impurity_failed"]``); the first such feature and the node are written to
    ``status`` (``records.GROWTH_CRITERION_FAILED``) for the caller to explain."""
    for i in range(features.shape[0]):
        f = features[i]
        if results[f]["impurity_failed"]:
            record_failure(status, node, f, start, end, depth)
            return True
    return False


#: ``_grow_nodes``' answers: the tree is grown (or growth stopped, ``engine.status`` says
#: why), the node storage is full, the histogram pool is full.
_GROWN, _NEED_NODES, _NEED_HISTOGRAMS = np.int64(0), np.int64(1), np.int64(2)
#: Entries of the loop's counters (``_grow_nodes``), kept between its calls.
(_N_NODES, _N_NEW, _N_PENDING, _N_LEAVES, _N_USED, _N_FREE, _HELD, _N_COUNTERS) = range(8)


@njit(cache=True, nogil=True, inline="always")
def _store_counters(counters, n_nodes, n_new, n_pending, n_leaves, n_used, n_free, held):
    """The growth loop's counters into ``counters`` (``_N_COUNTERS`` int64), where
    ``_grow_nodes`` finds them when it is called again."""
    counters[_N_NODES] = n_nodes
    counters[_N_NEW] = n_new
    counters[_N_PENDING] = n_pending
    counters[_N_LEAVES] = n_leaves
    counters[_N_USED] = n_used
    counters[_N_FREE] = n_free
    counters[_HELD] = held


@njit(cache=True, nogil=True, inline="always")
def _release_slot(slot, node, free, n_free, held):
    """Give ``node``'s histogram slot, if it holds one, back to the pool's stack of free slots
    ``free[:n_free]``; returns the new (n_free, held)."""
    if slot[node] >= 0:
        free[n_free] = slot[node]
        n_free += 1
        slot[node] = -1
        held -= 1
    return n_free, held


@internal_kernel(reference_counted=False)
def _grow_nodes(data, bins, impurity, stopping, sampling, rule, costs, significance, engine,
                scope, direction, int_block, float_block, bool_block, stats, left_categories,
                pool, free, counters, new_nodes, capacity, budget_nodes, no_histogram,
                all_features, feature_order, feature_chosen, sampled_features, state, results,
                bin_identity, path_costs, paid, buffer, work, small_node_workspace,
                proportions, total_weight, exact_sums):
    """The growth loop proper (``grow``): evaluate the nodes just created, split the next
    pending node, until the tree is grown or the node storage or the histogram pool is full;
    returns ``_GROWN``, ``_NEED_NODES`` or ``_NEED_HISTOGRAMS``. ``counters`` (int64,
    ``_N_COUNTERS``) and ``new_nodes`` hold the loop's state between calls: ``grow`` allocates
    what is asked and calls again, and the loop goes on where it stopped.

    Compiled without reference counting, so it allocates nothing: in the counting loop each
    view (a node's statistics row, its histogram, a feature's column) and each call took an
    atomic incref/decref pair on every array it was passed, the records' members included
    (about a tenth of an ExtraTrees fit; the calls per node pass some forty arrays)."""
    X_binned = data.X_binned
    sample_idx = data.sample_idx
    n_classes = data.n_classes
    h = impurity.h
    h_params = impurity.h_params
    n_features = X_binned.shape[1]
    best_first = stopping.max_leaf_nodes > 0
    max_histograms = engine.max_histograms
    scan_all = sampling.max_features >= n_features
    constrained = direction.shape[0] > 0
    n_chunks = max(engine.n_threads, 1)
    (children_left, children_right, parent, feature, bin_threshold, next_bin, depth, start,
     end, slot, pending, heap_nodes, node_impurity, score, lower_bound, upper_bound,
     heap_keys, missing_go_left, deferred) = _node_field_rows(int_block, float_block, bool_block)
    n_nodes = counters[_N_NODES]
    n_new = counters[_N_NEW]
    n_pending = counters[_N_PENDING]
    n_leaves = counters[_N_LEAVES]
    n_used = counters[_N_USED]
    n_free = counters[_N_FREE]
    held = counters[_HELD]
    need = _GROWN
    while True:
        # Evaluate the nodes just created: leaf, or record the best split.
        for t in range(n_new):
            node = new_nodes[t]
            node_stats = stats[node]
            count = stats_count(node_stats, n_classes)
            if node > 0 and engine.small_node_size <= count < scope.defer_below:
                deferred[node] = True
                n_free, held = _release_slot(slot, node, free, n_free, held)
                continue
            node_impurity[node] = impurity_of(node_stats, n_classes, h, h_params, proportions)
            weight = stats_weight(node_stats, n_classes)
            splittable = not (
                (stopping.max_depth >= 0 and depth[node] >= stopping.max_depth)
                or count < stopping.min_samples_split
                or count < 2 * stopping.min_samples_leaf
                or weight <= stopping.min_weight_split
                or weight < 2.0 * stopping.min_weight_leaf
                or _is_pure(node_stats, n_classes, node_impurity[node])
            )
            tier, priority = 0, 0.0  # how the rule ranks the node's split (best-first)
            if splittable:
                has_histogram = slot[node] >= 0
                hist = pool[slot[node]] if has_histogram else no_histogram
                if scan_all:
                    features = all_features
                else:
                    n_sampled = engine.choose_features(sampling, has_histogram, hist, data,
                                                       start[node], end[node], bins, state,
                                                       feature_order, feature_chosen,
                                                       sampled_features)
                    features = sampled_features[:n_sampled]
                for f in range(n_features):
                    results[f]["bin_threshold"] = NO_SPLIT
                    results[f]["impurity_failed"] = False
                weighted_impurity = weight * node_impurity[node]
                node_scan = NodeScan(n_classes, impurity, rule, stopping.min_samples_leaf,
                                     stopping.min_weight_leaf, weighted_impurity, total_weight,
                                     node_stats, Monotonicity(direction, lower_bound[node],
                                                              upper_bound[node]),
                                     bin_identity)
                if has_histogram:
                    scan_features_with_histogram(hist, features, bins, node_scan, results,
                                                 work[0], engine.scan, engine.categorical_scan)
                else:
                    parallel = count * features.shape[0] >= SMALL_NODE_PARALLEL_WORK
                    engine.small_node_scan(data, bins, features, start[node], end[node],
                                           node_scan, small_node_workspace, results,
                                           engine.scan, n_chunks if parallel else 1,
                                           engine.categorical_scan)
                if _report_failed_scan(results, features, engine.status, node, start[node],
                                       end[node], depth[node]):
                    break
                _path_costs(node, parent, feature, costs, paid, scope.root_paid, path_costs)
                node_pairs = pairs_of(node_stats, n_classes)
                scale = tie_scale(rule, weighted_impurity, weight, node_pairs, total_weight)
                best = select_split(results, features, path_costs, rule, weight, scale)
                # a gain 0 in exact arithmetic (misclassification, whose splits often change no
                # majority) comes out a few ulps of the node's terms either side of it
                gain_tolerance = max(EPSILON, TIE_TOLERANCE * (abs(weighted_impurity) + weight)
                                     / total_weight)
                if (best < 0 or results[best]["gain"] + gain_tolerance
                        < stopping.min_impurity_decrease):
                    splittable = False
                elif significance.level > 0.0 and not engine.significance_test(
                        data, start[node], end[node], best, bins, impurity, stopping,
                        significance, sampling.seed * 1000003 + node, engine.scan,
                        engine.status, node, depth[node]):
                    splittable = False
                else:
                    split = results[best]
                    # best-first growth ranks the node as its rule ranked this split
                    tier, priority, _ = split_ranking(split, path_costs[best], rule, weight,
                                                      scale)
                    feature[node] = best
                    bin_threshold[node] = split["bin_threshold"]
                    missing_go_left[node] = split["missing_go_left"]
                    score[node] = split["score"]
                    if bins.is_categorical[best]:
                        for w in range(BITSET_WORDS):
                            left_categories[node, w] = split["left_categories"][w]
                        next_bin[node] = NO_SPLIT
                    elif has_histogram:
                        next_bin[node] = next_nonempty_bin(hist[best], bin_threshold[node],
                                                           bins.n_bins_non_missing[best],
                                                           n_classes)
                    else:
                        next_bin[node] = split["next_bin"]
            if not splittable or (held > max_histograms - 2):
                n_free, held = _release_slot(slot, node, free, n_free, held)
            if splittable:
                if best_first:
                    n_pending = engine.heap_push(heap_keys, heap_nodes, n_pending, tier,
                                                 priority, node)
                else:
                    pending[n_pending] = node
                    n_pending += 1
        n_new = 0

        if engine.status[STATUS_CODE] != GROWTH_COMPLETE:
            break
        # Pick the next node to split.
        if n_pending == 0 or (best_first and n_leaves >= stopping.max_leaf_nodes):
            break
        # Room for two children and their histograms, else the caller allocates it (this
        # loop allocates nothing) and calls again: the node is taken off the stack after.
        if n_nodes + 2 > capacity:
            if n_nodes + 2 > budget_nodes:
                engine.status[STATUS_CODE] = GROWTH_NODE_MEMORY
                engine.status[STATUS_N_NODES] = n_nodes
                break
            need = _NEED_NODES
            break
        top = heap_nodes[0] if best_first else pending[n_pending - 1]
        if (end[top] - start[top] >= engine.small_node_size
                and n_free + pool.shape[0] - n_used < 2 and pool.shape[0] < max_histograms):
            need = _NEED_HISTOGRAMS
            break
        if best_first:
            node = engine.heap_pop(heap_keys, heap_nodes, n_pending)
        else:
            node = pending[n_pending - 1]
        n_pending -= 1

        f = feature[node]
        if bins.is_categorical[f]:
            mid = engine.partition_categorical(sample_idx, start[node], end[node],
                                               X_binned[:, f], left_categories[node],
                                               bins.missing_bin, missing_go_left[node],
                                               buffer)
        else:
            mid = partition(sample_idx, start[node], end[node], X_binned[:, f],
                            bin_threshold[node], bins.missing_bin, missing_go_left[node],
                            buffer)
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
            node_impurity[child] = 0.0
            for w in range(BITSET_WORDS):
                left_categories[child, w] = 0
            slot[child] = -1
            deferred[child] = False
        start[left] = start[node]
        end[left] = mid
        start[right] = mid
        end[right] = end[node]
        if mid - start[node] <= end[node] - mid:
            small, large = left, right
        else:
            small, large = right, left

        if end[large] - start[large] < engine.small_node_size:
            # Both children are small: no histograms, statistics summed from the samples.
            n_free, held = _release_slot(slot, node, free, n_free, held)
        else:
            small_slot, n_used, n_free = _acquire(n_used, free, n_free)
            held += 1
            engine.build_histogram(data, start[small], end[small], pool[small_slot],
                                   engine.parallel_threshold)
            slot[small] = small_slot
            if slot[node] >= 0:
                subtract_histograms(pool[slot[node]], pool[small_slot], n_classes)
                slot[large] = slot[node]
                slot[node] = -1
            else:
                large_slot, n_used, n_free = _acquire(n_used, free, n_free)
                held += 1
                engine.build_histogram(data, start[large], end[large], pool[large_slot],
                                       engine.parallel_threshold)
                slot[large] = large_slot
        # Regression: every node's totals are summed over its samples. The scan derives the
        # right child as totals - left, so inexact totals left a 1.6e-12 target sum in a child
        # whose labels are all 0, and a Poisson leaf predicting 0 was grown.
        if slot[small] >= 0 and n_classes > 0:
            _histogram_totals(pool[slot[small]], stats, small)
        else:
            _sum_samples(data, start[small], end[small], stats, small)
        if n_classes > 0:
            _larger_child_totals(data, start[large], end[large], stats, node, small, large,
                                 exact_sums)
        else:
            _sum_samples(data, start[large], end[large], stats, large)
        if constrained:
            (lower_bound[left], upper_bound[left], lower_bound[right],
             upper_bound[right]) = child_bounds(
                direction[f], lower_bound[node], upper_bound[node],
                node_value(stats[left], n_classes), node_value(stats[right], n_classes))
        else:
            for child in (left, right):
                lower_bound[child] = lower_bound[node]
                upper_bound[child] = upper_bound[node]
        new_nodes[0] = left
        new_nodes[1] = right
        n_new = 2

    _store_counters(counters, n_nodes, n_new, n_pending, n_leaves, n_used, n_free, held)
    return need


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def grow(data, bins, impurity, stopping, sampling, rule, costs, significance, engine, scope,
         monotonicity):
    """Grow one tree on the samples ``data.sample_idx`` (positive weights only).

    The arguments are the records of ``treesmith._kernels.records``: ``TrainingData``,
    ``BinLayout``, ``Impurity``, ``Stopping``, ``FeatureSampling``, ``SplitRule``,
    ``TestCosts``, ``SignificanceTest``, ``EngineSettings``, ``GrowthScope`` and
    ``Monotonicity`` (the constraints' directions and the root's bounds). The scope
    lets the caller grow the top of a tree (nodes below ``scope.defer_below`` samples are
    deferred) and then each deferred node's subtree apart, on its own thread: given the root's
    statistics, depth, path costs and the set's total weight, a subtree grows exactly as it
    would have inside the whole tree (depth-first growth without feature sampling or S-pruning,
    whose random draws follow the order nodes are split in).

    Each node is scanned feature by feature (``splitting``) and its split chosen by the rule
    with the node's path costs (``split_rules.select_split``). With S-pruning, a node whose best
    split fails the permutation test (p-value > level, shuffles seeded from ``sampling.seed``
    and the node id) becomes a leaf (S-pruning, docs/methods.md §6).
    ``stopping.min_impurity_decrease`` applies to the chosen split's gain, up to rounding (a
    relative ``TIE_TOLERANCE`` of the node's terms, as ``tie_scale``). Under monotonic
    constraints each node carries bounds: the scans admit only splits within them, and a split
    on a constrained feature bounds its children at the middle of their values
    (``monotonic.child_bounds``, docs/methods.md §4); a subtree grown apart starts from its
    root's bounds in ``monotonicity``. Best-first growth
    (``stopping.max_leaf_nodes`` >= 2) splits first the pending node whose split its rule
    ranks highest (``split_rules.split_ranking``: the score of gain-type rules, numerator /
    cost for cost-divided ones, free tests first, gain ratio for C4.5's), the oldest on ties.
    Nodes with fewer than ``engine.small_node_size`` samples are scanned on compact per-node
    histograms instead of pooled ones (same scan, same result, cost proportional to the node);
    the larger of them spread their features over ``engine.n_threads`` chunks.

    The loop stops early, and says why in ``engine.status`` (``records.STATUS_*``), when a
    scan meets a candidate whose impurity failed (a Custom criterion returning NaN, inf or a
    negative value) or when the per-node statistics would outgrow
    ``engine.max_node_stats_bytes``; the arrays returned then describe a partial tree.

    Returns the node arrays in creation order (node 0 the root, children after their parent):
    children_left, children_right, feature, bin_threshold, next_bin, missing_go_left,
    impurity, depth, stats, score, left_categories (the category bitset of a categorical
    split, ``treesmith._kernels.categorical``; zeros elsewhere), lower_bound, upper_bound (the
    bounds on each node's value; -inf, inf without constraints), deferred (bool: a leaf whose
    subtree is grown apart), start, end (each node's samples ``data.sample_idx[start:end]``).
    They are views of the loop's node storage; ``treesmith.grower.in_growth_order`` numbers
    them in preorder (depth-first) and lists the deferred leaves, in numpy: a renumbering
    kernel compiled into the loop cost 0.4 s of every first fit.
    """
    X_binned = data.X_binned
    sample_idx = data.sample_idx
    n_classes = data.n_classes
    h = impurity.h
    h_params = impurity.h_params
    n_features = X_binned.shape[1]
    n_samples = sample_idx.shape[0]
    n_stats = (2 * n_classes + rule.n_groups if n_classes > 0
               else data.sample_stats.shape[1])
    best_first = stopping.max_leaf_nodes > 0
    max_histograms = engine.max_histograms
    state = np.empty(1, dtype=np.uint64)
    state[0] = initial_state(sampling.seed)
    all_features = np.empty(n_features, dtype=np.int64)  # (no np.arange: compile time)
    for f in range(n_features):
        all_features[f] = f
    feature_order = np.empty(n_features, dtype=np.int64)
    feature_chosen = np.zeros(n_features, dtype=np.bool_)
    sampled_features = np.empty(n_features, dtype=np.int64)  # engine.choose_features' output

    # Counters start as np.int64: a Python int literal would make Numba compile every kernel
    # they are passed to once more, for the literal's type.
    # At most 2 n - 1 nodes (every leaf holds a sample) or 2 max_leaf_nodes - 1: the node arrays
    # never grow past that (one row of statistics per node is the largest of them).
    max_nodes = 2 * n_samples - 1
    if best_first:
        max_nodes = min(max_nodes, 2 * stopping.max_leaf_nodes - 1)
    # Rows of statistics the memory budget allows (treesmith.grower): growth stops, and the
    # caller raises, rather than outgrow it.
    budget_nodes = max(engine.max_node_stats_bytes // max(8 * n_stats, 1), 3)
    capacity = np.int64(min(64, max_nodes, budget_nodes))
    # The node fields (see _node_field_rows), written for each node when it is created; stats and
    # left_categories (categorical splits) are rows per node.
    int_block = np.empty((_N_INT_FIELDS, capacity), dtype=np.int64)
    float_block = np.empty((_N_FLOAT_FIELDS, capacity))
    bool_block = np.empty((_N_BOOL_FIELDS, capacity), dtype=np.bool_)
    (children_left, children_right, parent, feature, bin_threshold, next_bin, depth, start,
     end, slot, pending, heap_nodes, node_impurity, score, lower_bound, upper_bound,
     heap_keys, missing_go_left, deferred) = _node_field_rows(int_block, float_block, bool_block)
    stats = np.empty((capacity, n_stats))
    left_categories = np.empty((capacity, BITSET_WORDS), dtype=np.uint64)
    direction = monotonicity.direction
    n_pending = np.int64(0)

    # Histograms are allocated when a node needs one (the pool doubles, up to max_histograms):
    # a root with fewer than small_node_size samples never needs one.
    root_has_histogram = n_samples >= engine.small_node_size
    pool = np.empty((_initial_histogram_slots(n_samples, engine.small_node_size,
                                              max_histograms, stopping.max_depth)
                     if root_has_histogram else 0, n_features, bins.n_bins, n_stats))
    no_histogram = np.empty((0, 0, 0))
    n_used = np.int64(0)  # slots handed out so far
    free = np.empty(pool.shape[0], dtype=np.int64)  # stack of released slots
    n_free = np.int64(0)
    proportions = np.empty(max(n_classes, 1))
    results = np.empty(n_features, dtype=SPLIT_DTYPE)
    # every node's NodeScan.bin_order: the bins in their own order, which the scans of fits
    # with a categorical feature (twins that read bins through an order) read; the other
    # scans ignore it
    bin_identity = np.empty(bins.n_bins, dtype=np.int64)
    for b in range(bins.n_bins):
        bin_identity[b] = b
    path_costs = np.empty(n_features)
    n_cost_groups = 1
    for f in range(n_features):
        n_cost_groups = max(n_cost_groups, costs.cost_group[f] + 1)
    paid = np.zeros(n_cost_groups, dtype=np.bool_)
    buffer = np.empty(n_samples, dtype=np.int64)
    n_chunks = max(engine.n_threads, 1)
    any_categorical = False
    for f in range(n_features):
        any_categorical = any_categorical or bins.is_categorical[f]
    # one scratch block per thread chunk; with a categorical feature, with its scan's scratch;
    # with drawn thresholds, with the drawn split's (whose categorical scan is its own)
    if rule.threshold_draw.values.shape[0] > 0:
        work = random_scan_workspace(n_chunks, n_stats, n_classes, np.int64(bins.n_bins),
                                     min(engine.small_node_size, n_samples))
    elif any_categorical:
        work = categorical_scan_workspace(n_chunks, n_stats, n_classes, np.int64(bins.n_bins))
    else:
        work = scan_workspace(n_chunks, n_stats, n_classes)
    # The small-node scan's scratch and bitmap start zeroed (np.empty and loops: each np.zeros
    # signature compiles np.zeros, np.empty and a fill of its own).
    scratch = np.empty((n_chunks, bins.n_bins, n_stats))
    occupied = np.empty((n_chunks, (bins.n_bins + 63) // 64), dtype=np.uint64)
    for c in range(n_chunks):
        for b in range(bins.n_bins):
            for s in range(n_stats):
                scratch[c, b, s] = 0.0
        for w in range(occupied.shape[1]):
            occupied[c, w] = 0
    small_node_workspace = SmallNodeWorkspace(
        scratch, np.empty((n_chunks, bins.n_bins), dtype=np.int64),
        np.empty((n_chunks, bins.n_bins + 1, n_stats)), work, occupied)

    total_weight = scope.total_weight
    if total_weight <= 0.0:
        total_weight = total_weight_of(data.sample_weight, sample_idx)
    # classification statistics that are exact integers need no sum where parent - sibling
    # would do (``_integral_weights``)
    exact_sums = n_classes > 0 and _integral_weights(data.sample_weight, sample_idx)

    # Root.
    children_left[0] = LEAF
    children_right[0] = LEAF
    parent[0] = -1
    feature[0] = UNDEFINED
    bin_threshold[0] = NO_SPLIT
    next_bin[0] = NO_SPLIT
    missing_go_left[0] = False
    score[0] = 0.0
    node_impurity[0] = 0.0
    for w in range(BITSET_WORDS):
        left_categories[0, w] = 0
    slot[0] = -1
    deferred[0] = False
    start[0] = 0
    end[0] = n_samples
    depth[0] = scope.root_depth
    lower_bound[0] = monotonicity.lower
    upper_bound[0] = monotonicity.upper
    held = np.int64(0)
    if root_has_histogram:
        root_slot, n_used, n_free = _acquire(n_used, free, n_free)
        engine.build_histogram(data, start[0], end[0], pool[root_slot],
                               engine.parallel_threshold)
        slot[0] = root_slot
        held += 1
    if scope.root_stats.shape[0] > 0:  # a subtree grown apart starts from its parent's split
        for s in range(n_stats):
            stats[0, s] = scope.root_stats[s]
    elif root_has_histogram and n_classes > 0:
        _histogram_totals(pool[slot[0]], stats, np.int64(0))
    else:
        _sum_samples(data, start[0], end[0], stats, np.int64(0))
    n_nodes = np.int64(1)
    new_nodes = np.empty(2, dtype=np.int64)
    new_nodes[0] = 0
    n_new = np.int64(1)
    n_leaves = np.int64(1)

    # The loop runs in _grow_nodes, which allocates nothing: it returns when the node storage
    # or the histogram pool is full, and goes on where it stopped once they are grown here.
    counters = np.empty(_N_COUNTERS, dtype=np.int64)
    _store_counters(counters, n_nodes, n_new, n_pending, n_leaves, n_used, n_free, held)
    while True:
        need = _grow_nodes(data, bins, impurity, stopping, sampling, rule, costs, significance,
                           engine, scope, direction, int_block, float_block, bool_block, stats,
                           left_categories, pool, free, counters, new_nodes, capacity,
                           budget_nodes, no_histogram, all_features, feature_order,
                           feature_chosen, sampled_features, state, results, bin_identity,
                           path_costs, paid, buffer, work, small_node_workspace, proportions,
                           total_weight, exact_sums)
        if need == _NEED_HISTOGRAMS:
            size = min(max(2 * pool.shape[0], 1), max_histograms)
            pool = _resize_pool(pool, size)
            free = _grown_stack(free, size)
        elif need == _NEED_NODES:
            capacity = min(2 * capacity, max_nodes, budget_nodes)
            grown_int = np.empty((_N_INT_FIELDS, capacity), dtype=np.int64)
            _copy_bytes_into(int_block.view(np.uint8), grown_int.view(np.uint8))
            int_block = grown_int
            grown_float = np.empty((_N_FLOAT_FIELDS, capacity))
            _copy_bytes_into(float_block.view(np.uint8), grown_float.view(np.uint8))
            float_block = grown_float
            grown_bool = np.empty((_N_BOOL_FIELDS, capacity), dtype=np.bool_)
            _copy_bytes_into(bool_block.view(np.uint8), grown_bool.view(np.uint8))
            bool_block = grown_bool
            grown_stats = np.empty((capacity, n_stats))
            _copy_bytes_into(stats.view(np.uint8), grown_stats.view(np.uint8))
            stats = grown_stats
            grown_categories = np.empty((capacity, BITSET_WORDS), dtype=np.uint64)
            _copy_bytes_into(left_categories.view(np.uint8), grown_categories.view(np.uint8))
            left_categories = grown_categories
        else:
            break
    n_nodes = counters[_N_NODES]
    (children_left, children_right, parent, feature, bin_threshold, next_bin, depth, start,
     end, slot, pending, heap_nodes, node_impurity, score, lower_bound, upper_bound,
     heap_keys, missing_go_left, deferred) = _node_field_rows(int_block, float_block, bool_block)
    # Nodes left in the best-first frontier stay leaves. Leaf statistics are summed again over
    # their samples: the larger child of a split got parent - sibling, whose round-off would
    # otherwise show in predictions (e.g. -1e-12 for a leaf of zero labels); exact statistics
    # have none (``exact_sums``). Deferred leaves keep the statistics their parent's split gave
    # them: their subtree starts from those.
    for i in range(n_nodes):
        if children_left[i] == LEAF and not deferred[i]:
            if not exact_sums:
                _sum_samples(data, start[i], end[i], stats, i)
            node_impurity[i] = impurity_of(stats[i], n_classes, h, h_params, proportions)
            feature[i] = UNDEFINED
            bin_threshold[i] = NO_SPLIT
            next_bin[i] = NO_SPLIT
            missing_go_left[i] = False
            score[i] = 0.0
            for w in range(BITSET_WORDS):
                left_categories[i, w] = 0

    # Views of the first n_nodes columns: the caller renumbers them (grower.in_growth_order).
    return (children_left[:n_nodes], children_right[:n_nodes], feature[:n_nodes],
            bin_threshold[:n_nodes], next_bin[:n_nodes], missing_go_left[:n_nodes],
            node_impurity[:n_nodes], depth[:n_nodes], stats[:n_nodes], score[:n_nodes],
            left_categories[:n_nodes], lower_bound[:n_nodes], upper_bound[:n_nodes],
            deferred[:n_nodes], start[:n_nodes], end[:n_nodes])
