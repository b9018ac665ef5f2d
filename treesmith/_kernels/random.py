"""A small seeded generator for the kernels: xorshift64* seeded by one splitmix64 step.

The kernels draw random numbers in two places, the per-node feature sampling of
``max_features`` and the label shuffles of the S-pruning permutation test. A private state,
passed explicitly, keeps results reproducible from ``random_state`` alone, independent of
Numba's global generator and of the number of threads, and compiles in a fraction of the time
``np.random`` needs.
"""

import numpy as np
from numba import njit

from .decorators import internal_kernel

_MULTIPLIER = np.uint64(0x2545F4914F6CDD1D)
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)


@internal_kernel
def initial_state(seed):
    """A non-zero xorshift64* state from any int64 seed (one splitmix64 step)."""
    z = np.uint64(seed) + _GOLDEN_GAMMA
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = _GOLDEN_GAMMA
    return z


@njit(cache=True, nogil=True, _nrt=False)
def next_below(state, bound):
    """Advance xorshift64* ``state`` (a 1-element uint64 array) and draw an int in [0, bound),
    ``bound < 2^32``. Compiled without reference counting (it allocates nothing): the random
    splitter calls it a few times per (node, feature), and a counting callee takes an atomic
    incref/decref pair on ``state`` per call."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    # Lemire's multiply-shift on the top 32 bits: no division; bias < bound / 2^32.
    r = (x * _MULTIPLIER) >> np.uint64(32)
    return np.int64((r * np.uint64(bound)) >> np.uint64(32))


@njit(cache=True, nogil=True, inline="always")
def draw_without_replacement(order, i, state):
    """Step ``i`` of a Fisher–Yates shuffle of ``order`` (positions i.. not yet drawn): the
    entry drawn into position i. The feature samplers (``growth.choose_features``,
    ``random_thresholds.visit_features``) draw features with it as far as they need."""
    j = i + next_below(state, order.shape[0] - i)
    drawn = order[j]
    order[j] = order[i]
    order[i] = drawn
    return drawn


@njit(cache=True, nogil=True, inline="always")
def marked_in_order(marked, out):
    """``out[:n]``: the indices where ``marked`` is True, increasing, with ``marked`` cleared;
    returns n (the feature samplers' chosen features, in the order the scans take them)."""
    n = 0
    for f in range(marked.shape[0]):
        if marked[f]:
            out[n] = f
            n += 1
            marked[f] = False
    return np.int64(n)
