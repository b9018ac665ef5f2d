"""Running a parameter search's fits: serially, on joblib, or on a ``dask.distributed`` cluster.

The unit of work is a *task*: one instance and a batch of grid points, fitted one after the
other on that instance (one fit per point; with an exact axis, one fit per point and a sweep of
its pruning). Every task is a pure function of its inputs — the estimator's own
``random_state`` fixes any randomness — so the results do not depend on the backend, the number
of workers, the batch size or the order tasks finish in, and a task re-run after a worker died
returns the same numbers.

* joblib (default): ``n_jobs`` workers, threads unless a ``joblib.parallel_backend`` context
  says otherwise (the compiled kernels release the GIL; threads start at once and share the
  kernels already compiled).

When the fits run on several workers, each task runs the engine's own parallel kernels on one
thread (``inner_threads=1``): the workers already fill the cores, and on small problems the
kernels' thread hand-offs cost more than the fit (measured: 120 depth-5 fits on iris and wine,
9.4 s with two kernel threads vs 0.5 s with one, serially, on a busy 2-core machine).
* dask: the instances are scattered to the workers once; each task is submitted with
  ``retries`` and the results stream back with ``as_completed``. Pass ``scheduler`` (an address
  such as ``"tcp://10.0.0.5:8786"`` or a ``distributed.Client``), or let the current default
  client be used.
"""

from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

from ..criteria import ConcavityWarning
from .exact import ccp_alpha_losses, pessimistic_ray_losses
from .parameters import with_parameters
from .space import Exact

BACKENDS = ("joblib", "dask")


def joblib_workers(n_jobs, n_tasks: int, owner: str) -> int:
    """``n_jobs`` (None, or a non-zero int with joblib's meaning: -1 every core this process may
    use) checked, as the number of joblib workers for ``n_tasks`` tasks: never more workers
    than tasks (n_jobs=2**31 made joblib fail on its dispatch expression '2 * n_jobs', and
    a list or inf failed in int())."""
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral)
                               or n_jobs == 0):
        raise ValueError(f"{owner}: n_jobs must be None or a nonzero int (-1: every core this "
                         f"process may use), got {n_jobs!r}.")
    from joblib import effective_n_jobs

    workers = effective_n_jobs(None if n_jobs is None else max(int(n_jobs), -(1 << 62)))
    return int(max(1, min(workers, n_tasks)))


class Task(NamedTuple):
    """Fit ``points`` (indices ``point_idx`` into the grid) on instance ``instance_idx``."""

    instance_idx: int
    point_idx: tuple[int, ...]
    points: tuple[dict, ...]


def run_task(estimator, instance, task: Task, loss, exact, inner_threads=None
             ) -> tuple[Task, list]:
    """The losses of every point of ``task``: floats, or PiecewiseLoss with an exact axis.

    ``inner_threads``: threads of the engine's parallel kernels during the task (numba's
    setting is per thread, restored afterwards); None keeps the current setting.
    """
    import numba

    X_train, y_train, X_test, y_test = instance
    results = []
    previous = numba.get_num_threads()
    if inner_threads is not None:
        numba.set_num_threads(max(1, min(int(inner_threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConcavityWarning)
            for params in task.points:
                try:
                    results.append(_evaluate(estimator, params, X_train, y_train, X_test,
                                             y_test, loss, exact))
                except Exception as error:
                    raise RuntimeError(f"fitting {params} on instance {task.instance_idx} "
                                       f"failed: {type(error).__name__}: {error}") from error
    finally:
        numba.set_num_threads(previous)
    return task, results


def _evaluate(estimator, params, X_train, y_train, X_test, y_test, loss, exact):
    if exact is None:
        model = with_parameters(estimator, params).fit(X_train, y_train)
        return loss(model, X_test, y_test)
    if isinstance(exact, Exact):
        model = with_parameters(estimator, {**params, "ccp_alpha": 0.0}).fit(X_train, y_train)
        return ccp_alpha_losses(model, X_test, y_test, loss)
    model = with_parameters(estimator, params)
    ccp_alpha = float(model.get_params()["ccp_alpha"])
    model.set_params(pruning=None, ccp_alpha=0.0).fit(X_train, y_train)
    return pessimistic_ray_losses(model, exact, X_test, y_test, loss, ccp_alpha)


def run_joblib(estimator, instances, tasks, loss, exact, n_jobs, progress, inner_threads):
    """Run ``tasks`` with joblib, yielding ``(task, results)`` as they finish."""
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=joblib_workers(n_jobs, len(tasks), "learn_parameters"),
                        prefer="threads", return_as="generator_unordered")
    for done, outcome in enumerate(parallel(
            delayed(run_task)(estimator, instances[task.instance_idx], task, loss, exact,
                              inner_threads)
            for task in tasks), start=1):
        if progress is not None:
            progress(done, len(tasks))
        yield outcome


def connect(scheduler, timeout: float = 10.0):
    """``(client, owned)``: a ``distributed.Client`` for ``scheduler`` (an address, a Client,
    or None for the current default client), and whether we opened it (and must close it)."""
    from .._compat import optional_import

    distributed = optional_import("distributed")
    if isinstance(scheduler, distributed.Client):
        return scheduler, False
    if scheduler is None:
        try:
            return distributed.get_client(), False
        except ValueError:
            raise ValueError("backend='dask' needs a cluster: pass scheduler='tcp://HOST:PORT' "
                             "or a distributed.Client, or create a Client first.") from None
    if not isinstance(scheduler, str):
        raise TypeError(f"scheduler must be an address string or a distributed.Client, got "
                        f"{type(scheduler).__name__}.")
    try:
        return distributed.Client(scheduler, timeout=timeout), True
    except (OSError, TimeoutError) as error:
        raise ConnectionError(f"no dask scheduler answers at {scheduler!r} (waited "
                              f"{timeout:g} s): {error}") from None


def run_dask(estimator, instances, tasks, loss, exact, client, retries, progress,
             inner_threads):
    """Run ``tasks`` on ``client``, yielding ``(task, results)`` as they finish.

    The instances are scattered once, to every worker (a worker that dies does not take the
    only copy with it); a task whose instance was lost all the same is resubmitted with the
    instance scattered again, at most ``retries`` times. A task that raises (a failed fit) is
    retried ``retries`` times by dask, then its error is raised here.
    """
    from distributed import as_completed

    # hash=False: keys of this run only. Content-hashed keys are the same for every search
    # on the same data, and a scatter racing with the release of the previous search's
    # copies (cancelled below) may never complete: one hung in a test run, in a second
    # search on the data the first had just released.
    scattered = client.scatter(list(instances), broadcast=True, hash=False)

    def submit(task):
        return client.submit(run_task, estimator, scattered[task.instance_idx], task, loss,
                             exact, inner_threads, pure=False, retries=retries)

    pending = {submit(task): task for task in tasks}
    resubmitted: dict[tuple, int] = {}
    queue = as_completed(list(pending))
    done = 0
    try:
        for future in queue:
            task = pending.pop(future)
            if future.status == "finished":
                done += 1
                if progress is not None:
                    progress(done, len(tasks))
                yield future.result()
                continue
            if future.status == "error":
                future.result()  # raises the task's own error
            key = (task.instance_idx, task.point_idx)
            resubmitted[key] = resubmitted.get(key, 0) + 1
            if resubmitted[key] > retries:
                raise RuntimeError(f"task {key} was lost {resubmitted[key]} times "
                                   f"({future.status}); the cluster keeps losing workers.")
            if scattered[task.instance_idx].status != "finished":
                # in a list, as at first: dask scatters a tuple's (an Instance's) fields apart
                scattered[task.instance_idx] = client.scatter(
                    [instances[task.instance_idx]], broadcast=True, hash=False)[0]
            future = submit(task)
            pending[future] = task
            queue.add(future)
    finally:
        client.cancel(list(pending) + list(scattered))
