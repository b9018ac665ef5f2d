"""Every criterion family inside the estimators: the grown root split is the brute-force best.

For each family, a depth-1 tree with exact binning (``max_bins=None``) on small data without
missing values must split at a test whose gain

    W(S) h(S) - W(L) h(L) - W(R) h(R)

is the largest over every feature and every midpoint between adjacent distinct values, with h
the NumPy reference formula of tests/test_criteria.py (not the compiled function). A Custom
criterion that re-implements Gini in Python must grow exactly the Gini tree.
"""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import GridSearchCV
from test_criteria import (
    python_gini,
    ref_abi,
    ref_entropy,
    ref_entropy_nats,
    ref_gini,
    ref_half_poisson,
    ref_km96,
    ref_loss_matrix_gini,
    ref_renyi,
    ref_tsallis,
    ref_tsallis_classic,
    ref_tweedie,
    ref_weighted_mse,
)

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
)

TIE_RTOL = 1e-10


def power_gini(proportions, alpha):
    total = 0.0
    for k in range(proportions.shape[0]):
        total += proportions[k] * proportions[k]
    return (1.0 - total) ** alpha if total < 1.0 else 0.0


def _loss_matrix(n_classes):
    matrix = np.arange(1.0, n_classes * n_classes + 1).reshape(n_classes, n_classes) % 4 + 0.5
    np.fill_diagonal(matrix, 0.0)
    return matrix


# criterion factory (given the number of classes) -> reference h(proportions)
CLASSIFICATION_CASES = {
    "gini": (lambda k: Gini(), ref_gini),
    "entropy": (lambda k: Entropy(), ref_entropy),
    "misclassification": (lambda k: Misclassification(), lambda p: 1.0 - np.max(p)),
    "loss_matrix_gini": (lambda k: LossMatrixGini(_loss_matrix(k)),
                         lambda p: ref_loss_matrix_gini(p, _loss_matrix(len(p)))),
    "tsallis(2.45,2)": (lambda k: Tsallis(2.45, 2), lambda p: ref_tsallis(p, 2.45, 2)),
    "tsallis(0.3,3)": (lambda k: Tsallis(0.3, 3), lambda p: ref_tsallis(p, 0.3, 3)),
    "tsallis(1,1)": (lambda k: Tsallis(1.0, 1), ref_entropy_nats),
    "renyi(0.5)": (lambda k: Renyi(0.5), lambda p: ref_renyi(p, 0.5)),
    "tsallis_classic(3)": (lambda k: TsallisClassic(3.0), lambda p: ref_tsallis_classic(p, 3.0)),
    "pe(0.4)": (lambda k: PE(0.4), lambda p: ref_entropy(p) ** 0.4),
    "pg(0.6)": (lambda k: PG(0.6), lambda p: ref_gini(p) ** 0.6),
    "pr(0.5,0.7)": (lambda k: PR(0.5, 0.7), lambda p: ref_renyi(p, 0.7) ** 0.5),
    "pt(0.5,2.5)": (lambda k: PT(0.5, 2.5), lambda p: ref_tsallis_classic(p, 2.5) ** 0.5),
    "ge(0.5,0.8)": (lambda k: GE(0.5, 0.8), lambda p: ref_gini(p) ** 0.5 + ref_entropy(p) ** 0.8),
    "abi(0.6,0.9)": (lambda k: ABI(0.6, 0.9), lambda p: ref_abi(p, 0.6, 0.9)),
    "product": (lambda k: Product(0.5 if k == 2 else 1.0 / k),
                lambda p: np.prod(p) ** (0.5 if len(p) == 2 else 1.0 / len(p))),
    "km96": (lambda k: KM96(), ref_km96),
    "custom": (lambda k: Custom(power_gini, alpha=0.7), lambda p: ref_gini(p) ** 0.7),
}


def _poisson_reference(y, w):
    return ref_half_poisson(y, w) if np.average(y, weights=w) > 0 else 0.0


def _tweedie_reference(power):
    def h(y, w):
        if power == 0.0:
            return ref_weighted_mse(y, w)
        if np.average(y, weights=w) <= 0:
            return 0.0
        return 2 * _poisson_reference(y, w) if power == 1.0 else ref_tweedie(y, w, power)
    return h


REGRESSION_CASES = {
    "mse": (MSE(), ref_weighted_mse),
    "poisson": (Poisson(), _poisson_reference),
    "tweedie(0)": (Tweedie(0.0), _tweedie_reference(0.0)),
    "tweedie(0.5)": (Tweedie(0.5), _tweedie_reference(0.5)),
    "tweedie(1)": (Tweedie(1.0), _tweedie_reference(1.0)),
}


def make_data(seed, n_classes=None):
    """About 40 rows: integer-valued features (many ties) beside continuous ones."""
    rng = np.random.default_rng(seed)
    n = 40
    X = np.column_stack([rng.integers(0, 5, n), np.round(rng.normal(size=n), 2),
                         rng.integers(0, 3, n), rng.uniform(-1, 1, n)]).astype(float)
    signal = (X[:, 0] > 1).astype(int) + (X[:, 3] > 0.2)
    w = rng.uniform(0.2, 3.0, n) if seed % 2 else None
    if n_classes is None:
        y = rng.poisson(0.5 + 1.5 * signal).astype(float)
    else:
        y = (signal + (rng.random(n) < 0.3)) % n_classes
    return X, y, w


def brute_force_splits(X, node_impurity):
    """Every (feature, threshold) with its gain W(S)h(S) - W(L)h(L) - W(R)h(R).

    ``node_impurity(mask) -> (weight, h)`` evaluates one side directly from its rows.
    """
    whole = np.ones(X.shape[0], dtype=bool)
    weight, impurity = node_impurity(whole)
    parent = weight * impurity
    splits = []
    for feature in range(X.shape[1]):
        values = np.unique(X[:, feature])
        for low, high in zip(values[:-1], values[1:]):
            threshold = low / 2.0 + high / 2.0
            left = X[:, feature] <= threshold
            w_left, h_left = node_impurity(left)
            w_right, h_right = node_impurity(~left)
            splits.append((parent - w_left * h_left - w_right * h_right, feature, threshold))
    return splits


def assert_root_is_a_best_split(tree, splits, label):
    assert tree.children_left[0] != -1, f"{label}: the root was not split"
    best = max(gain for gain, _, _ in splits)
    tolerance = TIE_RTOL * max(1.0, abs(best))
    optimal = [(f, t) for gain, f, t in splits if gain >= best - tolerance]
    chosen = (int(tree.feature[0]), float(tree.threshold[0]))
    assert any(f == chosen[0] and t == pytest.approx(chosen[1], rel=1e-12) for f, t in optimal), (
        f"{label}: engine split {chosen}, brute-force best {optimal[:5]} (gain {best})")


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("family", sorted(CLASSIFICATION_CASES))
def test_classifier_root_split_is_the_brute_force_best(family, seed, n_classes):
    make, reference = CLASSIFICATION_CASES[family]
    X, y, w = make_data(seed, n_classes)
    weights = np.ones(len(y)) if w is None else w

    def node_impurity(mask):
        class_weights = np.bincount(y[mask], weights=weights[mask], minlength=n_classes)
        total = class_weights.sum()
        return total, (reference(class_weights / total) if total > 0 else 0.0)

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConcavityWarning)  # every case is in its proven range
        criterion = make(n_classes)
        estimator = treesmith.DecisionTreeClassifier(criterion=criterion, max_depth=1,
                                                     max_bins=None).fit(X, y, sample_weight=w)
    label = f"{family}, seed {seed}, {n_classes} classes"
    assert_root_is_a_best_split(estimator.tree_, brute_force_splits(X, node_impurity), label)
    root_total, root_impurity = node_impurity(np.ones(len(y), dtype=bool))
    assert estimator.tree_.impurity[0] == pytest.approx(root_impurity, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("family", sorted(REGRESSION_CASES))
def test_regressor_root_split_is_the_brute_force_best(family, seed):
    criterion, reference = REGRESSION_CASES[family]
    X, y, w = make_data(seed)
    weights = np.ones(len(y)) if w is None else w

    def node_impurity(mask):
        return weights[mask].sum(), reference(y[mask], weights[mask])

    estimator = treesmith.DecisionTreeRegressor(criterion=criterion, max_depth=1,
                                                max_bins=None).fit(X, y, sample_weight=w)
    assert_root_is_a_best_split(estimator.tree_, brute_force_splits(X, node_impurity),
                                f"{family}, seed {seed}")
    assert estimator.tree_.impurity[0] == pytest.approx(node_impurity(y == y)[1], rel=1e-9)


TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "missing_go_left",
               "impurity", "n_node_samples", "weighted_n_node_samples", "value")


@pytest.mark.parametrize("max_bins", [None, 255, 16])
def test_custom_gini_grows_exactly_the_gini_tree(max_bins):
    X, y = load_breast_cancer(return_X_y=True)
    X = X.copy()
    X[::7, 3] = np.nan  # missing values take the same path through the custom criterion
    trees = [treesmith.DecisionTreeClassifier(criterion=criterion, max_bins=max_bins,
                                              random_state=0).fit(X, y).tree_
             for criterion in ("gini", Custom(python_gini))]
    assert trees[0].node_count > 20
    for name in TREE_ARRAYS:
        gini_array, custom_array = getattr(trees[0], name), getattr(trees[1], name)
        assert np.array_equal(gini_array, custom_array, equal_nan=True), name


def test_fitted_estimator_with_custom_criterion_pickles():
    X, y = load_iris(return_X_y=True)
    estimator = treesmith.DecisionTreeClassifier(criterion=Custom(power_gini, alpha=0.5)).fit(X, y)
    restored = pickle.loads(pickle.dumps(estimator))
    assert restored.criterion_._compiled is None
    assert np.array_equal(restored.predict_proba(X), estimator.predict_proba(X))
    refit = restored.fit(X, y)  # the compiled function is rebuilt on demand
    assert np.array_equal(refit.predict_proba(X), estimator.predict_proba(X))


def test_grid_search_over_criterion_parameters():
    X, y = load_iris(return_X_y=True)
    search = GridSearchCV(treesmith.DecisionTreeClassifier(criterion=Tsallis(2.0, 1), max_depth=3),
                          {"criterion__alpha": [0.5, 2.0, 3.0], "criterion__beta": [1, 2]},
                          cv=3).fit(X, y)
    assert search.best_params_["criterion__alpha"] in (0.5, 2.0, 3.0)
    assert isinstance(search.best_estimator_.criterion, Tsallis)


def test_estimators_reject_labels_and_matrices_that_do_not_fit():
    X = np.arange(12, dtype=float).reshape(6, 2)
    with pytest.raises(ValueError, match="non-negative"):
        treesmith.DecisionTreeRegressor(criterion="poisson").fit(X, [1, 2, -1, 0, 3, 1])
    with pytest.raises(ValueError, match="2 x 2 but the data has 3 classes"):
        treesmith.DecisionTreeClassifier(criterion=LossMatrixGini([[0, 1], [1, 0]])).fit(
            X, [0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="regression criterion"):
        treesmith.DecisionTreeClassifier(criterion=Tweedie(0.5)).fit(X, [0, 1, 0, 1, 0, 1])
