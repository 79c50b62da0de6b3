"""LogisticRegressionCV's l1_ratios grid and use_legacy_attributes, as scikit-learn
1.9's: each script is run with scikit-learn's class and with ours on the same data
(only the import changes), and the answers are compared.

scikit-learn's own docstring example is ``LogisticRegressionCV(...,
use_legacy_attributes=False, l1_ratios=(0,))``; ours raised a TypeError on the
first and refused any l1_ratios but None. The tolerances are those of
scikit-learn's solvers at the tol given (lbfgs at 1e-4, saga at 1e-5): the
fold scores (log-loss) agree to 1e-3, the chosen point exactly.
"""

import warnings

import numpy as np
import pytest
import sklearn.linear_model
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.preprocessing import StandardScaler

import snap_ml

from conftest import int32_indices, load_dataset

CLASSES = (sklearn.linear_model.LogisticRegressionCV, snap_ml.LogisticRegressionCV)


def both(X, y, **parameters):
    """(scikit-learn's fitted LogisticRegressionCV, ours) with the same parameters."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # each side's ConvergenceWarning at the weakest C
        return tuple(cls(**parameters).fit(X, y) for cls in CLASSES)


def assert_same_search(theirs, ours, legacy, score_atol):
    """The same chosen point, the attributes in the same form, and close fold scores."""
    assert type(ours.C_) is type(theirs.C_) and type(ours.l1_ratio_) is type(theirs.l1_ratio_)
    np.testing.assert_array_equal(ours.C_, theirs.C_)
    np.testing.assert_array_equal(ours.l1_ratio_, theirs.l1_ratio_)
    np.testing.assert_array_equal(ours.l1_ratios_, theirs.l1_ratios_)
    np.testing.assert_array_equal(ours.Cs_, theirs.Cs_)
    assert np.shape(ours.n_iter_) == np.shape(theirs.n_iter_)
    if legacy:
        assert list(ours.scores_) == list(theirs.scores_) == list(theirs.coefs_paths_) == list(ours.coefs_paths_)
        for key in theirs.scores_:
            np.testing.assert_allclose(ours.scores_[key], theirs.scores_[key], atol=score_atol)
            assert ours.coefs_paths_[key].shape == theirs.coefs_paths_[key].shape
    else:
        np.testing.assert_allclose(ours.scores_, theirs.scores_, atol=score_atol)
        assert ours.coefs_paths_.shape == theirs.coefs_paths_.shape


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def test_scikit_learns_docstring_example():
    # sklearn/linear_model/_logistic.py, LogisticRegressionCV's Examples.
    X, y = load_iris(return_X_y=True)
    theirs, ours = both(X, y, cv=5, random_state=0, use_legacy_attributes=False, l1_ratios=(0,),
                        scoring="neg_log_loss")
    assert ours.C_ == theirs.C_ and ours.l1_ratio_ == theirs.l1_ratio_ == 0.0
    assert ours.scores_.shape == theirs.scores_.shape == (5, 1, 10)
    assert ours.n_iter_.shape == theirs.n_iter_.shape and ours.coefs_paths_.shape == theirs.coefs_paths_.shape
    # Unscaled iris: at C >= 20 lbfgs at tol=1e-4 stops 1e-3 of log-loss short
    # (and both sides at max_iter for the weakest); compared where it converges.
    reached = theirs.Cs_ < 10
    np.testing.assert_allclose(ours.scores_[..., reached], theirs.scores_[..., reached], atol=1e-3)
    np.testing.assert_array_equal(ours.predict(X[:2]), theirs.predict(X[:2]))
    # score() is the scoring's (the log-loss here), as scikit-learn's: ours was the accuracy.
    assert ours.score(X, y) == pytest.approx(theirs.score(X, y), abs=2e-3)


@pytest.mark.parametrize("legacy", [True, False])
@pytest.mark.parametrize("refit", [True, False])
def test_l1_ratios_zero_is_the_l2_search(cancer, legacy, refit):
    X, y = cancer
    theirs, ours = both(X, y, Cs=[0.01, 0.1, 1.0], cv=3, l1_ratios=(0,), use_legacy_attributes=legacy,
                        refit=refit, scoring="neg_log_loss", max_iter=1000)
    assert_same_search(theirs, ours, legacy, score_atol=1e-3)
    assert np.mean(ours.predict(X) == theirs.predict(X)) >= 0.99
    paths_theirs = np.asarray(list(theirs.coefs_paths_.values()) if legacy else theirs.coefs_paths_)
    paths_ours = np.asarray(list(ours.coefs_paths_.values()) if legacy else ours.coefs_paths_)
    np.testing.assert_allclose(paths_ours, paths_theirs, atol=2e-2 * np.abs(paths_theirs).max())


@pytest.mark.parametrize("legacy", [True, False])
def test_elastic_net_grid_chooses_scikit_learns_point(legacy):
    # heart_scale: the best point is the elastic net (C=0.3, l1_ratio=0.2), 4e-3 of
    # log-loss ahead of the next; both sides' scores agree to 1e-3.
    X, y = load_dataset("heart_scale")
    theirs, ours = both(int32_indices(X), y, Cs=[0.3, 1.0, 3.0], cv=3, l1_ratios=(0.2, 0.5, 0.8), solver="saga",
                        tol=1e-5, max_iter=5000, scoring="neg_log_loss", use_legacy_attributes=legacy)
    assert_same_search(theirs, ours, legacy, score_atol=1e-3)
    assert np.ravel(ours.l1_ratio_)[0] == 0.2
    assert np.mean(ours.predict(X) == theirs.predict(X)) >= 0.98


@pytest.mark.parametrize("legacy", [True, False])
def test_an_l1_grid_on_three_classes_searches_the_multinomial_model(legacy):
    # scikit-learn's saga trains the multinomial L1 model for each fold and point;
    # so does ours (it trained one-vs-rest L1 models, whose scores differ).
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    theirs, ours = both(X, y, Cs=[0.1, 0.5, 2.0], cv=3, l1_ratios=(0.5, 1), solver="saga", tol=1e-7,
                        max_iter=100000, scoring="neg_log_loss", use_legacy_attributes=legacy, random_state=0)
    assert_same_search(theirs, ours, legacy, score_atol=1e-4)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-4)


@pytest.mark.parametrize("parameters", [
    dict(l1_ratios=(0, 0.5), solver="lbfgs"),      # the elastic net: saga only
    dict(l1_ratios=(0.5, 1), solver="liblinear"),
    dict(l1_ratios=(1,), solver="lbfgs"),          # l1: liblinear or saga
    dict(l1_ratios=[0.5, 2], solver="saga"),       # values in [0, 1]
    dict(l1_ratios=(), solver="saga"),
    dict(use_legacy_attributes="yes"),
], ids=repr)
def test_refuses_what_scikit_learn_refuses(cancer, parameters):
    X, y = cancer
    for cls in CLASSES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError):
                cls(Cs=2, cv=2, **parameters).fit(X, y)


def future_and_user_warnings(cls, X, y, **parameters):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cls(Cs=2, cv=3, scoring="accuracy", **parameters).fit(X, y)
    return sorted((w.category.__name__, str(w.message)[:60]) for w in caught
                  if w.category in (FutureWarning, UserWarning))


@pytest.mark.parametrize("parameters", [dict(), dict(l1_ratios=None), dict(l1_ratios=(0,)),
                                        dict(use_legacy_attributes=True),
                                        dict(l1_ratios=(0,), use_legacy_attributes=False)], ids=repr)
def test_warns_where_scikit_learn_warns(cancer, parameters):
    # scikit-learn 1.9 warns about its own coming defaults (l1_ratios becomes (0.0,),
    # use_legacy_attributes False); the same warnings, and none once both are set.
    X, y = cancer
    theirs, ours = (future_and_user_warnings(cls, X, y, **parameters) for cls in CLASSES)
    assert ours == theirs
    if "l1_ratios" in parameters and "use_legacy_attributes" in parameters:
        assert ours == []


def test_a_class_missing_from_a_folds_training_rows():
    # A class of one row: the fold that holds it out trains on the other three.
    # scikit-learn's path keeps a row per class; ours leaves that class's row NaN
    # in coefs_paths_ (its model has none), and the search still matches.
    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, n_classes=3, random_state=0)
    y[5] = 3
    theirs, ours = both(X, y, Cs=3, cv=3, l1_ratios=(0,), use_legacy_attributes=False)
    assert ours.C_ == theirs.C_
    assert ours.coefs_paths_.shape == theirs.coefs_paths_.shape
    assert np.isnan(ours.coefs_paths_).any(axis=-1).sum() == 3  # class 3's row, at each C of one fold
    np.testing.assert_allclose(ours.scores_, theirs.scores_, atol=0.02)
    assert np.mean(ours.predict(X) == theirs.predict(X)) >= 0.97
