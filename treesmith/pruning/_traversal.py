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
    ch. 3), which serves both "prune at alpha" and "the whole alpha path".

The aggregates over the current (pruned) subtree ``T_t`` are ``R(T_t)`` = the sum of the leaf
costs of its leaves, its number of leaves and its number of nodes. The result is always
``tree.collapse(nodes)``: a new, valid tree; the original is never modified.

Every traversal is linear in the number of nodes (weakest-link: O(n log n)), whatever the
depth: the aggregates are summed children first, once; bottom-up pruning recomputes a node's
from its (final) children when it visits it; top-down pruning never reads an ancestor's again;
and weakest-link cutting keeps a heap of strengths with lazy updates (collapsing the weakest link
can only raise its ancestors' strengths, so a stale key is a lower bound) and reads a subtree's
current aggregates as its initial ones plus the changes of the collapses inside it, a range sum
over the depth-first order (a Fenwick tree). scikit-learn instead bubbles every change up to the
root and scans all nodes per step, O(n x depth) and O(n^2). The sums are therefore added in
another order than scikit-learn's: equal to within rounding (1e-12 relative), and strengths
equal to about 1e-10 relative count as tied (lowest node id first; ``_tie_key``).
"""

from __future__ import annotations

import heapq
import math
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
        leaves = self.is_leaf
        self.subtree_cost[leaves] = leaf_cost[leaves]
        self.n_leaves[leaves] = 1
        for node in np.flatnonzero(~leaves)[::-1].tolist():  # children before parents
            self.refresh(node)

    def refresh(self, node: int) -> None:
        """Aggregates of internal ``node`` from its children's (children first, in one pass)."""
        left, right = self.children_left[node], self.children_right[node]
        self.subtree_cost[node] = self.subtree_cost[left] + self.subtree_cost[right]
        self.n_leaves[node] = self.n_leaves[left] + self.n_leaves[right]
        self.n_nodes[node] = 1 + self.n_nodes[left] + self.n_nodes[right]

    def internal_nodes(self) -> np.ndarray:
        """Internal nodes of the current pruned tree, in index order."""
        return np.flatnonzero(self.in_tree & ~self.is_leaf)

    def link_strength(self, nodes: np.ndarray) -> np.ndarray:
        """g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1) of internal nodes ``nodes``."""
        return ((self.leaf_cost[nodes] - self.subtree_cost[nodes])
                / (self.n_leaves[nodes] - 1))

    def collapse(self, node: int, update_ancestors: bool = True) -> None:
        """Make ``node`` a leaf of the pruned tree; its descendants leave the tree (each node is
        removed once, so all collapses together are linear). With ``update_ancestors`` the
        aggregates of its ancestors are updated too (O(depth)); the linear traversals pass
        False, as they never read an ancestor's aggregates before recomputing them."""
        if not self.in_tree[node]:
            raise ValueError(f"node {node} has already been pruned away")
        if self.is_leaf[node]:
            return
        left, right, in_tree = self.children_left, self.children_right, self.in_tree
        stack = [left[node], right[node]]
        while stack:
            descendant = stack.pop()
            if not in_tree[descendant]:
                continue
            in_tree[descendant] = False
            if left[descendant] != TREE_LEAF:
                stack.append(left[descendant])
                stack.append(right[descendant])
        self.is_leaf[node] = True
        removed_leaves = self.n_leaves[node] - 1
        removed_nodes = self.n_nodes[node] - 1
        cost_increase = self.leaf_cost[node] - self.subtree_cost[node]
        self.subtree_cost[node] = self.leaf_cost[node]
        self.n_leaves[node] = 1
        self.n_nodes[node] = 1
        if not update_ancestors:
            return
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
    # Children are stored after their parents, so decreasing ids visit children first; a
    # node's aggregates are recomputed from its already pruned children when it is visited.
    for node in np.flatnonzero(~tree.is_leaf)[::-1].tolist():
        state.refresh(node)
        if should_prune(node, state):
            state.collapse(node, update_ancestors=False)
    for node in np.flatnonzero(~tree.is_leaf)[::-1].tolist():  # final aggregates everywhere
        if not state.is_leaf[node]:
            state.refresh(node)
    return state


def prune_top_down(tree: Tree, leaf_cost: np.ndarray, should_prune: PruneHook) -> PruningState:
    """Visit internal nodes parents-first; below a collapsed node nothing is visited (TDP)."""
    state = PruningState(tree, leaf_cost)
    for node in np.flatnonzero(~tree.is_leaf).tolist():
        if state.in_tree[node] and should_prune(node, state):
            state.collapse(node, update_ancestors=False)  # visited ancestors are done
    for node in np.flatnonzero(~tree.is_leaf)[::-1].tolist():  # final aggregates everywhere
        if state.in_tree[node] and not state.is_leaf[node]:
            state.refresh(node)
    return state


class _RangeSums:
    """Fenwick tree: add at a position and sum a range of positions, each in O(log n)."""

    def __init__(self, size: int):
        self.size = size
        self.sums = [0.0] * (size + 1)

    def add(self, position: int, value: float) -> None:
        position += 1
        sums, size = self.sums, self.size
        while position <= size:
            sums[position] += value
            position += position & -position

    def range(self, first: int, end: int) -> float:
        """Sum of positions [first, end)."""
        total, sums = 0.0, self.sums
        while end != first:  # both walk down to their common prefix
            if end > first:
                total += sums[end]
                end -= end & -end
            else:
                total -= sums[first]
                first -= first & -first
        return total


#: Strengths are ranked on 33 bits of mantissa (about 1e-10 relative, ``at_most``'s tolerance),
#: so strengths equal up to the order of their sums tie, and ties go to the lowest node id.
_TIE_BITS = 33


def _tie_key(strength: float) -> float:
    """``strength`` rounded to ``_TIE_BITS`` bits of mantissa (the heap's ranking key)."""
    if strength == 0.0 or not math.isfinite(strength):
        return strength
    mantissa, exponent = math.frexp(strength)
    return math.ldexp(round(mantissa * (1 << _TIE_BITS)), exponent - _TIE_BITS)


def _depth_first_ranges(tree: Tree) -> tuple[list[int], list[int]]:
    """(first, end): node t's subtree is the positions [first[t], end[t]) of a depth-first
    order of the nodes (iterative)."""
    n_nodes = tree.node_count
    left, right = tree.children_left.tolist(), tree.children_right.tolist()
    first, end = [0] * n_nodes, [0] * n_nodes
    position, stack = 0, [0]
    while stack:
        node = stack.pop()
        if node < 0:
            end[~node] = position
            continue
        first[node] = position
        position += 1
        stack.append(~node)
        if left[node] != TREE_LEAF:
            stack.append(right[node])
            stack.append(left[node])
    return first, end


class WeakestLinkState(PruningState):
    """Aggregates for weakest-link cutting: the initial ones (``PruningState``) plus, per
    subtree, the changes made by the collapses inside it (range sums over the depth-first
    order), so a collapse costs O(log n) instead of an update of every ancestor."""

    def __init__(self, tree: Tree, leaf_cost: np.ndarray):
        super().__init__(tree, leaf_cost)
        self.first, self.end = _depth_first_ranges(tree)
        self._cost_changes = _RangeSums(tree.node_count)
        self._leaf_changes = _RangeSums(tree.node_count)
        self._initial_cost = self.subtree_cost.tolist()
        self._initial_leaves = self.n_leaves.tolist()

    def risk_and_leaves(self, node: int) -> tuple[float, int]:
        """R(T_t) and |leaves(T_t)| of the current subtree under ``node``."""
        first, end = self.first[node], self.end[node]
        cost = self._initial_cost[node] + self._cost_changes.range(first, end)
        leaves = self._initial_leaves[node] + int(round(self._leaf_changes.range(first, end)))
        return cost, leaves

    def strength(self, node: int) -> float:
        cost, leaves = self.risk_and_leaves(node)
        return (float(self.leaf_cost[node]) - cost) / (leaves - 1)

    def cut(self, node: int) -> None:
        """Collapse ``node``: its change is recorded once, at its own position, and the
        initial aggregates stay as they are (``finish`` writes the current ones)."""
        cost, leaves = self.risk_and_leaves(node)
        self._cost_changes.add(self.first[node], float(self.leaf_cost[node]) - cost)
        self._leaf_changes.add(self.first[node], float(1 - leaves))
        saved = (self.subtree_cost[node], self.n_leaves[node], self.n_nodes[node])
        self.collapse(node, update_ancestors=False)
        self.subtree_cost[node], self.n_leaves[node], self.n_nodes[node] = saved

    def finish(self) -> None:
        """Write the current aggregates into ``subtree_cost`` / ``n_leaves`` / ``n_nodes``."""
        for node in np.flatnonzero(self.in_tree & ~self.is_leaf).tolist():
            self.subtree_cost[node], self.n_leaves[node] = self.risk_and_leaves(node)
        for node in np.flatnonzero(self.in_tree & self.is_leaf).tolist():
            self.subtree_cost[node], self.n_leaves[node] = self.leaf_cost[node], 1
        for node in np.flatnonzero(self.in_tree & ~self.is_leaf)[::-1].tolist():
            self.n_nodes[node] = (1 + self.n_nodes[self.children_left[node]]
                                  + self.n_nodes[self.children_right[node]])


def prune_weakest_link(tree: Tree, leaf_cost: np.ndarray,
                       stop: Callable[[float], bool] | None = None,
                       record: Callable[[float, int, WeakestLinkState], None] | None = None
                       ) -> WeakestLinkState:
    """Breiman's weakest-link cutting: collapse the internal node of smallest g(t), repeatedly.

    One node per step, the lowest id among ties (strengths equal to about 1e-10 relative,
    ``_tie_key``), as scikit-learn. Before each step ``stop(g)`` may end the pruning (``g`` is
    the weakest link's strength); ``record(g, node, state)`` sees the full tree first
    (``g = 0``, ``node = -1``) and then the tree after every step
    (``state.risk_and_leaves(0)`` gives R(T) and its number of leaves). Runs until the root is
    a leaf otherwise. O(n log n).
    """
    state = WeakestLinkState(tree, leaf_cost)
    if record is not None:
        record(0.0, -1, state)
    internal = np.flatnonzero(~tree.is_leaf)
    heap = [(_tie_key(g), node)
            for g, node in zip(state.link_strength(internal).tolist(), internal.tolist())]
    heapq.heapify(heap)
    while not state.is_leaf[0]:
        while True:  # the smallest entry whose key is still its node's strength
            key, node = heapq.heappop(heap)
            if not state.in_tree[node] or state.is_leaf[node]:
                continue
            strength = state.strength(node)
            current = _tie_key(strength)
            if current > key:
                heapq.heappush(heap, (current, node))  # stale: strengths only grow
                continue
            break
        if stop is not None and stop(strength):
            break
        state.cut(node)
        if record is not None:
            record(strength, node, state)
    state.finish()
    return state
