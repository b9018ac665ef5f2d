"""Held-out loss of every tree of a nested pruning sequence, sample by sample.

A sequence ``T_0 ⊃ T_1 ⊃ ...`` is given by the nodes collapsed at each step. A sample's leaf in
``T_k`` is the last collapsed node (within the first k steps) on its path, or its leaf in T_0:
later collapses are ancestors or disjoint, so replaying the steps and overwriting the leaf of the
samples below each collapsed node costs O(sum of subtree populations), not O(k · n).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..tree import Tree
from ._node_statistics import is_classification, predicted_class


def steps_applied(step_alphas: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """Number of leading steps taken when pruning at each ``alpha``.

    Pruning at alpha collapses weakest links while their strength is <= alpha, so it stops at the
    first step whose strength exceeds alpha (scikit-learn's rule); ``step_alphas`` may wobble by
    rounding, hence the running maximum.
    """
    if step_alphas.size == 0:
        return np.zeros(np.shape(alphas), dtype=np.int64)
    running_max = np.maximum.accumulate(step_alphas)
    return np.searchsorted(running_max, alphas, side="right").astype(np.int64)


def sequence_losses(tree: Tree, step_nodes: np.ndarray, n_steps: np.ndarray,
                    node_indicator: sp.spmatrix, target: np.ndarray) -> np.ndarray:
    """Unweighted loss of each sample under the tree after ``n_steps[j]`` steps, (n, len(n_steps)).

    Classification (``target`` = class codes, -1 for an unseen class): 0/1 error of the leaf's
    class. Regression (``target`` = labels): squared error around the leaf's mean.
    ``n_steps`` must be non-decreasing.
    """
    n_steps = np.asarray(n_steps, dtype=np.int64)
    if np.any(np.diff(n_steps) < 0):
        raise ValueError("n_steps must be non-decreasing")
    indicator = sp.csr_matrix(node_indicator)
    n_samples = indicator.shape[0]
    if np.any(np.diff(indicator.indptr) == 0):
        raise ValueError("node_indicator has a sample that reaches no node")
    # Ids increase along a path, so a sample's leaf is the largest id in its row.
    leaf = np.maximum.reduceat(indicator.indices, indicator.indptr[:-1]).astype(np.int64)
    below = sp.csc_matrix(indicator)
    if is_classification(tree):
        prediction = predicted_class(tree)

        def loss(leaves):
            return (prediction[leaves] != target).astype(np.float64)
    else:
        mean = tree.value[:, 0]

        def loss(leaves):
            return (target - mean[leaves]) ** 2

    losses = np.empty((n_samples, n_steps.size))
    taken = 0
    for j, wanted in enumerate(n_steps):
        while taken < wanted:
            node = step_nodes[taken]
            rows = below.indices[below.indptr[node]:below.indptr[node + 1]]
            leaf[rows] = node
            taken += 1
        losses[:, j] = loss(leaf)
    return losses


def weighted_mean_and_se(losses: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise weighted mean loss and its standard error sqrt(var / n).

    For 0/1 losses with unit weights this is Breiman's SE = sqrt(R (1 - R) / N) (CART §3.4).
    """
    total = weight.sum()
    if total <= 0:
        raise ValueError("the held-out samples have zero total weight")
    mean = weight @ losses / total
    variance = weight @ (losses - mean) ** 2 / total
    return mean, np.sqrt(variance / losses.shape[0])
