"""The compiled traversal (treesmith._kernels.predict) against a one-row-at-a-time reference.

Random trees of every shape the Tree layout allows (preorder as grown, breadth-first, deep
chains, a lone leaf), with thresholds on float32-representable values and learned missing
sides, on float32 and float64 input, with NaN, and with row counts that do not fill the
8-row blocks of ``leaf_outputs``.
"""

import numpy as np
import pandas as pd
import pytest

import treesmith
import treesmith.tree as tree_module
from treesmith._kernels.predict import LANES, leaf_reference
from treesmith.tree import Tree


def random_tree(rng, n_features, n_classes, max_depth, order="preorder", split_prob=0.8,
                thresholds=None):
    """A valid Tree grown at random: children stored after parents, in ``order``."""
    # build as nested (feature, threshold, missing_left, left, right) / ("leaf", counts)
    def grow(depth):
        if depth < max_depth and rng.random() < split_prob:
            feature = int(rng.integers(n_features))
            threshold = float(rng.choice(thresholds)) if thresholds is not None else float(
                rng.normal())
            return ("split", feature, threshold, bool(rng.random() < 0.5),
                    grow(depth + 1), grow(depth + 1))
        return ("leaf", rng.integers(0, 3, size=max(n_classes, 1)).astype(np.float64))

    root = grow(0)
    nodes = []  # (spec, parent slot, side)
    if order == "preorder":
        stack = [(root, -1, 0)]
        while stack:
            spec, parent, side = stack.pop()
            nodes.append((spec, parent, side))
            if spec[0] == "split":
                stack.append((spec[5], len(nodes) - 1, 1))
                stack.append((spec[4], len(nodes) - 1, 0))
    else:  # breadth-first
        queue = [(root, -1, 0)]
        while queue:
            spec, parent, side = queue.pop(0)
            nodes.append((spec, parent, side))
            if spec[0] == "split":
                queue.append((spec[4], len(nodes) - 1, 0))
                queue.append((spec[5], len(nodes) - 1, 1))
    n = len(nodes)
    left = np.full(n, -1, dtype=np.int64)
    right = np.full(n, -1, dtype=np.int64)
    feature = np.full(n, -2, dtype=np.int64)
    threshold = np.full(n, np.nan)
    missing_go_left = np.zeros(n, dtype=bool)
    counts = np.zeros((n, max(n_classes, 1)))
    depth = np.zeros(n, dtype=np.int64)
    for i, (spec, parent, side) in enumerate(nodes):
        if parent >= 0:
            (left if side == 0 else right)[parent] = i
            depth[i] = depth[parent] + 1
        if spec[0] == "split":
            feature[i], threshold[i], missing_go_left[i] = spec[1], spec[2], spec[3]
        else:
            counts[i] = spec[1]
    for i in range(n - 1, -1, -1):  # children after parents: sum the counts upwards
        if left[i] >= 0:
            counts[i] = counts[left[i]] + counts[right[i]]
    total = np.maximum(counts.sum(axis=1), 1.0)
    value = counts / total[:, None] if n_classes else rng.normal(size=(n, 1))
    return Tree(n_features, n_classes, children_left=left, children_right=right,
                feature=feature, threshold=threshold,
                bin_threshold=np.where(left >= 0, 0, -1).astype(np.int64),
                missing_go_left=missing_go_left, impurity=np.zeros(n),
                n_node_samples=total.astype(np.int64), weighted_n_node_samples=total,
                value=value, class_counts=counts if n_classes else np.zeros((n, 0)),
                depth=depth)


def reference_leaves(tree, X):
    return leaf_reference(X, tree.children_left, tree.children_right, tree.feature,
                          tree.threshold, tree.missing_go_left)


def sample_X(rng, n_rows, n_features, values, dtype, nan_fraction=0.1):
    X = rng.choice(values, size=(n_rows, n_features)).astype(dtype)
    X[rng.random(X.shape) < nan_fraction] = np.nan
    return X


@pytest.mark.parametrize("traversal", ["parallel", "serial"])
@pytest.mark.parametrize("order", ["preorder", "breadth_first"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(6))
def test_leaves_match_the_reference(order, dtype, seed, traversal, monkeypatch):
    # the parallel kernels, or their serial twins (what inputs below PARALLEL_PREDICT_ROWS get)
    monkeypatch.setattr(tree_module, "PARALLEL_PREDICT_ROWS",
                        0 if traversal == "parallel" else 2**62)
    rng = np.random.default_rng(seed)
    # thresholds on grid values, so rows fall exactly on them; float32-exact grid
    grid = np.round(rng.normal(size=12), 2).astype(np.float32).astype(np.float64)
    tree = random_tree(rng, 5, 3, max_depth=int(rng.integers(1, 14)), order=order,
                       thresholds=grid)
    for n_rows in (0, 1, LANES - 1, LANES, 3 * LANES + 5, 1000):
        X = sample_X(rng, n_rows, 5, grid, dtype)
        leaves = reference_leaves(tree, X)
        np.testing.assert_array_equal(tree.apply(X), leaves)
        np.testing.assert_array_equal(tree.predict(X), tree.value[leaves])
        classes = np.array(["a", "b", "c"])
        np.testing.assert_array_equal(tree.predict_class(X, classes),
                                      classes[np.argmax(tree.value[leaves], axis=1)])
        path = tree.decision_path(X)
        np.testing.assert_array_equal(np.diff(path.indptr), tree.depth[leaves] + 1)


def test_deep_chain_and_rows_that_stop_at_different_depths():
    """A 300-level chain (each node: one leaf child, one deeper child) and rows that leave it
    at every depth, several to a block: the block walks until its deepest row is done."""
    n = 300
    nodes = 2 * n + 1
    left = np.full(nodes, -1, dtype=np.int64)
    right = np.full(nodes, -1, dtype=np.int64)
    for level in range(n):
        spine = 2 * level
        left[spine], right[spine] = spine + 1, spine + 2
    feature = np.where(left >= 0, 0, -2)
    threshold = np.where(left >= 0, -np.arange(nodes, dtype=np.float64) / 2, np.nan)
    depth = np.zeros(nodes, dtype=np.int64)
    for i in range(nodes):
        if left[i] >= 0:
            depth[left[i]] = depth[right[i]] = depth[i] + 1
    counts = np.ones((nodes, 2))
    tree = Tree(1, 2, children_left=left, children_right=right, feature=feature,
                threshold=threshold, bin_threshold=np.where(left >= 0, 0, -1),
                missing_go_left=left >= 0, impurity=np.zeros(nodes),
                n_node_samples=np.ones(nodes, dtype=np.int64),
                weighted_n_node_samples=np.ones(nodes), value=counts / 2, class_counts=counts,
                depth=depth)
    rng = np.random.default_rng(0)
    X = -rng.permutation(np.arange(2 * n + 40, dtype=np.float64) / 2)[:, None]
    X[::17] = np.nan  # missing goes left at the root: a leaf at depth 1
    np.testing.assert_array_equal(tree.apply(X), reference_leaves(tree, X))


def test_single_leaf_tree():
    tree = random_tree(np.random.default_rng(0), 2, 2, max_depth=0)
    assert tree.node_count == 1
    X = np.zeros((LANES + 3, 2), dtype=np.float32)
    np.testing.assert_array_equal(tree.apply(X), np.zeros(LANES + 3))
    np.testing.assert_array_equal(tree.predict_class(X, [3, 5]),
                                  np.full(LANES + 3, [3, 5][np.argmax(tree.value[0])]))


def stump(threshold, missing_go_left=True):
    """Root ``x0 <= threshold`` with leaves 1 (left, class 0) and 2 (right, class 1)."""
    counts = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    return Tree(1, 2, children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
                feature=np.array([0, -2, -2]), threshold=np.array([threshold, np.nan, np.nan]),
                bin_threshold=np.array([0, -1, -1]),
                missing_go_left=np.array([missing_go_left, False, False]),
                impurity=np.zeros(3), n_node_samples=np.array([2, 1, 1]),
                weighted_n_node_samples=np.array([2.0, 1.0, 1.0]),
                value=counts / counts.sum(axis=1, keepdims=True), class_counts=counts,
                depth=np.array([0, 1, 1]))


def test_float32_value_is_compared_with_the_float64_threshold():
    """0.1 as float32 is 0.100000001490116...: above the float64 threshold 0.1, so it goes
    right; rounded to float32 the threshold would equal it and send it left. A float32 value
    exactly on a float64 threshold that it represents goes left."""
    rows = np.full((2 * LANES + 1, 1), 0.1, dtype=np.float32)
    assert np.all(stump(0.1).apply(rows) == 2)
    assert np.all(stump(0.1).predict_class(rows, [0, 1]) == 1)
    on = stump(float(np.float32(0.1)))
    assert np.all(on.apply(rows) == 1)
    assert np.all(on.apply(rows.astype(np.float64)) == 1)


@pytest.mark.parametrize("missing_go_left", [True, False])
def test_nan_follows_the_learned_side(missing_go_left):
    X = np.array([[np.nan], [-1.0], [1.0]] * (LANES + 1), dtype=np.float32)
    expected = np.array([1 if missing_go_left else 2, 1, 2] * (LANES + 1))
    np.testing.assert_array_equal(stump(0.0, missing_go_left).apply(X), expected)


def test_non_contiguous_input():
    rng = np.random.default_rng(2)
    tree = random_tree(rng, 4, 3, max_depth=8)
    X = rng.normal(size=(300, 8))
    for view in (X[:, ::2], np.asfortranarray(X[:, :4]), X[::3, :4]):
        np.testing.assert_array_equal(tree.apply(view), reference_leaves(tree, view))


def test_predict_is_the_first_argmax_of_predict_proba_on_ties():
    """Leaves split 50/50 (and 1/3 each): predict picks the lowest class, as np.argmax and
    scikit-learn do."""
    X = np.repeat(np.arange(4, dtype=np.float64), 6)[:, None]
    y = np.array(["b", "a", "c"] * 8)
    y[X[:, 0] == 0] = ["c", "b"] * 3  # leaf with a tie between b and c
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    proba = model.predict_proba(X)
    assert np.any(np.sum(proba == proba.max(axis=1, keepdims=True), axis=1) > 1)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(proba, axis=1)])
    assert model.predict(X[:1])[0] == "b"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_estimator_predictions_agree_with_the_reference(dtype):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 6)).astype(dtype)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int) + (X[:, 2] > 1)
    model = treesmith.DecisionTreeClassifier(max_depth=10, random_state=0).fit(X, y)
    leaves = reference_leaves(model.tree_, X)
    np.testing.assert_array_equal(model.apply(X), leaves)
    np.testing.assert_array_equal(model.predict_proba(X), model.tree_.value[leaves])
    np.testing.assert_array_equal(
        model.predict(X), model.classes_[np.argmax(model.tree_.value[leaves], axis=1)])
    regressor = treesmith.DecisionTreeRegressor(max_depth=10, random_state=0).fit(X, y * 1.5)
    np.testing.assert_array_equal(regressor.predict(X),
                                  regressor.tree_.value[reference_leaves(regressor.tree_, X), 0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row", [0, LANES + 2, 3 * LANES + 1])  # in a block, in the tail
@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_infinity_is_rejected_during_the_walk_with_the_column_named(dtype, row, bad):
    """The walk counts rows holding ±inf in any column, used by the tree or not."""
    rng = np.random.default_rng(4)
    tree = random_tree(rng, 3, 2, max_depth=1, split_prob=1.0, thresholds=[0.0])
    X = rng.normal(size=(3 * LANES + 2, 3)).astype(dtype)
    unused = [j for j in range(3) if j != tree.feature[0]][-1]
    X[row, unused] = bad
    with pytest.raises(ValueError, match=rf"'x{unused}' \(column {unused}\).*infinite"):
        tree.apply(X)
    names = ["age", "height", "weight"]
    names[unused] = "glucose"
    with pytest.raises(ValueError, match=r"'glucose'"):
        tree.predict(X, feature_names=names)
    with pytest.raises(ValueError, match=rf"column {unused}"):
        tree.decision_path(X)


@pytest.mark.parametrize("n_rows", [5, 3001])  # the serial and the parallel walk
def test_the_categorical_walk_sends_values_that_are_not_codes_to_the_missing_side(n_rows):
    """``Tree.apply`` and ``decision_path`` on raw values at a split by a set of categories:
    NaN, fractions, negatives and values past 255 take the missing side, codes their set's
    side, as the plain reference walk says; the caller's X is left as it is."""
    from treesmith import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    n = 4000
    codes = rng.integers(0, 30, n).astype(float)
    codes[rng.random(n) < 0.1] = np.nan
    X = pd.DataFrame({"c": pd.Categorical(codes), "x": rng.normal(size=n)})
    y = ((np.nan_to_num(codes, nan=1) % 4 == 1) ^ (X["x"] > 0)).astype(int)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    assert tree.is_categorical_split.any()
    raw = np.column_stack([rng.choice([np.nan, -1.0, -0.0, 2.5, 255.0, 256.0, 1e300, 3.0, 7.0],
                                      n_rows), rng.normal(size=n_rows)])
    raw[: min(n_rows, 30), 0] = np.arange(min(n_rows, 30))
    before = raw.copy()
    expected = leaf_reference(raw, tree.children_left, tree.children_right, tree.feature,
                              tree.threshold, tree.missing_go_left, tree.left_categories)
    np.testing.assert_array_equal(tree.apply(raw), expected)
    paths = tree.decision_path(raw)
    np.testing.assert_array_equal(paths.indices[paths.indptr[1:] - 1], expected)
    np.testing.assert_array_equal(raw, before)
