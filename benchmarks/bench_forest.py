"""Forests: treesmith's RandomForestClassifier vs scikit-learn's, threads vs processes, and
BudgetRF's fitting time (issue 12's speed goals).

    python benchmarks/bench_forest.py                       # 1e5 x 50, 100 trees, n_jobs 1, -1
    python benchmarks/bench_forest.py --quick               # 2e4 x 20, 20 trees
    python benchmarks/bench_forest.py --rows 1e5 --trees 100 --jobs -1 --repeats 3
    python benchmarks/bench_forest.py --tasks classification --backends threads
    python benchmarks/bench_forest.py --budget-only         # BudgetRF on magic only

Everything runs in this one process after a warm-up fit (Numba compilation and the process
pool start are outside the timings); runs of the contenders are interleaved within each
repeat and the script prints wall-clock medians, the CPU time of this process (children of
the process pool are not counted), test accuracy and the ratios (wall and, where all the work
runs in this process, CPU: on a machine other jobs keep busy the CPU ratio is the steadier). Goals printed beside them:
treesmith >= 3x faster than scikit-learn at the same n_jobs with the same accuracy within
noise; BudgetRF with 40 trees and 10 alpha values on magic under 10 s on 2 cores.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    forest_arguments,
    forest_task_data,
    interleaved_fits,
    timed_with_cpu,
)


def forest_benchmark(task, n_rows, n_features, n_trees, jobs, repeats, backends):
    from sklearn import ensemble as sklearn_ensemble

    import treesmith.ensemble.forest as forest_module
    import treesmith.grower as grower_module
    from treesmith import ensemble

    kind = "Classifier" if task == "classification" else "Regressor"
    ours = getattr(ensemble, "RandomForest" + kind)
    theirs = getattr(sklearn_ensemble, "RandomForest" + kind)
    X_train, X_test, y_train, y_test, metric = forest_task_data(task, n_rows, n_features)
    print(f"\n{ours.__name__}: make_{task} {X_train.shape[0]} x {n_features} train, "
          f"{X_test.shape[0]} test; {n_trees} trees, default max_features (classifier 'sqrt', "
          "regressor 1.0 in both libraries)")
    small_node_size = grower_module._small_node_size

    def pooled(n_bins, n_stats, histogram_bytes, samples_few_features=False, binned_bytes=None):
        return small_node_size(n_bins, n_stats, histogram_bytes)

    def treesmith_fit(n_jobs, backend, histograms="per-node"):
        def fit():
            forest_module.PARALLEL_BACKEND = backend
            grower_module._small_node_size = pooled if histograms == "pooled" \
                else small_node_size
            try:
                return ours(n_trees, n_jobs=n_jobs, random_state=0).fit(X_train, y_train)
            finally:
                grower_module._small_node_size = small_node_size
        return fit

    def sklearn_fit(n_jobs):
        return lambda: theirs(n_trees, n_jobs=n_jobs, random_state=0).fit(X_train, y_train)

    # warm-up: compile, start the process pool (and load the compiled kernels in its workers)
    for backend in backends:
        forest_module.PARALLEL_BACKEND = backend
        ours(4, n_jobs=max(jobs, key=abs), max_depth=3, random_state=0).fit(X_train, y_train)
    contenders = {}
    for n_jobs in jobs:
        for backend in backends if n_jobs != 1 else backends[:1]:
            contenders[f"treesmith {backend:9s} n_jobs={n_jobs}"] = treesmith_fit(n_jobs,
                                                                               backend)
        if n_jobs == 1 and task == "classification":
            contenders["treesmith pooled hist. n_jobs=1"] = treesmith_fit(1, backends[0],
                                                                          "pooled")
        contenders[f"scikit-learn        n_jobs={n_jobs}"] = sklearn_fit(n_jobs)
    results = interleaved_fits(contenders, repeats, X_test, y_test)
    forest_module.PARALLEL_BACKEND = "threads"
    print(f"{'contender':34s} {'wall s':>8s} {'cpu s':>8s} {metric:>9s}")
    for name, r in results.items():
        print(f"{name:34s} {statistics.median(r['wall']):8.2f} "
              f"{statistics.median(r['cpu']):8.2f} {r['score']:9.4f}")

    def wall(name):
        return statistics.median(results[name]["wall"])

    def cpu(name):
        return statistics.median(results[name]["cpu"])

    for n_jobs in jobs:
        sklearn_name = f"scikit-learn        n_jobs={n_jobs}"
        for backend in backends if n_jobs != 1 else backends[:1]:
            ours_name = f"treesmith {backend:9s} n_jobs={n_jobs}"
            cpu_ratio = (f", CPU {cpu(sklearn_name) / cpu(ours_name):.2f}x"
                         if backend == "threads" else "")
            print(f"n_jobs={n_jobs}: scikit-learn / treesmith {backend} = wall "
                  f"{wall(sklearn_name) / wall(ours_name):.2f}x{cpu_ratio} (goal >= 3x)")
        if n_jobs != 1 and len(backends) > 1:
            ratio = wall(f"treesmith {backends[1]:9s} n_jobs={n_jobs}") / wall(
                f"treesmith {backends[0]:9s} n_jobs={n_jobs}")
            print(f"n_jobs={n_jobs}: {backends[1]} / {backends[0]} = {ratio:.2f}x "
                  f"(> 1: {backends[0]} faster)")
        if n_jobs == 1 and task == "classification":
            ratio = wall("treesmith pooled hist. n_jobs=1") / wall(
                f"treesmith {backends[0]:9s} n_jobs=1")
            print(f"n_jobs=1: pooled histograms of all features / per-node histograms of the "
                  f"sampled features = {ratio:.2f}x")


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
                                      max_estimators=40, n_jobs=-1, random_state=0).fit(
            X_train, y_train)

    BudgetForestClassifier(budget=None, alphas=[0], max_estimators=2,
                           random_state=0).fit(X_train[:500], y_train[:500])
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu, model = timed_with_cpu(fit)
        walls.append(wall)
        cpus.append(cpu)
    print(f"BudgetRF fit: {statistics.median(walls):.2f} s wall, "
          f"{statistics.median(cpus):.2f} s CPU (goal < 10 s on 2 cores), "
          f"chosen alpha {model.alpha_}, {len(model.estimators_)} trees, "
          f"test accuracy {model.score(X_test, y_test):.4f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = forest_arguments(parser, extra=(
        (("--backends",), dict(nargs="+", default=["threads", "processes"],
                               help="treesmith's ways of growing trees at once (first: the "
                                    "default)")),
        (("--budget-only",), dict(action="store_true")),
        (("--forest-only",), dict(action="store_true"))))
    if not args.budget_only:
        for task in args.tasks:
            forest_benchmark(task, int(args.rows), args.features, args.trees, args.jobs,
                             args.repeats, args.backends)
    if not args.forest_only:
        budget_benchmark(args.repeats)


if __name__ == "__main__":
    main()
