"""Cross-validated choice of a pruning method's parameters (docs/methods.md §8).

Balcan & Sharma ("Learning accurate and interpretable decision trees", 2024, §4) tune the
confidence parameters (c1, c2) of pessimistic pruning from data; the same K-fold search serves
TDP's number of standard errors and C4.5's confidence factor. Each fold grows one unpruned tree
and prunes it with every parameter combination of the grid; the combination with the smallest
mean held-out error wins (ties: fewer leaves on average, then the earlier combination), and the
tree grown on all the data is pruned with it.
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import is_classifier
from sklearn.model_selection import ParameterGrid
from sklearn.utils import Bunch

from ..pruning._estimator import take_rows, unpruned_clone
from ..pruning._prune import prune
from .execution import joblib_workers
from .instances import check_estimator_instance, check_labels, cv_folds

#: Methods whose parameters can be searched this way (REP needs its own pruning set).
SEARCHABLE = ("ccp", "tdp", "c45", "bup")


def _score_fold(estimator, X, y, train, test, method, candidates):
    model = unpruned_clone(estimator).fit(take_rows(X, train), take_rows(y, train))
    X_test, y_test = take_rows(X, test), np.asarray(take_rows(y, test))
    errors, leaves = [], []
    for params in candidates:
        pruned = prune(model, method, **params)
        prediction = pruned.predict(X_test)
        if is_classifier(estimator):
            errors.append(np.sum(prediction != y_test))
        else:
            errors.append(np.sum((prediction - y_test) ** 2))
        leaves.append(pruned.tree_.n_leaves)
    return np.asarray(errors, dtype=np.float64), np.asarray(leaves, dtype=np.float64)


def select_pruning_parameters(estimator, X, y, method: str, param_grid: dict, cv=5,
                              n_jobs=None) -> Bunch:
    """K-fold search of ``param_grid`` (``{name: [values]}``) for ``prune(., method, ...)``.

    Returns a Bunch with ``params`` (the best combination), ``estimator`` (the tree grown on all
    of ``(X, y)`` and pruned with it), ``candidates``, ``cv_error`` (error rate, or mean squared
    error for regressors) and ``cv_n_leaves`` per candidate.
    """
    check_estimator_instance(estimator, "select_pruning_parameters")
    if not isinstance(method, str) or method not in SEARCHABLE:
        raise ValueError(f"method must be one of {SEARCHABLE}, got {method!r}.")
    if not isinstance(param_grid, dict) or not param_grid:
        raise ValueError("param_grid must be a non-empty dict {parameter: [values]}.")
    joblib_workers(n_jobs, 1, "select_pruning_parameters")
    candidates = list(ParameterGrid(param_grid))
    y_array = check_labels(y, X, "select_pruning_parameters")
    folds = cv_folds(cv, y_array, is_classifier(estimator), "select_pruning_parameters")
    workers = joblib_workers(n_jobs, len(folds), "select_pruning_parameters")
    scores = Parallel(n_jobs=workers, prefer="threads")(
        delayed(_score_fold)(estimator, X, y, train, test, method, candidates)
        for train, test in folds)
    cv_error = sum(errors for errors, _ in scores) / y_array.shape[0]
    cv_n_leaves = sum(leaves for _, leaves in scores) / len(folds)
    best = min(range(len(candidates)), key=lambda i: (cv_error[i], cv_n_leaves[i], i))

    full = unpruned_clone(estimator).fit(X, y)
    return Bunch(params=candidates[best], estimator=prune(full, method, **candidates[best]),
                 candidates=candidates, cv_error=cv_error, cv_n_leaves=cv_n_leaves)
