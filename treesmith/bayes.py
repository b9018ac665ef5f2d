"""Bayesian CART: a Metropolis–Hastings search over trees (``docs/methods.md §7``).

Chipman, George & McCulloch, "Bayesian CART model search" (JASA, 1998) put a prior on trees
(a node at depth d splits with probability sigma (1 + d)^(-phi); its rule is drawn uniformly
among the available ones: a threshold, or on a categorical feature a set of its categories)
and conjugate priors on the leaf parameters, whose marginal likelihood is exact: Dirichlet(a)
class probabilities for classification, the normal mean-shift model for regression; a
Metropolis–Hastings chain with grow, prune, change and swap
moves explores the posterior, restarted several times from the root. Balcan & Sharma
("Learning accurate and interpretable decision trees", 2024, §3.1) study learning (sigma, phi)
across problem instances. The compiled sampler is ``treesmith._kernels.bayes``; this module
wires it to a scikit-learn classifier and regressor whose ``tree_`` is the highest-posterior
tree visited.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._dtypes import CLASSIFICATION, REGRESSION, TREE_LEAF, TREE_UNDEFINED
from ._gc import pauses_collector
from ._kernels import bayes as _kernel
from ._validation import (
    COUNT_LIMIT,
    Interval,
    Options,
    RealNotInt,
    _n_rows,
    accuracy,
    check_random_state_parameter,
    check_sample_weight,
    clamp_count,
    validate_parameters,
)
from ._threading import resolve_n_jobs
from ._kernels.categorical import CATEGORICAL_SPLIT
from .binning import MAX_CATEGORIES, BinMapper, midpoints
from .categorical import category_counts
from .criteria._base import REGRESSION_TASK, resolve_criterion
from .estimators import TREE_PARAMETER_CONSTRAINTS, BaseDecisionTree
from .tree import Tree

MOVE_NAMES = _kernel.MOVE_NAMES
#: Width of a regression leaf's statistics in the sampler (sum w, sum w y', sum w y'^2).
_REGRESSION_STATISTICS = 3


class ChainResult(NamedTuple):
    """What one chain returns (``_kernels.bayes.run_chain``)."""

    log_posterior: np.ndarray
    log_likelihood: np.ndarray
    n_leaves: np.ndarray
    n_proposed: np.ndarray
    n_accepted: np.ndarray
    best_feature: np.ndarray
    best_bin: np.ndarray
    best_next_bin: np.ndarray
    best_left: np.ndarray
    best_right: np.ndarray
    best_stats: np.ndarray
    best_log_prior: float
    best_log_likelihood: float
    sample_offsets: np.ndarray
    sample_weights: np.ndarray
    sample_feature: np.ndarray
    sample_bin: np.ndarray
    sample_next_bin: np.ndarray
    sample_left: np.ndarray
    sample_right: np.ndarray
    sample_stats: np.ndarray
    best_categories: np.ndarray
    sample_categories: np.ndarray
    sample_truncated: bool


class PosteriorSample(NamedTuple):
    """The distinct post-burn-in trees of all chains, concatenated (node arrays in preorder;
    children relative to their tree's offset) with the number of iterations each was the
    state of a chain."""

    offsets: np.ndarray  # (n_trees + 1,)
    weights: np.ndarray  # (n_trees,)
    feature: np.ndarray
    bin_threshold: np.ndarray
    threshold: np.ndarray  # in original units
    left: np.ndarray
    right: np.ndarray
    leaf_prediction: np.ndarray  # (n_nodes, n_outputs): class probabilities or mean
    categories: np.ndarray  # uint64 (n_nodes, 4): a categorical rule's set sent left, else 0

    @property
    def n_trees(self) -> int:
        return int(self.weights.shape[0])

    def keys(self):
        """A hashable description of each tree: its preorder (feature, bin) pairs, a
        categorical rule's bin (-2) followed by the codes it sends left."""
        out = []
        for t in range(self.n_trees):
            lo, hi = self.offsets[t], self.offsets[t + 1]
            out.append(tuple(
                (f, b) if b != CATEGORICAL_SPLIT else (f, b, *_set_codes(bits))
                for f, b, bits in zip(self.feature[lo:hi].tolist(),
                                      self.bin_threshold[lo:hi].tolist(),
                                      self.categories[lo:hi])))
        return out


def _set_codes(bits) -> tuple:
    """The codes of a 256-bit category set (four uint64 words, bit c & 63 of word c >> 6)."""
    unpacked = np.unpackbits(np.asarray(bits, dtype="<u8").view(np.uint8), bitorder="little")
    return tuple(np.flatnonzero(unpacked).tolist())


def float_thresholds(bin_mapper: BinMapper, feature, bin_threshold, next_bin) -> np.ndarray:
    """Thresholds in original units of bin rules ``bin <= b`` (NaN for leaves, feature < 0,
    and for rules by a set of categories, bin_threshold ``CATEGORICAL_SPLIT``).

    As in the greedy trees: for an exactly binned feature, the midpoint between the value of
    bin b and that of the next bin present in the node's training data; for a quantile-binned
    one, bin b's upper edge; +inf when only the missing-value bin lies above b (the rule then
    separates missing from non-missing values).
    """
    threshold = np.full(feature.shape[0], np.nan)
    missing_bin = bin_mapper.missing_values_bin_idx_
    numeric = (feature >= 0) & (bin_threshold != CATEGORICAL_SPLIT)
    for f in np.unique(feature[numeric]):
        at = np.flatnonzero((feature == f) & numeric)
        b, nb = bin_threshold[at], next_bin[at]
        values = np.full(at.shape[0], np.inf)
        finite = nb != missing_bin
        if bin_mapper.is_exact_[f]:
            bin_values = bin_mapper.bin_values_[f]
            values[finite] = midpoints(bin_values[b[finite]], bin_values[nb[finite]])
        else:
            values[finite] = bin_mapper.bin_thresholds_[f][b[finite]]
        threshold[at] = values
    return threshold


def _gini(proportions: np.ndarray) -> np.ndarray:
    return 1.0 - np.sum(proportions ** 2, axis=1)


def _is_real(value) -> bool:
    return (isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, bool) and bool(np.isfinite(value)))


class BaseBayesianTree(BaseDecisionTree):
    """Sampler parameters, chains, results and prediction shared by the Bayesian trees.

    A subclass sets ``_model`` (kernel model code), gives ``_leaf_parameters`` (the kernel's
    likelihood parameters), ``_leaf_prediction`` (what a leaf predicts from its statistics)
    and ``_make_tree``.
    """

    _model = CLASSIFICATION

    # -- validation -----------------------------------------------------------------------
    #: Allowed values of the sampler's parameters (``treesmith._validation``), checked at the
    #: start of ``fit`` and on loaded models; the single tree's for the binning, categories,
    #: seed and threads. ``burn_in`` below ``n_iter`` and the memory of the chains are
    #: checked in ``_check_sampler_parameters`` / ``_check_chain_memory``.
    _parameter_table = {
        "sigma": [Interval(Real, 0.0, 1.0, "right")],
        "phi": [Interval(Real, 0.0, None)],
        "n_iter": [Interval(Integral, 1, None)],
        "n_chains": [Interval(Integral, 1, None)],
        "burn_in": [Interval(Integral, 0, None), Interval(RealNotInt, 0.0, 1.0, "left")],
        "max_leaves": [Interval(Integral, 1, None), None],
        "max_depth": [Interval(Integral, 0, None), None],
        "init": [Options({"root", "prior"})],
        "averaging": [Options({"map", "posterior"})],
        **{name: TREE_PARAMETER_CONSTRAINTS[name]
           for name in ("max_bins", "categorical_features", "random_state", "n_jobs")},
    }

    def _check_sampler_parameters(self, n_samples):
        """(sigma, phi, n_iter, n_chains, burn_in, max_leaves, max_depth) of the validated
        parameters, for the kernels (a depth beyond 2**53 is no limit)."""
        n_iter, n_chains = int(self.n_iter), int(self.n_chains)
        if isinstance(self.burn_in, Integral):
            if self.burn_in >= n_iter:
                raise ValueError(
                    f"burn_in must be an int in [0, n_iter={n_iter}) or a float in [0, 1), got "
                    f"{self.burn_in!r}.")
            burn_in = int(self.burn_in)
        else:
            burn_in = int(float(self.burn_in) * n_iter)
        max_leaves = n_samples if self.max_leaves is None else min(int(self.max_leaves),
                                                                   n_samples)
        max_depth = -1 if self.max_depth is None else clamp_count(self.max_depth, COUNT_LIMIT)
        return (float(self.sigma), float(self.phi), n_iter, n_chains, burn_in, max_leaves,
                max_depth)

    # -- fitting --------------------------------------------------------------------------
    def _sample(self, X, y_code, y_value, sample_weight, leaf_parameters, trivial):
        """Bin X, run the chains, keep the results. ``trivial``: every tree predicts the same
        (one class, a constant target), so the root alone is returned without sampling."""
        sample_idx = np.flatnonzero(sample_weight > 0).astype(np.int64)
        (sigma, phi, n_iter, n_chains, burn_in, max_leaves,
         max_depth) = self._check_sampler_parameters(sample_idx.shape[0])
        record_sample = self.averaging == "posterior"
        max_sample_nodes = -1
        if not trivial:
            stats_width = (leaf_parameters.shape[0] if self._model == CLASSIFICATION
                           else _REGRESSION_STATISTICS)
            max_sample_nodes = _check_chain_memory(
                n_iter, n_chains, sample_idx.shape[0], max_leaves, stats_width, X.shape[1],
                _bins_bound(self.max_bins), burn_in, record_sample,
                self._running_chains(n_chains))
        random_state = check_random_state_parameter(self.random_state)
        self.bin_mapper_ = BinMapper(max_bins=self.max_bins, random_state=random_state,
                                     n_categories=category_counts(
                                         getattr(self, "categories_", None)))
        X_binned = self.bin_mapper_.fit_transform(
            X, feature_names=getattr(self, "feature_names_in_", None))
        seeds = random_state.randint(0, 2**31 - 1, size=n_chains)
        data = _kernel.BinnedData(X_binned, sample_idx, y_code, y_value, sample_weight,
                                  int(self.bin_mapper_.n_bins_),
                                  int(self.bin_mapper_.missing_values_bin_idx_),
                                  self.bin_mapper_.categorical_mask())
        prior = _kernel.TreePrior(sigma, phi, self._model, leaf_parameters, max_depth,
                                  1 if trivial else max_leaves, 1.0)
        settings = _kernel.SamplerSettings(1 if trivial else n_iter, 0 if trivial else burn_in,
                                           _kernel.DEFAULT_MOVE_PROBABILITIES.copy(),
                                           self.init == "prior", record_sample,
                                           max_sample_nodes)
        self.burn_in_ = burn_in
        results = self._run_chains(data, prior, settings, seeds)
        _raise_sample_too_large(results, settings, n_chains)
        self._store_results(data, prior, results, trivial)
        return self

    def _running_chains(self, n_chains: int) -> int:
        """Chains that run at once: None, one at a time; -1, the threads this process may use
        (its affinity and quota, a joblib or Dask worker's share), as everywhere in treesmith."""
        n_jobs = 1 if self.n_jobs is None else resolve_n_jobs(int(self.n_jobs))
        return max(1, min(n_jobs, n_chains))

    def _run_chains(self, data, prior, settings, seeds):
        workers = self._running_chains(len(seeds))
        run = lambda seed: ChainResult(*_kernel.run_chain(data, prior, settings, int(seed)))
        if workers == 1:
            return [run(seed) for seed in seeds]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(run, seeds))

    def _store_results(self, data, prior, results, trivial):
        n_chains = len(results)
        stack = lambda name: np.stack([getattr(r, name) for r in results])
        if trivial:
            self.log_posterior_trace_ = np.zeros((n_chains, 0))
            self.log_likelihood_trace_ = np.zeros((n_chains, 0))
            self.n_leaves_trace_ = np.zeros((n_chains, 0), dtype=np.int64)
        else:
            self.log_posterior_trace_ = stack("log_posterior")
            self.log_likelihood_trace_ = stack("log_likelihood")
            self.n_leaves_trace_ = stack("n_leaves")
        proposed, accepted = stack("n_proposed").sum(axis=0), stack("n_accepted").sum(axis=0)
        self.n_proposals_ = {name: int(proposed[m]) for m, name in enumerate(MOVE_NAMES)}
        self.acceptance_rates_ = {
            name: float(accepted[m] / proposed[m]) if proposed[m] else float("nan")
            for m, name in enumerate(MOVE_NAMES)}
        targets = [r.best_log_prior + r.best_log_likelihood for r in results]
        best = int(np.argmax(targets))
        result = results[best]
        self.map_chain_ = best
        self.map_log_posterior_ = float(targets[best])
        self.map_log_likelihood_ = float(result.best_log_likelihood)
        statistics = np.zeros((result.best_feature.shape[0],
                               2 * self.n_classes_ if self._model == CLASSIFICATION else 4))
        _kernel.node_statistics(data, prior, result.best_feature, result.best_bin,
                                result.best_categories, result.best_left, result.best_right,
                                statistics)
        is_leaf = result.best_left == TREE_LEAF
        feature = np.where(is_leaf, TREE_UNDEFINED, result.best_feature).astype(np.int64)
        self.tree_ = self._make_tree(
            statistics,
            children_left=result.best_left.astype(np.int64),
            children_right=result.best_right.astype(np.int64), feature=feature,
            threshold=float_thresholds(self.bin_mapper_, feature, result.best_bin,
                                       result.best_next_bin),
            bin_threshold=np.where(is_leaf, -1, result.best_bin).astype(np.int64),
            missing_go_left=np.zeros(feature.shape[0], dtype=bool),
            left_categories=result.best_categories.astype(np.uint64),
            depth=_depths(result.best_left, result.best_right))
        self.posterior_sample_ = (self._make_sample(results)
                                  if self.averaging == "posterior" else None)

    def _make_sample(self, results) -> PosteriorSample:
        """Merge the chains' recorded trees, identical trees into one with summed weights."""
        trees = {}
        for r in results:
            for t in range(r.sample_weights.shape[0]):
                lo, hi = r.sample_offsets[t], r.sample_offsets[t + 1]
                key = (r.sample_feature[lo:hi].tobytes(), r.sample_bin[lo:hi].tobytes(),
                       r.sample_categories[lo:hi].tobytes())
                if key in trees:
                    trees[key][0] += int(r.sample_weights[t])
                else:
                    trees[key] = [int(r.sample_weights[t]), r, lo, hi]
        offsets = np.zeros(len(trees) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([hi - lo for _, _, lo, hi in trees.values()])
        weights = np.array([w for w, _, _, _ in trees.values()], dtype=np.float64)

        def pick(name):
            if not trees:
                return getattr(results[0], name)[:0]
            return np.concatenate([getattr(r, name)[lo:hi] for _, r, lo, hi in trees.values()])

        feature, bin_threshold = pick("sample_feature"), pick("sample_bin")
        return PosteriorSample(
            offsets, weights, feature, bin_threshold,
            float_thresholds(self.bin_mapper_, feature, bin_threshold, pick("sample_next_bin")),
            pick("sample_left"), pick("sample_right"),
            self._leaf_prediction(pick("sample_stats")), pick("sample_categories"))

    # -- prediction -----------------------------------------------------------------------
    def _predict_leaves(self, X):
        """What the best tree's leaves (``averaging="map"``) or the posterior sample predict
        for each row: (n_rows, n_outputs)."""
        X = self._validate_X_predict(X)
        if self.averaging == "posterior":
            sample = self.posterior_sample_
            if sample is None:
                raise ValueError("averaging='posterior' needs the posterior sample, which is "
                                 "recorded only when the estimator is fitted with "
                                 "averaging='posterior'; fit it again.")
            if sample.n_trees == 0:
                raise ValueError("the posterior sample is empty (burn_in left no iteration).")
            out = np.empty((X.shape[0], sample.leaf_prediction.shape[1]))
            return _kernel.predict_sample(
                np.asarray(X, dtype=np.float64), sample.offsets, sample.weights,
                sample.feature, sample.bin_threshold, sample.threshold, sample.categories,
                sample.left, sample.right, sample.leaf_prediction, out)
        leaf = self.tree_.apply(X, getattr(self, "feature_names_in_", None))
        return self._map_leaf_prediction()[leaf]

    def _node_predictions(self):
        """What a leaf at each node of the best tree predicts: its posterior mean (see
        ``BaseDecisionTree._node_predictions``). A posterior average of many trees has no
        single tree's node predictions: a ValueError naming ``averaging``."""
        check_is_fitted(self, "tree_")
        if self.averaging != "map":
            raise ValueError(
                f"{type(self).__name__}(averaging='posterior') predicts the average of its "
                "posterior sample of trees, which no single tree walk gives (to_sklearn, "
                "predict_lazy); fit it with averaging='map' (its best tree).")
        return self._map_leaf_prediction()

    # -- model files --------------------------------------------------------------------
    def _validate_params(self):
        """The sampler's and the prior's parameters (fit runs this first; ``treesmith.io``
        calls it on loaded models)."""
        validate_parameters(self)
        self._check_sampler_parameters(1)
        self._check_prior_parameters()

    def _check_loaded_attributes(self):
        """Raise a ValueError naming the fitted attribute that a loaded model holds wrongly:
        what prediction reads (the leaves' prior, the MAP tree) must be what fit stores, and
        model files keep the MAP tree only, not the posterior sample."""
        if self.averaging != "map" or getattr(self, "posterior_sample_", None) is not None:
            raise ValueError("model files store the MAP tree only: averaging must be 'map' and "
                             "posterior_sample_ null (the posterior sample is not saved)")
        n_chains = self.n_chains
        if not (_is_count(getattr(self, "map_chain_", None)) and self.map_chain_ < n_chains):
            raise ValueError(f"map_chain_ must be an int in [0, n_chains={n_chains})")
        if not _is_count(getattr(self, "burn_in_", None)) or self.burn_in_ >= max(self.n_iter, 1):
            raise ValueError(f"burn_in_ must be an int in [0, n_iter={self.n_iter})")
        for name in ("map_log_posterior_", "map_log_likelihood_"):
            value = getattr(self, name, None)
            if not isinstance(value, float) or np.isnan(value):
                raise ValueError(f"{name} must be a float")
        for name in ("log_posterior_trace_", "log_likelihood_trace_", "n_leaves_trace_"):
            trace = getattr(self, name, None)
            if not (isinstance(trace, np.ndarray) and trace.ndim == 2
                    and trace.shape[0] == n_chains and trace.dtype.kind in "iuf"):
                raise ValueError(f"{name} must be a 2-D numeric array with n_chains={n_chains} "
                                 "rows")
        for name in ("n_proposals_", "acceptance_rates_"):
            table = getattr(self, name, None)
            if not isinstance(table, dict) or sorted(table) != sorted(MOVE_NAMES):
                raise ValueError(f"{name} must be a dict keyed by the moves {list(MOVE_NAMES)}")
        self._check_leaf_prior()

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        raise AttributeError("cost_complexity_pruning_path is not defined for Bayesian CART; "
                             "prune tree_ with treesmith.prune instead.")


#: Bytes per node of a running chain's trees, besides the leaf statistics: the current tree
#: (``_kernels.bayes.Nodes``: ten int64 and four float64 arrays, a 256-bit category set, a
#: bool and three int64 set arrays: 201), its scratch copy (``Scratch``: 81) and the best tree
#: (five int64 and a category set: 72). Freed when the chain ends.
RUNNING_BYTES_PER_NODE = 201 + 81 + 72
#: Copies of a node's leaf statistics (8 bytes each) in a running chain: current, scratch, best.
RUNNING_STATISTICS_COPIES = 3
#: Bytes per row of a running chain: three int64 permutations of the positive-weight rows
#: (``Nodes.samples``, ``Scratch.samples``, ``Scratch.buffer``).
RUNNING_BYTES_PER_ROW = 24
#: Bytes per iteration of a chain, kept until fit returns: its three traces (log posterior,
#: log likelihood, leaves: 8 bytes each), copied once when stacked (``log_posterior_trace_``).
CHAIN_BYTES_PER_ITERATION = 2 * 24
#: Bytes per node of the best tree a chain returns (five int64 and a category set), besides
#: its statistics (8 bytes each).
BEST_BYTES_PER_NODE = 72
#: Bytes per recorded node of ``averaging="posterior"``'s sample, from recording to
#: ``posterior_sample_``, besides its statistics: while a chain records, its buffers (five int64
#: and a category set, 72 bytes a node) double as they fill and are copied when returned, three
#: records at most; the merge of the chains' samples then holds the returned records, the
#: merged arrays with thresholds and leaf predictions, and the dict keys (48). Measured in
#: all, per recorded node: 181 bytes with 2 classes, 217 in regression (docs/methods.md §7).
SAMPLE_BYTES_PER_NODE = 3 * 72 + 48
#: ... and per statistic of a recorded node (three records, the leaf predictions and their
#: temporaries).
SAMPLE_BYTES_PER_STATISTIC = 5 * 8
#: Bytes per recorded tree: offsets and weights (16 bytes, three copies) and the merge's dict
#: entry, key and list.
SAMPLE_BYTES_PER_TREE = 512


def chain_memory_bytes(n_iter: int, n_chains: int, n_samples: int, max_leaves: int,
                       stats_width: int, n_features: int = 0, n_bins: int = 0,
                       n_running: int | None = None) -> int:
    """An upper bound on what the chains allocate, their posterior sample apart
    (``sample_memory_bytes``): per chain its traces (``CHAIN_BYTES_PER_ITERATION``) and its
    best tree; per chain running at once (``n_running``, all by default) its current, scratch
    and best trees (2 max_leaves - 1 nodes each), its rows' permutations and its per-feature
    and per-bin scratch. Measured with tracemalloc (tests/test_bayes_memory.py,
    docs/methods.md §7)."""
    nodes = 2 * max_leaves - 1
    n_running = n_chains if n_running is None else min(n_running, n_chains)
    kept = CHAIN_BYTES_PER_ITERATION * n_iter + nodes * (BEST_BYTES_PER_NODE + 8 * stats_width)
    running = (nodes * (RUNNING_BYTES_PER_NODE + RUNNING_STATISTICS_COPIES * 8 * stats_width)
               + RUNNING_BYTES_PER_ROW * n_samples + 8 * n_features + n_bins + 1024)
    return n_chains * kept + n_running * running


def sample_memory_bytes(n_nodes: int, n_trees: int, stats_width: int) -> int:
    """An upper bound on what a posterior sample of ``n_trees`` recorded trees of ``n_nodes``
    nodes in all (all chains) takes from recording to ``posterior_sample_``."""
    return (n_nodes * (SAMPLE_BYTES_PER_NODE + SAMPLE_BYTES_PER_STATISTIC * stats_width)
            + SAMPLE_BYTES_PER_TREE * n_trees)


def _check_chain_memory(n_iter, n_chains, n_samples, max_leaves, stats_width, n_features=0,
                        n_bins=0, burn_in=0, record_sample=False, n_running=None) -> int:
    """The node limit of each chain's posterior sample (``SamplerSettings.max_sample_nodes``),
    after a ValueError naming the parameters to change when the chains would need more memory
    than the system has available, instead of an allocation failure deep in the sampler (or
    the process being killed).

    Without ``record_sample``: -1. With it, the sample of each chain is at most
    n_iter - burn_in trees of 2 max_leaves - 1 nodes; when that worst case does not fit in the
    memory the chains leave, each chain may record what its share holds (at least one tree of
    the largest size, else the error comes now) and a chain that fills it stops the fit
    (``_raise_sample_too_large``)."""
    from .grower import _format_bytes, available_memory_bytes

    needed = chain_memory_bytes(n_iter, n_chains, n_samples, max_leaves, stats_width,
                                n_features, n_bins, n_running)
    nodes = 2 * max_leaves - 1
    worst_nodes = (n_iter - burn_in) * nodes if record_sample else 0
    node_bytes = sample_memory_bytes(1, 1, stats_width)  # a tree has at least one node
    smallest = n_chains * nodes * node_bytes if record_sample else 0
    available = available_memory_bytes()
    if available is not None and needed + smallest > available:
        sample = (f", and averaging='posterior' at least {_format_bytes(smallest)} more for "
                  "its sample of trees" if record_sample else "")
        raise ValueError(
            f"n_iter={n_iter} iterations in each of n_chains={n_chains} chains need about "
            f"{_format_bytes(needed)} ({CHAIN_BYTES_PER_ITERATION} bytes per iteration and "
            f"{RUNNING_BYTES_PER_NODE + RUNNING_STATISTICS_COPIES * 8 * stats_width} per node "
            f"of the 2 max_leaves - 1 = {nodes} nodes of a running chain's trees{sample}), "
            "more than "
            f"the {_format_bytes(available)} of memory available; lower n_iter, n_chains or "
            "max_leaves" + (", or use averaging='map'." if record_sample else "."))
    if not record_sample:
        return -1
    if available is not None:
        worst_nodes = min(worst_nodes, (available - needed) // (n_chains * node_bytes))
    return int(min(worst_nodes, 1 << 62))  # an int64 for the kernel


def _raise_sample_too_large(results, settings, n_chains) -> None:
    """The ValueError of a fit whose posterior sample filled the memory it was given
    (``settings.max_sample_nodes`` nodes per chain, ``_check_chain_memory``)."""
    from .grower import _format_bytes

    stopped = [c for c, r in enumerate(results) if r.sample_truncated]
    if not stopped:
        return
    r = results[stopped[0]]
    node_bytes = sample_memory_bytes(1, 1, r.sample_stats.shape[1])
    raise ValueError(
        f"averaging='posterior' keeps every tree of the n_iter - burn_in = "
        f"{settings.n_iter} - {settings.burn_in} iterations after burn_in, and chain "
        f"{stopped[0]} of n_chains={n_chains} filled its share of the available memory "
        f"({settings.max_sample_nodes} nodes, about {node_bytes} bytes each: "
        f"{_format_bytes(settings.max_sample_nodes * node_bytes)}) after "
        f"{r.sample_weights.shape[0]} distinct trees; lower n_iter, raise burn_in, lower "
        "max_leaves or n_chains, or use averaging='map'.")


def _bins_bound(max_bins) -> int:
    """Bins per feature (missing-value bin included) at most, before binning: exact binning
    (None) may give each of up to 65535 values a bin; a bad ``max_bins`` is BinMapper's
    error, after this bound."""
    if max_bins is None:
        return 1 << 16
    return max(max_bins if _is_count(max_bins) else 0, MAX_CATEGORIES) + 1


def _is_count(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0


def _depths(left, right) -> np.ndarray:
    depth = np.zeros(left.shape[0], dtype=np.int64)
    for node in range(left.shape[0]):  # parents come first
        if left[node] != TREE_LEAF:
            depth[left[node]] = depth[right[node]] = depth[node] + 1
    return depth


_SAMPLER_DOC = """
    n_iter : int >= 1, default=10_000
        Metropolis–Hastings iterations per chain.
    n_chains : int >= 1, default=4
        Independent chains (restarts).
    burn_in : int in [0, n_iter) or float in [0, 1), default=0.25
        Iterations (or fraction of ``n_iter``) of each chain left out of the posterior sample
        and of ``averaging="posterior"``; the best tree is searched over all iterations.
    max_leaves : int >= 1 or None, default=64
        Cap on the number of leaves (None: as many as samples).
    max_depth : int >= 0 or None, default=None
        Nodes at this depth do not split (prior split probability 0).
    init : "root" or "prior", default="root"
        Start each chain from the root alone or from a tree drawn from the prior.
    averaging : "map" or "posterior", default="map"
        Predict with the best tree, or average over the post-burn-in trees of all chains
        (weighted by how long each was a chain's state; recorded only when fitted with
        "posterior"). In both, a leaf predicts its posterior mean.
    max_bins : int in [2, 65535] or None, default=255
        Bins per feature (split values are bins; see ``treesmith.BinMapper``).
    categorical_features : "from_dtype", None/False, boolean mask, column indices or names
        Columns split by sets of categories (``docs/methods.md §11``), as in
        :class:`~treesmith.DecisionTreeClassifier`: "from_dtype" (default) takes the pandas
        category, string, object and bool columns of a DataFrame (polars: Categorical, Enum,
        String, Boolean); at most 255 categories per column. The prior draws a categorical
        rule uniformly among the partitions of the categories present in the node (the
        missing bin counting as one more when missing values are there) into two non-empty
        sets (Chipman, George & McCulloch 1998: uniform over the subsets). Missing values,
        categories unseen in training and categories absent from a node's training data go
        right, the side a Bayesian tree's rules keep for the missing bin.
    n_jobs : int or None, default=None
        Threads running chains at once (None: 1; -1: every core this process may use, its
        affinity and quota or a joblib/Dask worker's share, -2 all but one, as elsewhere in
        treesmith; a chain's results do not depend on it).
    random_state : int, RandomState or None
        Seeds the chains and the binning subsample.
"""

_ATTRIBUTES_DOC = """
    log_posterior_trace_, log_likelihood_trace_, n_leaves_trace_ : arrays (n_chains, n_iter),
        the chains' states after each iteration (log posterior up to a constant: log prior +
        log marginal likelihood).
    acceptance_rates_ : dict move -> accepted / proposed over all chains (a move impossible in
        the current tree counts as a rejected proposal; a change that redraws the same rule as
        an accepted one).
    n_proposals_ : dict move -> number of proposals.
    map_log_posterior_, map_log_likelihood_, map_chain_ : the best tree's log posterior, log
        likelihood and the chain that found it.
    posterior_sample_ : PosteriorSample or None (recorded with ``averaging="posterior"``).
    burn_in_ : int, the burn-in in iterations.
"""


class BayesianTreeClassifier(ClassifierMixin, BaseBayesianTree):
    """Bayesian CART classifier: Metropolis–Hastings over trees, the best tree as ``tree_``.

    Prior (``docs/methods.md §7``; Chipman, George & McCulloch 1998): a node at depth d with a
    usable split splits with probability ``sigma * (1 + d) ** -phi``; its feature is uniform
    among the features taking two distinct values in the node, its threshold uniform among the
    node's distinct binned values but the largest (both children non-empty); on a categorical
    feature, a set of categories uniform among the 2^(m-1) - 1 partitions of the m distinct
    values in the node (missing counting as one) into two non-empty sets. Trees have at
    most ``max_leaves`` leaves (the prior is conditioned on it) and depth ``max_depth``. Each
    leaf's class probabilities have a Dirichlet(``a``) prior, integrated out exactly:
    ``p(y | T) = prod_leaves Gamma(A) / prod_k Gamma(a_k) * prod_k Gamma(n_k + a_k) /
    Gamma(n + A)`` with ``A = sum_k a_k``; sample weights act as frequency weights in the
    counts ``n_k``.

    ``n_chains`` chains of ``n_iter`` grow / prune / change / swap steps each (CGM98's move
    probabilities 0.25 / 0.25 / 0.40 / 0.10) start from the root alone (CGM98's restarts) or
    from a draw of the prior (``init="prior"``, the protocol of Balcan & Sharma 2024 §3.1);
    each chain has its own seed from ``random_state``, so results do not depend on
    ``n_jobs``. The sampler runs compiled on the binned data and updates class counts only in
    the nodes a move touches.

    Parameters
    ----------
    sigma : float in (0, 1], default=0.95
        Split probability of the root; larger means larger trees.
    phi : float >= 0, default=1.0
        Depth penalty: deeper nodes split with probability ``sigma * (1 + d) ** -phi``.
    a : float > 0 or array of n_classes floats > 0, default=1.0
        Dirichlet concentration of the leaves' class probabilities (1 = uniform); a leaf
        predicts ``(n_k + a_k) / (n + A)``.
    """ + _SAMPLER_DOC + """
    Attributes
    ----------
    tree_ : treesmith.tree.Tree, the highest-posterior tree visited by any chain; its
        ``value`` holds the leaves' weighted class proportions (as the other estimators'),
        its ``impurity`` their Gini impurity.
    """ + _ATTRIBUTES_DOC + """
    Examples
    --------
    Tuning (sigma, phi) by cross-validation:

    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import GridSearchCV
    >>> from treesmith import BayesianTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> search = GridSearchCV(
    ...     BayesianTreeClassifier(n_iter=1000, n_chains=2, random_state=0),
    ...     {"sigma": [0.5, 0.95], "phi": [0.5, 2.0]}, cv=3).fit(X, y)
    >>> sorted(search.best_params_)
    ['phi', 'sigma']
    """

    _model = CLASSIFICATION

    def __init__(self, sigma=0.95, phi=1.0, a=1.0, n_iter=10_000, n_chains=4, burn_in=0.25,
                 max_leaves=64, max_depth=None, init="root", averaging="map", max_bins=255,
                 categorical_features="from_dtype", n_jobs=None, random_state=None):
        self.sigma = sigma
        self.phi = phi
        self.a = a
        self.n_iter = n_iter
        self.n_chains = n_chains
        self.burn_in = burn_in
        self.max_leaves = max_leaves
        self.max_depth = max_depth
        self.init = init
        self.averaging = averaging
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _dirichlet(self, n_classes):
        try:
            a = np.asarray(self.a, dtype=object)
            # a bool is not a concentration (np.True_ was 1.0), nor is text
            a = None if isinstance(self.a, str) or np.asarray(self.a).dtype.kind in "bUS" \
                else np.asarray(a, dtype=np.float64)
        except (TypeError, ValueError):
            a = None
        if a is None or a.ndim > 1 or (a.ndim == 1 and a.shape[0] != n_classes) or not np.all(
                np.isfinite(a)) or not np.all(a > 0):
            raise ValueError(
                f"a must be a float > 0 or an array of n_classes={n_classes} floats > 0 (the "
                f"Dirichlet concentration of the leaves), got {self.a!r}.")
        a = np.ascontiguousarray(np.broadcast_to(a, (n_classes,)), dtype=np.float64)
        with np.errstate(over="ignore"):
            total = a.sum()
        if not np.isfinite(total):  # A = sum a_k: the leaves' (n_k + a_k) / (n + A) would be 0
            raise ValueError(f"a must sum to a finite float (A = sum of the Dirichlet "
                             f"concentrations over {n_classes} classes), got {self.a!r}.")
        return a

    @pauses_collector
    def fit(self, X, y, sample_weight=None):
        """Run the chains on (X, y) and keep the best tree; NaN in X is a missing value."""
        self._validate_params()
        X, y = self._validate_X_y(X, y)
        check_classification_targets(y)
        self.classes_, y_code = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        self.n_outputs_ = 1
        # frequency weights: rescaling an overflowing sum (as the other trees may) would
        # change the posterior, so it is an error here
        sample_weight = check_sample_weight(sample_weight, X.shape[0], rescale=False)
        self.dirichlet_ = self._dirichlet(self.n_classes_)
        self.criterion_ = resolve_criterion("gini", "classification")  # impurity of tree_
        # one class: every tree predicts it with probability 1, so the root alone
        return self._sample(X, y_code.astype(np.int64), np.zeros(0), sample_weight,
                            self.dirichlet_, trivial=self.n_classes_ == 1)

    def _check_prior_parameters(self):
        """``a`` is checked against the classes in fit (:meth:`_dirichlet`)."""

    def _check_leaf_prior(self):
        """dirichlet_ must be what ``a`` gives for n_classes_ classes (predict_proba uses it)."""
        expected = self._dirichlet(self.n_classes_)
        stored = getattr(self, "dirichlet_", None)
        if not (isinstance(stored, np.ndarray) and stored.dtype.kind == "f"
                and np.array_equal(stored, expected)):
            raise ValueError(f"dirichlet_ must be the Dirichlet concentration that a={self.a!r} "
                             f"gives for {self.n_classes_} classes")

    def _leaf_prediction(self, class_weight):
        """The Dirichlet posterior mean (n_k + a_k) / (n + A) of leaves' class weights."""
        return (class_weight + self.dirichlet_) / (class_weight.sum(axis=1, keepdims=True)
                                                   + self.dirichlet_.sum())

    def _map_leaf_prediction(self):
        return self._leaf_prediction(self.tree_.weighted_value)

    def _make_tree(self, statistics, **arrays) -> Tree:
        k = self.n_classes_
        class_weight, class_count = statistics[:, :k], statistics[:, k:]
        weighted_n = class_weight.sum(axis=1)
        value = class_weight / weighted_n[:, None]
        return Tree(self.n_features_in_, k, impurity=_gini(value),
                    n_node_samples=np.rint(class_count.sum(axis=1)).astype(np.int64),
                    weighted_n_node_samples=weighted_n, value=value, class_counts=class_count,
                    **arrays)

    def predict_proba(self, X):
        """Posterior predictive class probabilities: ``(n_k + a_k) / (n + A)`` of the reached
        leaf of the best tree (``averaging="map"``) or averaged over the posterior sample."""
        return self._predict_leaves(X)

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on (X, y), the weights checked as fit checks them (scikit-learn's
        accuracy_score averages with negative weights)."""
        return accuracy(y, self.predict(X), sample_weight)

    def predict(self, X):
        """Most probable class (lowest class index on ties)."""
        proba = self.predict_proba(X)
        return self.classes_.take(np.argmax(proba, axis=1))


class BayesianTreeRegressor(RegressorMixin, BaseBayesianTree):
    """Bayesian CART regressor: CGM98's conjugate normal mean-shift model, sampled by the
    same Metropolis–Hastings kernel as :class:`BayesianTreeClassifier` (same tree prior,
    moves and outputs).

    Likelihood (``docs/methods.md §7``; Chipman, George & McCulloch 1998): in leaf i,
    ``y ~ N(mu_i, s^2)``, ``mu_i ~ N(mu_bar, s^2 / a)``, ``s^2 ~ InvGamma(nu / 2, nu lam / 2)``;
    integrating mu_i and s^2 out,

        log p(y | T) = const + sum_i [log(a) / 2 - log(n_i + a) / 2]
                       - (n + nu) / 2 * log(sum_i q_i + nu * lam),
        q_i = sum over leaf i of (y - ybar_i)^2 + n_i a / (n_i + a) (ybar_i - mu_bar)^2,

    with frequency weights in every count and sum. A leaf predicts the posterior mean of its
    mu_i, ``(n_i ybar_i + a mu_bar) / (n_i + a)``; ``tree_.value`` holds the plain leaf means
    (as the other estimators').

    Parameters
    ----------
    sigma, phi : the tree prior, as in :class:`BayesianTreeClassifier`.
    a : float > 0, default=1/3
        Ratio of the noise variance to the prior variance of a leaf mean (the prior standard
        deviation of mu_i is ``s / sqrt(a)``: sqrt(3) noise standard deviations by default).
    nu : float > 0, default=3.0
        Degrees of freedom of the inverse-gamma prior on the noise variance.
    lam : float > 0 or None, default=None
        Scale of that prior; None calibrates it as Chipman, George & McCulloch do for BART
        (2010): the prior puts probability 0.9 on s^2 below the weighted variance of y.
    mu_bar : float or None, default=None
        Prior mean of the leaf means (None: the weighted mean of y).
    """ + _SAMPLER_DOC + """
    Attributes
    ----------
    tree_ : treesmith.tree.Tree, the highest-posterior tree visited by any chain (``value``:
        weighted mean label, ``impurity``: weighted variance).
    lam_, mu_bar_ : the values used.
    """ + _ATTRIBUTES_DOC

    _task = REGRESSION_TASK
    _model = REGRESSION

    def __init__(self, sigma=0.95, phi=1.0, a=1 / 3, nu=3.0, lam=None, mu_bar=None,
                 n_iter=10_000, n_chains=4, burn_in=0.25, max_leaves=64, max_depth=None,
                 init="root", averaging="map", max_bins=255, categorical_features="from_dtype",
                 n_jobs=None, random_state=None):
        self.sigma = sigma
        self.phi = phi
        self.a = a
        self.nu = nu
        self.lam = lam
        self.mu_bar = mu_bar
        self.n_iter = n_iter
        self.n_chains = n_chains
        self.burn_in = burn_in
        self.max_leaves = max_leaves
        self.max_depth = max_depth
        self.init = init
        self.averaging = averaging
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.random_state = random_state

    @pauses_collector
    def fit(self, X, y, sample_weight=None):
        """Run the chains on (X, y) and keep the best tree; NaN in X is a missing value."""
        self._validate_params()
        X, y = self._validate_X_y(X, y)
        y = np.asarray(y, dtype=np.float64)
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D for BayesianTreeRegressor, got shape {y.shape}.")
        self.n_outputs_ = 1
        sample_weight = check_sample_weight(sample_weight, X.shape[0], rescale=False)
        positive = sample_weight > 0
        total = float(sample_weight.sum())
        with np.errstate(over="ignore", invalid="ignore"):
            mean = float(np.dot(sample_weight, y) / total)
            squares = float(np.dot(sample_weight[positive], (y[positive] - mean) ** 2))
        if not np.isfinite(squares):  # the leaves' sums of squares would be inf or NaN
            raise ValueError(f"y is too large for BayesianTreeRegressor: its weighted sum of "
                             f"squared deviations overflows float64 (largest |y| "
                             f"{float(np.abs(y).max()):.3g}, sum of sample_weight "
                             f"{total:.3g}); divide y (or sample_weight) by a constant.")
        variance = squares / total
        self.mu_bar_ = mean if self.mu_bar is None else float(self.mu_bar)
        with np.errstate(over="ignore", invalid="ignore"):
            spread = float(np.dot(sample_weight, np.abs(y - self.mu_bar_)))
            largest = max(total, spread)
            overflows = not np.isfinite(largest * largest)
        if overflows:  # a leaf's (sum w y')^2 / sum w: the chain compared NaN and infinities
            raise ValueError(
                f"sample_weight and y are too large for BayesianTreeRegressor: a leaf's "
                f"squared weighted sums overflow float64 (sum of sample_weight {total:.3g}, "
                f"weighted sum of |y - mu_bar| {spread:.3g}; both must stay below 1e154); "
                "divide sample_weight or y by a constant (the weights are frequency weights: "
                "smaller ones also make the data less decisive).")
        nu = float(self.nu)
        if self.lam is None:
            from scipy.stats import chi2

            # P(s^2 < variance) = P(chi2_nu > nu lam / variance) = 0.9
            self.lam_ = variance * float(chi2.ppf(0.1, nu)) / nu
        else:
            self.lam_ = float(self.lam)
        trivial = variance <= 0.0 or self.lam_ <= 0.0  # a constant target: the root alone
        self.criterion_ = resolve_criterion("squared_error", "regression")
        parameters = np.array([float(self.a), nu, self.lam_ if self.lam_ > 0 else 1.0, total])
        return self._sample(X, np.zeros(X.shape[0], dtype=np.int64), y - self.mu_bar_,
                            sample_weight, parameters, trivial)

    _parameter_table = {
        **BaseBayesianTree._parameter_table,
        "a": [Interval(Real, 0.0, None, "neither")],
        "nu": [Interval(Real, 0.0, None, "neither")],
        "lam": [None, Interval(Real, 0.0, None, "neither")],
        "mu_bar": [None, Interval(Real, None, None)],
    }

    def _check_prior_parameters(self):
        """a, nu > 0; lam > 0 or None; mu_bar finite or None: the table's."""

    def score(self, X, y, sample_weight=None):
        """R² on (X, y), as scikit-learn's ``RegressorMixin.score``, with the weights checked
        as fit checks them (scikit-learn's r2_score takes negative weights)."""
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, _n_rows(y))
        return super().score(X, y, sample_weight=sample_weight)

    def _check_leaf_prior(self):
        """mu_bar_ and lam_ as fit stores them (predict centres the leaves on mu_bar_)."""
        mu_bar, lam = getattr(self, "mu_bar_", None), getattr(self, "lam_", None)
        if not _is_real(mu_bar) or (self.mu_bar is not None and mu_bar != float(self.mu_bar)):
            raise ValueError("mu_bar_ must be a finite float (equal to mu_bar when it is set)")
        if not _is_real(lam) or lam < 0 or (self.lam is not None and lam != float(self.lam)):
            raise ValueError("lam_ must be a finite float >= 0 (equal to lam when it is set)")

    def _leaf_prediction(self, stats):
        """Posterior mean of the leaf means: mu_bar + sum w (y - mu_bar) / (n_i + a), from
        the (sum w, sum w y', sum w y'^2) statistics."""
        return (self.mu_bar_ + stats[:, 1] / (stats[:, 0] + float(self.a)))[:, None]

    def _map_leaf_prediction(self):
        tree = self.tree_
        centred = tree.weighted_n_node_samples * (tree.value[:, 0] - self.mu_bar_)
        return self._leaf_prediction(np.column_stack([tree.weighted_n_node_samples, centred]))

    def _make_tree(self, statistics, **arrays) -> Tree:
        count, weight, total, squares = statistics.T
        mean = total / weight
        return Tree(self.n_features_in_, 0, impurity=np.maximum(squares / weight - mean ** 2, 0),
                    n_node_samples=np.rint(count).astype(np.int64),
                    weighted_n_node_samples=weight, value=(self.mu_bar_ + mean)[:, None],
                    class_counts=np.zeros((count.shape[0], 0)), **arrays)

    def predict(self, X):
        """Posterior mean of the reached leaf's mean (best tree or posterior average)."""
        return self._predict_leaves(X)[:, 0]


def plot_trace(estimator, ax=None, burn_in=True):
    """Trace plot of a fitted Bayesian tree (classifier or regressor): log posterior, log
    likelihood and number of leaves per iteration, one line per chain, the burn-in shaded.
    Returns the matplotlib axes (three, stacked)."""
    from ._compat import optional_import

    plt = optional_import("matplotlib.pyplot")
    check_is_fitted(estimator, "log_posterior_trace_")
    traces = (("log posterior", estimator.log_posterior_trace_),
              ("log likelihood", estimator.log_likelihood_trace_),
              ("leaves", estimator.n_leaves_trace_))
    if ax is None:
        _, ax = plt.subplots(3, 1, figsize=(8, 7), sharex=True)
    ax = np.atleast_1d(ax)
    if ax.shape[0] != 3:
        raise ValueError(f"ax must hold 3 axes (one per trace), got {ax.shape[0]}.")
    n_iter = estimator.log_posterior_trace_.shape[1]
    burn_in_iterations = estimator.burn_in_
    for axis, (label, trace) in zip(ax, traces):
        for chain, values in enumerate(trace):
            axis.plot(np.arange(1, n_iter + 1), values, lw=0.8, label=f"chain {chain}")
        if burn_in and burn_in_iterations:
            axis.axvspan(0, burn_in_iterations, color="0.9", zorder=0)
        axis.set_ylabel(label)
    ax[-1].set_xlabel("iteration")
    ax[0].legend(loc="lower right", fontsize="small", ncol=min(4, trace.shape[0]))
    ax[0].set_title("Bayesian CART chains" + (" (burn-in shaded)" if burn_in else ""))
    return ax
