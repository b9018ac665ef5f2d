"""BinMapper: exact and quantile bins, the missing-value bin, dtypes, layout, errors."""

import numpy as np
import pytest
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
    with pytest.raises(ValueError, match="one weight per row"):
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
