"""Classification on top of ``SnapLinearModel``: labels of any type (numbers,
strings) mapped to ``classes_``, class weights, binary and one-vs-rest problems,
``decision_function`` and ``predict``."""

import contextlib
import numbers

import numpy as np
from sklearn.base import ClassifierMixin, _fit_context
from sklearn.metrics import accuracy_score
from sklearn.utils.multiclass import check_classification_targets

from . import _distributed
from ._base import SnapLinearModel, requires_y
from ._params import checkpoint_arguments
from ._snap_file import is_path


def class_weight_map(class_weight, classes):
    """scikit-learn's ``class_weight`` as the core's (dict of class index -> weight, balanced).

    Parameters
    ----------
    class_weight : dict, "balanced" or None
    classes : ndarray
        The sorted distinct labels (``classes_``).

    Returns
    -------
    weights : dict of {float: float}
    balanced : bool
    """
    if class_weight is None:
        return {}, False
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"class_weight must be a dict, 'balanced' or None, got {class_weight!r}")
        return {}, True
    if not isinstance(class_weight, dict):
        raise ValueError(f"class_weight must be a dict, 'balanced' or None, got {class_weight!r}")
    weights = {}
    absent = []
    for label, weight in class_weight.items():
        position = np.flatnonzero(classes == label)
        if position.size == 0:
            absent.append(label)
            continue
        weight = float(weight)
        if not np.isfinite(weight) or weight < 0:
            raise ValueError(f"class_weight[{label!r}] must be a finite number >= 0, got {weight!r}")
        weights[float(position[0])] = weight
    # scikit-learn's compute_class_weight: keys of classes y lacks are ignored
    # where every class of y has its weight (a cross-validation fold without a
    # rare class), and refused where some class of y has none.
    if absent and len(weights) < classes.size:
        unweighted = [c for k, c in enumerate(classes) if float(k) not in weights]
        raise ValueError(
            f"class_weight names the class {absent[0]!r}, which is not in the training labels "
            f"{list(classes)}, and leaves the classes {unweighted} without a weight; use labels from y "
            "(scikit-learn: the classes are not in class_weight)"
        )
    return weights, False


def file_class_weight_map(class_weight):
    """``class_weight`` for a ``.snap`` file, keyed by the file's numeric labels.

    The file's classes are known only once the core has read its labels, so the
    core checks that each key is one of them (ValueError otherwise).
    """
    if class_weight is None or isinstance(class_weight, str):
        return class_weight_map(class_weight, np.array([]))
    if not isinstance(class_weight, dict):
        raise ValueError(f"class_weight must be a dict, 'balanced' or None, got {class_weight!r}")
    weights = {}
    for label, weight in class_weight.items():
        if not isinstance(label, numbers.Real):
            raise ValueError(
                f"class_weight names the class {label!r}, but the labels of a .snap file are "
                "numbers; key class_weight by the file's label values"
            )
        weights[float(label)] = float(weight)
    return weights, False


class SnapClassifier(ClassifierMixin, SnapLinearModel):
    """Base of the snap_ml classifiers; not meant to be used directly."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None, checkpoint=None, checkpoint_interval=60.0):
        """Fit the model by SDCA on (X, y), or on a ``.snap`` file.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Training data: numpy (float32/float64, C or F order, memmaps) or scipy
            CSR/CSC/COO. CSR with int64 indptr, int32 indices and float32 data is
            used in place; anything else is converted once. Or the path of a
            ``.snap`` file (``snap_ml.datasets.dump``, ``snap-convert``), which
            holds the labels and weights: memory-mapped when it fits
            ``max_memory`` (or without a budget), streamed from disk otherwise.
        y : array-like of shape (n_samples,), default=None
            Class labels of any type scikit-learn accepts (numbers, strings);
            two labels make a binary problem, more make one-vs-rest problems.
            Required with arrays; must be None with a path.
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
        checkpoint = checkpoint_arguments(checkpoint, checkpoint_interval)
        if is_path(X):
            return self._fit_file(resolved, X, y, sample_weight, checkpoint)
        if y is None:
            raise requires_y(self)
        # The multinomial L1 fit (orthant-wise L-BFGS) trains over the ranks; two
        # classes make it the binary L1 problem, which does not (below).
        multinomial_l1 = resolved.loss == "multinomial" and resolved.penalty == "l1"
        distributed = _distributed.resolve_distributed(self.distributed, "l2" if multinomial_l1 else resolved.penalty)
        n_features = None
        # Every rank validates its own rows; the classes and the feature count
        # are agreed over the ranks (docs/distributed.md, "Python").
        with _distributed.agreed_checks() if distributed else contextlib.nullcontext():
            X, y = self._validate_X_y(X, y, y_numeric=False, allow_empty=distributed)
            check_classification_targets(y)
        distributed = distributed and _distributed.train_together(self.distributed, X, y, sample_weight)
        if distributed:
            _distributed.refuse_checkpoint(checkpoint)
        # Each label's index among the sorted classes by a binary search: np.unique's
        # return_inverse sorts the labels with an index instead (8 ms on 40k
        # two-valued labels, a tenth of a small fit; this takes 0.4 ms).
        classes = np.unique(y)
        if distributed:
            classes = _distributed.agree_classes(classes)
            n_features = _distributed.agree_width(X.shape[1])
            if multinomial_l1 and classes.size == 2:  # every rank alike: the classes are agreed
                _distributed.refuse_l1("penalty='l1' (or the elastic net) with two classes")
        labels = np.searchsorted(classes, y)
        if classes.size < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes, but the data "
                f"contains only one class: {classes[0]!r}; pass labels of two or more classes"
            )
        weights, balanced = class_weight_map(self.class_weight, classes)
        resolved = self._problem_for_classes(resolved, classes.size)
        n_outputs = 1 if classes.size == 2 else classes.size
        warm = None
        if hasattr(self, "classes_") and np.array_equal(self.classes_, classes):
            warm = self._warm_model(resolved.loss, n_outputs, n_features or X.shape[1], np.arange(classes.size))
        model = self._train(resolved, X, labels.astype(np.float64), sample_weight, warm, weights, balanced,
                            distributed=distributed, checkpoint=checkpoint)
        self.classes_ = classes
        dtype = self._fitted_dtype(X)  # float32 X: scikit-learn's lbfgs keeps float32
        self.coef_ = model.coef.astype(dtype, copy=False)
        self.intercept_ = model.intercept.astype(dtype, copy=False)
        self.n_iter_ = self._fitted_n_iter(self._n_iter)
        return self

    def _problem_for_classes(self, resolved, n_classes):
        """The problem once the classes are counted: as resolved by default."""
        return resolved

    def _fitted_n_iter(self, per_problem):
        """``n_iter_`` from each problem's epochs: one per problem, as scikit-learn's
        LogisticRegression (LinearSVC: their largest)."""
        return per_problem

    def _fit_file(self, resolved, X, y, sample_weight, checkpoint=None):
        """``fit`` on a ``.snap`` path: classes are the file's distinct labels."""
        weights, balanced = file_class_weight_map(self.class_weight)
        warm = None
        if hasattr(self, "classes_") and self.classes_.dtype.kind in "biuf":
            warm = self._warm_model(resolved.loss, core_classes=self.classes_)
        model = self._train_file(resolved, X, y, sample_weight, warm, weights, balanced, checkpoint=checkpoint)
        self.classes_ = model.classes
        self.coef_ = model.coef
        self.intercept_ = model.intercept
        self.n_iter_ = self._fitted_n_iter(self._n_iter)
        return self

    def decision_function(self, X):
        """Confidence scores w.x + b.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Or the path of a ``.snap`` file, read as ``fit`` reads it.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive: ``classes_[1]``),
        else (n_samples, n_classes)
        """
        scores = self._scores(X)
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X):
        """Class labels: ``classes_[1]`` where the score is > 0 (binary), else the
        class of the largest score (one-vs-rest); a model of one class (LIBLINEAR's,
        through ``load_model``) predicts that class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Or the path of a ``.snap`` file, read as ``fit`` reads it.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self._labels(self._scores(X))

    def _labels(self, scores):
        if len(self.classes_) == 1:  # LIBLINEAR's model of one class (load_model): that class
            return np.repeat(self.classes_, scores.shape[0])
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def score(self, X, y=None, sample_weight=None):
        """Mean accuracy on (X, y), or on a ``.snap`` file.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), str or os.PathLike
            Test samples, or the path of a ``.snap`` file holding them with their
            labels (and weights, which then weigh the accuracy).
        y : array-like of shape (n_samples,), default=None
            True labels; must be None with a path.
        sample_weight : array-like of shape (n_samples,), default=None
            Must be None with a path.

        Returns
        -------
        float
        """
        if is_path(X):
            scores, labels, weights = self._file_scores(X, y, sample_weight)
            return float(accuracy_score(labels, self._labels(scores), sample_weight=weights))
        return super().score(X, y, sample_weight=sample_weight)
