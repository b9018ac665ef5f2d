"""The thread policy (treesmith._threading): n_jobs, the limits it honours, work thresholds."""

import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from sklearn.datasets import make_classification

import treesmith
from treesmith import _threading
from treesmith._threading import (
    PARALLEL_FIT_WORK,
    available_threads,
    fit_threads,
    map_in_threads,
    numba_threads,
    predict_threads,
    resolve_n_jobs,
    threads_per_task,
)
from treesmith.grower import TreeGrower

POOL = numba.config.NUMBA_NUM_THREADS


def run_python(code, **env):
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               env=dict(os.environ, **env), timeout=300, check=True)
    return completed.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("n_jobs", [0, 1.5, "2", True, np.bool_(False)])
def test_invalid_n_jobs_is_named(n_jobs):
    with pytest.raises(ValueError, match="n_jobs"):
        resolve_n_jobs(n_jobs)
    with pytest.raises(ValueError, match="n_jobs"):
        treesmith.DecisionTreeClassifier(n_jobs=n_jobs).fit([[0.0], [1.0]], [0, 1])


def test_n_jobs_has_scikit_learn_meaning():
    available = available_threads()
    assert resolve_n_jobs(None) == available
    assert resolve_n_jobs(-1) == available
    assert resolve_n_jobs(-2) == max(1, available - 1)
    assert resolve_n_jobs(-1000) == 1
    assert resolve_n_jobs(1) == 1
    assert resolve_n_jobs(np.int64(1)) == 1
    assert resolve_n_jobs(10 * POOL) == POOL  # Numba's pool size is a hard cap


def test_threadpoolctl_and_numba_limits_are_honoured():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="openmp"):
        assert available_threads() == 1
        assert resolve_n_jobs(None) == 1
        assert resolve_n_jobs(2) == min(2, POOL)  # explicit n_jobs wins over the environment
    with numba_threads(1):
        assert available_threads() == 1


def test_environment_limits_in_a_fresh_process():
    code = "import treesmith._threading as t; print(t.available_threads())"
    assert run_python(code, OMP_NUM_THREADS="1") == "1"
    assert run_python(code, NUMBA_NUM_THREADS="1") == "1"


def test_joblib_workers_get_their_share_of_the_cores():
    from joblib import Parallel, cpu_count, delayed

    shares = Parallel(n_jobs=2)(delayed(available_threads)() for _ in range(2))
    assert shares == [max(1, cpu_count() // 2)] * 2


def test_dask_worker_threads_share_the_cores():
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2,
                            dashboard_address=":0") as client:
        share = client.submit(available_threads, pure=False).result()
    assert share == max(1, min(_threading.process_cores(), _threading.openmp_limit()) // 2)


def test_small_work_runs_on_one_thread():
    assert fit_threads(None, 500, 40) == 1
    assert fit_threads(-1, 1000, 50) == 1
    assert predict_threads(None, 100) == 1
    big = fit_threads(None, 100 * PARALLEL_FIT_WORK, 1)
    assert big == available_threads()


def test_threads_per_task_goes_across_tasks_first():
    assert threads_per_task(8, 100) == (8, 1)
    assert threads_per_task(8, 2) == (2, 4)
    assert threads_per_task(2, 3) == (2, 1)
    assert threads_per_task(1, 5) == (1, 1)
    assert threads_per_task(0, 0) == (1, 1)


def test_numba_threads_restores_the_previous_count():
    before = numba.get_num_threads()
    with numba_threads(1) as n:
        assert n == 1 == numba.get_num_threads()
    assert numba.get_num_threads() == before
    with pytest.raises(RuntimeError):
        with numba_threads(1):
            raise RuntimeError
    assert numba.get_num_threads() == before


def test_map_in_threads_keeps_order():
    items = range(20)
    assert map_in_threads(lambda i: i * i, items, work=0) == [i * i for i in items]
    with numba_threads(POOL):
        got = map_in_threads(lambda i: i * i, items, work=100 * PARALLEL_FIT_WORK)
    assert got == [i * i for i in items]


def test_fit_sets_the_thread_count_by_work_and_restores_it(monkeypatch):
    seen = []
    grow = TreeGrower.grow

    def recording_grow(self, *args, **kwargs):
        seen.append(numba.get_num_threads())
        return grow(self, *args, **kwargs)

    monkeypatch.setattr(TreeGrower, "grow", recording_grow)
    before = numba.get_num_threads()
    X, y = make_classification(n_samples=500, n_features=40, random_state=0)
    treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    assert seen[-1] == 1  # a pima-sized fit never enters a parallel region
    assert numba.get_num_threads() == before
    X, y = make_classification(n_samples=20_000, n_features=40, random_state=0)
    treesmith.DecisionTreeClassifier(max_depth=2, random_state=0, n_jobs=-1).fit(X, y)
    assert seen[-1] == fit_threads(-1, 20_000, 40)
    treesmith.DecisionTreeClassifier(max_depth=2, random_state=0, n_jobs=1).fit(X, y)
    assert seen[-1] == 1
    assert numba.get_num_threads() == before


@pytest.mark.parametrize("Estimator", [treesmith.DecisionTreeClassifier,
                                       treesmith.DecisionTreeRegressor])
def test_trees_do_not_depend_on_n_jobs(Estimator):
    X, y = make_classification(n_samples=12_000, n_features=50, n_informative=10,
                               n_classes=3, random_state=0)
    X[::13, 4] = np.nan
    trees = [Estimator(random_state=0, n_jobs=n_jobs).fit(X, y).tree_ for n_jobs in (1, -1)]
    for name in ("feature", "threshold", "value", "children_left"):
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))
