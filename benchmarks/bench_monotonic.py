"""Monotonic constraints: fit time with and without ``monotonic_cst``, against scikit-learn's
trees with the same constraints (issue 15).

One process, warm (every estimator fitted once on a small sample first), repeats interleaved
across estimators (the machine may be shared); the median of ``--repeats`` fits, wall and process
CPU time. Data: ``n`` rows x 20 features whose label rises with features 0-2 and falls with
features 3-4 (a small wiggle keeps it monotone) plus noise; the constraints say so (+1 x 3, -1 x 2, 0 x 15). Prints
leaves, test R² (regression) or accuracy (binary classification) and the ratios constrained /
unconstrained (the constraint's cost) and treesmith / scikit-learn.

    python benchmarks/bench_monotonic.py                      # 1e5 rows
    python benchmarks/bench_monotonic.py --rows 1000000 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import environment_lines, format_table, load_average_line, timed_with_cpu  # noqa: E402

CONSTRAINTS = [1, 1, 1, -1, -1] + [0] * 15


def make_data(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n_rows, len(CONSTRAINTS)))
    signal = X[:, :3].sum(axis=1) - X[:, 3:5].sum(axis=1) + 0.05 * np.sin(9 * X[:, 0])
    y = signal + rng.normal(0, 0.3, n_rows)
    return X.astype(np.float32), y


def estimators(task):
    import sklearn.tree

    import treesmith

    ours = treesmith.DecisionTreeRegressor if task == "regression" else \
        treesmith.DecisionTreeClassifier
    theirs = sklearn.tree.DecisionTreeRegressor if task == "regression" else \
        sklearn.tree.DecisionTreeClassifier
    common = {"min_samples_leaf": 20, "random_state": 0}
    return {
        "treesmith": ours(**common),
        "treesmith monotone": ours(monotonic_cst=CONSTRAINTS, **common),
        "scikit-learn": theirs(**common),
        "scikit-learn monotone": theirs(monotonic_cst=CONSTRAINTS, **common),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print("\n".join(environment_lines()))
    for task in ("regression", "classification"):
        X, y = make_data(int(args.rows) + 20_000)
        if task == "classification":
            y = (y > np.median(y)).astype(np.int64)
        X_train, y_train, X_test, y_test = X[:-20_000], y[:-20_000], X[-20_000:], y[-20_000:]
        models = estimators(task)
        for model in models.values():  # warm: compile or load the kernels
            model.fit(X_train[:2000], y_train[:2000])
        times = {name: [] for name in models}
        for _ in range(args.repeats):
            for name, model in models.items():
                wall, cpu, _ = timed_with_cpu(model.fit, X_train, y_train)
                times[name].append((wall, cpu))
        rows = []
        for name, model in models.items():
            wall = statistics.median(t[0] for t in times[name])
            cpu = statistics.median(t[1] for t in times[name])
            rows.append([name, f"{wall:.2f}", f"{cpu:.2f}", str(model.get_n_leaves()),
                         f"{model.score(X_test, y_test):.4f}"])
        print(f"\n{task}, {int(args.rows)} rows x {X.shape[1]} features, median of "
              f"{args.repeats}; {load_average_line('after')}")
        print(format_table(["estimator", "wall s", "cpu s", "leaves",
                            "R²" if task == "regression" else "accuracy"], rows))

        def ratio(a, b):
            return (statistics.median(t[1] for t in times[a])
                    / statistics.median(t[1] for t in times[b]))

        print(f"cpu ratios: treesmith monotone / treesmith "
              f"{ratio('treesmith monotone', 'treesmith'):.2f}x, scikit-learn monotone / "
              "scikit-learn "
              f"{ratio('scikit-learn monotone', 'scikit-learn'):.2f}x, treesmith monotone / "
              f"scikit-learn monotone {ratio('treesmith monotone', 'scikit-learn monotone'):.2f}x")


if __name__ == "__main__":
    main()
