"""scikit-learn's solver and penalty names as the core's problem and algorithm.

A scikit-learn estimator's parameters decide two things the core keeps apart:

- the problem: the penalty (``"l2"``, ``"l1"`` or ``"none"``) and whether the
  intercept is in it (``penalise_intercept``: LIBLINEAR's convention, and that of
  scikit-learn's ``solver="liblinear"`` and ``LinearSVC``) or free (scikit-learn's
  lbfgs, newton-cg, newton-cholesky, sag and saga, ``Ridge``, ``LinearRegression``);
- the algorithm asked for: dual coordinate ascent (SDCA), the primal
  trust-region Newton method (TRON; docs/algorithms.md "Primal Newton"), or
  ``"auto"``, which picks by the data (solver_factory.h, ``auto_choice``).
  The core's plan (``_core.plan_solver``) decides what trains it, and on which
  device: on a GPU every smooth loss trains by the Newton solver. Penalty l1
  always trains by newGLMNET or primal coordinate descent, on the CPU; with a
  free intercept (saga's problem) by newGLMNET.

Every solver name of scikit-learn solves the problem scikit-learn solves under
that name, by whichever of our algorithms solves it: the names of smooth primal
methods (lbfgs, newton-cg, newton-cholesky) and of the stochastic ones (sag,
saga) by TRON, which reaches the same optimum in a few Newton steps and, unlike
sag/saga, deterministically; liblinear by TRON (``dual=False``, LIBLINEAR's -s 0
and -s 2) or SDCA (``dual=True``, -s 7 and -s 1). saga with penalty l1 or the
elastic net is the core's penalty l1 with a free intercept (newGLMNET), liblinear
with l1 the same with the intercept penalised (LIBLINEAR's -s 6).
"""

import numbers
from typing import NamedTuple

import numpy as np

# scikit-learn's names whose problem leaves the intercept free, trained by TRON.
FREE_INTERCEPT_SOLVERS = ("lbfgs", "newton-cg", "newton-cholesky", "sag", "saga")
# Our own names (Snap ML's and the core's): the intercept is penalised
# (LIBLINEAR's convention, the dual solvers' only one).
CORE_SOLVERS = ("dual", "primal")


class Problem(NamedTuple):
    """What the core trains, resolved from an estimator's parameters once per fit
    (``_resolve``): the core's keywords for the problem and the algorithm asked for,
    and what ``fit`` reports against (``tol`` and ``max_iter`` as the core takes
    them). The core's plan decides which solver trains it (``solver_plan_``)."""

    loss: str
    penalty: str
    solver: str
    penalise_intercept: bool
    l1_ratio: float
    C: float
    tol: float
    max_iter: int

    def core_keywords(self):
        """The problem's parameters by their declared names (snapml/parameters.h)."""
        return dict(loss=self.loss, penalty=self.penalty, solver=self.solver,
                    penalise_intercept=bool(self.penalise_intercept), l1_ratio=float(self.l1_ratio),
                    C=float(self.C), tol=float(self.tol), max_iter=int(self.max_iter))


def problem(penalty, solver, penalise_intercept, l1_ratio=1.0):
    """The core's keywords for the problem and the algorithm asked for (the
    core's plan decides what trains it; ``_core.plan``)."""
    return dict(penalty=penalty, solver=solver, penalise_intercept=bool(penalise_intercept),
                l1_ratio=float(l1_ratio))


def check_logistic_penalty(penalty):
    if penalty not in (None, "l2", "l1", "elasticnet", "deprecated"):
        raise ValueError(f"penalty must be 'l2', 'l1', 'elasticnet' or None, got {penalty!r}")


def check_l1_ratio(l1_ratio):
    if not isinstance(l1_ratio, numbers.Real) or isinstance(l1_ratio, bool) or not 0 <= l1_ratio <= 1:
        raise ValueError(f"l1_ratio must be a number in [0, 1], got {l1_ratio!r}")


def check_logistic_solver(solver):
    names = FREE_INTERCEPT_SOLVERS + ("liblinear", "auto") + CORE_SOLVERS
    if solver not in names:
        raise ValueError(f"solver must be one of {', '.join(map(repr, names))}, got {solver!r}")


def logistic_penalty(penalty, l1_ratio, C):
    """The core's penalty and l1_ratio from LogisticRegression's ``penalty``,
    ``l1_ratio`` and ``C``.

    scikit-learn 1.8+ deprecates ``penalty`` in favour of ``l1_ratio`` (0: l2, 1: l1,
    between: elastic net) and ``C=np.inf`` (no penalty); both spellings are
    accepted. Returns ("l2" | "l1" | "none", the core's l1_ratio): the elastic net
    is the core's penalty l1 with l1_ratio < 1.
    """
    check_logistic_penalty(penalty)
    if penalty is None or (isinstance(C, numbers.Real) and np.isinf(C) and C > 0):
        return "none", 1.0
    if penalty == "l1":
        return "l1", 1.0
    check_l1_ratio(l1_ratio)
    if l1_ratio == 0:
        return "l2", 1.0
    return "l1", float(l1_ratio)


def logistic_problem(penalty, solver, dual, l1_ratio=1.0):
    """LogisticRegression's (penalty, solver, dual) as the core's problem.

    ``solver="auto"`` (the default) is scikit-learn's lbfgs problem (free
    intercept, by TRON); with penalty l1, liblinear's (the intercept penalised:
    the only L1 solver). The device never changes the problem: with ``use_gpu`` or
    ``device_ids`` the core's plan (``_core.plan_solver``; snapml/solver_factory.h)
    trains the same problem by its GPU solver.
    ``l1_ratio`` below 1 (with penalty l1) is the elastic net, which scikit-learn
    trains with saga only; so does snap_ml (by newGLMNET, the core's plan). saga's
    intercept is free with penalty l1 and the elastic net too, as scikit-learn's.
    """
    check_logistic_solver(solver)
    if dual not in (True, False):
        raise ValueError(f"dual must be True or False, got {dual!r}")
    if dual and solver == "auto":
        # Snap ML's LogisticRegression(dual=True): its dual solver and problem (the
        # intercept penalised). scikit-learn raises for dual=True without
        # solver='liblinear', so no scikit-learn script changes meaning.
        solver = "dual"
    if dual and solver not in ("liblinear", "dual"):
        raise ValueError(
            f"dual=True is scikit-learn's liblinear dual formulation; pass solver='liblinear' "
            f"(or snap_ml's solver='dual') with it, not solver={solver!r}"
        )
    if dual and penalty != "l2":
        raise ValueError(f"dual=True needs penalty 'l2', got {penalty!r}")
    if penalty == "none" and solver in ("liblinear", "dual"):
        raise ValueError(
            f"solver={solver!r} needs a penalty (it is LIBLINEAR's); for no penalty pass "
            "solver='lbfgs' (or 'primal', 'auto')"
        )
    if l1_ratio < 1 and solver != "saga":
        raise ValueError(
            f"l1_ratio={l1_ratio!r} asks for the elastic net, which trains with solver='saga' "
            f"(as in scikit-learn), not solver={solver!r}; pass "
            "solver='saga', or use l1_ratio=0 (penalty 'l2') or l1_ratio=1 (penalty 'l1')"
        )
    if solver == "auto":
        # Penalty l1 has one solver, LIBLINEAR's (intercept penalised).
        if penalty == "l1":
            return problem(penalty, "dual", True)
        # lbfgs's problem; the core's auto picks SDCA (a free intercept by the
        # method of multipliers) or the Newton solver by the data (solver_factory.h).
        return problem(penalty, "auto", False)
    if solver in FREE_INTERCEPT_SOLVERS:
        if penalty == "l1" and solver != "saga":
            raise ValueError(
                f"solver={solver!r} supports only 'l2' or no penalty (as in scikit-learn); "
                "pass solver='liblinear' or 'saga' for penalty 'l1'"
            )
        return problem(penalty, "primal", False, l1_ratio)
    if solver == "liblinear":
        # LIBLINEAR's -s 0 (primal) / -s 7 (dual).
        return problem(penalty, "dual" if dual else "primal", True)
    return problem(penalty, solver, True)
