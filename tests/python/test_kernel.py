"""kernel="rbf": random Fourier features (Rahimi & Recht 2007) computed by the core,
equal to scikit-learn's RBFSampler with the same random matrix, and a linear model
on them that separates what a linear model on the rows cannot."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_moons
from sklearn.kernel_approximation import RBFSampler

import snap_ml
import snap_ml.ibm
from conftest import load_dataset
from snap_ml._kernel import RbfFeatures


@pytest.mark.parametrize("sparse", [False, True])
def test_features_equal_rbf_samplers(sparse):
    X, _ = load_dataset("heart_scale")
    X = X if sparse else X.toarray()
    ours = RbfFeatures(gamma=0.2, n_components=150, random_state=7, n_jobs=2).fit(X).transform(X)
    theirs = RBFSampler(gamma=0.2, n_components=150, random_state=7).fit_transform(X)
    assert sp.issparse(ours) and ours.shape == theirs.shape
    # The core stores values as float32: the features agree to float32's rounding.
    np.testing.assert_allclose(ours.toarray(), theirs, atol=2e-6)


def test_the_model_is_rbf_samplers_plus_the_linear_model():
    X, y = load_dataset("heart_scale")
    kernel = dict(gamma=0.1, n_components=200, random_state=3)
    ours = snap_ml.ibm.LogisticRegression(kernel="rbf", dual=False, tol=1e-9, **kernel).fit(X, y)
    Z = RBFSampler(**kernel).fit_transform(X)
    reference = snap_ml.ibm.LogisticRegression(dual=False, tol=1e-9).fit(Z, y)
    assert ours.coef_.shape == (1, 200)
    np.testing.assert_allclose(ours.coef_, reference.coef_, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours.predict_proba(X), reference.predict_proba(Z), atol=1e-5)


def test_rbf_features_separate_the_moons():
    X, y = make_moons(n_samples=3000, noise=0.15, random_state=0)
    train, test = slice(0, 2000), slice(2000, None)
    linear = snap_ml.ibm.LogisticRegression(fit_intercept=True).fit(X[train], y[train])
    rbf = snap_ml.ibm.LogisticRegression(kernel="rbf", gamma=2.0, n_components=300, regularizer=0.01,
                                          fit_intercept=True).fit(X[train], y[train])
    linear_accuracy = np.mean(linear.predict(X[test]) == y[test])
    rbf_accuracy = np.mean(rbf.predict(X[test]) == y[test])
    assert linear_accuracy < 0.9  # the moons are not linearly separable
    assert rbf_accuracy >= 0.97 and rbf_accuracy > linear_accuracy + 0.07


@pytest.mark.parametrize("estimator", [snap_ml.ibm.SupportVectorMachine, snap_ml.ibm.LinearRegression])
def test_every_estimator_takes_the_kernel(estimator):
    X, y = make_moons(n_samples=400, noise=0.1, random_state=1)
    model = estimator(kernel="rbf", gamma=1.0, n_components=64).fit(X, y)
    assert model.coef_.shape == (1, 64)
    assert model.predict(X).shape == (400,)


@pytest.mark.parametrize("parameters, message", [
    (dict(kernel="poly"), "kernel must be 'linear' or 'rbf'"),
    (dict(kernel="rbf", gamma=0.0), "gamma must be a finite number > 0"),
    (dict(kernel="rbf", n_components=0), "n_components must be an integer >= 1"),
])
def test_bad_kernel_parameters(parameters, message):
    X, y = make_moons(n_samples=50, random_state=0)
    with pytest.raises(ValueError, match=message):
        snap_ml.ibm.LogisticRegression(**parameters).fit(X, y)


def test_random_state_none_is_a_fixed_seed():
    X, y = make_moons(n_samples=200, random_state=0)
    first = snap_ml.ibm.LogisticRegression(kernel="rbf", n_components=32).fit(X, y)
    second = snap_ml.ibm.LogisticRegression(kernel="rbf", n_components=32).fit(X, y)
    np.testing.assert_array_equal(first.coef_, second.coef_)


def _gpu_trains():
    try:
        snap_ml.LogisticRegression(use_gpu=True).fit(np.eye(2), [0, 1])
    except ValueError:
        return False
    return True


def test_the_gpu_features_equal_the_cpus_or_say_why_not():
    """With use_gpu / device_ids the features come from the GPU backend's kernel:
    equal to the CPU's where a GPU trains; a ValueError naming the GPU elsewhere,
    never the CPU's features in its place."""
    X, y = load_dataset("heart_scale")
    cpu = RbfFeatures(gamma=0.2, n_components=500, random_state=1, n_jobs=1).fit(X).transform(X)
    gpu = RbfFeatures(gamma=0.2, n_components=500, random_state=1, n_jobs=1, device=0).fit(X)
    if not _gpu_trains():
        with pytest.raises(ValueError, match="GPU|CUDA|device"):
            gpu.transform(X)
        with pytest.raises(ValueError, match="GPU|CUDA|device"):
            snap_ml.ibm.LogisticRegression(kernel="rbf", use_gpu=True).fit(X, y)
        return
    np.testing.assert_allclose(gpu.transform(X).toarray(), cpu.toarray(), atol=1e-6)
    model = snap_ml.ibm.LogisticRegression(kernel="rbf", device_ids=[0], n_components=500, random_state=1,
                                           regularizer=0.1).fit(X, y)
    reference = snap_ml.ibm.LogisticRegression(kernel="rbf", n_components=500, random_state=1,
                                               regularizer=0.1).fit(X, y)
    assert np.mean(model.predict(X) == reference.predict(X)) >= 0.98
