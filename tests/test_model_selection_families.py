"""learn_parameters end to end on the families that landed beside it: Bayesian CART's prior
(sigma, phi) and BudgetRF's threshold-Pairs alpha, tuned across problem instances."""

import numpy as np
from sklearn.datasets import load_iris, load_wine

import treesmith
from treesmith.ensemble import BudgetForestClassifier
from treesmith.model_selection import learn_parameters, split_instances


def test_bayesian_cart_prior_learned_across_instances():
    X, y = load_iris(return_X_y=True)
    instances = split_instances(X, y, n_splits=3, random_state=0)
    sampler = treesmith.BayesianTreeClassifier(n_iter=300, n_chains=1, random_state=0)
    space = {"sigma": [0.3, 0.95], "phi": [0.5, 2.0]}
    result = learn_parameters(sampler, space, instances, n_jobs=1)
    assert set(result.best_params) == {"sigma", "phi"}
    # the ERM choice is the grid point with the smallest mean loss over the instances
    manual = {}
    for sigma in space["sigma"]:
        for phi in space["phi"]:
            losses = []
            for X_train, y_train, X_test, y_test in instances:
                model = treesmith.BayesianTreeClassifier(
                    sigma=sigma, phi=phi, n_iter=300, n_chains=1, random_state=0)
                losses.append(np.mean(model.fit(X_train, y_train).predict(X_test) != y_test))
            manual[(sigma, phi)] = np.mean(losses)
    best = min(manual.values())
    assert np.isclose(result.best_loss, best)
    assert np.isclose(manual[(result.best_params["sigma"], result.best_params["phi"])], best)


def test_budget_forest_alpha_learned_across_instances():
    X, y = load_wine(return_X_y=True)
    instances = split_instances(X, y, n_splits=2, random_state=1)
    forest = BudgetForestClassifier(budget=6.0, max_estimators=5, random_state=0)
    result = learn_parameters(forest, {"alphas": [(0,), (4,), (8,)]}, instances, n_jobs=1)
    assert result.best_params["alphas"] in [(0,), (4,), (8,)]
    manual = []
    for alphas in [(0,), (4,), (8,)]:
        losses = [np.mean(BudgetForestClassifier(budget=6.0, max_estimators=5, alphas=alphas,
                                                 random_state=0).fit(Xa, ya).predict(Xb) != yb)
                  for Xa, ya, Xb, yb in instances]
        manual.append(np.mean(losses))
    assert np.isclose(result.best_loss, min(manual))
