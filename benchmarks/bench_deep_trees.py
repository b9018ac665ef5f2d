"""Do the whole-tree traversals stay linear in the number of nodes, whatever the depth?

Times text/rules/DOT export, ``max_cost(X=None)`` and the ccp / bup / rep / tdp pruning on a
chain tree (every internal node has a leaf on the left: depth = number of internal nodes) and on
a full balanced tree, in this checkout and, with ``--baseline PATH``, in another checkout (e.g.
``/work/main``), each in its own process, and prints the times and the ratios.

    python benchmarks/bench_deep_trees.py                         # this checkout only
    python benchmarks/bench_deep_trees.py --baseline /work/main --chain-depth 2000 4000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np

MARKER = "@@DEEP_TREES@@ "


def chain_tree(depth: int, n_features: int = 3):
    from treesmith.tree import Tree

    n_nodes = 2 * depth + 1
    left = np.full(n_nodes, -1, dtype=np.int64)
    right = np.full(n_nodes, -1, dtype=np.int64)
    internal = np.arange(depth) * 2
    left[internal], right[internal] = internal + 1, internal + 2
    return _with_statistics(Tree, left, right, n_features, seed=depth)


def balanced_tree(height: int, n_features: int = 8):
    from treesmith.tree import Tree

    n_nodes = 2 ** (height + 1) - 1
    left = np.full(n_nodes, -1, dtype=np.int64)
    right = np.full(n_nodes, -1, dtype=np.int64)
    internal = np.arange(2 ** height - 1)
    left[internal], right[internal] = 2 * internal + 1, 2 * internal + 2
    return _with_statistics(Tree, left, right, n_features, seed=height)


def _with_statistics(Tree, left, right, n_features, seed):
    """Class counts summed up from random leaf counts; every other array consistent."""
    rng = np.random.default_rng(seed)
    n_nodes = left.shape[0]
    internal = left != -1
    counts = np.zeros((n_nodes, 2))
    counts[~internal] = rng.integers(0, 6, size=(int((~internal).sum()), 2)) + [1, 0]
    depth = np.zeros(n_nodes, dtype=np.int64)
    for node in np.flatnonzero(internal).tolist():
        depth[left[node]] = depth[right[node]] = depth[node] + 1
    for node in np.flatnonzero(internal)[::-1].tolist():
        counts[node] = counts[left[node]] + counts[right[node]]
    total = counts.sum(axis=1)
    value = counts / total[:, None]
    feature = np.where(internal, rng.integers(0, n_features, n_nodes), -2)
    threshold = np.where(internal, rng.normal(size=n_nodes), np.nan)
    return Tree(n_features, 2, children_left=left, children_right=right, feature=feature,
                threshold=threshold, bin_threshold=np.where(internal, 0, -1),
                missing_go_left=np.zeros(n_nodes, dtype=bool), impurity=1 - (value ** 2).sum(1),
                n_node_samples=total.astype(np.int64), weighted_n_node_samples=total,
                value=value, class_counts=counts, depth=depth)


def _time(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def worker(spec: dict) -> dict:
    """CPU seconds of each operation on one tree (median of ``repeats``)."""
    import treesmith
    from treesmith import metrics, pruning
    from treesmith.pruning.reduced_error import reduced_error_prune_tree

    tree = chain_tree(spec["depth"]) if spec["shape"] == "chain" else balanced_tree(
        spec["depth"])
    estimator = SimpleNamespace(tree_=tree, n_features_in_=tree.n_features,
                                classes_=np.array([0, 1]))
    X = np.random.default_rng(0).normal(size=(200, tree.n_features))
    indicator = tree.decision_path(X)
    target = np.random.default_rng(1).integers(0, 2, 200)
    operations = {
        "export_text(max_depth=None)": lambda: treesmith.export_text(
            estimator, max_depth=None, feature_costs=[1.0, 2.0, 3.0][:tree.n_features]
            if tree.n_features == 3 else None),
        "export_text(rules=True, max_depth=None)": lambda: treesmith.export_text(
            estimator, rules=True, max_depth=None),
        "export_graphviz": lambda: treesmith.export_graphviz(estimator),
        "max_cost(X=None)": lambda: metrics.max_cost(estimator),
        "prune ccp (alpha=0.001)": lambda: pruning.cost_complexity.prune_tree_ccp(tree, 0.001),
        "ccp path": lambda: pruning.cost_complexity.cost_complexity_path(tree),
        "prune bup": lambda: pruning.bottom_up_pessimistic.bottom_up_pessimistic_prune_tree(
            tree),
        "prune rep": lambda: reduced_error_prune_tree(tree, indicator, target),
        "prune tdp": lambda: pruning.top_down_pessimistic.top_down_pessimistic_prune_tree(tree),
    }
    skip = set(spec.get("skip", ()))
    return {name: min(_time(op) for _ in range(spec["repeats"]))
            for name, op in operations.items() if name not in skip}


def run(checkout: str, spec: dict, timeout: float) -> dict | None:
    env = dict(os.environ, PYTHONPATH=checkout)
    try:
        done = subprocess.run([sys.executable, __file__, "--worker", json.dumps(spec)], env=env,
                              capture_output=True, text=True, timeout=timeout, cwd=checkout)
    except subprocess.TimeoutExpired:
        return None
    for line in done.stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    print(done.stderr[-2000:], file=sys.stderr)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker")
    parser.add_argument("--baseline", help="another checkout to compare with (PYTHONPATH)")
    parser.add_argument("--chain-depth", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--balanced-height", type=int, nargs="+", default=[14, 17])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    if args.worker:
        print(MARKER + json.dumps(worker(json.loads(args.worker))))
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cases = [("chain", d) for d in args.chain_depth] + [
        ("balanced", h) for h in args.balanced_height]
    for shape, depth in cases:
        spec = {"shape": shape, "depth": depth, "repeats": args.repeats}
        n_nodes = 2 * depth + 1 if shape == "chain" else 2 ** (depth + 1) - 1
        print(f"\n{shape} tree, depth {depth}, {n_nodes} nodes (CPU seconds, best of "
              f"{args.repeats})")
        ours = run(here, spec, args.timeout)
        theirs = run(args.baseline, spec, args.timeout) if args.baseline else None
        for name in (ours or {}):
            line = f"  {name:<42} {ours[name]:9.3f}"
            if args.baseline:
                other = (theirs or {}).get(name)
                line += (f"  baseline {other:9.3f}  ratio {other / max(ours[name], 1e-6):7.1f}x"
                         if other is not None else f"  baseline > {args.timeout:.0f} s or failed")
            print(line)


if __name__ == "__main__":
    main()
