"""Which of scikit-learn's common estimator checks an estimator is expected to fail.

scikit-learn 1.9 has no tag that declares a check exact only to a solver's
tolerance; its own estimators list theirs in its test suite
(``PER_ESTIMATOR_XFAIL_CHECKS``) and third parties pass them to ``check_estimator``
and ``parametrize_with_checks`` as ``expected_failed_checks``. This is that list
for snap_ml, shipped with the package:

    check_estimator(model, expected_failed_checks=snap_ml.expected_failed_checks(model))

Every estimator trained by the Newton solver or coordinate descent (the defaults
of ``LogisticRegression``, ``LinearSVC``, ``LinearRegression`` and ``Ridge``) passes
every check, and so does ``LogisticRegressionCV()``, multinomial or one-vs-rest (its
refits by the Newton solver's Cholesky steps land within rounding of the optimum on
weighted and on repeated rows alike). Dual coordinate ascent (SDCA: ``SupportVectorMachine``, the hinge loss,
``solver="dual"``, ``dual=True``) visits rows in a random order, so a fit on
repeated rows and one on integer weights stop at different points within the
duality-gap certificate, which bounds the coefficients' error by sqrt(2 tol P(w)),
not rtol=1e-7; scikit-learn's ``LinearSVC()`` fails the same two checks for the
same reason (liblinear's dual solver).
"""

from . import _core

_SDCA_REASON = (
    "dual coordinate ascent stops on a duality-gap certificate: weighted and repeated "
    "fits agree within sqrt(2 * tol * P(w)), not rtol=1e-7 (as scikit-learn's "
    "LinearSVC(dual=True))"
)
_SDCA_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": _SDCA_REASON,
    "check_sample_weight_equivalence_on_sparse_data": _SDCA_REASON,
}


def expected_failed_checks(estimator):
    """{check name: reason} of the scikit-learn checks ``estimator`` fails as configured."""
    # The core's plan (solver auto trains the checks' small sets by the Newton
    # solver's Cholesky steps).
    plan = _core.plan(**estimator._resolve().core_keywords())
    return dict(_SDCA_FAILURES) if plan["algorithm"] == "sdca" else {}
