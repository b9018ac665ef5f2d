"""What does rounding predict input to the fitted precision cost (``numeric_precision_``,
docs/methods.md §2)?

One tree (and one small forest) fitted on the same numbers twice, in float64 and in float32;
``predict`` timed in one process, the cases interleaved repeat by repeat (load from other
processes hits all alike), medians and [min, max] printed:

- float64 fit, float64 input (no copy, as before),
- float32 fit, float32 input (no copy),
- float32 fit, float64 input: one float32 copy of X, then the float32 walk,
- the same without the rounding ("main": the model with ``numeric_precision_`` removed, which
  walks X as it is, as predict did before), and the float32 copy alone.

The ratio "float32 fit / float64 input" over "main" is the overhead of the fix.

    python benchmarks/bench_predict_precision.py                    # 1e5 x 50, 15 repeats
    python benchmarks/bench_predict_precision.py --rows 20000 --repeats 5
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    format_table,
    git_revision_line,
    load_average_line,
    make_classification_data,
)


def _timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _cases(model64, model32, X64, X32):
    """name -> a call to time; "main" is model32 without its fitted precision."""
    from treesmith._precision import rounded_to

    unrounded = copy.deepcopy(model32)
    del unrounded.numeric_precision_
    return {
        "float64 fit, float64 input": lambda: model64.predict(X64),
        "float32 fit, float32 input": lambda: model32.predict(X32),
        "float32 fit, float64 input": lambda: model32.predict(X64),
        "main: float32 fit, float64 input unrounded": lambda: unrounded.predict(X64),
        "the float32 copy alone": lambda: rounded_to(X64, "float32"),
    }


def _measure(cases: dict, repeats: int) -> dict:
    for call in cases.values():  # compile and warm every path first
        call()
    times = {name: [] for name in cases}
    for _ in range(repeats):
        for name, call in cases.items():
            times[name].append(_timed(call))
    return times


def _rows(times: dict, fixed: str, reference: str) -> list:
    rows = []
    base = statistics.median(times[reference])
    for name, values in times.items():
        middle = statistics.median(values)
        rows.append([name, f"{1e3 * middle:.2f}", f"[{1e3 * min(values):.2f}, "
                     f"{1e3 * max(values):.2f}]", f"{middle / base:.2f}"])
    rows.append([f"overhead: '{fixed}' / main", "", "",
                 f"{statistics.median(times[fixed]) / base:.2f}"])
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--trees", type=int, default=10, help="trees of the forest case")
    args = parser.parse_args(argv)

    import treesmith

    repo = Path(__file__).resolve().parents[1]
    print(git_revision_line(repo))
    print(load_average_line("before"))
    X32, y = make_classification_data(args.rows, n_features=args.features, n_classes=2,
                                      n_informative=10, n_redundant=5)
    X64 = X32.astype(np.float64)  # the same numbers in float64
    makers = {
        "DecisionTreeClassifier(max_depth=None)":
            lambda: treesmith.DecisionTreeClassifier(random_state=0),
        f"RandomForestClassifier({args.trees} trees)":
            lambda: treesmith.RandomForestClassifier(args.trees, random_state=0),
    }
    for label, make in makers.items():
        model64, model32 = make().fit(X64, y), make().fit(X32, y)
        assert (model32.numeric_precision_, model64.numeric_precision_) == ("float32",
                                                                            "float64")
        times = _measure(_cases(model64, model32, X64, X32), args.repeats)
        print()
        print(format_table(
            ["predict", "median ms", "[min, max] ms", "/ main"],
            _rows(times, "float32 fit, float64 input",
                  "main: float32 fit, float64 input unrounded"),
            title=f"{label} on {args.rows} x {args.features}, {args.repeats} repeats "
                  "interleaved"))
    print()
    print(load_average_line("after"))


if __name__ == "__main__":
    main()
