"""Split-selection rules (docs/methods.md §4): small copyable parameter objects and their name registry.

A rule tells the split kernel *which score to maximise* over the candidate tests of a node;
the impurity h it may use comes from the estimator's ``criterion``. The engine receives two
things from a rule: its integer ``code`` (``treesmith._kernels.split_rules.RULE_*``) and its float64
parameter vector ``parameters()`` (never empty). ``treesmith.rules.reference`` computes every
score from its definition, object by object, and is what the kernel is tested against.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._kernels.split_rules import (
    RULE_BALANCED,
    RULE_COST_BENEFIT,
    RULE_ECART,
    RULE_GAIN,
    RULE_GAIN_RATIO,
    RULE_IMPURE_PAIRS,
    RULE_MINIMAX,
)
from .._parameters import ParameterObject
from .._validation import Interval, check_parameter
from ..criteria._base import check_task

_REGISTRY: dict[str, type] = {}


def _register(name: str):
    def decorator(cls):
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return decorator


class Rule(ParameterObject):
    """Base class of the split-selection rules.

    Subclasses set ``code``, ``formula``, ``divides_by_cost`` (whether the score is divided
    by the test's feature cost c(d)) and ``tasks`` (rules computed from class counts are for
    classification only), and list their constructor parameters in ``_param_names``.
    """

    code: int = -1
    name: str = ""
    formula: str = ""
    divides_by_cost: bool = False
    tasks: tuple[str, ...] = ("classification", "regression")

    def kernel_parameters(self, seed: int) -> np.ndarray:
        """The parameter vector the kernels get for a tree seeded ``seed``: ``parameters()``,
        and the seed where the rule draws random numbers (``Minimax``'s sampled candidates)."""
        return self.parameters()


@_register("gain")
class Gain(Rule):
    """Impurity reduction (CART with gini, "C4.5" with entropy): p(S)·Δ_h(S, d). docs/methods.md §4."""

    code = RULE_GAIN
    formula = "p(S) * Delta_h(S, d)"


@_register("gain_ratio")
class GainRatio(Rule):
    """C4.5's gain ratio: gain / split information, among the tests whose gain is at least the
    average gain of the node's candidate tests (Quinlan 1993). docs/methods.md §4."""

    code = RULE_GAIN_RATIO
    tasks = ("classification",)
    formula = "Delta_h(S, d) / SplitInfo(d), over tests with gain >= average gain"


@_register("cost_benefit")
class CostBenefit(Rule):
    """Cost-weighted gain of Zhang & Gionis 2023's CC4.5 / CCART baselines: p(S)·Δ_h(S, d) / c(d)."""

    code = RULE_COST_BENEFIT
    formula = "p(S) * Delta_h(S, d) / c(d)"
    divides_by_cost = True


@_register("ecart")
class ECART(Rule):
    """Seed 000 eq. 2: Z(d) = (B(d) + E(d) + λ·D(d)) / c(d) (EC4.5 with entropy, ECART with gini).

    B is the weight outside the child with most objects, E the re-weighted coverage gain of the
    truncated submodular functions f̃_i (θ = ``min_weight_fraction_split``), D = p(S)·Δ_h.
    λ = 0 is :class:`ASR`; a large λ behaves like :class:`CostBenefit`.
    """

    code = RULE_ECART
    tasks = ("classification",)
    formula = "(B(d) + E(d) + lam * p(S) * Delta_h(S, d)) / c(d)"
    divides_by_cost = True
    _param_names = ("lam",)

    def __init__(self, lam=1.0):
        self.lam = lam
        self._check_parameters()

    def _check_parameters(self) -> None:
        # np.isfinite of an int beyond int64 (lam=10**30) raised a TypeError
        check_parameter("lam", self.lam, [Interval(Real, 0.0, None)], "ECART")


@_register("asr")
class ASR(ECART):
    """Navidi et al.'s adaptive-submodular-ranking greedy: ECART with λ = 0, (B + E) / c(d)."""

    formula = "(B(d) + E(d)) / c(d)"
    _param_names = ()

    def __init__(self):
        self._check_parameters()

    @property
    def lam(self) -> float:
        return 0.0

    def parameters(self) -> np.ndarray:
        return np.zeros(1, dtype=np.float64)


@_register("impure_pairs")
class ImpurePairs(Rule):
    """Impure pairs (IP, Golovin et al. 2010): (φ(S) − Σ_v φ(S_v)) / c(d), unweighted counts."""

    code = RULE_IMPURE_PAIRS
    tasks = ("classification",)
    formula = "(phi(S) - sum_v phi(S_v)) / c(d)"
    divides_by_cost = True


@_register("balanced")
class Balanced(Rule):
    """BAL: ignores labels and costs, picks the most even split: maximise −|p(S_L) − p(S_R)|."""

    code = RULE_BALANCED
    formula = "-|p(S_left) - p(S_right)|"


@_register("minimax")
class Minimax(Rule):
    """Minimax split of BudgetRF's GreedyTree (Nan, Wang & Saligrama 2015, Algorithm 1):
    choose the test minimising R(d) = max_v c(d) / (F(S) − F(S_v)), F an admissible set function
    of the class weights (``ThresholdPairs(alpha)``, eq. 11, or ``Powers(power)``, eq. 14);
    R = ∞ when a child does not decrease F, and a node where no test decreases F is a leaf.

    ``candidates="sampled"`` (default, the paper's §3): per feature and node, the thresholds at
    the values of 80 / 40 / 20 rows drawn at random when the node holds more than 2000 / 500 /
    fewer rows (plus "non-missing left, missing right" when the node has missing values),
    seeded by the estimator's ``random_state``; ``"all"``: every bin (the exact minimax over
    stumps). The draws are those of ``treesmith.ensemble.GreedyTreeClassifier``
    (``treesmith._kernels.candidates``): with the same costs, seed and candidates both grow the
    same tree.
    """

    code = RULE_MINIMAX
    formula = "max_v c(d) / (F(S) - F(S_v)), minimised (F admissible: threshold-Pairs, Powers)"
    divides_by_cost = True
    tasks = ("classification",)
    _param_names = ("impurity", "candidates")

    def __init__(self, impurity=None, candidates="sampled"):
        self.impurity = impurity
        self.candidates = candidates
        self._check_parameters()

    def set_function(self):
        from .set_functions import ThresholdPairs, resolve_set_function

        return ThresholdPairs() if self.impurity is None else resolve_set_function(self.impurity)

    def _check_parameters(self):
        self.set_function()
        if not (isinstance(self.candidates, str) and self.candidates in ("sampled", "all")):
            raise ValueError(f"Minimax's candidates must be 'sampled' (80/40/20 random observed "
                             f"values per feature, as in the paper) or 'all' (every bin), got "
                             f"{self.candidates!r}.")

    def parameters(self) -> np.ndarray:
        """[set-function code, its parameter, 1.0 if sampled candidates else 0.0]
        (``_kernels.split_rules.minimax_numerator``, ``_kernels.candidates``)."""
        function = self.set_function()
        return np.array([float(function.code), function.parameter(),
                         1.0 if self.candidates == "sampled" else 0.0])

    def kernel_parameters(self, seed: int) -> np.ndarray:
        """``parameters()`` and the seed of the candidate draws."""
        return np.append(self.parameters(), float(seed))


def registered() -> dict[str, type]:
    """A copy of the name -> rule class registry."""
    return dict(_REGISTRY)


def rules_for_task(task: str) -> list[str]:
    """Names of the registered rules available for ``task`` ("classification" or
    "regression")."""
    check_task(task)  # any other value listed no rule ('classificaton' too)
    return [name for name, cls in _REGISTRY.items() if task in cls.tasks]


def resolve_rule(split_rule) -> Rule:
    """The estimator's ``split_rule`` (a registered name or a rule object) as a rule object."""
    if isinstance(split_rule, Rule):
        split_rule._check_parameters()
        return split_rule
    if isinstance(split_rule, str) and split_rule in _REGISTRY:
        return _REGISTRY[split_rule]()
    raise ValueError(
        f"split_rule must be one of {sorted(_REGISTRY)} or an object from treesmith.rules "
        f"(Gain(), GainRatio(), CostBenefit(), ECART(lam), ASR(), ImpurePairs(), Balanced()), "
        f"got {split_rule!r}."
    )
