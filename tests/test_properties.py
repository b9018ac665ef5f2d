"""Invariants of fitted trees on random data (hypothesis).

Structure: leaves = internal nodes + 1, children partition their parent, stored counts match
the training rows routed by ``apply``. Stopping rules: every leaf holds ``min_samples_leaf``
samples and ``min_weight_fraction_leaf`` weight; a node with p(S) <= θ
(``min_weight_fraction_split``, docs/methods.md §4) is never split. Prediction: ``predict_proba`` rows
sum to 1 and its columns follow ``classes_``. Reproducibility with ``random_state``. A fully
grown tree separates any data without duplicate rows.
"""

import numpy as np
from _oracle import node_members
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.base import clone

import treesmith

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LABEL_SETS = (np.array([-3, 5, 11]), np.array(["ant", "bee", "cat", "dog"]), np.array([0, 1]))

values = st.one_of(
    st.integers(-3, 3).map(float),
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
)


@st.composite
def classification_data(draw, missing=False, weighted=None, min_rows=2, max_rows=40):
    """(X, y, sample_weight or None) with non-contiguous or string labels."""
    n_rows = draw(st.integers(min_rows, max_rows))
    n_features = draw(st.integers(1, 4))
    X = draw(hnp.arrays(np.float64, (n_rows, n_features), elements=values))
    if missing:
        holes = draw(hnp.arrays(np.bool_, (n_rows, n_features), elements=st.booleans()))
        X = np.where(holes & (np.arange(n_rows)[:, None] % 3 == 0), np.nan, X)
    labels = draw(st.sampled_from(LABEL_SETS))
    y = labels[draw(hnp.arrays(np.int64, n_rows, elements=st.integers(0, len(labels) - 1)))]
    if weighted is None:
        weighted = draw(st.booleans())
    w = draw(hnp.arrays(np.float64, n_rows, elements=st.floats(0.1, 10.0))) if weighted else None
    return X, y, w


tree_params = st.fixed_dictionaries({
    "criterion": st.sampled_from(["gini", "entropy", "misclassification"]),
    "max_depth": st.one_of(st.none(), st.integers(1, 6)),
    "min_samples_split": st.integers(2, 6),
    "min_samples_leaf": st.integers(1, 5),
    "min_weight_fraction_leaf": st.sampled_from([0.0, 0.05, 0.2]),
    "min_weight_fraction_split": st.sampled_from([0.0, 0.1, 0.3, 0.6]),
    "max_leaf_nodes": st.one_of(st.none(), st.integers(2, 8)),
    "max_bins": st.sampled_from([None, 2, 3, 255]),
})


def _weights(w, n):
    return np.ones(n) if w is None else np.asarray(w, dtype=float)


@SETTINGS
@given(data=classification_data(missing=True), params=tree_params)
def test_structure_and_stopping_rules(data, params):
    X, y, w = data
    est = treesmith.DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
    tree, weights = est.tree_, _weights(w, len(y))
    internal = tree.children_left != -1
    leaves = ~internal
    assert leaves.sum() == internal.sum() + 1
    assert est.get_n_leaves() == leaves.sum()
    assert est.get_depth() == tree.depth.max()

    path = est.decision_path(X).tocsc()
    total = weights.sum()
    for node in range(tree.node_count):
        rows = node_members(path, node)
        assert tree.n_node_samples[node] == len(rows)
        assert np.isclose(tree.weighted_n_node_samples[node], weights[rows].sum(), rtol=1e-10)
        if internal[node]:
            left, right = tree.children_left[node], tree.children_right[node]
            assert tree.n_node_samples[left] + tree.n_node_samples[right] == len(rows)
            assert tree.depth[left] == tree.depth[right] == tree.depth[node] + 1
            assert weights[rows].sum() / total > params["min_weight_fraction_split"], (
                f"node {node} with p(S) <= theta was split")
            assert len(rows) >= params["min_samples_split"]
            if params["max_depth"] is not None:
                assert tree.depth[node] < params["max_depth"]
        elif node != 0:
            assert len(rows) >= params["min_samples_leaf"], f"leaf {node}"
            assert weights[rows].sum() >= params["min_weight_fraction_leaf"] * total * (1 - 1e-12)
    if params["max_leaf_nodes"] is not None:
        assert leaves.sum() <= params["max_leaf_nodes"]
    leaf_of_row = est.apply(X)
    assert np.all(leaves[leaf_of_row])


@SETTINGS
@given(data=classification_data(missing=True), params=tree_params)
def test_predict_proba_sums_to_one_and_follows_classes(data, params):
    X, y, w = data
    est = treesmith.DecisionTreeClassifier(**params).fit(X, y, sample_weight=w)
    weights = _weights(w, len(y))
    np.testing.assert_array_equal(est.classes_, np.unique(y))
    proba = est.predict_proba(X)
    assert proba.shape == (len(y), len(est.classes_))
    assert np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    # each row's probabilities are the weighted class fractions of its training leaf
    leaf_of_row = est.apply(X)
    for leaf in np.unique(leaf_of_row):
        in_leaf = leaf_of_row == leaf
        expected = np.array([weights[in_leaf & (y == c)].sum() for c in est.classes_])
        np.testing.assert_allclose(proba[in_leaf], np.tile(expected / expected.sum(),
                                                           (in_leaf.sum(), 1)), atol=1e-12)
    prediction = est.predict(X)
    np.testing.assert_array_equal(prediction, est.classes_[np.argmax(proba, axis=1)])
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(est.predict_log_proba(X), np.log(proba))


@SETTINGS
@given(data=classification_data(missing=True, min_rows=5),
       max_features=st.sampled_from([1, 0.5, 0.7, "sqrt", "log2"]),
       seed=st.integers(0, 2**31 - 1))
def test_same_random_state_gives_the_same_tree(data, max_features, seed):
    X, y, w = data
    est = treesmith.DecisionTreeClassifier(max_features=max_features, random_state=seed)
    first = est.fit(X, y, sample_weight=w).tree_
    second = clone(est).fit(X, y, sample_weight=w).tree_
    third = est.fit(X, y, sample_weight=w).tree_
    for other in (second, third):
        assert other.node_count == first.node_count
        for name in ("children_left", "children_right", "feature", "threshold",
                     "missing_go_left", "impurity", "n_node_samples", "value"):
            np.testing.assert_array_equal(getattr(other, name), getattr(first, name), err_msg=name)


def _distinct_rows(X, y, w):
    """Keep the first of every group of identical rows (NaN == NaN for this purpose)."""
    keys = [tuple(np.where(np.isnan(row), np.inf, row)) for row in X]
    _, first = np.unique(np.array(keys), axis=0, return_index=True)
    first = np.sort(first)
    assume(len(first) >= 2)  # a split needs two distinct rows
    return X[first], y[first], None if w is None else w[first]


@SETTINGS
@given(data=classification_data(missing=False),
       criterion=st.sampled_from(["gini", "entropy", "misclassification"]))
def test_fully_grown_tree_fits_distinct_rows(data, criterion):
    X, y, w = _distinct_rows(*data)
    est = treesmith.DecisionTreeClassifier(criterion=criterion).fit(X, y, sample_weight=w)
    assert est.score(X, y) == 1.0


@SETTINGS
@given(data=classification_data(missing=True))
def test_fully_grown_tree_fits_distinct_rows_with_missing_values(data):
    X, y, w = _distinct_rows(*data)
    est = treesmith.DecisionTreeClassifier().fit(X, y, sample_weight=w)
    assert est.score(X, y) == 1.0


@SETTINGS
@given(data=classification_data(missing=True), max_bins=st.sampled_from([None, 3, 255]))
def test_regression_leaves_predict_the_weighted_mean(data, max_bins):
    X, _, w = data
    y = np.round(X[:, 0] * 0.5, 1)
    y = np.where(np.isnan(y), 7.0, y) + np.arange(len(y)) % 3
    est = treesmith.DecisionTreeRegressor(max_bins=max_bins).fit(X, y, sample_weight=w)
    tree, weights = est.tree_, _weights(w, len(y))
    assert (tree.children_left == -1).sum() == (tree.children_left != -1).sum() + 1
    leaf_of_row = est.apply(X)
    prediction = est.predict(X)
    for leaf in np.unique(leaf_of_row):
        in_leaf = leaf_of_row == leaf
        mean = np.sum(weights[in_leaf] * y[in_leaf]) / weights[in_leaf].sum()
        np.testing.assert_allclose(prediction[in_leaf], mean, rtol=1e-9, atol=1e-12)


@SETTINGS
@given(data=classification_data(missing=False))
def test_fully_grown_regressor_fits_distinct_rows(data):
    X, _, w = _distinct_rows(*data)
    y = np.arange(len(X), dtype=float) ** 1.5
    est = treesmith.DecisionTreeRegressor().fit(X, y, sample_weight=w)
    # leaf sums may come from parent - sibling histograms: round-off relative to the labels' scale
    np.testing.assert_allclose(est.predict(X), y, rtol=1e-9, atol=1e-12 * np.abs(y).max())
