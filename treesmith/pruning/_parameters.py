"""The allowed values of every pruning method's parameters, declared once (the validation
room's vocabulary, ``treesmith._validation``): checked by :func:`treesmith.pruning.prune`, by
the estimators' ``pruning=`` before growth, and by the tree-level functions themselves
(``top_down_pessimistic_prune_tree(tree, n_standard_errors)``, ...)."""

from __future__ import annotations

from numbers import Real

from .._validation import Interval, Options, check_parameter

_WEIGHT = [None, Interval(Real, 0.0, None), "array-like"]  # one number: the same for every row
_DATA = {"X": ["array-like"], "y": ["array-like"], "sample_weight": _WEIGHT}
#: Allowed values of each method's parameters (the validation room's vocabulary), checked
#: before any work: by :func:`prune` and, before growth, by the estimators' ``pruning=``.
#: The bounds are those of docs/methods.md §6 (C4.5's confidence factor in (0, 0.5]).
PARAMETER_TABLES = {
    "ccp": {"ccp_alpha": [Interval(Real, 0.0, None, allow_inf=True)],  # inf: the root alone
            "risk": [Options({"impurity", "misclassification"})]},
    "rep": {**_DATA, "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")]},
    "tdp": {"n_standard_errors": [Interval(Real, 0.0, None)]},
    "bup": {"c1": [Interval(Real, 0.0, None)], "c2": [Interval(Real, 0.0, None)]},
    "c45": {"confidence_factor": [Interval(Real, 0.0, 0.5, closed="right")],
            "collapse": ["boolean"], "subtree_raising": ["boolean"],
            "X": [None, "array-like"], "y": [None, "array-like"], "sample_weight": _WEIGHT},
    "nodes": {"nodes": ["array-like"]},
}


def check_pruning_parameters(method: str, params: dict, owner: str | None = None) -> None:
    """Raise a ValueError naming the parameter when a value of ``params`` is out of the
    method's table (unknown names are reported by the callers, which know what they accept)."""
    table = PARAMETER_TABLES[method]
    for name, value in params.items():
        if name in table:
            check_parameter(name, value, table[name], owner)
