"""Seed 000 §6 preprocessing: k-means binarisation with costs and groups, coalescing."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.utils.estimator_checks import parametrize_with_checks

import treesmith
from treesmith.metrics import expected_cost
from treesmith.preprocessing import CoalescedClassifier, KMeansBinarizer, coalesce


def _frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    age = np.r_[rng.normal(20, 1, n // 2), rng.normal(60, 1, n - n // 2)]
    return pd.DataFrame({
        "age": age,
        "smoker": rng.choice(["no", "yes"], n),
        "color": rng.choice(["red", "green", "blue"], n),
        "flag": rng.integers(0, 2, n).astype(float),
    })


def test_names_costs_and_groups():
    X = _frame()
    binarizer = KMeansBinarizer(n_bins=3, feature_costs={"age": 5.0, "color": 2.0}).fit(X)
    names = list(binarizer.get_feature_names_out())
    age_names = binarizer.feature_groups_["age"]
    assert len(age_names) == 3 and age_names[0].startswith("age<")
    assert binarizer.feature_groups_["smoker"] == ["smoker=yes"]          # two levels: one
    assert binarizer.feature_groups_["color"] == ["color=blue", "color=green", "color=red"]
    assert binarizer.feature_groups_["flag"] == ["flag=1"]
    assert names == age_names + ["smoker=yes", "color=blue", "color=green", "color=red",
                                 "flag=1"]
    assert binarizer.feature_costs_out_.tolist() == [5, 5, 5, 1, 2, 2, 2, 1]
    assert binarizer.cost_groups_out_.tolist() == [0, 0, 0, 1, 2, 2, 2, 3]


def test_bins_are_scikit_learn_kmeans_bins():
    X = _frame()
    binarizer = KMeansBinarizer(n_bins=4).fit(X)
    reference = KBinsDiscretizer(n_bins=4, strategy="kmeans", encode="ordinal").fit(X[["age"]])
    expected_codes = reference.transform(X[["age"]])[:, 0].astype(int)
    block = binarizer.transform(X)[:, :4]
    assert np.array_equal(block.sum(axis=1), np.ones(len(X)))  # exactly one bin per row
    assert np.array_equal(np.argmax(block, axis=1), expected_codes)
    assert np.allclose(binarizer.bin_edges_["age"], reference.bin_edges_[0][1:-1])


def test_missing_and_unseen_values():
    X = _frame()
    binarizer = KMeansBinarizer(n_bins=3).fit(X)
    new = X.iloc[:3].copy()
    new.loc[new.index[0], "age"] = np.nan
    new.loc[new.index[1], "color"] = "purple"
    new.loc[new.index[2], "smoker"] = None
    out = pd.DataFrame(binarizer.transform(new), columns=binarizer.get_feature_names_out())
    assert out.iloc[0][binarizer.feature_groups_["age"]].isna().all()
    assert (out.iloc[1][binarizer.feature_groups_["color"]] == 0).all()
    assert out.iloc[2][["smoker=yes"]].isna().all()
    assert out.iloc[0][binarizer.feature_groups_["color"]].notna().all()


def test_numpy_input_and_categorical_positions():
    rng = np.random.default_rng(1)
    X = np.c_[rng.normal(size=50), rng.integers(0, 4, 50)]
    binarizer = KMeansBinarizer(n_bins=2, categorical=[1]).fit(X)
    names = binarizer.get_feature_names_out()
    # two k-means bins give one indicator (the upper bin); categorical levels as text
    assert names[0].startswith("x0>=")
    assert list(names[1:]) == ["x1=0.0", "x1=1.0", "x1=2.0", "x1=3.0"]
    with pytest.raises(ValueError, match="categorical: no column 5"):
        KMeansBinarizer(categorical=[5]).fit(X)
    with pytest.raises(ValueError, match="n_bins"):
        KMeansBinarizer(n_bins=1).fit(X)
    with pytest.raises(ValueError, match="fitted with 2"):
        binarizer.transform(X[:, :1])


def test_pandas_output_and_pipeline_with_costs():
    X = _frame()
    y = (X["age"] > 40).to_numpy().astype(int) ^ (X["smoker"] == "yes").to_numpy()
    binarizer = KMeansBinarizer(n_bins=3, feature_costs={"age": 5.0}).fit(X)
    frame = clone(binarizer).set_output(transform="pandas").fit_transform(X)
    assert list(frame.columns) == list(binarizer.get_feature_names_out())
    tree = treesmith.DecisionTreeClassifier(
        criterion="entropy", feature_costs=binarizer.feature_costs_out_,
        cost_groups=binarizer.cost_groups_out_, cost_model="per_feature")
    model = make_pipeline(binarizer, CoalescedClassifier(tree)).fit(X, y)
    assert model.score(X, y) == 1.0
    inner = model[-1]
    assert inner.feature_costs_.tolist() == binarizer.feature_costs_out_.tolist()
    assert expected_cost(inner, binarizer.transform(X)) > 0


def test_coalesce_hand_example():
    X = np.array([[0, 1], [1, 1], [0, 1], [0, np.nan], [0, 1], [0, np.nan], [-0.0, 2]])
    y = np.array(["a", "b", "b", "a", "b", "b", "a"])
    X_u, y_u, w_u, counts = coalesce(X, y)
    assert np.array_equal(X_u, np.array([[0, 1], [1, 1], [0, np.nan], [0, 2]]),
                          equal_nan=True)
    assert counts.tolist() == [3, 1, 2, 1]
    assert w_u.tolist() == [3, 1, 2, 1]
    assert y_u.tolist() == ["b", "b", "a", "a"]  # (a, b, b) -> b; (a, b) tie -> smallest "a"
    # weights decide the majority and are summed
    _, y_w, w_w, counts_w = coalesce(X, y, sample_weight=[5, 1, 1, 1, 1, 1, 1])
    assert y_w[0] == "a" and w_w.tolist() == [7, 1, 2, 1] and counts_w.tolist() == [3, 1, 2, 1]


def test_coalesce_dataframe_and_errors():
    X = pd.DataFrame({"u": [1.0, 1.0, 2.0], "v": [3.0, 3.0, 3.0]}, index=[10, 11, 12])
    X_u, *_ = coalesce(X, [0, 0, 1])
    assert list(X_u.columns) == ["u", "v"] and X_u.shape == (2, 2)
    assert X_u.index.tolist() == [0, 1]
    with pytest.raises(ValueError, match="one label per row"):
        coalesce(X, [0, 1])
    with pytest.raises(ValueError, match="sample_weight"):
        coalesce(X, [0, 0, 1], sample_weight=[1, -1, 1])


@pytest.mark.parametrize("criterion, split_rule", [
    ("entropy", "gain"), ("gini", "gain"), ("entropy", "cost_benefit"),
    ("entropy", "gain_ratio"),
])
def test_gain_rules_same_tree_on_coalesced_and_duplicated_data(criterion, split_rule):
    """Gain-based scores only see weights: k copies of an object = one object of weight k."""
    rng = np.random.default_rng(2)
    base = rng.integers(0, 3, size=(40, 4)).astype(float)
    base = np.unique(base, axis=0)
    labels = (base[:, 0] + base[:, 1] * rng.integers(0, 2, len(base)) > 2).astype(int)
    copies = rng.integers(1, 6, len(base))
    X_dup = np.repeat(base, copies, axis=0)
    y_dup = np.repeat(labels, copies)
    order = rng.permutation(len(X_dup))
    X_dup, y_dup = X_dup[order], y_dup[order]
    params = dict(criterion=criterion, split_rule=split_rule, max_bins=None,
                  feature_costs=[1, 2, 3, 1], min_samples_split=2)
    on_dup = treesmith.DecisionTreeClassifier(**params).fit(X_dup, y_dup)
    on_coalesced = CoalescedClassifier(treesmith.DecisionTreeClassifier(**params)).fit(
        X_dup, y_dup)
    assert sorted(on_coalesced.counts_.tolist()) == sorted(copies.tolist())
    a, b = on_dup.tree_, on_coalesced.tree_
    assert a.node_count == b.node_count > 1
    assert np.array_equal(a.feature, b.feature)
    assert np.array_equal(a.threshold, b.threshold, equal_nan=True)
    assert np.allclose(a.weighted_n_node_samples, b.weighted_n_node_samples)
    assert np.array_equal(on_dup.predict(X_dup), on_coalesced.predict(X_dup))


def test_parameters_and_weights_are_checked_by_the_validation_room():
    X = np.arange(12.0).reshape(6, 2)
    for params, name in [({"n_bins": 1}, "n_bins"), ({"n_bins": 2.5}, "n_bins"),
                         ({"drop_binary": "yes"}, "drop_binary"),
                         ({"random_state": -3}, "random_state"),
                         # a number raised "'int' object is not iterable"
                         ({"categorical": 1}, "categorical"),
                         ({"categorical": 0.5}, "categorical"),
                         ({"categorical": np.array(1)}, "categorical"),
                         ({"categorical": {}}, "categorical")]:
        with pytest.raises(ValueError, match=f"KMeansBinarizer: {name} must be"):
            KMeansBinarizer(**params).fit(X)
    with pytest.raises(ValueError, match=r"categorical lists column names or positions, not "
                                         r"booleans; got \[True\]"):
        KMeansBinarizer(categorical=[True]).fit(X)  # was column 1
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative; it is negative "
                                         r"at rows 2"):
        coalesce(X, np.zeros(6), sample_weight=[1, 1, -1, 1, 1, 1])
    _, _, weight, _ = coalesce(X, np.zeros(6), sample_weight=np.zeros(6))
    assert weight.sum() == 0  # all-zero weights are legal for coalescing


def test_coalesce_rows_with_text_and_category_columns():
    """coalesce turned X into float64: a frame with a text column (a tree with categorical
    splits takes it) failed with "could not convert string to float", and a multi-output y
    was called a length mismatch."""
    X = pd.DataFrame({"city": ["Nice", "Lyon", "Nice", None, "Nice", None],
                      "x": [1.0, 1.0, 1.0, 2.0, np.nan, 2.0]})
    y = np.array([0, 1, 1, 0, 1, 0])
    X_u, y_u, w_u, counts = coalesce(X, y)
    assert X_u["city"].tolist() == ["Nice", "Lyon", None, "Nice"]
    assert counts.tolist() == [2, 1, 2, 1] and w_u.tolist() == [2, 1, 2, 1]
    assert y_u.tolist() == [0, 1, 0, 1]  # (0, 1) tie -> the smallest label
    as_category = X.astype({"city": "category"})
    assert coalesce(as_category, y)[3].tolist() == [2, 1, 2, 1]
    model = CoalescedClassifier(treesmith.DecisionTreeClassifier()).fit(X, y)
    assert model.is_categorical_.tolist() == [True, False]
    with pytest.raises(ValueError, match="multi-output targets are not supported"):
        coalesce(X, np.column_stack([y, y]))


@parametrize_with_checks([KMeansBinarizer()])
def test_binarizer_passes_scikit_learns_estimator_checks(estimator, check):
    """It had no such test and failed 9 of them: complex and sparse input, a column-count
    mismatch's and empty input's wording, an object array of numbers (one level per value)."""
    check(estimator)


@pytest.mark.parametrize("scale", [1e-320, 1e-200, 1e-12])
def test_values_too_close_for_kmeans_bins_are_named(scale):
    """KBinsDiscretizer drops bins narrower than 1e-8: values of magnitude 1e-200 left no edge
    and _fit_column raised IndexError (index 0 is out of bounds) reading the first edge."""
    X = np.random.default_rng(0).normal(size=(60, 2))
    X[:, 1] *= scale
    with pytest.raises(ValueError, match=r"column 'x1' has 60 distinct values, but every k-means "
                                         r"bin of them is narrower than scikit-learn's minimum "
                                         r"bin width 1e-8"):
        KMeansBinarizer(random_state=0).fit(X)
    X[:, 1] /= scale  # the same values at a scale k-means bins
    assert KMeansBinarizer(random_state=0).fit(X).bin_edges_["x1"].size == 4


def test_a_numpy_object_array_of_numbers_is_binned_as_documented():
    """numpy input has no categorical column unless listed: an object array of numbers gave
    one indicator per distinct value (100 here) instead of k-means bins."""
    X = np.random.default_rng(0).normal(size=(50, 2))
    as_floats = KMeansBinarizer(random_state=0).fit(X)
    as_objects = KMeansBinarizer(random_state=0).fit(X.astype(object))
    assert list(as_objects.get_feature_names_out()) == list(as_floats.get_feature_names_out())
    np.testing.assert_array_equal(as_objects.transform(X.astype(object)), as_floats.transform(X))
    text = np.array([["a"], ["b"]] * 5, dtype=object)
    with pytest.raises(ValueError, match="column 'x0' is not numeric .*list it in categorical="):
        KMeansBinarizer().fit(text)
    assert KMeansBinarizer(categorical=[0]).fit(text).get_feature_names_out().tolist() == ["x0=b"]


@pytest.mark.parametrize("estimator", [[], None, "tree", treesmith.DecisionTreeClassifier])
def test_coalesced_classifier_names_an_estimator_that_is_not_one(estimator):
    """[] raised "'list' object has no attribute 'fit'" from clone's result."""
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(TypeError, match=r"CoalescedClassifier: estimator must be a classifier "
                                        r"instance"):
        CoalescedClassifier(estimator).fit(X, [0, 1] * 3)
