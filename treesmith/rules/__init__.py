"""Split-selection rules of SPEC §4 (seed 000): which score the split kernel maximises.

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
=================  ==============  =====================================================

:mod:`treesmith.rules.reference` computes every term from its definition (the test oracle);
:func:`select_lambda` tunes ECART's λ as in seed 000 §6 / SPEC §8.
"""

from ._base import (
    ASR,
    ECART,
    Balanced,
    CostBenefit,
    Gain,
    GainRatio,
    ImpurePairs,
    Rule,
    registered,
    resolve_rule,
    rules_for_task,
)
from .lambda_selection import LambdaSelection, select_lambda

__all__ = [
    "ASR",
    "ECART",
    "Balanced",
    "CostBenefit",
    "Gain",
    "GainRatio",
    "ImpurePairs",
    "LambdaSelection",
    "Rule",
    "registered",
    "resolve_rule",
    "rules_for_task",
    "select_lambda",
]
