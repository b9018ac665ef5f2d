"""Hostile inputs on the model side: model files, edited trees, user criteria, deep trees.

Every case runs in its own process, forked from a "zygote" that has already imported treesmith
and fitted the small models the cases start from, so a case costs milliseconds to start and a
crash (SIGSEGV in a compiled kernel, an abort) shows as a signal instead of killing pytest.
Each case must end with a clear treesmith error (``ModelFileError``, a ``ValueError`` naming
what is wrong, ...) or with a correct result it checks itself: no crash, no NaN output, no
silent change of meaning, no allocation or time out of proportion to the input.

The zygote is a fresh interpreter using Numba's ``workqueue`` threading layer: GNU OpenMP
(Numba's default here) kills a process forked after it ran a parallel region, which a pytest
worker that ran other tests has always done. The data and CLI side of the catalogue is in
``tests/test_hostile_inputs.py``.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
#: Seconds a case may take before it counts as hanging (generous: 2 shared cores).
CASE_TIMEOUT = 120.0

#: name -> (function, expected exception class name or None for "returns", message regex)
CASES: dict[str, tuple] = {}


def case(expect: str | None = None, match: str = ""):
    """Register a case: it must raise an exception whose class (or a base class) is named
    ``expect`` with a message matching ``match``, or return normally when ``expect`` is None."""

    def decorator(function):
        CASES[function.__name__] = (function, expect, match)
        return function

    return decorator


# -- what the cases start from (built once, in the zygote) -----------------------------------
@functools.lru_cache(maxsize=None)
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1).astype(int)
    return X, y


@functools.lru_cache(maxsize=None)
def fitted():
    from treesmith import DecisionTreeClassifier

    X, y = data()
    return DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)


@functools.lru_cache(maxsize=None)
def model_dict():
    from treesmith import io

    return io.to_dict(fitted())


def edited(edit) -> dict:
    """A deep copy of the valid model dict with ``edit(model)`` applied."""
    model = copy.deepcopy(model_dict())
    edit(model)
    return model


def load(model) -> None:
    from treesmith import io

    io.loads(json.dumps(model) if not isinstance(model, (str, bytes)) else model)


def tree_arrays(model) -> dict:
    return model["attributes"]["tree_"]["arrays"]


def ndarray(dtype, shape, data_) -> dict:
    return {"__type__": "ndarray", "dtype": dtype, "shape": shape, "data": data_}


def chain_tree(depth: int, n_features: int = 3):
    """A valid tree whose internal nodes form one path (each has a leaf on its left)."""
    from treesmith.tree import Tree

    n_nodes = 2 * depth + 1
    left = np.full(n_nodes, -1)
    right = np.full(n_nodes, -1)
    internal = np.arange(depth) * 2
    left[internal], right[internal] = internal + 1, internal + 2
    counts = np.zeros((n_nodes, 2))
    counts[~(left != -1)] = [[1.0, 1.0]] * (depth + 1)
    counts[2 * depth] = [3.0, 0.0]
    for node in internal[::-1]:
        counts[node] = counts[node + 1] + counts[node + 2]
    depths = np.zeros(n_nodes, dtype=np.int64)
    for node in internal:
        depths[node + 1] = depths[node + 2] = depths[node] + 1
    total = counts.sum(axis=1)
    value = counts / total[:, None]
    feature = np.where(left != -1, np.arange(n_nodes) % n_features, -2)
    threshold = np.where(left != -1, np.arange(n_nodes) / 7.0, np.nan)
    return Tree(n_features, 2, children_left=left, children_right=right, feature=feature,
                threshold=threshold, bin_threshold=np.where(left != -1, 0, -1),
                missing_go_left=np.zeros(n_nodes, dtype=bool),
                impurity=1.0 - (value ** 2).sum(axis=1), n_node_samples=total.astype(np.int64),
                weighted_n_node_samples=total, value=value, class_counts=counts, depth=depths)


def chain_estimator(depth: int):
    from types import SimpleNamespace

    tree = chain_tree(depth)
    return SimpleNamespace(tree_=tree, n_features_in_=3, classes_=np.array([0, 1]),
                           feature_costs_=np.array([1.0, 2.0, 4.0]),
                           cost_groups_=np.array([0, 1, 2]), cost_model_="per_feature")


def warm_up() -> None:
    """Everything the cases share, done once before forking."""
    from treesmith import DecisionTreeRegressor, export_text

    X, y = data()
    model = fitted()
    model.predict_proba(X)
    model_dict()
    load(model_dict())
    export_text(model)
    DecisionTreeRegressor(max_depth=2).fit(X, X[:, 0]).predict(X)


# == model files ===============================================================================
@case("ModelFileError", "would take .* bytes")
def file_wide_string_dtype_over_empty_strings():
    """<U999999 over 2 500 empty strings asked for 9.3 GiB; refused before allocating."""
    load(edited(lambda m: m["attributes"].update(
        classes_=ndarray("<U999999", [2500], [""] * 2500))))


@case("ModelFileError", "would take .* bytes")
def file_wide_string_dtype_one_entry():
    """20 short strings in a <U999999 array: 80 MB from a file of a few kB."""
    load(edited(lambda m: m["attributes"].update(classes_=ndarray("<U999999", [20], ["a"] * 20))))


@case("ModelFileError", "would take .* bytes")
def file_empty_array_of_astronomical_shape():
    load(edited(lambda m: m["attributes"].update(
        classes_=ndarray("<f8", [2 ** 62, 2 ** 62, 0], []))))


@case("ModelFileError", "would take .* bytes")
def file_empty_tree_value_with_a_huge_second_axis():
    def edit(model):
        value = tree_arrays(model)["class_counts"]
        value["shape"] = [0, 10 ** 15]
        value["data"] = []
    load(edited(edit))


@case("ModelFileError", "at most 8")
def file_array_with_too_many_axes():
    load(edited(lambda m: m["attributes"].update(classes_=ndarray("<i8", [1] * 9, [0]))))


def _file_with_dtype(dtype):
    load(edited(lambda m: m["attributes"].update(classes_=ndarray(dtype, [2], [0, 1]))))


for _dtype in ("<f2", "|V8", "<M8[ns]", "<c16", "|S5", "<U0x"):
    CASES[f"file_dtype_off_the_whitelist[{_dtype}]"] = (
        functools.partial(_file_with_dtype, _dtype), "ModelFileError", "unsupported array dtype")


@case("ModelFileError", "hashable")
def file_unhashable_dict_key():
    load(edited(lambda m: m["metadata"].update() or m["attributes"].update(
        extra_={"__type__": "dict", "items": [[{"__type__": "tuple", "items": [[1, 2]]}, 0]]})))


@case("ModelFileError", "one kind")
def file_classes_of_mixed_types():
    load(edited(lambda m: m["attributes"].update(classes_=ndarray("|O", [3], [0, "a", 2]))))


@case("ModelFileError", "sorted")
def file_classes_not_sorted():
    load(edited(lambda m: m["attributes"].update(classes_=ndarray("<i8", [3], [2, 0, 1]))))


@case("ModelFileError", "duplicates")
def file_classes_with_duplicates():
    load(edited(lambda m: m["attributes"].update(classes_=ndarray("<i8", [3], [0, 0, 1]))))


@case("ModelFileError", "non-finite")
def file_classes_with_nan():
    load(edited(lambda m: m["attributes"].update(
        classes_=ndarray("<f8", [3], [0.0, 1.0, None]))))


@case("ModelFileError", "cost_groups_")
def file_cost_group_id_that_would_size_an_array():
    """A group id of 10**12 made the metrics allocate 8 TB."""
    load(edited(lambda m: m["attributes"].update(
        cost_groups_=ndarray("<i8", [3], [0, 1, 10 ** 12]))))


@case("ModelFileError", "feature_costs_")
def file_negative_feature_cost():
    load(edited(lambda m: m["attributes"].update(
        feature_costs_=ndarray("<f8", [3], [1.0, -1.0, 1.0]))))


@case("ModelFileError", "cost_model_")
def file_unknown_cost_model():
    load(edited(lambda m: m["attributes"].update(cost_model_="per_leaf")))


@case("ModelFileError", "max_features_")
def file_zero_max_features():
    load(edited(lambda m: m["attributes"].update(max_features_=0)))


@case("ModelFileError", "children must be stored after their parents")
def file_tree_with_a_cycle():
    def edit(model):
        tree_arrays(model)["children_left"]["data"][1] = 0
    load(edited(edit))


@case("ModelFileError", "split feature is outside")
def file_tree_feature_out_of_range():
    def edit(model):
        tree_arrays(model)["feature"]["data"][0] = 10 ** 9
    load(edited(edit))


@case("ModelFileError", "points past the last node")
def file_tree_child_past_the_end():
    def edit(model):
        arrays = tree_arrays(model)
        arrays["children_right"]["data"][0] = 10 ** 6
    load(edited(edit))


@case("ModelFileError", "threshold is NaN")
def file_tree_nan_threshold():
    def edit(model):
        tree_arrays(model)["threshold"]["data"][0] = None
    load(edited(edit))


@case("ModelFileError", "impurity")
def file_tree_negative_impurity():
    def edit(model):
        tree_arrays(model)["impurity"]["data"][0] = -1.0
    load(edited(edit))


@case("ModelFileError", "one entry per node")
def file_tree_arrays_of_different_lengths():
    def edit(model):
        feature = tree_arrays(model)["feature"]
        feature["data"] = feature["data"][:-1]
        feature["shape"] = [len(feature["data"])]
    load(edited(edit))


@case("ModelFileError", "depths")
def file_tree_wrong_depths():
    def edit(model):
        tree_arrays(model)["depth"]["data"][-1] = 40
    load(edited(edit))


@case("ModelFileError", "out of range")
def file_integer_beyond_int64():
    def edit(model):
        tree_arrays(model)["feature"]["data"][0] = 2 ** 70
    load(edited(edit))


@case("ModelFileError", "n_features_in_")
def file_n_features_disagrees_with_the_tree():
    load(edited(lambda m: m["attributes"].update(n_features_in_=7)))


@case("ModelFileError", "not valid JSON")
def file_truncated():
    load(json.dumps(model_dict())[:-40])


@case("ModelFileError", "not valid JSON")
def file_not_utf8():
    load(b"\xff\xfe" + json.dumps(model_dict()).encode())


@case("ModelFileError", "not valid JSON")
def file_nested_a_hundred_thousand_deep():
    load("[" * 100_000 + "]" * 100_000)


@case("ModelFileError", "non-standard JSON constant")
def file_nan_literal():
    text = json.dumps(model_dict())
    assert '"metadata": {}' in text
    load(text.replace('"metadata": {}', '"metadata": {"x": NaN}'))


@case("ModelFileError", "duplicate keys")
def file_duplicate_keys():
    text = json.dumps(model_dict())
    load(text[:-1] + ',"metadata":{}}')


@case("ModelFileError", "unknown estimator")
def file_names_an_arbitrary_class():
    load(edited(lambda m: m.update(estimator="os.system")))


@case("ModelFileError", "unknown criterion")
def file_unknown_criterion():
    load(edited(lambda m: m["params"].update(
        criterion={"__type__": "criterion", "name": "__import__", "params": {}})))


@case("ModelFileError", "alpha must be a real number")
def file_criterion_with_a_degenerate_parameter():
    load(edited(lambda m: m["params"].update(
        criterion={"__type__": "criterion", "name": "tsallis",
                   "params": {"alpha": 1e300, "beta": 1}})))


@case("ModelFileError", "random state")
def file_bad_random_state():
    load(edited(lambda m: m["params"].update(random_state={
        "__type__": "random_state", "keys": ndarray("<u4", [3], [1, 2, 3]), "pos": 0,
        "has_gauss": 0, "cached_gaussian": 0.0})))


@case("ModelFileError", "is not one a model file may use")
def file_object_of_an_unlisted_class():
    load(edited(lambda m: m["attributes"].update(bin_mapper_={
        "__type__": "object", "class": "Popen", "params": {}, "state": {}})))


@case(None)
def file_round_trip_predicts_the_same():
    from treesmith import io

    X, _ = data()
    loaded, _ = io.loads(json.dumps(model_dict()))
    assert np.array_equal(loaded.predict_proba(X), fitted().predict_proba(X))


# == edited trees ==============================================================================
@case("ValueError", "read-only")
def edit_feature_in_place_then_predict():
    """``t.tree_.feature[0] = 10**9; t.predict(X)`` was a SIGSEGV."""
    model = fitted()
    model.tree_.feature[0] = 10 ** 9
    model.predict(data()[0])


@case("ValueError", "read-only")
def edit_children_into_a_cycle_then_predict():
    model = fitted()
    model.tree_.children_left[1] = 0
    model.predict(data()[0])


@case("AttributeError", "Tree.feature is read-only")
def edit_by_assigning_a_new_array():
    model = fitted()
    feature = model.tree_.to_arrays()["feature"]
    feature[0] = 10 ** 9
    model.tree_.feature = feature


@case("ValueError", "WRITEABLE")
def edit_by_making_the_view_writable():
    fitted().tree_.feature.flags.writeable = True


@case("ValueError", "split feature is outside")
def edit_through_the_private_copy_before_the_first_walk():
    """Even flipping the private copy's flag cannot reach the walk: it validates first."""
    from treesmith.tree import Tree

    tree = Tree.from_arrays(3, 3, **fitted().tree_.to_arrays())
    private = tree.feature.base
    private.flags.writeable = True
    private[0] = 10 ** 9
    tree.apply(data()[0])


@case("ValueError", "children must be stored after their parents")
def edit_from_arrays_with_a_cycle():
    from treesmith.tree import Tree

    arrays = fitted().tree_.to_arrays()
    arrays["children_left"][1] = 0
    Tree.from_arrays(3, 3, **arrays)


@case("ValueError", "exactly one parent")
def edit_from_arrays_with_a_shared_child():
    from treesmith.tree import Tree

    arrays = fitted().tree_.to_arrays()
    internal = np.flatnonzero(arrays["children_left"] != -1)
    arrays["children_right"][internal[0]] = arrays["children_left"][internal[0]]
    Tree.from_arrays(3, 3, **arrays)


@case("ValueError", "non-finite")
def edit_from_arrays_with_nan_probabilities():
    from treesmith.tree import Tree

    arrays = fitted().tree_.to_arrays()
    arrays["value"][-1] = np.nan
    Tree.from_arrays(3, 3, **arrays)


@case("ValueError", "must be numeric")
def edit_from_arrays_with_object_children():
    from treesmith.tree import Tree

    arrays = fitted().tree_.to_arrays()
    arrays["children_left"] = arrays["children_left"].astype(object)
    Tree.from_arrays(3, 3, **arrays)


@case("ValueError", "3 columns")
def edit_apply_on_too_few_columns():
    fitted().tree_.apply(data()[0][:, :2])


@case(None)
def edit_the_documented_way_gives_a_working_tree():
    from treesmith.tree import Tree

    model = fitted()
    arrays = model.tree_.to_arrays()
    arrays["threshold"][0] = 0.25
    tree = Tree.from_arrays(3, 3, **arrays)
    X = data()[0]
    expected_left = X[:, model.tree_.feature[0]] <= 0.25
    leaves = tree.apply(X)
    left_subtree = tree.decision_path(X)[:, tree.children_left[0]].toarray().ravel() == 1
    assert np.array_equal(left_subtree, expected_left)
    assert np.all(tree.children_left[leaves] == -1)
    assert model.tree_.threshold[0] != 0.25  # the original is untouched


# == hostile criteria ==========================================================================
@case("ValueError", "IndexError")
def criterion_reads_far_out_of_bounds():
    """``Custom(lambda p: abs(p[1000000000]) * 0.0)`` was a SIGSEGV while being checked."""
    from treesmith.criteria import Custom

    Custom(lambda p: abs(p[1000000000]) * 0.0)


def _fails_beyond_five_classes(p):
    if p.shape[0] > 5:
        raise ValueError("too many classes")
    return 1.0 - (p * p).sum()


def _nan_in_a_band(p):
    if 0.70 < p[0] < 0.72:
        return np.nan
    return 1.0 - (p * p).sum()


def _negative_in_a_band(p):
    if 0.70 < p[0] < 0.72:
        return -1.0
    return 1.0 - (p * p).sum()


def _out_of_bounds_beyond_five_classes(p):
    return 1.0 - (p * p).sum() + 0.0 * p[p.shape[0] * 1000 if p.shape[0] > 5 else 0]


def _fit_custom(function, n_classes=2):
    from treesmith import DecisionTreeClassifier
    from treesmith.criteria import Custom

    rng = np.random.default_rng(1)
    X = rng.normal(size=(2000, 4))
    if n_classes == 2:
        y = (X[:, 0] + 0.8 * rng.normal(size=2000) > 0).astype(int)
    else:
        y = rng.integers(0, n_classes, 2000)
    DecisionTreeClassifier(criterion=Custom(function), max_depth=6).fit(X, y)


@case("ValueError", r"at a node of depth \d+ .*proportions \[.*func raised ValueError")
def criterion_raises_on_classes_beyond_its_check_set():
    _fit_custom(_fails_beyond_five_classes, n_classes=7)


@case("ValueError", r"at a node of depth \d+ .*proportions \[0\.71\d*, .*func returned nan")
def criterion_returns_nan_outside_its_check_set():
    _fit_custom(_nan_in_a_band)


@case("ValueError", r"at a node of depth \d+ .*proportions \[0\.71\d*, .*func returned -1\.0")
def criterion_returns_negative_outside_its_check_set():
    _fit_custom(_negative_in_a_band)


@case("ValueError", r"at a node of depth \d+ .*func raised IndexError")
def criterion_indexes_out_of_bounds_during_the_fit():
    _fit_custom(_out_of_bounds_beyond_five_classes, n_classes=7)


@case("ValueError", "does not compile")
def criterion_that_numba_cannot_compile():
    from treesmith.criteria import Custom

    Custom(lambda p: float(len(object())))


@case("ValueError", "must be a callable")
def criterion_func_not_callable():
    from treesmith.criteria import Custom

    Custom(42)


@case("ValueError", "alpha must be a real number in")
def criterion_tsallis_astronomical_alpha():
    from treesmith.criteria import Tsallis

    Tsallis(alpha=1e300)


@case("ValueError", "gamma must be a real number in")
def criterion_product_vanishing_gamma():
    from treesmith.criteria import Product

    Product(gamma=1e-300)


@case("ValueError", "beta must be an integer in")
def criterion_tsallis_huge_beta():
    from treesmith.criteria import Tsallis

    Tsallis(alpha=2.0, beta=10 ** 6)


@case("ValueError", "gamma must be a real number in")
def criterion_renyi_nan():
    from treesmith.criteria import Renyi

    Renyi(gamma=float("nan"))


@case("ValueError", "alpha must be a real number in")
def criterion_set_params_out_of_range():
    from treesmith.criteria import PE

    PE(alpha=0.5).set_params(alpha=float("inf"))


@case(None)
def criterion_at_the_edges_of_its_domain_gives_finite_gains():
    import warnings

    from treesmith import DecisionTreeClassifier
    from treesmith.criteria import PE, ConcavityWarning, Product, Tsallis

    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConcavityWarning)
        for criterion in (Tsallis(alpha=100.0, beta=100), Tsallis(alpha=1e-3), Product(1e-3),
                          Product(100.0), PE(100.0)):
            tree = DecisionTreeClassifier(criterion=criterion, max_depth=3).fit(X, y).tree_
            assert np.all(np.isfinite(tree.impurity)) and np.all(tree.impurity >= 0)


# == deep trees ==============================================================================
@case(None)
def deep_chain_text_export_is_cut_by_default():
    """A depth-20 000 chain took 230 s and 9.8 GB to export as text."""
    from treesmith import export_text

    text = export_text(chain_estimator(20_000))
    assert "showing depth <= 10 of 20000" in text.splitlines()[0]
    assert "truncated branch of depth" in text and len(text) < 10_000


@case(None)
def deep_chain_rules_export_is_linear():
    from treesmith import export_text

    lines = export_text(chain_estimator(10_000), rules=True, max_depth=None).splitlines()
    assert len(lines) == 10_001
    assert lines[-1].endswith("[cost 7]")  # per_feature: three groups, each paid once


@case(None)
def deep_chain_dot_export_streams_to_a_file():
    import tempfile

    from treesmith import export_graphviz

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "chain.dot"
        assert export_graphviz(chain_estimator(4_000), out_file=path, max_depth=None) is None
        with open(path, encoding="utf-8") as handle:
            assert sum(1 for line in handle if "->" in line) == 2 * 4_000


@case(None)
def deep_chain_max_cost_and_expected_cost():
    from treesmith.metrics import max_cost, path_costs

    estimator = chain_estimator(20_000)
    assert max_cost(estimator) == 7.0
    assert max_cost(estimator, cost_model="per_test") == pytest.approx(
        sum([1.0, 2.0, 4.0][j % 3] for j in range(0, 40_000, 2)))
    estimator.apply = estimator.tree_.apply
    rows = np.full((2, 3), -1.0)  # goes left at the root: one test
    assert path_costs(estimator, rows).tolist() == [1.0, 1.0]


@case(None)
def deep_chain_pruning_stays_valid():
    from treesmith.pruning.bottom_up_pessimistic import bottom_up_pessimistic_prune_tree
    from treesmith.pruning.cost_complexity import cost_complexity_path, prune_tree_ccp
    from treesmith.pruning.reduced_error import reduced_error_prune_tree

    tree = chain_tree(4_000)
    path = cost_complexity_path(tree)
    assert path.n_leaves[0] == 4_001 and path.n_leaves[-1] == 1
    assert np.all(np.diff(path.ccp_alphas) >= -1e-12)
    for pruned in (prune_tree_ccp(tree, 0.0), bottom_up_pessimistic_prune_tree(tree),
                   reduced_error_prune_tree(tree, tree.decision_path(np.zeros((3, 3))),
                                            np.zeros(3, dtype=np.int64))):
        pruned.validate()
        assert pruned.node_count <= tree.node_count


# == the machinery =============================================================================
ZYGOTE = r"""
import importlib.util, json, os, signal, sys, time, traceback
spec = importlib.util.spec_from_file_location("hostile_models_cases", sys.argv[1])
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
cases.warm_up()
print("ready", flush=True)
for line in sys.stdin:
    name = line.strip()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        function = cases.CASES[name][0]
        try:
            function()
            result = {"outcome": "returned"}
        except BaseException as error:
            result = {"outcome": "raised", "type": type(error).__name__,
                      "bases": [c.__name__ for c in type(error).__mro__],
                      "message": str(error)[:2000],
                      "traceback": traceback.format_exc()[-3000:]}
        os.write(write_end, json.dumps(result).encode())
        os._exit(0)
    os.close(write_end)
    deadline = time.monotonic() + float(sys.argv[2])
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = None
            break
        time.sleep(0.002)
    chunks = []
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    reply = {"timeout": status is None}
    if status is not None:
        reply["signal"] = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        reply["exit_code"] = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    reply["result"] = json.loads(b"".join(chunks)) if chunks else None
    print(json.dumps(reply), flush=True)
"""


class Zygote:
    """A warmed-up interpreter that forks one child per case and reports how it ended."""

    def __init__(self):
        env = dict(os.environ, NUMBA_THREADING_LAYER="workqueue",
                   PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        self.process = subprocess.Popen(
            [sys.executable, "-c", ZYGOTE, str(HERE), str(CASE_TIMEOUT)], cwd=str(ROOT),
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "ready", "the zygote did not start"

    def run(self, name: str) -> dict:
        self.process.stdin.write(name + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


@pytest.fixture(scope="module")
def zygote():
    if not hasattr(os, "fork"):
        pytest.skip("the catalogue forks one process per case (POSIX only)")
    process = Zygote()
    yield process
    process.close()


def test_the_catalogue_is_large_enough():
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_case(zygote, name):
    _, expect, match = CASES[name]
    reply = zygote.run(name)
    assert not reply["timeout"], f"{name} ran longer than {CASE_TIMEOUT} s"
    assert reply["signal"] is None, f"{name} crashed the process (signal {reply['signal']})"
    assert reply["exit_code"] == 0 and reply["result"] is not None, f"{name} died: {reply}"
    result = reply["result"]
    if expect is None:
        assert result["outcome"] == "returned", result.get("traceback")
        return
    assert result["outcome"] == "raised", f"{name} should raise {expect}, returned normally"
    assert expect in result["bases"], result["traceback"]
    assert __import__("re").search(match, result["message"]), result["message"]
