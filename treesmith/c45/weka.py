"""Run Weka's own J48 beside :class:`~treesmith.c45.C45Classifier`, and print our tree as J48 does.

Used by the agreement tests and ``experiments/j48_agreement.py``. It needs Java and a Weka jar:
on Debian / Ubuntu ``apt-get install weka`` (version 3.6, the reference of the tests) puts it
at ``/usr/share/java/weka.jar``; elsewhere point ``TREESMITH_WEKA_JAR`` at a ``weka.jar``.

:func:`j48_text` prints a fitted ``C45Classifier`` in J48's text format (the tree between the
"J48 pruned tree" header and "Number of Leaves"), so that the two trees compare as strings:
same tests, thresholds to 6 decimals, same leaf classes, weights and training errors.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..categorical import category_text
from ._grow import NOMINAL, NOMINAL_BINARY, SMALL

DEFAULT_JARS = ("/usr/share/java/weka.jar",)


def weka_jar() -> str | None:
    """Path of the Weka jar, or None when Weka (or Java) is not installed."""
    if shutil.which("java") is None:
        return None
    for candidate in (os.environ.get("TREESMITH_WEKA_JAR"), *DEFAULT_JARS):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


# -- Java's number formats ----------------------------------------------------------------------
def java_double(value: float) -> str:
    """Java's ``Double.toString`` for the values J48 prints (shortest round-trip digits)."""
    value = float(value)
    if value == 0:
        return "0.0"
    if 1e-3 <= abs(value) < 1e7:
        text = repr(value)
        return text if "." in text or "e" in text else text + ".0"
    short = np.format_float_scientific(value, unique=True, trim="0")
    mantissa, exponent = short.split("e")
    if "." not in mantissa or mantissa.endswith("."):
        mantissa = mantissa.rstrip(".") + ".0"
    return f"{mantissa}E{int(exponent)}"


def weka_round(value: float, digits: int = 2) -> float:
    """``Utils.roundDouble``: Math.rint(value · 10^digits) / 10^digits."""
    scale = 10.0 ** digits
    return float(np.rint(value * scale) / scale)


def weka_decimal(value: float, after_point: int = 6) -> str:
    """``Utils.doubleToString(value, after_point)``: half-up rounding, trailing zeros cut."""
    scaled = value * 10.0 ** after_point
    rounded = int(scaled + 0.5) if scaled > 0 else -int(abs(scaled) + 0.5)
    if rounded == 0:
        return "0"
    text = str(abs(rounded)).rjust(after_point + 1, "0")
    whole, fraction = text[:-after_point], text[-after_point:].rstrip("0")
    sign = "-" if rounded < 0 else ""
    return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"


# -- our tree in J48's words ---------------------------------------------------------------------
def _majority(class_weight) -> int:
    best, best_k = 0.0, 0
    for k, w in enumerate(class_weight):
        if w - best > SMALL:
            best, best_k = w, k
    return best_k


def _label(class_weight, parent_weight, class_names) -> str:
    """J48's ``dumpLabel``: class, weight and errors of a leaf (an empty one shows the
    parent's majority class)."""
    total = float(np.sum(class_weight))
    k = _majority(class_weight if total - 0.0 > SMALL else parent_weight)
    errors = total - float(class_weight[k])
    text = f"{class_names[k]} ({java_double(weka_round(total))}"
    if errors - 0.0 > SMALL:
        text += f"/{java_double(weka_round(errors))}"
    return text + ")"


def j48_text(model) -> str:
    """The fitted ``C45Classifier``'s tree in the format of J48's model output."""
    tree = model.c45_tree_
    names = getattr(model, "feature_names_in_", None)
    names = [str(n) for n in names] if names is not None else \
        [f"x{j}" for j in range(tree.n_features)]
    class_names = [str(c) for c in model.classes_]
    if tree.attribute[0] < 0:
        return ": " + _label(tree.class_weight[0], tree.class_weight[0], class_names)
    lines: list[str] = []

    def dump(node: int, depth: int) -> None:
        start, count = tree.child_start[node], tree.n_children[node]
        attribute = int(tree.attribute[node])
        for b in range(count):
            child = tree.children[start + b]
            if tree.kind[node] == NOMINAL:
                test = f"{names[attribute]} = {_nominal_label(model, attribute, b)}"
            elif tree.kind[node] == NOMINAL_BINARY:
                value = _nominal_label(model, attribute, int(tree.threshold[node]))
                test = f"{names[attribute]} {'=' if b == 0 else '!='} {value}"
            else:
                # J48's C45Split prints 6 decimals, BinC45Split (-B) Java's full double
                cut = java_double(tree.threshold[node]) if model.binary_splits \
                    else weka_decimal(tree.threshold[node], 6)
                test = f"{names[attribute]} {'<=' if b == 0 else '>'} {cut}"
            line = "|   " * depth + test
            if tree.attribute[child] < 0:
                line += ": " + _label(tree.class_weight[child], tree.class_weight[node],
                                      class_names)
                lines.append(line)
            else:
                lines.append(line)
                dump(child, depth + 1)

    dump(0, 0)
    return "\n".join(lines)


def _nominal_label(model, j: int, code: int) -> str:
    """The text of nominal column ``j``'s value ``code``: a float category in the precision it
    was fitted in (the float32 0.1 reads 0.1, as the column showed it, not
    0.10000000149011612), as the exports print it; the ARFF file holds the same labels."""
    precisions = getattr(model, "category_precision_", None)
    precision = precisions[j] if precisions is not None else None
    return category_text(model.categories_[j][code], precision)


# -- ARFF files and J48 runs -------------------------------------------------------------------
def _arff_value(value) -> str:
    text = str(value)
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def write_arff(path, model, X, y) -> None:
    """X, y as an ARFF file with the columns, categories and classes ``model`` was fitted
    with (a fitted ``C45Classifier``; nominal values and classes quoted)."""
    names = getattr(model, "feature_names_in_", None)
    names = [str(n) for n in names] if names is not None else \
        [f"x{j}" for j in range(model.n_features_in_)]
    encoded = model._encode_predict(X)
    lines = ["@relation treesmith", ""]
    for j, name in enumerate(names):
        levels = model.categories_[j]
        kind = "numeric" if levels is None else \
            "{" + ",".join(_arff_value(_nominal_label(model, j, code))
                           for code in range(len(levels))) + "}"
        lines.append(f"@attribute {_arff_value(name)} {kind}")
    lines.append("@attribute class {" + ",".join(_arff_value(c) for c in model.classes_) + "}")
    lines += ["", "@data"]
    y = np.asarray(y)
    for i in range(encoded.shape[0]):
        cells = []
        for j in range(encoded.shape[1]):
            value = encoded[i, j]
            if np.isnan(value):
                cells.append("?")
            elif model.categories_[j] is None:
                cells.append(repr(float(value)))
            else:
                cells.append(_arff_value(_nominal_label(model, j, int(value))))
        cells.append(_arff_value(y[i]))
        lines.append(",".join(cells))
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


@dataclass
class J48Run:
    """What J48 printed: the tree text, its leaves and size, its own build time in seconds,
    and (when a test file was given) its predicted class index per test row (-1 = none).
    ``process_cpu_seconds``: CPU time of the whole Java process that built the model (JVM
    start and reading the ARFF file included)."""

    tree_text: str
    n_leaves: int
    size: int
    build_seconds: float
    predictions: np.ndarray | None = None
    distributions: np.ndarray | None = None
    process_cpu_seconds: float = float("nan")


def j48_options(model) -> list[str]:
    """J48 command-line options equivalent to a ``C45Classifier``'s parameters."""
    if float(model.min_objects) != int(model.min_objects):
        raise ValueError(f"J48 takes an integer -M; min_objects={model.min_objects!r}")
    options = ["-M", str(int(model.min_objects))]
    # J48 refuses options that have no effect (-C or -S with -U, -C or -S with -R)
    if model.unpruned:
        options.append("-U")
    elif model.reduced_error_pruning:
        options += ["-R", "-N", str(model.n_folds)]
    else:
        options += ["-C", repr(float(model.confidence_factor))]
        if not model.subtree_raising:
            options.append("-S")
    if model.binary_splits:
        options.append("-B")
    if model.laplace:
        options.append("-A")
    return options


#: JVM flags for short runs: the client compiler starts faster on small data sets.
QUICK_JVM = ("-XX:TieredStopAtLevel=1",)


def _java(jar: str, arguments: list[str], timeout: float, jvm_options=()):
    """J48's standard output and the CPU seconds the Java process used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(["java", "-Xmx1g", *jvm_options, "-cp", jar,
                             "weka.classifiers.trees.J48", *arguments],
                            capture_output=True, text=True, timeout=timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if result.returncode != 0 or "Weka exception" in result.stdout:
        raise RuntimeError(f"J48 failed ({result.returncode}): {result.stderr.strip()}"
                           f"{result.stdout[:500]}")
    return result.stdout, cpu_seconds


def run_j48(model, X_train, y_train, X_test=None, y_test=None, *, jar: str | None = None,
            timeout: float = 600.0, jvm_options=()) -> J48Run:
    """Fit Weka's J48 with ``model``'s options on the same data; parse its output."""
    jar = jar or weka_jar()
    if jar is None:
        raise RuntimeError("Weka is not installed: apt-get install weka, or set "
                           "TREESMITH_WEKA_JAR to a weka.jar (and install Java).")
    options = j48_options(model)
    with tempfile.TemporaryDirectory() as folder:
        train = Path(folder) / "train.arff"
        write_arff(train, model, X_train, y_train)
        text, cpu_seconds = _java(jar, ["-t", str(train), "-no-cv", *options], timeout,
                                  jvm_options)
        run = parse_model_output(text)
        run.process_cpu_seconds = cpu_seconds
        if X_test is not None:
            test = Path(folder) / "test.arff"
            write_arff(test, model, X_test, y_test)
            output, _ = _java(jar, ["-t", str(train), "-T", str(test), "-p", "0",
                                    "-distribution", *options], timeout, jvm_options)
            run.predictions, run.distributions = parse_predictions(output,
                                                                   model.n_classes_)
    return run


def parse_model_output(text: str) -> J48Run:
    """Tree text, leaves, size and build time from J48's model output."""
    match = re.search(r"J48 (?:un)?pruned tree\n-+\n\n?(.*?)\n\nNumber of Leaves\s*:\s*(\d+)"
                      r"\s*\n\nSize of the tree\s*:\s*(\d+)", text, re.S)
    if match is None:
        raise RuntimeError(f"cannot read J48's tree from its output:\n{text[:2000]}")
    build = re.search(r"Time taken to build model:\s*([\d.]+)\s*seconds", text)
    return J48Run(match.group(1).strip("\n"), int(match.group(2)), int(match.group(3)),
                  float(build.group(1)) if build else float("nan"))


def parse_predictions(text: str, n_classes: int):
    """Predicted class index (-1 when J48 gives none) and distribution per test row from
    ``-p 0 -distribution``."""
    predictions, distributions = [], []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 4 or not parts[0].isdigit():
            continue
        predicted = parts[2]
        predictions.append(int(predicted.split(":")[0]) - 1 if ":" in predicted else -1)
        cells = parts[-1].replace("*", "").split(",")
        distributions.append([float(c) if c not in ("", "?") else np.nan for c in cells]
                             if len(cells) == n_classes else [np.nan] * n_classes)
    return np.array(predictions, dtype=np.int64), np.array(distributions, dtype=np.float64)


@dataclass
class Agreement:
    """One fit of ours beside J48's on the same split."""

    same_tree: bool
    n_leaves: int
    j48_n_leaves: int
    accuracy: float
    j48_accuracy: float
    prediction_agreement: float
    fit_seconds: float
    j48_build_seconds: float
    difference: str = ""


def compare_with_j48(model, X_train, y_train, X_test, y_test, *, predictions: bool = True,
                     jvm_options=QUICK_JVM) -> Agreement:
    """Fit ``model`` (a ``C45Classifier``) and J48 with the same options; compare the tree
    texts and, with ``predictions``, J48's test predictions with ours."""
    import difflib
    import time

    start = time.perf_counter()
    model.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    run = run_j48(model, X_train, y_train, X_test if predictions else None, y_test,
                  jvm_options=jvm_options)
    ours = j48_text(model)
    y_test = np.asarray(y_test)
    predicted = model.predict(X_test)
    if predictions:
        theirs = np.where(run.predictions >= 0, model.classes_[np.maximum(run.predictions, 0)],
                          None)
        agreement = float(np.mean(theirs == predicted))
        j48_accuracy = float(np.mean(theirs == y_test))
    else:
        agreement = j48_accuracy = float("nan")
    difference = "" if ours == run.tree_text else "\n".join(difflib.unified_diff(
        run.tree_text.splitlines(), ours.splitlines(), "J48", "treesmith", lineterm="", n=1))
    return Agreement(ours == run.tree_text, model.get_n_leaves(), run.n_leaves,
                     float(np.mean(predicted == y_test)), j48_accuracy, agreement, fit_seconds,
                     run.build_seconds, difference)
