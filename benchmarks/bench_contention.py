"""Contention benchmark: does treesmith keep its speed on a busy machine and inside process pools?

The same fits (a pima-sized problem, 1e4 and 1e5 rows) under four conditions:

- ``quiet``: nothing started beside the fit (the machine may still be shared: see the load
  averages in the header);
- ``busy-1``: one busy-looping background process;
- ``busy-all``: as many busy-looping processes as the machine has cores;
- ``grid``: ``GridSearchCV(n_jobs=-1)`` over 8 candidates (``max_depth``), 2-fold.

In each condition and size, one worker process fits, interleaved repeat by repeat:
treesmith with its default threads, treesmith on one thread (``numba.set_num_threads(1)``,
which every version of treesmith honours) and scikit-learn's ``DecisionTreeClassifier``.
For ``grid`` the three are the estimators of three ``GridSearchCV(n_jobs=-1)`` runs (the
one-thread treesmith pins Numba to one thread inside each joblib worker). Printed: medians of
wall and CPU time, treesmith's time over its own one-thread time and over scikit-learn's,
with the goals beside them (under load and in the grid at most 1.3x its own one-thread time;
at 1e5 at most 1/5 of scikit-learn's).

    python benchmarks/bench_contention.py                 # pima, 1e4, 1e5; all conditions (~3-5 min quiet)
    python benchmarks/bench_contention.py --quick         # pima and 1e4, 1 repeat
    python benchmarks/bench_contention.py --sizes 1e5 --conditions busy-1,grid --repeats 5
    OMP_WAIT_POLICY=passive python benchmarks/bench_contention.py   # the environment reaches the workers
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    environment_lines,
    format_ratio,
    format_seconds,
    format_table,
    git_revision_line,
    load_arrays,
    load_average_line,
    make_classification_data,
    median,
    run_worker,
    save_arrays,
    timed_with_cpu,
    worker_main,
)

REPO_ROOT = Path(__file__).resolve().parents[1]

#: name -> (n_samples, n_features): pima-sized as in the issue, then the engine's data shape.
SIZES = {"pima": (500, 40), "1e4": (10_000, 50), "1e5": (100_000, 50)}
DEFAULT_SIZES = ("pima", "1e4", "1e5")
QUICK_SIZES = ("pima", "1e4")
CONDITIONS = ("quiet", "busy-1", "busy-all", "grid")
DATASET = {"n_classes": 3, "n_informative": 15, "n_redundant": 5, "random_state": 0}
GRID_DEPTHS = (4, 6, 8, 10, 12, 14, 16, None)
GRID_FOLDS = 2
WARMUP_ROWS = 2_000
#: Goals of the issue: under load or nesting, treesmith / its own one-thread time at most this;
GOAL_OVER_ONE_THREAD = 1.3
#: and at 1e5 treesmith / scikit-learn at most this.
GOAL_OVER_SKLEARN_1E5 = 0.2

VARIANTS = ("treesmith", "treesmith-1thread", "sklearn")


# == worker side ===========================================================================
def _one_thread(function):
    """Run ``function`` with Numba pinned to one thread in this thread (restored after)."""
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return function()
    finally:
        numba.set_num_threads(previous)


def _make_estimator(variant, max_depth=None):
    if variant == "sklearn":
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(max_depth=max_depth, random_state=0)
    if variant == "treesmith-1thread":
        return OneThreadTreesmith(max_depth=max_depth)
    import treesmith

    return treesmith.DecisionTreeClassifier(max_depth=max_depth, random_state=0)


try:
    from sklearn.base import BaseEstimator, ClassifierMixin
except ImportError:  # pragma: no cover
    BaseEstimator = ClassifierMixin = object


class OneThreadTreesmith(ClassifierMixin, BaseEstimator):
    """treesmith's classifier with Numba pinned to one thread during fit and predict, in
    whichever process (joblib worker) it runs. Defined here, so joblib pickles it by value."""

    def __init__(self, max_depth=None):
        self.max_depth = max_depth

    def fit(self, X, y):
        import treesmith

        model = treesmith.DecisionTreeClassifier(max_depth=self.max_depth, random_state=0)
        self.model_ = _one_thread(lambda: model.fit(X, y))
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return _one_thread(lambda: self.model_.predict(X))


def _fit_once(variant, X, y):
    return timed_with_cpu(_make_estimator(variant).fit, X, y)[:2]


def _grid_once(variant, X, y):
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(_make_estimator(variant), {"max_depth": list(GRID_DEPTHS)},
                          cv=GRID_FOLDS, n_jobs=-1)
    return timed_with_cpu(search.fit, X, y)[:2]


def measure(payload):
    """Interleaved repeats of the three variants on one size; returns wall and CPU seconds.

    For the grid, the CPU time is the driver process's only (the fits run in joblib workers).
    """
    X, y = load_arrays(payload["data"])
    once = _grid_once if payload["grid"] else _fit_once
    for variant in VARIANTS:  # warm-up: imports, compiled kernels, thread pools, joblib workers
        if payload["grid"]:
            _grid_once(variant, X[:WARMUP_ROWS], y[:WARMUP_ROWS])
        else:
            _fit_once(variant, X[:WARMUP_ROWS], y[:WARMUP_ROWS])
    result = {variant: {"wall": [], "cpu": []} for variant in VARIANTS}
    for _ in range(payload["repeats"]):
        for variant in VARIANTS:
            wall, cpu = once(variant, X, y)
            result[variant]["wall"].append(wall)
            result[variant]["cpu"].append(cpu)
    return result


# == parent side ===========================================================================
def _child_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


class BusyProcesses:
    """Context manager: ``n`` background processes spinning in a Python loop."""

    def __init__(self, n):
        self.n = n
        self.processes = []

    def __enter__(self):
        for _ in range(self.n):
            self.processes.append(subprocess.Popen([sys.executable, "-c", "while True: pass"]))
        return self

    def __exit__(self, *exc_info):
        for process in self.processes:
            process.kill()
        for process in self.processes:
            process.wait()
        return False


def _n_busy(condition):
    return {"busy-1": 1, "busy-all": os.cpu_count() or 1}.get(condition, 0)


def run_benchmark(sizes, conditions, repeats, workdir):
    results = {}
    for size in sizes:
        n_samples, n_features = SIZES[size]
        X, y = make_classification_data(n_samples, n_features=n_features, **DATASET)
        data = save_arrays(workdir, f"data_{size}", X, y)
        for condition in conditions:
            payload = {"task": "measure", "data": data, "repeats": repeats,
                       "grid": condition == "grid"}
            with BusyProcesses(_n_busy(condition)):
                result = run_worker(Path(__file__).resolve(), payload, env=_child_env())
            results[(size, condition)] = result
            walls = ", ".join(f"{v} {format_seconds(median(result[v]['wall']))} s"
                              for v in VARIANTS)
            print(f"  [{size} {condition}] {walls}", file=sys.stderr, flush=True)
        for path in data.values():
            os.remove(path)
    return results


def _verdict(value, goal):
    if value is None or value != value:
        return ""
    return "ok" if value <= goal else "MISSED"


def report(results, sizes, conditions, args):
    rows = []
    verdicts = []
    for size in sizes:
        for condition in conditions:
            result = results[(size, condition)]
            ts, one, sk = (median(result[v]["wall"]) for v in VARIANTS)
            ts_cpu, one_cpu, sk_cpu = (median(result[v]["cpu"]) for v in VARIANTS)
            over_one = ts / one if one else float("nan")
            over_sk = ts / sk if sk else float("nan")
            loaded = condition != "quiet"
            goal_one = _verdict(over_one, GOAL_OVER_ONE_THREAD) if loaded else ""
            goal_sk = _verdict(over_sk, GOAL_OVER_SKLEARN_1E5) if size == "1e5" and loaded else ""
            rows.append([size, condition, format_seconds(ts), format_seconds(one),
                         format_seconds(sk), format_ratio(ts, one), goal_one,
                         format_ratio(ts, sk), goal_sk, format_seconds(ts_cpu),
                         format_seconds(one_cpu), format_seconds(sk_cpu)])
            verdicts += [v for v in (goal_one, goal_sk) if v]
    print(format_table(
        ["size", "condition", "ts s", "ts-1t s", "sklearn s", "ts/ts-1t",
         f"<= {GOAL_OVER_ONE_THREAD}", "ts/sklearn", f"<= {GOAL_OVER_SKLEARN_1E5} @1e5",
         "ts cpu", "ts-1t cpu", "sk cpu"],
        rows, n_left=2,
        title="Wall-clock medians (s) and ratios; cpu = CPU seconds of the fitting process "
              "(grid: of the driver only)"))
    print()
    print(f"goals met: {verdicts.count('ok')} of {len(verdicts)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=None,
                        help=f"comma-separated subset of {','.join(SIZES)} (default: all)")
    parser.add_argument("--conditions", default=",".join(CONDITIONS),
                        help=f"comma-separated subset of {','.join(CONDITIONS)}")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="pima and 1e4, one repeat")
    args = parser.parse_args(argv)
    sizes = args.sizes.split(",") if args.sizes else list(QUICK_SIZES if args.quick
                                                           else DEFAULT_SIZES)
    conditions = args.conditions.split(",")
    for name, allowed in ((sizes, SIZES), (conditions, CONDITIONS)):
        unknown = [n for n in name if n not in allowed]
        if unknown:
            parser.error(f"unknown {unknown}; choose from {list(allowed)}")
    repeats = 1 if args.quick else args.repeats

    import tempfile

    print("\n".join(environment_lines()))
    print(git_revision_line(REPO_ROOT))
    policy = {k: os.environ[k] for k in ("OMP_WAIT_POLICY", "NUMBA_THREADING_LAYER",
                                         "NUMBA_NUM_THREADS", "OMP_NUM_THREADS")
              if k in os.environ}
    print(f"environment passed to the workers: {policy or 'no thread settings'}")
    with tempfile.TemporaryDirectory() as workdir:
        results = run_benchmark(sizes, conditions, repeats, workdir)
    print(load_average_line("at end"))
    print()
    report(results, sizes, conditions, args)


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker_main({"measure": measure})
    else:
        main()
