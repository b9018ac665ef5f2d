"""Engine benchmark (issue 2): one classification tree, treesmith vs scikit-learn vs LightGBM.

Prints, in one run, fit time, predict time and peak memory on ``make_classification`` data
(50 features, 3 classes) for a full-depth gini tree and a depth-limited one, the first-call
compile time with an empty Numba cache, the warm ``import treesmith`` + fit on iris, a table
of ratios against the peers and the goals of issue 2 beside them. Every figure printed is
measured in this run.

    python benchmarks/bench_engine.py                  # 1e5 and 1e6 rows (scikit-learn 1e6 ~140 s)
    python benchmarks/bench_engine.py --skip-slow      # without scikit-learn full depth at >= 1e6
    python benchmarks/bench_engine.py --quick          # smoke run on small data
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    RESULT_MARKER,
    PeakMemory,
    environment_lines,
    format_megabytes,
    format_ratio,
    format_seconds,
    format_table,
    git_revision_line,
    load_arrays,
    load_average_line,
    make_classification_data,
    median,
    run_snippet,
    run_worker,
    save_arrays,
    timed,
    timed_with_cpu,
    worker_main,
)

REPO_ROOT = Path(__file__).resolve().parents[1]

DATASET = {
    "n_features": 50,
    "n_classes": 3,
    "n_informative": 15,
    "n_redundant": 5,
    "random_state": 0,
}
#: name -> max_depth (None = grown until pure or unsplittable).
CONFIGS = {"full": None, "depth8": 8}
DEFAULT_SIZES = (100_000, 1_000_000)
QUICK_SIZES = (10_000, 50_000)
MAX_BINS = 255
WARMUP_ROWS = 2_000
#: treesmith's warm-up rows: enough for the kernels a large fit and predict use and a small one
#: does not (parallel histogram build, subtree growth, parallel traversal: 2^19 sample-features,
#: 2^14 rows), so that with an empty Numba cache their compilation is not timed either.
TREESMITH_WARMUP_ROWS = 20_000
#: scikit-learn full depth at this many rows or more is "slow": run once, or skipped by --skip-slow.
SLOW_ROWS = 1_000_000

#: LightGBM's hard upper limit on num_leaves.
LGBM_MAX_NUM_LEAVES = 131_072
#: A full-depth LightGBM tree gets num_leaves = this x treesmith's leaf count on the same data:
#: LightGBM's cost grows with num_leaves itself (it scans every leaf slot per split), so an
#: unbounded limit would misrepresent it; the headroom keeps the limit from binding.
LGBM_LEAF_HEADROOM = 1.25
#: Cap on LightGBM's histogram cache; unlimited it allocates num_leaves x 50 x 255 x 16 bytes.
LGBM_HISTOGRAM_POOL_MB = 1024

GOAL_FIT_VS_SKLEARN = 0.1
GOAL_FIT_VS_LGBM_PER_TREE = 1.5
GOAL_PREDICT_VS_SKLEARN = 1.0
GOAL_COLD_FIT_S = 15.0
GOAL_WARM_IMPORT_FIT_S = 1.0
GOAL_PEAK_OVER_INPUT = 1.5
#: Issue 11: full depth at 1e6 on the machine's cores (2), and depth 8 against LightGBM.
GOAL_FULL_DEPTH_1E6_S = 4.0
GOAL_DEPTH8_VS_LGBM_PER_TREE = 0.6

LIBRARY_LABELS = {"treesmith": "treesmith", "sklearn": "scikit-learn", "lightgbm": "LightGBM"}


# == worker side: one library, one size, one config, in its own process ====================
def _lightgbm_params(max_depth, num_leaves, n_classes, n_threads):
    return {
        "objective": "multiclass",
        "num_class": n_classes,
        "learning_rate": 1.0,
        "num_leaves": num_leaves,
        "max_depth": -1 if max_depth is None else max_depth,
        "min_data_in_leaf": 1,
        "min_sum_hessian_in_leaf": 0.0,
        "lambda_l2": 0.0,
        "lambda_l1": 0.0,
        "min_gain_to_split": 0.0,
        "max_bin": MAX_BINS,
        "histogram_pool_size": LGBM_HISTOGRAM_POOL_MB,
        "num_threads": n_threads,
        "verbose": -1,
        "seed": 0,
    }


def _fit_treesmith(X, y, payload):
    import treesmith

    model = treesmith.DecisionTreeClassifier(
        criterion="gini", max_depth=payload["max_depth"], max_bins=MAX_BINS, random_state=0
    )
    return model.fit(X, y), {}


def _fit_sklearn(X, y, payload):
    from sklearn.tree import DecisionTreeClassifier

    model = DecisionTreeClassifier(criterion="gini", max_depth=payload["max_depth"], random_state=0)
    return model.fit(X, y), {}


def _fit_lightgbm(X, y, payload):
    import lightgbm

    params = _lightgbm_params(
        payload["max_depth"], payload["lgbm_num_leaves"], DATASET["n_classes"], payload["n_threads"]
    )
    construct_s, dataset = timed(
        lambda: lightgbm.Dataset(X, label=y, params=params, free_raw_data=True).construct()
    )
    train_s, booster = timed(lightgbm.train, params, dataset, num_boost_round=1)
    return booster, {"construct_s": construct_s, "train_s": train_s}


def _predict_lightgbm(booster, X):
    return booster.predict(X).argmax(axis=1)


def _tree_depth(node):
    """Depth of a LightGBM tree from its ``dump_model`` structure (a single leaf has depth 0)."""
    deepest, stack = 0, [(node, 0)]
    while stack:
        node, depth = stack.pop()
        if "left_child" in node:
            stack += [(node["left_child"], depth + 1), (node["right_child"], depth + 1)]
        else:
            deepest = max(deepest, depth)
    return deepest


def _describe_lightgbm(booster):
    trees = booster.dump_model()["tree_info"]
    return {
        "n_trees": len(trees),
        "leaves_per_tree": [tree["num_leaves"] for tree in trees],
        "depth_per_tree": [_tree_depth(tree["tree_structure"]) for tree in trees],
    }


def _describe_estimator(model):
    return {
        "n_trees": 1,
        "leaves_per_tree": [int(model.get_n_leaves())],
        "depth_per_tree": [int(model.get_depth())],
    }


_ADAPTERS = {
    "treesmith": (_fit_treesmith, lambda model, X: model.predict(X), _describe_estimator),
    "sklearn": (_fit_sklearn, lambda model, X: model.predict(X), _describe_estimator),
    "lightgbm": (_fit_lightgbm, _predict_lightgbm, _describe_lightgbm),
}


def measure_case(payload):
    """Fit/predict one library ``repeats`` times on the saved data; time, peak memory, tree size.

    A warm-up fit and predict on the first rows comes first, so imports, loading or compiling
    kernels and starting thread pools are not counted (compile time is measured separately).
    """
    fit, predict, describe = _ADAPTERS[payload["library"]]
    X, y = load_arrays(payload["data"])
    warm_rows = min(TREESMITH_WARMUP_ROWS if payload["library"] == "treesmith" else WARMUP_ROWS,
                    X.shape[0] // 2)
    warm_model, _ = fit(X[:warm_rows], y[:warm_rows], payload)
    predict(warm_model, X[:warm_rows])
    del warm_model

    fit_s, fit_cpu_s, predict_s, peak_bytes, stages = [], [], [], [], []
    for _ in range(payload["repeats"]):
        model = predicted = None
        with PeakMemory() as memory:
            seconds, cpu_seconds, (model, stage_s) = timed_with_cpu(fit, X, y, payload)
        fit_s.append(seconds)
        fit_cpu_s.append(cpu_seconds)
        peak_bytes.append(memory.extra_bytes)
        stages.append(stage_s)
        seconds, predicted = timed(predict, model, X)
        predict_s.append(seconds)
    result = {
        "fit_s": fit_s,
        "fit_cpu_s": fit_cpu_s,
        "predict_s": predict_s,
        "peak_bytes": peak_bytes,
        "memory_method": memory.method,
        "input_bytes": int(X.nbytes),
        "train_accuracy": float((predicted == y).mean()),
        "stages": {key: [s[key] for s in stages] for key in stages[0]},
    }
    result.update(describe(model))
    return result


# == parent side ===========================================================================
def _child_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


_STARTUP_SNIPPET = f"""
import json, time
start, cpu_start = time.perf_counter(), time.process_time()
import treesmith
imported = time.perf_counter()
from sklearn.datasets import load_iris
X, y = load_iris(return_X_y=True)
loaded, cpu_loaded = time.perf_counter(), time.process_time()
model = treesmith.DecisionTreeClassifier().fit(X, y)
fitted, cpu_fitted = time.perf_counter(), time.process_time()
model.predict(X)
predicted = time.perf_counter()
print({RESULT_MARKER!r} + json.dumps({{
    "import_s": imported - start, "fit_s": fitted - loaded, "predict_s": predicted - fitted,
    "import_fit_cpu_s": (cpu_fitted - cpu_loaded) + (cpu_loaded - cpu_start),
}}))
"""

#: Imports treesmith cannot avoid (its estimators subclass sklearn.base.BaseEstimator and its
#: kernels are Numba functions): a floor under the warm import time.
_DEPENDENCY_SNIPPET = f"""
import json, time
start, cpu_start = time.perf_counter(), time.process_time()
import numpy, numba, sklearn.base
print({RESULT_MARKER!r} + json.dumps({{"import_s": time.perf_counter() - start,
                                       "import_fit_cpu_s": time.process_time() - cpu_start}}))
"""


def measure_startup(cache_dir, repeats, threads):
    """`import treesmith` + fit/predict on iris in fresh processes sharing one NUMBA_CACHE_DIR.

    The first process sees the new, empty cache directory (compile everything: "first fit
    after install"); the following ``repeats`` see the cache it wrote (warm). Also the import
    time of treesmith's unavoidable dependencies alone (median of ``repeats`` processes).
    Returns ``{"cold": ..., "warm": ..., "dependencies": ...}``, each a dict of seconds.
    Python writes and reuses its bytecode cache as it does by default (a
    PYTHONDONTWRITEBYTECODE inherited from the shell is dropped): with it set, every run would
    recompile treesmith's modules from source, which no installed copy does.
    """
    env = threads.env(NUMBA_CACHE_DIR=str(cache_dir))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs = {"cold": [], "warm": [], "dependencies": []}
    for name, snippet, n_runs in (
        ("cold", _STARTUP_SNIPPET, 1),
        ("warm", _STARTUP_SNIPPET, repeats),
        ("dependencies", _DEPENDENCY_SNIPPET, repeats),
    ):
        for _ in range(n_runs):
            wall, result = run_snippet(snippet, env=env, cwd=REPO_ROOT)
            result["process_s"] = wall
            runs[name].append(result)
    return {
        name: {key: median([run[key] for run in results]) for key in results[0]}
        for name, results in runs.items()
    }


def _run_case(library, size, config, data_paths, repeats, threads, lgbm_num_leaves=None):
    payload = {
        "task": "case",
        "library": library,
        "max_depth": CONFIGS[config],
        "data": data_paths,
        "repeats": repeats,
        "n_threads": threads.n_threads,
        "lgbm_num_leaves": lgbm_num_leaves,
    }
    result = run_worker(Path(__file__).resolve(), payload, env=threads.env())
    print(
        f"  [{_rows(size)} {config}] {LIBRARY_LABELS[library]}: fit "
        f"{format_seconds(median(result['fit_s']))} s, predict "
        f"{format_seconds(median(result['predict_s']))} s, leaves "
        f"{'/'.join(map(str, result['leaves_per_tree']))}",
        file=sys.stderr,
        flush=True,
    )
    return result


def _lgbm_num_leaves(max_depth, treesmith_leaves):
    if max_depth is not None:
        return min(LGBM_MAX_NUM_LEAVES, 2**max_depth)
    return min(LGBM_MAX_NUM_LEAVES, max(2, math.ceil(LGBM_LEAF_HEADROOM * treesmith_leaves)))


def _rows(n):
    exponent = math.log10(n)
    return f"1e{int(exponent)}" if exponent == int(exponent) else f"{n:,}"


@dataclass(frozen=True)
class ThreadSettings:
    """Threads of the worker processes, the same for every library.

    Numba (its "omp" threading layer) and LightGBM both run on OpenMP. Its default wait policy
    spins idle threads; when other processes share the cores that makes both many times
    slower, so the default sets ``OMP_WAIT_POLICY=PASSIVE``.
    """

    n_threads: int
    omp_wait_policy: str  # "PASSIVE", "ACTIVE" or "" (the OpenMP runtime's default)

    def env(self, **extra):
        settings = {
            "NUMBA_NUM_THREADS": str(self.n_threads),
            "OMP_NUM_THREADS": str(self.n_threads),
        }
        if self.omp_wait_policy:
            settings["OMP_WAIT_POLICY"] = self.omp_wait_policy
        return _child_env(**settings, **extra)


def run_benchmark(sizes, repeats, skip_slow, threads, workdir):
    """All cases; returns ``{(size, config): {library: result}}`` (missing library = skipped)."""
    results = {}
    for size in sizes:
        X, y = make_classification_data(size, **DATASET)
        data_paths = save_arrays(workdir, f"data_{size}", X, y)
        del X, y
        for config, max_depth in CONFIGS.items():
            case = results[(size, config)] = {}
            case["treesmith"] = _run_case("treesmith", size, config, data_paths, repeats, threads)
            slow = max_depth is None and size >= SLOW_ROWS
            if not (slow and skip_slow):
                case["sklearn"] = _run_case(
                    "sklearn", size, config, data_paths, 1 if slow else repeats, threads
                )
            num_leaves = _lgbm_num_leaves(max_depth, case["treesmith"]["leaves_per_tree"][0])
            case["lightgbm"] = _run_case(
                "lightgbm", size, config, data_paths, repeats, threads, lgbm_num_leaves=num_leaves
            )
            if max_depth is None:  # with a depth limit, num_leaves = 2^depth never binds
                case["lightgbm"]["num_leaves_param"] = num_leaves
        for path in data_paths.values():
            os.remove(path)
    return results


# -- figures derived from the raw results --------------------------------------------------
def fit_s(result):
    return median(result["fit_s"]) if result else None


def predict_s(result):
    return median(result["predict_s"]) if result else None


def peak_bytes(result):
    return max(result["peak_bytes"]) if result else None


def lgbm_per_tree_fit_s(result):
    """LightGBM per tree: Dataset construction (binning, done once) + training time / trees."""
    if not result:
        return None
    return (
        median(result["stages"]["construct_s"])
        + median(result["stages"]["train_s"]) / result["n_trees"]
    )


# -- report ---------------------------------------------------------------------------------
def _method_lines(args, memory_method):
    recipe = ", ".join(f"{k}={v}" for k, v in DATASET.items())
    lgbm = _lightgbm_params("<depth or -1>", "<num_leaves>", DATASET["n_classes"], args.threads)
    lgbm_text = ", ".join(f"{k}={v}" for k, v in lgbm.items() if k != "verbose")
    slow_sizes = [s for s in args.sizes if s >= SLOW_ROWS]
    slow_text = ""
    if slow_sizes:
        slow_text = f"; scikit-learn full depth at >= {_rows(SLOW_ROWS)} rows " + (
            "is skipped (--skip-slow)" if args.skip_slow else "runs once"
        )
    return [
        (
            f"data: make_classification({recipe}) as float32 C-ordered X; rows: "
            f"{', '.join(_rows(s) for s in args.sizes)}; predictions on the training rows."
        ),
        (
            "configs: full = criterion gini, max_depth None (grown until pure or unsplittable); "
            "depth8 = the same with max_depth 8."
        ),
        (
            f"threads: {args.threads} for treesmith (NUMBA_NUM_THREADS) and LightGBM (num_threads, "
            "OMP_NUM_THREADS); scikit-learn's tree is single-threaded. 'cpu s' = process CPU time "
            "of the fit over all threads. OMP_WAIT_POLICY="
            f"{args.omp_wait_policy or '(runtime default)'} for all (Numba's 'omp' threading layer "
            "and LightGBM both use OpenMP; spinning threads are very slow on a shared machine)."
        ),
        (
            f"treesmith: DecisionTreeClassifier(criterion='gini', max_depth=<depth>, "
            f"max_bins={MAX_BINS}, random_state=0)."
        ),
        (
            "scikit-learn: DecisionTreeClassifier(criterion='gini', max_depth=<depth>, "
            "random_state=0): exact thresholds, no binning."
        ),
        (
            f"LightGBM: lightgbm.Dataset(X, y).construct() then lightgbm.train({lgbm_text}, "
            f"num_boost_round=1). The multiclass objective grows {DATASET['n_classes']} trees in "
            "that one round (one per class, on gradients and hessians, not gini)."
        ),
        (
            f"  num_leaves: depth8 -> 2^8; full -> {LGBM_LEAF_HEADROOM} x treesmith's leaf count on "
            f"the same data (at most {LGBM_MAX_NUM_LEAVES}), because LightGBM's time grows with "
            "num_leaves itself; '!' after a leaf count = that tree reached the limit."
        ),
        (
            f"  histogram_pool_size={LGBM_HISTOGRAM_POOL_MB} MB: without a cap LightGBM allocates a "
            "histogram per possible leaf (num_leaves x 50 x 255 x 16 bytes, 26 GB at 131072); the "
            "pool is most of its peak memory on full-depth trees."
        ),
        (
            "  'LightGBM' rows = all trees (Dataset construction + train); 'LightGBM/tree' = "
            "construction + train / number of trees (binning is done once and charged in full)."
        ),
        (
            f"times: median of {args.repeats} repeat(s) in a fresh process per library and case, "
            f"after a warm-up fit + predict on the first {WARMUP_ROWS} rows "
            f"({TREESMITH_WARMUP_ROWS} for treesmith, whose parallel kernels compile on first "
            f"use; imports and compilation excluded){slow_text}."
        ),
        (
            f"peak memory: extra resident memory of one fit = peak RSS during the fit - RSS just "
            f"before it (data loaded, warm-up done), worst of the repeats; method: {memory_method} "
            "(Linux: kernel high-water mark VmHWM, reset through /proc/self/clear_refs; elsewhere "
            "psutil RSS sampled every 1 ms). 'x input' = that extra / size of the float32 X."
        ),
        (
            "startup: python -c 'import treesmith; X, y = load_iris(); fit; predict' in fresh "
            "processes with NUMBA_CACHE_DIR set to a new empty directory: the first process "
            "compiles everything (cold = first fit after install), the next "
            f"{args.repeats} reuse the cache it wrote (warm, median); load_iris is not counted; "
            "Python's bytecode cache on, as by default."
        ),
        (
            "goals are checked at the largest size measured (issue 2 states them at 1e6 rows); "
            "predict and memory at the worst config of that size."
        ),
    ]


def _leaves_text(result):
    limit = result.get("num_leaves_param")
    return "/".join(f"{n}{'!' if limit and n >= limit else ''}" for n in result["leaves_per_tree"])


def _measurement_table(results):
    rows = []
    for (size, config), case in results.items():
        for library in ("treesmith", "sklearn", "lightgbm"):
            result = case.get(library)
            label = LIBRARY_LABELS[library]
            if result is None:
                rows.append([_rows(size), config, label, "skipped"] + [""] * 8)
                continue
            fit_text = format_seconds(fit_s(result))
            if library == "lightgbm":
                fit_text += (
                    f" (bin {format_seconds(median(result['stages']['construct_s']))}"
                    f" + train {format_seconds(median(result['stages']['train_s']))})"
                )
                label += f" ({result['n_trees']} trees)"
            rows.append(
                [
                    _rows(size),
                    config,
                    label,
                    fit_text,
                    format_seconds(median(result["fit_cpu_s"])),
                    format_seconds(predict_s(result)),
                    format_megabytes(peak_bytes(result)),
                    f"{peak_bytes(result) / result['input_bytes']:.2f}",
                    _leaves_text(result),
                    "/".join(map(str, result["depth_per_tree"])),
                    f"{result['train_accuracy']:.4f}",
                    str(len(result["fit_s"])),
                ]
            )
            if library == "lightgbm":
                rows.append(
                    [
                        _rows(size),
                        config,
                        "LightGBM/tree",
                        format_seconds(lgbm_per_tree_fit_s(result)),
                    ]
                    + [""] * 8
                )
    headers = [
        "rows",
        "config",
        "library",
        "fit s",
        "cpu s",
        "predict s",
        "peak MB",
        "x input",
        "leaves",
        "depth",
        "train acc",
        "runs",
    ]
    return format_table(
        headers,
        rows,
        n_left=3,
        title="Measurements (seconds; MB = 1e6 bytes of extra peak RSS in fit)",
    )


def _ratio(numerator, denominator):
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator


def _fmt_x(value):
    return "-" if value is None else f"{value:.3g}x"


def _ratio_table(results):
    rows = []
    for (size, config), case in results.items():
        ts, sk, lg = case["treesmith"], case.get("sklearn"), case["lightgbm"]
        rows.append(
            [
                _rows(size),
                config,
                format_ratio(fit_s(ts), fit_s(sk)),
                format_ratio(fit_s(ts), lgbm_per_tree_fit_s(lg)),
                format_ratio(fit_s(ts), fit_s(lg)),
                format_ratio(predict_s(ts), predict_s(sk)),
                format_ratio(predict_s(ts), predict_s(lg)),
                format_ratio(peak_bytes(ts), peak_bytes(sk)),
                format_ratio(peak_bytes(ts), peak_bytes(lg)),
                _fmt_x(peak_bytes(ts) / ts["input_bytes"]),
            ]
        )
    rows.append(
        [
            "goal",
            "",
            f"<={GOAL_FIT_VS_SKLEARN:g}x full",
            f"<={GOAL_FIT_VS_LGBM_PER_TREE:g}x full",
            "",
            f"<={GOAL_PREDICT_VS_SKLEARN:g}x",
            "",
            "",
            "",
            f"<{GOAL_PEAK_OVER_INPUT:g}x",
        ]
    )
    headers = [
        "rows",
        "config",
        "fit ts/sk",
        "fit ts/LGBM-tree",
        "fit ts/LGBM",
        "pred ts/sk",
        "pred ts/LGBM",
        "mem ts/sk",
        "mem ts/LGBM",
        "ts mem/input",
    ]
    return format_table(
        headers,
        rows,
        n_left=2,
        title="Ratios treesmith / peer (below 1 = "
        "treesmith faster or smaller; goals of issue 2 in the last row)",
    )


def _verdict(value, limit, strict=False):
    if value is None:
        return "not measured"
    return "yes" if (value < limit if strict else value <= limit) else "NO"


def _goal_table(results, startup):
    cold, warm = startup["cold"], startup["warm"]
    cold_s = cold["import_s"] + cold["fit_s"]
    warm_s = warm["import_s"] + warm["fit_s"]
    startup_rows = [
        [
            "import + first fit, empty Numba cache",
            "iris",
            f"{format_seconds(cold_s)} s",
            f"<{GOAL_COLD_FIT_S:g} s",
            _verdict(cold_s, GOAL_COLD_FIT_S, strict=True),
        ],
        [
            "import + fit, warm cache",
            "iris",
            f"{format_seconds(warm_s)} s",
            f"<{GOAL_WARM_IMPORT_FIT_S:g} s",
            _verdict(warm_s, GOAL_WARM_IMPORT_FIT_S, strict=True),
        ],
    ]
    rows = (_result_goal_rows(results) if results else []) + startup_rows
    return format_table(
        ["goal (issue 2)", "case", "measured", "target", "met"], rows, n_left=2, title="Goals"
    )


def _result_goal_rows(results):
    size = max(size for size, _ in results)
    where = _rows(size) + ("" if size == SLOW_ROWS else " (goal: 1e6)")
    cases = {config: results[(size, config)] for config in CONFIGS}
    full = cases["full"]
    fit_vs_sk = _ratio(fit_s(full["treesmith"]), fit_s(full.get("sklearn")))
    fit_vs_lgbm = _ratio(fit_s(full["treesmith"]), lgbm_per_tree_fit_s(full["lightgbm"]))
    predict_ratios = [
        (_ratio(predict_s(case["treesmith"]), predict_s(case["sklearn"])), config)
        for config, case in cases.items()
        if case.get("sklearn")
    ]
    worst_predict = max(predict_ratios, default=(None, ""))
    memory_by_size = {
        n: max((peak_bytes(results[(n, config)]["treesmith"])
                / results[(n, config)]["treesmith"]["input_bytes"], config)
               for config in CONFIGS)
        for n in sorted({n for n, _ in results})
    }
    worst_memory = memory_by_size[size]
    depth8 = cases.get("depth8")
    depth8_vs_lgbm = _ratio(fit_s(depth8["treesmith"]), lgbm_per_tree_fit_s(depth8["lightgbm"])
                            ) if depth8 else None
    issue_11_rows = [
        [
            "full-depth gini fit (issue 11)",
            f"{where} full",
            f"{format_seconds(fit_s(full['treesmith']))} s",
            f"<={GOAL_FULL_DEPTH_1E6_S:g} s",
            _verdict(fit_s(full["treesmith"]), GOAL_FULL_DEPTH_1E6_S),
        ],
        [
            "depth-8 gini fit: treesmith / LightGBM per tree (issue 11)",
            f"{where} depth8",
            _fmt_x(depth8_vs_lgbm),
            f"<={GOAL_DEPTH8_VS_LGBM_PER_TREE:g}x",
            _verdict(depth8_vs_lgbm, GOAL_DEPTH8_VS_LGBM_PER_TREE),
        ],
    ] + [
        [
            "extra peak memory of fit / float32 input (worst, issue 11)",
            f"{_rows(n)} {config}",
            _fmt_x(ratio),
            f"<{GOAL_PEAK_OVER_INPUT:g}x",
            _verdict(ratio, GOAL_PEAK_OVER_INPUT, strict=True),
        ]
        for n, (ratio, config) in memory_by_size.items() if n != size
    ]
    return [
        [
            "full-depth gini fit: treesmith / scikit-learn",
            f"{where} full",
            _fmt_x(fit_vs_sk),
            f"<={GOAL_FIT_VS_SKLEARN:g}x (10x faster)",
            _verdict(fit_vs_sk, GOAL_FIT_VS_SKLEARN),
        ],
        [
            "full-depth gini fit: treesmith / LightGBM per tree",
            f"{where} full",
            _fmt_x(fit_vs_lgbm),
            f"<={GOAL_FIT_VS_LGBM_PER_TREE:g}x",
            _verdict(fit_vs_lgbm, GOAL_FIT_VS_LGBM_PER_TREE),
        ],
        [
            "predict: treesmith / scikit-learn (worst config)",
            f"{where} {worst_predict[1]}",
            _fmt_x(worst_predict[0]),
            f"<={GOAL_PREDICT_VS_SKLEARN:g}x",
            _verdict(worst_predict[0], GOAL_PREDICT_VS_SKLEARN),
        ],
        [
            "extra peak memory of fit / float32 input (worst)",
            f"{where} {worst_memory[1]}",
            _fmt_x(worst_memory[0]),
            f"<{GOAL_PEAK_OVER_INPUT:g}x",
            _verdict(worst_memory[0], GOAL_PEAK_OVER_INPUT, strict=True),
        ],
    ] + issue_11_rows


def _startup_table(startup):
    labels = {
        "cold": "treesmith, cold (empty cache)",
        "warm": "treesmith, warm (median)",
        "dependencies": "import numpy, numba, sklearn.base only",
    }
    rows = []
    for name, label in labels.items():
        run = startup[name]
        fit = run.get("fit_s")
        rows.append(
            [
                label,
                format_seconds(run["import_s"]),
                format_seconds(fit),
                format_seconds(run["import_s"] + (fit or 0.0)),
                format_seconds(run["import_fit_cpu_s"]),
                format_seconds(run.get("predict_s")),
                format_seconds(run["process_s"]),
            ]
        )
    headers = [
        "iris, fresh process",
        "import s",
        "fit s",
        "import+fit s",
        "cpu s",
        "1st predict s",
        "process wall s",
    ]
    return format_table(
        headers,
        rows,
        title="Startup (NUMBA_CACHE_DIR = a new directory; cpu s = CPU time of import + fit)",
    )


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(float(s)) for s in text.split(",")],
        default=None,
        help="comma-separated row counts, e.g. 1e5,1e6 (default 1e5,1e6; with --quick 1e4,5e4)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="repeats per case, the median is reported (default 3; --quick 1)",
    )
    parser.add_argument("--quick", action="store_true", help="smoke run on small data")
    parser.add_argument(
        "--startup-only",
        action="store_true",
        help="measure only the startup goals (cold compile, warm import + fit): about a minute",
    )
    parser.add_argument(
        "--skip-slow",
        action="store_true",
        help=f"skip scikit-learn full depth at >= {_rows(SLOW_ROWS)} rows (~140 s)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count(),
        help="threads for treesmith and LightGBM (default: all cores)",
    )
    parser.add_argument(
        "--omp-wait-policy",
        choices=["passive", "active", "default"],
        default="passive",
        help="OMP_WAIT_POLICY of the workers (default passive: idle threads sleep instead of "
        "spinning, which matters when other processes share the cores)",
    )
    args = parser.parse_args(argv)
    args.omp_wait_policy = "" if args.omp_wait_policy == "default" else args.omp_wait_policy.upper()
    if args.sizes is None:
        args.sizes = list(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    if args.repeats is None:
        args.repeats = 1 if args.quick else 3
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.threads < 1:
        parser.error("--threads must be at least 1")
    if any(size < 2 * WARMUP_ROWS for size in args.sizes):
        parser.error(f"--sizes must all be at least {2 * WARMUP_ROWS}")
    args.sizes = sorted(set(args.sizes))
    return args


def main(argv=None):
    args = parse_args(argv)
    print(
        "treesmith engine benchmark: python benchmarks/bench_engine.py "
        + " ".join(sys.argv[1:] if argv is None else argv)
    )
    for line in environment_lines():
        print(line)
    print(git_revision_line(REPO_ROOT))
    with tempfile.TemporaryDirectory(prefix="treesmith-bench-") as workdir:
        print("measuring startup (cold compile, then warm) ...", file=sys.stderr, flush=True)
        threads = ThreadSettings(args.threads, args.omp_wait_policy)
        startup = measure_startup(Path(workdir) / "numba-cache", args.repeats, threads)
        if args.startup_only:
            results = {}
        else:
            results = run_benchmark(args.sizes, args.repeats, args.skip_slow, threads, workdir)
    print(load_average_line("at end"))
    if not results:
        for table in (_startup_table(startup), _goal_table(results, startup)):
            print()
            print(table)
        return
    memory_method = next(iter(results.values()))["treesmith"]["memory_method"]
    print("\nMethod")
    for line in _method_lines(args, memory_method):
        print("- " + line)
    for table in (
        _measurement_table(results),
        _startup_table(startup),
        _ratio_table(results),
        _goal_table(results, startup),
    ):
        print()
        print(table)


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker_main({"case": measure_case})
    else:
        main()
