"""Split-selection rules of docs/methods.md §4 (Zhang & Gionis 2023): which score the split kernel maximises.

Pass a name or an object as the estimators' ``split_rule``::

    DecisionTreeClassifier(criterion="entropy", split_rule=treesmith.rules.ECART(lam=10))

=================  ==============  =====================================================
name               object          score maximised over the node's candidate tests d
=================  ==============  =====================================================
``gain``           ``Gain()``      p(S)·Δ_h(S, d)
``gain_ratio``     ``GainRatio()`` Δ_h / split information, among tests with gain ≥ average
``cost_benefit``   ``CostBenefit``  p(S)·Δ_h(S, d) / c(d)
``ecart``          ``ECART(lam)``  (B(d) + E(d) + λ·p(S)·Δ_h(S, d)) / c(d)
``asr``            ``ASR()``       (B(d) + E(d)) / c(d)  (ECART with λ = 0)
``impure_pairs``   ``ImpurePairs``  (φ(S) − Σ_v φ(S_v)) / c(d)
``balanced``       ``Balanced()``  −|p(S_left) − p(S_right)|
``minimax``        ``Minimax(F)``  −max_v c(d) / (F(S) − F(S_v)), F = ``ThresholdPairs(α)``
                                   or ``Powers(l)`` of the class weights (BudgetRF)
=================  ==============  =====================================================

:mod:`treesmith.rules.reference` computes every term from its definition (the test oracle);
``treesmith.model_selection.select_lambda`` tunes ECART's λ on validation data.
"""

from ._base import (
    ASR,
    ECART,
    Balanced,
    CostBenefit,
    Gain,
    GainRatio,
    ImpurePairs,
    Minimax,
    Rule,
    registered,
    resolve_rule,
    rules_for_task,
)
from .set_functions import Powers, ThresholdPairs

__all__ = [
    "ASR",
    "ECART",
    "Balanced",
    "CostBenefit",
    "Gain",
    "GainRatio",
    "ImpurePairs",
    "Minimax",
    "Powers",
    "Rule",
    "ThresholdPairs",
    "registered",
    "resolve_rule",
    "rules_for_task",
]


#: Moved to treesmith.model_selection (old import path kept for one release).
_MOVED = ("LambdaSelection", "select_lambda")


def __getattr__(name):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..model_selection._moved import moved_attribute

    return moved_attribute(__name__, name)
