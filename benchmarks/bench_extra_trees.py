"""Extremely randomized trees: treesmith's ExtraTreesClassifier / ExtraTreesRegressor vs
scikit-learn's, fit time and test score, printed as ratios in one run.

    python benchmarks/bench_extra_trees.py                  # 1e5 x 50, 100 trees, n_jobs 1, -1
    python benchmarks/bench_extra_trees.py --quick          # 2e4 x 20, 20 trees
    python benchmarks/bench_extra_trees.py --jobs -1 --repeats 3 --tasks classification

Everything runs in this one process after a warm-up fit (Numba compilation outside the
timings); the contenders alternate within each repeat (treesmith, scikit-learn, treesmith,
...) so that a change of load hits both; the script prints wall-clock and CPU medians, the
test score (accuracy, R^2) and the ratios scikit-learn / treesmith (> 1: treesmith faster).
On a machine other jobs keep busy the CPU ratio is the steadier. Both libraries use their
defaults (max_features "sqrt" for classification, 1.0 for regression; no bootstrap) and the
same ``n_jobs``, which for treesmith means what it means for a single tree (-1: every core).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import forest_arguments, forest_task_data, interleaved_fits  # noqa: E402


def extra_trees_benchmark(task, n_rows, n_features, n_trees, jobs, repeats):
    from sklearn import ensemble as sklearn_ensemble

    from treesmith import ensemble

    kind = "Classifier" if task == "classification" else "Regressor"
    ours = getattr(ensemble, "ExtraTrees" + kind)
    theirs = getattr(sklearn_ensemble, "ExtraTrees" + kind)
    X_train, X_test, y_train, y_test, metric = forest_task_data(task, n_rows, n_features)
    print(f"\n{ours.__name__}: make_{task} {X_train.shape[0]} x {n_features} train, "
          f"{X_test.shape[0]} test; {n_trees} trees, defaults of both libraries")
    ours(2, max_depth=3, random_state=0).fit(X_train[:2000], y_train[:2000])  # compile
    contenders = {}
    for n_jobs in jobs:
        contenders[f"treesmith    n_jobs={n_jobs}"] = (
            lambda n_jobs=n_jobs: ours(n_trees, n_jobs=n_jobs, random_state=0).fit(X_train,
                                                                                   y_train))
        contenders[f"scikit-learn n_jobs={n_jobs}"] = (
            lambda n_jobs=n_jobs: theirs(n_trees, n_jobs=n_jobs, random_state=0).fit(
                X_train, y_train))
    results = interleaved_fits(contenders, repeats, X_test, y_test)
    print(f"{'contender':26s} {'wall s':>8s} {'cpu s':>8s} {metric:>9s}")
    for name, r in results.items():
        print(f"{name:26s} {statistics.median(r['wall']):8.2f} "
              f"{statistics.median(r['cpu']):8.2f} {r['score']:9.4f}")
    for n_jobs in jobs:
        mine = results[f"treesmith    n_jobs={n_jobs}"]
        reference = results[f"scikit-learn n_jobs={n_jobs}"]
        wall = statistics.median(reference["wall"]) / statistics.median(mine["wall"])
        cpu = statistics.median(reference["cpu"]) / statistics.median(mine["cpu"])
        print(f"n_jobs={n_jobs}: scikit-learn / treesmith = wall {wall:.2f}x, CPU {cpu:.2f}x; "
              f"{metric} treesmith - scikit-learn = {mine['score'] - reference['score']:+.4f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = forest_arguments(parser)
    for task in args.tasks:
        extra_trees_benchmark(task, int(args.rows), args.features, args.trees, args.jobs,
                              args.repeats)


if __name__ == "__main__":
    main()
