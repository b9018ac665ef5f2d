"""Split kernels: scan on a pooled histogram vs compact (small-node) scan vs exhaustive scan,
and partition."""

import numpy as np
import pytest

from treesmith._kernels.split_rules import RULE_GAIN
from treesmith._kernels.histogram import build_histogram_naive
from treesmith._kernels.pointers import categorical_scan_pointer, impurity_pointer, scan_pointer
from treesmith._kernels.records import (
    SPLIT_DTYPE,
    BinLayout,
    Impurity,
    NodeScan,
    SmallNodeWorkspace,
    SplitRule,
    TrainingData,
)
from treesmith._kernels.split_rules import NO_SPLIT
from treesmith._kernels.splitting import (
    _lowest_set_bit,
    compact_feature_histogram,
    partition,
    scan_feature,
    scan_small_node,
    scan_small_node_features,
    scan_small_node_serial,
    scan_two_rows,
    scan_workspace,
)
from treesmith.criteria import Entropy, Gini


def node_scan(criterion, totals, parent, total_weight, min_samples_leaf=1, skip=False):
    """The ``NodeScan`` record of a classification node under the gain rule."""
    rule = SplitRule(RULE_GAIN, np.zeros(1), np.zeros(1), 0, False, bool(skip))
    impurity = Impurity(impurity_pointer(criterion.impurity_function()),
                        criterion.parameters())
    return NodeScan(3, impurity, rule, int(min_samples_leaf), 0.0, float(parent),
                    float(total_weight), np.ascontiguousarray(totals, dtype=np.float64))


def scan_one(hist_f, n_bins_non_missing, missing_bin, node, work):
    results = np.zeros(1, dtype=SPLIT_DTYPE)
    scan_feature(np.ascontiguousarray(hist_f), n_bins_non_missing, missing_bin, node, work,
                 results, 0)
    return results[0]


def training_data(X_binned, idx, y, w):
    return TrainingData(X_binned, idx, y, w, np.zeros((0, 0)), np.zeros(0, dtype=np.int64), 3)


def small_node_workspace(n_chunks, missing_bin, n_features):
    return SmallNodeWorkspace(np.zeros((n_chunks, missing_bin + 1, 6)),
                              np.empty((n_chunks, missing_bin + 1), dtype=np.int64),
                              np.empty((n_chunks, missing_bin + 2, 6)),
                              scan_workspace(n_chunks, 6, 3),
                              np.zeros((n_chunks, (missing_bin + 64) // 64), dtype=np.uint64))


def sample_node(seed, n=60, n_bins=12, n_classes=3, missing=True):
    rng = np.random.default_rng(seed)
    missing_bin = n_bins
    X_binned = rng.integers(0, n_bins, size=(n, 2)).astype(np.uint8)
    if missing:
        X_binned[rng.random(n) < 0.15, 0] = missing_bin
    y = rng.integers(0, n_classes, size=n).astype(np.int64)
    w = rng.uniform(0.5, 2.0, size=n)
    return np.asfortranarray(X_binned), y, w, missing_bin


def best_by_brute_force(hist_f, n_bins, missing_bin, n_classes, h, total_weight):
    """Enumerate every cut and missing side with numpy; return (best score, bin, side)."""
    totals = hist_f.sum(axis=0)

    def weighted_h(stats):
        weight = stats[:n_classes].sum()
        return 0.0 if weight <= 0 else weight * h(stats[:n_classes] / weight)

    best = (-np.inf, NO_SPLIT, False)
    parent = weighted_h(totals)
    missing = hist_f[missing_bin]
    for b in range(n_bins):
        left = hist_f[: b + 1].sum(axis=0)
        right = totals - left - missing
        if right[n_classes:].sum() == 0 or left[n_classes:].sum() == 0:
            continue
        for side, (l, r) in enumerate([(left, right + missing), (left + missing, right)]):
            score = (parent - weighted_h(l) - weighted_h(r)) / total_weight
            if score > best[0] + 1e-15:
                best = (score, b, bool(side))
    return best


@pytest.mark.parametrize("criterion", [Gini(), Entropy()])
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("skip", [False, True])
def test_scan_matches_brute_force(criterion, seed, skip):
    X_binned, y, w, missing_bin = sample_node(seed)
    idx = np.arange(y.size, dtype=np.int64)
    hist = build_histogram_naive(X_binned, idx, y, w, None, 3, missing_bin + 1)
    totals = hist[0].sum(axis=0)
    weight = w.sum()
    props = totals[:3] / weight
    parent = weight * criterion(props)
    work = scan_workspace(1, 6, 3)[0]
    split = scan_one(hist[0], missing_bin, missing_bin,
                     node_scan(criterion, totals, parent, weight, skip=skip), work)
    expected = best_by_brute_force(hist[0], missing_bin, missing_bin, 3, criterion, weight)
    assert split["score"] == pytest.approx(expected[0], rel=1e-12, abs=1e-15)
    assert split["gain"] == split["score"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("min_samples_leaf", [1, 5])
def test_compact_scan_equals_dense_scan(seed, min_samples_leaf):
    X_binned, y, w, missing_bin = sample_node(seed, n=40, n_bins=30)
    n_bins_non_missing = np.array([30, 30], dtype=np.int64)
    idx = np.random.default_rng(seed).permutation(y.size).astype(np.int64)
    hist = build_histogram_naive(X_binned, idx, y, w, None, 3, missing_bin + 1)
    criterion = Gini()
    totals = hist[0].sum(axis=0)
    parent = w.sum() * criterion(totals[:3] / w.sum())
    node = node_scan(criterion, totals, parent, w.sum(), min_samples_leaf)
    work = scan_workspace(2, 6, 3)
    with_histogram = [scan_one(hist[f], 30, missing_bin, node, work[f]) for f in range(2)]
    results = np.zeros(2, dtype=SPLIT_DTYPE)
    scan_small_node_features(training_data(X_binned, idx, y, w),
                             BinLayout(missing_bin + 1, missing_bin, n_bins_non_missing,
                                       np.zeros(n_bins_non_missing.size, dtype=bool)),
                             np.arange(2), 0, y.size, node,
                             small_node_workspace(1, missing_bin, 2), 0, results, scan_pointer(),
                             categorical_scan_pointer())
    for f in range(2):
        expected = with_histogram[f]
        assert results[f]["score"] == pytest.approx(expected["score"], rel=1e-12, abs=1e-15)
        assert results[f]["bin_threshold"] == expected["bin_threshold"]
        assert results[f]["missing_go_left"] == expected["missing_go_left"]


def test_lowest_set_bit_of_every_single_and_mixed_word():
    for bit in range(64):
        assert _lowest_set_bit(np.uint64(1 << bit)) == bit
        assert _lowest_set_bit(np.uint64(((1 << 64) - 1) & ~((1 << bit) - 1))) == bit


@pytest.mark.parametrize("n_bins, n, dtype", [(12, 60, np.uint8), (255, 40, np.uint8),
                                              (255, 3, np.uint8), (3000, 40, np.uint16)])
@pytest.mark.parametrize("unit_weights", [False, True])
def test_compact_histogram_holds_the_occupied_rows_in_order(n_bins, n, dtype, unit_weights):
    """Bitmap read-off (few bins per sample) and collect-and-sort (more bitmap words than
    samples: 3000 bins, 40 samples; 255 bins, 3 samples) give the occupied bins in increasing
    order, their rows, then the missing row; the scratch and the bitmap are zero again."""
    rng = np.random.default_rng(n_bins + n)
    missing_bin = n_bins
    X_binned = np.asfortranarray(rng.integers(0, n_bins + 1, size=(2 * n, 1)).astype(dtype))
    y = rng.integers(0, 3, size=2 * n).astype(np.int64)
    w = np.ones(2 * n) if unit_weights else rng.uniform(0.5, 2.0, size=2 * n)
    idx = rng.permutation(2 * n).astype(np.int64)
    start, end = n // 2, n // 2 + n
    expected = build_histogram_naive(X_binned, idx[start:end], y, w, None, 3, n_bins + 1)[0]
    scratch = np.zeros((n_bins + 1, 6))
    touched = np.empty(n_bins + 1, dtype=np.int64)
    compact = np.empty((n_bins + 2, 6))
    occupied = np.zeros((n_bins + 64) // 64, dtype=np.uint64)
    n_occupied = compact_feature_histogram(training_data(X_binned, idx, y, w), 0, start, end,
                                           missing_bin, scratch, touched, compact, occupied,
                                           unit_weights)
    present = np.flatnonzero(expected[:missing_bin, 3:].sum(axis=1) > 0)
    assert n_occupied == present.size
    np.testing.assert_array_equal(touched[:n_occupied], present)
    np.testing.assert_allclose(compact[:n_occupied], expected[present], rtol=1e-15)
    np.testing.assert_allclose(compact[n_occupied], expected[missing_bin], rtol=1e-15)
    if unit_weights:  # sums of ones: exact
        np.testing.assert_array_equal(compact[:n_occupied + 1, :3], compact[:n_occupied + 1, 3:])
    assert not scratch.any() and not occupied.any()


@pytest.mark.parametrize("n_chunks", [1, 2, 3])
@pytest.mark.parametrize("parallel_scan", [scan_small_node, scan_small_node_serial],
                         ids=["parallel", "serial"])
def test_small_node_scan_is_the_same_in_any_number_of_chunks(n_chunks, parallel_scan):
    X_binned, y, w, missing_bin = sample_node(7, n=50, n_bins=30)
    X_binned = np.asfortranarray(np.column_stack([X_binned, X_binned[:, ::-1]]))
    n_bins_non_missing = np.full(4, 30, dtype=np.int64)
    idx = np.arange(y.size, dtype=np.int64)
    hist = build_histogram_naive(X_binned, idx, y, w, None, 3, missing_bin + 1)
    criterion = Entropy()
    totals = hist[0].sum(axis=0)
    parent = w.sum() * criterion(totals[:3] / w.sum())
    node = node_scan(criterion, totals, parent, w.sum(), skip=True)
    features = np.arange(4, dtype=np.int64)
    results = {}
    for chunks in (1, n_chunks):
        out = np.zeros(4, dtype=SPLIT_DTYPE)
        out["bin_threshold"] = NO_SPLIT
        scan = scan_small_node if chunks == 1 else parallel_scan
        scan(training_data(X_binned, idx, y, w),
                        BinLayout(missing_bin + 1, missing_bin, n_bins_non_missing,
                                       np.zeros(n_bins_non_missing.size, dtype=bool)), features,
                        0, y.size, node, small_node_workspace(chunks, missing_bin, 4), out,
                        scan_pointer(), chunks, categorical_scan_pointer())
        results[chunks] = out
    assert (results[n_chunks]["bin_threshold"] != NO_SPLIT).all()
    np.testing.assert_array_equal(results[n_chunks], results[1])


def test_partition_is_stable_and_routes_missing_values():
    column = np.array([0, 5, 9, 2, 5, 9, 1], dtype=np.uint8)  # 9 = missing bin
    idx = np.arange(7, dtype=np.int64)
    mid = partition(idx, 0, 7, column, 2, 9, True, np.empty(7, dtype=np.int64))
    assert mid == 5
    assert list(idx) == [0, 2, 3, 5, 6, 1, 4]


def _assert_same_splits(reference, scan, hist, missing_bin, node):
    """``scan`` finds ``reference``'s split records, bit for bit, on both features of ``hist``
    (three classes), and the reference splits at least one of them."""
    outs = []
    for kernel in (reference, scan):
        out = np.zeros(2, dtype=SPLIT_DTYPE)
        for f in range(2):
            kernel(np.ascontiguousarray(hist[f]), missing_bin, missing_bin, node,
                   scan_workspace(1, 6, 3)[0], out, f)
        outs.append(out)
    assert (outs[0]["bin_threshold"] != NO_SPLIT).any()
    np.testing.assert_array_equal(outs[1], outs[0])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("skip", [False, True])
def test_the_gain_rules_scan_twin_finds_the_scans_splits(seed, skip):
    # fits whose rule's numerator is the gain get scan_feature compiled without the other
    # rules' numerators (pointers.scan_pointer): same splits, bit for bit
    from treesmith._kernels.split_rules import RULE_ECART, RULE_GAIN_RATIO

    X_binned, y, w, missing_bin = sample_node(seed, n=80)
    idx = np.arange(y.size, dtype=np.int64)
    hist = build_histogram_naive(X_binned, idx, y, w, None, 3, missing_bin + 1)
    criterion = Gini()
    totals = hist[0].sum(axis=0)
    node = node_scan(criterion, totals, w.sum() * criterion(totals[:3] / w.sum()), w.sum(),
                     skip=skip)
    full = scan_pointer()
    gain_scan = scan_pointer(node.rule)
    assert gain_scan is not full
    assert scan_pointer(node.rule._replace(code=RULE_GAIN_RATIO)) is gain_scan
    assert scan_pointer(node.rule._replace(code=RULE_ECART)) is full
    _assert_same_splits(full, gain_scan, hist, missing_bin, node)


@pytest.mark.parametrize("criterion", [Gini(), Entropy()], ids=["gini", "entropy"])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("skip, min_samples_leaf, min_weight_leaf",
                         [(False, 1, 0.0), (True, 1, 0.0), (False, 4, 0.0), (False, 1, 6.0)])
@pytest.mark.parametrize("missing", [True, False])
def test_the_unit_weight_scan_finds_the_scans_splits_bit_for_bit(criterion, seed, skip,
                                                                 min_samples_leaf,
                                                                 min_weight_leaf, missing):
    # every sample weighs 1: scan_feature_unit_weights (its twin with the impurity inlined)
    # must return the generic scan's records exactly, on histograms with empty bins, with and
    # without missing values, with and without the same-class-run skip and leaf limits
    X_binned, y, _, missing_bin = sample_node(seed, n=45, n_bins=30, missing=missing)
    w = np.ones(y.size)
    idx = np.arange(y.size, dtype=np.int64)
    hist = build_histogram_naive(X_binned, idx, y, w, None, 3, missing_bin + 1)
    totals = hist[0].sum(axis=0)
    node = node_scan(criterion, totals, w.sum() * criterion(totals[:3] / w.sum()), w.sum(),
                     min_samples_leaf, skip=skip)._replace(min_weight_leaf=min_weight_leaf)
    generic = scan_pointer(node.rule)
    unit = scan_pointer(node.rule, criterion.impurity_function(), unit_weights=True)
    assert unit is not generic
    _assert_same_splits(generic, unit, hist, missing_bin, node)


def test_the_unit_weight_scan_is_only_for_gain_rules_and_built_in_impurities():
    from treesmith._kernels.split_rules import RULE_ECART
    from treesmith.criteria import Misclassification

    rule = SplitRule(RULE_GAIN, np.zeros(1), np.zeros(1), 0, False, False)
    gini = Gini().impurity_function()
    unit = scan_pointer(rule, gini, unit_weights=True)
    assert scan_pointer(rule, gini, unit_weights=True) is unit  # one per process
    assert scan_pointer(rule, gini) is scan_pointer(rule)  # weighted: the generic twin
    assert scan_pointer(rule, Misclassification().impurity_function(),
                        unit_weights=True) is scan_pointer(rule)
    assert scan_pointer(rule._replace(code=RULE_ECART), gini,
                        unit_weights=True) is scan_pointer()


@pytest.mark.parametrize("seed", range(20))
def test_categories_of_rows_maps_row_bits_to_code_bits_in_place(seed):
    from treesmith._kernels.splitting import _categories_of_rows

    rng = np.random.default_rng(seed)
    n_rows = int(rng.integers(1, 120))
    touched = np.sort(rng.choice(256, n_rows, replace=False)).astype(np.int64)
    left_rows = np.flatnonzero(rng.random(n_rows) < 0.5)
    bits = np.zeros(4, dtype=np.uint64)
    for j in left_rows:
        bits[j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    _categories_of_rows(bits, touched, n_rows)
    codes = [c for c in range(256) if (int(bits[c >> 6]) >> (c & 63)) & 1]
    assert codes == sorted(touched[left_rows].tolist())


@pytest.mark.parametrize("kind", ["every_rule", "gain", "unit_weights_gini",
                                  "unit_weights_entropy", "impure_pairs", "sampled_candidates"])
def test_scan_in_order_is_the_scan_of_the_rows_copied_in_that_order(kind):
    """The twin of each scan that takes the bins in ``NodeScan.bin_order``
    (``scan_pointer(..., in_order=True)``: the categorical scan hands it its categories in
    key order) returns, bit for bit, the record of the scan itself on a histogram whose rows
    were copied in that order: thresholds are positions in the order. With empty, pure and
    missing bins, leaf-size limits, and the minimax rule's sampled thresholds."""
    from treesmith._kernels.pointers import sampled_candidates_scan_pointer
    from treesmith._kernels.split_rules import RULE_IMPURE_PAIRS
    from treesmith.rules import Minimax
    from treesmith.rules._kernel import kernel_rule
    from treesmith.rules.set_functions import ThresholdPairs

    criterion = Entropy() if kind == "unit_weights_entropy" else Gini()
    unit_weights = kind.startswith("unit_weights")
    rng = np.random.default_rng(["every_rule", "gain", "unit_weights_gini",
                                 "unit_weights_entropy", "impure_pairs",
                                 "sampled_candidates"].index(kind))
    n_checked = 0
    for trial in range(40):
        n_bins = int(rng.integers(1, 60))
        counts = rng.integers(0, 40, size=(n_bins + 1, 3)).astype(float)
        counts[rng.random(n_bins + 1) < 0.3] = 0.0  # empty bins
        pure = rng.random(n_bins + 1) < 0.3
        counts[pure] *= np.eye(3)[rng.integers(0, 3, pure.sum())]  # pure bins
        if trial % 3 == 0:
            counts[n_bins] = 0.0  # no missing values
        weights = counts if unit_weights else counts * rng.uniform(0.5, 2.0, counts.shape)
        hist = np.ascontiguousarray(np.hstack([weights, counts]))
        totals = hist.sum(axis=0)
        if totals[3:].sum() == 0:
            continue
        parent = totals[:3].sum() * criterion(totals[:3] / totals[:3].sum())
        min_samples_leaf = 1 if trial % 2 else 15
        node = node_scan(criterion, totals, parent, totals[:3].sum(), min_samples_leaf,
                         skip=min_samples_leaf == 1 and kind != "impure_pairs")
        if kind == "every_rule":
            scans = scan_pointer(), scan_pointer(in_order=True)
        elif kind == "impure_pairs":
            node = node._replace(rule=node.rule._replace(code=RULE_IMPURE_PAIRS))
            scans = scan_pointer(node.rule), scan_pointer(node.rule, in_order=True)
        elif kind == "sampled_candidates":
            rule, _ = kernel_rule(Minimax(ThresholdPairs(3)), np.ones(1), 0.0, False,
                                  seed=trial)
            node = node._replace(rule=rule)
            scans = sampled_candidates_scan_pointer(), sampled_candidates_scan_pointer(True)
        else:
            if min_samples_leaf > 1:
                continue  # the unit-weight scan is handed out without leaf-size limits too
            h = criterion.impurity_function()
            scans = (scan_pointer(node.rule, h, unit_weights=True),
                     scan_pointer(node.rule, h, unit_weights=True, in_order=True))
        assert scans[0] is not scans[1]
        order = rng.permutation(n_bins).astype(np.int64)
        copied = np.ascontiguousarray(np.vstack([hist[order], hist[n_bins:]]))
        records = []
        for scan, histogram, scanned_node in (
                (scans[0], copied, node), (scans[1], hist, node._replace(bin_order=order))):
            results = np.zeros(1, dtype=SPLIT_DTYPE)
            scan(histogram, np.int64(n_bins), np.int64(n_bins), scanned_node,
                 scan_workspace(1, 6, 3)[0], results, np.int64(0))
            records.append(results.tobytes())
        assert records[0] == records[1]
        n_checked += 1
    assert n_checked >= 15


def _two_row_histograms(rng, n_stats, n_classes, weighted):
    """Histograms of the drawn split (``scan_two_rows``): two occupied rows and an empty
    missing row, one occupied row and an occupied missing row, and the cases that go to the
    generic scan (an empty row, missing samples beside two rows)."""
    def row(present):
        if not present:
            return np.zeros(n_stats)
        if n_classes:
            counts = rng.integers(0, 6, n_classes).astype(float)
            counts[rng.integers(n_classes)] += 1.0
            weights = counts * (rng.exponential(size=n_classes) if weighted else 1.0)
            return np.concatenate([weights, counts])
        n = float(rng.integers(1, 8))
        y = rng.normal(size=int(n)) * 10
        w = rng.exponential(size=int(n)) if weighted else np.ones(int(n))
        return np.array([n, w.sum(), (w * y).sum(), (w * y * y).sum()])
    return [np.vstack([row(True), row(True), row(False)]),
            np.vstack([row(True), row(True)]),
            np.vstack([row(True), row(False), row(False)]),
            np.vstack([row(True), row(True), row(True)]),
            np.vstack([row(False), row(True)])]


@pytest.mark.parametrize("task", ["gini", "entropy", "squared_error", "poisson"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("min_samples_leaf, min_weight_leaf", [(1, 0.0), (3, 0.0), (1, 4.0)])
def test_the_two_row_scan_writes_the_scans_record_bit_for_bit(task, weighted,
                                                               min_samples_leaf,
                                                               min_weight_leaf):
    # scan_two_rows replaces scan_feature on the drawn split's histograms: the same record,
    # bit for bit, on the one-candidate histograms and on those it hands to the scan
    from treesmith._kernels.split_rules import RULE_GAIN_RATIO
    from treesmith.criteria._base import resolve_criterion

    criterion = resolve_criterion(task, "classification" if task in ("gini", "entropy")
                                  else "regression")
    n_classes = 3 if task in ("gini", "entropy") else 0
    n_stats = 2 * n_classes if n_classes else 4
    h = criterion.impurity_function()
    impurity = Impurity(impurity_pointer(h), criterion.parameters())
    rng = np.random.default_rng(len(task) + 10 * weighted + min_samples_leaf)
    n_split = 0
    for repeat in range(30):
        for hist in _two_row_histograms(rng, n_stats, n_classes, weighted):
            hist = np.ascontiguousarray(hist)
            if task == "poisson":
                hist[:, 2] = np.abs(hist[:, 2])
            totals = hist.sum(axis=0)
            if n_classes:
                weight = totals[:n_classes].sum()
                parent = weight * h(totals[:n_classes] / weight, criterion.parameters())
            else:
                weight = totals[1]
                parent = weight * h(totals, criterion.parameters())
            for code in (RULE_GAIN, RULE_GAIN_RATIO):
                rule = SplitRule(code, np.zeros(1), np.zeros(1), 0, False, False)
                node = NodeScan(n_classes, impurity, rule, min_samples_leaf, min_weight_leaf,
                                float(parent), float(weight) * 1.5, totals)
                n_rows = hist.shape[0] - 1
                records = []
                for scan in (scan_feature, scan_two_rows):
                    out = np.zeros(1, dtype=SPLIT_DTYPE)
                    work = scan_workspace(1, n_stats, n_classes)[0]
                    if scan is scan_feature:
                        scan(hist, n_rows, n_rows, node, work, out, 0)
                    else:
                        scan(hist, n_rows, node, work, out, 0)
                    records.append(out)
                assert records[1].tobytes() == records[0].tobytes(), (hist, code)
                n_split += records[0]["bin_threshold"][0] != NO_SPLIT
    assert n_split > 20
