"""Multinomial (softmax) logistic regression through the core (_core.train with
loss="multinomial", the primal solver by L-BFGS) against scikit-learn's
LogisticRegression, whose default for more than two classes it is.

scikit-learn minimises mean_i s_i CE_i + ||W||^2 / (2 C sum_i s_i), the core
C sum_i s_i CE_i + ||W||^2 / 2: the same minimiser, objectives compared after
scaling. A subsample of news20.multiclass (its first rows, a fixed split) keeps
the test within a minute: scikit-learn's lbfgs on the whole set takes minutes.
"""

import re
import warnings

import numpy as np
import pytest

from conftest import int32_indices, load_dataset

ROWS = 3000
TRAIN = 2400


def objective(X, y_index, coef, intercept, C):
    """C sum_i CE_i + 0.5 ||coef||^2, intercepts free (scikit-learn's problem)."""
    scores = X @ coef.T + intercept
    top = scores.max(axis=1, keepdims=True)
    log_normaliser = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
    cross_entropy = log_normaliser - scores[np.arange(len(y_index)), y_index]
    return C * cross_entropy.sum() + 0.5 * (coef * coef).sum()


@pytest.fixture(scope="module")
def news20_subset():
    X, y = load_dataset("news20.multiclass")
    X = int32_indices(X[:ROWS])
    return X[:TRAIN], y[:TRAIN], X[TRAIN:], y[TRAIN:]


def test_news20_matches_scikit_learns_multinomial(news20_subset):
    from sklearn.linear_model import LogisticRegression

    from snap_ml import _core
    from snap_ml._data import to_core

    X, y, X_test, y_test = news20_subset
    C = 1.0
    reference = LogisticRegression(C=C, tol=1e-10, max_iter=20000).fit(X, y)
    model, fits = _core.train(to_core(X, y), loss="multinomial", penalty="l2", C=C, tol=1e-9, max_iter=1000,
                              fit_intercept=True, intercept_scaling=1.0, class_weight={}, balanced_class_weight=False,
                              epsilon=0.0, threads=2, seed=0, use_gpu=False, device_ids=[], warm_start=None,
                              verbose=False, solver="primal", penalise_intercept=False)
    assert model.loss == "multinomial"
    assert len(fits) == 1 and fits[0]["converged"]
    # L-BFGS (the primal solver's method for this loss): two passes over the rows an
    # iteration, the line search reading none, and 152 iterations when measured; the
    # trust-region method took over 500 on these rows (docs/benchmarks/primal.md).
    assert fits[0]["data_passes"] == 2 * fits[0]["n_iter"] + 3
    assert fits[0]["n_iter"] <= 250, fits[0]["n_iter"]
    classes = np.unique(y)
    np.testing.assert_array_equal(model.classes, classes)
    coef = np.asarray(model.coef).reshape(len(classes), -1)
    assert coef.shape == reference.coef_.shape
    y_index = np.searchsorted(classes, y)
    ours = objective(X, y_index, coef, np.asarray(model.intercept), C)
    theirs = objective(X, y_index, reference.coef_, reference.intercept_, C)
    # Within 1e-6 of scikit-learn's optimum, or below it.
    assert ours <= theirs * (1 + 1e-6), (ours, theirs)
    assert np.isclose(fits[0]["primal"][-1], ours, rtol=1e-9)
    # Predictions on the held-out rows, and the softmax probabilities.
    ours_predicted = classes[np.argmax(X_test @ coef.T + np.asarray(model.intercept), axis=1)]
    agreement = np.mean(ours_predicted == reference.predict(X_test))
    assert agreement >= 0.999, agreement
    probabilities = np.asarray(model.predict_proba(to_core(X_test))).reshape(X_test.shape[0], len(classes))
    np.testing.assert_allclose(probabilities, reference.predict_proba(X_test), atol=1e-4)


@pytest.mark.parametrize("penalty, rule", [("l2", r"relative duality gap of \S+, above the tol / 100 = 1e-06"),
                                           (None, r"before \|\|gradient\|\| fell to tol / 100 = 1e-06")])
def test_max_iter_warning_describes_the_multinomial_fit(penalty, rule):
    # At max_iter=3 scikit-learn's lbfgs and ours both stop short with a
    # ConvergenceWarning; ours spoke of SDCA epochs and Newton steps and of a
    # duality gap where the multinomial fit runs L-BFGS and, without a penalty,
    # stops on its gradient.
    from sklearn.datasets import load_iris
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression as SkLogisticRegression

    import snap_ml

    X, y = load_iris(return_X_y=True)
    for cls in (SkLogisticRegression, snap_ml.LogisticRegression):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cls(penalty=penalty, max_iter=3).fit(X, y)
        messages = [str(w.message) for w in caught if w.category is ConvergenceWarning]
        assert messages, cls
    assert len(messages) == 1
    assert "L-BFGS iterations of the multinomial fit" in messages[0]
    assert "epochs" not in messages[0] and "Newton" not in messages[0]
    assert re.search(rule, messages[0]), messages[0]


def test_a_binary_fit_at_max_iter_does_not_speak_of_the_multinomial_fit():
    # Two classes train the binary logistic loss whatever multi_class says (the
    # core's plan), so its warning is the binary fit's (epochs, Newton steps).
    from sklearn.datasets import load_breast_cancer
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler

    import snap_ml

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        snap_ml.LogisticRegression(max_iter=1, tol=1e-12).fit(X, y)
    messages = [str(w.message) for w in caught if w.category is ConvergenceWarning]
    assert len(messages) == 1, messages
    assert "multinomial" not in messages[0] and "Newton" in messages[0], messages[0]
