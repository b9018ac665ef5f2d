"""TreeGrower: wire binned data, a criterion and the stopping rules into the compiled growth loop,
and turn its output into a :class:`treesmith.tree.Tree` with thresholds in original units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from ._dtypes import IMPURITY_SIGNATURE, TREE_LEAF
from ._kernels.growth import grow
from .binning import BinMapper, midpoints
from .criteria import Criterion
from .tree import Tree

#: Nodes with at least this many (samples x features) use the multi-threaded kernels.
PARALLEL_THRESHOLD = 1 << 16
#: Nodes with fewer samples than this are scanned on compact per-node histograms.
SPARSE_THRESHOLD = 256
#: Memory the histogram pool may use; pending nodes beyond it rebuild their histograms.
HISTOGRAM_POOL_BYTES = 512 * 2**20

_POINTERS: dict = {}


def impurity_pointer(function):
    """A first-class function pointer (Numba ``cfunc``) for an impurity dispatcher.

    The growth kernel takes the impurity as a function pointer so that one compiled (and
    cached) kernel serves every criterion. Module-level functions get a cached pointer; closures
    (user-defined criteria) are compiled on first use in each process.
    """
    if isinstance(function, numba.core.ccallback.CFunc):
        return function
    try:
        return _POINTERS[function]
    except (KeyError, TypeError):
        pass
    py_func = getattr(function, "py_func", function)
    cacheable = py_func.__closure__ is None and "<locals>" not in py_func.__qualname__
    pointer = numba.cfunc(IMPURITY_SIGNATURE, cache=cacheable)(py_func)
    _POINTERS[function] = pointer
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
    return bool(concave) and n_classes > 0 and rules.min_samples_leaf <= 1 \
        and rules.min_weight_leaf <= 0.0


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


class TreeGrower:
    """Grow one tree from binned data.

    Parameters
    ----------
    bin_mapper : fitted BinMapper of the training data.
    criterion : resolved Criterion object.
    n_classes : number of classes (0 for regression).
    rules : StoppingRules.
    seed : int, seed of the per-node feature sampling (used when max_features < n_features).
    """

    def __init__(self, bin_mapper: BinMapper, criterion: Criterion, n_classes: int,
                 rules: StoppingRules, seed: int = 0):
        self.bin_mapper = bin_mapper
        self.criterion = criterion
        self.n_classes = n_classes
        self.rules = rules
        self.seed = seed

    def grow(self, X_binned, y_code, sample_weight, sample_stats=None) -> Tree:
        """Grow on all samples with positive weight and return the fitted Tree."""
        n_features = X_binned.shape[1]
        bins = self.bin_mapper
        rules = self.rules
        sample_idx = np.flatnonzero(sample_weight > 0).astype(np.int64)
        if sample_stats is None:
            sample_stats = np.zeros((0, 0), dtype=np.float64)
        n_stats = 2 * self.n_classes if self.n_classes else sample_stats.shape[1]
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
            PARALLEL_THRESHOLD, SPARSE_THRESHOLD, int(max_histograms),
            skips_same_class_runs(self.criterion, rules, self.n_classes),
            float(rules.significance), int(rules.n_permutations),
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
            class_counts = stats[:, k:]
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
