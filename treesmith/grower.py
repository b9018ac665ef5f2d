"""TreeGrower: wire binned data, a criterion, a split rule, costs and the stopping rules into
the compiled growth loop (as the named records of ``treesmith._kernels.records``), and turn its
output into a :class:`treesmith.tree.Tree` with thresholds in original units.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import numba
import numpy as np

from ._criterion_failure import raise_criterion_failure
from ._dtypes import COST_PER_FEATURE, TREE_LEAF
from ._kernels.calls import kernel_call
from ._kernels.gather import gather_subtree
from ._kernels.growth import SMALL_NODE_PARALLEL_WORK, _preorder, total_weight_of
from ._kernels.growth import grow as _grow_kernel
from ._kernels.pointers import (
    categorical_partition_pointer,
    categorical_scan_pointer,
    feature_sampling_pointer,
    heap_pointers,
    histogram_pointer,
    impurity_pointer,
    random_categorical_scan_pointer,
    random_threshold_scan_pointer,
    significance_test_pointer,
    small_node_scan_pointer,
)
from ._kernels.records import (
    GROWTH_COMPLETE,
    GROWTH_CRITERION_FAILED,
    STATUS_CODE,
    STATUS_DEPTH,
    STATUS_END,
    STATUS_FEATURE,
    STATUS_IN_PERMUTATION_TEST,
    STATUS_N_NODES,
    STATUS_SIZE,
    STATUS_START,
    BinLayout,
    EngineSettings,
    FeatureSampling,
    GrowthScope,
    Impurity,
    Monotonicity,
    SignificanceTest,
    Stopping,
    TestCosts,
    ThresholdDraw,
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
from .rules._kernel import (
    kernel_rule,
    samples_candidates,
    scan_pointer_for,
    skips_same_class_runs,
)
from ._threading import run_tasks
from .monotonic import clip_values
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
#: Node arrays ``growth.grow`` returns before the deferred leaves.
_N_NODE_ARRAYS = 13
#: Position of the per-node statistics rows among them.
_STATS = 8
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
#: No pooled histograms when one histogram weighs more than this many times the binned data
#: (``_histogram_outweighs_data``). Measured: with 20 classes on 5k x 50 (histogram 16x the
#: binned data) the pool is half the fit's extra memory and saves no time
#: (``benchmarks/bench_memory.py --wide``: peak extra 13.9 -> 6.6 MB); on binary or 3-class
#: wide data (histogram 1.5-5x the binned data: 5k x 300, 2k x 1000, 8k x 100) fits without
#: the pool took 1.3-1.7x longer (``_small_node_size`` forced), so those keep it.
HISTOGRAM_DATA_RATIO = 8


def _histogram_outweighs_data(histogram_bytes: int, binned_bytes: int) -> bool:
    """Whether one node histogram (features x bins x statistics float64) outweighs the binned
    data (rows x features bytes) ``HISTOGRAM_DATA_RATIO`` times over: then the pool (at least
    three histograms) and the scan of every bin of every statistic cost more than building
    each node's compact histograms from its samples (many classes on few rows)."""
    return histogram_bytes > HISTOGRAM_DATA_RATIO * binned_bytes


def _small_node_size(n_bins: int, n_stats_: int, histogram_bytes: int,
                     samples_few_features: bool = False, binned_bytes: int | None = None) -> int:
    """Nodes with fewer samples than this are scanned without a pooled histogram.

    SMALL_NODE_SIZE, scaled up with the histogram's rows per feature (many classes make every
    histogram large); no pooled histograms at all when three would not fit in
    HISTOGRAM_POOL_BYTES (very wide data) or when one outweighs the binned data
    (``binned_bytes``, ``_histogram_outweighs_data``): nodes are then scanned from their
    samples, in memory proportional to the node, not to n_features x n_bins.

    No pooled histograms either when each node examines at most half of the features
    (``samples_few_features``, forests' ``max_features="sqrt"``): a pooled histogram costs the
    smaller child's samples x all features (the sibling by subtraction), the per-node
    histograms of the sampled features cost the node's samples x the sampled features only.
    Same splits either way; a forest tree on 1e5 x 50 with 7 features per node grows 5-8 %
    faster (``benchmarks/bench_forest.py``).
    """
    if (3 * histogram_bytes > HISTOGRAM_POOL_BYTES or samples_few_features
            or (binned_bytes is not None
                and _histogram_outweighs_data(histogram_bytes, binned_bytes))):
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


#: The per-node statistics rows (n_stats float64 per node: for classification the class weights
#: and counts, i.e. the fitted tree's ``value`` and ``class_counts``) may use at most this
#: fraction of the memory available when the fit starts. The fit holds about three copies of
#: them at its peak (the growth loop's rows, the renumbered result, the tree's arrays), so a
#: quarter leaves room for the rest; growth stops with a MemoryError rather than go beyond.
NODE_STATS_MEMORY_FRACTION = 0.25
#: The node statistics budget in bytes; None: ``NODE_STATS_MEMORY_FRACTION`` of the memory
#: available when the fit starts.
MAX_NODE_STATS_BYTES: int | None = None
#: A fit whose node statistics may reach this many bytes, and more than
#: ``LARGE_TREE_INPUT_RATIO`` times its float64 input, warns (``LargeTreeWarning``) before it
#: grows: many classes make every node's row long (10 000 classes and 10 000 samples: up to
#: 3.0 GiB for a tree on 76 MB of input).
LARGE_TREE_BYTES = 2**30
LARGE_TREE_INPUT_RATIO = 4


#: The growth kernel and the subtree gathering, called without Numba's typing of their
#: records on every call (``_kernels.calls``: ~0.2 ms of a fit on iris).
grow = kernel_call(_grow_kernel)
_gather_subtree = kernel_call(gather_subtree)
#: Trees whose node statistics cannot reach this many bytes (``worst_case_nodes``) are grown
#: without reading the available memory (``node_stats_budget``: a file read, ~50 us, longer
#: than growing a tree on iris): a budget this small could only bind on a machine that has no
#: memory left for anything else.
SMALL_TREE_STATS_BYTES = 16 * 2**20


class LargeTreeWarning(UserWarning):
    """A fit may build a tree whose per-node class arrays take gigabytes (many classes)."""


def _format_bytes(n_bytes: float) -> str:
    return (f"{n_bytes / 2**30:.1f} GiB" if n_bytes >= 2**30
            else f"{n_bytes / 2**20:.1f} MiB")


def refuse_beyond_memory(needed: float, what: str, remedy: str, detail: str = "") -> None:
    """ValueError "``what`` need at least <needed>``detail``, more than the <available> of
    memory available; ``remedy``" when ``needed`` bytes exceed what the system can give."""
    available = available_memory_bytes()
    if available is not None and needed > available:
        raise ValueError(f"{what} need at least {_format_bytes(needed)}{detail}, more than the "
                         f"{_format_bytes(available)} of memory available; {remedy}")


def available_memory_bytes() -> int | None:
    """Memory the system can give without swapping (Linux ``MemAvailable``; else free
    physical pages), or None when unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not available on this platform
        return None


def node_stats_budget() -> int:
    """Bytes the growth loop's per-node statistics may use (``MAX_NODE_STATS_BYTES``)."""
    if MAX_NODE_STATS_BYTES is not None:
        return int(MAX_NODE_STATS_BYTES)
    available = available_memory_bytes()
    if available is None:
        return int(np.iinfo(np.int64).max)
    return int(NODE_STATS_MEMORY_FRACTION * available)


def worst_case_nodes(n_samples: int, rules) -> int:
    """Most nodes the stopping rules allow: 2 L - 1 for at most L leaves (one sample, or
    min_samples_leaf samples, per leaf; max_leaf_nodes; 2^max_depth)."""
    leaves = max(1, n_samples // max(1, int(rules.min_samples_leaf)))
    if rules.max_leaf_nodes > 0:
        leaves = min(leaves, int(rules.max_leaf_nodes))
    if 0 <= rules.max_depth < 62:
        leaves = min(leaves, 2 ** int(rules.max_depth))
    return 2 * leaves - 1


def _warn_large_tree(n_samples, n_features, n_stats_, n_classes, rules):
    """``LargeTreeWarning`` when the tree's per-node statistics may take gigabytes."""
    nodes = worst_case_nodes(n_samples, rules)
    size = nodes * n_stats_ * 8
    if size < max(LARGE_TREE_BYTES, LARGE_TREE_INPUT_RATIO * 8 * n_samples * n_features):
        return
    warnings.warn(
        f"A tree on {n_samples} samples with {n_classes} classes may have up to {nodes} "
        f"nodes, whose per-node class statistics ({n_stats_} float64 per node; value and "
        f"class_counts of the fitted tree) take up to {_format_bytes(size)}, and whose growth "
        "takes time proportional to nodes x classes. Limit the tree with max_leaf_nodes, "
        "max_depth or min_samples_leaf, or merge rare classes.",
        LargeTreeWarning, stacklevel=4)


def _node_memory_error(n_samples, n_stats_, n_classes, n_nodes, budget):
    row = n_stats_ * 8
    return MemoryError(
        f"A tree on {n_samples} samples with {n_classes} classes outgrew the memory budget of "
        f"its per-node statistics ({n_stats_} float64 per node): {n_nodes} nodes use "
        f"{_format_bytes(n_nodes * row)} and the next split would exceed the budget of "
        f"{_format_bytes(budget)} (grower.MAX_NODE_STATS_BYTES, by default "
        f"{NODE_STATS_MEMORY_FRACTION:.0%} of the memory available when the fit starts), at "
        f"most {budget // row} nodes. Growth stopped before "
        "allocating more. Limit the tree with max_leaf_nodes (or max_depth, min_samples_leaf), "
        "or merge rare classes.")


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
    monotonic_cst : None or int array of -1, 0, 1 per feature, the monotonic constraints on
        the node value (class 1's proportion, binary classification; the mean label,
        regression), checked by the estimators (docs/methods.md §4).
    threshold_values : None, or the (n_features, n_bins) value of each bin
        (``treesmith.splitters.bin_values``): each examined feature then gets one split
        drawn at random, seeded from ``seed`` and the node (extremely randomized trees,
        ``treesmith._kernels.random_thresholds``, docs/methods.md §7).
    """

    def __init__(self, bin_mapper: BinMapper, criterion: Criterion, n_classes: int,
                 rules: StoppingRules, rule: Rule | None = None, max_features: int | None = None,
                 seed: int = 0, costs: ResolvedCosts | None = None, monotonic_cst=None,
                 feature_names=None, threshold_values=None):
        self.bin_mapper = bin_mapper
        self.criterion = criterion
        self.n_classes = n_classes
        self.rules = rules
        self.rule = rule if rule is not None else Gain()
        self.max_features = max_features
        self.seed = seed
        self.costs = costs
        self.monotonic_cst = monotonic_cst
        self.feature_names = feature_names
        self.threshold_values = threshold_values

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
        rule, group_code = kernel_rule(self.rule, sample_weight, rules.theta, skip_runs,
                                       self.seed)
        data = TrainingData(
            X_binned, np.flatnonzero(sample_weight > 0).astype(np.int64),
            np.ascontiguousarray(y_code, dtype=np.int64), sample_weight,
            np.ascontiguousarray(sample_stats, dtype=np.float64), group_code,
            int(self.n_classes))
        bins = BinLayout(int(bin_mapper.n_bins_), int(bin_mapper.missing_values_bin_idx_),
                         bin_mapper.n_bins_non_missing_.astype(np.int64),
                         np.ascontiguousarray(bin_mapper.categorical_mask(), dtype=np.bool_))
        impurity = Impurity(impurity_pointer(self.criterion.impurity_function()),
                            np.ascontiguousarray(self.criterion.parameters(), dtype=np.float64))
        costs = self.costs or resolve_costs(None, None, "per_test", n_features)
        test_costs = TestCosts(np.ascontiguousarray(costs.feature_cost, dtype=np.float64),
                               np.ascontiguousarray(costs.cost_group, dtype=np.int64),
                               int(costs.cost_model))
        sampling = FeatureSampling(int(self.max_features or n_features), int(self.seed))
        row_width = n_stats(self.n_classes, rule.n_groups, sample_stats.shape[1])
        _warn_large_tree(data.sample_idx.size, n_features, row_width, self.n_classes, rules)
        budget = self._node_stats_budget(data.sample_idx.size, row_width)
        histogram_bytes = n_features * bins.n_bins * row_width * 8
        n_threads = numba.get_num_threads()
        small_node_size = int(_small_node_size(bins.n_bins, row_width, histogram_bytes,
                                               2 * sampling.max_features <= n_features,
                                               X_binned.nbytes))
        stopping, significance = rules.record(), rules.significance_record()
        has_categorical = bool(bins.is_categorical.any())
        # with a categorical feature, every feature is scanned by the twin that reads bins in
        # NodeScan.bin_order (the identity for numeric features): one scan to compile, not two
        drawn = self.threshold_values is not None
        if drawn:  # extremely randomized trees: one drawn split per examined feature
            rule = rule._replace(threshold_draw=ThresholdDraw(
                int(self.seed), np.ascontiguousarray(self.threshold_values, dtype=np.float64)))
            scan = random_threshold_scan_pointer()
            categorical_scan = random_categorical_scan_pointer(has_categorical)
        else:
            scan = scan_pointer_for(self.rule, rule, self.criterion.impurity_function(),
                                    self._unit_weight_scan(data), in_order=has_categorical)
            categorical_scan = categorical_scan_pointer(
                has_categorical, self.n_classes > 2, every_candidate=samples_candidates(self.rule))
        engine = EngineSettings(
            PARALLEL_THRESHOLD, small_node_size, n_threads,
            int(max(3, self._pool_bytes(X_binned) // max(histogram_bytes, 1))),
            scan,
            small_node_scan_pointer(
                data, bins, _small_nodes_in_parallel(small_node_size, n_features, n_threads),
                random_thresholds=drawn),
            budget, np.zeros(STATUS_SIZE, dtype=np.int64),
            categorical_scan,
            feature_sampling_pointer(data, bins, sampling, sampling.max_features < n_features,
                                     visiting=drawn),
            significance_test_pointer(data, bins, impurity, stopping, significance),
            histogram_pointer(data, _histograms_in_parallel(data.sample_idx.shape[0],
                                                            n_features, n_threads),
                              needed=data.sample_idx.shape[0] >= small_node_size),
            *heap_pointers(stopping.max_leaf_nodes > 0),
            categorical_partition_pointer(data, has_categorical))
        records = (bins, impurity, stopping, sampling, rule, test_costs, significance)
        total_weight = float(total_weight_of(data.sample_weight, data.sample_idx))
        scope = GrowthScope(0, total_weight, np.zeros(0), np.zeros(0, dtype=np.bool_),
                            self._subtree_size(data.sample_idx.shape[0], n_features, sampling))
        monotonicity = self._monotonicity()
        out = grow(data, *records, engine, scope, monotonicity)
        self._check_status(engine.status, data, bins, budget, row_width)
        # Without deferred leaves the statistics rows (n_classes x 2 float64 per node, the
        # largest node array) stay in creation order: _to_tree reads them through the
        # preorder numbering instead of a reordered copy.
        splice = bool(out[_N_NODE_ARRAYS].any())
        nodes, deferred, order = in_growth_order(out, best_first=stopping.max_leaf_nodes > 0,
                                                 reorder_stats=splice)
        del out
        if splice:
            nodes = self._grow_subtrees(nodes, deferred, data, records, engine, total_weight,
                                        test_costs, n_threads, monotonicity, budget)
            return self._to_tree(n_features, *nodes)
        return self._to_tree(n_features, *nodes, stats_order=order)

    def _node_stats_budget(self, n_samples: int, row_width: int) -> int:
        """``node_stats_budget()``, or no budget (the int64 maximum) when the tree's node
        statistics cannot reach ``SMALL_TREE_STATS_BYTES`` and no ``MAX_NODE_STATS_BYTES`` is
        set."""
        if (MAX_NODE_STATS_BYTES is None and worst_case_nodes(n_samples, self.rules)
                * row_width * 8 <= SMALL_TREE_STATS_BYTES):
            return int(np.iinfo(np.int64).max)
        return node_stats_budget()

    def _check_status(self, status, data, bins, budget, row_width):
        """Raise when the growth loop stopped early (``records.STATUS_*``): a failed
        impurity (``CriterionFailure``, explained from the node's samples) or the node
        statistics budget (``MemoryError``)."""
        code = status[STATUS_CODE]
        if code == GROWTH_COMPLETE:
            return
        if code == GROWTH_CRITERION_FAILED:
            raise_criterion_failure(self.criterion, data, int(status[STATUS_FEATURE]),
                                    int(status[STATUS_START]), int(status[STATUS_END]),
                                    int(status[STATUS_DEPTH]), bins, self.feature_names,
                                    in_permutation_test=bool(status[STATUS_IN_PERMUTATION_TEST]))
        raise _node_memory_error(data.sample_idx.size, row_width, self.n_classes,
                                 int(status[STATUS_N_NODES]), budget)

    def _unit_weight_scan(self, data) -> bool:
        """Whether the fit may use the scan for unit sample weights
        (``splitting.scan_feature_unit_weights``): classification, no ECART groups and no
        monotonic constraint (that scan checks none), and every grown sample weighs exactly 1
        (then a histogram's weight columns equal its count columns, bit for bit) or, with
        ``min_samples_leaf`` 1, an integer of at least 1 summing below 2^53 (a forest's
        bootstrap multiplicities: every sum is exact, a weight column is 0 exactly where its
        count column is, and a child holds a row exactly when its weight reaches 1)."""
        if self.n_classes <= 0 or data.group_code.shape[0] > 0:
            return False
        if self.monotonic_cst is not None and np.any(np.asarray(self.monotonic_cst) != 0):
            return False
        weight = data.sample_weight[data.sample_idx]
        if np.all(weight == 1.0):
            return True
        return bool(self.rules.min_samples_leaf <= 1 and np.all(weight >= 1.0)
                    and np.all(weight == np.floor(weight)) and weight.sum() < 2.0**53)

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

    def _monotonicity(self) -> Monotonicity:
        """The kernels' ``Monotonicity`` record of the root: the constraints' directions (empty
        when there are none) and unbounded values."""
        if self.monotonic_cst is None:
            direction = np.zeros(0, dtype=np.int64)
        else:
            direction = np.ascontiguousarray(self.monotonic_cst, dtype=np.int64)
        return Monotonicity(direction, -np.inf, np.inf)

    def _grow_subtrees(self, top, deferred, data, records, engine, total_weight, test_costs,
                       n_threads, monotonicity, budget):
        """Grow the subtree of every deferred leaf of ``top`` (largest first, on ``n_threads``
        threads: ``_threading.run_tasks``) and splice them in; node arrays in preorder. Each
        subtree starts from its root's depth, statistics, paid cost groups and bounds."""
        deferred_node, deferred_start, deferred_end = deferred
        depth, stats = top[7], top[8]
        lower_bound, upper_bound = top[11], top[12]
        root_paid = self._paid_above(top, deferred_node, test_costs)
        # The n_threads subtrees grown at once share the pool's memory budget (a smaller pool
        # only makes pending nodes rebuild histograms: same splits).
        subtree_histograms = max(3, engine.max_histograms // n_threads)
        def grow_subtree(t):
            subtree_data = _gather_subtree(data, deferred_start[t], deferred_end[t])
            node = deferred_node[t]
            scope = GrowthScope(int(depth[node]), total_weight,
                                np.ascontiguousarray(stats[node]), root_paid[t], 0)
            bounds = monotonicity._replace(lower=float(lower_bound[node]),
                                           upper=float(upper_bound[node]))
            subtree_engine = engine._replace(parallel_threshold=_NEVER, n_threads=1,
                                             max_histograms=subtree_histograms,
                                             status=np.zeros(STATUS_SIZE, dtype=np.int64))
            subtree, _, _ = in_growth_order(
                grow(subtree_data, *records, subtree_engine, scope, bounds), best_first=False)
            # The gathered rows are kept only to explain a failed growth: a full-depth fit
            # would otherwise hold a copy of the whole binned data until the splice.
            failed = subtree_engine.status[STATUS_CODE] != GROWTH_COMPLETE
            return subtree, subtree_engine, subtree_data if failed else None

        largest_first = np.argsort(deferred_start - deferred_end, kind="stable")
        grown = run_tasks(grow_subtree, largest_first, n_threads)
        subtrees = [None] * len(grown)
        for t, (subtree, subtree_engine, subtree_data) in zip(largest_first, grown):
            subtrees[t] = subtree
        # Statuses in the order one depth-first growth would have met the subtrees (right
        # before left: decreasing preorder), never in the order threads finished, so the
        # error raised does not depend on the thread count.
        by_node = sorted(zip(largest_first, grown), key=lambda pair: -pair[0])
        for _, (_, subtree_engine, subtree_data) in by_node:
            if subtree_data is not None:
                self._check_status(subtree_engine.status, subtree_data, records[0], budget,
                                   stats.shape[1])
        del grown, by_node  # ``subtrees`` holds the only references: _splice frees as it goes
        n_nodes = top[0].shape[0] + sum(subtree[0].shape[0] for subtree in subtrees)
        if n_nodes * stats.shape[1] * 8 > budget:
            raise _node_memory_error(data.sample_idx.size, stats.shape[1], self.n_classes,
                                     n_nodes, budget)
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
                 next_bin, missing_go_left, impurity, depth, stats, score,
                 left_categories=None, lower_bound=None, upper_bound=None,
                 stats_order=None) -> Tree:
        """The ``Tree`` of the growth kernel's node arrays, thresholds in original units
        (``left_categories`` None: no split by a set of categories, as from kernels that split
        numbers only); with monotonic constraints, node values clipped to their bounds
        ``[lower_bound, upper_bound]`` (``treesmith.monotonic.clip_values``).

        ``stats_order``: node ``i``'s statistics are row ``stats_order[i]`` of ``stats`` (None:
        row ``i``), so that the growth loop's rows need no reordered copy
        (``in_growth_order``)."""
        bins = self.bin_mapper
        n_nodes = children_left.shape[0]
        if left_categories is None:
            left_categories = np.zeros((n_nodes, 4), dtype=np.uint64)
        if stats_order is None:
            stats_order = np.arange(n_nodes, dtype=np.int64)
        threshold = _thresholds(bins, children_left, feature, bin_threshold, next_bin)
        n_node_samples = node_counts(stats, self.n_classes)[stats_order]
        weighted_n = node_weights(stats, self.n_classes)[stats_order]
        # Fresh arrays that the tree adopts without copying: with many classes value and
        # class_counts (n_nodes x n_classes each) are the largest arrays of the fit.
        if self.n_classes:
            class_counts = np.take(stats[:, class_counts_slice(self.n_classes)], stats_order,
                                   axis=0)
            value = np.take(stats[:, class_weights_slice(self.n_classes)], stats_order, axis=0)
            weighed = weighted_n > 0
            np.divide(value, weighted_n[:, None], out=value, where=weighed[:, None])
            value[~weighed] = 0.0
        else:
            class_counts = np.zeros((n_nodes, 0))
            value = np.ascontiguousarray(self.criterion.node_value(stats)[stats_order, None])
        if self.monotonic_cst is not None and lower_bound is not None:
            clip_values(value, lower_bound, upper_bound)
        return Tree._adopting(
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
            left_categories=left_categories,
        )


def in_growth_order(out, best_first: bool, reorder_stats: bool = True):
    """The node arrays ``growth.grow`` returns (creation order) numbered as the tree keeps
    them: in depth-first preorder (scikit-learn's numbering), or in creation order for
    best-first growth; and the deferred leaves ``(deferred_node, deferred_start,
    deferred_end)`` (new ids, in preorder, and their sample ranges).

    Returns ``(nodes, deferred, order)``, ``nodes`` the ``_N_NODE_ARRAYS`` arrays
    children_left, children_right, feature, bin_threshold, next_bin, missing_go_left,
    impurity, depth, stats, score, left_categories, lower_bound, upper_bound, and ``order``
    the creation index of each new id. With ``reorder_stats`` False, ``stats`` is left in
    creation order (node ``i``'s row is ``stats[order[i]]``): with many classes it is the
    largest node array, and ``TreeGrower._to_tree`` reads it through ``order`` instead of a
    reordered copy. In numpy, like ``_splice``: a renumbering kernel compiled into the growth
    loop cost 0.4 s of every first fit, and this is a few array passes.
    """
    children_left, children_right = out[0], out[1]
    n_nodes = children_left.shape[0]
    if best_first:
        order = np.arange(n_nodes, dtype=np.int64)
    else:
        order = _preorder(children_left, children_right, n_nodes)
    new_id = np.empty(n_nodes, dtype=np.int64)
    new_id[order] = np.arange(n_nodes, dtype=np.int64)
    children = []
    for column in (children_left, children_right):
        child = np.take(column, order)
        internal = child != TREE_LEAF
        child[internal] = np.take(new_id, child[internal])
        children.append(child)
    # np.take, not fancy indexing: 7-14x faster on the (n_nodes, k) arrays
    nodes = tuple(children + [
        field if position == _STATS and not reorder_stats else np.take(field, order, axis=0)
        for position, field in enumerate(out[2:_N_NODE_ARRAYS], start=2)])
    deferred = np.flatnonzero(np.take(out[_N_NODE_ARRAYS], order)).astype(np.int64)
    created = np.take(order, deferred)
    start, end = (np.take(field, created) for field in out[_N_NODE_ARRAYS + 1:])
    return nodes, (deferred, start, end), order


def _splice(top, deferred_node, subtrees):
    """One tree from ``top`` (node arrays in preorder) and the subtree grown for each of its
    deferred leaves ``deferred_node``: the subtrees' nodes are appended, the pointers to each
    deferred leaf redirected to its subtree's root, and the whole renumbered in preorder.

    Each part is written straight to its place in the output (no concatenated copy of every
    node array first), and ``subtrees`` is emptied as its parts are written, so the peak is
    the parts plus the output: the node arrays are the largest allocation of a full-depth fit
    after the binned data.
    """
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
    n_nodes = children[0].shape[0]
    order = _preorder(children[0], children[1], n_nodes)[:n_nodes - deferred_node.shape[0]]
    new_id = np.full(n_nodes, TREE_LEAF, dtype=np.int64)
    new_id[order] = np.arange(order.shape[0])
    renumbered = [np.where(column[order] != TREE_LEAF, new_id[column[order]], TREE_LEAF)
                  for column in children]
    del children
    n_kept = order.shape[0]
    fields = [np.empty((n_kept,) + field.shape[1:], dtype=field.dtype) for field in top[2:]]
    kept_top = new_id[:n_top] != TREE_LEAF  # the deferred leaves are replaced by subtrees
    for out, field in zip(fields, top[2:]):
        out[new_id[:n_top][kept_top]] = field[kept_top]
    for t, offset in enumerate(offsets):
        destination = new_id[offset:offset + sizes[t]]
        for out, field in zip(fields, subtrees[t][2:]):
            out[destination] = field
        subtrees[t] = None
    return tuple(renumbered + fields)


def _thresholds(bins: BinMapper, children_left, feature, bin_threshold, next_bin):
    """Each node's threshold in original units (NaN for leaves and splits by a set of
    categories): ``x <= threshold`` goes left exactly when ``bin <= bin_threshold`` does.

    An approximately binned feature's threshold is its bin's upper edge; an exactly binned
    one's the midpoint between the bin's value and the next occupied bin's (``next_bin``);
    ``next_bin < 0`` marks the split "non-missing left, missing right" (+inf). A few array
    operations over all splits, reading the edges and the bin values packed into one array
    each (``BinMapper._packed_thresholds``, ``_packed_values``): a pass over the nodes per
    split feature took 0.9 ms of a 13 000-node tree on 2e4 x 20 (0.1 ms now).
    """
    threshold = np.full(children_left.shape[0], np.nan)
    internal = np.flatnonzero(children_left != TREE_LEAF)
    numeric = internal[~bins.categorical_mask()[feature[internal]]]
    threshold[numeric[next_bin[numeric] < 0]] = np.inf
    numeric = numeric[next_bin[numeric] >= 0]
    split_feature = feature[numeric]
    exact = bins.is_exact_[split_feature]
    edges, edge_offsets = bins._packed_thresholds()
    quantile = numeric[~exact]
    threshold[quantile] = edges[edge_offsets[split_feature[~exact]] + bin_threshold[quantile]]
    nodes = numeric[exact]
    if nodes.shape[0]:
        values, value_offsets = bins._packed_values()
        offset = value_offsets[split_feature[exact]]
        threshold[nodes] = midpoints(values[offset + bin_threshold[nodes]],
                                     values[offset + next_bin[nodes]])
    return threshold

