"""A user criterion that fails during a fit (NaN, negative, an exception) on proportions outside
its check set stops the fit with an error naming the criterion, the node, the feature and the
proportions, also when the failing candidate is one the rule would not have chosen
(treesmith._criterion_failure, the scan's ``impurity_failed`` flag)."""

import numpy as np
import pytest

from treesmith import DecisionTreeClassifier
from treesmith._criterion_failure import CriterionFailure
from treesmith.criteria import Custom

# One feature 0..99; class 1 on x < 10. The balanced rule cuts at the median (left: 40 of
# class 0, 10 of class 1, proportions [0.8, 0.2]); the cut x <= 24 gives a left child of
# proportions [0.6, 0.4], which only an unchosen candidate reaches.
X_LINE = np.arange(100, dtype=np.float64)[:, None]
Y_LINE = (X_LINE[:, 0] < 10).astype(np.int64)


def _nan_at_three_fifths(p):
    if p.shape[0] == 2 and abs(p[0] - 0.6) < 1e-12:
        return np.nan
    return 1.0 - (p * p).sum()


def _negative_at_three_fifths(p):
    if p.shape[0] == 2 and abs(p[0] - 0.6) < 1e-12:
        return -0.25
    return 1.0 - (p * p).sum()


def _raises_at_three_fifths(p):
    if p.shape[0] == 2 and abs(p[0] - 0.6) < 1e-12:
        raise ZeroDivisionError("three fifths")
    return 1.0 - (p * p).sum()


def _reads_out_of_bounds_at_three_fifths(p):
    index = 10**6 if p.shape[0] == 2 and abs(p[0] - 0.6) < 1e-12 else 0
    return 1.0 - (p * p).sum() + 0.0 * p[index]


FAILING = {
    "nan": (_nan_at_three_fifths, "func returned nan"),
    "negative": (_negative_at_three_fifths, r"func returned -0\.25"),
    "raises": (_raises_at_three_fifths, "func raised ZeroDivisionError"),
    "out_of_bounds": (_reads_out_of_bounds_at_three_fifths, "func raised IndexError"),
}


@pytest.mark.parametrize("name", list(FAILING))
def test_failure_on_an_unchosen_candidate_stops_the_fit(name):
    func, what = FAILING[name]
    criterion = Custom(func)  # passes its checks: 0.6 is not a probe
    model = DecisionTreeClassifier(criterion=criterion, split_rule="balanced", max_depth=1)
    with pytest.raises(CriterionFailure) as info:
        model.fit(X_LINE, Y_LINE)
    message = str(info.value)
    assert f"Custom({func.__name__})" in message
    assert "depth 0 with 100 training samples" in message
    assert "feature x0 (index 0)" in message
    assert "proportions [0.6, 0.4]" in message
    assert pytest.approx([0.6, 0.4]) == info.value.proportions[0].tolist()
    assert len(info.value.proportions) == 1
    assert __import__("re").search(what, message)
    assert isinstance(info.value, ValueError)  # scikit-learn's convention for bad input


def test_without_the_failure_the_same_fit_chooses_the_median():
    """The candidate x <= 24 is not chosen: with Gini instead, nothing fails and the balanced
    rule cuts at the median (so the error above is not about the chosen split)."""
    model = DecisionTreeClassifier(criterion=Custom(lambda p: 1.0 - (p * p).sum()),
                                   split_rule="balanced", max_depth=1).fit(X_LINE, Y_LINE)
    assert model.tree_.threshold[0] == 49.5


def test_the_failure_names_the_column_of_a_dataframe():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"noise": np.zeros(100), "dose": X_LINE[:, 0]})
    model = DecisionTreeClassifier(criterion=Custom(_nan_at_three_fifths),
                                   split_rule="balanced", max_depth=1)
    with pytest.raises(CriterionFailure, match=r"feature 'dose' \(index 1\)"):
        model.fit(frame, Y_LINE)


def test_failure_deep_in_the_tree_names_its_node():
    """Gain rule, 40 samples: no candidate of the upper nodes reaches proportions [0.6, 0.4];
    one of a node of 8 samples at depth 4 does."""
    X = np.arange(40, dtype=np.float64)[:, None]
    y = np.array([int(c) for c in "0001000100000000001000010000010000100001"])
    criterion = Custom(_nan_at_three_fifths)
    with pytest.raises(CriterionFailure,
                       match=r"at a node of depth 4 with 8 training samples.*\[0\.6, 0\.4\]"):
        DecisionTreeClassifier(criterion=criterion).fit(X, y)


def test_nothing_fails_with_a_total_function():
    """The flag costs nothing in the result: a Custom Gini grows the Gini tree."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    custom = DecisionTreeClassifier(criterion=Custom(lambda p: 1.0 - (p * p).sum())).fit(X, y)
    gini = DecisionTreeClassifier(criterion="gini").fit(X, y)
    assert np.array_equal(custom.tree_.feature, gini.tree_.feature)
    assert np.array_equal(custom.tree_.threshold, gini.tree_.threshold, equal_nan=True)


def test_subtrees_grown_apart_report_a_failure_whatever_the_thread_count(monkeypatch):
    """Large fits grow their lower nodes as separate subtrees, in parallel (treesmith.grower);
    a failure in one of them is explained from that subtree's samples, and which failure is
    reported does not depend on the number of threads."""
    import treesmith.grower

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 30))
    y = (X[:, 0] + rng.normal(size=20000) > 0).astype(int)
    monkeypatch.setattr(treesmith.grower, "MIN_SUBTREE_SIZE", 19000)  # every child of the root
    spied = []
    grow_subtrees = treesmith.grower.TreeGrower._grow_subtrees
    monkeypatch.setattr(treesmith.grower.TreeGrower, "_grow_subtrees",
                        lambda *args: spied.append(1) or grow_subtrees(*args))
    messages = []
    for n_jobs in (1, 2):
        with pytest.raises(CriterionFailure) as info:
            DecisionTreeClassifier(criterion=Custom(_nan_at_three_fifths),
                                   n_jobs=n_jobs).fit(X, y)
        messages.append(str(info.value))
    assert len(spied) == 2  # both fits went through the subtrees
    assert "proportions [0.6, 0.4]" in messages[0]
    assert messages[0] == messages[1]


def test_failure_in_the_permutation_test_of_s_pruning_stops_the_fit():
    """The growth itself never meets proportions [0.6, 0.4] on these labels, but S-pruning's
    permutation test shuffles them and does: that used to count silently as a permutation at
    least as good as the observed split (a larger p-value, a different tree)."""
    X = np.arange(24, dtype=np.float64)[:, None]
    y = np.array([int(c) for c in "000000110110111001111001"])
    criterion = Custom(_nan_at_three_fifths)
    DecisionTreeClassifier(criterion=criterion).fit(X, y)  # nothing fails without the test
    with pytest.raises(CriterionFailure, match=r"depth 0 with 24 training samples, on feature "
                                               r"x0 \(index 0\) in the S-pruning permutation"):
        DecisionTreeClassifier(criterion=criterion, significance=0.05, random_state=0).fit(X, y)


def test_a_failure_on_a_set_of_categories_stops_the_fit():
    """The categorical scan flags failures too, and the explanation enumerates sets of
    categories: {B} left leaves A and C right, 30 of class 0 and 20 of class 1 ([0.6, 0.4])."""
    pd = pytest.importorskip("pandas")
    city = ["A"] * 20 + ["B"] * 30 + ["C"] * 30
    y = np.array([0] * 20 + [0] * 30 + [0] * 10 + [1] * 20)
    frame = pd.DataFrame({"city": pd.Categorical(city)})
    model = DecisionTreeClassifier(criterion=Custom(_nan_at_three_fifths),
                                   split_rule="balanced", max_depth=1)
    with pytest.raises(CriterionFailure) as info:
        model.fit(frame, y)
    assert "feature 'city' (index 0)" in str(info.value)
    assert any(pytest.approx([0.6, 0.4]) == p.tolist() for p in info.value.proportions)
