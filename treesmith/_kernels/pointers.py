"""First-class function pointers to compiled kernels, every cache of them, and the twins of
kernels compiled for narrower uses (``twin``, ``serial_twin``).

The growth kernel calls some functions through pointers instead of directly: the impurity (so
that one compiled kernel serves every criterion) and the per-feature split scan (Numba copies
a directly called function's code into every caller and optimises and emits it again there;
through a pointer it is compiled once). :class:`FunctionPointer` hands the kernels the C entry
point that every Numba compile result already contains (the "cfunc wrapper"), so one compile,
and one cache entry, serves both the kernels and calls from Python.

A separate ``numba.cfunc`` of the same Python function would not only be a second compile: a
cfunc and a dispatcher of one Python function share a cache index file and key, and a
dispatcher that loads the cfunc's entry has no CPython wrapper (Numba 0.68 then crashes when it
is called from Python).
"""

import numpy as np
from numba.core.dispatcher import Dispatcher
from numba.core.types import Type as NumbaType
from numba.core.types import WrapperAddressProtocol

from .calls import record_type
from .decorators import POINTER_OPTIONS


class FunctionPointer(WrapperAddressProtocol):
    """The C entry point of ``dispatcher`` compiled for ``signature`` (compiled now, or loaded
    from Numba's cache). Numba types it as ``types.FunctionType(signature)``, like a ``cfunc``.
    The dispatcher is kept alive with the pointer."""

    def __init__(self, dispatcher: Dispatcher, signature):
        result = dispatcher.get_compile_result(signature)
        self.dispatcher = dispatcher
        self._signature = signature
        self._address = result.library.get_pointer_to_function(
            result.fndesc.llvm_cfunc_wrapper_name)

    def __wrapper_address__(self) -> int:
        return self._address

    def signature(self):
        return self._signature

    def __call__(self, *args):
        return self.dispatcher(*args)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.dispatcher.py_func.__qualname__}>"


#: Numba types that stand by their identity in a pointer cache's key, kept alive.
_KEY_TYPES: dict = {}


def _cached_pointer(cache, key, function, signature_of):
    """``cache[key]``, else a :class:`FunctionPointer` to ``function`` compiled for the signature
    ``signature_of()`` (built only when Numba compiles: under ``NUMBA_DISABLE_JIT`` the Python
    function is returned as it is).

    The Numba types in ``key`` (records' types) enter it by identity: Numba interns its types
    (equal types are one object) and ``_KEY_TYPES`` keeps them alive, and hashing a record's
    type walks all its fields (~10 us per fit and pointer)."""
    key = tuple(_type_identity(part) if isinstance(part, NumbaType) else part
                for part in key)
    if key not in cache:
        if isinstance(function, Dispatcher):
            cache[key] = FunctionPointer(function, signature_of())
        else:
            cache[key] = function
    return cache[key]


def _type_identity(numba_type):
    _KEY_TYPES.setdefault(id(numba_type), numba_type)
    return ("type", id(numba_type))


# -- the impurity -----------------------------------------------------------------------------
#: Impurity function -> the first-class function the kernels take (one per process).
_IMPURITY_POINTERS: dict = {}


def impurity_pointer(function):
    """The first-class function the growth kernel takes for an impurity function.

    The kernel takes the impurity as a function pointer so that one compiled (and cached)
    kernel serves every criterion. The pointer is the entry point of the impurity's own
    compile result (``treesmith.criteria._compiled``): the first call for a criterion compiles
    it or loads it from Numba's cache, and nothing else; user-defined criteria, which are
    compiled when they are constructed, cost nothing more.
    """
    from ..criteria._compiled import pointer_to

    try:
        return _IMPURITY_POINTERS[function]
    except (KeyError, TypeError):
        pass
    pointer = pointer_to(function)
    try:
        _IMPURITY_POINTERS[function] = pointer
    except TypeError:  # unhashable callable
        pass
    return pointer


def twin(dispatcher: Dispatcher, suffix: str, python_entry: bool = False, options=None,
         reference_counted: bool = True,
         **replaced_globals):
    """The Python function of kernel ``dispatcher`` compiled again as a kernel of its own,
    without ``parallel`` (``prange`` is ``range`` there) and with the module globals named in
    ``replaced_globals`` bound to other objects.

    The twin is compiled with the target ``options`` (``decorators.POINTER_OPTIONS``...), by
    default as the kernel is (a pointer kernel's twin is a pointer kernel); a kernel compiled
    by ``njit``, and any kernel with ``python_entry``, gets ``njit(cache=True, nogil=True)``,
    callable from Python.

    The twin is a copy of the function named ``<name>_<suffix>``: Numba's cache files are
    named after the function, and two compilations of one function with different options
    would overwrite each other's entries. One twin per (kernel, suffix) and process; under
    ``NUMBA_DISABLE_JIT`` the kernel itself, which is plain Python then.

    A twin of a function compiled with ``inline="always"`` is inlined as the function is.

    ``reference_counted`` False compiles it without Numba's reference counting (the ``_nrt``
    option): for a kernel that allocates nothing (Numba refuses to compile one that does) and
    is called so often that the atomic incref/decref pair it takes on each array argument
    shows (the per-feature scans of small nodes).
    """
    if not isinstance(dispatcher, Dispatcher):
        return dispatcher
    key = (dispatcher, suffix)
    if key not in _TWINS:
        import types as python_types

        from numba import njit

        from .decorators import KernelDispatcher, compiled

        function = dispatcher.py_func
        copy = python_types.FunctionType(
            function.__code__, dict(function.__globals__, **replaced_globals),
            f"{function.__name__}_{suffix}", function.__defaults__, function.__closure__)
        copy.__qualname__ = f"{function.__qualname__}_{suffix}"
        copy.__module__ = function.__module__
        copy.__doc__ = function.__doc__
        reference_counting = {} if reference_counted else {"_nrt": False}
        if options is None and isinstance(dispatcher, KernelDispatcher):
            options = dispatcher.targetoptions
        if options is not None and not python_entry:
            _TWINS[key] = compiled(copy, {**{name: value for name, value in options.items()
                                             if name != "parallel"}, **reference_counting})
        else:
            inlined = ({"inline": "always"}
                       if dispatcher.targetoptions.get("inline") == "always" else {})
            _TWINS[key] = njit(cache=True, nogil=True, **inlined, **reference_counting)(copy)
    return _TWINS[key]


def serial_twin(dispatcher: Dispatcher):
    """A ``parallel=True`` kernel compiled without ``parallel``: the same code on one thread,
    without the parallel region, whose compilation is the slow part (for fits and inputs too
    small to use threads)."""
    return twin(dispatcher, "serial")


#: (kernel, suffix) -> its twin.
_TWINS: dict = {}


# -- the split scans --------------------------------------------------------------------------
def _node_scan_type():
    """Numba type of ``records.NodeScan`` as the growth loop builds it."""
    from numba import types

    from .._dtypes import IMPURITY_FUNCTION_TYPE
    from .records import Impurity, Monotonicity, NodeScan, SplitRule, ThresholdDraw

    float_1d = types.float64[::1]
    impurity = types.NamedTuple([IMPURITY_FUNCTION_TYPE, float_1d], Impurity)
    threshold_draw = types.NamedTuple([types.int64, types.float64[:, ::1]], ThresholdDraw)
    rule = types.NamedTuple(
        [types.int64, float_1d, float_1d, types.int64, types.boolean, types.boolean,
         threshold_draw], SplitRule)
    monotonicity = types.NamedTuple([types.int64[::1], types.float64, types.float64],
                                    Monotonicity)
    return types.NamedTuple(
        [types.int64, impurity, rule, types.int64, types.float64, types.float64, types.float64,
         float_1d, monotonicity, types.int64[::1]], NodeScan)


def _results_type():
    import numba

    from .records import SPLIT_DTYPE

    return numba.typeof(np.zeros(0, dtype=SPLIT_DTYPE))


def scan_signature():
    """Signature of ``splitting.scan_feature``: (hist_f, n_bins_non_missing, missing_bin,
    node, work, results, f)."""
    from numba import types

    return types.void(types.float64[:, ::1], types.int64, types.int64, _node_scan_type(),
                      types.float64[:, ::1], _results_type(), types.int64)


_SCAN_POINTERS: dict = {}


#: Built-in impurity dispatcher -> its ``_direct_call`` stand-in (one per process: building
#: a dispatcher on every fit cost 0.1 ms).
_DIRECT_CALLS: dict = {}


def _direct_call(impurity_function):
    """An inlined stand-in for ``splitting.impurity_through_pointer`` that calls
    ``impurity_function`` (a built-in criterion's dispatcher) directly: compiled into the scan,
    where LLVM inlines it."""
    if impurity_function in _DIRECT_CALLS:
        return _DIRECT_CALLS[impurity_function]
    from numba import njit

    def impurity_called_directly(h, proportions, h_params):
        return impurity_function(proportions, h_params)

    stand_in = njit(inline="always", nogil=True)(impurity_called_directly)
    _DIRECT_CALLS[impurity_function] = stand_in
    return stand_in


def _inlined_impurities():
    """Built-in impurity dispatcher -> name, for the criteria whose unit-weight scan is compiled
    with the impurity inlined (``scan_pointer``): the two a default fit uses."""
    from ..criteria import _impurity

    return {_impurity.gini: "gini", _impurity.entropy: "entropy"}


def scan_pointer(rule=None, impurity_function=None, unit_weights=False, in_order=False):
    """The per-feature scan (``splitting.scan_feature``) as a first-class function pointer.

    The scan is the largest piece of compiled code; called directly it would be compiled again
    into every caller. Through the pointer it is compiled once, which took seconds off the
    first fit. The call costs nanoseconds against a scan's microseconds.

    For a ``rule`` (``records.SplitRule``) whose numerator is the gain
    (``split_rules.numerator_is_gain``: gain, gain ratio, cost-benefit) the scan never calls
    ``rule_numerator``; it then gets the scan's twin compiled with
    ``split_rules.gain_numerator`` in its place, without the other rules' numerators (ECART,
    impure pairs, minimax...), a third of the scan's compile time. Same code, same results.

    When, besides, every sample weighs 1 (``unit_weights``: a classification fit without
    monotonic constraints, the caller checks) and ``impurity_function`` is Gini's or
    entropy's, it gets ``splitting.scan_feature_unit_weights`` compiled with that impurity
    inlined, and without reference counting (``twin``: it allocates nothing; a node of 4-32
    samples scans each feature ~12 % faster without the six incref/decref pairs on its
    arguments), instead: same results bit for bit, and that fit compiles this scan instead of
    the other, not both.

    ``in_order`` gives the chosen scan's twin that takes the bins in ``NodeScan.bin_order``
    (``splitting.bin_at``): the categorical scan hands it its categories in key order, and fits
    with a categorical feature scan every feature with it (numeric ones in the identity order
    of the growth loop's nodes), so they compile one scan, not two.
    """
    from .split_rules import gain_numerator, numerator_is_gain
    from .splitting import scan_feature, scan_feature_unit_weights

    gain_only = rule is not None and bool(numerator_is_gain(int(rule.code)))
    inlined = _inlined_impurities().get(impurity_function) if unit_weights else None
    order = _in_order_globals() if in_order else {}
    suffix = "_in_order" if in_order else ""
    if gain_only and inlined is not None:
        function = twin(scan_feature_unit_weights, inlined + suffix, reference_counted=False,
                        impurity_through_pointer=_direct_call(impurity_function), **order)
        return _cached_pointer(_SCAN_POINTERS, ("unit_weights", inlined, bool(in_order)),
                               function, scan_signature)
    if gain_only:
        function = twin(scan_feature, "gain_numerator" + suffix, rule_numerator=gain_numerator,
                        **order)
    else:
        function = twin(scan_feature, "in_order", **order) if in_order else scan_feature
    return _cached_pointer(_SCAN_POINTERS, (gain_only, bool(in_order)), function,
                           scan_signature)


def _in_order_globals():
    """The globals a scan's twin ``*_in_order`` rebinds: ``splitting.bin_at`` to
    ``bin_in_order``, in the scan and in its helper ``_next_occupied``."""
    from .splitting import _next_occupied, bin_in_order

    return {"bin_at": bin_in_order,
            "_next_occupied": twin(_next_occupied, "in_order", bin_at=bin_in_order)}


def sampled_candidates_scan_pointer(in_order=False):
    """``candidates.scan_sampled_candidates`` (the minimax rule's scan of the paper's random
    thresholds) as a pointer of the scan's type: compiled only by fits that use it.
    ``in_order``: its twin that takes the bins in ``NodeScan.bin_order`` (``scan_pointer``)."""
    from .candidates import scan_sampled_candidates
    from .splitting import bin_in_order, scan_feature

    function = scan_sampled_candidates
    if in_order:
        function = twin(scan_sampled_candidates, "in_order", bin_at=bin_in_order,
                        scan_every_bin=twin(scan_feature, "in_order", **_in_order_globals()))
    return _cached_pointer(_SCAN_POINTERS, ("sampled_candidates", bool(in_order)), function,
                           scan_signature)


def categorical_scan_signature():
    """Signature of ``categorical.scan_categorical``: (hist_f, n_bins_non_missing, missing_bin,
    node, work, results, f, scan_in_order), the last a scan's twin that takes the bins in
    ``NodeScan.bin_order`` (``scan_pointer(..., in_order=True)``; a scan of numeric features
    has the same type but reads the bins in their own order)."""
    from numba import types

    return types.void(types.float64[:, ::1], types.int64, types.int64, _node_scan_type(),
                      types.float64[:, ::1], _results_type(), types.int64,
                      types.FunctionType(scan_signature()))


_CATEGORICAL_SCAN_POINTERS: dict = {}


def categorical_scan_pointer(enabled: bool = True, principal_component: bool = True,
                             every_candidate: bool = False):
    """The scan of a categorical feature (``categorical.scan_categorical``) as a function
    pointer, or (``enabled`` False: no feature is categorical) a stub of the same type that
    is never called: compiled once, not into the growth loop and the small-node scan, and not
    at all by fits without categorical features (called directly, it added seconds to every
    first fit).

    ``principal_component`` False (two classes or regression: the principal-component order
    of K > 2 classes is never taken) gives the scan's twin compiled with a stand-in for
    ``categorical._principal_component_keys``: about a second less compilation for those
    fits. ``every_candidate`` (a rule whose scan samples its candidate thresholds) gives the
    scan's twin whose ``_scan_candidates`` is ``categorical.scan_every_candidate``, which
    scores every set of categories with the in-order scan of every bin (called directly:
    passed on as a first-class function, a global's address would keep Numba from caching
    the twin)."""
    from .categorical import (
        no_categorical_scan,
        no_principal_component_keys,
        scan_categorical,
        scan_every_candidate,
    )
    from .splitting import scan_feature

    every_candidate = bool(enabled and every_candidate)
    replaced = {}
    if not principal_component:
        replaced["_principal_component_keys"] = no_principal_component_keys
    if every_candidate:
        replaced["_scan_candidates"] = twin(
            scan_every_candidate, "in_order",
            every_candidate_scan=twin(scan_feature, "in_order", **_in_order_globals()))
    if not enabled:
        function = no_categorical_scan
    elif replaced:
        suffix = "_".join((["every_candidate"] if every_candidate else [])
                          + ([] if principal_component else ["two_keys"]))
        function = twin(scan_categorical, suffix, **replaced)
    else:
        function = scan_categorical
    return _cached_pointer(_CATEGORICAL_SCAN_POINTERS,
                           (bool(enabled), bool(enabled and principal_component),
                            every_candidate), function, categorical_scan_signature)


_CATEGORICAL_PARTITIONS: dict = {}


def categorical_partition_pointer(data, enabled: bool = True):
    """The partition of a node's samples by a categorical split
    (``categorical.partition_categorical``) as a function pointer for the type of ``data``
    (``records.TrainingData``), or (``enabled`` False: no feature is categorical) the stand-in
    ``growth.no_categorical_partition``, never called: fits without categorical features do
    not compile it, and nobody compiles it into the growth loop."""
    import operator

    from numba import types
    from numba.core.registry import cpu_target

    from .categorical import partition_categorical
    from .growth import no_categorical_partition

    matrix_type = record_type(data.X_binned)

    def signature():
        # the type of X_binned[:, f] in the loop: (n, 1d, F), or 'A' when X_binned is C order
        column_type = cpu_target.typing_context.resolve_function_type(
            operator.getitem, (matrix_type, types.Tuple((types.slice2_type, types.int64))),
            {}).return_type
        int_1d = types.int64[::1]
        return types.int64(int_1d, types.int64, types.int64, column_type, types.uint64[::1],
                           types.int64, types.boolean, int_1d)

    function = partition_categorical if enabled else no_categorical_partition
    return _cached_pointer(_CATEGORICAL_PARTITIONS, (matrix_type, bool(enabled)), function,
                           signature)


_SMALL_NODE_SCAN_POINTERS: dict = {}


def small_node_scan_pointer(data, bins, parallel=True, random_thresholds=False):
    """``splitting.scan_small_node`` as a first-class function pointer for the types of
    ``data`` (``records.TrainingData``) and ``bins`` (``records.BinLayout``): compiled once,
    not again inside the growth loop, like the scan itself.

    With ``parallel`` False it is ``splitting.scan_small_node_serial`` instead, for fits in
    which no small node is wide enough to be scanned on several threads: the parallel region,
    a quarter of the small-node scan's compile time, is then never compiled.

    The pointer's type must be the one the growth loop sees, so it is compiled for Numba's
    types of the records: ``X_binned`` uint8 or uint16, Fortran order, or C order when the
    array is both (a single feature or a single row).

    ``random_thresholds``: ``random_thresholds.scan_small_node_random`` instead, the drawn
    splits of extremely randomized trees (one thread; ``parallel`` is then ignored).
    """
    from numba import types

    from .random_thresholds import scan_small_node_random
    from .records import SmallNodeWorkspace
    from .splitting import scan_small_node, scan_small_node_serial

    data_type, bins_type = record_type(data), record_type(bins)

    def signature():
        float_3d = types.float64[:, :, ::1]
        workspace = types.NamedTuple(
            [float_3d, types.int64[:, ::1], float_3d, float_3d, types.uint64[:, ::1]],
            SmallNodeWorkspace)
        scan = types.FunctionType(scan_signature())
        categorical_scan = types.FunctionType(categorical_scan_signature())
        return types.void(data_type, bins_type, types.int64[::1], types.int64, types.int64,
                          _node_scan_type(), workspace, _results_type(), scan, types.int64,
                          categorical_scan)

    function = scan_small_node if parallel else scan_small_node_serial
    if random_thresholds:
        function, parallel = scan_small_node_random, "random"
    return _cached_pointer(_SMALL_NODE_SCAN_POINTERS, (data_type, bins_type, parallel),
                           function, signature)


# -- the histogram build --------------------------------------------------------------------
_HISTOGRAM_BUILDERS: dict = {}


def histogram_pointer(data, parallel: bool, needed: bool = True):
    """``histogram.build_histogram`` as a first-class function pointer for the type of
    ``data`` (``records.TrainingData``); with ``parallel`` False its serial twin
    (``serial_twin``), for fits in which no node reaches the loop's ``parallel_threshold``:
    the parallel region is about half of the histogram build's compile time. With ``needed``
    False (no node of the fit gets a pooled histogram: the root is a small node) the stand-in
    ``histogram.no_histogram_build``, which the loop never calls: small fits, such as the
    first fit after install on a toy data set, do not compile the histogram build (1.1 s)."""
    from numba import types

    from .histogram import build_histogram, no_histogram_build

    data_type = record_type(data)

    def signature():
        return types.void(data_type, types.int64, types.int64, types.float64[:, :, ::1],
                          types.int64)

    if not needed:
        return _cached_pointer(_HISTOGRAM_BUILDERS, (data_type, "none"), no_histogram_build,
                               signature)
    function = (build_histogram if parallel
                else twin(build_histogram, "serial", options=POINTER_OPTIONS))
    return _cached_pointer(_HISTOGRAM_BUILDERS, (data_type, bool(parallel)), function,
                           signature)


# -- rarely used parts of the growth loop ------------------------------------------------------
_HEAPS: dict = {}


def heap_pointers(best_first: bool):
    """``(push, pop)`` of the best-first growth's min-heap (``growth.heap_push``,
    ``growth.heap_pop``) as first-class function pointers; for depth-first growth their
    stand-ins ``growth.no_heap_push``, ``growth.no_heap_pop``, which it never calls."""
    from numba import types

    from .growth import heap_pop, heap_push, no_heap_pop, no_heap_push

    push, pop = (heap_push, heap_pop) if best_first else (no_heap_push, no_heap_pop)
    return (_cached_pointer(_HEAPS, (bool(best_first), "push"), push,
                            lambda: types.int64(types.float64[:, ::1], types.int64[::1],
                                                types.int64, types.int64, types.float64,
                                                types.int64)),
            _cached_pointer(_HEAPS, (bool(best_first), "pop"), pop,
                            lambda: types.int64(types.float64[:, ::1], types.int64[::1],
                                                types.int64)))


# Feature sampling and S-pruning are called through pointers so that a fit compiles them only
# when it uses them; without them the loop gets a trivial stand-in of the same type, which it
# never calls. The types are those of the grower's records, as Numba sees them in the loop.
_FEATURE_SAMPLERS: dict = {}


def feature_sampling_pointer(data, bins, sampling, enabled: bool, visiting: bool = False):
    """``growth.choose_features`` as a first-class function pointer for the types of the
    records ``data``, ``bins`` and ``sampling`` (``growth.every_feature`` when ``enabled`` is
    False); with ``visiting``, ``random_thresholds.visit_features`` (scikit-learn's count of
    constant features, for extremely randomized trees)."""
    from numba import types

    from .growth import choose_features, every_feature
    from .random_thresholds import visit_features

    record_types = (record_type(sampling), record_type(data), record_type(bins))

    def signature():
        sampling_type, data_type, bins_type = record_types
        return types.int64(sampling_type, types.boolean, types.float64[:, :, ::1], data_type,
                           types.int64, types.int64, bins_type, types.uint64[::1],
                           types.int64[::1], types.boolean[::1], types.int64[::1])

    function = choose_features if enabled else every_feature
    if enabled and visiting:
        function = visit_features
    return _cached_pointer(_FEATURE_SAMPLERS,
                           record_types + (bool(enabled), bool(enabled and visiting)),
                           function, signature)


_SIGNIFICANCE_TESTS: dict = {}


def significance_test_pointer(data, bins, impurity, stopping, significance):
    """``permutation.node_is_significant`` (S-pruning, ``significance.level`` > 0) or its
    stand-in ``permutation.node_test_skipped`` as a first-class function pointer for the
    types of the records."""
    from numba import types

    from .permutation import node_is_significant, node_test_skipped

    enabled = significance.level > 0.0
    function = node_is_significant if enabled else node_test_skipped
    if not isinstance(function, Dispatcher):  # NUMBA_DISABLE_JIT
        return function
    record_types = tuple(record_type(record)
                         for record in (data, bins, impurity, stopping, significance))

    def signature():
        data_type, bins_type, impurity_type, stopping_type, significance_type = record_types
        return types.boolean(data_type, types.int64, types.int64, types.int64, bins_type,
                             impurity_type, stopping_type, significance_type, types.int64,
                             types.FunctionType(scan_signature()), types.int64[::1],
                             types.int64, types.int64)

    return _cached_pointer(_SIGNIFICANCE_TESTS, record_types + (enabled,), function, signature)


# -- extremely randomized trees: drawn splits ---------------------------------------------------
def random_threshold_scan_pointer():
    """``random_thresholds.scan_random_threshold_in_work`` (one drawn cut per numeric feature,
    scored by the node's rule; its scratch in the growth loop's work block,
    ``random_thresholds.random_scan_workspace``) as a pointer of the scan's type: compiled
    only by fits of extremely randomized trees. Their categorical features get
    ``random_categorical_scan_pointer``, their small nodes
    ``small_node_scan_pointer(..., random_thresholds=True)``: no twin that takes the bins in
    ``NodeScan.bin_order`` is needed, since the categorical scan of these fits draws its
    partition itself rather than handing an order of categories to the scan."""
    from .random_thresholds import scan_random_threshold_in_work

    return _cached_pointer(_SCAN_POINTERS, ("random_threshold",),
                           scan_random_threshold_in_work, scan_signature)


def random_categorical_scan_pointer(enabled: bool = True):
    """``random_thresholds.scan_random_categories_in_work`` (a uniformly random partition of
    the node's categories) as a pointer of the categorical scan's type, or (``enabled`` False: no
    feature is categorical) the never-called stub of ``categorical_scan_pointer``."""
    from .random_thresholds import scan_random_categories_in_work

    if not enabled:
        return categorical_scan_pointer(False)
    return _cached_pointer(_CATEGORICAL_SCAN_POINTERS, ("random",),
                           scan_random_categories_in_work, categorical_scan_signature)
