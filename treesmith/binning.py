"""BinMapper: map each feature to at most ``max_bins`` integer bins (plus one bin for NaN).

Histogram-based split finding works on these bins. A feature with no more distinct values than
``max_bins`` is binned exactly (one bin per value, edges at the midpoints between consecutive
values), so small data gets exactly the splits an exact tree would consider. Other features get
quantile bins computed on a subsample. ``max_bins=None`` bins every feature exactly.
"""

from __future__ import annotations

from numbers import Integral

import numba
import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ._dtypes import MAX_BINS_LIMIT, X_BINNED_DTYPE_LARGE, X_BINNED_DTYPE_SMALL
from ._kernels.binning import (
    COLUMN_LEFT_OUT,
    ROWS_PER_TASK,
    edges_of_sorted_columns,
    first_infinite_column,
    map_to_bins,
)
from ._kernels.pointers import serial_twin
from ._threading import map_in_threads
from ._validation import Interval, check_sample_weight, validate_parameters

#: Most categories of a categorical feature: one bit each in a split's 256-bit category set,
#: and one uint8 bin each.
MAX_CATEGORIES = 255
#: Input dtypes binned without conversion (float32 input is not copied to float64).
FLOAT_INPUT_DTYPES = (np.float64, np.float32)
#: Samples of at most this many rows get their edges a block of columns at a time (one sort
#: and one compiled pass per block, ``_blocked_edges``) rather than one column at a time,
#: whose dozen numpy calls per column (~0.1 ms) cost more than sorting a short column
#: (fit_transform 1000 x 1000: 0.08-0.12 s -> 0.03-0.06 s; 5k x 300: 0.09-0.12 s ->
#: 0.06-0.08 s). On 20 000 rows the sort dominates and the gain was within the noise on two
#: threads: longer columns keep the per-column pass.
BLOCKED_BINNING_ROWS = 1 << 13
#: ... and at least this many columns: the blocked pass's fixed cost (~40 us: a compiled call,
#: its buffers) is more than the per-column pass costs on a few columns (iris: 47 -> 80 us).
BLOCKED_BINNING_MIN_COLUMNS = 16
#: Values per block of columns (a 512 KiB float64 copy, sorted at once).
BLOCK_VALUES = 1 << 16


def as_float_array(X) -> np.ndarray:
    """X as a float32 or float64 array, converted (to float64) only when needed; a column
    that does not convert is named (BinMapper bins numbers and category codes)."""
    names = [str(c) for c in X.columns] if hasattr(X, "columns") else None
    if type(X).__module__.split(".")[:2] == ["scipy", "sparse"]:
        raise TypeError("Sparse data was passed for X, but dense data is required (BinMapper "
                        "bins dense columns). Use X.toarray() to convert it.")
    X = np.asarray(X)
    if X.dtype in FLOAT_INPUT_DTYPES:
        return X
    if X.dtype.kind == "c":  # astype would drop the imaginary parts with a mere warning
        raise ValueError("Complex data not supported: X holds complex numbers; BinMapper bins "
                         "real numbers.")
    try:
        return X.astype(np.float64)
    except (TypeError, ValueError) as error:
        if X.ndim == 2:
            for j in range(X.shape[1]):
                try:
                    X[:, j].astype(np.float64)
                except (TypeError, ValueError):
                    name = names[j] if names is not None else f"x{j}"
                    raise ValueError(
                        f"Feature {name!r} (column {j}) holds non-numeric values ({error}); "
                        "BinMapper bins numbers: give a categorical column as its codes "
                        "0..k-1 and its number of categories in n_categories (the tree "
                        "estimators do this with categorical_features).") from None
        raise


def midpoints(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Midpoints of sorted pairs ``lower < upper`` that stay in ``[lower, upper)``.

    Computed as ``lower/2 + upper/2`` so that values near ±1.8e308 do not overflow; where
    rounding puts the midpoint on ``upper`` (adjacent floats) the edge falls back to ``lower``,
    which keeps ``lower`` on the left and ``upper`` on the right of ``x <= edge``.
    """
    mid = lower * 0.5 + upper * 0.5
    bad = (mid < lower) | (mid >= upper)
    return np.where(bad, lower, mid)


def _exact_edges_of_short_columns(sample: np.ndarray) -> list[tuple]:
    """``(edges, distinct values)`` of every column of ``sample``, as ``BinMapper.fit`` computes
    them one column at a time, with one sort of the whole array: for wide, short data (100 000
    features of 50 rows) the per-column calls cost ten times the sorting."""
    ordered = np.sort(np.asarray(sample, dtype=np.float64), axis=0)  # NaN last
    first = ~np.isnan(ordered)
    first[1:] &= ordered[1:] != ordered[:-1]
    results = []
    for j in range(ordered.shape[1]):
        distinct = ordered[first[:, j], j]
        results.append((midpoints(distinct[:-1], distinct[1:]), distinct))
    return results


def _blocked_edges(sample, columns, limit: int, exact_only: bool,
                   missing_last: bool = False) -> dict:
    """``{column: (edges, distinct values or None)}`` of the ``columns`` of ``sample`` (at
    most ``BLOCKED_BINNING_ROWS`` rows), as ``BinMapper.fit`` computes them one column at a
    time, bit for bit: blocks of columns are sorted by one ``np.sort`` (numpy's, as the
    per-column pass: the same order of equal values) and their edges computed by one compiled
    call (``edges_of_sorted_columns``; ``missing_last``: NaN rows are skipped rather than the
    column left out), on the fit's threads. The columns it leaves out are missing from the
    result."""
    n_rows = sample.shape[0]
    width = max(1, BLOCK_VALUES // max(n_rows, 1))
    blocks = [columns[b:b + width] for b in range(0, len(columns), width)]
    fractions = np.linspace(0, 1, limit + 1)[1:-1]
    stride = min(limit, n_rows)

    def block_edges(block):
        # one float64 copy, a column per contiguous lane, sorted in place (NaN last)
        ordered = np.array(sample[:, block], dtype=np.float64, order="F")
        ordered.sort(axis=0)
        edges = np.empty((len(block), max(stride, 1)))
        values = np.empty((len(block), max(stride, 1)))
        n_edges = np.empty(len(block), dtype=np.int64)
        n_values = np.empty(len(block), dtype=np.int64)
        edges_of_sorted_columns(ordered, limit, fractions, exact_only, missing_last, edges,
                                values, n_edges, n_values)
        kept = n_edges != COLUMN_LEFT_OUT
        # one copy of the block's edges and values, compact, that the columns' arrays view
        packed_edges = edges[np.arange(edges.shape[1]) < n_edges[:, None]]
        packed_values = values[np.arange(values.shape[1]) < n_values[:, None]]
        edge_offsets = np.concatenate([[0], np.cumsum(np.maximum(n_edges, 0))])
        value_offsets = np.concatenate([[0], np.cumsum(np.maximum(n_values, 0))])
        return [(column, packed_edges[edge_offsets[c]:edge_offsets[c + 1]],
                 packed_values[value_offsets[c]:value_offsets[c + 1]]
                 if n_values[c] >= 0 else None)
                for c, column in enumerate(block) if kept[c]]

    found = map_in_threads(block_edges, blocks, work=n_rows * len(columns))
    return {column: (edges, values) for block in found for column, edges, values in block}


def _packed_arrays(arrays) -> tuple[np.ndarray, np.ndarray]:
    """``(packed, offsets)``: the 1-D ``arrays`` end to end as one float64 array, array ``j``
    at ``packed[offsets[j]:offsets[j + 1]]``."""
    offsets = np.zeros(len(arrays) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([array.size for array in arrays])
    packed = (np.concatenate(arrays).astype(np.float64, copy=False) if offsets[-1]
              else np.zeros(0, np.float64))
    return packed, offsets


def feature_names(n_features: int, names=None) -> list[str]:
    """Column names for messages: the given names or ``x0, x1, ...``."""
    if names is not None:
        return [str(name) for name in names]
    return [f"x{j}" for j in range(n_features)]


def check_no_infinity(X: np.ndarray, names=None) -> None:
    """Raise a ValueError naming the first column that holds +inf or -inf."""
    column = int(first_infinite_column(X))
    if column >= 0:
        name = feature_names(X.shape[1], names)[column]
        raise ValueError(
            f"Feature {name!r} (column {column}) contains infinite values; treesmith accepts "
            "NaN as a missing value but not +inf or -inf. Replace them (e.g. by NaN or a large "
            "finite value) before fitting or predicting."
        )


class BinMapper(TransformerMixin, BaseEstimator):
    """Transformer from float features to Fortran-ordered integer bins.

    Parameters
    ----------
    max_bins : int in [2, 65535] or None, default=255
        Maximum number of bins for non-missing values per feature; ``None`` bins every
        feature exactly (one bin per distinct value, at most 65535). Missing values get an
        extra bin of their own, at index ``missing_values_bin_idx_``.
    subsample : int or None, default=200_000
        Number of rows used to compute quantile edges (all rows when None or fewer rows).
    random_state : int, RandomState or None
        Seed of the subsample.
    n_categories : None or int array, one entry per feature
        Number of categories of each categorical feature (0 for a numeric one), whose values
        are then category codes 0..k-1 (``treesmith.categorical``): code c is bin c, whatever
        ``max_bins``, and k must not exceed 255 nor ``max_bins``. None: every feature numeric.

    Fitted attributes
    -----------------
    bin_thresholds_ : list of float64 arrays, upper edge of each bin but the last (a value
        ``v`` goes to bin ``b`` when ``edge[b-1] < v <= edge[b]``).
    bin_values_ : list of float64 arrays or None, the distinct value of each bin for features
        binned exactly (None for quantile-binned features).
    n_bins_non_missing_ : int array, number of non-missing bins per feature.
    missing_values_bin_idx_ : int, index of the missing-value bin (same for all features).
    is_exact_ : bool array, whether each feature is binned exactly.
    """

    def __init__(self, max_bins=255, subsample=200_000, random_state=None, n_categories=None):
        self.max_bins = max_bins
        self.subsample = subsample
        self.random_state = random_state
        self.n_categories = n_categories

    def categorical_mask(self) -> np.ndarray:
        """Whether each feature is categorical (bool per fitted feature)."""
        if self.n_categories is None:
            return np.zeros(self.n_features_in_, dtype=bool)
        return np.asarray(self.n_categories) > 0

    def _check_categories(self, n_features, limit, feature_names):
        """The category counts, checked against the features and the bins (one bin per code)."""
        if self.n_categories is None:
            return np.zeros(n_features, dtype=np.int64)
        counts = np.asarray(self.n_categories)
        if counts.shape != (n_features,) or counts.dtype.kind not in "iu" or np.any(counts < 0):
            raise ValueError(f"n_categories must hold one count >= 0 per feature ({n_features}), "
                             f"got {self.n_categories!r}.")
        largest = min(limit, MAX_CATEGORIES)
        for j in np.flatnonzero(counts > largest):
            name = feature_names[j] if feature_names is not None else f"x{j}"
            raise ValueError(
                f"Categorical feature {str(name)!r} has {int(counts[j])} categories; at most "
                f"{largest} fit in its bins (max_bins={self.max_bins!r}, and a categorical "
                f"feature has at most {MAX_CATEGORIES} categories). Group rare categories, "
                "raise max_bins, or treat the column as numeric.")
        return counts.astype(np.int64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # NaN is a missing value: the last bin
        return tags

    #: Allowed parameter values (treesmith._validation): checked first thing in ``fit``.
    _parameter_table = {
        "max_bins": [Interval(Integral, 2, MAX_BINS_LIMIT, "both"), None],
        "subsample": [Interval(Integral, 1, None), None],
        # checked even when there is no subsample to draw (a wrong one is still an error)
        "random_state": ["random_state"],
    }

    def _validate_params(self):
        validate_parameters(self)

    def fit(self, X, y=None, feature_names=None, sample_weight=None):
        """Compute bin edges from ``X`` (float64 array, NaN allowed, ±inf rejected).

        Rows whose ``sample_weight`` is 0 are ignored: a zero weight must mean the same as
        dropping the row, and their values would otherwise move the edges (and so the
        thresholds a tree can choose)."""
        self._validate_params()
        X = as_float_array(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}.")
        check_no_infinity(X, feature_names)
        if sample_weight is not None:
            # the shared checker: a NaN or negative weight dropped its row silently, an
            # infinite one kept it, text raised numpy's UFuncTypeError
            weight = check_sample_weight(sample_weight, X.shape[0], positive_sum=False)
            if not np.any(weight > 0):
                raise ValueError("sample_weight is zero (or negative) for every row: BinMapper "
                                 "needs rows of positive weight to place its bin edges.")
            if not np.all(weight > 0):
                X = X[weight > 0]
        n_samples, n_features = X.shape
        if n_features == 0:
            raise ValueError(f"Found array with 0 feature(s) (shape={X.shape}) while a minimum "
                             "of 1 is required.")
        if n_samples == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum "
                             "of 1 is required: BinMapper needs rows of positive weight to "
                             "place its bin edges.")
        exact_only = self.max_bins is None
        limit = MAX_BINS_LIMIT if exact_only else int(self.max_bins)
        n_categories = self._check_categories(n_features, limit, feature_names)
        sample = X
        if self.subsamples(n_samples):
            rng = check_random_state(self.random_state)
            rows = np.sort(rng.choice(n_samples, self.subsample, replace=False))
            sample = X[rows]
        subsampled = sample is not X

        def edges_of(j):
            if n_categories[j] > 0:  # codes 0..k-1: code c in bin c
                codes = np.arange(n_categories[j], dtype=np.float64)
                return codes[:-1] + 0.5, codes
            column = sample[:, j].astype(np.float64)
            values = np.sort(column[~np.isnan(column)])
            distinct = values[np.r_[True, values[1:] != values[:-1]]] if values.size else values
            if distinct.size <= limit:
                return midpoints(distinct[:-1], distinct[1:]), distinct
            if exact_only:
                name = feature_names[j] if feature_names is not None else f"x{j}"
                raise ValueError(
                    f"Feature {name!r} has {distinct.size} distinct values, more than the "
                    f"{MAX_BINS_LIMIT} bins of exact binning (max_bins=None); set max_bins to "
                    "an int to use quantile bins.")
            return self._quantile_edges(values, limit), None

        blocked_pass = (sample.shape[0] <= BLOCKED_BINNING_ROWS
                        and n_features >= BLOCKED_BINNING_MIN_COLUMNS)
        if sample.shape[0] <= limit and not blocked_pass:
            # Every column has at most as many distinct values as there are rows: all exact.
            # A categorical feature's bins are its codes, present in these rows or not.
            results = [edges_of(j) if n_categories[j] > 0 else result
                       for j, result in enumerate(_exact_edges_of_short_columns(sample))]
        else:
            blocked = {}
            if blocked_pass:
                # a sample shorter than limit is sorted with its NaN, as
                # _exact_edges_of_short_columns does: the same distinct values
                blocked = _blocked_edges(sample, np.flatnonzero(n_categories == 0), limit,
                                         exact_only, missing_last=sample.shape[0] <= limit)
            # np.sort releases the GIL: the columns are sorted on the threads the fit may use
            # (treesmith._threading; one for small samples).
            rest = [j for j in range(n_features) if j not in blocked]
            blocked.update(zip(rest, map_in_threads(edges_of, rest,
                                                    work=sample.shape[0] * len(rest))))
            results = [blocked[j] for j in range(n_features)]
        self._set_thresholds([edges for edges, _ in results])
        self.bin_values_ = [values for _, values in results]
        self.is_exact_ = np.array([values is not None and (not subsampled or n_categories[j] > 0)
                                   for j, values in enumerate(self.bin_values_)], dtype=bool)
        self.n_bins_non_missing_ = np.array(
            [edges.size + 1 for edges in self.bin_thresholds_], dtype=np.int64
        )
        self.missing_values_bin_idx_ = limit if not exact_only else int(
            max(self.n_bins_non_missing_.max(initial=1), 1)
        )
        self.n_bins_ = self.missing_values_bin_idx_ + 1
        self.n_features_in_ = n_features
        if subsampled:
            self._mark_exact_features(X)
        return self

    def _set_thresholds(self, edges) -> None:
        """``bin_thresholds_`` as views of one packed float64 array, which ``transform`` reads
        (``_packed_thresholds``) without concatenating them again on every call."""
        packed, offsets = _packed_arrays(edges)
        self.bin_thresholds_ = [packed[offsets[j]:offsets[j + 1]] for j in range(len(edges))]
        self.__dict__["_packed"] = (self.bin_thresholds_, packed, offsets)

    def _packed_thresholds(self):
        """``(thresholds, offsets)``: feature ``j``'s edges are
        ``thresholds[offsets[j]:offsets[j + 1]]``; packed once per ``bin_thresholds_`` list
        (again if it was replaced)."""
        cached = self.__dict__.get("_packed")
        if cached is None or cached[0] is not self.bin_thresholds_:
            self._set_thresholds([np.asarray(e, dtype=np.float64)
                                  for e in self.bin_thresholds_])
            cached = self.__dict__["_packed"]
        return cached[1], cached[2]

    def _packed_values(self):
        """``(values, offsets)``: the bin values of exactly binned feature ``j`` are
        ``values[offsets[j]:offsets[j + 1]]`` (none for the others), packed once per
        ``bin_values_`` list (``treesmith.grower._thresholds`` reads them for every tree)."""
        cached = self.__dict__.get("_packed_values_cache")
        if cached is None or cached[0] is not self.bin_values_:
            packed, offsets = _packed_arrays(
                [values if exact and values is not None else np.zeros(0)
                 for exact, values in zip(self.is_exact_, self.bin_values_)])
            cached = self.__dict__["_packed_values_cache"] = (self.bin_values_, packed, offsets)
        return cached[1], cached[2]

    def __getstate__(self):
        """The pickled state holds the edges once: without the packed arrays they view."""
        state = super().__getstate__()
        state = dict(state) if state is self.__dict__ else state
        state.pop("_packed", None)
        state.pop("_packed_values_cache", None)
        return state

    def __setstate__(self, state):
        """Unpickled edges are packed again into one array (``_set_thresholds``)."""
        super().__setstate__(state)
        if "bin_thresholds_" in self.__dict__:
            self._set_thresholds(list(self.bin_thresholds_))

    def subsamples(self, n_samples: int) -> bool:
        """Whether ``fit`` on ``n_samples`` rows of positive weight computes the edges on a
        subsample (drawn from ``random_state``; otherwise ``random_state`` is not used)."""
        return (self.max_bins is not None and self.subsample is not None
                and n_samples > self.subsample)

    @staticmethod
    def _quantile_edges(sorted_values: np.ndarray, n_bins: int) -> np.ndarray:
        """Edges at quantiles of the sorted values (numpy's "midpoint" method), so each bin
        holds about the same number of values."""
        positions = np.linspace(0, 1, n_bins + 1)[1:-1] * (sorted_values.size - 1)
        low = sorted_values[np.floor(positions).astype(np.int64)]
        high = sorted_values[np.ceil(positions).astype(np.int64)]
        edges = np.unique(midpoints(low, high))
        # An edge equal to the maximum would leave an empty last bin; drop it.
        return edges[edges < sorted_values[-1]]

    def _mark_exact_features(self, X: np.ndarray) -> None:
        """With a subsample, a feature is exact only if every training value is a bin value."""
        for j, values in enumerate(self.bin_values_):
            if values is None or self.categorical_mask()[j]:
                continue
            column = X[:, j]
            column = column[~np.isnan(column)]
            positions = np.searchsorted(values, column)
            positions = np.minimum(positions, values.size - 1)
            self.is_exact_[j] = bool(np.all(values[positions] == column))
            if not self.is_exact_[j]:
                self.bin_values_[j] = None

    @property
    def binned_dtype(self):
        return X_BINNED_DTYPE_SMALL if self.n_bins_ <= 256 else X_BINNED_DTYPE_LARGE

    def transform(self, X, feature_names=None):
        """Bin ``X`` into a Fortran-ordered uint8 (uint16 above 255 bins) array."""
        check_is_fitted(self, "bin_thresholds_")
        X = as_float_array(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}. Reshape your data with "
                             "X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one "
                             "sample.")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[-1] if X.ndim else 0} features, but BinMapper is expecting "
                f"{self.n_features_in_} features as input."
            )
        check_no_infinity(X, feature_names)
        return self._map(X)

    def _map(self, X):
        """``transform`` of a validated float array."""
        thresholds, offsets = self._packed_thresholds()
        out = np.empty(X.shape, dtype=self.binned_dtype, order="F")
        mapper = map_to_bins
        if X.shape[0] <= ROWS_PER_TASK or numba.get_num_threads() == 1:
            # one task or one thread: the same code without the parallel region, which is
            # most of map_to_bins' compile time in a first fit on small data
            mapper = serial_twin(map_to_bins)
        mapper(X, thresholds, offsets, self.missing_values_bin_idx_, out)
        return out

    def fit_transform(self, X, y=None, feature_names=None, sample_weight=None):
        """``fit`` then ``transform``, checking X once (a pass over X: 35 ms at 1e6 x 50)."""
        return self.fit(X, feature_names=feature_names, sample_weight=sample_weight)._map(
            as_float_array(X))
