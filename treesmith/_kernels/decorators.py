"""How a kernel is compiled: ``internal_kernel``, for kernels that only other kernels call.

Numba compiles two wrappers for every ``njit`` function besides its code: a CPython wrapper
(unboxes Python arguments, boxes the result: the entry point of calls from Python) and a
C-callable wrapper (the entry point of ``numba.cfunc`` and of first-class function pointers,
``pointers.FunctionPointer``). A helper that only compiled kernels call needs neither: they call
its code directly. The wrappers were a third of the code LLVM optimised and emitted in a first
fit (unboxing a record such as ``TrainingData`` field by field is long code), so the helpers
of the growth loop are compiled without them (Numba's ``no_cpython_wrapper`` and
``no_cfunc_wrapper`` options, which it uses for its own ``@overload`` implementations).

Calling such a helper from Python would jump to a missing wrapper (a segmentation fault in
Numba 0.68). :class:`InternalKernel` turns that call into a call of the helper's twin compiled
with its wrappers (``pointers.twin``, suffix ``python``): tests and users who call a helper
from Python get the same result, and pay that compilation only then. Kernels called from
Python (``growth.grow``, predictions, binning) or through a function pointer keep ``njit``.
"""

from numba import config
from numba.core.registry import CPUDispatcher


class InternalKernel(CPUDispatcher):
    """A Numba dispatcher compiled without its CPython and C wrappers; a call from Python runs
    its twin compiled with them (see the module docstring)."""

    def __call__(self, *args, **kwargs):
        from .pointers import twin

        return twin(self, "python")(*args, **kwargs)


def internal_kernel(function):
    """``njit(cache=True)`` without the wrappers that only calls from Python and function
    pointers need: for kernels called only by other kernels (``nogil`` is a property of the
    CPython wrapper, so it has no meaning here). Under ``NUMBA_DISABLE_JIT`` the Python
    function itself."""
    if config.DISABLE_JIT:
        return function
    dispatcher = InternalKernel(
        py_func=function, locals={},
        targetoptions={"nopython": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True})
    dispatcher.enable_caching()
    return dispatcher
