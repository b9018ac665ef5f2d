"""Rule objects (treesmith.rules) and the reference best-split search."""

import copy

import numpy as np
import pytest
from sklearn.base import clone

from treesmith import rules
from treesmith._kernels import split_rules
from treesmith.rules.reference import best_split, candidate_splits, entropy, impure_pairs

EXPECTED_CODES = {
    "gain": ("RULE_GAIN", 0, rules.Gain),
    "gain_ratio": ("RULE_GAIN_RATIO", 1, rules.GainRatio),
    "cost_benefit": ("RULE_COST_BENEFIT", 2, rules.CostBenefit),
    "ecart": ("RULE_ECART", 3, rules.ECART),
    "asr": ("RULE_ECART", 3, rules.ASR),
    "impure_pairs": ("RULE_IMPURE_PAIRS", 4, rules.ImpurePairs),
    "balanced": ("RULE_BALANCED", 5, rules.Balanced),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_CODES))
def test_names_resolve_to_their_rule_and_code(name):
    constant, code, cls = EXPECTED_CODES[name]
    rule = rules.resolve_rule(name)
    assert type(rule) is cls and rule.name == name and rule.code == code
    assert getattr(split_rules, constant) == code
    params = rule.parameters()
    assert params.dtype == np.float64 and params.ndim == 1 and params.size >= 1


def test_parameters_vector():
    assert rules.ECART(lam=2.5).parameters().tolist() == [2.5]
    assert rules.ECART().parameters().tolist() == [1.0]
    assert rules.ASR().parameters().tolist() == [0.0]
    assert rules.ASR().lam == 0.0
    for cls in (rules.Gain, rules.GainRatio, rules.CostBenefit, rules.ImpurePairs,
                rules.Balanced):
        assert cls().parameters().tolist() == [0.0]


@pytest.mark.parametrize("rule", [rules.ECART(lam=3.0), rules.ASR(), rules.Gain(),
                                  rules.Balanced()])
def test_rules_are_copyable_parameter_objects(rule):
    assert copy.deepcopy(rule) == rule
    assert clone(rule) == rule
    assert eval(repr(rule), vars(rules)) == rule
    assert hash(copy.deepcopy(rule)) == hash(rule)


def test_equality_and_set_params():
    assert rules.ECART(1.0) != rules.ECART(2.0)
    assert rules.ECART(0.0) != rules.ASR()  # different rules, even if they score alike
    rule = rules.ECART(1.0).set_params(lam=4.0)
    assert rule.lam == 4.0
    with pytest.raises(ValueError, match="no parameter 'alpha'"):
        rules.ECART().set_params(alpha=1.0)
    with pytest.raises(ValueError, match="lam"):
        rules.ECART().set_params(lam=-0.5)


@pytest.mark.parametrize("lam", [-1.0, np.inf, np.nan, "big", True, None, 10**400,
                                 np.array([1.0, 2.0])], ids=str)
def test_invalid_lambda(lam):
    with pytest.raises(ValueError, match=r"^ECART: lam must be a float >= 0\.0, got "):
        rules.ECART(lam=lam)


def test_a_huge_or_fractional_lambda_is_a_float():
    """np.isfinite(10**30) (an int beyond int64) raised numpy's TypeError."""
    from fractions import Fraction

    assert rules.ECART(lam=10**30).parameters()[0] == 1e30
    assert rules.ECART(lam=Fraction(1, 4)).parameters()[0] == 0.25


@pytest.mark.parametrize("bad", ["gini", "ECART", 3, None, rules])
def test_resolve_rule_rejects_unknown(bad):
    with pytest.raises(ValueError, match="split_rule"):
        rules.resolve_rule(bad)


def test_resolve_rule_keeps_objects():
    rule = rules.ECART(lam=7.0)
    assert rules.resolve_rule(rule) is rule


def test_impure_pairs_counts():
    assert impure_pairs([0, 0, 1, 1, 2]) == 2 * 2 + 2 * 1 + 2 * 1
    assert impure_pairs([1, 1, 1]) == 0
    assert impure_pairs([]) == 0


def test_best_split_ties_go_to_lowest_feature_then_threshold():
    """Two identical columns: the same partition on both; the first column wins.
    Within a column, two thresholds giving equally balanced splits: the lower wins."""
    X = np.array([[0, 0], [1, 1], [2, 2], [3, 3]], dtype=float)
    y = np.array([0, 1, 0, 1])
    p = np.full(4, 0.25)
    best = best_split(X, y, p, "balanced")
    assert (best.feature, best.threshold) == (0, 1.0)
    X2 = np.array([[0, 5], [0, 5], [1, 6], [1, 6]], dtype=float)
    best = best_split(X2, np.array([0, 0, 1, 1]), p, "gain")
    assert best.feature == 0


def test_best_split_free_test_ranks_first():
    """docs/methods.md §5: a free test with a positive numerator ranks ahead of every paid test."""
    X = np.array([[0, 0], [0, 0], [1, 0], [1, 1]], dtype=float)
    y = np.array([0, 0, 1, 1])
    p = np.full(4, 0.25)
    paid_first = best_split(X, y, p, "cost_benefit", feature_costs=[1.0, 1.0])
    assert paid_first.feature == 0
    free_second = best_split(X, y, p, "cost_benefit", feature_costs=[1.0, 0.0])
    assert free_second.feature == 1 and np.isinf(free_second.score)


def test_gain_ratio_only_among_tests_with_average_gain():
    """Feature 1 isolates one object: the highest raw gain ratio (tiny split information) but
    a gain below the average of the features' best gains; feature 0 is a weak balanced test
    (30% of its objects on the "wrong" side). C4.5 takes feature 0; the unconstrained ratio
    would take feature 1."""
    n = 60
    y = np.r_[np.zeros(30, int), np.ones(30, int)]
    x0 = y.astype(float)
    x0[:9] = 1.0          # 9 of class 0 on the class-1 side
    x0[30:39] = 0.0       # 9 of class 1 on the class-0 side
    x1 = np.zeros(n)
    x1[0] = 1.0
    X = np.c_[x0, x1]
    p = np.full(n, 1 / n)
    candidates = candidate_splits(X, y, p, rule="gain_ratio")
    ratio = {c.feature: c.score for c in candidates}
    gain = {c.feature: c.terms.D for c in candidates}
    assert ratio[1] > ratio[0]
    assert gain[1] < np.mean(list(gain.values())) < gain[0]
    assert best_split(X, y, p, "gain_ratio").feature == 0


def test_reference_gain_matches_entropy_definition():
    X = np.array([[0.0], [0.0], [1.0], [1.0], [1.0]])
    y = np.array([0, 0, 1, 1, 0])
    p = np.full(5, 0.2)
    best = best_split(X, y, p, "gain", impurity=entropy)
    h_root = entropy([3 / 5, 2 / 5])
    h_right = entropy([1 / 3, 2 / 3])
    assert best.terms.D == pytest.approx(h_root - 0.6 * h_right, abs=1e-12)


def test_gain_ratio_uses_each_features_best_gain_threshold():
    """C4.5 with a numeric feature: the threshold is the one of largest gain, and only then is
    its ratio compared. Labels 0,0,0,0,0,1,0,1 along x: the largest gain cuts at 4, the largest
    ratio at 6 (one object split off, small split information); C4.5 keeps the cut at 4."""
    X = np.arange(8, dtype=float)[:, None]
    y = np.array([0, 0, 0, 0, 0, 1, 0, 1])
    p = np.full(8, 1 / 8)
    ratios = {c.threshold: c.score for c in candidate_splits(X, y, p, rule="gain_ratio")}
    assert max(ratios, key=ratios.get) == 6.0
    assert best_split(X, y, p, "gain").threshold == 4.0
    assert best_split(X, y, p, "gain_ratio").threshold == 4.0


# -- λ selection (Zhang & Gionis 2023 §6, docs/methods.md §8) ---------------------------------------------------
def _split_breast_cancer():
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def test_select_lambda_follows_the_protocol():
    import treesmith
    from treesmith.metrics import expected_cost
    from treesmith.rules.lambda_selection import validation_auc

    X_train, X_val, y_train, y_val = _split_breast_cancer()
    costs = np.random.default_rng(0).integers(1, 11, X_train.shape[1]).astype(float)
    base = treesmith.DecisionTreeClassifier(criterion="entropy", max_bins=16,
                                            min_weight_fraction_split=0.02,
                                            feature_costs=costs)
    lambdas = [100.0, 10.0, 3.0, 1.0, 0.3, 0.0]
    result = rules.select_lambda(base, X_train, y_train, X_val, y_val, lambdas=lambdas)
    lam, curve = result
    assert list(curve) == sorted(lambdas, reverse=True)
    start = curve[100.0][0]
    assert result.start_auc == start
    # every λ down to the chosen one stays within one AUC point of the start; the next drops
    passed = [value for value in curve if value >= lam]
    assert all(curve[value][0] >= start - 0.01 for value in passed)
    below = [value for value in curve if value < lam]
    if below:
        assert curve[below[0]][0] < start - 0.01
    # the curve holds what the fitted model measures
    model = result.estimator
    assert model.split_rule_ == rules.ECART(lam=lam)
    assert curve[lam] == (validation_auc(model, X_val, y_val), expected_cost(model, X_val))
    # choose="cheapest": the cheapest λ of the same in-tolerance run
    cheapest = rules.select_lambda(base, X_train, y_train, X_val, y_val, lambdas=lambdas,
                                   choose="cheapest")
    assert cheapest.curve == curve
    assert curve[cheapest.lam][1] == min(curve[value][1] for value in passed)
    assert cheapest.lam in passed


def test_select_lambda_stops_at_the_drop_when_not_exhaustive():
    import treesmith

    X_train, X_val, y_train, y_val = _split_breast_cancer()
    base = treesmith.DecisionTreeClassifier(criterion="entropy", max_bins=16)
    full = rules.select_lambda(base, X_train, y_train, X_val, y_val,
                               lambdas=[10.0, 1.0, 0.1, 0.0], tolerance=0.0)
    short = rules.select_lambda(base, X_train, y_train, X_val, y_val,
                                lambdas=[10.0, 1.0, 0.1, 0.0], tolerance=0.0,
                                exhaustive=False)
    assert short.lam == full.lam
    fitted = list(short.curve)
    assert fitted == list(full.curve)[:len(fitted)]
    assert len(fitted) == len([v for v in full.curve if v >= full.lam]) + (full.lam != 0.0)


@pytest.mark.parametrize("bad", [[], [-1.0], [np.inf], [[1.0, np.nan]]])
def test_select_lambda_rejects_bad_grids(bad):
    import treesmith

    # (the estimator is checked first since 1eec59d / 8fce7b3: None is refused by name)
    base = treesmith.DecisionTreeClassifier(split_rule="ecart")
    with pytest.raises(ValueError, match="lambdas"):
        rules.select_lambda(base, None, None, None, None, lambdas=bad)
    with pytest.raises(ValueError, match="choose"):
        rules.select_lambda(base, None, None, None, None, choose="best")


@pytest.mark.parametrize("task", ["classificaton", "Classification", None, 3,
                                  np.array(["regression", "regression"])], ids=str)
def test_rules_for_task_names_an_unknown_task(task):
    """Any value but the two tasks listed no rule at all (a typo gave [])."""
    with pytest.raises(ValueError, match=r"^task must be 'classification' or 'regression'"):
        rules.rules_for_task(task)
