"""Invariants of every pruning method on random trees (hypothesis).

A pruned tree is a subtree of the original (same root, every kept node identical, some
internal nodes turned into leaves); along the cost-complexity path leaves fall, the training
risk never falls and alphas never decrease; pruning at alpha = 0 removes only splits that do
not lower the risk; pruning at a path alpha gives the path's tree.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pruning import build_tree

from treesmith.pruning import (
    bottom_up_pessimistic_prune_tree,
    cost_complexity_path,
    error_based_prune_tree,
    prune_tree_ccp,
    prune_weakest_link,
    reduced_error_prune_tree,
    top_down_pessimistic_prune_tree,
)
from treesmith.pruning._node_statistics import resubstitution_risk

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
N_CLASSES = 3

leaf = st.lists(st.integers(0, 8), min_size=N_CLASSES, max_size=N_CLASSES).filter(
    lambda counts: sum(counts) > 0)
tree_specs = st.recursive(
    leaf, lambda children: st.tuples(st.integers(0, 2), children, children), max_leaves=14)
trees = tree_specs.filter(lambda spec: isinstance(spec, tuple)).map(
    lambda spec: build_tree(spec, n_features=3))


def is_pruned_subtree(pruned, original) -> bool:
    """Walk both trees from the root: kept internal nodes must test the same feature and have
    the same children; every pruned node must carry its original node's statistics."""
    stack = [(0, 0)]
    while stack:
        p, o = stack.pop()
        if not (np.array_equal(pruned.class_counts[p], original.class_counts[o])
                and pruned.impurity[p] == original.impurity[o]):
            return False
        if pruned.children_left[p] == -1:
            continue
        if original.children_left[o] == -1 or pruned.feature[p] != original.feature[o]:
            return False
        stack.append((pruned.children_left[p], original.children_left[o]))
        stack.append((pruned.children_right[p], original.children_right[o]))
    return True


def total_risk(tree, risk):
    return float(resubstitution_risk(tree, risk)[tree.is_leaf].sum())


@SETTINGS
@given(tree=trees, alpha=st.floats(0, 0.3), cf=st.floats(0.01, 0.5), c1=st.floats(0, 2),
       seed=st.integers(0, 2**16))
def test_every_method_returns_a_subtree(tree, alpha, cf, c1, seed):
    rng = np.random.default_rng(seed)
    X_val = rng.integers(0, 2, size=(12, 3)).astype(np.float64)
    y_val = rng.integers(0, N_CLASSES, size=12)
    results = [
        prune_tree_ccp(tree, alpha),
        prune_tree_ccp(tree, alpha, "misclassification"),
        top_down_pessimistic_prune_tree(tree),
        bottom_up_pessimistic_prune_tree(tree, c1=c1),
        error_based_prune_tree(tree, confidence_factor=cf),
        reduced_error_prune_tree(tree, tree.decision_path(X_val), y_val),
    ]
    for pruned in results:
        pruned.validate()
        assert is_pruned_subtree(pruned, tree)
        assert pruned.n_leaves <= tree.n_leaves


@SETTINGS
@given(tree=trees, risk=st.sampled_from(["impurity", "misclassification"]))
def test_cost_complexity_path_is_monotone(tree, risk):
    path = cost_complexity_path(tree, risk)
    assert path.n_leaves[0] == tree.n_leaves and path.n_leaves[-1] == 1
    assert np.all(np.diff(path.n_leaves) < 0)
    assert np.all(np.diff(path.impurities) >= -1e-12)
    assert np.all(np.diff(path.ccp_alphas) >= -1e-12)
    # The training misclassification error never falls either.
    errors = [total_risk(tree.collapse(path.pruned_nodes[1:k + 1]), "misclassification")
              for k in range(len(path.ccp_alphas))]
    assert np.all(np.diff(errors) >= -1e-12)
    # Each breakpoint's pruning equals the path's tree after the last step at that alpha
    # (strengths within 1e-10 relative of alpha count as equal to it, as prune_tree_ccp says).
    running_max = np.maximum.accumulate(path.ccp_alphas)  # strengths may dip by one ulp
    for alpha in np.unique(running_max):
        tolerance = 1e-10 * np.maximum(np.abs(running_max), abs(alpha))
        last = np.flatnonzero(running_max <= alpha + tolerance)[-1]
        assert prune_tree_ccp(tree, alpha, risk).n_leaves == path.n_leaves[last]


def subtree_risk(tree, cost, node):
    """Sum of ``cost`` over the leaves below ``node`` (plain recursion, no shared code)."""
    if tree.children_left[node] == -1:
        return cost[node]
    return (subtree_risk(tree, cost, tree.children_left[node])
            + subtree_risk(tree, cost, tree.children_right[node]))


@SETTINGS
@given(tree=trees, risk=st.sampled_from(["impurity", "misclassification"]))
def test_pruning_at_zero_only_removes_splits_without_gain(tree, risk):
    cost = resubstitution_risk(tree, risk)
    state = prune_weakest_link(tree, cost, stop=lambda strength: strength > 0.0)
    pruned = prune_tree_ccp(tree, 0.0, risk)
    assert pruned.node_count == state.pruned_tree().node_count
    assert is_pruned_subtree(pruned, tree)
    for node in state.collapsed_nodes():
        assert cost[node] - subtree_risk(tree, cost, node) <= 1e-12
    assert abs(total_risk(pruned, risk) - total_risk(tree, risk)) <= 1e-12
