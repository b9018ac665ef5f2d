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
    engine = treesmith.DecisionTreeClassifier(split_rule=Minimax(impurity),
                                              feature_costs=costs).fit(X, y)
    greedy = GreedyTreeClassifier(impurity, feature_costs=costs, cost_model="per_test",
                                  candidates="all").fit(X, y)
    assert np.array_equal(engine.tree_.feature, greedy.tree_.feature)
    assert np.array_equal(engine.tree_.bin_threshold, greedy.tree_.bin_threshold)
    assert np.array_equal(engine.tree_.n_node_samples, greedy.tree_.n_node_samples)


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
    assert rule.get_params() == {"impurity": ThresholdPairs(8)}
    assert rule == Minimax(ThresholdPairs(8.0)) and hash(rule) == hash(Minimax(ThresholdPairs(8.0)))
    assert np.array_equal(rule.parameters(), [0.0, 8.0])
    assert np.array_equal(Minimax(Powers(3)).parameters(), [1.0, 3.0])
    assert resolve_rule("minimax") == Minimax()
    assert np.array_equal(Minimax().parameters(), Minimax(ThresholdPairs(0)).parameters())
    tree = treesmith.DecisionTreeClassifier(split_rule=Minimax(ThresholdPairs(2)))
    assert clone(tree).split_rule == Minimax(ThresholdPairs(2))
    with pytest.raises(ValueError, match="impurity"):
        Minimax("gini")
    X, y = load_wine(return_X_y=True)
    with pytest.raises(ValueError, match="minimax"):
        treesmith.DecisionTreeRegressor(split_rule="minimax").fit(X, y.astype(float))
