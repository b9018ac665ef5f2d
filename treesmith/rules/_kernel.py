"""A split rule as the kernels take it: the ``SplitRule`` record of
``treesmith._kernels.records``, and the per-sample q-group codes ECART needs.

The compiled side of the rules is ``treesmith._kernels.split_rules`` (numerators, selection);
this module is the only Python code that turns a rule object into what it needs.
"""

from __future__ import annotations

import numpy as np

from .._kernels.split_rules import (
    RULE_COST_BENEFIT,
    RULE_ECART,
    RULE_GAIN,
    RULE_GAIN_RATIO,
    RULE_MINIMAX,
)
from .._kernels.records import SplitRule
from ._base import Rule

#: ECART keeps per-bin weights for each distinct q_i = max(p(x_i), theta); more groups than
#: this would make histograms too large.
MAX_ECART_GROUPS = 256


def ecart_groups(sample_weight: np.ndarray, theta: float):
    """Group objects by q_i = max(p(x_i), theta) for ECART's E term (docs/methods.md §4).

    Returns ``(group_code, group_q)``: one code per sample and the distinct q values; when all
    positive-weight objects share one q the code array is empty (the kernel then uses the
    children's weights directly).
    """
    positive = sample_weight > 0
    q = np.maximum(sample_weight / sample_weight[positive].sum(), theta)
    group_q, code = np.unique(q[positive], return_inverse=True)
    if group_q.size == 1:
        return np.zeros(0, dtype=np.int64), group_q.astype(np.float64)
    if group_q.size > MAX_ECART_GROUPS:
        raise ValueError(
            f"split_rule='ecart' needs the objects' probabilities p(x) grouped by "
            f"q = max(p(x), theta), but they take {group_q.size} distinct values above "
            f"theta={theta!r} (at most {MAX_ECART_GROUPS}). Raise min_weight_fraction_split "
            "(theta) or coalesce identical objects (treesmith.preprocessing.coalesce).")
    codes = np.zeros(sample_weight.shape[0], dtype=np.int64)
    codes[positive] = code
    return codes, group_q.astype(np.float64)


def skips_same_class_runs(rule: Rule, criterion, n_classes: int, min_samples_leaf: int,
                          min_weight_leaf: float) -> bool:
    """Whether the scan may skip cuts inside same-class runs (see ``splitting.scan_feature``).

    Valid for the gain of a strictly concave impurity of the class proportions (a merely
    concave one such as misclassification has exact ties inside runs, which the lowest-threshold
    rule must see) when no leaf-size constraint can make a run's end infeasible. Criteria declare
    it with a ``strictly_concave`` attribute (bool or method).
    """
    concave = getattr(criterion, "strictly_concave", None)
    if callable(concave):
        concave = concave()
    if concave is None:
        concave = criterion.name in ("gini", "entropy")
    gain_based = rule.code in (RULE_GAIN, RULE_GAIN_RATIO, RULE_COST_BENEFIT)
    return (bool(concave) and gain_based and n_classes > 0 and min_samples_leaf <= 1
            and min_weight_leaf <= 0.0)


def kernel_rule(rule: Rule, sample_weight: np.ndarray, theta: float, skip_same_class_runs: bool,
                seed: int = 0):
    """``(SplitRule record, group_code)`` for growing with ``rule``.

    ``theta`` is ``min_weight_fraction_split``, ECART's truncation; ``group_code`` is the
    q-group of each sample (empty unless ECART needs several groups); ``seed`` the tree's seed,
    for rules that draw random numbers (``Rule.kernel_parameters``).
    """
    if rule.code == RULE_ECART:
        group_code, group_q = ecart_groups(sample_weight, theta)
    else:
        group_code, group_q = np.zeros(0, dtype=np.int64), np.array([float(theta)])
    record = SplitRule(
        code=int(rule.code),
        parameters=np.ascontiguousarray(rule.kernel_parameters(seed), dtype=np.float64),
        group_q=np.ascontiguousarray(group_q, dtype=np.float64),
        n_groups=int(group_q.size if group_code.size else 0),
        divides_by_cost=bool(rule.divides_by_cost),
        skip_same_class_runs=bool(skip_same_class_runs),
    )
    return record, group_code


def samples_candidates(rule: Rule) -> bool:
    """Whether ``rule``'s scan samples its candidate thresholds (the minimax rule with
    ``candidates="sampled"``) rather than trying every bin."""
    return rule.code == RULE_MINIMAX and getattr(rule, "candidates", "all") == "sampled"


def scan_pointer_for(rule: Rule, kernel_record=None, impurity_function=None,
                     unit_weights=False, in_order=False):
    """The per-feature scan the engine runs for ``rule``: the minimax rule with sampled
    candidates scans the paper's random thresholds (``_kernels.candidates``), every other rule
    every bin (``splitting.scan_feature``; for a gain-numerator rule, given its kernel record
    ``kernel_record``, the scan's twin compiled without the other rules' numerators, or with
    ``unit_weights`` and a built-in ``impurity_function`` the unit-weight scan with that
    impurity inlined: ``pointers.scan_pointer``). ``in_order``: its twin that takes the bins
    in ``NodeScan.bin_order``, for the categorical scan."""
    from .._kernels.pointers import sampled_candidates_scan_pointer, scan_pointer

    if samples_candidates(rule):
        return sampled_candidates_scan_pointer(in_order)
    return scan_pointer(kernel_record, impurity_function, unit_weights, in_order)
