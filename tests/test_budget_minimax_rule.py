"""The Minimax split rule in the engine's rule room (treesmith.rules.Minimax): the same trees
as GreedyTree's own kernel with every bin as a candidate, the paper's Figure 1, parameters."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_wine

import treesmith
from treesmith.ensemble import GreedyTreeClassifier
from treesmith.rules import Minimax, Powers, ThresholdPairs, resolve_rule


@pytest.mark.parametrize("impurity", [ThresholdPairs(0), ThresholdPairs(3), ThresholdPairs(20),
                                      Powers(2), Powers(3)], ids=repr)
@pytest.mark.parametrize("loader", [load_breast_cancer, load_wine])
def test_engine_rule_grows_the_greedy_tree(impurity, loader):
    """Same test costs (per test), every bin a candidate: the engine's scan with the minimax
    numerator and GreedyTree's kernel choose the same splits."""
    X, y = loader(return_X_y=True)
    costs = np.random.RandomState(0).randint(1, 11, X.shape[1]).astype(float)
    engine = treesmith.DecisionTreeClassifier(split_rule=Minimax(impurity, candidates="all"),
                                              feature_costs=costs).fit(X, y)
    greedy = GreedyTreeClassifier(impurity, feature_costs=costs, cost_model="per_test",
                                  candidates="all").fit(X, y)
    assert np.array_equal(engine.tree_.feature, greedy.tree_.feature)
    assert np.array_equal(engine.tree_.bin_threshold, greedy.tree_.bin_threshold)
    assert np.array_equal(engine.tree_.n_node_samples, greedy.tree_.n_node_samples)


@pytest.mark.parametrize("impurity", [ThresholdPairs(0), ThresholdPairs(8), Powers(2)], ids=repr)
@pytest.mark.parametrize("missing", [False, True])
def test_engine_rule_grows_the_greedy_tree_with_sampled_candidates(impurity, missing):
    """The paper's sampled thresholds (the default of both): same seed, same draws, same tree,
    whether nodes are scanned on pooled histograms or from their samples, with or without
    missing values; another seed draws other thresholds."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 5)).round(2)
    y = (X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=3000) > 0).astype(int) + (X[:, 2] > 1)
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    costs = np.array([1.0, 2.0, 3.0, 1.0, 5.0])

    def fit(seed):
        engine = treesmith.DecisionTreeClassifier(split_rule=Minimax(impurity), random_state=seed,
                                                  feature_costs=costs).fit(X, y)
        greedy = GreedyTreeClassifier(impurity, feature_costs=costs, cost_model="per_test",
                                      random_state=seed).fit(X, y)
        assert np.array_equal(engine.tree_.feature, greedy.tree_.feature)
        # (bin_threshold of "non-missing left, missing right" is the feature's last bin in the
        # engine, the last occupied one in GreedyTree: the same test, threshold = inf in both)
        assert np.array_equal(engine.tree_.threshold, greedy.tree_.threshold, equal_nan=True)
        assert np.array_equal(engine.tree_.n_node_samples, greedy.tree_.n_node_samples)
        assert np.array_equal(engine.tree_.missing_go_left, greedy.tree_.missing_go_left)
        return engine.tree_

    first, again, other = fit(0), fit(0), fit(1)
    assert np.array_equal(first.threshold, again.threshold, equal_nan=True)
    exact = treesmith.DecisionTreeClassifier(split_rule=Minimax(impurity, candidates="all"),
                                             feature_costs=costs).fit(X, y).tree_
    # the root holds 3000 rows: 80 draws per feature, far fewer thresholds than bins
    assert not np.array_equal(first.threshold[:1], exact.threshold[:1]) or \
        not np.array_equal(first.threshold, other.threshold, equal_nan=True)


def test_figure1_through_the_single_tree():
    y = np.array([0] * 30 + [1] * 30)
    t1 = np.r_[np.zeros(40), np.ones(20)]
    t2 = np.r_[np.zeros(15), np.ones(15), np.zeros(15), np.ones(15)]
    X = np.c_[t1, t2]
    balanced = treesmith.DecisionTreeClassifier(split_rule=Minimax(ThresholdPairs(0))).fit(X, y)
    assert balanced.tree_.feature[0] == 1  # R(t2) = 1/675 < R(t1) = 1/600
    tie = treesmith.DecisionTreeClassifier(split_rule=Minimax(ThresholdPairs(8))).fit(X, y)
    assert tie.tree_.feature[0] == 0  # 1/420 each: the lowest feature index
    assert tie.tree_.node_count == 3  # F_8 = 0 in both children: leaves


def test_parameters_and_names():
    rule = Minimax(ThresholdPairs(alpha=8))
    assert rule.get_params() == {"impurity": ThresholdPairs(8), "candidates": "sampled"}
    assert rule == Minimax(ThresholdPairs(8.0)) and hash(rule) == hash(Minimax(ThresholdPairs(8.0)))
    assert np.array_equal(rule.parameters(), [0.0, 8.0, 1.0])
    assert np.array_equal(rule.kernel_parameters(17), [0.0, 8.0, 1.0, 17.0])
    assert np.array_equal(Minimax(Powers(3), candidates="all").parameters(), [1.0, 3.0, 0.0])
    with pytest.raises(ValueError, match="candidates"):
        Minimax(candidates="some")
    assert resolve_rule("minimax") == Minimax()
    assert np.array_equal(Minimax().parameters(), Minimax(ThresholdPairs(0)).parameters())
    tree = treesmith.DecisionTreeClassifier(split_rule=Minimax(ThresholdPairs(2)))
    assert clone(tree).split_rule == Minimax(ThresholdPairs(2))
    with pytest.raises(ValueError, match="impurity"):
        Minimax("gini")
    X, y = load_wine(return_X_y=True)
    with pytest.raises(ValueError, match="minimax"):
        treesmith.DecisionTreeRegressor(split_rule="minimax").fit(X, y.astype(float))


def test_a_power_that_overflows_is_refused_not_a_silent_single_leaf():
    """Powers(200) on 100 rows: 100^200 overflows float64 and the compiled F would be
    inf - inf -> 0, a 'pure' root; the single tree with the Minimax rule refuses it."""
    X = np.arange(100, dtype=float)[:, None]
    model = treesmith.DecisionTreeClassifier(split_rule=Minimax(impurity=Powers(200)))
    with pytest.raises(ValueError, match="smaller Powers power"):
        model.fit(X, np.arange(100) % 2)
