"""Monotonic constraints in the kernels (docs/methods.md §4), with scikit-learn's method.

A node's *value* is what a leaf there would predict: the proportion of class 1 (binary
classification; ``classes_[1]``) or the weighted mean label (regression). Each node carries
bounds ``[lower, upper]`` (-inf, inf at the root). A candidate split on a feature with
direction d != 0 is admissible only when its children's values ``v_L``, ``v_R`` satisfy

    lower <= v_L, v_R <= upper   and   d (v_L - v_R) <= 0;

the chosen split passes the parent's bounds to both children, except that with
``m = (v_L + v_R) / 2`` an increasing split (d = 1) caps the left child at ``m`` and floors the
right child at ``m`` (d = -1 the other way round). Every node value is then clipped to its
bounds (``treesmith.grower``). Since the bounds of a subtree are nested in its root's, every
leaf left of an increasing split predicts at most ``m`` and every leaf right of it at least
``m``: predictions are monotone in each constrained feature, whatever the other splits.

This is the method of scikit-learn's trees (``check_monotonicity``, ``middle_value``,
``clip_node_value``; scikit-learn 1.4) and LightGBM's "basic" monotone constraints.
"""

import numpy as np

from .decorators import internal_kernel
from .stats import (
    REGRESSION_WEIGHT,
    REGRESSION_WEIGHTED_TARGET,
    count_column,
    stats_weight,
    weight_column,
)

#: Direction codes of ``records.Monotonicity.direction``.
INCREASING = 1
DECREASING = -1


@internal_kernel
def node_value(stats, n_classes):
    """The value a node with statistics row ``stats`` predicts: the weighted proportion of
    class 1 (``n_classes`` == 2; 0 when class 1 is absent) or the weighted mean label
    (regression, ``n_classes`` == 0)."""
    if n_classes > 0:
        positive = np.int64(1)  # not the literal 1: the column helpers would compile again
        weight = stats_weight(stats, n_classes)
        if weight <= 0.0 or stats[count_column(n_classes, positive)] <= 0.0:
            return 0.0
        return stats[weight_column(n_classes, positive)] / weight
    weight = stats[REGRESSION_WEIGHT]
    return stats[REGRESSION_WEIGHTED_TARGET] / weight if weight > 0.0 else 0.0


@internal_kernel
def is_admissible(value_left, value_right, direction, lower, upper):
    """Whether children with these values respect ``direction`` (+1: v_L <= v_R, -1:
    v_L >= v_R) and the node's bounds ``[lower, upper]``."""
    return (lower <= value_left <= upper and lower <= value_right <= upper
            and (value_left - value_right) * direction <= 0.0)


@internal_kernel
def middle_value(value_left, value_right):
    """The bound between the children of a constrained split: (v_L + v_R) / 2, computed as
    scikit-learn does (v_L / 2 + v_R / 2, exact halvings)."""
    return 0.5 * value_left + 0.5 * value_right


@internal_kernel
def child_bounds(direction, lower, upper, value_left, value_right):
    """``(left_lower, left_upper, right_lower, right_upper)`` of the children of a split on a
    feature with ``direction`` of a node with bounds ``[lower, upper]``."""
    if direction == INCREASING:
        middle = middle_value(value_left, value_right)
        return lower, middle, middle, upper
    if direction == DECREASING:
        middle = middle_value(value_left, value_right)
        return middle, upper, lower, middle
    return lower, upper, lower, upper
