"""scikit-learn's LogisticRegressionCV: a warm-started path over Cs per fold."""

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
from ._logistic import LogisticRegression
from .._params import check_device_options, estimator_threads

# The most Cs a search takes (an integer Cs: that many on a log grid).
_MAX_CS = 10_000

# The parameters an inner LogisticRegression takes from this one.
_SHARED = ("fit_intercept", "dual", "penalty", "solver", "tol", "max_iter", "class_weight",
           "n_jobs", "verbose", "intercept_scaling", "random_state", "multi_class", "use_gpu",
           "device_ids", "max_gpu_memory")


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
    cv : int, cross-validation generator or iterable, default=None
        scikit-learn's ``cv`` (None: 5-fold stratified).
    scoring : str or callable, default=None
        A scikit-learn scorer; None is accuracy. Test-fold sample weights are
        passed to it.
    refit : bool, default=True
        Refit on all the data at the best C; False averages the folds'
        coefficients, each fold's at its own best C, and ``C_`` is those Cs'
        mean, as scikit-learn.
    l1_ratios : None
        Only None (no elastic net).
    fit_intercept, dual, penalty, solver, tol, max_iter, class_weight, n_jobs,
    verbose, intercept_scaling, random_state, multi_class, use_gpu, device_ids,
    max_gpu_memory, num_threads :
        As in ``LogisticRegression``.

    Attributes
    ----------
    Cs_ : ndarray of shape (n_Cs,)
    C_ : ndarray of shape (n_outputs,)
        The chosen C (one value, repeated per output as scikit-learn's).
    scores_ : dict of {class: ndarray of shape (n_folds, n_Cs)}
        The test score of every fold and C (the same array for every class).
    classes_, coef_, intercept_, n_iter_, n_features_in_, training_history_ :
        Of the final model, as in ``LogisticRegression``.
    """

    def __init__(
        self,
        *,
        Cs=10,
        fit_intercept=True,
        cv=None,
        dual=False,
        penalty="l2",
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
        l1_ratios=None,
        multi_class="auto",
        use_gpu=False,
        device_ids=None,
        max_gpu_memory=None,
        num_threads=None,
    ):
        self.Cs = Cs
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
        self.l1_ratios = l1_ratios
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

    def _path_model(self):
        shared = {name: getattr(self, name) for name in _SHARED}
        if self.num_threads is not None:  # Snap ML's old name of n_jobs
            estimator_threads(self)  # both given: the same value, or ValueError
            shared["n_jobs"] = self.num_threads
        return LogisticRegression(warm_start=True, distributed=False, **shared)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Cross-validate C over ``Cs``, then fit at the best one.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        if self.l1_ratios is not None:
            raise ValueError(
                f"l1_ratios={self.l1_ratios!r} asks for the elastic net, which snap_ml does not "
                "train yet; leave l1_ratios=None (penalty l2 or l1)"
            )
        if self.refit not in (True, False):
            raise ValueError(f"refit must be True or False, got {self.refit!r}")
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
        scores = np.empty((len(folds), Cs.size))
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

        def path(k, devices):
            """Fold k's path over Cs on ``devices`` (None: the CPU): its models'
            (coef, intercept) per C."""
            train, test = folds[k]
            present = np.unique(y[train])
            if present.size == 1:
                # A class with too few rows left this fold's training rows one
                # class: scikit-learn's path then predicts it everywhere, at every C.
                # So does this fold, rather than refusing what scikit-learn fits.
                constant = DummyClassifier(strategy="constant", constant=present[:1]).fit(X, y)
                scores[k, :] = (scorer(constant, X[test], y[test], sample_weight=weights[test])
                                if weights[test].any() else np.nan)
                return None  # no weights to average (refit=False)
            model = self._path_model().set_params(n_jobs=fold_jobs)
            if class_weight is not self.class_weight:  # balanced: the classes this fold trains on
                model.set_params(class_weight={c: w for c, w in class_weight.items() if c in present})
            if devices is not None:
                model.set_params(device_ids=devices or self.device_ids)
                _sessions.share_sessions(self, model)
            # The fold's rows once: every C of its path trains on the same rows (the
            # session's upload serves them all).
            X_train, y_train, w_train = X[train], y[train], weights[train]
            coefs = [None] * Cs.size
            for j in order:
                model.set_params(C=float(Cs[j])).fit(X_train, y_train, sample_weight=w_train)
                # A test fold whose weights are all zero has no score.
                scores[k, j] = (scorer(model, X[test], y[test], sample_weight=weights[test])
                                if weights[test].any() else np.nan)
                coefs[j] = (model.coef_.copy(), model.intercept_.copy())
            return coefs

        def slot(j):
            """The folds of side-by-side slot j, one after another (on a GPU: on
            fold_devices[j], so that a device trains one fold at a time)."""
            return {k: path(k, fold_devices[j % len(fold_devices)])
                    for k in range(j, len(folds), side_by_side)}

        if side_by_side == 1:
            done = slot(0)
        else:
            done = {}
            with ThreadPoolExecutor(max_workers=side_by_side) as pool:
                for part in pool.map(slot, range(side_by_side)):
                    done.update(part)
        fold_models = [done[k] for k in range(len(folds))]
        best = int(np.nanargmax(np.nanmean(scores, axis=0)))
        final = clone(self._path_model()).set_params(C=float(Cs[best]), warm_start=False, class_weight=class_weight)
        _sessions.share_sessions(self, final)
        final.fit(X, y, sample_weight=weights)
        chosen_C = Cs[best]
        if not self.refit:
            # scikit-learn's: each fold's own best C, those folds' models averaged,
            # C_ their Cs' mean (not every fold at the best mean score's C).
            fold_best = [(int(np.nanargmax(scores[k])), coefs) for k, coefs in enumerate(fold_models)
                         if coefs is not None and not np.all(np.isnan(scores[k]))]
            final.coef_ = np.mean([coefs[j][0] for j, coefs in fold_best], axis=0)
            final.intercept_ = np.mean([coefs[j][1] for j, coefs in fold_best], axis=0)
            chosen_C = np.mean([Cs[j] for j, _ in fold_best])
        self.Cs_ = Cs
        self.classes_ = final.classes_
        self.coef_ = final.coef_
        self.intercept_ = final.intercept_
        self.n_iter_ = final.n_iter_
        self.training_history_ = final.training_history_
        self.solver_plan_ = final.solver_plan_
        self._problem_ = final._problem_
        self.C_ = np.full(self.coef_.shape[0], chosen_C)
        keys = self.classes_[1:] if self.classes_.size == 2 else self.classes_
        self.scores_ = {key: scores for key in keys}
        return self

    def _resolve(self):
        return self._path_model()._resolve()
