"""Model files: fitted estimators as plain, versioned JSON that never executes code.

A model file is one JSON object::

    {"format": "treesmith-model", "schema_version": 1, "treesmith_version": "0.1.0",
     "estimator": "DecisionTreeClassifier",
     "params": {...},        # get_params(), encoded as below
     "attributes": {...},    # fitted attributes (names ending in "_"), tree_ included
     "metadata": {...}}      # free JSON the caller attached (dataset, target column, ...)

Values that JSON cannot hold are tagged objects ``{"__type__": <tag>, ...}``: ``ndarray``
(dtype string, shape, flat data; NaN as null, infinities as "inf"/"-inf"), ``float``
(non-finite scalars), ``tuple``, ``dict`` (key/value pairs, so keys need not be strings),
``random_state`` (a numpy ``RandomState``'s Mersenne-Twister state),
``tree`` (the :class:`treesmith.tree.Tree` arrays), ``criterion`` and ``rule`` (a registered
name and its parameters, e.g. ``{"__type__": "criterion", "name": "tsallis", "params":
{"alpha": 2.5, "beta": 2}}``) and ``object`` (the fitted binner: class name, parameters and
state). Loading only instantiates registered criteria and rules and the binner, through their
constructors; nothing is unpickled, imported by name from the file, or evaluated. Every file is checked
against the schema and the tree invariants (:meth:`Tree.validate` plus the checks below), and
anything wrong raises :class:`ModelFileError` (a ``ValueError``) with one clear sentence.

Decoding is bounded by the file: every array's dtype is on a whitelist, every dimension and
all decoded arrays together are limited by what the file's size can justify
(``DECODE_BASE_BYTES + DECODE_BYTES_PER_FILE_BYTE`` x its size), so a small file cannot make
the loader allocate gigabytes (a ``<U999999`` dtype over empty strings, a shape of 2**62).

Floats are written with Python's shortest round-trip representation, so a loaded model gives
bit-identical predictions. Pickle and joblib keep working on the estimators themselves.
"""

from __future__ import annotations

import contextvars
import json
import math
import os
import re
import warnings
from importlib import import_module

import numpy as np

from ._validation import check_parameter

FORMAT_NAME = "treesmith-model"
#: 2: trees have ``left_categories`` (splits by sets of categories) and the tree estimators
#: ``categorical_features``; a version-1 file is read as a tree without categorical splits,
#: fitted with ``categorical_features=None``. 3: the Bayesian trees, GreedyTreeClassifier and
#: BudgetForestClassifier take ``categorical_features``; an older file of theirs is read with it
#: None. 4: the estimators with ``categories_`` store ``category_precision_`` (the float
#: precision of each column of float categories); an older file lacks it, and its categories
#: are matched as that version matched them (exactly, or in a narrower float column's
#: precision). An older treesmith refuses a version-4 file rather than read the float64 0.1
#: of a column fitted as float32 as an unseen category. 5: fitted estimators store
#: ``numeric_precision_`` (the float precision of their numeric columns, to which prediction
#: rounds X; docs/methods.md §2); an older file is read as "float64", what its predictions did.
SCHEMA_VERSION = 5
#: Files larger than this are refused before parsing (a guard against memory exhaustion).
MAX_FILE_BYTES = 1 << 30

#: The decoded arrays of one file may take this many bytes plus
#: ``DECODE_BYTES_PER_FILE_BYTE`` per byte of the file (for :func:`from_dict`, of its JSON
#: text). A float written as JSON takes at least 2 bytes and decodes to 8; a string array takes
#: 4 bytes per character of its widest string for every entry.
DECODE_BASE_BYTES = 64 << 20
DECODE_BYTES_PER_FILE_BYTE = 16

#: Estimator classes a model file may name: name -> module that defines it.
_ESTIMATOR_MODULES = {
    "DecisionTreeClassifier": "treesmith.estimators",
    "DecisionTreeRegressor": "treesmith.estimators",
    "ExtraTreeClassifier": "treesmith.estimators",
    "ExtraTreeRegressor": "treesmith.estimators",
    "BayesianTreeClassifier": "treesmith.bayes",
    "BayesianTreeRegressor": "treesmith.bayes",
    "C45Classifier": "treesmith.c45",
    "GreedyTreeClassifier": "treesmith.ensemble.greedy_tree",
    "RandomForestClassifier": "treesmith.ensemble.forest",
    "RandomForestRegressor": "treesmith.ensemble.forest",
    "ExtraTreesClassifier": "treesmith.ensemble.forest",
    "ExtraTreesRegressor": "treesmith.ensemble.forest",
    "BudgetForestClassifier": "treesmith.ensemble.budget",
}
#: Ensembles: their fitted members (``estimators_``) are stored as tagged ``estimator`` values,
#: without the attributes they share with the ensemble (``_MEMBER_SHARED_ATTRIBUTES``, written
#: once at the ensemble's level and given back to every member on loading).
_ENSEMBLES = ("RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
              "ExtraTreesRegressor", "BudgetForestClassifier")
_MEMBER_SHARED_ATTRIBUTES = ("bin_mapper_",)
#: Members an ensemble may hold: ensemble name -> member class names.
_MEMBER_CLASSES = {
    "RandomForestClassifier": ("DecisionTreeClassifier",),
    "RandomForestRegressor": ("DecisionTreeRegressor",),
    "ExtraTreesClassifier": ("DecisionTreeClassifier",),
    "ExtraTreesRegressor": ("DecisionTreeRegressor",),
    "BudgetForestClassifier": ("GreedyTreeClassifier",),
}
#: Fitted attributes every model needs; the other public fitted attributes are kept when
#: they can be encoded and dropped with a warning otherwise.
_REQUIRED_ATTRIBUTES = ("tree_", "n_features_in_")
_REQUIRED_CLASSIFIER_ATTRIBUTES = ("classes_", "n_classes_")
_CATEGORICAL_ATTRIBUTES = ("categories_", "is_categorical_")
#: Fitted attributes added in a schema version: a file of an older version may lack them (the
#: estimator then behaves as that version did) and may not hold them.
_ATTRIBUTES_SINCE = {"category_precision_": 4, "numeric_precision_": 5}
_DTYPE_PATTERN = re.compile(r"^[<>|=]?(b1|[iu][1248]|f[48]|U\d{1,6}|O)$")
_TREE_ARRAY_KINDS = {
    "children_left": "i", "children_right": "i", "feature": "i", "bin_threshold": "i",
    "n_node_samples": "i", "depth": "i", "missing_go_left": "b", "threshold": "f",
    "impurity": "f", "weighted_n_node_samples": "f", "value": "f", "class_counts": "f",
    "left_categories": "u",
}
#: Tree arrays a file of an older schema version may lack (the tree fills in their default).
_TREE_ARRAYS_SINCE = {"left_categories": 2}
#: Estimator parameters added in a schema version, with the value that keeps an older file's
#: meaning.
_PARAMETERS_SINCE = {"categorical_features": (2, None)}
#: The same, for parameters an estimator class took later than the others.
_CLASS_PARAMETERS_SINCE = {
    name: {"categorical_features": (3, None)}
    for name in ("BayesianTreeClassifier", "BayesianTreeRegressor", "GreedyTreeClassifier",
                 "BudgetForestClassifier")
}
_SCHEMA = contextvars.ContextVar("treesmith_model_schema", default=SCHEMA_VERSION)


class ModelFileError(ValueError):
    """A model file (or dict) is truncated, corrupted, of an unknown version, or hostile."""


class _Unencodable(TypeError):
    """A value that has no JSON form in this schema."""


class _DecodeBudget:
    """Bytes the arrays still to be decoded may take (see ``DECODE_BASE_BYTES``)."""

    def __init__(self, source_bytes: int):
        self.source_bytes = int(source_bytes)
        self.remaining = DECODE_BASE_BYTES + DECODE_BYTES_PER_FILE_BYTE * self.source_bytes

    def spend(self, n_bytes: int, where: str) -> None:
        if n_bytes > self.remaining:
            _fail(where, f"the array would take {n_bytes} bytes, more than a model file of "
                         f"{self.source_bytes} bytes can justify")
        self.remaining -= n_bytes


_BUDGET: contextvars.ContextVar = contextvars.ContextVar("treesmith_model_decode_budget")


# -- the classes a file may instantiate -----------------------------------------------------
def _registries() -> dict[str, dict[str, type]]:
    """Named parameter objects a file may hold: tag -> {registered name -> class}.

    Criteria come from the criterion registry and selection rules from the rules registry
    (when that module provides one); a file names them, never a module or class path.
    """
    from .criteria import registered

    from .rules.set_functions import Powers, ThresholdPairs

    registries = {"criterion": registered(),
                  "set_function": {cls.name: cls for cls in (ThresholdPairs, Powers)}}
    try:
        rules_registry = getattr(import_module("treesmith.rules"), "registered", None)
    except ImportError:  # pragma: no cover - the rules package always ships
        rules_registry = None
    if callable(rules_registry):
        registries["rule"] = dict(rules_registry())
    return registries


def _stateful_classes() -> dict[str, type]:
    """Fitted helper objects stored with their state: class name -> class."""
    from .binning import BinMapper

    return {"BinMapper": BinMapper}


def _estimator_class(name):
    if not isinstance(name, str) or name not in _ESTIMATOR_MODULES:
        raise ModelFileError(f"unknown estimator {name!r}; a model file may name one of "
                             f"{sorted(_ESTIMATOR_MODULES)}")
    return getattr(import_module(_ESTIMATOR_MODULES[name]), name)


# -- encoding ---------------------------------------------------------------------------------
def _encode_float(value: float):
    if math.isfinite(value):
        return value
    return {"__type__": "float", "value": "nan" if math.isnan(value) else
            ("inf" if value > 0 else "-inf")}


def _encode_array(array: np.ndarray) -> dict:
    kind = array.dtype.kind
    if kind == "f":
        flat = array.astype(np.float64).ravel().tolist()
        data = [v if math.isfinite(v) else (None if math.isnan(v) else ("inf" if v > 0 else
                                                                           "-inf"))
                for v in flat]
        dtype = array.dtype.str
    elif kind in "biuU":
        data, dtype = array.ravel().tolist(), array.dtype.str
    elif kind == "O":
        data = []
        for item in array.ravel():
            if isinstance(item, (bool, np.bool_)):
                data.append(bool(item))
            elif isinstance(item, (int, np.integer)):
                data.append(int(item))
            elif isinstance(item, (float, np.floating)) and math.isfinite(item):
                data.append(float(item))
            elif isinstance(item, str):
                data.append(item)
            else:
                raise _Unencodable(f"an object array holds a {type(item).__name__}")
        dtype = "|O"
    else:
        raise _Unencodable(f"arrays of dtype {array.dtype} are not supported")
    if not _DTYPE_PATTERN.match(dtype):
        raise _Unencodable(f"arrays of dtype {array.dtype} are not supported")
    return {"__type__": "ndarray", "dtype": dtype, "shape": list(array.shape), "data": data}


def _encode(value):
    """JSON form of ``value`` (see the module docstring); raises ``_Unencodable``."""
    from .tree import NODE_ARRAYS, Tree

    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _encode_float(float(value))
    if isinstance(value, np.ndarray):
        return _encode_array(value)
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if isinstance(value, tuple):
        return {"__type__": "tuple", "items": [_encode(item) for item in value]}
    if isinstance(value, dict):
        return {"__type__": "dict", "items": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, np.random.RandomState):
        name, keys, position, has_gauss, cached_gaussian = value.get_state()
        return {"__type__": "random_state", "keys": _encode_array(keys), "pos": int(position),
                "has_gauss": int(has_gauss), "cached_gaussian": float(cached_gaussian)}
    if isinstance(value, Tree):
        return {"__type__": "tree", "n_features": value.n_features, "n_classes": value.n_classes,
                "arrays": {name: _encode_array(getattr(value, name)) for name in NODE_ARRAYS}}
    from .c45 import C45Tree

    if isinstance(value, C45Tree):
        return {"__type__": "c45_tree", "n_features": value.n_features,
                "n_classes": value.n_classes,
                "arrays": {name: _encode_array(getattr(value, name)) for name in C45Tree.ARRAYS}}
    if isinstance(value, range):  # parameters given as other array-likes keep their values
        return [int(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return [_encode(item) for item in sorted(value, key=str)]
    if type(value).__module__.split(".")[0] == "pandas" and type(value).__name__ in (
            "Index", "Series"):
        return _encode_array(np.asarray(value.to_numpy()))
    cls = type(value)
    for tag, registry in _registries().items():
        name = getattr(value, "name", None)
        if isinstance(name, str) and registry.get(name) is cls:
            return {"__type__": tag, "name": name, "params": _encode_params(value.get_params())}
    if _stateful_classes().get(cls.__name__) is cls:
        params = value.get_params(deep=False)
        state = {name: _encode(attr) for name, attr in vars(value).items()
                 if name.endswith("_") and not name.startswith("_") and name not in params}
        return {"__type__": "object", "class": cls.__name__, "params": _encode_params(params),
                "state": state}
    raise _Unencodable(f"a {cls.__module__}.{cls.__qualname__} has no JSON form")


def _encode_params(params: dict) -> dict:
    return {str(name): _encode(value) for name, value in params.items()}


def _fitted_attributes(estimator, name: str, skip=()) -> dict:
    """Encoded public fitted attributes of ``estimator`` (names ending in "_", not in
    ``skip``); raises ValueError for a required one with no JSON form and warns about the
    others left out. An ensemble's members become tagged ``estimator`` values."""
    attributes, dropped = {}, []
    required = _REQUIRED_ATTRIBUTES + (_REQUIRED_CLASSIFIER_ATTRIBUTES
                                       if hasattr(estimator, "classes_") else ())
    # the categories give the codes meaning: a model without them would predict otherwise
    required += _CATEGORICAL_ATTRIBUTES
    for attribute, value in vars(estimator).items():
        if not attribute.endswith("_") or attribute.startswith("_") or attribute in skip:
            continue
        try:
            if name in _ENSEMBLES and attribute == "estimators_":
                attributes[attribute] = [_encode_member(member) for member in value]
            elif name in _ENSEMBLES and attribute == "estimator_":  # the unfitted template
                attributes[attribute] = _encode_member(value, fitted=False)
            else:
                attributes[attribute] = _encode(value)
        except _Unencodable as error:
            if attribute in required or attribute == "estimators_":
                raise ValueError(f"cannot save fitted attribute {attribute!r} as JSON "
                                 f"({error})") from None
            dropped.append(attribute)
    if dropped:
        warnings.warn(f"model file leaves out fitted attribute(s) with no JSON form: "
                      f"{', '.join(dropped)}", UserWarning, stacklevel=3)
    return attributes


def _encode_member(member, fitted: bool = True) -> dict:
    """An ensemble's member as a tagged value: class name, parameters and the fitted
    attributes it does not share with the ensemble (none for the unfitted template)."""
    name = type(member).__name__
    if name not in _ESTIMATOR_MODULES or type(member) is not _estimator_class(name):
        raise _Unencodable(f"a member of class {name} is not one a model file may hold")
    attributes = _fitted_attributes(member, name, skip=_MEMBER_SHARED_ATTRIBUTES) \
        if fitted else {}
    return {"__type__": "estimator", "estimator": name,
            "params": _encode_params(member.get_params(deep=False)), "attributes": attributes}


def to_dict(estimator, metadata: dict | None = None) -> dict:
    """The JSON-ready model dict of a fitted treesmith estimator (see the module docstring).

    ``metadata`` is any JSON-serialisable dict stored alongside (e.g. the target column).
    Raises ``ValueError`` when the estimator is not fitted or holds something that cannot be
    written without code (such as a ``Custom`` criterion: use pickle or joblib for those).
    """
    name = type(estimator).__name__
    if name not in _ESTIMATOR_MODULES or type(estimator) is not _estimator_class(name):
        raise ValueError(f"estimator must be one of treesmith's {sorted(_ESTIMATOR_MODULES)}, "
                         f"got {type(estimator).__name__}")
    if not hasattr(estimator, "estimators_" if name in _ENSEMBLES else "n_features_in_"):
        raise ValueError(f"this {name} is not fitted yet; call fit before saving it")
    if getattr(estimator, "posterior_sample_", None) is not None:
        raise ValueError(f"model files store the MAP tree only, not the posterior sample of "
                         f"this {name} fitted with averaging='posterior'; save a copy with "
                         f"averaging='map' (copy.deepcopy, then set_params(averaging='map') and "
                         f"posterior_sample_ = None) or use pickle or joblib")
    try:
        params = _encode_params(estimator.get_params(deep=False))
    except _Unencodable as error:
        raise ValueError(f"cannot save the parameters of this {name} as JSON ({error}); "
                         f"use pickle or joblib instead") from None
    attributes = _fitted_attributes(estimator, name)
    if metadata is not None and not isinstance(metadata, dict):
        # a list or a str was written, and the file then refused by load ("metadata must be
        # an object"); False, 0 or "" were silently {}
        raise ValueError(f"metadata must be a dict or None, got {type(metadata).__name__} "
                         f"{metadata!r}"[:300])
    try:
        metadata = json.loads(json.dumps(metadata or {}, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise ValueError(f"metadata must be JSON-serialisable: {error}") from None
    from . import __version__

    return {"format": FORMAT_NAME, "schema_version": SCHEMA_VERSION,
            "treesmith_version": __version__, "estimator": name, "params": params,
            "attributes": attributes, "metadata": metadata}


def _check_path(path) -> None:
    """A file name (str, bytes or os.PathLike): ``open`` takes an int as a file descriptor
    (``save(model, True)`` wrote the model to standard output and closed it)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"path must be a file name (str or os.PathLike), got "
                        f"{type(path).__name__} {path!r}"[:300])


def save(estimator, path, metadata: dict | None = None) -> None:
    """Write ``estimator`` to ``path`` as a JSON model file (UTF-8, no NaN literals)."""
    _check_path(path)
    text = json.dumps(to_dict(estimator, metadata), allow_nan=False, separators=(",", ":"))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


# -- decoding ---------------------------------------------------------------------------------
def _fail(where: str, message: str):
    raise ModelFileError(f"invalid model file: {where}: {message}")


def _expect_keys(obj: dict, keys: set, where: str):
    if set(obj) != keys:
        _fail(where, f"expected the keys {sorted(keys)}, found {sorted(map(str, obj))}")


def _decode_float_token(token, where: str) -> float:
    if isinstance(token, bool) or not isinstance(token, (int, float, str, type(None))):
        _fail(where, f"expected a number, found {type(token).__name__}")
    if token is None:
        return math.nan
    if isinstance(token, str):
        if token not in ("nan", "inf", "-inf"):
            _fail(where, f"expected a number, found the string {token[:20]!r}")
        return float(token)
    return float(token)


def _decode_array(obj: dict, where: str) -> np.ndarray:
    _expect_keys(obj, {"__type__", "dtype", "shape", "data"}, where)
    dtype_text, shape, data = obj["dtype"], obj["shape"], obj["data"]
    if not isinstance(dtype_text, str) or not _DTYPE_PATTERN.match(dtype_text):
        _fail(where, f"unsupported array dtype {str(dtype_text)[:30]!r}")
    if (not isinstance(shape, list) or len(shape) > 8 or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)):
        _fail(where, "an array shape must be a list of at most 8 non-negative integers")
    if not isinstance(data, list):
        _fail(where, "array data must be a list")
    dtype = np.dtype(dtype_text)
    budget = _BUDGET.get(None) or _DecodeBudget(0)
    # An empty array may have any shape; bound every axis (and the product of the non-zero
    # ones) before numpy sees them, so no shape can ask for more than the file justifies.
    extent = math.prod(n for n in shape if n)
    if math.prod(shape) != len(data):
        _fail(where, f"array data must be a list of {math.prod(shape)} values")
    budget.spend(max(extent, len(data)) * max(dtype.itemsize, 1), where)
    kind = dtype.kind
    if kind == "f":
        values = [_decode_float_token(v, where) for v in data]
    elif kind == "b":
        if not all(isinstance(v, bool) for v in data):
            _fail(where, "a boolean array may hold only true/false")
        values = data
    elif kind in "iu":
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in data):
            _fail(where, "an integer array may hold only integers")
        info = np.iinfo(dtype)
        if data and (min(data) < info.min or max(data) > info.max):
            _fail(where, f"an integer is out of range for {dtype}")
        values = data
    elif kind == "U":
        if not all(isinstance(v, str) for v in data):
            _fail(where, "a string array may hold only strings")
        if data and max(len(v) for v in data) > dtype.itemsize // 4:
            _fail(where, f"a string is longer than its dtype {dtype} allows")
        values = data
    else:  # object arrays hold plain scalars only
        if not all(isinstance(v, (bool, int, float, str)) for v in data):
            _fail(where, "an object array may hold only numbers, booleans and strings")
        array = np.empty(len(data), dtype=object)
        array[:] = data
        return array.reshape(shape)
    return np.asarray(values, dtype=dtype).reshape(shape)


def _decode(value, where: str, depth: int = 0):
    from .tree import NODE_ARRAYS, Tree

    if depth > 32:
        _fail(where, "values are nested too deeply")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            _fail(where, "non-finite numbers must be tagged floats")
        return value
    if isinstance(value, list):
        return [_decode(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value)]
    if not isinstance(value, dict):
        _fail(where, f"unexpected {type(value).__name__}")
    tag = value.get("__type__")
    if not isinstance(tag, str):
        _fail(where, "an object must be a tagged value with a string '__type__'")
    if tag == "float":
        _expect_keys(value, {"__type__", "value"}, where)
        if value["value"] not in ("nan", "inf", "-inf"):
            _fail(where, "a tagged float must be 'nan', 'inf' or '-inf'")
        return float(value["value"])
    if tag == "ndarray":
        return _decode_array(value, where)
    if tag == "tuple":
        _expect_keys(value, {"__type__", "items"}, where)
        if not isinstance(value["items"], list):
            _fail(where, "tuple items must be a list")
        return tuple(_decode(item, f"{where}[{i}]", depth + 1)
                     for i, item in enumerate(value["items"]))
    if tag == "dict":
        _expect_keys(value, {"__type__", "items"}, where)
        items = value["items"]
        if not isinstance(items, list) or not all(
                isinstance(pair, list) and len(pair) == 2 for pair in items):
            _fail(where, "dict items must be a list of [key, value] pairs")
        decoded = {}
        for key, item in items:
            key = _decode(key, f"{where}.key", depth + 1)
            if not isinstance(key, (str, int, float, bool, type(None), tuple)):
                _fail(where, "a dict key must be a scalar")
            try:
                hash(key)
            except TypeError:
                _fail(where, "a dict key must be hashable (a tuple key may hold only scalars)")
            decoded[key] = _decode(item, f"{where}[{key!r}]", depth + 1)
        return decoded
    if tag == "tree":
        _expect_keys(value, {"__type__", "n_features", "n_classes", "arrays"}, where)
        n_features, n_classes, arrays = value["n_features"], value["n_classes"], value["arrays"]
        for label, number in (("n_features", n_features), ("n_classes", n_classes)):
            if not isinstance(number, int) or isinstance(number, bool) or number < 0:
                _fail(where, f"{label} must be a non-negative integer")
        if not isinstance(arrays, dict):
            _fail(where, "tree arrays must be an object")
        version = _SCHEMA.get()
        names = [name for name in NODE_ARRAYS if _TREE_ARRAYS_SINCE.get(name, 1) <= version]
        _expect_keys(arrays, set(names), f"{where}.arrays")
        decoded = {}
        for name in names:
            if not isinstance(arrays[name], dict):
                _fail(f"{where}.{name}", "must be a tagged array")
            array = _decode_array(arrays[name], f"{where}.{name}")
            if array.dtype.kind != _TREE_ARRAY_KINDS[name]:
                _fail(f"{where}.{name}", f"expected dtype kind {_TREE_ARRAY_KINDS[name]!r}, "
                                         f"found {array.dtype}")
            decoded[name] = array
        return _build_tree(Tree, n_features, n_classes, decoded, where)
    if tag == "c45_tree":
        return _decode_c45_tree(value, where)
    if tag == "estimator":
        return _decode_member(value, where, depth)
    if tag == "random_state":
        _expect_keys(value, {"__type__", "keys", "pos", "has_gauss", "cached_gaussian"}, where)
        keys = _decode_array(value["keys"], where) if isinstance(value["keys"], dict) else None
        position, has_gauss = value["pos"], value["has_gauss"]
        gaussian = value["cached_gaussian"]
        if keys is None or keys.dtype != np.uint32 or keys.shape != (624,):
            _fail(where, "a random state needs 624 uint32 keys")
        if not (isinstance(position, int) and 0 <= position <= 624 and has_gauss in (0, 1)
                and isinstance(gaussian, (int, float)) and not isinstance(gaussian, bool)):
            _fail(where, "invalid random state position or gaussian cache")
        state = np.random.RandomState()
        state.set_state(("MT19937", keys, position, has_gauss, float(gaussian)))
        return state
    registries = _registries()
    if tag in registries:
        _expect_keys(value, {"__type__", "name", "params"}, where)
        name = value["name"]
        if not isinstance(name, str) or name not in registries[tag]:
            _fail(where, f"unknown {tag} {str(name)[:40]!r}")
        return _instantiate(registries[tag][name], value["params"], where, depth)
    if tag == "object":
        _expect_keys(value, {"__type__", "class", "params", "state"}, where)
        classes = _stateful_classes()
        if not isinstance(value["class"], str) or value["class"] not in classes:
            _fail(where, f"class {str(value['class'])[:40]!r} is not one a model file may use")
        instance = _instantiate(classes[value["class"]], value["params"], where, depth)
        state = value["state"]
        if not isinstance(state, dict) or not all(
                k.endswith("_") and not k.startswith("_") for k in state):
            _fail(where, "object state must map public fitted attribute names to values")
        for name, item in state.items():
            setattr(instance, name, _decode(item, f"{where}.{name}", depth + 1))
        return instance
    _fail(where, f"unknown value tag {str(tag)[:40]!r}")


def _decode_c45_tree(value, where: str):
    from .c45 import C45Tree

    _expect_keys(value, {"__type__", "n_features", "n_classes", "arrays"}, where)
    n_features, n_classes, arrays = value["n_features"], value["n_classes"], value["arrays"]
    for label, number in (("n_features", n_features), ("n_classes", n_classes)):
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            _fail(where, f"{label} must be a positive integer")
    if not isinstance(arrays, dict):
        _fail(where, "C4.5 tree arrays must be an object")
    _expect_keys(arrays, set(C45Tree.ARRAYS), f"{where}.arrays")
    decoded = {}
    for name in C45Tree.ARRAYS:
        if not isinstance(arrays[name], dict):
            _fail(f"{where}.{name}", "must be a tagged array")
        array = _decode_array(arrays[name], f"{where}.{name}")
        kind = {"threshold": "f", "class_weight": "f", "branch_weight": "f",
                "is_empty": "b"}.get(name, "i")
        if array.dtype.kind != kind:
            _fail(f"{where}.{name}", f"expected dtype kind {kind!r}, found {array.dtype}")
        decoded[name] = array.astype({"f": np.float64, "b": bool, "i": np.int64}[kind])
    tree = C45Tree(n_features, n_classes, **decoded)
    try:
        tree.validate()
    except ValueError as error:
        _fail(where, str(error))
    return tree


def _decode_member(value, where: str, depth: int):
    """A member of an ensemble (``_encode_member``); ``_check_ensemble`` checks the fitted
    members and gives them the attributes they share with the ensemble."""
    _expect_keys(value, {"__type__", "estimator", "params", "attributes"}, where)
    cls = _estimator_class(value["estimator"])
    member = _instantiate(cls, value["params"], where, depth)
    attributes = value["attributes"]
    if not isinstance(attributes, dict):
        _fail(where, "member attributes must be an object")
    for name, item in attributes.items():
        if not isinstance(name, str) or not name.endswith("_") or name.startswith("_") or \
                name in _MEMBER_SHARED_ATTRIBUTES:
            _fail(where, f"{str(name)[:40]!r} is not a member's fitted attribute name")
        try:
            setattr(member, name, _decode(item, f"{where}.{name}", depth + 1))
        except AttributeError:
            _fail(where, f"{name!r} cannot be set")
    return member


def _check_ensemble(estimator, name: str, where: str = "attributes") -> None:
    """An ensemble's members: a non-empty list of fitted estimators of the allowed classes that
    agree with the ensemble on features and classes; the shared attributes given back."""
    from sklearn.base import is_classifier

    members = getattr(estimator, "estimators_", None)
    if not isinstance(members, list) or not members:
        _fail(where, "estimators_ must be a non-empty list of fitted estimators")
    n_features = getattr(estimator, "n_features_in_", None)
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        _fail(where, "n_features_in_ must be a positive integer")
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None and (not isinstance(names, np.ndarray) or names.shape != (n_features,)
                              or not all(isinstance(n, str) for n in names)):
        _fail(where, f"feature_names_in_ must hold {n_features} strings")
    _check_cost_attributes(estimator, n_features, where)
    _check_numeric_precision(estimator, where)
    for i, member in enumerate(members):
        if type(member).__name__ not in _MEMBER_CLASSES[name]:
            _fail(f"{where}.estimators_[{i}]", f"must be a fitted "
                                               f"{' or '.join(_MEMBER_CLASSES[name])}")
        _check_estimator(member, f"{where}.estimators_[{i}]")
        if member.n_features_in_ != n_features:
            _fail(f"{where}.estimators_[{i}]", "has another number of features")
        for attribute in ("feature_names_in_", "is_categorical_",  # one copy each: agree
                          "category_precision_", "numeric_precision_"):
            ours, theirs = getattr(estimator, attribute, None), getattr(member, attribute, None)
            if theirs is not None and (ours is None or not np.array_equal(
                    np.asarray(ours), np.asarray(theirs))):
                _fail(f"{where}.estimators_[{i}]", f"{attribute} differs from the ensemble's")
        if not _same_categories(getattr(estimator, "categories_", None),
                                getattr(member, "categories_", None)):
            _fail(f"{where}.estimators_[{i}]", "categories_ differ from the ensemble's (the "
                                               "ensemble encodes X with its copy, the member's "
                                               "splits read those codes)")
        if is_classifier(estimator):
            classes = getattr(estimator, "classes_", None)
            if not isinstance(classes, np.ndarray) or not np.array_equal(
                    np.asarray(member.classes_), classes) or \
                    getattr(estimator, "n_classes_", None) != classes.size:
                _fail(f"{where}.estimators_[{i}]", "classes_ differ from the ensemble's")
    for attribute in _MEMBER_SHARED_ATTRIBUTES:
        if hasattr(estimator, attribute):
            for member in members:
                setattr(member, attribute, getattr(estimator, attribute))
    if isinstance(getattr(estimator, "budget_curve_", None), dict):
        from .ensemble.budget import BudgetCurve

        estimator.budget_curve_ = BudgetCurve(estimator.budget_curve_)


def _same_categories(ours, theirs) -> bool:
    """Whether an ensemble's ``categories_`` and a member's are the same lists of categories
    (``==`` element by element, as the encoding's lookup matches them), or both absent."""
    if ours is None or theirs is None:
        return ours is None and theirs is None
    if not (isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs)):
        return False
    for a, b in zip(ours, theirs):
        if (a is None) != (b is None):
            return False
        if a is not None and (not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray)
                              or a.tolist() != b.tolist()):
            return False
    return True


def _decode_params(params, where: str, depth: int = 0) -> dict:
    if not isinstance(params, dict):
        _fail(where, "parameters must be an object")
    return {name: _decode(value, f"{where}.{name}", depth + 1) for name, value in params.items()}


def _with_old_parameters(cls, params: dict) -> dict:
    """``params`` of a file of an older schema version with the parameters added since set to
    the values that keep its meaning (``_PARAMETERS_SINCE``, ``_CLASS_PARAMETERS_SINCE``), for
    a model and its members."""
    version = _SCHEMA.get()
    accepted = cls().get_params(deep=False)
    added = {**_PARAMETERS_SINCE, **_CLASS_PARAMETERS_SINCE.get(cls.__name__, {})}
    for name, (since, old_value) in added.items():
        if version < since and name in accepted and name not in params:
            params[name] = old_value
    return params


def _instantiate(cls, params, where: str, depth: int):
    params = _with_old_parameters(cls, _decode_params(params, f"{where}.params", depth))
    try:
        return cls(**params)
    except (TypeError, ValueError) as error:
        _fail(where, f"cannot rebuild {cls.__name__}: {error}")


def _build_tree(Tree, n_features, n_classes, arrays, where):
    left, right = arrays["children_left"], arrays["children_right"]
    n_nodes = left.shape[0]
    for name, array in arrays.items():
        if array.ndim != (2 if name in ("value", "class_counts", "left_categories") else 1):
            _fail(f"{where}.{name}", "wrong number of dimensions")
    converted = {name: array.astype(np.int64) if _TREE_ARRAY_KINDS[name] == "i" else
                 array.astype(bool) if _TREE_ARRAY_KINDS[name] == "b" else
                 array.astype(np.uint64) if _TREE_ARRAY_KINDS[name] == "u" else
                 array.astype(np.float64) for name, array in arrays.items()}
    try:
        tree = Tree(n_features, n_classes, **converted)
    except (ValueError, IndexError, TypeError) as error:
        _fail(where, str(error))
    value, counts = tree.value, tree.class_counts
    if n_classes > 0 and (value.shape[1] != n_classes or counts.shape[1] != n_classes):
        _fail(where, f"value and class_counts must have {n_classes} columns")
    if n_classes == 0 and (value.shape[1] != 1 or counts.shape[1] != 0):
        _fail(where, "a regression tree has one value column and no class counts")
    for name in ("value", "impurity", "weighted_n_node_samples", "class_counts"):
        if not np.all(np.isfinite(getattr(tree, name))):
            _fail(f"{where}.{name}", "holds a non-finite number")
    if np.any(tree.n_node_samples < 0) or np.any(tree.weighted_n_node_samples < 0) or np.any(
            counts < 0):
        _fail(where, "sample counts and weights must be non-negative")
    if n_classes > 0:
        sums = value.sum(axis=1)
        if np.any(value < 0) or np.any((np.abs(sums - 1) > 1e-6) & (sums != 0)):
            _fail(f"{where}.value", "class proportions must be non-negative and sum to 1")
    internal = np.flatnonzero(~tree.is_leaf)
    expected_depth = np.zeros(n_nodes, dtype=np.int64)
    for node in internal:  # parents precede children (checked by Tree.validate)
        expected_depth[left[node]] = expected_depth[right[node]] = expected_depth[node] + 1
    if not np.array_equal(expected_depth, tree.depth):
        _fail(f"{where}.depth", "depths do not match the tree structure")
    return tree


def _check_estimator(estimator, where: str = "attributes"):
    from sklearn.base import is_classifier

    from .tree import Tree

    tree = getattr(estimator, "tree_", None)
    if not isinstance(tree, Tree):
        _fail(where, "tree_ is missing or not a tree")
    n_features = getattr(estimator, "n_features_in_", None)
    if not isinstance(n_features, int) or n_features != tree.n_features or n_features < 1:
        _fail(where, "n_features_in_ must be a positive integer equal to the tree's n_features")
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None and (not isinstance(names, np.ndarray) or names.shape != (n_features,)
                              or not all(isinstance(n, str) for n in names)):
        _fail(where, f"feature_names_in_ must hold {n_features} strings")
    if is_classifier(estimator):
        classes = getattr(estimator, "classes_", None)
        if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size < 1:
            _fail(where, "classes_ must be a non-empty 1-D array")
        values = classes.tolist()
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        if not (numbers or all(isinstance(v, str) for v in values)
                or all(isinstance(v, bool) for v in values)):
            _fail(where, "classes_ must hold labels of one kind: all numbers, all strings or "
                         "all booleans")
        if any(isinstance(v, float) and not math.isfinite(v) for v in values):
            _fail(where, "classes_ holds a non-finite number")
        if len(set(values)) != classes.size:
            _fail(where, "classes_ holds duplicates")
        if any(b <= a for a, b in zip(values, values[1:])):
            _fail(where, "classes_ must be sorted in increasing order (as fit stores them)")
        if getattr(estimator, "n_classes_", None) != classes.size or tree.n_classes != \
                classes.size:
            _fail(where, "n_classes_, classes_ and the tree disagree on the number of classes")
    elif tree.n_classes != 0:
        _fail(where, "a regressor needs a regression tree (n_classes = 0)")
    _check_cost_attributes(estimator, n_features, where)
    _check_numeric_precision(estimator, where)
    if getattr(estimator, "_categories_are_split_codes", True):
        _check_categorical_attributes(estimator, tree, n_features, where)
    _check_fitted_parameter_objects(estimator, n_features, where)
    check_own = getattr(estimator, "_check_loaded_attributes", None)
    if callable(check_own):  # the attributes only this estimator class carries
        try:
            check_own()
        except (TypeError, ValueError) as error:
            _fail(where, str(error))


def _check_cost_attributes(estimator, n_features: int, where: str) -> None:
    """feature_costs_ / cost_groups_ / cost_model_ as fit stores them (the metrics index with
    them and size arrays by the largest group id)."""
    from .costs import COST_MODELS

    costs = getattr(estimator, "feature_costs_", None)
    if costs is not None and not (isinstance(costs, np.ndarray) and costs.dtype.kind == "f"
                                  and costs.shape == (n_features,)
                                  and np.all(np.isfinite(costs)) and np.all(costs >= 0)):
        _fail(where, f"feature_costs_ must hold {n_features} finite non-negative floats")
    groups = getattr(estimator, "cost_groups_", None)
    if groups is not None and not (isinstance(groups, np.ndarray) and groups.dtype.kind in "iu"
                                   and groups.shape == (n_features,)
                                   and np.all((groups >= 0) & (groups < n_features))):
        _fail(where, f"cost_groups_ must hold {n_features} group ids in [0, {n_features})")
    model = getattr(estimator, "cost_model_", None)
    if model is not None and model not in COST_MODELS:
        _fail(where, f"cost_model_ must be one of {list(COST_MODELS)} or null")


def _check_categorical_attributes(estimator, tree, n_features: int, where: str) -> None:
    """categories_ / is_categorical_ as fit stores them, and every split by a set of
    categories on a categorical feature, within its categories (the prediction walk reads
    category codes of those features only)."""
    from .binning import MAX_CATEGORIES

    categories = getattr(estimator, "categories_", None)
    if categories is None:
        counts = np.zeros(n_features, dtype=np.int64)
        categorical = np.zeros(n_features, dtype=bool)
    elif not (isinstance(categories, list) and len(categories) == n_features and all(
            c is None or (isinstance(c, np.ndarray) and c.ndim == 1
                          and c.shape[0] <= MAX_CATEGORIES) for c in categories)):
        _fail(where, f"categories_ must be a list of {n_features} entries, each null or an "
                     f"array of at most {MAX_CATEGORIES} categories")
    else:  # a column every training cell of which was missing has no category
        counts = np.array([0 if c is None else c.shape[0] for c in categories])
        categorical = np.array([c is not None for c in categories], dtype=bool)
    mask = getattr(estimator, "is_categorical_", None)
    if mask is not None and not (isinstance(mask, np.ndarray) and mask.dtype == bool
                                 and np.array_equal(mask, categorical)):
        _fail(where, "is_categorical_ must be a boolean mask matching categories_")
    internal = np.flatnonzero(~tree.is_leaf)
    on_sets = tree.is_categorical_split[internal]
    features = tree.feature[internal]
    if np.any(on_sets != categorical[features]):
        _fail(where, "a split by a set of categories must test a categorical feature, and a "
                     "categorical feature must be split by a set of categories")
    for node in internal[on_sets]:
        if tree.categories_left(node).max() >= counts[tree.feature[node]]:
            _fail(where, f"node {node} sends left a category code the feature does not have")
    _check_category_precision(estimator, categories, n_features, where)


def _check_category_precision(estimator, categories, n_features: int, where: str) -> None:
    """category_precision_ as fit stores it: absent, or per feature null or the float
    precision of a column whose categories are real numbers, each of which that precision
    holds exactly (the prediction rounds cells to it before matching them)."""
    from .categorical import FLOAT_PRECISIONS

    precisions = getattr(estimator, "category_precision_", None)
    if precisions is None:
        return
    if not (isinstance(precisions, list) and len(precisions) == n_features
            and all(p is None or p in FLOAT_PRECISIONS for p in precisions)):
        _fail(where, f"category_precision_ must be a list of {n_features} entries, each null "
                     f"or one of {list(FLOAT_PRECISIONS)}")
    for j, precision in enumerate(precisions):
        if precision is None:
            continue
        levels = None if categories is None else categories[j]
        values = [] if levels is None else levels.tolist()
        if levels is None or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                     for v in values):
            _fail(where, f"category_precision_[{j}] is {precision!r} but feature {j} has no "
                         "numeric categories")
        with np.errstate(over="ignore"):
            exact = np.asarray(values, dtype=np.float64).astype(precision).astype(np.float64)
        if not np.array_equal(exact, np.asarray(values, dtype=np.float64)):
            _fail(where, f"categories_[{j}] holds a value that {precision} cannot represent")


def _check_fitted_parameter_objects(estimator, n_features: int, where: str) -> None:
    from .criteria import Criterion

    criterion = getattr(estimator, "criterion_", None)
    if criterion is not None and not isinstance(criterion, Criterion):
        _fail(where, "criterion_ must be a criterion")
    max_features = getattr(estimator, "max_features_", None)
    if max_features is not None and not (isinstance(max_features, int) and not isinstance(
            max_features, bool) and 1 <= max_features <= n_features):
        _fail(where, f"max_features_ must be an integer in [1, {n_features}]")
    n_outputs = getattr(estimator, "n_outputs_", None)
    if n_outputs is not None and n_outputs != 1:
        _fail(where, "n_outputs_ must be 1")


def from_dict(model: dict):
    """Rebuild a fitted estimator from :func:`to_dict`'s output, validating everything.

    Raises :class:`ModelFileError` for anything that is not a valid model of this schema.
    """
    estimator, _ = _from_dict(model, _json_size(model))
    return estimator


def _json_size(value) -> int:
    """An upper estimate of the length of ``value`` written as JSON (for the decode budget of a
    dict that did not come from a file); iterative, so deep nesting cannot overflow it."""
    size, pending = 0, [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            size += 2 + 4 * len(item)
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            size += 2 + len(item)
            pending.extend(item)
        elif isinstance(item, str):
            size += len(item) + 2
        else:
            size += 24
    return size


def _from_dict(model, source_bytes: int):
    """Decode within a budget of ``source_bytes``; anything numpy or Python raises on a
    malformed value the checks did not foresee still comes out as a ModelFileError."""
    token = _BUDGET.set(_DecodeBudget(source_bytes))
    schema_token = _SCHEMA.set(SCHEMA_VERSION)
    try:
        return _decode_model(model)
    except ModelFileError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError, MemoryError,
            RecursionError, AttributeError) as error:
        raise ModelFileError(f"invalid model file: {type(error).__name__}: "
                             f"{str(error)[:200]}") from None
    finally:
        _SCHEMA.reset(schema_token)
        _BUDGET.reset(token)


def _decode_model(model):
    if not isinstance(model, dict):
        raise ModelFileError(f"invalid model file: expected a JSON object, found "
                             f"{type(model).__name__}")
    if model.get("format") != FORMAT_NAME:
        raise ModelFileError(f"not a treesmith model file (format is "
                             f"{str(model.get('format'))[:40]!r}, expected {FORMAT_NAME!r})")
    version = model.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        _fail("schema_version", "must be a positive integer")
    if version > SCHEMA_VERSION:
        raise ModelFileError(f"model file uses schema version {version}, newer than this "
                             f"treesmith reads ({SCHEMA_VERSION}); upgrade treesmith")
    _expect_keys(model, {"format", "schema_version", "treesmith_version", "estimator", "params",
                         "attributes", "metadata"}, "top level")
    if not isinstance(model["treesmith_version"], str):
        _fail("treesmith_version", "must be a string")
    cls = _estimator_class(model["estimator"])
    _SCHEMA.set(version)
    params = _with_old_parameters(cls, _decode_params(model["params"], "params"))
    attributes = model["attributes"]
    if not isinstance(attributes, dict):
        _fail("attributes", "must be an object")
    metadata = model["metadata"]
    if not isinstance(metadata, dict):
        _fail("metadata", "must be an object")
    try:
        estimator = cls(**params)
    except (TypeError, ValueError) as error:
        _fail("params", f"cannot build {cls.__name__}: {error}")
    for name, value in attributes.items():
        if not isinstance(name, str) or not name.endswith("_") or name.startswith("_") or \
                name in params:
            _fail("attributes", f"{str(name)[:40]!r} is not a fitted attribute name")
        if _ATTRIBUTES_SINCE.get(name, 1) > version:
            _fail("attributes", f"{name!r} is not an attribute of schema version {version}")
        decoded = _decode(value, f"attributes.{name}")
        try:
            setattr(estimator, name, decoded)
        except AttributeError:  # a read-only property such as feature_importances_
            _fail("attributes", f"{name!r} cannot be set")
    if model["estimator"] in _ENSEMBLES:
        _check_ensemble(estimator, model["estimator"])
    else:
        _check_estimator(estimator)
    validate = getattr(estimator, "_validate_params", None)
    if callable(validate):
        try:
            validate()
        except AttributeError:  # the estimator declares no parameter constraints
            pass
        except (TypeError, ValueError) as error:
            _fail("params", str(error))
    if version < _ATTRIBUTES_SINCE["numeric_precision_"]:  # members checked: estimators
        _with_unrecorded_precision(estimator)
    return estimator, metadata


def _with_unrecorded_precision(estimator) -> None:
    """A model (and its members) of a file written before ``numeric_precision_`` existed:
    "float64", the precision its predictions compared X in."""
    from ._precision import UNRECORDED_PRECISION

    for model in [estimator, *(getattr(estimator, "estimators_", None) or [])]:
        if "numeric_precision_" not in model.__dict__:
            model.numeric_precision_ = UNRECORDED_PRECISION


def _check_numeric_precision(estimator, where: str) -> None:
    """``numeric_precision_`` absent (float64) or one of ``NUMERIC_PRECISIONS``."""
    from ._precision import check_numeric_precision

    if "numeric_precision_" in estimator.__dict__:
        try:
            check_numeric_precision(estimator.numeric_precision_)
        except ValueError as error:
            _fail(where, str(error))


def _reject_constant(token):
    raise ValueError(f"non-standard JSON constant {token}")


def _no_duplicate_keys(pairs):
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate keys in a JSON object")
    return dict(pairs)


def loads(text) -> tuple:
    """Parse model-file text (str or bytes); returns ``(estimator, metadata)``."""
    try:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8")
        model = json.loads(text, parse_constant=_reject_constant,
                           object_pairs_hook=_no_duplicate_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ModelFileError(f"model file is not valid JSON (truncated or corrupted?): "
                             f"{message[:200]}") from None
    return _from_dict(model, len(text))


def load(path, return_metadata: bool = False):
    """Read a JSON model file written by :func:`save`; validated, never executes code.

    Returns the fitted estimator, or ``(estimator, metadata)`` with ``return_metadata=True``.
    Raises :class:`ModelFileError` for a truncated, corrupted or hostile file and
    ``FileNotFoundError`` when ``path`` does not exist.
    """
    _check_path(path)
    check_parameter("return_metadata", return_metadata, ["boolean"], "load")
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise ModelFileError(f"model file {os.fspath(path)!r} is {size} bytes, more than the "
                             f"{MAX_FILE_BYTES} a model file may have")
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        estimator, metadata = loads(data)
    except ModelFileError as error:
        raise ModelFileError(f"{os.fspath(path)}: {error}") from None
    return (estimator, metadata) if return_metadata else estimator
