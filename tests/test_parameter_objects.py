"""Criteria and split rules share one parameter-object base: equal parameters compare and
hash equal (including 2 vs 2.0 and matrix parameters), and set_params rejects unknown names."""

import re

import numpy as np
import pytest

from treesmith import rules
from treesmith.criteria import LossMatrixGini, Tsallis


@pytest.mark.parametrize(("a", "b"), [
    (Tsallis(alpha=2), Tsallis(alpha=2.0)),
    (rules.ECART(lam=1), rules.ECART(lam=1.0)),
    (LossMatrixGini(np.array([[0, 1], [2, 0]])),
     LossMatrixGini(np.array([[0.0, 1.0], [2.0, 0.0]]))),
])
def test_equal_parameters_compare_and_hash_equal(a, b):
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1


@pytest.mark.parametrize("obj", [Tsallis(alpha=2.0), rules.ECART(lam=1.0)])
def test_set_params_names_the_unknown_parameter_and_the_valid_ones(obj):
    valid = sorted(obj.get_params())
    with pytest.raises(ValueError, match=re.escape(f"no parameter 'bogus'; valid: {valid!r}")):
        obj.set_params(bogus=1.0)
