"""Compiled traversal of a fitted tree: leaf lookup and decision paths.

Prediction walks a packed copy of the tree, one 24-byte record per node (``NODE_RECORD``), so
that each visited node costs one cache line rather than one per parallel array. Thresholds are
compared in float64 (``x <= threshold`` goes left, a float32 value is widened exactly); NaN
follows the node's learned missing-value side.

A row's descent is a chain of dependent loads (node record -> feature value -> next node), so
one row at a time leaves the core waiting on latency and, where the child is chosen by a
branch, on a misprediction at about every other level. ``apply_rows`` therefore walks
``LANES`` rows together and chooses children without branches: leaves point to themselves
(``pack_nodes``), so a row that has reached its leaf keeps stepping in place until every row of
its block has, and the block checks for that once every ``STEPS_PER_CHECK`` levels. The choice
``left if go_left else right`` with ``go_left`` computed by ``|`` and ``&`` (not ``if``/``or``)
is what LLVM turns into a conditional move here; with a branch on NaN, or with the exit test
after every level, it compiled to branches again and the walk took twice as long. The kernel
only writes leaf ids: looking up per-leaf outputs inside it made a full-depth walk 30% slower
than ``numpy.take`` afterwards, and every output dtype was one more compilation.

A tree with splits by sets of categories (docs/methods.md §11) is walked by
``apply_rows_categorical``, the same blocks with a step that also reads the node's category
set (``_next_node_categorical``, branch-free too): the numeric walk above stays as it is for
trees without them.
"""

import numpy as np
from numba import njit, prange

from .decorators import internal_kernel

#: One node for traversal: children (the node itself for a leaf), feature, missing side,
#: threshold, and whether the node splits by a set of categories (in the record's padding: still
#: 24 bytes). Ids are unsigned, so indexing with them needs no negative-index wraparound test
#: (with int32 ids the walk took 15-20% longer).
NODE_RECORD = np.dtype([("threshold", np.float64), ("left", np.uint32), ("right", np.uint32),
                        ("feature", np.uint32), ("missing_go_left", np.uint8),
                        ("categorical", np.uint8)], align=True)

#: Rows walked together by ``apply_rows`` (the unrolled lanes of ``_descend_block``).
LANES = 8
#: Levels descended between two "has every row of the block reached its leaf?" tests.
STEPS_PER_CHECK = 4


def pack_nodes(children_left, children_right, feature, threshold, missing_go_left,
               categorical=None):
    """The tree's traversal fields as an array of ``NODE_RECORD``; a leaf is its own child.
    ``categorical`` (bool per node, default none) marks splits by a set of categories.

    Node ids are the tree's own, so children still follow their parents and a descent ends.
    """
    nodes = np.empty(children_left.shape[0], dtype=NODE_RECORD)
    leaf = children_left < 0
    ids = np.arange(children_left.shape[0])
    is_categorical = np.zeros(leaf.shape[0], dtype=bool) if categorical is None else (
        ~leaf & categorical)
    # -inf at a split by a set of categories: the walk's numeric test is then false there
    nodes["threshold"] = np.where(leaf, np.inf, np.where(is_categorical, -np.inf, threshold))
    nodes["left"] = np.where(leaf, ids, children_left)
    nodes["right"] = np.where(leaf, ids, children_right)
    nodes["feature"] = np.where(leaf, 0, feature)
    nodes["missing_go_left"] = leaf | missing_go_left
    nodes["categorical"] = is_categorical
    return nodes


@internal_kernel
def _next_node(nodes, left_categories, node, row):
    """Child of ``node`` that ``row`` goes to (``node`` itself at a leaf), branch-free, in a
    tree without splits by sets of categories (``left_categories`` is not read)."""
    value = np.float64(row[nodes[node]["feature"]])
    go_left = (value <= nodes[node]["threshold"]) | (
        np.isnan(value) & (nodes[node]["missing_go_left"] != 0))
    return nodes[node]["left"] if go_left else nodes[node]["right"]


@internal_kernel
def _next_node_categorical(nodes, left_categories, node, row):
    """``_next_node`` for trees with splits by sets of categories (``left_categories`` uint64
    (n_nodes, 4)): at such a node a category code goes left when it is in the node's set and
    NaN goes to the missing side. The values of a categorical split's feature must be NaN or
    codes 0..255 (``non_code_rows`` finds others; ``Tree`` makes them NaN first).

    Branch-free as ``_next_node``: a category set sends rows left and right in no order a
    branch predictor learns, and a branch per node (categorical or not, code or NaN) made the
    walk 2.4x slower. ``pack_nodes`` gives a categorical node the threshold -inf, so the
    numeric test is false there but for NaN; the set test is computed at every node, its
    index clamped to the set's 256 bits (NaN reads bit 0), and counts only at categorical
    nodes."""
    value = np.float64(row[nodes[node]["feature"]])
    is_nan = np.isnan(value)
    code = np.int64(np.fmin(np.fmax(value, 0.0), 255.0))  # fmax: NaN gives 0
    in_set = ((left_categories[node, code >> 6] >> np.uint64(code & 63))
              & np.uint64(1)) != np.uint64(0)
    categorical = nodes[node]["categorical"] != 0
    go_left = ((value <= nodes[node]["threshold"])
               | (is_nan & (nodes[node]["missing_go_left"] != 0))
               | (categorical & ~is_nan & in_set))
    return nodes[node]["left"] if go_left else nodes[node]["right"]


@njit(cache=True, nogil=True)
def non_code_rows(X, features):
    """Whether some value of ``X[:, features]`` is neither NaN nor a category code 0..255:
    the values ``_next_node_categorical`` cannot read (they take the missing side)."""
    for i in range(X.shape[0]):
        for f in features:
            value = X[i, f]
            if not (np.isnan(value) or (value >= 0.0 and value < 256.0
                                        and value == np.floor(value))):
                return True
    return False


@internal_kernel
def _is_leaf(nodes, node):
    return nodes[node]["left"] == node


@njit(cache=True, nogil=True, inline="always")
def _descend_row(next_node, nodes, left_categories, row):
    """Leaf ``row`` reaches, stepping with ``next_node`` (``_next_node`` or
    ``_next_node_categorical``: Numba compiles one copy per step function)."""
    node = np.uint32(0)
    while not _is_leaf(nodes, node):
        node = next_node(nodes, left_categories, node, row)
    return node


@njit(cache=True, nogil=True, inline="always")
def _descend_block(next_node, nodes, left_categories, X, start):
    """Leaves of rows ``start .. start + 7`` (``LANES``), descended level by level together
    with ``next_node``."""
    r0, r1, r2, r3 = X[start], X[start + 1], X[start + 2], X[start + 3]
    r4, r5, r6, r7 = X[start + 4], X[start + 5], X[start + 6], X[start + 7]
    n0 = n1 = n2 = n3 = n4 = n5 = n6 = n7 = np.uint32(0)
    while True:
        for _ in range(STEPS_PER_CHECK):
            n0 = next_node(nodes, left_categories, n0, r0)
            n1 = next_node(nodes, left_categories, n1, r1)
            n2 = next_node(nodes, left_categories, n2, r2)
            n3 = next_node(nodes, left_categories, n3, r3)
            n4 = next_node(nodes, left_categories, n4, r4)
            n5 = next_node(nodes, left_categories, n5, r5)
            n6 = next_node(nodes, left_categories, n6, r6)
            n7 = next_node(nodes, left_categories, n7, r7)
        if (_is_leaf(nodes, n0) & _is_leaf(nodes, n1) & _is_leaf(nodes, n2)
                & _is_leaf(nodes, n3) & _is_leaf(nodes, n4) & _is_leaf(nodes, n5)
                & _is_leaf(nodes, n6) & _is_leaf(nodes, n7)):
            return n0, n1, n2, n3, n4, n5, n6, n7


@internal_kernel
def _n_rows_with_infinity(X, start, stop):
    n_rows = 0
    for i in range(start, stop):
        found = False
        for j in range(X.shape[1]):
            found |= np.isinf(X[i, j])
        n_rows += found
    return n_rows


@njit(cache=True, nogil=True, inline="always")
def _apply(next_node, X, nodes, left_categories, out):
    """The walk of ``apply_rows`` with the step ``next_node``, inlined into each kernel (its
    ``prange`` is then the kernel's parallel loop)."""
    n_rows = X.shape[0]
    n_blocks = n_rows // LANES
    n_infinite = 0
    for block in prange(n_blocks):
        start = block * LANES
        n_infinite += _n_rows_with_infinity(X, start, start + LANES)
        n0, n1, n2, n3, n4, n5, n6, n7 = _descend_block(next_node, nodes, left_categories, X,
                                                        start)
        out[start] = n0
        out[start + 1] = n1
        out[start + 2] = n2
        out[start + 3] = n3
        out[start + 4] = n4
        out[start + 5] = n5
        out[start + 6] = n6
        out[start + 7] = n7
    n_infinite += _n_rows_with_infinity(X, n_blocks * LANES, n_rows)
    for i in range(n_blocks * LANES, n_rows):
        out[i] = _descend_row(next_node, nodes, left_categories, X[i])
    return n_infinite


@njit(cache=True, parallel=True)
def apply_rows(X, nodes, left_categories, out):
    """Index of the leaf each row of ``X`` reaches; returns the number of rows holding +-inf.

    IN X float32/float64 (n_rows, n_features); nodes ``NODE_RECORD`` from ``pack_nodes``;
    left_categories uint64 (n_nodes, 4), not read (the tree has no split by a set of
    categories: ``apply_rows_categorical`` walks those).
    OUT out int64 (n_rows,).
    The infinity count reads each block's rows just before the walk needs them, so it costs
    next to nothing here, where a separate pass over X is a read of all of X from memory.
    """
    return _apply(_next_node, X, nodes, left_categories, out)


@njit(cache=True, parallel=True)
def apply_rows_categorical(X, nodes, left_categories, out):
    """``apply_rows`` for a tree with splits by sets of categories (``left_categories``
    uint64 (n_nodes, 4)): the same blocks of ``LANES`` rows, with ``_next_node_categorical``."""
    return _apply(_next_node_categorical, X, nodes, left_categories, out)


@njit(cache=True, parallel=True)
def path_lengths(X, nodes, left_categories, out):
    """Number of nodes on each row's root-to-leaf path (OUT ``out`` int64); returns the number
    of rows holding +-inf."""
    n_infinite = 0
    for i in prange(X.shape[0]):
        n_infinite += _n_rows_with_infinity(X, i, i + 1)
        row = X[i]
        node = np.uint32(0)
        length = 1
        while not _is_leaf(nodes, node):
            node = _next_node_categorical(nodes, left_categories, node, row)
            length += 1
        out[i] = length
    return n_infinite


@njit(cache=True, parallel=True)
def fill_paths(X, nodes, left_categories, indptr, indices):
    """Write the node ids of each row's path into ``indices[indptr[i]:indptr[i+1]]`` (CSR)."""
    for i in prange(X.shape[0]):
        row = X[i]
        node = np.uint32(0)
        position = indptr[i]
        indices[position] = 0
        while not _is_leaf(nodes, node):
            node = _next_node_categorical(nodes, left_categories, node, row)
            position += 1
            indices[position] = node


def leaf_reference(X, children_left, children_right, feature, threshold, missing_go_left,
                   left_categories=None):
    """Naive reference of the traversal for the tests: one row at a time, in Python."""
    leaves = np.empty(X.shape[0], dtype=np.int64)
    for i, row in enumerate(np.asarray(X)):
        node = 0
        while children_left[node] >= 0:
            value = float(row[feature[node]])
            categories = None
            if left_categories is not None and left_categories[node].any():
                categories = {64 * w + b for w in range(4) for b in range(64)
                              if (int(left_categories[node][w]) >> b) & 1}
            if categories is not None:
                known = value == value and 0 <= value < 256 and value == int(value)
                go_left = int(value) in categories if known else bool(missing_go_left[node])
            elif np.isnan(value):
                go_left = bool(missing_go_left[node])
            else:
                go_left = value <= threshold[node]
            node = children_left[node] if go_left else children_right[node]
        leaves[i] = node
    return leaves
