"""The histogram pool: a tree grown with room for only a few histograms (so that pending nodes
drop theirs and their children are built from samples) equals the tree grown with a large pool,
depth-first and best-first; and the pool grows past its first allocation."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

import treesmith
from treesmith import grower


def _tree_arrays(model):
    tree = model.tree_
    return (tree.children_left, tree.children_right, tree.feature, tree.threshold,
            tree.missing_go_left, tree.value)


@pytest.mark.parametrize("max_leaf_nodes", [None, 40])
def test_small_pool_grows_the_same_tree(monkeypatch, max_leaf_nodes):
    X, y = make_classification(n_samples=3000, n_features=6, n_informative=4, n_classes=3,
                               random_state=0)
    X[::17, 2] = np.nan
    # Nodes of >= 256 samples keep histograms: lower the threshold so that most nodes do.
    monkeypatch.setattr(grower, "SMALL_NODE_SIZE", 8)
    params = {"max_leaf_nodes": max_leaf_nodes, "random_state": 0, "max_features": 4}
    reference = treesmith.DecisionTreeClassifier(**params).fit(X, y)
    assert reference.tree_.node_count > 40
    histogram_bytes = X.shape[1] * 256 * 6 * 8
    monkeypatch.setattr(grower, "HISTOGRAM_POOL_BYTES", 3 * histogram_bytes)
    small_pool = treesmith.DecisionTreeClassifier(**params).fit(X, y)
    for ours, theirs in zip(_tree_arrays(small_pool), _tree_arrays(reference)):
        np.testing.assert_array_equal(ours, theirs)


def test_histogram_outweighs_data_compares_one_histogram_with_the_binned_data():
    # 50 features x 256 bins x 40 statistics (20 classes) x 8 bytes = 4 096 000 bytes
    histogram_bytes = 50 * 256 * 40 * 8
    assert grower._histogram_outweighs_data(histogram_bytes, 5000 * 50)  # 16x the data
    assert not grower._histogram_outweighs_data(histogram_bytes, 200_000 * 50)
    limit = histogram_bytes // grower.HISTOGRAM_DATA_RATIO
    assert not grower._histogram_outweighs_data(histogram_bytes, limit)
    assert grower._histogram_outweighs_data(histogram_bytes, limit - 1)
    never = np.iinfo(np.int64).max
    assert grower._small_node_size(256, 40, histogram_bytes, binned_bytes=5000 * 50) == never
    assert grower._small_node_size(256, 40, histogram_bytes, binned_bytes=10**7) < 5000


@pytest.mark.parametrize("max_leaf_nodes", [None, 60])
def test_many_classes_without_the_pool_grow_the_pooled_tree(monkeypatch, max_leaf_nodes):
    X, y = make_classification(n_samples=5000, n_features=20, n_informative=12, n_classes=20,
                               n_clusters_per_class=1, random_state=0)
    X[::13, 3] = np.nan
    sizes = []
    small_node_size = grower._small_node_size

    def recording(*args, **kwargs):
        sizes.append(small_node_size(*args, **kwargs))
        return sizes[-1]

    monkeypatch.setattr(grower, "_small_node_size", recording)
    params = {"max_leaf_nodes": max_leaf_nodes, "random_state": 0}
    without_pool = treesmith.DecisionTreeClassifier(**params).fit(X, y)
    monkeypatch.setattr(grower, "HISTOGRAM_DATA_RATIO", 10**9)
    pooled = treesmith.DecisionTreeClassifier(**params).fit(X, y)
    never = np.iinfo(np.int64).max
    assert sizes[0] == never and sizes[1] < X.shape[0]  # the rule, then the pool
    assert without_pool.tree_.node_count > 100
    for ours, theirs in zip(_tree_arrays(without_pool), _tree_arrays(pooled)):
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(without_pool.predict_proba(X), pooled.predict_proba(X))
