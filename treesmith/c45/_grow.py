"""Growing a C4.5 release 8 tree exactly as Weka's J48 does (docs/methods.md §11).

At a node holding total weight N (objects with a missing value included):

1. it is a leaf when N < 2·min_objects or one class holds all of N (to 1e-6);
2. every attribute offers its best test: a numeric one the cut ``x <= t`` of largest gain
   among the admissible cuts, the gain then reduced by log2(number of admissible cuts) / N
   and the test dropped when that is <= 0 (Quinlan 1996, "Improved use of continuous
   attributes in C4.5"); a nominal one a branch per value (``binary_splits``: the value test
   ``x == v`` of best gain ratio), kept when at least two branches weigh min_objects;
3. among the tests whose gain is at least the average gain of the tests (less 1e-3) the one
   of highest gain ratio wins, the first attribute on ties (to 1e-6); no test or a ratio of 0
   makes a leaf. Nominal attributes with at least 0.3·(number of training objects) values
   stay out of the average unless every attribute is such (J48's ``C45ModelSelection``);
4. a numeric test's threshold is the largest training value <= the midpoint of the cut (the
   value C4.5 prints and applies to new data; with J48's 1e-6 tolerance, see
   :func:`snap_threshold`);
5. an object whose tested value is missing goes down every branch with its weight times the
   branch's share of the known weight (fractional objects, Quinlan 1993 §3).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from .._kernels import c45 as kernels

NUMERIC = 0
NOMINAL = 1  # one branch per value
NOMINAL_BINARY = 2  # x == value -> branch 0, else branch 1
SMALL = kernels.SMALL
#: Up to this many training rows a threshold is snapped by J48's loop over the column; above,
#: by a binary search in the column's sorted distinct values (computed once per column).
DIRECT_SNAP_ROWS = 20_000


@dataclass
class GrowthData:
    """Training data in the grower's terms.

    X: float64 (n, d), nominal columns as category codes, NaN = missing.
    y_code: int64 class codes; weights: float64 object weights (J48's instance weights).
    n_values: number of declared values of each nominal column (0 for numeric ones).
    n_classes: number of classes.
    :meth:`split_values` gives a numeric column's sorted distinct known values, the values
    a threshold is snapped to (J48 takes them from all the data it was given, also in
    reduced-error mode).
    """

    X: np.ndarray
    y_code: np.ndarray
    weights: np.ndarray
    n_values: np.ndarray
    n_classes: int

    def __post_init__(self):
        self._split_values: dict[int, np.ndarray] = {}
        self.numeric_columns = np.flatnonzero(self.n_values == 0)
        self.nominal_columns = np.flatnonzero(self.n_values > 0)
        # whole-number weights everywhere (unit weights, no missing value to split them):
        # the scans look x ln x up instead of computing it
        whole = np.all(self.weights == np.rint(self.weights)) and not np.isnan(self.X).any() \
            and self.weights.sum() < 1e7
        self.xlogx = kernels.xlogx_table(int(self.weights.sum()) + 1) if whole \
            else np.empty(0)
        self.unit_weights = bool(whole and np.all(self.weights == 1.0))

    def split_values(self, column: int) -> np.ndarray:
        """Sorted distinct known values of a numeric column (computed on first use)."""
        values = self._split_values.get(column)
        if values is None:
            known = self.X[:, column]
            values = np.unique(known[~np.isnan(known)])
            self._split_values[column] = values
        return values


@dataclass(frozen=True)
class GrowthSettings:
    """min_objects: J48's -M; binary_splits: -B; mdl_correction: C4.5 release 8's penalty;
    keep_data: keep each node's objects (subtree raising re-routes them)."""

    min_objects: float = 2.0
    binary_splits: bool = False
    mdl_correction: bool = True
    keep_data: bool = False
    #: number of training objects J48's "many values" rule compares against (0.3 · this)
    n_all_objects: int = 0


@dataclass
class Node:
    """A node of the growing / pruning tree.

    class_weight: per-class weight of the objects reaching it (fractional ones included).
    attribute, kind, threshold: the test (attribute -1 for a leaf); threshold is the cut of a
    numeric test or the value code of a binary nominal test.
    branch_weight: weight sent down each branch (routes objects with a missing value).
    is_empty: grown from no objects (J48 then predicts with the parent's distribution).
    rows, weights: the objects reaching the node (only when kept for pruning).
    """

    class_weight: np.ndarray
    attribute: int = -1
    kind: int = NUMERIC
    threshold: float = np.nan
    branch_weight: np.ndarray | None = None
    children: list = field(default_factory=list)
    is_empty: bool = False
    rows: np.ndarray | None = None
    weights: np.ndarray | None = None
    estimate: float | None = None  # pruning's cached charge as a leaf
    index: int = -1  # pruning's id of the node in its tree-wide arrays

    @property
    def is_leaf(self) -> bool:
        return not self.children

    @property
    def total(self) -> float:
        return float(self.class_weight.sum())

    def make_leaf(self) -> None:
        self.attribute, self.children, self.branch_weight = -1, [], None


def tree_depth(root: Node) -> int:
    depth, stack = 0, [(root, 0)]
    while stack:
        node, level = stack.pop()
        depth = max(depth, level)
        stack.extend((child, level + 1) for child in node.children)
    return depth


def make_recursion_room(depth: int) -> None:
    """Let Python recurse through a tree ``depth`` levels deep (pruning, printing recurse as
    J48 does; a C4.5 tree on n objects can be a chain of n / 50 tests). The limit is only
    ever raised, never lowered, so that concurrent fits in threads cannot undercut another."""
    needed = 4 * depth + 1000
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


# -- Weka's tie rules ---------------------------------------------------------------------------
def majority_class(class_weight) -> int:
    """First class whose weight beats the running maximum by more than 1e-6 (``maxClass``)."""
    best, best_k = 0.0, 0
    for k, w in enumerate(class_weight):
        if w - best > SMALL:
            best, best_k = w, k
    return best_k


def largest_branch(branch_weight) -> int:
    """Last branch whose weight is within 1e-6 of the running maximum (``maxBag``)."""
    best, best_b = 0.0, -1
    for b, w in enumerate(branch_weight):
        if best - w < SMALL:
            best, best_b = w, b
    return best_b


def training_errors(class_weight) -> float:
    """Weight not in the majority class (``numIncorrect``)."""
    return float(class_weight.sum() - class_weight[majority_class(class_weight)])


# -- one node -----------------------------------------------------------------------------------
@dataclass
class Candidates:
    """Every attribute's best test at a node, as arrays over the attributes.

    valid: the attribute offers a test; gain, ratio: its (MDL-corrected) gain and gain ratio;
    n_left: numeric, known objects (in sorted order) going left; middle: numeric, midpoint of
    the cut; value: binary nominal, the value of branch 0.
    """

    valid: np.ndarray
    gain: np.ndarray
    ratio: np.ndarray
    n_left: np.ndarray
    middle: np.ndarray
    value: np.ndarray


def evaluate_attributes(data: GrowthData, settings: GrowthSettings, rows, weights,
                        columns: "SortedColumns", total_weight) -> Candidates:
    """Every attribute's best test at this node."""
    n_features = data.X.shape[1]
    found = Candidates(np.zeros(n_features, dtype=bool), np.zeros(n_features),
                       np.zeros(n_features), np.full(n_features, -1, dtype=np.int64),
                       np.full(n_features, np.nan), np.full(n_features, -1, dtype=np.int64))
    numeric = data.numeric_columns
    if numeric.shape[0]:
        gain, ratio, n_left, middle = kernels.evaluate_numeric_attributes(
            columns.values, columns.classes, columns.order, columns.n_known, weights,
            data.unit_weights, data.n_classes, settings.min_objects, total_weight,
            settings.mdl_correction, data.xlogx)
        found.valid[numeric] = n_left >= 0
        found.gain[numeric], found.ratio[numeric] = gain, ratio
        found.n_left[numeric], found.middle[numeric] = n_left, middle
    if data.nominal_columns.shape[0]:
        y_local = data.y_code[rows]
    for column in data.nominal_columns:
        distribution = kernels.nominal_distribution(
            data.X[rows, column], y_local, weights, int(data.n_values[column]), data.n_classes)
        if settings.binary_splits:
            gain, ratio, value = kernels.binary_nominal_split(
                distribution, settings.min_objects, total_weight)
            valid = value >= 0
            found.value[column] = value
        else:
            gain, ratio, valid = kernels.multiway_nominal_split(
                distribution, settings.min_objects, total_weight)
        if valid:
            found.valid[column], found.gain[column], found.ratio[column] = True, gain, ratio
    return found


def counted_in_average(data: GrowthData, settings: GrowthSettings) -> np.ndarray:
    """Attributes whose tests enter the average gain: numeric ones, and nominal ones with
    fewer than 0.3 · (number of training objects) values, unless every attribute is nominal
    with that many (J48's ``C45ModelSelection``)."""
    many_valued = ~(0.3 * settings.n_all_objects - data.n_values > SMALL)
    if np.all((data.n_values > 0) & many_valued):
        return np.ones(data.n_values.shape[0], dtype=bool)
    return (data.n_values == 0) | ~many_valued


def snap_threshold(column_values: np.ndarray, split_values: np.ndarray, middle: float) -> float:
    """J48's ``setSplitPoint``: over the training values in data order, the running maximum
    of those <= the midpoint (to 1e-6), replaced only by a value larger by more than 1e-6.

    That is the largest training value <= the midpoint unless another value lies within 1e-6
    below it; only then does the data order matter, and the values are scanned in order.
    """
    position = np.searchsorted(split_values, middle + SMALL, side="left") - 1
    while position + 1 < split_values.shape[0] and (
            split_values[position + 1] - middle < SMALL or split_values[position + 1] <= middle):
        position += 1
    while position >= 0 and not (split_values[position] - middle < SMALL
                                 or split_values[position] <= middle):
        position -= 1
    if position < 0:
        return float(middle)
    top = split_values[position]
    if position == 0 or top - split_values[position - 1] > SMALL:
        return float(top)
    return float(kernels.running_split_point(column_values, middle))


def subsets_of(data: GrowthData, attribute: int, kind: int, found: Candidates, rows,
               order_of_attribute, n_known_of):
    """Branch of each node-local object (-1 when its tested value is missing)."""
    subset = np.full(rows.shape[0], -1, dtype=np.int64)
    if kind == NUMERIC:
        n_left = found.n_left[attribute]
        subset[order_of_attribute[:n_left]] = 0
        subset[order_of_attribute[n_left:n_known_of]] = 1
    else:
        values = data.X[rows, attribute]
        known = ~np.isnan(values)
        codes = values[known].astype(np.int64)
        subset[known] = codes if kind == NOMINAL else np.where(
            codes == found.value[attribute], 0, 1)
    return subset


def branch_weights(subset, y_local, weights, n_branches, n_classes):
    """Per-branch weights with the missing objects spread in proportion to the known ones
    (J48's ``addInstWithUnknown``), and the per-branch class weights."""
    known = subset >= 0
    per_class = np.bincount(subset[known] * n_classes + y_local[known], weights=weights[known],
                            minlength=n_branches * n_classes).reshape(n_branches, n_classes)
    bag = per_class.sum(axis=1)
    known_total = bag.sum()
    share = bag / known_total if known_total > 0 else np.full(n_branches, 1.0 / n_branches)
    missing = ~known
    if np.any(missing):
        missing_class = np.bincount(y_local[missing], weights=weights[missing],
                                    minlength=n_classes)
        per_class += share[:, None] * missing_class[None, :]
        bag = per_class.sum(axis=1)
    return bag, per_class


# -- the whole tree -----------------------------------------------------------------------------
@dataclass
class SortedColumns:
    """A node's objects sorted by each numeric attribute, missing values last (one row per
    numeric attribute): ``order`` node-local positions, ``values`` and ``classes`` in that
    order, ``n_known`` how many values are known. Children inherit them by a stable filter,
    so nothing is sorted again below the root."""

    order: np.ndarray
    values: np.ndarray
    classes: np.ndarray
    n_known: np.ndarray


def initial_columns(data: GrowthData, rows: np.ndarray) -> SortedColumns:
    numeric = data.numeric_columns
    shape = (numeric.shape[0], rows.shape[0])
    columns = SortedColumns(np.empty(shape, dtype=np.int64), np.empty(shape),
                            np.empty(shape, dtype=np.int64),
                            np.empty(numeric.shape[0], dtype=np.int64))
    y_local = data.y_code[rows]
    for a_idx, column in enumerate(numeric):
        values = kernels.column_of(data.X, rows, column)
        order = np.argsort(values, kind="stable")  # NaN sorts last
        columns.order[a_idx] = order
        kernels.fill_sorted_column(values, y_local, order, columns.values[a_idx],
                                   columns.classes[a_idx])
        columns.n_known[a_idx] = int(np.count_nonzero(~np.isnan(values)))
    return columns


def grow(data: GrowthData, settings: GrowthSettings, rows=None, weights=None) -> Node:
    """Grow the unpruned C4.5 tree on ``rows`` (all rows by default)."""
    if rows is None:
        rows = np.arange(data.X.shape[0])
    if weights is None:
        weights = data.weights[rows]
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    root = Node(np.zeros(data.n_classes))
    stack = [(root, rows, weights, initial_columns(data, rows))]
    numeric_index = {int(c): i for i, c in enumerate(data.numeric_columns)}
    counted = counted_in_average(data, settings)
    while stack:
        node, rows, weights, columns = stack.pop()
        y_local = data.y_code[rows]
        node.class_weight = np.bincount(y_local, weights=weights, minlength=data.n_classes)
        if settings.keep_data:
            node.rows, node.weights = rows, weights
        total = float(weights.sum())
        node.is_empty = abs(total) < SMALL
        if 2 * settings.min_objects - total > SMALL \
                or abs(total - node.class_weight[majority_class(node.class_weight)]) < SMALL:
            continue
        found = evaluate_attributes(data, settings, rows, weights, columns, total)
        attribute = kernels.select_attribute(found.valid, found.gain, found.ratio, counted)
        if attribute < 0:
            continue
        kind = NUMERIC if data.n_values[attribute] == 0 else (
            NOMINAL_BINARY if settings.binary_splits else NOMINAL)
        a_idx = numeric_index.get(attribute, -1)
        subset = subsets_of(data, attribute, kind, found, rows,
                            columns.order[a_idx] if a_idx >= 0 else None,
                            columns.n_known[a_idx] if a_idx >= 0 else 0)
        n_branches = int(data.n_values[attribute]) if kind == NOMINAL else 2
        bag, _ = branch_weights(subset, y_local, weights, n_branches, data.n_classes)
        node.attribute, node.kind, node.branch_weight = attribute, kind, bag
        if kind != NUMERIC:
            node.threshold = float(found.value[attribute])
        elif data.X.shape[0] <= DIRECT_SNAP_ROWS:  # J48's own loop over the data
            node.threshold = float(kernels.running_split_point(data.X[:, attribute],
                                                               found.middle[attribute]))
        else:
            node.threshold = snap_threshold(data.X[:, attribute], data.split_values(attribute),
                                            found.middle[attribute])
        fraction = bag / bag.sum()
        offsets, child_rows, child_weights, child_order, child_values, child_y, child_n_known = \
            kernels.partition_node(subset, fraction, rows, weights, columns.order,
                                   columns.values, columns.classes, columns.n_known, n_branches)
        del columns  # the parent's sorted columns are no longer needed
        node.children = [Node(np.zeros(data.n_classes)) for _ in range(n_branches)]
        n_numeric = child_n_known.shape[1]
        largest = int(np.argmax(np.diff(offsets)))
        for b in reversed(range(n_branches)):
            start, end = offsets[b], offsets[b + 1]
            block = slice(n_numeric * start, n_numeric * end)
            # the largest branch keeps views of the flat outputs; the others take copies, so
            # that the parent's buffers are freed once the largest branch is split in turn
            take = (lambda a: a) if b == largest else np.copy
            stack.append((node.children[b], take(child_rows[start:end]),
                          take(child_weights[start:end]),
                          SortedColumns(take(child_order[block]).reshape(n_numeric, end - start),
                                        take(child_values[block]).reshape(n_numeric, end - start),
                                        take(child_y[block]).reshape(n_numeric, end - start),
                                        child_n_known[b].copy())))
    return root
