"""Compiled traversal of a fitted tree: leaf lookup and decision paths.

Prediction walks a packed copy of the tree, one 24-byte record per node (``NODE_RECORD``), so
that each visited node costs one cache line rather than one per parallel array: on deep trees
the traversal is bound by these memory accesses. Thresholds are compared in float64
(``x <= threshold`` goes left); NaN follows the node's learned missing-value side.
"""

import numpy as np
from numba import njit, prange

#: One node for traversal: children (-1 for a leaf), feature, missing side, threshold.
NODE_RECORD = np.dtype([("threshold", np.float64), ("left", np.int32), ("right", np.int32),
                        ("feature", np.int32), ("missing_go_left", np.uint8)], align=True)


def pack_nodes(children_left, children_right, feature, threshold, missing_go_left):
    """The tree's traversal fields as an array of ``NODE_RECORD``."""
    nodes = np.empty(children_left.shape[0], dtype=NODE_RECORD)
    nodes["threshold"] = threshold
    nodes["left"] = children_left
    nodes["right"] = children_right
    nodes["feature"] = np.maximum(feature, 0)
    nodes["missing_go_left"] = missing_go_left
    return nodes


@njit(cache=True, nogil=True, inline="always")
def _next_node(nodes, node, row):
    value = row[nodes[node].feature]
    if np.isnan(value):
        go_left = nodes[node].missing_go_left != 0
    else:
        go_left = value <= nodes[node].threshold
    return nodes[node].left if go_left else nodes[node].right


@njit(cache=True, parallel=True)
def apply_rows(X, nodes, out):
    """Leaf index of every row of ``X`` (IN float32/float64 2-D; OUT ``out`` int64)."""
    for i in prange(X.shape[0]):
        row = X[i]
        node = 0
        while nodes[node].left >= 0:
            node = _next_node(nodes, node, row)
        out[i] = node


@njit(cache=True, parallel=True)
def path_lengths(X, nodes, out):
    """Number of nodes on each row's root-to-leaf path (OUT ``out`` int64)."""
    for i in prange(X.shape[0]):
        row = X[i]
        node = 0
        length = 1
        while nodes[node].left >= 0:
            node = _next_node(nodes, node, row)
            length += 1
        out[i] = length


@njit(cache=True, parallel=True)
def fill_paths(X, nodes, indptr, indices):
    """Write the node ids of each row's path into ``indices[indptr[i]:indptr[i+1]]`` (CSR)."""
    for i in prange(X.shape[0]):
        row = X[i]
        node = 0
        position = indptr[i]
        indices[position] = 0
        while nodes[node].left >= 0:
            node = _next_node(nodes, node, row)
            position += 1
            indices[position] = node
