"""Model files shared with the command-line tools: estimators to and from the
core's ``Model`` (snapml's text format and LIBLINEAR's)."""

import os

import numpy as np

from . import _core
from ._registry import estimator_class_of

_FORMATS = ("auto", "snapml", "liblinear")


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
        estimator.n_iter_ = estimator._fitted_n_iter(np.zeros(coef.shape[0], dtype=np.int32))
    estimator.n_features_in_ = int(model.n_features)
    estimator._problem_ = estimator._resolve()
    estimator.training_history_ = []
    return estimator
