"""How many threads a fit or a prediction may use: one policy for the whole library.

A tree is grown with Numba's parallel loops (feature-parallel histograms of large nodes) and
with Python threads over compiled ``nogil`` kernels (independent subtrees, independent trees).
Threads only pay when every one of them gets a core of its own and has enough work to amortise
starting and joining it: on a machine whose cores other processes keep busy, or inside a
process pool where every worker starts its own threads, a parallel region waits for its slowest
thread, and a spinning OpenMP thread steals the core its own master thread needs. So the number
of threads is decided here, from what the user allows and from the work at hand, never from the
machine's core count alone.

What is honoured, in this order (each can only lower the count, except an explicit ``n_jobs``):

1. ``n_jobs`` of the estimator, with scikit-learn's meaning: a positive int is that many
   threads (explicit: it overrides the environment limits below, not Numba's pool size);
   ``-1`` all threads the process may use, ``-2`` all but one, and so on; ``None`` (default)
   the threads the process may use, as for ``-1``.
2. The cores this process may run on: its CPU affinity mask (``taskset``, ``numactl``) and a
   cgroup CPU quota (Docker ``--cpus``, Kubernetes limits), read by ``joblib.cpu_count``.
3. ``OMP_NUM_THREADS`` and ``threadpoolctl.threadpool_limits`` on OpenMP (read through
   scikit-learn's OpenMP runtime in the calling thread, exactly as scikit-learn's own
   histogram gradient boosting reads them). joblib's process backend (loky) sets
   ``OMP_NUM_THREADS`` in its workers to their share of the cores (``cpu_count // n_jobs``),
   so ``GridSearchCV(n_jobs=-1)``, ``cross_val_score(n_jobs=...)`` and
   ``treesmith.compare(n_jobs=...)`` fits use their share, not every core each; Dask's worker
   processes get ``OMP_NUM_THREADS=1`` from their nanny.
4. Numba's own limits: ``NUMBA_NUM_THREADS`` (the size of its thread pool, a hard cap) and
   ``numba.set_num_threads`` called in the fitting thread.
5. A Dask worker thread (``distributed.get_worker()`` succeeds): the worker's cores divided by
   the tasks it runs at once (its ``nthreads``), at least one.
6. The work: a fit of ``n_samples * n_features`` below ``PARALLEL_FIT_WORK`` per thread, and a
   prediction of fewer than ``PARALLEL_PREDICT_ROWS`` rows per thread, use fewer threads (one
   for small problems). Single-threaded runs never enter a parallel region.

Numba's threading layer and OpenMP's wait policy are left as the user (or Numba) chose them:
both are process-wide settings that would change every other Numba or OpenMP program in the
process. The engine instead keeps parallel regions few and large, which makes the spinning
default harmless (measured in ``benchmarks/bench_contention.py``).

The thread count applies through :func:`numba_threads`, which sets Numba's per-thread count for
the duration of a call and restores it: code that calls Numba after treesmith sees no change.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import numba
import numpy as np

#: Sample-features (n_samples * n_features) of a fit per thread below which extra threads cost
#: more than they save (measured with ``benchmarks/bench_contention.py``: two threads start to
#: pay around 2e5 sample-features on a quiet 2-core machine).
PARALLEL_FIT_WORK = 1 << 18
#: Chunks per thread of ``map_in_threads``: enough to even out uneven items, few enough that
#: the per-task overhead (tens of microseconds) never shows.
MAP_CHUNKS_PER_THREAD = 8
#: Rows of a prediction per thread below which it runs on one thread.
PARALLEL_PREDICT_ROWS = 1 << 14


def _check_n_jobs(n_jobs):
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, (int, np.integer)) \
            or n_jobs == 0:
        raise ValueError(
            f"n_jobs must be None or a non-zero int (-1: all cores), got {n_jobs!r}.")
    return int(n_jobs)


_CGROUP_CORES = []


def process_cores() -> int:
    """Cores this process may run on: CPU affinity and cgroup CPU quota (``joblib.cpu_count``).

    The quota is read once per process (reading it costs ~60 us); the affinity mask, which a
    program may change, on every call (~1 us).
    """
    if not _CGROUP_CORES:
        try:
            from joblib import cpu_count
            _CGROUP_CORES.append(max(1, int(cpu_count(only_physical_cores=False))))
        except ImportError:  # pragma: no cover - joblib ships with scikit-learn
            _CGROUP_CORES.append(os.cpu_count() or 1)
    if hasattr(os, "sched_getaffinity"):
        return max(1, min(_CGROUP_CORES[0], len(os.sched_getaffinity(0))))
    return _CGROUP_CORES[0]  # pragma: no cover - not Linux


def openmp_limit() -> int:
    """The OpenMP thread limit of the calling thread: ``OMP_NUM_THREADS`` and
    ``threadpoolctl`` limits, as scikit-learn's OpenMP runtime reports them (``process_cores()``
    when neither is set)."""
    try:
        from sklearn.utils._openmp_helpers import _openmp_effective_n_threads
    except ImportError:  # pragma: no cover - private helper of scikit-learn
        value = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
        return max(1, int(value)) if value.isdigit() else process_cores()
    return max(1, int(_openmp_effective_n_threads(only_physical_cores=False)))


def numba_limit() -> int:
    """Numba's limit for the calling thread: ``numba.get_num_threads()`` (at most the pool
    size ``NUMBA_NUM_THREADS``)."""
    return max(1, int(numba.get_num_threads()))


def dask_worker_share() -> int | None:
    """Cores per concurrently running task when called inside a Dask worker, else None."""
    distributed = sys.modules.get("distributed")
    if distributed is None:
        return None
    try:
        worker = distributed.get_worker()
    except (ValueError, AttributeError):
        return None
    n_tasks = int(getattr(getattr(worker, "state", worker), "nthreads", 1) or 1)
    return max(1, process_cores() // n_tasks)


def available_threads() -> int:
    """Threads one fit may use when nothing else is said: the smallest of the process's cores,
    the OpenMP limit, Numba's limit and a Dask worker's share (see the module docstring)."""
    limit = min(process_cores(), openmp_limit(), numba_limit())
    share = dask_worker_share()
    return min(limit, share) if share is not None else limit


def resolve_n_jobs(n_jobs) -> int:
    """The number of threads ``n_jobs`` asks for (before the work is considered).

    None and negative values count from :func:`available_threads` (``-1``: all of them);
    a positive value is taken as given, up to Numba's pool size ``NUMBA_NUM_THREADS``.
    Raises ValueError naming ``n_jobs`` for 0 and non-integers.
    """
    n_jobs = _check_n_jobs(n_jobs)
    pool_size = max(1, int(numba.config.NUMBA_NUM_THREADS))
    if n_jobs is None:
        return available_threads()
    if n_jobs < 0:
        return max(1, available_threads() + 1 + n_jobs)
    return min(n_jobs, pool_size)


def threads_for_work(n_threads: int, work: float, work_per_thread: float) -> int:
    """At most ``n_threads``, and no more than ``work / work_per_thread`` (at least one)."""
    return int(max(1, min(n_threads, work // max(work_per_thread, 1))))


def fit_threads(n_jobs, n_samples: int, n_features: int) -> int:
    """Threads for growing one tree on ``n_samples x n_features`` (one for small fits,
    without looking at the limits)."""
    work = float(n_samples) * n_features
    if work < 2 * PARALLEL_FIT_WORK:
        _check_n_jobs(n_jobs)
        return 1
    return threads_for_work(resolve_n_jobs(n_jobs), work, PARALLEL_FIT_WORK)


def predict_threads(n_jobs, n_rows: int) -> int:
    """Threads for predicting ``n_rows`` rows with one tree (one for small predictions,
    without looking at the limits)."""
    if n_rows < 2 * PARALLEL_PREDICT_ROWS:
        _check_n_jobs(n_jobs)
        return 1
    return threads_for_work(resolve_n_jobs(n_jobs), n_rows, PARALLEL_PREDICT_ROWS)


def threads_per_task(n_threads: int, n_tasks: int) -> tuple[int, int]:
    """Split ``n_threads`` among ``n_tasks`` independent tasks (trees of a forest, candidates
    of a grid): ``(n_workers, threads_per_worker)``.

    Parallelism goes across tasks first: with at least as many tasks as threads, every worker
    grows one task at a time on one thread; with fewer tasks, the spare threads are shared out
    among them (a forest of 2 trees on 8 threads: 2 workers of 4 threads).
    """
    n_threads = max(1, int(n_threads))
    n_tasks = max(1, int(n_tasks))
    n_workers = min(n_threads, n_tasks)
    return n_workers, max(1, n_threads // n_workers)


def current_threads() -> int:
    """The thread count of the enclosing :func:`numba_threads` block (Numba's count for this
    thread): what a fit's helpers outside the compiled kernels may use too."""
    return max(1, int(numba.get_num_threads()))


def map_in_threads(function, items, work: float):
    """``list(map(function, items))``, on up to :func:`current_threads` Python threads when the
    ``work`` (in sample-features) pays for them. ``function`` must release the GIL (numpy sorts,
    ``nogil`` kernels) for the threads to help."""
    items = list(items)
    n_threads = min(threads_for_work(current_threads(), work, PARALLEL_FIT_WORK), len(items))
    if n_threads <= 1:
        return [function(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    # A few chunks per thread, not one task per item: 100 000 features of 50 rows each spent
    # 8 s submitting and waiting on futures around 1 s of sorting.
    n_chunks = min(len(items), MAP_CHUNKS_PER_THREAD * n_threads)
    bounds = [len(items) * c // n_chunks for c in range(n_chunks + 1)]

    def run_chunk(c):
        return [function(item) for item in items[bounds[c]:bounds[c + 1]]]

    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        return [result for chunk in pool.map(run_chunk, range(n_chunks)) for result in chunk]


def run_tasks(function, items, n_threads: int):
    """``[function(item) for item in items]`` on ``n_threads`` threads, the calling one among
    them; results in the order of ``items``.

    Threads take the next item from a shared counter as they become free, so the items are best
    ordered largest first. The calling thread works too and waits at the end only for items
    already started: when other processes keep the cores busy and a helper thread does not get
    to run, the caller does its share, so the total never exceeds the one-thread time by more
    than one item (a parallel loop would wait for every thread to arrive). ``function`` should
    release the GIL (a ``nogil`` kernel). The first exception raised is re-raised here.
    """
    import itertools
    import threading

    items = list(items)
    results = [None] * len(items)
    n_threads = max(1, min(int(n_threads), len(items)))
    if n_threads == 1:
        return [function(item) for item in items]
    counter = itertools.count()  # next() on it is atomic under the GIL
    errors = []

    def work():
        for i in counter:
            if i >= len(items) or errors:
                return
            try:
                results[i] = function(items[i])
            except BaseException as error:  # re-raised in the calling thread
                errors.append(error)
                return

    helpers = [threading.Thread(target=work, daemon=True) for _ in range(n_threads - 1)]
    for helper in helpers:
        helper.start()
    work()
    for helper in helpers:
        helper.join()
    if errors:
        raise errors[0]
    return results


@contextmanager
def numba_threads(n_threads: int):
    """Run the body with Numba's thread count set to ``n_threads`` in this thread, restored on
    exit (``numba.set_num_threads`` is per thread, so other threads are not affected)."""
    previous = numba.get_num_threads()
    n_threads = max(1, min(int(n_threads), int(numba.config.NUMBA_NUM_THREADS)))
    if n_threads == previous:
        yield n_threads
        return
    numba.set_num_threads(n_threads)
    try:
        yield n_threads
    finally:
        numba.set_num_threads(previous)
