"""Impurity criteria (treesmith/criteria): formulas, identities, limits, properties, validation.

Every compiled family is checked against a NumPy reference written here from the papers'
formulas (docs/methods.md §3; seeds 001 §2, 002 §3, §3.2, 004), on the identities the papers state, and
with hypothesis over its documented parameter range: symmetric in the classes, zero at the
vertices of the simplex, non-negative, and concave along random segments where that is proven.
"""

import copy
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from sklearn.base import clone
from sklearn.metrics import mean_poisson_deviance, mean_tweedie_deviance

import treesmith
from treesmith.criteria import (
    ABI,
    GE,
    KM96,
    MSE,
    PE,
    PG,
    PR,
    PT,
    ConcavityWarning,
    Custom,
    Entropy,
    Gini,
    LossMatrixGini,
    Misclassification,
    Poisson,
    Product,
    Renyi,
    Tsallis,
    TsallisClassic,
    Tweedie,
    available,
    describe_available,
    registered,
    resolve_criterion,
)

PROPERTY_SETTINGS = settings(max_examples=40, deadline=None)


# -- NumPy references, written from the papers' formulas ---------------------------------------
def _plogp(p, log):
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * log(np.where(p > 0, p, 1.0)), 0.0)


def ref_gini(p):
    return 1.0 - np.sum(np.square(p))


def ref_entropy(p):  # bits
    return -np.sum(_plogp(p, np.log2))


def ref_entropy_nats(p):
    return -np.sum(_plogp(p, np.log))


def ref_tsallis(p, alpha, beta):
    return (1.0 - np.sum(np.asarray(p) ** alpha) ** beta) / (alpha - 1.0)


def ref_renyi(p, gamma):  # bits
    return np.log2(np.sum(np.asarray(p) ** gamma)) / (1.0 - gamma)


def ref_tsallis_classic(p, gamma):
    return (1.0 - np.sum(np.asarray(p) ** gamma)) / (gamma - 1.0)


def ref_abi(p, alpha, beta):
    p = np.asarray(p, dtype=float)
    return np.sum(p ** alpha * (1.0 - p) ** beta)


def ref_loss_matrix_gini(p, matrix):
    p = np.asarray(p, dtype=float)
    off = matrix * (1.0 - np.eye(len(p)))
    return float(p @ off @ p)


def ref_km96(p):
    p = np.asarray(p, dtype=float)
    roots = np.sqrt(np.outer(p, p))
    return 2.0 * (roots.sum() - np.trace(roots))  # 2 sum_{i != j} sqrt(pi_i pi_j)


# -- the families, their documented and proven-concave ranges ----------------------------------
def _unit():
    return st.floats(0.05, 1.0)


FAMILIES = {
    # name: (strategy of criterion objects over the documented range, concave there?)
    "gini": (st.just(Gini()), lambda c, k: True),
    "entropy": (st.just(Entropy()), lambda c, k: True),
    "misclassification": (st.just(Misclassification()), lambda c, k: True),
    "km96": (st.just(KM96()), lambda c, k: True),
    "tsallis": (st.builds(Tsallis, alpha=st.floats(0.05, 5.0), beta=st.integers(1, 4)),
                lambda c, k: not (1.0 / c.beta < c.alpha < 1.0)),
    "renyi": (st.builds(Renyi, gamma=st.floats(0.05, 5.0)), lambda c, k: c.gamma <= 1.0),
    "tsallis_classic": (st.builds(TsallisClassic, gamma=st.floats(0.05, 5.0)),
                        lambda c, k: True),
    "pe": (st.builds(PE, alpha=_unit()), lambda c, k: True),
    "pg": (st.builds(PG, alpha=_unit()), lambda c, k: True),
    "pr": (st.builds(PR, alpha=_unit(), gamma=st.floats(0.05, 5.0)),
           lambda c, k: c.gamma <= 1.0),
    "pt": (st.builds(PT, alpha=_unit(), gamma=st.floats(0.05, 5.0)), lambda c, k: True),
    "ge": (st.builds(GE, alpha=_unit(), beta=_unit()), lambda c, k: True),
    "abi": (st.builds(ABI, alpha=_unit(), beta=_unit()), lambda c, k: True),
    "product": (st.builds(Product, gamma=_unit()),
                lambda c, k: k == 2 or c.gamma <= 1.0 / k),
    "loss_matrix_gini": (st.just(LossMatrixGini()), lambda c, k: True),
}


def _random_simplex_points(seed, n_classes, n_points):
    """Dirichlet points with some classes forced to 0 (faces of the simplex are edge cases)."""
    rng = np.random.default_rng(seed)
    points = rng.dirichlet(np.full(n_classes, 0.7), size=n_points)
    drop = rng.random(points.shape) < 0.15
    points[drop] = 0.0
    empty = points.sum(axis=1) == 0
    points[empty, 0] = 1.0
    return points / points.sum(axis=1, keepdims=True)


def _h(criterion, p):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConcavityWarning)
        return criterion(np.ascontiguousarray(p, dtype=float))


@pytest.mark.parametrize("family", sorted(FAMILIES))
@PROPERTY_SETTINGS
@given(data=st.data(), n_classes=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_family_is_an_impurity(family, data, n_classes, seed):
    """Symmetric, zero at the vertices, non-negative and finite, concave where proven."""
    strategy, concave = FAMILIES[family]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConcavityWarning)
        criterion = data.draw(strategy)
    rng = np.random.default_rng(seed)
    points = _random_simplex_points(seed, n_classes, 6)
    for vertex in np.eye(n_classes):
        assert _h(criterion, vertex) == pytest.approx(0.0, abs=1e-12)
    for p in points:
        value = _h(criterion, p)
        assert np.isfinite(value) and value >= 0.0
        permuted = p[rng.permutation(n_classes)]
        assert _h(criterion, permuted) == pytest.approx(value, rel=1e-10, abs=1e-12)
    if concave(criterion, n_classes):
        for p, q in zip(points[:3], points[3:]):
            for a in rng.random(3):
                middle = a * p + (1 - a) * q
                chord = a * _h(criterion, p) + (1 - a) * _h(criterion, q)
                assert _h(criterion, middle) >= chord - 1e-9 * max(1.0, abs(chord))


@PROPERTY_SETTINGS
@given(n_classes=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_loss_matrix_gini_matches_reference_and_permutes_with_its_matrix(n_classes, seed):
    rng = np.random.default_rng(seed)
    matrix = rng.uniform(0.0, 3.0, (n_classes, n_classes))
    np.fill_diagonal(matrix, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConcavityWarning)
        criterion = LossMatrixGini(matrix)
        order = rng.permutation(n_classes)
        permuted = LossMatrixGini(matrix[np.ix_(order, order)])
    for p in _random_simplex_points(seed, n_classes, 5):
        assert criterion(p) == pytest.approx(ref_loss_matrix_gini(p, matrix), rel=1e-12)
        assert permuted(p[order]) == pytest.approx(criterion(p), rel=1e-12)


@PROPERTY_SETTINGS
@given(n_classes=st.integers(3, 5), seed=st.integers(0, 2**32 - 1))
def test_loss_matrix_gini_concavity_warning_is_exact(n_classes, seed):
    """Warned <=> some direction in the simplex has positive curvature (a chord above h)."""
    rng = np.random.default_rng(seed)
    matrix = rng.uniform(0.0, 1.0, (n_classes, n_classes)) ** 3 * 5
    np.fill_diagonal(matrix, 0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        criterion = LossMatrixGini(matrix)
    warned = any(issubclass(w.category, ConcavityWarning) for w in caught)
    symmetric = (matrix + matrix.T) / 2
    basis = np.linalg.svd(np.ones((1, n_classes)))[2][1:]  # orthonormal basis of sum v = 0
    curvatures, directions = np.linalg.eigh(basis @ symmetric @ basis.T)
    assert warned == (curvatures.max() > 1e-9)
    if warned:
        v = basis.T @ directions[:, -1]
        centre = np.full(n_classes, 1.0 / n_classes)
        step = 0.5 / n_classes / np.abs(v).max()
        chord = (criterion(centre + step * v) + criterion(centre - step * v)) / 2
        assert criterion(centre) < chord


# -- values against the references -------------------------------------------------------------
PARAMETRISED_REFERENCES = [
    (Tsallis(3.0, 2), lambda p: ref_tsallis(p, 3.0, 2)),
    (Tsallis(0.3, 3), lambda p: ref_tsallis(p, 0.3, 3)),
    (Tsallis(1.5, 1), lambda p: ref_tsallis(p, 1.5, 1)),
    (Renyi(0.5), lambda p: ref_renyi(p, 0.5)),
    (Renyi(0.9995), lambda p: ref_renyi(p, 0.9995)),
    (TsallisClassic(0.2), lambda p: ref_tsallis_classic(p, 0.2)),
    (TsallisClassic(3.5), lambda p: ref_tsallis_classic(p, 3.5)),
    (PE(0.3), lambda p: ref_entropy(p) ** 0.3),
    (PG(0.6), lambda p: ref_gini(p) ** 0.6),
    (PR(0.4, 0.5), lambda p: ref_renyi(p, 0.5) ** 0.4),
    (PT(0.7, 3.0), lambda p: ref_tsallis_classic(p, 3.0) ** 0.7),
    (GE(0.5, 0.25), lambda p: ref_gini(p) ** 0.5 + ref_entropy(p) ** 0.25),
    (ABI(0.3, 0.8), lambda p: ref_abi(p, 0.3, 0.8)),
    (Product(0.25), lambda p: np.prod(p) ** 0.25),
    (KM96(), ref_km96),
    (Gini(), ref_gini),
    (Entropy(), ref_entropy),
    (Misclassification(), lambda p: 1.0 - np.max(p)),
]


@pytest.mark.parametrize("criterion, reference", PARAMETRISED_REFERENCES,
                         ids=[repr(c) for c, _ in PARAMETRISED_REFERENCES])
def test_values_match_the_papers_formulas(criterion, reference):
    for seed in range(5):
        for p in np.random.default_rng(seed).dirichlet(np.ones(4), size=4):
            assert criterion(p) == pytest.approx(reference(p), rel=1e-9, abs=1e-13)


# -- the identities of the papers (002 Prop. 3.1, 001 §2, 002 §3.2) ---------------------------
SIMPLEX_POINTS = [np.asarray(p, dtype=float) for k in (2, 3, 5)
                  for p in np.random.default_rng(k).dirichlet(np.ones(k), size=5)]


@pytest.mark.parametrize("p", SIMPLEX_POINTS)
def test_identities(p):
    gini, entropy = ref_gini(p), ref_entropy(p)
    assert Tsallis(2, 1)(p) == pytest.approx(gini, rel=1e-12)
    assert Tsallis(1, 1)(p) == pytest.approx(np.log(2) * entropy, rel=1e-12)
    assert Tsallis(1, 3)(p) == pytest.approx(3 * np.log(2) * entropy, rel=1e-12)
    assert Tsallis(0.5, 2)(p) == pytest.approx(KM96()(p), rel=1e-12)
    assert KM96()(p) == pytest.approx(ref_km96(p), rel=1e-12)
    assert PE(1)(p) == pytest.approx(entropy, rel=1e-12)
    assert PG(1)(p) == pytest.approx(gini, rel=1e-12)
    assert ABI(1, 1)(p) == pytest.approx(gini, rel=1e-12)
    assert GE(1, 1)(p) == pytest.approx(gini + entropy, rel=1e-12)
    assert Renyi(1)(p) == pytest.approx(entropy, rel=1e-12)
    assert TsallisClassic(2)(p) == pytest.approx(gini, rel=1e-12)
    assert TsallisClassic(1)(p) == pytest.approx(ref_entropy_nats(p), rel=1e-12)
    assert PT(1, 1.7)(p) == pytest.approx(TsallisClassic(1.7)(p), rel=1e-12)
    assert PR(1, 0.4)(p) == pytest.approx(Renyi(0.4)(p), rel=1e-12)
    assert LossMatrixGini(np.ones((p.size, p.size)) - np.eye(p.size))(p) == pytest.approx(gini)


def test_binary_special_cases():
    for pi in (0.1, 0.25, 0.5, 0.9):
        p = np.array([pi, 1 - pi])
        assert KM96()(p) == pytest.approx(4 * np.sqrt(pi * (1 - pi)), rel=1e-12)
        assert Product(0.5)(p) == pytest.approx(np.sqrt(pi * (1 - pi)), rel=1e-12)
        assert Product(1.0)(p) == pytest.approx(ref_gini(p) / 2, rel=1e-12)


@pytest.mark.parametrize("make, limit", [
    (lambda a: Tsallis(a, 1), lambda p: ref_entropy_nats(p)),
    (lambda a: Tsallis(a, 2), lambda p: 2 * ref_entropy_nats(p)),
    (lambda a: Renyi(a), ref_entropy),
    (lambda a: TsallisClassic(a), ref_entropy_nats),
    (lambda a: PR(0.5, a), lambda p: ref_entropy(p) ** 0.5),
    (lambda a: PT(0.5, a), lambda p: ref_entropy_nats(p) ** 0.5),
])
def test_limits_at_one_are_continuous_and_accurate(make, limit):
    """Within 1e-9 of 1 the analytic limit; just outside, the value agrees with it to ~|a - 1|
    (no cancellation: the naive (1 - sum pi^a)/(a - 1) is off by ~1e-7 at a = 1 +- 2e-9)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConcavityWarning)
        for p in SIMPLEX_POINTS + [np.array([0.7, 0.0, 0.3]), np.array([1.0 - 1e-12, 1e-12])]:
            target = limit(p)
            for offset in (0.0, 5e-10, -5e-10, 2e-9, -2e-9, 1e-7, -1e-7):
                value = make(1.0 + offset)(p)
                assert np.isfinite(value)
                assert value == pytest.approx(target, rel=20 * abs(offset) + 1e-12, abs=1e-15)


@pytest.mark.parametrize("criterion", [c for c, _ in PARAMETRISED_REFERENCES]
                         + [Tsallis(1 + 1e-10, 2), Renyi(1 - 1e-10), Product(0.01),
                            PE(0.05), ABI(0.05, 0.05)], ids=repr)
def test_finite_on_faces_and_near_vertices(criterion):
    for p in ([1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1 - 1e-15, 1e-15, 0.0],
              [1e-300, 1.0, 0.0], np.full(200, 1 / 200)):
        value = _h(criterion, p)
        assert np.isfinite(value) and value >= 0.0


def test_product_does_not_underflow_with_many_classes():
    p = np.full(400, 1 / 400)
    with pytest.warns(ConcavityWarning, match="K=400"):
        value = Product(0.01)(p)
    assert value == pytest.approx(np.exp(0.01 * 400 * np.log(1 / 400)), rel=1e-12)


# -- parameter validation and concavity warnings ----------------------------------------------
@pytest.mark.parametrize("make, parameter", [
    (lambda: Tsallis(alpha=0.0), "alpha"),
    (lambda: Tsallis(alpha=-1.0), "alpha"),
    (lambda: Tsallis(alpha=float("nan")), "alpha"),
    (lambda: Tsallis(alpha="2"), "alpha"),
    (lambda: Tsallis(beta=1.5), "beta"),
    (lambda: Tsallis(beta=0), "beta"),
    (lambda: Renyi(gamma=0), "gamma"),
    (lambda: TsallisClassic(gamma=-0.5), "gamma"),
    (lambda: PE(alpha=0), "alpha"),
    (lambda: PG(alpha=float("inf")), "alpha"),
    (lambda: PR(alpha=0.5, gamma=0), "gamma"),
    (lambda: PT(alpha=-0.5), "alpha"),
    (lambda: GE(beta=0), "beta"),
    (lambda: ABI(alpha=True), "alpha"),
    (lambda: Product(gamma=0), "gamma"),
    (lambda: LossMatrixGini([[0, 1, 1], [1, 0, 1]]), "square"),
    (lambda: LossMatrixGini([[0, -1], [1, 0]]), "non-negative"),
    (lambda: LossMatrixGini([[1, 1], [1, 0]]), "diagonal"),
    (lambda: LossMatrixGini([[0, np.nan], [1, 0]]), "finite"),
    (lambda: LossMatrixGini("abc"), "matrix"),
    (lambda: Tweedie(power=1.5), "power"),
    (lambda: Tweedie(power=-0.1), "power"),
    # float(10**400) raised OverflowError ('int too large to convert to float')
    (lambda: Tsallis(alpha=10**400), "alpha must be a real number"),
    (lambda: Tweedie(power=-10**400), "power must be a real number"),
])
def test_bad_parameters_are_refused_naming_the_parameter(make, parameter):
    with pytest.raises(ValueError, match=parameter):
        make()


def test_set_params_validates_again():
    criterion = Tsallis(2.0, 1)
    with pytest.raises(ValueError, match="alpha"):
        criterion.set_params(alpha=-3)
    with pytest.raises(ValueError, match="no parameter"):
        Tsallis().set_params(gamma=1)
    assert Tsallis().set_params(alpha=3.0, beta=2) == Tsallis(3.0, 2)


def test_loss_matrix_must_match_the_classes():
    criterion = LossMatrixGini(np.ones((3, 3)) - np.eye(3))
    criterion.validate(3)
    with pytest.raises(ValueError, match="3 x 3 but the data has 2 classes"):
        criterion.validate(2)


@pytest.mark.parametrize("make, n_classes, warns", [
    (lambda: Tsallis(0.7, 2), None, True),
    (lambda: Tsallis(0.5, 2), None, False),
    (lambda: Tsallis(0.2, 4), None, False),
    (lambda: Tsallis(0.4, 3), None, True),
    (lambda: Tsallis(1.0, 3), None, False),
    (lambda: Tsallis(1.0 - 1e-10, 3), None, False),
    (lambda: Tsallis(4.0, 3), None, False),
    (lambda: Renyi(2.0), None, True),
    (lambda: Renyi(0.8), None, False),
    (lambda: PR(0.5, 3.0), None, True),
    (lambda: PE(1.5), None, True),
    (lambda: PG(2.0), None, True),
    (lambda: GE(1.0, 1.2), None, True),
    (lambda: ABI(1.1, 0.5), None, True),
    (lambda: PT(0.5, 5.0), None, False),
    (lambda: Product(1.0), 2, False),
    (lambda: Product(1.0), 3, True),
    (lambda: Product(0.3), 3, False),
    (lambda: Product(1.5), None, True),
])
def test_concavity_warning_outside_the_proven_range(make, n_classes, warns):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        criterion = make()
        criterion.validate(n_classes)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConcavityWarning)]
    assert bool(messages) == warns
    if warns:
        assert "concave" in messages[0] and "gains may be negative" in messages[0]


@pytest.mark.parametrize("criterion, strict", [
    (Gini(), True), (Entropy(), True), (Misclassification(), False), (KM96(), True),
    (Tsallis(2.45, 2), True), (Tsallis(0.3, 3), True), (Renyi(0.5), True), (PE(0.2), True),
    (PR(0.5, 0.5), True), (PT(0.5, 3.0), True), (GE(0.3, 1.0), True), (ABI(0.5, 0.5), True),
    (TsallisClassic(4.0), True), (Product(0.5), False), (LossMatrixGini(), True),
    (LossMatrixGini([[0, 1, 1], [1, 0, 1], [1, 1, 0]]), True),
], ids=repr)
def test_strict_concavity_is_declared_for_the_engine(criterion, strict):
    """The engine skips cuts inside same-class runs only for strictly concave criteria."""
    assert criterion.strictly_concave() is strict


def test_strict_concavity_is_not_claimed_outside_the_proven_range():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConcavityWarning)
        for criterion in (Tsallis(0.7, 2), Renyi(2.0), PE(1.5), PR(0.5, 2.0), ABI(1.2, 1.0),
                          LossMatrixGini([[0, 1, 1], [1, 0, 100], [1, 100, 0]])):
            assert criterion.strictly_concave() is False, criterion
    # classes 1 and 2 interchangeable at no cost: h = 2 pi_0 (1 - pi_0), flat along pi_1 - pi_2
    flat = LossMatrixGini([[0, 1, 1], [1, 0, 0], [1, 0, 0]])
    assert flat.concavity_caveat() is None and flat.strictly_concave() is False


def test_tsallis_warning_names_the_interval():
    with pytest.warns(ConcavityWarning, match=r"\(1/beta, 1\) = \(0\.5, 1\).*Prop\. 3\.2"):
        Tsallis(0.75, 2)


# -- registry, names and the scikit-learn parameter protocol ---------------------------------
def test_every_family_is_listed_with_formula_and_ranges(capsys):
    rows = available()
    assert capsys.readouterr().out == ""  # available() returns; it does not print
    printed = describe_available()
    names = {row["name"] for row in rows}
    expected = {"Gini", "Entropy", "Misclassification", "LossMatrixGini", "Tsallis", "Renyi",
                "TsallisClassic", "PE", "PG", "PR", "PT", "GE", "ABI", "Product", "KM96",
                "Custom", "MSE", "Poisson", "Tweedie"}
    assert expected <= names
    for row in rows:
        assert row["formula"] and row["name"] in printed and row["formula"] in printed
    regression = {r["name"] for r in available("regression")}
    assert regression >= {"Poisson", "Tweedie"} and "Gini" not in regression
    assert "Tweedie" in describe_available("regression") and "Gini" not in describe_available(
        "regression")
    with pytest.raises(ValueError, match="task must be"):
        available("clustering")


@pytest.mark.parametrize("name, cls", [("gini", Gini), ("entropy", Entropy), ("km96", KM96),
                                       ("misclassification", Misclassification),
                                       ("tsallis", Tsallis), ("loss_matrix_gini", LossMatrixGini)])
def test_string_names_resolve(name, cls):
    assert type(resolve_criterion(name, "classification")) is cls


def test_regression_names_resolve_and_tasks_are_checked():
    assert type(resolve_criterion("poisson", "regression")) is Poisson
    assert type(resolve_criterion("tweedie", "regression")) is Tweedie
    with pytest.raises(ValueError, match="regression criterion"):
        resolve_criterion(Poisson(), "classification")
    with pytest.raises(ValueError, match="Custom"):
        resolve_criterion("custom", "classification")
    assert "custom" not in registered()


def test_public_api_names():
    for name in ("Gini", "Entropy", "Misclassification", "LossMatrixGini", "Tsallis", "Renyi",
                 "TsallisClassic", "PE", "PG", "PR", "PT", "GE", "ABI", "Product", "KM96",
                 "Custom", "Poisson", "Tweedie", "ConcavityWarning"):
        assert hasattr(treesmith.criteria, name), name


@pytest.mark.parametrize("criterion", [Tsallis(2.45, 2), LossMatrixGini([[0, 2], [1, 0]]),
                                       Tweedie(0.3), PR(0.5, 0.5), KM96()], ids=repr)
def test_clone_copy_pickle_keep_the_criterion(criterion):
    for copied in (clone(criterion, safe=False), copy.deepcopy(criterion),
                   pickle.loads(pickle.dumps(criterion))):
        assert copied == criterion and copied is not criterion
        assert np.array_equal(copied.parameters(), criterion.parameters())


def test_nested_parameters_reach_the_criterion():
    estimator = treesmith.DecisionTreeClassifier(criterion=Tsallis(2.0, 1))
    assert estimator.get_params()["criterion__alpha"] == 2.0
    cloned = clone(estimator).set_params(criterion__alpha=3.0)
    assert cloned.criterion == Tsallis(3.0, 1) and estimator.criterion == Tsallis(2.0, 1)


# -- regression criteria from additive statistics ---------------------------------------------
def _node_impurity(criterion, y, w):
    """The criterion's value on the summed statistics of the node (what the engine computes)."""
    stats = criterion.sample_statistics(y, w).sum(axis=0)
    return float(criterion.impurity_function()(stats, criterion.parameters()))


def ref_weighted_mse(y, w):
    mean = np.average(y, weights=w)
    return np.average((y - mean) ** 2, weights=w)


def ref_half_poisson(y, w):
    mean = np.average(y, weights=w)
    return np.average(_plogp(y, np.log) - y * np.log(mean) - y + mean, weights=w)


def ref_tweedie(y, w, p):
    """Seed 002 §3.2 with its middle term y mu^(1-p)/(1-p) (the paper prints y mu)."""
    mu = np.average(y, weights=w)
    terms = (np.maximum(y, 0) ** (2 - p) / ((1 - p) * (2 - p)) - y * mu ** (1 - p) / (1 - p)
             + mu ** (2 - p) / (2 - p))
    return 2 * np.average(terms, weights=w)


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), power=st.floats(0.01, 0.99))
def test_regression_criteria_are_exact_from_summed_statistics(seed, n, power):
    rng = np.random.default_rng(seed)
    y = rng.poisson(rng.uniform(0.2, 6.0), n).astype(float)
    y[0] = max(y[0], 1.0)
    w = rng.uniform(0.1, 3.0, n)
    subset = rng.random(n) < 0.6
    subset[0] = True
    for mask in (np.ones(n, bool), subset):
        yy, ww = y[mask], w[mask]
        assert _node_impurity(MSE(), yy, ww) == pytest.approx(ref_weighted_mse(yy, ww),
                                                              rel=1e-9, abs=1e-10)
        assert _node_impurity(Poisson(), yy, ww) == pytest.approx(ref_half_poisson(yy, ww),
                                                                  rel=1e-9, abs=1e-10)
        assert _node_impurity(Tweedie(power), yy, ww) == pytest.approx(
            ref_tweedie(yy, ww, power), rel=1e-7, abs=1e-9)


def test_tweedie_identities_and_scikit_learn():
    rng = np.random.default_rng(3)
    y = rng.poisson(2.0, 50).astype(float)
    w = rng.uniform(0.5, 2.0, 50)
    mean = np.full_like(y, np.average(y, weights=w))
    mse, half_poisson = _node_impurity(MSE(), y, w), _node_impurity(Poisson(), y, w)
    # p = 0 is mse; p -> 1 is twice the half Poisson deviance (the paper's factor 2).
    assert _node_impurity(Tweedie(0.0), y, w) == pytest.approx(mse, rel=1e-12)
    assert _node_impurity(Tweedie(1.0), y, w) == pytest.approx(2 * half_poisson, rel=1e-12)
    for gap in (1e-3, 1e-6, 1e-10, 1e-13):
        assert _node_impurity(Tweedie(1.0 - gap), y, w) == pytest.approx(
            2 * half_poisson, rel=10 * gap + 1e-12)
    assert _node_impurity(Tweedie(1e-12), y, w) == pytest.approx(mse, rel=1e-9)
    assert half_poisson == pytest.approx(mean_poisson_deviance(y, mean, sample_weight=w) / 2)
    assert _node_impurity(Tweedie(0.0), y, w) == pytest.approx(
        mean_tweedie_deviance(y, mean, sample_weight=w, power=0))
    assert _node_impurity(Tweedie(1.0), y, w) == pytest.approx(
        mean_tweedie_deviance(y, mean, sample_weight=w, power=1))


def test_mse_and_tweedie_zero_accept_negative_labels():
    y = np.array([-3.0, -1.0, 2.0, 5.5])
    w = np.array([1.0, 2.0, 0.5, 1.0])
    Tweedie(0.0).validate_targets(y)
    MSE().validate_targets(y)
    assert _node_impurity(Tweedie(0.0), y, w) == pytest.approx(ref_weighted_mse(y, w))


def test_count_criteria_check_labels():
    with pytest.raises(ValueError, match="non-negative.*poisson"):
        Poisson().validate_targets(np.array([1.0, -2.0, 3.0]))
    with pytest.raises(ValueError, match="positive sum"):
        Poisson().validate_targets(np.zeros(4))
    with pytest.raises(ValueError, match="non-negative.*tweedie"):
        Tweedie(0.5).validate_targets(np.array([1.0, -0.5]))
    Poisson().validate_targets(np.array([0.0, 0.0, 2.0]))


@pytest.mark.parametrize("criterion", [Poisson(), Tweedie(0.5), Tweedie(1.0)], ids=repr)
def test_zero_mean_node_is_infinite_not_nan(criterion):
    """A zero-mean node would predict 0 (infinite deviance on positive labels), so its impurity
    is +inf and a split producing it is never chosen, as scikit-learn rejects it."""
    y, w = np.zeros(5), np.ones(5)
    assert _node_impurity(criterion, y, w) == np.inf
    assert 0.0 < _node_impurity(criterion, np.array([0.0, 0.0, 4.0]), np.ones(3)) < np.inf


@pytest.mark.parametrize("criterion", [Poisson(), Tweedie(0.5), Tweedie(1.0)], ids=repr)
def test_no_leaf_predicts_zero_for_log_link_criteria(criterion):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = np.where(X[:, 0] > 0.3, 0.0, rng.poisson(3.0, 400)).astype(float)
    tree = treesmith.DecisionTreeRegressor(criterion=criterion).fit(X, y)
    leaves = tree.tree_.children_left == -1
    assert tree.get_n_leaves() > 5
    assert np.all(tree.tree_.value[leaves, 0] > 0.0)
    assert np.all(np.isfinite(tree.tree_.impurity))


# -- user-defined criteria --------------------------------------------------------------------
def python_gini(proportions):
    total = 0.0
    for k in range(proportions.shape[0]):
        total += proportions[k] * proportions[k]
    return 1.0 - total


def scaled_power_entropy(proportions, alpha, scale=1.0):
    total = 0.0
    for p in proportions:
        if p > 0:
            total -= p * np.log2(p)
    return scale * total ** alpha


@njit
def jitted_gini(proportions):
    return 1.0 - np.sum(proportions * proportions)


def test_custom_gini_equals_gini_everywhere():
    criterion = Custom(python_gini)
    for p in SIMPLEX_POINTS:
        assert criterion(p) == pytest.approx(Gini()(p), rel=1e-14, abs=1e-15)
    assert Custom(jitted_gini)(SIMPLEX_POINTS[3]) == pytest.approx(Gini()(SIMPLEX_POINTS[3]))


def test_custom_parameters_follow_the_function_signature():
    criterion = Custom(scaled_power_entropy, scale=2.0, alpha=0.5)
    p = SIMPLEX_POINTS[4]
    assert criterion(p) == pytest.approx(2.0 * ref_entropy(p) ** 0.5, rel=1e-12)
    assert list(criterion.parameters()) == [0.5, 2.0]
    defaulted = Custom(scaled_power_entropy, alpha=0.5)  # scale keeps its default
    assert defaulted(p) == pytest.approx(ref_entropy(p) ** 0.5, rel=1e-12)
    assert criterion.get_params() == {"func": scaled_power_entropy, "scale": 2.0, "alpha": 0.5}


class _PlainPythonObject:
    value = 0.0


def _not_compilable(proportions):
    return _PlainPythonObject().value * proportions[0]


def _nan_somewhere(proportions):
    return np.log(proportions[0]) * 0.0 + 1.0 - np.sum(proportions ** 2)


def _negative(proportions):
    return np.sum(proportions ** 2) - 1.0


def _not_zero_when_pure(proportions):
    return 2.0 - np.sum(proportions ** 2)


def _infinite_at_uniform(proportions):
    return 1.0 / (np.max(proportions) - np.min(proportions)) * (1.0 - np.max(proportions))


@pytest.mark.parametrize("func, message", [
    (_not_compilable, "does not compile"),
    (_nan_somewhere, "non-finite"),
    (_infinite_at_uniform, "non-finite"),
    (_negative, "negative"),
    (_not_zero_when_pure, "not zero on a pure node"),
    ("gini", "callable"),
])
def test_custom_refuses_bad_functions_saying_why(func, message):
    with pytest.raises(ValueError, match=message):
        Custom(func)


def test_custom_refuses_bad_parameters():
    with pytest.raises(ValueError, match="no parameter"):
        Custom(python_gini, alpha=1.0)
    with pytest.raises(ValueError, match="no value given.*alpha"):
        Custom(scaled_power_entropy)
    with pytest.raises(ValueError, match="alpha must be a real number"):
        Custom(scaled_power_entropy, alpha="big")


def test_custom_survives_copy_pickle_and_clone_without_compiled_state():
    criterion = Custom(scaled_power_entropy, alpha=0.5)
    criterion.impurity_function()
    assert criterion._compiled is not None and criterion.__getstate__()["_compiled"] is None
    p = SIMPLEX_POINTS[2]
    for copied in (copy.deepcopy(criterion), pickle.loads(pickle.dumps(criterion)),
                   clone(criterion, safe=False)):
        assert copied == criterion
        assert copied(p) == pytest.approx(criterion(p))
    assert copy.deepcopy(criterion).__dict__["_compiled"] is None
    assert criterion.impurity_function() is Custom(scaled_power_entropy, alpha=0.7) \
        .impurity_function()  # one compiled wrapper per function and parameter count


@pytest.mark.parametrize("task", ["Classification", None, 0, np.array(["regression"] * 2)],
                         ids=str)
def test_resolve_criterion_names_a_bad_task(task):
    """A task other than the two read as a mismatch ("criterion Gini() is a classification
    criterion and cannot be used for Classification"); an array raised numpy's ambiguous
    truth."""
    from treesmith.criteria import available, resolve_criterion

    with pytest.raises(ValueError, match=r"^task must be 'classification' or 'regression'"):
        resolve_criterion("gini", task)
    if task is not None:
        with pytest.raises(ValueError, match=r"^task must be None, 'classification' or"):
            available(task)
