"""LinearRegression where the least-squares fit is not unique, as scikit-learn's:
fewer rows than features, a duplicated column, a one-hot encoding with every
category beside the intercept. scikit-learn returns the solution of least norm
(lstsq of the centred data; lsqr for sparse input), the intercept outside the
norm; so does ours (newton_direct.cpp, least_norm_newton in
line_search_steps.cpp). Before, the trust region's preconditioned steps left
the rows' span: on 20 x 200 the coefficients' norm was 1.063 against 1.057 and
predictions on new rows 0.54 apart, without a word.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.linear_model

import snap_ml


def _wide(rows, features, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, features)) + 3.0
    y = X[:, :5] @ rng.normal(size=5) + 3.0 + rng.normal(size=rows)
    X_new = rng.normal(size=(30, features)) + 3.0
    return X, y, X_new, rng.uniform(0.5, 2.0, size=rows)


def _one_hot(seed):
    # A numeric column, its duplicate, and a category one-hot encoded in full:
    # its columns sum to 1, the intercept's column.
    rng = np.random.default_rng(seed)
    rows = 300
    a = rng.normal(size=rows)
    category = rng.integers(0, 4, size=rows)
    X = np.column_stack([a, a, np.eye(4)[category]])
    y = 2.0 * a + np.array([0.7, -0.2, 1.5, 0.0])[category] + 0.1 * rng.normal(size=rows)
    new_category = rng.integers(0, 4, size=30)
    X_new = np.column_stack([rng.normal(size=30), rng.normal(size=30), np.eye(4)[new_category]])
    return X, y, X_new, rng.uniform(0.5, 2.0, size=rows)


# Within the direct step's width (1024 weights) and past it (plain CG).
CASES = {
    "20x200": lambda: _wide(20, 200, 0),
    "50x1500": lambda: _wide(50, 1500, 1),
    "one-hot": lambda: _one_hot(2),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_an_underdetermined_least_squares_fit_is_scikit_learns_least_norm_fit(case, fit_intercept, sparse):
    X, y, X_new, weights = CASES[case]()
    data = sp.csr_matrix(X) if sparse else X
    theirs = sklearn.linear_model.LinearRegression(fit_intercept=fit_intercept).fit(data, y, sample_weight=weights)
    ours = snap_ml.LinearRegression(fit_intercept=fit_intercept).fit(data, y, sample_weight=weights)
    # Our core holds X in float32 (scikit-learn's lsqr, on sparse input, stops at
    # its own tolerance): agreement to ~1e-5 of the coefficients' scale.
    scale = 1.0 + np.linalg.norm(theirs.coef_)
    assert np.linalg.norm(ours.coef_) == pytest.approx(np.linalg.norm(theirs.coef_), rel=1e-5)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-5 * scale)
    np.testing.assert_allclose(ours.predict(X_new), theirs.predict(X_new), atol=1e-4 * (1.0 + np.abs(y).max()))
