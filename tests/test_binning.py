"""BinMapper: exact and quantile bins, the missing-value bin, dtypes, layout, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.estimator_checks import parametrize_with_checks

from treesmith.binning import BinMapper, midpoints


def reference_bins(mapper, X):
    """Bins by numpy's searchsorted: value v goes to the first bin whose edge is >= v."""
    out = np.empty(X.shape, dtype=np.int64)
    for j, edges in enumerate(mapper.bin_thresholds_):
        out[:, j] = np.searchsorted(edges, X[:, j], side="left")
        out[np.isnan(X[:, j]), j] = mapper.missing_values_bin_idx_
    return out


@pytest.mark.parametrize("max_bins", [2, 7, 255, 1000, None])
def test_transform_matches_searchsorted(max_bins):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    X[::5, 1] = np.nan
    X[:, 2] = rng.integers(0, 4, size=3000)
    mapper = BinMapper(max_bins=max_bins, random_state=0).fit(X)
    binned = mapper.transform(X)
    assert np.array_equal(binned, reference_bins(mapper, X))
    assert binned.flags.f_contiguous
    assert binned.dtype == (np.uint8 if mapper.n_bins_ <= 256 else np.uint16)
    assert np.all(mapper.n_bins_non_missing_ <= mapper.missing_values_bin_idx_)


@pytest.mark.parametrize("n_rows", [1, 511, 512, 513, 1500])
def test_small_inputs_are_binned_by_the_serial_twin_like_the_parallel_kernel(n_rows):
    # up to ROWS_PER_TASK rows (one task) transform uses map_to_bins' serial twin
    from treesmith._kernels.binning import ROWS_PER_TASK, map_to_bins
    from treesmith._kernels.pointers import serial_twin

    assert ROWS_PER_TASK == 512
    rng = np.random.default_rng(n_rows)
    X = rng.normal(size=(n_rows, 3))
    X[::4, 0] = np.nan
    mapper = BinMapper(max_bins=50, random_state=0).fit(X)
    binned = mapper.transform(X)
    assert np.array_equal(binned, reference_bins(mapper, X))
    offsets = np.zeros(4, dtype=np.int64)
    offsets[1:] = np.cumsum([edges.size for edges in mapper.bin_thresholds_])
    thresholds = np.concatenate(mapper.bin_thresholds_)
    for mapper_kernel in (map_to_bins, serial_twin(map_to_bins)):
        out = np.empty(X.shape, dtype=np.uint8, order="F")
        mapper_kernel(X, thresholds, offsets, mapper.missing_values_bin_idx_, out)
        assert np.array_equal(out, binned)


def test_small_features_are_binned_exactly():
    X = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 3.0], [2.0, np.nan]])
    mapper = BinMapper(max_bins=255).fit(X)
    assert mapper.is_exact_.all()
    assert np.array_equal(mapper.bin_values_[0], [0.0, 1.0, 2.0])
    assert np.array_equal(mapper.bin_thresholds_[0], [0.5, 1.5])
    assert mapper.transform(X)[3, 1] == mapper.missing_values_bin_idx_


def test_quantile_bins_are_balanced_and_not_exact():
    X = np.random.default_rng(1).uniform(size=(10_000, 1))
    mapper = BinMapper(max_bins=10).fit(X)
    counts = np.bincount(mapper.transform(X)[:, 0])
    assert counts.size == 10 and counts.min() > 900
    assert not mapper.is_exact_[0]


def test_subsampled_feature_with_few_values_stays_exact():
    X = np.repeat(np.arange(5.0), 100)[:, None]
    mapper = BinMapper(max_bins=255, subsample=50, random_state=0).fit(X)
    assert mapper.is_exact_[0]


def test_uint16_storage_above_255_bins():
    X = np.arange(1000.0)[:, None]
    mapper = BinMapper(max_bins=1000).fit(X)
    assert mapper.transform(X).dtype == np.uint16
    assert mapper.n_bins_non_missing_[0] == 1000


def test_midpoints_never_overflow_and_stay_between():
    low = np.array([-1.7e308, 1e308, 1.0, 5e-324])
    high = np.array([1.7e308, 1.7e308, np.nextafter(1.0, 2.0), 1e-323])
    mid = midpoints(low, high)
    assert np.all(np.isfinite(mid))
    assert np.all((low <= mid) & (mid < high))


def test_infinity_is_rejected_with_the_column_name():
    X = np.array([[1.0, 2.0], [3.0, np.inf]])
    with pytest.raises(ValueError, match="'b'.*column 1"):
        BinMapper().fit(X, feature_names=["a", "b"])


@pytest.mark.parametrize("max_bins", [1, 70000, 2.5, "many"])
def test_bad_max_bins(max_bins):
    with pytest.raises(ValueError, match="max_bins"):
        BinMapper(max_bins=max_bins).fit(np.zeros((3, 1)))


def test_exact_binning_refuses_too_many_distinct_values():
    X = np.arange(70_000.0)[:, None]
    with pytest.raises(ValueError, match="distinct values"):
        BinMapper(max_bins=None).fit(X)


def test_float32_input_is_binned_like_float64():
    X = np.random.default_rng(2).normal(size=(500, 2)).astype(np.float32)
    a = BinMapper(max_bins=32).fit(X)
    b = BinMapper(max_bins=32).fit(X.astype(np.float64))
    assert np.array_equal(a.transform(X), b.transform(X.astype(np.float64)))


def test_zero_weight_rows_do_not_move_the_edges():
    """A zero sample weight means the same as dropping the row: its value neither adds an edge
    (exact binning) nor moves a quantile edge."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 2))
    X[:, 1] = np.round(X[:, 1], 1)  # few distinct values: exact binning
    weight = rng.integers(0, 3, size=3000).astype(float)
    kept = weight > 0
    with_zeros = BinMapper(max_bins=64, random_state=0).fit(X, sample_weight=weight)
    dropped = BinMapper(max_bins=64, random_state=0).fit(X[kept])
    for j in range(2):
        np.testing.assert_array_equal(with_zeros.bin_thresholds_[j], dropped.bin_thresholds_[j])
    np.testing.assert_array_equal(with_zeros.is_exact_, dropped.is_exact_)
    # Rows of zero weight are still binned (with the edges of the weighted rows).
    assert with_zeros.transform(X).shape == X.shape
    with pytest.raises(ValueError, match=r"one weight per sample \(3000\)"):
        BinMapper().fit(X, sample_weight=weight[:10])


def test_a_text_column_is_named():
    """BinMapper said numpy's 'could not convert string to float: 'a'' without the column."""
    import pandas as pd

    with pytest.raises(ValueError, match=r"'city' \(column 1\) holds non-numeric values.*"
                                         r"n_categories"):
        BinMapper().fit(pd.DataFrame({"x": [1.0, 2.0], "city": ["a", "b"]}))
    with pytest.raises(ValueError, match=r"'x1' \(column 1\)"):
        BinMapper().fit(np.array([[1.0, "a"], [2.0, "b"]], dtype=object))


@pytest.mark.parametrize("n_rows", [6, 300])
def test_category_code_c_is_bin_c_even_when_absent_from_the_binned_rows(n_rows):
    """A categorical feature's code c must be bin c, whatever codes the binned rows hold: the
    split's category set is a set of bins read back as codes. The short-data path (at most
    max_bins rows) took the distinct present codes instead, so codes {0, 2} became bins {0, 1}
    (and rows of weight 0, which are not binned, could hide a category)."""
    codes = np.tile([0.0, 2.0, np.nan], n_rows // 3)[:, None]
    X = np.hstack([codes, np.arange(n_rows, dtype=float)[:, None]])
    mapper = BinMapper(n_categories=[3, 0]).fit(X)
    np.testing.assert_array_equal(mapper.n_bins_non_missing_[0], 3)
    np.testing.assert_array_equal(mapper.bin_values_[0], [0.0, 1.0, 2.0])
    binned = mapper.transform(np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [np.nan, 0.0]]))
    np.testing.assert_array_equal(binned[:, 0], [0, 1, 2, mapper.missing_values_bin_idx_])


def _bin_mapper_expected_failures(estimator):
    return {"check_dtype_object": "a column that is not numbers is a ValueError naming it (the "
                                  "trees' wording), not numpy's TypeError",
            "check_transformer_preserve_dtypes": "bins are small integers (uint8 / uint16), "
                                                 "whatever the input's float dtype"}


@parametrize_with_checks([BinMapper()], expected_failed_checks=_bin_mapper_expected_failures)
def test_bin_mapper_passes_scikit_learns_estimator_checks(estimator, check):
    """It had no such test and failed 11: complex input binned with its imaginary part
    dropped, rows of weight zero or no rows at all accepted, sparse input, wording."""
    check(estimator)


def _per_column(monkeypatch, X, **params):
    """BinMapper fitted one column at a time (the blocked pass switched off)."""
    import treesmith.binning as binning

    with monkeypatch.context() as patch:
        patch.setattr(binning, "BLOCKED_BINNING_ROWS", 0)
        return BinMapper(**params).fit(X)


def _assert_same_bins(ours, theirs):
    """Same edges, values and exactness, byte for byte (-0.0 differs from 0.0)."""
    assert len(ours.bin_thresholds_) == len(theirs.bin_thresholds_)
    for a, b in zip(ours.bin_thresholds_, theirs.bin_thresholds_):
        assert a.dtype == b.dtype == np.float64 and a.tobytes() == b.tobytes()
    for a, b in zip(ours.bin_values_, theirs.bin_values_):
        assert (a is None) == (b is None)
        assert a is None or a.tobytes() == b.tobytes()
    np.testing.assert_array_equal(ours.is_exact_, theirs.is_exact_)
    np.testing.assert_array_equal(ours.n_bins_non_missing_, theirs.n_bins_non_missing_)


def _zeros_and_ties(n_rows, n_features, seed):
    """Columns of few and of many distinct values, ties, -0.0 and 0.0 mixed, NaN, a constant,
    values near the float limits."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    X[:, 0] = np.round(X[:, 0], 1)  # few distinct values: exact
    X[:, 1] = np.round(X[:, 1], 2)  # some hundreds: quantile with ties
    for j in (0, 1, 2):
        zeros = rng.random(n_rows) < 0.3
        X[zeros, j] = np.where(rng.random(zeros.sum()) < 0.5, -0.0, 0.0)
    X[:, 3] = -0.0
    X[rng.random(n_rows) < 0.05, 4] = np.nan
    X[:, 5] = rng.choice([-1.7e308, -5e-324, 0.0, 5e-324, 1.7e308], size=n_rows)
    return X


@pytest.mark.parametrize("n_rows", [300, 1000, 5000])
@pytest.mark.parametrize("max_bins", [255, 16, None])
def test_blocked_binning_gives_the_per_column_edges_bit_for_bit(monkeypatch, n_rows, max_bins):
    X = _zeros_and_ties(n_rows, 40, n_rows)
    if max_bins is None:
        X[:, 6:] = np.round(X[:, 6:], 1)  # exact binning: at most 65535 distinct values
    blocked = BinMapper(max_bins=max_bins).fit(X)
    _assert_same_bins(blocked, _per_column(monkeypatch, X, max_bins=max_bins))
    assert np.array_equal(blocked.transform(X), reference_bins(blocked, X))


def test_blocked_binning_of_float32_and_categorical_columns(monkeypatch):
    X = _zeros_and_ties(2000, 12, 1)
    X[:, 5] = np.sign(X[:, 5]) * 3e38  # float32's range
    X = X.astype(np.float32)
    X[:, 7] = np.random.default_rng(2).integers(0, 9, size=2000)
    n_categories = np.zeros(12, dtype=np.int64)
    n_categories[7] = 11
    import treesmith.binning as binning

    monkeypatch.setattr(binning, "BLOCKED_BINNING_MIN_COLUMNS", 1)  # 12 columns: blocked
    blocked = BinMapper(n_categories=n_categories).fit(X)
    _assert_same_bins(blocked, _per_column(monkeypatch, X, n_categories=n_categories))
    np.testing.assert_array_equal(blocked.bin_values_[7], np.arange(11.0))


def test_sorted_columns_kernel_leaves_out_what_the_per_column_pass_must_handle():
    # NaN, too many distinct values for exact binning, quantile edges at +0.0 and -0.0
    from treesmith._kernels.binning import COLUMN_LEFT_OUT, edges_of_sorted_columns

    ordered = np.sort(np.array([[0.0, 0.0, -0.0, 1.0], [1.0, 1.0, 0.0, 2.0],
                                [2.0, 2.0, -0.0, 3.0], [3.0, np.nan, 0.0, 4.0],
                                [4.0, 4.0, 5.0, 5.0]]), axis=0)
    limit = 3
    fractions = np.linspace(0, 1, limit + 1)[1:-1]
    edges, values = np.empty((4, limit)), np.empty((4, limit))
    n_edges, n_values = np.empty(4, dtype=np.int64), np.empty(4, dtype=np.int64)
    edges_of_sorted_columns(ordered, limit, fractions, True, False, edges, values, n_edges,
                            n_values)
    assert list(n_edges) == [COLUMN_LEFT_OUT] * 2 + [1, COLUMN_LEFT_OUT]  # exact only
    np.testing.assert_array_equal(edges[2, :1], [2.5])  # values 0 and 5: exact
    edges_of_sorted_columns(ordered, limit, fractions, False, False, edges, values, n_edges,
                            n_values)
    # column 0: 5 values > 3, quantile positions 4/3 and 8/3: midpoints 1.5, 2.5 (numpy's)
    assert n_edges[0] == 2 and n_values[0] == -1
    np.testing.assert_array_equal(edges[0, :2], BinMapper._quantile_edges(ordered[:, 0], 3))
    assert n_edges[1] == COLUMN_LEFT_OUT  # NaN
    assert n_edges[3] == 2
    # missing_last (samples sorted with their NaN): NaN rows skipped, an all-NaN column empty
    ordered[:, 2] = np.nan
    edges, values = np.empty((4, 5)), np.empty((4, 5))
    edges_of_sorted_columns(ordered, 5, np.linspace(0, 1, 6)[1:-1], False, True, edges, values,
                            n_edges, n_values)
    assert list(n_values) == [5, 4, 0, 5] and list(n_edges) == [4, 3, 0, 4]
    np.testing.assert_array_equal(values[1, :4], [0.0, 1.0, 2.0, 4.0])
    np.testing.assert_array_equal(edges[1, :3], [0.5, 1.5, 3.0])


def test_exact_binning_still_names_a_column_with_too_many_values():
    X = np.zeros((70_000, 3))
    X[:, 1] = np.arange(70_000) / 7.0
    with pytest.raises(ValueError, match="Feature 'x1' has 70000 distinct values"):
        BinMapper(max_bins=None).fit(X)


def test_thresholds_are_views_of_one_packed_array_and_pickles_hold_them_once():
    import pickle

    X = np.random.default_rng(0).normal(size=(3000, 200))
    mapper = BinMapper().fit(X)
    packed, offsets = mapper._packed_thresholds()
    assert offsets[-1] == packed.size == sum(e.size for e in mapper.bin_thresholds_)
    for j, edges in enumerate(mapper.bin_thresholds_):
        assert edges.base is packed and edges.size == offsets[j + 1] - offsets[j]
    edges_bytes = packed.nbytes
    blob = pickle.dumps(mapper)
    assert len(blob) < 1.3 * edges_bytes + 200 * 200  # once, not twice
    restored = pickle.loads(blob)
    _assert_same_bins(restored, mapper)
    assert all(e.base is restored._packed_thresholds()[0] for e in restored.bin_thresholds_)
    np.testing.assert_array_equal(restored.transform(X), mapper.transform(X))


def test_replaced_thresholds_are_packed_again():
    X = np.random.default_rng(1).normal(size=(600, 3))
    mapper = BinMapper().fit(X)
    mapper.bin_thresholds_ = [np.array([0.0]), np.array([-1.0, 1.0]), np.zeros(0)]
    packed, offsets = mapper._packed_thresholds()
    np.testing.assert_array_equal(packed, [0.0, -1.0, 1.0])
    np.testing.assert_array_equal(offsets, [0, 1, 3, 3])
    np.testing.assert_array_equal(mapper.transform(X), reference_bins(mapper, X))


@given(data=st.data())
@settings(max_examples=60, deadline=None)
def test_blocked_and_per_column_edges_agree_on_any_small_sample(data):
    import treesmith.binning as binning

    n_rows = data.draw(st.integers(1, 400), label="n_rows")
    n_features = data.draw(st.integers(1, 6), label="n_features")
    pool = st.sampled_from([-0.0, 0.0, np.nan, 1.0, -1.0, 5e-324, -5e-324, 0.5, 1e300])
    cells = data.draw(st.lists(st.one_of(pool, st.floats(-1e6, 1e6)),
                               min_size=n_rows * n_features, max_size=n_rows * n_features))
    X = np.array(cells, dtype=np.float64).reshape(n_rows, n_features)
    max_bins = data.draw(st.sampled_from([2, 3, 16, 255]), label="max_bins")
    saved = binning.BLOCKED_BINNING_ROWS, binning.BLOCKED_BINNING_MIN_COLUMNS
    try:
        binning.BLOCKED_BINNING_MIN_COLUMNS = 1  # the blocked pass on any width
        blocked = BinMapper(max_bins=max_bins).fit(X)
        binning.BLOCKED_BINNING_ROWS = 0  # the per-column pass
        per_column = BinMapper(max_bins=max_bins).fit(X)
    finally:
        binning.BLOCKED_BINNING_ROWS, binning.BLOCKED_BINNING_MIN_COLUMNS = saved
    _assert_same_bins(blocked, per_column)


@pytest.mark.parametrize("weight, match", [
    # a NaN or negative weight dropped its row silently, an infinite one kept it
    (np.r_[np.nan, np.ones(9)], r"^sample_weight must be finite; it contains NaN or infinity "
                                r"at rows 0\.$"),
    (np.r_[np.inf, np.ones(9)], r"sample_weight must be finite"),
    (np.r_[-1.0, np.ones(9)], r"^sample_weight must be non-negative; it is negative at rows 0"),
    (["a"] * 10, r"sample_weight must be numbers"),  # numpy's UFuncTypeError
    (np.ones(10) + 1j, r"sample_weight must be real numbers"),
    (np.ones(3), r"sample_weight must be a 1-D array with one weight per sample \(10\)"),
    (np.zeros(10), r"sample_weight is zero \(or negative\) for every row"),
])
def test_bin_mapper_checks_its_sample_weight(weight, match):
    X = np.arange(20.0).reshape(10, 2)
    with pytest.raises(ValueError, match=match):
        BinMapper().fit(X, sample_weight=weight)
