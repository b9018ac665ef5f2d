"""The validation room: declared parameter constraints and the shared input checkers.

Every error raised here names the parameter (or column) at fault and says what was expected,
so that nothing reaches a compiled kernel with a value it cannot handle.

Declaring an estimator's parameters
-----------------------------------
An estimator lists the allowed values of each constructor parameter once, in a class attribute
``_parameter_table``: a dict ``name -> list of constraints``; a value is valid when it
satisfies at least one of them (the spirit of scikit-learn's ``_parameter_constraints``, with
our own small vocabulary and name, so that scikit-learn's machinery never reads our table with
its vocabulary)::

    from numbers import Integral, Real
    from treesmith._validation import Interval, Options, InstanceOf, validate_parameters

    class MyForest(BaseEstimator):
        _parameter_table = {
            "n_estimators": [Interval(Integral, 1, None)],          # int >= 1
            "max_samples": [None, Interval(Real, 0, 1, closed="right")],
            "bootstrap": ["boolean"],
            "criterion": [Options({"gini", "entropy"})],
            "random_state": ["random_state"],
        }

        def fit(self, X, y):
            validate_parameters(self)        # first thing, before any data is touched
            ...

Subclasses extend the table of their base (``{**Base._parameter_table, ...}``); the
tree estimators' table is ``treesmith.estimators.TREE_PARAMETER_CONSTRAINTS``. An estimator
that defines ``_validate_params(self)`` as ``validate_parameters(self)`` also gets its
parameters checked when a model file is loaded (``treesmith.io`` calls it).

The vocabulary:

* ``None`` — the value ``None``;
* ``Interval(Integral | Real | RealNotInt, low, high, closed="left")`` — an int (bools are
  not ints) or a real number (RealNotInt: a float, not an int) in an interval; ``None``
  bounds are unbounded; real intervals reject NaN, ints beyond float64 (``10**400``) and,
  unless ``allow_inf=True``, ±inf. Integer intervals accept numpy integers and arbitrarily
  large Python ints (the estimator clamps them to what can be reached, see
  :func:`clamp_count`);
* ``Options({...})`` — one of a set of values (strings compared exactly);
* ``InstanceOf(types, description)`` — an instance of a type (e.g. a criterion object);
* ``"boolean"``, ``"random_state"`` (None, an int in [0, 2**32 - 1] or a numpy
  ``RandomState``), ``"array-like"``.

Input checkers
--------------
:func:`check_sample_weight` is the one checker of sample weights (estimators, pruning, metrics
and the comparison runner all call it); :func:`check_class_weight` checks ``class_weight``
dicts; :func:`check_finite_sums` guards the float64 sums the histograms accumulate;
:func:`check_consistent_rows` checks that X, y and weights describe the same rows.
"""

from __future__ import annotations

import math
import numbers
import sys
import threading
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

class RealNotInt:
    """Interval kind: a real number that is not an int (``min_samples_leaf=1`` is a count, not
    the fraction 1.0)."""


#: Largest count a kernel is given: any int above it means "unbounded" for counts and depths.
#: (int64 kernels; stays far below 2**63 so that sums such as 2 * min_samples_leaf cannot wrap.)
COUNT_LIMIT = 2**53


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _beyond_float(value) -> bool:
    """An int no float64 can hold (10**400): no real number the estimators can use, and
    ``math.isnan`` or ``float`` of it raise OverflowError."""
    return _is_int(value) and abs(int(value)) > sys.float_info.max


# -- constraints ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Interval:
    """An int (``kind=Integral``) or a real number (``kind=Real``) between ``low`` and ``high``.

    ``closed`` is "left", "right", "both" or "neither"; a ``None`` bound is unbounded.
    """

    kind: type
    low: float | None
    high: float | None
    closed: str = "left"
    allow_inf: bool = False

    def __post_init__(self):
        if self.kind not in (Integral, Real, RealNotInt):
            raise TypeError("Interval kind must be numbers.Integral, numbers.Real or RealNotInt")
        if self.closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed must be left, right, both or neither, got {self.closed!r}")

    def accepts(self, value) -> bool:
        if self.kind is Integral:
            if not _is_int(value):
                return False
        elif not _is_real(value) or _beyond_float(value) or math.isnan(value):
            return False
        elif self.kind is RealNotInt and _is_int(value):
            return False
        elif math.isinf(value) and not self.allow_inf:
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self) -> str:
        kind = "an int" if self.kind is Integral else "a float"
        if self.low is None and self.high is None:
            return kind
        if self.high is None:
            sign = ">=" if self.closed in ("left", "both") else ">"
            return f"{kind} {sign} {self.low}"
        if self.low is None:
            sign = "<=" if self.closed in ("right", "both") else "<"
            return f"{kind} {sign} {self.high}"
        left = "[" if self.closed in ("left", "both") else "("
        right = "]" if self.closed in ("right", "both") else ")"
        return f"{kind} in {left}{self.low}, {self.high}{right}"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values."""

    values: frozenset

    def __init__(self, values):
        object.__setattr__(self, "values", frozenset(values))

    def accepts(self, value) -> bool:
        try:
            return isinstance(value, (str, bool, numbers.Number)) and value in self.values
        except TypeError:
            return False

    def __str__(self) -> str:
        shown = ", ".join(repr(v) for v in sorted(self.values, key=str))
        return shown if len(self.values) == 1 else f"one of {shown}"


@dataclass(frozen=True)
class InstanceOf:
    """An instance of ``types``, described in messages as ``description``."""

    types: type | tuple
    description: str

    def accepts(self, value) -> bool:
        return isinstance(value, self.types)

    def __str__(self) -> str:
        return self.description


class _Boolean:
    def accepts(self, value) -> bool:
        return isinstance(value, (bool, np.bool_))

    def __str__(self) -> str:
        return "a bool"


class _RandomState:
    def accepts(self, value) -> bool:
        if value is None or isinstance(value, np.random.RandomState):
            return True
        return _is_int(value) and 0 <= value <= 2**32 - 1

    def __str__(self) -> str:
        return "None, an int in [0, 2**32 - 1] or a numpy RandomState"


class _ArrayLike:
    """A list, tuple, set, range, numpy array, pandas Index or Series...; ``description``
    says in the error message what its entries must be."""

    def __init__(self, description: str = "an array-like"):
        self.description = description

    def accepts(self, value) -> bool:
        if isinstance(value, np.generic) or isinstance(value, np.ndarray) and value.ndim == 0:
            return False  # a numpy scalar or a 0-d array has __array__ but no entries
        return hasattr(value, "__array__") or hasattr(value, "__len__") and not isinstance(
            value, (str, bytes, dict))

    def __str__(self) -> str:
        return self.description


ArrayLike = _ArrayLike


class _NoneConstraint:
    def accepts(self, value) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


_NAMED = {"boolean": _Boolean(), "random_state": _RandomState(), "array-like": _ArrayLike()}


def _as_constraint(constraint):
    if constraint is None:
        return _NoneConstraint()
    if isinstance(constraint, str):
        try:
            return _NAMED[constraint]
        except KeyError:
            raise ValueError(f"unknown constraint name {constraint!r}; use one of "
                             f"{sorted(_NAMED)}") from None
    if not hasattr(constraint, "accepts"):
        raise TypeError(f"a constraint needs an accepts(value) method, got {constraint!r}")
    return constraint


def describe(constraints) -> str:
    """``"an int >= 1 or None"``: the allowed values in words."""
    words = [str(_as_constraint(c)) for c in constraints]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def check_parameter(name: str, value, constraints, owner: str | None = None):
    """Raise a ValueError naming ``name`` when ``value`` satisfies none of ``constraints``."""
    for constraint in constraints:
        if _as_constraint(constraint).accepts(value):
            return value
    prefix = f"{owner}: " if owner else ""
    raise ValueError(f"{prefix}{name} must be {describe(constraints)}, got {value!r}.")


def validate_parameters(estimator, constraints: dict | None = None) -> None:
    """Check every parameter of ``estimator`` declared in its ``_parameter_table``.

    Parameters absent from the table are not checked here (their own resolver checks them).
    """
    table = type(estimator)._parameter_table if constraints is None else constraints
    params = estimator.get_params(deep=False)
    owner = type(estimator).__name__
    for name, allowed in table.items():
        if name in params:
            check_parameter(name, params[name], allowed, owner)


def clamp_count(value, limit: int) -> int:
    """An already validated int count or depth, capped at ``limit`` (an int above what the data
    can reach means the same as ``limit``; ``10**30`` must not overflow an int64 kernel)."""
    return int(min(int(value), int(limit), COUNT_LIMIT))


# -- legacy single-value checks used by the resolvers ------------------------------------------
def check_random_state_parameter(random_state) -> np.random.RandomState:
    """``random_state`` as a numpy RandomState (scikit-learn's ``check_random_state``), with
    an error naming the parameter when it is none of None, an int or a RandomState (e.g. a
    ``numpy.random.Generator``, which the seeded kernels cannot draw their seeds from)."""
    from sklearn.utils import check_random_state

    try:
        return check_random_state(random_state)
    except ValueError:
        raise ValueError("random_state must be None, an int or a numpy RandomState, got "
                         f"{random_state!r}.") from None


_THREAD_STATE = threading.local()


def seeded_generator(seed: int) -> np.random.RandomState:
    """A ``RandomState`` in the state of ``np.random.RandomState(seed)`` (the same draws), for
    draws made and used at once: this thread's one generator, seeded again. Building a
    ``RandomState`` costs ~80 us (its ``MT19937``), seeding one ~2 us: as long as a tenth of
    a fit on iris, and two per forest tree."""
    generator = getattr(_THREAD_STATE, "generator", None)
    if generator is None:
        generator = _THREAD_STATE.generator = np.random.RandomState(seed)
    else:
        generator.seed(seed)
    return generator


def first_seed(seed: int) -> int:
    """``int(np.random.RandomState(seed).randint(0, 2**31 - 1))``: the seed of a tree's
    per-node feature sampling when its ``random_state`` is the int ``seed`` and nothing else
    draws from it first (``seeded_generator``)."""
    return int(seeded_generator(seed).randint(0, 2**31 - 1))


def check_int(name, value, low, high=None, allow_none=False):
    """An int in [low, high] (or None when allowed)."""
    allowed = [Interval(Integral, low, high, closed="both" if high is not None else "left")]
    if allow_none:
        allowed.append(None)
    check_parameter(name, value, allowed)
    return None if value is None else int(value)


def check_fraction(name, value, low, high, low_inclusive=True, high_inclusive=True):
    """A float in the interval between low and high."""
    closed = {(True, True): "both", (True, False): "left", (False, True): "right",
              (False, False): "neither"}[(low_inclusive, high_inclusive)]
    check_parameter(name, value, [Interval(Real, low, high, closed=closed)])
    return float(value)


def resolve_count_or_fraction(name, value, n_samples, int_low, fraction_high_inclusive):
    """min_samples_split / min_samples_leaf: an int >= int_low or a fraction of n_samples.

    Ints above ``n_samples + 1`` are capped there (the same stopping rule, and no overflow)."""
    closed = "right" if fraction_high_inclusive else "neither"
    check_parameter(name, value, [Interval(Integral, int_low, None),
                                  Interval(RealNotInt, 0.0, 1.0, closed=closed)])
    if _is_int(value):
        return clamp_count(value, n_samples + 1)
    return max(int_low, int(np.ceil(value * n_samples)))


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


def _feature_index(name: str, key, n_features: int, feature_names) -> int:
    """Column index of ``key`` (a feature name, or an int index) in a per-feature dict."""
    if feature_names is not None and isinstance(key, str):
        matches = np.flatnonzero(np.asarray(feature_names, dtype=object) == key)
        if matches.size:
            return int(matches[0])
        raise ValueError(f"{name} names the unknown feature {key!r}; the features are "
                         f"{list(feature_names)}.")
    if _is_int(key) and 0 <= key < n_features:
        return int(key)
    where = ("a feature name or an int index" if feature_names is not None else
             "an int index (X has no feature names)")
    raise ValueError(f"{name} keys must be {where} in [0, {n_features}), got {key!r}.")


def check_monotonic_cst(monotonic_cst, n_features: int, feature_names=None,
                        name: str = "monotonic_cst"):
    """Monotonic constraints as an int64 array of -1, 0, 1 per feature, or None.

    Accepts scikit-learn's form (None, or an array-like of length ``n_features`` of -1
    (decreasing), 0 (no constraint) and 1 (increasing)) and, as scikit-learn's histogram
    gradient boosting, a dict ``{feature name or index: -1 | 0 | 1}`` (others unconstrained).
    """
    if monotonic_cst is None:
        return None
    if isinstance(monotonic_cst, dict):
        resolved = np.zeros(n_features, dtype=np.int64)
        for key, direction in monotonic_cst.items():
            if not (_is_int(direction) or _is_real(direction)) or direction not in (-1, 0, 1):
                raise ValueError(f"{name}[{key!r}] must be -1, 0 or 1, got {direction!r}.")
            resolved[_feature_index(name, key, n_features, feature_names)] = int(direction)
        return resolved
    if isinstance(monotonic_cst, (str, bytes)) or not _ArrayLike().accepts(monotonic_cst):
        raise ValueError(f"{name} must be None, an array-like of -1, 0 or 1 per feature or a "
                         f"dict {{feature: -1 | 0 | 1}}, got {monotonic_cst!r}.")
    values = np.asarray(monotonic_cst)
    if values.ndim != 1 or values.shape[0] != n_features:
        raise ValueError(f"{name} has shape {values.shape} but X has {n_features} features: "
                         "give one constraint (-1, 0 or 1) per feature.")
    if values.dtype.kind not in "biuf" or not np.all(np.isin(values, (-1, 0, 1))):
        if values.dtype.kind in "biuf":
            bad = np.unique(values[~np.isin(values, (-1, 0, 1))]).tolist()
        else:  # None, text...: the entries as given (numpy would sort or stringify them)
            bad = list(dict.fromkeys(
                v for v in list(monotonic_cst)
                if not (_is_int(v) or _is_real(v)) or v not in (-1, 0, 1)))
        raise ValueError(f"{name} must hold only -1 (decreasing), 0 (no constraint) or 1 "
                         f"(increasing), got {bad}.")
    return values.astype(np.int64)


# -- weights ------------------------------------------------------------------------------------
def _power_of_two_scale(weights: np.ndarray, name: str) -> np.ndarray:
    """``weights`` times a power of two so that their sum is finite (exact: only the exponent
    changes). Raises when a positive weight would underflow to zero."""
    largest = float(weights.max())
    exponent = math.ceil(math.log2(largest)) + math.ceil(math.log2(max(weights.size, 1))) + 1
    scaled = weights * 2.0 ** -exponent
    if np.any((scaled == 0) & (weights > 0)):
        raise ValueError(
            f"{name} spans too many orders of magnitude (largest {largest:.3g}): their sum "
            "overflows float64 and scaling them down would turn the smallest into zero. "
            "Divide them by a constant first.")
    return scaled


def check_sample_weight(sample_weight, n_samples: int, *, name: str = "sample_weight",
                        positive_sum: bool = True, normalize: bool = False,
                        rescale: bool = True) -> np.ndarray:
    """Float64 weights, one per sample: finite, non-negative (None -> ones; a number -> that
    number for every sample).

    positive_sum: reject weights that are all zero.
    normalize: return weights that sum to 1 (a distribution p(x) over the rows).
    rescale: when the weights are finite but their sum overflows (e.g. 1e307 each), multiply
        them by a power of two (exact) instead of failing; trees and metrics are invariant to a
        common factor of the weights. Without it such weights are rejected.
    """
    if sample_weight is None:
        weights = np.ones(n_samples, dtype=np.float64)
        return weights / max(n_samples, 1) if normalize else weights
    if _is_real(sample_weight):
        sample_weight = np.full(n_samples, float(sample_weight))
    try:
        given = np.asarray(sample_weight)  # (array-likes with __array__ only: no np.* calls)
        complex_numbers = given.dtype.kind == "c"
        weights = None if complex_numbers else np.asarray(given, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, one per sample ({n_samples}); could not "
                         f"convert {type(sample_weight).__name__} to float.") from None
    if complex_numbers:  # numpy's cast drops the imaginary part with only a warning
        raise ValueError(f"{name} must be real numbers, one per sample ({n_samples}); got "
                         "complex numbers.")
    if weights.ndim != 1 or weights.shape[0] != n_samples:
        raise ValueError(
            f"{name} must be a 1-D array with one weight per sample ({n_samples}), "
            f"got shape {weights.shape}.")
    if not np.all(np.isfinite(weights)):
        bad = np.flatnonzero(~np.isfinite(weights))
        raise ValueError(f"{name} must be finite; it contains NaN or infinity at rows "
                         f"{_some(bad)}.")
    if np.any(weights < 0):
        bad = np.flatnonzero(weights < 0)
        raise ValueError(f"{name} must be non-negative; it is negative at rows {_some(bad)}.")
    with np.errstate(over="ignore"):
        total = weights.sum()
    if positive_sum and not total > 0:
        raise ValueError(f"{name} must have a positive sum; all weights are zero.")
    if not np.isfinite(total):
        if not rescale:
            raise ValueError(f"{name} sums to infinity in float64; divide the weights by a "
                             "constant.")
        weights = _power_of_two_scale(weights, name)
        total = weights.sum()
    if normalize and total > 0:
        weights = weights / total
    return weights


def check_class_weight(class_weight, classes) -> None:
    """``class_weight``: None, "balanced" or a dict {class: finite weight >= 0}."""
    if class_weight is None or (isinstance(class_weight, str) and class_weight == "balanced"):
        return
    if not isinstance(class_weight, dict):
        raise ValueError("class_weight must be None, 'balanced' or a dict {class: weight}, got "
                         f"{class_weight!r}.")
    known = set(np.asarray(classes).tolist())
    for label, weight in class_weight.items():
        if not _is_real(weight) or not math.isfinite(weight) or weight < 0:
            raise ValueError(
                f"class_weight[{label!r}] must be a finite number >= 0, got {weight!r}.")
        if label not in known:
            raise ValueError(f"class_weight names class {label!r}, which is not in y; the "
                             f"classes are {sorted(known, key=str)}.")


def check_finite_sums(stats: np.ndarray, y: np.ndarray) -> None:
    """Raise when the column sums of the per-sample statistics (what the root histogram adds
    up: weight, weight * y, weight * y**2, ...) overflow float64; a tree grown on them would be
    one leaf with impurity 0, or predict NaN."""
    with np.errstate(over="ignore", invalid="ignore"):
        sums = np.abs(stats).sum(axis=0)
    if not np.all(np.isfinite(sums)):
        raise ValueError(
            f"y is too large for float64 sums: the weighted sum of squares of y overflows "
            f"(largest |y| = {float(np.max(np.abs(y))):.3g}; float64 squares overflow above "
            "about 1e154). Rescale y (e.g. divide it by a power of ten) and multiply the "
            "predictions back.")


def check_consistent_rows(**arrays) -> int:
    """The common number of rows of the named arrays (None entries are skipped); a ValueError
    naming each array's length otherwise."""
    lengths = {name: _n_rows(value) for name, value in arrays.items() if value is not None}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"inconsistent numbers of rows: {shown}.")
    return next(iter(lengths.values()), 0)


def _n_rows(value) -> int:
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape):
        return int(shape[0])
    return len(value)


def _some(rows: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(str(int(r)) for r in rows[:limit])
    return shown + (f" … ({rows.size} in all)" if rows.size > limit else "")


# -- X and y ------------------------------------------------------------------------------------
_ENCODE_FIRST = ("encode it first, e.g. with treesmith.datasets.encode_features or "
                 "scikit-learn's OneHotEncoder / OrdinalEncoder")
_ENCODE_HINT = ("To split on its categories, name it in categorical_features (e.g. "
                "categorical_features=[...] with its name or index; the default 'from_dtype' "
                "takes the pandas category, string, object and bool columns of a DataFrame), "
                f"or {_ENCODE_FIRST}")


def _is_missing(value) -> bool:
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")


_missing_cells = np.frompyfunc(_is_missing, 1, 1)


def _text_cells(values: np.ndarray) -> np.ndarray:
    """Positions of the cells of a 1-D object/str array holding text that is not a number
    (other objects are left to numpy's conversion, which raises a TypeError for them)."""
    bad = []
    for position, value in enumerate(values):
        if isinstance(value, (str, bytes, np.str_, np.bytes_)):
            try:
                float(value)
            except ValueError:
                bad.append(position)
    return np.asarray(bad, dtype=np.int64)


def _describe_text_column(label: str, values: np.ndarray, bad: np.ndarray) -> str:
    shown = ", ".join(repr(values[k]) for k in bad[:3]) + (" …" if bad.size > 3 else "")
    return (f"Feature {label} holds non-numeric values ({shown}; {bad.size} of {values.size} "
            f"rows). {_ENCODE_HINT}.")


def check_X_frame(X, text_columns: bool = True) -> None:
    """Reject, with a message naming the column, what scikit-learn's conversion would turn into
    a numpy error or a silent change: a frame of sparse columns only (the message says
    ``X.sparse.to_dense()``), duplicate column names, date/time columns and (unless
    ``text_columns`` is False) text columns, which reach here only when they are not
    categorical features; the message for a text column points at ``categorical_features``,
    which every estimator takes."""
    columns = getattr(X, "columns", None)
    dtypes = getattr(X, "dtypes", None)
    if columns is not None and dtypes is not None and hasattr(X, "iloc"):
        if len(columns) == 0:  # numpy's "at least one array or dtype is required"
            raise ValueError(f"X is a DataFrame without columns (shape={X.shape}) while a "
                             "minimum of 1 feature is required.")
        if len(dtypes) and all(str(dtype).startswith("Sparse") for dtype in dtypes):
            # scikit-learn turns such a frame into a sparse matrix and then asks for
            # ``.toarray()``, which a DataFrame does not have (or, with a NaN fill value,
            # fails in the conversion itself)
            raise TypeError("X is a pandas DataFrame whose columns are all sparse; treesmith "
                            "needs dense data: pass X.sparse.to_dense().")
        names = [str(c) for c in columns]
        seen, duplicated = set(), []
        for name in names:
            if name in seen and name not in duplicated:
                duplicated.append(name)
            seen.add(name)
        if duplicated:
            raise ValueError(f"X has duplicate column names {duplicated}; give every column a "
                             "unique name (trees and model files refer to columns by name).")
        for j, dtype in enumerate(dtypes):
            kind = getattr(dtype, "kind", "O")
            label = f"{names[j]!r} (column {j})"
            text = str(dtype)
            if kind in "mM" or text.startswith(("datetime", "timedelta", "period")):
                raise ValueError(
                    f"Feature {label} has dtype {text}; treesmith needs numbers. Convert it, "
                    "e.g. to days since a reference date or to its year, month and weekday.")
            if text_columns and (kind in "OUS" or text in ("category", "string", "str")
                                 or text.startswith("string")):
                values = np.asarray(X.iloc[:, j].astype(object))
                bad = _text_cells(values)
                if bad.size:
                    raise ValueError(_describe_text_column(label, values, bad))
        return
    if isinstance(X, (str, bytes)) or X is None:
        return  # scikit-learn's own message ("Expected 2D array, got scalar …") is clear
    array = np.asarray(X) if isinstance(X, (list, tuple, np.ndarray)) else None
    if array is not None and array.dtype.kind in "mM":  # as a frame's date/time column
        raise ValueError(f"X has dtype {array.dtype}; treesmith needs numbers. Convert it, e.g. "
                         "to days since a reference date or to its year, month and weekday.")
    if array is None or array.ndim != 2 or array.dtype.kind not in "OUS":
        return
    for j in range(array.shape[1]):
        bad = _text_cells(array[:, j])
        if bad.size:
            raise ValueError(_describe_text_column(f"x{j} (column {j})", array[:, j], bad))


def check_y_values(y, task: str):
    """Reject targets a tree cannot learn, naming what is wrong: no y, multi-output y, missing
    labels (None / NaN) and class labels of mixed types. Returns ``y`` unchanged."""
    if y is None:
        return y  # scikit-learn's message: "requires y to be passed, but the target y is None"
    shape = getattr(y, "shape", None)
    if shape is None:
        try:
            array = np.asarray(y, dtype=object if task == "classification" else None)
        except (TypeError, ValueError):
            array = np.asarray(y, dtype=object)
        shape = array.shape
    else:
        array = None
    if len(shape) > 2 or (len(shape) == 2 and shape[1] != 1):
        raise ValueError(
            f"y has shape {tuple(shape)}: multi-output targets are not supported; fit one tree "
            "per output (e.g. with sklearn.multioutput.MultiOutputClassifier / "
            "MultiOutputRegressor) or pass a 1-D y.")
    if array is None:
        array = np.asarray(y)
    flat = array.reshape(-1)
    if flat.dtype.kind == "f":
        missing = np.isnan(flat)
    elif flat.dtype.kind == "O":
        try:  # numpy's elementwise comparisons: fast for str, int and float cells
            missing = np.asarray((flat == None) | (flat != flat), dtype=bool)  # noqa: E711
        except (TypeError, ValueError):  # a cell such as pandas.NA has no truth value
            missing = _missing_cells(flat).astype(bool) if flat.size else np.zeros(0, bool)
    else:
        return y
    if missing.any():
        rows = np.flatnonzero(missing)
        raise ValueError(f"y has missing values (None or NaN) at rows {_some(rows)}; a tree "
                         "needs a label for every row: drop those rows or fill them in.")
    if flat.dtype.kind == "O" and task == "classification":
        # A sample of about 1000 labels finds the usual mix (numbers and text); a rarer one
        # fails in np.unique, which the classifier reports with check_label_types.
        check_label_types(flat[:: max(1, flat.size // 1000)])
    return y


def check_label_types(labels) -> None:
    """Raise when class labels mix text and numbers (they cannot be sorted into classes)."""
    kinds = {type(v).__name__ for v in np.asarray(labels, dtype=object).reshape(-1)}
    numeric = {k for k in kinds if k.startswith(("int", "float", "uint", "bool"))}
    if len(kinds) > 1 and not kinds <= numeric:
        raise ValueError(f"y mixes label types {sorted(kinds)}; class labels must all be "
                         "strings or all numbers (e.g. y.astype(str)).")


# -- plain numpy input: scikit-learn's validation without its per-call overhead ----------------
#: dtypes of X that scikit-learn's ``check_array(dtype=(float64, float32))`` keeps as they are.
_FLOAT_X = (np.dtype(np.float64), np.dtype(np.float32))


def plain_training_arrays(estimator, X, y, y_numeric: bool):
    """``(X, y)`` as ``sklearn.utils.validation.validate_data(estimator, X, y,
    dtype=(float64, float32), ensure_all_finite="allow-nan", y_numeric=y_numeric)`` returns
    them, with its side effects (``n_features_in_`` set, ``feature_names_in_`` removed), for
    the common input it accepts unchanged: numpy arrays, X 2-D float64/float32 with at least
    one row and one column and no infinity, y 1-D of as many rows, of booleans, integers,
    text (not with ``y_numeric``) or finite floats. None for anything else: the caller runs
    scikit-learn's validation, with its conversions and messages.

    Why: ``validate_data`` takes ~0.2 ms whatever the size of the input (dataframe protocol
    checks, dtype dispatch, feature-name bookkeeping), as long as growing a tree on iris."""
    if type(X) is not np.ndarray or type(y) is not np.ndarray:
        return None
    if X.ndim != 2 or y.ndim != 1 or X.dtype not in _FLOAT_X:
        return None
    n_samples, n_features = X.shape
    if n_samples < 1 or n_features < 1 or y.shape[0] != n_samples:
        return None
    kind = y.dtype.kind
    if kind == "f":
        if not np.isfinite(y).all():
            return None
    elif kind not in ("b", "i", "u") and not (kind == "U" and not y_numeric):
        return None
    # scikit-learn's check: the sum is finite, or else no element is infinite (NaN allowed)
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.isfinite(X.sum()) and np.isinf(X).any():
            return None
    estimator.n_features_in_ = n_features
    estimator.__dict__.pop("feature_names_in_", None)
    return X, y


def plain_prediction_array(estimator, X):
    """``X`` as ``validate_data(estimator, X, dtype=(float64, float32), ensure_all_finite=False,
    reset=False)`` returns it, for a 2-D float64/float32 numpy array of the fitted number of
    columns given to an estimator fitted without feature names; None for anything else (the
    caller runs scikit-learn's validation: conversions, feature-name checks and warnings,
    messages)."""
    if (type(X) is not np.ndarray or X.ndim != 2 or X.dtype not in _FLOAT_X
            or X.shape[0] < 1 or "feature_names_in_" in estimator.__dict__
            or X.shape[1] != estimator.__dict__.get("n_features_in_", -1)):
        return None
    return X


def labels_are_classes(y) -> bool:
    """Whether the numpy labels ``y`` (1-D) are certainly class labels for scikit-learn's
    ``check_classification_targets`` (booleans, integers or text: "binary" or "multiclass"),
    so that its ``type_of_target`` pass (~0.2 ms) can be skipped; False: ask it."""
    return (type(y) is np.ndarray and y.ndim == 1 and y.shape[0] > 0
            and y.dtype.kind in ("b", "i", "u", "U"))


#: estimator class -> its constructor parameter names (``constructor_parameters``).
_PARAMETER_NAMES: dict = {}


def constructor_parameters(cls) -> list:
    """scikit-learn's ``BaseEstimator._get_param_names()`` of ``cls`` (the sorted parameters
    of its ``__init__``), read from the signature once per class: ``inspect.signature`` took
    ~30 us on every ``get_params``, ``clone`` and parameter check, several per fit."""
    names = _PARAMETER_NAMES.get(cls)
    if names is None:
        from sklearn.base import BaseEstimator

        names = _PARAMETER_NAMES[cls] = BaseEstimator._get_param_names.__func__(cls)
    return list(names)


def plain_accuracy(y, predicted, sample_weight=None):
    """``sklearn.metrics.accuracy_score(y, predicted)`` for unweighted plain class labels
    (``labels_are_classes``: numpy booleans, integers or text, and predictions of the same
    kind, numbers or text, and shape), without its target-type analysis (~0.4 ms per call:
    as long as a fit on iris, once per candidate and fold of a grid search); None for
    anything else (the caller runs scikit-learn's, with its checks and messages)."""
    if (sample_weight is not None or not labels_are_classes(y)
            or type(predicted) is not np.ndarray or predicted.shape != y.shape
            or (y.dtype.kind == "U") != (predicted.dtype.kind == "U")
            or predicted.dtype.kind not in ("b", "i", "u", "U")):
        return None
    return float(np.average(y == predicted))


def accuracy(y, predicted, sample_weight=None) -> float:
    """``sklearn.metrics.accuracy_score(y, predicted, sample_weight=sample_weight)``, the
    score of the classifiers: ``plain_accuracy`` when it applies, else scikit-learn's.
    Weights are checked as fit checks them (scikit-learn averages with negative weights)."""
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, _n_rows(predicted))
    fast = plain_accuracy(y, predicted, sample_weight)
    if fast is not None:
        return fast
    from sklearn.metrics import accuracy_score

    return accuracy_score(y, predicted, sample_weight=sample_weight)
