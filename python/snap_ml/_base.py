"""Logic shared by every snap_ml estimator: parameters, fit through the core,
the fitted attributes, the training history and predictions.

An estimator subclass says which loss it trains (``_loss``) and adds its own
parameters; everything else lives here and in ``_classifier.py``.
"""

import contextlib
import os
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
    check_max_memory_for_arrays,
    check_penalty,
    check_positive,
    estimator_threads,
    resolve_C,
    resolve_seed,
)
from ._snap_file import is_path, open_snap, streaming_message
from ._solvers import problem

# What fit and predict accept: dense float32/float64 (C or F order, memmaps too)
# and scipy CSR/CSC/COO; other numeric dtypes are converted to float64 first. A
# str or os.PathLike is a .snap file instead (_snap_file.py).
_ACCEPT_SPARSE = ("csr", "csc", "coo")
_DTYPES = (np.float64, np.float32)


def requires_y(estimator):
    """The ValueError for ``fit(X)`` without y on arrays (scikit-learn's wording)."""
    return ValueError(
        f"{type(estimator).__name__} requires y to be passed, but the target y is None; pass "
        "y, or pass X as the path of a .snap file, which holds the labels"
    )


# The most epochs a fit may run: the core's int (snapml/solver.h, max_epochs).
_MAX_ITER = 2**31 - 1


class SnapLinearModel(BaseEstimator):
    """Base of the snap_ml estimators; not meant to be used directly."""

    # The core's loss name (one of _core.loss_names()).
    _loss = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ---- parameters -------------------------------------------------------------

    def _core_parameters(self, snap_file=False):
        """Check the common hyper-parameters and return them as the core's keywords.

        ``snap_file``: the data is a ``.snap`` path, the only input ``max_memory``
        applies to (arrays are already in memory).
        """
        check_positive("tol", self.tol)
        tol = self._tol()
        max_iter = self._max_iter()
        check_positive("max_iter", max_iter, integer=True)
        if max_iter > _MAX_ITER:
            # The core counts epochs in an int: pybind11 refused 10**12 with
            # "incompatible function arguments" (issue 36, case 12).
            raise ValueError(f"max_iter must be an integer in [1, {_MAX_ITER}], got {max_iter!r}")
        if self.fit_intercept not in (True, False):
            raise ValueError(f"fit_intercept must be True or False, got {self.fit_intercept!r}")
        intercept_scaling = getattr(self, "intercept_scaling", 1.0)
        if self.fit_intercept:
            check_positive("intercept_scaling", intercept_scaling)
        if not snap_file:
            check_max_memory_for_arrays(self.max_memory)
        use_gpu, device_ids, max_gpu_memory = check_device_options(
            self.use_gpu, self.device_ids, self.max_gpu_memory
        )
        return dict(
            loss=self._loss_name(),
            C=self._core_C(),
            tol=float(tol),
            max_iter=int(max_iter),
            fit_intercept=bool(self.fit_intercept),
            intercept_scaling=float(intercept_scaling) if self.fit_intercept else 1.0,
            threads=estimator_threads(self),
            seed=resolve_seed(self.random_state),
            use_gpu=use_gpu,
            device_ids=device_ids,
            max_gpu_memory=max_gpu_memory,
            **self._problem(use_gpu),
        )

    def _problem(self, use_gpu):
        """The core's penalty, solver and intercept convention (``_solvers.problem``).

        Snap ML's estimators: ``penalty`` "l2" (dual SDCA) or "l1", the intercept
        penalised as in LIBLINEAR. The scikit-learn-named estimators override this.
        """
        check_penalty(self.penalty)
        return problem(self.penalty, "dual", True)

    def _max_iter(self):
        return self.max_iter

    def _tol(self):
        """The core's tolerance (``tol``, unless the estimator solves to machine precision)."""
        return self.tol

    def _core_C(self):
        """The core's C (the loss's weight against 0.5 ||w||^2)."""
        return resolve_C(self.C, self.regularizer)

    def _penalty_name(self):
        """The core's penalty name, for the checks made before ``_core_parameters``."""
        return self._problem(False)["penalty"]

    def _loss_name(self):
        return self._loss

    @classmethod
    def _trains(cls, loss):
        """Whether this estimator trains the core loss named ``loss``."""
        return loss == cls._loss

    @classmethod
    def _for_loss(cls, loss, **parameters):
        """An unfitted estimator of ``loss`` (one ``_trains`` accepts)."""
        return cls(**parameters)

    # ---- fitting ------------------------------------------------------------------

    def _validate_X_y(self, X, y, y_numeric, allow_empty=False):
        # allow_empty: under mpirun a rank may hold no rows and still take part
        # (snap-train allows it: partition.h); it was refused.
        return validate_data(
            self,
            X,
            y,
            accept_sparse=_ACCEPT_SPARSE,
            accept_large_sparse=True,
            dtype=_DTYPES,
            y_numeric=y_numeric,
            multi_output=False,
            ensure_min_samples=0 if allow_empty else 1,
        )

    def _train(self, X, labels, sample_weight, warm_model=None, class_weight=None,
               balanced=False, epsilon=0.0, distributed=False, checkpoint=None):
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
        checkpoint : dict or None
            The core's checkpoint keywords (``_params.checkpoint_arguments``).

        Returns
        -------
        _core.Model
        """
        parameters = self._core_parameters()
        with _distributed.agreed_checks() if distributed else contextlib.nullcontext():
            sample_weight = check_sample_weight(sample_weight, X.shape[0])
            data = to_core(X, labels, sample_weight)
        model, fits = self._fit_core(data, parameters, warm_model, class_weight, balanced, epsilon,
                                     distributed, checkpoint)
        self._record_history(fits)
        self._data_source = "distributed" if distributed else "arrays"
        if distributed:
            self.n_features_in_ = int(model.n_features)
        return model

    def _train_file(self, X, y, sample_weight, warm_model=None, class_weight=None,
                    balanced=False, epsilon=0.0, checkpoint=None):
        """Fit on a ``.snap`` file (labels and weights from the file) and set the
        fitted attributes that do not depend on the estimator's kind.

        The file is memory-mapped when it fits ``max_memory`` (or without a budget)
        and streamed from disk otherwise (``_snap_file``, docs/out-of-core.md).

        Parameters
        ----------
        X : str or os.PathLike
        y, sample_weight : None
            Anything else raises ValueError: the file holds them.
        warm_model : _core.Model or None
            The previous fit, used only when its classes and feature count match
            the file's (checked by the binding, which reads the file's labels).
        class_weight : dict of {label: weight} or None
            Keyed by the file's label values.
        balanced, epsilon, checkpoint :
            As ``_train``.

        Returns
        -------
        _core.Model
        """
        # Distributed: every rank passes the same path and reads only its share of
        # the chunks, under its own max_memory (docs/distributed.md, "Python"); a
        # rank whose share cannot be opened fails every rank.
        distributed = _distributed.resolve_distributed(self.distributed, self._penalty_name())
        if distributed:
            _distributed.refuse_checkpoint(checkpoint)
            with _distributed.agreed_checks():
                file = open_snap(X, self.max_memory, y, sample_weight, *_distributed.mpi_world())
            _distributed.agree_file(X)
        else:
            file = open_snap(X, self.max_memory, y, sample_weight)
        parameters = self._core_parameters(snap_file=True)
        if self.verbose and file.streamed:
            print(streaming_message(file), flush=True)
        model, fits = self._fit_core(file, parameters, warm_model, class_weight, balanced, epsilon,
                                     distributed, checkpoint)
        self._record_history(fits)
        self._data_source = "distributed" if distributed else ("streamed" if file.streamed else "mapped")
        self.n_features_in_ = int(model.n_features)
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return model

    def _fit_core(self, x, parameters, warm_model, class_weight, balanced, epsilon, distributed, checkpoint):
        """Train ``x`` (a ``CsrData`` or ``SnapFile``) through the core, which plans
        the solver: ``solver_plan_`` shows its plan (which solver, on which device,
        and why).

        ``parameters``: ``_core_parameters()``, the declared parameters of
        snapml/parameters.h by name; the rest are ``_train``'s.
        """
        declared = dict(parameters, class_weight=class_weight or {}, balanced_class_weight=balanced,
                        epsilon=float(epsilon), **(checkpoint or {}))
        train = _distributed.train if distributed else _core.train
        model, fits = train(x=x, warm_start=warm_model, verbose=bool(self.verbose), **declared)
        self.solver_plan_ = fits[0]["plan"]
        return model, fits

    def _record_history(self, fits):
        """``training_history_`` and the epoch counts from the core's fit results."""
        self.training_history_ = [
            {key: fit[key] for key in ("epoch", "time", "primal", "dual", "gap")} for fit in fits
        ]
        self._n_iter = np.array([fit["n_iter"] for fit in fits], dtype=np.int32)
        unconverged = [fit for fit in fits if not fit["converged"]]
        if any(fit["n_iter"] >= self._max_iter() for fit in unconverged):
            self._warn_not_converged()
        elif unconverged and self._tol() == self.tol:
            # The Newton solver stops early when no further decrease is
            # representable in floating point (snapml/src/primal/tron.cpp). Where the
            # estimator asked for machine precision itself (_tol below tol) that
            # is the goal; where the user's tol asked for more, say so.
            warnings.warn(
                f"{type(self).__name__} stopped after {max(fit['n_iter'] for fit in unconverged)} "
                f"iterations where no further decrease is representable in floating point, "
                f"before meeting tol={self.tol}; the fit is as precise as the data allows, a "
                "larger tol gives the same model",
                ConvergenceWarning,
            )

    def _warn_not_converged(self):
        gaps = [
            history["gap"][-1] / max(abs(history["primal"][-1]), np.finfo(float).tiny)
            for history in self.training_history_
            if len(history["gap"]) and np.isfinite(history["gap"][-1])
        ]
        reached = f"with a relative duality gap of {max(gaps):.2e}, " if gaps else ""
        warnings.warn(
            f"{type(self).__name__} stopped at max_iter={self._max_iter()} iterations (epochs of "
            f"dual coordinate ascent, Newton steps of the primal solver) {reached}before "
            f"meeting tol={self.tol}; increase max_iter (or tol) to converge",
            ConvergenceWarning,
        )

    def _warm_model(self, n_outputs=None, n_features=None, core_classes=None):
        """The previous fit as a core model when warm_start applies, else None.

        Parameters
        ----------
        n_outputs, n_features : int or None
            The new fit's weight shape; the previous fit is used only when it has
            the same. None leaves the check to the core (a ``.snap`` file's classes
            are known only once the core has read its labels).
        core_classes : ndarray or None
            The classes as the core sees them (class indices for arrays, the file's
            label values for a ``.snap`` path); None for regression.
        """
        if not getattr(self, "warm_start", False) or not hasattr(self, "coef_"):
            return None
        coef = np.atleast_2d(self.coef_)
        if n_outputs is not None and coef.shape != (n_outputs, n_features):
            return None
        model = self._core_model(core_classes)
        model.check()
        return model

    def _core_model(self, classes):
        """The fitted weights as a core ``Model``: the loss, ``coef_``, ``intercept_``
        and the intercept scaling, with ``classes`` as the core's (None for
        regression). The one place an estimator's fitted attributes become a core
        model (warm starts, scores of a ``.snap`` file, model files); callers add
        what else they need and call ``check()``.
        """
        coef = np.atleast_2d(np.asarray(self.coef_, dtype=np.float64))
        model = _core.Model()
        model.loss = self._loss_name()
        model.n_features = coef.shape[1]
        model.coef = np.ascontiguousarray(coef).ravel()
        model.intercept = np.atleast_1d(np.asarray(self.intercept_, dtype=np.float64))
        model.intercept_scaling = float(getattr(self, "intercept_scaling", 1.0)) if self.fit_intercept else 0.0
        if classes is not None:
            model.classes = np.asarray(classes, dtype=np.float64)
        return model

    # ---- prediction -------------------------------------------------------------

    def _scores(self, X):
        """w.x + intercept for every row and output: shape (n_samples, n_outputs).

        ``X`` may be a ``.snap`` path, read chunk by chunk under ``max_memory``.
        """
        check_is_fitted(self, "coef_")
        if is_path(X):
            return self._file_scores(X)[0]
        X = validate_data(
            self, X, accept_sparse=_ACCEPT_SPARSE, accept_large_sparse=True, dtype=_DTYPES,
            reset=False,
        )
        coef = np.atleast_2d(self.coef_)
        return safe_sparse_dot(X, coef.T, dense_output=True) + np.atleast_1d(self.intercept_)

    def _file_scores(self, X, y=None, sample_weight=None):
        """Scores, labels and weights (None when the file has none) of a ``.snap`` file.

        The file is read as ``fit`` reads it: memory-mapped, or streamed when it does
        not fit ``max_memory``. Features past ``n_features_in_`` are ignored, as
        ``snap-predict`` does (a test file converted on its own may have more).
        """
        check_is_fitted(self, "coef_")
        file = open_snap(X, self.max_memory, y, sample_weight)
        # Only the number of classes matters to the scores.
        classes = np.arange(len(self.classes_)) if hasattr(self, "classes_") else None
        model = self._core_model(classes)
        model.check()
        return _core.decision_function_file(model, file, threads=estimator_threads(self))

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

        # str(path) of anything wrote a file named "None" or "3" (issue 36).
        if not isinstance(path, (str, os.PathLike)):
            raise ValueError(f"path must be a file path (str or os.PathLike), got {path!r}")
        model = to_core_model(self)
        if format == "snapml":
            model.save(os.fspath(path))
        elif format == "liblinear":
            model.save_liblinear(os.fspath(path))
        else:
            raise ValueError(f"format must be 'snapml' or 'liblinear', got {format!r}")
