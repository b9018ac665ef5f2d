"""Where the first fit after install spends its seconds: Numba compile time per kernel.

python benchmarks/profile_compile.py                 # classifier, then regressor; table per fit
python benchmarks/profile_compile.py --first regressor
python benchmarks/profile_compile.py --passes 15     # also the 15 slowest compiler passes
python benchmarks/profile_compile.py --signatures    # list each kernel's signatures
python benchmarks/profile_compile.py --checkout /path/to/other/checkout   # profile another copy

A fresh process with a new, empty ``NUMBA_CACHE_DIR`` imports treesmith and runs, in order,
``DecisionTreeClassifier().fit(X, y).predict(X)`` on iris and the same with
``DecisionTreeRegressor`` (the order is ``--first``); a second fresh process repeats it with the
cache the first one wrote (warm: it should compile nothing). Numba's event API
(``numba.core.event``, kinds ``numba:compile`` and ``numba:run_pass``) reports every
compilation; ``numba.cfunc`` compilations, which send no event, are timed by wrapping
``CFunc._compile_uncached`` in the child process.

Compilations nest (typing a caller compiles its callees first), so each function gets its
*inclusive* time (its compile event, callees included) and its *self* time (inclusive minus the
compile events nested directly inside it); the self times add up to the phase's compile time,
and ``share`` is self / that total. Compile times are CPU seconds of the compiling thread
(``time.thread_time``), which other processes on a busy machine disturb less than wall time;
the phase table also gives wall seconds. ``signatures`` counts the compilations of the
function in the phase: more than one means the kernel was compiled again for other argument
types.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    RESULT_MARKER,
    environment_lines,
    format_table,
    git_revision_line,
    load_average_line,
    run_snippet,
)

REPO_ROOT = Path(__file__).resolve().parent.parent

#: Runs in the child process: records compile events per phase and prints one JSON result.
_CHILD = r"""
import json, sys, time
from collections import defaultdict
from numba.core import event, ccallback

ORDER = __ORDER__
phases = []  # (name, wall s, predict wall s, cpu s)
functions = defaultdict(lambda: {"signatures": [], "inclusive": 0.0, "self": 0.0})
passes = defaultdict(float)
phase = "import"
tables = {}


def _name(data):
    dispatcher = data["dispatcher"]
    function = getattr(dispatcher, "py_func", None) or getattr(dispatcher, "_pyfunc")
    return f"{function.__module__}.{function.__qualname__}"


class Nesting(event.Listener):
    # Inclusive and self time of well-nested events of one kind.
    def __init__(self, on_done):
        self.stack = []
        self.on_done = on_done

    def on_start(self, ev):
        self.stack.append([time.thread_time(), 0.0])

    def on_end(self, ev):
        started, children = self.stack.pop()
        inclusive = time.thread_time() - started
        if self.stack:
            self.stack[-1][1] += inclusive
        self.on_done(ev, inclusive, inclusive - children)


def compile_done(ev, inclusive, self_time):
    record = functions[(phase, _name(ev.data))]
    record["signatures"].append(", ".join(str(t) for t in ev.data["args"]))
    record["inclusive"] += inclusive
    record["self"] += self_time


def pass_done(ev, inclusive, self_time):
    passes[(phase, ev.data["name"].split(" [")[0])] += self_time


event.register("numba:compile", Nesting(compile_done))
event.register("numba:run_pass", Nesting(pass_done))

_compile_uncached = ccallback.CFunc._compile_uncached


def _timed_cfunc(self):
    # numba.cfunc sends no compile event: send one.
    data = {"dispatcher": self, "args": self._sig.args}
    with event.trigger_event("numba:compile", data=data):
        return _compile_uncached(self)


ccallback.CFunc._compile_uncached = _timed_cfunc

start, cpu_start = time.perf_counter(), time.process_time()
import treesmith
phases.append(("import", time.perf_counter() - start, 0.0, time.process_time() - cpu_start))
from sklearn.datasets import load_diabetes, load_iris

for name in ORDER:
    if name == "classifier":
        X, y = load_iris(return_X_y=True)
        estimator = treesmith.DecisionTreeClassifier()
    else:
        X, y = load_diabetes(return_X_y=True)
        estimator = treesmith.DecisionTreeRegressor()
    phase = name
    start, cpu_start = time.perf_counter(), time.process_time()
    estimator.fit(X, y)
    fitted, cpu_fitted = time.perf_counter(), time.process_time()
    estimator.predict(X)
    phases.append((name, fitted - start, time.perf_counter() - fitted, cpu_fitted - cpu_start))

print(__MARKER__ + json.dumps({
    "phases": phases,
    "functions": [[p, f, r] for (p, f), r in functions.items()],
    "passes": [[p, n, s] for (p, n), s in passes.items()],
}))
"""


def run_child(cache_dir, order, checkout=REPO_ROOT):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    env["PYTHONPATH"] = os.pathsep.join(
        [str(checkout)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    code = (_CHILD.replace("__ORDER__", repr(list(order)))
            .replace("__MARKER__", repr(RESULT_MARKER)))
    wall, result = run_snippet(code, env=env, cwd=checkout, timeout=1800)
    result["process_s"] = wall
    return result


def _short(name):
    return name.replace("treesmith.", "", 1) if name.startswith("treesmith.") else name


def function_table(result, phase, show_signatures):
    rows = [(f, r) for p, f, r in result["functions"] if p == phase]
    total = sum(r["self"] for _, r in rows)
    rows.sort(key=lambda item: -item[1]["self"])
    table = []
    for name, record in rows:
        table.append([_short(name), len(record["signatures"]), f"{record['self']:.2f}",
                      f"{record['inclusive']:.2f}",
                      f"{100 * record['self'] / total:.1f}%" if total else "-"])
        if show_signatures:
            for signature in record["signatures"]:
                table.append([f"    ({signature})"[:160], "", "", "", ""])
    table.append(["total", sum(len(r["signatures"]) for _, r in rows), f"{total:.2f}", "",
                  "100%" if total else "-"])
    return format_table(["function", "signatures", "self cpu s", "inclusive cpu s", "share"],
                        table,
                        title=f"Compilations during the {phase} phase")


def pass_table(result, phase, n_passes):
    rows = sorted(((n, s) for p, n, s in result["passes"] if p == phase), key=lambda r: -r[1])
    total = sum(s for _, s in rows)
    table = [[name, f"{seconds:.2f}", f"{100 * seconds / total:.1f}%"]
             for name, seconds in rows[:n_passes]]
    return format_table(["compiler pass", "self cpu s", "share"], table,
                        title=f"Slowest compiler passes during the {phase} phase "
                              f"(of {total:.2f} s in passes)")


def phase_table(cold, warm):
    def seconds(result):
        return {entry[0]: entry[1:] for entry in result["phases"]}

    cold_s, warm_s = seconds(cold), seconds(warm)
    rows = []
    for name in cold_s:
        compiled = sum(r["self"] for p, _, r in cold["functions"] if p == name)
        n_compiled = sum(len(r["signatures"]) for p, _, r in cold["functions"] if p == name)
        n_warm = sum(len(r["signatures"]) for p, _, r in warm["functions"] if p == name)
        (wall, predict, cpu), (warm_wall, warm_predict, _) = cold_s[name], warm_s[name]
        if name == "import":
            rows.append(["import", f"{wall:.2f}", f"{cpu:.2f}", "", f"{compiled:.2f}",
                         n_compiled, f"{warm_wall:.3f}", "", n_warm])
        else:
            rows.append([f"{name} fit", f"{wall:.2f}", f"{cpu:.2f}", f"{predict:.2f}",
                         f"{compiled:.2f}", n_compiled, f"{warm_wall:.3f}",
                         f"{warm_predict:.3f}", n_warm])
    return format_table(
        ["phase", "cold s", "cold cpu s", "+ predict s", "compiling cpu s", "compilations",
         "warm s", "+ predict s", "warm compilations"],
        rows, title="First fit per phase, cold (empty cache) and warm (cache of the cold run); "
                    "compile times are CPU seconds of the compiling thread")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", choices=["classifier", "regressor"], default="classifier",
                        help="which estimator is fitted first (pays the shared kernels)")
    parser.add_argument("--passes", type=int, default=0,
                        help="also print the N compiler passes with most self time")
    parser.add_argument("--signatures", action="store_true",
                        help="list the argument types of every compilation")
    parser.add_argument("--checkout", type=Path, default=REPO_ROOT,
                        help="the treesmith checkout to profile (default: this one)")
    args = parser.parse_args(argv)
    checkout = args.checkout.resolve()
    order = ["classifier", "regressor"]
    if args.first == "regressor":
        order.reverse()

    print(f"treesmith compile profile: python benchmarks/profile_compile.py "
          f"{' '.join(argv if argv is not None else sys.argv[1:])}".rstrip())
    for line in environment_lines():
        print(line)
    print(git_revision_line(checkout))
    print(load_average_line("start"))
    with tempfile.TemporaryDirectory(prefix="treesmith-numba-cache-") as cache_dir:
        cold = run_child(cache_dir, order, checkout)
        warm = run_child(cache_dir, order, checkout)
    print(load_average_line("end"))
    print()
    print(phase_table(cold, warm))
    print(f"process wall: cold {cold['process_s']:.2f} s, warm {warm['process_s']:.2f} s")
    for phase in order:
        print()
        print(function_table(cold, phase, args.signatures))
        if args.passes:
            print()
            print(pass_table(cold, phase, args.passes))
    warm_compiles = [(p, f) for p, f, _ in warm["functions"]]
    if warm_compiles:
        print()
        print("compiled again in the warm process (not cached):",
              ", ".join(sorted({_short(f) for _, f in warm_compiles})))


if __name__ == "__main__":
    main()
