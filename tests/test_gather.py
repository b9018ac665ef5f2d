"""gather_subtree: a subtree's rows copied in the order of sample_idx, renumbered from 0."""

import numpy as np
import pytest

from treesmith._kernels.gather import gather_subtree
from treesmith._kernels.records import TrainingData


@pytest.mark.parametrize("task", ["classification", "groups", "regression"])
def test_gathered_rows_are_the_subtree_rows_in_order(task):
    rng = np.random.default_rng(0)
    n, p = 300, 4
    X_binned = np.asfortranarray(rng.integers(0, 256, size=(n, p)).astype(np.uint8))
    y_code = rng.integers(0, 3, size=n).astype(np.int64)
    weight = rng.uniform(0.5, 2.0, size=n)
    sample_stats = np.zeros((0, 0))
    group_code = np.zeros(0, dtype=np.int64)
    n_classes = 3
    if task == "groups":
        group_code = rng.integers(0, 4, size=n).astype(np.int64)
    if task == "regression":
        sample_stats = np.ascontiguousarray(rng.normal(size=(n, 3)))
        y_code = np.zeros(0, dtype=np.int64)
        n_classes = 0
    sample_idx = rng.permutation(n).astype(np.int64)
    data = TrainingData(X_binned, sample_idx, y_code, weight, sample_stats, group_code,
                        n_classes)
    start, end = 40, 170
    rows = sample_idx[start:end]
    local = gather_subtree(data, start, end)
    assert local.X_binned.flags.f_contiguous and local.X_binned.dtype == np.uint8
    np.testing.assert_array_equal(local.X_binned, X_binned[rows])
    np.testing.assert_array_equal(local.sample_idx, np.arange(end - start))
    np.testing.assert_array_equal(local.sample_weight, weight[rows])
    np.testing.assert_array_equal(local.y_code, y_code[rows] if n_classes else y_code)
    np.testing.assert_array_equal(local.group_code,
                                  group_code[rows] if task == "groups" else group_code)
    if task == "regression":
        np.testing.assert_array_equal(local.sample_stats, sample_stats[rows])
    else:
        assert local.sample_stats.shape == (0, 0)
    assert local.n_classes == n_classes
