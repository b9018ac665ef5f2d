"""The fixed cost of a fit: many small fits, treesmith vs scikit-learn, in one run.

Forests of many trees on small data, tuning grids and start-up are dominated by what a fit
costs besides growing the tree (validation, binning, records, calls into compiled code,
building the tree object). Cases, each timed for both libraries in one process with a warm
Numba cache, the two libraries interleaved repeat by repeat (so that load from other
processes hits both alike); the figure is the median wall time, CPU time (all threads of the
process) beside it:

- ``DecisionTreeClassifier().fit`` on iris (goal: at most 1.5x scikit-learn's),
- ``predict`` of that tree on iris (goal: at most scikit-learn's),
- ``RandomForestClassifier(100, random_state=0).fit`` on iris, with both libraries' default
  ``n_jobs`` (treesmith: the cores this process may use; scikit-learn: one) and with
  ``n_jobs=1`` for both (goal: at most scikit-learn's),
- 1000 trees on 10 rows (``n_jobs=1`` for both),
- ``GridSearchCV`` of a tree over 8 depths x 5 folds on iris (``n_jobs=1``),
- start-up: ``python -c "import <library>; fit on iris"`` in fresh processes (warm caches;
  the import of scikit-learn, numpy and scipy included for both).

    python benchmarks/bench_small_fits.py            # about a minute
    python benchmarks/bench_small_fits.py --quick    # fewer repeats
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import format_table, git_revision_line, load_average_line  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Goals: treesmith's median time / scikit-learn's, at most.
GOALS = {"tree fit, iris": 1.5, "tree predict, iris": 1.0,
         "forest 100 fit, iris, default n_jobs": 1.0, "forest 100 fit, iris, n_jobs=1": 1.0}
STARTUP_GOAL_SECONDS = 1.0


def _cases():
    """name -> (treesmith callable, scikit-learn callable, repeats)."""
    import sklearn.ensemble
    import sklearn.tree
    from sklearn.datasets import load_iris
    from sklearn.model_selection import GridSearchCV

    import treesmith
    from treesmith.ensemble import RandomForestClassifier

    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    X_tiny, y_tiny = rng.normal(size=(10, 4)), np.arange(10) % 2
    ours = treesmith.DecisionTreeClassifier().fit(X, y)
    theirs = sklearn.tree.DecisionTreeClassifier().fit(X, y)
    grid = {"max_depth": list(range(1, 9))}
    return {
        "tree fit, iris": (lambda: treesmith.DecisionTreeClassifier().fit(X, y),
                           lambda: sklearn.tree.DecisionTreeClassifier().fit(X, y), 200),
        "tree predict, iris": (lambda: ours.predict(X), lambda: theirs.predict(X), 500),
        "forest 100 fit, iris, default n_jobs": (
            lambda: RandomForestClassifier(100, random_state=0).fit(X, y),
            lambda: sklearn.ensemble.RandomForestClassifier(100, random_state=0).fit(X, y), 9),
        "forest 100 fit, iris, n_jobs=1": (
            lambda: RandomForestClassifier(100, random_state=0, n_jobs=1).fit(X, y),
            lambda: sklearn.ensemble.RandomForestClassifier(100, random_state=0,
                                                            n_jobs=1).fit(X, y), 9),
        "forest 1000 fit, 10 rows, n_jobs=1": (
            lambda: RandomForestClassifier(1000, random_state=0, n_jobs=1).fit(X_tiny, y_tiny),
            lambda: sklearn.ensemble.RandomForestClassifier(1000, random_state=0,
                                                            n_jobs=1).fit(X_tiny, y_tiny), 5),
        "grid search 8 depths x 5 folds, iris": (
            lambda: GridSearchCV(treesmith.DecisionTreeClassifier(), grid).fit(X, y),
            lambda: GridSearchCV(sklearn.tree.DecisionTreeClassifier(), grid).fit(X, y), 9),
    }


def _time(function):
    cpu, wall = time.process_time(), time.perf_counter()
    function()
    return time.perf_counter() - wall, time.process_time() - cpu


def measure(repeats_scale: float):
    """Per case: (treesmith wall, cpu), (scikit-learn wall, cpu) medians, interleaved."""
    results = {}
    for name, (ours, theirs, repeats) in _cases().items():
        repeats = max(3, int(repeats * repeats_scale))
        ours(), theirs()  # warm: compiled kernels loaded, caches filled
        samples = {"treesmith": [], "scikit-learn": []}
        for _ in range(repeats):
            samples["treesmith"].append(_time(ours))
            samples["scikit-learn"].append(_time(theirs))
        results[name] = {library: (statistics.median(s[0] for s in runs),
                                   statistics.median(s[1] for s in runs))
                         for library, runs in samples.items()}
    return results


_STARTUP = {
    "treesmith": "import treesmith; from sklearn.datasets import load_iris; "
                 "X, y = load_iris(return_X_y=True); "
                 "treesmith.DecisionTreeClassifier().fit(X, y).predict(X)",
    "scikit-learn": "import sklearn.tree; from sklearn.datasets import load_iris; "
                    "X, y = load_iris(return_X_y=True); "
                    "sklearn.tree.DecisionTreeClassifier().fit(X, y).predict(X)",
}


def measure_startup(repeats: int):
    """Median wall seconds of a fresh ``python -c`` importing, fitting and predicting on iris
    (warm Numba cache: one run first), interleaved."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO_ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    samples = {library: [] for library in _STARTUP}
    for library, code in _STARTUP.items():
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
    for _ in range(repeats):
        for library, code in _STARTUP.items():
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=env, check=True)
            samples[library].append(time.perf_counter() - start)
    return {library: statistics.median(values) for library, values in samples.items()}


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the repeats")
    args = parser.parse_args()
    scale = 0.2 if args.quick else 1.0
    print(git_revision_line(REPO_ROOT))
    print(load_average_line("before"))
    results = measure(scale)
    rows = []
    for name, by_library in results.items():
        (ours_wall, ours_cpu), (their_wall, their_cpu) = (by_library["treesmith"],
                                                          by_library["scikit-learn"])
        ratio = ours_wall / their_wall
        goal = GOALS.get(name)
        verdict = "" if goal is None else (f"<= {goal:g}: " + ("met" if ratio <= goal
                                                               else "NOT met"))
        rows.append([name, _ms(ours_wall), _ms(their_wall), f"{ratio:.2f}",
                     _ms(ours_cpu), _ms(their_cpu), f"{ours_cpu / their_cpu:.2f}", verdict])
    print(format_table(["case (median of interleaved repeats)", "treesmith", "scikit-learn",
                        "ratio", "treesmith CPU", "scikit-learn CPU", "CPU ratio", "goal"],
                       rows))
    startup = measure_startup(3 if args.quick else 7)
    print(load_average_line("after"))
    print(format_table(
        ["start-up: fresh python, import + fit + predict on iris", "seconds", "goal"],
        [[library, f"{seconds:.3f}", (f"< {STARTUP_GOAL_SECONDS:g} s: "
                                      + ("met" if seconds < STARTUP_GOAL_SECONDS else "NOT met"))
          if library == "treesmith" else ""]
         for library, seconds in startup.items()]))


if __name__ == "__main__":
    main()
