"""TreeGrower: wire binned data, a criterion, a split rule, costs and the stopping rules into
the compiled growth loop (as the named records of ``treesmith._kernels.records``), and turn its
output into a :class:`treesmith.tree.Tree` with thresholds in original units.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numba
import numpy as np

from ._dtypes import COST_PER_FEATURE, TREE_LEAF
from ._kernels.growth import SMALL_NODE_PARALLEL_WORK, _preorder, grow, total_weight_of
from ._kernels.pointers import (
    feature_sampling_pointer,
    heap_pointers,
    histogram_pointer,
    impurity_pointer,
    scan_pointer,
    significance_test_pointer,
    small_node_scan_pointer,
)
from ._kernels.records import (
    BinLayout,
    EngineSettings,
    FeatureSampling,
    GrowthScope,
    Impurity,
    SignificanceTest,
    Stopping,
    TestCosts,
    TrainingData,
)
from ._kernels.stats import (
    class_counts_slice,
    class_weights_slice,
    n_stats,
    node_counts,
    node_weights,
)
from .binning import BinMapper, midpoints
from .costs import ResolvedCosts, resolve_costs
from .criteria import Criterion
from .rules import Gain, Rule
from .rules._kernel import kernel_rule, skips_same_class_runs
from ._threading import run_tasks
from .tree import Tree

#: Nodes with at least this many (samples x features) build their histograms on all threads:
#: about half a millisecond of work, enough to amortise waking the threads even when other
#: processes share the cores (``benchmarks/bench_contention.py``).
PARALLEL_THRESHOLD = 1 << 18
#: Fits of at least this many grown samples x features grow their top and their subtrees
#: apart: nodes below ``n_samples / SUBTREE_TASKS`` samples (at least ``MIN_SUBTREE_SIZE``)
#: become independent subtrees, grown in parallel, largest first.
SUBTREE_MIN_WORK = 1 << 19
SUBTREE_TASKS = 64
MIN_SUBTREE_SIZE = 1024
#: A parallel_threshold no node reaches: subtrees run on one thread each.
_NEVER = np.iinfo(np.int64).max
#: Nodes with fewer samples than this get no pooled histogram: they are scanned on compact
#: per-node histograms built from their samples.
SMALL_NODE_SIZE = 256
#: Memory the histogram pool may use at most; pending nodes beyond it rebuild their histograms.
HISTOGRAM_POOL_BYTES = 512 * 2**20
#: Below that, the pool may use as much memory as the binned data, and at least this much: the
#: pool's memory then grows with the input, not with the tree's depth (1e5 x 50, full depth:
#: peak extra memory 2.9x the float32 input with 512 MB, 1.2x with 4 MB, same fit time).
MIN_HISTOGRAM_POOL_BYTES = 4 * 2**20
#: Histogram rows per feature (bins x statistics) for which SMALL_NODE_SIZE was measured
#: (256 bins, 3 classes).
REFERENCE_HISTOGRAM_ROWS = 256 * 6


def _small_node_size(n_bins: int, n_stats_: int, histogram_bytes: int) -> int:
    """Nodes with fewer samples than this are scanned without a pooled histogram.

    SMALL_NODE_SIZE, scaled up with the histogram's rows per feature (many classes make every
    histogram large); no pooled histograms at all when three would not fit in
    HISTOGRAM_POOL_BYTES (very wide data): nodes are then scanned from their samples, in
    memory proportional to the node, not to n_features x n_bins.
    """
    if 3 * histogram_bytes > HISTOGRAM_POOL_BYTES:
        return int(np.iinfo(np.int64).max)
    rows = n_bins * n_stats_
    return max(SMALL_NODE_SIZE, -(-SMALL_NODE_SIZE * rows // REFERENCE_HISTOGRAM_ROWS))


def _small_nodes_in_parallel(small_node_size: int, n_features: int, n_threads: int) -> bool:
    """Whether a small node (fewer than ``small_node_size`` samples) can reach the
    ``SMALL_NODE_PARALLEL_WORK`` sample-features above which the growth loop scans its
    features on several threads. When none can, the loop gets the small-node scan without a
    parallel region, which compiles faster (``pointers.small_node_scan_pointer``)."""
    return n_threads > 1 and (small_node_size - 1) * n_features >= SMALL_NODE_PARALLEL_WORK


def _histograms_in_parallel(n_samples: int, n_features: int, n_threads: int) -> bool:
    """Whether a node can have the ``PARALLEL_THRESHOLD`` sample-features from which the
    growth loop builds its histogram on several threads (the root has the most). When none
    can, the loop gets the histogram build without a parallel region, which compiles faster
    (``pointers.histogram_pointer``)."""
    return n_threads > 1 and n_samples * n_features >= PARALLEL_THRESHOLD


def _check_node_memory(n_samples: int, n_stats_: int, max_leaf_nodes: int, n_classes: int):
    """Refuse, before allocating, a tree whose node statistics alone (one row of n_stats
    float64 per node, twice: while growing and in the result) would exceed the machine's
    physical memory."""
    max_nodes = 2 * n_samples - 1
    if max_leaf_nodes > 0:
        max_nodes = min(max_nodes, 2 * max_leaf_nodes - 1)
    needed = 2 * max_nodes * n_stats_ * 8
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not available on this platform
        return
    if needed > physical:
        raise MemoryError(
            f"A tree on {n_samples} samples with {n_stats_} statistics per node "
            f"({n_classes} classes) may need {needed / 2**30:.1f} GiB for its node statistics, "
            f"more than this machine's {physical / 2**30:.1f} GiB. Limit the tree with "
            "max_leaf_nodes (or max_depth, min_samples_leaf), or merge rare classes.")


@dataclass
class StoppingRules:
    """Absolute stopping thresholds (docs/methods.md §4, §6) resolved from the estimator's
    parameters."""

    max_depth: int = -1  # -1: unlimited
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_weight_leaf: float = 0.0  # absolute weight
    min_weight_split: float = 0.0  # theta * total weight: nodes with p(S) <= theta stay leaves
    min_impurity_decrease: float = 0.0  # in probability units, like the score
    max_leaf_nodes: int = -1  # -1: depth-first growth without a leaf budget
    significance: float = 0.0  # S-pruning level s (0: off)
    n_permutations: int = 1000  # permutations of the S-pruning test
    significance_over_features: bool = False  # test the best gain over all features
    theta: float = 0.0  # min_weight_fraction_split (also ECART's truncation)

    def record(self) -> Stopping:
        """The kernels' ``Stopping`` record."""
        return Stopping(int(self.max_depth), int(self.min_samples_split),
                        int(self.min_samples_leaf), float(self.min_weight_leaf),
                        float(self.min_weight_split), float(self.min_impurity_decrease),
                        int(self.max_leaf_nodes))

    def significance_record(self) -> SignificanceTest:
        """The kernels' ``SignificanceTest`` record (S-pruning)."""
        return SignificanceTest(float(self.significance), int(self.n_permutations),
                                bool(self.significance_over_features))


class TreeGrower:
    """Grow one tree from binned data.

    Parameters
    ----------
    bin_mapper : fitted BinMapper of the training data.
    criterion : resolved Criterion object.
    n_classes : number of classes (0 for regression).
    rules : StoppingRules.
    rule : split rule object (treesmith.rules), gain when None.
    max_features : features examined per node (all when None).
    seed : int, seed of the per-node feature sampling (used when max_features < n_features).
    costs : ResolvedCosts (treesmith.costs), unit costs per test when None.
    """

    def __init__(self, bin_mapper: BinMapper, criterion: Criterion, n_classes: int,
                 rules: StoppingRules, rule: Rule | None = None, max_features: int | None = None,
                 seed: int = 0, costs: ResolvedCosts | None = None):
        self.bin_mapper = bin_mapper
        self.criterion = criterion
        self.n_classes = n_classes
        self.rules = rules
        self.rule = rule if rule is not None else Gain()
        self.max_features = max_features
        self.seed = seed
        self.costs = costs

    def grow(self, X_binned, y_code, sample_weight, sample_stats=None) -> Tree:
        """Grow on all samples with positive weight and return the fitted Tree."""
        X_binned = np.asfortranarray(X_binned)  # the kernels' layout (no copy from BinMapper)
        n_features = X_binned.shape[1]
        bin_mapper = self.bin_mapper
        rules = self.rules
        if sample_stats is None:
            sample_stats = np.zeros((0, 0), dtype=np.float64)
        sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
        skip_runs = skips_same_class_runs(self.rule, self.criterion, self.n_classes,
                                          rules.min_samples_leaf, rules.min_weight_leaf)
        rule, group_code = kernel_rule(self.rule, sample_weight, rules.theta, skip_runs)
        data = TrainingData(
            X_binned, np.flatnonzero(sample_weight > 0).astype(np.int64),
            np.ascontiguousarray(y_code, dtype=np.int64), sample_weight,
            np.ascontiguousarray(sample_stats, dtype=np.float64), group_code,
            int(self.n_classes))
        bins = BinLayout(int(bin_mapper.n_bins_), int(bin_mapper.missing_values_bin_idx_),
                         bin_mapper.n_bins_non_missing_.astype(np.int64))
        impurity = Impurity(impurity_pointer(self.criterion.impurity_function()),
                            np.ascontiguousarray(self.criterion.parameters(), dtype=np.float64))
        costs = self.costs or resolve_costs(None, None, "per_test", n_features)
        test_costs = TestCosts(np.ascontiguousarray(costs.feature_cost, dtype=np.float64),
                               np.ascontiguousarray(costs.cost_group, dtype=np.int64),
                               int(costs.cost_model))
        sampling = FeatureSampling(int(self.max_features or n_features), int(self.seed))
        row_width = n_stats(self.n_classes, rule.n_groups, sample_stats.shape[1])
        _check_node_memory(data.sample_idx.size, row_width, rules.max_leaf_nodes,
                           self.n_classes)
        histogram_bytes = n_features * bins.n_bins * row_width * 8
        n_threads = numba.get_num_threads()
        small_node_size = int(_small_node_size(bins.n_bins, row_width, histogram_bytes))
        stopping, significance = rules.record(), rules.significance_record()
        engine = EngineSettings(
            PARALLEL_THRESHOLD, small_node_size,
            n_threads, int(max(3, self._pool_bytes(X_binned) // max(histogram_bytes, 1))),
            scan_pointer(rule), small_node_scan_pointer(
                data, bins, _small_nodes_in_parallel(small_node_size, n_features, n_threads)),
            feature_sampling_pointer(data, bins, sampling, sampling.max_features < n_features),
            significance_test_pointer(data, bins, impurity, stopping, significance),
            histogram_pointer(data, _histograms_in_parallel(data.sample_idx.shape[0],
                                                            n_features, n_threads)),
            *heap_pointers(stopping.max_leaf_nodes > 0))
        records = (bins, impurity, stopping, sampling, rule, test_costs, significance)
        total_weight = float(total_weight_of(data.sample_weight, data.sample_idx))
        scope = GrowthScope(0, total_weight, np.zeros(0), np.zeros(0, dtype=np.bool_),
                            self._subtree_size(data.sample_idx.shape[0], n_features, sampling))
        out = grow(data, *records, engine, scope)
        nodes, deferred = out[:10], out[10:]
        if deferred[0].shape[0] > 0:
            nodes = self._grow_subtrees(nodes, deferred, data, records, engine, total_weight,
                                        test_costs, n_threads)
        return self._to_tree(n_features, *nodes)

    @staticmethod
    def _pool_bytes(X_binned) -> int:
        """Memory budget of the histogram pool (``HISTOGRAM_POOL_BYTES``,
        ``MIN_HISTOGRAM_POOL_BYTES``)."""
        return int(min(HISTOGRAM_POOL_BYTES, max(MIN_HISTOGRAM_POOL_BYTES, X_binned.nbytes)))

    def _subtree_size(self, n_samples, n_features, sampling) -> int:
        """Nodes below this many samples are grown as separate subtrees (0: none are).

        Only where the result cannot depend on the order nodes are grown in: depth-first growth
        without feature sampling or S-pruning (whose random draws follow that order). The size
        depends on the data only, never on the thread count, so trees do not either.
        """
        rules = self.rules
        if (rules.max_leaf_nodes > 0 or sampling.max_features < n_features
                or rules.significance > 0.0 or n_samples * n_features < SUBTREE_MIN_WORK):
            return 0
        return max(MIN_SUBTREE_SIZE, n_samples // SUBTREE_TASKS)

    def _grow_subtrees(self, top, deferred, data, records, engine, total_weight, test_costs,
                       n_threads):
        """Grow the subtree of every deferred leaf of ``top`` (largest first, on ``n_threads``
        threads: ``_threading.run_tasks``) and splice them in; node arrays in preorder."""
        deferred_node, deferred_start, deferred_end = deferred
        depth, stats = top[7], top[8]
        root_paid = self._paid_above(top, deferred_node, test_costs)
        subtree_engine = engine._replace(parallel_threshold=_NEVER, n_threads=1)

        def grow_subtree(t):
            subtree_data = data._replace(
                sample_idx=data.sample_idx[deferred_start[t]:deferred_end[t]])
            node = deferred_node[t]
            scope = GrowthScope(int(depth[node]), total_weight,
                                np.ascontiguousarray(stats[node]), root_paid[t], 0)
            return grow(subtree_data, *records, subtree_engine, scope)[:10]

        largest_first = np.argsort(deferred_start - deferred_end, kind="stable")
        grown = run_tasks(grow_subtree, largest_first, n_threads)
        subtrees = [None] * len(grown)
        for t, subtree in zip(largest_first, grown):
            subtrees[t] = subtree
        return _splice(top, deferred_node, subtrees)

    @staticmethod
    def _paid_above(top, deferred_node, test_costs):
        """Per deferred node, the cost groups tested on its path (per_feature costs; else an
        empty array)."""
        empty = np.zeros(0, dtype=np.bool_)
        if test_costs.model != COST_PER_FEATURE:
            return [empty] * deferred_node.shape[0]
        children_left, children_right, feature = top[0], top[1], top[2]
        parent = np.full(children_left.shape[0], -1, dtype=np.int64)
        internal = np.flatnonzero(children_left != TREE_LEAF)
        parent[children_left[internal]] = internal
        parent[children_right[internal]] = internal
        n_groups = int(test_costs.cost_group.max(initial=0)) + 1
        paid = []
        for node in deferred_node:
            groups = np.zeros(n_groups, dtype=np.bool_)
            ancestor = parent[node]
            while ancestor >= 0:
                groups[test_costs.cost_group[feature[ancestor]]] = True
                ancestor = parent[ancestor]
            paid.append(groups)
        return paid

    def _to_tree(self, n_features, children_left, children_right, feature, bin_threshold,
                 next_bin, missing_go_left, impurity, depth, stats, score) -> Tree:
        bins = self.bin_mapper
        internal = np.flatnonzero(children_left != TREE_LEAF)
        threshold = np.full(children_left.shape[0], np.nan)
        for node in internal:
            f, b, nb = feature[node], bin_threshold[node], next_bin[node]
            if nb < 0:  # non-missing values left, missing values right
                threshold[node] = np.inf
            elif bins.is_exact_[f]:
                values = bins.bin_values_[f]
                threshold[node] = midpoints(values[b:b + 1], values[nb:nb + 1])[0]
            else:
                threshold[node] = bins.bin_thresholds_[f][b]
        n_node_samples = node_counts(stats, self.n_classes)
        weighted_n = node_weights(stats, self.n_classes)
        if self.n_classes:
            class_weight_sums = stats[:, class_weights_slice(self.n_classes)]
            class_counts = stats[:, class_counts_slice(self.n_classes)]
            with np.errstate(invalid="ignore", divide="ignore"):
                value = np.where(weighted_n[:, None] > 0,
                                 class_weight_sums / weighted_n[:, None], 0.0)
        else:
            class_counts = np.zeros((stats.shape[0], 0))
            value = self.criterion.node_value(stats)[:, None]
        return Tree(
            n_features,
            self.n_classes,
            children_left=children_left,
            children_right=children_right,
            feature=feature,
            threshold=threshold,
            bin_threshold=bin_threshold,
            missing_go_left=missing_go_left.astype(bool),
            impurity=impurity,
            n_node_samples=n_node_samples,
            weighted_n_node_samples=weighted_n,
            value=value,
            class_counts=class_counts,
            depth=depth,
        )


def _splice(top, deferred_node, subtrees):
    """One tree from ``top`` (node arrays in preorder) and the subtree grown for each of its
    deferred leaves ``deferred_node``: the subtrees' nodes are appended, the pointers to each
    deferred leaf redirected to its subtree's root, and the whole renumbered in preorder."""
    n_top = top[0].shape[0]
    sizes = np.array([subtree[0].shape[0] for subtree in subtrees], dtype=np.int64)
    offsets = n_top + np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    redirect = np.arange(n_top, dtype=np.int64)
    redirect[deferred_node] = offsets
    children = []
    for column in (0, 1):
        parts = [np.where(top[column] != TREE_LEAF, redirect[top[column]], TREE_LEAF)]
        parts += [np.where(subtree[column] != TREE_LEAF, subtree[column] + offset, TREE_LEAF)
                  for subtree, offset in zip(subtrees, offsets)]
        children.append(np.concatenate(parts).astype(np.int64))
    fields = [np.concatenate([top[i]] + [subtree[i] for subtree in subtrees])
              for i in range(2, len(top))]
    n_nodes = children[0].shape[0]
    order = _preorder(children[0], children[1], n_nodes)[:n_nodes - deferred_node.shape[0]]
    new_id = np.full(n_nodes, TREE_LEAF, dtype=np.int64)
    new_id[order] = np.arange(order.shape[0])
    renumbered = [np.where(column[order] != TREE_LEAF, new_id[column[order]], TREE_LEAF)
                  for column in children]
    return tuple(renumbered + [field[order] for field in fields])
