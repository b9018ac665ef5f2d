"""Golden trees: the engine's output for a grid of criteria x split rules x growth modes x
options on four small datasets, stored in ``tests/data/golden_trees.npz``, must not change.

The file was written by the engine before its interfaces were reorganised into named records;
a refactor of the engine must reproduce every tree exactly (structure, features, thresholds,
missing-value sides, leaf values). A deliberate change of behaviour regenerates the file in the
same commit, naming the cases that changed and why:

    TREESMITH_REGENERATE_GOLDEN=1 PYTHONPATH=$PWD python -m pytest tests/test_golden_trees.py
"""

import os
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine, make_classification, make_regression

import treesmith
from treesmith.rules import ECART

GOLDEN = Path(__file__).parent / "data" / "golden_trees.npz"


def _datasets():
    """Four small datasets: iris with NaNs, wine, a weighted synthetic problem large enough for
    nodes with histograms (>= 256 samples), and a regression problem with NaNs."""
    X_iris, y_iris = load_iris(return_X_y=True)
    X_iris = X_iris.copy()
    X_iris[::7, 1] = np.nan
    X_iris[3::11, 3] = np.nan
    X_wine, y_wine = load_wine(return_X_y=True)
    X_syn, y_syn = make_classification(n_samples=700, n_features=8, n_informative=5,
                                       n_classes=3, random_state=3)
    X_syn = np.round(X_syn, 1)  # ties: exact bins shared by several samples
    w_syn = np.random.default_rng(0).choice([0.5, 1.0, 2.0], size=y_syn.size)
    X_reg, y_reg = make_regression(n_samples=400, n_features=6, n_informative=4, noise=5.0,
                                   random_state=1)
    X_reg[::13, 0] = np.nan
    y_reg = np.exp(y_reg / 150.0)  # positive: Poisson and Tweedie apply
    return {
        "iris": (X_iris, y_iris, None),
        "wine": (X_wine, y_wine, None),
        "synthetic": (X_syn, y_syn, w_syn),
        "regression": (X_reg, y_reg, None),
    }


_CLASSIFICATION_RULES = {
    "gain": "gain", "gain_ratio": "gain_ratio", "cost_benefit": "cost_benefit",
    "ecart": ECART(lam=2.0), "asr": "asr", "impure_pairs": "impure_pairs",
    "balanced": "balanced",
}
_COST_RULES = ("cost_benefit", "ecart", "asr", "impure_pairs")


def _cases():
    """(name, dataset, estimator class, parameters) of every golden case."""
    cases = []
    for data in ("iris", "wine", "synthetic"):
        n_features = {"iris": 4, "wine": 13, "synthetic": 8}[data]
        costs = np.arange(1, n_features + 1, dtype=float)
        grouped_costs = 1.0 + np.arange(n_features) // 2  # equal inside a cost group
        for criterion in ("gini", "entropy", "misclassification"):
            for rule_name, rule in _CLASSIFICATION_RULES.items():
                for growth in ("depth", "best"):
                    for sampling in ("all", "sampled"):
                        params = {"criterion": criterion, "split_rule": rule, "random_state": 0}
                        if growth == "best":
                            params["max_leaf_nodes"] = 9
                        if sampling == "sampled":
                            params["max_features"] = 3
                        name = f"{data}/{criterion}/{rule_name}/{growth}/{sampling}"
                        cases.append((name, data, treesmith.DecisionTreeClassifier, params))
        for rule_name in _COST_RULES:
            rule = _CLASSIFICATION_RULES[rule_name]
            for model in ("per_test", "per_feature"):
                params = {"criterion": "entropy", "split_rule": rule, "random_state": 0,
                          "feature_costs": costs, "cost_model": model}
                if model == "per_feature":
                    params["feature_costs"] = grouped_costs
                    params["cost_groups"] = np.arange(n_features) // 2
                cases.append((f"{data}/costs/{rule_name}/{model}", data,
                              treesmith.DecisionTreeClassifier, params))
        for test in ("feature", "max"):
            params = {"criterion": "gini", "significance": 0.05, "n_permutations": 49,
                      "significance_test": test, "random_state": 0}
            cases.append((f"{data}/s_pruning/{test}", data, treesmith.DecisionTreeClassifier,
                          params))
        for extra_name, extra in {
            "leaf_limits": {"min_samples_leaf": 3, "min_weight_fraction_leaf": 0.01},
            "theta": {"split_rule": ECART(lam=0.5), "min_weight_fraction_split": 0.02},
            "few_bins": {"max_bins": 8, "max_depth": 5},
            "renyi": {"criterion": treesmith.criteria.Renyi(gamma=2.0)},
        }.items():
            params = dict({"random_state": 0}, **extra)
            cases.append((f"{data}/{extra_name}", data, treesmith.DecisionTreeClassifier,
                          params))
    for criterion in ("squared_error", "poisson", treesmith.criteria.Tweedie(power=0.5)):
        label = criterion if isinstance(criterion, str) else "tweedie"
        for rule_name in ("gain", "cost_benefit", "balanced"):
            for growth in ("depth", "best"):
                for sampling in ("all", "sampled"):
                    params = {"criterion": criterion, "split_rule": rule_name,
                              "random_state": 0, "min_samples_leaf": 2}
                    if rule_name == "cost_benefit":
                        params["feature_costs"] = np.arange(1.0, 7.0)
                    if growth == "best":
                        params["max_leaf_nodes"] = 12
                    if sampling == "sampled":
                        params["max_features"] = 3
                    cases.append((f"regression/{label}/{rule_name}/{growth}/{sampling}",
                                  "regression", treesmith.DecisionTreeRegressor, params))
    return cases


_FIELDS = ("children_left", "feature", "threshold", "missing_go_left", "value")


def _tree_record(model):
    tree = model.tree_
    return {
        "children_left": tree.children_left.astype(np.int32),
        "feature": tree.feature.astype(np.int32),
        "threshold": tree.threshold.astype(np.float64),
        "missing_go_left": tree.missing_go_left.astype(bool),
        "value": tree.value.reshape(-1).astype(np.float64),
    }


#: The synthetic problem is noisy: a depth limit keeps its trees (and the file) small.
_DEPTH_LIMIT = {"synthetic": 6}


def _grow_all():
    """Every case's tree, each field concatenated over the cases (one array per field keeps
    the compressed file small), with the case names and each case's lengths."""
    datasets = _datasets()
    names, records = [], []
    for name, data, estimator, params in _cases():
        X, y, w = datasets[data]
        params = dict(params)
        if data in _DEPTH_LIMIT and "max_depth" not in params:
            params["max_depth"] = _DEPTH_LIMIT[data]
        model = estimator(**params).fit(X, y, sample_weight=w)
        names.append(name)
        records.append(_tree_record(model))
    grown = {"case": np.array(names)}
    for field in _FIELDS:
        grown[field] = np.concatenate([record[field] for record in records])
        grown[f"{field}_length"] = np.array([record[field].size for record in records])
    return grown


def _per_case(arrays, field):
    ends = np.cumsum(arrays[f"{field}_length"])
    return dict(zip(arrays["case"], np.split(arrays[field], ends[:-1])))


def test_trees_are_identical_to_the_golden_file():
    grown = _grow_all()
    if os.environ.get("TREESMITH_REGENERATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        np.savez_compressed(GOLDEN, **grown)
        pytest.skip("golden file regenerated")
    stored = np.load(GOLDEN)
    assert stored["case"].tolist() == grown["case"].tolist()
    changed = []
    for field in _FIELDS:
        ours, golden = _per_case(grown, field), _per_case(stored, field)
        changed += [f"{case}:{field}" for case in golden
                    if not np.array_equal(ours[case], golden[case], equal_nan=True)]
    assert changed == []


def test_the_grid_covers_every_rule_and_growth_mode():
    names = [name for name, *_ in _cases()]
    for rule in _CLASSIFICATION_RULES:
        for growth in ("depth", "best"):
            assert any(f"/{rule}/{growth}/" in name for name in names)
    assert len(names) == len(set(names))
