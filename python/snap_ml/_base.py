"""Logic shared by every snap_ml estimator: parameters, fit through the core,
the fitted attributes, the training history and predictions.

An estimator subclass says which loss it trains (``_loss``) and adds its own
parameters; everything else lives here and in ``_classifier.py``.
"""

import contextlib
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _core, _distributed
from ._data import check_sample_weight, to_core
from ._params import (
    check_device_options,
    check_penalty,
    check_positive,
    resolve_C,
    resolve_seed,
    resolve_threads,
)

# What fit and predict accept: dense float32/float64 (C or F order, memmaps too)
# and scipy CSR/CSC/COO; other numeric dtypes are converted to float64 first.
_ACCEPT_SPARSE = ("csr", "csc", "coo")
_DTYPES = (np.float64, np.float32)


class SnapLinearModel(BaseEstimator):
    """Base of the snap_ml estimators; not meant to be used directly."""

    # The core's loss name ("logistic", "hinge", "squared_hinge", "squared").
    _loss = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ---- parameters -------------------------------------------------------------

    def _core_parameters(self):
        """Check the common hyper-parameters and return them as the core's keywords."""
        check_penalty(self.penalty)
        check_positive("tol", self.tol)
        check_positive("max_iter", self.max_iter, integer=True)
        if self.fit_intercept not in (True, False):
            raise ValueError(f"fit_intercept must be True or False, got {self.fit_intercept!r}")
        if self.fit_intercept:
            check_positive("intercept_scaling", self.intercept_scaling)
        device_ids = check_device_options(
            self.use_gpu, self.device_ids, self.max_memory, self.max_gpu_memory
        )
        return dict(
            loss=self._loss_name(),
            penalty=self.penalty,
            C=resolve_C(self.C, self.regularizer),
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            fit_intercept=bool(self.fit_intercept),
            intercept_scaling=float(self.intercept_scaling) if self.fit_intercept else 1.0,
            threads=resolve_threads(self.n_jobs),
            seed=resolve_seed(self.random_state),
            use_gpu=bool(self.use_gpu),
            device_ids=device_ids,
            verbose=bool(self.verbose),
        )

    def _loss_name(self):
        return self._loss

    # ---- fitting ------------------------------------------------------------------

    def _validate_X_y(self, X, y, y_numeric):
        return validate_data(
            self,
            X,
            y,
            accept_sparse=_ACCEPT_SPARSE,
            accept_large_sparse=True,
            dtype=_DTYPES,
            y_numeric=y_numeric,
            multi_output=False,
        )

    def _train(self, X, labels, sample_weight, warm_model=None, class_weight=None,
               balanced=False, epsilon=0.0, distributed=False):
        """Fit through the core and set the fitted attributes.

        Parameters
        ----------
        X : validated ndarray or sparse matrix
        labels : ndarray of float64
            Class indices 0..K-1 (classifiers) or targets (regression).
        sample_weight : ndarray or None
        warm_model : _core.Model or None
            The starting point when ``warm_start`` applies.
        class_weight : dict of {class index: weight} or None
        balanced : bool
            scikit-learn's ``class_weight="balanced"``.
        epsilon : float
            The squared loss's insensitive zone.
        distributed : bool
            Train as one rank of ``mpirun`` on this rank's rows (``_distributed``);
            ``n_features_in_`` becomes the largest over the ranks.

        Returns
        -------
        _core.Model
        """
        parameters = self._core_parameters()
        with _distributed.agreed_checks() if distributed else contextlib.nullcontext():
            sample_weight = check_sample_weight(sample_weight, X.shape[0])
            data = to_core(X, labels, sample_weight)
        train = _distributed.train if distributed else _core.train
        model, fits = train(
            x=data,
            class_weight=class_weight or {},
            balanced=balanced,
            epsilon=float(epsilon),
            warm_start=warm_model,
            **parameters,
        )
        self.training_history_ = [
            {key: fit[key] for key in ("epoch", "time", "primal", "dual", "gap")} for fit in fits
        ]
        self._n_iter = np.array([fit["n_iter"] for fit in fits], dtype=np.int32)
        if not all(fit["converged"] for fit in fits):
            self._warn_not_converged()
        if distributed:
            self.n_features_in_ = int(model.n_features)
        return model

    def _warn_not_converged(self):
        gaps = [
            history["gap"][-1] / max(abs(history["primal"][-1]), np.finfo(float).tiny)
            for history in self.training_history_
            if len(history["gap"])
        ]
        worst = max(gaps) if gaps else float("nan")
        warnings.warn(
            f"SDCA stopped at max_iter={self.max_iter} epochs with a relative duality gap "
            f"of {worst:.2e}, above tol={self.tol}; increase max_iter (or tol) to converge",
            ConvergenceWarning,
        )

    def _warm_model(self, n_outputs, n_features, classes=None):
        """The previous fit as a core model when warm_start applies, else None."""
        if not self.warm_start or not hasattr(self, "coef_"):
            return None
        coef = np.atleast_2d(self.coef_)
        if coef.shape != (n_outputs, n_features):
            return None
        model = _core.Model()
        model.loss = self._loss_name()
        model.n_features = n_features
        model.coef = np.ascontiguousarray(coef, dtype=np.float64).ravel()
        model.intercept = np.atleast_1d(np.asarray(self.intercept_, dtype=np.float64))
        model.intercept_scaling = float(self.intercept_scaling) if self.fit_intercept else 0.0
        if classes is not None:
            model.classes = np.arange(len(classes), dtype=np.float64)
        model.check()
        return model

    # ---- prediction -------------------------------------------------------------

    def _scores(self, X):
        """w.x + intercept for every row and output: shape (n_samples, n_outputs)."""
        check_is_fitted(self, "coef_")
        X = validate_data(
            self, X, accept_sparse=_ACCEPT_SPARSE, accept_large_sparse=True, dtype=_DTYPES,
            reset=False,
        )
        coef = np.atleast_2d(self.coef_)
        return safe_sparse_dot(X, coef.T, dense_output=True) + np.atleast_1d(self.intercept_)

    # ---- model files --------------------------------------------------------------

    def save_model(self, path, format="snapml"):
        """Write the fitted model to a file that ``snap-predict`` and ``load_model`` read.

        Parameters
        ----------
        path : str or os.PathLike
            Destination; written atomically (a temporary file renamed into place).
        format : {"snapml", "liblinear"}, default="snapml"
            snapml's own text format (every number round-trips exactly) or
            LIBLINEAR's model format (needs integer class labels).
        """
        from ._model_io import to_core_model

        model = to_core_model(self)
        if format == "snapml":
            model.save(str(path))
        elif format == "liblinear":
            model.save_liblinear(str(path))
        else:
            raise ValueError(f"format must be 'snapml' or 'liblinear', got {format!r}")
