"""Linear support vector machines: hinge (LIBLINEAR -s 3) and squared hinge (-s 1,
-s 2): Snap ML's ``SupportVectorMachine`` and scikit-learn's ``LinearSVC``."""

import numpy as np

from .._classifier import SnapClassifier
from .._constraints import Checked
from .._docs import fill
from .._params import resolve_C
from .._registry import register
from .._solvers import Problem, problem

_LOSSES = ("hinge", "squared_hinge")


def _check_loss(loss):
    if loss not in _LOSSES:
        raise ValueError(f"loss must be 'hinge' or 'squared_hinge', got {loss!r}")


def _check_multi_class(multi_class):
    if multi_class != "ovr":
        raise ValueError(
            f"multi_class={multi_class!r} is not trained by snap_ml; pass "
            "multi_class='ovr' (one-vs-rest), or use scikit-learn's LinearSVC for "
            "Crammer and Singer's formulation"
        )


def _check_dual(dual):
    if not (dual == "auto" or isinstance(dual, bool)):
        raise ValueError(f"dual must be 'auto', True or False, got {dual!r}")


@register
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
        num_threads=None,
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
        self.num_threads = num_threads

    _parameter_constraints = {
        **SnapClassifier._parameter_constraints,
        "loss": [Checked(_check_loss, "'hinge' or 'squared_hinge'")],
    }

    def _resolve(self):
        return super()._resolve()._replace(loss=self.loss)

    @classmethod
    def _trains(cls, loss):
        return loss in _LOSSES

    @classmethod
    def _for_loss(cls, loss, **parameters):
        return cls(loss=loss, **parameters)


class LinearSVC(SnapClassifier):
    """scikit-learn's ``LinearSVC``: its parameters, defaults and problem.

    Minimises ``sum_i C_i * max(0, 1 - y_i (w.x_i + b))^2 + 0.5 * (||w||^2 + w_b^2)``
    (the squared hinge, scikit-learn's default; ``loss="hinge"`` for the hinge), the
    intercept a regularised constant feature of value ``intercept_scaling`` as in
    scikit-learn's (LIBLINEAR's) ``LinearSVC``. More than two classes are fitted
    one-vs-rest. ``SupportVectorMachine`` is the same model with Snap ML's names
    and defaults (the hinge loss).

    Parameters
    ----------
    penalty : {"l2", "l1"}, default="l2"
        "l1" trains by primal coordinate descent (LIBLINEAR's -s 5; needs the
        squared hinge and, as in scikit-learn, ``dual=False`` or "auto").
    loss : {"squared_hinge", "hinge"}, default="squared_hinge"
    dual : {"auto", True, False}, default="auto"
        True: dual coordinate ascent (SDCA, LIBLINEAR's -s 1/-s 3); False: the
        primal Newton solver (-s 2; the squared hinge only, as in scikit-learn);
        "auto": the Newton solver for the squared hinge (deterministic, and its
        iterations hardly depend on C), SDCA for the hinge. The same problem
        whichever solves it; on the GPU the core's plan trains the squared hinge
        by its Newton solver whatever ``dual`` says (``solver_plan_``).
    tol : float, default=1e-4
        Stop when the relative duality gap ``(P - D) / P`` falls below ``tol``.
    C : float, default=1.0
    multi_class : {"ovr"}, default="ovr"
        "crammer_singer" is not trained: ValueError.
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1.0
    class_weight : dict or "balanced", default=None
    verbose : int, default=0
    random_state : int, RandomState instance or None, default=None
        Seeds SDCA's order of the samples; None is a fixed seed (reproducible fits).
    max_iter : int, default=1000
        The most epochs (dual) or Newton iterations (primal) per binary problem.
    n_jobs, num_threads, use_gpu, device_ids, max_memory, max_gpu_memory, distributed :
        snap_ml's, as in ``SupportVectorMachine`` (threads, GPUs, out-of-core
        ``.snap`` files, ``mpirun``); ``device_ids`` alone asks for the GPU.

    Attributes
    ----------
    classes_, coef_, intercept_, n_iter_, n_features_in_, training_history_ :
        As in ``SupportVectorMachine``.

    See Also
    --------
    sklearn.svm.LinearSVC : the scikit-learn estimator this replaces.
    """

    def __init__(
        self,
        penalty="l2",
        loss="squared_hinge",
        *,
        dual="auto",
        tol=1e-4,
        C=1.0,
        multi_class="ovr",
        fit_intercept=True,
        intercept_scaling=1.0,
        class_weight=None,
        verbose=0,
        random_state=None,
        max_iter=1000,
        n_jobs=None,
        use_gpu=False,
        device_ids=None,
        max_memory=None,
        max_gpu_memory=None,
        distributed="auto",
        num_threads=None,
    ):
        self.penalty = penalty
        self.loss = loss
        self.dual = dual
        self.tol = tol
        self.C = C
        self.multi_class = multi_class
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.use_gpu = use_gpu
        self.device_ids = device_ids
        self.max_memory = max_memory
        self.max_gpu_memory = max_gpu_memory
        self.distributed = distributed
        self.num_threads = num_threads

    _parameter_constraints = {
        **SnapClassifier._parameter_constraints,
        "loss": [Checked(_check_loss, "'hinge' or 'squared_hinge'")],
        "dual": [Checked(_check_dual, "'auto', True or False")],
        "multi_class": [Checked(_check_multi_class, "'ovr'")],
    }

    def _resolve(self):
        loss = self.loss
        if self.penalty == "l1":
            if loss == "hinge" or self.dual is True:
                raise ValueError(
                    "penalty='l1' is trained with loss='squared_hinge' and dual=False (or "
                    f"'auto'), as in scikit-learn; got loss={loss!r}, dual={self.dual!r}"
                )
            chosen = problem("l1", "primal", True)
        elif self.dual is False and loss == "hinge":
            raise ValueError(
                "loss='hinge' has no primal solver (its derivative is not Lipschitz); pass "
                "dual=True (or 'auto'), or loss='squared_hinge', as in scikit-learn"
            )
        else:
            # dual="auto": the squared hinge by the Newton solver (deterministic,
            # superlinear, indifferent to C, so that weighted and repeated rows give
            # the same model to rounding; scikit-learn's LinearSVC() picks
            # liblinear's dual solver on wide data and fails its own sample-weight
            # check there); the hinge has only the dual solver. What trains it, and
            # on which device, is the core's plan.
            primal = loss == "squared_hinge" if self.dual == "auto" else not self.dual
            chosen = problem("l2", "primal" if primal else "dual", True)
        return Problem(loss=loss, C=resolve_C(self.C, None), tol=self.tol, max_iter=self.max_iter, **chosen)

    def _fitted_n_iter(self, per_problem):
        # scikit-learn's LinearSVC.n_iter_ is one int, the most over the classes.
        return int(np.max(per_problem))
