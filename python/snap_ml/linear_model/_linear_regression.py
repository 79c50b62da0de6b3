"""Regression with the squared loss: scikit-learn's ``LinearRegression`` (least
squares) and ``Ridge``, and Snap ML's ridge / L2-loss support vector regression
(``LinearRegression(penalty="l2")``)."""

import contextlib
import numbers

import numpy as np
from sklearn.base import RegressorMixin, _fit_context
from sklearn.metrics import r2_score

from .. import _core, _distributed
from .._base import SnapLinearModel, requires_y
from .._params import check_max_iter, check_penalty, checkpoint_arguments, resolve_C
from .._snap_file import is_path
from .._constraints import Checked
from .._registry import register
from .._solvers import Problem, problem

# Ridge's solver names: each solves the same problem, here by the Newton solver.
_RIDGE_SOLVERS = ("auto", "svd", "cholesky", "lsqr", "sparse_cg", "sag", "saga", "lbfgs")
# scikit-learn's direct solvers (LinearRegression on dense data, Ridge's auto, svd and
# cholesky) ignore tol and solve to machine precision. The Newton solver gets there
# by its relative gradient rule at 1e-10: a few more steps, since it converges
# superlinearly (diabetes: 8 iterations; coefficients within 1e-9 relative of
# scikit-learn's on the same float32 values). Smaller values gain nothing.
_DIRECT_TOL = 1e-10
_DIRECT_SOLVERS = ("auto", "svd", "cholesky")
# The smallest alpha > 0: C = 1 / (2 alpha) at most the core's largest cost.
_MIN_ALPHA = 1.0 / (2.0 * _core.MAX_COST)


def _check_copy_X(copy_X):
    """scikit-learn's ``copy_X``: X is never modified here."""
    if copy_X not in (True, False):
        raise ValueError(f"copy_X must be True or False, got {copy_X!r}")


def _check_positive_flag(positive):
    """scikit-learn's ``positive``: refused."""
    if positive is not False:
        raise ValueError(
            f"positive={positive!r}: snap_ml does not constrain the coefficients' sign; use "
            "scikit-learn's LinearRegression(positive=True) or Ridge(positive=True)"
        )


def _check_ridge_solver(solver):
    if solver not in _RIDGE_SOLVERS:
        raise ValueError(f"solver must be one of {', '.join(map(repr, _RIDGE_SOLVERS))}, got {solver!r}")


def _check_alpha(alpha):
    if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool) or not np.isfinite(alpha) or alpha < 0:
        raise ValueError(
            f"alpha must be a finite number >= 0 (one value for every target: a per-target array is not "
            f"supported; fit one Ridge per column of y for that), got {alpha!r}"
        )
    if 0 < alpha < _MIN_ALPHA:
        # C = 1 / (2 alpha) would pass the core's largest cost, and its error
        # named a C the user never set (issue 36).
        raise ValueError(
            f"alpha must be 0 (least squares) or at least {_MIN_ALPHA:g}, got {alpha!r}: a smaller alpha is "
            f"C = 1/(2 alpha) above {_core.MAX_COST:g}, past which the fit's arithmetic overflows, and "
            "regularises less than double precision can tell from none: use alpha=0"
        )


def _check_epsilon(epsilon):
    if not isinstance(epsilon, numbers.Real) or not np.isfinite(epsilon) or epsilon < 0:
        raise ValueError(f"epsilon must be a finite number >= 0, got {epsilon!r}")


class _SquaredLossRegressor(RegressorMixin, SnapLinearModel):
    """Fit, predict and score shared by the squared-loss regressors."""

    _loss = "squared"

    _parameter_constraints = {
        **SnapLinearModel._parameter_constraints,
        "penalty": [None, Checked(check_penalty, "'l2' or 'l1'")],
        "copy_X": [Checked(_check_copy_X, "True or False")],
        "positive": [Checked(_check_positive_flag, "False")],
        "epsilon": [Checked(_check_epsilon, "a finite number >= 0")],
    }

    def _epsilon(self):
        return getattr(self, "epsilon", 0.0)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = True  # a 2-D y: one fit per column
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None, checkpoint=None, checkpoint_interval=60.0):
        """Fit the model on (X, y), or on a ``.snap`` file.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Training data (numpy or scipy sparse; see ``LogisticRegression.fit``), or
            the path of a ``.snap`` file holding the targets: memory-mapped when it
            fits ``max_memory`` (or without a budget), streamed from disk otherwise.
        y : array-like of shape (n_samples,) or (n_samples, n_targets), default=None
            Targets. Required with arrays; must be None with a path. A 2-D y fits
            one model per column (scikit-learn's multi-output regression; not
            under mpirun, not with ``checkpoint`` for more than one column).
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights >= 0 multiplying C. Must be None with a path (the
            file's own weights are used).
        checkpoint : str or os.PathLike, default=None
            Resume from this file when it exists (same data and options, else
            ValueError naming what differs), and save the solver's state to it
            atomically every ``checkpoint_interval`` seconds during the fit, so that
            a killed fit loses at most that much work; removed once the fit
            succeeds (docs/python.md, "Checkpoints"). Not with ``penalty='l1'``.
        checkpoint_interval : float, default=60
            Seconds between saves; 0 saves after every epoch. Saving takes at most
            a tenth of the fit's time (a save waits 9 times the last one's duration).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        resolved = self._resolve()
        epsilon = self._epsilon()
        checkpoint = checkpoint_arguments(checkpoint, checkpoint_interval)
        if is_path(X):
            model = self._train_file(resolved, X, y, sample_weight, self._warm_model(resolved.loss),
                                     epsilon=epsilon, checkpoint=checkpoint)
            return self._set_fitted([model], 1, [int(self._n_iter[0])], np.dtype(np.float64))
        if y is None:
            raise requires_y(self)
        distributed = _distributed.resolve_distributed(self.distributed, resolved.penalty)
        with _distributed.agreed_checks() if distributed else contextlib.nullcontext():
            X, y = self._validate_X_y(X, y, y_numeric=True, allow_empty=distributed, multi_output=True)
            if distributed and y.ndim == 2 and y.shape[1] != 1:
                # Every rank would have to agree on the number of targets first.
                raise ValueError(
                    f"y of shape {y.shape} has {y.shape[1]} targets; under mpirun snap_ml fits one target: "
                    "pass y of shape (n_samples,), or distributed=False (each rank fits its own rows alone)"
                )
        targets = y.reshape(y.shape[0], -1)
        distributed = distributed and _distributed.train_together(self.distributed, X, targets[:, 0], sample_weight)
        if distributed:
            _distributed.refuse_checkpoint(checkpoint)
        if targets.shape[1] > 1 and checkpoint.get("checkpoint"):
            raise ValueError(f"checkpoint saves one fit, and y of shape {y.shape} asks for {targets.shape[1]}; "
                             "fit one target at a time to checkpoint each")
        n_features = _distributed.agree_width(X.shape[1]) if distributed else X.shape[1]
        # scikit-learn fits every column of a 2-D y (multi-output regression): here
        # one fit per column, each the 1-D problem (the columns share no parameter).
        warm = self._warm_model(resolved.loss, 1, n_features) if targets.shape[1] == 1 else None
        models, histories, iterations = [], [], []
        for column in targets.T:
            models.append(self._train(resolved, X, column.astype(np.float64), sample_weight, warm, epsilon=epsilon,
                                      distributed=distributed, checkpoint=checkpoint))
            histories += self.training_history_
            iterations.append(int(self._n_iter[0]))
        self.training_history_ = histories
        return self._set_fitted(models, y.ndim, iterations, self._fitted_dtype(X))

    # scikit-learn's Ridge keeps coef_ 1-D for a y of shape (n, 1) (and predicts
    # shape (n,)); its LinearRegression makes it (1, n_features).
    _ravel_one_target = False

    def _set_fitted(self, models, y_ndim, iterations, dtype):
        """coef_, intercept_ and n_iter_ in scikit-learn's shapes: 1-D y, (n_features,),
        a scalar and an int; 2-D y, (n_targets, n_features), (n_targets,) (0.0
        without an intercept) and one count per target; of ``dtype``
        (``_fitted_dtype``)."""
        coef = np.array([model.coef[0] for model in models], dtype=dtype)
        intercept = np.array([model.intercept[0] for model in models], dtype=dtype)
        if y_ndim == 1:
            self.coef_, self.intercept_, self.n_iter_ = coef[0], intercept[0], iterations[0]
            return self
        self.coef_ = coef[0] if self._ravel_one_target and len(models) == 1 else coef
        self.intercept_ = intercept if self.fit_intercept else 0.0
        self.n_iter_ = np.array(iterations)
        return self

    def predict(self, X):
        """Predicted targets w.x + b.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Or the path of a ``.snap`` file, read as ``fit`` reads it.

        Returns
        -------
        ndarray of shape (n_samples,), or (n_samples, n_targets) when fitted on a 2-D y
        (as scikit-learn's; Ridge on one column: (n_samples,))
        """
        scores = self._scores(X)
        return scores[:, 0] if np.ndim(self.coef_) == 1 else scores

    def score(self, X, y=None, sample_weight=None):
        """R^2 of the predictions on (X, y), or on a ``.snap`` file.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Test samples, or the path of a ``.snap`` file holding them with their
            targets (and weights, which then weigh the score).
        y : array-like of shape (n_samples,), default=None
            True targets; must be None with a path.
        sample_weight : array-like of shape (n_samples,), default=None
            Must be None with a path.

        Returns
        -------
        float
        """
        if is_path(X):
            scores, targets, weights = self._file_scores(X, y, sample_weight)
            return float(r2_score(targets, scores[:, 0], sample_weight=weights))
        return super().score(X, y, sample_weight=sample_weight)


@register
class LinearRegression(_SquaredLossRegressor):
    """Ordinary least squares (scikit-learn's ``LinearRegression``), or Snap ML's
    ridge and L2-loss support vector regression.

    Minimises ``sum_i s_i (y_i - w.x_i - b)^2`` (``s``: sample weights) with a free
    intercept by the primal trust-region Newton solver (docs/algorithms.md, "Primal
    Newton"): the least-squares fit, as scikit-learn's, and where that is not
    unique (fewer rows than features, collinear columns) the one of least norm,
    the intercept outside the norm, as scikit-learn's ``lstsq``. With ``penalty="l2"`` (or
    ``regularizer``, Snap ML's spelling, which implies it) the problem is Snap ML's
    ``sum_i C_i max(0, |y_i - w.x_i| - epsilon)^2 + 0.5 ||w||^2`` with the intercept a
    regularised constant feature, trained by SDCA: ridge with ``epsilon=0``
    (``Ridge`` is scikit-learn's ridge), LIBLINEAR's ``-s 12 -p epsilon`` otherwise;
    ``penalty="l1"`` is the lasso by coordinate descent.

    Parameters
    ----------
    fit_intercept : bool, default=True
    copy_X : bool, default=True
        Accepted for scikit-learn's scripts; X is never modified.
    tol : float, default=1e-6
        Least squares is solved to machine precision, as scikit-learn's solver
        does on dense data: the Newton solver stops when ``||grad|| <= t *
        ||grad at w = 0||`` with ``t = min(tol, 1e-10)``. With a penalty: the
        relative duality gap, as in ``SupportVectorMachine``.
    n_jobs : int, default=None
        CPU threads: None means 1, -1 every CPU.
    num_threads : int, default=None
        Snap ML's old name of ``n_jobs``: either, or both with the same value.
    positive : bool, default=False
        True is not supported: ValueError.
    penalty : {None, "l2", "l1"}, default=None
        None: least squares. "l2"/"l1": Snap ML's ridge/lasso with ``C``.
    C : float, default=1.0
        The loss's weight with a penalty; with ``penalty=None`` anything else than
        1.0 raises ValueError (it would change nothing).
    regularizer : float, default=None
        Snap ML's ``1 / C``; implies ``penalty="l2"`` when ``penalty`` is None.
    epsilon : float, default=0.0
        Residuals within ``+-epsilon`` cost nothing (support vector regression).
    intercept_scaling : float, default=1.0
        With a penalty, the constant feature's value; ignored without one.
    max_iter : int, default=1000
    random_state, verbose, warm_start, use_gpu, device_ids, max_memory,
    max_gpu_memory, distributed :
        As in ``SupportVectorMachine``; the GPU trains only a penalised problem.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        The second for a 2-D y (also of one column), as scikit-learn's.
    intercept_ : float or ndarray of shape (n_targets,)
        An array for a 2-D y, 0.0 without an intercept, as scikit-learn's.
    n_iter_ : int or ndarray of shape (n_targets,)
        Newton iterations (least squares) or epochs (SDCA).
    n_features_in_, feature_names_in_, training_history_ :
        As in ``SupportVectorMachine``.

    See Also
    --------
    Ridge, sklearn.linear_model.LinearRegression
    """

    def __init__(
        self,
        *,
        fit_intercept=True,
        copy_X=True,
        tol=1e-6,
        n_jobs=None,
        positive=False,
        penalty=None,
        C=1.0,
        regularizer=None,
        epsilon=0.0,
        intercept_scaling=1.0,
        max_iter=1000,
        random_state=None,
        verbose=0,
        warm_start=False,
        use_gpu=False,
        device_ids=None,
        max_memory=None,
        max_gpu_memory=None,
        distributed="auto",
        num_threads=None,
    ):
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.tol = tol
        self.n_jobs = n_jobs
        self.positive = positive
        self.penalty = penalty
        self.C = C
        self.regularizer = regularizer
        self.epsilon = epsilon
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.use_gpu = use_gpu
        self.device_ids = device_ids
        self.max_memory = max_memory
        self.max_gpu_memory = max_gpu_memory
        self.distributed = distributed
        self.num_threads = num_threads

    def _keeps_float32(self):
        # scikit-learn's LinearRegression keeps float32; Snap ML's ridge, lasso and
        # SVR (a penalty) have no such counterpart.
        return self.penalty is None and self.regularizer is None

    def _resolve(self):
        penalty = self.penalty
        if penalty is None and self.regularizer is not None:
            penalty = "l2"  # Snap ML's LinearRegression(regularizer=...) is ridge
        if penalty is None:
            if self.C != 1.0:
                raise ValueError(
                    f"C={self.C!r} weighs the loss against a penalty, and penalty=None (least "
                    "squares, the default) has none; pass penalty='l2' (Snap ML's ridge) or "
                    "'l1' (lasso) with C, or use Ridge(alpha=...)"
                )
            # Least squares solves exactly, as scikit-learn's.
            return Problem(loss=self._loss, C=1.0, tol=min(self.tol, _DIRECT_TOL), max_iter=self.max_iter,
                           **problem("none", "primal", False))
        check_penalty(penalty)
        return Problem(loss=self._loss, C=resolve_C(self.C, self.regularizer), tol=self.tol, max_iter=self.max_iter,
                       **problem(penalty, "dual", True))

    @classmethod
    def _for_loss(cls, loss, **parameters):
        # A model file holds Snap ML's (LIBLINEAR's) problem: the penalised one.
        return cls(penalty="l2", **parameters)


class Ridge(_SquaredLossRegressor):
    """scikit-learn's ``Ridge``: ``||y - Xw - b||^2 + alpha * ||w||^2``, intercept free.

    Trained as the core's ``sum_i C_i (y_i - w.x_i - b)^2 + 0.5 ||w||^2`` with
    ``C = 1 / (2 alpha)`` (the same minimiser: the objective divided by
    ``2 alpha``), sample weights multiplying C, by the primal trust-region Newton
    solver; ``alpha=0`` is least squares.

    Parameters
    ----------
    alpha : float, default=1.0
        Regularisation strength, >= 0 (one value, for every target of a 2-D y).
    fit_intercept : bool, default=True
    copy_X : bool, default=True
        Accepted; X is never modified.
    max_iter : int, default=None
        The most Newton iterations; None means 1000.
    tol : float, default=1e-4
        ``t = tol`` with the names of scikit-learn's iterative solvers, ``t = min(tol,
        1e-10)`` with its direct ones (auto, svd, cholesky), which solve to machine
        precision. With ``alpha > 0`` the fit stops at a relative duality gap ``<=
        t`` (certified, as ``LogisticRegression``'s); with ``alpha=0`` when
        ``||grad|| <= t * ||grad at w = 0||``.
    solver : str, default="auto"
        Any of scikit-learn's names (auto, svd, cholesky, lsqr, sparse_cg, sag, saga,
        lbfgs): the same problem, solved here by the Newton solver.
    positive : bool, default=False
        True is not supported: ValueError.
    random_state : int, RandomState instance or None, default=None
        Accepted (the Newton solver uses no randomness).
    n_jobs, num_threads, verbose, warm_start, max_memory, distributed :
        snap_ml's: CPU threads, progress lines, warm starts, ``.snap`` files,
        ``mpirun``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        The second for a y of more than one column (scikit-learn's Ridge keeps a
        y of one column's 1-D and predicts shape (n_samples,) for it).
    intercept_ : float or ndarray of shape (n_targets,)
        An array for a 2-D y, 0.0 without an intercept, as scikit-learn's.
    n_iter_ : int or ndarray of shape (n_targets,)
    n_features_in_, feature_names_in_, training_history_ :
        As in ``LinearRegression``.

    See Also
    --------
    sklearn.linear_model.Ridge
    """

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        copy_X=True,
        max_iter=None,
        tol=1e-4,
        solver="auto",
        positive=False,
        random_state=None,
        n_jobs=None,
        verbose=0,
        warm_start=False,
        max_memory=None,
        distributed="auto",
        num_threads=None,
    ):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.positive = positive
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.warm_start = warm_start
        self.max_memory = max_memory
        self.distributed = distributed
        self.num_threads = num_threads

    _parameter_constraints = {
        **_SquaredLossRegressor._parameter_constraints,
        "alpha": [Checked(_check_alpha, "0 or a finite number >= 5e-101")],
        "solver": [Checked(_check_ridge_solver, "a solver name")],
        "max_iter": [None, Checked(check_max_iter, "an integer in [1, 2**31 - 1]")],
    }

    _ravel_one_target = True  # scikit-learn's Ridge: coef_ (n_features,) for y of shape (n, 1)

    # Ridge takes no GPU options (as scikit-learn's): it trains on the CPU.
    use_gpu = False
    device_ids = None
    max_gpu_memory = None

    def _keeps_float32(self):
        return True  # scikit-learn's Ridge keeps float32, with every solver

    def _resolve(self):
        alpha = float(self.alpha)
        return Problem(loss=self._loss, C=1.0 if alpha == 0 else 1.0 / (2.0 * alpha),
                       tol=min(self.tol, _DIRECT_TOL) if self.solver in _DIRECT_SOLVERS else self.tol,
                       max_iter=1000 if self.max_iter is None else self.max_iter,  # None: the solver's default
                       **problem("none" if alpha == 0 else "l2", "primal", False))
