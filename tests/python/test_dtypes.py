"""The dtypes of the fitted weights and of the predictions, as scikit-learn 1.9's,
for every snap_ml estimator with a scikit-learn counterpart, on float32 and
float64 X, dense and sparse.

scikit-learn keeps float32 where its solver computes in X's dtype
(LogisticRegression but liblinear, LinearRegression, Ridge) and gives float64
where it does not (liblinear: LinearSVC and LogisticRegression(solver=
"liblinear"); LogisticRegressionCV converts X to float64). Ours gave float64
everywhere. SupportVectorMachine (Snap ML's) has no counterpart: float64.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.linear_model
import sklearn.svm
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.preprocessing import StandardScaler

import snap_ml


def _classification(multiclass):
    X, y = load_iris(return_X_y=True) if multiclass else load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _regression(columns):
    X, y = load_diabetes(return_X_y=True)
    return X, (y if columns is None else np.column_stack([y, -y, 2 * y])[:, :columns])


# (id, estimator name, parameters, data)
CASES = [
    ("LogisticRegression", "LogisticRegression", {}, lambda: _classification(False)),
    ("LogisticRegression-multinomial", "LogisticRegression", {}, lambda: _classification(True)),
    ("LogisticRegression-liblinear", "LogisticRegression", {"solver": "liblinear"}, lambda: _classification(False)),
    ("LogisticRegression-saga-elasticnet", "LogisticRegression",
     {"solver": "saga", "penalty": "elasticnet", "l1_ratio": 0.5}, lambda: _classification(False)),
    ("LogisticRegressionCV", "LogisticRegressionCV",
     {"Cs": 3, "cv": 3, "l1_ratios": (0,), "use_legacy_attributes": False}, lambda: _classification(False)),
    ("LinearSVC", "LinearSVC", {}, lambda: _classification(False)),
    ("LinearRegression", "LinearRegression", {}, lambda: _regression(None)),
    ("LinearRegression-2d-y", "LinearRegression", {}, lambda: _regression(3)),
    ("Ridge", "Ridge", {}, lambda: _regression(None)),
    ("Ridge-n-by-1-y", "Ridge", {"solver": "lsqr"}, lambda: _regression(1)),
]
SKLEARN = {"LinearSVC": sklearn.svm.LinearSVC}
FLOATS = {"float32": lambda X: X.astype(np.float32), "float32-csr": lambda X: sp.csr_matrix(X.astype(np.float32)),
          "float64": lambda X: X.astype(np.float64)}


def dtypes(estimator, X, y):
    """The dtypes a user sees: coef_, intercept_ and each prediction method's output."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence at the defaults
        estimator.fit(X, y)
    seen = {"coef_": estimator.coef_.dtype, "intercept_": np.asarray(estimator.intercept_).dtype}
    for method in ("predict", "predict_proba", "decision_function"):
        if hasattr(estimator, method):
            seen[method] = getattr(estimator, method)(X).dtype
    return seen


@pytest.mark.parametrize("x_type", sorted(FLOATS))
@pytest.mark.parametrize("name, estimator, parameters, data", CASES, ids=[case[0] for case in CASES])
def test_dtypes_are_scikit_learns(name, estimator, parameters, data, x_type):
    X, y = data()
    X = FLOATS[x_type](X)
    theirs_cls = SKLEARN.get(estimator, getattr(sklearn.linear_model, estimator, None))
    ours = dtypes(getattr(snap_ml, estimator)(**parameters), X, y)
    theirs = dtypes(theirs_cls(**parameters), X, y)
    assert ours == theirs
