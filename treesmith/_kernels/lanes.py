"""Sums in a fixed order that the CPU's vector unit runs: dot products, combinations of rows,
minimum and maximum.

A float sum's bits depend on its order. Numba compiles without ``fastmath``, so LLVM keeps a
loop's order of additions and will not vectorise a running sum (and Numba turns off LLVM's
SLP vectoriser, which would pack separate running sums); ``fastmath`` would, in an order that
depends on the CPU's vector width: other bits on another machine. The kernels here fix orders
that vector registers compute directly, written as LLVM vector code (Numba intrinsics), which
every target lowers to its own registers (zmm, ymm or xmm) with the same IEEE multiplications
and additions, never fused: the same bits everywhere.

* ``lane_dots``: dot products sum_j (x_j z_j) r_j of rows r, each in ``LANES`` running
  sums, lane l summing the products of the entries j = l (mod ``LANES``) in increasing j,
  then the lanes added pairwise (lane l + lane l + half, halving until one is left). About
  four times faster than a scalar loop with four running sums at 255 entries: several
  independent vector chains hide the addition latency. Four rows are summed in one pass over
  x and z, which are loaded, and multiplied, once for them. ``lane_row_dots``: the same
  sums of x_j r_j, for a caller that forms the products x_j z_j once for several calls
  (the same bits). Entries padded with +0.0 in x and r change no sum: a lane starts at +0.0
  and is then never -0.0, and s + 0.0 = s for every other s.
* ``row_combinations``: out[a, :] = sum_b c[a, b] rows[b, :] (a matrix product), each entry
  summed in increasing b: no sum crosses the vector, which holds 32 or 16 columns, and four
  rows a are summed at once (independent chains of additions).
* ``lane_min_max``: exact in any order (for entries that are not NaN, without both zeros).

Each has a plain-Python ``*_reference`` in the same order (the tests compare bits), which is
the kernel itself under ``NUMBA_DISABLE_JIT``. Compiled kernels only can call the intrinsics.
"""

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils, config
from numba.extending import intrinsic

#: Running sums of ``lane_dots``; ``lane_min_max`` reads multiples of it.
LANES = 32
#: ``row_combinations`` computes 32 or 16 columns at once: rows are padded to a multiple of
#: ``CHUNK``.
CHUNK = 16
#: A lane dot's last n mod ``LANES`` products are computed this many at a time, then singly.
_TAIL_STEP = 8

_INDEX = ir.IntType(32)


@njit(inline="always")
def padded_length(n, multiple):
    """``n`` rounded up to a multiple of ``multiple`` (``LANES`` for ``lane_min_max``,
    ``CHUNK`` for ``row_combinations``). Inlined by Numba: a separate function would be one
    more compilation for a line of arithmetic."""
    return (n + multiple - 1) // multiple * multiple


def _fold(builder, vector, combine):
    """Lanes combined pairwise, lane l with lane l + half, halving until one is left."""
    half = vector.type.count
    while half > 1:
        half //= 2
        low = builder.shuffle_vector(vector, vector, ir.Constant(ir.VectorType(_INDEX, half),
                                                                 list(range(half))))
        high = builder.shuffle_vector(vector, vector, ir.Constant(
            ir.VectorType(_INDEX, half), list(range(half, 2 * half))))
        vector = combine(low, high)
    return builder.extract_element(vector, ir.Constant(_INDEX, 0))


def _splat(builder, value, size):
    """A vector of ``size`` copies of ``value``."""
    vector = ir.VectorType(value.type, size)
    single = builder.insert_element(ir.Constant(vector, ir.Undefined), value,
                                    ir.Constant(_INDEX, 0))
    return builder.shuffle_vector(single, single,
                                  ir.Constant(ir.VectorType(_INDEX, size), [0] * size))


def _load_vector(builder, data, index, size):
    pointer = builder.bitcast(builder.gep(data, [index]),
                              ir.VectorType(ir.DoubleType(), size).as_pointer())
    return builder.load(pointer, align=8)


def _add_tail(builder, sums, n_whole, n, product_at):
    """Add the products of entries n_whole <= j < n (fewer than ``LANES``) to their lanes
    j - n_whole of the vector at ``sums``: ``product_at(j, size)`` gives the products of
    entries j .. j + size - 1 (a vector, or a float for size 1). They are stored into a zeroed
    vector, eight at a time then one by one, which is then added: the other lanes add +0.0,
    which changes no sum."""
    vector = ir.VectorType(ir.DoubleType(), LANES)
    tail = cgutils.alloca_once_value(builder, ir.Constant(vector, [0.0] * LANES))
    tail_data = builder.bitcast(tail, ir.DoubleType().as_pointer())
    n_eights = builder.add(n_whole, builder.and_(builder.sub(n, n_whole),
                                                 ir.Constant(n.type, -_TAIL_STEP)))
    eight = ir.VectorType(ir.DoubleType(), _TAIL_STEP)
    with cgutils.for_range_slice(builder, n_whole, n_eights,
                                 ir.Constant(n.type, _TAIL_STEP)) as (j, _):
        target = builder.gep(tail_data, [builder.sub(j, n_whole)])
        builder.store(product_at(j, _TAIL_STEP), builder.bitcast(target, eight.as_pointer()),
                      align=8)
    with cgutils.for_range_slice(builder, n_eights, n, ir.Constant(n.type, 1)) as (j, _):
        builder.store(product_at(j, 1), builder.gep(tail_data, [builder.sub(j, n_whole)]))
    builder.store(builder.fadd(builder.load(sums), builder.load(tail)), sums)


def _load(builder, data, index, size):
    """Entries index .. index + size - 1 of ``data``: a vector, or a float for size 1."""
    if size == 1:
        return builder.load(builder.gep(data, [index]))
    return _load_vector(builder, data, index, size)


def _is_contiguous_float_vector(array_type):
    return (isinstance(array_type, types.Array) and array_type.ndim == 1
            and array_type.layout == "C" and array_type.dtype == types.float64)


# -- dot products ---------------------------------------------------------------------------
def lane_dot_reference(x, y, n, z=None):
    """sum_j x[j] y[j] (times z[j] if given: (x[j] y[j]) z[j]) over j < n in the lanes' order
    (the module docstring), in Python."""
    sums = [0.0] * LANES
    for j in range(n):
        product = float(x[j]) * float(y[j])
        sums[j % LANES] += product if z is None else product * float(z[j])
    half = LANES
    while half > 1:
        half //= 2
        sums = [sums[lane] + sums[lane + half] for lane in range(half)]
    return sums[0]


def lane_dots_reference(x, z, rows, n_rows, width, n, out):
    """``lane_dots`` in Python."""
    for i in range(n_rows):
        out[i] = lane_dot_reference(x, z, n, rows[i * width:])


#: ``lane_dots`` and ``lane_row_dots`` sum this many rows in one pass over x (and z): each
#: entry of x (x_j z_j) is loaded and formed once for them, and their chains of additions are
#: independent (4 x 32 lanes: 16 zmm or 32 ymm registers).
_ROWS_AT_ONCE = 4


def _lane_dot_rows(builder, x, z, rows, first, count, width, n, n_whole, out):
    """out[first .. first + count - 1]: whole vectors of ``LANES``, each x (x z) vector
    loaded once for the ``count`` rows, then the last n mod ``LANES`` entries added to their
    lanes (``_add_tail``), then the fold. ``z`` None: the products x_j r_j."""
    vector = ir.VectorType(ir.DoubleType(), LANES)
    starts = [builder.mul(builder.add(first, ir.Constant(first.type, i)), width)
              for i in range(count)]
    sums = [cgutils.alloca_once_value(builder, ir.Constant(vector, [0.0] * LANES))
            for _ in range(count)]

    def weighted_at(j, size):
        if z is None:
            return _load(builder, x, j, size)
        return builder.fmul(_load(builder, x, j, size), _load(builder, z, j, size))

    with cgutils.for_range_slice(builder, ir.Constant(n.type, 0), n_whole,
                                 ir.Constant(n.type, LANES)) as (j, _):
        weighted = weighted_at(j, LANES)
        for start, total in zip(starts, sums):
            lanes = _load_vector(builder, rows, builder.add(start, j), LANES)
            builder.store(builder.fadd(builder.load(total), builder.fmul(weighted, lanes)),
                          total)
    for i, (start, total) in enumerate(zip(starts, sums)):
        def product_at(j, size, start=start):
            return builder.fmul(weighted_at(j, size),
                                _load(builder, rows, builder.add(start, j), size))

        _add_tail(builder, total, n_whole, n, product_at)
        row = builder.add(first, ir.Constant(first.type, i))
        builder.store(_fold(builder, builder.load(total), builder.fadd),
                      builder.gep(out, [row]))


def _dots_codegen(context, builder, x, z, rows, n_rows, width, n, out):
    """Rows ``_ROWS_AT_ONCE`` at a time, then one by one."""
    n_whole = builder.and_(n, ir.Constant(n.type, -LANES))
    n_blocks = builder.and_(n_rows, ir.Constant(n_rows.type, -_ROWS_AT_ONCE))
    with cgutils.for_range_slice(builder, ir.Constant(n_rows.type, 0), n_blocks,
                                 ir.Constant(n_rows.type, _ROWS_AT_ONCE)) as (first, _):
        _lane_dot_rows(builder, x, z, rows, first, _ROWS_AT_ONCE, width, n, n_whole, out)
    with cgutils.for_range_slice(builder, n_blocks, n_rows,
                                 ir.Constant(n_rows.type, 1)) as (first, _):
        _lane_dot_rows(builder, x, z, rows, first, 1, width, n, n_whole, out)
    return context.get_dummy_value()


def _dots_of(with_z):
    """The codegen of ``lane_dots`` (``with_z``: arguments x, z, rows, n_rows, width, n, out)
    or of ``lane_row_dots`` (x, rows, n_rows, width, n, out)."""
    n_inputs = 3 if with_z else 2

    def codegen(context, builder, signature, args):
        array_types = signature.args[:n_inputs] + signature.args[-1:]
        arrays = [context.make_array(array_type)(context, builder, value).data
                  for array_type, value in zip(array_types, args[:n_inputs] + args[-1:])]
        n_rows, width, n = [context.cast(builder, value, count_type, types.intp)
                            for count_type, value in zip(signature.args[n_inputs:-1],
                                                         args[n_inputs:-1])]
        x, rows, out = arrays[0], arrays[n_inputs - 1], arrays[-1]
        z = arrays[1] if with_z else None
        return _dots_codegen(context, builder, x, z, rows, n_rows, width, n, out)

    return codegen


def _dots_signature(arrays, counts):
    """void(arrays..., counts..., out) when the arrays (out last) are contiguous float vectors
    and the counts integers, else None (no match)."""
    if not (all(_is_contiguous_float_vector(array) for array in arrays)
            and all(isinstance(count, types.Integer) for count in counts)):
        return None
    return types.void(*arrays[:-1], *counts, arrays[-1])


@intrinsic
def _lane_dots(typingctx, x, z, rows, n_rows, width, n, out):
    """The compiled ``lane_dots``."""
    signature = _dots_signature((x, z, rows, out), (n_rows, width, n))
    return None if signature is None else (signature, _dots_of(with_z=True))


def lane_row_dots_reference(x, rows, n_rows, width, n, out):
    """``lane_row_dots`` in Python."""
    for i in range(n_rows):
        out[i] = lane_dot_reference(x, rows[i * width:], n)


@intrinsic
def _lane_row_dots(typingctx, x, rows, n_rows, width, n, out):
    """The compiled ``lane_row_dots``."""
    signature = _dots_signature((x, rows, out), (n_rows, width, n))
    return None if signature is None else (signature, _dots_of(with_z=False))


# -- combinations of rows -------------------------------------------------------------------
def row_combinations_reference(coefficients, coefficient_stride, n_out, rows, n_rows, width,
                               out):
    """out[a * width + c] = sum_b coefficients[a * coefficient_stride + b] rows[b * width + c]
    over b < n_rows, for a < n_out and c < width, in ``row_combinations``'s order
    (increasing b from +0.0), in Python."""
    for a in range(n_out):
        for column in range(width):
            total = 0.0
            for b in range(n_rows):
                total += (float(coefficients[a * coefficient_stride + b])
                          * float(rows[b * width + column]))
            out[a * width + column] = total


def _combine(builder, coefficients, coefficient_stride, first, count, rows, n_rows, width,
             out, column, size):
    """out rows first .. first + count - 1, columns column .. column + size - 1: ``count``
    independent chains of additions in one pass over the rows."""
    vector = ir.VectorType(ir.DoubleType(), size)
    zeros = ir.Constant(vector, [0.0] * size)
    sums = [cgutils.alloca_once_value(builder, zeros) for _ in range(count)]
    with cgutils.for_range(builder, n_rows) as loop:
        lanes = _load_vector(builder, rows, builder.add(builder.mul(loop.index, width), column),
                             size)
        for i, total in enumerate(sums):
            a = builder.add(first, ir.Constant(first.type, i))
            index = builder.add(builder.mul(a, coefficient_stride), loop.index)
            coefficient = _splat(builder, builder.load(builder.gep(coefficients, [index])), size)
            builder.store(builder.fadd(builder.load(total), builder.fmul(coefficient, lanes)),
                          total)
    for i, total in enumerate(sums):
        a = builder.add(first, ir.Constant(first.type, i))
        target = builder.gep(out, [builder.add(builder.mul(a, width), column)])
        builder.store(builder.load(total), builder.bitcast(target, vector.as_pointer()),
                      align=8)


def _row_combinations_codegen(context, builder, signature, args):
    (coefficients_type, coefficient_stride_type, n_out_type, rows_type, n_rows_type,
     width_type, out_type) = signature.args
    coefficients = context.make_array(coefficients_type)(context, builder, args[0]).data
    coefficient_stride = context.cast(builder, args[1], coefficient_stride_type, types.intp)
    n_out = context.cast(builder, args[2], n_out_type, types.intp)
    rows = context.make_array(rows_type)(context, builder, args[3]).data
    n_rows = context.cast(builder, args[4], n_rows_type, types.intp)
    width = context.cast(builder, args[5], width_type, types.intp)
    out = context.make_array(out_type)(context, builder, args[6]).data
    one = ir.Constant(width.type, 1)
    four = ir.Constant(width.type, 4)
    n_quads = builder.and_(n_out, ir.Constant(width.type, -4))
    start = ir.Constant(width.type, 0)
    for size in (32, CHUNK):  # 32 columns at a time, then 16
        stop = builder.and_(width, ir.Constant(width.type, -size))
        with cgutils.for_range_slice(builder, start, stop, ir.Constant(width.type, size)) as (
                column, _):
            # four output rows at a time: four independent chains of additions
            with cgutils.for_range_slice(builder, ir.Constant(width.type, 0), n_quads,
                                         four) as (first, _):
                _combine(builder, coefficients, coefficient_stride, first, 4, rows, n_rows,
                         width, out, column, size)
            with cgutils.for_range_slice(builder, n_quads, n_out, one) as (first, _):
                _combine(builder, coefficients, coefficient_stride, first, 1, rows, n_rows,
                         width, out, column, size)
        start = stop
    return context.get_dummy_value()


@intrinsic
def _row_combinations(typingctx, coefficients, coefficient_stride, n_out, rows, n_rows, width,
                      out):
    """The compiled ``row_combinations``."""
    if not (_is_contiguous_float_vector(coefficients) and _is_contiguous_float_vector(rows)
            and _is_contiguous_float_vector(out)
            and all(isinstance(count, types.Integer)
                    for count in (coefficient_stride, n_out, n_rows, width))):
        return None
    signature = types.void(coefficients, coefficient_stride, n_out, rows, n_rows, width, out)
    return signature, _row_combinations_codegen


# -- minimum and maximum --------------------------------------------------------------------
def lane_min_max_reference(x, n):
    """(min, max) of x[:n], in Python."""
    return float(min(x[:n])), float(max(x[:n]))


def _lane_min_max_codegen(context, builder, signature, args):
    x_type, n_type = signature.args
    x = context.make_array(x_type)(context, builder, args[0]).data
    n = context.cast(builder, args[1], n_type, types.intp)
    first = _load_vector(builder, x, ir.Constant(n.type, 0), LANES)
    low = cgutils.alloca_once_value(builder, first)
    high = cgutils.alloca_once_value(builder, first)
    with cgutils.for_range_slice(builder, ir.Constant(n.type, LANES), n,
                                 ir.Constant(n.type, LANES)) as (j, _):
        lanes = _load_vector(builder, x, j, LANES)
        current = builder.load(low)
        builder.store(builder.select(builder.fcmp_ordered("<", lanes, current), lanes, current),
                      low)
        current = builder.load(high)
        builder.store(builder.select(builder.fcmp_ordered(">", lanes, current), lanes, current),
                      high)
    low = _fold(builder, builder.load(low),
                lambda a, b: builder.select(builder.fcmp_ordered("<", b, a), b, a))
    high = _fold(builder, builder.load(high),
                 lambda a, b: builder.select(builder.fcmp_ordered(">", b, a), b, a))
    return context.make_tuple(builder, signature.return_type, [low, high])


@intrinsic
def _lane_min_max(typingctx, x, n):
    """The compiled ``lane_min_max``."""
    if not (_is_contiguous_float_vector(x) and isinstance(n, types.Integer)):
        return None
    return types.UniTuple(types.float64, 2)(x, n), _lane_min_max_codegen


#: out[i] = sum_j (x[j] z[j]) rows[i * width + j] over j < n, for i < n_rows, each in
#: ``LANES`` lanes (see the module docstring): contiguous float64 vectors, rows flat with
#: row i at ``i * width``; ``out`` must not overlap the inputs.
lane_dots = lane_dots_reference if config.DISABLE_JIT else _lane_dots
#: out[i] = sum_j x[j] rows[i * width + j] over j < n, for i < n_rows, in ``lane_dots``'s
#: lanes and order: ``lane_dots`` with the products x_j z_j formed once by the caller (the same
#: bits: (x_j z_j) r_j either way).
lane_row_dots = lane_row_dots_reference if config.DISABLE_JIT else _lane_row_dots
#: out[a * width + c] = sum_b coefficients[a * coefficient_stride + b] rows[b * width + c]
#: over b < n_rows, for a < n_out and c < width (a matrix product), each entry in increasing b
#: from +0.0: arrays flat, ``width`` a multiple of ``CHUNK``; ``out`` must not overlap ``rows``
#: or ``coefficients``.
row_combinations = (row_combinations_reference if config.DISABLE_JIT
                    else _row_combinations)
#: (min, max) of x[:n], n a positive multiple of ``LANES`` (pad with a copy of an entry).
lane_min_max = lane_min_max_reference if config.DISABLE_JIT else _lane_min_max
