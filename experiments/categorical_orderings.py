"""How good is the multiclass categorical heuristic? The split a tree takes on one categorical
feature with more than 10 categories and K > 2 classes, against the best of all partitions.

Above 10 categories present in a node, a K > 2 class tree tries the prefixes of one ordering
of the categories: by their principal-component score (Coppersmith, Hong & Hosking,
"Partitioning nominal attributes in decision trees", 1999; docs/methods.md §11). This script
fits a depth-1 ``DecisionTreeClassifier`` (the kernel itself) on random problems, computes the
best gain over all 2^(m-1) - 1 partitions with numpy, and, for comparison, the best prefix over
the K one-vs-rest orderings (each class's proportion: K scans, the heuristic treesmith used
before). Problems: each category's class mix drawn from a flat Dirichlet, its size uniform in
[5, 200] rows, labels in those proportions (rounded).

Printed per (K, m, criterion): the share of problems where the heuristic found the optimum,
and the mean and the worst of its gain / optimal gain.

    python experiments/categorical_orderings.py [--problems 200] [--seed 0]
"""

from __future__ import annotations

import argparse

import numpy as np


def _weighted_impurity(counts, criterion):
    """w h(p) of each row of class counts, vectorised: gini or entropy."""
    w = counts.sum(axis=-1)
    p = counts / np.maximum(w[..., None], 1e-300)
    if criterion == "gini":
        return w * (1.0 - (p ** 2).sum(axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return w * terms.sum(axis=-1)


def optimal_gain(counts, criterion):
    """Best impurity decrease over every partition of the categories (rows of ``counts``)."""
    m = counts.shape[0]
    masks = np.arange(1, 1 << (m - 1))
    left = ((masks[:, None] >> np.arange(m)) & 1).astype(float) @ counts
    total = counts.sum(axis=0)
    gains = (_weighted_impurity(total, criterion) - _weighted_impurity(left, criterion)
             - _weighted_impurity(total - left, criterion))
    return gains.max()


def best_prefix_gain(counts, order, criterion):
    left = np.cumsum(counts[order], axis=0)[:-1]
    total = counts.sum(axis=0)
    return (_weighted_impurity(total, criterion) - _weighted_impurity(left, criterion)
            - _weighted_impurity(total - left, criterion)).max()


def one_vs_rest_gain(counts, criterion):
    """Best prefix over the K orderings by each class's proportion (ties by code)."""
    shares = counts / counts.sum(axis=1, keepdims=True)
    codes = np.arange(counts.shape[0])
    return max(best_prefix_gain(counts, np.lexsort((codes, shares[:, k])), criterion)
               for k in range(counts.shape[1]))


def tree_gain(counts, criterion):
    """The gain of the root split of a depth-1 treesmith tree on these counts."""
    from treesmith import DecisionTreeClassifier

    codes = np.repeat(np.repeat(np.arange(counts.shape[0]), counts.shape[1]),
                      counts.ravel().astype(int))
    y = np.repeat(np.tile(np.arange(counts.shape[1]), counts.shape[0]),
                  counts.ravel().astype(int))
    model = DecisionTreeClassifier(criterion=criterion, max_depth=1, categorical_features=[0])
    model.fit(codes.astype(float)[:, None], y)
    tree = model.tree_
    if tree.node_count < 3:
        return 0.0
    weighted = tree.weighted_n_node_samples * tree.impurity  # entropy in bits, as here
    return weighted[0] - weighted[1] - weighted[2]


def random_counts(rng, m, n_classes):
    while True:
        mix = rng.dirichlet(np.ones(n_classes), m)
        counts = np.round(mix * rng.integers(5, 201, m)[:, None])
        # every category and every class present
        if counts.sum(axis=1).min() > 0 and counts.sum(axis=0).min() > 0:
            return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{args.problems} random problems per row; gain / optimal gain over all partitions")
    print("| K | m | criterion | principal component: optimal | mean | worst "
          "| K one-vs-rest orderings: optimal | mean | worst |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n_classes in (3, 4, 6):
        for m in (11, 13):
            for criterion in ("gini", "entropy"):
                pc, ovr = [], []
                for _ in range(args.problems):
                    counts = random_counts(rng, m, n_classes)
                    best = optimal_gain(counts, criterion)
                    pc.append(tree_gain(counts, criterion) / best)
                    ovr.append(one_vs_rest_gain(counts, criterion) / best)
                pc, ovr = np.array(pc), np.array(ovr)
                print(f"| {n_classes} | {m} | {criterion} | {np.mean(pc > 1 - 1e-9):.0%} | "
                      f"{pc.mean():.4f} | {pc.min():.3f} | {np.mean(ovr > 1 - 1e-9):.0%} | "
                      f"{ovr.mean():.4f} | {ovr.min():.3f} |")


if __name__ == "__main__":
    main()
