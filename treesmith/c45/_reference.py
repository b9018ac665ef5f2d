"""Plain-numpy references for the C4.5 kernels (``treesmith._kernels.c45``, the walk of
``treesmith.c45._costs``), used by the tests.

They use textbook formulas (entropy of proportions in bits) instead of J48's x·ln x sums, and
enumerate every cut, so they check the compiled scan independently.
"""

from __future__ import annotations

import numpy as np

from ._tree import _branch_of

SMALL = 1e-6


def entropy_bits(class_weight: np.ndarray) -> float:
    total = class_weight.sum()
    if total <= 0:
        return 0.0
    p = class_weight[class_weight > 0] / total
    return float(-(p * np.log2(p)).sum())


def gain_of(bags: np.ndarray, total_weight: float) -> float:
    """(N_known / N) · (H(known) − Σ_b (n_b / N_known) H(b)): C4.5's gain, missing values
    charged."""
    known = bags.sum()
    after = sum(b.sum() / known * entropy_bits(b) for b in bags)
    return known / total_weight * (entropy_bits(bags.sum(axis=0)) - after)


def split_information(bag_weight: np.ndarray, total_weight: float) -> float:
    shares = np.append(bag_weight, total_weight - bag_weight.sum()) / total_weight
    shares = shares[shares > 0]
    return float(-(shares * np.log2(shares)).sum())


def best_numeric_cut_naive(values, y_code, weights, n_classes, min_objects, total_weight,
                           mdl_correction=True):
    """``(gain, ratio, threshold_low, n_cuts)`` by enumerating the cuts between distinct known
    values; threshold_low is the largest value going left (None when no test)."""
    known = ~np.isnan(values)
    v, y, w = values[known], y_code[known], weights[known]
    known_weight = w.sum()
    min_split = min(max(0.1 * known_weight / n_classes, min_objects), 25.0)
    if v.size < 2 * min_split:
        return 0.0, 0.0, None, 0
    distinct = np.unique(v)
    gains, cuts = [], []
    for low, high in zip(distinct[:-1], distinct[1:]):
        if not low + 1e-5 < high:
            continue
        left = v <= low
        bags = np.array([np.bincount(y[left], w[left], n_classes),
                         np.bincount(y[~left], w[~left], n_classes)])
        if bags[0].sum() >= min_split - SMALL and bags[1].sum() >= min_split - SMALL:
            gains.append(gain_of(bags, total_weight))
            cuts.append(low)
    if not cuts:
        return 0.0, 0.0, None, 0
    # J48's rule: the first cut beating the best so far (initially 0) by more than 1e-6
    best, best_gain = None, 0.0
    for k, candidate in enumerate(gains):
        if candidate - best_gain > SMALL:
            best, best_gain = k, candidate
    gain = best_gain - (np.log2(len(cuts)) / total_weight if mdl_correction else 0.0)
    if best is None or gain <= SMALL:
        return gain, 0.0, None, len(cuts)
    left = v <= cuts[best]
    bag_weight = np.array([w[left].sum(), w[~left].sum()])
    return gain, gain / split_information(bag_weight, total_weight), cuts[best], len(cuts)


def added_errors_naive(n: float, errors: float, confidence_factor: float) -> float:
    """C4.5's pessimistic extra errors from the exact binomial upper limit for E = 0 and the
    normal approximation otherwise (Quinlan 1993 ch. 4), with scipy's quantile."""
    from scipy.stats import norm

    if errors < 1:
        base = n * (1 - confidence_factor ** (1 / n))
        return base + errors * (added_errors_naive(n, 1.0, confidence_factor) - base)
    if errors + 0.5 >= n:
        return max(n - errors, 0.0)
    z = norm.ppf(1 - confidence_factor)
    f = (errors + 0.5) / n
    upper = (f + z ** 2 / (2 * n) + z * np.sqrt(f / n - f ** 2 / n + z ** 2 / (4 * n ** 2))) \
        / (1 + z ** 2 / n)
    return upper * n - errors


def visited_tests(tree, x: np.ndarray) -> list[int]:
    """The test nodes C4.5's prediction of one encoded row ``x`` evaluates, in pre-order
    (node order): the plain recursive definition ``_costs._visit_costs`` is checked against."""
    visited = []

    def visit(node: int) -> None:
        if tree.attribute[node] < 0:
            return
        visited.append(node)
        start, count = tree.child_start[node], tree.n_children[node]
        branch = int(_branch_of(tree.kind[node], tree.threshold[node],
                                x[tree.attribute[node]], count))
        kids = tree.children[start:start + count]
        if branch >= 0:
            if not tree.is_empty[kids[branch]]:
                visit(int(kids[branch]))
            return
        if tree.branch_weight[start:start + count].sum() > 0:
            for child in kids:
                if not tree.is_empty[child]:
                    visit(int(child))

    visit(0)
    return visited


def weighted_depth(tree, x: np.ndarray) -> float:
    """Depth of one encoded row ``x`` as ``_costs._visit_costs`` defines it, by recursion: the
    mean of the depths where its shares end (a leaf; after a test sending it nowhere
    further), weighted by the shares C4.5 gives them."""
    ends = []  # (share, depth)

    def visit(node: int, share: float) -> None:
        if tree.attribute[node] < 0:
            ends.append((share, tree.depth[node]))
            return
        start, count = tree.child_start[node], tree.n_children[node]
        kids = tree.children[start:start + count]
        weights = tree.branch_weight[start:start + count]
        branch = int(_branch_of(tree.kind[node], tree.threshold[node],
                                x[tree.attribute[node]], count))
        if branch >= 0:
            followed = [(kids[branch], share)] if not tree.is_empty[kids[branch]] else []
        else:
            followed = [(child, share * w / weights.sum()) for child, w in zip(kids, weights)
                        if not tree.is_empty[child] and weights.sum() > 0]
        if not followed:
            ends.append((share, tree.depth[node] + 1))
        for child, child_share in followed:
            visit(int(child), child_share)

    visit(0, 1.0)
    total = sum(share for share, _ in ends)
    return sum(share * depth for share, depth in ends) / total if total > 0 else 0.0
