"""Named records at the kernel boundary: what the growth loop and the split scans take.

The compiled kernels take a handful of namedtuples instead of dozens of positional arguments.
Numba passes a namedtuple as a flat struct (fields are read at no cost, arrays inside are the
caller's arrays, not copies), types it field by field, and compiles a kernel once per
combination of field types, so the records are built with fixed Python types (``int``,
``float``, ``bool``, C-contiguous float64/int64 arrays) by ``treesmith.grower``.

The per-feature split result is a structured numpy dtype, ``SPLIT_DTYPE``: one record per
feature, fields read and written by name (``results[f]["bin_threshold"]``), each with its own
type, where a float matrix once held booleans and bin indices as floats.
"""

from collections import namedtuple

import numpy as np

#: Samples to grow on and their per-sample data (docs/methods.md §2).
#: ``X_binned`` (n_samples, n_features) uint8/uint16, Fortran order; ``sample_idx`` int64, the
#: rows with positive weight (the growth loop partitions it in place); ``y_code`` int64 class
#: codes (classification); ``sample_weight`` float64; ``sample_stats`` (n_samples, n_stats) the
#: regression criterion's per-sample statistics ((0, 0) for classification); ``group_code``
#: int64 ECART q-group of each sample (empty unless the rule needs groups, see
#: ``treesmith.rules``); ``n_classes`` (0 for regression).
TrainingData = namedtuple(
    "TrainingData",
    ["X_binned", "sample_idx", "y_code", "sample_weight", "sample_stats", "group_code",
     "n_classes"])

#: The binning of the features: ``n_bins`` histogram rows per feature (missing bin included),
#: ``missing_bin`` the row of missing values, ``n_bins_non_missing`` (int64 per feature),
#: ``is_categorical`` (bool per feature): the feature's bins are category codes, split by sets
#: of categories (``treesmith._kernels.categorical``) rather than by thresholds.
BinLayout = namedtuple("BinLayout",
                       ["n_bins", "missing_bin", "n_bins_non_missing", "is_categorical"])

#: The impurity h as a first-class function (``treesmith._dtypes.IMPURITY_FUNCTION_TYPE``)
#: and its float64 parameter vector.
Impurity = namedtuple("Impurity", ["h", "h_params"])

#: Stopping rules in absolute units (docs/methods.md §4): weights are absolute
#: (``min_weight_split`` is theta times the total weight), ``max_depth`` and
#: ``max_leaf_nodes`` < 0 mean unlimited, ``max_leaf_nodes`` >= 2 switches to best-first growth.
Stopping = namedtuple(
    "Stopping",
    ["max_depth", "min_samples_split", "min_samples_leaf", "min_weight_leaf",
     "min_weight_split", "min_impurity_decrease", "max_leaf_nodes"])

#: S-pruning (docs/methods.md §6): a node whose best split's permutation p-value exceeds
#: ``level`` becomes a leaf (``level`` 0: off), testing the best gain over all features when
#: ``over_features`` (the test: ``EngineSettings.significance_test``).
SignificanceTest = namedtuple("SignificanceTest", ["level", "n_permutations", "over_features"])

#: Per-node feature sampling: ``max_features`` non-constant features of a random permutation
#: drawn from a generator seeded with ``seed``.
FeatureSampling = namedtuple("FeatureSampling", ["max_features", "seed"])

#: Randomly drawn thresholds (extremely randomized trees, docs/methods.md §7): each examined
#: feature gets one cut drawn uniformly in value between the node's smallest and largest
#: value, with generators seeded from ``seed`` (the tree's) and the node
#: (``random_thresholds.draw_state``); ``values`` (n_features, n_bins) float64 is the value
#: of each non-missing bin in original units (``treesmith.splitters.bin_values``). Empty
#: ``values``: no draw, every threshold is scanned (``NO_THRESHOLD_DRAW``).
ThresholdDraw = namedtuple("ThresholdDraw", ["seed", "values"])

#: Best splits: no threshold is drawn.
NO_THRESHOLD_DRAW = ThresholdDraw(0, np.zeros((0, 0)))

#: The split rule (docs/methods.md §4) as the kernels see it: ``code``
#: (``split_rules.RULE_*``), ``parameters`` (float64, never empty; ECART: ``[lambda]``),
#: ECART's q groups ``group_q`` (float64; with ``n_groups`` 0 all objects share
#: ``group_q[0]``), whether the score is divided by the test cost (``divides_by_cost``),
#: whether the scan may skip cuts inside same-class runs (``skip_same_class_runs``, see
#: ``splitting.scan_feature``), and the candidates it scores: every threshold, or one drawn
#: threshold per feature (``threshold_draw``, a ``ThresholdDraw``; ``NO_THRESHOLD_DRAW`` when
#: omitted in Python). Built by ``treesmith.rules.kernel_rule``.
SplitRule = namedtuple(
    "SplitRule",
    ["code", "parameters", "group_q", "n_groups", "divides_by_cost", "skip_same_class_runs",
     "threshold_draw"],
    defaults=(NO_THRESHOLD_DRAW,))

#: Test costs (docs/methods.md §5): ``feature_cost`` float64 per feature, ``cost_group`` int64
#: acquisition group per feature, ``model`` (``treesmith._dtypes.COST_*``).
TestCosts = namedtuple("TestCosts", ["feature_cost", "cost_group", "model"])

#: How the engine runs, not what it computes: nodes with at least ``parallel_threshold``
#: sample-features build histograms on all threads; nodes with fewer than
#: ``small_node_size`` samples are scanned on compact per-node histograms instead of pooled
#: ones; ``n_threads``; at most ``max_histograms`` pooled histograms; the per-feature scan and
#: the small-node scan as function pointers (``treesmith._kernels.pointers``); at most
#: ``max_node_stats_bytes`` of per-node statistics rows; ``status``, an int64 array of
#: ``STATUS_SIZE`` in which the growth loop reports why it stopped early (``STATUS_*``); the
#: scan of a categorical feature (a never-called stub when no feature is categorical); and the
#: compiled functions the growth loop calls through pointers so that each is compiled once,
#: and only by the fits that use it: the feature sampler ``choose_features``
#: (``growth.choose_features``, or a stand-in without sampling), the S-pruning
#: ``significance_test`` (``permutation.node_is_significant``, or a stand-in without it),
#: ``build_histogram`` (``histogram.build_histogram``, or its serial twin when no node reaches
#: ``parallel_threshold``), and the best-first heap's ``heap_push`` and ``heap_pop``
#: (stand-ins in depth-first growth); and ``partition_categorical``, the partition of a node's
#: samples by a categorical split (``categorical.partition_categorical``, or a stand-in when
#: no feature is categorical). In a fit with a categorical feature ``scan`` is the scan's twin
#: that takes the bins in ``NodeScan.bin_order`` (the growth loop's nodes carry the identity),
#: which the categorical scan hands its categories to in key order: one scan compiled.
EngineSettings = namedtuple(
    "EngineSettings",
    ["parallel_threshold", "small_node_size", "n_threads", "max_histograms", "scan",
     "small_node_scan", "max_node_stats_bytes", "status", "categorical_scan",
     "choose_features", "significance_test", "build_histogram", "heap_push", "heap_pop",
     "partition_categorical"])

#: ``EngineSettings.status[STATUS_CODE]``: the tree grew completely (``GROWTH_COMPLETE``); a
#: candidate split's impurity was not finite or negative (``GROWTH_CRITERION_FAILED``: the
#: criterion failed; the node's samples are ``sample_idx[start:end]``, the scan of ``feature``
#: flagged it, or the S-pruning permutation test did, on shuffled labels, when
#: ``STATUS_IN_PERMUTATION_TEST`` is 1); or the node statistics would have outgrown
#: ``max_node_stats_bytes`` (``GROWTH_NODE_MEMORY``). The growth loop stops at once in both
#: failure cases, and the caller raises (``treesmith.grower``).
GROWTH_COMPLETE = 0
GROWTH_CRITERION_FAILED = 1
GROWTH_NODE_MEMORY = 2
STATUS_CODE, STATUS_NODE, STATUS_FEATURE, STATUS_START, STATUS_END, STATUS_DEPTH, \
    STATUS_N_NODES, STATUS_IN_PERMUTATION_TEST = range(8)
STATUS_SIZE = 8

#: Where one growth starts and where it stops, so that independent subtrees can be grown apart
#: (``treesmith.grower``, docs/methods.md §4): the root's depth ``root_depth``; the training
#: set's ``total_weight`` (scores are in probability units of the whole set, not of the
#: subtree); the root's statistics row ``root_stats`` as its parent's split left them (empty:
#: summed from the root's histogram); ``root_paid`` (bool per cost group) the groups tested on
#: the path above the root (empty: none); nodes other than the root with fewer than
#: ``defer_below`` samples, but not fewer than the small-node size (whose subtrees cost less
#: than setting up a task), are left unevaluated as *deferred* leaves, to be grown as subtrees
#: of their own (0: grow everything).
GrowthScope = namedtuple(
    "GrowthScope", ["root_depth", "total_weight", "root_stats", "root_paid", "defer_below"])

#: Monotonic constraints (docs/methods.md §4) as a node sees them: ``direction`` (int64 per
#: feature: +1 the node value must not decrease with the feature, -1 not increase, 0 free;
#: empty: no constraints at all, and the scans skip every check) and the node's bounds
#: ``[lower, upper]`` on the values of its descendants (-inf, inf at the root). The value is
#: the proportion of class 1 (binary classification) or the mean label
#: (``treesmith._kernels.monotonic``).
Monotonicity = namedtuple("Monotonicity", ["direction", "lower", "upper"])

#: No monotonic constraints: what a node of an unconstrained fit carries.
UNCONSTRAINED = Monotonicity(np.zeros(0, dtype=np.int64), -np.inf, np.inf)

#: Rows of a per-feature scan's scratch block (``splitting.scan_workspace``); the categorical
#: scan's own scratch follows them in a larger block (``categorical.categorical_scan_workspace``).
SCAN_WORK_ROWS = 7

#: No bin order: ``NodeScan.bin_order`` of records handed only to scans that take the bins in
#: their own order (they never read it); an in-order twin needs a real order.
NO_BIN_ORDER = np.zeros(0, dtype=np.int64)

#: What a per-feature scan needs to know about the node: the stats layout (``n_classes``,
#: 0 for regression), the impurity and the rule, the leaf-size constraints, the node's
#: ``w(S) h(S)``, the training set's total weight (scores are in probability units), the
#: node's statistics row ``totals`` (``treesmith._kernels.stats``), its monotonic
#: constraints (``Monotonicity``; ``UNCONSTRAINED`` when omitted in Python) and
#: ``bin_order``, the order in which a scan's twin ``*_in_order`` takes the histogram's
#: non-missing bins (position p holds bin ``bin_order[p]``; thresholds are then positions;
#: ``splitting.bin_at``). The other scans ignore it (``NO_BIN_ORDER`` when omitted in Python);
#: the growth loop's nodes carry the identity, and the categorical scan hands over its
#: categories in key order this way, without copying their rows.
NodeScan = namedtuple(
    "NodeScan",
    ["n_classes", "impurity", "rule", "min_samples_leaf", "min_weight_leaf",
     "weighted_parent_impurity", "total_weight", "totals", "monotonicity", "bin_order"],
    defaults=(UNCONSTRAINED, NO_BIN_ORDER))

#: Scratch of the small-node scan, one slice per thread chunk: ``scratch`` (n_chunks, n_bins,
#: n_stats) all zeros between uses, ``touched`` (n_chunks, n_bins) int64, ``compact``
#: (n_chunks, n_bins + 1, n_stats), and the per-feature scan scratch ``work`` (n_chunks, 7,
#: width), and ``occupied`` (n_chunks, ceil(n_bins / 64)) uint64, a bitmap of the bins a
#: node's samples occupy, all zeros between uses (built by ``splitting.small_node_workspace``).
SmallNodeWorkspace = namedtuple("SmallNodeWorkspace",
                                ["scratch", "touched", "compact", "work", "occupied"])

#: Best split of one feature (one record per feature): the rule's numerator ``score``, the
#: impurity ``gain`` p(S) Delta_h, the left child's weight, the threshold bin (``NO_SPLIT``:
#: no valid split; ``n_bins_non_missing - 1``: non-missing values left, missing right), the
#: next occupied bin after it when the scan knows it (small nodes; else ``NO_SPLIT``), the
#: side of missing values, and for a categorical feature (``bin_threshold`` then
#: ``categorical.CATEGORICAL_SPLIT``) the categories sent left as a 256-bit set
#: (``left_categories[c >> 6]`` bit ``c & 63`` for category code c).
#: Last, whether some candidate's gain was +inf or NaN (``impurity_failed``: the impurity
#: returned NaN, inf or a negative value there, which only a failing user criterion does).
SPLIT_DTYPE = np.dtype([
    ("score", np.float64),
    ("gain", np.float64),
    ("weight_left", np.float64),
    ("bin_threshold", np.int64),
    ("next_bin", np.int64),
    ("missing_go_left", np.bool_),
    ("left_categories", np.uint64, (4,)),
    ("impurity_failed", np.bool_),
], align=True)
