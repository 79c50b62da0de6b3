"""Linear support vector machines: hinge (LIBLINEAR -s 3) and squared hinge (-s 1)."""

from ._classifier import SnapClassifier
from ._docs import fill

_LOSSES = ("hinge", "squared_hinge")


class SupportVectorMachine(SnapClassifier):
    __doc__ = fill(
        """Linear support vector machine trained by stochastic dual coordinate ascent.

    Minimises ``P(w) = sum_i C_i * loss(y_i w.x_i) + 0.5 * ||w||^2`` with the hinge
    loss ``max(0, 1 - m)`` or the squared hinge ``max(0, 1 - m)^2``: the problems of
    scikit-learn's ``LinearSVC(dual=True, loss=...)``. More than two classes are
    fitted one-vs-rest.

    Parameters
    ----------
    loss : {{"hinge", "squared_hinge"}}, default="hinge"
        Snap ML's default is the hinge loss; scikit-learn's ``LinearSVC`` defaults to
        ``"squared_hinge"``: pass it for the same model as ``LinearSVC()``.
    {common}
    {class_weight}

    Attributes
    ----------
    {classifier_attributes}
    {common_attributes}

    See Also
    --------
    LogisticRegression : probabilistic linear classifier.
    sklearn.svm.LinearSVC : the scikit-learn estimator this replaces.
    """
    )

    def __init__(
        self,
        *,
        loss="hinge",
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
        self.loss = loss
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

    def _loss_name(self):
        if self.loss not in _LOSSES:
            raise ValueError(f"loss must be 'hinge' or 'squared_hinge', got {self.loss!r}")
        return self.loss

    @classmethod
    def _trains(cls, loss):
        return loss in _LOSSES

    @classmethod
    def _for_loss(cls, loss, **parameters):
        return cls(loss=loss, **parameters)
