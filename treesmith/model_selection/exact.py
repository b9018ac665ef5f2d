"""Exact 1-D searches: the loss of one instance as a piecewise-constant function of a parameter.

Where a tree changes at finitely many computable values of a parameter, every distinct tree is
visited once and the held-out loss is recorded per segment [start_k, start_{k+1}); the average
over instances is then piecewise constant on the union of all the starts, so its minimum over
the whole half-line is found exactly, without a grid (Balcan & Sharma, "Learning accurate and
interpretable decision trees", 2024, §4; docs/methods.md §8).

* cost-complexity alpha: the starts are the breakpoints of the weakest-link path (the tree
  pruned at alpha is the one reached before the first link stronger than alpha);
* bottom-up pessimistic pruning along the ray (c1, c2) = r (u1, u2): a sweep over r from 0,
  each step jumping to the smallest r at which some node's test flips (see
  :class:`~treesmith.model_selection.space.PessimisticRay`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from ..pruning._estimator import fitted_tree, with_tree
from ..pruning._held_out import steps_applied
from ..pruning._node_statistics import require_classification, training_errors
from ..pruning._traversal import at_most, prune_bottom_up
from ..pruning.cost_complexity import cost_complexity_path, prune_tree_ccp, subtree_breakpoints
from ..tree import Tree

#: How far past a flip point a segment's tree is evaluated (relative), so that rounding in the
#: root finder never evaluates the tree just before the flip.
PAST_FLIP = 1e-9


@dataclass(frozen=True)
class PiecewiseLoss:
    """Loss ``losses[k]`` on the segment [starts[k], starts[k+1]) (the last one unbounded);
    ``n_leaves[k]`` the size of that segment's tree. ``starts[0] == 0``."""

    starts: np.ndarray
    losses: np.ndarray
    n_leaves: np.ndarray

    def at(self, values) -> np.ndarray:
        """The loss at each of ``values`` (>= 0)."""
        return self.losses[np.searchsorted(self.starts, values, side="right") - 1]


def ccp_alpha_losses(model, X, y, loss) -> PiecewiseLoss:
    """Loss of ``model`` (fitted with ``ccp_alpha=0``) pruned at every alpha >= 0.

    Pruning at alpha is what the estimator does with ``ccp_alpha=alpha`` (impurity risk, after
    any other post-pruning), so segment k's tree is the one ``fit`` would return for any alpha
    in it.
    """
    tree = fitted_tree(model)
    path = cost_complexity_path(tree, "impurity")
    starts = subtree_breakpoints(path)
    n_steps = steps_applied(path.ccp_alphas[1:], starts)
    losses, n_leaves = [], []
    for steps in n_steps:
        pruned = tree.collapse(path.pruned_nodes[1:int(steps) + 1])
        losses.append(loss(with_tree(model, pruned), X, y))
        n_leaves.append(pruned.n_leaves)
    return PiecewiseLoss(starts, np.asarray(losses, dtype=np.float64),
                         np.asarray(n_leaves, dtype=np.int64))


def flip_position(gap: float, complexity: float, n_objects: float, u1: float, u2: float) -> float:
    """Smallest r >= 0 with r u1 sqrt((complexity + r u2) / n) >= gap (inf if none).

    The left side is 0 at r = 0 and increasing, so the root of the cubic
    u1² u2 r³ + u1² complexity r² = gap² n is unique; ``brentq`` finds it in a doubling bracket.
    """
    if gap <= 0:
        return 0.0
    if u1 == 0 or (complexity <= 0 and u2 == 0):
        return np.inf

    def excess(r):
        return r * u1 * np.sqrt((complexity + r * u2) / n_objects) - gap

    high = 1.0
    while excess(high) < 0:
        high *= 2.0
    return float(brentq(excess, 0.0, high, xtol=1e-300, rtol=4 * np.finfo(float).eps))


def pessimistic_prune_at(tree: Tree, c1: float, c2: float, u1: float, u2: float):
    """Bottom-up pessimistic pruning of ``tree`` at (c1, c2), and the smallest position r on the
    ray through (u1, u2) at which one of the tests that kept a node would flip.

    The test is the one of ``treesmith.pruning.bottom_up_pessimistic_prune_tree`` (same
    aggregates, same rounding tolerance); it is restated here because the sweep needs, for each
    kept node, the gap and subtree size the test saw.
    """
    errors, n_objects = training_errors(tree)
    log_features = np.log(max(tree.n_features, 1))
    flips = [np.inf]

    def covers_gain(node, state):
        n = n_objects[node]
        if n <= 0:
            return True
        complexity = state.n_nodes[node] * log_features
        penalty = c1 * np.sqrt((complexity + c2) / n)
        if at_most(state.leaf_cost[node] / n, state.subtree_cost[node] / n + penalty):
            return True
        gap = (state.leaf_cost[node] - state.subtree_cost[node]) / n
        flips.append(flip_position(gap, complexity, n, u1, u2))
        return False

    state = prune_bottom_up(tree, errors, covers_gain)
    return state.pruned_tree(), min(flips)


def pessimistic_ray_losses(model, direction, X, y, loss, ccp_alpha: float = 0.0
                           ) -> PiecewiseLoss:
    """Loss of ``model`` (fitted without post-pruning) under bottom-up pessimistic pruning at
    every (c1, c2) = r (direction.c1, direction.c2), r >= 0, then cost-complexity pruning at
    ``ccp_alpha`` if positive (the estimator's order)."""
    tree = fitted_tree(model)
    require_classification(tree, "bup")
    u1, u2 = float(direction.c1), float(direction.c2)
    starts, losses, n_leaves = [], [], []
    position = 0.0
    for _ in range(4 * tree.node_count + 8):
        pruned, flip = pessimistic_prune_at(tree, position * u1, position * u2, u1, u2)
        if ccp_alpha > 0:
            pruned = prune_tree_ccp(pruned, ccp_alpha)
        starts.append(position)
        losses.append(loss(with_tree(model, pruned), X, y))
        n_leaves.append(pruned.n_leaves)
        if not np.isfinite(flip):
            break
        position = max(flip, position) * (1.0 + PAST_FLIP) + np.finfo(float).tiny
    else:  # pragma: no cover - each flip prunes or restores a node; never seen to cycle
        raise RuntimeError("the pessimistic-pruning sweep did not settle; please report this.")
    return PiecewiseLoss(np.asarray(starts), np.asarray(losses, dtype=np.float64),
                         np.asarray(n_leaves, dtype=np.int64))
