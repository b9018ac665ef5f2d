"""Categorical features of the tree estimators: which columns, their categories, their codes.

``categorical_features`` (docs/methods.md §11) says which columns are categorical:
``"from_dtype"`` (pandas category, string/object and bool columns, but not an object column that
holds only numbers nor a bool column that ``monotonic_cst`` constrains; polars Categorical,
Enum, String and Boolean columns), a boolean mask, column indices or column names; ``None`` or
``False`` switches categorical splits off. At fit time each categorical column's categories are
the values observed in training, sorted (a pandas category column and a polars Enum keep their
dtype's order), and become the codes 0..k-1 the tree splits on by sets
(``treesmith._kernels.categorical``); at most 255 per column, one bin each. Missing values, and
at prediction time categories never seen in training, become NaN: the tree sends them to the
side it learned for missing values.

Categories are matched by equality, so the same value given as another type is the same
category: 1, 1.0 and True (Python's and numpy's 1 == 1.0 == True), whereas '1' and 'Nice ' are
not 1 and 'Nice'. Floats are matched in a precision: a column of floats remembers the one it was
fitted in (``category_precision_``: float16, float32 or float64), and at prediction a cell and
a category are compared in the narrower of that and the column's, so the 0.1 of a float32 column
is the 0.1 of the float64 column a CSV file gives back, whichever of the two was fitted.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import NamedTuple

import numpy as np

from .binning import MAX_CATEGORIES

#: The value of ``categorical_features`` that reads the categorical columns off the dtypes.
FROM_DTYPE = "from_dtype"
#: Unseen categories listed per column in a warning.
_SHOWN = 5
#: The precisions a column of float categories is fitted in (``category_precision_``).
FLOAT_PRECISIONS = ("float16", "float32", "float64")


def _is_frame(X) -> bool:
    return hasattr(X, "iloc") and hasattr(X, "columns")


def _is_polars_frame(X) -> bool:
    """A polars DataFrame, recognised without importing polars."""
    return (type(X).__module__.split(".")[0] == "polars" and hasattr(X, "get_column")
            and hasattr(X, "schema"))


#: polars dtypes whose values are categories (``"from_dtype"``).
_POLARS_CATEGORICAL = ("Categorical", "Enum", "String", "Utf8", "Boolean", "Object")
#: polars dtypes of dates and times, which a tree cannot split on as they are.
_POLARS_TEMPORAL = ("Date", "Datetime", "Duration", "Time")
#: polars dtypes holding several values per cell.
_POLARS_NESTED = ("List", "Array", "Struct")


def _polars_dtype_name(dtype):
    """Name of a polars dtype (an instance, or a class such as ``pl.String``), None for any
    other dtype."""
    kind = dtype if isinstance(dtype, type) else type(dtype)
    return kind.__name__ if kind.__module__.split(".")[0] == "polars" else None


def is_categorical_dtype(dtype) -> bool:
    """A pandas/numpy/polars column dtype whose values are categories: category, string,
    object or bool; polars Categorical, Enum, String or Boolean (the ``"from_dtype"`` rule)."""
    polars_name = _polars_dtype_name(dtype)
    if polars_name is not None:
        return polars_name in _POLARS_CATEGORICAL
    text = str(dtype)
    return (getattr(dtype, "kind", "O") in "OSUb" or text in ("category", "string", "str",
                                                               "boolean")
            or text.startswith("string"))


def check_polars_columns(X, mask: np.ndarray, names, fitted: bool = False) -> None:
    """Reject, naming the column, a polars column the numeric conversion cannot take: text
    (String, Categorical, Enum, Object) outside ``mask`` (the categorical columns) and
    dates/times; the messages of ``_validation.check_X_frame`` for pandas. ``fitted``: at
    prediction, where ``mask`` is the fitted model's."""
    from ._validation import _ENCODE_HINT

    for j, dtype in enumerate(X.dtypes):
        polars_name = _polars_dtype_name(dtype)
        label = f"{names[j]!r} (column {j})"
        if polars_name in _POLARS_TEMPORAL:
            raise ValueError(
                f"Feature {label} has polars dtype {dtype}; treesmith needs numbers. Convert "
                "it, e.g. to days since a reference date or to its year, month and weekday.")
        if polars_name in _POLARS_NESTED:
            raise ValueError(
                f"Feature {label} has polars dtype {dtype}, several values per cell; treesmith "
                "needs one number or category per cell. Unnest or aggregate it first.")
        if (not mask[j] and polars_name in _POLARS_CATEGORICAL and polars_name != "Boolean"
                and not (polars_name == "Object" and _numbers_column(X, j))):
            if fitted:
                raise _numeric_at_fit_error(names[j], j)
            raise ValueError(f"Feature {label} holds non-numeric values (polars dtype "
                             f"{dtype}). {_ENCODE_HINT}.")


def _holds_only_numbers(column) -> bool:
    """A pandas object column (or a polars Object column) whose present cells are all numbers
    (not bools), as a frame built from an object array or transposed has: numeric, as
    scikit-learn reads it, not categorical by its dtype."""
    if _polars_dtype_name(column.dtype) == "Object":
        import numbers

        present = [v for v in column.to_list() if v is not None]
        return bool(present) and all(isinstance(v, numbers.Real)
                                     and not isinstance(v, (bool, np.bool_)) for v in present)
    if str(column.dtype) != "object":
        return False
    from pandas.api.types import infer_dtype

    return infer_dtype(column, skipna=True) in ("integer", "floating", "mixed-integer-float",
                                                "decimal")


def _numbers_column(X, j: int) -> bool:
    """Column ``j`` of a pandas or polars frame is an object column of numbers."""
    if _is_polars_frame(X):
        return _holds_only_numbers(X.to_series(j))
    return _holds_only_numbers(X.iloc[:, j])


def resolve_mask(spec, X, n_features: int, names) -> np.ndarray:
    """``categorical_features`` as a boolean mask over the columns of ``X``, or a ValueError
    naming what is wrong with it."""
    mask = np.zeros(n_features, dtype=bool)
    if spec is None or spec is False:
        return mask
    if spec is True:
        raise ValueError("categorical_features=True does not say which columns: use "
                         "'from_dtype' (the category, string, object and bool columns of a "
                         "DataFrame), a boolean mask, column indices or names.")
    if isinstance(spec, str):
        if spec != FROM_DTYPE:
            hint = (f" (to name one column: categorical_features=[{spec!r}])"
                    if names is not None and spec in names else "")
            raise ValueError(f"categorical_features must be 'from_dtype', None, a boolean mask, "
                             f"column indices or column names, got {spec!r}{hint}.")
        if _is_frame(X) or _is_polars_frame(X):
            for j, dtype in enumerate(X.dtypes):
                # only an object column can hold numbers as objects (fetched only then)
                mask[j] = is_categorical_dtype(dtype) and not (
                    (str(dtype) == "object" or _polars_dtype_name(dtype) == "Object")
                    and _numbers_column(X, j))
        return mask
    if isinstance(spec, (set, frozenset)):
        spec = sorted(spec, key=str)  # names or indices: their order does not matter
    try:
        spec = np.asarray(spec)
    except (TypeError, ValueError):
        spec = np.asarray(list(spec), dtype=object)
    if spec.ndim != 1:
        raise ValueError(f"categorical_features must be 1-D (a mask, indices or names), got "
                         f"shape {spec.shape}.")
    if spec.dtype == bool:
        if spec.shape[0] != n_features:
            raise ValueError(f"categorical_features as a boolean mask needs one entry per "
                             f"column ({n_features}), got {spec.shape[0]}.")
        return spec.copy()
    known = [str(name) for name in names] if names is not None else None
    for item in spec:
        if isinstance(item, (str, np.str_)):
            if known is None or str(item) not in known:
                raise ValueError(f"categorical_features names column {str(item)!r}, which X "
                                 f"does not have" + ("" if known is None else
                                                     f" (its columns: {known[:10]})") + ".")
            mask[known.index(str(item))] = True
        elif isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
            if not 0 <= int(item) < n_features:  # no negative indices, as in scikit-learn
                raise ValueError(f"categorical_features index {int(item)} is outside "
                                 f"[0, {n_features}) (X has {n_features} columns).")
            mask[int(item)] = True
        else:
            raise ValueError(f"categorical_features entries must be column indices or names, "
                             f"got {item!r}.")
    return mask


def _frame_columns(X) -> list:
    """The columns of a pandas DataFrame as Series, by position: ``items()`` is pandas' cheap
    path (``X.iloc[:, j]`` validates an indexer each call, about 20 µs a column)."""
    return [column for _, column in X.items()]


def _column(X, j):
    """Column ``j`` of an array, or of a polars frame as a numpy array (object for text, None
    for nulls; NaN for a float column's nulls); a pandas frame's: ``_frame_columns``."""
    if _is_polars_frame(X):
        series = X.to_series(j)
        if series.null_count() and series.dtype.is_integer():  # to_numpy would give floats
            return _object_array(series.to_list())
        return series.to_numpy()
    return np.asarray(X)[:, j]


def _polars_enum_order(X, j):
    """The categories of column ``j`` of a polars frame in its Enum dtype's order, None when
    the column is not an Enum (its observed values are then sorted)."""
    if not _is_polars_frame(X):
        return None
    dtype = X.schema[X.columns[j]]
    if _polars_dtype_name(dtype) != "Enum":
        return None
    return list(dtype.categories.to_list())


def _pandas_if_loaded():
    import sys

    return sys.modules.get("pandas")


def _is_category_column(column) -> bool:
    return str(getattr(column, "dtype", "")) == "category"


def _missing(column) -> np.ndarray:
    """Missing cells of a column: None, NaN, pandas NA/NaT."""
    if _is_category_column(column):  # .array: the Categorical, without building a Series
        return column.array.codes < 0
    if hasattr(column, "isna"):
        return np.asarray(column.isna(), dtype=bool)
    values = np.asarray(column)
    pandas = _pandas_if_loaded()
    if pandas is not None:
        return np.asarray(pandas.isna(values), dtype=bool)
    if values.dtype.kind == "f":
        return np.isnan(values)
    return np.array([v is None or (isinstance(v, float) and v != v) for v in values], dtype=bool)


def _object_array(items) -> np.ndarray:
    items = list(items)
    array = np.empty(len(items), dtype=object)
    array[:] = items
    return array


def _observed_categories(column, missing: np.ndarray, name: str, j: int,
                         order=None) -> np.ndarray:
    """Observed categories of a column in order: a pandas category dtype's order (or
    ``order``, a polars Enum's categories), else sorted (by type name then text when the
    values do not compare). More than 255 is a ValueError naming the column."""
    if order is not None:
        observed = set(np.asarray(column, dtype=object)[~missing].tolist())
        found = _object_array([value for value in order if value in observed])
    elif _is_category_column(column):
        codes, levels = column.array.codes, column.array.categories
        counts = np.bincount(codes[codes >= 0], minlength=len(levels))
        found = _object_array(levels[counts > 0])
    else:
        values = column[~missing]
        if hasattr(values, "unique"):
            unique = list(values.unique())
        else:
            unique = list(dict.fromkeys(np.asarray(values).tolist()))
        if len(unique) <= MAX_CATEGORIES:
            sort_categories(unique)
        found = _object_array(unique)
    if found.shape[0] > MAX_CATEGORIES:
        raise ValueError(
            f"Categorical feature {name!r} (column {j}) has {found.shape[0]} categories, more "
            f"than the {MAX_CATEGORIES} a categorical split handles. Group rare categories "
            "(e.g. into 'other'), encode the column as numbers, or leave it out of "
            "categorical_features.")
    return found


def sort_categories(values: list) -> None:
    """Sort observed categories in place: by value, numbers as the Python numbers they hold
    (a numpy float beside an int beyond float64 would raise OverflowError), and by type name
    then text when the values do not compare (text beside numbers)."""
    try:
        values.sort()
    except (TypeError, OverflowError):
        try:
            values.sort(key=_python_number)
        except (TypeError, OverflowError):
            values.sort(key=lambda v: (type(v).__name__, str(v)))


def unseen_report(name: str, column, unseen: np.ndarray, categories, precision=None,
                  noun: str = "categories") -> str:
    """One column's part of the warning about values unseen at fit: the column, how many
    cells, some of the values and some of the training categories (in their fitted
    ``precision``), called ``noun`` ("values" for C4.5's nominal values)."""
    values = list(dict.fromkeys(np.asarray(column, dtype=object)[unseen].tolist()))
    return unseen_text(name, int(unseen.sum()), values, categories, precision, noun)


def unseen_text(name: str, n_cells: int, values: list, categories, precision=None,
                noun: str = "categories", n_more_cells: int = 0) -> str:
    """``unseen_report``'s text from the count of unseen cells and their distinct ``values``;
    ``n_more_cells`` cells hold values beyond those kept (``UnseenValues``), said as "and N
    more"."""
    values = list(values)
    sort_categories(values)
    categories = list(categories)
    shown = ", ".join(_category_repr(v, None) for v in values[:_SHOWN])
    known = ", ".join(_category_repr(v, precision) for v in categories[:8])
    more = f" and {n_more_cells} more" if n_more_cells else ""
    return (f"column {name} has {n_cells} value(s) not seen at fit time: "
            f"{shown}{' …' if len(values) > _SHOWN else ''}{more} (training {noun}: {known}"
            f"{' …' if len(categories) > 8 else ''})")


def _python_number(value):
    """A numpy number as the Python number it holds (Python compares a float with any int
    exactly; a numpy float raises OverflowError beside an int beyond float64)."""
    return value.item() if isinstance(value, np.generic) else value


def _float_dtype(column):
    """The numpy float dtype of a column's values: a numpy or polars float array, a pandas
    float or nullable Float column (its numpy dtype), a pandas category column whose levels are
    floats; None for any other column (integers, booleans, objects)."""
    dtype = (column.array.categories.dtype if _is_category_column(column)
             else getattr(column, "dtype", None))
    dtype = getattr(dtype, "numpy_dtype", dtype)  # pandas' nullable Float32: numpy's float32
    return dtype if isinstance(dtype, np.dtype) and dtype.kind == "f" else None


def _is_real_number(value) -> bool:
    return (isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_)))


def fitted_precision(column, categories: np.ndarray):
    """The float precision (a name of ``FLOAT_PRECISIONS``) a categorical column's categories
    were fitted in: its float dtype's, or for an object column the widest float type among its
    categories (a Python float is a float64); None when no category is a float, or when some
    are not numbers (those columns are matched by equality alone)."""
    values = categories.tolist() if isinstance(categories, np.ndarray) else list(categories)
    if not values or not all(_is_real_number(v) for v in values):
        return None
    dtype = _float_dtype(column)
    if dtype is None:
        floats = [np.dtype(type(v)) if isinstance(v, np.floating) else np.dtype(np.float64)
                  for v in values if isinstance(v, (float, np.floating))]
        if not floats:
            return None
        dtype = max(floats, key=lambda d: d.itemsize)
    return dtype.name if dtype.name in FLOAT_PRECISIONS else "float64"


def _as_python_floats(categories: np.ndarray) -> np.ndarray:
    """Float categories as Python floats (the same values): a pandas column gives numpy
    scalars, a numpy array Python floats; ``categories_`` holds one kind whatever the input."""
    return _object_array([float(v) if isinstance(v, np.floating) else v
                          for v in categories.tolist()])


def _narrower(precision, than) -> bool:
    """Whether the float dtype ``precision`` has fewer bits than ``than``. None stands for
    float64 on both sides: an integer, text or object column, or categories that are not
    floats, are compared as they are (Python compares an int and a float exactly)."""
    if precision is None:
        return False
    return np.dtype(precision).itemsize < np.dtype(than or "float64").itemsize


def _in_precision(values: np.ndarray, precision) -> np.ndarray:
    """``values`` as an object array whose real numbers are rounded to the float dtype
    ``precision`` (as ``astype`` rounds them); other objects (text, booleans, None) unchanged.
    A number too large for the dtype becomes ±inf, as it would have at fit."""
    dtype = np.dtype(precision)
    values = np.asarray(values)
    with np.errstate(over="ignore", invalid="ignore"):
        if values.dtype.kind in "iuf":
            return values.astype(dtype).astype(object)
        rounded = values.astype(object)
        for i, value in enumerate(rounded.tolist()):
            if _is_real_number(value):
                try:
                    rounded[i] = float(np.float64(value).astype(dtype))
                except OverflowError:  # an int beyond float64: stays as it is (unseen)
                    pass
    return rounded


def _in_precision_of(column, categories: np.ndarray, precision=None) -> np.ndarray:
    """``categories`` rounded to the precision of a float column narrower than the one they
    were fitted in (``precision``; None: exact), so that the value 0.1 fitted as float64
    matches the float32 0.1 it becomes; the categories as they are otherwise, or when they
    are not all real numbers or two of them would round to the same value."""
    dtype = _float_dtype(column)
    if dtype is None or not _narrower(dtype.name, precision):
        return categories
    rounded = _categories_in(dtype, categories)
    return categories if rounded is None else rounded


def _categories_in(dtype, categories: np.ndarray):
    """``categories`` rounded to the float ``dtype`` (as Python floats), None when they are
    not all real numbers or two of them would round to the same value."""
    if categories.shape[0] == 0 or not all(_is_real_number(value)
                                           for value in categories.tolist()):
        return None
    try:
        with np.errstate(over="ignore"):
            rounded = np.asarray(categories.tolist(), dtype=np.float64).astype(dtype)
    except OverflowError:  # an integer beyond float64: compared exactly
        return None
    if np.unique(rounded).shape[0] != rounded.shape[0]:
        return None
    return _object_array(rounded.tolist())


def _cells_in_precision(column, precision):
    """The cells of ``column`` to look up (objects; a category column's levels), rounded to
    the fitted ``precision`` when the column is wider (a float64 or integer column, fitted as
    float32): the comparison happens in the narrower of the two precisions."""
    levels = column.array.categories if _is_category_column(column) else column
    if not _narrower(precision, getattr(_float_dtype(column), "name", None)):
        return np.asarray(levels, dtype=object)
    return _in_precision(np.asarray(levels), precision)


def _codes(column, categories: np.ndarray, missing: np.ndarray, precision=None):
    """Float codes of a column's cells in ``categories`` (NaN for missing and unseen cells)
    and the mask of unseen cells: a hash lookup through pandas when it is loaded (a category
    column's own codes remapped), else a dict lookup in Python. Floats are compared in the
    narrower of the fitted ``precision`` and the column's; a cell equal to a category as it
    is takes that category first (an object column fitted with float32 floats beside the
    integer 16777217 keeps the integer, which float32 would round to 16777216)."""
    if _is_category_column(column):
        found = _text_levels_lookup(column, categories)
        if found is not None:
            return _codes_and_unseen(found, missing)
    rounded_categories = _in_precision_of(column, categories, precision)
    cells = _cells_in_precision(column, precision)
    found = _lookup(column, rounded_categories, cells, missing)
    if _narrower(precision, getattr(_float_dtype(column), "name", None)) and \
            not _representable(categories, precision):  # else the rounded lookup is exact
        exact = _lookup(column, categories, _cells_in_precision(column, None), missing)
        found = np.where(exact >= 0, exact, found)
    found = _match_narrow_scalars(column, categories, precision, np.asarray(found), missing)
    return _codes_and_unseen(found, missing)


def _codes_and_unseen(found: np.ndarray, missing: np.ndarray):
    """Float codes from the cells' positions in the categories (-1: absent) and the mask of
    unseen cells: NaN for missing and unseen cells alike."""
    codes = np.where(found >= 0, found, -1).astype(np.float64)
    codes[(found < 0) | missing] = np.nan
    return codes, (found < 0) & ~missing


def _text_levels_lookup(column, categories: np.ndarray):
    """Each cell's position in ``categories`` (-1: absent or missing) for a pandas category
    column whose levels and categories are all ``str``: its few levels looked up in a dict,
    then its codes remapped, without building pandas indexes (200 µs a column of a few
    thousand rows). Text compares only with text, so a dict finds what pandas' lookup does;
    None for any other column (numbers go through the precision-aware lookup)."""
    levels = column.array.categories.tolist()
    names = categories.tolist()
    if not all(type(value) is str for value in levels) or \
            not all(type(value) is str for value in names):
        return None
    position = {name: code for code, name in enumerate(names)}
    remap = np.array([position.get(level, -1) for level in levels] + [-1], dtype=np.int64)
    return remap[column.array.codes]  # code -1 (missing) reads the last entry


def _representable(categories: np.ndarray, precision) -> bool:
    """Whether every category is a value of the float dtype ``precision`` (a cell equal to
    it is then found by rounding the cell to it): not an integer such as 16777217 beside
    float32 categories."""
    dtype = np.dtype(precision)
    with np.errstate(over="ignore"):
        for value in categories.tolist():
            if not _is_real_number(value):
                continue
            try:
                if float(np.float64(value).astype(dtype)) != value:
                    return False
            except OverflowError:  # an integer beyond float64
                return False
    return True


def _match_narrow_scalars(column, categories: np.ndarray, precision, found: np.ndarray,
                          missing: np.ndarray) -> np.ndarray:
    """``found`` with the unseen cells of an object column that are numpy float16/float32
    scalars (a list of values taken from a float32 array) looked up in the narrower of their
    own precision and the fitted one, as a float32 column's cells are, and as fit reads such
    cells (:func:`fitted_precision`): the float32 0.1 is the category 0.1 fitted from
    float64 values."""
    if getattr(column, "dtype", None) != object or _is_category_column(column):
        return found
    unseen = np.flatnonzero((found < 0) & ~missing)
    if unseen.size == 0:
        return found
    cells = np.asarray(column, dtype=object)
    found = found.copy()
    for scalar in (np.float16, np.float32):
        dtype = np.dtype(scalar)
        picks = [i for i in unseen.tolist() if isinstance(cells[i], scalar)]
        if not picks or not _narrower(dtype.name, precision):
            continue
        rounded = _categories_in(dtype, categories)
        if rounded is None:
            continue
        lookup = {value: code for code, value in enumerate(rounded.tolist())}
        for i in picks:
            found[i] = lookup.get(float(cells[i]), -1)
    return found


def _lookup(column, categories: np.ndarray, cells: np.ndarray, missing: np.ndarray):
    """Position in ``categories`` of each cell (``cells``: the column's values, or a category
    column's levels), -1 when absent. Integer categories are looked up as Python ints, which
    compare with floats exactly (a numpy int64 2**60 + 1 equals the float 2**60 in pandas'
    lookup: both are rounded to float64)."""
    if any(isinstance(value, np.integer) for value in categories.tolist()):
        categories = _object_array([int(value) if isinstance(value, np.integer) else value
                                    for value in categories.tolist()])
    pandas = _pandas_if_loaded()
    if pandas is not None:
        try:
            index = pandas.Index(categories, dtype=object)
            if _is_category_column(column):
                remap = index.get_indexer(cells)
                raw = column.array.codes
                return np.asarray(np.where(raw >= 0, remap[np.maximum(raw, 0)], -1))
            return np.asarray(index.get_indexer(cells))
        except (TypeError, ValueError):  # pragma: no cover - values pandas cannot hash
            pass
    lookup = {value: code for code, value in enumerate(categories.tolist())}.get
    if _is_category_column(column):
        cells = cells[np.maximum(column.array.codes, 0)]
    return np.array([-1 if m else lookup(v, -1) for v, m in zip(cells.tolist(), missing)],
                    dtype=np.int64)


def _numeric_at_fit_error(name, j: int) -> ValueError:
    return ValueError(f"Feature {str(name)!r} (column {j}) holds non-numeric values but was "
                      "numeric at fit time; pass the columns of fit, in fit's order (to "
                      "split on its categories, refit with it in categorical_features).")


def _as_numeric_at_predict(column, j: int, names) -> None:
    """At prediction, a column the model took as numeric must convert to numbers: else a
    ValueError naming it (not the fit-time hint to make it categorical, which would not
    apply to this fitted model)."""
    try:
        np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        raise _numeric_at_fit_error(names[j] if names is not None else f"x{j}", j) from None


def _fitted_category_codes(column) -> np.ndarray:
    """Float codes of a pandas category column at fit time, when its categories are its
    observed levels in dtype order (:func:`_observed_categories`): the dtype's codes with the
    unobserved levels squeezed out, without a hash lookup (what :func:`_codes` gives)."""
    raw, n_levels = column.array.codes, len(column.array.categories)
    observed = np.bincount(raw[raw >= 0], minlength=n_levels) > 0
    remap = np.full(n_levels + 1, np.nan)  # the last entry: code -1 (missing)
    remap[:n_levels][observed] = np.arange(int(observed.sum()), dtype=np.float64)
    return remap[raw]


def encode(X, categories: list, names, warn_unseen: bool, fit_mask=None, precisions=None):
    """``X`` with each categorical column (``categories[j]`` not None) replaced by float codes
    (NaN: missing or unseen); floats compared in the narrower of ``precisions[j]`` (the
    fitted precision, see :func:`fitted_precision`) and the column's. A DataFrame stays a
    DataFrame (its column names kept), anything else becomes a float64 array; numeric columns
    are left to the estimator's validation. Unseen categories raise one warning per call naming
    the columns and some values. With ``fit_mask``, the categories of the columns it marks are
    found first, in the same pass (``categories[j]`` and ``precisions[j]`` are set: see
    :func:`_observed_categories` and :func:`fitted_precision`)."""
    frame = _is_frame(X)
    polars_frame = _is_polars_frame(X)
    if polars_frame:
        encoded = {}
    elif not frame:
        X = np.asarray(X)
        if X.ndim != 2:
            return X  # the estimator's validation says what shape it expected
        encoded = np.empty(X.shape, dtype=np.float64)
    else:
        encoded = {}
    unseen_parts = []
    frame_columns = _frame_columns(X) if frame else None
    for j, found in enumerate(categories):
        if polars_frame and found is None and (fit_mask is None or not fit_mask[j]):
            continue  # a numeric polars column stays as it is
        column = frame_columns[j] if frame else _column(X, j)
        missing = None
        if fit_mask is not None and fit_mask[j]:
            name = str(names[j]) if names is not None else f"x{j}"
            missing = _missing(column)
            found = _observed_categories(column, missing, name, j, _polars_enum_order(X, j))
            precision = fitted_precision(column, found)
            if precision is not None:
                found = _as_python_floats(found)
            categories[j] = found
            if precisions is not None:
                precisions[j] = precision
        if found is None:
            if frame:
                if fit_mask is None and getattr(column.dtype, "kind", "O") not in "biufc":
                    _as_numeric_at_predict(column, j, names)
                encoded[j] = column
            else:
                try:
                    encoded[:, j] = np.asarray(column, dtype=np.float64)
                except (TypeError, ValueError):
                    name = names[j] if names is not None else f"x{j}"
                    if fit_mask is None:  # prediction: the model's column j is numeric
                        raise _numeric_at_fit_error(name, j) from None
                    raise ValueError(
                        f"Feature {str(name)!r} (column {j}) holds non-numeric values but is "
                        "not categorical; add it to categorical_features.") from None
            continue
        if missing is not None and _is_category_column(column) and not polars_frame:
            codes, unseen = _fitted_category_codes(column), None  # fit: all categories seen
        else:
            codes, unseen = _codes(column, found,
                                   _missing(column) if missing is None else missing,
                                   None if precisions is None else precisions[j])
        if warn_unseen and unseen is not None and unseen.any():
            name = names[j] if names is not None else f"x{j}"
            unseen_parts.append(unseen_report(
                repr(str(name)), column, unseen, found.tolist(),
                None if precisions is None else precisions[j]))
        if frame or polars_frame:
            encoded[j] = codes
        else:
            encoded[:, j] = codes
    if unseen_parts:
        from ._warnings import warn_at_user_code
        from .datasets import UnseenLevelWarning

        warn_at_user_code("; ".join(unseen_parts) + UNSEEN_AS_MISSING, UnseenLevelWarning)
    if polars_frame:  # the codes replace their columns; names and order stay
        from ._compat import optional_import

        polars = optional_import("polars")
        return X.with_columns([polars.Series(X.columns[j], codes, dtype=polars.Float64)
                               for j, codes in encoded.items()])
    if frame:
        pandas = _pandas_if_loaded()
        result = pandas.DataFrame(encoded, index=X.index)
        result.columns = X.columns
        return result
    return encoded


def category_text(value, precision=None) -> str:
    """A category as text: a float in the precision it was fitted in (the float32 0.1, stored
    as the float64 0.10000000149011612, reads 0.1), anything else as ``str`` gives it."""
    if precision is not None and isinstance(value, (float, np.floating)):
        return str(np.dtype(precision).type(value))
    return str(value)


def _category_repr(value, precision) -> str:
    """A value in a warning: text quoted (``'Nice '``), a float in its fitted precision, a
    numpy scalar as the Python value it holds (``False``, not numpy 2's ``np.False_``)."""
    if isinstance(value, (float, np.floating)):
        return category_text(float(value), precision)
    return repr(_python_number(value))


def category_names(categories: np.ndarray, codes, precision=None) -> list[str]:
    """The categories of ``codes`` as text, for exports (``city in {Lyon, Nice}``; floats in
    their fitted ``precision``)."""
    return [category_text(categories[int(code)], precision) for code in codes]


def encode_categories(estimator, X, fitting: bool):
    """``X`` with its categorical columns as category codes, for a tree or forest estimator:
    at fit time the columns its ``categorical_features`` selects and their categories are
    found and stored (``is_categorical_``, ``categories_``, ``category_precision_``); X is
    returned as it is when no column is categorical."""
    if type(X).__module__.split(".")[0] == "polars" and type(X).__name__ == "LazyFrame":
        raise TypeError("X is a polars LazyFrame, a query that has not run; pass the "
                        "DataFrame it computes, X.collect().")
    if type(X).__module__.split(".")[:2] == ["scipy", "sparse"]:
        raise TypeError("Sparse data was passed for X, but dense data is required (the tree "
                        "estimators bin dense columns). Use X.toarray() to convert it.")
    if getattr(X, "shape", None) is None and isinstance(X, (list, tuple)):
        try:
            X = np.asarray(X)
        except (TypeError, ValueError):
            return X  # ragged: the estimator's validation says what it expected
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2:
        if fitting:
            estimator.is_categorical_, estimator.categories_ = None, None
            estimator.category_precision_ = None
        return X  # the estimator's validation says what it expected
    polars_frame = _is_polars_frame(X)
    names = [str(c) for c in X.columns] if _is_frame(X) or polars_frame else None
    if fitting:
        if _is_frame(X):
            from ._validation import check_X_frame

            check_X_frame(X, text_columns=False)  # duplicate names, dates
        spec = getattr(estimator, "categorical_features", None)
        mask = resolve_mask(spec, X, shape[1], names)
        if isinstance(spec, str) and spec == FROM_DTYPE and mask.any():
            mask &= ~_constrained_booleans(estimator, X, shape[1], names)
        if polars_frame:
            check_polars_columns(X, mask, names)
        estimator.is_categorical_ = mask
        estimator.categories_ = [None] * shape[1]
        estimator.category_precision_ = [None] * shape[1]
        if mask.any():  # the categories are found in the same pass over X as the codes
            encoded = encode(X, estimator.categories_, names, warn_unseen=False,
                             fit_mask=mask, precisions=estimator.category_precision_)
            _warn_identifier_like(estimator.categories_, names, shape[0])
            return encoded
        return X
    if names is not None:
        check_fitted_columns(estimator, X.columns)
    categories = getattr(estimator, "categories_", None)
    if polars_frame:
        fitted_mask = getattr(estimator, "is_categorical_", None)
        if fitted_mask is not None and len(fitted_mask) == shape[1]:
            check_polars_columns(X, fitted_mask, names, fitted=True)
    if categories is None or all(c is None for c in categories):
        return X
    if len(categories) != shape[1]:
        raise ValueError(f"X has {shape[1]} features, but {type(estimator).__name__} is "
                         f"expecting {len(categories)} features as input.")
    if names is None:
        fitted_names = getattr(estimator, "feature_names_in_", None)
        names = None if fitted_names is None else [str(name) for name in fitted_names]
    return encode(X, categories, names, warn_unseen=not fitting,
                  precisions=fitted_precisions(estimator))


def fitted_precisions(estimator):
    """``category_precision_`` of a fitted estimator, None for a model fitted before it
    existed (pickled, or a model file of schema version 3 or older): its categories are then
    matched as they were, exactly or in a narrower float column's precision."""
    return getattr(estimator, "category_precision_", None)


def encode_categories_for_warm_start(estimator, X):
    """``X`` encoded for a warm start that keeps fitted trees (a forest's): their category sets
    are codes in the first fit's categories, so those are kept, not found again. Categories
    new in ``X`` are warned about and become missing values (the missing-value side), as at
    prediction; scikit-learn's HistGradientBoosting keeps its first fit's bins on a warm start
    likewise. A column categorical in one fit but not in the other is a ValueError."""
    fitted_mask, fitted_categories = estimator.is_categorical_, estimator.categories_
    fitted_precision_ = fitted_precisions(estimator)
    try:  # the kept trees' categories (and their precisions) stay whatever happens
        encoded = encode_categories(estimator, X, fitting=True)
        mask, categories = estimator.is_categorical_, estimator.categories_
        precisions = estimator.category_precision_
    finally:
        estimator.is_categorical_, estimator.categories_ = fitted_mask, fitted_categories
        estimator.category_precision_ = fitted_precision_
    if mask is None or fitted_mask is None:
        return encoded  # not a 2-D X: the estimator's validation says what it expected
    if len(mask) != len(fitted_mask):
        raise ValueError(f"X has {len(mask)} features, but the trees warm_start keeps were "
                         f"fitted on {len(fitted_mask)}; pass the columns of the first fit, "
                         "or refit with warm_start=False.")
    if not np.array_equal(mask, fitted_mask):
        names = getattr(estimator, "feature_names_in_", None)
        shown = ", ".join(repr(str(names[j]) if names is not None else f"x{j}")
                          for j in np.flatnonzero(mask != fitted_mask)[:_SHOWN])
        raise ValueError(
            f"warm_start keeps the trees of the first fit, which split on its categorical "
            f"columns; {shown} changed between categorical and numeric. Pass the columns of "
            "the first fit with the same dtypes and categorical_features, or refit with "
            "warm_start=False.")
    if all(a is None and b is None or a is not None and b is not None
           and a.shape == b.shape and all(u == v and type(u) is type(v) for u, v in zip(a, b))
           for a, b in zip(categories, fitted_categories)) and (
               precisions == fitted_precision_):
        return encoded  # the same categories in the same precisions: the same codes
    return encode_categories(estimator, X, fitting=False)


def check_fitted_columns(estimator, columns) -> None:
    """A frame given for prediction has the columns of fit, in fit's order: a ValueError
    (scikit-learn's rule and first sentence) saying which columns are new, missing or moved.
    Checked before the categorical columns are encoded, which reads them by position."""
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is None or not all(isinstance(name, str) for name in columns):
        return  # no names to compare: scikit-learn's validation warns and goes by position
    names, fitted = list(columns), [str(name) for name in fitted]
    if names == fitted:
        return
    unseen = [name for name in names if name not in fitted]
    absent = [name for name in fitted if name not in names]
    if unseen or absent:
        detail = "; ".join(part for part in (
            f"not seen at fit: {unseen[:_SHOWN]}" if unseen else "",
            f"seen at fit but missing: {absent[:_SHOWN]}" if absent else "") if part)
    else:
        detail = (f"they are those of fit in another order ({names[:8]}"
                  f"{' …' if len(names) > 8 else ''}); reorder them, e.g. "
                  "X[model.feature_names_in_]")
    raise ValueError(f"The feature names should match those that were passed during fit: "
                     f"{detail}.")


#: A categorical column with at least this many categories, and at least half as many as
#: rows, looks like an identifier (see _warn_identifier_like).
_IDENTIFIER_MIN_CATEGORIES = 20


def _warn_identifier_like(categories: list, names, n_rows: int) -> None:
    """Warn about categorical columns with about one category per row (an id, a free-text
    field): a split by a set of their categories can reproduce the training labels exactly,
    and at prediction their new values are all unseen (the missing side)."""
    suspects = [(j, len(found)) for j, found in enumerate(categories)
                if found is not None and len(found) >= _IDENTIFIER_MIN_CATEGORIES
                and 2 * len(found) >= n_rows]
    if not suspects:
        return
    shown = ", ".join(f"{str(names[j]) if names is not None else f'x{j}'!r} ({k} categories)"
                      for j, k in suspects[:_SHOWN])
    warnings.warn(
        f"Categorical column(s) {shown} have a category for about every other row of the "
        f"{n_rows}: a split by a set of their categories can fit the training labels exactly "
        "and generalises to no new value (unseen categories take the missing side). Drop "
        "identifier columns, group rare categories, or leave such a column out of "
        "categorical_features.", UserWarning, stacklevel=5)


def _constrained_booleans(estimator, X, n_features: int, names) -> np.ndarray:
    """Boolean columns (pandas bool/boolean, polars Boolean) that ``monotonic_cst``
    constrains: "from_dtype" leaves them numeric (False < True, as scikit-learn reads them),
    since a constraint has no meaning on categories."""
    constrained = np.zeros(n_features, dtype=bool)
    if getattr(estimator, "monotonic_cst", None) is None:
        return constrained
    from ._validation import check_monotonic_cst

    try:
        direction = check_monotonic_cst(estimator.monotonic_cst, n_features, names)
    except (TypeError, ValueError):
        return constrained  # the estimator's own check reports it
    if direction is None:
        return constrained
    for j, dtype in enumerate(X.dtypes):
        boolean = (_polars_dtype_name(dtype) == "Boolean"
                   or str(dtype) in ("bool", "boolean"))
        constrained[j] = boolean and direction[j] != 0
    return constrained


def category_counts(categories):
    """Categories per feature for ``BinMapper(n_categories=...)`` (0: numeric), None when no
    feature is categorical."""
    if categories is None or all(c is None for c in categories):
        return None
    return np.array([0 if c is None else len(c) for c in categories], dtype=np.int64)


#: How the trees (not C4.5) treat a category unseen at fit, ending the warning about it.
UNSEEN_AS_MISSING = "; they are treated as missing values (each split's missing-value side)."


class FittedColumn(NamedTuple):
    """What a fitted estimator knows of one categorical column: its ``categories`` and the
    float ``precision`` they were fitted in (None: not floats, or an older model)."""

    categories: np.ndarray
    precision: str | None


def codes_of(values, column: FittedColumn, unseen: UnseenValues | None = None,
             j: int = 0) -> np.ndarray:
    """Float codes of one categorical column's raw ``values`` (NaN: missing or unseen), for
    code that reads features one at a time (``treesmith.predict_lazy``). The values come as
    objects (Python floats are float64): compared in the column's fitted precision. The
    values unseen at fit are added to ``unseen`` as column ``j``'s, for one warning per call."""
    values = _object_array(np.asarray(values, dtype=object).ravel().tolist())
    codes, unseen_mask = _codes(values, np.asarray(column.categories, dtype=object),
                                _missing(values), column.precision)
    if unseen is not None:
        unseen.add(j, values, unseen_mask, column)
    return codes


#: Distinct unseen values per column a lazy prediction keeps for its warning
#: (``UnseenValues``); the cells of further values are only counted, so memory stays bounded
#: however many cells a long prediction requests.
MAX_UNSEEN_KEPT = 1024


class _UnseenColumn:
    """One column's unseen cells so far: their number, the first ``MAX_UNSEEN_KEPT`` distinct
    values (in order of arrival), and the cells holding any other value."""

    def __init__(self, column: FittedColumn):
        self.column = column
        self.n_cells = 0
        self.values: dict = {}
        self.n_more_cells = 0


class UnseenValues:
    """The values unseen at fit that a lazy prediction (``treesmith.predict_lazy``) requested,
    gathered column by column and reported in one :class:`UnseenLevelWarning` at the end of
    the call, worded as ``predict``'s (column, number of cells, values, training categories).
    Only requested cells are seen: a row whose path never tests a column is not reported.
    Each column keeps its cell count and at most ``MAX_UNSEEN_KEPT`` distinct values; cells of
    later new values are counted and reported as "and N more"."""

    def __init__(self, estimator, noun: str = "categories", column_name=None):
        names = getattr(estimator, "feature_names_in_", None)
        self._column_name = column_name or (
            lambda j: repr(str(names[j]) if names is not None else f"x{j}"))
        self._noun = noun
        self._found: dict[int, _UnseenColumn] = {}

    def add(self, j: int, values, unseen_mask: np.ndarray, column: FittedColumn) -> None:
        """Record column ``j``'s ``values`` where ``unseen_mask`` is set."""
        if not np.any(unseen_mask):
            return
        found = self._found.setdefault(j, _UnseenColumn(column))
        cells = np.asarray(values, dtype=object)[unseen_mask].tolist()
        found.n_cells += len(cells)
        kept = found.values
        for value, count in Counter(cells).items():  # distinct values in order of arrival
            if value in kept:
                continue
            if len(kept) < MAX_UNSEEN_KEPT:
                kept[value] = None
            else:
                found.n_more_cells += count

    def warn(self, ending: str) -> None:
        """Issue the warning (nothing when no unseen value was requested)."""
        if not self._found:
            return
        parts = []
        for j in sorted(self._found):
            found = self._found[j]
            parts.append(unseen_text(self._column_name(j), found.n_cells, found.values,
                                     found.column.categories, found.column.precision,
                                     self._noun, found.n_more_cells))
        from ._warnings import warn_at_user_code
        from .datasets import UnseenLevelWarning

        warn_at_user_code("; ".join(parts) + ending, UnseenLevelWarning)


def fitted_categories(estimator, j: int):
    """Feature ``j`` of a fitted estimator as a :class:`FittedColumn`, None when it is
    numeric."""
    categories = getattr(estimator, "categories_", None)
    if categories is None or categories[j] is None:
        return None
    precisions = fitted_precisions(estimator)
    return FittedColumn(categories[j], None if precisions is None else precisions[j])
