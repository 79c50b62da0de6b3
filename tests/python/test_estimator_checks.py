"""scikit-learn's common estimator checks over every snap_ml estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from snap_ml import LinearRegression, LogisticRegression, SupportVectorMachine

ESTIMATORS = [
    LogisticRegression(),
    SupportVectorMachine(),
    SupportVectorMachine(loss="squared_hinge"),
    LinearRegression(),
]

# Checks every estimator is expected to fail, with the reason.
#
# The sample-weight equivalence checks compare a fit with integer weights to a fit
# on repeated rows at rtol=1e-7. Both fits solve the same problem, but SDCA stops on
# a duality-gap certificate: P(w) - P(w*) <= tol * P(w), which (P being 1-strongly
# convex) bounds ||w - w*|| only by sqrt(2 * tol * P(w)). Even at tol=1e-12 the two
# fits differ in the 7th digit (measured: ~2e-7 relative), as liblinear-based
# LinearSVC and LogisticRegression do in scikit-learn's own suite, where these
# checks are expected failures too. test_training.py::
# test_integer_sample_weight_equals_repetition checks the equivalence within the
# certificate's bound instead.
_WEIGHT_REASON = (
    "SDCA stops on a duality-gap certificate; weighted and repeated fits agree within "
    "sqrt(2 * tol * P), not rtol=1e-7"
)
EXPECTED_FAILED_CHECKS = {
    "check_sample_weight_equivalence_on_dense_data": _WEIGHT_REASON,
    "check_sample_weight_equivalence_on_sparse_data": _WEIGHT_REASON,
}


def expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)
