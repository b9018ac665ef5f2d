"""Forests: treesmith's RandomForestClassifier vs scikit-learn's, threads vs processes, and
BudgetRF's fitting time (issue 12's speed goals).

    python benchmarks/bench_forest.py                       # 1e5 x 50, 100 trees, n_jobs 1 and 2
    python benchmarks/bench_forest.py --quick               # 2e4 x 20, 20 trees
    python benchmarks/bench_forest.py --rows 1e5 --trees 100 --jobs 2 --repeats 3
    python benchmarks/bench_forest.py --budget-only         # BudgetRF on magic only

Everything runs in this one process after a warm-up fit (Numba compilation and the process
pool start are outside the timings); runs of the contenders are interleaved within each
repeat and the script prints wall-clock medians, the CPU time of this process (children of
the process pool are not counted), test accuracy and the ratios. Goals printed beside them:
treesmith >= 3x faster than scikit-learn at the same n_jobs with the same accuracy within
noise; BudgetRF with 40 trees and 10 alpha values on magic under 10 s on 2 cores.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def timed(fit):
    wall, cpu = time.perf_counter(), time.process_time()
    model = fit()
    return model, time.perf_counter() - wall, time.process_time() - cpu


def forest_benchmark(n_rows, n_features, n_trees, jobs, repeats):
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier as SklearnForest
    from sklearn.model_selection import train_test_split

    import treesmith.ensemble.forest as forest_module
    from treesmith.ensemble import RandomForestClassifier

    X, y = make_classification(n_samples=int(n_rows * 1.25), n_features=n_features,
                               n_informative=15, n_redundant=5, n_classes=3, random_state=0)
    X = X.astype(np.float32)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
    print(f"data: make_classification {X_train.shape[0]} x {n_features} train, "
          f"{X_test.shape[0]} test, 3 classes; {n_trees} trees, max_features='sqrt'")

    def treesmith_fit(n_jobs, backend):
        def fit():
            forest_module.PARALLEL_BACKEND = backend
            return RandomForestClassifier(n_trees, n_jobs=n_jobs, random_state=0).fit(
                X_train, y_train)
        return fit

    def sklearn_fit(n_jobs):
        return lambda: SklearnForest(n_trees, n_jobs=n_jobs, random_state=0).fit(X_train,
                                                                                 y_train)

    # warm-up: compile, start the process pool
    for backend in ("loky", "threading"):
        forest_module.PARALLEL_BACKEND = backend
        RandomForestClassifier(4, n_jobs=max(jobs), random_state=0).fit(X_train[:2000],
                                                                        y_train[:2000])
    contenders = {}
    for n_jobs in jobs:
        contenders[f"treesmith processes n_jobs={n_jobs}"] = treesmith_fit(n_jobs, "loky")
        if n_jobs > 1:
            contenders[f"treesmith threads   n_jobs={n_jobs}"] = treesmith_fit(n_jobs,
                                                                              "threading")
        contenders[f"scikit-learn        n_jobs={n_jobs}"] = sklearn_fit(n_jobs)
    results = {name: {"wall": [], "cpu": [], "accuracy": None} for name in contenders}
    for _ in range(repeats):
        for name, fit in contenders.items():
            model, wall, cpu = timed(fit)
            results[name]["wall"].append(wall)
            results[name]["cpu"].append(cpu)
            results[name]["accuracy"] = model.score(X_test, y_test)
            del model
    forest_module.PARALLEL_BACKEND = "loky"
    print(f"{'contender':36s} {'wall s':>8s} {'cpu s':>8s} {'accuracy':>9s}")
    for name, r in results.items():
        print(f"{name:36s} {statistics.median(r['wall']):8.2f} "
              f"{statistics.median(r['cpu']):8.2f} {r['accuracy']:9.4f}")
    for n_jobs in jobs:
        ours = statistics.median(results[f"treesmith processes n_jobs={n_jobs}"]["wall"])
        theirs = statistics.median(results[f"scikit-learn        n_jobs={n_jobs}"]["wall"])
        print(f"n_jobs={n_jobs}: scikit-learn / treesmith = {theirs / ours:.2f}x (goal >= 3x)")
        if n_jobs > 1:
            threads = statistics.median(
                results[f"treesmith threads   n_jobs={n_jobs}"]["wall"])
            print(f"n_jobs={n_jobs}: threads / processes = {threads / ours:.2f}x "
                  "(> 1: processes faster)")


def budget_benchmark(repeats):
    from sklearn.model_selection import train_test_split

    from treesmith.datasets import load_dataset
    from treesmith.ensemble import BudgetForestClassifier

    X, y = load_dataset("magic")
    X = np.asarray(X, dtype=np.float64)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
    alphas = [0, 2, 4, 6, 8, 10, 15, 25, 35, 45]
    print(f"\nBudgetRF on magic: {X_train.shape[0]} rows (a third held out for validation), "
          f"{len(alphas)} alphas, 40 trees each, budget = all features (every tree grows)")

    def fit():
        return BudgetForestClassifier(budget=float(X.shape[1]), alphas=alphas,
                                      max_estimators=40, n_jobs=2, random_state=0).fit(
            X_train, y_train)

    BudgetForestClassifier(budget=None, alphas=[0], max_estimators=2,
                           random_state=0).fit(X_train[:500], y_train[:500])
    walls, cpus = [], []
    for _ in range(repeats):
        model, wall, cpu = timed(fit)
        walls.append(wall)
        cpus.append(cpu)
    print(f"BudgetRF fit: {statistics.median(walls):.2f} s wall, "
          f"{statistics.median(cpus):.2f} s CPU (goal < 10 s on 2 cores), "
          f"chosen alpha {model.alpha_}, {len(model.estimators_)} trees, "
          f"test accuracy {model.score(X_test, y_test):.4f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--budget-only", action="store_true")
    parser.add_argument("--forest-only", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.features, args.trees = 2e4, 20, 20
    if not args.budget_only:
        forest_benchmark(int(args.rows), args.features, args.trees, args.jobs, args.repeats)
    if not args.forest_only:
        budget_benchmark(args.repeats)


if __name__ == "__main__":
    main()
