"""GreedyTree: the minimax cost-weighted tree of BudgetRF, as a grower and as an estimator.

Nan, Wang & Saligrama, "Feature-Budgeted Random Forest" (ICML 2015), Algorithm 1 (subroutine
GreedyTree): at each node choose the feature t minimising
    R(t) = min_{g ∈ G_t} max_i c(t) / (F(S) − F(S_g^i))
for an admissible set function F of the class counts (``treesmith.rules.set_functions``);
a node with F(S) = 0 is a leaf. The paper's selection always uses c(t) even though a feature
is paid once per example (per-feature accounting); ``free_reuse=True`` instead ranks a feature
(or cost group) already tested on the path as free, by its reduction of F, ahead of paid ones
(the engine's per-feature convention). Categorical features are tested by sets of categories
(``categorical_features``, as for ``DecisionTreeClassifier``; the candidate sets are in
``_minimax_kernel.scan_category_sets``). docs/methods.md §4, §5, §7, §11.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets

from .._gc import pauses_collector
from .._validation import (
    COUNT_LIMIT,
    InstanceOf,
    Interval,
    Options,
    accuracy,
    check_random_state_parameter,
    check_sample_weight,
    clamp_count,
    resolve_max_features,
    validate_parameters,
)
from ..binning import BinMapper
from ..categorical import category_counts
from ..costs import ResolvedCosts, resolve_costs
from ..estimators import TREE_PARAMETER_CONSTRAINTS, BaseDecisionTree
from ..grower import TreeGrower
from .._kernels.candidates import CANDIDATE_DRAWS, CANDIDATE_SIZE_LIMITS
from ..tree import Tree
from ._minimax_kernel import ALL_CANDIDATES, SAMPLED_CANDIDATES, minimax_kernel
from ..rules.set_functions import SetFunction, ThresholdPairs, resolve_set_function



#: Allowed values of the parameters of GreedyTree-like estimators (``treesmith._validation``);
#: ``feature_costs`` and ``cost_groups`` are resolved by ``treesmith.costs``.
MINIMAX_PARAMETER_CONSTRAINTS = {
    "impurity": [None, InstanceOf(SetFunction, "ThresholdPairs(alpha) or Powers(power)"),
                 Options({"threshold_pairs", "powers"})],
    "cost_model": [Options({"per_feature", "per_test"})],
    "free_reuse": ["boolean"],
    "candidates": [Options({"sampled", "all"})],
    "max_depth": TREE_PARAMETER_CONSTRAINTS["max_depth"],
    "max_features": TREE_PARAMETER_CONSTRAINTS["max_features"],
    "max_bins": TREE_PARAMETER_CONSTRAINTS["max_bins"],
    "categorical_features": TREE_PARAMETER_CONSTRAINTS["categorical_features"],
    "random_state": ["random_state"],
    "n_jobs": TREE_PARAMETER_CONSTRAINTS["n_jobs"],
}


def check_candidates(candidates) -> int:
    """``candidates``: "sampled" (the paper's random stumps) or "all" (every occupied bin)."""
    if isinstance(candidates, str) and candidates == "sampled":
        return SAMPLED_CANDIDATES
    if isinstance(candidates, str) and candidates == "all":
        return ALL_CANDIDATES
    raise ValueError(f"candidates must be 'sampled' (80/40/20 random observed values per "
                     f"feature, as in the paper) or 'all' (every bin), got {candidates!r}.")


class MinimaxGrower:
    """Grow one GreedyTree from binned data (the kernel is ``_minimax_kernel.grow_minimax``, or
    its twin without the categorical code the fit does not need: ``minimax_kernel``).

    Parameters
    ----------
    bin_mapper : fitted BinMapper of the training data.
    set_function : SetFunction (ThresholdPairs or Powers).
    n_classes : number of classes.
    costs : ResolvedCosts (the cost c(t) of each feature and its cost group).
    free_reuse : bool, a feature (group) already tested on the path costs 0 when choosing.
    candidates : "sampled" or "all".
    max_depth : int or None; max_features : int (features drawn per node; n_features = all).
    seed : int, seeds the candidate draws and the feature sampling.
    """

    def __init__(self, bin_mapper: BinMapper, set_function: SetFunction, n_classes: int,
                 costs: ResolvedCosts, candidates: str = "sampled", max_depth=None,
                 max_features=None, free_reuse: bool = False, seed: int = 0):
        self.bin_mapper = bin_mapper
        self.set_function = set_function
        self.n_classes = n_classes
        self.costs = costs
        self.candidate_mode = check_candidates(candidates)
        self.max_depth = max_depth
        self.max_features = max_features
        self.free_reuse = free_reuse
        self.seed = seed

    def grow(self, X_binned, y_code, sample_weight) -> Tree:
        """Grow on the rows with positive weight (class counts are sums of weights)."""
        n_features = X_binned.shape[1]
        sample_idx = np.flatnonzero(sample_weight > 0).astype(np.int64)
        self.set_function.check_total_weight(float(np.sum(sample_weight)))
        is_categorical = np.ascontiguousarray(self.bin_mapper.categorical_mask(), dtype=np.bool_)
        grow = minimax_kernel(bool(is_categorical.any()), self.n_classes > 2)
        out = grow(
            X_binned, sample_idx, np.ascontiguousarray(y_code, dtype=np.int64),
            np.ascontiguousarray(sample_weight, dtype=np.float64), int(self.n_classes),
            int(self.bin_mapper.missing_values_bin_idx_), is_categorical,
            int(self.set_function.code),
            self.set_function.parameter(),
            np.ascontiguousarray(self.costs.feature_cost, dtype=np.float64),
            np.ascontiguousarray(self.costs.cost_group, dtype=np.int64),
            bool(self.free_reuse), self.candidate_mode,
            CANDIDATE_SIZE_LIMITS, CANDIDATE_DRAWS,
            -1 if self.max_depth is None else int(self.max_depth),
            int(self.max_features or n_features), int(self.seed))
        # the node arrays have the layout of the engine's growth kernel, then left_categories
        return TreeGrower(self.bin_mapper, None, self.n_classes, None)._to_tree(n_features, *out)



def leaf_class_counts(tree: Tree) -> np.ndarray:
    """Training class counts (weighted: bootstrap multiplicities) of every node."""
    return tree.value * tree.weighted_n_node_samples[:, None]


class GreedyTreeClassifier(ClassifierMixin, BaseDecisionTree):
    """Minimax cost-weighted decision tree (BudgetRF's GreedyTree), Nan et al. 2015.

    Parameters
    ----------
    impurity : ThresholdPairs(alpha), Powers(power), "threshold_pairs" or "powers",
        default=ThresholdPairs(alpha=0): the admissible set function F of the class counts.
    feature_costs, cost_groups : as for ``DecisionTreeClassifier`` (default unit costs).
    cost_model : "per_feature" (default, the paper's: a feature is paid once per example) or
        "per_test"; how ``treesmith.metrics`` charges a path.
    free_reuse : bool, default=False. False is the paper's rule (R uses c(t) whether or not
        t was tested above); True treats a feature already tested on the path as free.
    candidates : "sampled" (default; 80/40/20 random observed values per numeric feature by
        node size, as in the paper) or "all" (every occupied bin: the exact minimax over
        stumps). Categorical features: see ``categorical_features``.
    max_depth : int >= 1 or None (grow until F = 0 or no stump decreases F in every child).
    max_features : None, int, float, "sqrt" or "log2": features drawn per node (default all,
        as in the paper).
    max_bins : int or None, bins per feature (None: exact values).
    categorical_features : "from_dtype" (default), None/False, boolean mask, column indices or
        names, as for ``DecisionTreeClassifier``: the categorical columns (at most 255
        categories each; ``categories_``, ``is_categorical_``). A node tests "category in S":
        every partition of the categories present when there are at most 10, else the
        prefixes of the single tree's category order (class-1 proportion for two classes,
        principal-component score for more; docs/methods.md §11), all of them whatever
        ``candidates`` says (the paper samples thresholds of numeric features). Missing values
        and categories unseen in training take the split's missing-value side. The feature
        costs its c(t) however many of its tests a path makes (one cost group).
    random_state : int, RandomState or None.
    n_jobs : int or None, threads for prediction, with scikit-learn's meaning
        (``treesmith._threading``); growth runs on one thread.

    ``predict_proba`` returns the class proportions of the training counts in the reached leaf.
    ``tree_.impurity`` holds F of each node and ``tree_`` is a regular treesmith ``Tree``
    (export, metrics and model files apply). ``numeric_precision_`` is the single tree's
    (docs/methods.md §2).
    """

    def __init__(self, impurity=None, feature_costs=None, cost_groups=None,
                 cost_model="per_feature", free_reuse=False, candidates="sampled",
                 max_depth=None, max_features=None, max_bins=255,
                 categorical_features="from_dtype", random_state=None, n_jobs=None):
        self.impurity = impurity
        self.feature_costs = feature_costs
        self.cost_groups = cost_groups
        self.cost_model = cost_model
        self.free_reuse = free_reuse
        self.candidates = candidates
        self.max_depth = max_depth
        self.max_features = max_features
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _resolved_impurity(self) -> SetFunction:
        return ThresholdPairs() if self.impurity is None else resolve_set_function(self.impurity)

    _parameter_table = MINIMAX_PARAMETER_CONSTRAINTS

    def _validate_parameters(self):
        """Every declared parameter (there is no pruning), before any data is read."""
        validate_parameters(self)

    @pauses_collector
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on (X, y); NaN in X is a missing value. ``sample_weight`` acts as a
        multiplicity: F is evaluated on the summed weights per class."""
        self._validate_parameters()
        X, y = self._validate_X_y(X, y)
        check_classification_targets(y)
        self.classes_, y_code = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        random_state = check_random_state_parameter(self.random_state)
        self.impurity_ = self._resolved_impurity()
        grower_args = _minimax_setting(self, X.shape[1])
        categories = getattr(self, "categories_", None)
        self.bin_mapper_ = BinMapper(max_bins=self.max_bins, random_state=random_state,
                                     n_categories=category_counts(categories))
        X_binned = self.bin_mapper_.fit_transform(
            X, feature_names=getattr(self, "feature_names_in_", None))
        seed = int(random_state.randint(0, 2**31 - 1))
        grower = MinimaxGrower(self.bin_mapper_, self.impurity_, self.n_classes_,
                               seed=seed, **grower_args)
        self.tree_ = grower.grow(X_binned, y_code.astype(np.int64), sample_weight)
        self.n_outputs_ = 1
        return self

    def predict_proba(self, X):
        """Class proportions of the (weighted) training counts in the reached leaf."""
        X = self._validate_X_predict(X)
        return self.tree_.predict(X, getattr(self, "feature_names_in_", None))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on (X, y), the weights checked as fit checks them (scikit-learn's
        accuracy_score averages with negative weights)."""
        return accuracy(y, self.predict(X), sample_weight)

    def predict(self, X):
        """Majority class of the reached leaf (lowest class index on ties)."""
        X = self._validate_X_predict(X)
        return self.tree_.predict_class(X, self.classes_,
                                        getattr(self, "feature_names_in_", None))


def _minimax_setting(estimator, n_features) -> dict:
    """Costs, candidates, depth and feature sampling of a GreedyTree-like estimator whose
    parameters ``MINIMAX_PARAMETER_CONSTRAINTS`` validated; sets the fitted ``feature_costs_``,
    ``cost_groups_``, ``cost_model_``, ``max_features_``."""
    costs = resolve_costs(estimator.feature_costs, estimator.cost_groups, estimator.cost_model,
                          n_features, getattr(estimator, "feature_names_in_", None))
    check_candidates(estimator.candidates)
    # a depth beyond 2**53 is no limit; 2**63 overflowed the kernel's int64
    max_depth = None if estimator.max_depth is None else clamp_count(estimator.max_depth,
                                                                     COUNT_LIMIT)
    estimator.max_features_ = resolve_max_features(estimator.max_features, n_features)
    estimator.feature_costs_ = costs.feature_cost
    estimator.cost_groups_ = costs.cost_group
    estimator.cost_model_ = estimator.cost_model
    return {"costs": costs, "candidates": estimator.candidates, "max_depth": max_depth,
            "max_features": estimator.max_features_, "free_reuse": bool(estimator.free_reuse)}
