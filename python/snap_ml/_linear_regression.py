"""Ridge regression (squared loss) and L2-loss support vector regression."""

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.metrics import r2_score

from . import _distributed
from ._base import SnapLinearModel, requires_y
from ._docs import fill
from ._snap_file import is_path


class LinearRegression(RegressorMixin, SnapLinearModel):
    __doc__ = fill(
        """L2-regularised least squares (ridge) trained by stochastic dual coordinate ascent.

    Minimises ``P(w) = sum_i C_i * max(0, |y_i - w.x_i| - epsilon)^2 + 0.5 * ||w||^2``:
    ridge regression with ``epsilon=0`` (scikit-learn's ``Ridge(alpha=1/(2C))``
    without a separately handled intercept), LIBLINEAR's L2-loss support vector
    regression (``-s 12 -p epsilon``) otherwise.

    Parameters
    ----------
    epsilon : float, default=0.0
        Residuals within ``+-epsilon`` cost nothing (scikit-learn's ``LinearSVR``
        epsilon); 0 is ridge regression.
    {common}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Weights.
    intercept_ : float
        ``intercept_scaling`` times the constant feature's weight; 0.0 without intercept.
    n_iter_ : int
        Epochs run.
    {common_attributes}

    See Also
    --------
    sklearn.linear_model.Ridge : the scikit-learn estimator closest to this one.
    """
    )

    _loss = "squared"

    def __init__(
        self,
        *,
        epsilon=0.0,
        penalty="l2",
        tol=1e-3,
        C=1.0,
        regularizer=None,
        fit_intercept=True,
        intercept_scaling=1.0,
        max_iter=1000,
        n_jobs=None,
        random_state=None,
        verbose=0,
        warm_start=False,
        use_gpu=False,
        device_ids=None,
        max_memory=None,
        max_gpu_memory=None,
        distributed="auto",
    ):
        self.epsilon = epsilon
        self.penalty = penalty
        self.tol = tol
        self.C = C
        self.regularizer = regularizer
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.use_gpu = use_gpu
        self.device_ids = device_ids
        self.max_memory = max_memory
        self.max_gpu_memory = max_gpu_memory
        self.distributed = distributed

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.single_output = True
        return tags

    def fit(self, X, y=None, sample_weight=None):
        """Fit the model by SDCA on (X, y), or on a ``.snap`` file.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Training data (numpy or scipy sparse; see ``LogisticRegression.fit``), or
            the path of a ``.snap`` file holding the targets: memory-mapped when it
            fits ``max_memory`` (or without a budget), streamed from disk otherwise.
        y : array-like of shape (n_samples,), default=None
            Targets. Required with arrays; must be None with a path.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights >= 0 multiplying C. Must be None with a path (the
            file's own weights are used).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if not np.isfinite(self.epsilon) or self.epsilon < 0:
            raise ValueError(f"epsilon must be a finite number >= 0, got {self.epsilon!r}")
        if is_path(X):
            model = self._train_file(X, y, sample_weight, self._warm_model(),
                                     epsilon=self.epsilon)
            return self._set_fitted(model)
        if y is None:
            raise requires_y(self)
        distributed = _distributed.resolve_distributed(self.distributed, self.penalty)
        if distributed:
            with _distributed.agreed_checks():
                X, y = self._validate_X_y(X, y, y_numeric=True)
            n_features = _distributed.agree_max(X.shape[1])
        else:
            X, y = self._validate_X_y(X, y, y_numeric=True)
            n_features = X.shape[1]
        warm = self._warm_model(1, n_features)
        model = self._train(X, y.astype(np.float64), sample_weight, warm, epsilon=self.epsilon,
                            distributed=distributed)
        return self._set_fitted(model)

    def _set_fitted(self, model):
        self.coef_ = model.coef[0]
        self.intercept_ = float(model.intercept[0])
        self.n_iter_ = int(self._n_iter[0])
        return self

    def predict(self, X):
        """Predicted targets w.x + b.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Or the path of a ``.snap`` file, read as ``fit`` reads it.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._scores(X)[:, 0]

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
