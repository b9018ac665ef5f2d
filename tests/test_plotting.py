"""treesmith.plotting: tree figures with no overlapping boxes, and the accuracy-vs-cost chart."""

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import treesmith
from treesmith.plotting import plot_accuracy_vs_cost, plot_tree


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def cancer_model():
    X, y = treesmith.load_dataset("sklearn:breast_cancer")
    return treesmith.DecisionTreeClassifier(random_state=0).fit(X, y)


def _extents(artists):
    figure = artists[0].figure
    figure.canvas.draw()  # places the text boxes
    renderer = figure.canvas.get_renderer()
    boxes = []
    for artist in artists:
        patch = artist.get_bbox_patch()
        boxes.append(patch.get_window_extent(renderer) if patch is not None
                     else artist.get_window_extent(renderer))
    return figure, boxes


def _assert_no_overlap(artists):
    figure, boxes = _extents(artists)
    for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
        assert not a.overlaps(b), (artists[i].get_text(), artists[j].get_text())
    width, height = figure.bbox.width, figure.bbox.height
    for box in boxes:  # inside the figure
        assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and box.y1 <= height + 1


def test_large_tree_boxes_and_edge_labels_never_overlap(cancer_model):
    tree = cancer_model.tree_
    assert tree.n_leaves >= 20
    artists = plot_tree(cancer_model)
    boxes = [a for a in artists if a.get_text() not in ("yes", "no")]
    labels = [a for a in artists if a.get_text() in ("yes", "no")]
    assert len(boxes) == tree.node_count and len(labels) == tree.node_count - 1
    for artist in boxes:
        assert artist.get_fontsize() >= 8  # readable: a new figure grows instead of shrinking
    _assert_no_overlap(artists)
    ax = boxes[0].axes
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["benign", "malignant"]
    assert "22 leaves" in ax.get_title()


def test_every_node_text_is_the_exporters(cancer_model):
    from treesmith.export import TreeExporter

    exporter = TreeExporter(cancer_model)
    expected = sorted("\n".join(exporter.node_lines(n)) for n in range(cancer_model.tree_.node_count))
    texts = sorted(a.get_text() for a in plot_tree(cancer_model) if a.get_text() not in ("yes", "no"))
    assert texts == expected


def test_drawing_into_a_small_axes_shrinks_fonts_without_overlap(cancer_model):
    _, ax = plt.subplots(figsize=(8, 5))
    artists = plot_tree(cancer_model, ax=ax, legend=False)
    assert artists[0].get_fontsize() < 8
    _assert_no_overlap(artists)


def test_max_depth_and_regression(cancer_model):
    artists = plot_tree(cancer_model, max_depth=2)
    boxes = [a for a in artists if a.get_text() not in ("yes", "no")]
    assert len(boxes) == 7 and any("subtree not shown" in a.get_text() for a in boxes)
    X, y = treesmith.load_dataset("sklearn:diabetes")
    regressor = treesmith.DecisionTreeRegressor(max_depth=3).fit(X, y)
    artists = plot_tree(regressor)
    _assert_no_overlap(artists)
    legend_texts = [t.get_text() for t in artists[0].axes.get_legend().get_texts()]
    assert legend_texts[0].startswith("lowest mean") and legend_texts[1].startswith("highest")


def test_accuracy_vs_cost_chart_has_units_legend_and_error_bars():
    summary = pd.DataFrame({"method": ["cart", "c45"], "accuracy_mean": [0.9, 0.92],
                            "accuracy_std": [0.01, 0.02], "expected_cost_mean": [4.0, 3.5],
                            "expected_cost_std": [0.3, 0.2]})
    runs = pd.DataFrame({"method": ["cart", "cart", "c45", "c45"],
                         "accuracy": [0.89, 0.91, 0.9, 0.94],
                         "expected_cost": [3.7, 4.3, 3.3, 3.7]})
    ax = plot_accuracy_vs_cost(summary, runs=runs, cost_label="expected tests per example (unit costs)",
                               title="iris")
    assert ax.get_xlabel() == "expected tests per example (unit costs)"
    assert ax.get_ylabel() == "test accuracy (%)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["cart", "c45"]
    means = [container.lines[0].get_xydata()[0] for container in ax.containers]
    np.testing.assert_allclose(means, [[4.0, 90.0], [3.5, 92.0]])


def test_a_long_set_of_categories_wraps_in_the_boxes():
    """A split by a set of 100 categories was one line of 1500 characters in its box: the
    figure was capped at 150 inches and drawn at 4 pt, unreadable. Boxes (plot_tree, DOT) wrap
    a set between two categories; export_text keeps one line per node (review 15b)."""
    import pandas as pd

    from treesmith.export import BOX_LINE_WIDTH, TreeExporter

    rng = np.random.default_rng(0)
    names = [f"category_{i}" for i in range(200)]
    city = rng.choice(names, 4000)
    effect = dict(zip(names, rng.random(200)))
    y = (rng.random(4000) < pd.Series(city).map(effect)).astype(int)
    model = treesmith.DecisionTreeClassifier(max_depth=2).fit(pd.DataFrame({"city": city}), y)
    exporter = TreeExporter(model)
    first = exporter.node_lines(0)
    condition = exporter.condition(0, True)
    assert len(condition) > 10 * BOX_LINE_WIDTH
    wrapped = first[:first.index(next(line for line in first if line.startswith("missing")))]
    assert len(wrapped) > 10 and max(len(line) for line in wrapped) <= BOX_LINE_WIDTH
    assert " ".join(wrapped) == condition  # whole categories per line, in the set's order
    text = treesmith.export_text(model)
    assert condition in text
    artists = plot_tree(model)
    assert artists[0].figure.get_size_inches()[0] < 40


@pytest.mark.parametrize("params, error, match", [
    # NaN reached matplotlib ("figure size must be positive finite"), True was a size of 1
    ({"fontsize": np.nan}, ValueError, r"fontsize must be None or a float > 0.0, got nan"),
    ({"fontsize": True}, ValueError, r"fontsize must be None or a float > 0.0, got True"),
    # any truthy value drew the fill / the legend; an array raised numpy's ambiguous truth
    ({"legend": "no"}, ValueError, r"^legend must be a bool, got 'no'\.$"),
    ({"filled": np.array([1, 0])}, ValueError, r"^filled must be a bool"),
    ({"title": ["a"]}, ValueError, r"^title must be a str or None, got \['a'\]$"),
    # AttributeError: "'int' object has no attribute 'figure'"
    ({"ax": 3}, TypeError, r"^ax must be a matplotlib Axes or None, got int$"),
])
def test_hostile_plot_arguments_are_named(cancer_model, params, error, match):
    with pytest.raises(error, match=match):
        treesmith.plot_tree(cancer_model, max_depth=1, **params)
