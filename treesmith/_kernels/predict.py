"""Compiled traversal of a fitted tree: leaf lookup and decision paths.

Thresholds are compared in float64 (``x <= threshold`` goes left); NaN follows the node's
learned missing-value side.
"""

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def _leaf_of_row(row, children_left, children_right, feature, threshold, missing_go_left):
    node = 0
    while children_left[node] >= 0:
        value = row[feature[node]]
        if np.isnan(value):
            go_left = missing_go_left[node]
        else:
            go_left = value <= threshold[node]
        node = children_left[node] if go_left else children_right[node]
    return node


@njit(cache=True, parallel=True)
def apply_rows(X, children_left, children_right, feature, threshold, missing_go_left, out):
    """Leaf index of every row of ``X`` (IN float64 2-D; OUT ``out`` int64, one per row)."""
    for i in prange(X.shape[0]):
        out[i] = _leaf_of_row(
            X[i], children_left, children_right, feature, threshold, missing_go_left
        )


@njit(cache=True, parallel=True)
def path_lengths(X, children_left, children_right, feature, threshold, missing_go_left, out):
    """Number of nodes on each row's root-to-leaf path (OUT ``out`` int64)."""
    for i in prange(X.shape[0]):
        row = X[i]
        node = 0
        length = 1
        while children_left[node] >= 0:
            value = row[feature[node]]
            if np.isnan(value):
                go_left = missing_go_left[node]
            else:
                go_left = value <= threshold[node]
            node = children_left[node] if go_left else children_right[node]
            length += 1
        out[i] = length


@njit(cache=True, parallel=True)
def fill_paths(X, children_left, children_right, feature, threshold, missing_go_left,
               indptr, indices):
    """Write the node ids of each row's path into ``indices[indptr[i]:indptr[i+1]]`` (CSR)."""
    for i in prange(X.shape[0]):
        row = X[i]
        node = 0
        position = indptr[i]
        indices[position] = 0
        while children_left[node] >= 0:
            value = row[feature[node]]
            if np.isnan(value):
                go_left = missing_go_left[node]
            else:
                go_left = value <= threshold[node]
            node = children_left[node] if go_left else children_right[node]
            position += 1
            indices[position] = node
