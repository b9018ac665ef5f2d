"""A/B of best-first growth (``max_leaf_nodes``) between two checkouts, in fresh interleaved
processes.

    python benchmarks/ab_best_first.py /path/to/other/checkout [--rows 100000] [--repeats 3]

Each run imports treesmith from one checkout, warms the kernels on a small fit, then times
(one Numba thread) best-first fits of make_classification data (50 features, 3 classes) with
``max_leaf_nodes`` 1000: the gain rule (Gini), and cost-benefit with feature costs 1..50. Prints
the best wall time of each case per checkout, their ratio, and a fingerprint of each tree
(whether the two checkouts grew the same tree).
"""

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHILD = r"""
import hashlib, sys, time, numba
sys.path.insert(0, {checkout!r}); sys.path.insert(0, {benchmarks!r})
import numpy as np
from _common import make_classification_data
import treesmith
X, y = make_classification_data({rows}, n_features=50, n_classes=3, n_informative=15,
                                n_redundant=5)
cases = {{"gain": {{}},
          "cost_benefit": {{"split_rule": "cost_benefit",
                           "feature_costs": np.arange(1.0, 51.0)}}}}
numba.set_num_threads(1)
for name, params in cases.items():
    treesmith.DecisionTreeClassifier(max_leaf_nodes=50, **params).fit(X[:3000], y[:3000])
    wall = time.perf_counter()
    tree = treesmith.DecisionTreeClassifier(max_leaf_nodes=1000, **params).fit(X, y).tree_
    wall = time.perf_counter() - wall
    digest = hashlib.sha1(tree.feature.tobytes() + tree.threshold.tobytes()).hexdigest()[:10]
    print(name, wall, tree.n_leaves, digest)
"""


def run(checkout: str, rows: int) -> dict:
    code = CHILD.format(checkout=checkout, benchmarks=str(HERE), rows=rows)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return {name: (float(wall), int(leaves), digest) for name, wall, leaves, digest in
            (line.split() for line in out.strip().splitlines())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", help="the checkout to compare with (e.g. a git worktree)")
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    checkouts = {"this": str(HERE.parent), "other": str(Path(args.other).resolve())}
    results = {name: [] for name in checkouts}
    for _ in range(args.repeats):
        for name, path in checkouts.items():
            results[name].append(run(path, int(args.rows)))
    for case in results["this"][0]:
        walls = {name: [r[case][0] for r in runs] for name, runs in results.items()}
        trees = {name: runs[0][case][1:] for name, runs in results.items()}
        print(f"{case}: this {min(walls['this']):.2f}-{max(walls['this']):.2f} s, other "
              f"{min(walls['other']):.2f}-{max(walls['other']):.2f} s, best this/other "
              f"{min(walls['this']) / min(walls['other']):.2f}x; leaves and tree "
              f"{trees['this']} vs {trees['other']}"
              + (" (same tree)" if trees["this"] == trees["other"] else " (trees differ)"))


if __name__ == "__main__":
    main()
