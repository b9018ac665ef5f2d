"""What costing a C4.5 prediction as C4.5 walks it costs in time: ``path_costs`` of a
C45Classifier (the compiled visit of every branch below a missing value) against the single
path of its binary view (``node_path_costs(tree_)[apply(X)]``, what ``path_costs`` computed
before it followed C4.5), and ``predict_lazy(batch=True)`` against ``predict_proba``.

Data: 8 columns (6 numeric, 2 nominal with 7 and 3 values), 3 classes, an unpruned tree
fitted on 4000 rows, costed on the rows repeated to ``--rows``; complete and with 20% of the
values missing. CPU time (``time.process_time``), median of ``--repeats``, the contenders
interleaved in each round; both routes include encoding X as ``predict`` does.

    PYTHONPATH=. python benchmarks/bench_c45_costs.py [--rows 200000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import format_table  # noqa: E402


def fitted_model():
    from treesmith import C45Classifier

    rng = np.random.default_rng(0)
    n = 4000
    X = pd.DataFrame({f"x{k}": rng.normal(size=n) for k in range(6)})
    X["n0"] = rng.choice(list("abcdefg"), size=n)
    X["n1"] = rng.choice(list("uvw"), size=n)
    score = X.x0 + X.x1 * X.x2 + X.n0.isin(list("abc")) - (X.n1 == "w") \
        + rng.normal(scale=0.7, size=n)
    return C45Classifier(unpruned=True).fit(X, np.digitize(score, [-1, 0, 1])), X


def cpu_seconds(function) -> float:
    start = time.process_time()
    function()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    from treesmith.costs import node_path_costs
    from treesmith.metrics import path_costs, predict_lazy

    model, X = fitted_model()
    big = pd.concat([X] * -(-args.rows // X.shape[0]), ignore_index=True).iloc[:args.rows]
    gaps = big.astype(object).mask(np.random.default_rng(1).random(big.shape) < 0.2)
    costs = np.arange(1.0, 9.0)
    lazy_rows = min(args.rows, 50_000)

    def lazy(data):
        columns = [data.iloc[:, j].to_numpy() for j in range(data.shape[1])]
        return predict_lazy(model, lambda rows, j: columns[j][rows], data.shape[0],
                            batch=True)

    contenders = {
        "binary view, one path": lambda d: node_path_costs(model.tree_, costs)[model.apply(d)],
        "path_costs (C4.5 walk)": lambda d: path_costs(model, d, costs),
        "predict_proba": lambda d: model.predict_proba(d.iloc[:lazy_rows]),
        "predict_lazy batch": lambda d: lazy(d.iloc[:lazy_rows]),
    }
    for f in contenders.values():
        f(big.iloc[:10])  # compile
    times = {(name, label): [] for name in contenders for label in ("complete", "20% NaN")}
    for _ in range(args.repeats):
        for label, data in (("complete", big), ("20% NaN", gaps)):
            for name, f in contenders.items():
                times[(name, label)].append(cpu_seconds(lambda: f(data)))
    median = {key: statistics.median(values) for key, values in times.items()}
    rows = []
    for name in contenders:
        n_rows = lazy_rows if name.startswith("predict") else args.rows
        rows.append([f"{name} ({n_rows} rows)"]
                    + [f"{median[(name, label)]:.3f}" for label in ("complete", "20% NaN")])
    print(format_table(["CPU s, median", "complete", "20% NaN"], rows,
                       title=f"C4.5: {model.c45_tree_.node_count} nodes "
                             f"({model.tree_.node_count} in the binary view)"))
    for label in ("complete", "20% NaN"):
        print(f"{label}: path_costs / binary view = "
              f"{median[('path_costs (C4.5 walk)', label)] / median[('binary view, one path', label)]:.2f}; "
              f"predict_lazy / predict_proba = "
              f"{median[('predict_lazy batch', label)] / median[('predict_proba', label)]:.2f}")


if __name__ == "__main__":
    main()
