"""scikit-learn's common estimator checks over every snap_ml estimator, with the
expected failures the package itself declares (snap_ml.expected_failed_checks)."""

import pytest
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks

from snap_ml import (
    LinearRegression,
    LinearSVC,
    LogisticRegression,
    LogisticRegressionCV,
    Ridge,
    SupportVectorMachine,
    expected_failed_checks,
)

ESTIMATORS = [
    LogisticRegression(),
    LogisticRegression(solver="liblinear", dual=True),
    LinearSVC(),
    LinearSVC(loss="hinge"),
    SupportVectorMachine(),
    SupportVectorMachine(loss="squared_hinge"),
    LinearRegression(),
    Ridge(),
    LogisticRegressionCV(),
    LogisticRegressionCV(multi_class="ovr"),
    LogisticRegressionCV(tol=1e-8),
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", [LogisticRegression(), LinearSVC(), LinearRegression(), Ridge(),
                                       LogisticRegressionCV()],
                         ids=lambda e: type(e).__name__)
def test_plain_check_estimator_passes_on_the_sklearn_names(estimator):
    # The scikit-learn-named estimators as shipped: no expected failures at all.
    assert expected_failed_checks(estimator) == {}
    check_estimator(estimator)


def test_only_dual_coordinate_ascent_has_expected_failures():
    assert set(expected_failed_checks(SupportVectorMachine())) == {
        "check_sample_weight_equivalence_on_dense_data",
        "check_sample_weight_equivalence_on_sparse_data",
    }
    assert expected_failed_checks(LogisticRegression(solver="lbfgs")) == {}
    assert expected_failed_checks(LogisticRegression(solver="liblinear", dual=True)) != {}
