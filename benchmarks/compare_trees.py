"""Are the trees and predictions of this checkout the same, bit for bit, as another's?

    python benchmarks/compare_trees.py /path/to/other/checkout [--only NAME ...]

Each checkout fits the same configurations (classification and regression, NaN, sample
weights, categorical columns, many classes, wide and short data, forests, extremely randomized
trees, ``max_leaf_nodes``, ``max_bins``) in a fresh process that imports treesmith from it;
the node arrays of every tree, the bin edges and the predictions are pickled, then compared
byte for byte (``np.array_equal`` on the bytes: NaN equals NaN, -0.0 differs from 0.0). Prints
one line per configuration and exits with status 1 when any differs. Each checkout compiles
into its own Numba cache (``NUMBA_CACHE_DIR`` suffixed with the checkout's directory name).
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

NODE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "bin_threshold",
               "missing_go_left", "impurity", "n_node_samples", "weighted_n_node_samples",
               "value", "class_counts", "depth", "left_categories")


def _data(kind, n, p, seed=0, n_classes=2):
    """X, y of one configuration's shape: ``kind`` is "clf" or "reg"."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if kind == "clf":
        y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(np.int64)
        if n_classes > 2:
            y = np.abs((X[:, :3].sum(axis=1) * n_classes).astype(np.int64)) % n_classes
    else:
        y = X[:, 0] ** 2 + X[:, 1] + 0.3 * rng.normal(size=n)
    return X, y


def _configurations():
    """``name -> (estimator name, parameters, data builder)`` of every configuration."""
    def plain(kind, n, p, **options):
        def build():
            X, y = _data(kind, n, p, n_classes=options.get("n_classes", 2))
            return X, y, None
        return build

    def with_nan(kind, n, p, n_classes=2):
        def build():
            X, y = _data(kind, n, p, seed=1, n_classes=n_classes)
            rng = np.random.default_rng(2)
            X[rng.random(X.shape) < 0.1] = np.nan
            X[:, 2] = np.nan  # an all-missing column
            return X, y, None
        return build

    def rounded(kind, n, p):
        """Few distinct values, ties, signed zeros (-0.0 and 0.0 in one column), a constant."""
        def build():
            X, y = _data(kind, n, p, seed=3)
            X = np.round(X, 1)
            X[::7, 1] = -0.0
            X[1::7, 1] = 0.0
            X[:, 3] = 5.0
            return X, y, None
        return build

    def weighted(kind, n, p):
        def build():
            X, y = _data(kind, n, p, seed=4)
            weight = np.random.default_rng(5).integers(0, 4, size=n).astype(np.float64)
            return X, y, weight
        return build

    def categorical(kind, n, p):
        def build():
            X, y = _data(kind, n, p, seed=6)
            rng = np.random.default_rng(7)
            X[:, 0] = rng.integers(0, 12, size=n)
            X[:, 1] = rng.integers(0, 3, size=n)
            y = (X[:, 0] % 3 == 0).astype(np.int64) if kind == "clf" else X[:, 0] + X[:, 2]
            return X, y, None
        return build

    def float32(kind, n, p):
        def build():
            X, y, _ = plain(kind, n, p)()
            return X.astype(np.float32), y, None
        return build

    tree, regressor = "DecisionTreeClassifier", "DecisionTreeRegressor"
    return {
        "clf 5k x 300": (tree, {}, plain("clf", 5000, 300)),
        "clf 20k x 50": (tree, {}, plain("clf", 20000, 50)),
        "clf 50 x 2000": (tree, {}, plain("clf", 50, 2000)),
        "clf 3k x 40 float32": (tree, {}, float32("clf", 3000, 40)),
        "clf 3k x 30 NaN": (tree, {}, with_nan("clf", 3000, 30)),
        "clf 2k x 20 ties, -0.0": (tree, {}, rounded("clf", 2000, 20)),
        "clf 3k x 20 quantile ties, -0.0": (tree, {"max_bins": 32}, rounded("clf", 3000, 20)),
        "clf 30k x 20": (tree, {}, plain("clf", 30_000, 20)),
        "clf 1k x 1000": (tree, {}, plain("clf", 1000, 1000)),
        "clf 4k x 20 weights": (tree, {}, weighted("clf", 4000, 20)),
        "clf 3k x 10 categorical": (tree, {"categorical_features": [0, 1]},
                                    categorical("clf", 3000, 10)),
        "clf 5 classes 3k x 20": (tree, {}, plain("clf", 3000, 20, n_classes=5)),
        "clf 20 classes 5k x 50": (tree, {}, plain("clf", 5000, 50, n_classes=20)),
        "clf 20 classes max_leaf_nodes 80": (tree, {"max_leaf_nodes": 80},
                                             with_nan("clf", 6000, 40, n_classes=20)),
        "clf 300 classes 3k x 30": (tree, {}, plain("clf", 3000, 30, n_classes=300)),
        "clf 1k classes 1k x 20 depth 6": (tree, {"max_depth": 6},
                                           plain("clf", 1000, 20, n_classes=1000)),
        "clf max_leaf_nodes 50": (tree, {"max_leaf_nodes": 50}, plain("clf", 5000, 100)),
        "clf max_bins 16": (tree, {"max_bins": 16}, plain("clf", 5000, 30)),
        "clf max_bins None": (tree, {"max_bins": None}, plain("clf", 3000, 10)),
        "clf max_features 0.3": (tree, {"max_features": 0.3, "random_state": 3},
                                 plain("clf", 4000, 60)),
        "clf 100k x 20": (tree, {}, plain("clf", 100_000, 20)),
        "clf entropy 3k x 40": (tree, {"criterion": "entropy"}, plain("clf", 3000, 40)),
        "reg 5k x 200": (regressor, {}, plain("reg", 5000, 200)),
        "reg 3k x 30 NaN": (regressor, {}, with_nan("reg", 3000, 30)),
        "reg 4k x 20 weights": (regressor, {}, weighted("reg", 4000, 20)),
        "reg 3k x 10 categorical": (regressor, {"categorical_features": [0, 1]},
                                    categorical("reg", 3000, 10)),
        "reg max_leaf_nodes 30": (regressor, {"max_leaf_nodes": 30}, plain("reg", 5000, 50)),
        "extra tree clf 3k x 40": ("ExtraTreeClassifier", {"random_state": 0},
                                   plain("clf", 3000, 40)),
        "forest clf 2k x 100": ("RandomForestClassifier",
                                {"n_estimators": 8, "random_state": 0, "n_jobs": 2},
                                with_nan("clf", 2000, 100)),
        "forest reg 2k x 50": ("RandomForestRegressor",
                               {"n_estimators": 8, "random_state": 0},
                               weighted("reg", 2000, 50)),
        "extra trees clf 3k x 60": ("ExtraTreesClassifier",
                                    {"n_estimators": 6, "random_state": 1},
                                    plain("clf", 3000, 60, n_classes=4)),
        "extra trees reg 2k x 30 cat": ("ExtraTreesRegressor",
                                        {"n_estimators": 6, "random_state": 2,
                                         "categorical_features": [0, 1]},
                                        categorical("reg", 2000, 30)),
    }


def _tree_arrays(tree):
    return {name: np.asarray(getattr(tree, name)) for name in NODE_ARRAYS
            if getattr(tree, name, None) is not None}


def _bin_arrays(bin_mapper):
    edges = [np.asarray(e) for e in bin_mapper.bin_thresholds_]
    values = [None if v is None else np.asarray(v) for v in bin_mapper.bin_values_]
    return {"edges": edges, "values": values, "is_exact": np.asarray(bin_mapper.is_exact_),
            "n_bins_non_missing": np.asarray(bin_mapper.n_bins_non_missing_)}


def _child(output, only):
    """Fit every configuration with the treesmith first on sys.path; pickle the results."""
    import warnings

    import treesmith

    results = {}
    for name, (estimator, params, build) in _configurations().items():
        if only and name not in only:
            continue
        X, y, weight = build()
        model = getattr(treesmith, estimator)(**params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y, sample_weight=weight)
        members = getattr(model, "estimators_", [model])
        predict = model.predict_proba if hasattr(model, "predict_proba") else model.predict
        results[name] = {
            "trees": [_tree_arrays(member.tree_) for member in members],
            "bins": [_bin_arrays(getattr(member, "bin_mapper_", None) or model.bin_mapper_)
                     for member in members[:1]],
            "prediction": np.asarray(predict(X)),
        }
    with open(output, "wb") as file:
        pickle.dump(results, file)


def _same(a, b) -> bool:
    """Byte-for-byte equality of nested results (lists, dicts, arrays, None)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is b
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _differences(a, b, path=""):
    """Where two nested results differ (for the report)."""
    if isinstance(a, dict):
        return [d for k in a for d in _differences(a[k], b.get(k), f"{path}/{k}")]
    if isinstance(a, list):
        if b is None or len(a) != len(b):
            return [f"{path}: length"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if _same(a, b) else [path]


def _run(checkout, output, only):
    env = dict(os.environ, PYTHONPATH=str(checkout))
    cache = env.get("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "numba_compare"))
    env["NUMBA_CACHE_DIR"] = f"{cache}_{Path(checkout).name}"
    command = [sys.executable, __file__, "--child", str(output)] + sum(
        (["--only", name] for name in only), [])
    subprocess.run(command, env=env, check=True)
    with open(output, "rb") as file:
        return pickle.load(file)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", nargs="?", help="the other checkout's root")
    parser.add_argument("--only", action="append", default=[], help="configuration name")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, set(args.only))
        return
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as directory:
        ours = _run(here, Path(directory) / "ours.pkl", args.only)
        theirs = _run(Path(args.other).resolve(), Path(directory) / "theirs.pkl", args.only)
    n_different = 0
    for name in ours:
        differences = _differences(ours[name], theirs[name])
        n_trees = len(ours[name]["trees"])
        status = "identical" if not differences else "DIFFERENT: " + ", ".join(differences[:6])
        n_different += bool(differences)
        print(f"{name:34s} {n_trees:2d} tree(s) {status}")
    print(f"{len(ours) - n_different} of {len(ours)} configurations identical to {args.other}")
    sys.exit(1 if n_different else 0)


if __name__ == "__main__":
    main()
