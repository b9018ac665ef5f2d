"""Splits of a categorical feature by a set of categories (docs/methods.md §11).

A categorical feature's bins are its category codes 0..k-1 (``treesmith.categorical``), plus the
missing bin, so its histogram is the same per-bin statistics row as a numeric feature's. A
candidate split sends a set of categories left, the other categories right and the missing
bin (missing values and categories unseen in training) to its learned side. The scan never
scores a candidate itself: it hands the categories of a candidate family in order (the node's
``bin_order``) or laid out as a compact histogram to the numeric scan (its twin that takes
bins in that order, ``splitting.bin_at``, through a pointer), so the impurity, the split
rule's numerator, min_samples_leaf / min_weight_leaf and the choice of the missing side are
exactly those of numeric features.

Candidates, with m the categories present in the node:

* the prefixes of the categories ordered by a key (ties by code) when that order is known to
  hold the best split: two classes, a gain-type rule, a strictly concave impurity of the
  class-1 proportion and no leaf-size constraint (the ``skip_same_class_runs`` condition), or
  regression (squared error, Poisson and Tweedie deviances: w(S) phi(mean) with phi concave)
  under a gain-type rule without leaf-size constraint, where no present category nor the
  missing values has an infinite h (Poisson and Tweedie refuse a child of mean 0, a
  constraint the order does not know: ``_refuses_a_category``). The key is the class-1
  proportion or the mean target; the best gain is then a prefix (Breiman, Friedman, Olshen & Stone,
  "Classification and Regression Trees", 1984, Theorem 4.5; Fisher, "On grouping for maximum
  homogeneity", 1958). The missing bin, forced to one side, does not break this: the best
  ordered partition of the categories plus "missing" is one of the candidates.
* otherwise, when m <= ``EXHAUSTIVE_MAX_CATEGORIES``: every partition, 2^(m-1) - 1 of them,
  each with missing values left or right, and, for a rule whose numerator is not symmetric in
  the children (``split_rules.numerator_is_symmetric``: ECART's B(d) takes the child with more
  objects, ties left), each both ways round: exact for every rule, criterion, class count and leaf-size constraint
  (about 0.2 us per partition and way: the subsets' sums are a table filled with one row add
  each, then one two-bin numeric scan each).
* otherwise (larger m): the best prefix of one ordering, a heuristic: by the class-1
  proportion (two classes), the mean (regression) or, for K > 2 classes, the principal-component
  score of the category's class proportions (Coppersmith, Hong & Hosking, "Partitioning nominal
  attributes in decision trees", 1999): the first principal component of the categories' class
  proportion vectors, each weighted by the category's weight, and each category's projection
  on it. With two classes that is the class-1 order, and it holds the best split whenever the
  categories' proportion vectors lie on one line A rule not symmetric in the children scans
  the prefixes both ways round (the order reversed too).

Cost (``benchmarks/bench_categorical.py``): an ordering is a bucket sort of the keys
(``_sort_by_key``), after one pass over the bins that finds the present categories, their
weights and (two classes, regression) their keys; the principal component adds a
(K - 1) x (K - 1) weighted covariance of the proportions and its first eigenvector
(``_principal_component_keys``; vector arithmetic in ``lanes``).
Every path but the exhaustive one is then one numeric scan that reads the histogram's rows
in key order: no row is copied. At 255 categories, in cycles of one core (a Sapphire Rapids
at 2.5 GHz, each piece timed by returning early from the scan, medians over 10,000 calls):
finding the categories about 1.0k (two classes), 1.7k (three), 5k (ten: a loop over the
classes, 20 loads and 10 stores a category); the principal component 1.7k (three classes)
and 8.3k (ten: 45 dot products of 255 entries for the covariance, the eigenvector's
squarings); the sort about 2k to 3k; the numeric scan itself 10k (two classes) to 28k (ten).

The chosen set is a 256-bit bitset (four uint64 words, bit ``c & 63`` of word ``c >> 6`` for
code c), stored per node by the growth loop and read by ``partition_categorical`` and the
prediction walk.
"""

import numpy as np
from numba import njit

from .decorators import internal_kernel, pointer_kernel
from .lanes import CHUNK, LANES, lane_min_max, lane_row_dots, padded_length, row_combinations
from .records import SCAN_WORK_ROWS, SPLIT_DTYPE, Monotonicity, NodeScan
from .split_rules import (
    NO_SPLIT,
    beats,
    node_tie_scale,
    numerator_is_gain,
    numerator_is_symmetric,
)
from .stats import (
    REGRESSION_COUNT,
    REGRESSION_WEIGHT,
    REGRESSION_WEIGHTED_TARGET,
    class_weights_slice,
    count_column,
    weight_column,
)

#: ``bin_threshold`` of a split by a set of categories (``NO_SPLIT`` is -1).
CATEGORICAL_SPLIT = np.int64(-2)
#: Largest number of categories present in a node whose partitions are all tried: 2^9 - 1 = 511
#: candidates, each a numeric scan of a two-bin histogram.
EXHAUSTIVE_MAX_CATEGORIES = 10
#: Words of a category bitset: 256 bits, one per possible code of a uint8 bin.
BITSET_WORDS = 4


@internal_kernel(reference_counted=False)
def _clear_bits(bits):
    for w in range(BITSET_WORDS):
        bits[w] = np.uint64(0)


@internal_kernel(reference_counted=False)
def _set_bit(bits, code):
    bits[code >> 6] |= np.uint64(1) << np.uint64(code & 63)


@internal_kernel(reference_counted=False)
def has_category(bits, code):
    """Whether category ``code`` (0 <= code < 256) is in the bitset ``bits``."""
    return (bits[code >> 6] >> np.uint64(code & 63)) & np.uint64(1) != np.uint64(0)


#: Shell sort gaps (Ciura's sequence) for at most 255 categories; the last pass, gap 1, is an
#: insertion sort.
_GAPS = np.array([132, 57, 23, 10, 4, 1], dtype=np.int64)
#: Moves per category after which ``_sort_by_key`` leaves its insertion sort (keys
#: crowded into a sliver of their range) to the Shell sort.
_MAX_SHIFTS_PER_KEY = 4


@internal_kernel(reference_counted=False)
def _insertion_sort(keys, order, m, budget):
    """Sort ``order[:m]`` and ``keys[:m]`` in place by (key, code), moving entries by one place
    at a time; gives up (returns False, the arrays then still a permutation of the input)
    once more than ``budget`` moves were made."""
    shifts = 0
    for i in range(1, m):
        key = keys[i]
        previous = keys[i - 1]
        # already in place: most entries after the bucket sort; this test first, with no
        # store, is most of the speed on such input
        if key > previous:
            continue
        code = order[i]
        if key == previous and code > order[i - 1]:
            continue
        j = i
        while j > 0 and (key < keys[j - 1] or (key == keys[j - 1] and code < order[j - 1])):
            keys[j] = keys[j - 1]
            order[j] = order[j - 1]
            j -= 1
        keys[j] = key
        order[j] = code
        shifts += i - j
        if shifts > budget:
            return False
    return True


@internal_kernel(reference_counted=False)
def _shell_sort(keys, order, m):
    """Sort ``order[:m]`` and ``keys[:m]`` in place by (key, code): insertion sorts with
    Ciura's gaps, the last one with gap 1 (``np.sort`` costs more compile time than this
    whole module)."""
    for g in range(_GAPS.shape[0] - 1):
        gap = _GAPS[g]
        for i in range(gap, m):
            code = order[i]
            key = keys[i]
            j = i
            while j >= gap and (key < keys[j - gap]
                                or (key == keys[j - gap] and code < order[j - gap])):
                keys[j] = keys[j - gap]
                order[j] = order[j - gap]
                j -= gap
            keys[j] = key
            order[j] = code
    _insertion_sort(keys, order, m, m * m)


@internal_kernel(reference_counted=False)
def _sort_by_key(present, keys, m, low, high, sorted_keys, order, bucket_start, bucket_of):
    """The ``m`` present categories (codes ``present[:m]``, increasing) in (``keys``, code)
    order: ``order[:m]`` the codes, ``sorted_keys[:m]`` their keys; ``low``/``high`` bound
    the keys; ``bucket_start`` (m + 1 entries, m used) and ``bucket_of`` (m) are scratch.

    A bucket sort: key k goes to bucket floor((k - low) m / (high - low)), a non-decreasing
    function of k, so the buckets are in key order and, filled in code order, hold their ties
    in code order; an insertion sort then orders each bucket, one step per category plus one
    per inversion (equal keys, e.g. pure categories, cost nothing). With keys spread over
    their range (proportions, means) a bucket holds about one category: ~5 m steps, against
    ~m^1.3 compare-and-moves for the Shell sort that takes over when the insertion sort
    passes ``_MAX_SHIFTS_PER_KEY`` m moves (distinct keys crowded into a sliver of their
    range) or the range is not finite (NaN or infinite keys from a failing criterion).
    """
    span = high - low
    scale = m / span if span > 0.0 else 0.0
    if scale < np.inf and low == low and high < np.inf and low > -np.inf:
        last = m - 1
        for j in range(m):  # no store here depends on another: the vector unit computes it
            bucket_of[j] = min(np.int64((keys[j] - low) * scale), last)
        for i in range(m):
            bucket_start[i] = 0
        for j in range(m):  # bucket sizes...
            bucket_start[bucket_of[j]] += 1
        start = 0
        for i in range(m):  # ... to bucket starts, the running sum in a register
            size = bucket_start[i]
            bucket_start[i] = start
            start += size
        for j in range(m):
            bucket = bucket_of[j]
            position = bucket_start[bucket]
            bucket_start[bucket] = position + 1
            sorted_keys[position] = keys[j]
            order[position] = present[j]
        if _insertion_sort(sorted_keys, order, m, _MAX_SHIFTS_PER_KEY * m):
            return
    for j in range(m):
        sorted_keys[j] = keys[j]
        order[j] = present[j]
    _shell_sort(sorted_keys, order, m)


@internal_kernel(reference_counted=False)
def _ordering_is_exact(node):
    """Whether the best split of this node is a prefix of the categories in key order (see
    the module docstring): two classes under the ``skip_same_class_runs`` condition, or
    regression under a gain-type rule without leaf-size constraint."""
    if node.n_classes == 2:
        return node.rule.skip_same_class_runs
    return (node.n_classes == 0 and numerator_is_gain(node.rule.code)
            and node.min_samples_leaf <= 1 and node.min_weight_leaf <= 0.0)


@internal_kernel(reference_counted=False)
def _refuses_a_category(hist_f, present, m, missing_bin, node):
    """Regression: whether h is not finite on a present category's row or on the missing
    row (the Poisson and Tweedie deviances of a mean 0). The numeric scan refuses a child
    whose h is not finite, a constraint the mean order does not know, like a leaf-size limit:
    the best valid split need not be a prefix (the zero-mean categories can join any side)."""
    if node.n_classes != 0:
        return False
    h = node.impurity.h
    h_params = node.impurity.h_params
    for j in range(m):
        if not np.isfinite(h(hist_f[present[j]], h_params)):
            return True
    return (hist_f[missing_bin, REGRESSION_COUNT] > 0.0
            and not np.isfinite(h(hist_f[missing_bin], h_params)))


@internal_kernel(reference_counted=False)
def _copy_row(source, b, target, r):
    for s in range(source.shape[1]):
        target[r, s] = source[b, s]


@njit(cache=True, nogil=True, inline="always")
def _with_bin_order(node, bin_order):
    """``node`` (``records.NodeScan``) with ``bin_order``: the order in which the numeric
    scan's in-order twin takes the bins (Numba has no namedtuple ``_replace``). Inlined: the
    record's arrays then follow the caller's reference counting (a record returned by a
    function compiled without it, to a caller with it, would be released once too often)."""
    return NodeScan(node.n_classes, node.impurity, node.rule, node.min_samples_leaf,
                    node.min_weight_leaf, node.weighted_parent_impurity, node.total_weight,
                    node.totals, node.monotonicity, bin_order)


@internal_kernel(reference_counted=False)
def _no_split(out):
    """Mark the record ``out`` as holding no valid split (its ``impurity_failed`` is the
    caller's)."""
    out["bin_threshold"] = NO_SPLIT
    out["next_bin"] = NO_SPLIT
    out["score"] = -np.inf
    out["gain"] = -np.inf
    _clear_bits(out["left_categories"])


@internal_kernel(reference_counted=False)
def _key_column(n_classes):
    """Column of a row whose ratio to the row's weight is the ordering key of two classes
    (class 1's weight: its proportion) or regression (the weighted target sum: the mean)."""
    if n_classes == 0:
        return np.int64(REGRESSION_WEIGHTED_TARGET)
    return weight_column(n_classes, np.int64(1))


#: Categories lighter than this take weight 0 in the principal component (1 / weight would
#: be infinite).
_SMALLEST_WEIGHT = 1e-300
#: Most squarings of the covariance matrix for its first eigenvector: after s of them the
#: second eigenvalue's share is (lambda_2 / lambda_1)^(2^s), so 40 separate any two distinct
#: eigenvalues.
_MAX_SQUARINGS = 40
#: The squaring stops once the unit-trace power P is rank one to this: trace(P^2) >= 1 - it,
#: so the other eigenvalues of P sum to at most it...
_RANK_ONE_TOLERANCE = 1e-3
#: ... and each of these multiplications of v by P then divides the other eigenvectors'
#: weight in v by at least 1 / it - 1 (3: from about sqrt(n) 1e-3 to below 1e-11).
_POWER_STEPS = 3


@njit(inline="always")
def _keep_category(present, weights, inverse_weights, m, b, weight):
    """Bin ``b``, of ``weight``, as the ``m``-th present category of more than two classes:
    its weight and inverse weight (where the keys go; they hold the inverse weights until the
    scores replace them), both 0 for a weight so small its inverse is infinite. Inlined by
    Numba: a call would cost an incref/decref pair per array."""
    present[m] = b
    live = weight > _SMALLEST_WEIGHT
    weights[m] = weight if live else 0.0
    inverse_weights[m] = 1.0 / weight if live else 0.0


@njit(inline="always")
def _gram_scratch(n_classes, m):
    """Floats of ``_principal_component_keys_of_gram``'s scratch for K = ``n_classes`` and
    ``m`` categories: m rows of ``padded_length(K, LANES)`` (the centred proportions of every
    class, category by category), a vector of that length (v), one of K (the class totals),
    three m x m matrices with rows padded to ``CHUNK``, two vectors of m and one of
    ``padded_length(m, LANES)``."""
    k_width = padded_length(n_classes, LANES)
    return (m * k_width + k_width + n_classes + 3 * m * padded_length(m, CHUNK) + 2 * m
            + padded_length(m, LANES))


@njit(inline="always")
def principal_component_scratch(n_classes, n):
    """Floats of ``_principal_component_keys``'s scratch for ``n_classes`` classes (K) and up
    to ``n`` categories. With m >= K - 1 categories (the covariance's own dimension): K rows
    of ``lanes.padded_length(m, LANES)`` floats (the centred class proportions of K - 1
    classes, the keys), three (K - 1) x (K - 1) matrices with rows padded to ``lanes.CHUNK``,
    and three vectors of K; with fewer, ``_gram_scratch`` (m x m matrices): never K^2."""
    covariance = (n_classes * padded_length(n, LANES)
                  + 3 * (n_classes - 1) * padded_length(n_classes - 1, CHUNK) + 3 * n_classes
                  if n >= n_classes - 1 else 0)
    gram_categories = min(n, n_classes - 2)
    gram = _gram_scratch(n_classes, gram_categories) if gram_categories > 0 else 0
    return max(covariance, gram)


@internal_kernel(reference_counted=False)
def _first_eigenvector(matrix, n, stride, v, power, product):
    """Unit first eigenvector ``v[:n]`` of the symmetric positive semi-definite, nonzero
    n x n ``matrix`` (flat, row a at ``a * stride``, ``stride`` a multiple of ``lanes.CHUNK``
    and the columns from n on 0), its largest component positive; ``power`` and ``product``
    are scratch of the matrix's size.

    The matrix is squared, and scaled to unit trace, until it is rank one to 1e-3 (trace of
    its square 1): then it is nearly v v^T and its column of largest diagonal nearly v, which
    three multiplications by that power P (each dividing the other eigenvectors' weight by
    about 1000) and two by ``matrix`` (rounding) polish. Squaring converges for any eigengap,
    where power iteration needs about 1 / gap steps; with ties for the first eigenvalue the
    result is still a deterministic unit vector of their eigenspace. Row a of P^2 is sum_b P[a, b]
    P[b, :] (``lanes.row_combinations``): bit for bit symmetric when P is, as the products
    P[a, b] P[b, c] and P[c, b] P[b, a] are equal."""
    size = n * stride
    trace = 0.0
    for a in range(n):
        trace += matrix[a * stride + a]
    unit_trace = 1.0 / trace  # products by the matrix scaled by it: no square overflows
    for t in range(size):
        power[t] = matrix[t] * unit_trace
    for _ in range(_MAX_SQUARINGS):
        row_combinations(power, stride, n, power, n, stride, product)  # P symmetric: P^2
        trace = 0.0
        for a in range(n):
            trace += product[a * stride + a]
        # trace(P^2) = 1 iff P = v v^T, for unit-trace P
        rank_one = trace >= 1.0 - _RANK_ONE_TOLERANCE
        inverse_trace = 1.0 / trace
        for t in range(size):
            power[t] = product[t] * inverse_trace
        if rank_one:
            break
    largest = 0
    for a in range(n):
        if power[a * stride + a] > power[largest * stride + largest]:
            largest = a
    for a in range(n):
        v[a] = power[a * stride + largest]
    polished = product[:stride]
    for step in range(_POWER_STEPS + 2):
        # v^T M = M v, M symmetric: P, then the matrix itself
        row_combinations(v, 0, 1, power if step < _POWER_STEPS else matrix, n, stride,
                         polished)
        scale = 1.0 if step < _POWER_STEPS else unit_trace
        norm = 0.0
        for a in range(n):
            polished[a] *= scale
            norm += polished[a] * polished[a]
        norm = np.sqrt(norm)
        for a in range(n):
            v[a] = polished[a] / norm
    largest = 0
    for a in range(n):
        if abs(v[a]) > abs(v[largest]):
            largest = a
    if v[largest] < 0.0:
        for a in range(n):
            v[a] = -v[a]


@njit(inline="always")
def _first_eigenvector_of_two(s00, s01, s11):
    """Unit first eigenvector (u0, u1) of the nonzero symmetric positive semi-definite matrix
    [[s00, s01], [s01, s11]], in closed form: with h = (s00 - s11) / 2 and r = sqrt(h^2 +
    s01^2) the first eigenvalue is (s00 + s11) / 2 + r, with eigenvector (h + r, s01) when
    h >= 0 and (s01, r - h) otherwise (sums of terms of one sign: no cancellation). Equal
    eigenvalues (h = s01 = 0) give (1, 0)."""
    scale = 1.0 / (s00 + s11)  # entries <= 1: no square overflows
    h = 0.5 * (s00 - s11) * scale
    b = s01 * scale
    r = np.sqrt(h * h + b * b)
    if h >= 0.0:
        ratio = b / (h + r) if h + r > 0.0 else 0.0
        norm = np.sqrt(1.0 + ratio * ratio)
        return 1.0 / norm, ratio / norm
    ratio = b / (r - h)
    norm = np.sqrt(1.0 + ratio * ratio)
    return ratio / norm, 1.0 / norm


@internal_kernel(reference_counted=False)
def _leading_eigenvector(matrix, n, stride, u, power, product):
    """u = the first eigenvector of the symmetric n x n ``matrix`` (row stride ``stride``):
    closed forms for n = 1 and 2, repeated squaring beyond."""
    if n == 1:
        u[0] = 1.0
    elif n == 2:
        u[0], u[1] = _first_eigenvector_of_two(matrix[0], matrix[1], matrix[stride + 1])
    else:
        _first_eigenvector(matrix, n, stride, u, power, product)


@internal_kernel(reference_counted=False)
def _class_totals(class_weights, weights, inverse_weights, m, products, class_total):
    """class_total[a] = each class's weight over the categories of weight > 0,
    sum_j (w_j / w_j) w_a,j (``products``: m floats of scratch, the lanes' order of
    ``lane_row_dots``), and the sum of those totals."""
    k_classes = class_weights.shape[0]
    for j in range(m):
        products[j] = inverse_weights[j] * weights[j]
    n_columns = class_weights.shape[1]
    lane_row_dots(products, class_weights.reshape(k_classes * n_columns), k_classes,
                  n_columns, m, class_total)
    total = 0.0
    for a in range(k_classes):
        total += class_total[a]
    return total


@internal_kernel(reference_counted=False)
def _principal_component_keys(class_weights, weights, inverse_weights, m, keys, scratch):
    """``keys[:m]``: the principal-component scores of ``m`` categories of K classes, from
    their class weight sums ``class_weights[k, j]`` (K rows, category j in column j), their
    weights ``weights[j]`` and ``inverse_weights[j]`` = 1 / weights[j] (both 0 for a category
    of weight 0, or so small its inverse is infinite); returns the (lowest, highest) key.
    ``keys`` may be ``inverse_weights``. ``scratch`` holds at least
    ``principal_component_scratch(K, m)`` floats.

    The score of category c is v . (p_c - p), p_c its class proportions, p their mean
    weighted by the categories' weights and v the first eigenvector of the weighted
    covariance C = sum_c w_c (p_c - p)(p_c - p)^T (its sign only reverses the order: the same
    prefixes up to complement). A category of weight 0, or every category when they all have
    the same proportions, scores 0.

    Proportions sum to 1, so C 1 = 0 and v lies in the (K - 1)-dimensional space orthogonal
    to 1: C is computed for the first K - 1 classes only (C'; the last class's deviation is
    minus the sum of the others'), and C = Q S Q^T with Q = B G^(-1/2) an orthonormal basis
    of that space (B = [I; -1^T], G = B^T B = I + 1 1^T) and S = G^(1/2) C' G^(1/2), where
    G^(+-1/2) = I + a 1 1^T with a = (K^(+-1/2) - 1) / (K - 1). v = Q u for u the first
    eigenvector of S: in closed form for three classes (``_first_eigenvector_of_two``), by
    squaring otherwise (``_first_eigenvector``). The categories' rows are padded to a
    multiple of ``lanes.LANES``: C' is dot products of rows and the keys a combination of
    rows in the vector unit (``lanes``), in orders that give the same bits on every machine.
    """
    k_classes = class_weights.shape[0]
    n_free = k_classes - 1
    if m < n_free:  # the covariance has rank < m: its m x m Gram matrix is smaller
        return _principal_component_keys_of_gram(class_weights, weights, inverse_weights, m,
                                                 keys, scratch)
    width = padded_length(m, LANES)
    # rows a < n_free: class a's centred proportions, padded with zeros to ``width``; row
    # n_free: the keys, padded with a copy of a key
    rows = scratch[:k_classes * width]
    stride = padded_length(n_free, CHUNK)
    matrix_size = n_free * stride
    small = scratch[k_classes * width:]
    covariance = small[:matrix_size]
    power = small[matrix_size:2 * matrix_size]
    product = small[2 * matrix_size:3 * matrix_size]
    class_total = small[3 * matrix_size:3 * matrix_size + k_classes]
    u = small[3 * matrix_size + k_classes:3 * matrix_size + 2 * k_classes]
    coefficient = small[3 * matrix_size + 2 * k_classes:3 * matrix_size + 3 * k_classes]
    # row n_free holds the products x_j z_j of the dot products until it holds the keys:
    # formed once, not once per row (lane_row_dots: the bits of lane_dots)
    products = rows[n_free * width:k_classes * width]
    total = _class_totals(class_weights, weights, inverse_weights, m, products, class_total)
    if not total > 0.0:
        for j in range(m):
            keys[j] = 0.0
        return 0.0, 0.0
    for a in range(n_free):  # the proportions, centred
        centre = class_total[a] / total
        centred = rows[a * width:(a + 1) * width]
        source = class_weights[a]
        for j in range(m):
            centred[j] = source[j] * inverse_weights[j] - centre
        for j in range(m, width):
            centred[j] = 0.0
    for a in range(n_free):  # C' (categories of weight 0 add 0), rows padded to ``stride``
        # C'[a, c] = sum_j (d_a,j w_j) d_c,j for c >= a, mirrored; over the padded width:
        # the padding's products are +0.0, which change no lane sum (never -0.0, from +0.0)
        centred = rows[a * width:(a + 1) * width]
        for j in range(m):
            products[j] = centred[j] * weights[j]
        for j in range(m, width):
            products[j] = 0.0
        lane_row_dots(products, rows[a * width:], n_free - a, width, width,
                      covariance[a * stride + a:(a + 1) * stride])
        for c in range(a + 1, n_free):
            covariance[c * stride + a] = covariance[a * stride + c]
        for c in range(n_free, stride):
            covariance[a * stride + c] = 0.0
    row_sums = coefficient  # scratch until the coefficients are computed
    grand_total = 0.0
    for a in range(n_free):
        row_sum = 0.0
        for c in range(n_free):
            row_sum += covariance[a * stride + c]
        row_sums[a] = row_sum
        grand_total += row_sum
    root = np.sqrt(k_classes)
    alpha = (root - 1.0) / n_free
    beta = (1.0 / root - 1.0) / n_free
    spread = 0.0
    for a in range(n_free):  # S = G^(1/2) C' G^(1/2), symmetric bit for bit as C' is
        for c in range(n_free):
            covariance[a * stride + c] += (alpha * (row_sums[a] + row_sums[c])
                                           + alpha * alpha * grand_total)
        spread += covariance[a * stride + a]
    if not spread > 0.0:  # every category has the same proportions
        for j in range(m):
            keys[j] = 0.0
        return 0.0, 0.0
    _leading_eigenvector(covariance, n_free, stride, u, power, product)
    # v = B G^(-1/2) u: z = u + beta (1 . u) 1, v = (z, -1 . z); the keys are
    # v . (d, -1 . d) = sum_a (v_a - v_last) d_a for the first K - 1 classes' deviations d
    u_sum = 0.0
    for a in range(n_free):
        u_sum += u[a]
    z_sum = 0.0
    for a in range(n_free):
        u[a] += beta * u_sum
        z_sum += u[a]
    last = -z_sum
    largest = u[0]  # v's largest component (the first of equal ones) is made positive
    for a in range(1, n_free):
        if abs(u[a]) > abs(largest):
            largest = u[a]
    if abs(last) > abs(largest):
        largest = last
    sign = -1.0 if largest < 0.0 else 1.0
    for a in range(n_free):
        coefficient[a] = sign * (u[a] - last)
    projection = rows[n_free * width:k_classes * width]
    row_combinations(coefficient, 0, 1, rows, n_free, width, projection)  # from +0.0
    for j in range(m):  # 0 for the categories of weight 0
        key = projection[j] if weights[j] > 0.0 else 0.0
        projection[j] = key
        keys[j] = key
    for j in range(m, width):  # padding that changes neither the lowest nor the highest key
        projection[j] = projection[0]
    return lane_min_max(projection, width)


@internal_kernel(reference_counted=False)
def _principal_component_keys_of_gram(class_weights, weights, inverse_weights, m, keys,
                                      scratch):
    """``_principal_component_keys`` for m < K - 1 categories, in m dimensions: with D the
    K x m centred proportions (column j: p_j - p) and W the categories' weights, the
    covariance is C = D W D^T, of rank < m. If u is the first eigenvector of the Gram
    matrix M = W^(1/2) D^T D W^(1/2) (m x m), v = D W^(1/2) u / |D W^(1/2) u| is C's, and
    the keys are D^T v: the same direction and sign rule (v's largest component, the first
    of equal ones, positive), in m^2 K + m^3 operations instead of m K^2 + K^3 (and m^2
    floats of scratch instead of K^2: 2000 classes took 96 MB per thread and seconds per
    node). Every deviation is computed from its own class's proportion; sums run in
    ``lanes``' fixed orders or in plain loops, as in the covariance path."""
    k_classes = class_weights.shape[0]
    k_width = padded_length(k_classes, LANES)
    stride = padded_length(m, CHUNK)
    matrix_size = m * stride
    rows = scratch[:m * k_width]  # row j: category j's centred proportions, K classes
    offset = m * k_width
    v = scratch[offset:offset + k_width]
    offset += k_width
    class_total = scratch[offset:offset + k_classes]
    offset += k_classes
    gram = scratch[offset:offset + matrix_size]
    power = scratch[offset + matrix_size:offset + 2 * matrix_size]
    product = scratch[offset + 2 * matrix_size:offset + 3 * matrix_size]
    offset += 3 * matrix_size
    u = scratch[offset:offset + m]
    root_weights = scratch[offset + m:offset + 2 * m]
    projection = scratch[offset + 2 * m:offset + 2 * m + padded_length(m, LANES)]
    total = _class_totals(class_weights, weights, inverse_weights, m, projection, class_total)
    if not total > 0.0:
        for j in range(m):
            keys[j] = 0.0
        return 0.0, 0.0
    for a in range(k_classes):
        class_total[a] = class_total[a] / total  # the mean proportions
    for j in range(m):
        row = rows[j * k_width:(j + 1) * k_width]
        for a in range(k_classes):
            row[a] = class_weights[a, j] * inverse_weights[j] - class_total[a]
        for a in range(k_classes, k_width):
            row[a] = 0.0
        # the weights' shares: scaling every weight by a power of two leaves them, and so
        # the keys, bit for bit (the square root of the weights themselves would not)
        root_weights[j] = np.sqrt(weights[j] / total)
    spread = 0.0
    for j in range(m):  # M[j, c] for c >= j, mirrored: symmetric bit for bit
        lane_row_dots(rows[j * k_width:(j + 1) * k_width], rows[j * k_width:], m - j, k_width,
                      k_classes, gram[j * stride + j:(j + 1) * stride])
        for c in range(j, m):
            gram[j * stride + c] = (root_weights[j] * root_weights[c]) * gram[j * stride + c]
        for c in range(j + 1, m):
            gram[c * stride + j] = gram[j * stride + c]
        for c in range(m, stride):
            gram[j * stride + c] = 0.0
        spread += gram[j * stride + j]
    if not spread > 0.0:  # every category has the same proportions
        for j in range(m):
            keys[j] = 0.0
        return 0.0, 0.0
    _leading_eigenvector(gram, m, stride, u, power, product)
    for j in range(m):
        u[j] = root_weights[j] * u[j]  # the coefficients of v = D W^(1/2) u
    row_combinations(u, 0, 1, rows, m, k_width, v)  # from +0.0
    norm = 0.0
    largest = v[0]  # v's largest component (the first of equal ones) is made positive
    for a in range(k_classes):
        norm += v[a] * v[a]
        if abs(v[a]) > abs(largest):
            largest = v[a]
    if not norm > 0.0:  # rounding: M's first eigenvalue too small to give a direction
        for j in range(m):
            keys[j] = 0.0
        return 0.0, 0.0
    scale = (-1.0 if largest < 0.0 else 1.0) / np.sqrt(norm)
    for a in range(k_classes):
        v[a] = v[a] * scale
    lane_row_dots(v, rows, m, k_width, k_classes, projection)
    for j in range(m):  # 0 for the categories of weight 0
        key = projection[j] if weights[j] > 0.0 else 0.0
        projection[j] = key
        keys[j] = key
    width = padded_length(m, LANES)
    for j in range(m, width):  # padding that changes neither the lowest nor the highest key
        projection[j] = projection[0]
    return lane_min_max(projection, width)


@njit(inline="always")
def categorical_scratch_floats(n_classes, n_stats, n):
    """Floats of ``scan_categorical``'s scratch for a feature of up to ``n`` categories: the
    ordering's (weights, keys, sorted keys; for K > 2 classes the class weights and the
    principal component's), its integers (present codes, order, buckets: 4 n + 1), then the
    exhaustive path's subset sums (2^(EXHAUSTIVE_MAX_CATEGORIES - 1) rows), five rows and the
    best set's bitset."""
    principal = (n_classes * n + principal_component_scratch(n_classes, n)
                 if n_classes > 2 else 0)
    return (3 * n + principal + 4 * n + 1
            + ((np.int64(1) << (EXHAUSTIVE_MAX_CATEGORIES - 1)) + 5) * n_stats + BITSET_WORDS)


@internal_kernel
def categorical_scan_workspace(n_blocks, n_stats, n_classes, n_bins):
    """Scratch of fits with a categorical feature: ``n_blocks`` blocks, each a per-feature
    scan's ``SCAN_WORK_ROWS`` rows (``splitting.scan_workspace``) followed by the rows that
    hold ``scan_categorical``'s scratch for up to ``n_bins`` categories, so the scan
    allocates nothing."""
    width = max(n_stats, n_classes, 1)
    extra = (categorical_scratch_floats(n_classes, n_stats, max(n_bins, 1)) + width - 1) // width
    return np.zeros((n_blocks, SCAN_WORK_ROWS + extra, width))


@njit(cache=True, nogil=True, inline="always")
def _scan_candidates(scan_in_order, hist_f, n_bins_non_missing, missing_bin, node, work,
                     results, f):
    """How ``scan_categorical`` scores its candidates: with the fit's in-order scan
    ``scan_in_order``. Its every-candidate twins bind this name to ``scan_every_candidate``
    (``pointers.categorical_scan_pointer``). Inlined: the same call as before."""
    scan_in_order(hist_f, n_bins_non_missing, missing_bin, node, work, results, f)


@pointer_kernel(reference_counted=False)
def scan_categorical(hist_f, n_bins_non_missing, missing_bin, node, work, results, f,
                     scan_in_order):
    """Best set of categories of one feature from its histogram ``hist_f[code, stat]``.

    OUT ``results[f]``: as the numeric scan's record (``records.SPLIT_DTYPE``), with
    ``bin_threshold`` ``CATEGORICAL_SPLIT`` (``NO_SPLIT`` when no valid split exists),
    ``left_categories`` the bitset of the row indices of ``hist_f`` sent left and ``next_bin``
    ``NO_SPLIT``. ``scan_in_order`` is the numeric per-feature scan's twin that takes the bins
    in ``node.bin_order`` (``pointers.scan_pointer(..., in_order=True)``; the scan itself has
    the same type but would read the bins in their own order), which scores every candidate;
    ``work`` its scratch block, of ``categorical_scan_workspace``: the numeric scan's rows,
    then this scan's own scratch (a ValueError if it is too small).

    One pass over the bins finds the present categories, their weights and (two classes,
    regression) their keys. The two paths hand the numeric scan ``node`` with a bin order:
    the compact histogram's rows as they are, or the categories in key order. Compiled
    without reference counting, allocating nothing: the atomic incref/decref pairs on its
    arrays, its views and its helpers' arguments, and one allocation, were about 0.5 us a
    scan.
    """
    n_classes = node.n_classes
    n_stats = hist_f.shape[1]
    out = results[f]
    n = max(n_bins_non_missing, 1)
    by_principal_component = n_classes > 2
    principal_floats = (n_classes * n + principal_component_scratch(n_classes, n)
                        if by_principal_component else 0)
    n_floats = 3 * n + principal_floats
    width = work.shape[1]
    n_scratch = categorical_scratch_floats(n_classes, n_stats, n)
    if (work.shape[0] - SCAN_WORK_ROWS) * width < n_scratch:
        raise ValueError("scan_categorical: work is smaller than categorical_scan_workspace's")
    scratch = work.reshape(-1)[SCAN_WORK_ROWS * width:SCAN_WORK_ROWS * width + n_scratch]
    scratch_floats = scratch[:n_floats]
    scratch_ints = scratch[n_floats:n_floats + 4 * n + 1].view(np.int64)
    # the exhaustive path's subset sums and compact rows
    exhaustive_floats = scratch[n_floats + 4 * n + 1:]
    present = scratch_ints[:n]
    weights = scratch_floats[:n]
    keys = scratch_floats[n:2 * n]
    # K > 2 classes: the class weights of category j in column j of K rows
    class_weights = scratch_floats[scratch_floats.shape[0] - principal_floats:][
        :n_classes * n].reshape((n_classes if by_principal_component else 0, n))
    low = np.inf
    high = -np.inf
    # Indices are np.int64 throughout: a literal argument would compile a callee once more.
    m = np.int64(0)
    # One pass per case, each written out: stats.bin_count and stats_weight through a helper
    # call per row that passes the histogram cost an NRT incref/decref pair, as much as the
    # sums, and one loop testing the case per row costs a third more.
    if n_classes == 0:
        key_column = _key_column(n_classes)
        for b in range(n_bins_non_missing):
            if hist_f[b, REGRESSION_COUNT] > 0.0:
                weight = hist_f[b, REGRESSION_WEIGHT]
                key = hist_f[b, key_column] / weight if weight > 0.0 else 0.0
                present[m] = b
                keys[m] = key
                low = min(low, key)
                high = max(high, key)
                m += 1
    elif n_classes == 2:
        # the sums written out, from 0.0 as the loop below adds them (0.0 + x is not folded
        # to x: -0.0): the same bits, in half the time of a loop over a runtime class count
        count_0 = count_column(n_classes, np.int64(0))
        count_1 = count_column(n_classes, np.int64(1))
        weight_0 = weight_column(n_classes, np.int64(0))
        weight_1 = weight_column(n_classes, np.int64(1))  # the key's column
        for b in range(n_bins_non_missing):
            count = (0.0 + hist_f[b, count_0]) + hist_f[b, count_1]
            class_1 = hist_f[b, weight_1]
            weight = (0.0 + hist_f[b, weight_0]) + class_1
            if count > 0.0:
                key = class_1 / weight if weight > 0.0 else 0.0
                present[m] = b
                keys[m] = key
                low = min(low, key)
                high = max(high, key)
                m += 1
    elif not by_principal_component:  # one class: keys 0
        key_column = _key_column(n_classes)
        for b in range(n_bins_non_missing):
            count = 0.0
            weight = 0.0
            for k in range(n_classes):
                count += hist_f[b, count_column(n_classes, k)]
                weight += hist_f[b, weight_column(n_classes, k)]
            if count > 0.0:
                key = hist_f[b, key_column] / weight if weight > 0.0 else 0.0
                present[m] = b
                keys[m] = key
                low = min(low, key)
                high = max(high, key)
                m += 1
    elif n_classes == 3:  # the general loop below written out, as for two classes
        count_0 = count_column(n_classes, np.int64(0))
        count_1 = count_column(n_classes, np.int64(1))
        count_2 = count_column(n_classes, np.int64(2))
        weight_0 = weight_column(n_classes, np.int64(0))
        weight_1 = weight_column(n_classes, np.int64(1))
        weight_2 = weight_column(n_classes, np.int64(2))
        class_0_weights = class_weights[0]
        class_1_weights = class_weights[1]
        class_2_weights = class_weights[2]
        for b in range(n_bins_non_missing):
            count = ((0.0 + hist_f[b, count_0]) + hist_f[b, count_1]) + hist_f[b, count_2]
            class_0 = hist_f[b, weight_0]
            class_1 = hist_f[b, weight_1]
            class_2 = hist_f[b, weight_2]
            weight = ((0.0 + class_0) + class_1) + class_2
            class_0_weights[m] = class_0  # kept if the category is present
            class_1_weights[m] = class_1
            class_2_weights[m] = class_2
            if count > 0.0:
                _keep_category(present, weights, keys, m, b, weight)
                m += 1
    else:
        for b in range(n_bins_non_missing):
            count = 0.0
            weight = 0.0
            for k in range(n_classes):
                count += hist_f[b, count_column(n_classes, k)]
                class_weight = hist_f[b, weight_column(n_classes, k)]
                weight += class_weight
                class_weights[k, m] = class_weight  # kept if the category is present
            if count > 0.0:
                _keep_category(present, weights, keys, m, b, weight)
                m += 1
    if m == 0:
        _no_split(out)
        out["impurity_failed"] = False
        return
    # The numeric scan scores the candidates into results[f], with this feature's index: it
    # reads the feature's monotonic direction, 0 for a categorical feature (constraints on
    # one are refused), so category sets are never restricted by another feature's. Both
    # paths stay in this one function: as separate functions they cost 0.6 s more compile.
    if m <= EXHAUSTIVE_MAX_CATEGORIES and (
            not _ordering_is_exact(node)
            or _refuses_a_category(hist_f, present, m, np.int64(missing_bin), node)):
        # every partition, each a two-row histogram (then the missing row)
        scale = node_tie_scale(node)
        best_score = -np.inf
        best_gain = -np.inf
        best_weight_left = 0.0
        best_missing_left = np.bool_(False)
        bits = out["left_categories"]  # results[f] is the scans' output: the set waits here
        best_bits = exhaustive_floats[exhaustive_floats.shape[0] - BITSET_WORDS:].view(np.uint64)
        _clear_bits(best_bits)
        failed = False  # h failed on some candidate (a failing user criterion)
        half = np.int64(1) << (m - 1)
        compact = exhaustive_floats[:3 * n_stats].reshape((3, n_stats))
        in_compact_order = scratch_ints[n:n + 2]  # the rows of compact as they are
        in_compact_order[0] = 0
        in_compact_order[1] = 1
        compact_node = _with_bin_order(node, in_compact_order)
        _copy_row(hist_f, np.int64(missing_bin), compact, np.int64(2))
        if m == 1:  # the only candidate: the category on one side, missing values on the other
            pair = exhaustive_floats[3 * n_stats:5 * n_stats].reshape((2, n_stats))
            _copy_row(hist_f, present[0], pair, np.int64(0))
            _copy_row(hist_f, np.int64(missing_bin), pair, np.int64(1))
            _scan_candidates(scan_in_order, pair, np.int64(1), np.int64(1), compact_node, work,
                             results, f)
            trial = results[f]
            failed = failed or trial["impurity_failed"]
            if trial["bin_threshold"] != NO_SPLIT and beats(trial["score"], best_score, scale):
                best_score = trial["score"]
                best_gain = trial["gain"]
                best_weight_left = trial["weight_left"]
                best_missing_left = trial["missing_go_left"]
                _set_bit(best_bits, present[0])
        # left_sums[mask]: the rows of the categories in mask (bit j: present[j], j < m - 1)
        # added in increasing j from 0.0, as the left row is; from its value without the
        # highest bit, one row add per subset. The right row is the complement's sum plus the
        # last category, in the same order.
        left_sums = exhaustive_floats[5 * n_stats:(5 + half) * n_stats].reshape((half, n_stats))
        for s in range(n_stats):
            left_sums[0, s] = 0.0
        top = np.int64(0)  # the highest bit of mask
        for mask in range(1, half):
            if mask >> (top + 1):
                top += 1
            for s in range(n_stats):
                left_sums[mask, s] = left_sums[mask ^ (np.int64(1) << top), s] + hist_f[
                    present[top], s]
        last = present[m - 1]
        # A rule whose numerator is not symmetric in the children (ECART's B(d) takes the
        # child with more objects, ties to the left) scores each partition both ways round:
        # the mask's categories left, then right.
        n_orientations = 1 if numerator_is_symmetric(node.rule.code) else 2
        for mask in range(1, half):
            complement = (half - 1) ^ mask
            for orientation in range(n_orientations):
                left_row = np.int64(orientation)  # 0: the mask's categories left
                for s in range(n_stats):
                    compact[left_row, s] = left_sums[mask, s]
                    compact[1 - left_row, s] = left_sums[complement, s] + hist_f[last, s]
                _scan_candidates(scan_in_order, compact, np.int64(2), np.int64(2), compact_node,
                                 work, results, f)
                trial = results[f]
                failed = failed or trial["impurity_failed"]
                if trial["bin_threshold"] == NO_SPLIT or not beats(trial["score"], best_score,
                                                                   scale):
                    continue
                best_score = trial["score"]
                best_gain = trial["gain"]
                best_weight_left = trial["weight_left"]
                best_missing_left = trial["missing_go_left"]
                _clear_bits(best_bits)
                everything = trial["bin_threshold"] == 1  # all present left, missing right
                for j in range(m):
                    in_mask = (mask >> j) & 1 == 1  # never the last category
                    if everything or in_mask == (orientation == 0):
                        _set_bit(best_bits, present[j])
        out["impurity_failed"] = failed
        if best_score == -np.inf:
            _no_split(out)
            return
        out["next_bin"] = NO_SPLIT
        out["score"] = best_score
        out["gain"] = best_gain
        out["weight_left"] = best_weight_left
        out["missing_go_left"] = best_missing_left
        out["bin_threshold"] = CATEGORICAL_SPLIT
        for w in range(BITSET_WORDS):
            bits[w] = best_bits[w]
        return
    # one ordering: the numeric scan takes the histogram's rows in key order (the node's
    # bin_order), and its record is the answer, its prefix length turned into a set
    floats = scratch_floats[2 * n:]
    ints = scratch_ints[n:]
    sorted_keys = floats[:m]
    order = ints[:m]
    bucket_start = ints[m:2 * m + 1]
    bucket_of = ints[2 * m + 1:3 * m + 1]
    if by_principal_component:
        low, high = _principal_component_keys(
            class_weights, weights, keys, m, keys,
            scratch_floats[scratch_floats.shape[0] - principal_floats + n_classes * n:])
    _sort_by_key(present, keys, m, low, high, sorted_keys, order, bucket_start, bucket_of)
    in_key_order = _with_bin_order(node, order)
    _scan_candidates(scan_in_order, hist_f, m, missing_bin, in_key_order, work, results, f)
    if not numerator_is_symmetric(node.rule.code):
        # a rule not symmetric in the children: the same prefixes the other way round (the
        # order reversed), as the exhaustive path does; the first scan wins ties
        first_threshold = out["bin_threshold"]
        first_score = out["score"]
        first_gain = out["gain"]
        first_weight_left = out["weight_left"]
        first_missing_left = out["missing_go_left"]
        first_failed = out["impurity_failed"]
        _reverse(order, m)
        _scan_candidates(scan_in_order, hist_f, m, missing_bin, in_key_order, work, results,
                         f)
        out["impurity_failed"] = out["impurity_failed"] or first_failed
        scale = node_tie_scale(node)
        if first_threshold != NO_SPLIT and (out["bin_threshold"] == NO_SPLIT or not beats(
                out["score"], first_score, scale)):
            _reverse(order, m)
            out["bin_threshold"] = first_threshold
            out["score"] = first_score
            out["gain"] = first_gain
            out["weight_left"] = first_weight_left
            out["missing_go_left"] = first_missing_left
    prefix = out["bin_threshold"]
    if prefix == NO_SPLIT or not out["score"] > -np.inf:
        _no_split(out)
        return
    out["bin_threshold"] = CATEGORICAL_SPLIT
    out["next_bin"] = NO_SPLIT
    # the four words in registers: one select per word and category, where setting the bits
    # in memory one by one waits for each store to reach the next load of its word
    word_0 = np.uint64(0)
    word_1 = np.uint64(0)
    word_2 = np.uint64(0)
    word_3 = np.uint64(0)
    for j in range(prefix + 1):
        code = order[j]
        bit = np.uint64(1) << np.uint64(code & 63)
        word = code >> 6
        word_0 |= bit if word == 0 else np.uint64(0)
        word_1 |= bit if word == 1 else np.uint64(0)
        word_2 |= bit if word == 2 else np.uint64(0)
        word_3 |= bit if word == 3 else np.uint64(0)
    bits = out["left_categories"]
    bits[0] = word_0
    bits[1] = word_1
    bits[2] = word_2
    bits[3] = word_3


@internal_kernel(reference_counted=False)
def _reverse(values, m):
    """Reverse ``values[:m]`` in place."""
    for j in range(m // 2):
        values[j], values[m - 1 - j] = values[m - 1 - j], values[j]


@internal_kernel
def no_principal_component_keys(class_weights, weights, inverse_weights, m, keys, scratch):
    """Stand-in for ``_principal_component_keys`` in the scan's twin for two classes and
    regression (``pointers.categorical_scan_pointer``), which never reach it: it compiles in
    no time."""
    return 0.0, 0.0


#: The numeric scan ``scan_every_candidate`` scores sets with; its twins bind it
#: (``pointers.categorical_scan_pointer(..., every_candidate=True)``).
every_candidate_scan = None


@njit(cache=True, nogil=True, inline="always")
def scan_every_candidate(scan_in_order, hist_f, n_bins_non_missing, missing_bin, node, work,
                         results, f):
    """``_scan_candidates`` of ``scan_categorical``'s every-candidate twins: the in-order scan
    of every bin (``every_candidate_scan``, bound by the twin) instead of the fit's scan
    ``scan_in_order``. For a rule that samples its candidate thresholds
    (``Minimax(candidates="sampled")``): the paper samples thresholds of numeric features, so a
    categorical feature's candidate sets are all tried, as ``GreedyTreeClassifier`` tries them
    (docs/methods.md §11); the sampling scan would drop sets at random. A direct call: handing
    the global on as a first-class function would put its address in the code, which Numba
    cannot cache. Used through its twins only."""
    every_candidate_scan(hist_f, n_bins_non_missing, missing_bin, node, work, results, f)


@pointer_kernel
def no_categorical_scan(hist_f, n_bins_non_missing, missing_bin, node, work, results, f,
                        scan_in_order):
    """Stand-in for ``scan_categorical`` in fits without categorical features (never
    called): the growth loop's pointer needs a function of that type, and this one compiles
    in no time."""
    results[f]["bin_threshold"] = NO_SPLIT


@pointer_kernel(reference_counted=False)
def partition_categorical(sample_idx, start, end, column, left_categories, missing_bin,
                          missing_go_left, buffer):
    """``splitting.partition`` for a split by a set of categories: stable, in place, left
    samples (category in ``left_categories``, or missing and ``missing_go_left``) first.
    Returns the position of the first right sample. The growth loop calls it through
    ``pointers.categorical_partition_pointer``: fits without categorical features do not
    compile it.

    Branch-free, as ``splitting.partition`` (whose docstring says why the double write is
    harmless): a set of categories sends about half the samples each way in no order the
    branch predictor can learn, and the branch on the side cost 7.4 ns a sample against
    2.1 for the numeric partition (2e5 rows).
    Compiled without reference counting: it allocates nothing."""
    missing_left = np.int64(missing_go_left)
    n_left = start
    n_right = 0
    for position in range(start, end):
        i = sample_idx[position]
        b = np.int64(column[i])
        # (b >> 6) & 3: the missing bin of a uint16 matrix (max_bins > 255) may pass 255; its
        # in_set is read in bounds and not used
        in_set = np.int64((left_categories[(b >> 6) & 3] >> np.uint64(b & 63)) & np.uint64(1))
        go_left = missing_left if b == missing_bin else in_set
        sample_idx[n_left] = i
        buffer[n_right] = i
        n_left += go_left
        n_right += 1 - go_left
    for j in range(n_right):
        sample_idx[n_left + j] = buffer[j]
    return n_left


def scan_categorical_reference(hist_f, n_bins_non_missing, missing_bin, score_of):
    """Naive reference for the tests: every partition of the present categories, each with
    missing values left and right, scored by ``score_of(left_rows, right_rows)`` (row sums of
    ``hist_f``; None when invalid). Returns ``(best score, set of left codes, missing left)``;
    the first best in enumeration order on ties."""
    present = [b for b in range(n_bins_non_missing) if hist_f[b].any()]
    missing = hist_f[missing_bin]
    best = (-np.inf, None, None)
    m = len(present)
    for mask in range(1, 1 << m):
        if mask == (1 << m) - 1 and not missing.any():
            continue
        left_codes = {present[j] for j in range(m) if (mask >> j) & 1}
        left = sum((hist_f[b] for b in left_codes), np.zeros_like(missing))
        right = sum((hist_f[b] for b in present if b not in left_codes), np.zeros_like(missing))
        for missing_left in (False, True):
            if not missing.any() and missing_left:
                continue
            score = score_of(left + missing if missing_left else left,
                             right if missing_left else right + missing)
            if score is None:
                continue
            if best[0] == -np.inf or score > best[0] + 1e-12 * max(1.0, abs(best[0])):
                best = (score, left_codes, missing_left)
    return best


def category_keys(hist_f, present, n_classes):
    """The ordering keys of the categories ``present`` (codes, increasing) of one feature's
    histogram, as ``scan_categorical`` computes them: class-1 proportion (two classes), mean
    (regression, ``n_classes`` 0) or principal-component score (K > 2 classes). For the tests
    and for ``treesmith._criterion_failure``, which list the scan's candidates."""
    present = np.ascontiguousarray(present, dtype=np.int64)
    m = np.int64(present.size)
    if n_classes == 0:
        weights = hist_f[present, REGRESSION_WEIGHT]
    else:
        weights = np.zeros(present.size)
        for k in range(n_classes):  # in the kernel's order: the same bits
            weights += hist_f[present, k]
    if n_classes <= 2:
        column = _key_column(n_classes)
        safe = np.where(weights > 0.0, weights, 1.0)
        return np.where(weights > 0.0, hist_f[present, column] / safe, 0.0)
    live = weights > _SMALLEST_WEIGHT
    weights = np.where(live, weights, 0.0)
    inverse_weights = np.where(live, 1.0 / np.where(live, weights, 1.0), 0.0)
    keys = np.zeros(present.size)
    class_weights = np.ascontiguousarray(hist_f[present][:, class_weights_slice(n_classes)].T)
    scratch = np.empty(principal_component_scratch(n_classes, m))
    _principal_component_keys(class_weights, weights, inverse_weights, m, keys, scratch)
    return keys


def scan_orderings_reference(hist_f, n_bins_non_missing, missing_bin, node, scan):
    """Naive reference of ``scan_categorical``'s ordered-prefix path for the tests: the
    present categories sorted by (key, code) with Python's sort (keys from ``category_keys``,
    whose principal component the tests check against numpy's eigh), laid out as a compact
    histogram and scanned by ``scan`` (the numeric scan) without monotonic constraints.
    Returns ``(score, gain, set of left codes, missing left)``, or None when no split is
    valid."""
    n_classes = node.n_classes
    columns = (np.arange(n_classes, 2 * n_classes) if n_classes else [0])
    present = [b for b in range(n_bins_non_missing) if hist_f[b, columns].sum() > 0.0]
    if not present:
        return None
    node = node._replace(monotonicity=Monotonicity(np.zeros(0, dtype=np.int64), -np.inf,
                                                   np.inf))
    work = np.zeros((7, max(hist_f.shape[1], n_classes, 1)))
    keys = dict(zip(present, category_keys(hist_f, present, n_classes)))
    order = sorted(present, key=lambda b: (keys[b], b))
    compact = np.ascontiguousarray(np.vstack([hist_f[order],
                                              hist_f[missing_bin:missing_bin + 1]]))
    trial = np.zeros(1, dtype=SPLIT_DTYPE)
    m = np.int64(len(order))
    scan(compact, m, m, node, work, trial, np.int64(0))
    split = trial[0].copy()
    if not numerator_is_symmetric(node.rule.code):  # both ways round: the order reversed
        reversed_order = order[::-1]
        compact = np.ascontiguousarray(np.vstack([hist_f[reversed_order],
                                                  hist_f[missing_bin:missing_bin + 1]]))
        scan(compact, m, m, node, work, trial, np.int64(0))
        scale = node_tie_scale(node)
        if trial[0]["bin_threshold"] != NO_SPLIT and (
                split["bin_threshold"] == NO_SPLIT
                or beats(trial[0]["score"], split["score"], scale)):
            split, order = trial[0].copy(), reversed_order
    if split["bin_threshold"] == NO_SPLIT or not split["score"] > -np.inf:
        return None
    return (split["score"], split["gain"], set(order[:split["bin_threshold"] + 1]),
            bool(split["missing_go_left"]))
