"""treesmith.export: text, rules and DOT show every node, in original units, with costs."""

import re
from types import SimpleNamespace

import numpy as np
import pytest

import treesmith
from treesmith.export import DotExporter, TextExporter, export_graphviz, export_text, format_number
from treesmith.tree import Tree


def make_tree(nodes, n_features, n_classes=2):
    """A Tree from ``[(left, right, feature, threshold, missing_left, counts), ...]``."""
    n = len(nodes)
    left = np.array([node[0] for node in nodes], dtype=np.int64)
    right = np.array([node[1] for node in nodes], dtype=np.int64)
    counts = np.array([node[5] for node in nodes], dtype=np.float64)
    depth = np.zeros(n, dtype=np.int64)
    for i in range(n):
        if left[i] >= 0:
            depth[left[i]] = depth[right[i]] = depth[i] + 1
    total = counts.sum(axis=1)
    return Tree(n_features, n_classes,
                children_left=left, children_right=right,
                feature=np.array([node[2] for node in nodes], dtype=np.int64),
                threshold=np.array([node[3] for node in nodes], dtype=np.float64),
                bin_threshold=np.where(left >= 0, 0, -1).astype(np.int64),
                missing_go_left=np.array([node[4] for node in nodes], dtype=bool),
                impurity=np.zeros(n), n_node_samples=total.astype(np.int64),
                weighted_n_node_samples=total, value=counts / total[:, None],
                class_counts=counts, depth=depth)


LEAF = (-1, -1, -2, np.nan, False)


@pytest.fixture
def clinic():
    """Root tests age (cost 1, missing left); its right child a blood test (cost 10)."""
    tree = make_tree([
        (1, 2, 1, 30.5, True, [9, 11]),
        (*LEAF, [8, 2]),
        (3, 4, 0, 4.25, False, [1, 9]),
        (*LEAF, [1, 4]),
        (*LEAF, [0, 5]),
    ], n_features=2)
    return SimpleNamespace(tree_=tree, feature_names_in_=np.array(["blood test", "age"]),
                           classes_=np.array(["healthy", "sick"]),
                           feature_costs_=np.array([10.0, 1.0]))


def test_text_export_of_a_hand_built_tree(clinic):
    assert export_text(clinic) == """\
# 3 leaves, depth 2, 5 nodes; counts per class: [healthy, sick]
root  n=20 [9, 11]
|--- age <= 30.5 or missing  [cost 1]  n=10 [8, 2]
|   |--- class: healthy (p=0.8, n=10)
|--- age > 30.5  [cost 1]  n=10 [1, 9]
|   |--- blood test <= 4.25  [cost 10]  n=5 [1, 4]
|   |   |--- class: sick (p=0.8, n=5)
|   |--- blood test > 4.25 or missing  [cost 10]  n=5 [0, 5]
|   |   |--- class: sick (p=1, n=5)
"""


def test_rules_export_of_a_hand_built_tree(clinic):
    assert export_text(clinic, rules=True) == """\
IF (age <= 30.5 or missing) THEN healthy (p=0.8, n=10)  [cost 1]
IF age > 30.5 AND blood test <= 4.25 THEN sick (p=0.8, n=5)  [cost 11]
IF age > 30.5 AND (blood test > 4.25 or missing) THEN sick (p=1, n=5)  [cost 11]
"""


def test_options_change_what_is_shown(clinic):
    text = export_text(clinic, show_distribution="proportions", precision=1)
    assert "n=10 [0.8, 0.2]" in text and "age <= 30.5" in text
    plain = export_text(clinic.tree_)  # a bare Tree: default names, no costs
    assert "feature_1 <= 30.5 or missing  n=10 [8, 2]" in plain
    assert "class: class 0 (p=0.8, n=10)" in plain and "cost" not in plain
    named = export_text(clinic, feature_names=["b", "a"], class_names=["no", "yes"],
                        feature_costs=[2, 3])
    assert "|--- a <= 30.5 or missing  [cost 3]" in named and "class: no" in named
    truncated = export_text(clinic, max_depth=1)
    assert "truncated branch of depth 1" in truncated and "blood test" not in truncated


def test_repeated_feature_merges_into_an_interval_and_per_feature_costs():
    tree = make_tree([
        (1, 2, 0, 5.0, False, [6, 6]),
        (3, 4, 0, 2.0, True, [5, 3]),
        (*LEAF, [4, 0]),
        (*LEAF, [1, 1]),
        (*LEAF, [0, 2]),
    ], n_features=1)
    per_test = SimpleNamespace(tree_=tree, feature_costs_=np.array([4.0]))
    rules = export_text(per_test, rules=True).splitlines()
    assert rules[0] == "IF feature_0 <= 2 THEN class 0 (p=0.5, n=2)  [cost 8]"
    assert rules[1] == "IF 2 < feature_0 <= 5 THEN class 1 (p=1, n=2)  [cost 8]"
    assert rules[2] == "IF (feature_0 > 5 or missing) THEN class 0 (p=1, n=4)  [cost 4]"
    per_feature = SimpleNamespace(tree_=tree, feature_costs_=np.array([4.0]),
                                  cost_model="per_feature")
    assert export_text(per_feature, rules=True).splitlines()[0].endswith("[cost 4]")


def test_cost_groups_are_paid_once_per_path_and_unit_costs_are_not_shown(clinic):
    grouped = SimpleNamespace(tree_=clinic.tree_, feature_costs_=np.array([3.0, 3.0]),
                              cost_groups_=np.array([0, 0]), cost_model_="per_feature")
    rules = export_text(grouped, rules=True).splitlines()
    assert rules[1].endswith("[cost 3]")  # age and blood test: one acquisition
    grouped.cost_model_ = "per_test"
    assert export_text(grouped, rules=True).splitlines()[1].endswith("[cost 6]")
    unit = SimpleNamespace(tree_=clinic.tree_, feature_costs_=np.ones(2))
    assert "cost" not in export_text(unit) and "cost" not in export_text(unit, rules=True)
    assert "[cost 1]" in export_text(unit, feature_costs=[1, 1])  # asked for explicitly


def test_missing_versus_present_split_reads_naturally():
    tree = make_tree([(1, 2, 0, np.inf, False, [3, 3]), (*LEAF, [3, 0]), (*LEAF, [0, 3])],
                     n_features=1)
    text = export_text(tree)
    assert "|--- feature_0 is not missing  n=3" in text
    assert "|--- feature_0 is missing  n=3" in text and "or missing" not in text
    assert export_text(tree, rules=True).splitlines() == [
        "IF feature_0 is not missing THEN class 0 (p=1, n=3)",
        "IF feature_0 is missing THEN class 1 (p=1, n=3)"]


def test_regression_tree_text():
    tree = Tree(1, 0, children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
                feature=np.array([0, -2, -2]), threshold=np.array([1.5, np.nan, np.nan]),
                bin_threshold=np.array([0, -1, -1]), missing_go_left=np.array([True, False,
                                                                               False]),
                impurity=np.zeros(3), n_node_samples=np.array([4, 2, 2]),
                weighted_n_node_samples=np.array([4.0, 2, 2]),
                value=np.array([[2.5], [1.25], [3.75]]), class_counts=np.zeros((3, 0)),
                depth=np.array([0, 1, 1]))
    assert export_text(tree) == """\
# 2 leaves, depth 1, 3 nodes
root  n=4
|--- feature_0 <= 1.5 or missing  n=2
|   |--- value=1.25 (n=2)
|--- feature_0 > 1.5  n=2
|   |--- value=3.75 (n=2)
"""
    assert export_text(tree, rules=True).splitlines()[1] == "IF feature_0 > 1.5 THEN value=3.75 (n=2)"


def _dot_graph(dot):
    nodes = dict(re.findall(r'^(\d+) \[label="((?:[^"\\]|\\.)*)"', dot, flags=re.MULTILINE))
    edges = re.findall(r"^(\d+) -> (\d+) \[label=\"(yes|no)\"\]", dot, flags=re.MULTILINE)
    return nodes, edges


def test_dot_export_of_a_hand_built_tree(clinic):
    dot = export_graphviz(clinic)
    assert dot.startswith("digraph Tree {") and dot.rstrip().endswith("}")
    nodes, edges = _dot_graph(dot)
    assert sorted(map(int, nodes)) == [0, 1, 2, 3, 4]
    assert edges == [("0", "1", "yes"), ("0", "2", "no"), ("2", "3", "yes"), ("2", "4", "no")]
    assert nodes["0"] == r"age <= 30.5\nmissing → yes, cost 1\nn = 20 [9, 11]\nsick (p = 0.55)"
    assert nodes["4"] == r"n = 5 [0, 5]\nsick (p = 1)"
    assert re.search(r'^4 \[.*fillcolor="#[0-9a-f]{6}"', dot, flags=re.MULTILINE)
    assert "fillcolor" not in export_graphviz(clinic, filled=False)


def test_dot_escapes_names_and_writes_files(clinic, tmp_path):
    dot = export_graphviz(clinic, feature_names=['say "hi"', "back\\slash"])
    # a name holding quotes is shown quoted (export.shown_name), then escaped for DOT
    assert r"'say \"hi\"' <= 4.25" in dot and r"back\\slash <= 30.5" in dot
    # Every label is one well-formed quoted string: no unescaped quote inside.
    for line in dot.splitlines()[4:-1]:
        body = re.sub(r"\\.", "", line)
        assert body.count('"') % 2 == 0, line
    path = tmp_path / "tree.dot"
    # With out_file the lines are streamed to the file and nothing is returned (scikit-learn).
    assert export_graphviz(clinic, out_file=path) is None
    assert path.read_text(encoding="utf-8") == export_graphviz(clinic)
    with open(tmp_path / "tree.txt", "w", encoding="utf-8") as handle:
        assert export_text(clinic, rules=True, out_file=handle) is None
    assert (tmp_path / "tree.txt").read_text(encoding="utf-8") == export_text(clinic, rules=True)


def test_bad_arguments_are_named(clinic):
    with pytest.raises(ValueError, match="feature_names must have 2 entries"):
        export_text(clinic, feature_names=["a"])
    with pytest.raises(ValueError, match="precision"):
        export_text(clinic, precision=-1)
    with pytest.raises(ValueError, match="feature_costs"):
        export_text(clinic, feature_costs=[1.0, -1.0])
    with pytest.raises(ValueError, match="show_distribution"):
        export_text(clinic, show_distribution="percent")
    with pytest.raises(TypeError, match="fitted treesmith estimator"):
        export_text(treesmith.DecisionTreeClassifier())


@pytest.mark.parametrize("value, precision, expected", [
    (2.45, 3, "2.45"), (16.7951, 3, "16.795"), (0.00345, 3, "0.00345"),
    (0.0031234, 3, "0.00312"), (1234.5, 3, "1234.5"), (-0.0, 3, "0"), (3.0, 3, "3"),
    (0.1 + 0.2, None, "0.30000000000000004"), (7.0, 0, "7"), (np.inf, 3, "inf"),
])
def test_format_number(value, precision, expected):
    assert format_number(value, precision) == expected


# -- fitted trees: every node, original units ------------------------------------------------
@pytest.fixture(scope="module")
def cancer_model():
    X, y = treesmith.load_dataset("sklearn:breast_cancer")
    return treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)


def test_text_and_dot_contain_every_node_in_original_units(cancer_model):
    tree = cancer_model.tree_
    assert tree.node_count >= 21
    text = export_text(cancer_model, precision=None)
    branch_lines = [line for line in text.splitlines() if "|--- " in line
                    and "|--- class:" not in line]
    leaf_lines = [line for line in text.splitlines() if "|--- class:" in line]
    assert len(branch_lines) == tree.node_count - 1 and len(leaf_lines) == tree.n_leaves
    names = cancer_model.feature_names_in_
    for node in np.flatnonzero(~tree.is_leaf):
        test = f"{names[tree.feature[node]]} <= {format_number(tree.threshold[node], None)}"
        assert test in text  # exact threshold, in the data's own units
    rules = export_text(cancer_model, rules=True).splitlines()
    assert len(rules) == tree.n_leaves
    assert sum(int(re.search(r"n=(\d+)\)", rule).group(1)) for rule in rules) == \
        tree.n_node_samples[0]
    nodes, edges = _dot_graph(export_graphviz(cancer_model))
    assert sorted(map(int, nodes)) == list(range(tree.node_count))
    assert len(edges) == tree.node_count - 1


def test_missing_side_is_reported_per_node(cancer_model):
    tree = cancer_model.tree_
    exporter = TextExporter(cancer_model)
    lines = exporter.export().splitlines()
    for node in np.flatnonzero(~tree.is_leaf):
        left_note = exporter.missing_note(node, True)
        right_note = exporter.missing_note(node, False)
        assert (left_note == " or missing") == bool(tree.missing_go_left[node])
        assert (right_note == " or missing") != bool(tree.missing_go_left[node])
        assert any(exporter.condition(node, True) + left_note in line for line in lines)
    dot = DotExporter(cancer_model)
    assert sum("missing → yes" in "\n".join(dot.node_lines(n)) for n in range(tree.node_count)) \
        == int(np.sum(tree.missing_go_left[~tree.is_leaf]))


# -- acceptance review: category sets that would read ambiguously --------------------------------
def test_ambiguous_category_names_are_quoted_and_an_empty_side_reads_missing():
    """'Nice, France' read as two categories, '' as none ("city in {}"), and the branch of a
    split that sends no category but the missing values read "city in {} or missing"."""
    import pandas as pd

    city = np.array(["Nice, France", "{Lyon}", "", " Brest", "Paris"] * 40, dtype=object)
    y = np.isin(city, ["Nice, France", ""]).astype(int)
    model = treesmith.DecisionTreeClassifier(max_depth=1).fit(pd.DataFrame({"city": city}), y)
    text = export_text(model)
    assert "city in {'', 'Nice, France'}" in text
    assert "city in {' Brest', Paris, '{Lyon}'}" in text  # the categories' sorted order
    assert "city in {' Brest', Paris, '{Lyon}'}" in export_graphviz(model)

    rng = np.random.default_rng(0)
    cells = rng.choice(np.array(["a", "b", None], dtype=object), 300)
    missing = np.array([cell is None for cell in cells])
    model = treesmith.DecisionTreeClassifier(max_depth=1).fit(pd.DataFrame({"c": cells}),
                                                               missing.astype(int))
    lines = export_text(model).splitlines()
    assert any(line.startswith("|--- c in {a, b} ") and "or missing" not in line
               for line in lines)
    assert any(line.startswith("|--- c is missing ") for line in lines)
    assert "{}" not in "\n".join(lines)


def test_category_names_with_line_breaks_or_tabs_are_quoted():
    """A category holding a newline broke export_text's one-line-per-node layout (the rest of
    the set started a line of its own); shown as Python writes it, 'e\\nf', it stays on one."""
    import pandas as pd

    labels = np.array(["e\nf", "g\th", "plain", "other"] * 30, dtype=object)
    y = np.isin(labels, ["e\nf", "g\th"]).astype(int)
    model = treesmith.DecisionTreeClassifier(max_depth=1).fit(pd.DataFrame({"c": labels}), y)
    lines = export_text(model).splitlines()
    assert len(lines) == 6  # summary, root, two branches, two leaves
    assert any(r"c in {'e\nf', 'g\th'}" in line for line in lines)


def test_interval_categories_read_as_their_text_quoted():
    """pandas.cut's intervals hold a comma: shown as their text quoted, '(0.0, 0.25]', not as
    the object's repr Interval(0.0, 0.25, closed='right')."""
    import pandas as pd

    values = np.random.default_rng(0).random(300)
    X = pd.DataFrame({"b": pd.cut(values, [0.0, 0.25, 0.5, 0.75, 1.0])})
    model = treesmith.DecisionTreeClassifier(max_depth=1).fit(X, (values > 0.5).astype(int))
    text = export_text(model)
    assert "b in {'(0.0, 0.25]', '(0.25, 0.5]'}" in text
    assert "Interval" not in text


def _stump_forest(costs=None):
    """A stand-in forest of hand-built trees: tree 0 splits feature 1 then feature 0, tree 1
    is a single leaf, tree 2 splits feature 1 twice."""
    leaf = LEAF + ([5, 5],)
    two = [(1, 2, 1, 0.5, False, [10, 10]), (3, 4, 0, 1.5, True, [6, 4]), leaf, leaf, leaf]
    one = [leaf]
    chain = [(1, 2, 1, 0.5, False, [10, 10]), leaf, (3, 4, 1, 2.5, False, [5, 5]), leaf, leaf]
    members = [SimpleNamespace(tree_=make_tree(nodes, 3)) for nodes in (two, one, chain)]
    return SimpleNamespace(estimators_=members, classes_=np.array(["no", "yes"]),
                           feature_names_in_=np.array(["a", "b", "c"], dtype=object),
                           feature_costs_=costs)


def test_forest_summary_counts_each_trees_depth_leaves_and_features():
    from treesmith.export import forest_summary

    text = forest_summary(_stump_forest())
    assert text.splitlines() == [
        "SimpleNamespace: 3 trees on 3 features, 2 classes (no, yes)",
        "tree  depth  leaves  splits  features used",
        "   0      2       3       2  a, b",
        "   1      0       1       0  none (a single leaf)",
        "   2      2       3       2  b",
        "depth 0 to 2 (mean 1.333), leaves 1 to 3 (mean 2.333)",
        "features used: b (2 trees, 3 splits), a (1 tree, 1 split)",
        "features never used: c"]


def test_forest_summary_shows_each_trees_worst_path_cost():
    """Per-test costs (the trees' default cost model): tree 0's worst path pays b then a,
    tree 2's pays b twice."""
    from treesmith.export import forest_summary

    text = forest_summary(_stump_forest(), feature_costs=[1, 4, 10])
    assert "tree  depth  leaves  splits  max cost  features used" in text
    assert "   0      2       3       2         5  a, b" in text
    assert "   2      2       3       2         8  b" in text
    assert "feature costs: a 1, b 4, c 10" in text


def test_forests_are_not_trees_to_the_exporters():
    from treesmith.export import forest_summary

    forest = _stump_forest()
    with pytest.raises(TypeError, match=r"holds 3 trees: export one of them, "
                                        r"estimator.estimators_\[i\] for i in 0..2"):
        export_text(forest)
    with pytest.raises(TypeError, match="forest must be a fitted forest"):
        forest_summary(forest.estimators_[0])


def _c45_weather(n=300, seed=0):
    """A C4.5 model's data: nominal ``outlook`` (some missing), numeric ``temp``."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"outlook": rng.choice(["sunny", "rain", "overcast"], n),
                      "temp": rng.normal(20, 5, n)})
    y = (((X.outlook == "sunny") & (X.temp > 20)) | (X.outlook == "overcast")).astype(int)
    X.loc[::10, "outlook"] = None
    return X, y


def test_c45_nominal_tests_print_their_values():
    """A C4.5 nominal test is drawn in ``tree_`` as code tests; the export names the values
    each branch takes (``outlook = overcast``), not codes (``outlook <= 0.5``), in the tree and
    in the rules, one value set per branch of the multiway test."""
    X, y = _c45_weather()
    model = treesmith.C45Classifier().fit(X, y)
    text = export_text(model)
    assert "outlook <=" not in text and "outlook >" not in text
    for value in ("overcast", "rain", "sunny"):
        assert re.search(rf"outlook = {value}\b", text), text
    assert "outlook in {rain, sunny}" in text  # the chain's first link, right
    rules = export_text(model, rules=True).splitlines()
    assert sorted(line.split(" THEN ")[0] for line in rules if line.startswith("IF")) == sorted([
        "IF (outlook in {overcast} or missing)", "IF outlook in {rain}",
        "IF outlook in {sunny} AND (temp <= 19.971 or missing)",
        "IF outlook in {sunny} AND temp > 19.971"])


def test_c45_binary_nominal_rules_are_j48s_and_skip_unreachable_branches():
    """With binary splits, C4.5 tests ``x = v``; the binary view draws it as code < v, = v, > v
    with the "other values" subtree under both outer sides, one of which no value takes when v
    is the first or last code (here v is the first code, overcast). The tree text marks such a
    branch, the rules leave it out: one rule per branch of J48's tree. (With v a middle code both
    copies are reachable and the rules list that subtree's leaves twice.)"""
    from treesmith.c45.weka import j48_text

    X, y = _c45_weather()
    model = treesmith.C45Classifier(binary_splits=True).fit(X, y)
    text = export_text(model)
    assert "outlook <=" not in text
    assert "(no value goes this way)" in text
    rules = [line for line in export_text(model, rules=True).splitlines()
             if line.startswith("IF")]
    assert all("{}" not in rule for rule in rules)
    n_j48_leaves = sum(line.count(": ") for line in j48_text(model).splitlines())
    assert len(rules) == n_j48_leaves == 4
    assert any(rule.startswith("IF outlook in {overcast} THEN") for rule in rules)


def test_c45_binary_nominal_rule_reached_by_missing_values_only_says_so():
    """``b = z`` with z the last code: the binary view's "code > z" side takes no value, but
    the missing ones go there (the heavier "other values" branch). Its rule reads ``b is
    missing``, as the tree text does, not ``(b in {} or missing)``; and every rule holds
    exactly for the rows that reach its leaf."""
    import pandas as pd

    b = np.array(list("xyz") * 10)
    X = pd.DataFrame({"b": pd.Categorical(b)})
    model = treesmith.C45Classifier(binary_splits=True).fit(X, (b == "z").astype(int))
    assert "b is missing" in export_text(model)
    rules = [line.split(" THEN ")[0] for line in export_text(model, rules=True).splitlines()
             if line.startswith("IF")]
    assert rules == ["IF b in {x, y}", "IF b in {z}", "IF b is missing"]
    rows = pd.DataFrame({"b": pd.Categorical(["x", "y", "z", None], categories=list("xyz"))})
    leaves = model.tree_.apply(model._encode_column(0, rows["b"].to_numpy(dtype=object))[:, None])
    assert leaves[0] == leaves[1] and len(set(leaves[1:].tolist())) == 3


def test_c45_export_header_gives_the_models_own_size_then_the_drawings():
    """The header gave the binary drawing's depth and nodes for a C4.5 model (depth 3, 11 nodes
    for a three-way test above three numeric tests, whose C4.5 depth is 2 with 10 nodes, as
    get_depth and compare report); it now gives C4.5's, then the drawing's, and a truncation
    says its depth counts the drawing's levels."""
    import pandas as pd

    u = np.repeat([-1.0, 1.0], 30)
    c = np.tile(list("pqr"), 20)
    X = pd.DataFrame({"u": u, "c": pd.Categorical(c)})
    code = pd.Categorical(c).codes
    y = np.where(u < 0, code, (code + 1) % 3)
    model = treesmith.C45Classifier(min_objects=1).fit(X, y)
    assert (model.get_depth(), model.c45_tree_.node_count, model.tree_.max_depth) == (2, 10, 3)
    header = export_text(model).splitlines()[0]
    assert header.startswith("# 6 leaves, depth 2, 10 nodes (drawn as binary tests: depth 3, "
                             "11 nodes)"), header
    assert "showing depth <= 2 of 3 levels of the binary drawing" in export_text(
        model, max_depth=2).splitlines()[0]
    numeric = treesmith.C45Classifier(min_objects=1).fit(X[["u"]], u > 0)
    assert export_text(numeric).startswith("# 2 leaves, depth 1, 3 nodes;")


# -- hostile arguments -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_model():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    return treesmith.DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, X[:, 0] > 0)


@pytest.mark.parametrize("call, error, match", [
    # any truthy value switched rules / filled / rounded on ('no' too), an array raised numpy's
    # ambiguous truth
    (lambda m: export_text(m, rules="no"), ValueError, r"^rules must be a bool, got 'no'\.$"),
    (lambda m: export_graphviz(m, filled=np.array([1, 0])), ValueError, r"filled must be a bool"),
    (lambda m: export_graphviz(m, rounded=0), ValueError, r"rounded must be a bool, got 0"),
    # a non-str font name raised AttributeError ('int' object has no attribute 'replace')
    (lambda m: export_graphviz(m, fontname=3), ValueError, r"^fontname must be a str, got 3$"),
    # an int out_file was a file descriptor: True wrote to standard output, 2 to stderr
    (lambda m: export_text(m, out_file=True), TypeError, r"^out_file must be None, a path or"),
    (lambda m: export_graphviz(m, out_file=2), TypeError, r"out_file must be None, a path"),
    # a scalar raised "'int' object is not iterable"; a str was one name per character
    (lambda m: export_text(m, feature_names=3), ValueError,
     r"^feature_names must be a list of 3 names, got 3$"),
    (lambda m: export_text(m, feature_names="abc"), ValueError,
     r"feature_names must be a list of 3 names, got 'abc'"),
    (lambda m: export_text(m, class_names=np.ones((2, 2))), ValueError,
     r"class_names must be a list of 2 names"),
    # a str cost raised float()'s "could not convert string to float"
    (lambda m: export_text(m, feature_costs=["a", 1, 1]), ValueError,
     r"^feature_costs must hold 3 finite non-negative numbers, got \['a', 1, 1\]$"),
    (lambda m: export_text(m, feature_costs=[1 + 1j, 1, 1]), ValueError,
     r"feature_costs must hold 3 finite non-negative numbers"),
    (lambda m: export_text(m, show_distribution=np.array(["counts"] * 2)), ValueError,
     r"show_distribution must be 'counts', 'proportions' or None"),
])
def test_hostile_export_arguments_are_named(small_model, call, error, match):
    with pytest.raises(error, match=match):
        call(small_model)


def test_class_names_true_gives_scikit_learns_symbolic_names(small_model):
    """scikit-learn's export_graphviz takes class_names=True ("y[0]", "y[1]", ...); it was
    "'bool' object is not iterable"."""
    assert "class: y[1]" in export_text(small_model, class_names=True)
    assert "y[0]" in export_graphviz(small_model, class_names=True)


def test_a_huge_precision_is_the_shortest_exact_text():
    """format_number(x, 2**31) raised OverflowError (numpy takes a C int); from 17 digits on
    the text is the shortest that reads back as the same float."""
    for value in (0.1, 1 / 3, 123.456789012345678, -2.5e-7):
        assert format_number(value, 2**31) == format_number(value, 17) \
            == format_number(value, None)


def test_forest_summary_checks_precision_and_costs():
    from treesmith.export import forest_summary

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    forest = treesmith.RandomForestClassifier(n_estimators=2, random_state=0).fit(X, X[:, 0] > 0)
    # precision was not checked: 2.5 raised "integer argument expected", 'a' a comparison error
    for precision in (2.5, "a", True, -1):
        with pytest.raises(ValueError, match=r"^precision must be a non-negative integer"):
            forest_summary(forest, precision=precision)
    with pytest.raises(ValueError, match=r"^feature_costs must hold 2 finite non-negative"):
        forest_summary(forest, feature_costs=["x", 1])
