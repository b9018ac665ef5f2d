"""Bayesian CART: a Metropolis–Hastings search over trees (``docs/methods.md §7``).

Chipman, George & McCulloch, "Bayesian CART model search" (JASA, 1998) put a prior on trees
(a node at depth d splits with probability sigma (1 + d)^(-phi); its rule is drawn uniformly
among the available ones) and a Dirichlet(a) prior on each leaf's class probabilities, whose
marginal likelihood is exact; a Metropolis–Hastings chain with grow, prune, change and swap moves
explores the posterior, restarted several times from the root. Balcan & Sharma ("Learning
accurate and interpretable decision trees", 2024, §3.1) study learning (sigma, phi) across
problem instances. The compiled sampler is ``treesmith._kernels.bayes``; this module wires it to
a scikit-learn classifier whose ``tree_`` is the highest-posterior tree visited.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._dtypes import TREE_LEAF, TREE_UNDEFINED
from ._gc import pauses_collector
from ._kernels import bayes as _kernel
from ._validation import check_fraction, check_int, check_sample_weight
from .binning import BinMapper, midpoints
from .criteria._base import resolve_criterion
from .estimators import BaseDecisionTree
from .tree import Tree

MOVE_NAMES = _kernel.MOVE_NAMES


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
    best_class_weight: np.ndarray
    best_log_prior: float
    best_log_likelihood: float
    sample_offsets: np.ndarray
    sample_weights: np.ndarray
    sample_feature: np.ndarray
    sample_bin: np.ndarray
    sample_next_bin: np.ndarray
    sample_left: np.ndarray
    sample_right: np.ndarray
    sample_class_weight: np.ndarray


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
    leaf_proba: np.ndarray  # (n_nodes, n_classes), posterior predictive of leaves

    @property
    def n_trees(self) -> int:
        return int(self.weights.shape[0])

    def keys(self):
        """A hashable description of each tree: its preorder (feature, bin) pairs."""
        out = []
        for t in range(self.n_trees):
            lo, hi = self.offsets[t], self.offsets[t + 1]
            out.append(tuple(zip(self.feature[lo:hi].tolist(),
                                 self.bin_threshold[lo:hi].tolist())))
        return out


def float_thresholds(bin_mapper: BinMapper, feature, bin_threshold, next_bin) -> np.ndarray:
    """Thresholds in original units of bin rules ``bin <= b`` (NaN for leaves, feature < 0).

    As in the greedy trees: for an exactly binned feature, the midpoint between the value of
    bin b and that of the next bin present in the node's training data; for a quantile-binned
    one, bin b's upper edge; +inf when only the missing-value bin lies above b (the rule then
    separates missing from non-missing values).
    """
    threshold = np.full(feature.shape[0], np.nan)
    missing_bin = bin_mapper.missing_values_bin_idx_
    for f in np.unique(feature[feature >= 0]):
        at = np.flatnonzero(feature == f)
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


class BayesianTreeClassifier(ClassifierMixin, BaseDecisionTree):
    """Bayesian CART classifier: Metropolis–Hastings over trees, the best tree as ``tree_``.

    Prior (``docs/methods.md §7``; Chipman, George & McCulloch 1998): a node at depth d with a
    usable split splits with probability ``sigma * (1 + d) ** -phi``; its feature is uniform
    among the features taking two distinct values in the node, its threshold uniform among the
    node's distinct binned values but the largest (both children non-empty). Trees have at
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
        Dirichlet concentration of the leaves' class probabilities (1 = uniform).
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
        ``predict_proba`` from the best tree, or averaged over the post-burn-in trees of all
        chains (weighted by how long each was the chain's state). In both, a leaf predicts its
        posterior mean ``(n_k + a_k) / (n + A)``.
    max_bins : int in [2, 65535] or None, default=255
        Bins per feature (split values are bins; see ``treesmith.BinMapper``).
    n_jobs : int or None, default=None
        Threads running chains at once (None: 1; -1: all cores).
    random_state : int, RandomState or None
        Seeds the chains and the binning subsample.

    Attributes
    ----------
    tree_ : treesmith.tree.Tree, the highest-posterior tree visited by any chain; its
        ``value`` holds the leaves' weighted class proportions (as the other estimators'),
        its ``impurity`` their Gini impurity.
    log_posterior_trace_, log_likelihood_trace_, n_leaves_trace_ : arrays (n_chains, n_iter),
        the chain's state after each iteration (log posterior up to a constant: log prior +
        log likelihood).
    acceptance_rates_ : dict move -> accepted / proposed over all chains (a move impossible in
        the current tree counts as a rejected proposal; a change that redraws the same rule as
        an accepted one).
    n_proposals_ : dict move -> number of proposals.
    map_log_posterior_, map_log_likelihood_, map_chain_ : the best tree's log posterior, log
        likelihood and the chain that found it.
    posterior_sample_ : PosteriorSample or None (recorded with ``averaging="posterior"``).

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

    def __init__(self, sigma=0.95, phi=1.0, a=1.0, n_iter=10_000, n_chains=4, burn_in=0.25,
                 max_leaves=64, max_depth=None, init="root", averaging="map", max_bins=255,
                 n_jobs=None, random_state=None):
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
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- validation -----------------------------------------------------------------------
    def _check_parameters(self, n_classes, n_samples):
        sigma = check_fraction("sigma", self.sigma, 0.0, 1.0, low_inclusive=False)
        if not (isinstance(self.phi, (int, float, np.integer, np.floating))
                and not isinstance(self.phi, bool) and np.isfinite(self.phi) and self.phi >= 0):
            raise ValueError(f"phi must be a float >= 0, got {self.phi!r}.")
        a = np.asarray(self.a, dtype=np.float64) if not isinstance(self.a, (str, bool)) else None
        if a is None or a.ndim > 1 or (a.ndim == 1 and a.shape[0] != n_classes) or not np.all(
                np.isfinite(a)) or not np.all(a > 0):
            raise ValueError(
                f"a must be a float > 0 or an array of n_classes={n_classes} floats > 0 (the "
                f"Dirichlet concentration of the leaves), got {self.a!r}.")
        dirichlet = np.ascontiguousarray(np.broadcast_to(a, (n_classes,)), dtype=np.float64)
        n_iter = check_int("n_iter", self.n_iter, 1)
        n_chains = check_int("n_chains", self.n_chains, 1)
        if isinstance(self.burn_in, (float, np.floating)):
            fraction = check_fraction("burn_in", self.burn_in, 0.0, 1.0, high_inclusive=False)
            burn_in = int(fraction * n_iter)
        else:
            try:
                burn_in = check_int("burn_in", self.burn_in, 0, n_iter - 1)
            except ValueError:
                raise ValueError(
                    f"burn_in must be an int in [0, n_iter={n_iter}) or a float in [0, 1), got "
                    f"{self.burn_in!r}.") from None
        max_leaves = check_int("max_leaves", self.max_leaves, 1, allow_none=True)
        max_leaves = n_samples if max_leaves is None else min(max_leaves, n_samples)
        max_depth = check_int("max_depth", self.max_depth, 0, allow_none=True)
        if self.init not in ("root", "prior"):
            raise ValueError(f"init must be 'root' or 'prior', got {self.init!r}.")
        if self.averaging not in ("map", "posterior"):
            raise ValueError(f"averaging must be 'map' or 'posterior', got {self.averaging!r}.")
        if self.n_jobs is not None and not (isinstance(self.n_jobs, (int, np.integer))
                                            and not isinstance(self.n_jobs, bool)
                                            and (self.n_jobs >= 1 or self.n_jobs == -1)):
            raise ValueError(f"n_jobs must be None, -1 or an int >= 1, got {self.n_jobs!r}.")
        prior = _kernel.TreePrior(sigma, float(self.phi), dirichlet,
                                  -1 if max_depth is None else max_depth, max_leaves, 1.0)
        settings = _kernel.SamplerSettings(n_iter, burn_in,
                                           _kernel.DEFAULT_MOVE_PROBABILITIES.copy(),
                                           self.init == "prior", self.averaging == "posterior")
        return prior, settings, n_chains

    # -- fitting --------------------------------------------------------------------------
    @pauses_collector
    def fit(self, X, y, sample_weight=None):
        """Run the chains on (X, y) and keep the best tree; NaN in X is a missing value."""
        X, y = self._validate_X_y(X, y)
        check_classification_targets(y)
        self.classes_, y_code = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        self.n_outputs_ = 1
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        sample_idx = np.flatnonzero(sample_weight > 0).astype(np.int64)
        prior, settings, n_chains = self._check_parameters(self.n_classes_, sample_idx.shape[0])
        try:
            random_state = check_random_state(self.random_state)
        except ValueError:
            raise ValueError("random_state must be None, an int or a numpy RandomState, got "
                             f"{self.random_state!r}.") from None
        self.criterion_ = resolve_criterion("gini", "classification")  # impurity of tree_
        self.bin_mapper_ = BinMapper(max_bins=self.max_bins, random_state=random_state)
        X_binned = self.bin_mapper_.fit_transform(
            X, feature_names=getattr(self, "feature_names_in_", None))
        seeds = random_state.randint(0, 2**31 - 1, size=n_chains)
        data = _kernel.BinnedData(X_binned, sample_idx, y_code.astype(np.int64),
                                  sample_weight, int(self.bin_mapper_.n_bins_),
                                  int(self.bin_mapper_.missing_values_bin_idx_))
        if self.n_classes_ == 1:
            # Every tree predicts the single class with probability 1: the root alone.
            settings = settings._replace(n_iter=1, burn_in=0)
            prior = prior._replace(max_leaves=1)
        results = self._run_chains(data, prior, settings, seeds)
        self._store_results(data, prior, results)
        return self

    def _run_chains(self, data, prior, settings, seeds):
        n_jobs = 1 if self.n_jobs is None else (os.cpu_count() or 1 if self.n_jobs == -1
                                                else int(self.n_jobs))
        run = lambda seed: ChainResult(*_kernel.run_chain(data, prior, settings, int(seed)))
        if n_jobs <= 1 or len(seeds) == 1:
            return [run(seed) for seed in seeds]
        with ThreadPoolExecutor(max_workers=min(n_jobs, len(seeds))) as pool:
            return list(pool.map(run, seeds))

    def _store_results(self, data, prior, results):
        single_class = self.n_classes_ == 1
        n_chains = len(results)
        stack = lambda name: np.stack([getattr(r, name) for r in results])
        if single_class:
            empty = np.zeros((n_chains, 0))
            self.log_posterior_trace_ = empty
            self.log_likelihood_trace_ = empty.copy()
            self.n_leaves_trace_ = empty.astype(np.int64)
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
        self.map_chain_ = best
        self.map_log_posterior_ = float(targets[best])
        self.map_log_likelihood_ = float(results[best].best_log_likelihood)
        result = results[best]
        self.tree_ = self._make_tree(data, result.best_feature, result.best_bin,
                                     result.best_next_bin, result.best_left, result.best_right)
        self.dirichlet_ = prior.dirichlet
        self.posterior_sample_ = (self._make_sample(results, prior.dirichlet)
                                  if self.averaging == "posterior" else None)

    def _make_tree(self, data, feature, bin_threshold, next_bin, left, right) -> Tree:
        n_nodes = feature.shape[0]
        k = self.n_classes_
        class_weight = np.zeros((n_nodes, k))
        class_count = np.zeros((n_nodes, k))
        _kernel.node_statistics(data.X_binned, data.sample_idx, data.y_code, data.sample_weight,
                                feature, bin_threshold, left, right, class_weight, class_count)
        weighted_n = class_weight.sum(axis=1)
        value = class_weight / weighted_n[:, None]
        depth = np.zeros(n_nodes, dtype=np.int64)
        for node in range(n_nodes):  # parents come first
            if left[node] != TREE_LEAF:
                depth[left[node]] = depth[right[node]] = depth[node] + 1
        leaf = left == TREE_LEAF
        return Tree(
            self.bin_mapper_.n_features_in_, k,
            children_left=left.astype(np.int64), children_right=right.astype(np.int64),
            feature=np.where(leaf, TREE_UNDEFINED, feature).astype(np.int64),
            threshold=float_thresholds(self.bin_mapper_, np.where(leaf, -1, feature),
                                       bin_threshold, next_bin),
            bin_threshold=np.where(leaf, -1, bin_threshold).astype(np.int64),
            missing_go_left=np.zeros(n_nodes, dtype=bool),
            impurity=_gini(value),
            n_node_samples=np.rint(class_count.sum(axis=1)).astype(np.int64),
            weighted_n_node_samples=weighted_n, value=value, class_counts=class_count,
            depth=depth)

    def _make_sample(self, results, dirichlet) -> PosteriorSample:
        """Merge the chains' recorded trees, identical trees into one with summed weights."""
        trees = {}
        for r in results:
            for t in range(r.sample_weights.shape[0]):
                lo, hi = r.sample_offsets[t], r.sample_offsets[t + 1]
                key = (r.sample_feature[lo:hi].tobytes(), r.sample_bin[lo:hi].tobytes())
                if key in trees:
                    trees[key][0] += int(r.sample_weights[t])
                else:
                    trees[key] = [int(r.sample_weights[t]), r, lo, hi]
        offsets = np.zeros(len(trees) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([hi - lo for _, _, lo, hi in trees.values()])
        weights = np.array([w for w, _, _, _ in trees.values()], dtype=np.float64)
        pick = lambda name: (np.concatenate([getattr(r, name)[lo:hi]
                                             for _, r, lo, hi in trees.values()])
                             if trees else getattr(results[0], name)[:0])
        feature, bin_threshold = pick("sample_feature"), pick("sample_bin")
        class_weight = pick("sample_class_weight")
        leaf_proba = (class_weight + dirichlet) / (class_weight.sum(axis=1, keepdims=True)
                                                   + dirichlet.sum())
        return PosteriorSample(
            offsets, weights, feature, bin_threshold,
            float_thresholds(self.bin_mapper_, feature, bin_threshold, pick("sample_next_bin")),
            pick("sample_left"), pick("sample_right"), leaf_proba)

    # -- prediction -----------------------------------------------------------------------
    def predict_proba(self, X):
        """Posterior predictive class probabilities: ``(n_k + a_k) / (n + A)`` of the reached
        leaf of the best tree (``averaging="map"``) or averaged over the posterior sample."""
        X = self._validate_X_predict(X)
        if self.averaging == "posterior":
            sample = self.posterior_sample_
            if sample is None:
                raise ValueError("averaging='posterior' needs the posterior sample, which is "
                                 "recorded only when the estimator is fitted with "
                                 "averaging='posterior'; fit it again.")
            if sample.n_trees == 0:
                raise ValueError("the posterior sample is empty (burn_in left no iteration).")
            out = np.empty((X.shape[0], self.n_classes_))
            return _kernel.predict_sample_proba(
                np.asarray(X, dtype=np.float64), sample.offsets, sample.weights,
                sample.feature, sample.threshold, sample.left, sample.right, sample.leaf_proba,
                out)
        leaf = self.tree_.apply(X, getattr(self, "feature_names_in_", None))
        class_weight = self.tree_.weighted_value[leaf]
        return (class_weight + self.dirichlet_) / (class_weight.sum(axis=1, keepdims=True)
                                                   + self.dirichlet_.sum())

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))

    def predict(self, X):
        """Most probable class (lowest class index on ties)."""
        proba = self.predict_proba(X)
        return self.classes_.take(np.argmax(proba, axis=1))

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        raise AttributeError("cost_complexity_pruning_path is not defined for Bayesian CART; "
                             "prune tree_ with treesmith.prune instead.")


def plot_trace(estimator, ax=None, burn_in=True):
    """Trace plot of a fitted :class:`BayesianTreeClassifier`: log posterior, log likelihood
    and number of leaves per iteration, one line per chain, the burn-in shaded. Returns the
    matplotlib axes (three, stacked)."""
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
    settings = estimator._check_parameters(estimator.n_classes_, 1 << 30)[1]
    for axis, (label, trace) in zip(ax, traces):
        for chain, values in enumerate(trace):
            axis.plot(np.arange(1, n_iter + 1), values, lw=0.8, label=f"chain {chain}")
        if burn_in and settings.burn_in:
            axis.axvspan(0, settings.burn_in, color="0.9", zorder=0)
        axis.set_ylabel(label)
    ax[-1].set_xlabel("iteration")
    ax[0].legend(loc="lower right", fontsize="small", ncol=min(4, trace.shape[0]))
    ax[0].set_title("Bayesian CART chains" + (" (burn-in shaded)" if burn_in else ""))
    return ax
