"""Fit time of C45Classifier against Weka's J48 on the same data (issue 16).

J48's time is its own "Time taken to build model" (the JVM start and reading the ARFF file are
not counted); ours is the wall time of ``fit`` after a warm-up fit (numba compiled). Data:
``make_classification`` with 20 numeric features (10 informative, 5 redundant), float32
values, 2 classes. Also the fixed cost of a small fit: C45Classifier on 300 and 1000 rows
against the growth step alone. Goal: J48 / ours >= 10 at 1e5 rows; small fits within 2 ms of
growth.

    PYTHONPATH=. python benchmarks/bench_c45.py [--rows 100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def data(n_rows: int):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n_rows, n_features=20, n_informative=10,
                               n_redundant=5, n_classes=2, random_state=0)
    return X.astype(np.float32).astype(np.float64), y


def time_ours(X, y, repeats: int) -> float:
    from treesmith import C45Classifier

    C45Classifier().fit(X[:300], y[:300])
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        C45Classifier().fit(X, y)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_growth(X, y, repeats: int) -> float:
    from treesmith import C45Classifier
    from treesmith.c45 import _grow

    model = C45Classifier()
    model.fit(X, y)
    _, y_code = np.unique(y, return_inverse=True)
    data_ = model._growth_data(model._encode_predict(X), y_code.astype(np.int64),
                               np.ones(X.shape[0]))
    settings = _grow.GrowthSettings(n_all_objects=X.shape[0], keep_data=True)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        _grow.grow(data_, settings)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def time_j48(X, y, repeats: int) -> float:
    from treesmith import C45Classifier
    from treesmith.c45.weka import run_j48, weka_jar

    if weka_jar() is None:
        return float("nan")
    model = C45Classifier().fit(X[:300], y[:300])
    model.fit(X, y)
    return statistics.median(run_j48(model, X, y).build_seconds for _ in range(repeats))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    X, y = data(args.rows)
    ours, j48 = time_ours(X, y, args.repeats), time_j48(X, y, args.repeats)
    print(f"{args.rows} x 20 numeric: C45Classifier {ours:.2f} s, J48 build {j48:.2f} s, "
          f"J48 / ours = {j48 / ours:.1f} (goal >= 10)")
    for n_rows in (300, 1000):
        X_small, y_small = data(n_rows)
        fit = time_ours(X_small, y_small, 15)
        grow = time_growth(X_small, y_small, 15)
        print(f"{n_rows} rows: fit {1000 * fit:.1f} ms, growth {1000 * grow:.1f} ms, "
              f"fit - growth = {1000 * (fit - grow):.1f} ms (goal <= 2 ms)")


if __name__ == "__main__":
    main()
