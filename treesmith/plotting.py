"""Matplotlib figures: the tree itself (``plot_tree``) and the accuracy-vs-cost chart of
``treesmith compare`` (``plot_accuracy_vs_cost``).

``plot_tree`` is the matplotlib subclass of the shared exporter of :mod:`treesmith.export`, so a
box shows exactly what the text and DOT exports show. Its layout is sized from the text: leaves
sit on a grid one box-width apart and an internal node at the midpoint of its children, so no
two boxes of a level can overlap whatever the tree's shape (two internal nodes of one level are
at least two grid steps apart, an internal node and a leaf one and a half). A new figure is
made as large as the tree needs; drawn into a given ``ax``, the fonts shrink to fit instead.

User text (feature, class, category and method names, titles, axis labels) is drawn as it is
written, never parsed as mathtext: a name such as "price $" or "a$b$c" would be garbled or
raise (``parse_math=False`` on every text artist, legends included).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from ._compat import optional_import
from ._validation import Interval, check_parameter
from .export import TreeExporter, _check_flag, class_colours

#: Average glyph width and line height of the default sans-serif font, in ems.
_CHAR_WIDTH_EM = 0.62
_LINE_HEIGHT_EM = 1.3
_BOX_PAD_EM = 0.35
_H_GAP_IN = 0.3
_V_GAP_IN = 0.55
_MIN_FONTSIZE = 4.0


class MPLExporter(TreeExporter):
    """Draw the tree with matplotlib (boxes coloured by predicted class, shade by purity)."""

    def __init__(self, estimator, *, filled: bool = True, fontsize: float | None = None,
                 legend: bool = True, title: str | None = None, **options):
        super().__init__(estimator, **options)
        # a bool was a font size of 1, NaN reached matplotlib ("figure size must be positive
        # finite"), a truthy 'no' drew the fill and the legend, a list was the title's text
        check_parameter("fontsize", fontsize, [None, Interval(Real, 0.0, None, "neither")])
        if not (title is None or isinstance(title, str)):
            raise ValueError(f"title must be a str or None, got {title!r}")
        self.filled = _check_flag("filled", filled)
        self.legend = _check_flag("legend", legend)
        self.fontsize, self.title = fontsize, title

    # -- layout (in inches at the base font size) -------------------------------------------
    def _box_size(self, lines, fontsize):
        em = fontsize / 72.0
        width = (max(len(line) for line in lines) * _CHAR_WIDTH_EM + 2 * _BOX_PAD_EM) * em
        height = (len(lines) * _LINE_HEIGHT_EM + 2 * _BOX_PAD_EM) * em
        return width, height

    def layout(self, fontsize: float):
        """Node order, x/y centres (inches), box sizes and the drawing's width and height."""
        order = list(self.walk())
        lines = {node: self.node_lines(node) for node in order}
        sizes = {node: self._box_size(lines[node], fontsize) for node in order}
        leaves = [node for node in order if self.shown_as_leaf(node)]
        internal = [node for node in order if not self.shown_as_leaf(node)]
        leaf_width = max(sizes[node][0] for node in leaves)
        internal_width = max((sizes[node][0] for node in internal), default=0.0)
        step = max(leaf_width, internal_width / 2) + _H_GAP_IN
        level_height = max(size[1] for size in sizes.values()) + _V_GAP_IN
        position = 0
        x = {}
        for node in order:
            if self.shown_as_leaf(node):
                x[node] = (position + 0.5) * step
                position += 1
        for node in reversed(order):  # children before parents
            if not self.shown_as_leaf(node):
                x[node] = 0.5 * (x[int(self.tree.children_left[node])]
                                 + x[int(self.tree.children_right[node])])
        depth = {node: int(self.tree.depth[node]) for node in order}
        n_levels = max(depth.values()) + 1
        y = {node: -(depth[node] + 0.5) * level_height for node in order}
        return order, lines, sizes, x, y, len(leaves) * step, n_levels * level_height

    # -- drawing ----------------------------------------------------------------------------
    def export(self, ax=None):
        plt = optional_import("matplotlib.pyplot")
        base = float(self.fontsize or 9.0)
        order, lines, sizes, x, y, width, height = self.layout(base)
        if ax is None:
            scale = 1.0
            max_inches = 150.0  # keeps the image within matplotlib's pixel limits
            if width > max_inches:
                scale = max(_MIN_FONTSIZE / base, max_inches / width)
            margin_top = 0.6 if self._title() else 0.2
            margin_bottom = 0.9 if self.legend else 0.2
            fig_width = max(width * scale + 0.4, 4.0)
            fig_height = height * scale + margin_top + margin_bottom
            fig = plt.figure(figsize=(fig_width, fig_height))
            ax = fig.add_axes([0.2 / fig_width, margin_bottom / fig_height,
                               (fig_width - 0.4) / fig_width, height * scale / fig_height])
        else:
            fig = getattr(ax, "figure", None)
            if fig is None or not hasattr(ax, "get_window_extent"):
                raise TypeError(f"ax must be a matplotlib Axes or None, got "
                                f"{type(ax).__name__}")
            box = ax.get_window_extent().transformed(fig.dpi_scale_trans.inverted())
            scale = min(1.0, box.width / width, box.height / height)
        fontsize = base * scale
        # Data units are layout inches: 1 unit = ``scale`` inches on the page in both directions.
        axes_box = ax.get_window_extent().transformed(fig.dpi_scale_trans.inverted())
        span_x = max(width, axes_box.width / scale)
        span_y = max(height, axes_box.height / scale)
        offset = (span_x - width) / 2
        ax.set_xlim(0, span_x)
        ax.set_ylim(-span_y + (span_y - height) / 2, (span_y - height) / 2)
        ax.set_axis_off()
        artists = []
        for node in order:
            face = self.fill_colour(node) if self.filled else (1.0, 1.0, 1.0)
            text = ax.text(x[node] + offset, y[node], "\n".join(lines[node]), ha="center",
                           va="center", fontsize=fontsize, linespacing=1.2, zorder=3,
                           parse_math=False,
                           bbox={"boxstyle": f"round,pad={_BOX_PAD_EM}", "facecolor": face,
                                 "edgecolor": "0.35", "linewidth": 0.8})
            artists.append(text)
        for node in order:
            if self.shown_as_leaf(node):
                continue
            top = y[node] - sizes[node][1] / 2
            for child, answer in ((int(self.tree.children_left[node]), "yes"),
                                  (int(self.tree.children_right[node]), "no")):
                bottom = y[child] + sizes[child][1] / 2
                ax.annotate("", xy=(x[child] + offset, bottom), xytext=(x[node] + offset, top),
                            arrowprops={"arrowstyle": "-|>", "color": "0.4", "linewidth": 0.8,
                                        "shrinkA": 0, "shrinkB": 0,
                                        "mutation_scale": 10 * scale}, zorder=1)
                label_x = x[node] + offset + 0.5 * (x[child] - x[node])
                label_y = 0.5 * (top + bottom)
                artists.append(ax.text(label_x, label_y, answer, ha="center", va="center",
                                       fontsize=fontsize * 0.85, color="0.2", zorder=2,
                                       bbox={"boxstyle": "round,pad=0.1", "facecolor": "white",
                                             "edgecolor": "none"}))
        if self._title():
            ax.set_title(self._title(), fontsize=max(base * scale, 8) * 1.1, parse_math=False)
        if self.legend:
            self._draw_legend(ax, fontsize)
        return artists

    def _title(self) -> str:
        if self.title is not None:
            return self.title
        return f"Decision tree: {self.summary()}; left branch = test true (yes)"

    def _draw_legend(self, ax, fontsize):
        patches = optional_import("matplotlib.patches")
        if self.is_classifier:
            colours = class_colours(self.tree.n_classes)
            handles = [patches.Patch(facecolor=colours[k], edgecolor="0.35", label=name)
                       for k, name in enumerate(self.class_names)]
            title = "predicted class (paler = less pure node)"
        else:
            values = self.tree.value[:, 0]
            lowest, highest = int(np.argmin(values)), int(np.argmax(values))
            handles = [patches.Patch(facecolor=self.fill_colour(lowest), edgecolor="0.35",
                                     label=f"lowest mean ({self.number(values[lowest])})"),
                       patches.Patch(facecolor=self.fill_colour(highest), edgecolor="0.35",
                                     label=f"highest mean ({self.number(values[highest])})")]
            title = "node mean label"
        legend = ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                           ncol=min(len(handles), 6), frameon=False, fontsize=max(fontsize, 7),
                           title=title, title_fontsize=max(fontsize, 7))
        _verbatim(legend)


def _verbatim(legend):
    """Draw a legend's labels and title as written (no mathtext): they hold user names."""
    for text in [*legend.get_texts(), legend.get_title()]:
        text.set_parse_math(False)


def plot_tree(estimator, *, ax=None, feature_names=None, class_names=None, feature_costs=None,
              precision: int | None = 3, max_depth: int | None = None,
              show_distribution: str | None = "counts", filled: bool = True,
              fontsize: float | None = None, legend: bool = True, title: str | None = None):
    """Draw a fitted tree with matplotlib; returns the list of text artists (boxes, edge labels).

    Each box shows the test in original units, the side missing values take, the test's cost
    (when costs are known), the sample count and class distribution and the predicted class
    with its probability. Without ``ax`` a figure sized to the tree is created (readable at any
    size up to about 80 leaves; beyond that use ``max_depth``); with ``ax`` the fonts shrink to
    fit it. See :class:`treesmith.export.TreeExporter` for the shared parameters.
    """
    exporter = MPLExporter(estimator, feature_names=feature_names, class_names=class_names,
                           feature_costs=feature_costs, precision=precision, max_depth=max_depth,
                           show_distribution=show_distribution, filled=filled,
                           fontsize=fontsize, legend=legend, title=title)
    return exporter.export(ax=ax)


def plot_accuracy_vs_cost(summary, *, ax=None, runs=None,
                          cost_label="expected cost per example (cost units)",
                          title: str | None = None):
    """Scatter of mean test accuracy against mean expected cost, one point per method.

    ``summary`` is a DataFrame with columns ``method``, ``accuracy_mean``, ``accuracy_std``,
    ``expected_cost_mean``, ``expected_cost_std``; ``runs`` (optional) the per-repeat rows
    (``method``, ``accuracy``, ``expected_cost``) drawn faintly behind the means. Error bars are
    one standard deviation across repeats; ``cost_label`` is the x-axis label, units included.
    Returns the Axes.
    """
    plt = optional_import("matplotlib.pyplot")
    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 5.0), layout="constrained")
    colours = class_colours(len(summary))
    markers = "osD^vP*Xh<>p"
    for k, row in enumerate(summary.itertuples(index=False)):
        colour, marker = colours[k], markers[k % len(markers)]
        if runs is not None:
            mine = runs[runs["method"] == row.method]
            ax.scatter(mine["expected_cost"], 100 * mine["accuracy"], color=colour, alpha=0.25,
                       s=14, marker=marker, linewidths=0)
        ax.errorbar(row.expected_cost_mean, 100 * row.accuracy_mean,
                    xerr=row.expected_cost_std, yerr=100 * row.accuracy_std, fmt=marker,
                    color=colour, markersize=8, capsize=3, markeredgecolor="black",
                    label=row.method)
    ax.set_xlabel(cost_label, parse_math=False)
    ax.set_ylabel("test accuracy (%)")
    ax.grid(True, alpha=0.3)
    # Outside the axes, so that it can never hide a point.
    _verbatim(ax.legend(title="method: mean ± 1 sd\n(faint marks: single repeats)",
                        loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9,
                        title_fontsize=9, borderaxespad=0))
    if title:
        ax.set_title(title, parse_math=False)
    return ax
