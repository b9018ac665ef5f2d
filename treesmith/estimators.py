"""Scikit-learn estimators: parameter validation and bookkeeping around the tree engine.

``fit`` validates its input, bins the features (``BinMapper``), resolves the criterion and the
stopping rules, and lets ``TreeGrower`` build the tree. Prediction walks the flat tree in float64.
"""

from __future__ import annotations

import inspect
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._dtypes import MAX_BINS_LIMIT, TREE_LEAF
from ._gc import pauses_collector
from ._precision import fitted_numeric_precision, numeric_precision, rounded_to
from ._threading import fit_threads, numba_threads, predict_threads
from ._validation import (
    ArrayLike,
    InstanceOf,
    Interval,
    Options,
    RealNotInt,
    _n_rows,
    accuracy,
    check_class_weight,
    check_finite_sums,
    check_fraction,
    check_label_types,
    check_int,
    check_random_state_parameter,
    check_monotonic_cst,
    check_sample_weight,
    check_X_frame,
    check_y_values,
    clamp_count,
    constructor_parameters,
    first_seed,
    labels_are_classes,
    plain_prediction_array,
    plain_training_arrays,
    resolve_count_or_fraction,
    resolve_max_features,
    validate_parameters,
)
from .binning import FLOAT_INPUT_DTYPES, BinMapper, check_no_infinity
from .categorical import category_counts
from .criteria._base import CLASSIFICATION_TASK, REGRESSION_TASK, Criterion, resolve_criterion
from .grower import StoppingRules, TreeGrower
from .splitters import SPLITTERS, bin_values

#: Allowed values of the parameters shared by the tree estimators (see treesmith._validation).
#: Names (criterion, split_rule) and cost specifications are resolved, with their own
#: messages, by the criterion and rule registries and ``treesmith.costs``.
TREE_PARAMETER_CONSTRAINTS = {
    "criterion": [InstanceOf((str, Criterion), "a criterion name or a treesmith.criteria "
                                               "object")],
    "max_depth": [Interval(Integral, 1, None), None],
    "min_samples_split": [Interval(Integral, 2, None), Interval(RealNotInt, 0.0, 1.0, "right")],
    "min_samples_leaf": [Interval(Integral, 1, None), Interval(RealNotInt, 0.0, 1.0, "neither")],
    "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, "both")],
    "min_weight_fraction_split": [Interval(Real, 0.0, 1.0, "left")],
    "max_features": [None, Interval(Integral, 1, None), Interval(RealNotInt, 0.0, 1.0, "right"),
                     Options({"sqrt", "log2"})],
    "max_leaf_nodes": [Interval(Integral, 2, None), None],
    "min_impurity_decrease": [Interval(Real, 0.0, None)],
    "max_bins": [Interval(Integral, 2, MAX_BINS_LIMIT, "both"), None],
    "splitter": [Options(set(SPLITTERS))],
    "random_state": ["random_state"],
    "cost_model": [Options({"per_test", "per_feature"})],
    "ccp_alpha": [Interval(Real, 0.0, None)],
    "pruning": [None, InstanceOf((str, dict), "a method name or a dict {'method': name, "
                                              "**params}")],
    # resolved by treesmith._threading.resolve_n_jobs, which also rejects 0
    "n_jobs": [Interval(Integral, None, None), None],
    # values and length checked against X by _validation.check_monotonic_cst
    "monotonic_cst": [None, "array-like", InstanceOf(dict, "a dict {feature: -1 | 0 | 1}")],
    # resolved against the columns of X by treesmith.categorical.resolve_mask, which also
    # refuses a string other than "from_dtype" (pointing at [name] when it names a column)
    "categorical_features": [None, InstanceOf(str, "'from_dtype'"), InstanceOf(bool, "False"),
                             ArrayLike("a boolean mask, column indices or names (a list, "
                                       "array or pandas Index)")],
}


class BaseDecisionTree(BaseEstimator):
    """Shared parameters, validation and prediction of the tree estimators."""

    _task = CLASSIFICATION_TASK

    def __init__(self, *, criterion, max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, min_weight_fraction_split=0.0,
                 max_features=None, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 max_bins=255, random_state=None, split_rule="gain", feature_costs=None,
                 cost_groups=None, cost_model="per_test", ccp_alpha=0.0, pruning=None,
                 n_jobs=None, monotonic_cst=None,
                 categorical_features="from_dtype", splitter="best"):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_weight_fraction_split = min_weight_fraction_split
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.max_bins = max_bins
        self.random_state = random_state
        self.split_rule = split_rule
        self.feature_costs = feature_costs
        self.cost_groups = cost_groups
        self.cost_model = cost_model
        self.ccp_alpha = ccp_alpha
        self.pruning = pruning
        self.n_jobs = n_jobs
        self.monotonic_cst = monotonic_cst
        self.categorical_features = categorical_features
        self.splitter = splitter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    @classmethod
    def _get_param_names(cls):
        return constructor_parameters(cls)

    # -- validation -----------------------------------------------------------------------
    _parameter_table = TREE_PARAMETER_CONSTRAINTS

    def _validate_parameters(self):
        """Every declared parameter and the pruning specification, before any data is read
        (so a bad value fails at once, not after the tree has grown)."""
        validate_parameters(self)
        self._pruning_spec()

    def _validate_params(self):
        """scikit-learn's hook (``treesmith.io`` calls it on loaded models): our table."""
        self._validate_parameters()

    def _stopping_rules(self, n_samples, n_features, total_weight) -> StoppingRules:
        # Counts and depths above what n_samples rows can reach mean "no limit"; they are capped
        # so that 10**30 reaches the int64 kernels as the same rule, not as an overflow.
        max_depth = check_int("max_depth", self.max_depth, 1, allow_none=True)
        min_samples_split = resolve_count_or_fraction(
            "min_samples_split", self.min_samples_split, n_samples, 2, True)
        min_samples_leaf = resolve_count_or_fraction(
            "min_samples_leaf", self.min_samples_leaf, n_samples, 1, False)
        leaf_fraction = check_fraction(
            "min_weight_fraction_leaf", self.min_weight_fraction_leaf, 0.0, 0.5)
        split_fraction = check_fraction(
            "min_weight_fraction_split", self.min_weight_fraction_split, 0.0, 1.0,
            high_inclusive=False)
        max_leaf_nodes = check_int("max_leaf_nodes", self.max_leaf_nodes, 2, allow_none=True)
        self.max_features_ = resolve_max_features(self.max_features, n_features)
        return StoppingRules(
            max_depth=-1 if max_depth is None else clamp_count(max_depth, n_samples),
            min_samples_split=max(min_samples_split, 2 * min_samples_leaf),
            min_samples_leaf=min_samples_leaf,
            min_weight_leaf=leaf_fraction * total_weight,
            min_weight_split=split_fraction * total_weight,
            min_impurity_decrease=float(self.min_impurity_decrease),
            max_leaf_nodes=-1 if max_leaf_nodes is None else clamp_count(
                max_leaf_nodes, max(n_samples, 2)),
            theta=split_fraction,
            **self._significance_rules(),
        )

    def _resolve_rule_and_costs(self, n_features):
        """split_rule_, feature_costs_, cost_groups_, cost_model_ from the parameters."""
        from .costs import resolve_costs
        from .rules import resolve_rule, rules_for_task

        rule = resolve_rule(self.split_rule)
        if self._task not in rule.tasks:  # the class-count rules need classes
            raise ValueError(
                f"split_rule={rule.name!r} is not available for {type(self).__name__}; "
                f"choose one of {rules_for_task(self._task)}.")
        names = getattr(self, "feature_names_in_", None)
        costs = resolve_costs(self.feature_costs, self.cost_groups, self.cost_model,
                              n_features, names)
        self.split_rule_ = rule
        self.feature_costs_ = costs.feature_cost
        self.cost_groups_ = costs.cost_group
        self.cost_model_ = self.cost_model
        return rule, costs

    def _significance_rules(self) -> dict:
        """S-pruning parameters (classifier only; see DecisionTreeClassifier)."""
        return {}

    def _monotonic_constraints(self, n_features, n_classes, criterion):
        """``monotonic_cst`` as the grower's int array of -1, 0, 1 per feature, or None
        (docs/methods.md §4). The constraints bound the probability of ``classes_[1]`` (binary
        classification) or the mean label (regression); multiclass targets and criteria that
        predict something else than the mean are refused, as scikit-learn refuses them."""
        monotonic_cst = check_monotonic_cst(getattr(self, "monotonic_cst", None), n_features,
                                            getattr(self, "feature_names_in_", None))
        if monotonic_cst is None:
            return None
        if n_classes > 2:
            raise ValueError(
                f"monotonic_cst is not supported with multiclass classification (y has "
                f"{n_classes} classes): the constraints bound the probability of the positive "
                "class classes_[1] of a binary problem.")
        from .monotonic import check_numeric_features

        check_numeric_features(monotonic_cst, getattr(self, "is_categorical_", None),
                               getattr(self, "feature_names_in_", None))
        if n_classes == 1 or not monotonic_cst.any():
            return None  # a single leaf, or nothing constrained
        from .criteria._base import RegressionCriterion

        if (not n_classes and isinstance(criterion, RegressionCriterion)
                and type(criterion).node_value is not RegressionCriterion.node_value):
            raise ValueError(
                f"monotonic_cst needs a criterion whose leaves predict the mean label; "
                f"{type(criterion).__name__} overrides node_value.")
        return monotonic_cst

    def _encode_categories(self, X, fitting: bool):
        """``X`` with its categorical columns as category codes (``treesmith.categorical``):
        at fit time the columns ``categorical_features`` selects and their categories are
        found (``is_categorical_``, ``categories_``); X is returned as it is when no column is
        categorical."""
        if self.__dict__.get("_codes_given"):
            return X
        from .categorical import encode_categories

        return encode_categories(self, X, fitting)

    def _validate_X_y(self, X, y):
        given = X
        X = self._encode_categories(X, fitting=True)
        check_X_frame(X)
        y = check_y_values(y, self._task)
        plain = plain_training_arrays(self, X, y, y_numeric=self._task == REGRESSION_TASK)
        if plain is None:
            plain = self._finite_or_named(lambda: validate_data(
                self, X, y, dtype=FLOAT_INPUT_DTYPES, ensure_all_finite="allow-nan",
                y_numeric=self._task == REGRESSION_TASK), X)
        X, y = plain
        self.numeric_precision_ = numeric_precision(given, X,
                                                    getattr(self, "is_categorical_", None))
        return X, y

    def _validate_X_predict(self, X):
        """Validate X for prediction without a finiteness pass: the tree walk itself reports
        ±inf, naming the column (``Tree.apply``), so a separate pass over X (half the time of
        a depth-8 predict on 1e6 x 50) is not needed. X comes back in the precision the model
        was fitted in (``numeric_precision_``, docs/methods.md §2)."""
        check_is_fitted(self, "tree_")
        X = self._encode_categories(X, fitting=False)
        plain = plain_prediction_array(self, X)
        if plain is None:
            check_X_frame(X)
            plain = validate_data(self, X, dtype=FLOAT_INPUT_DTYPES, ensure_all_finite=False,
                                  reset=False)
        return rounded_to(plain, fitted_numeric_precision(self))

    def _predict_threads(self, X):
        """Numba's thread count for walking the tree with the rows of X (see _threading)."""
        return numba_threads(predict_threads(self.n_jobs, X.shape[0]))

    def _finite_or_named(self, validate, X):
        """Run scikit-learn's validation with its fast NaN-allowing finiteness check; when it
        finds an infinity in X, raise our error naming the column instead."""
        try:
            return validate()
        except ValueError as error:
            if "infinity" not in str(error) or "Input y" in str(error):
                raise
            names = list(X.columns) if hasattr(X, "columns") else getattr(
                self, "feature_names_in_", None)
            check_no_infinity(np.asarray(X, dtype=np.float64), names)
            raise

    # -- post-pruning ---------------------------------------------------------------------
    #: Post-pruning methods accepted by ``pruning=`` (REP holds out ``validation_fraction``).
    _pruning_methods = ("rep", "tdp", "c45", "bup", "ccp")
    #: Parameters the estimator itself passes to the pruning methods (never the user).
    _pruning_data = ("X", "y", "sample_weight")

    def _pruning_spec(self):
        """``pruning`` as (method, params): None, a method name, or {"method": ..., **params}.

        The method must suit the task and every parameter must be one the method accepts;
        this runs before growth, as ``treesmith.prune`` checks its own arguments."""
        if self.pruning is None:
            return None, {}
        if isinstance(self.pruning, str):
            method, params = self.pruning, {}
        elif isinstance(self.pruning, dict) and isinstance(self.pruning.get("method"), str):
            params = dict(self.pruning)
            method = params.pop("method")
        else:
            raise ValueError(
                "pruning must be None, a method name or a dict {'method': name, **params}, got "
                f"{self.pruning!r}.")
        if method not in self._pruning_methods:
            raise ValueError(
                f"pruning method must be one of {list(self._pruning_methods)} for "
                f"{type(self).__name__}, got {method!r}.")
        from .pruning._prune import METHODS, check_pruning_parameters

        accepted = [name for name in list(inspect.signature(METHODS[method]).parameters)[1:]
                    if name not in self._pruning_data]
        if method == "rep":
            accepted = ["validation_fraction"]
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            raise ValueError(f"pruning={self.pruning!r}: method {method!r} accepts "
                             f"{accepted}, got unknown {unknown}.")
        signature = inspect.signature(METHODS[method]).parameters
        missing = [name for name in accepted if name not in params and name in signature
                   and signature[name].default is inspect.Parameter.empty]
        if missing:
            raise ValueError(f"pruning={self.pruning!r}: method {method!r} needs {missing}.")
        check_pruning_parameters(method, params, f"{type(self).__name__}(pruning="
                                                 f"{{'method': {method!r}, ...}})")
        return method, params

    def _validation_rows(self, y, sample_weight, random_state):
        """Rows held out for reduced-error pruning (stratified for classifiers), or None."""
        method, params = self._pruning_spec()
        if method != "rep":
            return None
        fraction = float(params.get("validation_fraction", 0.25))  # checked by _pruning_spec
        from sklearn.model_selection import train_test_split

        rows = np.flatnonzero(sample_weight > 0)
        n_held_out = int(np.ceil(fraction * rows.size))  # train_test_split's rounding
        if rows.size - n_held_out < 1:
            remedy = ("fit on at least 2 such rows" if rows.size < 2 else
                      "lower validation_fraction (one row at least must be grown on)")
            raise ValueError(
                f"pruning='rep' holds out validation_fraction={fraction} of the rows to prune "
                f"on, which leaves no row to grow on out of {rows.size} row(s) with a "
                f"positive sample_weight; {remedy}, or use a pruning method without held-out "
                "rows (e.g. pruning='c45' or ccp_alpha).")
        stratify = y[rows] if self._task == CLASSIFICATION_TASK else None
        try:
            _, held_out = train_test_split(rows, test_size=fraction, stratify=stratify,
                                           random_state=random_state)
        except ValueError:  # a class too small to stratify
            _, held_out = train_test_split(rows, test_size=fraction, random_state=random_state)
        return np.sort(held_out)

    def _post_prune(self, X, y, sample_weight, held_out, monotonic_cst=None):
        """Apply ``ccp_alpha`` and ``pruning`` to the grown tree (scikit-learn does ccp last).

        Pruning keeps predictions monotone: a collapsed node keeps its value, which lies within
        its bounds; C4.5's subtree raising recomputes values, which are clipped again
        (``treesmith.monotonic.restore_monotonicity``)."""
        method, params = self._pruning_spec()
        if self.ccp_alpha != 0.0 or method is not None:
            from .pruning._prune import METHODS
        if method == "rep":
            self.tree_ = METHODS["rep"](self, X[held_out], y[held_out], sample_weight[held_out])
        elif method == "c45" and params.get("subtree_raising"):
            from .pruning._prune import c45_with_raising

            # sample_weight already includes class_weight (fit multiplied it in): the tree-level
            # step takes these final weights as they are, so class weights count once.
            grown = sample_weight > 0
            params.pop("subtree_raising")
            self.tree_ = c45_with_raising(self, X[grown], y[grown], sample_weight[grown],
                                          **params)
            if monotonic_cst is not None:
                from .monotonic import restore_monotonicity

                self.tree_ = restore_monotonicity(self.tree_, monotonic_cst)
        elif method is not None:
            params.pop("validation_fraction", None)
            self.tree_ = METHODS[method](self, **params)
        alpha = self.ccp_alpha  # validated in fit (_parameter_table)
        if alpha > 0.0:
            self.tree_ = METHODS["ccp"](self, alpha)

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """Effective alphas and total leaf impurities of the minimal cost-complexity pruning
        sequence, as scikit-learn's method of the same name (see treesmith.pruning)."""
        from .pruning import cost_complexity_pruning_path

        return cost_complexity_pruning_path(self, X, y, sample_weight)

    # -- fitting --------------------------------------------------------------------------
    def _draws_only_the_seed(self, sample_weight) -> bool:
        """Whether the fit draws nothing from an int ``random_state`` but the growth seed (its
        first draw): no binning subsample (``BinMapper.subsamples``), no held-out rows
        (reduced-error pruning). The seed then comes from a generator seeded again
        (``_validation.first_seed``, the same draw), not from a ``RandomState`` built for the
        fit (~80 us, a tenth of a fit on iris)."""
        random_state = self.random_state
        return (isinstance(random_state, Integral) and not isinstance(random_state, bool)
                and self._pruning_spec()[0] != "rep"
                and not BinMapper(max_bins=self.max_bins).subsamples(
                    int(np.count_nonzero(sample_weight))))

    def _fit(self, X, y_code, sample_weight, n_classes, sample_stats=None, y=None):
        n_samples, n_features = X.shape
        random_state = self.random_state
        seed_only = self._draws_only_the_seed(sample_weight)
        if not seed_only:
            random_state = check_random_state_parameter(random_state)
        self.criterion_ = resolve_criterion(self.criterion, self._task)
        self.criterion_.validate(n_classes if n_classes else None)
        rule, costs = self._resolve_rule_and_costs(n_features)
        if hasattr(rule, "set_function"):  # Minimax: F must not overflow on this sample
            rule.set_function().check_total_weight(float(sample_weight.sum()))
        rules = self._stopping_rules(n_samples, n_features, float(sample_weight.sum()))
        self._check_splitter(rule, rules)
        monotonic_cst = self._monotonic_constraints(n_features, n_classes, self.criterion_)
        self.bin_mapper_ = BinMapper(max_bins=self.max_bins, random_state=random_state,
                                     n_categories=category_counts(
                                         getattr(self, "categories_", None)))
        names = getattr(self, "feature_names_in_", None)
        with numba_threads(fit_threads(self.n_jobs, n_samples, n_features)):
            X_binned = self.bin_mapper_.fit_transform(X, feature_names=names,
                                                      sample_weight=sample_weight)
            if seed_only:
                seed, held_out = first_seed(int(random_state)), None
            else:
                seed = int(random_state.randint(0, 2**31 - 1))
                held_out = self._validation_rows(y, sample_weight, random_state)
            growth_weight = sample_weight
            if held_out is not None:
                growth_weight = sample_weight.copy()
                growth_weight[held_out] = 0.0
            grower = TreeGrower(self.bin_mapper_, self.criterion_, n_classes, rules, rule=rule,
                                max_features=self.max_features_, seed=seed, costs=costs,
                                monotonic_cst=monotonic_cst, feature_names=names,
                                threshold_values=self._threshold_values(X, growth_weight))
            self.tree_ = grower.grow(X_binned, y_code, growth_weight, sample_stats)
        self.n_outputs_ = 1
        # X holds category codes already: the pruning methods read it through this estimator
        self.__dict__["_codes_given"] = True
        try:
            self._post_prune(X, y, sample_weight, held_out, monotonic_cst)
        finally:
            del self.__dict__["_codes_given"]
        return self

    def _threshold_values(self, X, sample_weight):
        """None for best splits; with ``splitter="random"`` the value of every bin, between
        which the random splits are drawn (``treesmith.splitters.bin_values``)."""
        if self.splitter != "random":
            return None
        return bin_values(self.bin_mapper_, X, sample_weight)

    def _check_splitter(self, rule, rules):
        """``splitter="random"`` draws the candidate thresholds: a rule that samples its own
        (minimax with sampled candidates) or S-pruning's permutation test of a best split
        would mean something else with it, so they are refused."""
        if self.splitter != "random":
            return
        if getattr(rule, "candidates", "all") == "sampled":
            raise ValueError(
                "splitter='random' draws one threshold per feature; split_rule "
                f"{self.split_rule!r} samples candidate thresholds of its own. Use "
                "splitter='best' with it, or a rule that scores every candidate.")
        if rules.significance > 0.0:
            raise ValueError(
                "significance (S-pruning) tests the best split of a node; it is not defined "
                "for splitter='random'. Set significance=None or splitter='best'.")

    # -- prediction -----------------------------------------------------------------------
    def apply(self, X):
        """Index of the leaf each sample ends up in."""
        X = self._validate_X_predict(X)
        with self._predict_threads(X):
            return self.tree_.apply(X, getattr(self, "feature_names_in_", None))

    def decision_path(self, X):
        """Sparse CSR indicator of the nodes each sample passes through."""
        X = self._validate_X_predict(X)
        with self._predict_threads(X):
            return self.tree_.decision_path(X, getattr(self, "feature_names_in_", None))

    def get_depth(self):
        """Depth of the tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def _node_predictions(self) -> np.ndarray:
        """What a leaf at each node of ``tree_`` predicts, ``(n_nodes, n_classes or 1)``: its
        class proportions or mean label. Code that walks ``tree_`` itself reads this
        (``treesmith.interop.to_sklearn``, ``treesmith.predict_lazy``)."""
        check_is_fitted(self, "tree_")
        return self.tree_.value

    def to_sklearn(self):
        """This fitted tree as a fitted scikit-learn estimator that predicts the same, for SHAP,
        ONNX, dtreeviz and scikit-learn's own tools (see :func:`treesmith.interop.to_sklearn`)."""
        from .interop import to_sklearn

        return to_sklearn(self)

    @property
    def feature_importances_(self):
        """Normalised total weighted impurity decrease brought by each feature."""
        check_is_fitted(self, "tree_")
        tree = self.tree_
        importances = np.zeros(tree.n_features)
        weighted = tree.weighted_n_node_samples * tree.impurity
        for node in np.flatnonzero(tree.children_left != TREE_LEAF):
            left, right = tree.children_left[node], tree.children_right[node]
            importances[tree.feature[node]] += weighted[node] - weighted[left] - weighted[right]
        importances = np.maximum(importances, 0.0)
        total = importances.sum()
        return importances / total if total > 0 else importances


class DecisionTreeClassifier(ClassifierMixin, BaseDecisionTree):
    """Decision tree classifier on the treesmith histogram engine.

    Parameters
    ----------
    criterion : str or treesmith.criteria.Criterion, default="gini"
        Impurity h of the class proportions: "gini", "entropy" (bits), "misclassification",
        any registered name, or a criterion object.
    max_depth : int >= 1 or None
    min_samples_split : int >= 2 or float in (0, 1]
    min_samples_leaf : int >= 1 or float in (0, 1)
    min_weight_fraction_leaf : float in [0, 0.5], minimum weight fraction of each leaf.
    min_weight_fraction_split : float in [0, 1), theta of docs/methods.md §4: a node whose weight
        fraction p(S) <= theta is not split.
    max_features : None, int, float, "sqrt" or "log2"
        Features examined per node; floats and "sqrt"/"log2" round down, at least one.
        With ``splitter="best"`` the node's constant features do not count: up to
        max_features non-constant ones are examined. scikit-learn counts each constant
        feature it draws (drawing past max_features only until one is not constant), and
        so does ``splitter="random"`` here.
    splitter : "best" or "random", default="best"
        "best" scans every threshold of the examined features; "random" draws one split per
        examined feature, uniform in value between the node's smallest and largest value
        (a random partition of a categorical feature's categories), and keeps the best of
        those under the criterion and rule: the extremely randomized trees of Geurts, Ernst &
        Wehenkel (2006), as scikit-learn's ``splitter="random"`` (docs/methods.md §7). Then
        every drawn feature counts against ``max_features``, constant ones too, and the draw
        goes on past it only until a non-constant feature is drawn (scikit-learn's loop).
    max_leaf_nodes : int >= 2 or None
        None grows depth-first, without a leaf limit. An int grows best-first: each node's
        split is chosen (and the other stopping rules applied) when the node is created, then
        the open node whose split the rule ranks highest is split next (the score; score /
        cost for the rules that divide by the cost, free tests first; gain / split information
        for "gain_ratio"; ties: the older node), until the tree has max_leaf_nodes leaves or
        no node can be split (docs/methods.md §4). Pruning may then remove leaves.
    min_impurity_decrease : float >= 0, a node is split only when its chosen split's gain
        p(S) * Delta_h (in probability units, up to rounding) >= this value.
    class_weight : dict, "balanced" or None
    max_bins : int in [2, 65535] or None
        Bins per feature; features with fewer distinct values are binned exactly and None
        bins every feature exactly.
    random_state : int, RandomState or None, seeds feature sampling, the binning subsample
        and the permutation tests. With None (as in scikit-learn) a fit on more rows than the
        binning subsample (200 000) may bin, and so grow, slightly differently each time; pass
        an int for identical trees (they do not depend on the number of threads).
    significance : float in (0, 1) or None, default=None
        S-pruning (Stamate et al. 2018 §3, docs/methods.md §6): a node is split only when the best split's gain is
        significant at this level under a permutation test of the labels on the chosen
        feature (p-value = (1 + #{permuted gain >= observed}) / (1 + n_permutations)).
    n_permutations : int >= 1, default=1000, permutations per tested node.
    significance_test : "feature" or "max", default="feature"
        "feature" re-tests only the chosen feature (Stamate et al. 2018, docs/methods.md §6); it ignores that the
        feature was the best of many, so its false-split rate grows with the number of
        features (about 22% at 4 and 42% at 10 features for s=0.05 on label-independent data).
        "max" compares the observed best gain with the best gain over all features of each
        permutation, a test of level s for the node (memory: the node's binned rows as int64).
    split_rule : str or treesmith.rules object, default="gain"
        Split-selection rule of docs/methods.md §4: "gain", "gain_ratio" (C4.5), "cost_benefit"
        (gain / cost), "ecart" (ECART(lam): (B + E + lam * D) / cost; Zhang & Gionis 2023), "asr" (lam=0),
        "impure_pairs", "balanced". ECART's theta is ``min_weight_fraction_split``.
    feature_costs : None, array of one cost per column, or dict {column name or index: cost}
        Non-negative acquisition cost of each feature (default 1 each).
    cost_groups : None, a list of lists of columns that share one acquisition, a dict
        {group: columns} or one group id per column (see treesmith.costs).
    cost_model : "per_test" (every test on a path pays) or "per_feature" (a feature or group
        is paid once per path), docs/methods.md §5.
    ccp_alpha : float >= 0, default=0.0
        Minimal cost-complexity pruning at this alpha after growth (impurity risk, as
        scikit-learn); see also ``treesmith.select_ccp_alpha``.
    pruning : None, "tdp", "c45", "bup", "rep", "ccp" or {"method": name, **params}
        Post-pruning applied after growth (docs/methods.md §6; parameters as in ``treesmith.prune``).
        "rep" grows on all but a stratified ``validation_fraction`` (default 0.25) of the rows
        and prunes on them.
    n_jobs : int or None, default=None
        Threads the fit and predictions may use, with scikit-learn's meaning: a positive int
        is that many, -1 all the cores this process may use, -2 all but one; None, like -1,
        uses the process's share of the cores: its CPU affinity and cgroup quota,
        ``OMP_NUM_THREADS`` and ``threadpoolctl`` limits (joblib workers of
        ``GridSearchCV(n_jobs=...)`` and Dask workers set these to their share),
        ``NUMBA_NUM_THREADS``/``numba.set_num_threads``. Small fits and predictions run on
        one thread whatever the setting. Trees do not depend on it.
    monotonic_cst : None, array-like of int of shape (n_features,) or dict, default=None
        Monotonic constraint of each feature on the predicted probability of the positive
        class ``classes_[1]``: 1 increasing, 0 none, -1 decreasing (scikit-learn's meaning; a
        dict ``{feature name or index: -1 | 0 | 1}`` leaves the others free). A split on a
        constrained feature is admissible only if its children's class-1 proportions respect
        the direction and lie within the node's bounds; the chosen split bounds its children
        at the middle of their two values, and every node's probability is clipped to its
        bounds (docs/methods.md §4), so ``predict_proba(X)[:, 1]`` is monotone in each
        constrained feature (over non-missing values; a missing value follows the side the
        split learned). The constraint filters candidates before the split rule ranks them, so
        it holds with every criterion, rule, ``max_features``, ``max_leaf_nodes`` and pruning
        method. Binary classification only: multiclass ``y`` raises a ValueError.
    categorical_features : "from_dtype", None/False, boolean mask, column indices or names
        Columns split by sets of categories (docs/methods.md §11) rather than by thresholds.
        "from_dtype" (default): the pandas category, string, object and bool columns of a
        DataFrame (none of an array; an object column holding only numbers stays numeric,
        and so does a bool column that ``monotonic_cst`` constrains: False < True). A
        categorical column's observed categories, sorted (``categories_``), become codes
        0..k-1, at most 255 and at most ``max_bins``.
        Missing values, and categories unseen in training, take each split's missing-value
        side (unseen ones with an ``UnseenLevelWarning``). The best set is exact for two
        classes (strictly concave criterion) and regression under the gain rules without
        leaf-size constraint (the best prefix of the categories ordered by class-1 proportion
        or mean target), and for everything else up to 10 categories in a node (all
        partitions); above that, a heuristic: the best prefix of one order, by class-1
        proportion, mean or, for K > 2 classes, principal-component score of the class
        proportions (Coppersmith, Hong & Hosking 1999). ``None``: every column numeric.

    Attributes
    ----------
    is_categorical_ : bool array, which features are categorical.
    categories_ : list, per feature its categories (an array, code c = categories_[j][c]) or
        None for a numeric feature.
    category_precision_ : list, per feature the float precision ("float16", "float32" or
        "float64") a categorical column of floats was fitted in, else None. At prediction a
        cell and a category are compared in the narrower of it and the column's precision:
        the 0.1 of a float32 training column matches the 0.1 of a float64 column (a CSV read
        again) and values float32 cannot tell apart are one category, as they were at fit.
    numeric_precision_ : "float32" or "float64", the precision the numeric columns were
        fitted in; prediction rounds numeric input to it (docs/methods.md §2).
    """

    def __init__(self, criterion="gini", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 min_weight_fraction_split=0.0, max_features=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, max_bins=255,
                 random_state=None, significance=None, n_permutations=1000,
                 significance_test="feature", split_rule="gain",
                 feature_costs=None, cost_groups=None, cost_model="per_test",
                 ccp_alpha=0.0, pruning=None, n_jobs=None, monotonic_cst=None,
                 categorical_features="from_dtype", splitter="best"):
        super().__init__(
            criterion=criterion, max_depth=max_depth, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            min_weight_fraction_split=min_weight_fraction_split, max_features=max_features,
            max_leaf_nodes=max_leaf_nodes, min_impurity_decrease=min_impurity_decrease,
            max_bins=max_bins, random_state=random_state, split_rule=split_rule,
            feature_costs=feature_costs, cost_groups=cost_groups, cost_model=cost_model,
            ccp_alpha=ccp_alpha, pruning=pruning, n_jobs=n_jobs, monotonic_cst=monotonic_cst,
            categorical_features=categorical_features, splitter=splitter)
        self.class_weight = class_weight
        self.significance = significance
        self.n_permutations = n_permutations
        self.significance_test = significance_test

    def _significance_rules(self) -> dict:
        if self.significance is None:
            return {}
        significance = check_fraction("significance", self.significance, 0.0, 1.0,
                                      low_inclusive=False, high_inclusive=False)
        n_permutations = check_int("n_permutations", self.n_permutations, 1)
        if self.significance_test not in ("feature", "max"):
            raise ValueError("significance_test must be 'feature' or 'max', got "
                             f"{self.significance_test!r}.")
        return {"significance": significance, "n_permutations": n_permutations,
                "significance_over_features": self.significance_test == "max"}

    _parameter_table = {
        **TREE_PARAMETER_CONSTRAINTS,
        "class_weight": [None, Options({"balanced"}), InstanceOf(dict, "a dict {class: weight}")],
        "significance": [None, Interval(Real, 0.0, 1.0, "neither")],
        # Each permutation re-scores the node; beyond 10**7 a fit would run for days.
        "n_permutations": [Interval(Integral, 1, 10**7, "both")],
        "significance_test": [Options({"feature", "max"})],
    }

    @pauses_collector
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on (X, y); NaN in X is a missing value."""
        self._validate_parameters()
        X, y = self._validate_X_y(X, y)
        if not labels_are_classes(y):
            check_classification_targets(y)
        try:
            self.classes_, y_code = np.unique(y, return_inverse=True)
        except TypeError:  # labels that do not sort: text mixed with numbers
            check_label_types(y)
            raise
        self.n_classes_ = len(self.classes_)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        if self.class_weight is not None:
            check_class_weight(self.class_weight, self.classes_)
            sample_weight = check_sample_weight(
                sample_weight * compute_sample_weight(self.class_weight, y), X.shape[0],
                name="sample_weight * class_weight")
        return self._fit(X, y_code.astype(np.int64), sample_weight, self.n_classes_, y=y)

    def predict_proba(self, X):
        """Class probabilities: the weighted class proportions of the reached leaf."""
        X = self._validate_X_predict(X)
        with self._predict_threads(X):
            return self.tree_.predict(X, getattr(self, "feature_names_in_", None))

    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on (X, y), as scikit-learn's ``ClassifierMixin.score``
        (``_validation.plain_accuracy`` for plain labels)."""
        return accuracy(y, self.predict(X), sample_weight)

    def predict(self, X):
        """Most probable class (lowest class index on ties), as ``argmax`` of predict_proba."""
        X = self._validate_X_predict(X)
        with self._predict_threads(X):
            return self.tree_.predict_class(X, self.classes_,
                                            getattr(self, "feature_names_in_", None))


class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    """Decision tree regressor on the treesmith histogram engine.

    ``criterion`` is "squared_error" (alias "mse") or a regression criterion object; the other
    parameters are those of :class:`DecisionTreeClassifier` without ``class_weight`` and the
    S-pruning ones; ``split_rule`` is one of "gain", "cost_benefit", "balanced".
    ``monotonic_cst`` (1 increasing, 0 none, -1 decreasing per feature, or a dict) constrains
    the predicted mean label, as for the classifier's class-1 probability (docs/methods.md
    §4): ``predict`` is monotone in each constrained feature, with every regression
    criterion.
    """

    _task = REGRESSION_TASK
    #: Error-based and pessimistic pruning count misclassifications: classification only.
    _pruning_methods = ("rep", "ccp")

    def __init__(self, criterion="squared_error", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 min_weight_fraction_split=0.0, max_features=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, max_bins=255, random_state=None, split_rule="gain",
                 feature_costs=None, cost_groups=None, cost_model="per_test",
                 ccp_alpha=0.0, pruning=None, n_jobs=None, monotonic_cst=None,
                 categorical_features="from_dtype", splitter="best"):
        super().__init__(
            criterion=criterion, max_depth=max_depth, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            min_weight_fraction_split=min_weight_fraction_split, max_features=max_features,
            max_leaf_nodes=max_leaf_nodes, min_impurity_decrease=min_impurity_decrease,
            max_bins=max_bins, random_state=random_state, split_rule=split_rule,
            feature_costs=feature_costs, cost_groups=cost_groups, cost_model=cost_model,
            ccp_alpha=ccp_alpha, pruning=pruning, n_jobs=n_jobs, monotonic_cst=monotonic_cst,
            categorical_features=categorical_features, splitter=splitter)

    @pauses_collector
    def fit(self, X, y, sample_weight=None):
        """Grow the tree on (X, y); NaN in X is a missing value."""
        self._validate_parameters()
        X, y = self._validate_X_y(X, y)
        y = np.asarray(y, dtype=np.float64)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        criterion = resolve_criterion(self.criterion, self._task)
        criterion.validate_targets(y)
        stats = self._sample_statistics(criterion, y, sample_weight)
        return self._fit(X, np.zeros(X.shape[0], dtype=np.int64), sample_weight, 0, stats, y=y)

    @staticmethod
    def _sample_statistics(criterion, y, sample_weight):
        """The criterion's per-sample statistics, with weights scaled down by a power of two
        (exact; the tree does not change) when w * y**2 would overflow, and a clear error when
        y itself is too large for float64 sums."""
        with np.errstate(over="ignore", invalid="ignore"):
            stats = criterion.sample_statistics(y, sample_weight)
            largest = float(sample_weight.max())
            if largest > 1.0 and not np.all(np.isfinite(np.abs(stats).sum(axis=0))):
                sample_weight = sample_weight * 2.0 ** -np.ceil(np.log2(largest))
                stats = criterion.sample_statistics(y, sample_weight)
        check_finite_sums(stats, y)
        return stats

    def score(self, X, y, sample_weight=None):
        """R² on (X, y), as scikit-learn's ``RegressorMixin.score``, with the weights checked
        as fit checks them (scikit-learn's r2_score takes negative weights)."""
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, _n_rows(y))
        return super().score(X, y, sample_weight=sample_weight)

    def predict(self, X):
        """Mean training label of the reached leaf."""
        X = self._validate_X_predict(X)
        with self._predict_threads(X):
            return self.tree_.predict(X, getattr(self, "feature_names_in_", None))[:, 0]


class ExtraTreeClassifier(DecisionTreeClassifier):
    """An extremely randomized tree classifier (Geurts, Ernst & Wehenkel, "Extremely randomized
    trees", 2006): :class:`DecisionTreeClassifier` with ``splitter="random"`` and
    ``max_features="sqrt"`` by default, as scikit-learn's ``ExtraTreeClassifier``. Each node
    draws one split per examined feature (uniform in value between the node's smallest and
    largest value) and keeps the best of them (docs/methods.md §7). Meant as a member of
    :class:`treesmith.ensemble.ExtraTreesClassifier`; alone it is a weak, fast learner.
    """

    def __init__(self, criterion="gini", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 min_weight_fraction_split=0.0, max_features="sqrt", max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, max_bins=255,
                 random_state=None, significance=None, n_permutations=1000,
                 significance_test="feature", split_rule="gain",
                 feature_costs=None, cost_groups=None, cost_model="per_test",
                 ccp_alpha=0.0, pruning=None, n_jobs=None, monotonic_cst=None,
                 categorical_features="from_dtype", splitter="random"):
        super().__init__(**{name: value for name, value in locals().items()
                            if name not in ("self", "__class__")})


class ExtraTreeRegressor(DecisionTreeRegressor):
    """An extremely randomized tree regressor: :class:`DecisionTreeRegressor` with
    ``splitter="random"`` and ``max_features=1.0`` by default, as scikit-learn's
    ``ExtraTreeRegressor`` (see :class:`ExtraTreeClassifier`)."""

    def __init__(self, criterion="squared_error", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 min_weight_fraction_split=0.0, max_features=1.0, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, max_bins=255, random_state=None, split_rule="gain",
                 feature_costs=None, cost_groups=None, cost_model="per_test",
                 ccp_alpha=0.0, pruning=None, n_jobs=None, monotonic_cst=None,
                 categorical_features="from_dtype", splitter="random"):
        super().__init__(**{name: value for name, value in locals().items()
                            if name not in ("self", "__class__")})
