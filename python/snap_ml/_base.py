"""Logic shared by every snap_ml estimator: parameters, fit through the core,
the fitted attributes, the training history and predictions.

An estimator subclass says which loss it trains (``_loss``) and adds its own
parameters; everything else lives here and in ``_classifier.py``.
"""

import contextlib
import functools
import os
import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _core, _distributed, _sessions
from ._data import check_sample_weight, to_core
from ._constraints import Checked, validate_parameters
from ._params import (
    check_class_weight,
    check_device_options,
    check_flag,
    check_max_iter,
    check_max_memory_for_arrays,
    check_penalty,
    check_positive,
    estimator_threads,
    resolve_C,
    resolve_seed,
    resolve_threads,
)
from ._model_conversion import to_core_model
from ._snap_file import is_path, open_snap, streaming_message
from ._solvers import Problem, problem

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


class SnapLinearModel(BaseEstimator):
    """Base of the snap_ml estimators; not meant to be used directly."""

    # The core's loss name (one of _core.loss_names()).
    _loss = None

    # scikit-learn's parameter validation, run by _fit_context before fit (with
    # this project's messages: _constraints.py). Subclasses extend it; a name an
    # estimator does not take is skipped.
    _parameter_constraints = {
        "penalty": [Checked(check_penalty, "'l2' or 'l1'")],
        "tol": [Checked(functools.partial(check_positive, "tol"), "a finite number > 0")],
        "C": [Checked(functools.partial(resolve_C, regularizer=None), "a finite number > 0")],
        "regularizer": [None, Checked(functools.partial(resolve_C, 1.0), "a finite number >= 1e-100")],
        "fit_intercept": [Checked(check_flag("fit_intercept"), "True or False")],
        "intercept_scaling": "no_validation",  # checked with fit_intercept (_core_parameters)
        "class_weight": [Checked(check_class_weight, "a dict, 'balanced' or None")],
        "max_iter": [Checked(check_max_iter, "an integer in [1, 2**31 - 1]")],
        "n_jobs": [Checked(resolve_threads, "None, a positive integer or -1")],
        "num_threads": [None, Checked(resolve_threads, "None, a positive integer or -1")],
        "random_state": [Checked(resolve_seed, "None, an int or a RandomState")],
        "verbose": "no_validation",
        "warm_start": "no_validation",
        "use_gpu": [Checked(check_flag("use_gpu"), "True or False")],
        # Checked together in _core_parameters (device_ids alone asks for the GPU;
        # max_gpu_memory needs it; max_memory applies to a .snap path only).
        "device_ids": "no_validation",
        "max_memory": "no_validation",
        "max_gpu_memory": "no_validation",
        "distributed": [Checked(_distributed.check_distributed, "'auto', True or False")],
    }

    def _validate_params(self):
        # scikit-learn's _fit_context calls this before fit.
        validate_parameters(self)

    def __getstate__(self):
        # A kept GPU session (_sessions) holds device memory, not data: a pickled
        # or copied estimator makes its own on its next GPU fit.
        return _sessions.drop_from_state(super().__getstate__())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ---- parameters -------------------------------------------------------------

    def _resolve(self):
        """The problem the core trains (``_solvers.Problem``), from the parameters.

        ``fit`` calls it once, after the parameters' own checks
        (``_parameter_constraints``), and passes the result on. Snap ML's
        estimators: the loss ``_loss``, ``penalty`` "l2" (SDCA) or "l1", the
        intercept penalised as in LIBLINEAR, C from ``C`` or ``regularizer``. The
        scikit-learn-named estimators override it.
        """
        check_penalty(self.penalty)
        return Problem(loss=self._loss, C=resolve_C(self.C, self.regularizer), tol=self.tol,
                       max_iter=self.max_iter, **problem(self.penalty, "dual", True))

    # Queries of the resolved problem for callers outside a fit (the tests); a fit
    # resolves once and passes the result on.
    def _loss_name(self):
        """The core loss these parameters train."""
        return self._resolve().loss

    def _tol(self):
        """The tolerance the core is given."""
        return self._resolve().tol

    def _problem(self, use_gpu=False):
        """The resolved problem: the same on every device (``use_gpu`` changes nothing;
        the core's plan says what trains it there)."""
        return self._resolve()

    def _core_parameters(self, resolved=None, snap_file=False):
        """The declared parameters (snapml/parameters.h) by name for the core: the
        resolved problem's and the device and run options, checked across each other.

        ``resolved``: this fit's ``_resolve()`` (None: resolved here, for a caller
        outside a fit, as the tests asking the core's plan). ``snap_file``: the data
        is a ``.snap`` path, the only input ``max_memory`` applies to (arrays are
        already in memory).
        """
        if resolved is None:
            resolved = self._resolve()
        intercept_scaling = getattr(self, "intercept_scaling", 1.0)
        if self.fit_intercept:
            check_positive("intercept_scaling", intercept_scaling)
        if not snap_file:
            check_max_memory_for_arrays(self.max_memory)
        use_gpu, device_ids, max_gpu_memory = check_device_options(
            self.use_gpu, self.device_ids, self.max_gpu_memory
        )
        return dict(
            resolved.core_keywords(),
            fit_intercept=bool(self.fit_intercept),
            intercept_scaling=float(intercept_scaling) if self.fit_intercept else 1.0,
            threads=estimator_threads(self),
            seed=resolve_seed(self.random_state),
            use_gpu=use_gpu,
            device_ids=device_ids,
            max_gpu_memory=max_gpu_memory,
            # snap_ml.ibm's generate_training_history="full" sets it on the
            # estimator it trains: a history row per SDCA epoch (solver.h).
            certify_every_epoch=bool(getattr(self, "_certify_every_epoch", False)),
        )

    def _keeps_float32(self):
        """Whether the scikit-learn estimator these parameters replace keeps float32:
        its fit on float32 X gives float32 ``coef_`` and ``intercept_`` (and so
        float32 predictions). scikit-learn 1.9's liblinear (LinearSVC,
        LogisticRegression(solver="liblinear")) and LogisticRegressionCV give
        float64, as do Snap ML's own names, which have no such counterpart."""
        return False

    def _fitted_dtype(self, X):
        """The dtype of ``coef_`` and ``intercept_`` after a fit on the validated ``X``
        (the core trains in float32 and returns float64 weights either way)."""
        return np.dtype(np.float32) if X.dtype == np.float32 and self._keeps_float32() else np.dtype(np.float64)

    @classmethod
    def _trains(cls, loss):
        """Whether this estimator trains the core loss named ``loss``."""
        return loss == cls._loss

    @classmethod
    def _for_loss(cls, loss, **parameters):
        """An unfitted estimator of ``loss`` (one ``_trains`` accepts)."""
        return cls(**parameters)

    # ---- fitting ------------------------------------------------------------------

    def _validate_X_y(self, X, y, y_numeric, allow_empty=False, multi_output=False):
        # allow_empty: under mpirun a rank may hold no rows and still take part
        # (snap-train allows it: partition.h); it was refused. multi_output: a 2-D
        # y stays 2-D (the regressors fit one model per column).
        return validate_data(
            self,
            X,
            y,
            accept_sparse=_ACCEPT_SPARSE,
            accept_large_sparse=True,
            dtype=_DTYPES,
            y_numeric=y_numeric,
            multi_output=multi_output,
            ensure_min_samples=0 if allow_empty else 1,
        )

    def _train(self, resolved, X, labels, sample_weight, warm_model=None, class_weight=None,
               balanced=False, epsilon=0.0, distributed=False, checkpoint=None):
        """Fit through the core and set the fitted attributes.

        Parameters
        ----------
        resolved : _solvers.Problem
            This fit's problem (``_resolve``).
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
        parameters = self._core_parameters(resolved)
        with _distributed.agreed_checks() if distributed else contextlib.nullcontext():
            sample_weight = check_sample_weight(sample_weight, X.shape[0])
            # The CPU solvers' sums do not depend on a row's column order; the GPU
            # path keeps ascending rows, the only ones a device has run.
            data = to_core(X, labels, sample_weight, sorted_rows=bool(parameters["use_gpu"]))
        # Arrays in this process: the session kept across fits (_sessions.py).
        session = None if distributed else _sessions.session_for(self, parameters["use_gpu"],
                                                                 parameters["device_ids"])
        model, fits = self._fit_core(resolved, data, parameters, warm_model, class_weight, balanced, epsilon,
                                     distributed, checkpoint, session)
        self._data_source = "distributed" if distributed else "arrays"
        if distributed:
            self.n_features_in_ = int(model.n_features)
        return model

    def _train_file(self, resolved, X, y, sample_weight, warm_model=None, class_weight=None,
                    balanced=False, epsilon=0.0, checkpoint=None):
        """Fit on a ``.snap`` file (labels and weights from the file) and set the
        fitted attributes that do not depend on the estimator's kind.

        The file is memory-mapped when it fits ``max_memory`` (or without a budget)
        and streamed from disk otherwise (``_snap_file``, docs/out-of-core.md).

        Parameters
        ----------
        resolved : _solvers.Problem
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
        distributed = _distributed.resolve_distributed(self.distributed, resolved.penalty)
        if distributed:
            _distributed.refuse_checkpoint(checkpoint)
            with _distributed.agreed_checks():
                file = open_snap(X, self.max_memory, y, sample_weight, *_distributed.mpi_world())
            _distributed.agree_file(X)
        else:
            file = open_snap(X, self.max_memory, y, sample_weight)
        parameters = self._core_parameters(resolved, snap_file=True)
        if self.verbose and file.streamed:
            print(streaming_message(file), flush=True)
        model, fits = self._fit_core(resolved, file, parameters, warm_model, class_weight, balanced, epsilon,
                                     distributed, checkpoint)
        self._data_source = "distributed" if distributed else ("streamed" if file.streamed else "mapped")
        self.n_features_in_ = int(model.n_features)
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return model

    def _fit_core(self, resolved, x, parameters, warm_model, class_weight, balanced, epsilon, distributed,
                  checkpoint, session=None):
        """Train ``x`` (a ``CsrData`` or ``SnapFile``) through the core, which plans
        the solver: ``solver_plan_`` shows its plan (which solver, on which device,
        and why).

        ``parameters``: ``_core_parameters()``, the declared parameters of
        snapml/parameters.h by name; ``session``: the kept GPU session
        (``_sessions``) or None; the rest are ``_train``'s.
        """
        declared = dict(parameters, class_weight=class_weight or {}, balanced_class_weight=balanced,
                        epsilon=float(epsilon), **(checkpoint or {}))
        if session is not None:
            declared["session"] = session
        train = _distributed.train if distributed else _core.train
        try:
            model, fits = train(x=x, warm_start=warm_model, verbose=bool(self.verbose), **declared)
        except _core.RanksDisagreeError as error:
            if resolved.tol == self.tol or "; tol: " not in str(error):
                raise
            # The core names the tol it was given, which is not the user's here.
            raise _core.RanksDisagreeError(str(error).replace(
                "; tol: ", f"; tol (the core's: {type(self).__name__} passes tol / {self.tol / resolved.tol:.4g}): ",
                1)) from None
        self.solver_plan_ = fits[0]["plan"]
        self._problem_ = resolved
        # The multinomial loss with two classes trains the binary logistic one (the
        # core's plan): only more than two classes run the multinomial fit.
        self._record_history(fits, resolved, multinomial=resolved.loss == "multinomial" and len(model.classes) > 2)
        return model, fits

    def _record_history(self, fits, resolved, multinomial=False):
        """``training_history_`` and the epoch counts from the core's fit results."""
        self.training_history_ = [
            {key: fit[key] for key in ("epoch", "time", "primal", "dual", "gap")} for fit in fits
        ]
        self._n_iter = np.array([fit["n_iter"] for fit in fits], dtype=np.int32)
        unconverged = [fit for fit in fits if not fit["converged"]]
        if any(fit["n_iter"] >= resolved.max_iter for fit in unconverged):
            self._warn_not_converged(resolved, multinomial)
        elif unconverged and (resolved.tol == self.tol or not all(self._meets_user_tol(f) for f in unconverged)):
            # The Newton solver stops early when no further decrease is
            # representable in floating point (snapml/src/primal/primal_newton_solver.cpp).
            # Where the estimator asked for more than the user's tol itself (tol /
            # 100 or / 1000, or 1e-10 for least squares) and the fit met the user's, that is
            # the goal: no word. Where the user's tol asked for more, say so; where
            # even the user's tol was not met, the scale of the data defeated
            # double precision (features of magnitude 1e-9 stopped LinearRegression
            # at w = 0, an R^2 of 0 where scikit-learn's is 0.52): never returned
            # without a word.
            why = ("the fit is as precise as the data allows, a larger tol gives the same model"
                   if resolved.tol == self.tol else
                   "the data's scale is beyond double precision for this solver (features or sample weights "
                   "of very small or very different magnitudes); scale the features (StandardScaler) or the "
                   "sample weights and fit again")
            warnings.warn(
                f"{type(self).__name__} stopped after {max(f['n_iter'] for f in unconverged)} iterations "
                f"where no further decrease is representable in floating point, short of tol={self.tol}: {why}",
                ConvergenceWarning,
            )

    def _meets_user_tol(self, fit):
        """Whether an unconverged fit's last record meets the user's ``tol`` by the
        rule the core used: the relative duality gap where it has one, else the
        gradient rule ||g|| <= tol ||g(0)|| (the first record is the start)."""
        gap, primal, gradient = fit["gap"], fit["primal"], fit["gradient_norm"]
        if not len(gap):
            return False
        if np.isfinite(gap[-1]):
            return bool(gap[-1] <= self.tol * abs(primal[-1]))
        return bool(gradient[-1] <= self.tol * gradient[0])

    def _warn_not_converged(self, resolved, multinomial=False):
        gaps = [
            history["gap"][-1] / max(abs(history["primal"][-1]), np.finfo(float).tiny)
            for history in self.training_history_
            if len(history["gap"]) and np.isfinite(history["gap"][-1])
        ]
        if multinomial:
            # The multinomial fit runs L-BFGS (orthant-wise with penalty l1) and
            # stops on the relative duality gap where its dual point is certified,
            # else on the gradient rule (multinomial_objective.cpp); both at the
            # core's tol (tol / 100, tol / 1000 with penalty l1).
            stop = (f"tol={self.tol}" if resolved.tol == self.tol
                    else f"tol / {self.tol / resolved.tol:.4g} = {resolved.tol:g}")
            rule = (f"with a relative duality gap of {max(gaps):.2e}, above the {stop} it stops at"
                    if gaps else f"before ||gradient|| fell to {stop} times its value at w = 0, the rule it "
                    "stops on without a certificate")
            warnings.warn(
                f"{type(self).__name__} stopped at max_iter={resolved.max_iter} L-BFGS iterations of the "
                f"multinomial fit {rule}; increase max_iter (or tol) to converge",
                ConvergenceWarning,
            )
            return
        reached = f"with a relative duality gap of {max(gaps):.2e}, " if gaps else ""
        warnings.warn(
            f"{type(self).__name__} stopped at max_iter={resolved.max_iter} iterations (epochs of "
            f"dual coordinate ascent, Newton steps of the primal solver) {reached}before "
            f"meeting tol={self.tol}; increase max_iter (or tol) to converge",
            ConvergenceWarning,
        )

    def _warm_model(self, loss, n_outputs=None, n_features=None, core_classes=None):
        """The previous fit as a core model when warm_start applies, else None.

        Parameters
        ----------
        loss : str
            The new fit's core loss (``_resolve``).
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
        model = self._core_model(core_classes, loss)
        model.check()
        return model

    def _core_model(self, classes, loss=None):
        """The fitted weights as a core ``Model``: the loss, ``coef_``, ``intercept_``
        and the intercept scaling, with ``classes`` as the core's (None for
        regression), the loss ``loss`` (None: the fitted problem's). The one place
        an estimator's fitted attributes become a core model (warm starts, scores
        of a ``.snap`` file, model files); callers add what else they need and call
        ``check()``.
        """
        coef = np.atleast_2d(np.asarray(self.coef_, dtype=np.float64))
        if classes is None and coef.shape[0] > 1:
            # A regressor fitted on a 2-D y (one fit per column); the core's
            # model (its files, its .snap predictions) holds one target.
            raise ValueError(
                f"this {type(self).__name__} has {coef.shape[0]} targets (fitted on a 2-D y); model files and "
                ".snap predictions hold one: pickle the estimator, predict on arrays, or fit one model per target"
            )
        model = _core.Model()
        model.loss = loss if loss is not None else self._problem_.loss
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
