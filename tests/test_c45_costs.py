"""The cost of a C4.5 prediction: the tests it evaluates, every branch below a missing value
(treesmith/c45/_costs.py, and the metrics, exports and compare that report it)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treesmith import compare
from treesmith.c45 import C45Classifier, C45Tree
from treesmith.c45._costs import visit_costs
from treesmith.c45._reference import visited_tests, weighted_depth
from treesmith.costs import node_path_costs, path_cost
from treesmith.export import export_text
from treesmith.metrics import expected_cost, expected_depth, max_cost, path_costs

NAN = np.nan
COSTS = {"a": 1.0, "b": 2.0, "c": 4.0, "d": 8.0}
GROUPED_COSTS = {"a": 1.0, "b": 2.0, "c": 4.0, "d": 4.0}  # c and d: one acquisition
GROUPS = [["c", "d"]]


def hand_tree() -> C45Tree:
    """a <= 0.5 (5 : 4)
       ├─ b (3-way nominal, 3 : 2 : 0)
       │   ├─ p: leaf [3, 0]
       │   ├─ q: c <= 1 (1 : 1) → leaf [1, 0] | leaf [0, 1]
       │   └─ r: empty (grown from no objects; answers with b's node [4, 1])
       └─ c <= 2 (2 : 2)
           ├─ leaf [0, 2]
           └─ d <= 0 (1 : 1) → leaf [1, 0] | leaf [0, 1]
    Nodes in pre-order: 0 a, 1 b, 2, 3 c, 4, 5, 6 empty, 7 c, 8, 9 d, 10, 11."""
    tree = C45Tree(
        4, 2,
        attribute=np.array([0, 1, -1, 2, -1, -1, -1, 2, -1, 3, -1, -1]),
        kind=np.array([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        threshold=np.array([0.5, NAN, NAN, 1.0, NAN, NAN, NAN, 2.0, NAN, 0.0, NAN, NAN]),
        child_start=np.array([0, 2, 5, 5, 7, 7, 7, 7, 9, 9, 11, 11]),
        n_children=np.array([2, 3, 0, 2, 0, 0, 0, 2, 0, 2, 0, 0]),
        children=np.array([1, 7, 2, 3, 6, 4, 5, 8, 9, 10, 11]),
        class_weight=np.array([[5, 4], [4, 1], [3, 0], [1, 1], [1, 0], [0, 1], [0, 0],
                               [1, 3], [0, 2], [1, 1], [1, 0], [0, 1]], dtype=float),
        branch_weight=np.array([5, 4, 3, 2, 0, 1, 1, 2, 2, 1, 1], dtype=float),
        is_empty=np.arange(12) == 6,
        depth=np.array([0, 1, 2, 2, 3, 3, 2, 1, 2, 2, 3, 3]),
    )
    tree.validate()
    return tree


def hand_model() -> C45Classifier:
    """A C45Classifier holding :func:`hand_tree`, as a model file would load it."""
    model = C45Classifier()
    model.c45_tree_ = hand_tree()
    model.categories_ = [None, ["p", "q", "r"], None, None]
    model.classes_ = np.array(["no", "yes"])
    model.n_classes_ = 2
    model.n_features_in_ = 4
    model.feature_names_in_ = np.array(["a", "b", "c", "d"], dtype=object)
    model._check_loaded_attributes()
    return model


# The rows, their visited tests and what they cost, worked out by hand on the tree above.
ROWS = pd.DataFrame({"a": [0.0, NAN, 1.0, 0.0, NAN],
                     "b": ["q", None, None, "r", None],
                     "c": [0.0, 3.0, NAN, 5.0, NAN],
                     "d": [7.0, NAN, -1.0, 7.0, NAN]})
VISITED = [[0, 1, 3],        # a known → b = q → c <= 1: one path
           [0, 1, 3, 7, 9],  # a missing: both branches; b missing: p and q; d missing
           [0, 7, 9],        # c missing: leaf 8 and d's test
           [0, 1],           # b = r: an empty branch, the answer is b's node
           [0, 1, 3, 7, 9]]  # everything missing: every test
PER_TEST = [1 + 2 + 4, 1 + 2 + 4 + 4 + 8, 1 + 4 + 8, 1 + 2, 1 + 2 + 4 + 4 + 8]  # c twice
PER_FEATURE = [7, 1 + 2 + 4 + 8, 13, 3, 15]                                    # c once
GROUPED_PER_TEST = [7, 1 + 2 + 4 + 4 + 4, 1 + 4 + 4, 3, 15]
GROUPED_PER_FEATURE = [7, 1 + 2 + 4, 1 + 4, 3, 7]                            # {c, d} once
# depth: the ends of the row's fractions, weighted (a: 5/9 left, 4/9 right; b: 3/5, 2/5)
DEPTH = [3.0, (3 * 2 + 2 * 3 + 2 * 3 + 2 * 3) / 9, 0.5 * 2 + 0.5 * 3, 2.0,
         (3 * 2 + 1 * 3 + 1 * 3 + 2 * 2 + 1 * 3 + 1 * 3) / 9]
PROBA_ROW_1 = [5 / 9, 4 / 9]  # leaves 2 (3/9), 5 (2/9), 10 (2/9), 11 (2/9)


def test_the_visited_tests_of_the_hand_rows():
    model = hand_model()
    encoded = model._encode_predict(ROWS)
    assert [visited_tests(model.c45_tree_, x) for x in encoded] == VISITED


@pytest.mark.parametrize("costs, groups, cost_model, expected", [
    (COSTS, None, "per_test", PER_TEST),
    (COSTS, None, "per_feature", PER_FEATURE),
    (GROUPED_COSTS, GROUPS, "per_test", GROUPED_PER_TEST),
    (GROUPED_COSTS, GROUPS, "per_feature", GROUPED_PER_FEATURE),
])
def test_hand_costs_under_both_cost_models_and_cost_groups(costs, groups, cost_model,
                                                           expected):
    model = hand_model()
    cost = path_costs(model, ROWS, costs, groups, cost_model)
    np.testing.assert_array_equal(cost, expected)
    assert expected_cost(model, ROWS, feature_costs=costs, cost_groups=groups,
                         cost_model=cost_model) == pytest.approx(np.mean(expected), abs=1e-12)
    weights = np.array([1.0, 2.0, 0.0, 1.0, 4.0])
    assert expected_cost(model, ROWS, weights, costs, groups, cost_model) == \
        pytest.approx(weights @ expected / weights.sum(), abs=1e-12)
    assert max_cost(model, ROWS, costs, groups, cost_model) == max(expected)


def test_hand_depth_is_the_weighted_depth_of_the_branch_ends():
    model = hand_model()
    encoded = model._encode_predict(ROWS)
    np.testing.assert_allclose([weighted_depth(model.c45_tree_, x) for x in encoded], DEPTH,
                               rtol=0, atol=1e-15)
    visits = visit_costs(model.c45_tree_, encoded, np.ones(4), np.arange(4))
    np.testing.assert_allclose(visits.depth, DEPTH, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(visits.n_tests, [len(v) for v in VISITED])
    np.testing.assert_array_equal(visits.cost, visits.n_tests)  # unit costs, per_test
    assert expected_depth(model, ROWS) == pytest.approx(np.mean(DEPTH), abs=1e-12)
    np.testing.assert_allclose(model.predict_proba(ROWS)[1], PROBA_ROW_1, atol=1e-15)


def test_worst_case_without_x_is_over_complete_examples_paths():
    """max_cost(X=None) is over the tree's root-to-leaf paths (complete examples: 1 + 4 + 8
    on the right); a row with missing values can cost more (19, everything missing)."""
    model = hand_model()
    assert max_cost(model, None, COSTS) == 13.0
    assert max_cost(model, None, COSTS, cost_model="per_feature") == 13.0
    assert max_cost(model, ROWS, COSTS) == 19.0


def test_a_multiway_test_is_one_test_not_the_chain_of_the_binary_view():
    """tree_ draws the 3-way test on b as b <= 0.5, then b <= 1.5: the second link repeats
    the first's test. Before, per_test charged both (row 0 cost 1 + 2 + 2 + 4 = 9 on tree_);
    C4.5 evaluates one test (7)."""
    model = hand_model()
    view = model.tree_
    repeated = model.c45_tree_.binary_repeated_tests()
    assert repeated.shape == (view.node_count,)
    (link,) = np.flatnonzero(repeated)
    assert view.feature[link] == 1 and view.threshold[link] == 1.5
    costs = np.array(list(COSTS.values()))
    leaf = model.apply(ROWS.iloc[[0]])
    assert node_path_costs(view, costs)[leaf] == 9.0  # the chain's figure
    assert node_path_costs(view, costs, repeated_test=repeated)[leaf] == 7.0
    assert node_path_costs(view, costs, cost_model="per_feature")[leaf] == 7.0
    with pytest.raises(ValueError, match="repeated_test must have one entry per node"):
        node_path_costs(view, costs, repeated_test=repeated[:-1])


def test_export_text_and_compare_report_the_same_cost():
    model = hand_model()
    rules = export_text(model, feature_costs=list(COSTS.values()), rules=True).splitlines()
    costs_shown = sorted(float(line.split("[cost ")[1].rstrip("]")) for line in rules
                         if "[cost " in line)
    # one rule per leaf of tree_ (b's "r" branch is empty): a, b; a, b, c (twice); a, c;
    # a, c, d (twice): the chain drawing b's 3-way test is charged once
    assert costs_shown == sorted([3.0, 3.0, 7.0, 7.0, 5.0, 13.0, 13.0])
    unit = path_costs(model, ROWS)
    assert compare.path_cost(model, ROWS) == pytest.approx(unit.mean(), abs=1e-12)
    assert compare.expected_cost(model, ROWS) == pytest.approx(unit.mean(), abs=1e-12)
    assert compare.path_cost(model, ROWS, list(COSTS.values())) == \
        pytest.approx(np.mean(PER_TEST), abs=1e-12)


def test_cost_parameters_are_validated_as_for_every_tree():
    model = hand_model()
    with pytest.raises(ValueError, match="feature_costs must be non-negative"):
        path_costs(model, ROWS, {"a": -1.0})
    with pytest.raises(ValueError, match="one cost per column"):
        path_costs(model, ROWS, [1.0, 2.0])
    with pytest.raises(ValueError, match="no feature is named 'z'"):
        path_costs(model, ROWS, {"z": 1.0})
    with pytest.raises(ValueError, match="cost_groups must be disjoint"):
        path_costs(model, ROWS, None, [["a", "b"], ["b"]])
    with pytest.raises(ValueError, match="cost_model must be one of"):
        path_costs(model, ROWS, None, None, "per_row")
    with pytest.raises(ValueError, match="X has no rows"):
        expected_cost(model, ROWS.iloc[:0])
    tree, encoded = model.c45_tree_, model._encode_predict(ROWS)
    with pytest.raises(ValueError, match="feature_cost must have one entry per column"):
        visit_costs(tree, encoded, np.ones(3), np.arange(4))
    with pytest.raises(ValueError, match="X must have 4 columns"):
        visit_costs(tree, encoded[:, :2], np.ones(4), np.arange(4))
    with pytest.raises(ValueError, match="cost_model must be"):
        visit_costs(tree, encoded, np.ones(4), np.arange(4), "per_row")


# -- fitted trees: the kernel against the definition, complete rows against the old figures ---
def random_data(seed: int, n: int = 300, nominal: bool = True):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n),
                          "x2": rng.integers(0, 4, size=n).astype(float)})
    if nominal:
        frame["n0"] = rng.choice(list("abcde"), size=n)
        frame["n1"] = rng.choice(["u", "v", "w"], size=n)
    score = frame.x0 + 0.8 * (frame.x2 > 1) + rng.normal(scale=0.6, size=n)
    if nominal:
        score += frame.n0.isin(["a", "b"]) - 0.7 * (frame.n1 == "w")
    y = np.where(score > 0.5, "hi", np.where(score < -0.5, "lo", "mid"))
    return frame, y


def with_missing(frame: pd.DataFrame, seed: int, share: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return frame.astype(object).mask(rng.random(frame.shape) < share)


def reference_costs(model, X, costs, groups, cost_model):
    tree = model.c45_tree_
    return np.array([path_cost(tree.attribute[visited_tests(tree, x)], costs, groups,
                               cost_model) for x in model._encode_predict(X)])


@pytest.mark.parametrize("seed, binary_splits", [(0, False), (1, True), (2, False)])
def test_costs_are_path_cost_of_the_visited_tests_on_random_data(seed, binary_splits):
    X, y = random_data(seed)
    model = C45Classifier(binary_splits=binary_splits, min_objects=3).fit(X, y)
    assert np.any(model.c45_tree_.kind[model.c45_tree_.attribute >= 0] != 0)  # nominal tests
    rng = np.random.default_rng(seed)
    costs = rng.uniform(0.5, 5.0, size=5)
    costs[[0, 1]] = costs[0]  # x0 and x1: one acquisition
    groups = np.array([0, 0, 1, 2, 3])
    X_missing = with_missing(X, seed, rng.uniform(0.1, 0.3))
    for cost_model in ("per_test", "per_feature"):
        for setting in ((costs, groups), (costs, None)):
            expected = reference_costs(model, X_missing, *setting, cost_model)
            np.testing.assert_array_equal(
                path_costs(model, X_missing, *setting, cost_model), expected)
    visits = visit_costs(model.c45_tree_, model._encode_predict(X_missing), costs, groups)
    np.testing.assert_allclose(visits.depth, [weighted_depth(model.c45_tree_, x) for x in
                                              model._encode_predict(X_missing)],
                               rtol=1e-12, atol=0)
    assert expected_depth(model, X_missing) == pytest.approx(visits.depth.mean(), abs=1e-12)
    # a row's cost only grows when values go missing (its visited tests are a superset)
    complete = path_costs(model, X, costs, groups, "per_feature")
    assert np.all(path_costs(model, X_missing, costs, groups, "per_feature") >= complete)


@pytest.mark.parametrize("seed", [3, 4])
def test_complete_rows_give_the_figures_they_gave_on_tree_(seed):
    """Rows without a missing value: per_feature exactly the binary view's path cost (as
    before); per_test the binary view's with each multiway test charged once; on a numeric
    tree both exactly the old figures, and expected_depth the old decision-path depth."""
    costs = np.array([1.5, 2.0, 0.25, 3.0, 7.0])
    X, y = random_data(seed)
    model = C45Classifier().fit(X, y)
    leaves = model.apply(X)
    repeated = model.c45_tree_.binary_repeated_tests()
    np.testing.assert_array_equal(path_costs(model, X, costs, cost_model="per_feature"),
                                  node_path_costs(model.tree_, costs, None,
                                                  "per_feature")[leaves])
    np.testing.assert_array_equal(path_costs(model, X, costs),
                                  node_path_costs(model.tree_, costs,
                                                  repeated_test=repeated)[leaves])
    depth = model.c45_tree_.depth  # C4.5's depth of the leaf reached
    np.testing.assert_array_equal(
        visit_costs(model.c45_tree_, model._encode_predict(X), costs,
                    np.arange(5)).depth,
        node_path_costs(model.tree_, np.ones(5), repeated_test=repeated)[leaves])
    assert depth.max() == model.get_depth()

    numeric = C45Classifier().fit(X[["x0", "x1", "x2"]], y)
    X_numeric = X[["x0", "x1", "x2"]]
    assert not numeric.c45_tree_.binary_repeated_tests().any()
    old_leaf_cost = node_path_costs(numeric.tree_, costs[:3])  # the code before this change
    for cost_model in ("per_test", "per_feature"):
        np.testing.assert_array_equal(
            path_costs(numeric, X_numeric, costs[:3], cost_model=cost_model),
            node_path_costs(numeric.tree_, costs[:3], None, cost_model)[
                numeric.apply(X_numeric)])
    assert max_cost(numeric, None, costs[:3]) == old_leaf_cost[
        numeric.tree_.children_left == -1].max()
    paths = numeric.decision_path(X_numeric)
    assert expected_depth(numeric, X_numeric) == pytest.approx(
        np.mean(np.diff(paths.indptr) - 1), abs=1e-12)


@pytest.mark.filterwarnings("ignore::treesmith.datasets.UnseenLevelWarning")
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([NAN, -1.0, 0.0, 0.5, 1.0]),
                          st.sampled_from([None, "p", "q", "r", "unseen"]),
                          st.sampled_from([NAN, 0.0, 1.0, 2.5]),
                          st.sampled_from([NAN, -1.0, 0.0, 3.0])), min_size=1, max_size=8),
       st.sampled_from(["per_test", "per_feature"]))
def test_kernel_matches_the_definition_on_any_rows(rows, cost_model):
    """Any rows of the hand tree (missing, unseen categories): the compiled walk's cost is
    path_cost of the visited tests, its tests their number."""
    model = hand_model()
    X = pd.DataFrame(rows, columns=["a", "b", "c", "d"])
    costs = np.array(list(GROUPED_COSTS.values()))
    groups = np.array([0, 1, 2, 2])
    np.testing.assert_array_equal(path_costs(model, X, costs, groups, cost_model),
                                  reference_costs(model, X, costs, groups, cost_model))
    visits = visit_costs(model.c45_tree_, model._encode_predict(X), costs, groups)
    np.testing.assert_array_equal(
        visits.n_tests, [len(visited_tests(model.c45_tree_, x))
                         for x in model._encode_predict(X)])
    np.testing.assert_allclose(visits.depth, [weighted_depth(model.c45_tree_, x)
                                              for x in model._encode_predict(X)], atol=1e-14)
    assert np.all((visits.depth >= 2) & (visits.depth <= 3))
