"""snap_ml estimators inside scikit-learn's machinery: pipelines, grid search with
parallel workers, cross-validation, cloning and pickling."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from snap_ml import LinearRegression, LogisticRegression, SupportVectorMachine


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=400, n_features=15, n_informative=10, class_sep=1.5,
                               random_state=1)


def test_pipeline(data):
    X, y = data
    pipeline = make_pipeline(StandardScaler(), LogisticRegression(random_state=0))
    pipeline.fit(X, y)
    assert pipeline.score(X, y) > 0.8
    assert pipeline.predict_proba(X).shape == (len(y), 2)


def test_grid_search_with_two_workers(data):
    X, y = data
    search = GridSearchCV(
        SupportVectorMachine(random_state=0), {"C": [0.01, 1.0], "loss": ["hinge", "squared_hinge"]},
        cv=3, n_jobs=2,
    )
    search.fit(X, y)
    assert search.best_params_["C"] in (0.01, 1.0)
    assert search.best_score_ > 0.75


def test_cross_val_score(data):
    X, y = data
    scores = cross_val_score(LogisticRegression(random_state=0), X, y, cv=5)
    assert scores.shape == (5,) and scores.mean() > 0.75


def test_regression_cross_val_score():
    X, y = make_regression(n_samples=300, n_features=10, noise=1.0, random_state=0)
    scores = cross_val_score(LinearRegression(random_state=0), X, y, cv=3)
    assert scores.mean() > 0.99


@pytest.mark.parametrize(
    "estimator",
    [LogisticRegression(random_state=0), SupportVectorMachine(random_state=0),
     LinearRegression(random_state=0)],
    ids=["logistic", "svm", "regression"],
)
def test_pickle_round_trip(data, estimator):
    X, y = data
    fitted = clone(estimator).fit(X, y)
    restored = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(restored.predict(X), fitted.predict(X))
    assert restored.get_params() == fitted.get_params()
    assert len(restored.training_history_) == len(fitted.training_history_)


def test_get_and_set_params():
    model = LogisticRegression(C=3.0)
    assert model.get_params()["C"] == 3.0
    assert model.set_params(C=0.5, use_gpu=False).C == 0.5
    assert set(LogisticRegression().get_params()) >= {
        "C", "penalty", "tol", "max_iter", "fit_intercept", "intercept_scaling", "class_weight",
        "n_jobs", "random_state", "verbose", "warm_start", "use_gpu", "device_ids",
        "max_memory", "max_gpu_memory", "regularizer",
    }
