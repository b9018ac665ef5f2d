"""Speed of the Bayesian CART sampler (issue 14): Metropolis–Hastings iterations per second.

Goal: 10 000 iterations on 1 000 x 10 data in under 0.5 s on one core after compilation. The
script times one chain (``n_chains=1``) of ``BayesianTreeClassifier.fit`` and the sampler
kernel alone (``_kernels.bayes.run_chain`` on data binned beforehand, i.e. without binning
and tree building) on ``make_classification(n_features=10, n_informative=5)`` at 1e3, 1e4 and
1e5 rows, and, for scale, one greedy ``treesmith.DecisionTreeClassifier`` fit of the same data
(depth-unlimited gini). Everything runs in this one process after a warm-up fit that compiles
the kernels; figures are medians of ``--repeats`` runs, wall and CPU (process) time, so a busy
machine shows as wall >> CPU.

    python benchmarks/bench_bayes.py [--repeats 5] [--n-iter 10000] [--sizes 1e3 1e4 1e5]

With ``--categories K`` it also times the kernel on the same data cut into K quantile groups per
feature, read once as K ordered values (numeric rules) and once as K categories (rules by sets
of categories, ``docs/methods.md §7``), the two interleaved: the cost of categorical rules.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    environment_lines,
    format_seconds,
    format_table,
    git_revision_line,
    load_average_line,
    median,
    timed_with_cpu,
)

GOAL_SECONDS = 0.5  # 10 000 iterations on 1 000 x 10
GOAL_ITERATIONS = 10_000


def data(n_rows):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n_rows, n_features=10, n_informative=5,
                               n_redundant=2, random_state=0)
    return X.astype(np.float64), y


def kernel_inputs(X, y, n_iter):
    from treesmith._kernels import bayes as kernel
    from treesmith.binning import BinMapper

    mapper = BinMapper(random_state=0)
    X_binned = mapper.fit_transform(X)
    data = kernel.BinnedData(X_binned, np.arange(X.shape[0], dtype=np.int64),
                             y.astype(np.int64), np.zeros(0), np.ones(X.shape[0]),
                             int(mapper.n_bins_), int(mapper.missing_values_bin_idx_),
                             mapper.categorical_mask())
    prior = kernel.TreePrior(0.95, 1.0, kernel.CLASSIFICATION, np.ones(2), -1, 64, 1.0)
    settings = kernel.SamplerSettings(n_iter, n_iter // 4,
                                      kernel.DEFAULT_MOVE_PROBABILITIES.copy(), False, False)
    return kernel, data, prior, settings


def grouped_inputs(X, y, n_iter, n_groups, categorical):
    """``kernel_inputs`` on X cut into ``n_groups`` quantile groups per feature (codes
    0..n_groups-1), its features numeric or categorical."""
    from treesmith._kernels import bayes as kernel

    kernel, data, prior, settings = kernel_inputs(X, y, n_iter)
    edges = np.quantile(X, np.linspace(0, 1, n_groups + 1)[1:-1], axis=0)
    codes = np.column_stack([np.searchsorted(edges[:, j], X[:, j]) for j in range(X.shape[1])])
    data = data._replace(X_binned=np.asfortranarray(codes, dtype=np.uint8),
                         is_categorical=np.full(X.shape[1], categorical))
    return kernel, data, prior, settings


def categorical_rows(sizes, n_iter, n_groups, repeats):
    """Kernel CPU seconds, numeric against categorical rules on the same grouped codes."""
    rows = []
    for size in sizes:
        X, y = data(int(size))
        cases = [grouped_inputs(X, y, n_iter, n_groups, c) for c in (False, True)]
        cpu = {False: [], True: []}
        for repeat in range(repeats):
            for categorical, (kernel, kdata, prior, settings) in zip((False, True), cases):
                _, seconds, _ = timed_with_cpu(kernel.run_chain, kdata, prior, settings, repeat)
                cpu[categorical].append(seconds)
        rows.append([f"{int(size):,}", format_seconds(median(cpu[False])),
                     format_seconds(median(cpu[True])),
                     f"{median(cpu[True]) / median(cpu[False]):.3g}x"])
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n-iter", type=int, default=GOAL_ITERATIONS)
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e3, 1e4, 1e5])
    parser.add_argument("--categories", type=int, default=0,
                        help="also time categorical rules on this many categories per feature")
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    import treesmith

    print("\n".join(environment_lines()))
    print(git_revision_line(Path(__file__).resolve().parents[1]))
    print(f"numba threads: {numba.get_num_threads()}, PID {os.getpid()}")
    X, y = data(1_000)
    treesmith.BayesianTreeClassifier(n_iter=200, n_chains=1, random_state=0).fit(X, y)
    treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)

    rows = []
    for size in args.sizes:
        n_rows = int(size)
        X, y = data(n_rows)
        kernel, kdata, prior, settings = kernel_inputs(X, y, args.n_iter)
        fit_wall, fit_cpu, kernel_wall, kernel_cpu, greedy_cpu, leaves = [], [], [], [], [], []
        for repeat in range(args.repeats):
            model = treesmith.BayesianTreeClassifier(n_iter=args.n_iter, n_chains=1,
                                                     random_state=repeat)
            wall, cpu, _ = timed_with_cpu(model.fit, X, y)
            fit_wall.append(wall)
            fit_cpu.append(cpu)
            leaves.append(model.tree_.n_leaves)
            wall, cpu, _ = timed_with_cpu(kernel.run_chain, kdata, prior, settings, repeat)
            kernel_wall.append(wall)
            kernel_cpu.append(cpu)
            greedy = treesmith.DecisionTreeClassifier(random_state=repeat)
            _, cpu, _ = timed_with_cpu(greedy.fit, X, y)
            greedy_cpu.append(cpu)
        per_second = args.n_iter / median(kernel_cpu)
        rows.append([
            f"{n_rows:,}", format_seconds(median(fit_wall)), format_seconds(median(fit_cpu)),
            format_seconds(median(kernel_wall)), format_seconds(median(kernel_cpu)),
            f"{per_second:,.0f}", format_seconds(median(greedy_cpu)),
            f"{median(fit_cpu) / median(greedy_cpu):.3g}x", f"{median(leaves):.0f}",
        ])
        if n_rows == 1_000 and args.n_iter == GOAL_ITERATIONS:
            goal_line = (f"goal: {GOAL_ITERATIONS:,} iterations on 1,000 x 10 in < "
                         f"{GOAL_SECONDS} s -> fit CPU {median(fit_cpu):.3g} s = "
                         f"{median(fit_cpu) / GOAL_SECONDS:.3g}x the goal "
                         f"({'met' if median(fit_cpu) < GOAL_SECONDS else 'NOT met'})")
    print()
    print(format_table(
        ["rows", "fit s", "fit cpu s", "kernel s", "kernel cpu s", "iter/s (cpu)",
         "greedy fit cpu s", "fit / greedy (cpu)", "MAP leaves"], rows,
        title=f"One chain of {args.n_iter:,} iterations, 10 features, medians of "
              f"{args.repeats}"))
    if "goal_line" in locals():
        print(goal_line)
    if args.categories:
        rows = categorical_rows(args.sizes, args.n_iter, args.categories, args.repeats)
        print()
        print(format_table(
            ["rows", "numeric kernel cpu s", "categorical kernel cpu s", "categorical / numeric"],
            rows, title=f"{args.categories} groups per feature read as ordered values or as "
                        f"categories, one chain of {args.n_iter:,} iterations, medians of "
                        f"{args.repeats}, interleaved"))
    print(load_average_line("at end"))


if __name__ == "__main__":
    main()
