"""Model files shared with the command-line tools: estimators to and from the
core's ``Model`` (snapml's text format and LIBLINEAR's)."""

import numpy as np

from . import _core

_FORMATS = ("auto", "snapml", "liblinear")


def to_core_model(estimator):
    """The fitted estimator as a ``_core.Model`` (for ``save_model``).

    Raises ValueError when the estimator is not fitted, or when its classes are not
    numbers (model files store numeric labels; pickle such an estimator instead).
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "coef_")
    model = _core.Model()
    model.loss = estimator._loss_name()
    coef = np.atleast_2d(np.asarray(estimator.coef_, dtype=np.float64))
    model.n_features = coef.shape[1]
    model.coef = coef.ravel()
    model.intercept = np.atleast_1d(np.asarray(estimator.intercept_, dtype=np.float64))
    model.intercept_scaling = float(estimator.intercept_scaling) if estimator.fit_intercept else 0.0
    model.C = 1.0 / estimator.regularizer if estimator.regularizer is not None else float(estimator.C)
    model.tol = float(estimator.tol)
    model.max_iter = int(estimator.max_iter)
    if hasattr(estimator, "classes_"):
        classes = estimator.classes_
        if classes.dtype.kind not in "biuf":
            raise ValueError(
                f"model files store numeric class labels; this model's classes are {list(classes)}. "
                "Pickle the estimator instead, or fit on numeric labels"
            )
        model.classes = classes.astype(np.float64)
        model.class_weight = np.ones(len(classes))
    else:
        model.epsilon = float(getattr(estimator, "epsilon", 0.0))
    model.check()
    return model


def _read(path, format):
    if format not in _FORMATS:
        raise ValueError(f"format must be one of {_FORMATS}, got {format!r}")
    if format == "snapml":
        return _core.Model.load(path)
    if format == "liblinear":
        return _core.Model.load_liblinear(path)
    with open(path, "rb") as f:
        first = f.readline()
    if first.startswith(b"solver_type"):
        return _core.Model.load_liblinear(path)
    return _core.Model.load(path)


def load_model(path, format="auto"):
    """Load a model written by ``snap-train``, ``save_model`` or LIBLINEAR's ``train``.

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    format : {"auto", "snapml", "liblinear"}, default="auto"
        "auto" recognises LIBLINEAR's files by their first line (``solver_type``).

    Returns
    -------
    estimator : LogisticRegression, SupportVectorMachine or LinearRegression
        A fitted estimator of the model's loss, with ``coef_``, ``intercept_``,
        ``classes_`` and the hyper-parameters the file records; ``predict`` and
        ``save_model`` work at once, and ``fit`` retrains with those parameters.
    """
    from .linear_model import LinearRegression, LogisticRegression, SupportVectorMachine

    model = _read(str(path), format)
    fit_intercept = model.intercept_scaling > 0
    common = dict(
        C=model.C if model.C > 0 else 1.0,
        tol=model.tol if model.tol > 0 else 1e-3,
        max_iter=model.max_iter if model.max_iter > 0 else 1000,
        fit_intercept=fit_intercept,
        intercept_scaling=model.intercept_scaling if fit_intercept else 1.0,
    )
    coef = model.coef
    if model.loss == "squared":
        estimator = LinearRegression(epsilon=model.epsilon, **common)
        estimator.coef_ = coef[0]
        estimator.intercept_ = float(model.intercept[0])
        estimator.n_iter_ = 0
    else:
        if model.loss == "logistic":
            estimator = LogisticRegression(**common)
        else:
            estimator = SupportVectorMachine(loss=model.loss, **common)
        weights = model.class_weight
        if len(weights) and not np.all(weights == 1.0):
            estimator.class_weight = dict(zip(model.classes.tolist(), weights.tolist()))
        estimator.classes_ = model.classes
        estimator.coef_ = coef
        estimator.intercept_ = model.intercept
        estimator.n_iter_ = np.zeros(coef.shape[0], dtype=np.int32)
    estimator.n_features_in_ = int(model.n_features)
    estimator.training_history_ = []
    return estimator
