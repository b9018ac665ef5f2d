"""Pruning through the estimators' parameters: ccp_alpha, pruning=, significance (S-pruning)."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

import treesmith


@pytest.fixture(scope="module")
def data():
    return load_breast_cancer(return_X_y=True)


def test_ccp_alpha_equals_pruning_the_grown_tree(data):
    X, y = data
    grown = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    alpha = float(grown.cost_complexity_pruning_path(X, y).ccp_alphas[-3])
    by_param = treesmith.DecisionTreeClassifier(ccp_alpha=alpha, random_state=0).fit(X, y)
    by_function = treesmith.prune(grown, "ccp", ccp_alpha=alpha)
    assert by_param.get_n_leaves() == by_function.get_n_leaves() < grown.get_n_leaves()
    np.testing.assert_array_equal(by_param.predict(X), by_function.predict(X))


@pytest.mark.parametrize("pruning", ["tdp", "bup", "c45", {"method": "c45", "confidence_factor": 0.05},
                                     {"method": "c45", "subtree_raising": True}, "rep",
                                     {"method": "rep", "validation_fraction": 0.4}])
def test_pruning_parameter_gives_a_smaller_valid_tree(data, pruning):
    X, y = data
    grown = treesmith.DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y)
    pruned = treesmith.DecisionTreeClassifier(criterion="entropy", pruning=pruning,
                                              random_state=0).fit(X, y)
    assert pruned.get_n_leaves() < grown.get_n_leaves()
    pruned.tree_.validate()
    again = pickle.loads(pickle.dumps(pruned))
    np.testing.assert_array_equal(again.predict(X), pruned.predict(X))
    assert pruned.score(X, y) > 0.9


def test_pruning_parameter_matches_prune_function(data):
    X, y = data
    grown = treesmith.DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y)
    by_param = treesmith.DecisionTreeClassifier(
        criterion="entropy", pruning={"method": "bup", "c1": 0.5}, random_state=0).fit(X, y)
    by_function = treesmith.prune(grown, "bup", c1=0.5)
    np.testing.assert_array_equal(by_param.tree_.feature, by_function.tree_.feature)


@pytest.mark.parametrize("bad, match", [("xyz", "pruning method"), (3, "pruning must be"),
                                        ({"method": "rep", "validation_fraction": 2.0},
                                         "validation_fraction")])
def test_bad_pruning_parameter_is_named(data, bad, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        treesmith.DecisionTreeClassifier(pruning=bad).fit(X, y)


def test_negative_ccp_alpha_is_named(data):
    with pytest.raises(ValueError, match="ccp_alpha"):
        treesmith.DecisionTreeClassifier(ccp_alpha=-1.0).fit(*data)


def _null_fits(test, n_runs, n_features):
    rng = np.random.default_rng(12345)
    stumps = 0
    for seed in range(n_runs):
        X = rng.normal(size=(150, n_features))
        y = rng.integers(0, 2, 150)
        tree = treesmith.DecisionTreeClassifier(significance=0.05, significance_test=test,
                                                n_permutations=199, random_state=seed).fit(X, y)
        stumps += tree.tree_.node_count == 1
    return stumps / n_runs


# An exact level-s test splits label-independent data in s = 5% of runs *on average*, so the
# issue's "a stump in >= 95% of seeded runs" is the expected rate; over N runs the observed rate
# has a binomial spread, and the assertions allow two standard deviations below 95%.
N_NULL_RUNS = 200
NULL_TOLERANCE = 2 * np.sqrt(0.05 * 0.95 / N_NULL_RUNS)


def test_s_pruning_max_test_keeps_independent_labels_a_stump():
    """docs/methods.md §6 / issue 5: labels independent of the features -> a stump in ~95% of runs."""
    assert _null_fits("max", N_NULL_RUNS, n_features=4) >= 0.95 - NULL_TOLERANCE


def test_s_pruning_feature_test_is_a_level_s_test_with_one_feature():
    assert _null_fits("feature", N_NULL_RUNS, n_features=1) >= 0.95 - NULL_TOLERANCE


def test_seed_001_feature_test_is_anti_conservative_with_several_features():
    """Re-testing only the chosen feature ignores that it was the best of d (documented on
    significance_test): with 4 features it splits label-independent data far more often."""
    assert _null_fits("feature", N_NULL_RUNS, n_features=4) < 0.95 - NULL_TOLERANCE


def test_permutation_kernel_has_level_s():
    """The p-value (1 + #{gain_perm >= G}) / (1 + t) rejects in s of label-independent runs."""
    from treesmith._kernels.permutation import permutation_test
    from treesmith.criteria import Gini
    from treesmith.grower import impurity_pointer

    h = impurity_pointer(Gini().impurity_function())
    rng = np.random.default_rng(7)
    n_runs = 2000
    rejected = 0
    for seed in range(n_runs):
        bins = rng.permutation(60).astype(np.int64)
        labels = rng.integers(0, 2, 60).astype(np.int64)
        _, p = permutation_test(bins, labels, np.ones(60), 2, 60, 60, h, np.zeros(1), 1, 0.0,
                                99, seed)
        rejected += p <= 0.05
    assert abs(rejected / n_runs - 0.05) <= 3 * np.sqrt(0.05 * 0.95 / n_runs)


def test_s_pruning_splits_on_a_strong_signal():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 2] > 0).astype(int)
    for test in ("feature", "max"):
        tree = treesmith.DecisionTreeClassifier(significance=0.05, significance_test=test,
                                                random_state=0).fit(X, y)
        assert tree.tree_.feature[0] == 2
        assert tree.score(X, y) == 1.0


def test_s_pruning_is_reproducible_and_prunes_noise(data):
    X, y = data
    a = treesmith.DecisionTreeClassifier(criterion="entropy", significance=0.05,
                                         random_state=1).fit(X, y)
    b = treesmith.DecisionTreeClassifier(criterion="entropy", significance=0.05,
                                         random_state=1).fit(X, y)
    full = treesmith.DecisionTreeClassifier(criterion="entropy").fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    assert a.get_n_leaves() < full.get_n_leaves()


def test_significance_is_validated():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match="significance"):
        treesmith.DecisionTreeClassifier(significance=1.5).fit(X, y)
    with pytest.raises(ValueError, match="significance_test"):
        treesmith.DecisionTreeClassifier(significance=0.05, significance_test="all").fit(X, y)
    with pytest.raises(ValueError, match="n_permutations"):
        treesmith.DecisionTreeClassifier(significance=0.05, n_permutations=0).fit(X, y)


def _imbalanced(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + rng.normal(size=300) > 0.8).astype(int)
    return X, y


@pytest.mark.parametrize("seed", [0, 3])
def test_c45_subtree_raising_counts_class_weights_once(seed):
    """class_weight={1: 5} must prune exactly as sample weights of 5 on class 1 (fit multiplies
    the class weights into the sample weights once; the raising step must not do it again)."""
    X, y = _imbalanced(seed)
    pruning = {"method": "c45", "subtree_raising": True}
    by_class = treesmith.DecisionTreeClassifier(class_weight={0: 1.0, 1: 5.0}, pruning=pruning,
                                                random_state=0).fit(X, y)
    by_sample = treesmith.DecisionTreeClassifier(pruning=pruning, random_state=0).fit(
        X, y, sample_weight=np.where(y == 1, 5.0, 1.0))
    assert by_class.get_n_leaves() == by_sample.get_n_leaves()
    np.testing.assert_array_equal(by_class.predict_proba(X), by_sample.predict_proba(X))
    # treesmith.prune applies the estimator's class weights to the user's sample weights once
    grown = treesmith.DecisionTreeClassifier(class_weight={0: 1.0, 1: 5.0},
                                             random_state=0).fit(X, y)
    pruned = treesmith.prune(grown, "c45", subtree_raising=True, X=X, y=y)
    np.testing.assert_array_equal(pruned.predict_proba(X), by_class.predict_proba(X))


@pytest.mark.parametrize("pruning, message", [
    ({"method": "c45", "confidence_factor": 5}, r"confidence_factor must be a float in \(0.0, 0.5\]"),
    ({"method": "c45", "confidence_factor": 0.0}, r"confidence_factor"),
    ({"method": "c45", "collapse": "yes"}, r"collapse must be a bool"),
    ({"method": "c45", "subtree_raising": 1}, r"subtree_raising must be a bool"),
    ({"method": "tdp", "n_standard_errors": -1.0}, r"n_standard_errors must be a float >= 0"),
    ({"method": "tdp", "n_standard_errors": float("nan")}, r"n_standard_errors"),
    ({"method": "bup", "c1": float("inf")}, r"c1 must be a float >= 0"),
    ({"method": "bup", "c2": -0.5}, r"c2 must be a float >= 0"),
    ({"method": "rep", "validation_fraction": 1.0}, r"validation_fraction must be a float in "
                                                    r"\(0.0, 1.0\)"),
    ({"method": "ccp", "ccp_alpha": -1.0, "risk": "impurity"}, r"ccp_alpha must be a float >= 0"),
    ({"method": "ccp", "ccp_alpha": 0.1, "risk": "gini"}, r"risk must be one of"),
    ("ccp", r"method 'ccp' needs \['ccp_alpha'\]"),
])
def test_pruning_parameters_are_checked_before_growth(monkeypatch, pruning, message):
    from treesmith import estimators

    def no_growth(*args, **kwargs):
        raise AssertionError("the tree was grown before the pruning parameters were checked")

    monkeypatch.setattr(estimators.TreeGrower, "grow", no_growth)
    X, y = _imbalanced(0)
    with pytest.raises(ValueError, match=message):
        treesmith.DecisionTreeClassifier(pruning=pruning).fit(X, y)
