"""Calls of compiled kernels through their overloads' entry points (``_kernels/calls.py``).

A fingerprint must be at least as fine as Numba's type: two arguments with one fingerprint
have one type, so the entry point remembered for one is the right one for the other. The
growth kernel called this way must return what the dispatcher returns, bit for bit.
"""

from collections import namedtuple

import numba
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, make_classification, make_regression

import treesmith
from treesmith import grower
from treesmith._kernels.calls import KernelCall, fingerprint, kernel_call, record_type
from treesmith._kernels.pointers import impurity_pointer
from treesmith.criteria._impurity import gini

Pair = namedtuple("Pair", ["values", "scale"])


@numba.njit(cache=False)
def _weighted_sum(pair, offset):
    total = offset
    for i in range(pair.values.shape[0]):
        total += pair.values[i] * pair.scale
    return total


def _values():
    """Arguments of many Numba types: layouts, mutability, dtypes, scalars, records."""
    matrix = np.arange(12.0).reshape(3, 4)
    read_only = np.arange(3.0)
    read_only.flags.writeable = False
    return [matrix, np.asfortranarray(matrix), matrix[:, ::2], matrix[0], read_only,
            np.arange(3, dtype=np.int64), np.arange(3, dtype=np.uint8), np.zeros((1, 1)),
            1, 2**40, 2**63 - 1, 1.5, True, np.float64(1.0), np.int64(3), np.bool_(True),
            Pair(np.arange(3.0), 2.0), Pair(read_only, 2), (np.arange(2.0), np.arange(2)),
            impurity_pointer(gini)]


def test_one_fingerprint_means_one_numba_type():
    values = _values()
    by_fingerprint = {}
    for value in values:
        key = fingerprint(value)
        assert key is not None
        by_fingerprint.setdefault(key, set()).add(numba.typeof(value))
    assert all(len(types) == 1 for types in by_fingerprint.values())
    # and the types the fingerprints tell apart are told apart
    layouts = [fingerprint(v) for v in values[:5]]
    assert len(set(layouts)) == 5


@pytest.mark.parametrize("value", [[1.0, 2.0], 2**64 - 1, 2**70, object(), "text",
                                   np.ma.masked_array([1.0])])
def test_values_without_a_fingerprint(value):
    assert fingerprint(value) is None


@pytest.mark.parametrize("index", range(len(_values())))
def test_record_type_is_numbas_type(index):
    value = _values()[index]
    assert record_type(value) == numba.typeof(value)
    assert record_type(value) == numba.typeof(value)  # memoised: the same again


def test_a_kernel_call_picks_the_overload_of_each_fingerprint():
    call = KernelCall(_weighted_sum)
    read_only = np.arange(4.0)
    read_only.flags.writeable = False
    arguments = [(Pair(np.arange(4.0), 2.0), 1.0), (Pair(np.arange(4), 2), 1),
                 (Pair(read_only, 0.5), 0.0), (Pair(np.arange(8.0)[::2], 1.0), 1.0)]
    for _ in range(3):  # first calls through the dispatcher, later ones through entry points
        for args in arguments:
            assert call(*args) == _weighted_sum.py_func(*args)
    assert len(call._entries) == len(arguments)
    assert set(call._entries.values()) == {compiled.entry_point
                                           for compiled in _weighted_sum.overloads.values()}


def test_a_kernel_call_without_fingerprint_goes_through_the_dispatcher():
    call = KernelCall(_weighted_sum)
    with pytest.raises(numba.core.errors.TypingError):
        call(Pair([1.0, 2.0], 1.0), 0.0)  # a list field: the dispatcher's own error
    with pytest.raises(numba.core.errors.TypingError):
        call(Pair(np.arange(2.0), "x"), 0.0)  # a fingerprint, but no overload can be typed
    assert call(Pair(np.arange(2.0), 1.0), 1) == 2.0  # a new fingerprint: compiled now


def test_kernels_without_a_python_entry_are_not_wrapped():
    from treesmith._kernels.growth import no_heap_pop

    assert kernel_call(no_heap_pop) is no_heap_pop  # a pointer kernel: no CPython wrapper
    assert kernel_call(_weighted_sum.py_func) is _weighted_sum.py_func  # NUMBA_DISABLE_JIT
    assert isinstance(kernel_call(_weighted_sum), KernelCall)


def _fits():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[::7, 1] = np.nan
    X_syn, y_syn = make_classification(n_samples=600, n_features=6, random_state=0)
    X_reg, y_reg = make_regression(n_samples=300, n_features=4, random_state=0)
    frame = pd.DataFrame(X[:, :2], columns=["a", "b"])
    frame["c"] = pd.Categorical(np.array(list("uvwxyz"))[2 * y + np.arange(150) % 2])
    weight = np.random.default_rng(0).choice([0.5, 1.0, 3.0], size=600)
    return [
        lambda: treesmith.DecisionTreeClassifier().fit(X, y),
        lambda: treesmith.DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=5).fit(
            X, y),
        lambda: treesmith.DecisionTreeClassifier(max_features=2, random_state=0).fit(
            X_syn, y_syn, sample_weight=weight),
        lambda: treesmith.DecisionTreeRegressor(max_depth=6).fit(X_reg, y_reg),
        lambda: treesmith.DecisionTreeClassifier().fit(frame, y),
        lambda: treesmith.DecisionTreeClassifier(monotonic_cst=[1, 0, 0, 0, 0, -1]).fit(
            X_syn, y_syn),
        lambda: treesmith.ensemble.RandomForestClassifier(5, random_state=0).fit(X, y),
    ]


def _arrays(model):
    trees = [member.tree_ for member in getattr(model, "estimators_", [model])]
    return [tree.to_arrays() for tree in trees]


@pytest.mark.parametrize("case", range(len(_fits())))
def test_trees_grown_through_entry_points_are_the_dispatchers_trees(case, monkeypatch):
    fit = _fits()[case]
    assert isinstance(grower.grow, KernelCall)
    through_entry_points = [fit() for _ in range(2)][-1]  # the second fit skips typing
    monkeypatch.setattr(grower, "grow", grower.grow.kernel)
    through_dispatcher = fit()
    for ours, theirs in zip(_arrays(through_entry_points), _arrays(through_dispatcher),
                            strict=True):
        for name in ours:
            np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)
