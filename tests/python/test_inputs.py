"""What fit accepts (numpy, scipy formats, memmaps, string labels), what it shares
without a copy, and the errors for bad input and bad parameters."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from snap_ml import LinearRegression, LogisticRegression, SupportVectorMachine
from snap_ml import _core
from snap_ml._data import csr_arrays, to_core


@pytest.fixture(scope="module")
def binary_data():
    X, y = make_classification(n_samples=300, n_features=20, random_state=0)
    return X, y


def reference(X, y):
    return LogisticRegression(random_state=0, tol=1e-8).fit(X, y)


@pytest.mark.parametrize(
    "convert",
    [
        lambda X: X.astype(np.float32),
        lambda X: np.asfortranarray(X),
        lambda X: sp.csr_matrix(X),
        lambda X: sp.csr_matrix(X.astype(np.float32)),
        lambda X: sp.csc_matrix(X),
        lambda X: sp.coo_matrix(X),
        lambda X: sp.csr_array(X),
    ],
    ids=["float32", "fortran", "csr64", "csr32", "csc", "coo", "csr_array"],
)
def test_input_formats_give_the_same_model(binary_data, convert):
    X, y = binary_data
    expected = reference(X.astype(np.float32), y)
    model = LogisticRegression(random_state=0, tol=1e-8).fit(convert(X), y)
    np.testing.assert_allclose(model.coef_, expected.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(model.predict(convert(X)), expected.predict(X))


def test_memmap_input(binary_data, tmp_path):
    X, y = binary_data
    stored = np.memmap(tmp_path / "x.dat", dtype=np.float32, mode="w+", shape=X.shape)
    stored[:] = X
    stored.flush()
    mapped = np.memmap(tmp_path / "x.dat", dtype=np.float32, mode="r", shape=X.shape)
    model = LogisticRegression(random_state=0, tol=1e-8).fit(mapped, y)
    np.testing.assert_allclose(model.coef_, reference(X.astype(np.float32), y).coef_, rtol=1e-6)


def test_csr_with_core_dtypes_is_not_copied(binary_data):
    X, y = binary_data
    csr = sp.csr_matrix(X.astype(np.float32))
    csr.indptr = csr.indptr.astype(np.int64)
    csr.indices = csr.indices.astype(np.int32)
    data = to_core(csr, y.astype(np.float64))
    assert np.shares_memory(data.data, csr.data)
    assert np.shares_memory(data.indices, csr.indices)
    assert np.shares_memory(data.indptr, csr.indptr)


def test_other_dtypes_are_converted_once(binary_data):
    X, y = binary_data
    csr = sp.csr_matrix(X)  # float64 data, int32 indptr
    indptr, indices, data = csr_arrays(csr)
    assert np.shares_memory(indices, csr.indices)
    core = to_core(csr, y)
    assert core.data.dtype == np.float32 and core.indptr.dtype == np.int64
    assert not np.shares_memory(core.data, csr.data)
    np.testing.assert_array_equal(core.data, csr.data.astype(np.float32))


def _rows_shuffled(csr, seed=0):
    """csr with each row's entries in a random order (the same matrix, unsorted)."""
    rng = np.random.default_rng(seed)
    order = np.concatenate([start + rng.permutation(stop - start)
                            for start, stop in zip(csr.indptr[:-1], csr.indptr[1:])])
    shuffled = sp.csr_matrix((csr.data[order], csr.indices[order], csr.indptr.copy()), shape=csr.shape)
    assert not shuffled.has_sorted_indices
    return shuffled


def _entries_split(csr, seed=0):
    """csr with every entry stored as two duplicates, 0.3 and 0.7 of it, rows shuffled."""
    counts = np.diff(csr.indptr)
    rows = np.repeat(np.arange(csr.shape[0]), counts)
    coo = sp.coo_matrix((np.concatenate([0.3 * csr.data, 0.7 * csr.data]),
                         (np.concatenate([rows, rows]), np.concatenate([csr.indices, csr.indices]))),
                        shape=csr.shape)
    order = np.lexsort((np.random.default_rng(seed).random(coo.nnz), coo.row))
    indptr = np.concatenate([[0], np.cumsum(2 * counts)])
    return sp.csr_matrix((coo.data[order], coo.col[order], indptr), shape=csr.shape)


@pytest.mark.parametrize(
    "estimator",
    [
        lambda: LogisticRegression(random_state=0, tol=1e-8),
        lambda: LogisticRegression(random_state=0, tol=1e-8, solver="primal"),
        lambda: LogisticRegression(random_state=0, tol=1e-8, fit_intercept=False, solver="dual"),
        lambda: SupportVectorMachine(random_state=0, tol=1e-8),
        lambda: LinearRegression(tol=1e-10),
    ],
    ids=["logistic", "logistic-primal", "logistic-dual", "svm", "linear"],
)
def test_a_rows_column_order_does_not_change_the_model(binary_data, estimator):
    # A fit takes an unsorted CSR as it is (no copy, no sort): the core's sums over
    # a row do not depend on its order. A column twice in a row is one feature, as
    # scipy means it: the duplicates are summed first (tested on every estimator,
    # since the core would otherwise take them as two features).
    X, y = binary_data
    X = np.where(np.abs(X) < 0.5, 0.0, X)  # some zeros, so rows differ in length
    canonical = sp.csr_matrix(X)
    target = X @ np.arange(X.shape[1]) if "linear" in str(estimator()) else y
    expected = estimator().fit(canonical, target)
    for variant in (_rows_shuffled(canonical), _entries_split(canonical)):
        model = estimator().fit(variant, target)
        np.testing.assert_allclose(model.coef_, expected.coef_, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(model.intercept_, expected.intercept_, rtol=1e-6, atol=1e-8)


def test_an_unsorted_csr_without_duplicates_is_not_copied_for_a_fit(binary_data):
    X, y = binary_data
    csr = _rows_shuffled(sp.csr_matrix(X.astype(np.float32)))
    csr.indptr = csr.indptr.astype(np.int64)
    data = to_core(csr, y.astype(np.float64), sorted_rows=False)
    assert np.shares_memory(data.indices, csr.indices) and np.shares_memory(data.data, csr.data)
    # Written to a file (sorted_rows=True, the default), rows ascend as svmlight asks.
    indptr, indices, _ = csr_arrays(csr)
    assert all(np.all(np.diff(indices[a:b]) > 0) for a, b in zip(indptr[:-1], indptr[1:]))
    # With a duplicate the fit's arrays are summed, not the caller's matrix changed.
    split = _entries_split(sp.csr_matrix(X))
    before = split.indices.copy()
    indptr, indices, values = csr_arrays(split, sorted_rows=False)
    np.testing.assert_array_equal(split.indices, before)
    assert len(indices) == sp.csr_matrix(X).nnz


@pytest.mark.parametrize("n_features", [8, 1000], ids=["stamps", "sorted-copies"])
def test_rows_have_duplicate_columns(n_features):
    # n_features 8 <= nnz: a stamp per column; 1000 > nnz: each unsorted row sorted.
    def check(rows):
        indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
        indices = np.array([j for r in rows for j in r], dtype=np.int32)
        return _core.rows_have_duplicate_columns(indptr, indices, n_features)

    assert not check([[0, 1, 2], [5, 3, 7], [], [7, 6, 5, 4]])
    assert check([[0, 1, 2], [5, 3, 5]])       # unsorted, a duplicate
    assert check([[0, 1, 1], [2]])             # ascending but for a duplicate
    assert check([[], [4, 0, 6, 2, 4, 1]])     # the duplicate far apart
    assert not check([[3, 1], [1, 3], [3, 1]])  # the same columns in other rows
    # Bad structure is refused before any index is read through it.
    with pytest.raises(ValueError, match="indptr must start at 0"):
        _core.rows_have_duplicate_columns(np.array([-1, 2], np.int64), np.array([2, 1, 2], np.int32), n_features)
    with pytest.raises(ValueError, match="indptr must not decrease"):
        _core.rows_have_duplicate_columns(np.array([0, 2, 1, 3], np.int64), np.array([2, 1, 0], np.int32),
                                          n_features)


def test_core_rejects_a_bad_csr_structure():
    with pytest.raises(ValueError, match="column index 5 lies outside"):
        _core.CsrData(np.array([0, 1]), np.array([5], np.int32), np.array([1.0], np.float32), 3)
    with pytest.raises(ValueError, match="indptr must not decrease"):
        _core.CsrData(np.array([0, 1, 0]), np.array([0], np.int32), np.array([1.0], np.float32), 3)


def test_string_labels_map_to_classes(binary_data):
    X, y = binary_data
    names = np.array(["cat", "dog"])[y]
    model = LogisticRegression(random_state=0).fit(X, names)
    np.testing.assert_array_equal(model.classes_, ["cat", "dog"])
    numeric = LogisticRegression(random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), np.array(["cat", "dog"])[numeric.predict(X)])
    three = np.array(["a", "b", "c"])[np.arange(len(y)) % 3]
    assert set(LogisticRegression().fit(X, three).predict(X)) <= {"a", "b", "c"}


def test_nan_in_X_is_a_value_error(binary_data):
    X, y = binary_data
    X = X.copy()
    X[3, 4] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        LogisticRegression().fit(sp.csr_matrix(X), y)


def test_wrong_shapes_are_value_errors(binary_data):
    X, y = binary_data
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        LogisticRegression().fit(X, y[:-1])
    with pytest.raises(ValueError, match="2D array"):
        LogisticRegression().fit(X[:, 0], y)
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :5])
    with pytest.raises(ValueError, match="sample_weight"):
        LogisticRegression().fit(X, y, sample_weight=np.ones(3))


def test_one_class_is_a_value_error(binary_data):
    X, _ = binary_data
    with pytest.raises(ValueError, match="only one class"):
        SupportVectorMachine().fit(X, np.ones(len(X)))


@pytest.mark.parametrize("value", [1e300, -1e300, 4e38, -4e38])
@pytest.mark.parametrize("sparse", [False, True])
def test_values_beyond_float32_are_a_value_error(binary_data, value, sparse):
    # Either sign, just past float32's largest (3.4e38) too, dense and sparse.
    X, y = binary_data
    X = X.copy()
    X[0, 0] = value
    with pytest.raises(ValueError, match="float32"):
        LogisticRegression().fit(sp.csr_matrix(X) if sparse else X, y)
    X[0, 0] = 3e38 if value > 0 else -3e38  # within float32's range: trains
    LogisticRegression(max_iter=5).fit(sp.csr_matrix(X) if sparse else X, y)


@pytest.mark.parametrize(
    "parameters, message",
    [
        (dict(C=-1.0), "C must be a finite number > 0"),
        (dict(C=0.0), "C must be a finite number > 0"),
        (dict(penalty="l3"), "penalty must be 'l2', 'l1'"),
        (dict(tol=0), "tol must be"),
        (dict(max_iter=0), "max_iter must be"),
        (dict(intercept_scaling=0), "intercept_scaling must be"),
        (dict(n_jobs=0), "n_jobs must be"),
        (dict(regularizer=-2.0), "regularizer must be"),
        (dict(regularizer=2.0, C=3.0), "either C or regularizer"),
        (dict(max_memory=10**9), "max_memory.*applies when X is the path of a .snap file"),
        (dict(max_memory="4GB"), "max_memory.*snap_ml.datasets.dump"),
        (dict(max_gpu_memory=10**9), "max_gpu_memory.*needs use_gpu=True"),
        (dict(max_gpu_memory="8GB"), "max_gpu_memory.*needs use_gpu=True"),
        # device_ids alone asks for the GPU (Snap ML's example): the error says which is missing.
        (dict(device_ids=[0]), "without the CUDA backend.*pip install|no CUDA device is visible"),
        (dict(class_weight={7: 2.0}), "class 7.*not in the training labels"),
        (dict(class_weight="heavy"), "class_weight must be"),
    ],
)
def test_bad_parameters_say_what_to_do(binary_data, parameters, message):
    X, y = binary_data
    with pytest.raises(ValueError, match=message):
        LogisticRegression(**parameters).fit(X, y)


def test_l1_gives_sparse_models(binary_data):
    X, y = binary_data
    dense = LogisticRegression(C=0.05, random_state=0).fit(X, y)
    sparse = LogisticRegression(C=0.05, penalty="l1", random_state=0).fit(X, y)
    assert np.count_nonzero(sparse.coef_) < np.count_nonzero(dense.coef_)
    assert sparse.score(X, y) > 0.8
    lasso = LinearRegression(penalty="l1", C=0.1).fit(X, X[:, 0] * 3.0)
    assert np.count_nonzero(lasso.coef_) < X.shape[1]


def test_l1_with_hinge_is_refused(binary_data):
    X, y = binary_data
    with pytest.raises(ValueError, match="(?i)hinge"):
        SupportVectorMachine(penalty="l1").fit(X, y)


def test_svm_loss_is_checked(binary_data):
    X, y = binary_data
    with pytest.raises(ValueError, match="loss must be 'hinge' or 'squared_hinge'"):
        SupportVectorMachine(loss="log").fit(X, y)


def test_use_gpu_without_cuda_is_a_clear_error(binary_data):
    if _core.built_with_cuda:
        pytest.skip("this build has the CUDA backend")
    X, y = binary_data
    with pytest.raises(ValueError, match="(?i)cuda|gpu"):
        LogisticRegression(use_gpu=True).fit(X, y)


def test_regularizer_is_one_over_C(binary_data):
    X, y = binary_data
    a = LogisticRegression(C=4.0, random_state=0).fit(X, y)
    b = LogisticRegression(regularizer=0.25, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
