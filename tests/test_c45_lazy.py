"""``predict_lazy`` of a C45Classifier follows C4.5 down every branch below a missing value
(treesmith/c45/_lazy.py): the same predictions and probabilities as predict / predict_proba,
the costs of path_costs, each value requested once."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_c45_costs import (
    COSTS,
    GROUPED_COSTS,
    GROUPED_PER_FEATURE,
    GROUPED_PER_TEST,
    GROUPS,
    PER_FEATURE,
    PER_TEST,
    ROWS,
    VISITED,
    hand_model,
    random_data,
    with_missing,
)

from treesmith.c45 import C45Classifier
from treesmith.c45._reference import visited_tests
from treesmith.metrics import path_costs, predict_lazy


class Recorder:
    """get_feature over a DataFrame that records every (row, feature) asked."""

    def __init__(self, frame: pd.DataFrame, batch: bool):
        self.frame, self.batch, self.asked, self.calls = frame, batch, [], 0

    def __call__(self, rows, j):
        self.calls += 1
        if self.batch:
            self.asked += [(int(i), j) for i in rows]
            return self.frame.iloc[rows, j].to_numpy()
        self.asked.append((rows, j))
        return self.frame.iat[rows, j]


def needed(model, frame) -> set:
    """(row, feature) pairs C4.5's prediction reads: the features of its visited tests."""
    tree = model.c45_tree_
    return {(i, int(tree.attribute[node])) for i, x in enumerate(model._encode_predict(frame))
            for node in visited_tests(tree, x)}


def check_lazy(model, frame, batch, **costs):
    record = Recorder(frame, batch)
    lazy = predict_lazy(model, record, frame.shape[0], batch=batch, **costs)
    np.testing.assert_array_equal(lazy.predictions, model.predict(frame))
    np.testing.assert_array_equal(lazy.probabilities, model.predict_proba(frame))
    np.testing.assert_array_equal(lazy.costs, path_costs(model, frame, **costs))
    np.testing.assert_array_equal(lazy.leaves, model.apply(frame))
    assert len(record.asked) == len(set(record.asked)) == lazy.n_requests  # each once
    assert set(record.asked) == needed(model, frame)  # exactly the values C4.5 reads
    return lazy, record


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("costs, groups, cost_model, expected", [
    (COSTS, None, "per_test", PER_TEST),
    (COSTS, None, "per_feature", PER_FEATURE),
    (GROUPED_COSTS, GROUPS, "per_test", GROUPED_PER_TEST),
    (GROUPED_COSTS, GROUPS, "per_feature", GROUPED_PER_FEATURE),
])
def test_hand_rows(batch, costs, groups, cost_model, expected):
    model = hand_model()
    lazy, record = check_lazy(model, ROWS, batch, feature_costs=costs, cost_groups=groups,
                              cost_model=cost_model)
    np.testing.assert_array_equal(lazy.costs, expected)
    assert lazy.n_requests == sum(len({model.c45_tree_.attribute[v] for v in nodes})
                                  for nodes in VISITED)  # c: one request for two tests
    np.testing.assert_allclose(lazy.probabilities[1], [5 / 9, 4 / 9], atol=1e-15)
    if batch:  # one call per test reached by rows that have not given its feature yet
        assert record.calls == 5  # a at 0; b at 1; c at 3; c at 7 (row 2); d at 9
    predictions, paid = lazy  # unpacks as before
    assert predictions is lazy.predictions and paid is lazy.costs


@pytest.mark.filterwarnings("ignore::treesmith.datasets.UnseenLevelWarning")
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([np.nan, -1.0, 0.0, 0.5, 1.0]),
                          st.sampled_from([None, "p", "q", "r", "unseen"]),
                          st.sampled_from([np.nan, 0.0, 1.0, 2.5]),
                          st.sampled_from([np.nan, -1.0, 0.0, 3.0])), min_size=1, max_size=8),
       st.booleans(), st.sampled_from(["per_test", "per_feature"]))
def test_any_rows_of_the_hand_tree(rows, batch, cost_model):
    """Whatever is missing or unseen, the lazy walk predicts as predict_proba, pays what
    path_costs says and asks exactly the values C4.5 reads, once each."""
    frame = pd.DataFrame(rows, columns=["a", "b", "c", "d"])
    check_lazy(hand_model(), frame, batch, feature_costs=GROUPED_COSTS, cost_groups=GROUPS,
               cost_model=cost_model)


@pytest.mark.filterwarnings("ignore::treesmith.datasets.UnseenLevelWarning")
def test_unseen_category_is_missing_as_in_predict():
    model = hand_model()
    frame = pd.DataFrame({"a": [0.0, 0.0], "b": ["new", "q"], "c": [0.0, 0.0],
                          "d": [1.0, 1.0]})
    lazy, _ = check_lazy(model, frame, True)
    assert lazy.costs[0] == 3 and lazy.costs[1] == 3  # both visit a, b, c (unit costs)


@pytest.mark.parametrize("seed, binary_splits, laplace", [(10, False, False),
                                                          (11, True, False),
                                                          (12, False, True)])
def test_random_data_with_missing_values(seed, binary_splits, laplace):
    X, y = random_data(seed, n=250)
    model = C45Classifier(binary_splits=binary_splits, laplace=laplace, min_objects=3).fit(X, y)
    rng = np.random.default_rng(seed)
    costs = rng.uniform(0.5, 5.0, size=5)
    costs[[0, 1]] = costs[0]
    for share in (0.1, 0.3):
        X_missing = with_missing(X, seed + 1, share)
        for batch, cost_model in ((True, "per_test"), (False, "per_feature")):
            check_lazy(model, X_missing, batch, feature_costs=costs,
                       cost_groups=[["x0", "x1"]], cost_model=cost_model)


def test_numeric_data_as_arrays():
    X, y = random_data(13, n=250, nominal=False)
    values = X.to_numpy()
    model = C45Classifier().fit(values, y)
    missing = values.copy()
    missing[np.random.default_rng(0).random(missing.shape) < 0.2] = np.nan
    lazy = predict_lazy(model, lambda rows, j: missing[rows, j], missing.shape[0], batch=True)
    np.testing.assert_array_equal(lazy.probabilities, model.predict_proba(missing))
    np.testing.assert_array_equal(lazy.costs, path_costs(model, missing))
    one_by_one = predict_lazy(model, lambda i, j: missing[i, j], missing.shape[0])
    np.testing.assert_array_equal(one_by_one.costs, lazy.costs)
    assert one_by_one.n_requests == lazy.n_requests


def test_bad_values_and_settings_are_refused_clearly():
    model = hand_model()
    with pytest.raises(ValueError, match=r"returned 1 values for 5 rows"):
        predict_lazy(model, lambda rows, j: [0.0], 5, batch=True)
    with pytest.raises(ValueError, match="column 'a' holds infinity"):
        predict_lazy(model, lambda i, j: np.inf, 2)
    X, y = random_data(14, n=120, nominal=False)
    strict = C45Classifier(missing_values="error").fit(X, y)
    with pytest.raises(ValueError, match="missing_values='error'"):
        predict_lazy(strict, lambda i, j: np.nan, 3)
    empty = predict_lazy(model, lambda i, j: 0.0, 0)
    assert empty.predictions.shape == (0,) and empty.costs.shape == (0,)
    assert empty.probabilities.shape == (0, 2) and empty.n_requests == 0
