"""Peak memory and time of one fit on shapes that used to blow up: many classes, many features.

Each (library, shape) runs in its own fresh process; the figures are that process's wall and CPU
time of ``fit`` + ``predict_proba`` and its peak resident memory (``ru_maxrss``) above what it
held after loading the data and warming the compiled kernels on a tiny problem. The input's own
size and the size of the fitted tree's ``value`` array are printed beside them, so that "bounded
by what the data justifies" can be read off the table.

    PYTHONPATH=$PWD python benchmarks/bench_memory.py            # the default shapes
    PYTHONPATH=$PWD python benchmarks/bench_memory.py --quick    # small shapes, same scaling
"""

from __future__ import annotations

import argparse
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller shapes, same scaling")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per fit")
    args = parser.parse_args()
    repo_root = Path(__file__).resolve().parents[1]
    print(git_revision_line(repo_root))
    print(load_average_line("start"))
    rows = []
    for name, n_samples, n_features, n_classes, params in (QUICK_SHAPES if args.quick
                                                           else SHAPES):
        figures = {}
        for library in ("treesmith", "sklearn"):
            payload = {"task": "fit", "library": library, "n_samples": n_samples,
                       "n_features": n_features, "n_classes": n_classes,
                       "params": params}
            try:
                figures[library] = run_worker(__file__, payload, timeout=args.timeout)
            except Exception as error:  # a timeout or a crash is a figure too
                figures[library] = {"error": type(error).__name__}
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
    print(format_table(["shape", "library", "nodes", "wall s", "cpu s", "peak extra MB",
                        "input MB", "proba MB", "peak / (input + proba)"], rows, n_left=2))
    print(load_average_line("end"))


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker_main({"fit": _fit})
    else:
        main()
