"""learn_parameters on a real dask.distributed LocalCluster (2 worker processes): the same result
as joblib, also when a worker is killed in the middle of the search."""

import os
import signal
import sys
import time

import numpy as np
import pytest
from sklearn.datasets import load_wine

import treesmith
from treesmith.criteria import Tsallis
from treesmith.model_selection import Exact, learn_parameters, split_instances

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")
# The workers import treesmith, not this test module: ship its functions by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


@pytest.fixture(scope="module")
def instances():
    X, y = load_wine(return_X_y=True)
    return split_instances(X, y, n_splits=3, test_size=0.3, random_state=2)


def slow_error(model, X, y):
    """The error rate, slowly: keeps tasks in flight long enough to kill a worker under them."""
    time.sleep(0.15)
    return float(np.mean(model.predict(X) != y))


def test_dask_result_equals_joblib(client, instances):
    estimator = treesmith.DecisionTreeClassifier(criterion=Tsallis(), max_depth=4, random_state=0)
    space = {"criterion__alpha": [0.5, 2.0, 3.0], "criterion__beta": [1, 2], "ccp_alpha": Exact()}
    on_joblib = learn_parameters(estimator, space, instances, n_jobs=2)
    seen = []
    on_dask = learn_parameters(estimator, space, instances, backend="dask", scheduler=client,
                               progress=lambda done, total: seen.append((done, total)))
    assert on_dask.values == on_joblib.values
    np.testing.assert_array_equal(on_dask.losses, on_joblib.losses)
    assert on_dask.best_params == on_joblib.best_params
    assert seen[-1][0] == seen[-1][1] == len(seen)
    # The scheduler address works as well as the client object (a Client is opened and closed).
    by_address = learn_parameters(estimator, {"criterion__beta": [1, 2]}, instances,
                                  backend="dask", scheduler=client.scheduler.address)
    np.testing.assert_array_equal(
        by_address.losses,
        learn_parameters(estimator, {"criterion__beta": [1, 2]}, instances).losses)


def test_a_killed_worker_does_not_change_the_result(client, instances):
    estimator = treesmith.DecisionTreeClassifier(max_depth=3, random_state=0)
    space = {"max_depth": [1, 2, 3, 4], "min_samples_leaf": [1, 5, 10]}
    expected = learn_parameters(estimator, space, instances, scoring=slow_error, n_jobs=2)
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    killed = []

    def kill_once(done, total):
        if not killed:
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(victim)

    result = learn_parameters(estimator, space, instances, scoring=slow_error, backend="dask",
                              scheduler=client, batch_size=1, progress=kill_once)
    assert killed
    np.testing.assert_array_equal(result.losses, expected.losses)
    assert result.best_params == expected.best_params
    client.wait_for_workers(2, timeout=60)
    assert client.run(os.getpid) != pids  # the nanny restarted the killed worker


def test_an_instance_lost_twice_is_scattered_again_each_time(client, instances):
    """A lost instance was scattered again as ``client.scatter(instance)``: dask scatters a
    tuple's fields one by one, so the copy became an Instance of four futures, and the next
    task of that instance lost in the same search failed with "'Instance' object has no
    attribute 'status'" (test_a_killed_worker_does_not_change_the_result, when the killed
    worker held two tasks of one instance; review 15b). Here every first copy is lost."""
    from treesmith.model_selection.execution import Task, run_dask
    from treesmith.model_selection.scoring import check_scoring

    class LosingClient:
        """The real client, whose first scatter (every instance) is released at once."""

        def __init__(self, real):
            self.real, self.scatters = real, 0

        def scatter(self, data, **options):
            copies = self.real.scatter(data, **options)
            self.scatters += 1
            if self.scatters == 1:
                self.real.cancel(copies)
            return copies

        def submit(self, *args, **options):
            return self.real.submit(*args, **options)

        def cancel(self, futures):
            self.real.cancel(futures)

    estimator = treesmith.DecisionTreeClassifier(max_depth=2, random_state=0)
    points = [{"max_depth": depth} for depth in (1, 2, 3)]
    tasks = [Task(0, (i,), (point,)) for i, point in enumerate(points)]
    losing = LosingClient(client)
    results = dict(
        (task.point_idx, losses) for task, losses in run_dask(
            estimator, instances, tasks, check_scoring("error", 0.0, estimator), None,
            losing, 3, None, 1))
    assert sorted(results) == [(0,), (1,), (2,)]
    assert losing.scatters >= 2
