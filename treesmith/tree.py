"""The fitted tree: flat parallel arrays, one entry per node, node 0 the root.

The layout follows scikit-learn's ``Tree``: children are stored after their parents,
``children_left[i] == TREE_LEAF`` marks a leaf, and the arrays pickle as they are. Every
consumer (prediction, pruning, export, model files) works on this one structure.

A tree is immutable: :meth:`Tree.validate` checks its invariants when it is built (a tree the
growth loop built, valid by construction, before its first prediction), and the node arrays
are read-only views of private copies, so the compiled traversal (which has no bounds checks)
can only ever walk a validated tree. An edited tree is a new tree:
:meth:`Tree.collapse` for pruning, or ``Tree.from_arrays(**tree.to_arrays() edited)``.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from ._dtypes import TREE_LEAF, TREE_UNDEFINED
from ._kernels import predict as _predict
from ._kernels.pointers import serial_twin
from .binning import as_float_array, check_no_infinity

#: Names of the per-node arrays, in the order they are documented and serialised.
NODE_ARRAYS = (
    "children_left",
    "children_right",
    "feature",
    "threshold",
    "bin_threshold",
    "missing_go_left",
    "impurity",
    "n_node_samples",
    "weighted_n_node_samples",
    "value",
    "class_counts",
    "depth",
    "left_categories",
)


_TWO_DIMENSIONAL = ("value", "class_counts", "left_categories")
#: Arrays a tree may be built without: their default for ``n_nodes`` nodes (trees of model
#: files written before categorical splits have no ``left_categories``).
_OPTIONAL_ARRAYS = {
    "left_categories": lambda n_nodes: np.zeros((n_nodes, 4), dtype=np.uint64),
}

#: Inputs with fewer rows are walked on the calling thread, by the traversal kernels' serial
#: twins (``pointers.serial_twin``): 2 000 rows of a 20-feature, full-depth tree take about
#: 0.1 ms on one thread, what waking the threads costs on an idle machine (far more on a busy
#: one), and a first predict on small data does not compile the parallel regions.
PARALLEL_PREDICT_ROWS = 2048


def _traversal(kernel, n_rows):
    """``kernel`` (``_predict``'s parallel traversals), or its serial twin for inputs of fewer
    than ``PARALLEL_PREDICT_ROWS`` rows or on one thread: the same result."""
    if n_rows < PARALLEL_PREDICT_ROWS or numba.get_num_threads() == 1:
        return serial_twin(kernel)
    return kernel


def _read_only_copy(name: str, array) -> np.ndarray:
    """A read-only view of a private copy of ``array``: the view cannot be made writable again
    (its base is read-only), and nothing outside the tree holds the copy."""
    if not isinstance(array, np.ndarray):
        raise ValueError(f"tree array {name!r} must be a numpy array, got {type(array).__name__}")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"tree array {name!r} must be numeric, got dtype {array.dtype}")
    private = np.array(array, copy=True)
    private.flags.writeable = False
    return private.view()


def goes_left(values, threshold, missing_go_left, left_categories) -> np.ndarray:
    """Whether each value of a node's feature goes to its left child: ``x <= threshold``, or
    for a split by a set of categories (``left_categories`` not all zero) x a category code in
    the set; NaN, and for categories any value that is not a code 0..255, takes the missing
    side. The Python routing of pruning and lazy prediction; the compiled walk is
    ``treesmith._kernels.predict``."""
    values = np.asarray(values, dtype=np.float64)
    missing = np.isnan(values)
    if np.any(left_categories):
        known = ~missing & (values >= 0) & (values < 256) & (values == np.floor(values))
        codes = np.where(known, values, 0).astype(np.int64)
        words = np.asarray(left_categories, dtype=np.uint64)[codes >> 6]
        inside = ((words >> (codes & 63).astype(np.uint64)) & np.uint64(1)) != 0
        return np.where(known, inside, bool(missing_go_left))
    with np.errstate(invalid="ignore"):
        return np.where(missing, bool(missing_go_left), values <= threshold)


class Tree:
    """Array-based binary decision tree.

    Attributes (one row per node):
        children_left, children_right : int64, child ids or ``TREE_LEAF`` (-1) for leaves.
        feature : int64, column tested (``TREE_UNDEFINED`` (-2) for leaves).
        threshold : float64, test ``x[feature] <= threshold`` in original units (NaN for leaves).
        bin_threshold : int64, the same test on binned data (``bin <= bin_threshold``; -1 for leaves).
        missing_go_left : bool, side taken by a missing (NaN) value.
        impurity : float64, impurity of the node under the training criterion.
        n_node_samples : int64, unweighted number of training samples reaching the node.
        weighted_n_node_samples : float64, their total weight.
        value : float64 ``(n_nodes, n_outputs)``, class proportions (classification) or mean label.
        class_counts : float64 ``(n_nodes, n_classes)``, unweighted training samples per class
            (``(n_nodes, 0)`` for regression).
        depth : int64, depth of the node (root 0).
        left_categories : uint64 ``(n_nodes, 4)``, the categories a split by a set of categories
            sends left, as a 256-bit set (bit ``c & 63`` of word ``c >> 6`` for category code
            c); zeros for numeric splits and leaves. Such a node's ``threshold`` is NaN and its
            ``bin_threshold`` -2; its feature's values are category codes (NaN, or a value that
            is not a known code, is missing and takes ``missing_go_left``).

    The tree is immutable once built: the arrays are read-only views of copies taken at
    construction, and assigning a node array (or ``n_features``/``n_classes``) raises. To edit,
    take writable copies with :meth:`to_arrays` and build a new tree with :meth:`from_arrays`,
    which validates it; pruning uses :meth:`collapse`. Prediction keeps a packed copy of the
    traversal fields, built once from the validated arrays.
    """

    def __init__(self, n_features: int, n_classes: int, _adopt=False, **arrays):
        n_nodes = np.shape(arrays.get("children_left", ()))[:1] or (0,)
        for name, default in _OPTIONAL_ARRAYS.items():
            if name not in arrays:
                arrays[name] = default(n_nodes[0])
        missing = [name for name in NODE_ARRAYS if name not in arrays]
        unknown = sorted(set(arrays) - set(NODE_ARRAYS))
        if missing or unknown:
            raise ValueError(f"a tree needs exactly the arrays {list(NODE_ARRAYS)}; missing "
                             f"{missing}, unknown {unknown}")
        set_attribute = super().__setattr__
        set_attribute("n_features", int(n_features))
        set_attribute("n_classes", int(n_classes))  # 0 for regression
        for name in NODE_ARRAYS:
            array = arrays[name]
            if _adopt and isinstance(array, np.ndarray) and array.base is None:
                array.flags.writeable = False  # a fresh array nobody else holds: no copy
                set_attribute(name, array.view())
            else:
                set_attribute(name, _read_only_copy(name, array))
        if not _adopt:
            self.validate()

    def __setattr__(self, name, value):
        if name in NODE_ARRAYS or name in ("n_features", "n_classes"):
            raise AttributeError(
                f"Tree.{name} is read-only: a fitted tree is immutable. Edit copies from "
                f"tree.to_arrays() and build a new tree with Tree.from_arrays(n_features, "
                f"n_classes, **arrays) (validated), or use tree.collapse(nodes) to prune.")
        super().__setattr__(name, value)

    @classmethod
    def _adopting(cls, n_features: int, n_classes: int, **arrays) -> "Tree":
        """A tree that takes ownership of freshly made arrays instead of copying them (the
        grower's: with many classes, ``value`` and ``class_counts`` are the largest arrays of
        a fit). The caller must hold no other reference to them.

        The growth loop's trees are valid by construction (``tests/test_growth.py`` checks
        them): they are validated before their first prediction (``_packed``), not here, where
        it cost a tenth of a fit on iris."""
        return cls(n_features, n_classes, _adopt=True, **arrays)

    @classmethod
    def from_arrays(cls, n_features: int, n_classes: int, **arrays) -> "Tree":
        """A validated tree from node arrays (copied; the caller's arrays are not kept).

        Raises ``ValueError`` naming the broken invariant (a child before its parent, a
        feature outside ``[0, n_features)``, a cycle, ...)."""
        return cls(n_features, n_classes, **arrays)

    def to_arrays(self) -> dict:
        """Writable copies of the node arrays, keyed by name (for :meth:`from_arrays`)."""
        return {name: np.array(getattr(self, name), copy=True) for name in NODE_ARRAYS}

    # -- structure ------------------------------------------------------------------------
    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def is_leaf(self) -> np.ndarray:
        return self.children_left == TREE_LEAF

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.is_leaf))

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if self.node_count else 0

    @property
    def weighted_value(self) -> np.ndarray:
        """Per-class training weight of each node (classification), value x node weight."""
        return self.value * self.weighted_n_node_samples[:, None]

    @property
    def is_categorical_split(self) -> np.ndarray:
        """Whether each node splits by a set of categories (``left_categories``)."""
        return self._cached("_categorical_split", lambda: self.left_categories.any(axis=1))

    def categories_left(self, node: int) -> np.ndarray:
        """Codes of the categories node ``node`` sends left (empty for a numeric split)."""
        bits = np.unpackbits(self.left_categories[node].astype("<u8").view(np.uint8),
                             bitorder="little")
        return np.flatnonzero(bits)

    def goes_left(self, node: int, values) -> np.ndarray:
        """Whether each value of the node's feature goes to its left child (see
        :func:`goes_left`)."""
        return goes_left(values, self.threshold[node], self.missing_go_left[node],
                         self.left_categories[node])

    def parent(self) -> np.ndarray:
        """Parent id of every node (-1 for the root)."""
        parent = np.full(self.node_count, -1, dtype=np.int64)
        internal = np.flatnonzero(~self.is_leaf)
        parent[self.children_left[internal]] = internal
        parent[self.children_right[internal]] = internal
        return parent

    def validate(self) -> None:
        """Check shapes, dtypes and the tree invariants; raise ``ValueError`` saying which failed.

        Children after their parents (so every walk from the root ends: no cycle), indices in
        range, one parent per node, split features in ``[0, n_features)``, thresholds not NaN,
        impurities finite and non-negative (up to rounding). O(n_nodes log n_nodes)."""
        if self.n_features < 1 or self.n_classes < 0:
            raise ValueError(f"a tree needs n_features >= 1 and n_classes >= 0, got "
                             f"{self.n_features} and {self.n_classes}")
        n = self.children_left.shape[0] if self.children_left.ndim == 1 else 0
        if n < 1:
            raise ValueError("a tree needs at least one node (the root)")
        for name in NODE_ARRAYS:
            array = getattr(self, name)
            if array.ndim != (2 if name in _TWO_DIMENSIONAL else 1) or array.shape[0] != n:
                raise ValueError(f"tree array {name!r} must have one entry per node ({n})"
                                 + (" and be 2-D" if name in _TWO_DIMENSIONAL else ""))
        left, right = self.children_left, self.children_right
        leaf = left == TREE_LEAF
        if not np.array_equal(leaf, right == TREE_LEAF):
            raise ValueError("a node must have either two children or none")
        ids = np.arange(n)
        internal = ~leaf
        if np.any(left[internal] <= ids[internal]) or np.any(right[internal] <= ids[internal]):
            raise ValueError("children must be stored after their parents")
        if np.any(left[internal] >= n) or np.any(right[internal] >= n):
            raise ValueError("a child index points past the last node")
        children = np.concatenate([left[internal], right[internal]])
        # (counting, not np.unique's sort: trees are validated as they are built)
        if np.any(np.bincount(children, minlength=n) > 1) or np.any(children == 0):
            raise ValueError("every node but the root must have exactly one parent")
        if np.any((self.feature[internal] < 0) | (self.feature[internal] >= self.n_features)):
            raise ValueError(f"a split feature is outside [0, {self.n_features})")
        if self.left_categories.shape[1] != 4 or self.left_categories.dtype != np.uint64:
            raise ValueError("tree array 'left_categories' must be uint64 with 4 columns (a "
                             "256-bit category set per node)")
        categorical = self.left_categories.any(axis=1)
        if np.any(categorical & leaf):
            raise ValueError("a leaf has a set of categories (left_categories must be 0 there)")
        if np.any(np.isnan(self.threshold[internal]) & ~categorical[internal]):
            raise ValueError("a split threshold is NaN")
        if np.any(~np.isnan(self.threshold[categorical])):
            raise ValueError("a split by a set of categories must have a NaN threshold")
        for name in ("value", "class_counts", "weighted_n_node_samples"):
            if not np.all(np.isfinite(getattr(self, name))):
                raise ValueError(f"tree array {name!r} holds a non-finite number (predictions "
                                 f"would be NaN or infinite)")
        finite = np.isfinite(self.impurity)
        scale = max(1.0, float(np.abs(self.impurity[finite]).max(initial=0.0)))
        # rounding may leave an impurity a few ulps below 0 (scikit-learn's trees have -4e-16)
        bad = np.flatnonzero(~finite | (self.impurity < -1e-9 * scale))
        if bad.size:
            node = int(bad[0])
            raise ValueError(
                f"node {node} has impurity {float(self.impurity[node])!r} at proportions "
                f"{np.round(self.value[node], 6).tolist()} ({bad.size} such node(s)): an "
                f"impurity must be finite and >= 0; a criterion failed there (a Custom "
                f"criterion that raised, or returned NaN, inf or a negative value)")

    # -- prediction -----------------------------------------------------------------------
    def _cached(self, name, build):
        """A per-tree derived array, built on first use (the node arrays are immutable)."""
        cached = self.__dict__.get(name)
        if cached is None or cached.shape[0] != self.node_count:
            cached = build()
            self.__dict__[name] = cached
        return cached

    def _packed(self):
        """Traversal records (``_kernels.predict.NODE_RECORD``), built once per tree from arrays
        validated again first: the compiled walk has no bounds checks."""
        def build():
            self.validate()
            return _predict.pack_nodes(self.children_left, self.children_right, self.feature,
                                       self.threshold, self.missing_go_left,
                                       self.is_categorical_split)

        return self._cached("_packed_nodes", build)

    def _rows(self, X) -> np.ndarray:
        """``X`` as float rows with one column per feature of the tree (checked: the walk
        reads ``row[feature]`` unchecked)."""
        X = as_float_array(X)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"X must be a 2-D array with {self.n_features} columns (the tree's "
                             f"n_features), got shape {X.shape}")
        return X

    def _walkable(self, X: np.ndarray) -> np.ndarray:
        """``X`` as the categorical walk reads it: at the features of splits by sets of
        categories every value NaN or a code 0..255. Any other value (say 2.5 or -1, from a
        caller of ``apply`` on raw values) takes the missing side, as documented; it is made
        NaN in a copy first. Encoded inputs hold codes and NaN only: one compiled pass
        checks, nothing is copied."""
        if not self.is_categorical_split.any():
            return X
        features = np.unique(self.feature[self.is_categorical_split]).astype(np.int64)
        if not _predict.non_code_rows(X, features):
            return X
        X = np.array(X, copy=True)
        columns = X[:, features]
        with np.errstate(invalid="ignore"):
            code = (columns >= 0) & (columns < 256) & (columns == np.floor(columns))
        X[:, features] = np.where(code | np.isnan(columns), columns, np.nan)
        return X

    def apply(self, X: np.ndarray, feature_names=None) -> np.ndarray:
        """Index of the leaf each row of ``X`` (float32/float64) reaches.

        Values are compared with the float64 thresholds in float64; NaN takes the learned
        missing side, and ±inf raises a ValueError naming the column (``feature_names`` or
        ``x0, x1, ...``), checked during the same pass over X."""
        X = self._walkable(self._rows(X))
        out = np.empty(X.shape[0], dtype=np.int64)
        if self.is_categorical_split.any():
            walk = _traversal(_predict.apply_rows_categorical, X.shape[0])
            found_infinity = walk(X, self._packed(), self.left_categories, out)
        else:
            found_infinity = _traversal(_predict.apply_rows, X.shape[0])(
                X, self._packed(), self.left_categories, out)
        if found_infinity:
            check_no_infinity(X, feature_names)
        return out

    def decision_path(self, X: np.ndarray, feature_names=None) -> sp.csr_matrix:
        """CSR indicator matrix: entry (i, j) is 1 when row i passes through node j."""
        X = self._walkable(self._rows(X))
        lengths = np.empty(X.shape[0], dtype=np.int64)
        if _traversal(_predict.path_lengths, X.shape[0])(X, self._packed(),
                                                         self.left_categories, lengths):
            check_no_infinity(X, feature_names)
        indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        indices = np.empty(indptr[-1], dtype=np.int64)
        _traversal(_predict.fill_paths, X.shape[0])(X, self._packed(), self.left_categories,
                                                    indptr, indices)
        data = np.ones(indices.shape[0], dtype=np.int64)
        return sp.csr_matrix((data, indices, indptr), shape=(X.shape[0], self.node_count))

    def predict(self, X: np.ndarray, feature_names=None) -> np.ndarray:
        """``value`` of the reached leaf for every row: class proportions or mean label."""
        # leaf ids are valid rows of value: "clip" skips take's bounds check (40% of its time)
        return self.value.take(self.apply(X, feature_names), axis=0, mode="clip")

    def predict_class(self, X: np.ndarray, classes, feature_names=None) -> np.ndarray:
        """``classes[k]`` for the most probable class k at the reached leaf, the lowest k on ties.

        Equal to ``classes[np.argmax(self.predict(X), axis=1)]`` without building the
        probabilities: the class of every node is looked up once, then one take per row."""
        if self.n_classes < 1:
            raise ValueError("predict_class needs a classification tree")
        class_index = self._cached("_class_index", lambda: np.argmax(self.value, axis=1))
        return np.asarray(classes).take(class_index).take(
            self.apply(X, feature_names), mode="clip")

    # -- pruning support ------------------------------------------------------------------
    def collapse(self, nodes) -> "Tree":
        """A new tree in which every node of ``nodes`` becomes a leaf.

        Descendants of collapsed nodes are dropped and the remaining nodes renumbered in
        their original (parent-before-child) order. This is the single mechanism every
        pruning method uses; the original tree is left untouched.
        """
        make_leaf = np.zeros(self.node_count, dtype=bool)
        make_leaf[np.asarray(list(nodes), dtype=np.int64)] = True
        keep = np.zeros(self.node_count, dtype=bool)
        keep[0] = True
        for node in range(self.node_count):  # parents precede children
            if keep[node] and not make_leaf[node] and self.children_left[node] != TREE_LEAF:
                keep[self.children_left[node]] = True
                keep[self.children_right[node]] = True
        new_id = np.full(self.node_count, TREE_LEAF, dtype=np.int64)
        new_id[keep] = np.arange(np.count_nonzero(keep))
        arrays = {name: getattr(self, name)[keep].copy() for name in NODE_ARRAYS}
        leaf_now = make_leaf[keep] | (arrays["children_left"] == TREE_LEAF)
        for side in ("children_left", "children_right"):
            child = arrays[side]
            child[~leaf_now] = new_id[child[~leaf_now]]
            child[leaf_now] = TREE_LEAF
        arrays["feature"][leaf_now] = TREE_UNDEFINED
        arrays["threshold"][leaf_now] = np.nan
        arrays["bin_threshold"][leaf_now] = -1
        arrays["missing_go_left"][leaf_now] = False
        arrays["left_categories"][leaf_now] = 0
        return Tree(self.n_features, self.n_classes, **arrays)

    # -- persistence ----------------------------------------------------------------------
    def __getstate__(self):
        state = {name: getattr(self, name) for name in NODE_ARRAYS}
        state.update(n_features=self.n_features, n_classes=self.n_classes)
        return state

    def __setstate__(self, state):
        state = dict(state)
        n_features, n_classes = state.pop("n_features"), state.pop("n_classes")
        self.__init__(n_features, n_classes, **state)

    def __repr__(self) -> str:
        return (f"Tree(node_count={self.node_count}, n_leaves={self.n_leaves}, "
                f"max_depth={self.max_depth}, n_features={self.n_features})")
