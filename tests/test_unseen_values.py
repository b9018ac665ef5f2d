"""The unseen categories a lazy prediction gathers for its warning (``categorical.UnseenValues``):
exact cell counts, at most ``MAX_UNSEEN_KEPT`` distinct values kept per column, the rest
counted and reported as "and N more"."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import treesmith
from treesmith import categorical
from treesmith.categorical import FittedColumn, UnseenValues, unseen_report

COLUMN = FittedColumn(np.array(["Lyon", "Nice", "Paris"], dtype=object), None)


class _Named:
    feature_names_in_ = np.array(["city"], dtype=object)


def _add(unseen, cells):
    cells = np.asarray(cells, dtype=object)
    unseen.add(0, cells, np.ones(cells.shape[0], dtype=bool), COLUMN)


def _message(unseen) -> str:
    with pytest.warns(treesmith.UnseenLevelWarning) as caught:
        unseen.warn(".")
    assert len(caught) == 1
    return str(caught[0].message)


def test_values_are_kept_up_to_the_limit_and_the_rest_counted(monkeypatch):
    monkeypatch.setattr(categorical, "MAX_UNSEEN_KEPT", 3)
    unseen = UnseenValues(_Named())
    _add(unseen, ["b", "a", "b"])
    _add(unseen, ["c", "d", "a", "d", "e"])  # d and e come after the third distinct value
    _add(unseen, ["b", "e", "f"])
    found = unseen._found[0]
    assert list(found.values) == ["b", "a", "c"]  # in order of arrival
    assert found.n_cells == 11
    assert found.n_more_cells == 5  # d, d, e of the second call, e, f of the third
    message = _message(unseen)
    assert message == ("column 'city' has 11 value(s) not seen at fit time: 'a', 'b', 'c' "
                       "and 5 more (training categories: 'Lyon', 'Nice', 'Paris').")


def test_memory_is_bounded_by_the_distinct_values_kept():
    unseen = UnseenValues(_Named())
    for start in range(0, 5000, 500):
        _add(unseen, [f"v{i}" for i in range(start, start + 500)] * 2)
    found = unseen._found[0]
    assert len(found.values) == categorical.MAX_UNSEEN_KEPT == 1024
    assert found.n_cells == 10_000
    assert found.n_more_cells == 2 * (5000 - 1024)
    assert f"and {2 * (5000 - 1024)} more" in _message(unseen)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["x", "y", "z", "w", 3, 2.5]), max_size=12),
                min_size=1, max_size=5))
def test_below_the_limit_the_text_is_predicts(calls):
    """Without truncation the warning is word for word ``unseen_report``'s on all the cells
    (what ``predict`` says about the same cells)."""
    unseen = UnseenValues(_Named())
    for cells in calls:
        _add(unseen, cells)
    everything = [cell for cells in calls for cell in cells]
    if not everything:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            unseen.warn(".")
        return
    column = np.empty(len(everything), dtype=object)
    column[:] = everything
    expected = unseen_report("'city'", column, np.ones(len(everything), dtype=bool),
                             COLUMN.categories)
    assert _message(unseen) == expected + "."
    assert "more" not in expected


@pytest.mark.parametrize("batch", [False, True])
def test_predict_lazy_says_how_many_more(monkeypatch, batch):
    monkeypatch.setattr(categorical, "MAX_UNSEEN_KEPT", 2)
    rng = np.random.default_rng(0)
    city = rng.choice(["Lyon", "Nice", "Paris"], 120)
    x = rng.normal(size=120)
    X = pd.DataFrame({"city": pd.Categorical(city), "x": x})
    y = (city == "Nice").astype(int)
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    new = pd.DataFrame({"city": ["Rome", "Oslo", "Rome", "Bern", "Kyiv", "Bern", "Lyon"],
                        "x": np.zeros(7)})
    get = (lambda rows, j: new.iloc[rows, j].to_numpy()) if batch else \
        (lambda row, j: new.iloc[row, j])
    with pytest.warns(treesmith.UnseenLevelWarning) as caught:
        result = treesmith.predict_lazy(model, get, len(new), batch=batch)
    message = str(caught[0].message)
    # 6 unseen cells; the two first distinct values kept (Rome, Oslo), Bern x2 and Kyiv counted
    assert "column 'city' has 6 value(s) not seen at fit time: 'Oslo', 'Rome' and 3 more" \
        in message
    with pytest.warns(treesmith.UnseenLevelWarning):
        np.testing.assert_array_equal(result.predictions, model.predict(new))


def test_numpy_scalars_are_shown_as_the_values_they_hold():
    """A bool column's categories are numpy bools: the warning listed them as
    'np.False_, np.True_' (numpy 2's repr) where the exports write False, True (review 15b)."""
    model = treesmith.DecisionTreeClassifier().fit(
        pd.DataFrame({"b": [True, False, True, False]}), [0, 1, 0, 1])
    with pytest.warns(treesmith.UnseenLevelWarning,
                      match=r"not seen at fit time: 2, 'x' \(training categories: False, True\)"):
        model.predict(pd.DataFrame({"b": pd.Series(["x", np.int64(2)], dtype=object)}))
