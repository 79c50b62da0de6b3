"""The elastic net from Python: LogisticRegression(penalty="elasticnet",
l1_ratio=..., solver="saga") trains scikit-learn's problem (by newGLMNET,
snapml/src/l1/glmnet_cpu.cpp, the core's plan) and gives scikit-learn's answer:
its saga run to convergence."""

import warnings

import numpy as np
import pytest
import sklearn.linear_model
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

import snap_ml


def objective(coef, X, y, C, l1_ratio):
    """scikit-learn's elastic-net logistic objective (labels 0/1, no intercept)."""
    margins = (2 * y - 1) * (X @ coef.ravel())
    return (C * np.sum(np.logaddexp(0, -margins)) + l1_ratio * np.abs(coef).sum()
            + 0.5 * (1 - l1_ratio) * np.sum(coef ** 2))


@pytest.mark.parametrize("l1_ratio, C", [(0.5, 0.1), (0.2, 1.0), (0.8, 0.05)])
def test_elastic_net_matches_sklearn_saga_run_to_convergence(l1_ratio, C):
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    theirs = sklearn.linear_model.LogisticRegression(
        penalty="elasticnet", l1_ratio=l1_ratio, C=C, solver="saga", fit_intercept=False, tol=1e-12,
        max_iter=100000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (ConvergenceWarning, FutureWarning, UserWarning))
        theirs.fit(X, y)
    ours = snap_ml.LogisticRegression(penalty="elasticnet", l1_ratio=l1_ratio, C=C, solver="saga",
                                      fit_intercept=False, tol=1e-10, max_iter=10000).fit(X, y)
    assert ours.solver_plan_["algorithm"] == "glmnet"
    ours_objective = objective(ours.coef_, X, y, C, l1_ratio)
    theirs_objective = objective(theirs.coef_, X, y, C, l1_ratio)
    assert ours_objective <= theirs_objective * (1 + 1e-8)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-4)
    # The same features are left out (the L1 part's zeros).
    assert np.array_equal(np.abs(ours.coef_) < 1e-8, np.abs(theirs.coef_) < 1e-6)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_elastic_net_with_a_free_intercept_says_what_to_do():
    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match=r"elastic net with solver='saga' leaves the intercept free.*fit_intercept=False"):
        snap_ml.LogisticRegression(penalty="elasticnet", l1_ratio=0.5, solver="saga").fit(X, y)
