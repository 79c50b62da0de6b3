"""Logistic regression: scikit-learn's LogisticRegression, trained by the primal
Newton solver or dual coordinate ascent (docs/python.md has the table)."""

import numbers

import numpy as np
from scipy.special import expit, softmax

from .._classifier import SnapClassifier
from .._constraints import Checked
from .._docs import fill
from .._params import check_flag, resolve_C
from .._registry import register
from .._solvers import (
    FREE_INTERCEPT_SOLVERS,
    Problem,
    check_l1_ratio,
    check_logistic_penalty,
    check_logistic_solver,
    logistic_penalty,
    logistic_problem,
)

_MULTI_CLASS = ("auto", "ovr", "multinomial")


def _check_multi_class(multi_class):
    if multi_class not in _MULTI_CLASS:
        raise ValueError(f"multi_class must be 'auto', 'ovr' or 'multinomial', got {multi_class!r}")


def _check_C(C):
    """C > 0, or np.inf: no penalty (scikit-learn 1.8+'s spelling)."""
    if not (isinstance(C, numbers.Real) and not isinstance(C, bool) and C == np.inf):
        resolve_C(C, None)


@register
class LogisticRegression(SnapClassifier):
    __doc__ = fill(
        """Logistic regression with scikit-learn's parameters, defaults and answers.

    Minimises ``sum_i C_i * log(1 + exp(-y_i (w.x_i + b))) + 0.5 * ||w||^2`` with
    ``C_i = C * class_weight[y_i] * sample_weight_i``. By default (``solver="auto"``
    on the CPU) the intercept ``b`` is free, as in scikit-learn's lbfgs, and the
    fit is the primal trust-region Newton method (docs/algorithms.md, "Primal
    Newton"). More than two classes are fitted jointly by the softmax loss
    (the multinomial model, scikit-learn's) wherever that solver trains the
    problem asked for, one-vs-rest otherwise (``multi_class``, below).

    Parameters
    ----------
    penalty : {{"l2", "l1", "elasticnet", None}}, default="l2"
        None (or ``C=np.inf``) fits without a penalty. ``"l1"`` trains by newGLMNET:
        with ``solver="auto"`` or ``"liblinear"`` the intercept penalised
        (scikit-learn's liblinear problem), with ``"saga"`` free (scikit-learn's
        saga problem). With "l2" (or "elasticnet") ``l1_ratio`` decides, as in
        scikit-learn 1.8+: 0 is l2, 1 is l1, in between the elastic net, trained
        with ``solver="saga"`` (by newGLMNET, the intercept free as in scikit-learn).
    C : float, default=1.0
        Inverse of the regularisation strength; ``np.inf``: no penalty.
    l1_ratio : float, default=0.0
        scikit-learn's mixing parameter: 0 (l2), 1 (l1), in between the elastic net
        ``l1_ratio * ||w||_1 + (1 - l1_ratio) / 2 * ||w||^2`` (``solver="saga"``).
    dual : bool, default=False
        With ``solver="liblinear"``: the dual formulation (LIBLINEAR's -s 7, our SDCA)
        instead of the primal (-s 0, our Newton solver). Same problem, same optimum.
        With ``solver="auto"`` (no solver named): Snap ML's ``dual=True``, its dual
        solver (SDCA) and problem (``solver="dual"``: the intercept penalised);
        scikit-learn raises there. Other solvers: ValueError.
    tol : float, default=1e-4
        Stop when the relative duality gap ``(P - D) / P`` falls below ``tol`` (the
        intercept penalised), or, with a free intercept or no penalty, where no dual
        point certifies the fit, when ``||grad P(w)|| <= tol * ||grad P(0)||``. The
        multinomial model with penalty l2 and a free intercept on the CPU is
        certified: its fit stops on a relative gap of ``tol / 100``.
        Penalty l1 (newGLMNET): LIBLINEAR's rule at ``tol``, the summed
        minimum-norm sub-gradient relative to the first, times
        ``max(min(#pos, #neg), 1) / n_samples`` as LIBLINEAR scales it; the
        elastic net also its duality gap.
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1.0
        With the intercept penalised (liblinear, dual, primal, the GPU), the value
        of the constant feature whose weight is the intercept; ignored when free.
    class_weight : dict or "balanced", default=None
        Multiplies C for the samples of a class. In one-vs-rest a class's weight
        applies to its own positive samples and the rest weigh 1 (LIBLINEAR's -wi).
    random_state : int, RandomState instance or None, default=None
        Seeds the order in which dual coordinate ascent visits the samples. None
        is a fixed seed: two identical fits give identical models. The Newton
        solver uses no randomness.
    solver : str, default="auto"
        scikit-learn's names solve scikit-learn's problem under that name:
        ``"lbfgs"``, ``"newton-cg"``, ``"newton-cholesky"``, ``"sag"``, ``"saga"``
        (free intercept) by the primal Newton solver (with penalty l1 or the
        elastic net, saga's, by newGLMNET); ``"liblinear"`` (intercept
        penalised) by the Newton solver, or dual coordinate ascent with
        ``dual=True`` or on the GPU. snap_ml's ``"dual"`` (SDCA) and ``"primal"``
        (Newton) penalise the intercept, as Snap ML and LIBLINEAR do. ``"auto"``:
        lbfgs's problem. Which of the core's solvers trains it, and on which device,
        is the core's plan (``solver_plan_``).
    max_iter : int, default=100
        The most Newton iterations (primal) or epochs (dual) per binary problem.
    verbose : int, default=0
        Print one line per iteration: primal and dual objective, gap, time.
    warm_start : bool, default=False
        Start from the previous fit's coefficients (same classes and features).
    n_jobs : int, default=None
        CPU threads: None means 1, -1 every CPU. The Newton solver's result does
        not depend on the timing of the threads; dual coordinate ascent with more
        than one thread (lock-free updates, PASSCoDe) is not bit-for-bit reproducible.
    num_threads : int, default=None
        Snap ML's old name of ``n_jobs``: either, or both with the same value.
    multi_class : {{"auto", "ovr", "multinomial"}}, default="auto"
        More than two classes: ``"multinomial"``, one softmax problem over all
        classes with scikit-learn's objective and free intercepts, trained by the
        primal Newton solver on the CPU with penalty "l2" or None; ``"ovr"``, one
        binary problem per class (LIBLINEAR's one-vs-rest); ``"auto"``, the
        multinomial model where it can be trained, as in scikit-learn, and
        one-vs-rest where it cannot: ``solver="liblinear"`` (which scikit-learn
        refuses for more than two classes), ``"dual"``, ``"primal"``, penalty
        "l1" and the GPU. Two classes are the binary problem either way.
    regularizer : float, default=None
        Snap ML's name for ``1 / C``; when given it replaces ``C``.
    use_gpu : bool, default=False
        Train on a CUDA GPU (Snap ML's name); ``device_ids`` alone asks for it too.
    device_ids : list of int, default=None
        CUDA devices to train on, one CoCoA+ partition each (Snap ML's
        ``LogisticRegression(device_ids=[0, 1])``). Without a CUDA build or without
        a visible GPU: ValueError saying which.
    max_memory, max_gpu_memory, distributed :
        As in ``SupportVectorMachine`` (out-of-core ``.snap`` files, ``mpirun``).

    Attributes
    ----------
    {classifier_attributes}
    {common_attributes}

    See Also
    --------
    LogisticRegressionCV, LinearSVC, SupportVectorMachine
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
        penalty="l2",
        *,
        C=1.0,
        l1_ratio=0.0,
        dual=False,
        tol=1e-4,
        fit_intercept=True,
        intercept_scaling=1.0,
        class_weight=None,
        random_state=None,
        solver="auto",
        max_iter=100,
        verbose=0,
        warm_start=False,
        n_jobs=None,
        multi_class="auto",
        regularizer=None,
        use_gpu=False,
        device_ids=None,
        max_memory=None,
        max_gpu_memory=None,
        distributed="auto",
        num_threads=None,
    ):
        self.penalty = penalty
        self.C = C
        self.l1_ratio = l1_ratio
        self.dual = dual
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.solver = solver
        self.max_iter = max_iter
        self.verbose = verbose
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.multi_class = multi_class
        self.regularizer = regularizer
        self.use_gpu = use_gpu
        self.device_ids = device_ids
        self.max_memory = max_memory
        self.max_gpu_memory = max_gpu_memory
        self.distributed = distributed
        self.num_threads = num_threads

    _parameter_constraints = {
        **SnapClassifier._parameter_constraints,
        "penalty": [Checked(check_logistic_penalty, "'l2', 'l1', 'elasticnet' or None")],
        "C": [Checked(_check_C, "a number > 0 or np.inf")],
        # Checked whatever the penalty, as scikit-learn's parameter validation
        # does: penalty='l1' ignored l1_ratio=nan, 1.5 or -0.1 without a word.
        "l1_ratio": [None, Checked(check_l1_ratio, "a number in [0, 1]")],
        "dual": [Checked(check_flag("dual"), "True or False")],
        "solver": [Checked(check_logistic_solver, "a solver name")],
        "multi_class": [Checked(_check_multi_class, "'auto', 'ovr' or 'multinomial'")],
    }

    def _resolve(self):
        penalty, core_l1_ratio = logistic_penalty(self.penalty, self.l1_ratio, self.C)
        chosen = logistic_problem(penalty, self.solver, self.dual, core_l1_ratio)
        # The Newton solver stops on a relative duality gap (the free intercept's
        # too, since its dual point is repaired) or, without a penalty, when ||g||
        # <= tol ||g0||; scikit-learn's lbfgs when the largest gradient entry of
        # the mean loss is <= tol. At tol = 1e-4 the gradient rule left a9a's
        # objective 6e-5 above the optimum, at 1e-6 1e-11 (three more Newton
        # steps: convergence is quadratic there), so the primal fit takes tol /
        # 100 and lands where a converged lbfgs does. (lbfgs at its defaults
        # stopped 1.2e-4 to 5.7e-3 above the optimum on a9a, w8a and a 21k-row
        # click log, docs/benchmarks/cpu.md section 9: the gap's tol / 100 is
        # far tighter than what its users get today.)
        # Solver auto too, whichever solver the core picks: its dual fit then
        # certifies a relative gap of tol / 100 (a9a-sized sets 1e-8 or less above
        # the optimum; docs/benchmarks/primal.md, "Auto").
        # Not penalty l1 (liblinear, saga: newGLMNET): its rule is LIBLINEAR's
        # (the sub-gradient, scaled as LIBLINEAR scales tol), the elastic net's
        # also a gap of tol. At tol / 100 an L1 fit on 5,000 rows of a9a at C = 100
        # took 83 Newton steps and 5 s (the elastic net 31 s) where scikit-learn's
        # liblinear takes 0.16 s to its answer (saga 0.26 s); at tol, ours lands as
        # near the optimum as theirs or nearer (docs/benchmarks/primal.md, "L1: the
        # drop-in's tol").
        # The multinomial loss with penalty l1 or the elastic net (orthant-wise
        # L-BFGS) is certified by its gap too (orthant_steps.cpp), at tol / 1000:
        # at tol / 100 the elastic net's probabilities on iris and wine (l1_ratio
        # 0.5, C = 0.5) were 2.4e-4 and 2.7e-4 from the optimum's, scikit-learn's
        # saga at its default tol 0.9e-4 and 2.3e-4; at tol / 1000 ours are 0.5e-4
        # and 0.6e-4, two more iterations (docs/benchmarks/primal.md).
        loss = "multinomial" if self._multinomial(chosen) else "logistic"
        smooth_newton = chosen["solver"] in ("primal", "auto") and penalty != "l1"
        multinomial_l1 = penalty == "l1" and loss == "multinomial"
        tol = self.tol / 1000.0 if multinomial_l1 else self.tol / 100.0 if smooth_newton else self.tol
        # The loss's scale does not change the unpenalised optimum.
        C = 1.0 if penalty == "none" else resolve_C(self.C, self.regularizer)
        # The multinomial CPU fit (L-BFGS) with free intercepts and penalty l2 is
        # certified: the core stops it on a relative duality gap of tol / 100
        # (multinomial_objective.cpp), an upper bound on its distance to the
        # optimum: at or below scikit-learn's lbfgs at the same tol on iris, wine,
        # digits and news20 (docs/benchmarks/primal.md, "scikit-learn's default
        # problem"), and tol / 10 left iris's probabilities 2.5e-4 from the
        # optimum's.
        return Problem(loss=loss, C=C, tol=tol, max_iter=self.max_iter, **chosen)

    def _keeps_float32(self):
        # scikit-learn's LogisticRegression keeps float32 with every solver but
        # liblinear (float64); "auto" is lbfgs's problem.
        return self.solver in FREE_INTERCEPT_SOLVERS + ("auto",) and not self.dual

    def _multinomial(self, chosen):
        """Whether more than two classes train the multinomial (softmax) model.

        scikit-learn (1.5+; 1.9 has no ``multi_class``) trains it with every
        solver that can, which is all but liblinear: free intercepts with penalty
        l2, none, l1 or the elastic net (saga), so ``"auto"`` means multinomial
        there (penalty l1 and the elastic net by orthant-wise L-BFGS, as
        scikit-learn's saga trains a multinomial l1 model) and one-vs-rest for the
        other problems: liblinear (scikit-learn raises for more than two
        classes) and our ``"dual"`` and ``"primal"`` names (the intercept
        penalised). Which solver trains it, on which device, is the core's plan.
        docs/python.md's table lists these differences. Two classes are the
        binary problem either way, as in scikit-learn (the core trains the
        logistic loss then).
        """
        trainable = not chosen["penalise_intercept"]
        if self.multi_class == "multinomial" and not trainable:
            raise ValueError(
                "multi_class='multinomial' trains with a free intercept (solver 'lbfgs', "
                "'newton-cg', 'newton-cholesky', 'sag', 'saga' or 'auto'; penalty 'l1' with 'saga'); "
                f"got solver={self.solver!r}, penalty={self.penalty!r}, dual={self.dual!r}"
                ": change those, or pass multi_class='ovr'"
            )
        return trainable and self.multi_class != "ovr"

    def _problem_for_classes(self, resolved, n_classes):
        # Two classes train the binary problem (the core's logistic loss), whose
        # penalty l1 stops on LIBLINEAR's rule at tol itself (_resolve): the
        # multinomial L1 fit's tol / 1000 is for more than two. (A fit from a file
        # counts its classes in the core, and keeps tol / 1000 for two.)
        if resolved.loss == "multinomial" and resolved.penalty == "l1" and n_classes == 2:
            return resolved._replace(tol=self.tol)
        return resolved

    def _trains_multinomial(self):
        """Whether these parameters train the multinomial model for more than two
        classes (``_multinomial``); a query, not used within a fit."""
        return self._resolve().loss == "multinomial"

    @classmethod
    def _trains(cls, loss):
        return loss in ("logistic", "multinomial")

    @classmethod
    def _for_loss(cls, loss, **parameters):
        if loss == "multinomial":
            return cls(multi_class="multinomial", **parameters)
        # A model file holds LIBLINEAR's problem (the intercept penalised).
        return cls(solver="liblinear", **parameters)

    def predict_proba(self, X):
        """Class probabilities.

        Binary: the sigmoid of the score for ``classes_[1]``. Multinomial: the
        softmax of the scores (scikit-learn's). One-vs-rest: each class's sigmoid,
        normalised to sum to 1 (as scikit-learn's and LIBLINEAR's one-vs-rest
        logistic regression). A model of one class (LIBLINEAR's, through
        ``load_model``): 1.

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
        if len(self.classes_) == 1:  # LIBLINEAR's model of one class: probability 1
            return np.ones((scores.shape[0], 1))
        if scores.shape[1] == 1:
            positive = expit(scores[:, 0])
            return np.column_stack([1.0 - positive, positive])
        if self._problem_.loss == "multinomial":
            return softmax(scores, axis=1)
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
