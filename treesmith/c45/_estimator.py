"""``C45Classifier``: C4.5 release 8 as Weka's J48 builds it, with scikit-learn's interface."""

from __future__ import annotations

from numbers import Integral, Real
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _get_feature_names, check_is_fitted

from .._precision import fitted_numeric_precision, precision_of_columns, rounded_values
from .._validation import (
    ArrayLike,
    InstanceOf,
    Interval,
    Options,
    accuracy,
    check_sample_weight,
    check_y_values,
    validate_parameters,
)
from ..categorical import (FLOAT_PRECISIONS, _column, _is_polars_frame, _missing,
                           _object_array, _polars_enum_order, fitted_precision,
                           is_categorical_dtype, sort_categories, unseen_report)
from ..categorical import _codes as category_codes
from . import _grow, _prune
from ._tree import C45Tree, predicted_class

_MISSING_VALUES = ("fractional", "error")


class C45Classifier(ClassifierMixin, BaseEstimator):
    """C4.5 decision tree (Quinlan 1993; release 8, Quinlan 1996), tree for tree as Weka's J48.

    Growth: information gain ratio among the tests with at least average gain; numeric cuts
    carry C4.5 release 8's MDL penalty log2(#cuts)/N; nominal attributes split one branch per
    value; every split needs two branches of ``min_objects``; missing values travel as
    fractional objects. Then J48's collapse, and error-based pruning with subtree raising (or
    reduced-error pruning). The formulas are in docs/methods.md §6 and §11; J48's own option
    is given for each parameter.

    Parameters
    ----------
    confidence_factor : float in (0, 0.5], default 0.25
        CF of the pessimistic error bound (``-C``); smaller prunes more.
    min_objects : float >= 0, default 2
        Minimum weight in at least two branches of a split (``-M``); a numeric cut needs
        ``clamp(0.1 · N_known / n_classes, min_objects, 25)`` on both sides.
    unpruned : bool, default False
        Skip pruning (``-U``); the tree is still collapsed.
    subtree_raising : bool, default True
        Let a node's largest branch replace it during pruning (J48's default; ``-S`` turns it off).
    collapse : bool, default True
        J48's collapse of subtrees that do not reduce training errors (always on in J48 3.6).
    binary_splits : bool, default False
        Binary tests ``x == v`` on nominal attributes instead of one branch per value (``-B``).
    laplace : bool, default False
        Laplace-smoothed leaf probabilities (n_k + 1)/(N + K) in ``predict_proba`` (``-A``).
    reduced_error_pruning : bool, default False
        Grow on (n_folds − 1)/n_folds of the data and prune on the rest (``-R``).
    n_folds : int >= 2 (at most the number of rows), default 3
        Folds of reduced-error pruning (``-N``); the last fold of J48's stratification is held out.
    random_state : None or int >= 0, default None
        Reduced-error pruning only. None keeps J48's held-out fold exactly (J48 3.6
        stratifies the data in its given order; its ``-Q`` seed only reorders the growing
        part, which does not change the tree). An int shuffles the rows first, reproducibly.
    mdl_correction : bool, default True
        C4.5 release 8's penalty on numeric cuts (Weka 3.8's ``-J`` turns it off).
    categorical_features : "from_dtype", None, array of column indices / names or boolean mask
        Nominal columns. "from_dtype" (also spelled "auto", its name in earlier releases):
        pandas columns of category, object, string or bool dtype.
        Their categories are the pandas categories, else the sorted training values; a value
        never seen in training is treated as missing.
    missing_values : "fractional" or "error", default "fractional"
        "fractional" handles NaN / None as C4.5 does (an object with a missing tested value is
        split over all branches by their weights); "error" rejects missing values. C4.5's way is
        the default because it is what the algorithm is.

    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_ (pandas input)
    categories_ : list, per column the nominal categories (None for numeric columns)
    category_precision_ : list, per column the float precision ("float16", "float32" or
        "float64") of a nominal column whose values are floats, None otherwise: at prediction
        such a value is compared in the narrower of it and the column's (a float64 0.1 is the
        value fitted from a float32 column's 0.1)
    numeric_precision_ : "float32" or "float64", the precision the numeric columns were
        fitted in; prediction rounds numeric input to it (docs/methods.md §2)
    c45_tree_ : C45Tree, the multiway tree as J48 builds it
    tree_ : treesmith Tree, the same tree rendered binary (for metrics, export, model files)

    Sample weights act as J48's instance weights (object counts): ``min_objects`` and the
    error bound count them as objects.
    """

    #: ``categories_`` are J48's nominal levels (checked by ``_check_loaded_attributes``), not
    #: the category codes of split sets that ``treesmith.io`` checks for the other trees.
    _categories_are_split_codes = False

    def __init__(self, confidence_factor=0.25, min_objects=2, unpruned=False,
                 subtree_raising=True, collapse=True, binary_splits=False, laplace=False,
                 reduced_error_pruning=False, n_folds=3, random_state=None,
                 mdl_correction=True, categorical_features="from_dtype",
                 missing_values="fractional"):
        self.confidence_factor = confidence_factor
        self.min_objects = min_objects
        self.unpruned = unpruned
        self.subtree_raising = subtree_raising
        self.collapse = collapse
        self.binary_splits = binary_splits
        self.laplace = laplace
        self.reduced_error_pruning = reduced_error_pruning
        self.n_folds = n_folds
        self.random_state = random_state
        self.mdl_correction = mdl_correction
        self.categorical_features = categorical_features
        self.missing_values = missing_values

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing_values == "fractional"
        return tags

    # -- checks -------------------------------------------------------------------------------
    #: Allowed values of the parameters (``treesmith._validation``), checked at the start of
    #: ``fit`` and on loaded model files; column indices, names and masks of
    #: ``categorical_features`` are resolved against X by ``_nominal_mask``.
    _parameter_table = {
        "confidence_factor": [Interval(Real, 0.0, 0.5, "right")],
        "min_objects": [Interval(Real, 0.0, None)],
        **{name: ["boolean"] for name in ("unpruned", "subtree_raising", "collapse",
                                          "binary_splits", "laplace", "reduced_error_pruning",
                                          "mdl_correction")},
        "n_folds": [Interval(Integral, 2, None)],
        # numpy's default_rng seed: a non-negative int (True is not a seed)
        "random_state": [None, Interval(Integral, 0, None)],
        # a string other than "from_dtype" / "auto" is refused by _nominal_mask
        "categorical_features": [None, InstanceOf(str, "'from_dtype'"),
                                 ArrayLike("column indices, column names or a boolean mask")],
        "missing_values": [Options(set(_MISSING_VALUES))],
    }

    def _check_params(self):
        validate_parameters(self)

    def _validate_params(self):
        """scikit-learn's hook (``treesmith.io`` calls it on loaded models): our table."""
        validate_parameters(self)

    def _nominal_mask(self, X, n_features, names):
        spec = self.categorical_features
        mask = np.zeros(n_features, dtype=bool)
        if spec is None:
            return mask
        if isinstance(spec, str):
            if spec not in ("from_dtype", "auto"):
                raise ValueError(f"categorical_features must be 'from_dtype', None, column "
                                 f"indices, column names or a boolean mask, got {spec!r}.")
            if hasattr(X, "dtypes"):  # pandas or polars (whose dtypes have no ``kind``)
                for j, dtype in enumerate(X.dtypes):
                    mask[j] = is_categorical_dtype(dtype)
            return mask
        spec = np.asarray(spec)
        if spec.dtype == bool:
            if spec.shape != (n_features,):
                raise ValueError(f"categorical_features as a mask needs {n_features} entries, "
                                 f"got {spec.shape[0] if spec.ndim else spec}.")
            return spec.copy()
        for item in spec.ravel():
            if isinstance(item, str) or spec.dtype.kind in "OU":
                if names is None or str(item) not in list(names):
                    raise ValueError(f"categorical_features names column {item!r}, which X "
                                     f"does not have.")
                mask[list(names).index(str(item))] = True
            elif spec.dtype.kind not in "iu":  # 2.5 was int(2.5), column 2
                raise ValueError(f"categorical_features must hold column indices (ints), "
                                 f"column names or a boolean mask, got "
                                 f"{self.categorical_features!r}.")
            else:
                if not (0 <= int(item) < n_features):
                    raise ValueError(f"categorical_features index {item!r} is outside "
                                     f"[0, {n_features}).")
                mask[int(item)] = True
        return mask

    def _columns(self, X):
        """X as a list of 1-D object/float columns, and the column names (pandas, polars) or
        None. A polars column comes as a numpy array (``categorical._column``: object for
        text, None for nulls)."""
        if hasattr(X, "iloc") and hasattr(X, "columns"):
            names = np.asarray([str(c) for c in X.columns], dtype=object)
            return [X.iloc[:, j] for j in range(X.shape[1])], names
        if _is_polars_frame(X):
            names = np.asarray([str(c) for c in X.columns], dtype=object)
            return [_column(X, j) for j in range(X.shape[1])], names
        if hasattr(X, "toarray") or hasattr(X, "tocsr"):
            raise TypeError("C45Classifier does not support sparse input; pass a dense array "
                            "or a DataFrame.")
        array = np.asarray(X)
        if array.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {array.shape}. "
                             f"Reshape your data with X.reshape(-1, 1) for a single feature "
                             f"or X.reshape(1, -1) for a single sample.")
        return [array[:, j] for j in range(array.shape[1])], None

    def _encode(self, columns, fitting: bool, declared=None):
        """Float64 matrix: numeric values, category codes for nominal columns, NaN missing.
        ``declared[j]``: the categories column ``j``'s dtype declares in order (a polars Enum;
        a pandas category column carries its own), None to sort the observed values."""
        n = len(columns[0]) if columns else 0
        X = np.empty((n, len(columns)), dtype=np.float64)
        categories = self.categories_ if not fitting else []
        precisions = [] if fitting else None
        unseen_parts = []
        for j, column in enumerate(columns):
            nominal = self._nominal_[j]
            if nominal:
                if fitting:
                    if str(getattr(column, "dtype", "")) == "category":
                        levels = [float(v) if isinstance(v, np.floating) else v
                                  for v in column.cat.categories]
                    elif declared is not None and declared[j] is not None:
                        levels = list(declared[j])
                    else:
                        levels = list({v for v in np.asarray(column, dtype=object)
                                       if not _is_missing(v)})
                        sort_categories(levels)
                    categories.append(levels)
                    precisions.append(fitted_precision(column, _object_array(levels)))
            elif fitting:
                categories.append(None)
                precisions.append(None)
            precision = (precisions[j] if fitting
                         else self._fitted_precision(j))
            X[:, j] = self._encode_values(j, column, categories[j], precision)
            if not nominal and not fitting:
                X[:, j] = rounded_values(X[:, j], fitted_numeric_precision(self))
            if nominal and not fitting:
                unseen = np.isnan(X[:, j]) & ~_missing(column)
                if unseen.any():
                    if self.missing_values == "error":  # not "has missing values"
                        self._refuse_unseen(j, column, unseen)
                    unseen_parts.append(unseen_report(self._column_name(j), column, unseen,
                                                      categories[j], precision, "values"))
        if fitting:
            self.categories_ = categories
            self.category_precision_ = precisions
        if not fitting and unseen_parts:
            from .._warnings import warn_at_user_code
            from ..datasets import UnseenLevelWarning

            warn_at_user_code("; ".join(unseen_parts) + "; C4.5 treats them as missing "
                              "values (down every branch, weighted).", UnseenLevelWarning)
        if self.missing_values == "error" and np.isnan(X).any():
            self._refuse_missing(int(np.flatnonzero(np.isnan(X).any(axis=0))[0]))
        return X

    def _fitted_precision(self, j):
        """Column ``j``'s fitted float precision (``category_precision_``), None for a model
        saved before it existed."""
        precisions = getattr(self, "category_precision_", None)
        return None if precisions is None or j >= len(precisions) else precisions[j]

    def _encode_values(self, j, values, levels, precision):
        """Float64 codes of column ``j``'s ``values``: the category code of a nominal value
        (``levels`` its categories, floats matched in the narrower of ``precision`` and the
        values'; NaN when missing or unseen), the number itself for a numeric column (NaN
        missing; infinity and non-numbers refused)."""
        if levels is not None:
            if precision is not None:  # floats compared in the narrower precision
                column = values if hasattr(values, "dtype") else _object_array(
                    np.asarray(values, dtype=object).ravel().tolist())
                codes, _ = category_codes(column, _object_array(levels), _missing(column),
                                          precision)
                return codes
            lookup = {level: code for code, level in enumerate(levels)}
            return np.array([lookup.get(v, np.nan) if not _is_missing(v) else np.nan
                             for v in np.asarray(values, dtype=object).ravel()],
                            dtype=np.float64)
        if np.asarray(values).dtype.kind == "c":  # the cast dropped the imaginary part
            raise ValueError(f"column {self._column_name(j)} holds complex numbers; C4.5 "
                             "needs real numbers (or name it in categorical_features).")
        try:
            codes = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise type(error)(
                f"column {self._column_name(j)} holds non-numeric values ({error}); "
                f"name it in categorical_features to treat it as nominal.") from None
        if np.isinf(codes).any():
            raise ValueError(f"column {self._column_name(j)} holds infinity; C4.5 "
                             f"needs finite values or NaN for missing.")
        return codes

    def _refuse_unseen(self, j, values, unseen):
        """With missing_values='error': column ``j``'s values unseen at fit are refused, named
        (C4.5 would treat them as missing values)."""
        raise ValueError(unseen_report(self._column_name(j), values, unseen,
                                       self.categories_[j], self._fitted_precision(j),
                                       "values")
                         + "; with missing_values='error' C4.5 refuses them (it would treat "
                         "them as missing values).")

    def _refuse_missing(self, j):
        raise ValueError(f"column {self._column_name(j)} has missing values and "
                         f"missing_values='error'; use missing_values='fractional' for "
                         f"C4.5's fractional objects.")

    def _encode_column(self, j, values):
        """Feature ``j``'s raw ``values`` (1-D) encoded as :meth:`predict` encodes them: for
        code that reads features one at a time (``treesmith.predict_lazy``)."""
        check_is_fitted(self, "c45_tree_")
        codes = self._encode_values(j, values, self.categories_[j], self._fitted_precision(j))
        if self.categories_[j] is None:  # docs/methods.md §2
            codes = rounded_values(codes, fitted_numeric_precision(self))
        if self.missing_values == "error" and np.isnan(codes).any():
            values = _object_array(np.asarray(values, dtype=object).ravel().tolist())
            unseen = np.isnan(codes) & ~_missing(values)
            if unseen.any():
                self._refuse_unseen(j, values, unseen)
            self._refuse_missing(j)
        return codes

    def _column_name(self, j):
        names = getattr(self, "feature_names_in_", None)
        return repr(names[j]) if names is not None else f"x{j}"

    # -- fit ----------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Grow and prune the tree on X, y (J48's ``buildClassifier``)."""
        self._check_params()
        columns, names = self._columns(X)
        feature_names = _get_feature_names(X)  # scikit-learn's: string column names only
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        shape = (len(columns[0]) if columns else np.shape(X)[0], len(columns))
        n_samples, n_features = shape
        if n_features == 0:
            raise ValueError(f"0 feature(s) (shape={shape}) while a minimum of 1 is required.")
        if n_samples == 0:
            raise ValueError(f"0 sample(s) (shape={shape}) while a minimum of 1 is required.")
        if y is None:
            raise ValueError("C45Classifier requires y to be passed, but the target y is None.")
        y = np.asarray(check_y_values(y, "classification"))  # multi-output y named
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected; it is "
                          "used as y.ravel().", DataConversionWarning, stacklevel=2)
            y = y.ravel()
        if y.ndim != 1 or y.shape[0] != n_samples:
            raise ValueError(f"y must be 1-D with one label per row of X ({n_samples}), got "
                             f"shape {y.shape}.")
        check_classification_targets(y)
        self._nominal_ = self._nominal_mask(X, n_features, names)
        self.numeric_precision_ = precision_of_columns(
            [getattr(column, "dtype", None) for column in columns], self._nominal_)
        declared = [_polars_enum_order(X, j) for j in range(n_features)]
        X_encoded = self._encode(columns, fitting=True, declared=declared)
        self.classes_, y_code = np.unique(y, return_inverse=True)
        self.n_classes_ = int(self.classes_.shape[0])
        self.n_features_in_ = n_features
        weights = check_sample_weight(sample_weight, n_samples)
        root = self._build(X_encoded, y_code.astype(np.int64), weights)
        self.c45_tree_ = C45Tree.from_nodes(root, n_features, self.n_classes_)
        self.__dict__.pop("_binary_view", None)
        return self

    def _check_loaded_attributes(self):
        """Model files (``treesmith.io``): ``c45_tree_`` and ``categories_`` as fit stores
        them, then the private nominal-column mask rebuilt from ``categories_`` (a column is
        nominal exactly when it has a category list)."""
        tree = self.c45_tree_
        if not isinstance(tree, C45Tree):
            raise ValueError("c45_tree_ must be a C4.5 tree")
        tree.validate()
        if tree.n_features != self.n_features_in_ or tree.n_classes != self.n_classes_:
            raise ValueError("c45_tree_ and the estimator disagree on features or classes")
        categories = getattr(self, "categories_", None)
        if not isinstance(categories, list) or len(categories) != self.n_features_in_ or \
                not all(levels is None or (isinstance(levels, list) and all(
                    isinstance(v, (bool, int, float, str)) for v in levels))
                        for levels in categories):
            raise ValueError(f"categories_ must list, for each of the {self.n_features_in_} "
                             "columns, None (numeric) or its category levels")
        precisions = getattr(self, "category_precision_", None)  # absent before schema 4
        if precisions is not None and not (
                isinstance(precisions, list) and len(precisions) == self.n_features_in_
                and all(p is None or (p in FLOAT_PRECISIONS and levels is not None and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool)
                    and float(np.float64(v).astype(p)) == v for v in levels))
                        for p, levels in zip(precisions, categories))):
            raise ValueError(f"category_precision_ must list, for each of the "
                             f"{self.n_features_in_} columns, None or the float precision "
                             f"({', '.join(FLOAT_PRECISIONS)}) that holds its numeric levels")
        nominal = np.array([levels is not None for levels in categories], dtype=bool)
        tested = tree.attribute >= 0
        if np.any(nominal[tree.attribute[tested]] != (tree.kind[tested] != _grow.NUMERIC)):
            raise ValueError("a C4.5 test's kind does not match its column's categories_")
        self._nominal_ = nominal

    @property
    def tree_(self):
        """The fitted tree rendered binary (a treesmith ``Tree``), built on first use: a
        multiway nominal test becomes a chain of ``code <= v + 0.5`` tests, a row with a
        missing value takes the heaviest branch. For metrics, exports and model files."""
        check_is_fitted(self, "c45_tree_")
        view = self.__dict__.get("_binary_view")
        if view is None or view[0] is not self.c45_tree_:
            view = (self.c45_tree_, self.c45_tree_.to_binary_tree())
            self.__dict__["_binary_view"] = view
        return view[1]

    def _growth_data(self, X, y_code, weights):
        n_values = np.array([0 if levels is None else len(levels)
                             for levels in self.categories_], dtype=np.int64)
        return _grow.GrowthData(X, y_code, weights, n_values, self.n_classes_)

    def _build(self, X, y_code, weights) -> _grow.Node:
        data = self._growth_data(X, y_code, weights)
        prune = not self.unpruned
        settings = _grow.GrowthSettings(
            min_objects=float(self.min_objects), binary_splits=bool(self.binary_splits),
            mdl_correction=bool(self.mdl_correction),
            keep_data=prune and self.subtree_raising and not self.reduced_error_pruning,
            n_all_objects=X.shape[0])
        if self.reduced_error_pruning:
            grow_rows, held_rows = reduced_error_folds(y_code, self.n_folds, self.random_state)
            root = _grow.grow(data, settings, grow_rows, weights[grow_rows])
            _grow.make_recursion_room(_grow.tree_depth(root))
            if prune:
                held_out = {}
                _prune.held_out_distributions(root, data, held_rows, weights[held_rows],
                                              held_out)
                _prune.reduced_error_prune(root, held_out)
            return root
        root = _grow.grow(data, settings)
        _grow.make_recursion_room(_grow.tree_depth(root))
        if self.collapse:
            _prune.collapse(root)
        if prune:
            bound = _prune.ErrorBound.for_confidence(self.confidence_factor)
            _prune.ErrorBasedPruner(data, bound, bool(self.subtree_raising)).prune_tree(root)
        _release_data(root)
        return root

    # -- prediction ---------------------------------------------------------------------------
    def _encode_predict(self, X):
        check_is_fitted(self, "c45_tree_")
        columns, _ = self._columns(X)
        names = _get_feature_names(X)
        fitted_names = getattr(self, "feature_names_in_", None)
        if len(columns) != self.n_features_in_:
            raise ValueError(f"X has {len(columns)} features, but C45Classifier is expecting "
                             f"{self.n_features_in_} features as input.")
        if fitted_names is not None and names is not None \
                and list(names) != list(fitted_names):
            raise ValueError("The feature names of X differ from those seen in fit "
                             f"({list(fitted_names)}).")
        if (fitted_names is None) != (names is None):  # scikit-learn's two warnings
            warnings.warn(
                "X does not have valid feature names, but C45Classifier was fitted with "
                "feature names" if names is None else
                "X has feature names, but C45Classifier was fitted without feature names",
                UserWarning, stacklevel=3)
        return self._encode(columns, fitting=False)

    def predict_proba(self, X):
        """J48's class distribution (``distributionForInstance``), normalised to sum to 1."""
        return self._proba_of_encoded(self._encode_predict(X))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on (X, y), the weights checked as fit checks them (scikit-learn's
        accuracy_score averages with negative weights)."""
        return accuracy(y, self.predict(X), sample_weight)

    def predict(self, X):
        """J48's ``classifyInstance``: the most probable class, the first on near-ties."""
        return self._predict_encoded(self._encode_predict(X))

    def _proba_of_encoded(self, encoded):
        probabilities = self.c45_tree_.predict_proba(encoded, laplace=bool(self.laplace))
        total = probabilities.sum(axis=1, keepdims=True)
        return np.divide(probabilities, total, out=np.full_like(probabilities,
                                                                1.0 / self.n_classes_),
                         where=total > 0)

    def _predict_encoded(self, encoded):
        probabilities = self.c45_tree_.predict_proba(encoded, laplace=False)
        return self.classes_[predicted_class(probabilities)]

    def apply(self, X):
        """Leaf of the binary view ``tree_`` each row reaches (missing: heaviest branch)."""
        return self.tree_.apply(self._encode_predict(X))

    def decision_path(self, X):
        """Nodes of the binary view ``tree_`` on each row's path (CSR indicator matrix)."""
        return self.tree_.decision_path(self._encode_predict(X))

    def get_n_leaves(self) -> int:
        """Leaves of the C4.5 tree (J48's "Number of Leaves")."""
        check_is_fitted(self, "c45_tree_")
        return self.c45_tree_.n_leaves

    def get_depth(self) -> int:
        check_is_fitted(self, "c45_tree_")
        return self.c45_tree_.max_depth


def _is_missing(value) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, pd.NA raise or compare unequal
    except (TypeError, ValueError):
        return True


def _release_data(root: _grow.Node) -> None:
    stack = [root]
    while stack:
        node = stack.pop()
        node.rows = node.weights = None
        stack.extend(node.children)


def reduced_error_folds(y_code: np.ndarray, n_folds: int, random_state=None):
    """Growing and held-out rows of J48's reduced-error pruning.

    Weka's ``Instances.stratify``: objects are grouped by class by a swap scan over the data
    order, then dealt round robin into ``n_folds`` folds (``stratStep``); the last fold
    (``testCV(n_folds, n_folds - 1)``) is held out. An int ``random_state`` shuffles first.
    """
    # J48: "Can't have more folds than instances!" (one row is a root leaf whatever the folds,
    # docs/methods.md §2: nothing is held out)
    if n_folds > y_code.shape[0] > 1:
        raise ValueError(f"n_folds={n_folds} is more folds than the {y_code.shape[0]} rows: "
                         "reduced_error_pruning holds out one fold of n_folds; lower n_folds.")
    order = list(range(y_code.shape[0]))
    if random_state is not None:
        order = list(np.random.default_rng(random_state).permutation(y_code.shape[0]))
    n = len(order)
    index = 1
    while index < n:
        first_class = y_code[order[index - 1]]
        for j in range(index, n):
            if y_code[order[j]] == first_class:
                order[index], order[j] = order[j], order[index]
                index += 1
        index += 1
    # folds past the n-th are empty: range(n_folds) looped 10**12 times for n_folds=10**12
    dealt = [row for start in range(min(n_folds, n)) for row in order[start::n_folds]]
    per_fold, remainder = divmod(n, n_folds)
    fold = n_folds - 1
    size = per_fold + (1 if fold < remainder else 0)
    offset = fold if fold < remainder else remainder
    first = fold * per_fold + offset
    held = np.array(dealt[first:first + size], dtype=np.int64)
    grow_rows = np.array(dealt[:first] + dealt[first + size:], dtype=np.int64)
    return grow_rows, held
