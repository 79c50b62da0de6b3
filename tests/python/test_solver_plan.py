"""Which solver trains each estimator configuration docs/python.md lists, on
which device, and why: the core's plan (snapml/solver_factory.h, plan_solver;
``_core.plan``), shown as the fitted ``solver_plan_``. No Python module decides a
solver or a device: the estimators translate scikit-learn's names into the
problem and the algorithm asked for, and the core answers."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

import snap_ml
from snap_ml import _core

LR, SVC, SVM = snap_ml.LogisticRegression, snap_ml.LinearSVC, snap_ml.SupportVectorMachine

# (configuration, the core's algorithm on the CPU, on the GPU: an algorithm, or
# the start of the refusal). docs/python.md, "Estimators", in its order.
CONFIGURATIONS = [
    (LR(), "auto", "newton"),
    (LR(solver="lbfgs"), "newton", "newton"),
    (LR(solver="newton-cg"), "newton", "newton"),
    (LR(solver="newton-cholesky"), "newton", "newton"),
    (LR(solver="sag"), "newton", "newton"),
    (LR(solver="saga"), "newton", "newton"),
    (LR(solver="liblinear"), "newton", "newton"),
    (LR(solver="liblinear", dual=True), "sdca", "newton"),
    (LR(penalty="l1", solver="liblinear"), "glmnet", "the L1 solvers are CPU-only"),
    (LR(l1_ratio=1.0, solver="liblinear"), "glmnet", "the L1 solvers are CPU-only"),
    (LR(solver="saga", penalty="l1", fit_intercept=False), "glmnet", "the L1 solvers are CPU-only"),
    (LR(solver="saga", penalty="l1"), "glmnet", "the L1 solvers are CPU-only"),
    (LR(penalty=None), "auto", "newton"),
    (LR(C=np.inf), "auto", "newton"),
    (LR(penalty="elasticnet", l1_ratio=0.5, solver="saga", fit_intercept=False), "glmnet",
     "the L1 solvers are CPU-only"),
    (LR(penalty="elasticnet", l1_ratio=0.5, solver="saga"), "glmnet", "the L1 solvers are CPU-only"),
    (LR(solver="dual"), "sdca", "newton"),
    (LR(solver="primal"), "newton", "newton"),
    (snap_ml.LogisticRegressionCV(), "auto", "newton"),
    (SVC(), "newton", "newton"),
    (SVC(dual=True), "sdca", "newton"),
    (SVC(dual=False), "newton", "newton"),
    (SVC(loss="hinge"), "sdca", "the hinge loss trains by dual coordinate ascent only"),
    (SVC(penalty="l1", dual=False), "cd", "the L1 solvers are CPU-only"),
    (SVM(), "sdca", "the hinge loss trains by dual coordinate ascent only"),
    (SVM(loss="squared_hinge"), "sdca", "newton"),
    (snap_ml.LinearRegression(), "newton", "newton"),
    (snap_ml.LinearRegression(penalty="l2", epsilon=0.1), "sdca", "newton"),
    (snap_ml.LinearRegression(penalty="l1"), "glmnet", "the L1 solvers are CPU-only"),
    (snap_ml.Ridge(alpha=2.0), "newton", "newton"),
    (snap_ml.Ridge(alpha=0.0), "newton", "newton"),
]


def _data(estimator):
    if isinstance(estimator, snap_ml.LinearRegression) or isinstance(estimator, snap_ml.Ridge):
        return make_regression(n_samples=120, n_features=6, noise=1.0, random_state=0)
    return make_classification(n_samples=120, n_features=6, random_state=0)


@pytest.mark.parametrize("estimator, cpu, gpu", CONFIGURATIONS, ids=[repr(c[0]) for c in CONFIGURATIONS])
def test_the_core_plans_every_listed_configuration(estimator, cpu, gpu):
    parameters = estimator._core_parameters()
    if parameters["loss"] == "multinomial":
        # Asked before the data: the multinomial model of more than two classes,
        # which only the Newton solver trains; two classes are the logistic loss's
        # problem, by the solver asked for (as the fit below).
        assert _core.plan(**parameters)["algorithm"] == "newton"
        parameters["loss"] = "logistic"
    planned = _core.plan(**parameters)
    assert planned["algorithm"] == cpu and planned["device"] == "cpu", planned
    assert planned["reason"]
    # On the GPU (asked of the core without a device: the plan comes first).
    on_gpu = dict(parameters, use_gpu=True)
    if gpu in ("newton", "sdca"):
        assert _core.plan(**on_gpu) == dict(_core.plan(**on_gpu), algorithm=gpu, device="gpu")
    else:
        with pytest.raises(ValueError, match=gpu):
            _core.plan(**on_gpu)
    # The fitted estimator shows the plan it was trained by.
    X, y = _data(estimator)
    fitted = estimator.fit(X, y)
    assert fitted.solver_plan_ == planned
