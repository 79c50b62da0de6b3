"""A fitted estimator as the core's ``Model``, the one form model files are
written from. Imports no estimator module: every estimator's ``save_model``
calls it."""

import numpy as np
from sklearn.utils.validation import check_is_fitted


def to_core_model(estimator):
    """The fitted estimator as a ``_core.Model`` (for ``save_model``).

    Raises ValueError when the estimator is not fitted, or when its classes are not
    numbers (model files store numeric labels; pickle such an estimator instead).
    """
    check_is_fitted(estimator, "coef_")
    classes = getattr(estimator, "classes_", None)
    if classes is not None and classes.dtype.kind not in "biuf":
        raise ValueError(
            f"model files store numeric class labels; this model's classes are {list(classes)}. "
            "Pickle the estimator instead, or fit on numeric labels"
        )
    model = estimator._core_model(classes)
    # The estimator's own problem (C, 1/regularizer, Ridge's 1/(2 alpha)): LinearSVC
    # and Ridge have no ``regularizer`` (an AttributeError, issue 36 case 11).
    problem = estimator._resolve()
    model.C = float(problem.C)
    model.tol = float(estimator.tol)
    model.max_iter = int(problem.max_iter)  # Ridge: None is 1000
    if classes is not None:
        model.class_weight = np.ones(len(classes))
    else:
        model.epsilon = float(getattr(estimator, "epsilon", 0.0))
    model.check()
    return model
