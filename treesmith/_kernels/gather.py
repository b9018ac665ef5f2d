"""The training data of one subtree, gathered into arrays of its own.

A subtree grown apart (``treesmith.grower``, ``records.GrowthScope``) reads only the rows
``data.sample_idx[start:end]``. In the full arrays those rows are scattered: every small-node
histogram reads one byte per sample and feature from a different cache line of a binned matrix
that does not fit in the caches (50 MB at 1e6 x 50). Gathered once, in the order of
``sample_idx``, the subtree's rows fill a few hundred kilobytes that stay in the core's cache
for the whole subtree. The subtree then sees samples ``0 .. end - start - 1`` in the same order
as before, so every sum is taken in the same order and the tree is the same.
"""

import numpy as np
from numba import njit

from .records import TrainingData


@njit(cache=True, nogil=True)
def gather_subtree(data, start, end):
    """``data`` (``records.TrainingData``) restricted to rows ``data.sample_idx[start:end]``,
    renumbered ``0 .. end - start - 1`` in that order; ``X_binned`` stays in Fortran order (the
    type the growth loop is compiled for)."""
    n = end - start
    X_binned = data.X_binned
    n_features = X_binned.shape[1]
    rows = data.sample_idx[start:end]
    X_local = np.empty((n_features, n), dtype=X_binned.dtype).T
    for f in range(n_features):
        for t in range(n):
            X_local[t, f] = X_binned[rows[t], f]
    y_code = np.empty(n if data.y_code.shape[0] > 0 else 0, dtype=np.int64)
    sample_weight = np.empty(n)
    for t in range(n):
        sample_weight[t] = data.sample_weight[rows[t]]
    for t in range(y_code.shape[0]):
        y_code[t] = data.y_code[rows[t]]
    n_stats = data.sample_stats.shape[1]
    sample_stats = np.empty((n if data.sample_stats.shape[0] > 0 else 0, n_stats))
    for t in range(sample_stats.shape[0]):
        for s in range(n_stats):
            sample_stats[t, s] = data.sample_stats[rows[t], s]
    group_code = np.empty(n if data.group_code.shape[0] > 0 else 0, dtype=np.int64)
    for t in range(group_code.shape[0]):
        group_code[t] = data.group_code[rows[t]]
    return TrainingData(X_local, np.arange(n), y_code, sample_weight, sample_stats, group_code,
                        data.n_classes)
