"""Native categorical splits: the set-of-categories scan against exhaustive enumeration,
encoding of categories (dtypes, masks, names, unseen and missing values), the bitset in the
tree, prediction, model files and determinism."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import treesmith
from treesmith import DecisionTreeClassifier, DecisionTreeRegressor
from treesmith._kernels.categorical import (
    EXHAUSTIVE_MAX_CATEGORIES,
    categorical_scan_workspace,
    scan_categorical_reference,
)
from treesmith._kernels.predict import leaf_reference
from treesmith.criteria._base import resolve_criterion
from treesmith.datasets import UnseenLevelWarning

CLASSIFICATION_CRITERIA = ["gini", "entropy", "misclassification", "km96", "tsallis_classic",
                           "product"]
REGRESSION_CRITERIA = ["squared_error", "poisson", "tweedie"]
#: Present categories on the exhaustive path and on the ordered-prefix path.
CARDINALITIES = [3, EXHAUSTIVE_MAX_CATEGORIES, EXHAUSTIVE_MAX_CATEGORIES + 2]


def _problem(seed, n, m, n_classes=2, missing_fraction=0.1, regression=False):
    """One categorical column with m categories (float codes 0..m-1 scrambled to other
    numbers, NaN missing), a target depending on the category, and weights."""
    rng = np.random.default_rng(seed)
    category = rng.integers(0, m, n)
    category[:m] = np.arange(m)  # every category present
    values = (np.array([7.5, -2.0, 3.25, 11.0, 0.5, 42.0, -8.0, 5.0, 9.5, 1.0, 6.0, -3.5])[
        :m] if m <= 12 else np.arange(m, dtype=float) * 3 - 1)[category]
    values[rng.random(n) < missing_fraction] = np.nan
    effect = rng.random(m)
    if regression:
        y = rng.poisson(3.0 * effect[category] + 0.2).astype(float)
    else:
        y = (effect[category] * n_classes + rng.random(n) * 1.5).astype(int) % n_classes
    weight = rng.uniform(0.5, 2.0, n)
    return values.reshape(-1, 1), y, weight


def _histogram(x, y_stats, weight, n_classes, categories):
    """Per-category rows (then the missing row) of the kernel's statistics layout."""
    codes = np.searchsorted(categories, x[:, 0])
    codes[np.isnan(x[:, 0])] = len(categories)
    if n_classes:
        hist = np.zeros((len(categories) + 1, 2 * n_classes))
        np.add.at(hist, (codes, y_stats), weight)
        np.add.at(hist, (codes, n_classes + y_stats), 1.0)
    else:
        hist = np.zeros((len(categories) + 1, y_stats.shape[1]))
        np.add.at(hist, codes, y_stats)
    return hist


def _best_gain(model, x, y, weight, min_samples_leaf=1):
    """Exhaustive best weighted impurity decrease over every partition of the categories
    (``scan_categorical_reference``), with the model's criterion."""
    criterion = model.criterion_
    h, params = criterion.impurity_function(), np.asarray(criterion.parameters(), dtype=float)
    n_classes = getattr(model, "n_classes_", 0)
    if n_classes:
        y_stats = np.searchsorted(model.classes_, y)
    else:
        y_stats = criterion.sample_statistics(y.astype(float), weight)
    categories = np.unique(x[~np.isnan(x[:, 0]), 0])
    hist = _histogram(x, y_stats, weight, n_classes, categories)

    def weighted_impurity(row):
        if n_classes:
            w = row[:n_classes].sum()
            if w <= 0:
                return 0.0, row[n_classes:].sum()
            return w * h(np.ascontiguousarray(row[:n_classes] / w), params), row[n_classes:].sum()
        return row[1] * h(np.ascontiguousarray(row), params), row[0]

    parent, _ = weighted_impurity(hist.sum(axis=0))

    def score_of(left, right):
        (left_value, n_left), (right_value, n_right) = (weighted_impurity(left),
                                                        weighted_impurity(right))
        if n_left < min_samples_leaf or n_right < min_samples_leaf:
            return None
        return parent - left_value - right_value

    best, _, _ = scan_categorical_reference(hist, len(categories), len(categories), score_of)
    return best


def _root_gain(model):
    tree = model.tree_
    assert tree.node_count == 3 and tree.is_categorical_split[0]
    weighted = tree.weighted_n_node_samples * tree.impurity
    return weighted[0] - weighted[1] - weighted[2]


@pytest.mark.parametrize("m", CARDINALITIES)
@pytest.mark.parametrize("criterion", CLASSIFICATION_CRITERIA)
def test_binary_split_is_the_best_partition(criterion, m):
    """Two classes: exhaustive up to 10 categories, best prefix of the class-1 order above,
    exact for every concave impurity (Breiman et al. 1984, Theorem 4.5)."""
    for seed, n in ((0, 120), (1, 900)):  # compact (small-node) and pooled histograms
        x, y, weight = _problem(seed, n, m)
        model = DecisionTreeClassifier(criterion=criterion, max_depth=1,
                                       categorical_features=[0]).fit(x, y, sample_weight=weight)
        assert _root_gain(model) == pytest.approx(_best_gain(model, x, y, weight), rel=1e-9)


@pytest.mark.parametrize("m", CARDINALITIES)
@pytest.mark.parametrize("criterion", REGRESSION_CRITERIA)
def test_regression_split_is_the_best_partition(criterion, m):
    """Regression: the best prefix of the mean-target order is exact for impurities
    w * phi(mean) with phi concave: squared error, Poisson and Tweedie deviances."""
    for seed, n in ((2, 150), (3, 900)):
        x, y, weight = _problem(seed, n, m, regression=True)
        model = DecisionTreeRegressor(criterion=criterion, max_depth=1,
                                      categorical_features=[0]).fit(x, y, sample_weight=weight)
        assert _root_gain(model) == pytest.approx(_best_gain(model, x, y, weight), rel=1e-9)


@pytest.mark.parametrize("zero", ["category", "missing"])
@pytest.mark.parametrize("criterion", ["poisson", "tweedie"])
def test_a_zero_mean_category_does_not_hide_the_best_deviance_partition(criterion, zero):
    """Poisson and Tweedie (p > 0) refuse a child of mean 0 (its deviance is infinite), a
    constraint the mean order does not know: with categories 0 (all labels 0; or the missing
    values), 1 (mean 2), 2 (2), 4 (2.33) and 5 (1.77), the best valid split is
    {0, 2, missing} | {1, 4, 5}, not a prefix of the order 0, 5, 1, 2, 4 (review 15b)."""
    x = np.array([5, 0, 5, 5, 2, 4, 0, 1, 4, 5, np.nan, 5, 1, 0, 2, np.nan, 5.0])
    y = np.array([1, 0, 0, 2, 2, 3, 0, 5, 2, 2, 0, 2, 0, 0, 2, 0, 2.0])
    weight = np.array([1, 3, 1, 2, 2, 1, 3, 2, 2, 3, 1, 3, 3, 3, 2, 1, 3.0])
    if zero == "missing":  # only the missing values have mean 0; means 1.75, 2, 2, 2
        x = np.array([0, 0, 0, 0, 1, 1, 2, 3, 3, np.nan])
        y = np.array([2, 2, 2, 1, 2, 2, 2, 2, 2, 0.0])
        weight = np.ones(10)
    x = x.reshape(-1, 1)
    model = DecisionTreeRegressor(criterion=criterion, max_depth=1, categorical_features=[0])
    model.fit(x, y, sample_weight=weight)
    assert _root_gain(model) == pytest.approx(_best_gain(model, x, y, weight), rel=1e-9)


@pytest.mark.parametrize("m", [3, EXHAUSTIVE_MAX_CATEGORIES])
def test_multiclass_split_is_the_best_partition_up_to_ten_categories(m):
    for seed, n in ((4, 150), (5, 900)):
        x, y, weight = _problem(seed, n, m, n_classes=4)
        model = DecisionTreeClassifier(max_depth=1, categorical_features=[0]).fit(
            x, y, sample_weight=weight)
        assert _root_gain(model) == pytest.approx(_best_gain(model, x, y, weight), rel=1e-9)


def _principal_component_prefix_gain(model, x, y, weight):
    """The documented multiclass heuristic above 10 categories, naively with numpy: the best
    prefix of the categories ordered by their projection on the first principal component
    (numpy's eigh) of their class proportions, weighted by the categories' weights."""
    criterion = model.criterion_
    h, params = criterion.impurity_function(), np.asarray(criterion.parameters(), dtype=float)
    k = model.n_classes_
    categories = np.unique(x[~np.isnan(x[:, 0]), 0])
    hist = _histogram(x, np.searchsorted(model.classes_, y), weight, k, categories)
    rows, missing = hist[:-1], hist[-1]
    w = rows[:, :k].sum(axis=1)
    proportions = rows[:, :k] / w[:, None]
    centred = proportions - rows[:, :k].sum(axis=0) / w.sum()
    _, vectors = np.linalg.eigh((centred * w[:, None]).T @ centred)
    order = np.argsort(centred @ vectors[:, -1], kind="stable")

    def wh(row):
        total = row[:k].sum()
        return total * h(np.ascontiguousarray(row[:k] / total), params) if total > 0 else 0.0

    parent = wh(hist.sum(axis=0))
    best = -np.inf
    for t in range(1, len(order) + 1):
        left = rows[order[:t]].sum(axis=0)
        right = rows[order[t:]].sum(axis=0)
        for lo, ro in ((left, right + missing), (left + missing, right)):
            if lo[k:].sum() >= 1 and ro[k:].sum() >= 1:
                best = max(best, parent - wh(lo) - wh(ro))
    return best


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_multiclass_above_ten_categories_is_the_best_principal_component_prefix(criterion):
    """Above 10 categories (2^10 partitions) the multiclass scan takes the best prefix of the
    categories ordered by their first principal-component score (Coppersmith, Hong & Hosking
    1999): equal to that heuristic computed naively, never better than the exhaustive
    optimum."""
    m = EXHAUSTIVE_MAX_CATEGORIES + 2
    for seed in range(6, 12):
        x, y, weight = _problem(seed, 600, m, n_classes=3 + seed % 3)
        model = DecisionTreeClassifier(criterion=criterion, max_depth=1,
                                       categorical_features=[0]).fit(x, y, sample_weight=weight)
        gain = _root_gain(model)
        assert gain == pytest.approx(_principal_component_prefix_gain(model, x, y, weight),
                                     rel=1e-9)
        assert gain <= _best_gain(model, x, y, weight) * (1 + 1e-9)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "tsallis_classic"])
def test_principal_component_prefix_is_exact_for_collinear_proportions(criterion):
    """When the categories' class-proportion vectors lie on one line, h along the line is a
    concave function of the position, so the best split is a prefix of the position order
    (Breiman et al. 1984, Thm 4.5), which is the principal-component order: the heuristic is
    then exact (Coppersmith, Hong & Hosking 1999)."""
    rng = np.random.default_rng(21)
    m, n_classes = EXHAUSTIVE_MAX_CATEGORIES + 2, 4
    for _ in range(4):
        ends = rng.dirichlet(np.ones(n_classes), 2)
        position = rng.random(m)
        proportions = ends[0] + position[:, None] * (ends[1] - ends[0])
        sizes = rng.integers(200, 2000, m)
        codes = np.repeat(np.arange(m), sizes)
        # each category's labels in its exact proportions (rounded), shuffled
        y = np.concatenate([np.repeat(np.arange(n_classes),
                                      np.round(p * s).astype(int)[:n_classes])
                            for p, s in zip(proportions, sizes)])
        codes = np.concatenate([np.full(np.round(p * s).astype(int).sum(), c)
                                for c, (p, s) in enumerate(zip(proportions, sizes))])
        x = codes.astype(float)[:, None]
        weight = np.ones(codes.size)
        model = DecisionTreeClassifier(criterion=criterion, max_depth=1,
                                       categorical_features=[0]).fit(x, y)
        assert _root_gain(model) == pytest.approx(_best_gain(model, x, y, weight), rel=1e-9)


def test_principal_component_is_numpy_eigh_first_eigenvector():
    """The kernel's squaring finds the first eigenvector of the weighted covariance of the
    class proportions (numpy's eigh), with its largest component positive; zero-weight
    categories score 0."""
    from treesmith._kernels.categorical import category_keys

    rng = np.random.default_rng(3)
    for n_classes in (3, 5, 12):
        rows = 30
        weights = rng.integers(1, 50, (rows, n_classes)).astype(float)
        weights[rng.random((rows, n_classes)) < 0.3] = 0.0
        weights[0] = 0.0  # a category present by count only (sample weights 0)
        counts = np.where(weights > 0, weights, 0.0)
        counts[0, 0] = 3.0
        hist = np.ascontiguousarray(np.hstack([weights, counts]))
        present = np.flatnonzero(counts.sum(axis=1) > 0)
        keys = category_keys(hist, present, n_classes)
        w = weights[present].sum(axis=1)
        live = w > 0
        proportions = weights[present][live] / w[live, None]
        centred = proportions - weights[present][live].sum(axis=0) / w[live].sum()
        values, vectors = np.linalg.eigh((centred * w[live, None]).T @ centred)
        assert values[-1] > values[-2] * (1 + 1e-3)  # a well-defined direction
        v = vectors[:, -1] * np.sign(vectors[np.argmax(np.abs(vectors[:, -1])), -1])
        np.testing.assert_allclose(keys[live], centred @ v, rtol=1e-8, atol=1e-10)
        assert np.all(keys[~live] == 0.0)


@settings(max_examples=60, deadline=None)
@given(n_classes=st.integers(3, 7), n_categories=st.integers(2, 40),
       seed=st.integers(0, 2 ** 32 - 1), power=st.integers(-20, 20))
def test_principal_component_keys_invariants(n_classes, n_categories, seed, power):
    """Keys are finite; scaling every weight by a power of two leaves them bit for bit
    (proportions are exact ratios); permuting the categories permutes them (up to the
    summation order); a category of (nearly) zero weight scores 0; equal class mixes tie."""
    from treesmith._kernels.categorical import category_keys

    rng = np.random.default_rng(seed)
    weights = rng.integers(0, 30, (n_categories, n_classes)).astype(float)
    weights[rng.random(n_categories) < 0.2] *= 1e-310  # subnormal: weight 0 for the keys
    weights[-1] = weights[0]  # an exact duplicate of category 0's mix
    counts = np.maximum(weights, 1.0)  # every category present
    hist = np.ascontiguousarray(np.hstack([weights, counts]))
    present = np.arange(n_categories)
    keys = category_keys(hist, present, n_classes)
    assert np.all(np.isfinite(keys))
    assert np.all(keys[weights.sum(axis=1) <= 1e-300] == 0.0)
    assert keys[-1] == keys[0]
    scaled = hist.copy()
    scaled[:, :n_classes] *= 2.0 ** power
    # the subnormal categories stay below the 1e-300 cut-off, the others far above it: the
    # same categories count, and their proportions are the same numbers
    totals = weights.sum(axis=1)
    assert np.array_equal(totals > 1e-300, totals * 2.0 ** power > 1e-300)
    assert np.array_equal(category_keys(scaled, present, n_classes), keys)
    permutation = rng.permutation(n_categories)
    permuted = category_keys(np.ascontiguousarray(hist[permutation]), present, n_classes)
    np.testing.assert_allclose(permuted, keys[permutation], rtol=1e-7, atol=1e-9)


def test_leaf_size_constraint_is_exact_on_the_exhaustive_path():
    x, y, weight = _problem(11, 200, 8)
    model = DecisionTreeClassifier(max_depth=1, min_samples_leaf=40, categorical_features=[0])
    model.fit(x, y, sample_weight=weight)
    assert _root_gain(model) == pytest.approx(
        _best_gain(model, x, y, weight, min_samples_leaf=40), rel=1e-9)
    assert model.tree_.n_node_samples[1:].min() >= 40


def test_balanced_rule_goes_through_the_rule_numerator():
    """The split rule scores every candidate set: "balanced" picks the most even partition
    of the categories (a subset-sum, which no ordering finds), as exhaustive search does."""
    rng = np.random.default_rng(12)
    sizes = np.array([13, 7, 29, 5, 17, 11])
    codes = np.repeat(np.arange(6), sizes).astype(float)
    y = rng.integers(0, 2, codes.size)
    model = DecisionTreeClassifier(max_depth=1, split_rule="balanced",
                                   categorical_features=[0]).fit(codes[:, None], y)
    left = model.tree_.n_node_samples[1]
    best = min(abs(2 * sizes[[j for j in range(6) if mask >> j & 1]].sum() - sizes.sum())
               for mask in range(1, 63))
    assert abs(2 * left - sizes.sum()) == best == 0


# -- the ordered-prefix scan against its naive reference -------------------------------------
def _kernel_problem(seed, n_classes, n_bins, rule_code=0, min_samples_leaf=1, crowded=False):
    """A random histogram of one categorical feature (empty categories, pure ones, exact
    duplicates, a missing row or none; ``crowded``: keys packed into a sliver of their range)
    and the node record a gini / squared-error fit scans it with."""
    from treesmith._kernels.pointers import impurity_pointer
    from treesmith._kernels.records import Impurity, NodeScan
    from treesmith._kernels.split_rules import gain_rule
    from treesmith.criteria import MSE, Gini

    rng = np.random.default_rng(seed)
    rows = n_bins + 1
    if n_classes:
        counts = rng.integers(0, 40, (rows, n_classes)).astype(float)
        counts[rng.random((rows, n_classes)) < 0.2] = 0.0  # some categories pure
        if crowded:  # nearly equal class mixes: keys within 1e-9 of each other
            counts[: rows - 3] = 1e9
            counts[: rows - 3, 0] += rng.integers(0, 3, rows - 3)
        weights = counts * rng.uniform(0.5, 2.0, (rows, n_classes))
        hist = np.hstack([weights, counts])
        criterion = Gini()
    else:
        hist = np.zeros((rows, 4))
        n = rng.integers(1, 30, rows).astype(float)
        w = n * rng.uniform(0.5, 2.0, rows)
        mean = (rng.integers(0, 5, rows) if crowded is False else 1.0 + 1e-12 *
                rng.random(rows))
        hist[:, 0], hist[:, 1], hist[:, 2] = n, w, w * mean
        hist[:, 3] = w * mean ** 2 + w * rng.random(rows)
        criterion = MSE()
    hist[rng.random(rows) < 0.15] = 0.0  # categories absent from the node
    duplicates = rng.integers(0, n_bins, 4)
    hist[duplicates[:2]] = hist[duplicates[2:]]  # equal keys: ties broken by code
    if seed % 2:
        hist[n_bins] = 0.0  # no missing values
    hist = np.ascontiguousarray(hist)
    totals = hist.sum(axis=0)
    h, params = criterion.impurity_function(), criterion.parameters()
    if n_classes:
        weight = totals[:n_classes].sum()
        parent = weight * h(np.ascontiguousarray(totals[:n_classes] / weight), params)
    else:
        parent = totals[1] * h(totals, params)
    rule = gain_rule()._replace(code=rule_code, skip_same_class_runs=bool(
        n_classes == 2 and rule_code == 0 and min_samples_leaf <= 1))
    node = NodeScan(n_classes, Impurity(impurity_pointer(h), params), rule, min_samples_leaf,
                    0.0, float(parent), float(totals[1] if not n_classes else weight), totals)
    return hist, node


@pytest.mark.parametrize("n_classes", [2, 3, 4, 0])
@pytest.mark.parametrize("crowded", [False, True])
def test_ordered_scan_matches_its_naive_reference(n_classes, crowded):
    """The bucket-sorted order, read in place by the numeric scan's twin that takes bins in
    ``NodeScan.bin_order``, and the shared per-category work choose exactly the split of
    the reference (Python's sort by (key, code), one compact histogram per ordering, the
    numeric scan): same score bits, same category set, same missing side; under the gain
    and balanced rules and a leaf-size limit, with ties, pure and absent categories, with and
    without missing values, and keys crowded into a sliver of their range (the Shell sort's
    case)."""
    from treesmith._kernels.split_rules import RULE_BALANCED

    settings = [(0, 1), (RULE_BALANCED, 1), (0, 30)] if n_classes else [(0, 1)]
    for seed in range(6):
        for rule_code, min_samples_leaf in settings:
            n_bins = (40, 255, 20)[seed % 3]  # more than 10 present: the ordered path
            hist, node = _kernel_problem(seed, n_classes, n_bins, rule_code, min_samples_leaf,
                                         crowded)
            got, expected = _ordered_scan_and_reference(hist, node, n_classes, n_bins)
            assert got == expected


def _ordered_scan_and_reference(hist, node, n_classes, n_bins):
    """(score, gain, left codes, missing left) of the split ``scan_categorical`` chooses, or
    None, and the same of ``scan_orderings_reference`` (which copies the rows in key order
    for the scan of numeric features)."""
    from treesmith._kernels.categorical import CATEGORICAL_SPLIT, scan_orderings_reference
    from treesmith._kernels.pointers import categorical_scan_pointer, scan_pointer
    from treesmith._kernels.records import SPLIT_DTYPE

    results = np.zeros(1, dtype=SPLIT_DTYPE)
    work = categorical_scan_workspace(1, hist.shape[1], n_classes, n_bins + 1)[0]
    categorical_scan_pointer()(hist, np.int64(n_bins), np.int64(n_bins), node, work, results,
                               np.int64(0), scan_pointer(in_order=True))
    expected = scan_orderings_reference(hist, n_bins, n_bins, node, scan_pointer())
    got = results[0]
    if got["bin_threshold"] != CATEGORICAL_SPLIT:
        return None, expected
    left = {c for c in range(n_bins) if got["left_categories"][c >> 6] >> (c & 63) & 1}
    return (got["score"], got["gain"], left, bool(got["missing_go_left"])), expected


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_find_pass_keeps_categories_of_zero_and_tiny_weight(n_classes):
    """The find pass, written out for two and three classes and a loop for more: a category
    with samples but weight 0, or a weight so small its inverse is infinite, is present (its
    key 0), an absent one is not; the scan then chooses the reference's split bit for bit."""
    for seed in range(4):
        n_bins = 60
        hist, node = _kernel_problem(seed, n_classes, n_bins, 0, 1, False)
        occupied = np.flatnonzero(hist[:n_bins, n_classes:].sum(axis=1) > 0)
        hist[occupied[::5], :n_classes] = 0.0  # samples of weight 0
        hist[occupied[1::7], :n_classes] = 1e-310  # an infinite inverse: weight 0 too
        node = node._replace(totals=hist.sum(axis=0))
        got, expected = _ordered_scan_and_reference(hist, node, n_classes, n_bins)
        assert expected is not None and got == expected


@pytest.mark.parametrize("n_classes", [2, 0])
def test_two_key_twin_scans_as_the_full_scan(n_classes):
    """Two classes and regression get the scan compiled without the principal component
    (``categorical_scan_pointer(principal_component=False)``, a compile-time saving): the
    same split records, bit for bit, as the full scan, on the ordered and the exhaustive
    paths."""
    from treesmith._kernels.pointers import categorical_scan_pointer, scan_pointer
    from treesmith._kernels.records import SPLIT_DTYPE

    scan = scan_pointer(in_order=True)
    full, two_keys = categorical_scan_pointer(), categorical_scan_pointer(True, False)
    assert full is not two_keys
    for seed, n_bins in ((0, 40), (1, 8), (2, 255)):
        hist, node = _kernel_problem(seed, n_classes, n_bins,
                                     min_samples_leaf=1 if seed != 1 else 5)
        records = []
        for categorical_scan in (full, two_keys):
            results = np.zeros(1, dtype=SPLIT_DTYPE)
            work = categorical_scan_workspace(1, hist.shape[1], n_classes, n_bins + 1)[0]
            categorical_scan(hist, np.int64(n_bins), np.int64(n_bins), node, work, results,
                             np.int64(0), scan)
            records.append(results.tobytes())
        assert records[0] == records[1]



def test_categorical_scan_refuses_a_work_block_without_its_scratch():
    """The scan allocates nothing: its scratch follows the numeric scan's rows in the work
    block of ``categorical_scan_workspace``. A numeric scan's block is too small and raises
    (compiled without bounds checks, it would otherwise write past the block)."""
    from treesmith._kernels.pointers import categorical_scan_pointer, scan_pointer
    from treesmith._kernels.records import SPLIT_DTYPE
    from treesmith._kernels.splitting import scan_workspace

    hist, node = _kernel_problem(0, 3, 40)
    results = np.zeros(1, dtype=SPLIT_DTYPE)
    work = scan_workspace(1, hist.shape[1], 3)[0]
    with pytest.raises(ValueError, match="categorical_scan_workspace"):
        categorical_scan_pointer()(hist, np.int64(40), np.int64(40), node, work, results,
                                   np.int64(0), scan_pointer(in_order=True))
    work = categorical_scan_workspace(1, hist.shape[1], 3, 41)[0]
    categorical_scan_pointer()(hist, np.int64(40), np.int64(40), node, work, results,
                               np.int64(0), scan_pointer(in_order=True))
    assert results[0]["bin_threshold"] == -2

def test_monotonic_constraint_on_another_feature_leaves_category_sets_free():
    """A constraint on numeric feature 0 does not restrict the category sets of feature 1
    (the scan once read feature 0's direction for every categorical candidate)."""
    rng = np.random.default_rng(0)
    n = 2000
    city = rng.choice(list("abcdefghijkl"), n)
    effect = dict(zip("abcdefghijkl", rng.random(12)))
    y = (np.array([effect[c] for c in city]) + 0.3 * rng.random(n) > 0.6).astype(int)
    X = pd.DataFrame({"x0": rng.normal(size=n), "city": city})
    free = DecisionTreeClassifier(max_depth=1).fit(X, y)
    for constraint in ([1, 0], [-1, 0]):
        constrained = DecisionTreeClassifier(max_depth=1, monotonic_cst=constraint).fit(X, y)
        assert constrained.tree_.feature[0] == free.tree_.feature[0] == 1
        np.testing.assert_array_equal(constrained.tree_.left_categories,
                                      free.tree_.left_categories)


# -- encoding -------------------------------------------------------------------------------
def _cities(n=400, seed=0):
    rng = np.random.default_rng(seed)
    city = rng.choice(["Nice", "Lyon", "Paris", "Lille", "Brest"], n)
    x = rng.normal(size=n)
    y = (np.isin(city, ["Nice", "Brest"]) ^ (x > 0.8)).astype(int)
    return pd.DataFrame({"city": city, "x": x}), y


def test_string_column_is_categorical_from_its_dtype():
    X, y = _cities()
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.is_categorical_, [True, False])
    assert model.categories_[0].tolist() == ["Brest", "Lille", "Lyon", "Nice", "Paris"]
    assert model.categories_[1] is None
    root = 0
    assert model.tree_.feature[root] == 0 and np.isnan(model.tree_.threshold[root])
    left = set(model.categories_[0][model.tree_.categories_left(root)])
    assert left in ({"Nice", "Brest"}, {"Lyon", "Paris", "Lille"})
    assert model.score(X, y) == 1.0


@pytest.mark.parametrize("dtype", ["category", "string", "object"])
def test_pandas_dtypes_give_the_same_tree(dtype):
    X, y = _cities()
    reference = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    converted = X.assign(city=X["city"].astype(dtype))
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(converted, y)
    np.testing.assert_array_equal(model.tree_.left_categories, reference.tree_.left_categories)
    np.testing.assert_array_equal(model.predict_proba(converted), reference.predict_proba(X))


def test_category_dtype_keeps_its_order_and_drops_unobserved_categories():
    X, y = _cities()
    order = ["Paris", "Nice", "Lyon", "Lille", "Brest", "Rome"]
    X = X.assign(city=pd.Categorical(X["city"], categories=order))
    model = DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert model.categories_[0].tolist() == order[:5]


def test_bool_column_is_categorical():
    rng = np.random.default_rng(3)
    flag = rng.random(200) < 0.5
    X = pd.DataFrame({"flag": flag, "noise": rng.normal(size=200)})
    model = DecisionTreeClassifier(max_depth=1).fit(X, flag.astype(int))
    assert model.categories_[0].tolist() == [False, True]
    assert model.score(X, flag.astype(int)) == 1.0


@pytest.mark.parametrize("spec", [[0], ["city"], np.array([True, False]), (0,)])
def test_mask_indices_and_names_select_the_same_columns(spec):
    X, y = _cities()
    X = X.assign(city=X["city"].map({"Nice": 1.0, "Lyon": 2.0, "Paris": 3.0, "Lille": 4.0,
                                     "Brest": 5.0}))
    model = DecisionTreeClassifier(max_depth=2, categorical_features=spec).fit(X, y)
    np.testing.assert_array_equal(model.is_categorical_, [True, False])
    assert model.categories_[0].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    numeric = DecisionTreeClassifier(max_depth=2, categorical_features=None).fit(X, y)
    assert not numeric.tree_.is_categorical_split.any() and numeric.categories_ == [None, None]


@pytest.mark.parametrize("spec, message", [
    ("auto", "categorical_features must be"),
    (["town"], "names column 'town'"),
    ([5], "index 5 is outside"),
    ([-1], r"index -1 is outside \[0, 2\)"),  # no negative indices, as in scikit-learn
    (np.array([True]), "one entry per column"),
    ([1.5], "column indices or names"),
])
def test_bad_categorical_features_are_named(spec, message):
    X, y = _cities()
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier(categorical_features=spec).fit(X, y)


def test_text_column_without_categorical_support_says_how_to_enable_it():
    X, y = _cities()
    with pytest.raises(ValueError, match=r"'city'.*categorical_features"):
        DecisionTreeClassifier(categorical_features=None).fit(X, y)


def test_more_than_255_categories_is_an_error_naming_the_column():
    X = pd.DataFrame({"zip": [f"z{i:03d}" for i in range(300)], "x": np.arange(300.0)})
    with pytest.raises(ValueError, match=r"'zip'.*300 categories"):
        DecisionTreeClassifier().fit(X, np.arange(300) % 2)


def test_more_categories_than_max_bins_is_an_error_naming_the_column():
    X = pd.DataFrame({"zip": [f"z{i:02d}" for i in range(40)] * 2})
    with pytest.raises(ValueError, match=r"'zip'.*40 categories.*max_bins=16"):
        DecisionTreeClassifier(max_bins=16).fit(X, np.arange(80) % 2)


def test_255_categories_fit_and_predict():
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 255, 5000)
    codes[:255] = np.arange(255)
    X = pd.DataFrame({"c": pd.Categorical([f"c{c}" for c in codes])})
    y = (codes % 7 < 3).astype(int)
    model = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert model.score(X, y) == 1.0
    assert model.tree_.categories_left(0).max() >= 64  # the upper words of the bitset


def test_missing_and_unseen_categories_take_the_missing_side():
    X, y = _cities(600, seed=1)
    X.loc[::7, "city"] = None
    model = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    tree = model.tree_
    missing_side = tree.children_left[0] if tree.missing_go_left[0] else tree.children_right[0]
    new = pd.DataFrame({"city": ["Rome", None, "Oslo", "Nice"], "x": [0.0] * 4})
    with pytest.warns(UnseenLevelWarning, match=r"column 'city' has 2 value\(s\) not seen at "
                                                r"fit time: 'Oslo', 'Rome'") as caught:
        leaves = model.apply(new)
    assert len(caught) == 1  # one warning per call, not per row
    assert leaves[:3].tolist() == [missing_side] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(X)  # training data: no warning


def test_fractional_categories_fitted_as_float64_match_their_float32_values():
    # 0.1 fitted as float64 is not the float32 0.1 a pipeline may hand predict: matched in
    # the column's precision, not warned about and sent to the missing side
    values = np.array([0.1, 0.2, 0.3, 1.7])
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, 400)
    X = values[codes][:, None]
    y = (codes % 2 == 0).astype(int)
    model = DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        narrow = model.predict(X.astype(np.float32))
        frame = model.predict(pd.DataFrame({"x0": X[:, 0].astype(np.float32)}).to_numpy())
    assert narrow.tolist() == model.predict(X).tolist() == y.tolist()
    assert frame.tolist() == y.tolist()
    for dtype in ("float16", "Float32"):  # pandas' nullable Float32 too
        column = pd.Series(X[:, 0]).astype(dtype)
        frame_model = DecisionTreeClassifier(categorical_features=["c"], random_state=0).fit(
            pd.DataFrame({"c": X[:, 0]}), y)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert frame_model.predict(pd.DataFrame({"c": column})).tolist() == y.tolist()
    # categories that float32 cannot tell apart keep exact matching (unseen: warned)
    close = np.array([0.1, 0.1 + 1e-12])[codes % 2][:, None]
    model = DecisionTreeClassifier(categorical_features=[0]).fit(close, y)
    with pytest.warns(UnseenLevelWarning):
        model.predict(close.astype(np.float32))


def test_prediction_walk_matches_the_naive_reference():
    X, y = _cities(800, seed=2)
    X.loc[::11, "city"] = None
    X.loc[::13, "x"] = np.nan
    model = DecisionTreeClassifier(random_state=0).fit(X, y)
    tree = model.tree_
    codes = model._encode_categories(X, fitting=False).to_numpy(dtype=float)
    codes = np.vstack([codes, [[7.0, 0.0], [2.5, 0.0], [-1.0, 0.0], [300.0, 1.0]]])  # not codes
    expected = leaf_reference(codes, tree.children_left, tree.children_right, tree.feature,
                              tree.threshold, tree.missing_go_left, tree.left_categories)
    np.testing.assert_array_equal(tree.apply(codes), expected)
    path = tree.decision_path(codes)
    assert np.all(path[np.arange(codes.shape[0]), expected] == 1)


def test_fit_is_deterministic_and_independent_of_threads():
    X, y = _cities(3000, seed=4)
    trees = [DecisionTreeClassifier(random_state=0, n_jobs=n_jobs).fit(X, y).tree_
             for n_jobs in (1, 2, 1)]
    for tree in trees[1:]:
        for name in ("feature", "threshold", "left_categories", "value"):
            np.testing.assert_array_equal(getattr(tree, name), getattr(trees[0], name))


def test_save_and_load_give_identical_predictions(tmp_path):
    X, y = _cities(500, seed=6)
    X.loc[::9, "city"] = None
    model = DecisionTreeClassifier(random_state=0).fit(X, y)
    treesmith.save(model, tmp_path / "model.json")
    loaded = treesmith.load(tmp_path / "model.json")
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.tree_.left_categories, model.tree_.left_categories)
    assert [list(c) if c is not None else None for c in loaded.categories_] == \
        [list(c) if c is not None else None for c in model.categories_]


def test_model_files_of_schema_version_1_still_load():
    from pathlib import Path

    from sklearn.datasets import load_iris

    loaded = treesmith.load(Path(__file__).parent / "data" / "model_v1_classifier.json")
    X, y = load_iris(return_X_y=True)
    refit = DecisionTreeClassifier(max_depth=3, random_state=0, categorical_features=None)
    np.testing.assert_array_equal(loaded.predict_proba(X), refit.fit(X, y).predict_proba(X))
    assert loaded.categorical_features is None
    assert not loaded.tree_.is_categorical_split.any()


def test_pruning_keeps_the_category_sets():
    X, y = _cities(800, seed=7)
    flip = np.random.default_rng(0).random(y.size) < 0.1
    y = np.where(flip, 1 - y, y)
    for pruning in ("rep", "c45", {"method": "c45", "subtree_raising": True},
                    {"method": "ccp", "ccp_alpha": 0.01}):
        model = DecisionTreeClassifier(random_state=0, pruning=pruning).fit(X, y)
        full = DecisionTreeClassifier(random_state=0).fit(X, y)
        assert model.tree_.node_count <= full.tree_.node_count
        assert model.tree_.is_categorical_split.any()
        assert model.score(X, y) > 0.8


def test_cost_complexity_path_and_lazy_prediction_read_categories():
    X, y = _cities(500, seed=8)
    model = DecisionTreeClassifier(random_state=0).fit(X, y)
    path = model.cost_complexity_pruning_path(X, y)
    assert path.ccp_alphas[0] == 0.0
    lazy = treesmith.predict_lazy(model, lambda rows, j: X.iloc[rows, j].to_numpy(),
                                  n_samples=len(X), batch=True)
    np.testing.assert_array_equal(lazy.predictions, model.predict(X))


# -- what reads a tree ----------------------------------------------------------------------
def _city_model(**params):
    X, y = _cities(400)
    X.loc[::9, "city"] = None
    return DecisionTreeClassifier(max_depth=3, random_state=0, **params).fit(X, y), X, y


def test_export_text_shows_category_sets():
    from treesmith.export import export_text

    model, _, _ = _city_model()
    text = export_text(model)
    assert "|--- city in {Brest, Nice}  n=158" in text
    assert "|--- city in {Lille, Lyon, Paris} or missing  n=242" in text
    rules = export_text(model, rules=True)
    assert "IF city in {Brest, Nice} AND (x <= 0.804 or missing) THEN 1" in rules
    assert "IF city is missing AND x > 0.791 THEN 1" in rules


def test_graphviz_and_plot_tree_show_category_sets():
    import matplotlib

    matplotlib.use("Agg")
    from treesmith.export import export_graphviz
    from treesmith.plotting import plot_tree

    model, _, _ = _city_model()
    assert re.search(r'0 \[label="city in \{(Brest, Nice|Lille, Lyon, Paris)\}\\nmissing → ',
                     export_graphviz(model))
    artists = plot_tree(model)
    texts = [a.get_text() for a in artists] if isinstance(artists, list) else []
    if not texts:
        texts = [t.get_text() for t in matplotlib.pyplot.gcf().axes[0].texts]
    assert any("city in {Brest, Nice}" in t or "city in {Lille, Lyon, Paris}" in t
               for t in texts)
    matplotlib.pyplot.close("all")


def test_to_sklearn_names_the_categorical_node_and_says_how_to_convert():
    model, X, y = _city_model()
    with pytest.raises(ValueError, match=r"Node 0 splits feature 'city' by a set of categories"
                                         r".*categorical_features=None.*one-hot"):
        model.to_sklearn()
    numeric = DecisionTreeClassifier(max_depth=2, categorical_features=None).fit(
        X.assign(city=X["city"].isin(["Nice", "Brest"]).astype(float)), y)
    numeric.to_sklearn()  # converts


def test_s_pruning_tests_the_category_sets():
    """The permutation test re-scores the categorical feature by sets of categories: an
    informative column is significant, a column independent of the labels is not."""
    rng = np.random.default_rng(9)
    city = rng.choice(list("ABCDEFGH"), 400)
    informative = np.isin(city, list("ACEG")).astype(int)
    X = pd.DataFrame({"city": city})
    model = DecisionTreeClassifier(max_depth=1, significance=0.01, n_permutations=99,
                                   random_state=0).fit(X, informative)
    assert model.tree_.node_count == 3 and model.tree_.is_categorical_split[0]
    noise = rng.integers(0, 2, 400)
    model = DecisionTreeClassifier(max_depth=1, significance=0.01, n_permutations=99,
                                   random_state=0).fit(X, noise)
    assert model.tree_.node_count == 1


@pytest.mark.parametrize("forest_class", ["RandomForestClassifier", "RandomForestRegressor"])
def test_forests_split_by_categories(forest_class):
    from treesmith import ensemble

    X, y = _cities(600, seed=10)
    X.loc[::8, "city"] = None
    forest = getattr(ensemble, forest_class)(n_estimators=5, max_features=None, random_state=0)
    forest.fit(X, y)
    assert forest.categories_[0].tolist() == ["Brest", "Lille", "Lyon", "Nice", "Paris"]
    assert all(member.tree_.is_categorical_split.any() for member in forest.estimators_)
    predicted = forest.predict(X)
    assert np.mean(np.round(predicted) == y) > 0.95
    member = forest.estimators_[0]
    np.testing.assert_array_equal(member.apply(X), forest.apply(X)[:, 0])
    again = getattr(ensemble, forest_class)(n_estimators=5, max_features=None, random_state=0)
    np.testing.assert_array_equal(again.fit(X, y).predict(X), predicted)


def test_categories_without_a_json_form_refuse_to_save(tmp_path):
    """A model whose categories cannot be written would predict otherwise once loaded."""
    X = pd.DataFrame({"when": pd.Categorical(pd.to_datetime(["2020-01-01", "2021-06-01"] * 10))})
    model = DecisionTreeClassifier(max_depth=1).fit(X, [0, 1] * 10)
    with pytest.raises(ValueError, match="categories_"):
        treesmith.save(model, tmp_path / "model.json")


# -- polars input -----------------------------------------------------------------------------
def _polars_and_pandas(n=500, seed=3):
    """The same table as a polars and a pandas DataFrame: a String column with nulls, a
    Float64 column with nulls, an Int64 column, a Boolean column."""
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(seed)
    city = rng.choice(["Nice", "Lyon", "Paris", "Lille", "Brest", "Rome"], n).astype(object)
    x = rng.normal(size=n)
    flag = rng.random(n) > 0.5
    y = (np.isin(city, ["Nice", "Brest", "Rome"]) ^ (x > 0.8) ^ (flag & (x < -1))).astype(int)
    city[::9] = None
    x[::7] = np.nan
    count = rng.integers(0, 5, n)
    polars_frame = pl.DataFrame({"city": list(city), "x": [None if v != v else v for v in x],
                                 "count": count, "flag": flag})
    pandas_frame = pd.DataFrame({"city": pd.Series(city, dtype="string"), "x": x,
                                 "count": count, "flag": flag})
    return polars_frame, pandas_frame, y


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_polars_frame_gives_the_tree_of_the_same_pandas_frame(estimator_class):
    """String and Boolean columns are categorical from their polars dtype, numeric ones stay
    numeric, nulls are missing values: the same tree, predictions and feature names as from
    pandas, and predictions on polars input."""
    polars_frame, pandas_frame, y = _polars_and_pandas()
    from_polars = estimator_class(max_depth=5, random_state=0).fit(polars_frame, y)
    from_pandas = estimator_class(max_depth=5, random_state=0).fit(pandas_frame, y)
    assert from_polars.feature_names_in_.tolist() == ["city", "x", "count", "flag"]
    np.testing.assert_array_equal(from_polars.is_categorical_, [True, False, False, True])
    assert from_polars.categories_[0].tolist() == from_pandas.categories_[0].tolist()
    assert from_polars.categories_[3].tolist() == [False, True]
    for name in ("feature", "children_left", "left_categories", "missing_go_left", "value"):
        np.testing.assert_array_equal(getattr(from_polars.tree_, name),
                                      getattr(from_pandas.tree_, name))
    assert from_polars.tree_.is_categorical_split.any()
    expected = from_pandas.predict(pandas_frame)
    np.testing.assert_array_equal(from_polars.predict(polars_frame), expected)
    np.testing.assert_array_equal(from_polars.predict(pandas_frame), expected)
    np.testing.assert_array_equal(from_pandas.predict(polars_frame), expected)


def test_polars_categorical_enum_and_unseen_levels():
    """A polars Categorical column's categories are sorted, an Enum keeps its order (as a
    pandas category dtype does), unobserved levels dropped; at prediction a level never seen
    in training warns and takes the missing-value side."""
    pl = pytest.importorskip("polars")
    polars_frame, _, y = _polars_and_pandas()
    keep = polars_frame["city"].to_numpy() != "Rome"  # nulls kept
    observed = polars_frame.filter(pl.Series(keep)).select("city", "x")
    y = y[keep]
    enum = pl.Enum(["Paris", "Rome", "Nice", "Lyon", "Lille", "Brest", "Oslo"])
    as_categorical = observed.with_columns(pl.col("city").cast(pl.Categorical))
    as_enum = observed.with_columns(pl.col("city").cast(enum))
    model = DecisionTreeClassifier(max_depth=4, random_state=0).fit(as_categorical, y)
    assert model.categories_[0].tolist() == ["Brest", "Lille", "Lyon", "Nice", "Paris"]
    ordered = DecisionTreeClassifier(max_depth=4, random_state=0).fit(as_enum, y)
    assert ordered.categories_[0].tolist() == ["Paris", "Nice", "Lyon", "Lille", "Brest"]
    new = pl.DataFrame({"city": ["Rome", None], "x": [0.3, 0.3]})
    with pytest.warns(UnseenLevelWarning, match="Rome"):
        unseen, missing = model.predict_proba(new)
    np.testing.assert_array_equal(unseen, missing)


def test_polars_text_and_dates_without_categorical_support_are_named():
    pl = pytest.importorskip("polars")
    polars_frame, _, y = _polars_and_pandas()
    with pytest.raises(ValueError, match=r"'city' \(column 0\).*categorical_features"):
        DecisionTreeClassifier(categorical_features=None).fit(polars_frame, y)
    model = DecisionTreeClassifier(categorical_features=["city"]).fit(polars_frame, y)
    with pytest.raises(ValueError, match=r"'flag'.*categorical_features"):
        model.predict(polars_frame.with_columns(pl.col("flag").cast(pl.String)))
    dated = polars_frame.with_columns(pl.date_range(
        pl.date(2020, 1, 1), pl.date(2021, 12, 31), eager=True)[:len(y)].alias("count"))
    with pytest.raises(ValueError, match=r"'count' \(column 2\).*Date"):
        DecisionTreeClassifier().fit(dated, y)
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(polars_frame.rename({"x": "z"}))
    with pytest.raises(TypeError, match=r"LazyFrame.*collect\(\)"):
        DecisionTreeClassifier().fit(polars_frame.lazy(), y)


@pytest.mark.parametrize("forest_class", ["RandomForestClassifier", "RandomForestRegressor"])
def test_forests_on_polars_frames(forest_class):
    from treesmith import ensemble

    polars_frame, pandas_frame, y = _polars_and_pandas(400, seed=4)
    make = getattr(ensemble, forest_class)
    from_polars = make(n_estimators=4, random_state=0).fit(polars_frame, y)
    from_pandas = make(n_estimators=4, random_state=0).fit(pandas_frame, y)
    assert from_polars.feature_names_in_.tolist() == ["city", "x", "count", "flag"]
    np.testing.assert_array_equal(from_polars.predict(polars_frame),
                                  from_pandas.predict(pandas_frame))


# -- acceptance review: columns at prediction ---------------------------------------------------
def _reordered_frames():
    X, y = _cities()
    return X, y, [X[X.columns[::-1]], X.assign(extra=1.0), X.drop(columns=X.columns[-1])]


@pytest.mark.parametrize("estimator", ["DecisionTreeClassifier", "RandomForestClassifier"])
def test_columns_moved_added_or_dropped_at_prediction_are_named(estimator):
    """The categorical columns are encoded by position: a frame whose columns moved was read
    as the wrong columns (an unseen-category warning about a numeric column, then "holds
    non-numeric values ... name it in categorical_features")."""
    X, y, frames = _reordered_frames()
    model = getattr(treesmith, estimator)(**({"n_estimators": 2} if "Forest" in estimator
                                            else {})).fit(X, y)
    messages = ["another order", "not seen at fit: \\['extra'\\]", "seen at fit but missing"]
    for frame, message in zip(frames, messages):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UnseenLevelWarning)
            with pytest.raises(ValueError, match="should match those that were passed during "
                                                 f"fit: .*{message}"):
                model.predict(frame)
    np.testing.assert_array_equal(model.predict(X[list(model.feature_names_in_)]),
                                  model.predict(X))


def test_numpy_rows_of_the_wrong_width_or_order_are_named():
    X, y = _cities()
    model = DecisionTreeClassifier().fit(X, y)
    values = X.to_numpy()
    with pytest.raises(ValueError, match=f"X has {X.shape[1] + 1} features, but "
                                         f"DecisionTreeClassifier is expecting {X.shape[1]}"):
        model.predict(np.c_[values, values[:, :1]])
    numeric = [j for j in range(X.shape[1]) if not model.is_categorical_[j]]
    categorical = int(np.flatnonzero(model.is_categorical_)[0])
    swapped = values.copy()
    swapped[:, [numeric[0], categorical]] = values[:, [categorical, numeric[0]]]
    with pytest.raises(ValueError, match=f"{X.columns[numeric[0]]!r} \\(column {numeric[0]}\\) "
                              "holds non-numeric values but was numeric at fit time"):
        model.predict(swapped)


# -- acceptance review: categorical_features as any array-like ------------------------------------
@pytest.mark.parametrize("estimator", ["DecisionTreeClassifier", "RandomForestClassifier"])
@pytest.mark.parametrize("spec", [
    lambda X: X.columns[:1],                       # X.columns[X.dtypes == object]
    lambda X: X.dtypes == object,                  # a boolean Series
    lambda X: {"city"}, lambda X: range(1),
], ids=["Index", "Series", "set", "range"])
def test_pandas_index_series_set_and_range_select_columns(estimator, spec, tmp_path):
    """The tree refused a pandas Index or Series that the forests accepted, and a model fitted
    with one could not be saved."""
    X, y = _cities()
    kwargs = {"n_estimators": 2, "random_state": 0} if "Forest" in estimator else {}
    model = getattr(treesmith, estimator)(categorical_features=spec(X), **kwargs).fit(X, y)
    np.testing.assert_array_equal(model.is_categorical_, [True, False])
    path = tmp_path / "model.json"
    treesmith.save(model, path)
    loaded = treesmith.load(path)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.is_categorical_, model.is_categorical_)


def test_true_and_a_bare_column_name_say_what_to_pass():
    X, y = _cities()
    with pytest.raises(ValueError, match="True does not say which columns"):
        DecisionTreeClassifier(categorical_features=True).fit(X, y)
    for model in (DecisionTreeClassifier(categorical_features="city"),
                  treesmith.RandomForestClassifier(n_estimators=2, categorical_features="city")):
        with pytest.raises(ValueError, match=r"categorical_features=\['city'\]"):
            model.fit(X, y)


# -- acceptance review: polars integer categories with nulls, nested columns ----------------------
def test_polars_integer_categories_with_nulls_stay_integers_and_nested_columns_are_named():
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(0)
    codes = [None if r < 0.1 else int(r * 5) for r in rng.random(300)]
    y = np.array([0 if c is None else c % 2 for c in codes])
    frame = pl.DataFrame({"k": pl.Series(codes, dtype=pl.Int64)})
    model = DecisionTreeClassifier(categorical_features=["k"]).fit(frame, y)
    assert [type(c) for c in model.categories_[0]] == [int] * 5  # were floats 0.0 .. 4.0
    assert "k in {1, 3}" in treesmith.export_text(model)
    pandas_frame = pd.DataFrame({"k": pd.array(codes, dtype="Int64")})
    np.testing.assert_array_equal(model.predict(frame), model.predict(pandas_frame))
    for column in (pl.Series("l", [[1, 2]] * 300), pl.Series("s", [{"a": 1}] * 300)):
        with pytest.raises(ValueError, match=f"'{column.name}' \\(column 0\\) has polars "
                                             "dtype .*several values per cell"):
            DecisionTreeClassifier().fit(pl.DataFrame([column]), y)


def test_object_column_of_numbers_stays_numeric_under_from_dtype():
    """A frame built from an object array (or transposed twice) has object columns of numbers:
    scikit-learn reads them as numbers, "from_dtype" made them categorical (a 26-category set
    split on an integer column, or 'has 300 categories' for a float one)."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 50, 300)
    X = pd.DataFrame({"a": a, "b": rng.normal(size=300), "c": rng.choice(["u", "v"], 300)})
    y = (a > 25).astype(int)
    as_objects = X.T.T  # every column of dtype object
    assert (as_objects.dtypes == object).all()
    model = DecisionTreeClassifier(max_depth=2).fit(as_objects, y)
    np.testing.assert_array_equal(model.is_categorical_, [False, False, True])
    assert model.tree_.threshold[0] == 25.5
    mixed = as_objects.assign(a=as_objects["a"].where(a != 3, "three"))
    assert DecisionTreeClassifier().fit(mixed, y).is_categorical_[0]


def test_an_identifier_like_column_is_warned_about():
    """A CSV's id column (one category per row) became a split that fits the training labels
    exactly and sends every new id to the missing side (held-out accuracy 0.51 on cities)."""
    X, y = _cities(n=200)
    with_id = X.assign(id=[f"id{i}" for i in range(200)])
    with pytest.warns(UserWarning, match=r"'id' \(200 categories\) have a category for about "
                                         r"every other row"):
        DecisionTreeClassifier().fit(with_id, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DecisionTreeClassifier().fit(X, y)  # 5 categories: no warning
        DecisionTreeClassifier(categorical_features=["city"]).fit(
            with_id.assign(id=np.arange(200.0)), y)  # the id left numeric


def test_sparse_input_with_categorical_features_says_dense_is_needed():
    """categorical_features=[0] on a sparse matrix failed with numpy's 'setting an array
    element with a sequence'."""
    scipy_sparse = pytest.importorskip("scipy.sparse")
    X = scipy_sparse.random(60, 3, density=0.3, format="csr", random_state=0)
    for spec in ([0], "from_dtype"):
        with pytest.raises(TypeError, match=r"Sparse data .* X.toarray\(\)"):
            DecisionTreeClassifier(categorical_features=spec).fit(X, np.arange(60) % 2)


def test_fit_codes_of_a_category_column_match_the_hash_lookup():
    """The fit-time shortcut (the dtype's codes with unobserved levels squeezed out) against
    the general lookup of every cell in the observed categories."""
    from treesmith.categorical import (_codes, _fitted_category_codes, _missing,
                                       _observed_categories)

    rng = np.random.default_rng(0)
    for _ in range(100):
        levels = list("abcdefg")[:rng.integers(1, 8)]
        cells = rng.choice(np.array(levels + [None], dtype=object), 60)
        column = pd.Series(pd.Categorical(cells, categories=rng.permutation(levels + ["z"])))
        missing = _missing(column)
        observed = _observed_categories(column, missing, "c", 0)
        expected, unseen = _codes(column, observed, missing)
        assert not unseen.any()
        np.testing.assert_array_equal(_fitted_category_codes(column), expected)


def test_s_pruning_scores_many_interleaved_categories_by_sets():
    """With more than 10 categories and the informative ones interleaved with the others in
    code order, the S-pruning test must score the category sets in key order (the numeric
    scan's in-order twin): scored in code order, no prefix separates them and the split was
    pruned."""
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 20, 2000)
    y = (rng.random(2000) < np.where(codes % 2 == 0, 0.65, 0.35)).astype(int)
    X = pd.DataFrame({"city": pd.Categorical([f"c{c:02d}" for c in codes])})
    model = DecisionTreeClassifier(max_depth=1, significance=0.01, n_permutations=99,
                                   random_state=0).fit(X, y)
    assert model.tree_.node_count == 3 and model.tree_.is_categorical_split[0]


# -- the principal component's kernels: closed form, squaring, subspace, same bits in Python --
def _numpy_principal_keys(class_weights):
    """Principal-component keys of categories (rows: class weights) with numpy's eigh, the
    largest component of v positive, 0 for categories of weight 0."""
    w = class_weights.sum(axis=1)
    live = w > 0
    proportions = class_weights[live] / w[live, None]
    centred = proportions - class_weights[live].sum(axis=0) / w[live].sum()
    values, vectors = np.linalg.eigh((centred * w[live, None]).T @ centred)
    v = vectors[:, -1] * np.sign(vectors[np.argmax(np.abs(vectors[:, -1])), -1])
    keys = np.zeros(len(w))
    keys[live] = centred @ v
    return keys, values


def _category_keys_of(class_weights):
    from treesmith._kernels.categorical import category_keys

    hist = np.ascontiguousarray(np.hstack([class_weights, np.ones_like(class_weights)]))
    return category_keys(hist, np.arange(len(class_weights)), class_weights.shape[1])


def _flat_padded(matrix, stride):
    flat = np.zeros(matrix.shape[0] * stride)
    flat.reshape(matrix.shape[0], stride)[:, :matrix.shape[1]] = matrix
    return flat


@pytest.mark.parametrize("n", [3, 4, 9, 12, 29])
@pytest.mark.parametrize("gap", [1e-6, 1e-2, 0.5, 1e6])
def test_first_eigenvector_by_squaring_at_tiny_and_huge_eigengaps(n, gap):
    """Squaring, scaled to unit trace, converges for any relative eigengap
    (lambda_1 / lambda_2 - 1 from 1e-6 to 1e6), to numpy's eigenvector within the accuracy
    the gap allows (about 1e-16 / gap)."""
    from treesmith._kernels.categorical import _first_eigenvector
    from treesmith._kernels.lanes import CHUNK, padded_length

    rng = np.random.default_rng(n)
    basis, _ = np.linalg.qr(rng.standard_normal((n, n)))
    values = np.concatenate([[1.0 + gap], np.linspace(1.0, 0.0, n - 1)])
    matrix = (basis * values) @ basis.T
    matrix = (matrix + matrix.T) / 2  # symmetric bit for bit
    stride = padded_length(n, CHUNK)
    v = np.zeros(n)
    scratch = [np.zeros(n * stride) for _ in range(2)]
    _first_eigenvector(_flat_padded(matrix, stride), np.int64(n), np.int64(stride), v, *scratch)
    expected = np.linalg.eigh(matrix)[1][:, -1]
    expected *= np.sign(expected[np.argmax(np.abs(expected))])
    np.testing.assert_allclose(v, expected, atol=max(1e-12, 1e-15 / gap))
    assert np.linalg.norm(v) == pytest.approx(1.0, abs=1e-14)


def test_first_eigenvector_with_tied_first_eigenvalues_is_a_deterministic_unit_eigenvector():
    from treesmith._kernels.categorical import _first_eigenvector
    from treesmith._kernels.lanes import CHUNK

    n, stride = 5, CHUNK
    rng = np.random.default_rng(4)
    basis, _ = np.linalg.qr(rng.standard_normal((n, n)))
    matrix = (basis * np.array([2.0, 2.0, 1.0, 0.5, 0.0])) @ basis.T
    matrix = (matrix + matrix.T) / 2
    results = []
    for _ in range(2):
        v = np.zeros(n)
        _first_eigenvector(_flat_padded(matrix, stride), np.int64(n), np.int64(stride), v,
                           np.zeros(n * stride), np.zeros(n * stride))
        results.append(v)
    assert np.array_equal(results[0], results[1])
    v = results[0]
    assert np.linalg.norm(v) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(matrix @ v, 2.0 * v, atol=1e-9)  # in the tied eigenspace


@pytest.mark.parametrize("s00, s01, s11", [(3.0, 1.0, 2.0), (2.0, 1.0, 3.0), (1.0, -1e-9, 1.0),
                                           (4.0, 0.0, 1.0), (1.0, 0.0, 4.0), (1.0, 1.0, 1.0),
                                           (1e-300, 3e-301, 2e-300), (1e300, -1e299, 1e299),
                                           (5.0, 2.0, 0.8)])
def test_closed_form_eigenvector_of_two_against_eigh(s00, s01, s11):
    from treesmith._kernels.categorical import _first_eigenvector_of_two

    u = np.array(_first_eigenvector_of_two(s00, s01, s11))
    matrix = np.array([[s00, s01], [s01, s11]])
    values, vectors = np.linalg.eigh(matrix / (s00 + s11))
    expected = vectors[:, -1] * np.sign(vectors[:, -1] @ u)
    assert np.linalg.norm(u) == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(u, expected, atol=1e-15 / max(values[1] - values[0], 1e-300))


def test_closed_form_eigenvector_of_two_with_equal_eigenvalues():
    from treesmith._kernels.categorical import _first_eigenvector_of_two

    assert _first_eigenvector_of_two(2.0, 0.0, 2.0) == (1.0, 0.0)


@pytest.mark.parametrize("n_classes", [3, 4, 6, 10])
@pytest.mark.parametrize("scale", [1e-250, 1.0, 1e250])
def test_principal_component_keys_against_eigh_at_extreme_weights(n_classes, scale):
    """The subspace orthogonal to 1 (K - 1 classes, closed form at three classes) gives
    numpy's eigh keys, with weights near the ends of the float range (no overflow in the
    squares: the matrices are scaled to unit trace)."""
    rng = np.random.default_rng(n_classes)
    class_weights = rng.integers(0, 60, (40, n_classes)).astype(float) * scale
    class_weights[3] = 0.0
    keys = _category_keys_of(class_weights)
    expected, values = _numpy_principal_keys(class_weights / scale)
    assert values[-1] > values[-2] * 1.01
    np.testing.assert_allclose(keys, expected, rtol=1e-9, atol=1e-12)
    assert keys[3] == 0.0 and not np.signbit(keys[3])


def test_principal_component_keys_of_nearly_equal_proportions_and_large_weights():
    """Proportions within 1e-9 of each other, weights of 1e12: the centred covariance loses
    nothing to cancellation; keys agree with numpy's eigh to the accuracy of the centred
    proportions themselves (1e-16 / 1e-9)."""
    rng = np.random.default_rng(8)
    n_classes, m = 4, 60
    base = np.array([0.1, 0.2, 0.3, 0.4])
    direction = np.array([1.0, -2.0, 0.5, 0.5])
    proportions = base + 1e-9 * rng.standard_normal(m)[:, None] * direction
    proportions += 1e-11 * rng.standard_normal((m, n_classes))
    class_weights = proportions * rng.uniform(1e12, 2e12, (m, 1))
    keys = _category_keys_of(class_weights)
    expected, _ = _numpy_principal_keys(class_weights)
    np.testing.assert_allclose(keys, expected, rtol=1e-5, atol=1e-15)
    assert np.corrcoef(keys, expected)[0, 1] > 1 - 1e-9


def test_principal_component_keys_with_a_rare_last_class():
    """The last class's deviation is computed as minus the sum of the others': a class with
    proportions near 1e-7 keeps the keys of numpy's full eigh."""
    rng = np.random.default_rng(9)
    class_weights = rng.integers(1, 100, (30, 5)).astype(float)
    class_weights[:, -1] = rng.integers(0, 3, 30) * 1e-5
    keys = _category_keys_of(class_weights)
    expected, _ = _numpy_principal_keys(class_weights)
    np.testing.assert_allclose(keys, expected, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("n_classes, m", [(13, 11), (40, 15), (300, 12), (2000, 30)])
def test_principal_component_keys_with_fewer_categories_than_classes(n_classes, m):
    """With fewer categories than classes the covariance has rank below m: the keys come
    from the m x m Gram matrix of the categories (the same first eigenvector, v = D W^(1/2) u
    for u the Gram's), numpy's eigh keys; the scratch grows with m, not K^2 (2000 classes
    took 96 MB per thread and 20 s per node, review 15b)."""
    from treesmith._kernels.categorical import principal_component_scratch

    rng = np.random.default_rng(n_classes + m)
    class_weights = rng.integers(0, 5, (m, n_classes)).astype(float)
    class_weights[:, rng.integers(0, n_classes, 3)] += 40.0  # a well-defined direction
    class_weights[2] = 0.0  # a category of weight 0 scores 0
    keys = _category_keys_of(class_weights)
    expected, values = _numpy_principal_keys(class_weights)
    assert values[-1] > values[-2] * 1.01
    np.testing.assert_allclose(keys, expected, rtol=1e-9, atol=1e-12)
    assert keys[2] == 0.0 and not np.signbit(keys[2])
    assert principal_component_scratch(2000, 255) < 800_000  # floats (5.7 MB; was 12 million)


def test_many_classes_and_a_categorical_column_fit_in_reasonable_work():
    """1000 classes, one column of 100 categories, 3000 rows: every node with more than 10
    categories takes the principal component, in the Gram matrix's m dimensions (before: a
    999 x 999 matrix squared up to 40 times per node, 2.4 s for a stump)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100, 3000).astype(float).reshape(-1, 1)
    y = rng.integers(0, 1000, 3000)
    model = DecisionTreeClassifier(max_depth=3, categorical_features=[0]).fit(x, y)
    assert model.tree_.node_count > 1 and model.tree_.is_categorical_split[0]


_PYTHON_KEYS = """
import json, sys
import numpy as np
from treesmith._kernels.categorical import category_keys
out = {}
for n_classes, m in ((3, 11), (4, 40), (10, 255), (40, 12)):
    rng = np.random.default_rng(n_classes)
    weights = rng.random((m, n_classes)) * 4000.0
    weights[1] = 0.0
    hist = np.ascontiguousarray(np.hstack([weights, np.ones_like(weights)]))
    keys = category_keys(hist, np.arange(m), n_classes)
    out[f"{n_classes}"] = keys.view(np.uint64).tolist()
print(json.dumps(out))
"""


def test_principal_component_keys_are_the_same_bits_as_plain_python():
    """Under NUMBA_DISABLE_JIT the kernels run as Python, with the fixed-order vector code
    replaced by its plain-Python references: the same bits as the compiled keys, so the order
    of every sum is the written one, whatever the machine's vector width."""
    import json
    import os
    import subprocess
    import sys

    keys = {}
    for disable_jit in ("1", "0"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable_jit)
        result = subprocess.run([sys.executable, "-c", _PYTHON_KEYS], capture_output=True,
                                text=True, env=env, check=True, timeout=300)
        keys[disable_jit] = json.loads(result.stdout.strip().splitlines()[-1])
    assert keys["1"] == keys["0"]
    assert len(keys["0"]["10"]) == 255


@pytest.mark.parametrize("case", ["gini", "weighted", "ecart", "regression"])
def test_numeric_features_split_alike_beside_a_categorical_feature(case):
    """A fit with a categorical feature scans every feature with the scan's twin that reads
    bins in ``NodeScan.bin_order`` (the identity for numeric features): beside a categorical
    column that never splits (one category), the numeric features grow the very tree they
    grow alone, down to small nodes, with unit weights, sample weights, a rule other than the
    gain, and in regression."""
    rng = np.random.default_rng(21)
    n = 3000
    X = pd.DataFrame(rng.normal(size=(n, 3)).round(2), columns=["a", "b", "c"])
    signal = X["a"] + X["b"] * X["c"]
    weights = rng.uniform(0.5, 2.0, n) if case == "weighted" else None
    if case == "regression":
        y, estimator = signal + rng.normal(size=n), DecisionTreeRegressor
    else:
        y, estimator = (signal + rng.normal(size=n) > 0).astype(int), DecisionTreeClassifier
    params = {"split_rule": "ecart"} if case == "ecart" else {}
    alone = estimator(random_state=0, **params).fit(X, y, sample_weight=weights)
    beside = estimator(random_state=0, **params).fit(
        X.assign(city=pd.Categorical(["Nice"] * n)), y, sample_weight=weights)
    assert beside.tree_.node_count == alone.tree_.node_count > 50
    np.testing.assert_array_equal(beside.tree_.feature, alone.tree_.feature)
    np.testing.assert_array_equal(beside.tree_.threshold, alone.tree_.threshold)
    np.testing.assert_array_equal(beside.tree_.value, alone.tree_.value)


@pytest.mark.parametrize("rule", ["ecart", "asr"])
def test_ordered_path_scores_both_orientations_for_an_asymmetric_rule(rule):
    """Above the exhaustive path's 10 categories, a rule not symmetric in the children
    (ECART's B(d): the child with more objects, ties left) scores the prefixes of the
    class-1 order both ways round: the chosen split scores as the best prefix or suffix sent
    left, by the rule's definition (``treesmith.rules.reference``), and on some of these
    problems only the other way round reaches it."""
    from treesmith.rules.reference import gini, split_terms

    reversed_won = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n, k = 40, 12
        x = rng.integers(0, k, n).astype(float)
        y = (rng.random(n) < rng.random(k)[x.astype(int)]).astype(int)
        weight = rng.uniform(0.5, 1.5, n)
        p = weight / weight.sum()
        model = DecisionTreeClassifier(max_depth=1, split_rule=rule, min_samples_leaf=2,
                                       categorical_features=[0]).fit(x[:, None], y, weight)
        if model.tree_.node_count == 1:
            continue
        left = model.apply(x[:, None]) == model.tree_.children_left[0]
        chosen = split_terms(y, p, left, impurity=gini, n_classes=2).score(rule, 1.0)
        present = sorted(set(x.astype(int)))
        key = {c: weight[(x == c) & (y == 1)].sum() / weight[x == c].sum() for c in present}
        order = sorted(present, key=lambda c: (key[c], c))
        def best_of(sequence):
            scores = [split_terms(y, p, np.isin(x, sequence[:j]), impurity=gini,
                                  n_classes=2).score(rule, 1.0)
                      for j in range(1, len(sequence))
                      if 2 <= np.isin(x, sequence[:j]).sum() <= n - 2]
            return max(scores) if scores else -np.inf
        forward, backward = best_of(order), best_of(order[::-1])
        assert chosen == pytest.approx(max(forward, backward), rel=1e-12)
        reversed_won += backward > forward * (1 + 1e-9)
    assert reversed_won > 0


@pytest.mark.parametrize("rule", ["ecart", "asr"])
def test_ecart_scores_both_orientations_of_a_category_partition(rule):
    """Exhaustive search over every set of categories sent left (so both orientations of each
    partition), scored by the rule's definition (``treesmith.rules.reference``): the
    categorical split must reach the best score. Here {1, 2, 5} left (7 objects each side)
    scores 1.615 with ECART; {0, 3, 4} left, the only orientation the scan tried before it
    scored both, 1.428."""
    import itertools

    from treesmith.rules.reference import gini, split_terms

    x = np.array([1, 1, 4, 5, 3, 0, 0, 1, 2, 3, 2, 1, 0, 4], dtype=float)
    y = np.array([1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1])
    weight = np.array([0.614, 0.891, 1.017, 0.931, 1.087, 1.238, 1.456, 0.784, 1.149, 1.196,
                       0.793, 0.501, 1.473, 0.798])
    p = weight / weight.sum()
    model = DecisionTreeClassifier(max_depth=1, split_rule=rule, min_samples_leaf=2,
                                   categorical_features=[0]).fit(x[:, None], y, weight)
    left = model.apply(x[:, None]) == model.tree_.children_left[0]
    chosen = split_terms(y, p, left, impurity=gini, n_classes=2).score(rule, 1.0)
    best = max(split_terms(y, p, np.isin(x, subset), impurity=gini, n_classes=2).score(rule, 1.0)
               for r in range(1, 6) for subset in itertools.combinations(range(6), r)
               if 2 <= np.isin(x, subset).sum() <= len(x) - 2)
    assert chosen == pytest.approx(best, rel=1e-12)


def test_a_category_present_only_in_rows_of_weight_zero_keeps_its_code():
    """Rows of weight 0 are not binned; the category only they hold must not shift the other
    categories' codes (the tree split 'city in {B}' on the rows of C, accuracy 0.64)."""
    rng = np.random.default_rng(0)
    city = rng.choice(["A", "C", "D"], 100).astype(object)
    city[:5] = "B"
    y = np.isin(city, ["A", "D"]).astype(int)
    weight = np.ones(100)
    weight[:5] = 0.0
    X = pd.DataFrame({"city": city})
    model = DecisionTreeClassifier(max_depth=1).fit(X, y, sample_weight=weight)
    assert list(model.categories_[0]) == ["A", "B", "C", "D"]
    np.testing.assert_array_equal(model.predict(X)[5:], y[5:])
    from treesmith.export import export_text

    assert "city in {C}  " in export_text(model)


def test_polars_object_column_of_numbers_stays_numeric_as_in_pandas():
    """polars gives a numpy object array of numbers and None the dtype Object: "from_dtype"
    made it categorical (with the identifier warning), and categorical_features=None said it
    "holds non-numeric values"; the same pandas column, and scikit-learn, read numbers."""
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(0)
    values = rng.normal(size=200)
    cells = np.array([None if i % 10 == 0 else v for i, v in enumerate(values)], dtype=object)
    frame = pl.DataFrame({"v": cells, "w": rng.choice(["u", "z"], 200)})
    assert str(frame.schema["v"]) == "Object"
    y = (np.nan_to_num(values) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = DecisionTreeClassifier(max_depth=1).fit(frame, y)
        np.testing.assert_array_equal(model.is_categorical_, [False, True])
        plain = DecisionTreeClassifier(max_depth=1, categorical_features=["w"]).fit(frame, y)
    assert model.tree_.threshold[0] == plain.tree_.threshold[0]
    as_pandas = pd.DataFrame({"v": cells, "w": frame["w"].to_list()})
    np.testing.assert_array_equal(model.predict(frame), plain.predict(as_pandas))
    mixed = pl.DataFrame({"v": np.array([1.5, "a", None, 2.0] * 5, dtype=object)})
    assert DecisionTreeClassifier().fit(mixed, [0, 1] * 10).is_categorical_[0]


def test_unseen_category_warning_points_at_the_callers_line():
    """The UnseenLevelWarning is attributed to the line that called predict / predict_proba /
    apply, of a tree or a forest, not to a treesmith line a fixed number of frames up (which
    depended on the path, and made Python's default filter show it once per session)."""
    from treesmith.ensemble import RandomForestClassifier

    X = pd.DataFrame({"c": pd.Categorical(list("abab") * 10)})
    y = [0, 1] * 20
    new = pd.DataFrame({"c": pd.Categorical(list("abzz") * 10)})
    for model in (DecisionTreeClassifier().fit(X, y),
                  RandomForestClassifier(3, random_state=0).fit(X, y)):
        for method in ("predict", "predict_proba", "apply"):
            with pytest.warns(UnseenLevelWarning) as caught:
                getattr(model, method)(new)
            assert {record.filename for record in caught} == {__file__}, method


# -- the precision a column of float categories was fitted in ---------------------------------
#: Float categories none of which float32 or float16 holds exactly (0.1 as float32 is
#: 0.10000000149011612), so a cell compared in the wrong precision is unseen.
_FRACTIONS = np.array([0.1, 0.2, 0.3, 1.7])


def _narrow_problem(n=240, seed=0):
    """A float64 column of four fractional categories (every eleventh cell missing), labels
    that depend on the category only, and the codes."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, n)
    values = _FRACTIONS[codes].copy()
    values[::11] = np.nan
    return values, (codes % 2 == 0).astype(int)


def _narrow(values, kind):
    """The float64 ``values`` as a narrow column of kind ``kind`` (a frame with column 'c')."""
    if kind == "float32":
        return pd.DataFrame({"c": values.astype(np.float32)})
    if kind == "float16":
        return pd.DataFrame({"c": values.astype(np.float16)})
    if kind == "Float32":  # pandas' nullable Float32 (NaN becomes <NA>)
        return pd.DataFrame({"c": pd.array(values.astype(np.float32), dtype="Float32")})
    if kind == "category_float32":  # a pandas category whose levels are float32
        return pd.DataFrame({"c": pd.Categorical(values.astype(np.float32))})
    if kind == "polars_float32":
        polars = pytest.importorskip("polars")
        return polars.DataFrame({"c": values.astype(np.float32)}, nan_to_null=True)
    raise AssertionError(kind)


NARROW_KINDS = ["float32", "float16", "Float32", "category_float32", "polars_float32"]


@pytest.mark.parametrize("kind", NARROW_KINDS)
def test_a_model_fitted_on_a_narrow_float_column_matches_its_values_as_float64(kind):
    """Fitted on float32 (float16, pandas Float32, a category of float32 levels, polars
    Float32) cells holding 0.1, the model stored 0.10000000149011612 and read the float64 0.1
    of the same data (read again from a CSV, or X.astype(float)) as an unseen category: a
    warning, and every row sent to the missing side. The fitted precision is remembered and
    the cells compared in it."""
    values, y = _narrow_problem()
    X = _narrow(values, kind)
    model = DecisionTreeClassifier(categorical_features=["c"], random_state=0).fit(X, y)
    precision = "float16" if kind == "float16" else "float32"
    assert model.category_precision_ == [precision]
    assert all(type(c) is float for c in model.categories_[0])  # one kind whatever the input
    expected = model.predict(X)
    present = ~np.isnan(values)
    assert (expected[present] == y[present]).all()
    wide = [pd.DataFrame({"c": values}), pd.DataFrame({"c": pd.Categorical(values)}),
            pd.DataFrame({"c": values.astype(object)})]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for frame in wide:
            np.testing.assert_array_equal(model.predict(frame), expected)


def test_values_float32_cannot_tell_apart_are_one_category_as_at_fit():
    """A float64 cell that differs from the float32-fitted 0.1 below float32's precision is
    that category (float32 would have stored it as the same value); a genuinely new value
    is still unseen, warned about, and takes the missing side, as a missing cell does."""
    values, y = _narrow_problem()
    model = DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(
        values.astype(np.float32)[:, None], y)
    assert model.category_precision_ == ["float32"]
    assert np.float32(0.1 + 1e-10) == np.float32(0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        close = model.apply(np.array([[0.1 + 1e-10], [0.2 - 1e-10]]))
    np.testing.assert_array_equal(close, model.apply(np.array([[0.1], [0.2]], np.float32)))
    with pytest.warns(UnseenLevelWarning, match=r"not seen at fit time: 0\.45 .*training "
                                                r"categories: 0\.1, 0\.2, 0\.3, 1\.7\)"):
        unseen = model.apply(np.array([[0.45], [np.nan]]))
    assert unseen[0] == unseen[1]  # the new value goes where a missing cell goes


@pytest.mark.parametrize("fitted, given", [("float16", np.float32), ("float32", np.float16),
                                           ("float64", np.float32), ("float32", np.int64)])
def test_cells_and_categories_are_compared_in_the_narrower_precision(fitted, given):
    """The lookup against the naive rule: a cell is category c when both rounded to the
    narrower of the fitted and the given precision are equal (integers: exact)."""
    from treesmith.categorical import _codes, _missing

    rng = np.random.default_rng(3)
    categories = np.unique(rng.normal(scale=50, size=12).astype(fitted)).astype(np.float64)
    if given is np.int64:
        categories = np.unique(np.round(categories))
        cells = np.r_[categories, categories + 1, np.nan]
        cells = cells[np.isfinite(cells)].astype(np.int64)
    else:
        cells = np.r_[categories, rng.normal(scale=50, size=30), np.nan].astype(given)
    narrow = min(np.dtype(fitted), np.dtype(given) if given is not np.int64 else
                 np.dtype(np.float64), key=lambda d: d.itemsize)
    keys = categories.astype(narrow)
    expected = np.array([np.flatnonzero(keys == np.asarray(c).astype(narrow))[0]
                         if np.any(keys == np.asarray(c).astype(narrow)) else np.nan
                         for c in cells.astype(np.float64)])
    objects = np.empty(categories.shape[0], dtype=object)
    objects[:] = categories.tolist()
    codes, unseen = _codes(cells, objects, _missing(cells), fitted)
    np.testing.assert_array_equal(codes, expected)
    np.testing.assert_array_equal(unseen, np.isnan(expected) & ~np.isnan(
        cells.astype(np.float64)))


@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=1,
                max_size=30))
@settings(max_examples=60, deadline=None)
def test_float32_cells_read_as_float64_get_their_fitted_codes(cells):
    """Invariant: whatever float32 values a column holds, their text (as a CSV file writes
    them: the shortest that reads back as the float32) read back as float64 or as Python
    floats gets the codes fit gave them; so do the float32 values widened exactly."""
    from treesmith.categorical import (_as_python_floats, _codes, _missing,
                                       _observed_categories, fitted_precision)

    column = pd.Series(np.array(cells, dtype=np.float32))
    missing = _missing(column)
    categories = _observed_categories(column, missing, "c", 0)
    precision = fitted_precision(column, categories)
    categories = _as_python_floats(categories)
    fitted, _ = _codes(column, categories, missing, precision)
    read_back = pd.Series([float(str(value)) for value in column.to_numpy()])
    for wide in (read_back, read_back.astype(object), column.astype(np.float64)):
        codes, unseen = _codes(wide, categories, _missing(wide), precision)
        np.testing.assert_array_equal(codes, fitted)
        assert not unseen.any()


def test_the_float64_fitted_direction_and_other_columns_keep_their_precision():
    """Fitted on float64 the precision is float64 (float32 cells still match, by rounding the
    categories); integer, boolean and text categories have none (matched by equality)."""
    values, y = _narrow_problem()
    frame = pd.DataFrame({"f": values, "i": (values * 10).round(), "b": values > 0.2,
                          "t": np.where(values > 0.2, "hi", "lo")})
    frame["i"] = frame["i"].astype("Int64")
    model = DecisionTreeClassifier(categorical_features=["f", "i", "b", "t"],
                                   random_state=0).fit(frame, y)
    assert model.category_precision_ == ["float64", None, None, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(model.predict(frame.astype({"f": np.float32})),
                                      model.predict(frame))


def _equal_after(model, X, other, expect_warning=False):
    if expect_warning:
        with pytest.warns(UnseenLevelWarning):
            return model.predict(other)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return model.predict(other).tolist() == model.predict(X).tolist()


def test_what_equal_values_of_other_types_mean():
    """The decisions on a categorical column predicted with another type than at fit:
    integer 1 fitted, float 1.0 given (a CSV column with a missing cell is read as float) is
    category 1; booleans and 0/1 are the same categories (False == 0, True == 1 in Python and
    numpy, and a CSV of 0/1 flags is what a bool column becomes elsewhere); text is compared
    as text: '1' is not 1, 'Nice ' is not 'Nice' (both unseen, warned, missing side)."""
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 3, 150)
    y = (codes == 1).astype(int)
    ints = pd.DataFrame({"c": codes})
    model = DecisionTreeClassifier(categorical_features=["c"], random_state=0).fit(ints, y)
    assert _equal_after(model, ints, ints.astype(float))
    assert _equal_after(model, ints, ints.astype("Int64"))
    assert _equal_after(model, ints, ints.astype(np.float32))
    _equal_after(model, ints, ints.astype(str), expect_warning=True)
    flags = pd.DataFrame({"c": codes == 1})
    model = DecisionTreeClassifier(random_state=0).fit(flags, y)
    assert _equal_after(model, flags, flags.astype(int))
    assert _equal_after(model, flags, flags.astype(float))
    _equal_after(model, flags, flags.astype(str), expect_warning=True)
    text = pd.DataFrame({"c": np.array(["Lyon", "Nice", "Pau"])[codes]})
    model = DecisionTreeClassifier(random_state=0).fit(text, y)
    _equal_after(model, text, text.assign(c=text["c"] + " "), expect_warning=True)


@pytest.mark.parametrize("make", [
    lambda: treesmith.RandomForestClassifier(n_estimators=4, random_state=0),
    lambda: treesmith.ExtraTreesClassifier(n_estimators=4, random_state=0),
    lambda: treesmith.ensemble.BudgetForestClassifier(None, alphas=[0], max_estimators=3,
                                             random_state=0),
    lambda: treesmith.ensemble.GreedyTreeClassifier(random_state=0),
    lambda: treesmith.BayesianTreeClassifier(n_iter=60, random_state=0),
], ids=["random_forest", "extra_trees", "budget_forest", "greedy_tree", "bayesian"])
def test_every_estimator_matches_float32_fitted_categories_given_as_float64(make):
    """The forests encode X once with their categories (their members read the codes); a
    member predicting on its own reads the same precision."""
    values, y = _narrow_problem()
    X = pd.DataFrame({"c": pd.Categorical(values.astype(np.float32))})
    model = make().fit(X, y)
    assert model.category_precision_ == ["float32"]
    wide = pd.DataFrame({"c": values})
    assert _equal_after(model, X, wide)
    for member in getattr(model, "estimators_", []):
        assert member.category_precision_ == ["float32"]
        assert _equal_after(member, X, wide)


def test_warm_start_and_predict_lazy_read_the_fitted_precision():
    values, y = _narrow_problem()
    X = pd.DataFrame({"c": values.astype(np.float32)})
    forest = treesmith.RandomForestClassifier(n_estimators=3, warm_start=True,
                                              categorical_features=["c"],
                                              random_state=0).fit(X, y)
    kept = forest.categories_
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the float64 0.1 is the kept trees' category
        forest.set_params(n_estimators=5).fit(pd.DataFrame({"c": values}), y)
    assert forest.categories_ is kept and forest.category_precision_ == ["float32"]
    assert _equal_after(forest, X, pd.DataFrame({"c": values}))
    lazy = treesmith.predict_lazy(forest, lambda row, j: float(values[row]), len(values))
    np.testing.assert_array_equal(lazy.predictions, forest.predict(X))


def test_pickled_models_keep_the_precision_and_older_ones_match_as_before():
    import pickle

    values, y = _narrow_problem()
    X = values.astype(np.float32)[:, None]
    model = DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y)
    copy = pickle.loads(pickle.dumps(model))
    assert copy.category_precision_ == ["float32"]
    assert _equal_after(copy, X, values[:, None])
    del copy.category_precision_  # pickled before it existed: exact matching, as then
    _equal_after(copy, X, values[:, None], expect_warning=True)


def test_exports_show_float_categories_in_their_fitted_precision():
    values, y = _narrow_problem()
    model = DecisionTreeClassifier(max_depth=1, random_state=0).fit(
        pd.DataFrame({"c": pd.Categorical(values.astype(np.float32))}), y)
    text = treesmith.export_text(model)
    assert re.search(r"c in \{0\.[13], 0\.[13]\}", text), text
    assert "0.100000001" not in text


def test_integers_beyond_float64_keep_exact_matching_beside_float_categories():
    """An object column of large integers and floats is fitted in float64: its cells are
    compared as they are, not rounded (2**60 + 1 and 2**60 stay two categories)."""
    from treesmith.categorical import _codes, _missing

    big = 2**60
    column = np.empty(4, dtype=object)
    column[:] = [big, big + 1, 0.5, big + 1]
    categories = np.empty(3, dtype=object)
    categories[:] = [0.5, big, big + 1]
    codes, unseen = _codes(column, categories, _missing(column), "float64")
    assert codes.tolist() == [1.0, 2.0, 0.0, 2.0] and not unseen.any()


@pytest.mark.parametrize("make", [DecisionTreeClassifier, "c45"])
def test_an_integer_beside_float32_categories_keeps_its_exact_value(make):
    """An object column holding float32 floats and the integer 16777217 (which float32 rounds
    to 16777216) is fitted in float32 precision, but a cell equal to a category as it is takes
    that category: the training frame predicts without an unseen-value warning, and each
    category keeps its own branch (the integer used to be unseen at predict)."""
    cells = [np.float32(0.5), 16777217, 3] * 6
    X = pd.DataFrame({"c": pd.Series(cells, dtype=object)})
    y = np.array([0, 1, 2] * 6)
    if make == "c45":
        from treesmith.c45 import C45Classifier

        model = C45Classifier(categorical_features=[0], min_objects=1).fit(X, y)
    else:
        model = make(categorical_features=[0], random_state=0).fit(X, y)
    assert model.category_precision_ == ["float32"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(model.predict(X), y)
        np.testing.assert_array_equal(
            model.predict(pd.DataFrame({"c": pd.Series([16777217, 0.5], dtype=object)})),
            [1, 0])
    with pytest.warns(UnseenLevelWarning):  # 16777216 is a new value, not the integer's
        model.predict(pd.DataFrame({"c": pd.Series([16777215], dtype=object)}))


@pytest.mark.parametrize("make", [DecisionTreeClassifier, "c45"])
def test_numpy_float32_cells_of_an_object_column_match_float64_fitted_categories(make):
    """An object column of numpy float32 scalars (a list of them, a float32 array's objects): they are compared in float32, as the float32 column's cells are
    (the float32 0.1 is the category 0.1 fitted from float64). They were unseen, warned about
    and sent to the missing side; predict_lazy given such scalars matches them too."""
    values = np.array([0.1, 0.2, 1.7, 100.1] * 5)
    y = np.arange(values.shape[0]) % 4 % 3
    X = pd.DataFrame({"c": values})
    if make == "c45":
        from treesmith.c45 import C45Classifier

        model = C45Classifier(categorical_features=[0], min_objects=1).fit(X, y)
    else:
        model = make(categorical_features=[0], random_state=0).fit(X, y)
    objects = pd.DataFrame({"c": pd.Series([np.float32(v) for v in values], dtype=object)})
    assert isinstance(objects["c"].iloc[0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(model.predict(objects), model.predict(X))
        lazy = treesmith.predict_lazy(model, lambda i, j: np.float32(values[i]), 8)
    np.testing.assert_array_equal(lazy.predictions, model.predict(X.iloc[:8]))
    with pytest.warns(UnseenLevelWarning):  # another float32 value is still new
        model.predict(pd.DataFrame({"c": pd.Series([np.float32(0.3)], dtype=object)}))


def test_a_float_cell_matches_the_integer_category_it_equals_exactly():
    """Integer categories of an int64 column (2**60 and 2**60 + 1) held as numpy int64 were
    compared with float cells in float64 by pandas' lookup: two identical cells 2.0**60 got
    the codes 0 and 1. Python compares an int and a float exactly: both are 2**60."""
    from treesmith.categorical import _codes, _missing

    X = pd.DataFrame({"c": np.array([2**60, 2**60 + 1] * 6, dtype=np.int64)})
    y = np.array([0, 1] * 6)
    model = DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y)
    for cells, expected in (([2.0**60, 2.0**60], [0, 0]), ([2.0**60] * 3, [0, 0, 0]),
                            ([2.0**60, 2.0**61], [0, np.nan])):
        cells = pd.Series(cells)
        codes, unseen = _codes(cells, model.categories_[0], _missing(cells))
        np.testing.assert_array_equal(codes, expected)
        np.testing.assert_array_equal(unseen, np.isnan(expected))
    np.testing.assert_array_equal(model.predict(pd.DataFrame({"c": [2.0**60] * 2})), [0, 0])
    np.testing.assert_array_equal(model.predict(X), y)  # the integers keep their own codes


@pytest.mark.parametrize("make", [DecisionTreeClassifier, "c45"])
@pytest.mark.parametrize("cells", [[np.float32(0.5), 2**1030, 3],
                                   [np.float16(0.5), -(2**2000), 2**64]])
def test_integers_beyond_float64_beside_numpy_floats(make, cells):
    """An object column holding a numpy float and an integer beyond float64: sorting its
    categories raised OverflowError (numpy converts the int to compare); they sort as Python
    numbers, the integer is matched exactly, and an unseen huge integer is warned about."""
    X = pd.DataFrame({"c": pd.Series(cells * 4, dtype=object)})
    y = np.array([0, 1, 2] * 4)
    if make == "c45":
        from treesmith.c45 import C45Classifier

        model = C45Classifier(categorical_features=[0], min_objects=1).fit(X, y)
    else:
        model = make(categorical_features=[0], random_state=0).fit(X, y)
    from treesmith.categorical import _python_number

    assert [_python_number(v) for v in model.categories_[0]] == sorted(
        _python_number(v) for v in cells)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(model.predict(X), y)
    with pytest.warns(UnseenLevelWarning):
        model.predict(pd.DataFrame({"c": pd.Series([np.float32(0.5), 2**1031], dtype=object)}))


def _partition_reference(sample_idx, start, end, column, bits, missing_bin, missing_go_left):
    """Stable partition of ``sample_idx[start:end]`` by a category set, written plainly."""
    def left(i):
        b = int(column[i])
        if b == missing_bin:
            return missing_go_left
        return (int(bits[b >> 6]) >> (b & 63)) & 1 == 1
    part = list(sample_idx[start:end])
    lefts = [i for i in part if left(i)]
    return len(lefts) + start, np.array(lefts + [i for i in part if not left(i)])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), wide=st.booleans(), missing_go_left=st.booleans())
def test_the_categorical_partition_is_the_stable_partition_by_the_set(seed, wide,
                                                                       missing_go_left):
    """``partition_categorical`` (branch-free) against a plain stable partition, on uint8 and
    uint16 columns; a uint16 matrix (max_bins > 255) has its missing bin beyond the 256 codes
    a bitset holds."""
    from treesmith._kernels.categorical import partition_categorical
    from treesmith._kernels.pointers import twin

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    n_categories = int(rng.integers(1, 256))
    missing_bin = 700 if wide else 255
    column = rng.integers(0, n_categories, n)
    column[rng.random(n) < 0.2] = missing_bin
    column = column.astype(np.uint16 if wide else np.uint8)
    bits = np.zeros(4, dtype=np.uint64)
    for c in rng.choice(n_categories, int(rng.integers(0, n_categories + 1)), replace=False):
        bits[c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    sample_idx = rng.permutation(n).astype(np.int64)
    start, end = sorted(int(v) for v in rng.integers(0, n + 1, 2))
    expected_mid, expected = _partition_reference(sample_idx, start, end, column, bits,
                                                  missing_bin, missing_go_left)
    partition = twin(partition_categorical, "python", python_entry=True)
    got = sample_idx.copy()
    mid = partition(got, np.int64(start), np.int64(end), column, bits, np.int64(missing_bin),
                    missing_go_left, np.empty(n, dtype=np.int64))
    assert mid == expected_mid
    np.testing.assert_array_equal(got[start:end], expected)
    np.testing.assert_array_equal(got[:start], sample_idx[:start])
    np.testing.assert_array_equal(got[end:], sample_idx[end:])


def test_a_categorical_split_in_a_uint16_matrix_routes_its_training_rows():
    """max_bins > 255 stores the bins as uint16 and puts the missing bin beyond 255: the
    growth loop's partition by a set of categories (with missing values) sends each training
    row where the fitted tree sends it, so every node's sample count is its rows'."""
    rng = np.random.default_rng(3)
    n = 3000
    city = rng.integers(0, 40, n).astype(float)
    city[rng.random(n) < 0.15] = np.nan
    X = pd.DataFrame({"city": pd.Categorical(city), "x": rng.normal(size=n)})
    y = ((np.nan_to_num(city, nan=7) % 3 == 0) ^ (X["x"] > 0.5)).astype(int)
    tree = DecisionTreeClassifier(max_bins=1000, random_state=0).fit(X, y)
    assert tree.bin_mapper_.missing_values_bin_idx_ > 255
    assert (tree.tree_.bin_threshold == -2).any()  # some split is by a set of categories
    counts = tree.decision_path(X).sum(axis=0).A1
    np.testing.assert_array_equal(counts, tree.tree_.n_node_samples)


@pytest.mark.parametrize("seed", range(5))
def test_a_text_category_column_codes_as_its_object_column_does(seed):
    """A pandas category column of text is coded through a dict of its levels (no pandas
    indexes built): levels in another order than the fit's, levels never observed, unseen
    levels and missing cells give the codes and unseen cells of the same column as objects."""
    from treesmith.categorical import _codes

    rng = np.random.default_rng(seed)
    fitted = np.array(["Lyon", "Nice", "Paris", "lille", "Nice "], dtype=object)
    levels = list(rng.permutation(["Nice", "Paris", "Lyon", "Brest", "lille", "nice", "Nice "]))
    cells = rng.choice(levels + [None], 400)
    column = pd.Series(pd.Categorical(cells, categories=levels))
    missing = np.asarray(column.isna())
    codes, unseen = _codes(column, fitted, missing)
    expected_codes, expected_unseen = _codes(column.astype(object), fitted, missing)
    np.testing.assert_array_equal(codes, expected_codes)
    np.testing.assert_array_equal(unseen, expected_unseen)
    assert unseen.any() and missing.any() and np.isnan(codes[missing]).all()
    assert set(np.asarray(cells[unseen])) <= {"Brest", "nice"}
