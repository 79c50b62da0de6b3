"""snapml 1.x's ``privacy=True``: its estimator's model trained by DP-SGD
(``snap_ml._privacy``) instead of the exact solvers, at snapml's delta of 0.01
("Learned model will be (privacy_epsilon, 0.01)-private")."""

import numbers

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets

from .._privacy import dp_sgd

DELTA = 0.01  # snapml 1.x's


def _check(name, value, integer=False):
    kind = numbers.Integral if integer else numbers.Real
    if not isinstance(value, kind) or isinstance(value, bool) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be {'an integer >= 1' if integer else 'a finite number > 0'}, got {value!r}")


def check_privacy(model, sample_weight):
    """ValueError for what DP-SGD does not train."""
    _check("eta", model.eta)
    _check("batch_size", model.batch_size, integer=True)
    _check("privacy_epsilon", model.privacy_epsilon)
    _check("grad_clip", model.grad_clip)
    _check("max_iter", model.max_iter, integer=True)
    if model.penalty != "l2":
        raise ValueError(f"privacy=True trains the L2-regularised model only, got penalty={model.penalty!r}")
    if model.use_gpu or model._device_ids():
        raise ValueError("privacy=True trains on the CPU only: leave use_gpu=False and device_ids=[]")
    if sample_weight is not None or getattr(model, "class_weight", None) is not None:
        raise ValueError("privacy=True bounds each row's influence by grad_clip: sample_weight and "
                         "class_weight are not supported with it")


def rng_for(random_state):
    """The noise's generator: fresh OS entropy unless a seed is given. A known seed
    makes the noise known, which voids the guarantee: seeds are for tests."""
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(2**31 - 1))
    return np.random.default_rng(random_state)


def fit_private(model, estimator, X, y, sample_weight):
    """Train ``estimator`` (an unfitted snap_ml estimator of ``model``'s loss) by
    DP-SGD on (X, y) and set its fitted attributes; record the privacy spent on
    ``model``. Two classes only for classification (one-vs-rest would spend the
    budget once per class)."""
    check_privacy(model, sample_weight)
    X = check_array(X, accept_sparse="csr", dtype=np.float64)
    y = np.asarray(y)
    classifier = hasattr(estimator, "predict_proba")
    if classifier:
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.size != 2:
            raise ValueError(f"privacy=True trains binary classifiers only, got {classes.size} classes")
        targets = np.where(y == classes[1], 1.0, -1.0)
    else:
        targets = y.astype(np.float64)
    w, intercept, sigma, spent = dp_sgd(
        X, targets, "logistic" if classifier else "squared", float(model.regularizer), float(model.eta),
        int(model.batch_size), int(model.max_iter), float(model.grad_clip), float(model.privacy_epsilon),
        DELTA, bool(model.fit_intercept), float(model.intercept_scaling), rng_for(model.random_state))
    estimator.coef_ = w[np.newaxis, :] if classifier else w
    estimator.intercept_ = np.array([intercept]) if classifier else float(intercept)
    estimator.n_features_in_ = X.shape[1]
    estimator.n_iter_ = np.array([model.max_iter], dtype=np.int32)
    estimator.training_history_ = []
    if classifier:
        estimator.classes_ = classes
    model.noise_multiplier_ = sigma
    model.privacy_epsilon_ = spent
    model.privacy_delta_ = DELTA
    return estimator
