"""Where a full-depth fit spends its time, by node size class.

A fit with ``min_samples_split = s`` splits exactly the nodes of the full tree that hold at least
``s`` samples (the top of the same tree), so the difference between the fit times at ``s`` and
at ``4 s`` is the cost of splitting the nodes holding ``[s, 4 s)`` samples: scanning them,
partitioning their samples and building their children's statistics. Run on one and on the
default number of threads, in one process, interleaved; the table prints per size class the
number of split nodes, the seconds, microseconds per node and nanoseconds per sample-feature,
from wall-clock and from CPU time (the steadier figure when other processes share the cores).

    python benchmarks/profile_node_sizes.py                 # 1e5 x 50, full depth
    python benchmarks/profile_node_sizes.py --rows 1e6      # the issue's case (~3-5 min)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    environment_lines,
    format_table,
    git_revision_line,
    load_average_line,
    make_classification_data,
    median,
    timed_with_cpu,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
DATASET = {"n_features": 50, "n_classes": 3, "n_informative": 15, "n_redundant": 5,
           "random_state": 0}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--factor", type=int, default=4, help="ratio between size classes")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO_ROOT))
    import numba

    import treesmith

    n_rows = int(args.rows)
    X, y = make_classification_data(n_rows, **DATASET)
    print("\n".join(environment_lines()))
    print(git_revision_line(REPO_ROOT))
    treesmith.DecisionTreeClassifier(random_state=0).fit(X[:2000], y[:2000])  # compile
    bounds = [2]
    while bounds[-1] * args.factor <= n_rows:
        bounds.append(bounds[-1] * args.factor)
    bounds.append(n_rows + 1)  # splits nothing: the cost of binning and set-up
    tree = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    internal = tree.children_left >= 0
    n_split = [int(np.sum(internal & (tree.n_node_samples >= lo) & (tree.n_node_samples < hi)))
               for lo, hi in zip(bounds[:-1], bounds[1:])]
    sample_features = [
        float(np.sum(tree.n_node_samples[internal & (tree.n_node_samples >= lo)
                                         & (tree.n_node_samples < hi)])) * X.shape[1]
        for lo, hi in zip(bounds[:-1], bounds[1:])]
    settings = {"1 thread": 1, f"{numba.get_num_threads()} threads": None}
    times = {name: {b: [] for b in bounds} for name in settings}
    cpu_times = {name: {b: [] for b in bounds} for name in settings}
    for _ in range(args.repeats):
        for bound in reversed(bounds):
            for name, n_jobs in settings.items():
                model = treesmith.DecisionTreeClassifier(min_samples_split=bound,
                                                         random_state=0)
                if n_jobs == 1:
                    previous = numba.get_num_threads()
                    numba.set_num_threads(1)
                    wall, cpu, _ = timed_with_cpu(model.fit, X, y)
                    numba.set_num_threads(previous)
                else:
                    wall, cpu, _ = timed_with_cpu(model.fit, X, y)
                times[name][bound].append(wall)
                cpu_times[name][bound].append(cpu)
                print(f"  min_samples_split={bound} {name}: {wall:.3f} s", file=sys.stderr,
                      flush=True)
    print(load_average_line("at end"))
    for clock, measured in (("wall-clock", times), ("CPU time", cpu_times)):
        print(_size_table(clock, measured, bounds, n_split, sample_features, settings, n_rows))


def _size_table(clock, times, bounds, n_split, sample_features, settings, n_rows):
    """The per-size-class table from the fit times ``times[setting][min_samples_split]``."""
    rows = []
    for i, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        row = [f"[{lo}, {hi})" if hi <= n_rows else f">= {lo}", n_split[i]]
        for name in settings:
            seconds = median(times[name][lo]) - median(times[name][hi])
            per_node = seconds / n_split[i] * 1e6 if n_split[i] else float("nan")
            per_sf = seconds / sample_features[i] * 1e9 if sample_features[i] else float("nan")
            row += [f"{seconds:.3f}", f"{per_node:.1f}", f"{per_sf:.2f}"]
        rows.append(row)
    rows.append(["binning + set-up", 0] + sum(
        ([f"{median(times[name][bounds[-1]]):.3f}", "", ""] for name in settings), []))
    rows.append(["total", sum(n_split)] + sum(
        ([f"{median(times[name][2]):.3f}", "", ""] for name in settings), []))
    headers = ["node samples", "split nodes"]
    for name in settings:
        headers += [f"{name} s", "us/node", "ns/(sample*feature)"]
    return format_table(headers, rows, n_left=1,
                       title=f"Cost of splitting nodes by size, {n_rows} x 50, full depth "
                             f"({clock} differences between min_samples_split fits)")


if __name__ == "__main__":
    import numpy as np

    main()
