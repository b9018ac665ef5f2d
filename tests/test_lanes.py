"""The fixed-order vector kernels of ``treesmith._kernels.lanes`` give the bits of their
plain-Python references (which state the order), for every length and tail, so their results
do not depend on the machine's vector width."""

import numpy as np
import pytest
from numba import njit

from treesmith._kernels.lanes import (
    CHUNK,
    LANES,
    lane_dot_reference,
    lane_dots,
    lane_dots_reference,
    lane_min_max,
    lane_min_max_reference,
    lane_row_dots,
    lane_row_dots_reference,
    padded_length,
    row_combinations,
    row_combinations_reference,
)

#: Lengths around the lane and chunk boundaries, and the issue's 255 categories.
LENGTHS = [0, 1, 7, 8, 9, 31, 32, 33, 40, 63, 64, 65, 100, 255, 256, 257]


@njit(cache=True)
def _dots(x, z, rows, n_rows, width, n, out):
    lane_dots(x, z, rows, n_rows, width, n, out)


@njit(cache=True)
def _row_dots(x, rows, n_rows, width, n, out):
    lane_row_dots(x, rows, n_rows, width, n, out)


@njit(cache=True)
def _combinations(coefficients, coefficient_stride, n_out, rows, n_rows, width, out):
    row_combinations(coefficients, coefficient_stride, n_out, rows, n_rows, width, out)


@njit(cache=True)
def _min_max(x, n):
    return lane_min_max(x, n)


def _dot(x, y, n):
    """sum_j x[j] y[j] by ``lane_dots`` (z = 1)."""
    out = np.full(1, np.nan)
    _dots(x, np.ones(len(x)), np.ascontiguousarray(y, dtype=float), 1, len(y), n, out)
    return out[0]


@pytest.mark.parametrize("n", LENGTHS)
def test_lane_dots_are_their_reference_bit_for_bit(n):
    rng = np.random.default_rng(n)
    # magnitudes over many binades, so that a different order gives different bits
    x, z = rng.standard_normal((2, n + 1)) * 10.0 ** rng.integers(-8, 8, (2, n + 1))
    width = padded_length(max(n, 1), LANES)
    rows = rng.standard_normal(5 * width) * 10.0 ** rng.integers(-8, 8, 5 * width)
    for n_rows in (1, 2, 3, 5):
        out = np.full(n_rows, np.nan)
        expected = np.full(n_rows, np.nan)
        _dots(x, z, rows, n_rows, width, n, out)
        lane_dots_reference(x, z, rows, n_rows, width, n, expected)
        assert np.array_equal(out.view(np.uint64), expected.view(np.uint64))
        assert expected[0] == lane_dot_reference(x, z, n, rows)


@pytest.mark.parametrize("n", LENGTHS)
def test_lane_row_dots_are_their_reference_and_lane_dots_bit_for_bit(n):
    """``lane_row_dots`` of the products x_j z_j is ``lane_dots`` of x and z, for every number
    of rows (whole blocks of rows summed together, and the rest one by one) and every tail."""
    rng = np.random.default_rng(100 + n)
    x, z = rng.standard_normal((2, n + 1)) * 10.0 ** rng.integers(-8, 8, (2, n + 1))
    width = padded_length(max(n, 1), LANES) + LANES
    rows = rng.standard_normal(9 * width) * 10.0 ** rng.integers(-8, 8, 9 * width)
    for n_rows in (1, 2, 3, 4, 5, 8, 9):
        out = np.full(n_rows, np.nan)
        expected = np.full(n_rows, np.nan)
        with_z = np.full(n_rows, np.nan)
        _row_dots(x * z, rows, n_rows, width, n, out)
        lane_row_dots_reference(x * z, rows, n_rows, width, n, expected)
        _dots(x, z, rows, n_rows, width, n, with_z)
        assert np.array_equal(out.view(np.uint64), expected.view(np.uint64))
        assert np.array_equal(out.view(np.uint64), with_z.view(np.uint64))


def test_lane_dots_of_rows_padded_with_zeros_are_the_same_bits():
    """Rows and x padded with +0.0 up to a multiple of ``LANES``: the padding's products add
    +0.0 to lane sums that are never -0.0, so the sums over the padded length are the bits of
    the sums over the entries (what ``_principal_component_keys`` relies on)."""
    rng = np.random.default_rng(5)
    for n in (1, 31, 33, 200, 255):
        width = padded_length(n, LANES)
        x = np.zeros(width)
        x[:n] = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
        x[:n:7] = -0.0
        rows = np.zeros(6 * width)
        for i in range(6):
            rows[i * width:i * width + n] = rng.standard_normal(n)
        short = np.full(6, np.nan)
        padded = np.full(6, np.nan)
        _row_dots(x, rows, 6, width, n, short)
        _row_dots(x, rows, 6, width, width, padded)
        assert np.array_equal(short.view(np.uint64), padded.view(np.uint64))


def test_lane_dot_order_is_the_documented_one():
    """Lane l sums the entries l mod 32 in order, lanes fold pairwise: a hand-built case where
    that order and a plain running sum differ."""
    n = 2 * LANES
    x = np.ones(n)
    y = np.zeros(n)
    y[0], y[1], y[LANES] = 1e16, -1e16, 1.0  # lane 0: 1e16 + 1 = 1e16; lane 1: -1e16
    assert lane_dot_reference(x, y, n) == 0.0
    assert _dot(x, y, n) == 0.0
    assert sum(float(value) for value in x * y) == 1.0  # in sequence: 1e16 - 1e16 + 1


def test_lane_dot_of_zeros_and_padding_adds_nothing():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, 70))
    padded_x = np.concatenate([x, np.zeros(26)])
    padded_y = np.concatenate([y, rng.standard_normal(26)])  # zeros times anything finite
    assert _dot(padded_x, padded_y, 96) == _dot(x, y, 70)
    assert _dot(np.zeros(40), np.zeros(40), 40) == 0.0
    assert np.signbit(_dot(np.zeros(40), np.zeros(40), 40)) == np.False_


@pytest.mark.parametrize("width", [16, 32, 48, 64, 80, 256])
def test_row_combinations_are_their_reference_bit_for_bit(width):
    rng = np.random.default_rng(width)
    for n_out in (1, 2, 3, 4, 5, 9):
        for n_rows in (1, 2, 9):
            coefficient_stride = n_rows + 3
            coefficients = rng.standard_normal(n_out * coefficient_stride)
            rows = rng.standard_normal(n_rows * width) * 10.0 ** rng.integers(-6, 6,
                                                                               n_rows * width)
            out = np.full(n_out * width, np.nan)
            expected = np.full(n_out * width, np.nan)
            _combinations(coefficients, coefficient_stride, n_out, rows, n_rows, width, out)
            row_combinations_reference(coefficients, coefficient_stride, n_out, rows, n_rows,
                                       width, expected)
            assert np.array_equal(out.view(np.uint64), expected.view(np.uint64))


def test_row_combinations_is_a_matrix_product():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5, 7))
    b = rng.standard_normal((7, CHUNK * 3))
    out = np.zeros(5 * CHUNK * 3)
    _combinations(a.ravel(), 7, 5, b.ravel(), 7, CHUNK * 3, out)
    np.testing.assert_allclose(out.reshape(5, -1), a @ b, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("n", [LANES, 2 * LANES, 8 * LANES])
def test_lane_min_max_is_the_minimum_and_maximum(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    x[rng.integers(n)] = -7.5
    x[rng.integers(n)] = 9.25
    assert _min_max(x, n) == lane_min_max_reference(x, n) == (-7.5, 9.25)


def test_padded_length():
    assert [padded_length(n, LANES) for n in (1, 31, 32, 33, 255)] == [32, 32, 32, 64, 256]
    assert [padded_length(n, CHUNK) for n in (1, 16, 17, 29)] == [16, 16, 32, 32]
