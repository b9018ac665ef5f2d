"""Peak memory and time of one fit on shapes that used to blow up: many classes, many features.

Each (library, shape) runs in its own fresh process; the figures are that process's wall and CPU
time of ``fit`` + ``predict_proba`` and its peak resident memory (``ru_maxrss``) above what it
held after loading the data and warming the compiled kernels on a tiny problem. The input's own
size and the size of the fitted tree's ``value`` array are printed beside them, so that "bounded
by what the data justifies" can be read off the table.

    PYTHONPATH=$PWD python benchmarks/bench_memory.py            # the default shapes
    PYTHONPATH=$PWD python benchmarks/bench_memory.py --quick    # small shapes, same scaling
    python benchmarks/bench_memory.py --wide --against /path/to/main --repeats 3

``--wide`` measures wide and many-class shapes of a few thousand rows (binning by column
blocks, the histogram pool's rule); ``--against`` fits the same shapes with another
checkout's treesmith too (its own Numba cache), interleaved with this one's run by run, and
prints the ratios. Each library's figure is the median of ``--repeats`` fresh processes.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    format_megabytes,
    format_ratio,
    format_seconds,
    format_table,
    git_revision_line,
    load_average_line,
    run_worker,
    worker_main,
)

#: (name, n_samples, n_features, n_classes, estimator parameters common to both libraries).
#: A full-depth tree on 10 000 classes x 10 000 rows x 50 features takes hours in both
#: libraries (each level of the tree costs rows x classes x features); depth 8 shows the memory
#: and the per-level time, the full-depth rows at 1k and 2k classes the scaling.
SHAPES = [
    ("10k classes x 10k rows x 50 f, depth 8", 10_000, 50, 10_000, {"max_depth": 8}),
    ("1k classes x 1k rows x 50 f", 1_000, 50, 1_000, {}),
    ("2k classes x 2k rows x 50 f", 2_000, 50, 2_000, {}),
    ("100k features x 50 rows", 50, 100_000, 2, {}),
]
QUICK_SHAPES = [
    ("1k classes x 1k rows x 50 f", 1_000, 50, 1_000, {}),
    ("20k features x 50 rows", 50, 20_000, 2, {}),
]
#: Wide data and many classes on a few thousand rows.
WIDE_SHAPES = [
    ("20k rows x 50 f", 20_000, 50, 2, {}),
    ("5k rows x 300 f", 5_000, 300, 2, {}),
    ("20k rows x 300 f", 20_000, 300, 2, {}),
    ("1k rows x 1000 f", 1_000, 1_000, 2, {}),
    ("20 classes x 5k rows x 50 f", 5_000, 50, 20, {}),
    ("1k classes x 1k rows x 50 f", 1_000, 50, 1_000, {}),
]


def _data(n_samples, n_features, n_classes):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_samples, n_features))
    y = np.arange(n_samples) % n_classes  # every class present, as evenly as possible
    rng.shuffle(y)
    return X, y


def _peak_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _fit(payload):
    X, y = _data(payload["n_samples"], payload["n_features"], payload["n_classes"])
    if payload["library"] == "treesmith":
        from treesmith import DecisionTreeClassifier

        DecisionTreeClassifier().fit(X[:20, :3], np.arange(20) % 2)  # compile outside the figure
        model = DecisionTreeClassifier(random_state=0, **payload["params"])
    else:
        from sklearn.tree import DecisionTreeClassifier

        model = DecisionTreeClassifier(random_state=0, **payload["params"])
    baseline = _peak_bytes()
    wall, cpu = time.perf_counter(), time.process_time()
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # LargeTreeWarning, as designed, on these shapes
            model.fit(X, y)
        proba = model.predict_proba(X)
    except MemoryError as error:
        return {"error": f"MemoryError: {str(error)[:200]}"}
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "peak_extra": _peak_bytes() - baseline,
            "input": X.nbytes, "proba": proba.nbytes, "n_nodes": int(model.tree_.node_count)}


def _median_figures(runs):
    """The per-figure median of a library's runs (the first error if any run failed)."""
    for run in runs:
        if "error" in run:
            return run
    return {key: float(np.median([run[key] for run in runs])) if key != "n_nodes"
            else runs[0][key] for key in runs[0]}


def _environments(repo_root, against):
    """``{library: environment}`` of the worker processes: this checkout's treesmith (and the
    other checkout's, ``treesmith@other``, with its own Numba cache), scikit-learn."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    own = dict(os.environ, PYTHONPATH=str(repo_root))
    environments = {"treesmith": own}
    if against:
        other = dict(os.environ, PYTHONPATH=str(Path(against).resolve()))
        if cache:
            other["NUMBA_CACHE_DIR"] = f"{cache}_{Path(against).resolve().name}"
        environments["treesmith@other"] = other
    environments["sklearn"] = own
    return environments


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller shapes, same scaling")
    parser.add_argument("--wide", action="store_true", help="wide and many-class shapes")
    parser.add_argument("--against", help="another checkout's root, measured alongside")
    parser.add_argument("--repeats", type=int, default=1, help="fresh processes per figure")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per fit")
    args = parser.parse_args()
    repo_root = Path(__file__).resolve().parents[1]
    print(git_revision_line(repo_root))
    if args.against:
        print("other: " + git_revision_line(Path(args.against).resolve()))
    print(load_average_line("start"))
    environments = _environments(repo_root, args.against)
    rows = []
    shapes = WIDE_SHAPES if args.wide else QUICK_SHAPES if args.quick else SHAPES
    for name, n_samples, n_features, n_classes, params in shapes:
        runs = {library: [] for library in environments}
        for _ in range(args.repeats):  # interleaved: one run of each library per round
            for library, env in environments.items():
                payload = {"task": "fit", "library": library.split("@")[0],
                           "n_samples": n_samples, "n_features": n_features,
                           "n_classes": n_classes, "params": params}
                try:
                    runs[library].append(run_worker(__file__, payload, env=env,
                                                    timeout=args.timeout))
                except Exception as error:  # a timeout or a crash is a figure too
                    runs[library].append({"error": type(error).__name__})
        figures = {library: _median_figures(library_runs)
                   for library, library_runs in runs.items()}
        ours, theirs = figures["treesmith"], figures["sklearn"]
        for library, result in figures.items():
            if "error" in result:
                rows.append([name, library, result["error"], "-", "-", "-", "-", "-", "-"])
                continue
            rows.append([name, library, str(result["n_nodes"]), format_seconds(result["wall"]),
                         format_seconds(result["cpu"]), format_megabytes(result["peak_extra"]),
                         format_megabytes(result["input"]), format_megabytes(result["proba"]),
                         format_ratio(result["peak_extra"], result["input"] + result["proba"])])
        if "error" not in ours and "error" not in theirs:
            rows.append([name, "treesmith / sklearn", "",
                         format_ratio(ours["wall"], theirs["wall"]),
                         format_ratio(ours["cpu"], theirs["cpu"]),
                         format_ratio(ours["peak_extra"], theirs["peak_extra"]), "", "", ""])
        other = figures.get("treesmith@other")
        if other is not None and "error" not in ours and "error" not in other:
            rows.append([name, "treesmith / other", "",
                         format_ratio(ours["wall"], other["wall"]),
                         format_ratio(ours["cpu"], other["cpu"]),
                         format_ratio(ours["peak_extra"], other["peak_extra"]), "", "", ""])
    print(format_table(["shape", "library", "nodes", "wall s", "cpu s", "peak extra MB",
                        "input MB", "proba MB", "peak / (input + proba)"], rows, n_left=2))
    print(load_average_line("end"))


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker_main({"fit": _fit})
    else:
        main()
