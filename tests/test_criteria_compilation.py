"""Criteria are compiled on demand: import compiles (and loads) nothing, a fit only its criterion.

The import and first-fit checks run in a fresh interpreter, since this process has already
compiled whatever the other tests used. ``Dispatcher.signatures`` is empty until a function is
compiled *or* loaded from Numba's disk cache, so it sees both; the ``numba:compile`` events see
real compilations.
"""

import json
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest
from numba.core import event

from treesmith import DecisionTreeClassifier
from treesmith._dtypes import IMPURITY_FUNCTION_TYPE, IMPURITY_SIGNATURE
from treesmith.criteria import Criterion, Custom, Gini
from treesmith.criteria._compiled import ImpurityPointer
from treesmith.grower import impurity_pointer

_FRESH_PROCESS = textwrap.dedent("""
    import json
    import numpy as np
    from numba.core import event
    from numba.core.dispatcher import Dispatcher

    recorder = event.install_recorder("numba:compile").__enter__()  # records to the end

    import treesmith
    from treesmith.criteria import _impurity, regression

    def criteria_in_memory():
        return sorted(f"{module.__name__.rsplit('.', 1)[1]}.{name}"
                      for module in (_impurity, regression)
                      for name, value in vars(module).items()
                      if isinstance(value, Dispatcher) and value.signatures)

    import_compiles = [ev.data["dispatcher"].py_func.__qualname__
                       for _, ev in recorder.buffer if ev.is_start]
    report = {"import_compiles": import_compiles, "after_import": criteria_in_memory()}
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    treesmith.DecisionTreeClassifier().fit(X, y)
    report["after_gini_fit"] = criteria_in_memory()
    treesmith.criteria.Gini()(np.array([0.5, 0.5]))
    report["gini_overloads"] = len(_impurity.gini.signatures)
    treesmith.DecisionTreeClassifier(criterion="entropy").fit(X, y)
    report["after_entropy_fit"] = criteria_in_memory()
    print(json.dumps(report))
""")


@pytest.fixture(scope="module")
def fresh_process_report():
    result = subprocess.run([sys.executable, "-c", _FRESH_PROCESS], capture_output=True,
                            text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_import_compiles_and_loads_no_criterion(fresh_process_report):
    assert fresh_process_report["import_compiles"] == []
    assert fresh_process_report["after_import"] == []


def test_a_fit_compiles_or_loads_only_its_own_criterion(fresh_process_report):
    assert fresh_process_report["after_gini_fit"] == ["_impurity.gini"]
    assert fresh_process_report["after_entropy_fit"] == ["_impurity.entropy", "_impurity.gini"]


def test_python_calls_reuse_the_overload_the_kernels_use(fresh_process_report):
    assert fresh_process_report["gini_overloads"] == 1


def test_the_pointer_has_the_kernels_function_type():
    pointer = impurity_pointer(Gini().impurity_function())
    assert isinstance(pointer, ImpurityPointer)
    assert numba.typeof(pointer) == IMPURITY_FUNCTION_TYPE
    assert impurity_pointer(Gini().impurity_function()) is pointer
    assert pointer(np.array([0.5, 0.5]), np.zeros(1)) == pytest.approx(0.5)


def _python_gini(proportions, params):
    return 1.0 - np.sum(proportions * proportions)


@numba.njit("float64(float64[:], float64[:])")
def _gini_with_another_signature(proportions, params):
    return 1.0 - np.sum(proportions * proportions)


class _Returning(Criterion):
    """A user-written criterion whose impurity function is whatever it was given."""

    def __init__(self, function):
        self.function = function

    def impurity_function(self):
        return self.function


@pytest.mark.parametrize("function", [
    _python_gini,
    _gini_with_another_signature,
    numba.cfunc(IMPURITY_SIGNATURE)(_python_gini),
], ids=["python function", "dispatcher of another signature", "cfunc"])
def test_other_impurity_functions_still_grow_the_same_tree(function, real_dataset):
    X, y = real_dataset("iris")
    expected = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    tree = DecisionTreeClassifier(criterion=_Returning(function), random_state=0).fit(X, y).tree_
    np.testing.assert_array_equal(tree.feature, expected.feature)
    np.testing.assert_array_equal(tree.threshold, expected.threshold)


def _cube_impurity(proportions, alpha):
    return alpha * (1.0 - np.sum(proportions ** 3))


def test_a_custom_criterion_is_compiled_once_at_construction(real_dataset):
    X, y = real_dataset("iris")
    DecisionTreeClassifier().fit(X, y)  # the kernels, compiled or loaded beforehand
    criterion = Custom(_cube_impurity, alpha=2.0)
    with event.install_recorder("numba:compile") as recorder:
        model = DecisionTreeClassifier(criterion=criterion).fit(X, y)
    assert recorder.buffer == []
    assert impurity_pointer(criterion.impurity_function()).dispatcher \
        is criterion.impurity_function()
    assert criterion(np.array([0.5, 0.5])) == pytest.approx(2.0 * 0.75)
    assert model.score(X, y) > 0.9
