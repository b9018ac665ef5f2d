"""How a kernel is compiled: ``internal_kernel`` for kernels that only other kernels call,
``pointer_kernel`` for kernels that the growth loop calls through a function pointer.

Numba compiles two wrappers for every ``njit`` function besides its code: a CPython wrapper
(unboxes Python arguments, boxes the result: the entry point of calls from Python) and a
C-callable wrapper (the entry point of ``numba.cfunc`` and of first-class function pointers,
``pointers.FunctionPointer``). A helper that only compiled kernels call needs neither: they call
its code directly. A kernel reached through a pointer needs only the C wrapper. The wrappers
were a third of the code LLVM optimised and emitted in a first fit (unboxing a record such as
``TrainingData`` field by field is long code), so these kernels are compiled without the
wrappers they do not need (Numba's ``no_cpython_wrapper`` and ``no_cfunc_wrapper`` options,
which it uses for its own ``@overload`` implementations). Kernels called from Python
(``growth.grow``, predictions, binning) keep ``njit``.

Calling a kernel without its CPython wrapper from Python would jump to a missing wrapper (a
segmentation fault in Numba 0.68). :class:`KernelDispatcher` turns that call into a call of
the kernel's twin compiled with its wrappers (``pointers.twin``, suffix ``python``): tests and
users who call such a kernel from Python get the same result, and pay that compilation only
then.

Numba compiles the implementation of ``np.empty``, ``max``... once per argument types *and*
per flags of the calling function, so each option set here is one more set of those: kernels
that allocate are better called from a kernel of the same kind (the growth loop allocates
for its helpers).
"""

from numba import config
from numba.core.registry import CPUDispatcher

#: Options of kernels only other kernels call: no CPython wrapper, no C wrapper (``nogil`` is
#: a property of the CPython wrapper: no meaning here).
INTERNAL_OPTIONS = {"nopython": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
#: Options of kernels called through function pointers: the C wrapper only.
POINTER_OPTIONS = {"nopython": True, "nogil": True, "no_cpython_wrapper": True}


class KernelDispatcher(CPUDispatcher):
    """A Numba dispatcher compiled without its CPython wrapper; a call from Python runs its
    twin compiled with it (see the module docstring)."""

    def __call__(self, *args, **kwargs):
        from .pointers import twin

        return twin(self, "python", python_entry=True)(*args, **kwargs)


def compiled(function, options):
    """``function`` as a cached :class:`KernelDispatcher` with the target ``options`` (one of
    the ``*_OPTIONS`` above); under ``NUMBA_DISABLE_JIT`` the Python function itself."""
    if config.DISABLE_JIT:
        return function
    dispatcher = KernelDispatcher(py_func=function, locals={}, targetoptions=dict(options))
    dispatcher.enable_caching()
    return dispatcher


#: Option of kernels compiled without Numba's reference counting (``_nrt``): for kernels that
#: allocate nothing (Numba refuses to compile one that does) and are called so often that the
#: atomic incref/decref pair taken on each array argument shows (small nodes' scans).
UNREFERENCED = {"_nrt": False}


def _decorator(options, function, reference_counted):
    options = options if reference_counted else {**options, **UNREFERENCED}
    if function is None:
        return lambda function: compiled(function, options)
    return compiled(function, options)


def internal_kernel(function=None, *, reference_counted: bool = True):
    """``njit(cache=True)`` without the wrappers that only calls from Python and function
    pointers need: for kernels called only by other kernels. ``@internal_kernel`` or
    ``@internal_kernel(reference_counted=False)`` (see ``UNREFERENCED``)."""
    return _decorator(INTERNAL_OPTIONS, function, reference_counted)


def pointer_kernel(function=None, *, reference_counted: bool = True):
    """``njit(cache=True, nogil=True)`` without the CPython wrapper: for kernels the growth
    loop calls through a ``pointers.FunctionPointer`` (which needs the C wrapper only), and
    for their stand-ins. ``@pointer_kernel`` or ``@pointer_kernel(reference_counted=False)``."""
    return _decorator(POINTER_OPTIONS, function, reference_counted)
