"""LinearRegression and Ridge on a 2-D y, as scikit-learn's: the shapes of coef_,
intercept_ and predict, and the values, on the same data.

Ours ravelled a y of shape (n, 1) and predicted shape (n,), so a user's
``y - model.predict(X)`` silently broadcast to an (n, n) array; a y of several
columns was refused. scikit-learn fits every column (multi-output regression);
ours fits one model per column.
"""

import numpy as np
import pytest
import sklearn.linear_model
from sklearn.datasets import load_diabetes

import snap_ml

PAIRS = {
    "LinearRegression": (sklearn.linear_model.LinearRegression, snap_ml.LinearRegression, {}),
    "Ridge": (sklearn.linear_model.Ridge, snap_ml.Ridge, {"alpha": 0.5}),
}


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    # Three targets of different scales: the disease score, a mix of it and a
    # feature, and the score shifted (each column its own fit and intercept).
    Y = np.column_stack([y, 0.3 * y + 50 * X[:, 2], y - 200.0])
    return X, Y


@pytest.mark.parametrize("name", sorted(PAIRS))
@pytest.mark.parametrize("columns", [None, 1, 3], ids=["1d", "n_by_1", "n_by_3"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_shapes_and_values_match_scikit_learn(diabetes, name, columns, fit_intercept):
    X, Y = diabetes
    y = Y[:, 0] if columns is None else Y[:, :columns]
    theirs_cls, ours_cls, parameters = PAIRS[name]
    theirs = theirs_cls(fit_intercept=fit_intercept, **parameters).fit(X, y)
    ours = ours_cls(fit_intercept=fit_intercept, **parameters).fit(X, y)
    assert np.shape(ours.coef_) == np.shape(theirs.coef_)
    assert np.shape(ours.intercept_) == np.shape(theirs.intercept_)
    assert ours.predict(X).shape == theirs.predict(X).shape
    # The user's residuals: (n,) or (n, k), never (n, n).
    assert (y - ours.predict(X)).shape == (y - theirs.predict(X)).shape
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-5, atol=1e-6 * np.abs(theirs.coef_).max())
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-5, atol=1e-4)
    assert ours.score(X, y) == pytest.approx(theirs.score(X, y), abs=1e-7)


def test_a_model_of_several_targets_refuses_a_model_file_clearly(diabetes, tmp_path):
    X, Y = diabetes
    model = snap_ml.LinearRegression().fit(X, Y)
    with pytest.raises(ValueError, match="3 targets .* pickle the estimator"):
        model.save_model(tmp_path / "three.model")
    # One column: the file holds it, and the loaded model predicts the same values.
    single = snap_ml.LinearRegression().fit(X, Y[:, :1])
    single.save_model(tmp_path / "one.model")
    np.testing.assert_allclose(snap_ml.load_model(tmp_path / "one.model").predict(X), single.predict(X)[:, 0],
                               rtol=1e-6)
