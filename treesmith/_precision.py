"""Fitted numeric precision: the float precision a model's numeric columns were fitted in
(``numeric_precision_``), and prediction input rounded to it (docs/methods.md §2).

A tree fitted on float32 numbers has thresholds made of float32 values: a training value itself
(C4.5) or the midpoint of two. The same numbers read again in float64 (a CSV round trip,
``X.astype(float)``) are not those float32 values, and one just above a float32 threshold would
go right where its float32 twin went left. Prediction therefore compares a model's numeric input
in the precision it was fitted in, as scikit-learn's trees do (they cast X to float32): a
float32 model walks one float32 copy of X; a float64 model walks X as it is.

The precision is one per estimator, not per column: the tree walks one matrix, whose single
float32 copy is the cheapest rounding there is, and a frame whose numeric columns mix float32
and float64 is fitted as float64 (its float32 values widened exactly), as before.
"""

from __future__ import annotations

import numpy as np

#: The values of ``numeric_precision_``: numpy dtype names.
NUMERIC_PRECISIONS = ("float32", "float64")
#: The precision of a model fitted before it was recorded (model files of schema <= 4,
#: pickles): its predictions compared float64 input in float64.
UNRECORDED_PRECISION = "float64"
#: The largest float32: a float64 value beyond it rounds to it, not to infinity.
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _is_float32(dtype) -> bool:
    dtype = getattr(dtype, "numpy_dtype", dtype)  # pandas' nullable Float32
    if str(dtype) == "Float32":  # polars
        return True
    try:
        return np.dtype(dtype) == np.float32
    except TypeError:
        return False


def _column_dtypes(X):
    """The dtype of every column of a pandas or polars frame, else None."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns"):
        return None
    return list(dtypes)


def numeric_precision(X_given, X_fitted, is_categorical=None) -> str:
    """``"float32"`` when every numeric column the model was fitted on holds float32 values,
    else ``"float64"``: the dtype of the validated matrix ``X_fitted``, or, for a frame
    ``X_given`` (whose categorical columns, ``is_categorical``, became float64 codes), that
    all of its numeric columns are float32."""
    if X_fitted.dtype == np.float32:
        return "float32"
    dtypes = _column_dtypes(X_given)
    if dtypes is None or len(dtypes) != X_fitted.shape[1]:
        return "float64"
    return precision_of_columns(dtypes, is_categorical)


def precision_of_columns(dtypes, is_categorical=None) -> str:
    """``"float32"`` when every numeric column (``is_categorical`` False) of these dtypes is
    float32 (there is one at least), else ``"float64"``."""
    numeric = [dtype for j, dtype in enumerate(dtypes)
               if is_categorical is None or not is_categorical[j]]
    return "float32" if numeric and all(_is_float32(dtype) for dtype in numeric) else "float64"


def fitted_numeric_precision(estimator) -> str:
    """``estimator.numeric_precision_``, or ``UNRECORDED_PRECISION`` for a model fitted before
    it was recorded."""
    return estimator.__dict__.get("numeric_precision_", UNRECORDED_PRECISION)


def check_numeric_precision(precision) -> None:
    """A ValueError unless ``precision`` is one of ``NUMERIC_PRECISIONS`` (model files)."""
    if not (isinstance(precision, str) and precision in NUMERIC_PRECISIONS):
        raise ValueError(f"numeric_precision_ must be one of {list(NUMERIC_PRECISIONS)}, got "
                         f"{precision!r}")


def rounded_to(X: np.ndarray, precision: str) -> np.ndarray:
    """The validated float32/float64 matrix ``X`` in the fitted ``precision``: one float32
    copy of a float64 ``X`` for a float32 model, ``X`` itself otherwise. Rounding is to
    nearest; a finite value beyond the float32 range becomes the largest float32 of its sign
    (it stays beyond every threshold, which are float32 values or midpoints of two), so only
    a value that was infinite is reported as such. Category codes (0..254, NaN) are exact in
    float32."""
    if precision != "float32" or X.dtype == np.float32:
        return X
    try:
        with np.errstate(over="raise"):
            return X.astype(np.float32)
    except FloatingPointError:  # a finite value beyond float32's range: rare, a second pass
        finite = np.isfinite(X)
        return np.where(finite, np.clip(X, -_FLOAT32_MAX, _FLOAT32_MAX), X).astype(np.float32)


def rounded_values(values: np.ndarray, precision: str) -> np.ndarray:
    """1-D float64 ``values`` (one feature's, read one at a time: ``predict_lazy``, C4.5)
    rounded to the fitted ``precision`` and widened back to float64 (exactly)."""
    if precision != "float32":
        return values
    return rounded_to(np.asarray(values, dtype=np.float64).reshape(1, -1),
                      precision).reshape(-1).astype(np.float64)
