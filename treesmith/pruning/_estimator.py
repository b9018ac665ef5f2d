"""The bridge between fitted estimators and the tree-level pruning functions.

Pruning works on :class:`~treesmith.tree.Tree` objects; these helpers take a fitted estimator
apart (its tree, its classes, the decision paths of new data) and put a pruned tree back into
a *copy* of it, so the caller's estimator is never modified.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.utils.validation import check_is_fitted

from .. import _validation
from ..tree import Tree

#: Estimator parameters that switch post-pruning on; cleared to grow the full tree T_max.
_POST_PRUNING_DEFAULTS = {"ccp_alpha": 0.0, "pruning": None}


def fitted_tree(estimator) -> Tree:
    """The estimator's ``tree_`` (``NotFittedError`` / ``TypeError`` if there is none)."""
    check_is_fitted(estimator, "tree_")
    tree = estimator.tree_
    if not isinstance(tree, Tree):
        raise TypeError(
            f"estimator must be a fitted treesmith tree estimator, got {type(estimator).__name__}."
        )
    return tree


def check_prunable(estimator) -> None:
    """A TypeError when ``estimator``'s ``tree_`` cannot be replaced (a C4.5 tree is a view of
    its multiway tree, pruned by its own fit): ``with_tree`` failed with "property 'tree_' of
    'C45Classifier' object has no setter" after the pruning's work."""
    if isinstance(getattr(type(estimator), "tree_", None), property):
        raise TypeError(f"a {type(estimator).__name__}'s tree cannot be post-pruned by prune(): "
                        "it is pruned by its own fit (e.g. C45Classifier's confidence_factor, "
                        "reduced_error_pruning).")


def with_tree(estimator, tree: Tree):
    """A deep copy of ``estimator`` whose ``tree_`` is ``tree``; the original is untouched."""
    pruned = copy.deepcopy(estimator)
    pruned.tree_ = tree
    refresh = getattr(pruned, "_refresh_fitted_attributes", None)
    if callable(refresh):
        refresh()
    return pruned


def unpruned_clone(estimator):
    """An unfitted clone with post-pruning switched off (pre-pruning rules are kept)."""
    if isinstance(estimator, (list, tuple, set, frozenset, dict)):  # clone copies those
        raise TypeError(f"estimator must be a treesmith tree estimator, got "
                        f"{type(estimator).__name__}.")
    unfitted = clone(estimator)  # scikit-learn's TypeError names what is not an estimator
    params = unfitted.get_params(deep=False)
    reset = {k: v for k, v in _POST_PRUNING_DEFAULTS.items() if k in params}
    return unfitted.set_params(**reset)


def encode_labels(estimator, y) -> np.ndarray:
    """Class index of each label in ``estimator.classes_`` (-1 for a label never seen)."""
    classes = estimator.classes_
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}.")
    position = np.searchsorted(classes, y)
    position = np.clip(position, 0, classes.shape[0] - 1)
    return np.where(classes[position] == y, position, -1).astype(np.int64)


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Finite non-negative float64 weights of length ``n_samples`` (ones when None), by the
    validation room's checker. All-zero weights pass here (the held-out losses report them);
    weights whose sum overflows are rejected, not rescaled, because pruning adds them to the
    tree's own weighted counts."""
    return _validation.check_sample_weight(sample_weight, n_samples, positive_sum=False,
                                           rescale=False)


def held_out_data(estimator, X, y, sample_weight=None):
    """``(indicator, y_or_codes, weight)``: the decision paths and targets of held-out data."""
    fitted_tree(estimator)  # a fitted tree estimator, or an error saying what it is
    indicator = estimator.decision_path(X)
    n_samples = indicator.shape[0]
    # a missing label (None / NaN) is refused as fit refuses it: it is neither a class the
    # tree can be right or wrong about nor a number to take a squared error from
    _validation.check_y_values(y, "classification" if is_classifier(estimator) else
                               "regression")
    y = np.asarray(y)
    if y.shape != (n_samples,):
        raise ValueError(f"y must have one label per row of X ({n_samples}), got {y.shape}.")
    weight = check_sample_weight(sample_weight, n_samples)
    target = encode_labels(estimator, y) if is_classifier(estimator) else y.astype(np.float64)
    return indicator, target, weight


def take_rows(data, rows):
    """Rows ``rows`` of an array or a pandas object."""
    return data.iloc[rows] if hasattr(data, "iloc") else np.asarray(data)[rows]
