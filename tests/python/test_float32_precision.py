"""Features are stored in float32 (docs/python.md, "Inputs"): a float64 column (dense,
or sparse and stored in every row) whose variation float32 blurs gets a warning naming it, where its signal was lost
without a word (a Unix timestamp column: R^2 0.002 against scikit-learn's 0.99)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import snap_ml


def timestamps(offset, rows=400, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0.0, 1.0, rows)
    X = np.column_stack([offset + t, rng.normal(size=rows)])
    return X, 3.0 * t + 0.1 * rng.normal(size=rows)


def test_a_column_float32_blurs_is_named():
    X, y = timestamps(1.7e9)
    with pytest.warns(UserWarning, match=r"X's column 0 \(values 1700000000.* lose their variation in float32"):
        snap_ml.LinearRegression().fit(X, y)


@pytest.mark.parametrize("offset", [0.0, 1e3])
def test_columns_float32_keeps_are_not_warned_about(offset):
    X, y = timestamps(offset)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        snap_ml.LinearRegression().fit(X, y)
    # float32 given: nothing lost in the conversion, so no word of it (the fit
    # itself may warn that it stops short of tol: the column's 1.7e9 beside the
    # intercept is beyond double precision for the solver, a ConvergenceWarning).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        snap_ml.LinearRegression().fit(timestamps(1.7e9)[0].astype(np.float32), y)
    assert not [w for w in caught if "float32" in str(w.message)], [str(w.message) for w in caught]


def test_a_sparse_column_float32_blurs_is_named():
    # A one-hot encoding beside a timestamp column, as a ColumnTransformer gives:
    # sparse, the timestamp stored in every row.
    X, y = timestamps(1.7e9)
    categories = np.eye(3)[np.arange(X.shape[0]) % 3]
    sparse = sp.hstack([sp.csr_matrix(categories), sp.csr_matrix(X)]).tocsr()
    with pytest.warns(UserWarning, match=r"X's column 3 \(values 1700000000.* lose their variation in float32"):
        snap_ml.LinearRegression().fit(sparse, y)
    # Each row's columns in descending order (a fit takes such rows as they are).
    reversed_rows = sp.csr_matrix(
        (sparse.data.reshape(-1, 3)[:, ::-1].ravel(), sparse.indices.reshape(-1, 3)[:, ::-1].ravel(), sparse.indptr),
        shape=sparse.shape)
    assert not reversed_rows.has_sorted_indices
    with pytest.warns(UserWarning, match=r"X's column 3 \(values 1700000000.* lose their variation in float32"):
        snap_ml.LinearRegression().fit(reversed_rows, y)
    # The same column with an implicit zero spreads from 0: nothing blurs, no word.
    holed = sparse.tolil()
    holed[0, 3] = 0.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        snap_ml.LinearRegression().fit(holed.tocsr(), y)
    assert not [w for w in caught if "float32" in str(w.message)], [str(w.message) for w in caught]


def test_a_sparse_column_is_checked_in_every_row():
    # 5,000 rows: the candidates from the 32 sampled rows are checked in blocks of
    # rows (1,024, then doubling); row 4,001 is in the last block, not the sample.
    X, y = timestamps(1.7e9, rows=5000)
    categories = np.eye(3)[np.arange(X.shape[0]) % 3]
    sparse = sp.hstack([sp.csr_matrix(categories), sp.csr_matrix(X)]).tocsr()
    with pytest.warns(UserWarning, match=r"X's column 3 \(values 1700000000.* lose their variation in float32"):
        snap_ml.LinearRegression().fit(sparse, y)
    holed = sparse.tolil()
    holed[4001, 3] = 0.0
    holed = holed.tocsr()
    holed.eliminate_zeros()
    assert holed[:, 3].nnz == X.shape[0] - 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        snap_ml.LinearRegression().fit(holed, y)
    assert not [w for w in caught if "float32" in str(w.message)], [str(w.message) for w in caught]
