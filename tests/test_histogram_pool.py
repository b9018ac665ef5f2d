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
