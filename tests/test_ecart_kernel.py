"""The compiled ECART score against the hand-computed examples of tests/test_ecart.py.

Each example's test becomes a one-feature histogram with exactly two occupied bins (the left
objects in bin 0, the right ones in bin 1), so the kernel has a single candidate and must return
its numerator B + E + lambda * D (Z * c) and its gain D, to 1e-12.
"""

from fractions import Fraction as F

import numpy as np
import pytest

from treesmith._kernels.split_rules import RULE_ECART
from treesmith._kernels.pointers import impurity_pointer
from treesmith._kernels.records import SPLIT_DTYPE, Impurity, NodeScan, SplitRule
from treesmith._kernels.splitting import scan_feature, scan_workspace
from treesmith.criteria import Entropy, Gini


def kernel_terms(y, p, left, criterion, theta, lam, n_classes):
    """(numerator, gain) the kernel computes for the split ``left`` of the node's objects."""
    y, p, left = np.asarray(y), np.asarray(p, dtype=float), np.asarray(left, dtype=bool)
    q = np.maximum(p, theta)
    group_q, group = np.unique(q, return_inverse=True)
    n_groups = group_q.size if group_q.size > 1 else 0
    n_stats = 2 * n_classes + n_groups
    hist = np.zeros((3, n_stats))  # bins 0, 1 and the missing-value bin 2
    for i in range(y.size):
        b = 0 if left[i] else 1
        hist[b, y[i]] += p[i]
        hist[b, n_classes + y[i]] += 1.0
        if n_groups:
            hist[b, 2 * n_classes + group[i]] += p[i]
    totals = hist.sum(axis=0)
    weight = totals[:n_classes].sum()
    parent = weight * criterion(totals[:n_classes] / weight)
    out = np.zeros(1, dtype=SPLIT_DTYPE)
    rule = SplitRule(RULE_ECART, np.array([float(lam)]), group_q.astype(float), n_groups, True,
                     False)
    impurity = Impurity(impurity_pointer(criterion.impurity_function()),
                        criterion.parameters())
    node = NodeScan(n_classes, impurity, rule, 1, 0.0, float(parent), 1.0, totals)
    scan_feature(hist, 2, 2, node, scan_workspace(1, n_stats, n_classes)[0], out, 0)
    assert out[0]["bin_threshold"] == 0
    return out[0]["score"], out[0]["gain"]


def close(value, exact):
    return abs(value - float(exact)) <= 1e-12


def test_multiclass_root_example():
    score, gain = kernel_terms([0, 0, 1, 1, 2, 2], np.full(6, 1 / 6), [1, 1, 1, 0, 0, 0],
                               Entropy(), theta=0.0, lam=2.0, n_classes=3)
    assert close(gain, F(2, 3))
    assert close(score / 3.0, F(83, 90))  # Z with c = 3


def test_unequal_weights_example():
    """Some q_i > theta: the kernel uses per-q-group weights."""
    score, gain = kernel_terms([0, 1, 0, 1, 1], [0.3, 0.1, 0.1, 0.05, 0.05], [1, 1, 0, 0, 0],
                               Gini(), theta=0.08, lam=1.0, n_classes=2)
    assert close(gain, F(1, 60))
    assert close(score / 2.0, (F(2, 5) + F(109, 195) + F(1, 60)) / 2)  # Z with c = 2


@pytest.mark.parametrize("theta, expected_a, expected_c",
                         [(0.0, F(17, 60), F(7, 25)), (0.12, F(3, 10), F(483, 1600))])
def test_theta_truncation_decides(theta, expected_a, expected_c):
    y, p = [0, 1, 0, 1], np.full(4, 0.05)
    score_a, gain_a = kernel_terms(y, p, [1, 1, 0, 0], Gini(), theta, 2.4, 2)
    score_c, gain_c = kernel_terms(y, p, [1, 0, 0, 0], Gini(), theta, 2.4, 2)
    assert close(gain_a, 0) and close(gain_c, F(1, 30))
    assert close(score_a, expected_a) and close(score_c, expected_c)
    assert (score_a > score_c) == (theta == 0.0)
