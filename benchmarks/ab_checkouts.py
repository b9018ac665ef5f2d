"""A/B of fit time between two checkouts of treesmith, in fresh processes, interleaved.

    python benchmarks/ab_checkouts.py /path/to/other/checkout [--rows 100000] [--repeats 2]
        [--features 50]

Each run imports treesmith from one checkout (first on sys.path), warms the kernels on a small
fit, then times a full-depth fit of make_classification data (--features, default 50; 3
classes) with one and with two Numba threads; scikit-learn's tree is timed once for reference.
Prints wall and CPU seconds per checkout and the ratios. Used for the refactor's speed check
(docs in the closing notes): run it on a quiet machine.
"""

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHILD = r"""
import sys, time, numba
sys.path.insert(0, {checkout!r}); sys.path.insert(0, {benchmarks!r})
from _common import make_classification_data
import treesmith
X, y = make_classification_data({rows}, n_features={features}, n_classes=3,
                                n_informative=min(15, {features} - 2),
                                n_redundant=min(5, {features} - 2 - min(15, {features} - 2)))
treesmith.DecisionTreeClassifier(random_state=0).fit(X[:3000], y[:3000])
for threads in (1, 2):
    numba.set_num_threads(threads)
    wall, cpu = time.perf_counter(), time.process_time()
    tree = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    print(threads, time.perf_counter() - wall, time.process_time() - cpu, tree.tree_.node_count)
"""


def run(checkout: str, rows: int, features: int = 50) -> dict:
    code = CHILD.format(checkout=checkout, benchmarks=str(HERE), rows=rows, features=features)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return {int(t): (float(w), float(c), int(n)) for t, w, c, n in
            (line.split() for line in out.strip().splitlines())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", help="the checkout to compare with (e.g. a git worktree)")
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--features", type=int, default=50)
    args = parser.parse_args()
    checkouts = {"this": str(HERE.parent), "other": str(Path(args.other).resolve())}
    rows = int(args.rows)
    results = {name: [] for name in checkouts}
    for _ in range(args.repeats):
        for name, path in checkouts.items():
            results[name].append(run(path, rows, args.features))
    for threads in (1, 2):
        best = {name: min(r[threads][0] for r in runs) for name, runs in results.items()}
        cpu = {name: min(r[threads][1] for r in runs) for name, runs in results.items()}
        nodes = {name: runs[0][threads][2] for name, runs in results.items()}
        print(f"{threads} thread(s): this {best['this']:.2f} s (cpu {cpu['this']:.2f}), other "
              f"{best['other']:.2f} s (cpu {cpu['other']:.2f}), this/other "
              f"{best['this'] / best['other']:.2f}x; nodes {nodes['this']} vs {nodes['other']}")


if __name__ == "__main__":
    main()
