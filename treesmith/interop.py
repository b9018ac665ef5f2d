"""The bridge to the scikit-learn tree ecosystem: a treesmith model as a fitted scikit-learn one.

``to_sklearn(model)`` returns a fitted ``sklearn.tree.DecisionTreeClassifier`` /
``DecisionTreeRegressor`` whose ``tree_`` holds treesmith's nodes, so that the tools written for
scikit-learn's trees read it as they read their own: ``shap.TreeExplainer``, ``skl2onnx``,
``dtreeviz``, ``sklearn.tree.plot_tree`` / ``export_graphviz`` and
``sklearn.inspection.partial_dependence(method="recursion")`` (scikit-learn 1.9 offers the
recursion for regression trees and forests only; a classifier needs ``method="brute"``). A
treesmith random forest becomes
a fitted ``sklearn.ensemble.RandomForestClassifier`` / ``RandomForestRegressor`` (an ExtraTrees
forest: ``ExtraTreesClassifier`` / ``ExtraTreesRegressor``) whose trees are its members converted
the same way (scikit-learn's forests average the trees' probabilities or means, as treesmith's
do).

What carries over, exactly:
- the structure, thresholds (in original units, ``x <= threshold`` goes left), the side missing
  values take at every split (scikit-learn's ``missing_go_to_left``), node impurities, sample
  counts and weights;
- the leaf values: class proportions (weighted, after ``class_weight``) or the mean label, so
  ``predict``, ``predict_proba`` and ``apply`` agree with treesmith's;
- splits on a boolean column (categorical by default, categories False/True): scikit-learn
  reads it as 0/1, so ``b in {False}`` becomes ``b <= 0.5``, ``b in {True}`` the same test
  with its children (and missing side) exchanged, and ``b in {False, True}`` (missing values
  on the other side) ``b <= 1.5``.

What does not: a split by a set of categories of any other column, or a model with such a
categorical column even unsplit (the converted model would be given its text), raises a
ValueError naming the node or column: scikit-learn 1.9's trees test ``x <= threshold`` only.
Fit with ``categorical_features=None`` on one-hot encoded columns for a model that converts.
A Bayesian tree converts with the posterior means its leaves predict (``averaging='map'``; a
posterior average of many trees raises a ValueError). C4.5 (``C45Classifier``: a missing value
spread over every branch, nominal tests) and models without a treesmith tree raise a TypeError
saying what converts.

What changes: scikit-learn compares values in float32 (it casts X), treesmith in the input's own
precision. Each threshold t is therefore stored as float32(t), as scikit-learn stores its own:
rounding to float32 is monotone, so every value x <= t still goes left, and a value x > t goes
right unless float32 cannot tell x from t (x within half a float32 step above t). Where the
feature was binned exactly, the training values on either side of t are known: when float32(t)
would send the value just above t left, the threshold is the float32 just below that value's
float32 instead, so both training values go their way. Two training values that float32 cannot
tell apart (e.g. 0.03833367306762126 and 0.038333673067621254, both 0.038333673 in float32) can
go to different sides in treesmith but not in scikit-learn: ``to_sklearn`` then warns
(``Float32ThresholdWarning``), naming the feature; fitting on ``X.astype(np.float32)`` avoids
it. Where the feature was binned by quantiles (more distinct values than ``max_bins``), the
training values next to t are not kept: ``to_sklearn`` warns when float32 cannot tell t from a
neighbouring bin edge of its feature (the values between them are then within a float32 step of
t), but values within a float32 step of t may also exist without it. Otherwise the predictions
on the training data, and on any data but values within a float32 step of a threshold, are
identical. (treesmith itself compares a float32 input in float32's own
values, so a float32 copy of the data can route a value equal to float32(t) > t differently
from the float64 original.)

The converted estimator's ``criterion`` names the nearest scikit-learn criterion (used only if
you refit it, which trains scikit-learn's own algorithm): gini and entropy map to themselves,
squared error and Poisson likewise, every other treesmith criterion to ``"gini"``
(classification) or ``"squared_error"`` (regression); ``tree_.impurity`` keeps treesmith's
node impurities.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.tree import DecisionTreeClassifier as SklearnClassifier
from sklearn.tree import DecisionTreeRegressor as SklearnRegressor
from sklearn.tree._tree import NODE_DTYPE
from sklearn.tree._tree import Tree as SklearnTree
from sklearn.utils.validation import check_is_fitted

from ._dtypes import TREE_LEAF

#: treesmith criterion name -> the scikit-learn criterion of the same name.
_SKLEARN_CRITERIA = {
    "gini": "gini",
    "entropy": "entropy",
    "log_loss": "log_loss",
    "squared_error": "squared_error",
    "mse": "squared_error",
    "poisson": "poisson",
}
#: Parameters with the same meaning in both libraries, copied so that a refit means the same.
_SHARED_PARAMETERS = ("max_depth", "min_samples_split", "min_samples_leaf",
                      "min_weight_fraction_leaf", "max_leaf_nodes", "min_impurity_decrease",
                      "random_state")


class Float32ThresholdWarning(UserWarning):
    """A converted split separates training values that float32 cannot tell apart, so
    scikit-learn (which casts X to float32) sends them to the same side."""


def to_sklearn(model):
    """A fitted scikit-learn estimator that predicts as the fitted treesmith ``model``.

    ``model`` is a fitted ``treesmith.DecisionTreeClassifier`` or ``DecisionTreeRegressor``
    (or any estimator whose ``tree_`` is a treesmith Tree), or a fitted
    ``treesmith.ensemble.RandomForestClassifier`` / ``RandomForestRegressor``. See the module
    docstring for what carries over.
    """
    from .ensemble import RandomForestClassifier, RandomForestRegressor

    if isinstance(model, (RandomForestClassifier, RandomForestRegressor)):
        return _forest_to_sklearn(model)
    _check_convertible(model)
    converted, inseparable = _tree_to_sklearn(model)
    _warn_inseparable(inseparable, model)
    return converted


_CONVERTS = ("to_sklearn converts treesmith's DecisionTreeClassifier / DecisionTreeRegressor (and "
             "the trees built on them: GreedyTreeClassifier, BayesianTreeClassifier / "
             "Regressor), RandomForestClassifier and RandomForestRegressor")


def _check_convertible(model) -> None:
    """A TypeError for a model ``to_sklearn`` cannot convert into one that predicts the same:
    anything without a treesmith ``Tree`` (a BudgetForest, a scikit-learn tree) and C4.5,
    whose predictions spread a missing value over every branch and whose nominal tests read
    category codes, which its binary view ``tree_`` cannot carry."""
    from .c45 import C45Classifier
    from .estimators import BaseDecisionTree
    from .tree import Tree

    if isinstance(model, C45Classifier):
        raise TypeError(
            f"{_CONVERTS}; not C45Classifier: C4.5 spreads a missing value over every branch "
            "and tests nominal columns by their values, which scikit-learn's trees cannot "
            "represent, so the converted model would predict otherwise. For a C4.5-like tree "
            "that converts, use DecisionTreeClassifier(criterion='entropy', "
            "split_rule='gain_ratio', pruning='c45') on numeric columns.")
    if isinstance(model, BaseDecisionTree) or isinstance(getattr(model, "tree_", None), Tree):
        return
    if type(model).__module__.split(".")[0] == "sklearn":
        raise TypeError(f"{type(model).__name__} is already a scikit-learn estimator; "
                        f"{_CONVERTS}.")
    raise TypeError(f"{_CONVERTS}; got {type(model).__name__}.")


def _leaf_values(model, tree) -> np.ndarray:
    """What each node of ``model`` predicts, (n_nodes, n_classes or 1): the estimator's
    ``_node_predictions`` (class proportions, mean label; a Bayesian tree's posterior means),
    ``tree.value`` for a model without it."""
    node_predictions = getattr(model, "_node_predictions", None)
    if node_predictions is None:
        return tree.value
    return np.asarray(node_predictions(), dtype=np.float64)


def _tree_to_sklearn(model):
    """(the converted estimator, {feature: splits whose sides float32 cannot separate})."""
    check_is_fitted(model, "tree_")
    tree = model.tree_
    boolean = _boolean_features(model)
    _check_no_categories(model, tree, boolean)
    is_classifier = tree.n_classes > 0
    name = getattr(getattr(model, "criterion_", None), "name", None)
    if is_classifier:
        estimator = SklearnClassifier(criterion=_SKLEARN_CRITERIA.get(name, "gini"))
    else:
        estimator = SklearnRegressor(criterion=_SKLEARN_CRITERIA.get(name, "squared_error"))
    shared = {key: value for key, value in model.get_params(deep=False).items()
              if key in _SHARED_PARAMETERS}
    if is_classifier and "class_weight" in model.get_params(deep=False):
        shared["class_weight"] = model.class_weight
    estimator.set_params(**shared)
    if getattr(model, "monotonic_cst", None) is not None:  # scikit-learn takes arrays only
        from ._validation import check_monotonic_cst

        estimator.set_params(monotonic_cst=check_monotonic_cst(
            model.monotonic_cst, tree.n_features, getattr(model, "feature_names_in_", None)))

    estimator.n_features_in_ = tree.n_features
    if hasattr(model, "feature_names_in_"):
        estimator.feature_names_in_ = np.asarray(model.feature_names_in_, dtype=object)
    estimator.n_outputs_ = 1
    estimator.max_features_ = tree.n_features
    if is_classifier:
        estimator.classes_ = np.asarray(model.classes_)
        estimator.n_classes_ = int(estimator.classes_.shape[0])
    threshold, inseparable = float32_thresholds(tree, getattr(model, "bin_mapper_", None))
    swap = _boolean_splits_as_thresholds(model, tree, boolean, threshold)
    estimator.tree_ = sklearn_tree(tree, threshold, swap, _leaf_values(model, tree))
    return estimator, inseparable


def _boolean_features(model) -> set:
    """Categorical features whose categories are booleans: scikit-learn reads False/True as
    0/1, so their splits are thresholds at 0.5 (no other value can occur)."""
    categories = getattr(model, "categories_", None) or []
    return {j for j, levels in enumerate(categories) if levels is not None and len(levels)
            and all(isinstance(level, (bool, np.bool_)) for level in levels)}


def _boolean_splits_as_thresholds(model, tree, boolean: set, threshold) -> np.ndarray:
    """Set ``threshold`` to 0.5 at the splits on boolean features; returns the nodes whose
    children (and missing side) must swap: those sending True left, since x <= 0.5 sends
    False left. A split of both values against the missing values (``{False, True}``) is
    x <= 1.5, which sends both left."""
    swap = np.zeros(tree.node_count, dtype=bool)
    for node in np.flatnonzero(tree.is_categorical_split):
        feature = int(tree.feature[node])
        if feature not in boolean:
            continue
        levels = model.categories_[feature]
        left = {bool(levels[code]) for code in tree.categories_left(node)}
        if len(left) == 1:
            threshold[node] = 0.5
            swap[node] = left == {True}
        else:  # {False, True} | missing: both values left; no value left: both right
            threshold[node] = 1.5 if left else -0.5
    return swap


def float32_thresholds(tree, bin_mapper=None):
    """Each split's threshold as scikit-learn will compare it (a float32 value, see the module
    docstring), and {feature: number of splits} whose two nearest training values float32
    cannot separate. ``bin_mapper`` (the model's ``BinMapper``) gives the training values of
    exactly binned features; without it every threshold is float32(t)."""
    threshold = tree.threshold.astype(np.float32)
    inseparable: dict[int, int] = {}
    if bin_mapper is None or getattr(bin_mapper, "bin_values_", None) is None:
        return threshold, inseparable
    numeric = np.flatnonzero((tree.children_left != TREE_LEAF) & np.isfinite(tree.threshold))
    for f in np.unique(tree.feature[numeric]):
        values = bin_mapper.bin_values_[f]
        if values is None:  # quantile bins: the training values next to t are not kept
            count = _coarse_quantile_splits(tree, numeric[tree.feature[numeric] == f],
                                            bin_mapper.bin_thresholds_[f])
            if count:
                inseparable[int(f)] = count
            continue
        if values.shape[0] < 2:
            continue
        nodes = numeric[tree.feature[numeric] == f]
        t = tree.threshold[nodes]
        above = np.searchsorted(values, t, side="right")  # first training value > t
        inside = (above >= 1) & (above < values.shape[0])
        nodes, t, above = nodes[inside], t[inside], above[inside]
        low = values[above - 1].astype(np.float32)
        high = values[above].astype(np.float32)
        wrong = high <= threshold[nodes]  # the value just above t would go left
        fixable = wrong & (low < high)
        threshold[nodes[fixable]] = np.nextafter(high[fixable], np.float32(-np.inf))
        if np.any(wrong & ~fixable):
            inseparable[int(f)] = int(np.sum(wrong & ~fixable))
    return threshold, inseparable


def _coarse_quantile_splits(tree, nodes, edges) -> int:
    """How many of ``nodes`` (splits of one quantile-binned feature, whose thresholds are bin
    edges) float32 cannot tell from a neighbouring edge of that feature: the training values
    of the bins around such a threshold, between those edges, then lie within a float32 step
    of it and may be sent to the other side (a warning sign, not a proof: the values
    themselves are not kept)."""
    if edges.shape[0] < 2:
        return 0
    t = tree.threshold[nodes]
    at = np.clip(np.searchsorted(edges, t), 0, edges.shape[0] - 1)
    rounded = edges.astype(np.float32)
    below = (at > 0) & (rounded[np.maximum(at - 1, 0)] == t.astype(np.float32))
    above = (at < edges.shape[0] - 1) & (
        rounded[np.minimum(at + 1, edges.shape[0] - 1)] == t.astype(np.float32))
    return int(np.sum(below | above))


def _warn_inseparable(inseparable: dict, model, n_trees: int = 1) -> None:
    if not inseparable:
        return
    names = getattr(model, "feature_names_in_", None)
    shown = ", ".join(f"{str(names[f]) if names is not None else f'x{f}'!r} ({count})"
                      for f, count in sorted(inseparable.items())[:5])
    where = "" if n_trees == 1 else f" in the {n_trees} trees"
    warnings.warn(
        f"{sum(inseparable.values())} split(s){where} separate training values that float32 "
        f"cannot tell apart (features: {shown}{' …' if len(inseparable) > 5 else ''}); "
        "scikit-learn casts X to float32, so the converted model sends such values to one "
        "side and can predict differently from treesmith on them. Fit on X.astype(np.float32) "
        "for a conversion that predicts identically.", Float32ThresholdWarning, stacklevel=3)


def _check_no_categories(model, tree, boolean=frozenset()):
    """scikit-learn's trees (1.9) test ``x <= threshold`` only: a split by a set of categories,
    or a categorical feature the converted model would be given as text, has no equivalent
    (except on the ``boolean`` features, read as 0/1)."""
    names = getattr(model, "feature_names_in_", None)
    hint = ("scikit-learn's trees cannot represent splits by sets of categories. For a model "
            "that converts, fit with categorical_features=None on one-hot encoded columns (e.g. "
            "treesmith.datasets.encode_features or sklearn.preprocessing.OneHotEncoder).")
    split_nodes = np.flatnonzero(tree.is_categorical_split
                                 & ~np.isin(tree.feature, sorted(boolean)))
    if split_nodes.size:
        node = int(split_nodes[0])
        feature = int(tree.feature[node])
        name = names[feature] if names is not None else f"x{feature}"
        raise ValueError(f"Node {node} splits feature {str(name)!r} by a set of categories "
                         f"({split_nodes.size} such node(s)); {hint}")
    mask = getattr(model, "is_categorical_", None)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool).copy()
        mask[sorted(boolean)] = False
    if mask is not None and np.any(mask):
        feature = int(np.flatnonzero(mask)[0])
        name = names[feature] if names is not None else f"x{feature}"
        raise ValueError(f"Feature {str(name)!r} is categorical: the converted model would "
                         f"have to read its categories; {hint}")


def _forest_to_sklearn(forest):
    """scikit-learn's random forest (extremely randomized trees for a forest of them) holding
    the converted members of a treesmith forest."""
    from sklearn import ensemble, tree

    check_is_fitted(forest, "estimators_")
    inseparable: dict[int, int] = {}
    members = []
    for member in forest.estimators_:
        converted, member_inseparable = _tree_to_sklearn(member)
        members.append(converted)
        for feature, count in member_inseparable.items():
            inseparable[feature] = inseparable.get(feature, 0) + count
    _warn_inseparable(inseparable, forest, len(members))
    is_classifier = hasattr(forest, "classes_")
    kind = "Classifier" if is_classifier else "Regressor"
    if getattr(forest, "_splitter", "best") == "random":
        Forest, Member = getattr(ensemble, "ExtraTrees" + kind), getattr(tree, "ExtraTree" + kind)
    else:
        Forest, Member = (getattr(ensemble, "RandomForest" + kind),
                          getattr(tree, "DecisionTree" + kind))
    converted = Forest(n_estimators=len(members), criterion=members[0].criterion,
                       max_depth=forest.max_depth, random_state=forest.random_state)
    converted.estimators_ = members
    converted.estimator_ = Member(criterion=members[0].criterion)
    converted.n_features_in_ = members[0].n_features_in_
    if hasattr(forest, "feature_names_in_"):
        names = np.asarray(forest.feature_names_in_, dtype=object)
        converted.feature_names_in_ = names
        for member in members:  # scikit-learn's forest checks X's names through its first tree
            member.feature_names_in_ = names
    converted.n_outputs_ = 1
    if is_classifier:
        converted.classes_ = members[0].classes_
        converted.n_classes_ = members[0].n_classes_
    return converted


def sklearn_tree(tree, threshold=None, swap=None, value=None) -> SklearnTree:
    """scikit-learn's ``Tree`` holding the nodes of a treesmith ``Tree``.

    Node ids, children (``-1`` for leaves), features (``-2`` for leaves, as both libraries
    write it), thresholds as float32 (``threshold``, from :func:`float32_thresholds`; by
    default float32(t)) (``-2.0`` for leaves), missing-value sides (at the ``swap`` nodes
    the children and the missing side are exchanged),
    impurities, counts and weights are copied; ``value`` (default ``tree.value``) becomes
    ``(n_nodes, 1, n_classes)`` class proportions or ``(n_nodes, 1, 1)`` means, the layout
    scikit-learn >= 1.4 uses.
    """
    n_nodes = tree.node_count
    leaf = tree.children_left == TREE_LEAF
    nodes = np.zeros(n_nodes, dtype=NODE_DTYPE)
    swap = np.zeros(n_nodes, dtype=bool) if swap is None else swap
    nodes["left_child"] = np.where(swap, tree.children_right, tree.children_left)
    nodes["right_child"] = np.where(swap, tree.children_left, tree.children_right)
    nodes["feature"] = tree.feature
    # a float32 value: what scikit-learn compares its float32-cast X with (module docstring)
    if threshold is None:
        threshold = tree.threshold.astype(np.float32)
    nodes["threshold"] = np.where(leaf, -2.0, np.asarray(threshold, dtype=np.float64))
    nodes["impurity"] = tree.impurity
    nodes["n_node_samples"] = tree.n_node_samples
    nodes["weighted_n_node_samples"] = tree.weighted_n_node_samples
    nodes["missing_go_to_left"] = (tree.missing_go_left ^ swap).astype(np.uint8)
    n_classes = max(tree.n_classes, 1)
    value = tree.value if value is None else value
    values = np.ascontiguousarray(value, dtype=np.float64).reshape(n_nodes, 1, n_classes)
    converted = SklearnTree(tree.n_features, np.array([n_classes], dtype=np.intp), 1)
    converted.__setstate__({"max_depth": int(tree.max_depth), "node_count": n_nodes,
                            "nodes": nodes, "values": values})
    return converted
