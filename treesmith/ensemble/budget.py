"""BudgetForestClassifier: the feature-budgeted random forest (BudgetRF).

Nan, Wang & Saligrama, "Feature-Budgeted Random Forest" (ICML 2015), Algorithm 1: repeat —
draw a bootstrap sample of the training set, grow a GreedyTree (minimax splits on an
admissible set function, ``treesmith.ensemble.greedy_tree``), add it — until the average
per-example feature acquisition cost on the validation set exceeds the budget B; return the
forest without the last tree. A feature (cost group) is paid once per example however many
trees test it: the cost of x is Σ of c over the union of the groups on x's paths. The
threshold α of threshold-Pairs is chosen on the validation set (§2.4, §3). Prediction is the
majority vote of the trees; probabilities sum the training class counts of the reached leaves
(§3, Yahoo! ranking). docs/methods.md §5, §7.
"""

from __future__ import annotations

from numbers import Integral, Real

import numba
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import train_test_split
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._gc import pauses_collector
from .._precision import fitted_numeric_precision, numeric_precision, rounded_to
from .._validation import (
    ArrayLike,
    Interval,
    accuracy,
    check_parameter,
    check_random_state_parameter,
    check_sample_weight,
    check_X_frame,
    check_y_values,
    validate_parameters,
)
from ..binning import FLOAT_INPUT_DTYPES, BinMapper, check_no_infinity
from ..categorical import category_counts, encode_categories
from ..costs import group_costs
from .costs import leaf_path_groups
from .._threading import numba_threads, resolve_n_jobs, run_tasks
from ..grower import _format_bytes, available_memory_bytes
from .forest import FOREST_BYTES_PER_TREE, bootstrap_counts, tree_seed
from .greedy_tree import (
    MINIMAX_PARAMETER_CONSTRAINTS,
    GreedyTreeClassifier,
    MinimaxGrower,
    _minimax_setting,
)
from ..rules.set_functions import SetFunction, ThresholdPairs, resolve_set_function

#: The α grid of the paper's MiniBooNE and Forest experiments (§3).
PAPER_ALPHAS = (0, 2, 4, 6, 8, 10, 15, 25, 35, 45)


class BudgetCurve(dict):
    """Validation accuracy and average cost per (α, number of trees): a dict of equal-length
    arrays ``alpha``, ``n_estimators``, ``average_cost``, ``validation_accuracy``,
    ``within_budget``, one row per forest prefix grown. ``to_frame()`` gives a DataFrame."""

    def to_frame(self):
        from .._compat import optional_import

        return optional_import("pandas").DataFrame(dict(self))


class BudgetForestClassifier(ClassifierMixin, BaseEstimator):
    """Feature-budgeted random forest of minimax GreedyTrees (Nan, Wang & Saligrama 2015).

    Parameters
    ----------
    budget : float > 0 or None, default=None
        B: the largest average acquisition cost per validation example. None grows
        ``max_estimators`` trees (the whole accuracy-cost curve) and keeps them all.
    impurity : ThresholdPairs, Powers, "threshold_pairs" or "powers"; default threshold-Pairs.
    alphas : sequence of α >= 0 or None, default=(0, 2, 4, 6, 8, 10, 15, 25, 35, 45)
        Thresholds of threshold-Pairs tried; the one with the best validation accuracy within
        the budget is kept (ties: lower cost, then smaller α). None uses ``impurity`` as given
        (required for Powers).
    max_estimators : int >= 1, default=40, trees grown at most per α (the paper's 40). With a
        budget below the cost of acquiring every feature it may be huge (the budget stops
        the trees); otherwise every α grows them all, and a number the available memory cannot
        hold (``FOREST_BYTES_PER_TREE`` each) is refused before growing. A budget not reached
        when the memory is full stops the fit with an error.
    validation_fraction : float in (0, 1), default=0.3, share of the rows held out (stratified)
        to measure cost and accuracy when ``fit`` gets no ``X_val``/``y_val``.
    feature_costs, cost_groups : as for ``DecisionTreeClassifier`` (default unit costs; a group
        is acquired, and paid, once per example).
    candidates : "sampled" (paper: 80/40/20 random observed values per numeric feature) or
        "all"; a categorical feature's candidate sets are all tried either way.
    free_reuse : bool, default=False, GreedyTree's treatment of features already on the path.
    max_depth : int or None, limit of each GreedyTree's depth.
    max_bins : int or None, bins per feature.
    categorical_features : "from_dtype" (default), None/False, boolean mask, column indices or
        names, as for ``GreedyTreeClassifier``: splits by sets of categories; the categories
        are found once on all of X (``categories_``, ``is_categorical_``), a categorical
        feature is one feature (one cost group) however many of its tests the trees make.
    n_jobs : None or int, α values grown at once (threads: the growth kernel releases the GIL),
        with the single tree's meaning (``treesmith._threading``: None = this process's cores).
    random_state : int, RandomState or None. The same bootstrap seeds serve every α.

    Attributes
    ----------
    estimators_ : list of GreedyTreeClassifier, the returned forest.
    alpha_ : chosen α (None when ``alphas`` is None); impurity_ : its set function.
    budget_curve_ : BudgetCurve of every α and number of trees grown.
    validation_cost_, validation_score_ : average cost and accuracy of the returned forest on
        the validation rows.
    numeric_precision_ : "float32" or "float64", the precision the numeric columns were
        fitted in; prediction (and ``X_val``) is rounded to it (docs/methods.md §2).
    """

    def __init__(self, budget=None, impurity=None, *, alphas=PAPER_ALPHAS, max_estimators=40,
                 validation_fraction=0.3, feature_costs=None, cost_groups=None,
                 candidates="sampled", free_reuse=False, max_depth=None, max_bins=255,
                 categorical_features="from_dtype", n_jobs=None, random_state=None):
        self.budget = budget
        self.impurity = impurity
        self.alphas = alphas
        self.max_estimators = max_estimators
        self.validation_fraction = validation_fraction
        self.feature_costs = feature_costs
        self.cost_groups = cost_groups
        self.candidates = candidates
        self.free_reuse = free_reuse
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    # -- parameters -------------------------------------------------------------------------
    #: Allowed values of the parameters (``treesmith._validation``): GreedyTree's for the
    #: trees' parameters, and the forest's own; checked at the start of ``fit``.
    _parameter_table = {
        **{name: constraint for name, constraint in MINIMAX_PARAMETER_CONSTRAINTS.items()
           if name not in ("cost_model", "max_features")},
        "budget": [None, Interval(Real, 0.0, None, "neither")],
        "alphas": [None, ArrayLike("a non-empty sequence of numbers >= 0")],
        "max_estimators": [Interval(Integral, 1, None)],
        "validation_fraction": [Interval(Real, 0.0, 1.0, "neither")],
    }

    def _validate_params(self):
        """The table's checks and each of ``alphas`` (``treesmith.io`` calls it on loaded
        models)."""
        validate_parameters(self)
        self._set_functions()

    def _set_functions(self) -> list[SetFunction]:
        base = ThresholdPairs() if self.impurity is None else resolve_set_function(self.impurity)
        if self.alphas is None:
            return [base]
        if not isinstance(base, ThresholdPairs):
            raise ValueError(f"alphas are thresholds of ThresholdPairs; with impurity={base!r} "
                             "pass alphas=None.")
        alphas = list(np.asarray(self.alphas).ravel()) if hasattr(self.alphas, "__array__") \
            else list(self.alphas)
        if not alphas:
            raise ValueError(f"alphas must be a non-empty sequence of numbers >= 0 or None, got "
                             f"{self.alphas!r}.")
        for k, alpha in enumerate(alphas):
            check_parameter(f"alphas[{k}]", alpha, [Interval(Real, 0.0, None)],
                            type(self).__name__)
        return [ThresholdPairs(alpha) for alpha in alphas]

    def _check_memory(self, n_set_functions: int, group_cost: np.ndarray) -> int | None:
        """The number of trees per α the available memory holds (``FOREST_BYTES_PER_TREE``
        each; every α keeps its trees until the best is chosen), None when unknown; a
        ValueError naming max_estimators when the fit would grow more than that: without a
        budget, or with a budget at least the cost of acquiring every feature (no validation
        row can cost more, so the budget never stops the trees), all max_estimators trees of
        every α are grown."""
        available = available_memory_bytes()
        if available is None:
            return None
        limit = available // (FOREST_BYTES_PER_TREE * n_set_functions)
        never_stops = self.budget is None or self.budget >= float(group_cost.sum())
        if never_stops and self.max_estimators > limit:
            reason = ("" if self.budget is None else
                      f" (budget={self.budget!r} is at least {float(group_cost.sum()):g}, the "
                      "cost of acquiring every feature, so it never stops the trees)")
            raise ValueError(
                f"max_estimators={int(self.max_estimators)} trees for each of the "
                f"{n_set_functions} alphas{reason} need at least "
                f"{_format_bytes(self.max_estimators * n_set_functions * FOREST_BYTES_PER_TREE)}"
                f", more than the {_format_bytes(available)} of memory available; lower "
                "max_estimators.")
        return int(limit)

    # -- fitting ----------------------------------------------------------------------------
    def _validate_X_y(self, X, y):
        given = X
        X = encode_categories(self, X, fitting=True)
        check_X_frame(X)
        y = check_y_values(y, "classification")
        try:
            X, y = validate_data(self, X, y, dtype=FLOAT_INPUT_DTYPES,
                                 ensure_all_finite="allow-nan")
        except ValueError as error:
            if "infinity" in str(error) and "Input y" not in str(error):
                check_no_infinity(np.asarray(X, dtype=np.float64),
                                  list(X.columns) if hasattr(X, "columns") else None)
            raise
        check_classification_targets(y)
        self.numeric_precision_ = numeric_precision(given, X, self.is_categorical_)
        return X, y

    def _split_validation(self, X, y, sample_weight, X_val, y_val, random_state):
        """Training rows (X, y, weight) and validation rows (X_val, y_val)."""
        if (X_val is None) != (y_val is None):
            raise ValueError("pass both X_val and y_val, or neither (then validation_fraction "
                             "of the rows is held out).")
        if X_val is not None:
            X_val = encode_categories(self, X_val, fitting=False)
            check_X_frame(X_val)
            try:
                X_val = validate_data(self, X_val, dtype=FLOAT_INPUT_DTYPES,
                                      ensure_all_finite="allow-nan", reset=False)
            except ValueError as error:  # "Input X contains infinity": name X_val's column
                if "infinity" in str(error):
                    names = getattr(self, "feature_names_in_", None)
                    try:
                        check_no_infinity(np.asarray(X_val, dtype=np.float64),
                                          None if names is None else list(names))
                    except ValueError as named:
                        raise ValueError(f"X_val: {named}") from None
                raise
            X_val = rounded_to(X_val, self.numeric_precision_)  # measured as predict sees it
            y_val = np.asarray(y_val)
            if y_val.shape != (X_val.shape[0],):
                raise ValueError(f"y_val must hold one label per row of X_val "
                                 f"({X_val.shape[0]}), got shape {y_val.shape}.")
            unknown = ~np.isin(y_val, self.classes_)
            if unknown.any():
                raise ValueError(f"y_val holds classes not in y: {np.unique(y_val[unknown])}.")
            return X, y, sample_weight, X_val, y_val
        fraction = float(self.validation_fraction)  # validated: in (0, 1)
        n_samples = X.shape[0]
        n_held_out = int(np.ceil(fraction * n_samples))  # train_test_split's rounding
        if n_samples - n_held_out < 1 or n_held_out < 1:
            raise ValueError(f"validation_fraction={fraction} of {n_samples} sample(s) leaves "
                             f"{n_samples - n_held_out} training and {n_held_out} validation "
                             "rows (at least 1 of each needed); pass X_val and y_val (then "
                             "every row of X trains) or more rows.")
        rows = np.arange(n_samples)
        try:
            train, held_out = train_test_split(rows, test_size=fraction, stratify=y,
                                               random_state=random_state)
        except ValueError:  # a class too small to stratify
            train, held_out = train_test_split(rows, test_size=fraction,
                                               random_state=random_state)
        train, held_out = np.sort(train), np.sort(held_out)
        return X[train], y[train], sample_weight[train], X[held_out], y[held_out]

    @pauses_collector
    def fit(self, X, y, sample_weight=None, X_val=None, y_val=None):
        """Run Algorithm 1 for every α and keep the best forest within the budget.

        ``X_val``/``y_val``: the validation set on which cost and accuracy are measured (by
        default a stratified ``validation_fraction`` of (X, y) is held out from training).
        ``sample_weight`` scales the bootstrap multiplicities of the training rows.
        """
        self._validate_params()
        X, y = self._validate_X_y(X, y)
        set_functions = self._set_functions()
        random_state = check_random_state_parameter(self.random_state)
        self.classes_, y_code_all = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        X_train, y_train, w_train, X_val, y_val = self._split_validation(
            X, y, sample_weight, X_val, y_val, random_state)
        y_code = np.searchsorted(self.classes_, y_train).astype(np.int64)
        val_code = np.searchsorted(self.classes_, y_val).astype(np.int64)
        if not w_train.sum() > 0:
            raise ValueError("the training rows have zero total sample_weight.")

        template = GreedyTreeClassifier(
            impurity=set_functions[0], feature_costs=self.feature_costs,
            cost_groups=self.cost_groups, cost_model="per_feature", free_reuse=self.free_reuse,
            candidates=self.candidates, max_depth=self.max_depth, max_bins=self.max_bins,
            categorical_features=self.categorical_features)
        if hasattr(self, "feature_names_in_"):
            template.feature_names_in_ = self.feature_names_in_
        setting = _minimax_setting(template, X.shape[1])
        costs = setting["costs"]
        tree_limit = self._check_memory(len(set_functions),
                                        group_costs(costs.feature_cost, costs.cost_group))
        categories = getattr(self, "categories_", None)
        self.bin_mapper_ = BinMapper(max_bins=self.max_bins, random_state=random_state,
                                     n_categories=category_counts(categories))
        X_binned = np.asfortranarray(self.bin_mapper_.fit_transform(
            X_train, feature_names=getattr(self, "feature_names_in_", None)))
        # the trees' seeds, drawn one at a time by each α from the same state (the same
        # sequence as one randint call of max_estimators values): Algorithm 1 stops at the
        # budget, so max_estimators may be huge ("no cap") without one seed per possible tree
        seed_state = random_state.get_state()

        def tree_seeds():
            stream = np.random.RandomState()
            stream.set_state(seed_state)
            for _ in range(self.max_estimators):
                yield int(stream.randint(0, 2**31 - 1))

        # α values grow at once, one Numba thread each (no nested parallel regions); n_jobs
        # has the single tree's meaning (treesmith._threading): None = this process's cores
        workers = min(resolve_n_jobs(self.n_jobs), len(set_functions))

        def run(set_function):
            with numba_threads(1 if workers > 1 else numba.get_num_threads()):
                return self._grow_for(set_function, setting, X_binned, y_code, w_train, X_val,
                                      val_code, tree_seeds(), tree_limit)

        runs = run_tasks(run, set_functions, workers)

        curve = {"alpha": [], "n_estimators": [], "average_cost": [],
                 "validation_accuracy": [], "within_budget": []}
        best = None
        for set_function, (trees, seeds, kept, rows) in zip(set_functions, runs):
            for row in rows:
                curve["alpha"].append(getattr(set_function, "alpha", np.nan))
                for key, value in zip(("n_estimators", "average_cost", "validation_accuracy",
                                       "within_budget"), row):
                    curve[key].append(value)
            if kept == 0:
                continue
            _, cost, accuracy, _ = rows[kept - 1]
            key = (-accuracy, cost, getattr(set_function, "alpha", 0.0))
            if best is None or key < best[0]:
                best = (key, set_function, list(zip(seeds, trees[:kept])), cost, accuracy)
        self.budget_curve_ = BudgetCurve({k: np.asarray(v, dtype=np.float64 if k != "within_budget"
                                                        else bool) for k, v in curve.items()})
        if best is None:
            cheapest = float(self.budget_curve_["average_cost"].min())
            raise ValueError(f"budget={self.budget!r} is below the average validation cost of "
                             f"every single tree (the cheapest costs {cheapest:.4g}); raise the "
                             "budget or the alphas.")
        _, self.impurity_, seeded_trees, self.validation_cost_, self.validation_score_ = best
        self.alpha_ = getattr(self.impurity_, "alpha", None) if self.alphas is not None else None
        self.feature_costs_ = costs.feature_cost
        self.cost_groups_ = costs.cost_group
        self.cost_model_ = "per_feature"
        self.estimators_ = []
        for seed, tree in seeded_trees:
            member = clone(template).set_params(impurity=self.impurity_,
                                                random_state=int(seed))
            member.tree_ = tree
            member.classes_, member.n_classes_ = self.classes_, self.n_classes_
            member.n_features_in_ = X.shape[1]
            if hasattr(self, "feature_names_in_"):
                member.feature_names_in_ = self.feature_names_in_
            member.bin_mapper_ = self.bin_mapper_
            member.is_categorical_, member.categories_ = self.is_categorical_, categories
            member.category_precision_ = getattr(self, "category_precision_", None)
            member.numeric_precision_ = self.numeric_precision_
            member.impurity_ = self.impurity_
            member.feature_costs_, member.cost_groups_ = costs.feature_cost, costs.cost_group
            member.cost_model_ = "per_feature"
            member.max_features_ = X.shape[1]
            member.n_outputs_ = 1
            self.estimators_.append(member)
        self.n_estimators_ = len(self.estimators_)
        return self

    def _grow_for(self, set_function, setting, X_binned, y_code, w_train, X_val, val_code,
                  seeds, tree_limit=None):
        """Algorithm 1 for one set function, the trees seeded from the iterable ``seeds``:
        trees, their seeds, how many stay within the budget, and one curve row (n_trees,
        average cost, validation accuracy, within budget) per tree. A ValueError when the
        budget is not reached within ``tree_limit`` trees (what the memory holds)."""
        costs = setting["costs"]
        groups = costs.cost_group
        n_groups = int(groups.max()) + 1
        group_cost = group_costs(costs.feature_cost, groups)
        acquired = np.zeros((X_val.shape[0], n_groups), dtype=bool)
        votes = np.zeros((X_val.shape[0], self.n_classes_))
        rows_val = np.arange(X_val.shape[0])
        trees, used_seeds, rows = [], [], []
        kept = 0
        for k, seed in enumerate(seeds):
            if tree_limit is not None and k >= tree_limit:
                cost = rows[-1][1] if rows else 0.0
                raise ValueError(
                    f"budget={self.budget!r} is not reached after {k} trees (average "
                    f"validation cost {cost:.4g}) and the memory available holds no more of "
                    f"max_estimators={int(self.max_estimators)}; lower max_estimators or the "
                    "budget.")
            weight = w_train * bootstrap_counts(int(seed), w_train.shape[0], w_train.shape[0])
            grower = MinimaxGrower(self.bin_mapper_, set_function, self.n_classes_,
                                   seed=tree_seed(int(seed)), **setting)
            tree = grower.grow(X_binned, y_code, weight)
            leaves = tree.apply(X_val)
            acquired |= leaf_path_groups(tree, groups, n_groups)[leaves]
            votes[rows_val, np.argmax(tree.value, axis=1)[leaves]] += 1.0
            cost = float((acquired @ group_cost).mean())
            accuracy = float(np.mean(np.argmax(votes, axis=1) == val_code))
            within = self.budget is None or cost <= self.budget
            trees.append(tree)
            used_seeds.append(int(seed))
            rows.append((k + 1, cost, accuracy, within))
            if not within:
                break  # Algorithm 1: the forest without this last tree
            kept = k + 1
        return trees, used_seeds, kept, rows

    # -- prediction -------------------------------------------------------------------------
    def _validate_X_predict(self, X):
        check_is_fitted(self, "estimators_")
        X = encode_categories(self, X, fitting=False)
        check_X_frame(X)
        return rounded_to(validate_data(self, X, dtype=FLOAT_INPUT_DTYPES,
                                        ensure_all_finite=False, reset=False),
                          fitted_numeric_precision(self))  # docs/methods.md §2

    def apply(self, X):
        """Leaf index of every row in every tree, shape (n_samples, n_estimators_)."""
        X = self._validate_X_predict(X)
        names = getattr(self, "feature_names_in_", None)
        return np.column_stack([m.tree_.apply(X, names) for m in self.estimators_])

    def _predict_from_leaves(self, leaves):
        votes = np.zeros((leaves.shape[0], self.n_classes_))
        rows = np.arange(leaves.shape[0])
        for t, member in enumerate(self.estimators_):
            votes[rows, np.argmax(member.tree_.value, axis=1)[leaves[:, t]]] += 1.0
        return self.classes_.take(np.argmax(votes, axis=1))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on (X, y), the weights checked as fit checks them (scikit-learn's
        accuracy_score averages with negative weights)."""
        return accuracy(y, self.predict(X), sample_weight)

    def predict(self, X):
        """Majority vote of the trees (each votes its leaf's majority class; ties: lowest
        class index)."""
        return self._predict_from_leaves(self.apply(X))

    def predict_proba(self, X):
        """Training class counts (bootstrap multiplicities) of the reached leaves, summed over
        the trees and normalised (Nan et al. 2015, §3)."""
        leaves = self.apply(X)
        counts = np.zeros((leaves.shape[0], self.n_classes_))
        for t, member in enumerate(self.estimators_):
            tree = member.tree_
            counts += (tree.value * tree.weighted_n_node_samples[:, None])[leaves[:, t]]
        return counts / counts.sum(axis=1, keepdims=True)

    def plot_budget_curve(self, ax=None):
        """Validation accuracy against average feature cost, one line per α (the paper's
        Figure 4 shape); the chosen forest is marked. Returns the matplotlib Axes."""
        from .._compat import optional_import

        check_is_fitted(self, "budget_curve_")
        plt = optional_import("matplotlib.pyplot")
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        curve = self.budget_curve_
        alphas = curve["alpha"]
        for alpha in np.unique(alphas[~np.isnan(alphas)]) if np.any(~np.isnan(alphas)) \
                else [np.nan]:
            rows = np.isnan(alphas) if np.isnan(alpha) else alphas == alpha
            ax.plot(curve["average_cost"][rows], 1 - curve["validation_accuracy"][rows],
                    marker=".", label="" if np.isnan(alpha) else f"α = {alpha:g}")
        ax.plot([self.validation_cost_], [1 - self.validation_score_], "k*", markersize=12,
                label="chosen")
        if self.budget is not None:
            ax.axvline(self.budget, color="grey", linestyle="--", label="budget")
        ax.set_xlabel("average feature cost per validation example")
        ax.set_ylabel("validation error")
        ax.legend(fontsize="small")
        return ax
