"""The method panel and runner behind ``treesmith compare`` (and ``treesmith fit --method``).

A *method* is a named factory that fits one configured tree on training data. The panel is a
registry (:data:`METHODS`): later work adds a method with one :func:`register_method` entry
naming the modules it needs, and the panel offers it as soon as those modules import. The
runner repeats stratified train/test splits, fits every method on each (in parallel with
joblib), and measures test accuracy, ROC AUC, expected cost, leaves, depth and fit time.

Expected cost (docs/methods.md §5) is Σ_x p(x)·cost(path of x) over the test set, with p(x) the
normalised sample weights. It comes from ``treesmith.metrics.expected_cost`` when that module
exists and from :func:`path_cost` here otherwise (per-test costs: every test on the path pays
its feature's cost). With unit costs it is the expected number of tests per example, i.e. the mean
path length minus one, which is how it is labelled then.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from numbers import Integral, Real

import numpy as np

from ._compat import optional_import
from ._threading import resolve_n_jobs
from ._validation import Interval, check_parameter
from .costs import node_path_costs

#: Metrics of one fit, in table order: column -> label.
METRIC_LABELS = {
    "accuracy": "accuracy",
    "roc_auc": "ROC AUC",
    "expected_cost": "expected cost",
    "n_leaves": "leaves",
    "depth": "depth",
    "fit_time": "fit time (s)",
}
UNIT_COST_LABEL = "expected tests per example (unit costs)"
COST_LABEL = "expected cost per example (cost units)"


@dataclass(frozen=True)
class FitContext:
    """What a method factory may use besides the training data.

    random_state: seed of this fit (one per repeat).
    feature_costs: cost of each column, or None for unit costs.
    params: estimator parameters that override the method's own (e.g. ``criterion``).
    """

    random_state: int = 0
    feature_costs: np.ndarray | None = None
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Method:
    """A named way of fitting one tree: ``fit(X, y, context) -> fitted estimator``."""

    name: str
    description: str
    fit: Callable
    requires: tuple[str, ...] = ()
    reference: bool = False
    #: Whether the method splits categorical columns itself (treesmith's trees); the others
    #: are given the one-hot encoded data when :func:`run_comparison` has it.
    reads_categories: bool = True

    def available(self) -> bool:
        """True when every module in ``requires`` imports."""
        for module in self.requires:
            try:
                import_module(module)
            except ImportError:
                return False
        return True


#: The method registry, in panel order.
METHODS: dict[str, Method] = {}


def register_method(name: str, description: str, requires: tuple[str, ...] = (),
                    reference: bool = False, reads_categories: bool = True):
    """Decorator adding ``fit(X, y, context)`` to the panel under ``name``; ``reference=True``
    marks a yardstick (not a method of the papers) that the panel lists last;
    ``reads_categories=False`` a method that needs numeric (one-hot encoded) columns."""

    def decorator(fit):
        if name in METHODS:
            raise ValueError(f"method {name!r} is already registered")
        METHODS[name] = Method(name, description, fit, tuple(requires), reference,
                               reads_categories)
        return fit

    return decorator


def available_methods() -> list[str]:
    """Names of the registered methods whose modules import (the default panel), the
    reference rows last."""
    names = [name for name, method in METHODS.items() if method.available()]
    return sorted(names, key=lambda name: METHODS[name].reference)


def reference_methods() -> list[str]:
    """Names of the reference rows (majority-class baseline, scikit-learn's tree)."""
    return [name for name, method in METHODS.items() if method.reference]


def get_method(name: str) -> Method:
    """The registered, available method ``name``; ValueError listing the choices otherwise."""
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; choose from {available_methods()}")
    method = METHODS[name]
    if not method.available():
        raise ValueError(f"method {name!r} needs {', '.join(method.requires)}, which is not "
                         f"available in this installation")
    return method


def base_tree(context: FitContext, **params):
    """A ``DecisionTreeClassifier`` with ``params``, the context's overrides and seed, and the
    feature costs when the estimator accepts them."""
    from .estimators import DecisionTreeClassifier

    estimator = DecisionTreeClassifier(random_state=context.random_state)
    estimator.set_params(**params)
    accepted = estimator.get_params()
    unknown = sorted(set(context.params) - set(accepted))
    if unknown:
        raise ValueError(f"unknown estimator parameter(s) {unknown}; the tree accepts "
                         f"{sorted(accepted)}")
    estimator.set_params(**context.params)
    if context.feature_costs is not None and "feature_costs" in accepted:
        estimator.set_params(feature_costs=np.asarray(context.feature_costs, dtype=float))
    return estimator


# -- the panel ----------------------------------------------------------------------------------
@register_method("cart", "CART: gini gain, grown until pure (docs/methods.md §4)")
def _fit_cart(X, y, context: FitContext):
    return base_tree(context, criterion="gini").fit(X, y)


@register_method("c45", "C4.5 release 8 as Weka's J48 builds it (C45Classifier: gain ratio, "
                        "MDL-corrected cuts, error-based pruning CF = 0.25 with subtree raising)")
def _fit_c45(X, y, context: FitContext):
    from .c45 import C45Classifier

    estimator = C45Classifier()
    accepted = estimator.get_params()
    unknown = sorted(set(context.params) - set(accepted))
    if unknown:  # e.g. criterion or max_depth: C4.5 has neither, and ignoring them would lie
        raise ValueError(f"the c45 method (C45Classifier) has no parameter(s) {unknown}; it "
                         f"accepts {sorted(accepted)}")
    return estimator.set_params(**context.params).fit(X, y)


@register_method("cart-pruned",
                 "CART + cost-complexity pruning, alpha by 5-fold CV (Breiman et al. 1984)",
                 requires=("treesmith.pruning",))
def _fit_pruned_cart(X, y, context: FitContext):
    from .model_selection import select_ccp_alpha

    return select_ccp_alpha(base_tree(context, criterion="gini"), X, y, cv=5).estimator


@register_method("cc45", "CC4.5: entropy gain / feature cost (Zhang & Gionis 2023's cost-benefit baseline)",
                 requires=("treesmith.rules",))
def _fit_cost_benefit(X, y, context: FitContext):
    return base_tree(context, criterion="entropy", split_rule="cost_benefit").fit(X, y)


def _validation_split(X, y, context: FitContext, fraction: float = 0.125):
    """Stratified train / validation parts of the training data (Zhang & Gionis 2023 uses 70/10)."""
    from sklearn.model_selection import train_test_split

    try:
        return train_test_split(X, y, test_size=fraction, stratify=y,
                                random_state=context.random_state)
    except ValueError:  # a class too small to stratify
        return train_test_split(X, y, test_size=fraction, random_state=context.random_state)


@register_method("ec45", "EC4.5: ECART score (B + E + lambda D) / c with entropy, theta = 0.005, "
                 "lambda chosen on a validation part as in Zhang & Gionis 2023 §6",
                 requires=("treesmith.rules",))
def _fit_ec45(X, y, context: FitContext):
    from .model_selection import select_lambda

    X_train, X_val, y_train, y_val = _validation_split(X, y, context)
    tree = base_tree(context, criterion="entropy", min_weight_fraction_split=0.005)
    return select_lambda(tree, X_train, y_train, X_val, y_val).estimator


@register_method("pe-spruned", "PE(alpha) impurity with S-pruning (s = 0.05, 199 permutations); "
                 "alpha by 3-fold CV over {0.25, 0.5, 0.75, 1} (Stamate et al. 2018)")
def _fit_pe_spruned(X, y, context: FitContext):
    from sklearn.model_selection import GridSearchCV

    from .criteria import PE

    tree = base_tree(context, significance=0.05, n_permutations=199)
    grid = {"criterion": [PE(alpha=a) for a in (0.25, 0.5, 0.75, 1.0)]}
    return GridSearchCV(tree, grid, cv=3).fit(X, y).best_estimator_


@register_method("tsallis-tuned", "(alpha, beta)-Tsallis impurity, (alpha, beta) by 3-fold CV over "
                 "alpha in {0.5, 1.5, 2, 3}, beta in {1, 2} (Balcan & Sharma 2024 §3)")
def _fit_tsallis_tuned(X, y, context: FitContext):
    import warnings

    from sklearn.model_selection import GridSearchCV

    from .criteria import Tsallis

    tree = base_tree(context)
    grid = {"criterion": [Tsallis(alpha=a, beta=b) for a in (0.5, 1.5, 2.0, 3.0) for b in (1, 2)]}
    with warnings.catch_warnings():  # alpha = 0.5 with beta = 1 is outside the concave range
        warnings.simplefilter("ignore", UserWarning)
        return GridSearchCV(tree, grid, cv=3).fit(X, y).best_estimator_


# -- reference rows ------------------------------------------------------------------------------
# Yardsticks, not methods of the papers: what predicting the majority class scores, and what
# scikit-learn's own CART scores on the same splits. A method below "majority" has learned
# nothing a constant could not; one far from "sklearn" may have a bug or a costly trade-off.
@register_method("majority", "reference: a single leaf predicting the training majority class "
                 "(its accuracy is the majority-class rate; ROC AUC 0.5)", reference=True)
def _fit_majority(X, y, context: FitContext):
    from .estimators import DecisionTreeClassifier

    # min_samples_split above the number of rows: the root is never split. Overrides such as
    # --criterion cannot change a single leaf, so the context's params are not applied.
    one_leaf = DecisionTreeClassifier(min_samples_split=len(y) + 2,
                                      random_state=context.random_state)
    return one_leaf.fit(X, y)


@register_method("sklearn-cart", "reference: scikit-learn's DecisionTreeClassifier (gini, grown "
                 "until pure, exact thresholds, native NaN support; one-hot encoded "
                 "categories)", requires=("sklearn.tree",), reference=True,
                 reads_categories=False)
def _fit_sklearn_cart(X, y, context: FitContext):
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    return SklearnTree(random_state=context.random_state).fit(X, y)


def below_majority(summary) -> tuple[float, list[str]]:
    """``(majority rate, methods whose mean accuracy is not above it)`` from a summary with a
    "majority" row; ``(nan, [])`` without one."""
    rows = summary[summary["method"] == "majority"]
    if rows.empty:
        return float("nan"), []
    rate = float(rows["accuracy_mean"].iloc[0])
    names = [name for name, accuracy in zip(summary["method"], summary["accuracy_mean"])
             if name not in reference_methods() and accuracy <= rate + 1e-12]
    return rate, names


# -- metrics ------------------------------------------------------------------------------------
def _weights(sample_weight, n_samples: int) -> np.ndarray:
    """p(x): the normalised sample weights (uniform when None)."""
    from ._validation import check_sample_weight

    return check_sample_weight(sample_weight, n_samples, normalize=True)


def path_cost(estimator, X, feature_costs=None, sample_weight=None) -> float:
    """Σ_x p(x) · (sum of the costs of the tests on x's path), per-test cost model
    (docs/methods.md §5).

    With ``feature_costs=None`` every test costs 1, giving the expected number of tests per
    example (mean path length − 1). A ``C45Classifier`` pays for every test its prediction
    evaluates (all branches below a missing value), as ``treesmith.metrics.path_costs``.
    """
    tree = estimator.tree_
    costs = np.ones(tree.n_features) if feature_costs is None else np.asarray(
        feature_costs, dtype=np.float64)
    if costs.shape != (tree.n_features,):
        raise ValueError(f"feature_costs must have {tree.n_features} entries, got "
                         f"{costs.shape[0] if costs.ndim else costs}")
    if getattr(estimator, "c45_tree_", None) is not None:  # the tests C4.5 evaluates
        from .c45._costs import visit_costs

        per_example = visit_costs(estimator.c45_tree_, estimator._encode_predict(X), costs,
                                  np.arange(tree.n_features)).cost
    else:
        per_example = node_path_costs(tree, costs)[estimator.apply(X)]
    return float(np.dot(_weights(sample_weight, per_example.shape[0]), per_example))


def expected_cost(estimator, X, feature_costs=None, sample_weight=None) -> float:
    """Expected prediction cost on ``X``: ``treesmith.metrics.expected_cost`` when it exists
    (it knows the estimator's cost model and groups), :func:`path_cost` otherwise.
    ``feature_costs=None`` means the estimator's own costs (unit costs when it has none)."""
    try:
        metric = import_module("treesmith.metrics").expected_cost
    except (ImportError, AttributeError):
        return path_cost(estimator, X, feature_costs, sample_weight)
    options = {} if feature_costs is None else {"feature_costs": feature_costs}
    return float(metric(estimator, X, sample_weight=sample_weight, **options))


def roc_auc(y_true, proba, classes) -> float:
    """ROC AUC: binary on the second class; multiclass the macro one-vs-rest average over the
    classes present in ``y_true`` (NaN when fewer than two classes are present)."""
    from sklearn.metrics import roc_auc_score

    y_true = np.asarray(y_true)
    classes = np.asarray(classes)
    positives = [k for k, label in enumerate(classes) if 0 < np.sum(y_true == label) <
                 y_true.shape[0]]
    if len(positives) == 0:
        return float("nan")
    if classes.shape[0] == 2:
        return float(roc_auc_score(y_true == classes[1], proba[:, 1]))
    return float(np.mean([roc_auc_score(y_true == classes[k], proba[:, k]) for k in positives]))


def score_fit(estimator, X_test, y_test, feature_costs=None) -> dict:
    """Test-set metrics of one fitted classifier (everything but the fit time)."""
    proba = estimator.predict_proba(X_test)
    predicted = estimator.classes_[np.argmax(proba, axis=1)]
    return {
        "accuracy": float(np.mean(predicted == np.asarray(y_test))),
        "roc_auc": roc_auc(y_test, proba, estimator.classes_),
        "expected_cost": expected_cost(estimator, X_test, feature_costs),
        # the estimator's own counts: a C4.5 tree's, not its binary view's (larger)
        "n_leaves": int(estimator.get_n_leaves()),
        "depth": int(estimator.get_depth()),
    }


# -- the runner ---------------------------------------------------------------------------------
_WARMED: set = set()


def _warm_up(method: Method, X, y, context: FitContext) -> None:
    """Fit once on a small stratified sample so compilation does not count as fit time.

    Numba compiles (or loads from its cache) on the first call in each worker process.
    """
    key = method.name
    if key in _WARMED:
        return
    _WARMED.add(key)
    rows = _small_sample(y, 60)
    try:
        method.fit(_take(X, rows), np.asarray(y)[rows], context)
    except ValueError:
        pass  # a sample too small for the method (e.g. CV folds); the timed fit will tell


def _small_sample(y, size: int) -> np.ndarray:
    y = np.asarray(y)
    rows = []
    for label in np.unique(y):
        rows.extend(np.flatnonzero(y == label)[: max(2, size // len(np.unique(y)))])
    return np.sort(np.asarray(rows))


def _take(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else np.asarray(X)[rows]


def split_indices(y, test_size: float, seed: int):
    """Stratified train/test row indices for one repeat."""
    from sklearn.model_selection import StratifiedShuffleSplit

    splitter = StratifiedShuffleSplit(n_splits=1, test_size=test_size, random_state=seed)
    return next(splitter.split(np.zeros((len(y), 1)), y))


def _run_one(method: Method, X, y, repeat: int, seed: int, test_size: float,
             context: FitContext, one_hot=None) -> dict:
    train, test = split_indices(y, test_size, seed)
    y = np.asarray(y)
    costs = context.feature_costs
    if one_hot is not None and not method.reads_categories:
        X, costs = one_hot
    context = FitContext(seed, costs, context.params)
    _warm_up(method, _take(X, train), y[train], context)
    start = time.perf_counter()
    estimator = method.fit(_take(X, train), y[train], context)
    fit_time = time.perf_counter() - start
    record = {"method": method.name, "repeat": repeat, "seed": seed}
    record.update(score_fit(estimator, _take(X, test), y[test], context.feature_costs))
    record["fit_time"] = fit_time
    return record


#: Largest seed of a split (numpy's RandomState): repeat r of a comparison uses random_state + r.
SEED_LIMIT = 2**32 - 1
#: Bytes a finished fit's record holds at the least (its metrics dict in the result frame):
#: comparisons whose records cannot fit in the available memory are refused before any fit.
RECORD_BYTES = 1024


def _check_repeats(n_repeats: int, random_state: int, n_methods: int) -> None:
    """Every repeat's seed within numpy's range, and the records within memory, before any fit
    (``--repeats 10**20`` listed 10**20 tasks and ended in a MemoryError after 80 s)."""
    if random_state + n_repeats - 1 > SEED_LIMIT:
        raise ValueError(f"n_repeats={n_repeats} splits from random_state={random_state} need "
                         f"seeds up to {random_state + n_repeats - 1} (repeat r uses "
                         f"random_state + r), beyond {SEED_LIMIT}: lower n_repeats or "
                         "random_state.")
    from .grower import refuse_beyond_memory

    refuse_beyond_memory(n_repeats * n_methods * RECORD_BYTES,
                         f"n_repeats={n_repeats} splits of {n_methods} method(s)",
                         "lower n_repeats.",
                         f" for their results ({RECORD_BYTES} bytes per fit)")


def run_comparison(X, y, methods=None, *, n_repeats: int = 10, test_size: float = 0.25,
                   random_state: int = 0, n_jobs: int | None = -1, feature_costs=None,
                   params: dict | None = None, progress: Callable | None = None,
                   one_hot=None):
    """Fit every method on ``n_repeats`` stratified splits; one row per (method, repeat).

    ``X`` may hold categorical columns (``load_dataset(..., encode="native")``): treesmith's
    trees split them by sets of categories. ``one_hot``, ``(X one-hot encoded, its feature
    costs)`` with the same rows, is what the methods that need numbers are given.

    Repeat r uses the split and estimator seed ``random_state + r`` for every method, so
    methods are compared on the same data. ``progress(record)`` is called as each fit
    finishes. Returns a DataFrame with the columns of :data:`METRIC_LABELS` plus ``method``,
    ``repeat`` and ``seed``.
    """
    pd = optional_import("pandas")
    from joblib import Parallel, delayed

    names = available_methods() if methods is None else list(methods)
    if not names:
        raise ValueError("methods must name at least one method")
    panel = [get_method(name) for name in names]
    check_parameter("n_repeats", n_repeats, [Interval(Integral, 1, None)], "run_comparison")
    check_parameter("test_size", test_size, [Interval(Real, 0.0, 1.0, "neither")],
                    "run_comparison")
    check_parameter("random_state", random_state, [Interval(Integral, 0, SEED_LIMIT, "both")],
                    "run_comparison")
    _check_repeats(int(n_repeats), int(random_state), len(panel))
    if n_jobs is not None:  # joblib's "n_jobs == 0 has no meaning"; 10**20 a C int overflow
        n_jobs = resolve_n_jobs(n_jobs)
    y = np.asarray(y)
    _, counts = np.unique(y, return_counts=True)
    if counts.shape[0] < 2:
        raise ValueError("comparison needs at least two classes in the target")
    if counts.min() < 2:
        raise ValueError("every class needs at least 2 examples for stratified splits; "
                         f"the smallest has {counts.min()}")
    costs = None if feature_costs is None else np.asarray(feature_costs, dtype=np.float64)
    context = FitContext(random_state, costs, dict(params or {}))
    tasks = ((method, repeat, random_state + repeat) for repeat in range(n_repeats)
             for method in panel)
    records = []
    runner = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    for record in runner(delayed(_run_one)(method, X, y, repeat, seed, test_size, context,
                                           one_hot)
                         for method, repeat, seed in tasks):
        records.append(record)
        if progress is not None:
            progress(record)
    frame = pd.DataFrame(records)
    order = {name: k for k, name in enumerate(names)}
    frame["_order"] = frame["method"].map(order)
    frame = frame.sort_values(["_order", "repeat"]).drop(columns="_order")
    return frame.reset_index(drop=True)


def summarise(runs):
    """Mean and standard deviation (ddof=1; 0 for one repeat) of every metric per method."""
    pd = optional_import("pandas")
    rows = []
    for name in dict.fromkeys(runs["method"]):
        mine = runs[runs["method"] == name]
        row = {"method": name, "n_repeats": len(mine)}
        for column in METRIC_LABELS:
            values = mine[column].to_numpy(dtype=np.float64)
            row[f"{column}_mean"] = float(np.nanmean(values)) if np.isfinite(values).any() \
                else float("nan")
            row[f"{column}_std"] = float(np.nanstd(values, ddof=1)) if np.isfinite(
                values).sum() > 1 else 0.0
        rows.append(row)
    return pd.DataFrame(rows)


_DIGITS = {"accuracy": 3, "roc_auc": 3, "expected_cost": 2, "n_leaves": 1, "depth": 1,
           "fit_time": 3}
#: Short headers for narrow terminals; the cost column is explained in a footnote.
SHORT_LABELS = {"accuracy": "acc (%)", "roc_auc": "ROC AUC", "expected_cost": "E[cost]*",
                "n_leaves": "leaves", "depth": "depth", "fit_time": "fit (ms)"}


def _cell(mean: float, std: float, column: str, compact: bool = False) -> str:
    if not np.isfinite(mean):
        return "n/a"
    digits = _DIGITS[column]
    if compact and column in ("accuracy", "fit_time"):
        # Narrow terminal: accuracy in percent, fit time in milliseconds.
        mean, std, digits = 1000 * mean if column == "fit_time" else 100 * mean, \
            1000 * std if column == "fit_time" else 100 * std, 1 if column == "accuracy" else 0
    separator = "±" if compact else " ± "
    return f"{mean:.{digits}f}{separator}{std:.{digits}f}"


def summary_cells(summary, cost_label: str = UNIT_COST_LABEL,
                  compact: bool = False) -> tuple[list[str], list[list]]:
    """Header and rows of the table as text ("mean ± std"), for Markdown or, with
    ``compact=True``, a narrow terminal (short headers, accuracy in %, fit time in ms)."""
    if compact:
        header = ["method"] + [SHORT_LABELS[column] for column in METRIC_LABELS]
    else:
        header = ["method"] + [cost_label if column == "expected_cost" else label
                               for column, label in METRIC_LABELS.items()]
    rows = [[row["method"]] + [_cell(row[f"{c}_mean"], row[f"{c}_std"], c, compact)
                               for c in METRIC_LABELS] for _, row in summary.iterrows()]
    return header, rows


def markdown_table(summary, cost_label: str = UNIT_COST_LABEL) -> str:
    header, rows = summary_cells(summary, cost_label)
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_report(runs, summary, out_dir, *, title: str, cost_label: str = UNIT_COST_LABEL):
    """Write runs.csv, summary.csv, summary.md and accuracy_vs_cost.png into ``out_dir``.

    Returns a dict name -> path of the files written.
    """
    from pathlib import Path

    from .plotting import plot_accuracy_vs_cost

    plt = optional_import("matplotlib.pyplot")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"runs": out / "runs.csv", "summary_csv": out / "summary.csv",
             "summary_md": out / "summary.md", "plot": out / "accuracy_vs_cost.png"}
    runs.to_csv(paths["runs"], index=False)
    summary.to_csv(paths["summary_csv"], index=False)
    n_repeats = int(summary["n_repeats"].max())
    rate, weak = below_majority(summary)
    note = (f"\nNot above the majority-class rate ({100 * rate:.1f}%): {', '.join(weak)}.\n"
            if weak else "")
    paths["summary_md"].write_text(
        f"# {title}\n\nMean ± standard deviation over {n_repeats} stratified train/test "
        f"splits; accuracy and ROC AUC on the test part; {cost_label} on the test part.\n\n"
        + markdown_table(summary, cost_label) + note, encoding="utf-8")
    ax = plot_accuracy_vs_cost(summary, runs=runs, cost_label=cost_label, title=title)
    ax.figure.savefig(paths["plot"], dpi=120)
    plt.close(ax.figure)
    return paths
