"""Snap ML's MPI estimators: snapml 1.x's classes (``snap_ml.ibm``) that also take
``num_threads`` (the old name of ``n_jobs``) and the dataset objects of
``Loaders`` in place of ``(X, y)``.

Under ``mpirun -n K`` every rank calls ``fit(train_data)`` with its own part of the
file and the ranks train one model together (CoCoA+, as ``snap_ml``'s
``distributed="auto"``); ``predict`` and ``predict_proba`` score this rank's rows,
and ``Metrics`` adds the ranks up. ``predict_proba`` returns the positive class's
probability only, shape (n_rows,), as Snap ML's MPI implementation did.
"""

import inspect

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from snap_ml import _core, ibm
from snap_ml._params import resolve_threads

from ._dataset import Dataset


def _rows(data, n_features):
    """An svmlight dataset's rows, ``n_features`` wide (fewer: zeros; more: ignored)."""
    X = data.X
    if X.shape[1] == n_features:
        return X
    if X.shape[1] > n_features:
        return X[:, :n_features]
    return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))


class _MpiModel:
    """``fit``, ``predict`` and ``predict_proba`` of a ``Dataset``; the rest is the
    snapml 1.x class's (the second base)."""

    def _n_jobs(self):
        num_threads, n_jobs = self.num_threads, self.n_jobs
        if num_threads is None:
            return n_jobs
        if n_jobs not in (1, num_threads):
            raise ValueError(
                f"num_threads is the old name of n_jobs: pass one of them, got num_threads={num_threads!r} "
                f"and n_jobs={n_jobs!r}"
            )
        return num_threads

    def _common_inner(self):
        common = super()._common_inner()
        common["n_jobs"] = self._n_jobs()
        return common

    def _check_ibm_parameters(self):
        saved = self.n_jobs
        try:
            self.n_jobs = self._n_jobs()
            super()._check_ibm_parameters()
        finally:
            self.n_jobs = saved

    def fit(self, X_train, y_train=None, sample_weight=None):
        """Fit on a ``Loaders`` dataset (this rank's part; the ranks train together
        under ``mpirun``), or on arrays as snapml 1.x's classes do.

        Returns
        -------
        self
        """
        if isinstance(X_train, Dataset):
            if self.normalize and X_train.ranks > 1:
                raise ValueError(
                    "normalize=True scales each feature by statistics of the training rows, which "
                    "under mpirun each rank would compute from its own part; normalise the file "
                    "beforehand, or leave normalize=False (as Snap ML's MPI API ignored it)"
                )
            if getattr(self, "privacy", False) and X_train.ranks > 1:
                raise ValueError("privacy=True trains in one process only (as in Snap ML's MPI API)")
            if y_train is not None or sample_weight is not None:
                raise ValueError("y_train and sample_weight must be None with a dataset: it holds the labels")
            if X_train.is_snap:
                return super().fit(X_train.path)
            return super().fit(X_train.X, X_train.y)
        return super().fit(X_train, y_train, sample_weight)

    def _dataset_scores(self, data):
        """This rank's rows' scores, shape (n_rows, n_outputs)."""
        estimator = self.estimator_
        if not data.is_snap:
            return np.atleast_2d(estimator._scores(self._X(_rows(data, self.n_features_in_))).T).T
        classes = np.arange(len(self.classes_)) if hasattr(self, "classes_") else None
        model = estimator._core_model(classes)
        model.check()
        scores, labels, _ = _core.decision_function_file(model, data.snap_file(),
                                                         threads=resolve_threads(self._n_jobs()))
        data._y = labels
        return scores

    def decision_function(self, X, n_jobs=None):
        if isinstance(X, Dataset):
            scores = self._dataset_scores(X)
            return scores[:, 0] if scores.shape[1] == 1 else scores
        return super().decision_function(X, n_jobs)

    def predict(self, X, n_jobs=None):
        """Labels (or values) of this rank's rows of a dataset, or of arrays."""
        if not isinstance(X, Dataset):
            return super().predict(X, n_jobs)
        scores = self._dataset_scores(X)
        if not hasattr(self, "classes_"):
            return scores[:, 0]
        return self.estimator_._labels(scores)


class _MpiProbabilities:
    def predict_proba(self, X, n_jobs=None):
        """Of a dataset: the positive class's probability for this rank's rows, shape
        (n_rows,) (Snap ML's MPI API; more than two classes: (n_rows, n_classes),
        one-vs-rest normalised). Of arrays: snapml 1.x's (n_samples, n_classes)."""
        if not isinstance(X, Dataset):
            return super().predict_proba(X, n_jobs)
        scores = self._dataset_scores(X)
        if scores.shape[1] == 1:
            return expit(scores[:, 0])
        proba = expit(scores)
        return proba / proba.sum(axis=1, keepdims=True)


def _with_num_threads(name, base, mixins):
    """``base`` (a snapml 1.x class) with ``num_threads`` after its own parameters.

    scikit-learn reads an estimator's parameters from its ``__init__`` signature;
    this one is the base's plus ``num_threads=None`` (see ``_MpiModel._n_jobs``).
    """
    signature = inspect.signature(base.__init__)

    def __init__(self, *args, num_threads=None, **kwargs):
        base.__init__(self, *args, **kwargs)
        self.num_threads = num_threads

    parameters = list(signature.parameters.values())
    parameters.append(inspect.Parameter("num_threads", inspect.Parameter.KEYWORD_ONLY, default=None))
    __init__.__signature__ = signature.replace(parameters=parameters)
    doc = (f"Snap ML's MPI ``{name}``: ``snap_ml.ibm.{name}`` (same parameters and defaults) that "
           "also takes ``num_threads`` (the old name of ``n_jobs``) and ``Loaders``' datasets.\n\n"
           + (base.__doc__ or ""))
    return type(name, (*mixins, base), {"__init__": __init__, "__doc__": doc,
                                       "__module__": "snap_ml_mpi"})


LogisticRegression = _with_num_threads("LogisticRegression", ibm.LogisticRegression,
                                        (_MpiProbabilities, _MpiModel))
SupportVectorMachine = _with_num_threads("SupportVectorMachine", ibm.SupportVectorMachine, (_MpiModel,))
LinearRegression = _with_num_threads("LinearRegression", ibm.LinearRegression, (_MpiModel,))
