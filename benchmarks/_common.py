"""Helpers shared by the benchmark scripts: data, timing, peak memory, subprocesses, tables.

Every benchmark measures each library in its own fresh Python process, so that compiled code,
thread pools and allocator state of one library never influence another, and so that peak
memory can be read from the operating system for exactly one fit.

The child-process protocol is small: the parent runs ``python <script> --worker '<json>'``;
the script calls :func:`worker_main`, which dispatches to a handler and prints one line
``RESULT_MARKER + json`` that :func:`run_worker` parses.
"""

from __future__ import annotations

import gc
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

RESULT_MARKER = "@@BENCH_RESULT@@ "
_CLEAR_REFS = "/proc/self/clear_refs"
_STATUS = "/proc/self/status"


# -- data ----------------------------------------------------------------------------------
def make_classification_data(
    n_samples, *, n_features, n_classes, n_informative, n_redundant, random_state=0
):
    """``sklearn.datasets.make_classification`` as float32 C-ordered X and int64 y."""
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_classes=n_classes,
        n_informative=n_informative,
        n_redundant=n_redundant,
        random_state=random_state,
    )
    return np.ascontiguousarray(X, dtype=np.float32), y.astype(np.int64)


def save_arrays(directory, name, X, y):
    """Write X and y as ``.npy`` files (read back by worker processes); returns their paths."""
    directory = Path(directory)
    paths = {"X": str(directory / f"{name}_X.npy"), "y": str(directory / f"{name}_y.npy")}
    np.save(paths["X"], X)
    np.save(paths["y"], y)
    return paths


def load_arrays(paths):
    """Inverse of :func:`save_arrays` (plain reads, no transient copies)."""
    return np.load(paths["X"]), np.load(paths["y"])


# -- timing --------------------------------------------------------------------------------
def forest_arguments(parser, extra=()):
    """The forest benchmarks' common options (``bench_forest.py``, ``bench_extra_trees.py``):
    data shape, trees, ``n_jobs`` values, tasks, repeats, ``--quick``; ``extra`` are
    ``(args, kwargs)`` pairs of more options. Returns the parsed arguments, ``--quick``
    applied (2e4 x 20, 20 trees)."""
    parser.add_argument("--rows", type=float, default=1e5)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, -1])
    parser.add_argument("--tasks", nargs="+", default=["classification", "regression"])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    for option_args, option_kwargs in extra:
        parser.add_argument(*option_args, **option_kwargs)
    args = parser.parse_args()
    if args.quick:
        args.rows, args.features, args.trees = 2e4, 20, 20
    return args


def interleaved_fits(contenders: dict, repeats: int, X_test, y_test) -> dict:
    """Each contender (name -> a function that returns a fitted model) timed ``repeats``
    times, the contenders interleaved within each repeat: per name the lists ``wall`` and
    ``cpu`` (``timed_with_cpu``) and the last model's test ``score``."""
    results = {name: {"wall": [], "cpu": [], "score": None} for name in contenders}
    for _ in range(repeats):
        for name, fit in contenders.items():
            wall, cpu, model = timed_with_cpu(fit)
            results[name]["wall"].append(wall)
            results[name]["cpu"].append(cpu)
            results[name]["score"] = model.score(X_test, y_test)
            del model
    return results


def forest_task_data(task: str, n_rows: int, n_features: int):
    """The forest benchmarks' data: ``make_classification`` (3 classes, 15 informative and 5
    redundant features) or ``make_regression`` (15 informative, noise 10) of 1.25 n_rows rows,
    float32, split 80/20; returns ``(X_train, X_test, y_train, y_test, metric name)``."""
    from sklearn.datasets import make_classification, make_regression
    from sklearn.model_selection import train_test_split

    if task == "classification":
        X, y = make_classification(n_samples=int(n_rows * 1.25), n_features=n_features,
                                   n_informative=15, n_redundant=5, n_classes=3,
                                   random_state=0)
        metric = "accuracy"
    else:
        X, y = make_regression(n_samples=int(n_rows * 1.25), n_features=n_features,
                               n_informative=15, noise=10.0, random_state=0)
        metric = "R2"
    X_train, X_test, y_train, y_test = train_test_split(X.astype(np.float32), y,
                                                        test_size=0.2, random_state=0)
    return X_train, X_test, y_train, y_test, metric


def timed(function, *args, **kwargs):
    """Run ``function`` once; return ``(wall seconds, result)`` measured with perf_counter."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def timed_with_cpu(function, *args, **kwargs):
    """Like :func:`timed`, plus the process CPU time (user + system, all threads) it used."""
    cpu_start = time.process_time()
    wall, result = timed(function, *args, **kwargs)
    return wall, time.process_time() - cpu_start, result


def median(values):
    """Median of the repeats (the figure every table prints); NaN for no values."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


# -- peak memory ---------------------------------------------------------------------------
def _status_kib(field):
    with open(_STATUS) as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _can_reset_high_water_mark():
    try:
        with open(_CLEAR_REFS, "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


class PeakMemory:
    """Context manager: the peak resident memory added while the block runs, in bytes.

    ``extra_bytes = peak RSS during the block - RSS at its start``. On Linux the kernel's
    high-water mark (VmHWM) is reset at the start by writing ``5`` to /proc/self/clear_refs,
    so the peak is exact and covers native allocations (Numba, OpenMP, C++) as well as
    Python ones. Elsewhere RSS is sampled with psutil every millisecond (may miss a very
    short spike). ``method`` says which one was used.
    """

    def __enter__(self):
        gc.collect()
        self.method = "VmHWM" if _can_reset_high_water_mark() else "psutil-sampling"
        if self.method == "VmHWM":
            self._start = _status_kib("VmRSS") * 1024
        else:
            self._start_sampler()
        return self

    def __exit__(self, *exc_info):
        if self.method == "VmHWM":
            self.extra_bytes = _status_kib("VmHWM") * 1024 - self._start
        else:
            self._stop.set()
            self._thread.join()
            self.extra_bytes = self._peak - self._start
        return False

    def _start_sampler(self):
        import psutil

        process = psutil.Process()
        self._start = self._peak = process.memory_info().rss
        self._stop = threading.Event()

        def sample():
            while not self._stop.wait(0.001):
                self._peak = max(self._peak, process.memory_info().rss)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()


# -- subprocesses --------------------------------------------------------------------------
def run_worker(script, payload, *, env=None, timeout=None):
    """Run ``python script --worker <json payload>`` in a fresh process; return its result dict."""
    command = [sys.executable, str(script), "--worker", json.dumps(payload)]
    completed = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
    return _parse_result(completed, " ".join(command[:2]) + f" --worker {payload!r}")


def run_snippet(code, *, env=None, cwd=None, timeout=None):
    """Run ``python -c code`` in a fresh process; return ``(process wall seconds, result dict)``.

    The snippet reports through ``print(RESULT_MARKER + json.dumps(...))``; nothing is imported
    before it runs, so import times measured inside it are the real ones.
    """
    start = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )
    wall = time.perf_counter() - start
    return wall, _parse_result(completed, "python -c <snippet>")


def _parse_result(completed, description):
    for line in reversed(completed.stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            return json.loads(line[len(RESULT_MARKER) :])
    raise RuntimeError(
        f"{description} exited with {completed.returncode} without a result.\n"
        f"--- stdout ---\n{completed.stdout[-4000:]}\n--- stderr ---\n{completed.stderr[-4000:]}"
    )


def worker_main(handlers, argv=None):
    """Entry point of a worker process: ``handlers[payload['task']](payload)`` -> printed result."""
    argv = sys.argv[1:] if argv is None else argv
    payload = json.loads(argv[argv.index("--worker") + 1])
    result = handlers[payload["task"]](payload)
    print(RESULT_MARKER + json.dumps(result), flush=True)


# -- reporting -----------------------------------------------------------------------------
def environment_lines():
    """One line on the machine and the library versions, for the report header."""
    from importlib import metadata

    versions = []
    for name in ("numpy", "numba", "scikit-learn", "lightgbm", "treesmith"):
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    return [
        (
            f"machine: {platform.machine()} {platform.system()}, {os.cpu_count()} logical cores, "
            f"Python {platform.python_version()}"
        ),
        "versions: " + ", ".join(versions),
        load_average_line("at start"),
    ]


def git_revision_line(repo_root):
    """The measured checkout: commit and whether the working tree had uncommitted changes."""
    try:
        completed = subprocess.run(
            ["git", "-C", str(repo_root), "describe", "--always", "--dirty", "--abbrev=10"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "checkout: not a git repository"
    return f"checkout: {completed.stdout.strip()} ('-dirty' = uncommitted changes measured too)"


def load_average_line(when):
    """The 1/5/15-minute load averages: other processes competing for the cores skew timings."""
    if not hasattr(os, "getloadavg"):
        return f"load average {when}: unavailable"
    one, five, fifteen = os.getloadavg()
    return (
        f"load average {when}: {one:.2f} / {five:.2f} / {fifteen:.2f} (1/5/15 min) on "
        f"{os.cpu_count()} cores"
    )


def format_table(headers, rows, *, title=None, n_left=1):
    """Plain-text table: the first ``n_left`` columns left-aligned, the others right-aligned."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row):
        return "  ".join(
            c.ljust(w) if i < n_left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
        ).rstrip()

    out = [title] if title else []
    out += [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells[1:]]
    return "\n".join(out)


def _missing(value):
    return value is None or math.isnan(value)


def format_seconds(seconds):
    """Seconds with three significant figures ('-' when not measured)."""
    if _missing(seconds):
        return "-"
    return f"{seconds:.3g}" if seconds < 100 else f"{seconds:.0f}"


def format_ratio(numerator, denominator):
    """``numerator / denominator`` as e.g. '0.071x' ('-' when either side is missing)."""
    if _missing(numerator) or _missing(denominator) or denominator == 0:
        return "-"
    return f"{numerator / denominator:.3g}x"


def format_megabytes(n_bytes):
    """Bytes as MB with one decimal ('-' when not measured)."""
    if _missing(n_bytes):
        return "-"
    return f"{n_bytes / 1e6:.1f}"
