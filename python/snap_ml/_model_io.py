"""Model files shared with the command-line tools: estimators to and from the
core's ``Model`` (snapml's text format and LIBLINEAR's)."""

import os

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
    classes = getattr(estimator, "classes_", None)
    if classes is not None and classes.dtype.kind not in "biuf":
        raise ValueError(
            f"model files store numeric class labels; this model's classes are {list(classes)}. "
            "Pickle the estimator instead, or fit on numeric labels"
        )
    model = estimator._core_model(classes)
    # The estimator's own rule (C, 1/regularizer, Ridge's 1/(2 alpha)): LinearSVC
    # and Ridge have no ``regularizer`` (an AttributeError, issue 36 case 11).
    model.C = float(estimator._core_C())
    model.tol = float(estimator.tol)
    model.max_iter = int(estimator._max_iter())  # Ridge: None is 1000
    if classes is not None:
        model.class_weight = np.ones(len(classes))
    else:
        model.epsilon = float(getattr(estimator, "epsilon", 0.0))
    model.check()
    return model


def estimator_class_of(loss):
    """The snap_ml estimator class that trains the core loss named ``loss``
    (one of ``_core.loss_names()``); ValueError when none does."""
    from .linear_model import LinearRegression, LogisticRegression, SupportVectorMachine

    matches = [cls for cls in (LogisticRegression, SupportVectorMachine, LinearRegression) if cls._trains(loss)]
    if len(matches) != 1:
        raise ValueError(f"no snap_ml estimator trains the {loss!r} loss")
    return matches[0]


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
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"path must be a file path (str or os.PathLike), got {path!r}")
    model = _read(os.fspath(path), format)
    fit_intercept = model.intercept_scaling > 0
    common = dict(
        C=model.C if model.C > 0 else 1.0,
        tol=model.tol if model.tol > 0 else 1e-3,
        max_iter=model.max_iter if model.max_iter > 0 else 1000,
        fit_intercept=fit_intercept,
        intercept_scaling=model.intercept_scaling if fit_intercept else 1.0,
    )
    coef = model.coef
    estimator_class = estimator_class_of(model.loss)
    if not _core.loss_traits(model.loss)["classification"]:
        estimator = estimator_class._for_loss(model.loss, epsilon=model.epsilon, **common)
        estimator.coef_ = coef[0]
        estimator.intercept_ = float(model.intercept[0])
        estimator.n_iter_ = 0
    else:
        estimator = estimator_class._for_loss(model.loss, **common)
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
