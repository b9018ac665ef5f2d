"""Seed 000 §6 preprocessing as scikit-learn components.

"Numerical features are categorized into multiple bins by the k-means strategy … All
categorical features are then binarized … All identical objects are coalesced into a single
object, and the sampling probability is set accordingly … the majority class is assigned to
each identical data point."

* :class:`KMeansBinarizer` — a transformer: numeric columns → k-means bins (scikit-learn's
  ``KBinsDiscretizer(strategy="kmeans")``) → one indicator per bin; categorical columns → one
  indicator per level. Output names say what each indicator tests, the cost of each output
  column is its source column's (``feature_costs_out_``) and the columns of one source form a
  cost group (``cost_groups_out_``), so a tree pays once for a measurement under
  ``cost_model="per_feature"``.
* :func:`coalesce` — identical rows become one row weighted by their total weight, labelled
  with their (weighted) majority class.
* :class:`CoalescedClassifier` — a meta-estimator that coalesces its training data before
  fitting the wrapped classifier (coalescing changes y and the weights, which a transformer
  cannot do inside a Pipeline).

Typical use (Zhang & Gionis 2023's protocol)::

    binarizer = KMeansBinarizer(n_bins=5, feature_costs=source_costs).fit(X_train)
    tree = DecisionTreeClassifier(criterion="entropy", split_rule=ECART(lam=10),
                                  min_weight_fraction_split=0.005,
                                  feature_costs=binarizer.feature_costs_out_,
                                  cost_groups=binarizer.cost_groups_out_)
    model = make_pipeline(binarizer, CoalescedClassifier(tree)).fit(X_train, y_train)
"""

from __future__ import annotations

import itertools
import numbers
import warnings

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    TransformerMixin,
    clone,
)
from sklearn.utils.validation import check_is_fitted

from ._validation import (
    ArrayLike,
    InstanceOf,
    Interval,
    check_sample_weight,
    check_y_values,
    validate_parameters,
)
from .costs import resolve_feature_costs


def _is_categorical_dtype(dtype) -> bool:
    return dtype.kind in "OUSb" or str(dtype) in ("category", "string", "str")


def _format(value: float) -> str:
    return f"{value:.6g}"


class KMeansBinarizer(TransformerMixin, BaseEstimator):
    """Numeric columns → k-means bins → indicators; categorical columns → indicators.

    Parameters:
        n_bins: int >= 2, bins per numeric column (k-means on its values; scikit-learn's
            ``KBinsDiscretizer(strategy="kmeans")``). A numeric column with at most
            ``n_bins`` distinct values is kept exact: one level per value.
        categorical: "auto" (pandas object/category/bool/string columns), or a list of column
            names or positions to treat as categorical (numpy input: none by default).
        feature_costs: cost of each *input* column (None, an array, or a dict by name or
            position; see ``treesmith.costs``); carried to the output columns.
        drop_binary: a source with exactly two levels gives one indicator (of the second
            level) instead of two.
        random_state: seeds the subsample ``KBinsDiscretizer`` takes on large columns.

    A missing value (NaN / None) makes every indicator of its column NaN, which the treesmith
    trees treat as missing; a level unseen in training sets every indicator of its column to 0.

    Fitted attributes: ``n_features_in_``, ``feature_names_in_`` (pandas input),
    ``feature_names_out_``, ``feature_costs_out_`` (float64 per output column),
    ``cost_groups_out_`` (int64 per output column: the position of its source column),
    ``feature_groups_`` (source name → output names), ``bin_edges_`` (source name → the
    inner k-means edges of binned columns), ``levels_`` (source name → levels).
    """

    #: Declared parameter values (treesmith._validation); the columns ``categorical`` lists
    #: and feature_costs are resolved against the columns of X.
    _parameter_table = {
        "n_bins": [Interval(numbers.Integral, 2, None)],
        # a number was iterated ("'int' object is not iterable"); other text is refused by
        # _categorical_mask
        "categorical": [None, InstanceOf(str, "'auto'"),
                        ArrayLike("a list of column names or positions")],
        "drop_binary": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(self, n_bins=5, categorical="auto", feature_costs=None, drop_binary=True,
                 random_state=None):
        self.n_bins = n_bins
        self.categorical = categorical
        self.feature_costs = feature_costs
        self.drop_binary = drop_binary
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # a missing value gives NaN indicators
        return tags

    # -- fitting --------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Learn the bins and levels of every column of ``X``."""
        validate_parameters(self)
        columns, names = self._columns(X, reset=True)
        categorical = self._categorical_mask(columns, names)
        source_costs = resolve_feature_costs(self.feature_costs, len(columns),
                                             None if names is None else np.asarray(names))
        self._encoders = []
        self.bin_edges_, self.levels_, self.feature_groups_ = {}, {}, {}
        out_names, out_costs, out_groups = [], [], []
        for j, (column, name) in enumerate(zip(columns, self._source_names(names, columns))):
            encoder = self._fit_column(column, bool(categorical[j]), name)
            self._encoders.append(encoder)
            derived = encoder["names"]
            self.feature_groups_[name] = list(derived)
            out_names += derived
            out_costs += [source_costs[j]] * len(derived)
            out_groups += [j] * len(derived)
        self.feature_names_out_ = np.asarray(out_names, dtype=object)
        self.feature_costs_out_ = np.asarray(out_costs, dtype=np.float64)
        self.cost_groups_out_ = np.asarray(out_groups, dtype=np.int64)
        return self

    def _columns(self, X, reset: bool):
        """The columns of X as a list of 1-D arrays, and the column names (or None)."""
        if hasattr(X, "columns") and hasattr(X, "iloc"):
            names = [str(c) for c in X.columns]
            columns = [X.iloc[:, j].to_numpy() for j in range(X.shape[1])]
            dtypes = list(X.dtypes)
        else:
            if type(X).__module__.split(".")[:2] == ["scipy", "sparse"]:
                raise TypeError("Sparse data was passed for X, but dense data is required "
                                "(KMeansBinarizer bins dense columns). Use X.toarray().")
            array = np.asarray(X)
            if array.ndim != 2:
                raise ValueError(f"X must be 2-D, got shape {array.shape}. Reshape your data "
                                 "with X.reshape(-1, 1) for one feature or X.reshape(1, -1) "
                                 "for one sample.")
            names, columns = None, [array[:, j] for j in range(array.shape[1])]
            # numpy input has no column types: no column is categorical unless listed in
            # ``categorical`` (an object array of numbers is binned, not one level per value)
            dtypes = [np.dtype(np.float64)] * array.shape[1]
        if any(column.dtype.kind == "c" for column in columns):
            raise ValueError("Complex data not supported: X holds complex numbers.")
        if reset:
            self.n_features_in_ = len(columns)
            if names is not None:
                self.feature_names_in_ = np.asarray(names, dtype=object)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            self._dtypes = dtypes
        else:
            if len(columns) != self.n_features_in_:
                raise ValueError(f"X has {len(columns)} features, but KMeansBinarizer is "
                                 f"expecting {self.n_features_in_} features as input (it was "
                                 f"fitted with {self.n_features_in_}).")
            fitted = getattr(self, "feature_names_in_", None)
            if fitted is not None and names is not None and list(fitted) != names:
                raise ValueError("X's column names differ from those seen in fit.")
        if not columns or columns[0].shape[0] == 0:
            shape = (columns[0].shape[0] if columns else np.shape(X)[0], len(columns))
            raise ValueError(f"Found array with {shape[0]} sample(s) and {shape[1]} feature(s) "
                             f"(shape={shape}) while a minimum of 1 is required: X must have "
                             "at least one row and one column.")
        return columns, names

    def _source_names(self, names, columns):
        return names if names is not None else [f"x{j}" for j in range(len(columns))]

    def _categorical_mask(self, columns, names) -> np.ndarray:
        if isinstance(self.categorical, str) and self.categorical == "auto":
            return np.asarray([_is_categorical_dtype(d) for d in self._dtypes], dtype=bool)
        mask = np.zeros(len(columns), dtype=bool)
        if self.categorical is None:
            return mask
        if isinstance(self.categorical, str) or getattr(self.categorical, "ndim", 1) == 0:
            raise ValueError(f"KMeansBinarizer: categorical must be None, 'auto' or a list of "
                             f"column names or positions, got {self.categorical!r}.")
        for column in self.categorical:
            if isinstance(column, (bool, np.bool_)):  # True was column 1
                raise ValueError(f"categorical lists column names or positions, not booleans; "
                                 f"got {self.categorical!r}.")
            if isinstance(column, numbers.Integral) and 0 <= column < len(columns):
                mask[int(column)] = True
            elif names is not None and column in names:
                mask[names.index(column)] = True
            else:
                raise ValueError(f"categorical: no column {column!r} in X.")
        return mask

    def _fit_column(self, column, categorical: bool, name: str) -> dict:
        missing = _missing(column)
        present = column[~missing]
        if categorical:
            levels = sorted({str(v).strip() for v in present})
            return self._indicators(name, "level", levels,
                                    [f"{name}={level}" for level in levels])
        try:
            values = present.astype(np.float64)
        except (TypeError, ValueError) as error:
            raise type(error)(f"column {name!r} is not numeric ({error}); list it in "
                              "categorical=.") from None
        if not np.all(np.isfinite(values)):
            raise ValueError(f"column {name!r} has infinite values (NaN is a missing value; "
                             "replace infinity by NaN or a large finite number).")
        distinct = np.unique(values)
        if distinct.size <= self.n_bins:
            return self._indicators(name, "value", distinct.tolist(),
                                    [f"{name}={_format(v)}" for v in distinct])
        edges = self._kmeans_edges(values, name)
        if edges.size == 0:  # the labels below read edges[0]: an IndexError
            raise ValueError(
                f"column {name!r} has {distinct.size} distinct values, but every k-means bin of "
                f"them is narrower than scikit-learn's minimum bin width 1e-8 (its values span "
                f"{float(distinct[-1] - distinct[0]):.3g}), so they merge into one bin; rescale "
                "the column (e.g. multiply it by a power of ten) or list it in categorical=.")
        self.bin_edges_[name] = edges
        labels = ([f"{name}<{_format(edges[0])}"]
                  + [f"{_format(lo)}<={name}<{_format(hi)}" for lo, hi in itertools.pairwise(edges)]
                  + [f"{name}>={_format(edges[-1])}"])
        return self._indicators(name, "bin", list(range(len(labels))), labels, edges)

    def _kmeans_edges(self, values: np.ndarray, name: str) -> np.ndarray:
        from sklearn.preprocessing import KBinsDiscretizer

        discretizer = KBinsDiscretizer(n_bins=int(self.n_bins), encode="ordinal",
                                       strategy="kmeans", random_state=self.random_state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "bins whose width are too small"
            discretizer.fit(values.reshape(-1, 1))
        return np.asarray(discretizer.bin_edges_[0][1:-1], dtype=np.float64)

    def _indicators(self, name, kind, levels, labels, edges=None) -> dict:
        keep = list(range(len(levels)))
        if len(levels) == 2 and self.drop_binary:
            keep = [1]
        elif len(levels) <= 1:
            keep = []  # a constant column separates nothing
        self.levels_[name] = list(levels)
        return {"kind": kind, "levels": list(levels), "keep": keep, "edges": edges,
                "names": [labels[k] for k in keep]}

    # -- transforming ---------------------------------------------------------------------
    def transform(self, X):
        """The float64 indicator matrix (NaN where the source value is missing)."""
        check_is_fitted(self, "feature_names_out_")
        columns, _ = self._columns(X, reset=False)
        blocks = []
        for column, encoder in zip(columns, self._encoders):
            if not encoder["keep"]:
                continue
            missing = _missing(column)
            codes = np.full(column.shape[0], -1, dtype=np.int64)
            present = column[~missing]
            if encoder["kind"] == "bin":
                codes[~missing] = np.searchsorted(encoder["edges"], present.astype(np.float64),
                                                  side="right")
            else:
                keys = ([str(v).strip() for v in present] if encoder["kind"] == "level"
                        else present.astype(np.float64).tolist())
                position = {level: k for k, level in enumerate(encoder["levels"])}
                codes[~missing] = [position.get(key, -1) for key in keys]
            block = (codes[:, None] == np.asarray(encoder["keep"])[None, :]).astype(np.float64)
            block[missing] = np.nan
            blocks.append(block)
        n_rows = columns[0].shape[0]
        return np.hstack(blocks) if blocks else np.empty((n_rows, 0))

    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self, "feature_names_out_")
        return self.feature_names_out_.copy()


def _missing(column) -> np.ndarray:
    if column.dtype.kind == "f":
        return np.isnan(column)
    if column.dtype.kind in "iub":
        return np.zeros(column.shape[0], dtype=bool)
    import pandas as pd

    return np.asarray(pd.isna(column), dtype=bool)


# -- coalescing ---------------------------------------------------------------------------
def coalesce(X, y, sample_weight=None):
    """Merge identical rows of ``X`` into one weighted object (Zhang & Gionis 2023 §6).

    Returns ``(X_u, y_u, w_u, counts)``: the distinct rows in order of first appearance (a
    DataFrame with the same columns when ``X`` is one), each labelled with the class of largest
    total weight among its copies (ties → the smallest label), weighted by the copies' total
    weight (``sample_weight``, default 1 each), and ``counts`` = how many original rows each
    one stands for. Rows are identical when every value is (NaN equals NaN, −0 equals 0). A
    DataFrame may hold text and category columns (for trees with categorical splits); its
    rows are then compared by pandas' grouping, missing values equal.
    """
    y = np.asarray(check_y_values(y, "classification"))  # multi-output y is named
    if hasattr(X, "iloc") and not all(getattr(dtype, "kind", "O") in "biuf"
                                      for dtype in X.dtypes):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}.")
        n = X.shape[0]
        group = X.groupby(list(X.columns), dropna=False, sort=False,
                          observed=True).ngroup().to_numpy()  # numbered as first seen
        n_groups = int(group.max()) + 1 if n else 0
        rows = np.unique(group, return_index=True)[1]
    else:
        values = np.asarray(X, dtype=np.float64)
        if values.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {values.shape}.")
        n = values.shape[0]
        keys = np.where(np.isnan(values), np.nan, values + 0.0)  # one NaN, one zero
        keys = np.ascontiguousarray(keys).view(
            np.dtype((np.void, keys.dtype.itemsize * keys.shape[1])))
        _, first, row_group = np.unique(keys.ravel(), return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # groups in order of first appearance
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        group = rank[row_group.ravel()]
        n_groups = order.size
        rows = first[order]
    if y.shape != (n,):
        raise ValueError(f"y must have one label per row of X ({n}), got shape {y.shape}.")
    weight = check_sample_weight(sample_weight, n, positive_sum=False, rescale=False)

    classes, y_code = np.unique(y, return_inverse=True)
    class_weight = np.zeros((n_groups, classes.size))
    np.add.at(class_weight, (group, y_code.ravel()), weight)
    counts = np.bincount(group, minlength=n_groups)
    y_u = classes[np.argmax(class_weight, axis=1)]
    w_u = class_weight.sum(axis=1)
    X_u = X.iloc[rows].reset_index(drop=True) if hasattr(X, "iloc") else values[rows]
    return X_u, y_u, w_u, counts


class CoalescedClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Fit ``estimator`` on the coalesced training data (:func:`coalesce`): one object per
    distinct row, its majority class, the summed weight.

    Prediction and every fitted attribute of the inner estimator (``tree_``, ``classes_``,
    ``feature_costs_`` …) are forwarded, so the cost metrics and exports accept this object.
    Fitted: ``estimator_``, ``counts_`` (original rows per coalesced object).
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y, sample_weight=None):
        if isinstance(self.estimator, type) or not hasattr(self.estimator, "fit"):
            raise TypeError(f"CoalescedClassifier: estimator must be a classifier instance "
                            f"(with fit), got {self.estimator!r}.")
        X_u, y_u, w_u, counts = coalesce(X, y, sample_weight)
        self.estimator_ = clone(self.estimator).fit(X_u, y_u, sample_weight=w_u)
        self.counts_ = counts
        self.n_features_in_ = self.estimator_.n_features_in_
        return self

    def __getattr__(self, name):
        # Forward fitted attributes (name_) and tree methods to the inner estimator.
        if name.startswith("__") or name in ("estimator_", "estimator"):
            raise AttributeError(name)
        inner = self.__dict__.get("estimator_")
        if inner is None or not (name.endswith("_") or name in _FORWARDED_METHODS):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(inner, name)

    def predict(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    def decision_path(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.decision_path(X)

    def apply(self, X):
        check_is_fitted(self, "estimator_")
        return self.estimator_.apply(X)


_FORWARDED_METHODS = ("get_depth", "get_n_leaves", "predict_log_proba")
