"""``prune(estimator, method, **params)``: the one entry point from a fitted estimator to every
post-pruning method; each method adapter turns the estimator (and any data) into the arguments
of a tree-level function and returns the pruned Tree, which ``prune`` puts into a copy.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_array

from .._precision import fitted_numeric_precision, rounded_to
from .._validation import _is_int, check_consistent_rows
from ._estimator import (
    check_prunable,
    check_sample_weight,
    encode_labels,
    fitted_tree,
    held_out_data,
    with_tree,
)
from ._parameters import PARAMETER_TABLES, check_pruning_parameters  # noqa: F401
from .bottom_up_pessimistic import bottom_up_pessimistic_prune_tree
from .cost_complexity import prune_tree_ccp
from .error_based import error_based_prune_tree, error_based_prune_tree_with_raising
from .reduced_error import reduced_error_prune_tree
from .top_down_pessimistic import top_down_pessimistic_prune_tree


def _ccp(estimator, ccp_alpha, risk="impurity"):
    return prune_tree_ccp(fitted_tree(estimator), ccp_alpha, risk)


def _rep(estimator, X, y, sample_weight=None):
    indicator, target, weight = held_out_data(estimator, X, y, sample_weight)
    return reduced_error_prune_tree(fitted_tree(estimator), indicator, target, weight)


def _tdp(estimator, n_standard_errors=1.0):
    return top_down_pessimistic_prune_tree(fitted_tree(estimator), n_standard_errors)


def _bup(estimator, c1=0.1, c2=0.0):
    return bottom_up_pessimistic_prune_tree(fitted_tree(estimator), c1, c2)


def _c45(estimator, confidence_factor=0.25, collapse=True, subtree_raising=False, X=None,
         y=None, sample_weight=None):
    """C4.5 error-based pruning; with subtree raising, ``sample_weight`` is the user's weight
    of the training rows and the estimator's ``class_weight`` is applied here, as in fit."""
    tree = fitted_tree(estimator)
    if not subtree_raising:
        return error_based_prune_tree(tree, confidence_factor, collapse)
    if X is None or y is None:
        raise ValueError("c45 with subtree_raising=True needs the training data X and y.")
    per_row = sample_weight is not None and np.ndim(sample_weight) > 0
    n_samples = check_consistent_rows(X=X, y=y, sample_weight=sample_weight if per_row else None)
    weight = check_sample_weight(sample_weight, n_samples)
    class_weight = estimator.get_params().get("class_weight")
    if class_weight is not None:
        weight = weight * compute_sample_weight(class_weight, np.asarray(y))
    return c45_with_raising(estimator, X, y, weight, confidence_factor, collapse)


def c45_with_raising(estimator, X, y, weight, confidence_factor=0.25, collapse=True):
    """C4.5 pruning with subtree raising on training rows whose final weights ``weight``
    (sample weight times class weight, as the tree was grown with) are already computed."""
    tree = fitted_tree(estimator)
    encode_categories = getattr(estimator, "_encode_categories", None)
    if encode_categories is not None:  # categorical columns as the tree's category codes
        X = encode_categories(X, fitting=False)
    X = check_array(X, dtype=np.float64, ensure_all_finite="allow-nan")
    # the rows routed as predict routes them: in the fitted precision (docs/methods.md §2)
    X = rounded_to(X, fitted_numeric_precision(estimator)).astype(np.float64, copy=False)
    y_code = encode_labels(estimator, y)
    criterion = estimator.criterion_
    h, h_params = criterion.impurity_function(), criterion.parameters()

    def impurity(proportions):
        return float(h(np.ascontiguousarray(proportions, dtype=np.float64), h_params))

    return error_based_prune_tree_with_raising(tree, X, y_code, weight, impurity,
                                               confidence_factor, collapse)


def _nodes(estimator, nodes):
    tree = fitted_tree(estimator)
    ids = np.asarray(list(nodes), dtype=object).ravel().tolist()
    # ids as ints, checked before numpy's cast: 0.5 was node 0 (the root: everything pruned),
    # True node 1, 10**30 an OverflowError, NaN "cannot convert float NaN to integer"
    if not all(_is_int(node) and 0 <= node < tree.node_count for node in ids):
        raise ValueError(f"nodes must be node ids (ints) in [0, {tree.node_count}), got "
                         f"{nodes!r}."[:300])
    return tree.collapse(np.asarray(ids, dtype=np.int64))


#: Method name -> function(estimator, **params) -> pruned Tree.
METHODS = {"ccp": _ccp, "rep": _rep, "tdp": _tdp, "c45": _c45, "bup": _bup, "nodes": _nodes}

def prune(estimator, method: str, **params):
    """A pruned copy of the fitted ``estimator`` (see the module docstring for the methods)."""
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}.")
    function = METHODS[method]
    signature = inspect.signature(function)
    accepted = list(signature.parameters)[1:]
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ValueError(f"pruning method {method!r} accepts {accepted}, got unknown {unknown}.")
    missing = [name for name in accepted
               if signature.parameters[name].default is inspect.Parameter.empty
               and name not in params]
    if missing:
        raise ValueError(f"pruning method {method!r} needs {missing}.")
    check_pruning_parameters(method, params, f"prune(method={method!r})")
    check_prunable(estimator)
    tree = function(estimator, **params)
    if method == "c45" and params.get("subtree_raising"):
        tree = _keep_monotone(estimator, tree)
    return with_tree(estimator, tree)


def _keep_monotone(estimator, tree):
    """``tree`` with its node values clipped again to the estimator's ``monotonic_cst``
    (``treesmith.monotonic.restore_monotonicity``), as the estimator's own fit does after C4.5's
    subtree raising, which recomputes values; ``tree`` itself without constraints."""
    constraints = getattr(estimator, "monotonic_cst", None)
    if constraints is None:
        return tree
    from .._validation import check_monotonic_cst
    from ..monotonic import restore_monotonicity

    direction = check_monotonic_cst(constraints, tree.n_features,
                                    getattr(estimator, "feature_names_in_", None))
    if direction is None or not direction.any():
        return tree
    return restore_monotonicity(tree, direction)
