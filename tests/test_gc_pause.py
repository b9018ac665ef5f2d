"""The garbage collector is paused during fit (compiles allocate a lot) and always restored."""

import gc
import threading

import numpy as np
import pytest

import treesmith
from treesmith import grower
from treesmith._gc import collector_paused

X = np.arange(40, dtype=float).reshape(20, 2)
y = np.arange(20) % 2


@pytest.fixture
def collector_enabled():
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    if not was_enabled:
        gc.disable()


def test_fit_pauses_the_collector_and_restores_it(monkeypatch, collector_enabled):
    seen = []
    grow = grower.TreeGrower.grow

    def recording_grow(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return grow(self, *args, **kwargs)

    monkeypatch.setattr(grower.TreeGrower, "grow", recording_grow)
    treesmith.DecisionTreeClassifier().fit(X, y)
    treesmith.DecisionTreeRegressor().fit(X, y.astype(float))
    assert seen == [False, False]
    assert gc.isenabled()


def test_a_collector_disabled_by_the_user_stays_disabled(collector_enabled):
    gc.disable()
    treesmith.DecisionTreeClassifier().fit(X, y)
    assert not gc.isenabled()


def test_the_collector_is_restored_when_fit_raises(collector_enabled):
    with pytest.raises(ValueError, match="max_depth"):
        treesmith.DecisionTreeClassifier(max_depth=-5).fit(X, y)
    assert gc.isenabled()


def test_overlapping_pauses_restore_the_collector_once_the_last_ends(collector_enabled):
    first_inside, second_inside, release_first = (threading.Event() for _ in range(3))
    states = {}

    def first():
        with collector_paused():
            first_inside.set()
            release_first.wait(5)
        states["after_first"] = gc.isenabled()  # the second pause is still running

    thread = threading.Thread(target=first)
    thread.start()
    first_inside.wait(5)
    with collector_paused():
        second_inside.set()
        release_first.set()
        thread.join(5)
        states["inside_second"] = gc.isenabled()
    assert states == {"after_first": False, "inside_second": False}
    assert gc.isenabled()
