"""Feature, class, category and method names that hold the exports' syntax (commas, braces,
quotes, line breaks, padding, empty names) or matplotlib's mathtext ``$``: every export stays
unambiguous and every figure draws the name as written. Ordinary names are shown unchanged."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import treesmith
from treesmith.export import export_graphviz, export_text, forest_summary, shown_name
from treesmith.plotting import plot_accuracy_vs_cost, plot_tree


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _stump(feature_names=("a, b", "c")):
    """A stump on x0 <= 0.5 with classes 'yes, no' (left) and 'z' (right)."""
    X = pd.DataFrame({feature_names[0]: [0.0, 0, 1, 1, 0, 1],
                      feature_names[1]: [0.0, 1, 0, 1, 1, 0]})
    y = np.array(["yes, no", "yes, no", "z", "z", "yes, no", "z"])
    return treesmith.DecisionTreeClassifier().fit(X, y)


def test_shown_name_quotes_only_ambiguous_names():
    for name in ("petal length (cm)", "class 1", "price $", "x_1", "naïve", "a-b/c"):
        assert shown_name(name) == name
    expected = {"Nice, Lyon": "'Nice, Lyon'", "a\nb": "'a\\nb'", "": "''", " x": "' x'",
                "x ": "'x '", "{a}": "'{a}'", "x<=3": "'x<=3'", "it's": '"it\'s"',
                'q"uote': "'q\"uote'", "a AND b": "'a AND b'", "tab\there": "'tab\\there'"}
    for name, shown in expected.items():
        assert shown_name(name) == shown


def test_export_text_quotes_hostile_feature_and_class_names():
    """'a, b <= 0.5' read as two things, and 'class: yes, no' as two classes."""
    model = _stump()
    assert export_text(model) == (
        "# 2 leaves, depth 1, 3 nodes; counts per class: ['yes, no', z]\n"
        "root  n=6 [3, 3]\n"
        "|--- 'a, b' <= 0.5 or missing  n=3 [3, 0]\n"
        "|   |--- class: 'yes, no' (p=1, n=3)\n"
        "|--- 'a, b' > 0.5  n=3 [0, 3]\n"
        "|   |--- class: z (p=1, n=3)\n")
    assert export_text(model, rules=True) == (
        "IF ('a, b' <= 0.5 or missing) THEN 'yes, no' (p=1, n=3)\n"
        "IF 'a, b' > 0.5 THEN z (p=1, n=3)\n")
    given = export_text(model, feature_names=["x\ny", " pad"], class_names=["", 'q"uote'],
                        rules=True)
    assert given == ("IF ('x\\ny' <= 0.5 or missing) THEN '' (p=1, n=3)\n"
                     "IF 'x\\ny' > 0.5 THEN 'q\"uote' (p=1, n=3)\n")
    assert len(given.splitlines()) == 2  # the line break of the name is not one of the text


def test_ordinary_names_are_unchanged():
    model = _stump(("petal length (cm)", "width"))
    text = export_text(model, class_names=["setosa", "class 2"])
    assert "|--- petal length (cm) <= 0.5 or missing" in text
    assert "class: setosa (p=1, n=3)" in text and "[setosa, class 2]" in text
    assert "'" not in text


def test_categories_with_quotes_commas_are_quoted_in_sets():
    """A category "'Paris'" looked like the quoted category 'Paris'."""
    city = ["Nice, Lyon", "Paris", "O'Brien", "'Paris'"] * 3
    X = pd.DataFrame({"city": pd.Categorical(city), "n": np.zeros(12)})
    model = treesmith.DecisionTreeClassifier().fit(X, np.array([0, 1, 0, 1] * 3))
    assert export_text(model, rules=True) == (
        "IF (city in {'Nice, Lyon', \"O'Brien\"} or missing) THEN 0 (p=1, n=6)\n"
        "IF city in {\"'Paris'\", Paris} THEN 1 (p=1, n=6)\n")


def test_graphviz_labels_keep_hostile_names_inside_one_line_of_a_box():
    """A name's line break became a DOT line break (a box line of its own)."""
    dot = export_graphviz(_stump(), feature_names=["x\ny", "c"], class_names=["", 'q"uote'])
    assert '0 [label="\'x\\\\ny\' <= 0.5\\nmissing → yes\\nn = 6 [3, 3]\\n\'\' (p = 0.5)"' in dot
    assert '2 [label="n = 3 [0, 3]\\n\'q\\"uote\' (p = 1)"' in dot
    for line in dot.splitlines()[1:-1]:  # every statement on one line, quotes balanced
        assert line.endswith(";")
        assert line.replace('\\"', "").count('"') % 2 == 0


def test_forest_summary_quotes_hostile_feature_and_class_names():
    X = pd.DataFrame({"a, b": np.arange(12.0), "plain": np.arange(12.0) % 3})
    y = np.array(["x, y", "z", "x, y", "z"] * 3)
    forest = treesmith.RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    lines = forest_summary(forest).splitlines()
    assert lines[0] == "RandomForestClassifier: 2 trees on 2 features, 2 classes ('x, y', z)"
    assert lines[-1].startswith("features used: 'a, b' (2 trees, ")
    assert lines[-1].count(", plain (") == 1
    assert all(row.endswith("'a, b', plain") for row in lines[2:4])


_MATH_NAMES = ["price $", "a$b$c", "$\\frac$"]  # the last one is invalid mathtext


def _texts_with_dollars(figure):
    return [t for t in figure.findobj(matplotlib.text.Text) if "$" in t.get_text()]


def test_plot_tree_draws_dollar_names_as_written():
    """'a$b$c' was drawn as math (b in italics, the $ gone) and '$\\frac$' raised in draw."""
    X = pd.DataFrame({name: col for name, col in
                      zip(_MATH_NAMES, np.random.default_rng(0).normal(size=(3, 60)))})
    y = np.where(X.iloc[:, 1] > 0, "$1$", "b$")
    model = treesmith.DecisionTreeClassifier(max_depth=2).fit(X, y)
    artists = plot_tree(model, title="tree of $x$")
    figure = artists[0].figure
    figure.canvas.draw()  # renders with Agg: no mathtext error
    texts = _texts_with_dollars(figure)
    assert texts and all(not t.get_parse_math() for t in texts)
    drawn = "\n".join(t.get_text() for t in texts)
    for name in ["a$b$c", "$1$", "b$", "tree of $x$"]:
        assert name in drawn
    legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert legend == ["$1$", "b$"]


def test_accuracy_vs_cost_draws_dollar_labels_as_written():
    summary = pd.DataFrame({"method": ["CART $", "a$b$c", "$\\frac$"],
                            "accuracy_mean": [0.8, 0.9, 0.85], "accuracy_std": [0.01] * 3,
                            "expected_cost_mean": [1.0, 2.0, 3.0],
                            "expected_cost_std": [0.1] * 3})
    ax = plot_accuracy_vs_cost(summary, cost_label="cost ($ per $x$)", title="$a$ vs $b$")
    ax.figure.canvas.draw()
    texts = _texts_with_dollars(ax.figure)
    assert all(not t.get_parse_math() for t in texts)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == summary["method"].tolist()
    assert ax.get_xlabel() == "cost ($ per $x$)" and ax.get_title() == "$a$ vs $b$"
