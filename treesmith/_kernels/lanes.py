"""Dot products in a fixed summation order that runs on the CPU's vector unit.

A float sum's bits depend on its order. Numba compiles without ``fastmath``, so LLVM keeps a
loop's order of additions and will not vectorise a running sum; ``fastmath`` would, in an
order that depends on the CPU's vector width (another machine, other bits). ``lane_dot``
fixes an order that vector registers compute directly: ``LANES`` running sums, lane l summing
the products of the entries j = l (mod ``LANES``) in increasing j, then the lanes added
pairwise (lane l + lane l + half, halving until one is left). Its LLVM code works on
``LANES``-wide vectors of doubles, which every target lowers to its own registers (4 zmm, 8 ymm
or 16 xmm) with the same IEEE multiplications and additions: the same bits everywhere, about
4x faster than a scalar loop with four running sums at 256 entries (several independent
vector chains hide the addition latency).

``lane_dot_reference`` is the same order in plain Python (the tests compare bits), and is
``lane_dot`` itself under ``NUMBA_DISABLE_JIT``.
"""

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, config
from numba.extending import intrinsic

#: Running sums of ``lane_dot``: vectors must be padded to a multiple of it.
LANES = 32
#: Columns ``row_combination`` computes at once: rows must be padded to a multiple of it.
CHUNK = 8


@njit(cache=True)
def padded_length(n, multiple=LANES):
    """``n`` rounded up to a multiple of ``multiple`` (``LANES`` for a row ``lane_dot``
    reads, ``CHUNK`` for ``row_combination``'s)."""
    return (n + multiple - 1) // multiple * multiple


def lane_dot_reference(x, y, n):
    """sum_j x[j] y[j] over j < n in ``lane_dot``'s order, in Python."""
    sums = [0.0] * LANES
    for j in range(n):
        sums[j % LANES] += float(x[j]) * float(y[j])
    half = LANES
    while half > 1:
        half //= 2
        sums = [sums[lane] + sums[lane + half] for lane in range(half)]
    return sums[0]


def _is_contiguous_float_vector(array_type):
    return (isinstance(array_type, types.Array) and array_type.ndim == 1
            and array_type.layout == "C" and array_type.dtype == types.float64)


def _lane_dot_codegen(context, builder, signature, args):
    x_type, y_type, n_type = signature.args
    x_data = context.make_array(x_type)(context, builder, args[0]).data
    y_data = context.make_array(y_type)(context, builder, args[1]).data
    n = context.cast(builder, args[2], n_type, types.intp)
    vector = ir.VectorType(ir.DoubleType(), LANES)
    vector_pointer = vector.as_pointer()
    sums = cgutils.alloca_once_value(builder, ir.Constant(vector, [0.0] * LANES))
    with cgutils.for_range_slice(builder, ir.Constant(n.type, 0), n,
                                 ir.Constant(n.type, LANES)) as (j, _):
        x_lanes = builder.load(builder.bitcast(builder.gep(x_data, [j]), vector_pointer),
                               align=8)
        y_lanes = builder.load(builder.bitcast(builder.gep(y_data, [j]), vector_pointer),
                               align=8)
        builder.store(builder.fadd(builder.load(sums), builder.fmul(x_lanes, y_lanes)), sums)
    total = builder.load(sums)
    half = LANES
    while half > 1:  # lane l + lane l + half
        half //= 2
        index_type = ir.VectorType(ir.IntType(32), half)
        low = builder.shuffle_vector(total, total, ir.Constant(index_type, list(range(half))))
        high = builder.shuffle_vector(total, total,
                                      ir.Constant(index_type, list(range(half, 2 * half))))
        total = builder.fadd(low, high)
    return builder.extract_element(total, ir.Constant(ir.IntType(32), 0))


@intrinsic
def _lane_dot(typingctx, x, y, n):
    """The compiled ``lane_dot``."""
    if not (_is_contiguous_float_vector(x) and _is_contiguous_float_vector(y)
            and isinstance(n, types.Integer)):
        return None
    return types.float64(x, y, n), _lane_dot_codegen


def row_combination_reference(coefficients, rows, n_rows, width, out):
    """out[c] = sum_b coefficients[b] rows[b * width + c] over b < n_rows, c < width, in
    ``row_combination``'s order (increasing b from +0.0), in Python."""
    for column in range(width):
        total = 0.0
        for b in range(n_rows):
            total += float(coefficients[b]) * float(rows[b * width + column])
        out[column] = total


def _splat(builder, value, size):
    vector = builder.insert_element(ir.Constant(ir.VectorType(value.type, size), ir.Undefined),
                                    value, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(vector, vector,
                                  ir.Constant(ir.VectorType(ir.IntType(32), size), [0] * size))


def _row_combination_codegen(context, builder, signature, args):
    coefficients_type, rows_type, n_rows_type, width_type, out_type = signature.args
    coefficients = context.make_array(coefficients_type)(context, builder, args[0]).data
    rows = context.make_array(rows_type)(context, builder, args[1]).data
    n_rows = context.cast(builder, args[2], n_rows_type, types.intp)
    width = context.cast(builder, args[3], width_type, types.intp)
    out = context.make_array(out_type)(context, builder, args[4]).data
    vector = ir.VectorType(ir.DoubleType(), CHUNK)
    vector_pointer = vector.as_pointer()
    zeros = ir.Constant(vector, [0.0] * CHUNK)
    sums = cgutils.alloca_once_value(builder, zeros)
    with cgutils.for_range_slice(builder, ir.Constant(width.type, 0), width,
                                 ir.Constant(width.type, CHUNK)) as (column, _):
        builder.store(zeros, sums)
        with cgutils.for_range(builder, n_rows) as loop:
            coefficient = _splat(builder, builder.load(builder.gep(coefficients, [loop.index])),
                                 CHUNK)
            offset = builder.add(builder.mul(loop.index, width), column)
            lanes = builder.load(builder.bitcast(builder.gep(rows, [offset]), vector_pointer),
                                 align=8)
            builder.store(builder.fadd(builder.load(sums), builder.fmul(coefficient, lanes)),
                          sums)
        builder.store(builder.load(sums),
                      builder.bitcast(builder.gep(out, [column]), vector_pointer), align=8)
    return context.get_dummy_value()


@intrinsic
def _row_combination(typingctx, coefficients, rows, n_rows, width, out):
    """The compiled ``row_combination``."""
    if not (_is_contiguous_float_vector(coefficients) and _is_contiguous_float_vector(rows)
            and _is_contiguous_float_vector(out) and isinstance(n_rows, types.Integer)
            and isinstance(width, types.Integer)):
        return None
    return types.void(coefficients, rows, n_rows, width, out), _row_combination_codegen


def lane_min_max_reference(x, n):
    """(min, max) of x[:n], in Python."""
    return float(min(x[:n])), float(max(x[:n]))


def _lane_min_max_codegen(context, builder, signature, args):
    x_type, n_type = signature.args
    x = context.make_array(x_type)(context, builder, args[0]).data
    n = context.cast(builder, args[1], n_type, types.intp)
    vector = ir.VectorType(ir.DoubleType(), LANES)
    vector_pointer = vector.as_pointer()
    first = builder.load(builder.bitcast(x, vector_pointer), align=8)
    low = cgutils.alloca_once_value(builder, first)
    high = cgutils.alloca_once_value(builder, first)
    with cgutils.for_range_slice(builder, ir.Constant(n.type, LANES), n,
                                 ir.Constant(n.type, LANES)) as (j, _):
        lanes = builder.load(builder.bitcast(builder.gep(x, [j]), vector_pointer), align=8)
        current = builder.load(low)
        builder.store(builder.select(builder.fcmp_ordered("<", lanes, current), lanes, current),
                      low)
        current = builder.load(high)
        builder.store(builder.select(builder.fcmp_ordered(">", lanes, current), lanes, current),
                      high)
    low = builder.load(low)
    high = builder.load(high)
    half = LANES
    while half > 1:
        half //= 2
        index_type = ir.VectorType(ir.IntType(32), half)
        first_half = ir.Constant(index_type, list(range(half)))
        second_half = ir.Constant(index_type, list(range(half, 2 * half)))
        a = builder.shuffle_vector(low, low, first_half)
        b = builder.shuffle_vector(low, low, second_half)
        low = builder.select(builder.fcmp_ordered("<", b, a), b, a)
        a = builder.shuffle_vector(high, high, first_half)
        b = builder.shuffle_vector(high, high, second_half)
        high = builder.select(builder.fcmp_ordered(">", b, a), b, a)
    zero = ir.Constant(ir.IntType(32), 0)
    return context.make_tuple(builder, signature.return_type,
                              [builder.extract_element(low, zero),
                               builder.extract_element(high, zero)])


@intrinsic
def _lane_min_max(typingctx, x, n):
    """The compiled ``lane_min_max``."""
    if not (_is_contiguous_float_vector(x) and isinstance(n, types.Integer)):
        return None
    return types.UniTuple(types.float64, 2)(x, n), _lane_min_max_codegen


#: sum_j x[j] y[j] over j < n in ``LANES`` lanes (see the module docstring): x and y contiguous
#: float64 vectors, n a multiple of ``LANES`` (rows padded with +0.0, which leaves every lane's
#: sum unchanged).
lane_dot = lane_dot_reference if config.DISABLE_JIT else _lane_dot
#: out[c] = sum_b coefficients[b] rows[b * width + c] over b < n_rows, for every c < width, in
#: increasing b from +0.0 (no reduction across c: the vector unit computes ``CHUNK`` columns at
#: once in the scalar order): rows flat, ``width`` a multiple of ``CHUNK``; ``out`` must not
#: overlap ``rows`` or ``coefficients``.
row_combination = row_combination_reference if config.DISABLE_JIT else _row_combination
#: (min, max) of x[:n], n a positive multiple of ``LANES`` (pad with a copy of an entry): exact
#: whatever the order, for entries that are not NaN and not both 0.0 and -0.0.
lane_min_max = lane_min_max_reference if config.DISABLE_JIT else _lane_min_max
