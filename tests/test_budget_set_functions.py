"""Admissible set functions (treesmith.rules.set_functions): eq. 11 and eq. 14 of Nan, Wang
& Saligrama (2015), their admissibility properties, and the paper's Figure 1 example."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treesmith.rules.set_functions import (
    Powers,
    ThresholdPairs,
    powers_reference,
    resolve_set_function,
    threshold_pairs_reference,
)

SET_FUNCTIONS = [ThresholdPairs(0), ThresholdPairs(2), ThresholdPairs(8), ThresholdPairs(2.5),
                 Powers(2), Powers(3), Powers(5)]
REFERENCES = {"threshold_pairs": threshold_pairs_reference, "powers": powers_reference}

counts_strategy = st.lists(st.integers(0, 40), min_size=1, max_size=5)


def test_paper_figure1_numbers_at_alpha_0():
    """Appendix, Figure 1: F_0(G) = 30·30 = 900 for 30/30 (each unordered pair once)."""
    f = ThresholdPairs(0)
    assert f([30, 30]) == 900
    assert f([30, 10]) == 300
    assert f([0, 20]) == 0
    assert f([15, 15]) == 225


def test_eq11_keeps_the_minus_alpha_squared_term():
    """Eq. 11 as written: F_8(30/30) = 22·22 − 64 = 420, not the appendix's 484 (which leaves
    out −α²); the children of both stumps of Figure 1 are then all at F = 0."""
    f = ThresholdPairs(8)
    assert f([30, 30]) == 22 * 22 - 64
    assert f([30, 10]) == 0  # [22·2 − 64]₊
    assert f([15, 15]) == 0  # [7·7 − 64]₊
    assert f([0, 20]) == 0


def test_multiclass_sums_each_unordered_pair_once():
    assert ThresholdPairs(0)([2, 3, 5]) == 2 * 3 + 2 * 5 + 3 * 5
    assert ThresholdPairs(1)([2, 3, 5]) == (1 * 2 - 1) + (1 * 4 - 1) + (2 * 4 - 1)


def test_powers_formula():
    assert Powers(2)([2, 3]) == 25 - 4 - 9
    assert Powers(3)([1, 1, 1]) == 27 - 3


@pytest.mark.parametrize("function", SET_FUNCTIONS, ids=repr)
@settings(max_examples=60, deadline=None)
@given(counts=counts_strategy)
def test_kernel_matches_reference(function, counts):
    reference = REFERENCES[function.name](counts, function.parameter())
    assert function(counts) == pytest.approx(reference, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("function", SET_FUNCTIONS, ids=repr)
@settings(max_examples=60, deadline=None)
@given(counts=counts_strategy, k=st.integers(0, 4))
def test_pure_sets_are_zero_and_values_non_negative(function, counts, k):
    assert function(counts) >= 0
    pure = np.zeros(len(counts))
    pure[k % len(counts)] = sum(counts)
    assert function(pure) == 0


@pytest.mark.parametrize("function", SET_FUNCTIONS, ids=repr)
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_monotone_and_supermodular(function, data):
    """R ⊆ G (counts r ≤ g) and one more object j of class k:
    F(R) ≤ F(G) and F(G ∪ j) − F(G) ≥ F(R ∪ j) − F(R) (paper §2.2, admissibility)."""
    g = np.array(data.draw(counts_strategy), dtype=float)
    r = np.array([data.draw(st.integers(0, int(c))) for c in g], dtype=float)
    k = data.draw(st.integers(0, g.size - 1))
    unit = np.zeros(g.size)
    unit[k] = 1.0
    assert function(r) <= function(g) + 1e-9
    assert function(g + unit) - function(g) >= function(r + unit) - function(r) - 1e-9


@pytest.mark.parametrize("function", [ThresholdPairs(0), ThresholdPairs(3), Powers(2)], ids=repr)
def test_supermodular_exhaustively_on_small_binary_counts(function):
    for g1, g2 in itertools.product(range(7), repeat=2):
        for r1, r2 in itertools.product(range(g1 + 1), range(g2 + 1)):
            for unit in ([1, 0], [0, 1]):
                gain_g = function([g1 + unit[0], g2 + unit[1]]) - function([g1, g2])
                gain_r = function([r1 + unit[0], r2 + unit[1]]) - function([r1, r2])
                assert gain_g >= gain_r - 1e-9


def test_parameters_are_validated_with_clear_errors():
    with pytest.raises(ValueError, match="alpha"):
        ThresholdPairs(-1)
    with pytest.raises(ValueError, match="power"):
        Powers(1)
    with pytest.raises(ValueError, match="power"):
        Powers(2.5)
    with pytest.raises(ValueError, match="impurity"):
        resolve_set_function("gini")
    with pytest.raises(ValueError, match="counts"):
        ThresholdPairs(0)([1, -1])


def test_parameter_protocol():
    f = ThresholdPairs(alpha=4)
    assert f.get_params() == {"alpha": 4}
    assert f.set_params(alpha=2) == ThresholdPairs(2)
    assert hash(ThresholdPairs(2)) == hash(ThresholdPairs(2.0))
    assert resolve_set_function("powers") == Powers(2)


def test_an_overflowing_value_is_an_error_not_zero():
    """Powers(200) of 50/50: 100^200 − 2·50^200 overflows float64; the compiled kernel makes
    inf − inf = NaN and returns 0 (a pure set). Called from Python it raises instead."""
    with pytest.raises(ValueError, match="overflows float64"):
        Powers(200)([50, 50])
    with pytest.raises(ValueError, match="overflows float64"):
        ThresholdPairs(0)([1e200, 1e200])
    assert Powers(200)([1, 1]) == pytest.approx(2.0 ** 200 - 2)


def test_the_compiled_powers_kernel_does_not_report_an_overflow_as_a_pure_set():
    """An overflow (inf - inf) stays NaN in the kernel, never the 0 of a pure set (the
    estimators refuse such counts first, with check_total_weight)."""
    from treesmith._kernels.set_functions import POWERS, set_function_kernel

    assert np.isnan(set_function_kernel(POWERS, np.array([50.0, 50.0]), 200.0))
    assert set_function_kernel(POWERS, np.array([50.0, 0.0]), 3.0) == 0.0


@pytest.mark.parametrize("make, match", [
    # np.isfinite of an int beyond int64 or of a Fraction raised a TypeError
    (lambda: ThresholdPairs(alpha=10**400), r"^ThresholdPairs: alpha must be a float >= 0"),
    (lambda: ThresholdPairs(alpha=np.nan), r"^ThresholdPairs: alpha must be a float >= 0"),
    (lambda: ThresholdPairs(alpha="1"), r"^ThresholdPairs: alpha must be a float >= 0"),
    (lambda: ThresholdPairs(alpha=True), r"^ThresholdPairs: alpha must be a float >= 0"),
    # float(10**400) in bound_power / parameters() raised OverflowError
    (lambda: Powers(power=10**400), r"^Powers: power must be an int in \[2, 9007199254740992\]"),
    (lambda: Powers(power=True), r"^Powers: power must be an int in \[2, "),
    # a numpy array was compared with == and raised numpy's ambiguous-truth error
    (lambda: resolve_set_function(np.array(["powers", "powers"])), r"^impurity must be "),
])
def test_hostile_parameters_are_named(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_huge_but_float_parameters_are_accepted():
    from fractions import Fraction

    assert ThresholdPairs(alpha=10**30).parameter() == 1e30
    assert ThresholdPairs(alpha=Fraction(1, 2)).parameter() == 0.5
    assert Powers(power=np.int64(3))([1, 1]) == pytest.approx(6.0)
