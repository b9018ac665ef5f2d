"""Random forests on the treesmith engine: bagged trees grown in parallel (Breiman 2001).

The data are validated and binned once (one ``BinMapper`` for the forest); each tree then
grows on its bootstrap sample given as integer sample weights (the number of times a row is
drawn), so a tree visits the ~63 % distinct rows of its bootstrap, not n rows with repeats,
gathered into a binned matrix of their own (``gather_rows``, within a memory budget). Integer
weights with ``min_samples_leaf=1`` (the default) let the trees use the scan that reads the
class weights only (``splitting.scan_feature_unit_weights``; same splits bit for bit). A tree
that examines ``max_features`` <= half the features per node ("sqrt") builds, per node, the
histograms of its sampled features from the node's samples (``grower._small_node_size``), not
pooled histograms of every feature. Trees grow in parallel first, one Numba thread each, on Python
threads (``PARALLEL_BACKEND``); ``n_jobs`` has the single tree's meaning (``forest_threads``).
Every tree's seed (bootstrap draw and per-node feature sampling) is drawn from
``random_state`` before any tree grows, so the forest is the same whatever ``n_jobs``;
predictions add every row's tree values in tree order on any number of threads. The
trees are ordinary fitted ``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` objects in
``estimators_``, so the metrics (``treesmith.expected_cost`` with the union of features per
example, docs/methods.md §5), export and model-file functions of single trees apply to each
member. docs/methods.md §7.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable
from numbers import Integral

import numba
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._gc import pauses_collector
from .._kernels.calls import kernel_call
from .._kernels.gather import gather_subtree
from .._kernels.records import TrainingData
from .._precision import fitted_numeric_precision, numeric_precision, rounded_to
from .._threading import (
    numba_threads,
    resolve_n_jobs,
    run_tasks,
    threads_for_work,
    threads_per_task,
)
from .._validation import (
    COUNT_LIMIT,
    InstanceOf,
    _n_rows,
    Interval,
    Options,
    RealNotInt,
    accuracy,
    check_class_weight,
    check_random_state_parameter,
    check_sample_weight,
    check_X_frame,
    check_y_values,
    constructor_parameters,
    first_seed,
    labels_are_classes,
    plain_prediction_array,
    plain_training_arrays,
    seeded_generator,
    validate_parameters,
)
from ..binning import FLOAT_INPUT_DTYPES, BinMapper, check_no_infinity
from ..categorical import category_counts, encode_categories, encode_categories_for_warm_start
from ..criteria._base import CLASSIFICATION_TASK, REGRESSION_TASK, resolve_criterion
from ..estimators import (
    TREE_PARAMETER_CONSTRAINTS,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
)
from ..grower import StoppingRules, TreeGrower, refuse_beyond_memory
from ..pruning import prune_tree_ccp
from ..splitters import bin_values

#: Parameters passed from the forest to each tree.
TREE_PARAMETERS = ("criterion", "max_depth", "min_samples_split", "min_samples_leaf",
                   "min_weight_fraction_leaf", "min_weight_fraction_split", "max_features",
                   "max_leaf_nodes",
                   "min_impurity_decrease", "max_bins", "split_rule", "feature_costs",
                   "cost_groups", "cost_model", "monotonic_cst",
                   "categorical_features", "ccp_alpha")

#: Allowed values of the forests' parameters (``treesmith._validation``): the single tree's
#: for the parameters passed to every tree, and the forest's own. Checked at the start of
#: ``fit``, before the data; ``oob_score`` and ``max_samples`` with ``bootstrap=False`` and
#: the memory of ``n_estimators`` trees are checked by ``_check_forest_parameters``.
FOREST_PARAMETER_CONSTRAINTS = {
    **{name: TREE_PARAMETER_CONSTRAINTS[name] for name in TREE_PARAMETERS
       if name in TREE_PARAMETER_CONSTRAINTS},
    "n_estimators": [Interval(Integral, 1, None)],
    "bootstrap": ["boolean"],
    "oob_score": ["boolean", InstanceOf(Callable, "a metric(y_true, y_pred)")],
    "n_jobs": TREE_PARAMETER_CONSTRAINTS["n_jobs"],
    "random_state": ["random_state"],
    # the counts of a bootstrap are float64: beyond 2**53 draws they are no longer exact; a
    # float is a multiple of n_samples, above 1 too, as in scikit-learn >= 1.9
    "max_samples": [None, Interval(Integral, 1, COUNT_LIMIT, "both"),
                    Interval(RealNotInt, 0.0, None, "neither")],
    "warm_start": ["boolean"],
}

#: Bytes a fitted tree of a forest takes at the least (a one-leaf tree: its estimator object,
#: ``Tree`` arrays and seed; ~5 KB measured): ``n_estimators`` trees that cannot fit in the
#: available memory are refused before anything is allocated.
FOREST_BYTES_PER_TREE = 4096


#: Draws per chunk of a bootstrap: memory stays O(n_samples + chunk) when an int
#: ``max_samples`` asks for many more draws than rows.
BOOTSTRAP_CHUNK = 1 << 20
#: Draws beyond which a bootstrap's counts come from their multinomial distribution in one
#: call (time O(n_samples)) instead of from the draws one by one (time O(draws), about a
#: second per tree here): ``max_samples=10**12`` would otherwise run for days.
MULTINOMIAL_DRAWS = 1 << 26


#: ``gather_subtree`` called without Numba's typing of the record on every tree
#: (``_kernels.calls``).
_gather_subtree = kernel_call(gather_subtree)


def bootstrap_counts(seed: int, n_samples: int, n_draws: int) -> np.ndarray:
    """How many times each row is drawn in ``n_draws`` draws with replacement (float64): the
    counts of ``RandomState(seed).randint(0, n_samples, n_draws)``, scikit-learn's bootstrap,
    drawn in chunks of ``BOOTSTRAP_CHUNK`` (consecutive calls continue the same stream).

    Beyond ``MULTINOMIAL_DRAWS`` draws the counts are drawn from their distribution,
    Multinomial(n_draws, 1/n_samples each), by ``RandomState(seed).multinomial``: the same
    distribution from another stream of the same seed, in time that does not grow with the
    draws."""
    rng = seeded_generator(seed)
    if n_draws > MULTINOMIAL_DRAWS:
        uniform = np.full(n_samples, 1.0 / n_samples)
        return rng.multinomial(n_draws, uniform).astype(np.float64)
    counts = np.zeros(n_samples, dtype=np.float64)
    for start in range(0, n_draws, BOOTSTRAP_CHUNK):
        size = min(BOOTSTRAP_CHUNK, n_draws - start)
        counts += np.bincount(rng.randint(0, n_samples, size), minlength=n_samples)
    return counts


def bootstrap_indices(seed: int, n_samples: int, n_draws: int) -> np.ndarray:
    """The rows drawn by the bootstrap of ``bootstrap_counts(seed, n_samples, n_draws)``, in
    draw order: the same ``RandomState(seed).randint`` chunks, concatenated (scikit-learn's
    ``estimators_samples_``; int32 as there when the rows fit). Beyond ``MULTINOMIAL_DRAWS``
    draws there is no draw order: each row repeated as often as it was drawn, in increasing
    order."""
    dtype = np.int32 if n_samples <= np.iinfo(np.int32).max else np.int64
    if n_draws > MULTINOMIAL_DRAWS:
        counts = bootstrap_counts(seed, n_samples, n_draws).astype(np.int64)
        return np.repeat(np.arange(n_samples, dtype=dtype), counts)
    rng = seeded_generator(seed)
    return np.concatenate([
        rng.randint(0, n_samples, min(BOOTSTRAP_CHUNK, n_draws - start)).astype(dtype)
        for start in range(0, n_draws, BOOTSTRAP_CHUNK)])


def subsample_class_weight(y_code, counts, n_classes: int) -> np.ndarray:
    """class_weight="balanced_subsample": per class, n_draws / (n_classes drawn x rows of the
    class drawn), from the bootstrap multiplicities ``counts`` (0 for a class not drawn), as
    scikit-learn's ``compute_sample_weight("balanced", y, indices=drawn rows)``."""
    drawn = np.bincount(y_code, weights=counts, minlength=n_classes)
    present = drawn > 0
    weight = np.zeros(n_classes)
    weight[present] = counts.sum() / (np.count_nonzero(present) * drawn[present])
    return weight


def tree_seed(seed: int) -> int:
    """Seed of a tree's per-node feature sampling: the one ``DecisionTreeClassifier(
    random_state=seed)`` uses, so a member equals that tree fitted with its bootstrap counts as
    sample weights (scikit-learn's forests draw the bootstrap from the same seed)."""
    return first_seed(seed)


#: How trees grow at once when ``n_jobs`` allows several workers: "threads" (Python threads
#: over the ``nogil`` growth kernel, ``_threading.run_tasks``) or "processes" (joblib's loky).
#: Threads, measured with benchmarks/bench_forest.py (100 trees on 1e5 x 50, n_jobs=-1 on 2
#: cores that five other jobs kept busy, load average 7-10): threads 157 s wall, processes
#: 267 s (1.7x slower; 20 trees on 2e4 x 20: 5.1x slower, pool start and kernel loading in
#: the workers included). A process pool pickles (or memory-maps) the binned data to every
#: worker and every tree back, and each worker loads the compiled kernels; threads share the
#: arrays, and only a tree's Python glue (bootstrap draw, records, building the ``Tree``:
#: ~2-3 % of its time, measured) holds the GIL. On 16 cores we expect threads to stay ahead:
#: 16 workers x ~3 % serialised glue is half a core, while processes would copy the data 16
#: times; past ~30 workers the GIL-held glue would start to cap the speed-up. Threads also
#: let a forest inside a loky or Dask worker use that worker's share (``_threading``).
PARALLEL_BACKEND = "threads"
#: Sample-features (rows drawn x features examined per node, summed over the trees) per worker
#: below which a forest grows on one thread. Trees are independent tasks (no parallel region
#: to synchronise), so this is lower than a single tree's ``_threading.PARALLEL_FIT_WORK``:
#: a worker's share is then at least ~10 ms of growth, against ~0.1 ms to start a thread.
FOREST_WORK_PER_THREAD = 1 << 15
#: Row-trees (rows x trees) of a prediction per thread below which it runs on one thread: a
#: tree walks ~16 000 rows in a few milliseconds, against ~0.1 ms to start a thread.
FOREST_PREDICT_WORK_PER_THREAD = 1 << 14
#: Row blocks per thread of a parallel prediction (threads take the next block when free).
PREDICT_BLOCKS_PER_THREAD = 4
#: Empty per-sample statistics and q-group codes: what ``gather_rows`` has nothing of.
_NO_SAMPLE_STATS = np.zeros((0, 0))
_NO_GROUPS = np.zeros(0, dtype=np.int64)
#: Memory the gathered copies of the trees' drawn rows (``gather_rows``) may take at once when
#: the binned matrix is smaller than this; above, at most the binned matrix's size.
GATHER_MEMORY_BYTES = 256 * 2**20


class TreeJob:
    """What one tree needs to grow: the shared binned data and the resolved setting.

    Picklable, so that process workers receive it once per batch of trees; the binned matrix
    is memory-mapped by joblib rather than copied for large inputs.
    """

    def __init__(self, X_binned, y_code, sample_weight, bin_mapper, criterion, n_classes,
                 rules, rule, max_features, costs, bootstrap, n_draws, threads_per_tree,
                 monotonic_cst=None, gather_rows=False, balance_classes=False,
                 threshold_values=None):
        self.X_binned = X_binned
        self.y_code = y_code
        self.sample_weight = sample_weight
        self.total_weight = float(sample_weight.sum())
        self.bin_mapper = bin_mapper
        self.criterion = criterion
        self.n_classes = n_classes
        self.rules = rules
        self.rule = rule
        self.max_features = max_features
        self.costs = costs
        self.bootstrap = bootstrap
        self.n_draws = n_draws
        self.threads_per_tree = threads_per_tree
        self.monotonic_cst = monotonic_cst
        self.gather_rows = gather_rows
        self.balance_classes = balance_classes
        self.threshold_values = threshold_values

    def weights(self, seed):
        """Sample weights of the tree seeded ``seed``: weight x bootstrap multiplicity (x the
        bootstrap's own balanced class weight with ``balance_classes``)."""
        if not self.bootstrap:
            return self.sample_weight
        counts = bootstrap_counts(seed, self.sample_weight.shape[0], self.n_draws)
        factor = counts
        if self.balance_classes:
            factor = counts * subsample_class_weight(self.y_code, counts,
                                                     self.n_classes)[self.y_code]
        with np.errstate(over="ignore"):
            weight = self.sample_weight * factor
            total = weight.sum()
        if not np.isfinite(total):
            # finite weights times multiplicities (1e308 drawn twice) overflow: scaled first by
            # the power of two that brings their sum below 2**1000 (exact, as check_sample_weight
            # scales a single tree's: the tree is the one of the unscaled weights)
            exponent = (math.ceil(math.log2(float(self.sample_weight.max())))
                        + math.ceil(math.log2(float(factor.max())))
                        + math.ceil(math.log2(weight.shape[0])) - 1000)
            weight = (self.sample_weight * 2.0 ** -exponent) * factor
            if np.any((weight == 0) & (self.sample_weight > 0) & (factor > 0)):
                raise ValueError(
                    "sample_weight spans too many orders of magnitude (largest "
                    f"{float(self.sample_weight.max()):.3g}): a tree's weights (sample_weight "
                    "x bootstrap counts) overflow float64 and scaling them down would turn "
                    "the smallest into zero. Divide them by a constant first.")
        return weight

    def _no_weight_message(self) -> str:
        """Why a tree cannot grow when its bootstrap sample drew only rows of weight 0."""
        n_positive = int(np.count_nonzero(self.sample_weight > 0))
        return (f"a tree's bootstrap sample of {self.n_draws} draws holds no row of positive "
                f"weight: only {n_positive} of the {self.sample_weight.shape[0]} rows have a "
                "positive sample_weight (the draws are over all rows, as in scikit-learn). "
                "Give more rows a positive weight, drop the rows of weight 0, raise "
                "max_samples, or fit with bootstrap=False.")

    def rules_for(self, weight) -> StoppingRules:
        """The stopping rules of a tree grown with the sample weights ``weight``: the weight
        limits (``min_weight_fraction_leaf`` / ``_split`` times the total) are fractions of
        this tree's own total weight, as for a single tree fitted with its bootstrap counts
        and in scikit-learn's forests (``max_samples`` < 1 draws a smaller total)."""
        rules = self.rules
        if rules.min_weight_leaf == 0.0 and rules.min_weight_split == 0.0:
            return rules
        scale = float(np.sum(weight)) / self.total_weight
        return dataclasses.replace(rules, min_weight_leaf=rules.min_weight_leaf * scale,
                                   min_weight_split=rules.min_weight_split * scale)

    def grower(self, seed, weight) -> TreeGrower:
        return TreeGrower(self.bin_mapper, self.criterion, self.n_classes,
                          self.rules_for(weight), rule=self.rule,
                          max_features=self.max_features, seed=tree_seed(seed),
                          costs=self.costs, monotonic_cst=self.monotonic_cst,
                          threshold_values=self.threshold_values)

    def grow_on(self, seed, X_binned, y_code, weight, rows):
        """The tree grown on the binned rows ``X_binned`` (the rows ``rows`` of the data)
        with these class codes and sample weights (classification)."""
        return self.grower(seed, weight).grow(X_binned, y_code, weight)

    def grow(self, seed):
        """Grow the tree of ``seed`` (its bootstrap and its feature sampling) on
        ``threads_per_tree`` Numba threads (a per-thread setting, restored after); with
        ``gather_rows``, on a copy of its drawn rows only (``gather_rows``)."""
        with numba_threads(self.threads_per_tree):
            weight = self.weights(seed)
            if not np.any(weight > 0):
                raise ValueError(self._no_weight_message())
            if not self.gather_rows:
                return self.grow_on(seed, self.X_binned, self.y_code, weight, slice(None))
            rows = np.flatnonzero(weight > 0)
            drawn = gather_rows(self.X_binned, self.y_code, weight, rows)
            return self.grow_on(seed, drawn.X_binned, drawn.y_code, drawn.sample_weight, rows)


def gather_rows(X_binned, y_code, sample_weight, rows):
    """The rows ``rows`` (increasing) of the Fortran-ordered binned matrix, their class codes
    and weights, copied into arrays of their own (a ``records.TrainingData`` of rows
    ``0 .. len(rows) - 1``; ``_kernels.gather.gather_subtree``, which releases the GIL).

    A bootstrap sample holds ~63 % of the rows (1 - 1/e); grown on the full matrix with zero
    weights elsewhere, a deep node's samples are scattered over columns that are a third
    longer than they need to be. On the gathered copy the tree sees the same rows in the same
    order (same sums, same tree) in a matrix that stays in the cache longer: a forest tree on
    8e4 x 50 grows 4-9 % faster, more with ``max_samples`` < 1.
    """
    data = TrainingData(X_binned, rows, y_code, sample_weight, _NO_SAMPLE_STATS, _NO_GROUPS, 0)
    return _gather_subtree(data, 0, rows.shape[0])


def gathers_rows(bootstrap: bool, workers: int, n_draws: int, X_binned) -> bool:
    """Whether trees grow on gathered copies of their drawn rows (``gather_rows``): with
    bootstrap samples only, and only while the copies that ``workers`` trees hold at once stay
    within ``GATHER_MEMORY_BYTES`` or the binned matrix's own size, whichever is larger."""
    n_samples, n_features = X_binned.shape
    copies = workers * min(n_samples, n_draws) * n_features * X_binned.itemsize
    return bool(bootstrap) and copies <= max(GATHER_MEMORY_BYTES, X_binned.nbytes)


def forest_threads(n_jobs, n_trees: int, tree_work: float) -> tuple[int, int]:
    """``(workers, threads_per_tree)`` for growing ``n_trees`` trees of ``tree_work``
    sample-features each (rows drawn x features examined per node).

    ``n_jobs`` means what it means for a single tree (``treesmith._threading``): None and -1
    are the threads this process may use (its CPU affinity and quota, ``OMP_NUM_THREADS`` and
    ``threadpoolctl`` limits, a joblib/loky or Dask worker's share of the cores), a positive
    int that many. Parallelism goes across trees first: with at least as many trees as
    threads, each worker grows one tree at a time on one Numba thread (no nested parallel
    regions); spare threads go to the trees only when there are fewer trees than threads. A
    forest too small to pay for threads runs on one.
    """
    n_threads = threads_for_work(resolve_n_jobs(n_jobs), float(tree_work) * n_trees,
                                 FOREST_WORK_PER_THREAD)
    workers, per_tree = threads_per_task(n_threads, n_trees)
    if workers > 1 and per_tree > 1 and _threading_layer() == "workqueue":
        per_tree = 1  # Numba's workqueue layer cannot run parallel regions from two threads
    return workers, per_tree


def _threading_layer() -> str | None:
    try:
        return numba.threading_layer()
    except ValueError:  # no parallel region has run yet
        return None


#: Parameter values ``clone`` would hand over as they are (immutable): the rest is cloned.
_IMMUTABLE_PARAMETERS = (type(None), bool, int, float, str, np.integer, np.floating)


def _member_like(template, params, seed: int):
    """``clone(template).set_params(random_state=seed)``, without cloning the template's
    immutable parameters one by one nor checking the clone (~30 us per tree: a tenth of a
    forest tree on iris): the other parameters (arrays, dicts, criterion and rule objects)
    are cloned as ``clone`` clones them."""
    member = type(template)(**{
        name: value if isinstance(value, _IMMUTABLE_PARAMETERS) else clone(value, safe=False)
        for name, value in params.items()})
    member.random_state = seed
    return member


def _grow_batch(job: TreeJob, seeds):
    return [job.grow(seed) for seed in seeds]


class BaseForest(BaseEstimator):
    """Shared parameters, fitting and prediction plumbing of the random forests."""

    _tree_class = DecisionTreeClassifier
    _task = CLASSIFICATION_TASK
    #: How the trees find their splits (``treesmith.splitters``): best splits, or one drawn
    #: split per examined feature (extremely randomized trees).
    _splitter = "best"

    def __init__(self, *, n_estimators, criterion, max_depth, min_samples_split,
                 min_samples_leaf, min_weight_fraction_leaf, max_features, max_leaf_nodes,
                 min_impurity_decrease, bootstrap, oob_score, n_jobs, random_state, max_samples,
                 max_bins, split_rule, feature_costs, cost_groups, cost_model,
                 monotonic_cst=None, categorical_features="from_dtype", warm_start=False,
                 ccp_alpha=0.0, min_weight_fraction_split=0.0):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.max_samples = max_samples
        self.max_bins = max_bins
        self.split_rule = split_rule
        self.feature_costs = feature_costs
        self.cost_groups = cost_groups
        self.cost_model = cost_model
        self.monotonic_cst = monotonic_cst
        self.categorical_features = categorical_features
        self.warm_start = warm_start
        self.ccp_alpha = ccp_alpha
        self.min_weight_fraction_split = min_weight_fraction_split

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    @classmethod
    def _get_param_names(cls):
        return constructor_parameters(cls)

    # -- validation -------------------------------------------------------------------------
    def _validate_X_y(self, X, y):
        given = X
        keeps_trees = isinstance(self.warm_start, (bool, np.bool_)) and self.warm_start
        if keeps_trees and getattr(self, "estimators_", None):
            X = encode_categories_for_warm_start(self, X)
        else:
            X = encode_categories(self, X, fitting=True)
        # the single tree's messages: a text column that is not categorical, multi-output y
        check_X_frame(X)
        y = check_y_values(y, self._task)
        plain = plain_training_arrays(self, X, y, y_numeric=self._task == REGRESSION_TASK)
        try:
            X, y = plain if plain is not None else validate_data(
                self, X, y, dtype=FLOAT_INPUT_DTYPES, ensure_all_finite="allow-nan",
                y_numeric=self._task == REGRESSION_TASK)
        except ValueError as error:
            if "infinity" in str(error) and "Input y" not in str(error):
                names = list(X.columns) if hasattr(X, "columns") else None
                check_no_infinity(np.asarray(X, dtype=np.float64), names)
            raise
        precision = numeric_precision(given, X, self.is_categorical_)
        kept = getattr(self, "estimators_", None) if keeps_trees else None
        if kept:  # one precision for every tree: float32 only if each was grown on float32
            if fitted_numeric_precision(self) != precision:
                precision = "float64"
            for member in kept:
                member.numeric_precision_ = precision
        self.numeric_precision_ = precision
        return X, y

    def _validate_X_predict(self, X):
        check_is_fitted(self, "estimators_")
        X = encode_categories(self, X, fitting=False)
        plain = plain_prediction_array(self, X)
        if plain is None:
            check_X_frame(X)
            plain = validate_data(self, X, dtype=FLOAT_INPUT_DTYPES, ensure_all_finite=False,
                                  reset=False)
        return rounded_to(plain, fitted_numeric_precision(self))  # docs/methods.md §2

    _parameter_table = FOREST_PARAMETER_CONSTRAINTS

    def _validate_params(self):
        """scikit-learn's hook (``treesmith.io`` calls it on loaded models): our table."""
        validate_parameters(self)

    def _check_forest_parameters(self, n_samples):
        """The checks that involve several parameters or the machine (the table's are done),
        and the number of draws of each tree's bootstrap."""
        refuse_beyond_memory(int(self.n_estimators) * FOREST_BYTES_PER_TREE,
                             f"n_estimators={int(self.n_estimators)} trees", "lower n_estimators.",
                             f" ({FOREST_BYTES_PER_TREE} bytes for the smallest tree)")
        if self.oob_score is not False and not self.bootstrap:
            raise ValueError("oob_score=True needs bootstrap=True (out-of-bag rows exist only "
                             "with bootstrap samples).")
        max_samples = self.max_samples
        if max_samples is None:
            return n_samples
        if not self.bootstrap:
            raise ValueError("max_samples needs bootstrap=True; got bootstrap=False.")
        if isinstance(max_samples, numbers.Integral):  # validated: not a bool
            return int(max_samples)
        draws = float(max_samples) * n_samples  # inf for 1e308 x n: round() overflowed
        if not draws <= COUNT_LIMIT:
            raise ValueError(f"max_samples={max_samples!r} x {n_samples} rows is {draws:.3g} "
                             "draws per tree, more than 2**53 (the bootstrap counts are "
                             "float64).")
        return max(1, int(round(draws)))

    def _tree_template(self):
        params = {name: getattr(self, name) for name in TREE_PARAMETERS}
        return self._tree_class(**params, splitter=self._splitter)

    # -- fitting ----------------------------------------------------------------------------
    def _fit_forest(self, X, y_code, sample_weight, n_classes, y, balance_classes=False):
        n_samples, n_features = X.shape
        n_draws = self._check_forest_parameters(n_samples)
        random_state = check_random_state_parameter(self.random_state)
        kept = self._warm_start_trees()
        if kept and len(kept) == self.n_estimators:
            import warnings

            warnings.warn("Warm-start fitting without increasing n_estimators does not fit new "
                          "trees.", UserWarning, stacklevel=3)
            return self
        template = self._tree_template()
        if hasattr(self, "feature_names_in_"):
            template.feature_names_in_ = self.feature_names_in_
        if getattr(self, "is_categorical_", None) is not None:
            template.is_categorical_ = self.is_categorical_
        criterion = resolve_criterion(self.criterion, self._task)
        criterion.validate(n_classes if n_classes else None)
        rule, costs = template._resolve_rule_and_costs(n_features)
        rules = template._stopping_rules(n_samples, n_features, float(sample_weight.sum()))
        template._check_splitter(rule, rules)
        monotonic_cst = template._monotonic_constraints(n_features, n_classes, criterion)
        if self._task == REGRESSION_TASK:
            criterion.validate_targets(y)
            # y whose float64 sums overflow is refused before any tree grows, as by the single
            # tree (the trees were one leaf each: every impurity inf or NaN)
            DecisionTreeRegressor._sample_statistics(criterion, y, sample_weight)
        categories = getattr(self, "categories_", None)
        self.bin_mapper_ = BinMapper(max_bins=self.max_bins, random_state=random_state,
                                     n_categories=category_counts(categories))
        X_binned = self.bin_mapper_.fit_transform(
            X, feature_names=getattr(self, "feature_names_in_", None))
        # all n_estimators seeds are drawn and the kept trees' skipped, so that with an int
        # random_state a warm start grows the trees one fit would (scikit-learn's contract)
        seeds = random_state.randint(0, 2**31 - 1, size=self.n_estimators)[len(kept):]
        workers, per_tree = forest_threads(self.n_jobs, len(seeds),
                                           n_draws * template.max_features_)
        X_binned = np.asfortranarray(X_binned)
        job = TreeJob(X_binned, y_code, sample_weight, self.bin_mapper_,
                      criterion, n_classes, rules, rule, template.max_features_, costs,
                      self.bootstrap, n_draws, threads_per_tree=per_tree,
                      monotonic_cst=monotonic_cst,
                      gather_rows=gathers_rows(self.bootstrap, workers, n_draws, X_binned),
                      balance_classes=balance_classes,
                      threshold_values=(bin_values(self.bin_mapper_, X)
                                        if self._splitter == "random" else None))
        if self._task == REGRESSION_TASK:
            job = _RegressionTreeJob(job, y)
        trees = self._grow_trees(job, seeds, workers)

        self.estimators_ = list(kept)
        template_params = template.get_params(deep=False)
        for seed, tree in zip(seeds, trees):
            member = _member_like(template, template_params, int(seed))
            # grown, then pruned by minimal cost-complexity, as the single tree and
            # scikit-learn's forests do
            member.tree_ = (prune_tree_ccp(tree, float(self.ccp_alpha)) if self.ccp_alpha > 0
                            else tree)
            member.n_features_in_ = n_features
            if hasattr(self, "feature_names_in_"):
                member.feature_names_in_ = self.feature_names_in_
            member.bin_mapper_ = self.bin_mapper_
            member.criterion_ = criterion
            member.split_rule_ = rule
            member.feature_costs_ = costs.feature_cost
            member.cost_groups_ = costs.cost_group
            member.cost_model_ = self.cost_model
            member.is_categorical_ = self.is_categorical_
            member.categories_ = categories
            member.category_precision_ = getattr(self, "category_precision_", None)
            member.numeric_precision_ = self.numeric_precision_
            member.max_features_ = template.max_features_
            member.n_outputs_ = 1
            if n_classes:
                member.classes_ = self.classes_
                member.n_classes_ = n_classes
            self.estimators_.append(member)
        self.estimator_ = template
        self.feature_costs_ = costs.feature_cost
        self.cost_groups_ = costs.cost_group
        self.cost_model_ = self.cost_model
        self.n_outputs_ = 1
        self._seeds = np.concatenate([self._seeds[:len(kept)] if kept else seeds[:0], seeds])
        self._n_samples, self._n_samples_bootstrap = n_samples, n_draws
        if self.oob_score is not False:
            self._set_oob_score(X, y, job)
        return self

    def _warm_start_trees(self) -> list:
        """The fitted trees a warm start keeps (none without ``warm_start`` or before the
        first fit); ``n_estimators`` below their number is an error, as in scikit-learn."""
        if not isinstance(self.warm_start, (bool, np.bool_)):
            raise ValueError(f"warm_start must be True or False, got {self.warm_start!r}.")
        if not self.warm_start or not getattr(self, "estimators_", None):
            return []
        if self.n_estimators < len(self.estimators_):
            raise ValueError(f"n_estimators={self.n_estimators} must be larger or equal to "
                             f"len(estimators_)={len(self.estimators_)} when warm_start==True.")
        return list(self.estimators_)

    def _grow_trees(self, job, seeds, workers):
        """Grow one tree per seed on ``workers`` workers (``PARALLEL_BACKEND``: threads by
        default, see there why), trees in the order of ``seeds`` whatever the number of
        workers; each tree on ``job.threads_per_tree`` Numba threads."""
        seeds = [int(seed) for seed in seeds]
        if workers == 1:
            return [job.grow(seed) for seed in seeds]
        if PARALLEL_BACKEND == "threads":
            return run_tasks(job.grow, seeds, workers)
        from joblib import Parallel, delayed

        batches = np.array_split(np.asarray(seeds), workers)
        results = Parallel(n_jobs=workers, backend="loky")(
            delayed(_grow_batch)(job, [int(s) for s in batch]) for batch in batches)
        return [tree for batch in results for tree in batch]

    def _sum_over_trees(self, X):
        """The trees' leaf values (``tree_.value``: class proportions, mean label) summed over
        the trees for every row of the validated ``X``, shape (n_rows, n_outputs).

        Every row's values are added in the order of the trees, whatever the threads: rows are
        cut into blocks, each summed over all trees on one thread (``n_jobs`` threads, fewer
        for small predictions: ``FOREST_PREDICT_WORK_PER_THREAD``), so the result does not
        depend on ``n_jobs``. The trees' traversals run serially inside a block (their
        row-parallel twins, one parallel region per tree, cost 3x the CPU time here: 30 trees,
        25 000 rows, 2 threads).
        """
        names = getattr(self, "feature_names_in_", None)
        members = self.estimators_
        n_rows = X.shape[0]
        width = members[0].tree_.value.shape[1]

        def block_sum(block):
            total = np.zeros((block.stop - block.start, width))
            with numba_threads(1):
                for member in members:
                    total += member.tree_.predict(X[block], names)
            return total

        n_threads = threads_for_work(resolve_n_jobs(self.n_jobs), float(n_rows) * len(members),
                                     FOREST_PREDICT_WORK_PER_THREAD)
        if n_threads == 1:
            return block_sum(slice(0, n_rows))
        n_blocks = min(n_rows, PREDICT_BLOCKS_PER_THREAD * n_threads)
        bounds = [n_rows * b // n_blocks for b in range(n_blocks + 1)]
        blocks = [slice(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]
        return np.concatenate(run_tasks(block_sum, blocks, n_threads))

    def _oob_metric(self, default):
        """``oob_score`` when it is a metric(y_true, y_pred), else ``default``."""
        return self.oob_score if callable(self.oob_score) else default

    def _oob_mean(self, X, job):
        """Per row of the training ``X``, the mean of the leaf values (``tree_.value``) of the
        trees it is out of bag for, shape (n_rows, n_outputs), and whether it is out of bag
        for any tree. A row is out of bag for a tree exactly when the tree's bootstrap did not
        draw it, whatever its sample weight (scikit-learn's definition): a row of weight 0
        that was drawn is in the bag. A row never out of bag has NaN and, as in scikit-learn,
        one warning is issued (docs/methods.md §7)."""
        n_rows = X.shape[0]
        total = np.zeros((n_rows, self.estimators_[0].tree_.value.shape[1]))
        n_trees = np.zeros(n_rows, dtype=np.int64)
        for seed, member in zip(self._seeds, self.estimators_):
            rows = self._oob_rows(job, seed)
            if rows.size:
                total[rows] += member.tree_.predict(X[rows])
                n_trees[rows] += 1
        seen = n_trees > 0
        if not seen.any():  # the metric then failed on empty arrays (scikit-learn's message)
            raise ValueError(
                f"oob_score: none of the {n_rows} training rows is out of bag for any of the "
                f"{len(self.estimators_)} trees (every bootstrap of {job.n_draws} draws drew "
                "every row): the out-of-bag score is undefined. Draw fewer rows per tree "
                "(max_samples), or fit with oob_score=False.")
        if not seen.all():
            from .._warnings import warn_at_user_code

            warn_at_user_code(
                f"{n_rows - int(seen.sum())} of the {n_rows} training rows do not have OOB "
                "scores: they were in every bootstrap sample, and their OOB prediction is "
                "NaN; oob_score_ is computed over the other rows. Use more estimators for a "
                "reliable oob_score_.", UserWarning)
        with np.errstate(invalid="ignore"):
            return total / n_trees[:, None], seen

    def _oob_rows(self, job, seed):
        """The rows the bootstrap of the tree seeded ``seed`` did not draw."""
        return np.flatnonzero(bootstrap_counts(int(seed), job.sample_weight.shape[0],
                                               job.n_draws) == 0)

    @property
    def estimators_samples_(self):
        """The rows each tree's bootstrap drew (with repeats, in draw order; every row without
        bootstrap), as scikit-learn's ``estimators_samples_``: recomputed from the trees'
        seeds on each access, not stored (``bootstrap_indices``)."""
        check_is_fitted(self, "estimators_")
        if not hasattr(self, "_n_samples_bootstrap"):
            raise AttributeError(
                "estimators_samples_ is recomputed from the training set's size, which this "
                "forest does not hold (model files do not keep it); fit it again.")
        n_samples, n_draws = self._n_samples, self._n_samples_bootstrap
        if not self.bootstrap:
            return [np.arange(n_samples, dtype=np.int32 if n_samples <= np.iinfo(np.int32).max
                              else np.int64) for _ in self.estimators_]
        return [bootstrap_indices(int(seed), n_samples, n_draws) for seed in self._seeds]

    # -- introspection ----------------------------------------------------------------------
    @property
    def feature_importances_(self):
        """Mean over the trees of their normalised impurity-decrease importances."""
        check_is_fitted(self, "estimators_")
        importances = np.mean([tree.feature_importances_ for tree in self.estimators_], axis=0)
        total = importances.sum()
        return importances / total if total > 0 else importances

    def apply(self, X):
        """Leaf index of every row in every tree, shape (n_samples, n_estimators)."""
        X = self._validate_X_predict(X)
        names = getattr(self, "feature_names_in_", None)
        return np.column_stack([member.tree_.apply(X, names) for member in self.estimators_])

    def decision_path(self, X):
        """(indicator, n_nodes_ptr) as scikit-learn's forests: the CSR node indicators of all
        trees side by side and the column where each tree starts."""
        import scipy.sparse as sp

        X = self._validate_X_predict(X)
        names = getattr(self, "feature_names_in_", None)
        paths = [member.tree_.decision_path(X, names) for member in self.estimators_]
        n_nodes_ptr = np.cumsum([0] + [path.shape[1] for path in paths])
        return sp.hstack(paths).tocsr(), n_nodes_ptr

    def to_sklearn(self):
        """This fitted forest as a fitted scikit-learn random forest that predicts the same
        (for SHAP and the other scikit-learn tools; see :func:`treesmith.interop.to_sklearn`)."""
        from ..interop import to_sklearn

        return to_sklearn(self)

    def __len__(self):
        return len(self.estimators_)

    def __getitem__(self, index):
        return self.estimators_[index]

    def __iter__(self):
        return iter(self.estimators_)


class _RegressionTreeJob(TreeJob):
    """A TreeJob whose trees grow on the criterion's per-sample statistics of the labels,
    recomputed from each tree's bootstrap weights."""

    def __init__(self, job: TreeJob, y):
        self.__dict__.update(job.__dict__)
        self.y = y

    def grow_on(self, seed, X_binned, y_code, weight, rows):
        # the single tree's statistics: weights scaled down when w * y**2 overflows, and the
        # error naming y when y itself is too large
        statistics = DecisionTreeRegressor._sample_statistics(self.criterion, self.y[rows],
                                                              weight)
        return self.grower(seed, weight).grow(X_binned, y_code, weight, statistics)


class RandomForestClassifier(ClassifierMixin, BaseForest):
    """Random forest classifier on the treesmith engine (Breiman 2001).

    Parameters
    ----------
    n_estimators : int >= 1, default=100; a forest whose trees cannot fit in the available
        memory (``FOREST_BYTES_PER_TREE`` each at the least) is refused before it grows.
    criterion, max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf,
    min_weight_fraction_split (θ, also ECART's truncation),
    max_leaf_nodes, min_impurity_decrease, max_bins, split_rule, feature_costs, cost_groups,
    cost_model, monotonic_cst, categorical_features : as for
        :class:`treesmith.DecisionTreeClassifier` (every criterion and split rule of the single
        tree, splits by sets of categories; the categories are found once for the forest);
        ``max_features`` defaults to "sqrt". With ``monotonic_cst`` every tree is monotone, and
        so is their mean.
    bootstrap : bool, default=True; each tree grows on n (or ``max_samples``) rows drawn with
        replacement, passed as integer sample weights.
    max_samples : None, int in [1, 2**53] or float > 0: rows drawn per tree, an int or
        round(max_samples x n) (either may exceed n, as in scikit-learn >= 1.9; beyond 2**26
        draws the counts are drawn from their multinomial distribution).
    oob_score : bool or callable, default=False; ``oob_score_`` is the accuracy (or, given a
        metric(y_true, y_pred), that metric; unweighted, as in scikit-learn) of the out-of-bag
        votes on the rows some tree's bootstrap did not draw (whatever their weight), and
        ``oob_decision_function_`` their class probabilities (NaN for a row every tree drew,
        with a warning).
    class_weight : None, "balanced", "balanced_subsample" or dict. "balanced" and a dict
        multiply the sample weights before the bootstrap; "balanced_subsample" weighs each
        tree's bootstrap by its own class counts (n_draws / (n_classes x rows of the class
        drawn)), and is "balanced" without bootstrap, as in scikit-learn.
    ccp_alpha : float >= 0, default=0.0; each tree is pruned by minimal cost-complexity
        (``treesmith.pruning.prune_tree_ccp`` on its bootstrap-weighted impurities) after it
        grows, as in scikit-learn's forests.
    warm_start : bool, default=False; refitting with a larger ``n_estimators`` keeps the fitted
        trees and grows only the new ones (with an int ``random_state``, the trees one fit of
        ``n_estimators`` grows); the same ``n_estimators`` warns and fits nothing.
    n_jobs : None or int, threads used, with the single tree's meaning
        (``treesmith._threading``): None and -1 are every core this process may use (its
        affinity and quota, ``OMP_NUM_THREADS``/``threadpoolctl`` limits, a joblib or Dask
        worker's share), a positive int that many. Trees grow in parallel first, one thread
        each (Python threads over the GIL-free growth kernel). Unlike scikit-learn's forests,
        None is not one core: it is what a single treesmith tree uses.
    random_state : int, RandomState or None; the same forest whatever ``n_jobs``.

    ``predict_proba`` averages the trees' leaf class proportions (scikit-learn's soft vote).
    ``numeric_precision_`` is the single tree's (docs/methods.md §2), shared by the trees.
    ``estimators_samples_`` lists the rows each tree's bootstrap drew (recomputed from the
    seeds). The bootstrap draws rows uniformly, weights or not, and multiplies their weights
    by the counts (scikit-learn >= 1.8 draws with probabilities proportional to the weights).
    """

    _tree_class = DecisionTreeClassifier
    _task = CLASSIFICATION_TASK

    def __init__(self, n_estimators=100, *, criterion="gini", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                 bootstrap=True, oob_score=False, n_jobs=None, random_state=None,
                 class_weight=None, max_samples=None, max_bins=255, split_rule="gain",
                 feature_costs=None, cost_groups=None, cost_model="per_test",
                 monotonic_cst=None, categorical_features="from_dtype", warm_start=False,
                 ccp_alpha=0.0, min_weight_fraction_split=0.0):
        super().__init__(
            n_estimators=n_estimators, criterion=criterion, max_depth=max_depth,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf, max_features=max_features,
            max_leaf_nodes=max_leaf_nodes, min_impurity_decrease=min_impurity_decrease,
            bootstrap=bootstrap, oob_score=oob_score, n_jobs=n_jobs, random_state=random_state,
            max_samples=max_samples, max_bins=max_bins, split_rule=split_rule,
            feature_costs=feature_costs, cost_groups=cost_groups, cost_model=cost_model,
            monotonic_cst=monotonic_cst,
            categorical_features=categorical_features, warm_start=warm_start,
            ccp_alpha=ccp_alpha, min_weight_fraction_split=min_weight_fraction_split)
        self.class_weight = class_weight

    _parameter_table = {
        **FOREST_PARAMETER_CONSTRAINTS,
        "class_weight": [None, Options({"balanced", "balanced_subsample"}),
                         InstanceOf(dict, "a dict {class: weight}")],
    }

    @pauses_collector
    def fit(self, X, y, sample_weight=None):
        """Grow the forest on (X, y); NaN in X is a missing value."""
        self._validate_params()
        X, y = self._validate_X_y(X, y)
        if not labels_are_classes(y):
            check_classification_targets(y)
        self.classes_, y_code = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        class_weight = self.class_weight
        per_bootstrap = isinstance(class_weight, str) and class_weight == "balanced_subsample"
        if per_bootstrap and not self.bootstrap:
            class_weight = "balanced"  # the subsample is every row (scikit-learn's rule)
        if class_weight is not None and not (per_bootstrap and self.bootstrap):
            check_class_weight(class_weight, self.classes_)  # the single tree's checks
            sample_weight = check_sample_weight(
                sample_weight * compute_sample_weight(class_weight, y), X.shape[0],
                name="sample_weight * class_weight")
        return self._fit_forest(X, y_code.astype(np.int64), sample_weight, self.n_classes_, y,
                                balance_classes=per_bootstrap and bool(self.bootstrap))

    def predict_proba(self, X):
        """Mean over the trees of the reached leaves' class proportions."""
        return self._sum_over_trees(self._validate_X_predict(X)) / len(self.estimators_)

    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def _predict_from_leaves(self, leaves):
        """Predictions from the leaf each row reached in each tree (n_samples, n_trees)."""
        proba = np.zeros((leaves.shape[0], self.n_classes_))
        for t, member in enumerate(self.estimators_):
            proba += member.tree_.value[leaves[:, t]]
        return self.classes_.take(np.argmax(proba, axis=1))

    def predict(self, X):
        """Class with the largest mean probability (lowest class index on ties)."""
        proba = self.predict_proba(X)
        return self.classes_.take(np.argmax(proba, axis=1))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on (X, y), as scikit-learn's ``ClassifierMixin.score``
        (``_validation.plain_accuracy`` for plain labels)."""
        return accuracy(y, self.predict(X), sample_weight)

    def _set_oob_score(self, X, y, job):
        """``oob_decision_function_``: each row's mean class proportions over the trees it is
        out of bag for (``_oob_mean``, NaN for a row never out of bag); ``oob_score_``: the
        accuracy (or ``oob_score`` metric) of their most probable class over the rows that
        have one, unweighted as scikit-learn's (sample_weight is not passed to the metric)."""
        self.oob_decision_function_, seen = self._oob_mean(X, job)
        self.oob_score_ = self._oob_metric(accuracy_score)(
            y[seen], self.classes_.take(np.argmax(self.oob_decision_function_[seen], axis=1)))


class RandomForestRegressor(RegressorMixin, BaseForest):
    """Random forest regressor on the treesmith engine: the mean of the trees' predictions.

    Parameters (``warm_start`` too) as :class:`RandomForestClassifier` without
    ``class_weight``; ``criterion`` is a
    regression criterion ("squared_error" by default) and ``max_features`` defaults to 1.0
    (all features, scikit-learn's default for regression). ``oob_score_`` is the R² (or the
    ``oob_score`` metric, unweighted) of the out-of-bag predictions (``oob_prediction_``, NaN
    for a row every tree's bootstrap drew).
    """

    _tree_class = DecisionTreeRegressor
    _task = REGRESSION_TASK

    def __init__(self, n_estimators=100, *, criterion="squared_error", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 bootstrap=True, oob_score=False, n_jobs=None, random_state=None,
                 max_samples=None, max_bins=255, split_rule="gain", feature_costs=None,
                 cost_groups=None, cost_model="per_test", monotonic_cst=None,
                 categorical_features="from_dtype", warm_start=False, ccp_alpha=0.0,
                 min_weight_fraction_split=0.0):
        super().__init__(
            n_estimators=n_estimators, criterion=criterion, max_depth=max_depth,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf, max_features=max_features,
            max_leaf_nodes=max_leaf_nodes, min_impurity_decrease=min_impurity_decrease,
            bootstrap=bootstrap, oob_score=oob_score, n_jobs=n_jobs, random_state=random_state,
            max_samples=max_samples, max_bins=max_bins, split_rule=split_rule,
            feature_costs=feature_costs, cost_groups=cost_groups, cost_model=cost_model,
            monotonic_cst=monotonic_cst,
            categorical_features=categorical_features, warm_start=warm_start,
            ccp_alpha=ccp_alpha, min_weight_fraction_split=min_weight_fraction_split)

    @pauses_collector
    def fit(self, X, y, sample_weight=None):
        """Grow the forest on (X, y); NaN in X is a missing value."""
        self._validate_params()
        X, y = self._validate_X_y(X, y)
        y = np.asarray(y, dtype=np.float64)
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        return self._fit_forest(X, np.zeros(X.shape[0], dtype=np.int64), sample_weight, 0, y)

    def score(self, X, y, sample_weight=None):
        """R² on (X, y), as scikit-learn's ``RegressorMixin.score``, with the weights checked
        as fit checks them (scikit-learn's r2_score takes negative weights)."""
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, _n_rows(y))
        return super().score(X, y, sample_weight=sample_weight)

    def predict(self, X):
        """Mean over the trees of the reached leaves' mean labels."""
        return self._sum_over_trees(self._validate_X_predict(X))[:, 0] / len(self.estimators_)

    def _predict_from_leaves(self, leaves):
        """Predictions from the leaf each row reached in each tree (n_samples, n_trees)."""
        total = np.zeros(leaves.shape[0])
        for t, member in enumerate(self.estimators_):
            total += member.tree_.value[leaves[:, t], 0]
        return total / len(self.estimators_)

    def _set_oob_score(self, X, y, job):
        """``oob_prediction_``: each row's mean prediction over the trees it is out of bag for
        (``_oob_mean``, NaN for a row never out of bag); ``oob_score_``: the R² (or
        ``oob_score`` metric) over the rows that have one, unweighted as scikit-learn's."""
        prediction, seen = self._oob_mean(X, job)
        self.oob_prediction_ = prediction[:, 0]
        self.oob_score_ = self._oob_metric(r2_score)(y[seen], self.oob_prediction_[seen])


class ExtraTreesClassifier(RandomForestClassifier):
    """Extremely randomized trees (Geurts, Ernst & Wehenkel, "Extremely randomized trees",
    Machine Learning 2006) on the treesmith engine, as scikit-learn's ``ExtraTreesClassifier``.

    Each node of each tree examines ``max_features`` features (default "sqrt"), draws one
    split per feature, uniform in value between the node's smallest and largest value of it,
    and keeps the best of them under the criterion and split rule (every criterion and rule
    of the single tree); a categorical feature gets a uniformly random partition of its
    categories present in the node. The trees grow on the whole training set
    (``bootstrap=False`` by default; ``bootstrap=True`` draws samples as
    :class:`RandomForestClassifier` does, and then ``oob_score`` and ``max_samples`` apply).
    Every other parameter, attribute and method is :class:`RandomForestClassifier`'s; the
    members in ``estimators_`` are ``DecisionTreeClassifier(splitter="random")`` trees.
    docs/methods.md §7 (the binned draw, missing values, categorical features).
    """

    _splitter = "random"

    def __init__(self, n_estimators=100, *, criterion="gini", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                 bootstrap=False, oob_score=False, n_jobs=None, random_state=None,
                 class_weight=None, max_samples=None, max_bins=255, split_rule="gain",
                 feature_costs=None, cost_groups=None, cost_model="per_test",
                 monotonic_cst=None, categorical_features="from_dtype", warm_start=False,
                 ccp_alpha=0.0, min_weight_fraction_split=0.0):
        super().__init__(**{name: value for name, value in locals().items()
                            if name not in ("self", "__class__")})


class ExtraTreesRegressor(RandomForestRegressor):
    """Extremely randomized trees for regression, as scikit-learn's ``ExtraTreesRegressor``:
    :class:`ExtraTreesClassifier`'s drawn splits, :class:`RandomForestRegressor`'s parameters,
    with ``bootstrap=False`` and ``max_features=1.0`` (every feature gets one drawn split per
    node, the paper's default for regression) by default."""

    _splitter = "random"

    def __init__(self, n_estimators=100, *, criterion="squared_error", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 bootstrap=False, oob_score=False, n_jobs=None, random_state=None,
                 max_samples=None, max_bins=255, split_rule="gain", feature_costs=None,
                 cost_groups=None, cost_model="per_test", monotonic_cst=None,
                 categorical_features="from_dtype", warm_start=False, ccp_alpha=0.0,
                 min_weight_fraction_split=0.0):
        super().__init__(**{name: value for name, value in locals().items()
                            if name not in ("self", "__class__")})
