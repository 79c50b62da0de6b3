"""L2-regularised logistic regression (LIBLINEAR's -s 7, trained by dual SDCA)."""

import numpy as np
from scipy.special import expit

from ._classifier import SnapClassifier
from ._docs import fill


class LogisticRegression(SnapClassifier):
    __doc__ = fill(
        """L2-regularised logistic regression trained by stochastic dual coordinate ascent.

    Minimises ``P(w) = sum_i C_i * log(1 + exp(-y_i w.x_i)) + 0.5 * ||w||^2`` with
    ``C_i = C * class_weight[y_i] * sample_weight_i``: the problem of scikit-learn's
    ``LogisticRegression(solver="liblinear")`` (the intercept is a regularised
    constant feature, see ``intercept_scaling``). More than two classes are fitted
    one-vs-rest.

    Parameters
    ----------
    {common}
    {class_weight}

    Attributes
    ----------
    {classifier_attributes}
    {common_attributes}

    See Also
    --------
    SupportVectorMachine : the hinge and squared-hinge losses.
    sklearn.linear_model.LogisticRegression : the scikit-learn estimator this replaces.

    Examples
    --------
    >>> from snap_ml import LogisticRegression
    >>> X = [[0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [2.0, 0.0]]
    >>> LogisticRegression(C=10.0).fit(X, [0, 1, 0, 1]).predict([[3.0, 0.0]])
    array([1])
    """
    )

    _loss = "logistic"

    def __init__(
        self,
        *,
        penalty="l2",
        tol=1e-3,
        C=1.0,
        regularizer=None,
        fit_intercept=True,
        intercept_scaling=1.0,
        class_weight=None,
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
        self.penalty = penalty
        self.tol = tol
        self.C = C
        self.regularizer = regularizer
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
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

    def predict_proba(self, X):
        """Class probabilities.

        Binary: the sigmoid of the score for ``classes_[1]``. One-vs-rest: each
        class's sigmoid, normalised to sum to 1 (as scikit-learn's and LIBLINEAR's
        one-vs-rest logistic regression).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Or the path of a ``.snap`` file, read as ``fit`` reads it.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        scores = self._scores(X)
        if scores.shape[1] == 1:
            positive = expit(scores[:, 0])
            return np.column_stack([1.0 - positive, positive])
        probabilities = expit(scores)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        return probabilities

    def predict_log_proba(self, X):
        """Logarithm of ``predict_proba``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Or the path of a ``.snap`` file.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
