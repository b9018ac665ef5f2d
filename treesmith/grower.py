"""TreeGrower: wire binned data, a criterion and the stopping rules into the compiled growth loop,
and turn its output into a :class:`treesmith.tree.Tree` with thresholds in original units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ._dtypes import (
    RULE_COST_BENEFIT,
    RULE_ECART,
    RULE_GAIN,
    RULE_GAIN_RATIO,
    TREE_LEAF,
)
from ._kernels.growth import grow
from ._kernels.permutation import node_test_pointer
from ._kernels.splitting import scan_pointer, sparse_scan_pointer
from .binning import BinMapper, midpoints
from .costs import ResolvedCosts, resolve_costs
from .criteria import Criterion
from .criteria._compiled import pointer_to
from .tree import Tree

#: Nodes with at least this many (samples x features) use the multi-threaded kernels.
PARALLEL_THRESHOLD = 1 << 16
#: Nodes with fewer samples than this are scanned on compact per-node histograms.
SPARSE_THRESHOLD = 256
#: Memory the histogram pool may use; pending nodes beyond it rebuild their histograms.
HISTOGRAM_POOL_BYTES = 512 * 2**20

#: Impurity function -> the first-class function the growth kernel takes (one per process).
_POINTERS: dict = {}


def impurity_pointer(function):
    """The first-class function the growth kernel takes for an impurity function.

    The kernel takes the impurity as a function pointer so that one compiled (and cached)
    kernel serves every criterion. The pointer is the entry point of the impurity's own
    compile result (``treesmith.criteria._compiled``): the first call for a criterion compiles
    it or loads it from Numba's cache, and nothing else; user-defined criteria, which are
    compiled when they are constructed, cost nothing more.
    """
    try:
        return _POINTERS[function]
    except (KeyError, TypeError):
        pass
    pointer = pointer_to(function)
    try:
        _POINTERS[function] = pointer
    except TypeError:  # unhashable callable
        pass
    return pointer


def skips_same_class_runs(criterion: Criterion, rules: "StoppingRules", n_classes: int) -> bool:
    """Whether the scan may skip cuts inside same-class runs (see ``scan_feature``).

    Valid for the gain of a strictly concave impurity of the class proportions (a merely
    concave one such as misclassification has exact ties inside runs, which the lowest-threshold
    rule must see) when no leaf-size constraint can make a run's end infeasible. Criteria declare
    it with a ``strictly_concave`` attribute (bool or method).
    """
    concave = getattr(criterion, "strictly_concave", None)
    if callable(concave):
        concave = concave()
    if concave is None:
        concave = criterion.name in ("gini", "entropy")
    gain_based = rules.rule_code in (RULE_GAIN, RULE_GAIN_RATIO, RULE_COST_BENEFIT)
    return bool(concave) and gain_based and n_classes > 0 and rules.min_samples_leaf <= 1 \
        and rules.min_weight_leaf <= 0.0


#: ECART keeps per-bin weights for each distinct q_i = max(p(x_i), theta); more groups than
#: this would make histograms too large.
MAX_ECART_GROUPS = 256


def ecart_groups(sample_weight: np.ndarray, theta: float):
    """Group objects by q_i = max(p(x_i), theta) for ECART's E term (SPEC §4).

    Returns ``(group_code, group_q)``: one code per sample and the distinct q values; when all
    positive-weight objects share one q the code array is empty (the kernel then uses the
    children's weights directly).
    """
    positive = sample_weight > 0
    q = np.maximum(sample_weight / sample_weight[positive].sum(), theta)
    group_q, code = np.unique(q[positive], return_inverse=True)
    if group_q.size == 1:
        return np.zeros(0, dtype=np.int64), group_q.astype(np.float64)
    if group_q.size > MAX_ECART_GROUPS:
        raise ValueError(
            f"split_rule='ecart' needs the objects' probabilities p(x) grouped by "
            f"q = max(p(x), theta), but they take {group_q.size} distinct values above "
            f"theta={theta!r} (at most {MAX_ECART_GROUPS}). Raise min_weight_fraction_split "
            "(theta) or coalesce identical objects (treesmith.preprocessing.coalesce).")
    codes = np.zeros(sample_weight.shape[0], dtype=np.int64)
    codes[positive] = code
    return codes, group_q.astype(np.float64)


@dataclass
class StoppingRules:
    """Absolute stopping thresholds (SPEC §4) resolved from the estimator's parameters."""

    max_depth: int = -1  # -1: unlimited
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_weight_leaf: float = 0.0  # absolute weight
    min_weight_split: float = 0.0  # theta * total weight: nodes with p(S) <= theta stay leaves
    min_impurity_decrease: float = 0.0  # in probability units, like the score
    max_leaf_nodes: int = -1  # -1: depth-first growth without a leaf budget
    max_features: int = 0  # number of features scanned per node
    significance: float = 0.0  # S-pruning level s (0: off)
    n_permutations: int = 1000  # permutations of the S-pruning test
    significance_over_features: bool = False  # test the best gain over all features
    rule_code: int = RULE_GAIN  # split-selection rule (treesmith._dtypes.RULE_*)
    rule_parameters: np.ndarray = None  # the rule's parameter vector (ECART: [lambda])
    theta: float = 0.0  # min_weight_fraction_split, also ECART's truncation


class TreeGrower:
    """Grow one tree from binned data.

    Parameters
    ----------
    bin_mapper : fitted BinMapper of the training data.
    criterion : resolved Criterion object.
    n_classes : number of classes (0 for regression).
    rules : StoppingRules.
    seed : int, seed of the per-node feature sampling (used when max_features < n_features).
    costs : ResolvedCosts (treesmith.costs), unit costs per test when None.
    """

    def __init__(self, bin_mapper: BinMapper, criterion: Criterion, n_classes: int,
                 rules: StoppingRules, seed: int = 0, costs: ResolvedCosts | None = None):
        self.bin_mapper = bin_mapper
        self.criterion = criterion
        self.n_classes = n_classes
        self.rules = rules
        self.seed = seed
        self.costs = costs

    def grow(self, X_binned, y_code, sample_weight, sample_stats=None) -> Tree:
        """Grow on all samples with positive weight and return the fitted Tree."""
        X_binned = np.asfortranarray(X_binned)  # the kernels' layout (no copy from BinMapper)
        n_features = X_binned.shape[1]
        bins = self.bin_mapper
        rules = self.rules
        sample_idx = np.flatnonzero(sample_weight > 0).astype(np.int64)
        if sample_stats is None:
            sample_stats = np.zeros((0, 0), dtype=np.float64)
        costs = self.costs or resolve_costs(None, None, "per_test", n_features)
        if rules.rule_code == RULE_ECART:
            group_code, group_q = ecart_groups(sample_weight, rules.theta)
        else:
            group_code, group_q = np.zeros(0, dtype=np.int64), np.array([rules.theta])
        n_stats = (2 * self.n_classes + (group_q.size if group_code.size else 0)
                   if self.n_classes else sample_stats.shape[1])
        rule_parameters = (rules.rule_parameters if rules.rule_parameters is not None
                           else np.zeros(1))
        histogram_bytes = n_features * bins.n_bins_ * n_stats * 8
        max_histograms = max(3, HISTOGRAM_POOL_BYTES // max(histogram_bytes, 1))
        out = grow(
            X_binned, sample_idx, np.ascontiguousarray(y_code, dtype=np.int64),
            np.ascontiguousarray(sample_weight, dtype=np.float64),
            np.ascontiguousarray(sample_stats, dtype=np.float64), int(self.n_classes),
            int(bins.n_bins_), int(bins.missing_values_bin_idx_),
            bins.n_bins_non_missing_.astype(np.int64),
            impurity_pointer(self.criterion.impurity_function()), self.criterion.parameters(),
            int(rules.max_depth), int(rules.min_samples_split), int(rules.min_samples_leaf),
            float(rules.min_weight_leaf), float(rules.min_weight_split),
            float(rules.min_impurity_decrease), int(rules.max_leaf_nodes),
            int(rules.max_features) if rules.max_features else n_features, int(self.seed),
            PARALLEL_THRESHOLD, SPARSE_THRESHOLD, numba.get_num_threads(), int(max_histograms),
            skips_same_class_runs(self.criterion, rules, self.n_classes),
            float(rules.significance), int(rules.n_permutations),
            bool(rules.significance_over_features),
            node_test_pointer(rules.significance > 0.0), int(rules.rule_code),
            float(rule_parameters[0]), group_code, group_q,
            np.ascontiguousarray(costs.feature_cost, dtype=np.float64),
            np.ascontiguousarray(costs.cost_group, dtype=np.int64), int(costs.cost_model),
            scan_pointer(), sparse_scan_pointer(X_binned),
        )
        return self._to_tree(n_features, *out)

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
        if self.n_classes:
            k = self.n_classes
            class_weight_sums = stats[:, :k]
            class_counts = stats[:, k:2 * k]
            weighted_n = class_weight_sums.sum(axis=1)
            n_node_samples = np.rint(class_counts.sum(axis=1)).astype(np.int64)
            with np.errstate(invalid="ignore", divide="ignore"):
                value = np.where(weighted_n[:, None] > 0,
                                 class_weight_sums / weighted_n[:, None], 0.0)
        else:
            class_counts = np.zeros((stats.shape[0], 0))
            n_node_samples = np.rint(stats[:, 0]).astype(np.int64)
            weighted_n = stats[:, 1].copy()
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
