"""One-row fits (docs/methods.md §2): a root leaf that predicts the row's label, as
scikit-learn's trees give, for every estimator that can fit one row; a clear error naming the
parameter where one row cannot be split into growing and validation rows."""

import numpy as np
import pytest
from sklearn import ensemble as sklearn_ensemble
from sklearn import tree as sklearn_tree
from typer.testing import CliRunner

import treesmith
from treesmith.cli import app

X1 = np.array([[1.0, 2.0]])
PROBE = np.array([[1.0, 2.0], [-5.0, 40.0], [np.nan, 0.0]])

#: treesmith estimator -> the scikit-learn estimator that fits the same single-leaf tree.
_WITH_SKLEARN = {
    "tree": (lambda: treesmith.DecisionTreeClassifier(random_state=0),
             lambda: sklearn_tree.DecisionTreeClassifier(random_state=0)),
    "regressor": (lambda: treesmith.DecisionTreeRegressor(random_state=0),
                  lambda: sklearn_tree.DecisionTreeRegressor(random_state=0)),
    "extra_tree": (lambda: treesmith.ExtraTreeClassifier(random_state=0),
                   lambda: sklearn_tree.ExtraTreeClassifier(random_state=0)),
    "extra_tree_regressor": (lambda: treesmith.ExtraTreeRegressor(random_state=0),
                             lambda: sklearn_tree.ExtraTreeRegressor(random_state=0)),
    "forest": (lambda: treesmith.RandomForestClassifier(n_estimators=3, random_state=0),
               lambda: sklearn_ensemble.RandomForestClassifier(n_estimators=3, random_state=0)),
    "forest_regressor": (
        lambda: treesmith.RandomForestRegressor(n_estimators=3, random_state=0),
        lambda: sklearn_ensemble.RandomForestRegressor(n_estimators=3, random_state=0)),
    "extra_trees": (lambda: treesmith.ExtraTreesClassifier(n_estimators=3, random_state=0),
                    lambda: sklearn_ensemble.ExtraTreesClassifier(n_estimators=3,
                                                                  random_state=0)),
    "extra_trees_regressor": (
        lambda: treesmith.ExtraTreesRegressor(n_estimators=3, random_state=0),
        lambda: sklearn_ensemble.ExtraTreesRegressor(n_estimators=3, random_state=0)),
    "ccp_alpha": (lambda: treesmith.DecisionTreeClassifier(ccp_alpha=0.1),
                  lambda: sklearn_tree.DecisionTreeClassifier(ccp_alpha=0.1)),
}

#: Estimators scikit-learn has no counterpart of: a root leaf predicting the one label.
_OWN = {
    "greedy": lambda: treesmith.ensemble.GreedyTreeClassifier(random_state=0),
    "bayes": lambda: treesmith.BayesianTreeClassifier(n_iter=50, n_chains=1, random_state=0),
    "bayes_regressor": lambda: treesmith.BayesianTreeRegressor(n_iter=50, n_chains=1,
                                                               random_state=0),
    "bayes_posterior": lambda: treesmith.BayesianTreeRegressor(
        n_iter=50, n_chains=1, averaging="posterior", random_state=0),
    "c45": lambda: treesmith.C45Classifier(),
    "c45_reduced_error": lambda: treesmith.C45Classifier(reduced_error_pruning=True),
    "pruning_c45": lambda: treesmith.DecisionTreeClassifier(pruning="c45"),
    "pruning_c45_raising": lambda: treesmith.DecisionTreeClassifier(
        pruning={"method": "c45", "subtree_raising": True}),
    "pruning_tdp": lambda: treesmith.DecisionTreeClassifier(pruning="tdp"),
    "pruning_bup": lambda: treesmith.DecisionTreeClassifier(pruning="bup"),
    "pruning_ccp": lambda: treesmith.DecisionTreeRegressor(pruning={"method": "ccp",
                                                                    "ccp_alpha": 0.1}),
    "significance": lambda: treesmith.DecisionTreeClassifier(significance=0.05),
    "monotonic": lambda: treesmith.DecisionTreeClassifier(monotonic_cst=[1, 0]),
}


def _label(name):
    regression = "regressor" in name or name in ("bayes_posterior", "pruning_ccp")
    return np.array([2.5]) if regression else np.array([3])


def _leaves(model):
    members = getattr(model, "estimators_", None)
    if members is not None:
        return [member.get_n_leaves() for member in members]
    return model.get_n_leaves()


@pytest.mark.parametrize("name", list(_WITH_SKLEARN))
def test_a_one_row_fit_is_scikit_learns_single_leaf(name):
    ours, theirs = (make().fit(X1, _label(name)) for make in _WITH_SKLEARN[name])
    np.testing.assert_array_equal(ours.predict(PROBE), theirs.predict(PROBE))
    if hasattr(theirs, "predict_proba"):
        np.testing.assert_array_equal(ours.predict_proba(PROBE), theirs.predict_proba(PROBE))
    theirs_leaves = ([m.get_n_leaves() for m in theirs.estimators_]
                     if hasattr(theirs, "estimators_") else theirs.get_n_leaves())
    assert _leaves(ours) == theirs_leaves
    assert np.all(np.asarray(_leaves(ours)) == 1)


@pytest.mark.parametrize("name", list(_OWN))
def test_a_one_row_fit_is_a_root_leaf(name):
    y = _label(name)
    model = _OWN[name]().fit(X1, y)
    assert _leaves(model) == 1
    np.testing.assert_array_equal(model.predict(PROBE), np.repeat(y, 3))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(model.predict_proba(PROBE), np.ones((3, 1)))


@pytest.mark.parametrize("name", ["tree", "regressor", "forest"])
def test_one_distinct_row_is_a_leaf_of_its_label_proportions(name):
    """Four copies of one row, labels 0, 1, 1, 1: one leaf, proportions 1/4, 3/4 (mean 0.75),
    as scikit-learn (no split separates identical rows)."""
    X = np.repeat(X1, 4, axis=0)
    y = np.array([0, 1, 1, 1]) if name != "regressor" else np.array([0.0, 1.0, 1.0, 1.0])
    ours, theirs = (make().fit(X, y) for make in _WITH_SKLEARN[name])
    np.testing.assert_array_equal(ours.predict(PROBE), theirs.predict(PROBE))
    if name == "tree":
        np.testing.assert_array_equal(ours.predict_proba(PROBE), [[0.25, 0.75]] * 3)
        np.testing.assert_array_equal(ours.predict_proba(PROBE), theirs.predict_proba(PROBE))
    if name == "regressor":
        assert ours.predict(X1)[0] == 0.75
    assert np.all(np.asarray(_leaves(ours)) == 1)


@pytest.mark.parametrize("name", ["tree", "extra_tree"])
def test_two_rows_of_two_classes_split_as_scikit_learn_splits_them(name):
    X = np.array([[1.0, 2.0], [3.0, 2.0]])
    y = np.array([0, 1])
    ours, theirs = (make().fit(X, y) for make in _WITH_SKLEARN[name])
    assert ours.get_n_leaves() == theirs.get_n_leaves() == 2
    np.testing.assert_array_equal(ours.predict(X), y)
    np.testing.assert_array_equal(ours.predict(PROBE[:2]), theirs.predict(PROBE[:2]))
    if name == "tree":
        assert ours.tree_.threshold[0] == theirs.tree_.threshold[0] == 2.0


@pytest.mark.parametrize("name", ["tree", "regressor", "forest", "c45"])
def test_a_one_row_fit_of_weight_zero_is_refused_as_scikit_learn_refuses_it(name):
    make = _WITH_SKLEARN[name][0] if name in _WITH_SKLEARN else _OWN[name]
    with pytest.raises(ValueError, match="sample_weight"):
        make().fit(X1, _label(name), sample_weight=[0.0])
    if name in _WITH_SKLEARN:
        with pytest.raises(ValueError, match="at least one non-zero"):
            _WITH_SKLEARN[name][1]().fit(X1, _label(name), sample_weight=[0.0])


@pytest.mark.parametrize("make", [treesmith.DecisionTreeClassifier,
                                  treesmith.DecisionTreeRegressor])
def test_reduced_error_pruning_names_validation_fraction(make):
    with pytest.raises(ValueError, match=r"validation_fraction=0\.25 .* no row to grow on "
                                         r"out of 1 row.*at least 2 such rows"):
        make(pruning="rep").fit(X1, [1])
    two = np.array([[1.0, 2.0], [3.0, 2.0]])
    with pytest.raises(ValueError, match="lower validation_fraction"):
        make(pruning={"method": "rep", "validation_fraction": 0.9}).fit(two, [0, 1])
    assert make(pruning="rep", random_state=0).fit(two, [0, 1]).get_n_leaves() == 1


def test_budget_forest_names_validation_fraction_and_fits_one_row_with_x_val():
    with pytest.raises(ValueError, match=r"validation_fraction=0\.3 of 1 sample.*pass X_val "
                                         "and y_val"):
        treesmith.BudgetForestClassifier(alphas=[0], max_estimators=2).fit(X1, [3])
    model = treesmith.BudgetForestClassifier(alphas=[0], max_estimators=2, random_state=0)
    model.fit(X1, [3], X_val=X1, y_val=[3])
    assert all(member.get_n_leaves() == 1 for member in model.estimators_)
    np.testing.assert_array_equal(model.predict(PROBE), [3, 3, 3])


def test_the_cli_suggests_test_size_0_for_one_row(tmp_path):
    runner = CliRunner()
    regression = tmp_path / "one.csv"
    regression.write_text("a,b,y\n1.0,2.0,2.5\n")
    result = runner.invoke(app, ["fit", str(regression), "--target", "y"],
                           catch_exceptions=False)
    assert result.exit_code == 2
    assert "leaves no row to fit on" in result.stderr and "--test-size 0" in result.stderr
    result = runner.invoke(app, ["fit", str(regression), "--target", "y", "--test-size", "0"],
                           catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    classification = tmp_path / "one_class.csv"
    classification.write_text("a,b,y\n1.0,2.0,yes\n")
    result = runner.invoke(app, ["fit", str(classification), "--target", "y"],
                           catch_exceptions=False)
    assert result.exit_code == 2 and "--test-size 0" in result.stderr
    result = runner.invoke(app, ["fit", str(classification), "--target", "y", "--test-size",
                                 "0"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
