"""TreeGrower: growing the top of a tree and its subtrees apart gives the one-pass tree."""

import numba
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

import treesmith
from treesmith import grower

FIELDS = ("children_left", "children_right", "feature", "threshold", "missing_go_left",
          "impurity", "n_node_samples", "weighted_n_node_samples", "value", "depth")


def _data(task):
    if task == "regression":
        X, y = make_regression(n_samples=12_000, n_features=50, n_informative=10, noise=5.0,
                               random_state=0)
    else:
        X, y = make_classification(n_samples=12_000, n_features=50, n_informative=10,
                                   n_classes=3, random_state=0)
    X[::11, 5] = np.nan
    return X, y


def _fit(Estimator, X, y, one_pass, monkeypatch, **params):
    spawned = []
    run_tasks = grower.run_tasks

    def counting_run_tasks(function, items, n_threads):
        items = list(items)
        spawned.append(len(items))
        return run_tasks(function, items, n_threads)

    monkeypatch.setattr(grower, "run_tasks", counting_run_tasks)
    monkeypatch.setattr(grower, "SUBTREE_MIN_WORK", 1 << 62 if one_pass else
                        grower.SUBTREE_MIN_WORK)
    tree = Estimator(random_state=0, **params).fit(X, y).tree_
    return tree, sum(spawned)


CASES = [
    ("classification", {}),
    ("classification", {"class_weight": "balanced", "criterion": "entropy"}),
    ("classification", {"split_rule": "cost_benefit", "cost_model": "per_feature",
                        "feature_costs": [1.0] * 5 + list(np.arange(2.0, 47.0)),
                        "cost_groups": [[0, 1, 2], [3, 4]]}),
    ("classification", {"max_depth": 9, "min_samples_leaf": 2}),
    ("regression", {}),
]


@pytest.mark.parametrize("task,params", CASES)
def test_subtrees_grown_apart_give_the_one_pass_tree(task, params, monkeypatch):
    X, y = _data(task)
    Estimator = (treesmith.DecisionTreeRegressor if task == "regression"
                 else treesmith.DecisionTreeClassifier)
    apart, n_subtrees = _fit(Estimator, X, y, False, monkeypatch, **params)
    whole, n_none = _fit(Estimator, X, y, True, monkeypatch, **params)
    assert n_subtrees > 4 and n_none == 0
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(apart, name), getattr(whole, name), err_msg=name)


def test_subtrees_do_not_depend_on_the_thread_count(monkeypatch):
    X, y = _data("classification")
    trees = []
    for n_threads in (1, numba.config.NUMBA_NUM_THREADS):
        previous = numba.get_num_threads()
        numba.set_num_threads(n_threads)
        try:
            trees.append(_fit(treesmith.DecisionTreeClassifier, X, y, False, monkeypatch)[0])
        finally:
            numba.set_num_threads(previous)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))


@pytest.mark.parametrize("params", [{"max_features": "sqrt"}, {"max_leaf_nodes": 300},
                                    {"significance": 0.05, "n_permutations": 20}])
def test_order_dependent_growth_is_not_split(params, monkeypatch):
    X, y = _data("classification")
    _, n_subtrees = _fit(treesmith.DecisionTreeClassifier, X, y, False, monkeypatch, **params)
    assert n_subtrees == 0


def test_splice_renumbers_in_preorder():
    # top: 0 -> (1, 2), node 2 deferred; subtree of node 2: 0 -> (1, 2)
    leaf = grower.TREE_LEAF
    top = (np.array([1, leaf, leaf]), np.array([2, leaf, leaf]), np.array([7, -2, -2]),
           np.array([10.0, 11.0, 12.0]))
    subtree = (np.array([1, leaf, leaf]), np.array([2, leaf, leaf]), np.array([8, -2, -2]),
               np.array([20.0, 21.0, 22.0]))
    left, right, feature, value = grower._splice(top, np.array([2]), [subtree])
    np.testing.assert_array_equal(left, [1, leaf, 3, leaf, leaf])
    np.testing.assert_array_equal(right, [2, leaf, 4, leaf, leaf])
    np.testing.assert_array_equal(feature, [7, -2, 8, -2, -2])
    np.testing.assert_array_equal(value, [10.0, 11.0, 20.0, 21.0, 22.0])


@pytest.mark.parametrize("small_node_size,n_features,n_threads",
                         [(256, 4, 2), (256, 257, 2), (256, 258, 2), (256, 258, 1),
                          (300, 219, 4), (300, 220, 4), (2**62, 1, 2)])
def test_small_nodes_in_parallel_iff_some_small_node_reaches_the_parallel_work(
        small_node_size, n_features, n_threads):
    from treesmith._kernels.growth import SMALL_NODE_PARALLEL_WORK

    # the growth loop: a node of `count` < small_node_size samples scanning `width` features
    # goes parallel when count * width >= SMALL_NODE_PARALLEL_WORK and there are threads
    largest = min(small_node_size - 1, 10**6)
    reachable = any(count * n_features >= SMALL_NODE_PARALLEL_WORK
                    for count in range(1, largest + 1))
    expected = reachable and n_threads > 1
    assert grower._small_nodes_in_parallel(small_node_size, n_features, n_threads) == expected


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_wide_small_nodes_give_the_same_tree_with_and_without_the_parallel_scan(
        task, monkeypatch):
    # 250 samples x 300 features: every node is small, and the root is wide enough to be
    # scanned on several threads when the parallel small-node scan is chosen
    rng = np.random.default_rng(0)
    X = rng.normal(size=(250, 300))
    X[::9, 3] = np.nan
    if task == "regression":
        y, Estimator = X[:, 0] + rng.normal(size=250), treesmith.DecisionTreeRegressor
    else:
        y, Estimator = (X[:, 0] > 0) + (X[:, 1] > 0.5), treesmith.DecisionTreeClassifier
    trees = []
    for parallel in (True, False):
        monkeypatch.setattr(grower, "_small_nodes_in_parallel", lambda *_, p=parallel: p)
        trees.append(Estimator(random_state=0).fit(X, y).tree_)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name),
                                      err_msg=name)


@pytest.mark.parametrize("n_samples,n_features,n_threads,expected",
                         [(1000, 262, 2, False), (1000, 263, 2, True), (1000, 263, 1, False),
                          (150, 4, 2, False), (2**18, 1, 4, True)])
def test_histograms_in_parallel_iff_the_root_reaches_the_parallel_threshold(
        n_samples, n_features, n_threads, expected):
    # PARALLEL_THRESHOLD = 2**18 = 262144 sample-features; the root is the largest node
    assert grower.PARALLEL_THRESHOLD == 2**18
    assert grower._histograms_in_parallel(n_samples, n_features, n_threads) is expected


@pytest.mark.parametrize("bootstrap", [False, True])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_unit_weights_scan_gives_the_generic_scans_tree(criterion, bootstrap, monkeypatch):
    # the scan for unit sample weights (splitting.scan_feature_unit_weights) is an
    # optimisation only: forcing the generic scan grows the same tree, bit for bit, with
    # missing values, nodes with and without pooled histograms, and subtrees grown apart;
    # also with bootstrap multiplicities as weights (0, 1, 2, ...: a forest's trees), where
    # it reads the weight columns
    X, y = make_classification(n_samples=3000, n_features=8, n_informative=5, n_classes=3,
                               random_state=2)
    weight = (np.bincount(np.random.RandomState(0).randint(0, 3000, 3000), minlength=3000)
              .astype(float) if bootstrap else None)
    X = np.round(X, 1)
    X[::9, 2] = np.nan
    monkeypatch.setattr(grower, "SUBTREE_MIN_WORK", 1 << 12)
    used = []
    original = grower.TreeGrower._unit_weight_scan

    def spy(self, data):
        used.append(original(self, data))
        return used[-1]

    monkeypatch.setattr(grower.TreeGrower, "_unit_weight_scan", spy)
    fast = treesmith.DecisionTreeClassifier(criterion=criterion, random_state=0).fit(
        X, y, sample_weight=weight)
    assert used == [True]
    monkeypatch.setattr(grower.TreeGrower, "_unit_weight_scan", lambda self, data: False)
    generic = treesmith.DecisionTreeClassifier(criterion=criterion, random_state=0).fit(
        X, y, sample_weight=weight)
    for name in ("children_left", "feature", "threshold", "missing_go_left", "value"):
        np.testing.assert_array_equal(getattr(fast.tree_, name), getattr(generic.tree_, name))


def test_unit_weight_scan_only_where_weights_are_one(monkeypatch):
    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    used = []
    original = grower.TreeGrower._unit_weight_scan
    monkeypatch.setattr(grower.TreeGrower, "_unit_weight_scan",
                        lambda self, data: used.append(original(self, data)) or used[-1])
    treesmith.DecisionTreeClassifier().fit(X, y)
    treesmith.DecisionTreeClassifier().fit(X, y, sample_weight=np.ones(200))
    treesmith.DecisionTreeClassifier().fit(X, y, sample_weight=np.full(200, 2.0))
    imbalanced = np.where(np.arange(200) < 120, 0, y)
    treesmith.DecisionTreeClassifier(class_weight="balanced").fit(X, imbalanced)
    treesmith.DecisionTreeClassifier(monotonic_cst=[1, 0, 0, 0]).fit(X, y)
    treesmith.DecisionTreeRegressor().fit(X, X[:, 0])
    # integer weights >= 1 qualify with min_samples_leaf=1 only (it counts rows, not weight)
    treesmith.DecisionTreeClassifier(min_samples_leaf=2).fit(X, y,
                                                             sample_weight=np.full(200, 2.0))
    treesmith.DecisionTreeClassifier().fit(X, y, sample_weight=np.full(200, 1.5))
    assert used == [True, True, True, False, False, False, False, False]


def _creation_order_output():
    """``growth.grow``'s arrays for root 0 -> (1, 2), node 1 -> (3, 4) (creation order; the
    preorder is 0, 1, 3, 4, 2), with hand-set class statistics (node 4 weighs nothing)."""
    leaf = grower.TREE_LEAF
    stats = np.array([[3.0, 2.0, 3, 2], [1.0, 2.0, 1, 2], [2.0, 0.0, 2, 0],
                      [1.0, 2.0, 1, 2], [0.0, 0.0, 0, 0]])
    n = stats.shape[0]
    return (np.array([1, 3, leaf, leaf, leaf]), np.array([2, 4, leaf, leaf, leaf]),
            np.array([0, 1, -2, -2, -2]), np.array([0, 1, -1, -1, -1]),
            np.array([1, 2, -1, -1, -1]), np.zeros(n, dtype=bool), np.arange(n) / 10.0,
            np.array([0, 1, 1, 2, 2]), stats, np.zeros(n), np.zeros((n, 4), dtype=np.uint64),
            np.full(n, -np.inf), np.full(n, np.inf), np.zeros(n, dtype=bool),
            np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64))


def test_in_growth_order_can_leave_the_statistics_in_creation_order():
    out = _creation_order_output()
    nodes, _, order = grower.in_growth_order(out, best_first=False, reorder_stats=False)
    np.testing.assert_array_equal(order, [0, 1, 3, 4, 2])
    assert nodes[grower._STATS] is out[grower._STATS]  # no copy
    copied, _, _ = grower.in_growth_order(out, best_first=False)
    np.testing.assert_array_equal(copied[grower._STATS], out[grower._STATS][order])
    for kept, reordered in zip(nodes[:grower._STATS], copied[:grower._STATS]):
        np.testing.assert_array_equal(kept, reordered)


def test_tree_read_through_the_preorder_equals_the_tree_of_reordered_statistics():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    bins = treesmith.BinMapper().fit(X)
    tree_grower = grower.TreeGrower(bins, treesmith.criteria.resolve_criterion("gini",
                                                                              "classification"),
                                    2, grower.StoppingRules())
    out = _creation_order_output()
    kept, _, order = grower.in_growth_order(out, best_first=False, reorder_stats=False)
    copied, _, _ = grower.in_growth_order(out, best_first=False)
    through_order = tree_grower._to_tree(2, *kept, stats_order=order)
    reordered = tree_grower._to_tree(2, *copied)
    for name in FIELDS + ("class_counts",):
        np.testing.assert_array_equal(getattr(through_order, name), getattr(reordered, name))
    # node 4 (new id 3) weighs nothing: value 0; node 3 (new id 2): weights 1, 2 -> 1/3, 2/3
    np.testing.assert_array_equal(through_order.value[3], [0.0, 0.0])
    np.testing.assert_array_equal(through_order.value[2], [1 / 3, 2 / 3])
    np.testing.assert_array_equal(through_order.class_counts[1], [1.0, 2.0])
    np.testing.assert_array_equal(through_order.n_node_samples, [5, 3, 3, 0, 2])
