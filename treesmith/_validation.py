"""Parameter and input checks whose errors name the parameter and say what was expected."""

from __future__ import annotations

import numbers

import numpy as np


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_int(name, value, low, high=None, allow_none=False):
    """An int in [low, high] (or None when allowed)."""
    if value is None and allow_none:
        return None
    if not _is_int(value) or value < low or (high is not None and value > high):
        upper = "inf)" if high is None else f"{high}]"
        none = " or None" if allow_none else ""
        raise ValueError(f"{name} must be an int in [{low}, {upper}{none}, got {value!r}.")
    return int(value)


def check_fraction(name, value, low, high, low_inclusive=True, high_inclusive=True):
    """A float in the interval between low and high."""
    lo = "[" if low_inclusive else "("
    hi = "]" if high_inclusive else ")"
    ok = _is_real(value) and np.isfinite(value)
    if ok:
        ok = (value >= low if low_inclusive else value > low) and (
            value <= high if high_inclusive else value < high)
    if not ok:
        raise ValueError(f"{name} must be a float in {lo}{low}, {high}{hi}, got {value!r}.")
    return float(value)


def resolve_count_or_fraction(name, value, n_samples, int_low, fraction_high_inclusive):
    """min_samples_split / min_samples_leaf: an int >= int_low or a fraction of n_samples."""
    if _is_int(value):
        return check_int(name, value, int_low)
    if _is_real(value):
        hi = "]" if fraction_high_inclusive else ")"
        if not (0.0 < value < 1.0 or (fraction_high_inclusive and value == 1.0)):
            raise ValueError(
                f"{name} must be an int >= {int_low} or a float in (0.0, 1.0{hi}, got {value!r}.")
        return max(int_low, int(np.ceil(value * n_samples)))
    raise ValueError(f"{name} must be an int >= {int_low} or a float fraction, got {value!r}.")


def resolve_max_features(value, n_features):
    """Number of features examined per node.

    None -> all; int k in [1, n_features]; float f in (0, 1] -> max(1, floor(f * n_features));
    "sqrt" -> max(1, floor(sqrt(n_features))); "log2" -> max(1, floor(log2(n_features))).
    """
    if value is None:
        return n_features
    if isinstance(value, str):
        if value == "sqrt":
            return max(1, int(np.sqrt(n_features)))
        if value == "log2":
            return max(1, int(np.log2(n_features)))
    elif _is_int(value):
        if 1 <= value <= n_features:
            return int(value)
    elif _is_real(value):
        if 0.0 < value <= 1.0:
            return max(1, int(value * n_features))
    raise ValueError(
        "max_features must be None, an int in [1, n_features="
        f"{n_features}], a float in (0.0, 1.0], 'sqrt' or 'log2', got {value!r}.")


def check_sample_weight(sample_weight, n_samples):
    """A 1-D array of n_samples finite, non-negative weights with a positive sum (None -> ones)."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    if _is_real(sample_weight):
        sample_weight = np.full(n_samples, float(sample_weight))
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim != 1 or weights.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight must be a 1-D array with one weight per sample ({n_samples}), "
            f"got shape {weights.shape}.")
    if not np.all(np.isfinite(weights)):
        raise ValueError("sample_weight must be finite; it contains NaN or infinity.")
    if np.any(weights < 0):
        raise ValueError("sample_weight must be non-negative; it contains negative values.")
    if not weights.sum() > 0:
        raise ValueError("sample_weight must have a positive sum; all weights are zero.")
    return weights
