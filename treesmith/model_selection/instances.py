"""Problem instances: the repeated problems parameters are learned from.

An instance is a training set and a test set, ``(X_train, y_train, X_test, y_test)``: one of
several related datasets split in two, or one fold of a cross-validation. A dataset with a
cross-validation splitter, ``(X, y, cv)``, stands for one instance per fold.
"""

from __future__ import annotations

import numbers
from numbers import Integral
from typing import NamedTuple

import numpy as np
from sklearn.base import is_classifier
from sklearn.model_selection import check_cv, train_test_split

from .._validation import Interval, check_consistent_rows, check_parameter
from ..grower import available_memory_bytes
from ..pruning._estimator import take_rows


class Instance(NamedTuple):
    """One problem: grow on ``(X_train, y_train)``, score on ``(X_test, y_test)``."""

    X_train: object
    y_train: object
    X_test: object
    y_test: object


def check_estimator_instance(estimator, owner: str) -> None:
    """A TypeError naming ``estimator`` when it is not an estimator instance (a string reached
    scikit-learn's is_classifier, a list set_params: AttributeErrors)."""
    if isinstance(estimator, type) or not (hasattr(estimator, "fit")
                                           and hasattr(estimator, "get_params")):
        raise TypeError(f"{owner}: estimator must be a scikit-learn estimator instance (with "
                        f"fit and get_params), got {estimator!r}.")


def check_labels(y, X, owner: str, x_name: str = "X", y_name: str = "y") -> np.ndarray:
    """``y`` as an array of one label per row of ``X`` (y='bogus' reached
    ``np.asarray(y).shape[0]``: an IndexError; a shorter y indexed rows it has not)."""
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.shape(X)
        except ValueError:  # ragged rows: the estimator's fit names them
            shape = None
    if shape is not None and len(shape) != 2:
        raise ValueError(f"{owner}: {x_name} must be 2-D (samples x features), got shape "
                         f"{tuple(shape)}.")
    y_array = np.asarray(y)
    if y_array.ndim == 0:
        raise ValueError(f"{owner}: {y_name} must be 1-D, one label per row of {x_name}, got "
                         f"{y!r}.")
    if shape is not None:
        check_consistent_rows(**{x_name: X, y_name: y_array})
    return y_array


def cv_folds(cv, y_array, classifier: bool, owner: str) -> list:
    """The (train, test) index pairs of ``cv`` (``check_cv``: a stratified K-fold of the labels
    for a classifier when an int), at least one."""
    expected = (f"{owner}: cv must be an int >= 2, a cross-validation splitter or an "
                f"iterable of (train, test) index arrays, got {cv!r}")
    # True was one fold ("n_splits=1"); a 0-d array or [1] reached scikit-learn's unpacking
    if isinstance(cv, (bool, np.bool_)) or getattr(cv, "ndim", 1) == 0 or (
            isinstance(cv, numbers.Integral) and cv < 2):
        raise ValueError(expected + ".")
    splitter = check_cv(cv, y_array, classifier=classifier)
    try:
        folds = list(splitter.split(np.zeros((y_array.shape[0], 1)), y_array))
    except (TypeError, ValueError) as error:
        raise ValueError(f"{expected}: {error}") from None
    if not folds:  # an empty iterable divided by zero folds later
        raise ValueError(f"{owner}: cv gives no (train, test) split, got {cv!r}.")
    return folds


def cv_instances(X, y, cv=5, *, classifier: bool = True) -> list[Instance]:
    """One instance per fold of ``cv`` (anything ``sklearn.model_selection.check_cv`` takes;
    an int is a stratified K-fold for classifiers)."""
    check_parameter("classifier", classifier, ["boolean"], "cv_instances")
    y_array = check_labels(y, X, "cv_instances")
    return [Instance(take_rows(X, train), take_rows(y, train), take_rows(X, test),
                     take_rows(y, test))
            for train, test in cv_folds(cv, y_array, bool(classifier), "cv_instances")]


def split_instances(X, y, n_splits: int = 10, test_size: float = 0.2, random_state=0,
                    stratify: bool = True) -> list[Instance]:
    """``n_splits`` random train/test splits of one dataset (split k uses seed
    ``random_state + k``), stratified by ``y`` when ``stratify``. Each split is a copy of the
    data: a number of splits whose copies cannot fit in the available memory is refused."""
    owner = "split_instances"
    check_parameter("n_splits", n_splits, [Interval(Integral, 1, None)], owner)
    check_parameter("stratify", stratify, ["boolean"], owner)
    # seeds random_state .. random_state + n_splits - 1, each a numpy seed (< 2**32)
    check_parameter("random_state", random_state, [Interval(Integral, 0, 2**32 - 1, "both")],
                    owner)
    n_splits, random_state = int(n_splits), int(random_state)  # numpy ints wrap around
    y_array = check_labels(y, X, owner)
    copy_bytes = _nbytes(X) + y_array.nbytes
    available = available_memory_bytes()
    if available is not None and n_splits * copy_bytes > available:
        raise ValueError(f"{owner}: n_splits={n_splits} copies of the data ({copy_bytes} bytes "
                         f"each) need more than the {available} bytes of memory available; "
                         "lower n_splits.")
    if random_state + n_splits - 1 > 2**32 - 1:
        raise ValueError(f"{owner}: random_state + n_splits - 1 = {random_state + n_splits - 1} "
                         "is not a seed (split k uses random_state + k, at most 2**32 - 1).")
    instances = []
    for k in range(n_splits):
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=test_size, random_state=random_state + k,
            stratify=y if stratify else None)
        instances.append(Instance(X_train, y_train, X_test, y_test))
    return instances


def _nbytes(X) -> int:
    """Bytes of the values of ``X`` (an array, a DataFrame, a list: 8 per cell)."""
    nbytes = getattr(X, "nbytes", None)
    if isinstance(nbytes, (int, np.integer)):
        return int(nbytes)
    memory = getattr(X, "memory_usage", None)
    if callable(memory):
        return int(memory(index=False).sum())
    return 8 * int(np.prod(np.shape(X)))


def _n_features(X, where: str) -> int:
    shape = np.shape(X)
    if len(shape) != 2:
        raise ValueError(f"{where} must be 2-D (samples x features), got shape {shape}.")
    return int(shape[1])


def _n_rows(y, where: str) -> int:
    shape = np.shape(y)
    if len(shape) != 1:
        raise ValueError(f"{where} must be 1-D, got shape {shape}.")
    return int(shape[0])


def check_instances(instances, estimator, *, what: str = "instances",
                    equal_features: bool = False, equal_labels: bool = False,
                    test_needs_two_classes: bool = False) -> list[Instance]:
    """Expand ``(X, y, cv)`` items into folds and check every instance's shapes.

    ``equal_features`` / ``equal_labels``: all instances must have the same number of features
    (e.g. the estimator has per-feature costs) / the same training label set (e.g. a loss
    matrix over the classes). ``test_needs_two_classes`` (ROC AUC): each test set holds at
    least two classes, all seen in training. ``ValueError`` naming the instance otherwise.
    """
    if isinstance(instances, (str, bytes)) or not hasattr(instances, "__iter__") or getattr(
            instances, "ndim", 1) == 0:
        raise TypeError(f"{what} must be a list of (X_train, y_train, X_test, y_test) or "
                        f"(X, y, cv), got {type(instances).__name__}.")
    expanded: list[Instance] = []
    for position, item in enumerate(instances):
        if isinstance(item, (tuple, list)) and item and hasattr(item[0], "fit"):
            raise ValueError(f"{what}[{position}] starts with an estimator: an instance is "
                             f"(X_train, y_train, X_test, y_test) or (X, y, cv) "
                             f"((fitted_estimator, X, y) is tune_ccp_alpha's form).")
        if isinstance(item, tuple) and len(item) == 3:
            if isinstance(item[2], np.ndarray) or isinstance(item[2], (bool, np.bool_)):
                # an array of labels was iterated as (train, test) pairs
                raise ValueError(f"{what}[{position}] = (X, y, cv): cv must be an int >= 2 or "
                                 f"a cross-validation splitter, got a "
                                 f"{type(item[2]).__name__}.")
            X, y, cv = item
            expanded.extend(cv_instances(X, y, cv, classifier=is_classifier(estimator)))
        elif isinstance(item, (tuple, list)) and len(item) == 4:
            expanded.append(Instance(*item))
        else:
            raise ValueError(f"{what}[{position}] must be (X_train, y_train, X_test, y_test) or "
                             f"(X, y, cv), got a {type(item).__name__} of length "
                             f"{len(item) if hasattr(item, '__len__') else '?'}.")
    if not expanded:
        raise ValueError(f"{what} is empty: give at least one problem instance.")
    first_features, first_labels = None, None
    for position, instance in enumerate(expanded):
        where = f"{what}[{position}]"
        n_train = _n_features(instance.X_train, f"{where} X_train")
        n_test = _n_features(instance.X_test, f"{where} X_test")
        if n_train != n_test:
            raise ValueError(f"{where}: X_train has {n_train} features, X_test {n_test}.")
        for X, y, part in ((instance.X_train, instance.y_train, "train"),
                           (instance.X_test, instance.y_test, "test")):
            if _n_rows(y, f"{where} y_{part}") != np.shape(X)[0]:
                raise ValueError(f"{where}: y_{part} has {np.shape(y)[0]} labels for "
                                 f"{np.shape(X)[0]} rows of X_{part}.")
            if np.shape(X)[0] == 0:
                raise ValueError(f"{where}: X_{part} has no rows.")
        if first_features is None:
            first_features = n_train
        elif equal_features and n_train != first_features:
            raise ValueError(f"{where} has {n_train} features but {what}[0] has "
                             f"{first_features}; this estimator needs the same features in "
                             f"every instance.")
        if is_classifier(estimator):
            labels = np.unique(np.asarray(instance.y_train))
            if first_labels is None:
                first_labels = labels
            elif equal_labels and not np.array_equal(labels, first_labels):
                raise ValueError(f"{where} has training labels {labels.tolist()} but "
                                 f"{what}[0] has {first_labels.tolist()}; this estimator needs "
                                 f"the same label set in every instance.")
            if test_needs_two_classes:
                test_labels = np.unique(np.asarray(instance.y_test))
                if test_labels.size < 2:
                    raise ValueError(f"{where}: the test set holds one class only; ROC AUC "
                                     f"needs two.")
                unseen = np.setdiff1d(test_labels, labels)
                if unseen.size:
                    raise ValueError(f"{where}: test labels {unseen.tolist()} never occur in "
                                     f"training; ROC AUC cannot score them.")
    return expanded
