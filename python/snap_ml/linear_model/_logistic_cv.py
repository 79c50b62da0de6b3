"""scikit-learn's LogisticRegressionCV: a warm-started path over Cs per fold."""

import numbers
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.base import _fit_context, clone
from sklearn.dummy import DummyClassifier
from sklearn.metrics import get_scorer
from sklearn.model_selection import check_cv
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from .. import _sessions
from .._base import _ACCEPT_SPARSE, _DTYPES
from .._constraints import Checked
from .._snap_file import is_path
from ._logistic import LogisticRegression
from .._params import check_device_options, estimator_threads

# The most Cs a search takes (an integer Cs: that many on a log grid).
_MAX_CS = 10_000

# The parameters an inner LogisticRegression takes from this one (the penalty
# and l1_ratio come from the grid point: _l1_ratio_grid).
_SHARED = ("fit_intercept", "dual", "solver", "tol", "max_iter", "class_weight",
           "n_jobs", "verbose", "intercept_scaling", "random_state", "multi_class", "use_gpu",
           "device_ids", "max_gpu_memory")


def _check_l1_ratios(l1_ratios):
    """None, "warn" (scikit-learn 1.9's default, read as None) or a non-empty
    array-like of numbers in [0, 1] (scikit-learn's message)."""
    if l1_ratios is None or (isinstance(l1_ratios, str) and l1_ratios == "warn"):
        return
    if (isinstance(l1_ratios, (str, bytes, dict)) or not hasattr(l1_ratios, "__len__") or len(l1_ratios) == 0
            or not all(isinstance(r, numbers.Real) and not isinstance(r, bool) and 0 <= r <= 1
                       for r in l1_ratios)):
        raise ValueError(f"l1_ratios must be an array-like of numbers between 0 and 1; got (l1_ratios={l1_ratios!r});"
                         " pass e.g. l1_ratios=(0,) (l2), (1,) (l1) or (0, 0.5, 1) with solver='saga'")


def _check_legacy(use_legacy_attributes):
    if not (isinstance(use_legacy_attributes, (bool, np.bool_))
            or (isinstance(use_legacy_attributes, str) and use_legacy_attributes == "warn")):
        raise ValueError(f"use_legacy_attributes must be True or False, got {use_legacy_attributes!r}")


# scikit-learn 1.9's FutureWarnings about its defaults (sklearn/linear_model/
# _logistic.py, LogisticRegressionCV.fit), given where it gives them: these
# defaults change in scikit-learn 1.10 and snap_ml follows scikit-learn's.
_L1_RATIOS_DEFAULT = (
    "The default value for l1_ratios will change from None to (0.0,) in version 1.10. From version 1.10 "
    "onwards, only array-like with values in [0, 1] will be allowed, None will be forbidden. To avoid this "
    "warning, explicitly set a value, e.g. l1_ratios=(0,)."
)
_L1_RATIOS_NONE = (
    "'l1_ratios=None' was deprecated in version 1.8 and will trigger an error in 1.10. Use an array-like "
    "with values in [0, 1] instead."
)
_LEGACY_DEFAULT = (
    "The fitted attributes of {name} will be simplified in scikit-learn 1.10 to remove redundancy. Set "
    "`use_legacy_attributes=False` to enable the new behavior now, or set it to `True` to silence this "
    "warning during the transition period while keeping the deprecated behavior for the time being. The "
    "default value of use_legacy_attributes will change from True to False in scikit-learn 1.10. See the "
    "docstring of {name} for more details."
)


class LogisticRegressionCV(LogisticRegression):
    """Logistic regression with C chosen by cross-validation (scikit-learn's
    ``LogisticRegressionCV``).

    For each fold, one ``LogisticRegression`` is fitted along ``Cs`` from the
    strongest regularisation to the weakest, each fit warm-started from the
    previous one (the Newton solver then needs a few iterations per C); the C of
    the best mean score over the folds is refitted on all the data. With
    ``n_jobs`` above 1 the folds train side by side on threads of this process
    (the core releases the GIL), ``n_jobs`` threads in all: as many folds at once
    as there are threads (at most the folds), each fit on ``n_jobs // folds at
    once`` threads; the refit takes all of them.

    On GPUs (``use_gpu`` or ``device_ids``) each fold trains on one device:
    with ``device_ids=[0, 1]`` the folds go to the devices in turn (fold k on
    ``device_ids[k % 2]``) and the devices train side by side, each its folds
    one after another; the refit trains on all the listed devices. Each device
    keeps one session (``_sessions``): a fold's rows are uploaded once for its
    whole path over ``Cs``, and a fold's answers do not depend on the device
    that trained it (the same solver, the same rows, the same C path).

    Parameters
    ----------
    Cs : int or list of float, default=10
        An int n: ``np.logspace(-4, 4, n)``, as scikit-learn.
    l1_ratios : array-like of float in [0, 1], default="warn"
        scikit-learn's grid of elastic-net mixing values, searched together with
        ``Cs`` (each fold fits one path over ``Cs`` per value): 0 is the l2
        penalty, 1 the l1 penalty, in between the elastic net, which trains with
        ``solver="saga"`` only (as in scikit-learn; ValueError otherwise), and so
        does a grid that mixes values. With ``penalty`` left at its default the
        grid decides the penalty, as in scikit-learn 1.8+; a ``penalty`` given
        other than "elasticnet" ignores the values (scikit-learn's UserWarning).
        "warn" (scikit-learn 1.9's default) and None: no grid, penalty l2 (with
        scikit-learn's FutureWarning: its default becomes ``(0.0,)`` in 1.10).
    cv : int, cross-validation generator or iterable, default=None
        scikit-learn's ``cv`` (None: 5-fold stratified).
    penalty : {"l2", "l1", "elasticnet"}, default="deprecated"
        scikit-learn's deprecated spelling; left at "deprecated" the penalty
        follows ``l1_ratios``.
    scoring : str or callable, default=None
        A scikit-learn scorer; None is accuracy. Test-fold sample weights are
        passed to it.
    refit : bool, default=True
        Refit on all the data at the best (C, l1_ratio); False averages the folds'
        coefficients, each fold's at its own best point, and ``C_`` (``l1_ratio_``)
        is those points' mean, as scikit-learn.
    use_legacy_attributes : bool, default="warn"
        scikit-learn 1.9's switch between the two forms of the fitted attributes
        below; "warn" is True with scikit-learn's FutureWarning (its default
        becomes False in 1.10).
    fit_intercept, dual, solver, tol, max_iter, class_weight, n_jobs,
    verbose, intercept_scaling, random_state, multi_class, use_gpu, device_ids,
    max_gpu_memory, num_threads :
        As in ``LogisticRegression``.

    Attributes
    ----------
    Cs_ : ndarray of shape (n_Cs,)
    l1_ratios_ : ndarray of shape (n_l1_ratios,)
        ``l1_ratios`` as an array; ``[None]`` without a grid, as scikit-learn.
    C_, l1_ratio_ :
        The chosen C and l1_ratio. Legacy: arrays of shape (n_outputs,), the
        value repeated per output (``l1_ratio_`` is ``[None]`` without a grid and
        refit); new: floats.
    scores_ :
        The test score of every fold and grid point. Legacy: a dict of
        {class: ndarray of shape (n_folds, n_Cs)}, or (n_folds, n_Cs,
        n_l1_ratios) with a grid, the same scores for every class; new: ndarray
        of shape (n_folds, n_l1_ratios, n_Cs).
    coefs_paths_ :
        The folds' models, coefficients then the intercept (``n_dof`` =
        n_features + fit_intercept). Legacy: a dict of {class: ndarray of shape
        (n_folds, n_Cs[, n_l1_ratios], n_dof)}; new: ndarray of shape (n_folds,
        n_l1_ratios, n_Cs, n_outputs, n_dof). NaN where a fold's model has no
        such row: a fold whose training rows hold one class (scored as a constant
        prediction, as scikit-learn's), a class missing from a fold's training
        rows (scikit-learn's path keeps one; ``refit=False`` averages that row
        over the folds that trained it).
    n_iter_ :
        The iterations of each fold's fit at each grid point (the most over
        one-vs-rest problems). Legacy: ndarray of shape (1, n_folds, n_Cs[,
        n_l1_ratios]); new: (n_folds, n_l1_ratios, n_Cs).
    classes_, coef_, intercept_, n_features_in_, training_history_ :
        Of the final model, as in ``LogisticRegression``.
    """

    def __init__(
        self,
        *,
        Cs=10,
        l1_ratios="warn",
        fit_intercept=True,
        cv=None,
        dual=False,
        penalty="deprecated",
        scoring=None,
        solver="auto",
        tol=1e-4,
        max_iter=100,
        class_weight=None,
        n_jobs=None,
        verbose=0,
        refit=True,
        intercept_scaling=1.0,
        random_state=None,
        use_legacy_attributes="warn",
        multi_class="auto",
        use_gpu=False,
        device_ids=None,
        max_gpu_memory=None,
        num_threads=None,
    ):
        self.Cs = Cs
        self.l1_ratios = l1_ratios
        self.fit_intercept = fit_intercept
        self.cv = cv
        self.dual = dual
        self.penalty = penalty
        self.scoring = scoring
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.refit = refit
        self.intercept_scaling = intercept_scaling
        self.random_state = random_state
        self.use_legacy_attributes = use_legacy_attributes
        self.multi_class = multi_class
        self.use_gpu = use_gpu
        self.device_ids = device_ids
        self.max_gpu_memory = max_gpu_memory
        self.num_threads = num_threads

    # LogisticRegression's parameters this class fixes.
    C = 1.0
    l1_ratio = 0.0
    regularizer = None
    warm_start = False
    max_memory = None
    distributed = False

    _parameter_constraints = {
        **LogisticRegression._parameter_constraints,
        "l1_ratios": [Checked(_check_l1_ratios, "None or an array-like of numbers in [0, 1]")],
        "use_legacy_attributes": [Checked(_check_legacy, "True or False")],
    }

    def _l1_ratio_grid(self):
        """scikit-learn 1.9's reading of ``penalty`` and ``l1_ratios``: the
        penalty, the ``l1_ratios_`` attribute, and each grid point's
        LogisticRegression (penalty, l1_ratio).

        Left at "deprecated" the penalty follows the grid (all 0 or no grid: l2,
        all 1: l1, else the elastic net); a penalty given other than elasticnet
        ignores the values (each point the same fit, as scikit-learn's path).
        """
        l1_ratios = None if isinstance(self.l1_ratios, str) else self.l1_ratios
        _check_l1_ratios(l1_ratios)
        if self.penalty != "deprecated":
            penalty = self.penalty
        elif l1_ratios is None or all(r == 0 for r in l1_ratios):
            penalty = "l2"
        elif all(r == 1 for r in l1_ratios):
            penalty = "l1"
        else:
            penalty = "elasticnet"
        if l1_ratios is None:
            if penalty == "elasticnet":
                _check_l1_ratios(())  # scikit-learn's message: elasticnet needs the grid
            return penalty, np.asarray([None]), [(penalty, 0.0)]
        points = [(penalty, float(r) if penalty == "elasticnet" else 0.0) for r in l1_ratios]
        return penalty, np.asarray(l1_ratios), points

    def _path_model(self, point=None):
        """The LogisticRegression of one grid point (penalty, l1_ratio); None: the first."""
        penalty, l1_ratio = point if point is not None else self._l1_ratio_grid()[2][0]
        shared = {name: getattr(self, name) for name in _SHARED}
        if self.num_threads is not None:  # Snap ML's old name of n_jobs
            estimator_threads(self)  # both given: the same value, or ValueError
            shared["n_jobs"] = self.num_threads
        return LogisticRegression(penalty=penalty, l1_ratio=l1_ratio, warm_start=True, distributed=False, **shared)

    def _warn_as_scikit_learn(self, penalty):
        """scikit-learn 1.9's warnings about ``l1_ratios`` and ``use_legacy_attributes``
        (its FutureWarnings name its own coming defaults, which snap_ml follows)."""
        if isinstance(self.l1_ratios, str):
            warnings.warn(_L1_RATIOS_DEFAULT, FutureWarning)
        elif self.l1_ratios is None and self.penalty == "deprecated":
            warnings.warn(_L1_RATIOS_NONE, FutureWarning)
        elif self.l1_ratios is not None and self.penalty not in ("deprecated", "elasticnet"):
            warnings.warn(f"l1_ratios parameter is only used when penalty is 'elasticnet'. Got (penalty={penalty})")
        if isinstance(self.use_legacy_attributes, str):
            warnings.warn(_LEGACY_DEFAULT.format(name=type(self).__name__), FutureWarning)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Cross-validate (C, l1_ratio) over ``Cs`` and ``l1_ratios``, then fit at the best.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        if self.refit not in (True, False):
            raise ValueError(f"refit must be True or False, got {self.refit!r}")
        penalty, l1_ratios_, points = self._l1_ratio_grid()
        self._warn_as_scikit_learn(penalty)
        for point in points:
            # Solver and penalty errors (the elastic net: saga only) before any fold trains.
            self._path_model(point)._resolve()
        X, y = validate_data(self, X, y, accept_sparse=_ACCEPT_SPARSE, accept_large_sparse=True,
                             dtype=_DTYPES, multi_output=False)
        if hasattr(X, "tocsr"):
            X = X.tocsr()  # rows are taken per fold
        check_classification_targets(y)
        if np.unique(y).size < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes, but the data contains only one "
                f"class: {y[0]!r}; pass labels of two or more classes"
            )
        weights = _check_sample_weight(sample_weight, X)
        if isinstance(self.Cs, (int, np.integer)) and not isinstance(self.Cs, bool):
            # Bounded: 2**63 made an empty grid (IndexError), 10**12 asked numpy
            # for 8 TB; each C is a fit per fold, so no search needs more.
            if not 1 <= self.Cs <= _MAX_CS:
                raise ValueError(f"Cs must be an integer in [1, {_MAX_CS}] or a list of C values, got {self.Cs!r}")
            Cs = np.logspace(-4, 4, int(self.Cs))
        else:
            Cs = np.asarray(self.Cs, dtype=np.float64).ravel()
            # Cs=[] ended in numpy's "attempt to get argmax of an empty sequence".
            if Cs.size == 0 or not np.all(np.isfinite(Cs)) or np.any(Cs <= 0):
                raise ValueError(f"Cs must be an integer >= 1 or a non-empty list of C values > 0, got {self.Cs!r}")
        # "balanced" once, from all the rows and their weights, for every fold and
        # the refit, as scikit-learn (each fold's own counts chose another C).
        class_weight = self.class_weight
        if isinstance(class_weight, str) and class_weight == "balanced":
            classes = np.unique(y)
            class_weight = dict(zip(classes, compute_class_weight("balanced", classes=classes, y=y,
                                                                  sample_weight=weights)))
        order = np.argsort(Cs)  # the path: strongest regularisation first
        scorer = get_scorer(self.scoring if self.scoring is not None else "accuracy")
        folds = list(check_cv(self.cv, y, classifier=True).split(X, y))
        classes = np.unique(y)
        n_outputs = 1 if classes.size == 2 else classes.size
        n_dof = X.shape[1] + int(bool(self.fit_intercept))
        # scikit-learn's legacy layout: (fold, C, l1_ratio); paths add (output, dof).
        scores = np.empty((len(folds), Cs.size, len(points)))
        n_iter = np.zeros((len(folds), Cs.size, len(points)), dtype=np.int32)
        paths = np.full((len(folds), Cs.size, len(points), n_outputs, n_dof), np.nan)
        threads = estimator_threads(self)
        use_gpu, device_ids, _ = check_device_options(self.use_gpu, self.device_ids, self.max_gpu_memory)
        if use_gpu:
            # One device per fold (an empty list: the default device), a session
            # each, and one for the refit's devices (the same where one is listed).
            fold_devices = [[device] for device in device_ids] or [[]]
            _sessions.keep_only(self, fold_devices + [device_ids])
            side_by_side = min(len(fold_devices), len(folds))
        else:
            fold_devices = [None]
            _sessions.session_for(self, False, ())
            side_by_side = max(1, min(len(folds), threads))
        fold_jobs = max(1, threads // side_by_side)

        def path_rows(model):
            """The rows of coefs_paths_ a fold's model fills: all of them, or, where a
            class is missing from the fold's training rows (scikit-learn's path
            keeps every class), those of its classes; None where it is left a
            binary model of a multiclass problem (no row per class): NaN stays."""
            if model.coef_.shape[0] == n_outputs:
                return slice(None)
            if model.coef_.shape[0] > 1:
                return np.searchsorted(classes, model.classes_)
            return None

        def path(k, devices):
            """Fold k's paths over Cs, one per l1_ratio, on ``devices`` (None: the
            CPU): fills scores[k], n_iter[k] and paths[k]."""
            train, test = folds[k]
            present = np.unique(y[train])
            if present.size == 1:
                # A class with too few rows left this fold's training rows one
                # class: scikit-learn's path then predicts it everywhere, at every C.
                # So does this fold, rather than refusing what scikit-learn fits.
                constant = DummyClassifier(strategy="constant", constant=present[:1]).fit(X, y)
                scores[k] = (scorer(constant, X[test], y[test], sample_weight=weights[test])
                             if weights[test].any() else np.nan)
                return  # no weights to average (refit=False): paths[k] stays NaN
            # The fold's rows once: every point of its paths trains on the same rows
            # (the session's upload serves them all).
            X_train, y_train, w_train = X[train], y[train], weights[train]
            for m, point in enumerate(points):
                model = self._path_model(point).set_params(n_jobs=fold_jobs)
                if class_weight is not self.class_weight:  # balanced: the classes this fold trains on
                    model.set_params(class_weight={c: w for c, w in class_weight.items() if c in present})
                if devices is not None:
                    model.set_params(device_ids=devices or self.device_ids)
                    _sessions.share_sessions(self, model)
                for j in order:
                    model.set_params(C=float(Cs[j])).fit(X_train, y_train, sample_weight=w_train)
                    # A test fold whose weights are all zero has no score.
                    scores[k, j, m] = (scorer(model, X[test], y[test], sample_weight=weights[test])
                                       if weights[test].any() else np.nan)
                    n_iter[k, j, m] = np.max(model.n_iter_)
                    rows = path_rows(model)
                    if rows is not None:
                        paths[k, j, m, rows, :X.shape[1]] = model.coef_
                        if self.fit_intercept:
                            paths[k, j, m, rows, -1] = model.intercept_

        def slot(j):
            """The folds of side-by-side slot j, one after another (on a GPU: on
            fold_devices[j], so that a device trains one fold at a time)."""
            for k in range(j, len(folds), side_by_side):
                path(k, fold_devices[j % len(fold_devices)])

        if side_by_side == 1:
            slot(0)
        else:
            with ThreadPoolExecutor(max_workers=side_by_side) as pool:
                list(pool.map(slot, range(side_by_side)))
        # The best mean score over the folds; ties to the first in (C, l1_ratio)
        # order, as scikit-learn's argmax.
        mean = np.nanmean(scores, axis=0)
        best_C, best_l1 = np.unravel_index(int(np.nanargmax(mean)), mean.shape)
        final = clone(self._path_model(points[best_l1])).set_params(
            C=float(Cs[best_C]), warm_start=False, class_weight=class_weight)
        _sessions.share_sessions(self, final)
        final.fit(X, y, sample_weight=weights)
        chosen_C, chosen_l1 = Cs[best_C], l1_ratios_[best_l1]
        if not self.refit:
            # scikit-learn's: each fold's own best point, those folds' models
            # averaged, C_ (l1_ratio_) their mean (not every fold at the best mean
            # score's point). scikit-learn 1.9 raises a TypeError here with an
            # elastic-net grid (it indexes the l1_ratios tuple with an array).
            # Folds without a model there (one class: NaN in paths) are left out,
            # and a class missing from a fold's training rows (its row NaN) is
            # averaged over the folds that trained it.
            fold_best = [(k, *np.unravel_index(int(np.nanargmax(scores[k])), scores[k].shape))
                         for k in range(len(folds)) if not np.all(np.isnan(scores[k]))]
            fold_best = [(k, j, m) for k, j, m in fold_best if not np.isnan(paths[k, j, m]).all()]
            averaged = np.nanmean([paths[k, j, m] for k, j, m in fold_best], axis=0)
            final.coef_ = averaged[:, :X.shape[1]]
            final.intercept_ = averaged[:, -1] if self.fit_intercept else np.zeros(n_outputs)
            chosen_C = np.mean([Cs[j] for _, j, _ in fold_best])
            chosen_l1 = np.mean([l1_ratios_[m] for _, _, m in fold_best]) if penalty == "elasticnet" else 0.0
        self.Cs_ = Cs
        self.l1_ratios_ = l1_ratios_
        self.classes_ = final.classes_
        # float64 whatever X's dtype, as scikit-learn's (it converts X to float64).
        self.coef_ = np.asarray(final.coef_, dtype=np.float64)
        self.intercept_ = np.asarray(final.intercept_, dtype=np.float64)
        self.training_history_ = final.training_history_
        self.solver_plan_ = final.solver_plan_
        self._problem_ = final._problem_
        self._set_search_attributes(chosen_C, chosen_l1, scores, paths, n_iter, penalty)
        return self

    def _set_search_attributes(self, C, l1_ratio, scores, paths, n_iter, penalty):
        """C_, l1_ratio_, scores_, coefs_paths_ and n_iter_ in scikit-learn 1.9's
        legacy or new form (``use_legacy_attributes``); the arrays arrive in the
        legacy layout (fold, C, l1_ratio[, output, dof])."""
        legacy = self.use_legacy_attributes is not False
        grid = self.l1_ratios is not None and not isinstance(self.l1_ratios, str)
        if not legacy:
            self.C_ = float(C)
            self.l1_ratio_ = float(l1_ratio) if grid else (1.0 if self.penalty == "l1" else 0.0)
            self.scores_ = np.swapaxes(scores, 1, 2)
            self.n_iter_ = np.swapaxes(n_iter, 1, 2)
            self.coefs_paths_ = np.swapaxes(paths, 1, 2)
            return
        # One entry per class (binary: the positive class), the same C repeated.
        keys = self.classes_[1:] if self.classes_.size == 2 else self.classes_
        self.C_ = np.full(keys.size, C)
        self.l1_ratio_ = np.asarray([l1_ratio] * keys.size)
        if not grid:  # scikit-learn drops the l1_ratio axis without a grid
            scores, paths, n_iter = scores[:, :, 0], paths[:, :, 0], n_iter[:, :, 0]
        self.scores_ = {key: scores.copy() for key in keys}
        self.coefs_paths_ = {key: paths[..., k, :] for k, key in enumerate(keys)}
        self.n_iter_ = n_iter[None]

    def score(self, X, y=None, sample_weight=None):
        """The ``scoring`` score on (X, y), as scikit-learn's ``LogisticRegressionCV.score``
        (None: the mean accuracy; it was the accuracy whatever ``scoring``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Or, with ``scoring=None``, the path of a ``.snap`` file (as ``LogisticRegression.score``).
        y : array-like of shape (n_samples,), default=None
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        float
        """
        if self.scoring is None:
            return super().score(X, y, sample_weight=sample_weight)
        if is_path(X):
            raise ValueError(f"scoring={self.scoring!r} scores arrays; pass X and y as arrays, or use "
                             "scoring=None (the accuracy, which also reads a .snap file)")
        weights = {} if sample_weight is None else {"sample_weight": sample_weight}
        return get_scorer(self.scoring)(self, X, y, **weights)

    def _resolve(self):
        return self._path_model()._resolve()
