"""The small-node scan in isolation: what a node of a given size costs per feature, split
between building its compact histograms and scanning them, for each per-feature scan.

    python benchmarks/bench_small_nodes.py                      # nodes of [128, 512) samples
    python benchmarks/bench_small_nodes.py --low 4 --high 32    # the smallest nodes

A full-depth tree is fitted on make_classification data (2e5 x 50, 3 classes, float32, unit
weights); up to ``--nodes`` of its internal nodes holding ``[low, high)`` samples are taken with
their samples and statistics, and every feature of each is scanned on one thread, in one
compiled loop (no Python call per node), as the growth loop does:

* ``full``: ``splitting.scan_small_node_features`` (compact histograms, scan, bin translation);
* ``build``: the compact histograms alone;
* ``first scan``: one scan after each build (``full`` without the bookkeeping; it pays the
  branch mispredictions of data it has not seen);
* ``again``: each further scan of the same histogram (branch predictor trained: the cost of
  the arithmetic).

Scans: the engine's choice for this fit (``scan_feature_unit_weights`` with Gini inlined) and
the generic ``scan_feature`` (gain twin), interleaved; CPU seconds, median of ``--repeats``.
Each node's rows are read from a gathered block of ``SPREAD`` times as many rows, as a
subtree grown apart reads its gathered copy (``_kernels/gather.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import environment_lines, git_revision_line, make_classification_data  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
#: A node's rows are spread among this many times as many rows (its subtree's).
SPREAD = 16


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--low", type=int, default=128)
    parser.add_argument("--high", type=int, default=512)
    parser.add_argument("--nodes", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO_ROOT))
    import numba
    from numba import njit

    import treesmith
    from treesmith._kernels.pointers import (
        categorical_scan_pointer,
        impurity_pointer,
        scan_pointer,
    )
    from treesmith._kernels.records import (
        SPLIT_DTYPE,
        UNCONSTRAINED,
        BinLayout,
        Impurity,
        NodeScan,
        SmallNodeWorkspace,
        TrainingData,
    )
    from treesmith._kernels.splitting import (
        compact_feature_histogram,
        scan_small_node_features,
        scan_workspace,
    )
    from treesmith.criteria import Gini
    from treesmith.rules import Gain
    from treesmith.rules._kernel import kernel_rule

    print("\n".join(environment_lines()))
    print(git_revision_line(REPO_ROOT))
    numba.set_num_threads(1)
    X, y = make_classification_data(200_000, n_features=50, n_classes=3, n_informative=15,
                                    n_redundant=5)
    model = treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)
    tree = model.tree_
    X_binned = np.asfortranarray(model.bin_mapper_.transform(X))
    sizes = tree.n_node_samples
    chosen = np.flatnonzero((tree.children_left >= 0) & (sizes >= args.low)
                            & (sizes < args.high))[:args.nodes]
    if chosen.size == 0:
        raise SystemExit(f"no internal node holds [{args.low}, {args.high}) samples")
    membership = model.decision_path(X).tocsc()
    rows = [membership[:, node].nonzero()[0].astype(np.int64) for node in chosen]
    # As in a subtree grown apart (gathered rows, ``_kernels/gather.py``): each node's rows
    # among SPREAD times as many rows of a block of their own, in training order.
    rng = np.random.default_rng(0)
    blocks, positions, offset = [], [], 0
    for node_rows in rows:
        others = rng.choice(X.shape[0], (SPREAD - 1) * node_rows.size, replace=False)
        block = np.union1d(node_rows, others)
        blocks.append(block)
        positions.append(offset + np.searchsorted(block, node_rows))
        offset += block.size
    block_rows = np.concatenate(blocks)
    bounds = np.cumsum([0] + [r.size for r in rows]).astype(np.int64)
    segments = np.column_stack([bounds[:-1], bounds[1:]])
    sample_idx = np.concatenate(positions).astype(np.int64)
    n_classes = 3
    weights = np.ones(block_rows.size)
    data = TrainingData(np.asfortranarray(X_binned[block_rows]), sample_idx, y[block_rows],
                        weights, np.zeros((0, 0)), np.zeros(0, dtype=np.int64), n_classes)
    mapper = model.bin_mapper_
    bins = BinLayout(int(mapper.n_bins_), int(mapper.missing_values_bin_idx_),
                     mapper.n_bins_non_missing_.astype(np.int64),
                     np.zeros(X.shape[1], dtype=bool))
    criterion = Gini()
    impurity = Impurity(impurity_pointer(criterion.impurity_function()), criterion.parameters())
    rule, _ = kernel_rule(Gain(), weights, 0.0, True)
    totals = np.zeros((len(rows), 2 * n_classes))
    parents = np.zeros(len(rows))
    for t, node_rows in enumerate(rows):
        counts = np.bincount(y[node_rows], minlength=n_classes).astype(np.float64)
        totals[t] = np.concatenate([counts, counts])
        parents[t] = counts.sum() * criterion(counts / counts.sum())
    n_bins = bins.n_bins
    workspace = SmallNodeWorkspace(
        np.zeros((1, n_bins, 2 * n_classes)), np.empty((1, n_bins), dtype=np.int64),
        np.empty((1, n_bins + 1, 2 * n_classes)), scan_workspace(1, 2 * n_classes, n_classes),
        np.zeros((1, (n_bins + 63) // 64), dtype=np.uint64))
    features = np.arange(X.shape[1], dtype=np.int64)
    results = np.zeros(X.shape[1], dtype=SPLIT_DTYPE)
    categorical = categorical_scan_pointer(False)

    @njit
    def scan_nodes(data, bins, features, segments, totals, parents, impurity, rule, workspace,
                   results, scan, categorical, full, n_scans):
        for t in range(segments.shape[0]):
            start, end = segments[t, 0], segments[t, 1]
            node = NodeScan(np.int64(3), impurity, rule, np.int64(1), 0.0, parents[t],
                            200000.0, totals[t], UNCONSTRAINED)
            if full:
                scan_small_node_features(data, bins, features, start, end, node, workspace,
                                         np.int64(0), results, scan, categorical)
                continue
            for i in range(features.shape[0]):
                n_occupied = compact_feature_histogram(
                    data, features[i], start, end, bins.missing_bin, workspace.scratch[0],
                    workspace.touched[0], workspace.compact[0], workspace.occupied[0], True)
                for _ in range(n_scans):
                    scan(workspace.compact[0], n_occupied, n_occupied, node,
                         workspace.work[0], results, features[i])

    def cpu_seconds(scan, full, n_scans):
        begin = time.process_time()
        scan_nodes(data, bins, features, segments, totals, parents, impurity, rule, workspace,
                   results, scan, categorical, full, n_scans)
        return time.process_time() - begin

    scans = {"unit weights, gini inlined": scan_pointer(rule, criterion.impurity_function(),
                                                        unit_weights=True),
             "generic (gain twin)": scan_pointer(rule)}
    settings = {"full": (True, 1), "build": (False, 0), "build + 1 scan": (False, 1),
                "build + 3 scans": (False, 3)}
    times = {(name, setting): [] for name in scans for setting in settings}
    for scan in scans.values():
        cpu_seconds(scan, True, 1)  # compile
    for _ in range(args.repeats):
        for name, scan in scans.items():
            for setting, (full, n_scans) in settings.items():
                times[name, setting].append(cpu_seconds(scan, full, n_scans))
    n_feature_scans = len(rows) * X.shape[1]
    print(f"{len(rows)} nodes of [{args.low}, {args.high}) samples (mean "
          f"{bounds[-1] / len(rows):.0f}), {X.shape[1]} features; CPU ns per feature, median "
          f"of {args.repeats}")
    print(f"{'scan':<28} {'full':>8} {'build':>8} {'first scan':>11} {'again':>8}")
    for name in scans:
        median = {s: float(np.median(times[name, s])) * 1e9 / n_feature_scans for s in settings}
        print(f"{name:<28} {median['full']:8.0f} {median['build']:8.0f} "
              f"{median['build + 1 scan'] - median['build']:11.0f} "
              f"{(median['build + 3 scans'] - median['build + 1 scan']) / 2:8.0f}")


if __name__ == "__main__":
    main()
