"""Pruning of fitted trees (SPEC §6, §8).

``prune(estimator, method, **params)`` returns a *new* fitted estimator (a deep copy whose
``tree_`` is pruned; the original is untouched). Methods and their parameters:

=========  ==================================================================================
"ccp"      cost-complexity at ``ccp_alpha`` (required); ``risk="impurity"`` (scikit-learn's
           weighted impurity) or ``"misclassification"`` (Breiman's).
"rep"      reduced-error pruning on a validation set ``X``, ``y`` (``sample_weight``).
"tdp"      pessimistic top-down pruning; ``n_standard_errors=1.0``.
"c45"      C4.5 / J48 error-based pruning; ``confidence_factor=0.25``, ``collapse=True``,
           ``subtree_raising=False`` (raising needs the training data ``X``, ``y``,
           ``sample_weight``).
"bup"      pessimistic bottom-up pruning (Mansour 1997); ``c1=1.0``, ``c2=0.0``.
"nodes"    turn the given ``nodes`` (ids in ``estimator.tree_``) into leaves.
=========  ==================================================================================

Choosing alpha: :func:`select_ccp_alpha` (K-fold CV, min or 1-SE rule), :func:`tune_ccp_alpha`
(exact ERM across problem instances), :func:`select_by_explainability` (held-out error +
eta * leaves). The tree-level functions (``prune_tree_ccp``, ``reduced_error_prune_tree``, ...)
work on :class:`treesmith.tree.Tree` objects directly.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_array

from ._estimator import (check_sample_weight, encode_labels, fitted_tree, held_out_data,
                         with_tree)
from ._traversal import (PruningState, prune_bottom_up, prune_top_down, prune_weakest_link)
from .bottom_up_pessimistic import bottom_up_pessimistic_prune_tree
from .cost_complexity import (CCPSelection, cost_complexity_path, cost_complexity_pruning_path,
                              prune_tree_ccp, select_ccp_alpha, tune_ccp_alpha)
from .error_based import (added_errors, error_based_prune_tree,
                          error_based_prune_tree_with_raising)
from .explainability import ExplainabilitySelection, select_by_explainability
from .reduced_error import reduced_error_prune_tree
from .top_down_pessimistic import top_down_pessimistic_prune_tree


def _ccp(estimator, ccp_alpha, risk="impurity"):
    return prune_tree_ccp(fitted_tree(estimator), ccp_alpha, risk)


def _rep(estimator, X, y, sample_weight=None):
    indicator, target, weight = held_out_data(estimator, X, y, sample_weight)
    return reduced_error_prune_tree(fitted_tree(estimator), indicator, target, weight)


def _tdp(estimator, n_standard_errors=1.0):
    return top_down_pessimistic_prune_tree(fitted_tree(estimator), n_standard_errors)


def _bup(estimator, c1=1.0, c2=0.0):
    return bottom_up_pessimistic_prune_tree(fitted_tree(estimator), c1, c2)


def _c45(estimator, confidence_factor=0.25, collapse=True, subtree_raising=False, X=None,
         y=None, sample_weight=None):
    tree = fitted_tree(estimator)
    if not subtree_raising:
        return error_based_prune_tree(tree, confidence_factor, collapse)
    if X is None or y is None:
        raise ValueError("c45 with subtree_raising=True needs the training data X and y.")
    X = check_array(X, dtype=np.float64, ensure_all_finite="allow-nan")
    y_code = encode_labels(estimator, y)
    weight = check_sample_weight(sample_weight, y_code.shape[0])
    class_weight = estimator.get_params().get("class_weight")
    if class_weight is not None:
        weight = weight * compute_sample_weight(class_weight, np.asarray(y))
    criterion = estimator.criterion_
    h, h_params = criterion.impurity_function(), criterion.parameters()

    def impurity(proportions):
        return float(h(np.ascontiguousarray(proportions, dtype=np.float64), h_params))

    return error_based_prune_tree_with_raising(tree, X, y_code, weight, impurity,
                                               confidence_factor, collapse)


def _nodes(estimator, nodes):
    tree = fitted_tree(estimator)
    nodes = np.asarray(list(nodes), dtype=np.int64).ravel()
    if np.any((nodes < 0) | (nodes >= tree.node_count)):
        raise ValueError(f"nodes must be node ids in [0, {tree.node_count}), got {nodes}.")
    return tree.collapse(nodes)


#: Method name -> function(estimator, **params) -> pruned Tree.
METHODS = {"ccp": _ccp, "rep": _rep, "tdp": _tdp, "c45": _c45, "bup": _bup, "nodes": _nodes}


def prune(estimator, method: str, **params):
    """A pruned copy of the fitted ``estimator`` (see the module docstring for the methods)."""
    if method not in METHODS:
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
    return with_tree(estimator, function(estimator, **params))


__all__ = [
    "prune", "METHODS",
    "cost_complexity_pruning_path", "cost_complexity_path", "prune_tree_ccp",
    "select_ccp_alpha", "CCPSelection", "tune_ccp_alpha",
    "select_by_explainability", "ExplainabilitySelection",
    "reduced_error_prune_tree", "top_down_pessimistic_prune_tree",
    "bottom_up_pessimistic_prune_tree", "error_based_prune_tree",
    "error_based_prune_tree_with_raising", "added_errors",
    "PruningState", "prune_bottom_up", "prune_top_down", "prune_weakest_link",
]
