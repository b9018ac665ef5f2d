"""How fast is the principal-component ordering of a multiclass categorical feature
(``categorical._principal_component_keys``) against the version it replaced (issue 15)?

One node's keys for K classes and m categories (random class weights, as a histogram of many
rows gives): the current kernel against a frozen copy of the previous one (below: centred
proportions, a K x K covariance of scalar dot products with four running sums, squaring of
the full K x K matrix). Each timing is a compiled loop of calls, divided by the calls; both
kernels are timed in turns (interleaved), and the table shows the medians of the repeats,
minus the time of the copy both loops make of their input (the previous kernel overwrote
it). The keys of both are compared (they differ only by rounding).

    python benchmarks/bench_principal_component.py                  # K 3 5 10 30, m 11 64 255
    python benchmarks/bench_principal_component.py --classes 3 10 --categories 255 --repeats 21

Goal (issue 15: a categorical scan within 1.5x of a numeric one): at m = 255, <= 0.7 us at
K = 3 and <= 3 us at K = 10.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from treesmith._kernels.categorical import (  # noqa: E402
    _principal_component_keys,
    principal_component_scratch,
)

GOALS_US = {3: 0.7, 10: 3.0}


# -- the previous kernel, frozen (treesmith main at bdc7b66) -------------------------------
_OLD_MAX_SQUARINGS = 40


@njit(cache=True)
def _old_dot(x, y, z, m):
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    quads = m - m % 4
    for j in range(0, quads, 4):
        s0 += x[j] * y[j] * z[j]
        s1 += x[j + 1] * y[j + 1] * z[j + 1]
        s2 += x[j + 2] * y[j + 2] * z[j + 2]
        s3 += x[j + 3] * y[j + 3] * z[j + 3]
    for j in range(quads, m):
        s0 += x[j] * y[j] * z[j]
    return (s0 + s1) + (s2 + s3)


@njit(cache=True)
def _old_first_eigenvector(covariance, v, power, product):
    k_classes = covariance.shape[0]
    trace = 0.0
    for a in range(k_classes):
        trace += covariance[a, a]
    for a in range(k_classes):
        for c in range(k_classes):
            power[a, c] = covariance[a, c] * (1.0 / trace)
    ones = v
    for a in range(k_classes):
        ones[a] = 1.0
    for _ in range(_OLD_MAX_SQUARINGS):
        trace = 0.0
        for a in range(k_classes):
            for c in range(a, k_classes):
                product[a, c] = _old_dot(power[a], power[c], ones, k_classes)
            trace += product[a, a]
        rank_one = trace >= 1.0 - 1e-10
        inverse_trace = 1.0 / trace
        for a in range(k_classes):
            for c in range(a, k_classes):
                power[a, c] = product[a, c] * inverse_trace
                power[c, a] = power[a, c]
        if rank_one:
            break
    largest = 0
    for a in range(k_classes):
        if power[a, a] > power[largest, largest]:
            largest = a
    for a in range(k_classes):
        v[a] = power[a, largest]
    for _ in range(2):
        norm = 0.0
        for a in range(k_classes):
            s = 0.0
            for c in range(k_classes):
                s += covariance[a, c] * v[c]
            product[0, a] = s
            norm += s * s
        norm = np.sqrt(norm)
        for a in range(k_classes):
            v[a] = product[0, a] / norm
    largest = 0
    for a in range(k_classes):
        if abs(v[a]) > abs(v[largest]):
            largest = a
    if v[largest] < 0.0:
        for a in range(k_classes):
            v[a] = -v[a]


@njit(cache=True)
def _old_principal_component_keys(class_weights, weights, inverse_weights, m, keys, scratch):
    k_classes = class_weights.shape[0]
    square = k_classes * k_classes
    v = scratch[:k_classes]
    mean = scratch[k_classes:2 * k_classes]
    covariance = scratch[2 * k_classes:2 * k_classes + square].reshape((k_classes, k_classes))
    power = scratch[2 * k_classes + square:2 * k_classes + 2 * square].reshape(
        (k_classes, k_classes))
    product = scratch[2 * k_classes + 2 * square:2 * k_classes + 3 * square].reshape(
        (k_classes, k_classes))
    total = 0.0
    for a in range(k_classes):
        mean[a] = _old_dot(class_weights[a], inverse_weights, weights, m)
        total += mean[a]
    if not total > 0.0:
        for j in range(m):
            keys[j] = 0.0
        return 0.0, 0.0
    for a in range(k_classes):
        row = class_weights[a]
        centre = mean[a] / total
        for j in range(m):
            row[j] = row[j] * inverse_weights[j] - centre
    spread = 0.0
    for a in range(k_classes):
        for c in range(a, k_classes):
            covariance[a, c] = _old_dot(class_weights[a], class_weights[c], weights, m)
            covariance[c, a] = covariance[a, c]
        spread += covariance[a, a]
    if not spread > 0.0:
        for j in range(m):
            keys[j] = 0.0
        return 0.0, 0.0
    _old_first_eigenvector(covariance, v, power, product)
    low = np.inf
    high = -np.inf
    for j in range(m):
        key = 0.0
        if weights[j] > 0.0:
            for a in range(k_classes):
                key += v[a] * class_weights[a, j]
        keys[j] = key
        low = min(low, key)
        high = max(high, key)
    return low, high


# -- timing loops: each call gets a fresh copy of the class weights -----------------------
def _timing_loop(kernel):
    """A compiled loop of ``calls`` calls of ``kernel`` (None: the copy alone)."""

    @njit
    def loop(original, weights, inverse_weights, keys, scratch, calls):
        class_weights = np.empty_like(original)
        m = np.int64(original.shape[1])
        spread = 0.0
        for _ in range(calls):
            class_weights[:] = original
            if kernel is None:
                spread += class_weights[0, 0]
            else:
                low, high = kernel(class_weights, weights, inverse_weights, m, keys, scratch)
                spread += high - low
        return spread

    return loop


def _problem(n_classes, n_categories, seed=0):
    rng = np.random.default_rng(seed)
    class_weights = rng.random((n_classes, n_categories)) * 4000.0
    weights = np.zeros(n_categories)
    for k in range(n_classes):  # the scan's order
        weights += class_weights[k]
    return class_weights, weights, 1.0 / weights


def _keys(kernel, class_weights, weights, scratch):
    keys = np.empty(class_weights.shape[1])
    kernel(class_weights.copy(), weights, 1.0 / weights, np.int64(class_weights.shape[1]),
           keys, scratch)
    return keys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", type=int, nargs="+", default=[3, 5, 10, 30])
    parser.add_argument("--categories", type=int, nargs="+", default=[11, 64, 255])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--seconds", type=float, default=0.02,
                        help="length of one timed loop (default 0.02 s)")
    args = parser.parse_args(argv)
    time_previous = _timing_loop(_old_principal_component_keys)
    time_current = _timing_loop(_principal_component_keys)
    time_copy = _timing_loop(None)

    print(f"{'K':>3} {'m':>4} {'previous us':>12} {'current us':>11} {'speed-up':>9} "
          f"{'goal us':>8} {'max key diff':>13}")
    for n_classes in args.classes:
        for n_categories in args.categories:
            class_weights, weights, inverse_weights = _problem(n_classes, n_categories)
            old_scratch = np.empty(2 * n_classes + 3 * n_classes * n_classes)
            new_scratch = np.empty(principal_component_scratch(n_classes, n_categories))
            old_keys = _keys(_old_principal_component_keys, class_weights, weights, old_scratch)
            new_keys = _keys(_principal_component_keys, class_weights, weights, new_scratch)
            difference = np.max(np.abs(old_keys - new_keys))
            keys = np.empty(n_categories)
            loops = {"previous": (time_previous, old_scratch),
                     "current": (time_current, new_scratch), "copy": (time_copy, new_scratch)}
            calls = {}
            for name, (loop, scratch) in loops.items():  # compile, then size each loop
                loop(class_weights, weights, inverse_weights, keys, scratch, 1)
                start = time.process_time()
                loop(class_weights, weights, inverse_weights, keys, scratch, 1000)
                calls[name] = max(10, int(args.seconds * 1000 / (time.process_time() - start)))
            times = {name: [] for name in loops}
            for _ in range(args.repeats):
                for name, (loop, scratch) in loops.items():
                    start = time.process_time()
                    loop(class_weights, weights, inverse_weights, keys, scratch, calls[name])
                    times[name].append((time.process_time() - start) / calls[name] * 1e6)
            copy = statistics.median(times["copy"])
            previous = statistics.median(times["previous"]) - copy
            current = statistics.median(times["current"]) - copy
            goal = GOALS_US.get(n_classes) if n_categories == 255 else None
            print(f"{n_classes:>3} {n_categories:>4} {previous:>12.2f} {current:>11.2f} "
                  f"{previous / current:>8.1f}x {goal if goal else '':>8} {difference:>13.1e}")


if __name__ == "__main__":
    main()
