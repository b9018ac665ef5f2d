"""C45Classifier without Weka: known answers, kernels against the naive references, C4.5's
rules one by one, missing values, the binary view, scikit-learn conventions."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.utils.estimator_checks import parametrize_with_checks

from treesmith import C45Classifier
from treesmith._kernels import c45 as kernels
from treesmith.c45 import _reference as reference
from treesmith.c45._estimator import reduced_error_folds
from treesmith.c45._prune import ErrorBound
from treesmith.c45.weka import j48_text, java_double, weka_decimal
from treesmith.pruning.error_based import added_errors

# Weka 3.6's J48 on the full iris data (weka.classifiers.trees.J48 -C 0.25 -M 2).
IRIS_J48 = """\
petal width (cm) <= 0.6: setosa (50.0)
petal width (cm) > 0.6
|   petal width (cm) <= 1.7
|   |   petal length (cm) <= 4.9: versicolor (48.0/1.0)
|   |   petal length (cm) > 4.9
|   |   |   petal width (cm) <= 1.5: virginica (3.0)
|   |   |   petal width (cm) > 1.5: versicolor (3.0/1.0)
|   petal width (cm) > 1.7: virginica (46.0/1.0)"""


@pytest.fixture(scope="module")
def iris_frame():
    data = load_iris(as_frame=True)
    return data.data, data.target_names[data.target]


def test_iris_is_j48s_tree(iris_frame):
    X, y = iris_frame
    model = C45Classifier().fit(X, y)
    assert j48_text(model) == IRIS_J48
    assert model.get_n_leaves() == 5 and model.c45_tree_.node_count == 9
    assert np.mean(model.predict(X) == y) == pytest.approx(147 / 150)


def test_mdl_correction_moves_iris_root(iris_frame):
    """Without release 8's penalty the root is petal length <= 1.9 (ties with width on gain
    ratio broken by column order); with it, petal width <= 0.6 (issue 16)."""
    X, y = iris_frame
    plain = C45Classifier(mdl_correction=False).fit(X, y)
    assert j48_text(plain).splitlines()[0].startswith("petal length (cm) <= 1.9")


# -- kernels against the references ---------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(4, 60), n_classes=st.integers(2, 4),
       missing=st.sampled_from([0.0, 0.2]), min_objects=st.sampled_from([1, 2, 5]))
def test_numeric_cut_matches_enumeration(seed, n, n_classes, missing, min_objects):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 12, n).astype(float) + rng.random(n) * 1e-3
    values[rng.random(n) < missing] = np.nan
    y = rng.integers(0, n_classes, n)
    w = rng.choice([0.5, 1.0, 2.0], n)
    order = np.argsort(values, kind="stable")
    n_known = int(np.count_nonzero(~np.isnan(values)))
    gain, ratio, n_left, n_cuts = kernels.best_numeric_cut(
        values[order], y[order], w[order], n_known, n_classes, float(min_objects), w.sum(),
        True, np.empty((2, n_classes)), np.empty(0))
    ref_gain, ref_ratio, low, ref_cuts = reference.best_numeric_cut_naive(
        values, y, w, n_classes, min_objects, w.sum())
    assert n_cuts == ref_cuts
    if low is None:
        assert n_left == -1
        return
    assert gain == pytest.approx(ref_gain, abs=1e-9)
    assert ratio == pytest.approx(ref_ratio, abs=1e-9)
    assert values[order[n_left - 1]] == low


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(4, 80))
def test_xlogx_table_changes_no_number(seed, n):
    """With whole-number weights the scan looks c ln c up; the result is bit for bit the same."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 15, n).astype(float)
    y = rng.integers(0, 3, n)
    w = rng.choice([1.0, 2.0], n)
    order = np.argsort(values, kind="stable")
    args = (values[order], y[order], w[order], n, 3, 2.0, w.sum(), True)
    computed = kernels.best_numeric_cut(*args, np.empty((2, 3)), np.empty(0))
    looked_up = kernels.best_numeric_cut(*args, np.empty((2, 3)),
                                         kernels.xlogx_table(int(w.sum())))
    assert computed == looked_up


def test_multiway_gain_matches_reference():
    rng = np.random.default_rng(3)
    distribution = rng.integers(0, 9, (4, 3)).astype(float)
    total = distribution.sum() + 5.0  # 5 objects with a missing value
    gain, ratio, valid = kernels.multiway_nominal_split(distribution, 2.0, total)
    assert valid
    assert gain == pytest.approx(reference.gain_of(distribution, total), abs=1e-12)
    split_info = reference.split_information(distribution.sum(axis=1), total)
    assert ratio == pytest.approx(gain / split_info, abs=1e-12)


@pytest.mark.parametrize("n, errors", [(6, 0), (6, 0.4), (20, 3), (9.5, 2.2), (3, 2.8),
                                        (100, 40)])
@pytest.mark.parametrize("cf", [0.25, 0.1, 0.5])
def test_error_bound_matches_references(n, errors, cf):
    bound = ErrorBound.for_confidence(cf)
    expected = reference.added_errors_naive(n, errors, float(np.float32(cf)))
    assert bound.added_errors(n, errors) == pytest.approx(expected, rel=1e-6)
    assert bound.added_errors(n, errors) == pytest.approx(added_errors(n, errors, cf), rel=1e-6)


def test_error_bound_known_value():
    """Quinlan (1993, ch. 4): a leaf of 6 objects and no error has U_25%(0, 6) = 0.206, i.e.
    6 x 0.206 = 1.24 predicted errors."""
    assert ErrorBound.for_confidence(0.25).added_errors(6, 0) == pytest.approx(6 * 0.206,
                                                                               abs=0.005)


# -- C4.5's rules ------------------------------------------------------------------------------
def test_close_values_are_not_cut():
    """Values less than 1e-5 apart are never separated (J48's C45Split)."""
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.000001], [1.000002]] * 3)
    y = np.array([0, 0, 0, 0, 1, 1] * 3)
    model = C45Classifier(unpruned=True, min_objects=1).fit(X, y)
    assert model.c45_tree_.node_count == 1 or np.all(
        model.c45_tree_.threshold[~model.c45_tree_.is_leaf] < 0.5)


def test_threshold_is_a_training_value():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3)).round(2)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    model = C45Classifier(unpruned=True).fit(X, y)
    tree = model.c45_tree_
    for node in np.flatnonzero(~tree.is_leaf):
        assert tree.threshold[node] in X[:, tree.attribute[node]]


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_threshold_snapping_paths_agree(seed):
    """Large data snap thresholds by binary search in the sorted distinct values; it must give
    what J48's loop over the data gives, also with values closer than its 1e-6 tolerance."""
    from treesmith.c45._grow import snap_threshold

    rng = np.random.default_rng(seed)
    base = rng.integers(0, 20, 60) * 0.5
    column = base + rng.choice([0.0, 3e-7, 7e-7, 2e-6], 60)
    column[rng.random(60) < 0.1] = np.nan
    distinct = np.unique(column[~np.isnan(column)])
    near_values = rng.choice(distinct, 10) + rng.choice([-5e-7, 0.0, 5e-7, 1.5e-6], 10)
    for middle in np.concatenate([rng.uniform(0.1, 10.0, 10), near_values]):
        if middle < distinct[0]:
            continue
        assert snap_threshold(column, distinct, middle) == \
            kernels.running_split_point(column, middle)


def test_pure_noise_is_a_leaf():
    """The MDL penalty refuses cuts whose gain does not pay for choosing among n cuts."""
    rng = np.random.default_rng(1)
    X = rng.random((40, 1))
    y = rng.integers(0, 2, 40)
    assert C45Classifier(unpruned=True, collapse=False).fit(X, y).c45_tree_.node_count == 1


def test_minimum_split_rule():
    """Each side of a numeric cut needs clamp(0.1 N / classes, M, 25): with N = 1000 and two
    classes, 25 objects; a pure group of 20 cannot be cut off."""
    X = np.arange(1000, dtype=float)[:, None]
    y = np.zeros(1000, dtype=int)
    y[:20] = 1
    model = C45Classifier(unpruned=True, collapse=False).fit(X, y)
    tree = model.c45_tree_
    left = tree.class_weight[tree.children[tree.child_start[0]]] if not tree.is_leaf[0] else None
    assert left is None or left.sum() >= 25


def test_nominal_multiway_and_binary():
    X = pd.DataFrame({"colour": pd.Categorical(["red", "green", "blue", "red"] * 10,
                                               categories=["red", "green", "blue", "pink"]),
                      "noise": np.tile(np.arange(4.0), 10)})
    y = np.where(X["colour"] == "red", "a", np.where(X["colour"] == "green", "b", "c"))
    multi = C45Classifier(min_objects=1).fit(X, y)
    tree = multi.c45_tree_
    assert tree.attribute[0] == 0 and tree.n_children[0] == 4  # one branch per category
    assert tree.is_empty[tree.children[3]]  # "pink" was never seen
    assert list(multi.predict(X)) == list(y)
    binary = C45Classifier(min_objects=1, binary_splits=True).fit(X, y)
    assert np.all(binary.c45_tree_.n_children[~binary.c45_tree_.is_leaf] == 2)
    assert list(binary.predict(X)) == list(y)
    unseen = X.iloc[:2].copy()
    unseen["colour"] = pd.Categorical(["pink", "red"], categories=X["colour"].cat.categories)
    assert multi.predict(unseen)[1] == "a"
    # "from_dtype" (the default, as in the other estimators) and its older name "auto"
    for spec in ("from_dtype", "auto"):
        same = C45Classifier(min_objects=1, categorical_features=spec).fit(X, y).c45_tree_
        assert np.array_equal(same.attribute, tree.attribute)
        assert np.array_equal(same.n_children, tree.n_children)
    with pytest.raises(ValueError, match="'from_dtype', None"):
        C45Classifier(categorical_features="dtype").fit(X, y)


def test_missing_values_spread_over_branches():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0], [12.0], [13.0]] * 3)
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1] * 3)
    model = C45Classifier(min_objects=2).fit(X, y)
    proba = model.predict_proba(np.array([[np.nan]]))
    assert proba[0] == pytest.approx([0.5, 0.5])
    with pytest.raises(ValueError, match="missing_values='error'"):
        C45Classifier(missing_values="error").fit(np.array([[np.nan], [1.0], [2.0]] * 2),
                                                  [0, 1, 0, 1, 0, 1])


def test_fractional_training_weights_sum_to_node_weight():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    X[rng.random(X.shape) < 0.15] = np.nan
    model = C45Classifier(unpruned=True, collapse=False).fit(X, y)
    tree = model.c45_tree_
    assert tree.class_weight[0].sum() == pytest.approx(200)
    for node in np.flatnonzero(~tree.is_leaf):
        kids = tree.children[tree.child_start[node]:tree.child_start[node] + tree.n_children[node]]
        assert tree.class_weight[kids].sum() == pytest.approx(tree.class_weight[node].sum())
    assert np.allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_binary_view_predicts_the_same():
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.choice(list("xyz"), 300),
                      "c": rng.normal(size=300)})
    y = ((X["a"] > 0) ^ (X["b"] == "y")).astype(int).to_numpy()
    model = C45Classifier(unpruned=True).fit(X, y)
    encoded = model._encode_predict(X)
    assert np.allclose(model.tree_.predict(encoded), model.predict_proba(X))
    assert model.tree_.n_leaves >= model.get_n_leaves()


def test_sample_weight_counts_as_objects():
    """Weights are J48's instance weights: unit weights change nothing, and node weights are
    sums of object weights (not normalised)."""
    X, y = load_iris(return_X_y=True)
    plain = C45Classifier().fit(X, y)
    unit = C45Classifier().fit(X, y, sample_weight=np.ones(150))
    assert j48_text(plain) == j48_text(unit)
    weights = np.where(y == 2, 3.0, 1.0)
    weighted = C45Classifier().fit(X, y, sample_weight=weights)
    assert weighted.c45_tree_.class_weight[0] == pytest.approx([50, 50, 150])


def test_reduced_error_folds_follow_weka_stratification():
    y = np.array([1, 0, 1, 1, 0, 2, 2, 0, 1])
    grow, held = reduced_error_folds(y, 3)
    # Weka's swap scan groups the data order as rows 0 2 3 8 | 4 7 1 | 5 6; dealt round robin
    # into three folds: (0 8 1) (2 4 5) (3 7 6); the last fold is held out
    assert list(held) == [3, 7, 6]
    assert sorted(np.concatenate([grow, held])) == list(range(9))


def test_parameter_errors():
    X, y = load_iris(return_X_y=True)
    for params, message in [({"confidence_factor": 0.7}, "confidence_factor"),
                            ({"min_objects": -1}, "min_objects"),
                            ({"n_folds": 1}, "n_folds"),
                            ({"missing_values": "drop"}, "missing_values"),
                            ({"categorical_features": "all"}, "categorical_features"),
                            ({"unpruned": "yes"}, "unpruned")]:
        with pytest.raises(ValueError, match=message):
            C45Classifier(**params).fit(X, y)
    with pytest.raises(ValueError, match="non-numeric"):
        C45Classifier(categorical_features=None).fit(np.array([["a"], ["b"]] * 3), [0, 1] * 3)


@pytest.mark.parametrize("params, message", [
    # the table's checks, before the data (fit(None, None) never reads X)
    ({"confidence_factor": 0}, r"C45Classifier: confidence_factor must be a float in "
                               r"\(0.0, 0.5\], got 0"),
    ({"min_objects": float("nan")}, r"min_objects must be a float >= 0.0, got nan"),
    ({"collapse": 1}, r"collapse must be a bool, got 1"),
    ({"n_folds": 2.0}, r"n_folds must be an int >= 2, got 2.0"),
    # True was accepted as a seed (numpy's default_rng(True)), -1 until REP drew with it
    ({"random_state": True}, r"random_state must be None or an int >= 0, got True"),
    ({"random_state": -1}, r"random_state must be None or an int >= 0, got -1"),
    # an array met ``in``: numpy's "truth value of an array is ambiguous"
    ({"missing_values": np.array(["error", "fractional"])}, r"missing_values must be one of"),
    # a scalar index was taken as one column (the other estimators refuse it)
    ({"categorical_features": 2}, r"categorical_features must be None, 'from_dtype' or column "
                                  r"indices, column names or a boolean mask, got 2"),
])
def test_parameters_are_checked_before_the_data(params, message):
    with pytest.raises(ValueError, match=message):
        C45Classifier(**params).fit(None, None)


@pytest.mark.parametrize("spec", [[2.5], [1.0, 2.0], np.ones((2, 2)), [1 + 0j], [0.0],
                                  [float("nan")], [float("inf")], [0.5]])
def test_categorical_features_of_floats_are_not_truncated_to_indices(spec):
    """categorical_features=[2.5] made column int(2.5) = 2 nominal; NaN raised "cannot convert
    float NaN to integer", inf an OverflowError."""
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=r"categorical_features must hold column indices "
                                         r"\(ints\), column names or a boolean mask"):
        C45Classifier(categorical_features=spec).fit(X, y)


@pytest.mark.parametrize("method", ["fit", "predict"])
def test_complex_columns_are_refused_not_truncated(method):
    """numpy's cast of X + 1j to float64 dropped the imaginary part with a ComplexWarning: the
    tree was grown on (or predicted) the real parts only."""
    X, y = load_iris(return_X_y=True)
    model = C45Classifier().fit(X, y)
    with pytest.raises(ValueError, match=r"column x0 holds complex numbers; C4.5 needs real "
                                         r"numbers"):
        if method == "fit":
            C45Classifier().fit(X + 1j, y)
        else:
            model.predict(X + 1j)


def test_huge_numbers_are_numbers():
    """min_objects=10**30 raised np.isfinite's TypeError (an int beyond int64 is an object to
    numpy); it is the float 1e30: no split has two branches that heavy, the tree is a leaf.
    n_folds=10**12 is unused without reduced-error pruning."""
    X, y = load_iris(return_X_y=True)
    assert C45Classifier(min_objects=10**30).fit(X, y).get_n_leaves() == 1
    C45Classifier(n_folds=10**12).fit(X, y)


def test_more_folds_than_rows_is_refused():
    """J48 -R -N 10**12 on 150 rows: "Can't have more folds than instances!". The folds were
    dealt by a loop over range(n_folds): 10**12 iterations."""
    X, y = load_iris(return_X_y=True)
    model = C45Classifier(reduced_error_pruning=True, n_folds=10**12)
    with pytest.raises(ValueError, match=r"n_folds=1000000000000 is more folds than the 150 "
                                         r"rows"):
        model.fit(X, y)
    assert C45Classifier(reduced_error_pruning=True, n_folds=150).fit(X, y).get_n_leaves() >= 1
    # one row is a root leaf whatever n_folds (docs/methods.md §2), at once
    one = C45Classifier(reduced_error_pruning=True, n_folds=10**12).fit(X[:1], y[:1])
    assert one.get_n_leaves() == 1


@parametrize_with_checks([C45Classifier()])
def test_scikit_learn_conventions(estimator, check):
    check(estimator)


def test_clone_and_params():
    model = C45Classifier(confidence_factor=0.1, binary_splits=True)
    assert clone(model).get_params() == model.get_params()


def test_java_number_formats():
    assert weka_decimal(0.6) == "0.6" and weka_decimal(4.95) == "4.95"
    assert weka_decimal(1 / 3) == "0.333333" and weka_decimal(-2.0) == "-2"
    assert java_double(48.0) == "48.0" and java_double(3.33) == "3.33"
    assert java_double(1e7) == "1.0E7"


def test_deep_chains_do_not_hit_the_recursion_limit():
    """C4.5 can grow a chain of n / 25 tests; pruning and printing recurse through it."""
    import sys

    X = np.arange(3000, dtype=float)[:, None]
    y = (np.arange(3000) // 25) % 2
    j48_text(C45Classifier().fit(X[:300], y[:300])).splitlines()  # imports and compiles first
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100)  # below the chain's depth
    try:
        model = C45Classifier().fit(X, y)
        text = j48_text(model)
        depth = model.tree_.max_depth
    finally:
        sys.setrecursionlimit(max(old, sys.getrecursionlimit()))
    assert model.get_depth() == depth >= 100
    assert text.count("\n") + 1 == 2 * (model.get_n_leaves() - 1)  # two lines per test


def _weather(n=300, missing_every=10, seed=0):
    """Three-valued nominal ``outlook`` and numeric ``temp``; the class is a rule of both."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"outlook": rng.choice(["sunny", "rain", "overcast"], n),
                      "temp": rng.normal(20, 5, n)})
    y = (((X.outlook == "sunny") & (X.temp > 20)) | (X.outlook == "overcast")).astype(int)
    X.loc[::missing_every, "outlook"] = None
    return X, y


def test_binary_view_chain_links_hold_the_weights_of_their_branches():
    """The binary view draws a multiway nominal test as a chain of code tests; each later
    link holds the rows of the branches still ahead of it, so its class weights are theirs
    (it held the whole test's before): every inner node's class weights are its children's."""
    X, y = _weather()
    model = C45Classifier().fit(X, y)
    tree = model.tree_
    assert model.c45_tree_.n_children[0] == 3  # a three-way test at the root
    weights = np.asarray(tree.weighted_value).reshape(tree.node_count, -1)
    chain = tree.children_right[0]
    assert tree.feature[chain] == tree.feature[0]  # the chain's second link
    for node in np.flatnonzero(tree.children_left >= 0):
        children = weights[tree.children_left[node]] + weights[tree.children_right[node]]
        np.testing.assert_allclose(weights[node], children, rtol=1e-12)


def _float32_nominal(n=400, seed=0):
    """A nominal float32 column ``v`` (0.1, 0.2, 0.7 in float32) that decides the class with
    a numeric column ``t``, and the same frame as float64 values read back from text."""
    rng = np.random.default_rng(seed)
    levels = np.array([0.1, 0.2, 0.7], dtype=np.float32)
    X = pd.DataFrame({"v": rng.choice(levels, n), "t": rng.normal(size=n)})
    y = ((X.v.to_numpy() == np.float32(0.2)) | (X.t.to_numpy() > 1)).astype(int)
    as_text = X.astype({"v": np.float64})
    as_text["v"] = [float(f"{v:.7g}") for v in as_text["v"]]  # 0.1, not 0.100000001490116
    return X, y, as_text


@pytest.mark.filterwarnings("ignore::treesmith.datasets.UnseenLevelWarning")
@pytest.mark.parametrize("as_category", [False, True])
def test_float32_nominal_values_match_their_float64_text(as_category, tmp_path):
    """A nominal column fitted as float32 stores float32 levels (0.10000000149011612); the
    same values given as float64 (a CSV read back, ``astype(float)``) are the same nominal
    values, compared in float32 (``category_precision_``), not unseen values spread over every
    branch. Model files keep it; a file without it (an older version) matches exactly."""
    import treesmith

    X, y, as_text = _float32_nominal()
    if as_category:
        X = X.assign(v=X.v.astype("category"))
    model = C45Classifier(categorical_features=["v"]).fit(X, y)
    assert model.category_precision_ == ["float32", None]
    expected = model.predict_proba(X)
    np.testing.assert_array_equal(model.predict_proba(as_text), expected)
    np.testing.assert_array_equal(model.predict_proba(as_text.to_numpy(dtype=object)),
                                  expected)
    treesmith.save(model, tmp_path / "c45.json")
    loaded = treesmith.load(tmp_path / "c45.json")
    np.testing.assert_array_equal(loaded.predict_proba(as_text), expected)
    del loaded.category_precision_  # as a model of an older version: exact matching
    unseen = loaded.predict_proba(as_text)
    assert not np.array_equal(unseen, expected)  # every v unseen: spread over its branches
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)


@pytest.mark.parametrize("binary_splits", [False, True])
def test_j48_text_and_arff_name_float32_nominal_values_as_the_exports_do(binary_splits,
                                                                         tmp_path):
    """j48_text printed a float32 nominal value as its float64 widening (v = 0.2000000029802
    3224) while export_text prints v = 0.2; both now print the value in its fitted
    precision, and write_arff labels the levels and cells the same way (the file J48 reads)."""
    from treesmith.c45.weka import write_arff

    X, y, _ = _float32_nominal()
    model = C45Classifier(categorical_features=["v"], binary_splits=binary_splits).fit(X, y)
    text = j48_text(model)
    assert "v = 0.2" in text and "000" not in text.split("t <=")[0], text
    write_arff(tmp_path / "d.arff", model, X, y)
    arff = (tmp_path / "d.arff").read_text()
    assert "@attribute 'v' {'0.1','0.2','0.7'}" in arff
    first = arff.split("@data\n")[1].splitlines()[0]
    assert first.split(",")[0] == f"'{float(X.v.iloc[0]):.7g}'"


@pytest.mark.filterwarnings("ignore::treesmith.datasets.UnseenLevelWarning")
def test_float32_nominal_values_a_new_value_is_still_unseen():
    """Rounding to the fitted precision does not make a new value seen: 0.3 is no level."""
    X, y, as_text = _float32_nominal()
    model = C45Classifier(categorical_features=["v"]).fit(X, y)
    row = as_text.iloc[:1].copy()
    row["v"] = 0.3
    missing = row.copy()
    missing["v"] = np.nan
    np.testing.assert_array_equal(model.predict_proba(row), model.predict_proba(missing))


def test_loaded_category_precision_is_checked(tmp_path):
    """A model file whose precision does not hold its levels (or names no float type) is
    refused on load."""
    import json

    import treesmith
    from treesmith.io import ModelFileError

    X, y, _ = _float32_nominal()
    model = C45Classifier(categorical_features=["v"]).fit(X, y)
    path = tmp_path / "c45.json"
    treesmith.save(model, path)
    document = json.loads(path.read_text())
    text = json.dumps(document)
    for bad in ('"float16"', '"float8"'):
        broken = tmp_path / "broken.json"
        broken.write_text(text.replace('"float32"', bad, 1))
        with pytest.raises(ModelFileError, match="category_precision_"):
            treesmith.load(broken)


def test_unseen_nominal_value_warns_and_is_treated_as_missing():
    """A nominal value never seen in training is treated as missing (down every branch), as
    J48 does, with an UnseenLevelWarning naming the column and the value, as the library's
    other estimators warn; a missing value does not warn."""
    from treesmith.datasets import UnseenLevelWarning

    X, y, _ = _float32_nominal()
    X = X.assign(v=X.v.map({np.float32(0.1): "a", np.float32(0.2): "b", np.float32(0.7): "c"}))
    model = C45Classifier().fit(X, y)
    new, missing = X.iloc[:2].copy(), X.iloc[:2].copy()
    new["v"] = ["z", "a"]
    missing["v"] = [None, "a"]
    with pytest.warns(UnseenLevelWarning, match=r"column 'v' has 1 value\(s\) not seen .*'z'"):
        unseen = model.predict_proba(new)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenLevelWarning)
        np.testing.assert_array_equal(model.predict_proba(missing), unseen)


def test_missing_values_error_names_an_unseen_value_as_unseen_not_missing():
    """With missing_values='error' a nominal value unseen in training was refused as "has
    missing values" (after a warning that C4.5 would treat it as missing): the error now
    names the column, the value and the training values, in predict and predict_lazy; a
    missing value is still refused as missing."""
    from treesmith import predict_lazy

    X = pd.DataFrame({"c": pd.Categorical(list("ab") * 10), "u": np.arange(20.0)})
    model = C45Classifier(missing_values="error").fit(X, [0, 1] * 10)
    unseen = r"column 'c' has 1 value\(s\) not seen at fit time: 'zz' \(training values: 'a', " \
             r"'b'\); with missing_values='error' C4\.5 refuses them"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=unseen):
            model.predict(pd.DataFrame({"c": ["zz"], "u": [1.0]}))
        with pytest.raises(ValueError, match=unseen):
            predict_lazy(model, lambda i, j: "zz" if j == 0 else 1.0, 1)
    with pytest.raises(ValueError, match=r"column 'c' has missing values and "
                                         r"missing_values='error'"):
        model.predict(pd.DataFrame({"c": [None], "u": [1.0]}))


def test_feature_names_present_at_fit_or_predict_only_are_warned_about_as_in_scikit_learn():
    """The other estimators warn (scikit-learn's wording); C4.5 said nothing."""
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    y = (frame["a"] > 0).astype(int)
    named = C45Classifier().fit(frame, y)
    with pytest.warns(UserWarning, match="X does not have valid feature names, but "
                                         "C45Classifier was fitted with feature names"):
        named.predict(frame.to_numpy())
    unnamed = C45Classifier().fit(frame.to_numpy(), y)
    with pytest.warns(UserWarning, match="X has feature names, but C45Classifier was fitted "
                                         "without feature names"):
        unnamed.predict(frame)


def test_feature_names_are_string_column_names_only_as_in_scikit_learn():
    """A frame with integer column names has no feature names (scikit-learn's rule), so a
    numpy X at predict is not warned about; C4.5 stored '0', '1' and warned. Mixed string and
    integer names are refused as scikit-learn refuses them."""
    import warnings

    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 2)))
    y = (frame[0] > 0).astype(int)
    model = C45Classifier().fit(frame, y)
    assert not hasattr(model, "feature_names_in_")
    assert not hasattr(SklearnTree().fit(frame, y), "feature_names_in_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(model.predict(frame.to_numpy()), model.predict(frame))
    mixed = frame.set_axis(["a", 1], axis=1)
    with pytest.raises(TypeError, match="Feature names are only supported if all input "
                                        "features have string names"):
        C45Classifier().fit(mixed, y)


def test_polars_frame_gives_the_tree_of_the_same_pandas_frame():
    """C45Classifier failed on any polars DataFrame (``'Float64' object has no attribute
    'kind'``) while the other estimators take polars. Now: String and Boolean columns are
    nominal from their dtype, an Enum keeps its declared levels in order (as a pandas category
    column does, unobserved ones as empty branches), nulls are missing values; the same tree,
    probabilities and feature names as from the same pandas frame."""
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(5)
    n = 300
    city = rng.choice(["Nice", "Lyon", "Paris", "Brest"], n).astype(object)
    size = rng.choice(["S", "L", "M"], n).astype(object)
    x = rng.normal(size=n)
    flag = rng.random(n) > 0.5
    y = np.where(np.isin(city, ["Nice", "Brest"]) ^ (x > 0.5), "yes", "no")
    y[size == "L"] = "maybe"
    city[::11] = None
    x[::7] = np.nan
    levels = ["S", "M", "L", "XL"]  # XL is never observed
    polars_frame = pl.DataFrame({
        "city": list(city), "size": pl.Series(list(size), dtype=pl.Enum(levels)),
        "x": [None if v != v else v for v in x], "flag": flag})
    pandas_frame = pd.DataFrame({"city": city, "size": pd.Categorical(size, categories=levels),
                                 "x": x, "flag": flag})
    from_polars = C45Classifier(min_objects=2).fit(polars_frame, y)
    from_pandas = C45Classifier(min_objects=2).fit(pandas_frame, y)
    assert from_polars.feature_names_in_.tolist() == ["city", "size", "x", "flag"]
    assert [c is not None for c in from_polars.categories_] == [True, True, False, True]
    assert from_polars.categories_ == from_pandas.categories_
    assert from_polars.categories_[1] == levels
    for name in ("attribute", "n_children", "threshold", "is_empty"):
        np.testing.assert_array_equal(getattr(from_polars.c45_tree_, name),
                                      getattr(from_pandas.c45_tree_, name))
    assert from_polars.c45_tree_.n_children.max() == 4  # the Enum's four levels, XL empty
    expected = from_pandas.predict_proba(pandas_frame)
    np.testing.assert_array_equal(from_polars.predict_proba(polars_frame), expected)
    np.testing.assert_array_equal(from_polars.predict_proba(pandas_frame), expected)
    np.testing.assert_array_equal(from_pandas.predict_proba(polars_frame), expected)


def test_score_checks_the_weights_as_fit_does():
    """ClassifierMixin.score (scikit-learn's accuracy_score) averaged with negative weights."""
    X, y = load_iris(return_X_y=True)
    model = C45Classifier().fit(X, y)
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative"):
        model.score(X, y, sample_weight=-np.ones(150))
    assert model.score(X, y, sample_weight=2.0) == model.score(X, y)
