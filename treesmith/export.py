"""Tree exports: indented text, IF-THEN rules and Graphviz DOT (``plot_tree`` lives in plotting).

As in scikit-learn, one base exporter (:class:`TreeExporter`) turns a fitted tree into the
pieces every format shows — the test of a node in original units, the side a missing value
takes, the training sample count and class distribution, the predicted class with its
probability, the cost of the test's feature (when the estimator has ``feature_costs_`` or costs
are passed in) — and a subclass per format lays them out: :class:`TextExporter`,
:class:`DotExporter` and, in :mod:`treesmith.plotting`, the matplotlib exporter. Every export
shows every node unless ``max_depth`` truncates it; the indented text, whose width grows with
depth, shows ``TEXT_MAX_DEPTH`` levels by default and says so when it cuts. Producing DOT needs
no Graphviz install.

Every export is one walk over the shown nodes that carries the path's state (indentation,
per-feature bounds of the rules, the path cost from :func:`treesmith.costs.node_path_costs`),
so its time and memory are linear in the size of its output; with ``out_file`` the lines are
written as they are produced.
"""

from __future__ import annotations

import colorsys
import os

import numpy as np

from ._dtypes import TREE_LEAF
from ._validation import check_parameter
from .categorical import category_text
from .costs import node_path_costs
from .tree import Tree

#: Levels :func:`export_text` shows by default (as scikit-learn's ``export_text``): indented
#: text grows with the square of the depth (a depth-20 000 chain would be ~10 GB).
TEXT_MAX_DEPTH = 10

#: Qualitative colours for classes (colour-blind-friendly Okabe–Ito order, then generated hues).
_BASE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
                 "#999999")


def class_colours(n_classes: int) -> list[tuple[float, float, float]]:
    """One RGB colour (components in [0, 1]) per class, distinct for any number of classes."""
    colours = [tuple(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)) for c in _BASE_COLOURS]
    extra = max(0, n_classes - len(colours))
    colours += [colorsys.hsv_to_rgb(k / extra, 0.6, 0.85) for k in range(extra)]
    return colours[:max(n_classes, 1)]


def format_number(value: float, precision: int | None) -> str:
    """A number for display: ``precision`` decimals when ``|value| >= 1``, ``precision``
    significant digits below 1 (so 0.00345 stays 0.00345), trailing zeros dropped;
    ``precision=None`` gives the shortest text that reads back as the same float."""
    value = float(value)
    if not np.isfinite(value):
        return str(value)
    if precision is None:
        text = np.format_float_positional(value, unique=True, trim="-")
    else:
        # beyond 17 digits the shortest unique text is reached (numpy takes a C int: 2**31
        # raised OverflowError)
        text = np.format_float_positional(value, precision=min(max(precision, 1), 17),
                                          unique=True, fractional=abs(value) >= 1, trim="-")
        if precision == 0 and abs(value) >= 1:
            text = str(round(value))
    return "0" if text == "-0" else text


#: Marks of the exports' syntax (``x <= 1``, ``x in {a, b}``, the ``[a, b]`` lists, quotes)
#: that make a feature or class name holding one ambiguous.
_SYNTAX_MARKS = (",", "{", "}", "<", ">", "=", "'", '"')


def shown_name(name: str) -> str:
    """A feature or class name as the exports write it: as it is, or quoted as Python writes a
    string (``repr``: ``'Nice, Lyon'``, ``'a\\nb'``) when it would be ambiguous there: empty,
    padded with spaces, holding a line break or another unprintable character, one of
    ``, { } < > = ' "``, or `` AND `` (the connective of the rules)."""
    ambiguous = (not name or name != name.strip() or not name.isprintable()
                 or any(mark in name for mark in _SYNTAX_MARKS) or " AND " in name)
    return repr(name) if ambiguous else name


def _check_depth_like(parameter: str, value):
    """``value`` if it is None or a non-negative integer; ValueError naming ``parameter``."""
    if value is not None and (not isinstance(value, (int, np.integer)) or isinstance(value, bool)
                              or value < 0):
        raise ValueError(f"{parameter} must be a non-negative integer or None, got {value!r}")
    return value


#: The boxes of ``plot_tree`` and ``export_graphviz`` wrap a set of categories to lines of at
#: most this many characters (a longer category keeps a line of its own): a split by a set of
#: 100 categories was one line of 1500 characters, a figure hundreds of inches wide.
BOX_LINE_WIDTH = 60


def _joined_set(items: list[str], width: int | None, start: int) -> str:
    """``{a, b, c}``; with ``width``, a line break after a comma wherever the next item would
    take the line past ``width`` characters (the first line already holds ``start``)."""
    if width is None:
        return "{" + ", ".join(items) + "}"
    text = "{"
    line = start + 1
    for i, item in enumerate(items):
        piece = item + (", " if i < len(items) - 1 else "}")
        if i and line + len(piece.rstrip()) > width:
            text = text.rstrip() + "\n"
            line = 0
        text += piece
        line += len(piece)
    return text


def _check_flag(parameter: str, value) -> bool:
    """``value`` if it is a bool; ValueError naming ``parameter`` (a truthy 'no' was True)."""
    check_parameter(parameter, value, ["boolean"])
    return bool(value)


def _check_out_file(out_file) -> None:
    """None, a path (str or os.PathLike) or an open text file (with ``write``): an int was
    taken by ``open`` as a file descriptor (``out_file=True`` wrote to standard output)."""
    if out_file is None or hasattr(out_file, "write") or isinstance(out_file, (str, os.PathLike)):
        return
    raise TypeError(f"out_file must be None, a path or an open text file, got "
                    f"{type(out_file).__name__} {out_file!r}")


def _checked_costs(costs, n_features: int):
    """Costs as float64, one finite non-negative number per column; ValueError otherwise."""
    try:
        values = None if np.iscomplexobj(costs) else np.asarray(costs, dtype=np.float64)
    except (TypeError, ValueError):
        values = None
    if values is None or values.shape != (n_features,) or not np.all(np.isfinite(values)) \
            or np.any(values < 0):
        shown = f"shape {values.shape}" if values is not None else repr(costs)
        raise ValueError(f"feature_costs must hold {n_features} finite non-negative numbers, got "
                         f"{shown}")
    return values


class TreeExporter:
    """What every format shows about each node; subclasses lay it out.

    Parameters:
        estimator: a fitted treesmith estimator, or a bare :class:`treesmith.tree.Tree`.
        feature_names: names of the columns (default: the estimator's ``feature_names_in_``,
            else ``feature_0, feature_1, …``).
        class_names: names of the classes (default: the estimator's ``classes_``). A feature
            or class name that would be ambiguous in the text is shown quoted
            (:func:`shown_name`).
        feature_costs: cost of each column (default: the estimator's ``feature_costs_`` when it
            has them and they are not all 1; no costs are shown otherwise). Path costs follow
            the estimator's ``cost_model_`` and ``cost_groups_`` when it has them.
        precision: decimals of thresholds and proportions (None: exact shortest form).
        max_depth: deepest level shown (None: the whole tree).
        show_distribution: show the training class counts (``"counts"``, the default), the
            weighted class proportions (``"proportions"``) or nothing (``None``).
    """

    def __init__(self, estimator, *, feature_names=None, class_names=None, feature_costs=None,
                 precision: int | None = 3, max_depth: int | None = None,
                 show_distribution: str | None = "counts"):
        if isinstance(estimator, Tree):
            self.tree, source = estimator, None
        elif isinstance(getattr(estimator, "tree_", None), Tree):
            self.tree, source = estimator.tree_, estimator
        elif getattr(estimator, "estimators_", None):
            n_trees = len(estimator.estimators_)
            raise TypeError(f"a {type(estimator).__name__} holds {n_trees} trees: export one of "
                            f"them, estimator.estimators_[i] for i in 0..{n_trees - 1}, or "
                            "summarise the forest with treesmith.export.forest_summary")
        else:
            raise TypeError("estimator must be a fitted treesmith estimator (with a tree_) or a "
                             f"treesmith.tree.Tree, got {type(estimator).__name__}")
        tree = self.tree
        self.is_classifier = tree.n_classes > 0
        self.categories = getattr(source, "categories_", None)
        self.category_precision = getattr(source, "category_precision_", None)
        self.feature_names = self._names(
            "feature_names", feature_names,
            getattr(source, "feature_names_in_", None), tree.n_features,
            [f"feature_{j}" for j in range(tree.n_features)])
        if self.is_classifier:
            self.class_names = self._names(
                "class_names", class_names, getattr(source, "classes_", None), tree.n_classes,
                [f"class {k}" for k in range(tree.n_classes)])
        else:
            self.class_names = []
        self.feature_costs = self._costs(feature_costs, source)
        self.c45_tree = getattr(source, "c45_tree_", None)  # its multiway tests count once
        self.cost_model = getattr(source, "cost_model_", getattr(source, "cost_model",
                                                                  "per_test"))
        groups = getattr(source, "cost_groups_", None)
        self.cost_groups = np.arange(tree.n_features) if groups is None or np.shape(
            groups) != (tree.n_features,) else np.asarray(groups)
        self.precision = _check_depth_like("precision", precision)
        self.max_depth = _check_depth_like("max_depth", max_depth)
        if not (show_distribution is None or isinstance(show_distribution, str)) \
                or show_distribution not in ("counts", "proportions", None):
            raise ValueError("show_distribution must be 'counts', 'proportions' or None, got "
                             f"{show_distribution!r}")
        self.show_distribution = show_distribution
        self._path_costs = None
        self._nominal_bounds = None
        self._value_range = None
        self._heights = None
        self._colours = None

    def _costs(self, given, source):
        """The costs to show: the given ones, else the fitted ones unless they are all 1
        (unit costs say nothing beyond the tree's shape)."""
        costs = given
        if costs is None:
            fitted = getattr(source, "feature_costs_", None)
            costs = None if fitted is None or np.all(np.asarray(fitted) == 1) else fitted
        if costs is None:
            return None
        return _checked_costs(costs, self.tree.n_features)

    @staticmethod
    def _names(parameter, given, fitted, expected, default):
        """The names to show (:func:`shown_name`): the given ones, else the fitted ones, else
        ``default``."""
        if given is True and parameter == "class_names":  # scikit-learn: symbolic names
            given = [f"y[{k}]" for k in range(expected)]
        names = given if given is not None else fitted
        if names is None:
            return default
        if isinstance(names, (str, bytes)) or np.ndim(names) != 1:
            raise ValueError(f"{parameter} must be a list of {expected} names, got {names!r}")
        names = [str(name) for name in names]
        if len(names) != expected:
            raise ValueError(f"{parameter} must have {expected} entries, got {len(names)}")
        return [shown_name(name) for name in names]

    # -- node facts -------------------------------------------------------------------------
    def number(self, value: float) -> str:
        return format_number(value, self.precision)

    def is_leaf(self, node: int) -> bool:
        return bool(self.tree.children_left[node] == TREE_LEAF)

    def shown_as_leaf(self, node: int) -> bool:
        """A leaf, or a node at the depth where ``max_depth`` truncates the export."""
        return self.is_leaf(node) or (self.max_depth is not None
                                      and self.tree.depth[node] >= self.max_depth)

    def category_set(self, feature: int, codes, width: int | None = None,
                     start: int = 0) -> str:
        """Categories as ``{Lyon, Nice}`` (their codes when the categories are not known).
        A category whose text would be ambiguous in that list (empty, padded with spaces,
        holding ``,``, ``{``, ``}``, a quote or a line break or other unprintable character, or
        the text of another category, as 1 and '1') is shown quoted, as Python writes it:
        ``{'', 'Nice, France'}``; another object (an interval of ``pandas.cut``) as its text
        quoted, ``{'(0.0, 0.25]'}``, unless that text is another category's.

        ``width``: a line break after a category's comma wherever the next category would
        take the line (which already holds ``start`` characters) past ``width`` characters
        (the boxes of ``node_lines``)."""
        categories = self.categories[feature] if self.categories is not None else None
        if categories is None:
            return _joined_set([str(c) for c in sorted(codes)], width, start)
        precision = (self.category_precision[feature]
                     if self.category_precision is not None else None)
        texts = [category_text(category, precision) for category in categories]
        repeated = {text for text in texts if texts.count(text) > 1}

        def shown(code: int) -> str:
            if code >= len(texts):
                return str(code)
            text = texts[code]
            ambiguous = (text != text.strip() or not text or text in repeated
                         or any(mark in text for mark in ",{}'\"") or not text.isprintable())
            if not ambiguous:
                return text
            if isinstance(categories[code], str) or text in repeated:
                return repr(categories[code])
            return repr(text)  # e.g. pandas.cut's interval (0.0, 0.25]: its text, quoted

        return _joined_set([shown(c) for c in sorted(codes)], width, start)

    def categories_to(self, node: int, go_left: bool) -> set:
        """Codes of the known categories a split by a set of categories sends to one side
        (for the right side: the categories seen in training that are not sent left)."""
        feature = int(self.tree.feature[node])
        left = set(self.tree.categories_left(node).tolist())
        if go_left:
            return left
        categories = self.categories[feature] if self.categories is not None else None
        if categories is None:  # categories unknown: the codes below the largest one tested
            return set(range(max(left) + 1)) - left
        return set(range(len(categories))) - left

    def is_nominal_threshold(self, node: int) -> bool:
        """A ``code <= t`` test on a C4.5 nominal column: ``tree_`` draws C4.5's nominal
        tests as thresholds on the category codes (``C45Tree.to_binary_tree``)."""
        if self.c45_tree is None or self.categories is None or self.is_leaf(node):
            return False
        return self.categories[int(self.tree.feature[node])] is not None

    def nominal_codes(self, feature: int, low: float, high: float) -> set:
        """Codes c of C4.5 nominal column ``feature`` with low < c <= high."""
        return {c for c in range(len(self.categories[feature])) if low < c <= high}

    def nominal_bounds(self, node: int) -> tuple[float, float]:
        """(low, high): the codes low < c <= high of the node's nominal column that the tests
        above it leave (a chain of code tests draws one multiway C4.5 test)."""
        if self._nominal_bounds is None:
            tree = self.tree
            bounds = {0: {}}
            for current in range(tree.node_count):  # parents come first (pre-order)
                state = bounds[current]
                if self.is_leaf(current):
                    continue
                feature = int(tree.feature[current])
                low, high = state.get(feature, (-np.inf, np.inf))
                threshold = float(tree.threshold[current])
                bounds[int(tree.children_left[current])] = {
                    **state, feature: (low, min(high, threshold))}
                bounds[int(tree.children_right[current])] = {
                    **state, feature: (max(low, threshold), high)}
            self._nominal_bounds = bounds
        return self._nominal_bounds[node].get(int(self.tree.feature[node]), (-np.inf, np.inf))

    def condition(self, node: int, go_left: bool, width: int | None = None) -> str:
        """The test outcome leading to the left (``x <= t``) or right (``x > t``) child.

        An infinite threshold is the engine's missing-versus-present split: ``x <= inf``
        holds for every present value, so the branches read "is (not) missing". A split by a
        set of categories reads ``city in {Lyon, Nice}``, over lines of at most ``width``
        characters when one is given (``category_set``).
        """
        name = self.feature_names[self.tree.feature[node]]
        if self.tree.is_categorical_split[node]:
            codes = self.categories_to(node, go_left)
            if not codes:  # no category seen in training goes this way: missing values do
                return f"{name} is missing"
            return f"{name} in " + self.category_set(int(self.tree.feature[node]), codes,
                                                     width, len(name) + 4)
        threshold = float(self.tree.threshold[node])
        if np.isinf(threshold):
            present = go_left == (threshold > 0)
            return f"{name} is not missing" if present else f"{name} is missing"
        if self.is_nominal_threshold(node):  # C4.5: the values the code test sends this way
            low, high = self.nominal_bounds(node)
            codes = (self.nominal_codes(int(self.tree.feature[node]), low,
                                        min(high, threshold)) if go_left else
                     self.nominal_codes(int(self.tree.feature[node]), max(low, threshold),
                                        high))
            if not codes:  # C4.5's binary view draws "x = v" with a side no value takes
                return (f"{name} is missing" if self.missing_goes_left(node) == go_left
                        else f"{name} in {{}} (no value goes this way)")
            shown = self.category_set(int(self.tree.feature[node]), codes, width, len(name) + 4)
            return f"{name} = {shown[1:-1]}" if len(codes) == 1 else f"{name} in {shown}"
        text = self.number(threshold)
        return f"{name} <= {text}" if go_left else f"{name} > {text}"

    def missing_note(self, node: int, go_left: bool) -> str:
        """`` or missing`` on the branch missing values take (nothing for presence tests)."""
        if np.isinf(self.tree.threshold[node]) or self.missing_goes_left(node) != go_left:
            return ""
        if self.tree.is_categorical_split[node] and not self.categories_to(node, go_left):
            return ""  # the condition reads "is missing"
        if self.is_nominal_threshold(node) and self.condition(node, go_left).endswith(
                " is missing"):
            return ""
        return " or missing"

    def missing_goes_left(self, node: int) -> bool:
        return bool(self.tree.missing_go_left[node])

    def test_cost(self, node: int) -> float | None:
        """Cost of the feature tested at ``node`` (None when no costs are known)."""
        if self.feature_costs is None or self.is_leaf(node):
            return None
        return float(self.feature_costs[self.tree.feature[node]])

    def path_cost(self, node: int) -> float | None:
        """Cost of the tests on the path from the root to ``node`` (its own test excluded):
        each test under ``per_test``; each cost group (a feature, or the columns sharing one
        acquisition) once under ``per_feature`` (docs/methods.md §5); a C4.5 multiway test,
        drawn as a chain of binary tests, once. None without costs."""
        if self.feature_costs is None:
            return None
        if self._path_costs is None:
            model = self.cost_model if self.cost_model in ("per_test", "per_feature") \
                else "per_test"
            repeated = None if self.c45_tree is None else \
                self.c45_tree.binary_repeated_tests()
            self._path_costs = node_path_costs(self.tree, self.feature_costs, self.cost_groups,
                                               model, repeated_test=repeated)
        return float(self._path_costs[node])

    def n_samples(self, node: int) -> int:
        return int(self.tree.n_node_samples[node])

    def distribution(self, node: int) -> str | None:
        """Class counts or proportions in class order, e.g. ``[50, 0, 0]``."""
        if not self.is_classifier or self.show_distribution is None:
            return None
        if self.show_distribution == "counts":
            values = [format_number(v, 0) for v in self.tree.class_counts[node]]
        else:
            values = [self.number(v) for v in self.tree.value[node]]
        return "[" + ", ".join(values) + "]"

    def prediction(self, node: int) -> tuple[str, float]:
        """Predicted class name and its probability (classification) or mean label and NaN."""
        value = self.tree.value[node]
        if self.is_classifier:
            k = int(np.argmax(value))
            return self.class_names[k], float(value[k])
        return self.number(value[0]), float("nan")

    def prediction_text(self, node: int) -> str:
        label, probability = self.prediction(node)
        if self.is_classifier:
            return f"{label} (p={self.number(probability)}, n={self.n_samples(node)})"
        return f"value={label} (n={self.n_samples(node)})"

    def purity(self, node: int) -> float:
        """Shade of a node's colour in [0, 1]: how far its top class leads the runner-up
        (classification) or where its value lies between the tree's extremes (regression)."""
        value = self.tree.value[node]
        if self.is_classifier:
            if value.size == 1:
                return 1.0
            top = np.sort(value)[::-1]
            return float((top[0] - top[1]) / (1 - top[1])) if top[1] < 1 else 0.0
        if self._value_range is None:  # once per export, not once per node
            self._value_range = (float(self.tree.value[:, 0].min()),
                                 float(self.tree.value[:, 0].max()))
        low, high = self._value_range
        return float((value[0] - low) / (high - low)) if high > low else 0.0

    def fill_colour(self, node: int) -> tuple[float, float, float]:
        """The node's class colour blended with white by :meth:`purity`."""
        if self._colours is None:  # once per export, not once per node
            self._colours = class_colours(self.tree.n_classes if self.is_classifier else 1)
        if self.is_classifier:
            base = self._colours[int(np.argmax(self.tree.value[node]))]
        else:
            base = self._colours[0]
        alpha = 0.1 + 0.55 * self.purity(node)
        return tuple(alpha * c + (1 - alpha) for c in base)

    def node_lines(self, node: int) -> list[str]:
        """The lines of a node's box (DOT and matplotlib): a set of categories wraps at
        ``BOX_LINE_WIDTH`` characters."""
        lines = []
        if not self.shown_as_leaf(node):
            lines.extend(self.condition(node, True, BOX_LINE_WIDTH).split("\n"))
            extra = [] if np.isinf(self.tree.threshold[node]) else [
                f"missing → {'yes' if self.missing_goes_left(node) else 'no'}"]
            cost = self.test_cost(node)
            if cost is not None:
                extra.append(f"cost {self.number(cost)}")
            if extra:
                lines.append(", ".join(extra))
        counts = f"n = {self.n_samples(node)}"
        distribution = self.distribution(node)
        lines.append(f"{counts} {distribution}" if distribution else counts)
        label, probability = self.prediction(node)
        if self.is_classifier:
            lines.append(f"{label} (p = {self.number(probability)})")
        else:
            lines.append(f"value = {label}")
        if not self.is_leaf(node) and self.shown_as_leaf(node):
            lines.append("(subtree not shown)")
        return lines

    def walk(self, node: int = 0):
        """Nodes in depth-first order (left before right), stopping at shown leaves."""
        stack = [node]
        while stack:
            current = stack.pop()
            yield current
            if not self.shown_as_leaf(current):
                stack.append(int(self.tree.children_right[current]))
                stack.append(int(self.tree.children_left[current]))

    def summary(self) -> str:
        """Leaves, depth and nodes of the model: a C4.5 model's own (its ``get_n_leaves``,
        ``get_depth``, as ``compare`` reports them), with the binary drawing's depth and nodes
        beside them when its multiway tests make those larger."""
        tree = self.tree
        drawn = f"{tree.n_leaves} leaves, depth {tree.max_depth}, {tree.node_count} nodes"
        if self.c45_tree is None:
            return drawn
        own = (f"{self.c45_tree.n_leaves} leaves, depth {self.c45_tree.max_depth}, "
               f"{self.c45_tree.node_count} nodes")
        if (tree.max_depth, tree.node_count) == (self.c45_tree.max_depth,
                                                 self.c45_tree.node_count):
            return own
        return (f"{own} (drawn as binary tests: depth {tree.max_depth}, {tree.node_count} "
                "nodes)")

    def subtree_height(self, node: int) -> int:
        """Depth of the deepest leaf below ``node``, counted from it (heights of all nodes are
        computed once, children before parents)."""
        if self._heights is None:
            tree = self.tree
            height = np.zeros(tree.node_count, dtype=np.int64)
            internal = np.flatnonzero(~tree.is_leaf)
            left, right = tree.children_left, tree.children_right
            for parent in internal[::-1].tolist():  # children are stored after their parents
                height[parent] = 1 + max(height[left[parent]], height[right[parent]])
            self._heights = height
        return int(self._heights[node])

    def truncation_note(self) -> str | None:
        """Why the export stops above some leaves (None when it shows the whole tree)."""
        if self.max_depth is None or self.tree.max_depth <= self.max_depth:
            return None
        drawing = " levels of the binary drawing" if self.c45_tree is not None else ""
        return (f"showing depth <= {self.max_depth} of {self.tree.max_depth}{drawing}; pass "
                f"max_depth=None for the whole tree")


class TextExporter(TreeExporter):
    """Indented text (``|---`` per level, as scikit-learn prints) or one IF-THEN rule per leaf."""

    def export(self, rules: bool = False) -> str:
        return "".join(line + "\n" for line in self.lines(rules))

    def lines(self, rules: bool = False):
        """The export's lines (without newlines), produced one at a time."""
        return self._rule_lines() if rules else self._tree_lines()

    def _branch_line(self, node: int, child: int, go_left: bool) -> str:
        text = self.condition(node, go_left) + self.missing_note(node, go_left)
        cost = self.test_cost(node)
        if cost is not None:
            text += f"  [cost {self.number(cost)}]"
        distribution = self.distribution(child)
        text += f"  n={self.n_samples(child)}" + (f" {distribution}" if distribution else "")
        return text

    def _tree_lines(self):
        header = f"# {self.summary()}"
        if self.is_classifier and self.show_distribution is not None:
            header += f"; {self.show_distribution} per class: [{', '.join(self.class_names)}]"
        note = self.truncation_note()
        if note:
            header += f"; {note}"
        yield header
        distribution = self.distribution(0)
        yield f"root  n={self.n_samples(0)}" + (f" {distribution}" if distribution else "")
        yield from self._subtree_lines(0)

    def _subtree_lines(self, node: int):
        # An explicit stack (deep trees would exhaust Python's recursion limit); a right
        # branch is printed only once the whole left subtree has been.
        stack = [("node", node, 0)]
        while stack:
            kind, node, level = stack.pop()
            indent = "|   " * level
            if kind == "right":
                right = int(self.tree.children_right[node])
                yield f"{indent}|--- {self._branch_line(node, right, False)}"
                stack.append(("node", right, level + 1))
            elif self.shown_as_leaf(node):
                if not self.is_leaf(node):
                    yield f"{indent}|--- truncated branch of depth {self.subtree_height(node)}"
                prefix = "class: " if self.is_classifier else ""
                yield f"{indent}|--- {prefix}{self.prediction_text(node)}"
            else:
                left = int(self.tree.children_left[node])
                yield f"{indent}|--- {self._branch_line(node, left, True)}"
                stack.append(("right", node, level))
                stack.append(("node", left, level + 1))

    def _rule_lines(self):
        note = self.truncation_note()
        if note:
            yield f"# {note}; a rule ending in a truncated branch is marked [truncated]"
        for leaf, conditions in self._leaf_conditions():
            if conditions is None:  # a branch of C4.5's binary view that no value takes
                continue
            body = " AND ".join(conditions) if conditions else "TRUE"
            rule = f"IF {body} THEN {self.prediction_text(leaf)}"
            cost = self.path_cost(leaf)
            if cost is not None:
                rule += f"  [cost {self.number(cost)}]"
            if not self.is_leaf(leaf):
                rule += "  [truncated]"
            yield rule

    def _leaf_conditions(self):
        """(shown leaf, its merged conditions) in depth-first order, left before right.

        One walk carrying, per feature, the interval and missing-value state of the current
        path (``_merged_conditions``'s state), updated on the way down and restored on the way
        up: linear in the number of nodes plus the size of the output, whatever the depth."""
        state = {}      # feature -> [low, high, missing, present] on the current path
        order = []      # features in order of first test on the current path
        stack = [("enter", 0, None)]
        while stack:
            action, node, saved = stack.pop()
            if action == "restore":
                feature, previous = saved
                if previous is None:
                    del state[feature]
                    order.pop()
                else:
                    state[feature] = previous
                continue
            if action == "go":
                feature, went_left, parent = saved
                previous = state.get(feature)
                bounds = list(previous) if previous is not None else [-np.inf, np.inf, True, True,
                                                                      None]
                if previous is None:
                    order.append(feature)
                threshold = float(self.tree.threshold[parent])
                bounds[2] = bounds[2] and self.missing_goes_left(parent) == went_left
                if self.tree.is_categorical_split[parent]:
                    allowed = self.categories_to(parent, went_left)
                    bounds[4] = allowed if bounds[4] is None else bounds[4] & allowed
                elif np.isinf(threshold):
                    bounds[3] = bounds[3] and went_left == (threshold > 0)
                elif went_left:
                    bounds[1] = min(bounds[1], threshold)
                else:
                    bounds[0] = max(bounds[0], threshold)
                state[feature] = bounds
                stack.append(("restore", node, (feature, previous)))
                stack.append(("enter", node, None))
                continue
            if self.shown_as_leaf(node):
                yield node, self._conditions(order, state)
                continue
            feature = int(self.tree.feature[node])
            stack.append(("go", int(self.tree.children_right[node]), (feature, False, node)))
            stack.append(("go", int(self.tree.children_left[node]), (feature, True, node)))

    def _conditions(self, order, state) -> list[str] | None:
        """One condition per feature: ``lo < x <= hi``, with ``or missing`` when every test on
        the feature sends missing values the way the path goes, or ``x is (not) missing``;
        a C4.5 nominal column's code bounds as its values, ``x in {a, b}``. None when no
        value reaches the leaf (a branch of C4.5's binary view of an ``x = v`` test)."""
        conditions = []
        for feature in order:
            low, high, missing, present, allowed = state[feature]
            name = self.feature_names[feature]
            if not present:
                conditions.append(f"{name} is missing")
                continue
            if allowed is not None and not allowed:  # no category: only missing values
                conditions.append(f"{name} is missing")
                continue
            if allowed is None and self.c45_tree is not None and self.categories is not None \
                    and self.categories[feature] is not None:  # C4.5 nominal: code bounds
                allowed = self.nominal_codes(feature, low, high)
                if not allowed:  # no value reaches the leaf (C4.5's binary view): at most
                    if not missing:  # the missing ones, as the tree text says
                        return None
                    conditions.append(f"{name} is missing")
                    continue
            if allowed is not None:
                text = f"{name} in {self.category_set(feature, allowed)}"
            elif np.isfinite(low) and np.isfinite(high):
                text = f"{self.number(low)} < {name} <= {self.number(high)}"
            elif np.isfinite(high):
                text = f"{name} <= {self.number(high)}"
            elif np.isfinite(low):
                text = f"{name} > {self.number(low)}"
            else:
                text = f"{name} is not missing"
                if missing:
                    continue  # no constraint at all
            conditions.append(f"({text} or missing)" if missing else text)
        return conditions


class DotExporter(TreeExporter):
    """Graphviz DOT text; render it with Graphviz (``dot -Tpng``) or any DOT viewer."""

    def __init__(self, estimator, *, filled: bool = True, rounded: bool = True,
                 fontname: str = "helvetica", **options):
        super().__init__(estimator, **options)
        if not isinstance(fontname, str):
            raise ValueError(f"fontname must be a str, got {fontname!r}")
        self.filled, self.rounded = _check_flag("filled", filled), _check_flag("rounded", rounded)
        self.fontname = fontname

    @staticmethod
    def escape(text: str) -> str:
        """Escape a label for a double-quoted DOT string."""
        return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")

    def export(self) -> str:
        return "".join(line + "\n" for line in self.lines())

    def lines(self):
        """The DOT text's lines (without newlines), produced one at a time."""
        style = ", ".join(s for s in ("filled" if self.filled else "",
                                      "rounded" if self.rounded else "") if s) or "solid"
        font = self.escape(self.fontname)
        summary = self.summary()
        note = self.truncation_note()
        if note:
            summary += f" ({note})"
        yield "digraph Tree {"
        yield f'node [shape=box, style="{style}", fontname="{font}"] ;'
        yield f'edge [fontname="{font}"] ;'
        yield f'graph [label="{self.escape(summary)}", labelloc=t, fontname="{font}"] ;'
        for node in self.walk():
            label = self.escape("\n".join(self.node_lines(node)))
            attributes = f'label="{label}"'
            if self.filled:
                red, green, blue = (round(255 * c) for c in self.fill_colour(node))
                attributes += f', fillcolor="#{red:02x}{green:02x}{blue:02x}"'
            yield f"{node} [{attributes}] ;"
            if not self.shown_as_leaf(node):
                for child, answer in ((self.tree.children_left[node], "yes"),
                                      (self.tree.children_right[node], "no")):
                    yield f'{node} -> {int(child)} [label="{answer}"] ;'
        yield "}"


def _write_lines(lines, out_file) -> None:
    """Write ``lines`` (each without its newline) to a path or an open text file, as they come."""
    if hasattr(out_file, "write"):
        for line in lines:
            out_file.write(line + "\n")
        return
    with open(out_file, "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")


def export_text(estimator, *, feature_names=None, class_names=None, feature_costs=None,
                precision: int | None = 3, max_depth: int | None = TEXT_MAX_DEPTH,
                show_distribution: str | None = "counts", rules: bool = False,
                out_file=None) -> str | None:
    """The tree as indented text, or with ``rules=True`` as one ``IF … THEN class (p, n)`` line
    per leaf.

    ``max_depth`` defaults to ``TEXT_MAX_DEPTH`` (10) levels: deeper branches are shown as
    ``truncated branch of depth d`` (rules ending there are marked ``[truncated]``) and the
    first line says what was cut; pass ``max_depth=None`` for the whole tree. With ``out_file``
    (a path or an open text file) the lines are written as they are produced and None is
    returned, so a large export never sits in memory.

    Each branch line gives the test in original units (``feature <= threshold``), ``or missing``
    on the side missing values take, the test's cost when costs are known, and the sample count
    and class distribution of the node it leads to; each leaf line the predicted class with its
    probability p and sample count n (the mean label for regression). See :class:`TreeExporter`
    for the parameters.
    """
    _check_flag("rules", rules)
    _check_out_file(out_file)
    exporter = TextExporter(estimator, feature_names=feature_names, class_names=class_names,
                            feature_costs=feature_costs, precision=precision,
                            max_depth=max_depth, show_distribution=show_distribution)
    if out_file is not None:
        _write_lines(exporter.lines(rules), out_file)
        return None
    return exporter.export(rules=rules)


def export_graphviz(estimator, out_file=None, *, feature_names=None, class_names=None,
                    feature_costs=None, precision: int | None = 3, max_depth: int | None = None,
                    show_distribution: str | None = "counts", filled: bool = True,
                    rounded: bool = True, fontname: str = "helvetica") -> str | None:
    """The tree in Graphviz DOT; returned, or written line by line to ``out_file`` (a path or
    an open text file) with None returned, as scikit-learn's ``export_graphviz`` does.

    Nodes show the test, the side missing values take, the test's cost, the sample count,
    class distribution and predicted class; edges are labelled ``yes`` (test true, left) and
    ``no``. No Graphviz installation is needed to produce the text. Returns the DOT text.
    """
    _check_out_file(out_file)
    exporter = DotExporter(estimator, feature_names=feature_names, class_names=class_names,
                           feature_costs=feature_costs, precision=precision, max_depth=max_depth,
                           show_distribution=show_distribution, filled=filled, rounded=rounded,
                           fontname=fontname)
    if out_file is not None:
        _write_lines(exporter.lines(), out_file)
        return None
    return exporter.export()


#: Feature names listed per tree in :func:`forest_summary` before "… (+k)".
_SUMMARY_FEATURES_SHOWN = 6


def _listed(names: list[str], limit: int = _SUMMARY_FEATURES_SHOWN) -> str:
    if not names:
        return "none (a single leaf)"
    shown = ", ".join(names[:limit])
    return shown + (f" … (+{len(names) - limit})" if len(names) > limit else "")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Columns right-aligned except the last, which is left as it is (it may be long)."""
    widths = [max(len(row[k]) for row in [header, *rows]) for k in range(len(header) - 1)]
    return ["  ".join([*(cell.rjust(width) for cell, width in zip(row, widths)), row[-1]])
            for row in [header, *rows]]


def forest_summary(forest, *, feature_names=None, feature_costs=None,
                   precision: int | None = 3) -> str:
    """A forest at a glance, as text: its number of trees, each tree's depth, leaves and the
    features it splits on, how many trees and splits use each feature, and the costs it knows
    (the fitted or given ``feature_costs``; each tree's worst root-to-leaf path cost under its
    cost model, docs/methods.md §5; for a BudgetForestClassifier its budget, chosen α and the
    average cost and accuracy of the returned forest on its validation rows). Feature and class
    names that would be ambiguous in its lists are quoted (:func:`shown_name`). To see one tree
    in full: :func:`export_text` or :func:`export_graphviz` of ``forest.estimators_[i]``."""
    from .metrics import max_cost

    trees = list(getattr(forest, "estimators_", None) or [])
    if not trees or not all(isinstance(getattr(t, "tree_", None), Tree) for t in trees):
        raise TypeError(f"forest must be a fitted forest of treesmith trees (with estimators_), "
                        f"got {type(forest).__name__}")
    n_features = trees[0].tree_.n_features
    names = TreeExporter._names("feature_names", feature_names,
                                getattr(forest, "feature_names_in_", None), n_features,
                                [f"feature_{j}" for j in range(n_features)])
    costs = feature_costs
    if costs is None:
        fitted = getattr(forest, "feature_costs_", None)
        costs = None if fitted is None or np.all(np.asarray(fitted) == 1) else fitted
    if costs is not None:
        costs = _checked_costs(costs, n_features)
    precision = _check_depth_like("precision", precision)

    def number(value: float) -> str:
        return format_number(value, precision)

    classes = getattr(forest, "classes_", None)
    task = (f"{len(classes)} classes ({_listed([shown_name(str(c)) for c in classes], 8)})"
            if classes is not None else "regression")
    lines = [f"{type(forest).__name__}: {_count(len(trees), 'tree')} on "
             f"{_count(n_features, 'feature')}, {task}"]
    header = ["tree", "depth", "leaves", "splits"] + (["max cost"] if costs is not None else [])
    rows, n_trees_using, n_splits = [], np.zeros(n_features, int), np.zeros(n_features, int)
    depths, leaves = [], []
    for i, member in enumerate(trees):
        tree = member.tree_
        internal = tree.children_left != TREE_LEAF
        used = np.bincount(tree.feature[internal], minlength=n_features)
        n_splits += used
        n_trees_using += used > 0
        depths.append(int(tree.depth.max()))
        leaves.append(int((~internal).sum()))
        row = [str(i), str(depths[-1]), str(leaves[-1]), str(int(internal.sum()))]
        if costs is not None:
            row.append(number(max_cost(member, feature_costs=costs)))
        order = np.argsort(-used, kind="stable")  # most splits first
        row.append(_listed([names[j] for j in order if used[j]]))
        rows.append(row)
    lines += _table(header + ["features used"], rows)
    lines.append(f"depth {min(depths)} to {max(depths)} (mean {number(np.mean(depths))}), "
                 f"leaves {min(leaves)} to {max(leaves)} (mean {number(np.mean(leaves))})")
    order = np.argsort(-n_splits, kind="stable")
    used = [f"{names[j]} ({_count(n_trees_using[j], 'tree')}, "
            f"{_count(n_splits[j], 'split')})" for j in order if n_splits[j]]
    lines.append("features used: " + (", ".join(used) if used else "none"))
    unused = [names[j] for j in range(n_features) if not n_splits[j]]
    if unused:
        lines.append("features never used: " + _listed(unused, 12))
    if costs is not None:
        lines.append("feature costs: " + ", ".join(f"{names[j]} {number(costs[j])}"
                                                   for j in range(n_features)))
    if hasattr(forest, "validation_cost_"):
        budget = getattr(forest, "budget", None)
        alpha = getattr(forest, "alpha_", None)
        lines.append(
            ("no budget (every tree grown kept)" if budget is None else
             f"budget {number(budget)} per example")
            + ("" if alpha is None else f"; alpha {number(alpha)}")
            + f"; on its validation rows: average cost {number(forest.validation_cost_)} per "
              f"example, accuracy {number(forest.validation_score_)}")
    return "\n".join(lines) + "\n"
