"""The one pruning mechanism: a tree's bottom-up aggregates, updated as nodes are collapsed.

Every post-pruning method is a choice of

* a **leaf cost** ``R(t)``: what node ``t`` costs if it becomes a leaf (resubstitution risk,
  validation errors, a pessimistic error estimate, ...), and
* a **visiting order** with a **hook** that decides, from the current aggregates, whether to
  collapse the visited node:

  - :func:`prune_bottom_up` (children before parents: REP, C4.5, BUP),
  - :func:`prune_top_down` (parents before children, the descendants of a collapsed node are
    never visited: TDP),
  - :func:`prune_weakest_link` (repeatedly the internal node with the smallest
    ``g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)``: cost-complexity, Breiman et al. 1984
    ch. 3, seed 004), which serves both "prune at alpha" and "the whole alpha path".

The aggregates over the current (pruned) subtree ``T_t`` are ``R(T_t)`` = the sum of the leaf
costs of its leaves, its number of leaves and its number of nodes; collapsing a node bubbles the
differences up to its ancestors, exactly as scikit-learn's ``_cost_complexity_prune`` does, so
that the same floating-point sums come out. The result is always ``tree.collapse(nodes)``: a new,
valid tree; the original is never modified.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._dtypes import TREE_LEAF
from ..tree import Tree


class PruningState:
    """Aggregates of the progressively pruned tree (one entry per node of the original tree).

    Attributes:
        leaf_cost : R(t), the cost of node t as a leaf.
        subtree_cost : R(T_t), the sum of ``leaf_cost`` over the current leaves under t.
        n_leaves, n_nodes : size of the current subtree T_t (1 and 1 for a leaf).
        in_tree : whether the node is still in the pruned tree.
        is_leaf : whether the node is a leaf of the pruned tree.
    """

    def __init__(self, tree: Tree, leaf_cost: np.ndarray):
        leaf_cost = np.asarray(leaf_cost, dtype=np.float64)
        if leaf_cost.shape != (tree.node_count,):
            raise ValueError(
                f"leaf_cost must have one entry per node ({tree.node_count}), "
                f"got shape {leaf_cost.shape}."
            )
        self.tree = tree
        self.children_left = tree.children_left
        self.children_right = tree.children_right
        self.parent = tree.parent()
        self.leaf_cost = leaf_cost
        self.is_leaf = tree.is_leaf.copy()
        self.in_tree = np.ones(tree.node_count, dtype=bool)
        self.subtree_cost = np.zeros(tree.node_count)
        self.n_leaves = np.zeros(tree.node_count, dtype=np.int64)
        self.n_nodes = np.ones(tree.node_count, dtype=np.int64)
        # Leaves in index order, each adding its cost to every ancestor in turn (the order of
        # scikit-learn's bubble-up, so that sums agree to the last bit on the same tree).
        for leaf in np.flatnonzero(self.is_leaf):
            cost = leaf_cost[leaf]
            self.subtree_cost[leaf] = cost
            self.n_leaves[leaf] = 1
            node = self.parent[leaf]
            while node != -1:
                self.subtree_cost[node] += cost
                self.n_leaves[node] += 1
                node = self.parent[node]
        for node in np.flatnonzero(~self.is_leaf)[::-1]:
            self.n_nodes[node] = (1 + self.n_nodes[self.children_left[node]]
                                  + self.n_nodes[self.children_right[node]])

    def internal_nodes(self) -> np.ndarray:
        """Internal nodes of the current pruned tree, in index order."""
        return np.flatnonzero(self.in_tree & ~self.is_leaf)

    def link_strength(self, nodes: np.ndarray) -> np.ndarray:
        """g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1) of internal nodes ``nodes``."""
        return ((self.leaf_cost[nodes] - self.subtree_cost[nodes])
                / (self.n_leaves[nodes] - 1))

    def collapse(self, node: int) -> None:
        """Make ``node`` a leaf of the pruned tree and update the aggregates of its ancestors."""
        if not self.in_tree[node]:
            raise ValueError(f"node {node} has already been pruned away")
        if self.is_leaf[node]:
            return
        stack = [self.children_left[node], self.children_right[node]]
        while stack:
            descendant = stack.pop()
            if not self.in_tree[descendant]:
                continue
            self.in_tree[descendant] = False
            if self.children_left[descendant] != TREE_LEAF:
                stack.append(self.children_left[descendant])
                stack.append(self.children_right[descendant])
        self.is_leaf[node] = True
        removed_leaves = self.n_leaves[node] - 1
        removed_nodes = self.n_nodes[node] - 1
        cost_increase = self.leaf_cost[node] - self.subtree_cost[node]
        self.subtree_cost[node] = self.leaf_cost[node]
        self.n_leaves[node] = 1
        self.n_nodes[node] = 1
        ancestor = self.parent[node]
        while ancestor != -1:
            self.n_leaves[ancestor] -= removed_leaves
            self.n_nodes[ancestor] -= removed_nodes
            self.subtree_cost[ancestor] += cost_increase
            ancestor = self.parent[ancestor]

    def collapsed_nodes(self) -> np.ndarray:
        """Originally internal nodes that are leaves of the pruned tree."""
        return np.flatnonzero(self.in_tree & self.is_leaf & ~self.tree.is_leaf)

    def pruned_tree(self) -> Tree:
        """The pruned tree as a new :class:`~treesmith.tree.Tree` (the original untouched)."""
        return self.tree.collapse(self.collapsed_nodes())


def at_most(a: float, b: float) -> bool:
    """``a <= b`` up to rounding (1e-10 relative): equal costs summed in another order still tie."""
    return a <= b + 1e-10 * max(abs(a), abs(b))


#: A hook deciding whether to collapse ``node`` given the current aggregates.
PruneHook = Callable[[int, PruningState], bool]


def prune_bottom_up(tree: Tree, leaf_cost: np.ndarray, should_prune: PruneHook) -> PruningState:
    """Visit internal nodes children-first and collapse those for which the hook says so.

    When a node is visited its subtree has already been pruned, so ``state.subtree_cost[node]``
    is the cost of the pruned subtree (Quinlan's REP, C4.5, Mansour's BUP).
    """
    state = PruningState(tree, leaf_cost)
    # Children are stored after their parents, so decreasing ids visit children first.
    for node in np.flatnonzero(~tree.is_leaf)[::-1]:
        if should_prune(int(node), state):
            state.collapse(int(node))
    return state


def prune_top_down(tree: Tree, leaf_cost: np.ndarray, should_prune: PruneHook) -> PruningState:
    """Visit internal nodes parents-first; below a collapsed node nothing is visited (TDP)."""
    state = PruningState(tree, leaf_cost)
    for node in np.flatnonzero(~tree.is_leaf):
        if state.in_tree[node] and should_prune(int(node), state):
            state.collapse(int(node))
    return state


def prune_weakest_link(tree: Tree, leaf_cost: np.ndarray,
                       stop: Callable[[float], bool] | None = None,
                       record: Callable[[float, int, PruningState], None] | None = None
                       ) -> PruningState:
    """Breiman's weakest-link cutting: collapse the internal node of smallest g(t), repeatedly.

    One node per step, the lowest id among ties (as scikit-learn). Before each step
    ``stop(g)`` may end the pruning (``g`` is the weakest link's strength); ``record(g, node,
    state)`` sees the full tree first (``g = 0``, ``node = -1``) and then the tree after every
    step. Runs until the root is a leaf otherwise.
    """
    state = PruningState(tree, leaf_cost)
    if record is not None:
        record(0.0, -1, state)
    while not state.is_leaf[0]:
        candidates = state.internal_nodes()
        strengths = state.link_strength(candidates)
        weakest = int(np.argmin(strengths))
        strength = float(strengths[weakest])
        if stop is not None and stop(strength):
            break
        node = int(candidates[weakest])
        state.collapse(node)
        if record is not None:
            record(strength, node, state)
    return state
