"""A scikit-learn user's scripts with only the import changed.

Each script below is written once against a namespace of estimator classes (what
``from sklearn.linear_model import ...`` would bind) and run twice: with
scikit-learn's classes and with snap_ml's. The answers are compared to the
tolerance of scikit-learn's own solvers at their defaults: lbfgs stops on a
projected-gradient rule at tol=1e-4, and on breast cancer its probabilities are
6e-3 (coefficients 1.4e-2) from the optimum, ours 8e-4 (2e-3), so the two agree
to about 1e-2 (test_pipeline also checks that ours are the closer). Where both
sides solve exactly (least squares, ridge), to 1e-6.
"""

import os
import pickle
import types

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.linear_model
import sklearn.svm
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, make_regression
from sklearn.metrics import log_loss
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import snap_ml
from snap_ml import _core

from conftest import load_dataset

SKLEARN = types.SimpleNamespace(
    LogisticRegression=sklearn.linear_model.LogisticRegression,
    LogisticRegressionCV=sklearn.linear_model.LogisticRegressionCV,
    LinearRegression=sklearn.linear_model.LinearRegression,
    Ridge=sklearn.linear_model.Ridge,
    LinearSVC=sklearn.svm.LinearSVC,
)
SNAP_ML = types.SimpleNamespace(
    LogisticRegression=snap_ml.LogisticRegression,
    LogisticRegressionCV=snap_ml.LogisticRegressionCV,
    LinearRegression=snap_ml.LinearRegression,
    Ridge=snap_ml.Ridge,
    LinearSVC=snap_ml.LinearSVC,
)


def both(script, *args):
    """(scikit-learn's answer, ours) of one script."""
    return script(SKLEARN, *args), script(SNAP_ML, *args)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, random_state=0)


# ---- the scripts ------------------------------------------------------------------


def pipeline_script(lm, X_train, X_test, y_train, y_test):
    model = make_pipeline(StandardScaler(), lm.LogisticRegression())
    model.fit(X_train, y_train)
    return model.predict_proba(X_test), model.score(X_test, y_test), model[-1].coef_


def test_pipeline(cancer):
    (p_sk, s_sk, c_sk), (p_ours, s_ours, c_ours) = both(pipeline_script, *cancer)
    np.testing.assert_allclose(p_ours, p_sk, atol=1e-2)
    np.testing.assert_allclose(c_ours, c_sk, atol=2e-2)
    assert s_ours == s_sk
    # Both against the optimum (lbfgs run to convergence): ours is the closer.
    optimum = make_pipeline(StandardScaler(), sklearn.linear_model.LogisticRegression(
        tol=1e-12, max_iter=100000)).fit(cancer[0], cancer[2])
    p_best = optimum.predict_proba(cancer[1])
    # (1.9e-3 against 6e-3 at the default tol 1e-4 when measured.)
    assert np.abs(p_ours - p_best).max() < 0.5 * np.abs(p_sk - p_best).max()


def grid_search_script(lm, X, y):
    search = GridSearchCV(
        make_pipeline(StandardScaler(), lm.LogisticRegression()),
        {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}, cv=4,
    )
    search.fit(X, y)
    return search.best_params_, search.cv_results_["mean_test_score"]


def test_grid_search(cancer):
    X_train, _, y_train, _ = cancer
    (best_sk, scores_sk), (best_ours, scores_ours) = both(grid_search_script, X_train, y_train)
    assert best_ours == best_sk
    np.testing.assert_allclose(scores_ours, scores_sk, atol=0.01)


def logistic_cv_script(lm, X_train, X_test, y_train, y_test):
    scaler = StandardScaler().fit(X_train)
    model = lm.LogisticRegressionCV(Cs=8, cv=4, scoring="accuracy").fit(scaler.transform(X_train), y_train)
    return float(np.ravel(model.C_)[0]), model.score(scaler.transform(X_test), y_test)


def test_logistic_regression_cv_picks_scikit_learns_C(cancer):
    (C_sk, s_sk), (C_ours, s_ours) = both(logistic_cv_script, *cancer)
    assert C_ours == C_sk
    assert s_ours == pytest.approx(s_sk, abs=0.01)


def weighted_balanced_script(lm, X_train, X_test, y_train, y_test):
    # class_weight="balanced" with sample weights: scikit-learn balances the
    # classes' weights summed (compute_class_weight's sample_weight), not their
    # row counts; ours did the counts, and 16 % of such predictions differed.
    X_train = StandardScaler().fit(X_train).transform(X_train)
    weights = np.where(y_train == 1, 5.0, 1.0)
    logistic = lm.LogisticRegression(class_weight="balanced").fit(X_train, y_train, sample_weight=weights)
    svc = lm.LinearSVC(class_weight="balanced").fit(X_train, y_train, sample_weight=weights)
    return logistic.predict_proba(X_train), logistic.intercept_, svc.decision_function(X_train)


def test_balanced_class_weight_counts_the_sample_weights(cancer):
    (p_sk, b_sk, d_sk), (p_ours, b_ours, d_ours) = both(weighted_balanced_script, *cancer)
    np.testing.assert_allclose(p_ours, p_sk, atol=1e-2)
    np.testing.assert_allclose(b_ours, b_sk, atol=2e-2)
    np.testing.assert_allclose(d_ours, d_sk, atol=5e-2 * np.abs(d_sk).max())


def logistic_cv_variants_script(lm, X_train, X_test, y_train, y_test):
    # "balanced" is computed once on all of y (with the sample weights), as
    # scikit-learn: ours recomputed it in every fold and chose another C; refit=False
    # averages each fold's model at that fold's best C, C_ their mean.
    X_train = StandardScaler().fit(X_train).transform(X_train)
    weights = np.where(y_train == 1, 3.0, 1.0)
    balanced = lm.LogisticRegressionCV(Cs=6, cv=3, class_weight="balanced", tol=1e-8, max_iter=5000).fit(
        X_train, y_train, sample_weight=weights)
    averaged = lm.LogisticRegressionCV(Cs=6, cv=3, refit=False, tol=1e-8, max_iter=5000).fit(X_train, y_train)
    return balanced.C_, balanced.scores_[1], averaged.C_, averaged.coef_


def test_logistic_regression_cv_balanced_and_refit_false_as_scikit_learn(cancer):
    (C_sk, scores_sk, Cavg_sk, coef_sk), (C_ours, scores_ours, Cavg_ours, coef_ours) = both(
        logistic_cv_variants_script, *cancer)
    np.testing.assert_allclose(scores_ours, scores_sk, atol=0.02)
    np.testing.assert_allclose(C_ours, C_sk)
    np.testing.assert_allclose(Cavg_ours, Cavg_sk)
    np.testing.assert_allclose(coef_ours, coef_sk, atol=2e-2 * np.abs(coef_sk).max())


def cross_val_script(lm, X, y, n_jobs):
    return (cross_val_score(lm.Ridge(alpha=0.5), X, y, cv=5, n_jobs=n_jobs),
            cross_val_score(lm.LinearRegression(), X, y, cv=5, n_jobs=n_jobs))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_cross_val_score(n_jobs):
    # n_jobs=2: joblib's worker processes (under mpirun too: they are no ranks).
    X, y = load_diabetes(return_X_y=True)
    (ridge_sk, ols_sk), (ridge_ours, ols_ours) = both(cross_val_script, X, y, n_jobs)
    np.testing.assert_allclose(ridge_ours, ridge_sk, rtol=1e-6)
    np.testing.assert_allclose(ols_ours, ols_sk, rtol=1e-6)


def pickle_script(lm, X_train, X_test, y_train, y_test):
    model = lm.LogisticRegression(C=0.1).fit(StandardScaler().fit_transform(X_train), y_train)
    restored = pickle.loads(pickle.dumps(model))
    return restored.predict(StandardScaler().fit(X_train).transform(X_test)), restored.get_params()


def test_pickle(cancer):
    (pred_sk, params_sk), (pred_ours, params_ours) = both(pickle_script, *cancer)
    np.testing.assert_array_equal(pred_ours, pred_sk)
    assert params_ours["C"] == params_sk["C"] == 0.1


def pandas_script(lm, frame, target):
    model = lm.LinearRegression().fit(frame, target)
    return model.predict(frame.iloc[:20]), list(model.feature_names_in_), model.score(frame, target)


def test_pandas_input():
    pd = pytest.importorskip("pandas")
    data = load_diabetes(as_frame=True)
    assert isinstance(data.data, pd.DataFrame)
    (pred_sk, names_sk, r2_sk), (pred_ours, names_ours, r2_ours) = both(pandas_script, data.data, data.target)
    assert names_ours == names_sk
    np.testing.assert_allclose(pred_ours, pred_sk, rtol=1e-6)
    assert r2_ours == pytest.approx(r2_sk, abs=1e-9)


def least_squares_script(lm, X, y):
    model = lm.LinearRegression().fit(X, y)
    return model.coef_, model.intercept_, model.score(X, y)


def sparse_regression():
    rng = np.random.RandomState(0)
    X = sp.random(2000, 60, density=0.1, format="csr", random_state=rng)
    y = X @ rng.normal(size=60) + 0.1 * rng.normal(size=2000) + 3.0
    return X, y


def float32_values(X):
    """X as the core holds it: its values rounded to float32."""
    return X.astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("data", ["diabetes", "sparse"])
def test_linear_regression_is_least_squares(data):
    X, y = load_diabetes(return_X_y=True) if data == "diabetes" else sparse_regression()
    (coef_sk, b_sk, r2_sk), (coef_ours, b_ours, r2_ours) = both(least_squares_script, X, y)
    assert r2_ours == pytest.approx(r2_sk, abs=1e-6)
    # The core trains on float32 values: diabetes's coefficients (up to 792) move by
    # up to 1.8e-5 when X is rounded to float32, in scikit-learn's fit too.
    assert np.linalg.norm(coef_ours - coef_sk) <= 1e-6 * np.linalg.norm(coef_sk)
    assert b_ours == pytest.approx(b_sk, abs=1e-6)
    # On the same values the two least-squares solutions agree to 1e-8 of the
    # coefficients' norm plus 1e-6. The relative part: ours stops on ||g|| <=
    # 1e-10 ||g(0)||, and diabetes's Hessian has condition number 5e4, so the
    # rounding (which the thread count changes) leaves 9e-7 to 3.4e-6 on
    # coefficients up to 792. The absolute part: scikit-learn solves sparse X by
    # LSQR, to its own tolerance (4e-7 from ours on `sparse` at any thread count).
    coef_same, b_same, _ = least_squares_script(SKLEARN, float32_values(X), y)
    assert np.linalg.norm(coef_ours - coef_same) <= 1e-8 * np.linalg.norm(coef_same) + 1e-6
    assert b_ours == pytest.approx(b_same, abs=1e-6)


def ridge_script(lm, X, y, alpha, weights):
    model = lm.Ridge(alpha=alpha).fit(X, y, sample_weight=weights)
    return model.coef_, model.intercept_


@pytest.mark.parametrize("alpha", [1e-3, 0.1, 10.0])
def test_ridge_objective_and_alpha(alpha):
    X, y = make_regression(n_samples=300, n_features=20, noise=5.0, random_state=0)
    weights = np.random.RandomState(1).uniform(0.5, 2.0, size=len(y))
    (coef_sk, b_sk), (coef_ours, b_ours) = both(ridge_script, X, y, alpha, weights)
    np.testing.assert_allclose(coef_ours, coef_sk, rtol=1e-6, atol=1e-5)
    coef_same, b_same = ridge_script(SKLEARN, float32_values(X), y, alpha, weights)
    np.testing.assert_allclose(coef_ours, coef_same, rtol=1e-6, atol=1e-6)
    assert b_ours == pytest.approx(b_same, abs=1e-6)


def linear_svc_script(lm, X_train, X_test, y_train, y_test):
    scaler = StandardScaler().fit(X_train)
    model = lm.LinearSVC(C=0.1, tol=1e-8, max_iter=100000).fit(scaler.transform(X_train), y_train)
    three = lm.LinearSVC().fit(*load_iris(return_X_y=True))
    return (model.decision_function(scaler.transform(X_test)), model.score(scaler.transform(X_test), y_test),
            type(three.n_iter_))


def test_linear_svc(cancer):
    (d_sk, s_sk, n_iter_sk), (d_ours, s_ours, n_iter_ours) = both(linear_svc_script, *cancer)
    np.testing.assert_allclose(d_ours, d_sk, atol=1e-4)
    assert s_ours == s_sk
    assert n_iter_ours is n_iter_sk is int  # the most over the classes (it was an array of one per class)


def multiclass_script(lm, X_train, X_test, y_train):
    # scikit-learn's default for more than two classes is the multinomial model
    # (1.9 has no multi_class argument); snap_ml's multi_class="auto" is it too.
    model = lm.LogisticRegression().fit(X_train, y_train)
    return model.predict_proba(X_test), model.predict(X_test), model.coef_, model.intercept_


def five_class_sparse():
    """A generated sparse problem of 5 classes: 2,000 rows, 300 features, 3 % dense."""
    rng = np.random.RandomState(0)
    X = sp.random(2000, 300, density=0.03, format="csr", random_state=rng)
    scores = X @ rng.normal(scale=3.0, size=(300, 5)) + 0.3 * rng.normal(size=(2000, 5))
    return train_test_split(X, np.argmax(scores, axis=1), random_state=0)


@pytest.mark.parametrize("data", ["iris", "sparse"])
def test_multiclass_matches_sklearn_default(data):
    if data == "iris":
        X, y = load_iris(return_X_y=True)
        X_train, X_test, y_train, y_test = train_test_split(StandardScaler().fit_transform(X), y, random_state=0)
    else:
        X_train, X_test, y_train, y_test = five_class_sparse()
    (p_sk, y_sk, coef_sk, b_sk), (p_ours, y_ours, coef_ours, b_ours) = both(multiclass_script, X_train, X_test,
                                                                            y_train)
    assert coef_ours.shape == coef_sk.shape
    # lbfgs at its default tol=1e-4 (the module's docstring): probabilities to 1e-2.
    np.testing.assert_allclose(p_ours, p_sk, atol=1e-2)
    assert np.mean(y_ours == y_sk) >= 0.99
    # Against the optimum (lbfgs run to convergence): ours is certified within a
    # relative duality gap of tol / 100 = 1e-6 (the free-intercept multinomial
    # certificate), so its objective is at most 1e-6 above the optimum's, and at
    # or below lbfgs's at the same tol; its probabilities were 1.1e-4 from the
    # optimum's at most (lbfgs's: 1e-2).
    optimum = sklearn.linear_model.LogisticRegression(tol=1e-12, max_iter=100000).fit(X_train, y_train)
    classes = np.unique(y_train)
    f_ours, f_sk, f_optimum = (multinomial_objective(X_train, np.searchsorted(classes, y_train), coef, b)
                               for coef, b in ((coef_ours, b_ours), (coef_sk, b_sk),
                                               (optimum.coef_, optimum.intercept_)))
    assert f_ours <= f_optimum * (1 + 1e-6), (f_ours, f_optimum)
    assert f_ours <= f_sk * (1 + 1e-12), (f_ours, f_sk)
    np.testing.assert_allclose(p_ours, optimum.predict_proba(X_test), atol=1e-3)
    np.testing.assert_array_equal(y_ours, optimum.predict(X_test))


def multinomial_objective(X, y_index, coef, intercept):
    """sum_i CE_i + 0.5 ||coef||^2 (C = 1, intercepts free): the core's multinomial objective."""
    scores = X @ np.asarray(coef).T + np.asarray(intercept)
    top = scores.max(axis=1, keepdims=True)
    log_normaliser = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
    return (log_normaliser - scores[np.arange(len(y_index)), y_index]).sum() + 0.5 * (np.asarray(coef) ** 2).sum()


def multinomial_script(lm, X, y):
    model = lm.LogisticRegression(tol=1e-8, max_iter=1000).fit(X, y)
    return model.predict_proba(X), model.predict(X), model.coef_, model.intercept_


def test_multinomial_matches_sklearn_multinomial():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    (p_sk, y_sk, coef_sk, b_sk), (p_ours, y_ours, coef_ours, b_ours) = both(multinomial_script, X, y)
    np.testing.assert_array_equal(y_ours, y_sk)
    np.testing.assert_allclose(p_ours, p_sk, atol=1e-5)
    np.testing.assert_allclose(coef_ours, coef_sk, atol=1e-4 * np.abs(coef_sk).max())
    # Free intercepts are unique only up to a common shift (softmax).
    np.testing.assert_allclose(b_ours - b_ours.mean(), b_sk - b_sk.mean(), atol=1e-4 * np.abs(b_sk).max())
    named = snap_ml.LogisticRegression(tol=1e-8, max_iter=1000, multi_class="multinomial").fit(X, y)
    np.testing.assert_array_equal(named.coef_, coef_ours)


@pytest.mark.parametrize(
    "parameters",
    [dict(multi_class="ovr"), dict(solver="liblinear"), dict(solver="dual"), dict(penalty="l1", solver="liblinear")],
    ids=["ovr", "liblinear", "dual", "l1"],
)
def test_auto_is_one_vs_rest_where_the_multinomial_is_not_trained(parameters):
    # scikit-learn raises for liblinear with more than two classes; snap_ml trains
    # its one-vs-rest problems (as OneVsRestClassifier would), as for the other
    # problems its multinomial solver does not train (docs/python.md's table).
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    model = snap_ml.LogisticRegression(tol=1e-8, max_iter=1000, **parameters).fit(X, y)
    assert not model._trains_multinomial()
    scores = model.decision_function(X)
    probabilities = 1.0 / (1.0 + np.exp(-scores))
    np.testing.assert_allclose(model.predict_proba(X), probabilities / probabilities.sum(axis=1, keepdims=True))
    assert snap_ml.LogisticRegression(tol=1e-8)._trains_multinomial()


def test_multiclass_matches_one_vs_rest():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    theirs = OneVsRestClassifier(sklearn.linear_model.LogisticRegression(tol=1e-8)).fit(X, y)
    ours = snap_ml.LogisticRegression(tol=1e-8, multi_class="ovr").fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-5)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def multiclass_cv_script(lm, X_train, X_test, y_train, y_test):
    model = lm.LogisticRegressionCV(Cs=6, cv=3).fit(X_train, y_train)
    return float(np.ravel(model.C_)[0]), model.predict_proba(X_test), model.score(X_test, y_test)


def test_logistic_regression_cv_multiclass_is_multinomial():
    X, y = load_iris(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(StandardScaler().fit_transform(X), y, random_state=0)
    (C_sk, p_sk, s_sk), (C_ours, p_ours, s_ours) = both(multiclass_cv_script, X_train, X_test, y_train, y_test)
    assert C_ours == C_sk
    np.testing.assert_allclose(p_ours, p_sk, atol=1e-2)
    assert s_ours == s_sk


def snap_ml_example_script(lm, X_train, X_test, y_train, y_test, **gpu):
    lr = lm.LogisticRegression(**gpu)
    lr.fit(X_train, y_train)
    return lr.score(X_test, y_test), log_loss(y_test, lr.predict_proba(X_test))


def test_snap_ml_example_on_a9a():
    X, y = load_dataset("a9a")
    X_test, y_test = load_dataset("a9a.t", n_features=X.shape[1])
    (acc_sk, loss_sk), (acc_ours, loss_ours) = both(snap_ml_example_script, X, X_test, y, y_test)
    # scikit-learn's lbfgs stops at max_iter=100 here, unconverged (ConvergenceWarning).
    assert acc_ours == pytest.approx(acc_sk, abs=1e-3)
    assert loss_ours == pytest.approx(loss_sk, rel=1e-3)
    converged = sklearn.linear_model.LogisticRegression(tol=1e-10, max_iter=10000).fit(X, y)
    assert loss_ours == pytest.approx(log_loss(y_test, converged.predict_proba(X_test)), rel=1e-5)


def test_snap_ml_example(cancer):
    # The example's two lines on a small set (scaled: lbfgs converges at its defaults).
    X_train, X_test, y_train, y_test = cancer
    scaler = StandardScaler().fit(X_train)
    (acc_sk, loss_sk), (acc_ours, loss_ours) = both(
        snap_ml_example_script, scaler.transform(X_train), scaler.transform(X_test), y_train, y_test)
    assert acc_ours == acc_sk
    assert loss_ours == pytest.approx(loss_sk, rel=1e-2)


def test_launched_as_a_rank(cancer):
    # Run by test_sklearn_user_mpi.py under `mpirun -n 2`: this process is a rank,
    # and a script whose every rank holds all the data trains once per rank.
    ranks = int(os.environ.get("SNAPML_TEST_MPI_RANKS", "0"))
    if not ranks:
        pytest.skip("run under mpirun by test_sklearn_user_mpi.py")
    assert snap_ml.mpi_world()[1] == ranks
    model = snap_ml.LogisticRegression().fit(cancer[0], cancer[2])
    assert model._data_source == "arrays"


def test_snap_ml_example_device_ids_asks_for_the_gpu(cancer):
    # Snap ML's example: LogisticRegression(device_ids=[0, 1]) without use_gpu.
    X_train, X_test, y_train, y_test = cancer
    model = snap_ml.LogisticRegression(device_ids=[0])
    if not _core.built_with_cuda:
        with pytest.raises(ValueError, match=r"without the CUDA backend.*pip install"):
            model.fit(X_train, y_train)
        return
    try:
        model.fit(X_train, y_train)
    except ValueError as error:
        assert "no CUDA device is visible" in str(error)
        return
    assert model.score(X_test, y_test) > 0.9


# ---- reproducibility and parameters ------------------------------------------------


@pytest.mark.parametrize(
    "estimator",
    [snap_ml.LogisticRegression(), snap_ml.LogisticRegression(solver="liblinear", dual=True),
     snap_ml.LinearSVC(), snap_ml.SupportVectorMachine()],
    ids=["default", "dual", "linear_svc", "svm"],
)
def test_two_fits_are_identical(estimator):
    X, y = load_dataset("a9a")
    a = estimator.fit(X, y).coef_.copy()
    b = estimator.fit(X, y).coef_.copy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "solver", ["lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga", "auto",
               "dual", "primal"],
)
def test_every_solver_name_fits(cancer, solver):
    X_train, X_test, y_train, y_test = cancer
    scaler = StandardScaler().fit(X_train)
    model = snap_ml.LogisticRegression(solver=solver, max_iter=1000).fit(scaler.transform(X_train), y_train)
    assert model.score(scaler.transform(X_test), y_test) > 0.9


def test_free_intercept_solvers_agree_with_lbfgs(cancer):
    X_train, _, y_train, _ = cancer
    X = StandardScaler().fit_transform(X_train)
    theirs = sklearn.linear_model.LogisticRegression(tol=1e-10, max_iter=10000).fit(X, y_train)
    for solver in ("lbfgs", "newton-cg", "sag", "auto"):
        ours = snap_ml.LogisticRegression(solver=solver, tol=1e-10).fit(X, y_train)
        np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-6)


def test_liblinear_solvers_agree_with_liblinear(cancer):
    X_train, _, y_train, _ = cancer
    X = StandardScaler().fit_transform(X_train)
    theirs = sklearn.linear_model.LogisticRegression(solver="liblinear", tol=1e-10, max_iter=10000).fit(X, y_train)
    for dual in (False, True):
        ours = snap_ml.LogisticRegression(solver="liblinear", dual=dual, tol=1e-10, max_iter=10000).fit(X, y_train)
        np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-4, atol=1e-5)


def test_no_penalty(cancer):
    X_train, _, y_train, _ = cancer
    X = StandardScaler().fit_transform(X_train)[:, :5]
    theirs = sklearn.linear_model.LogisticRegression(C=np.inf, tol=1e-10, max_iter=10000).fit(X, y_train)
    for ours in (snap_ml.LogisticRegression(penalty=None, tol=1e-10),
                 snap_ml.LogisticRegression(C=np.inf, tol=1e-10)):
        ours.fit(X, y_train)
        np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-5)


def test_l1_by_l1_ratio_and_by_penalty(cancer):
    X_train, _, y_train, _ = cancer
    X = StandardScaler().fit_transform(X_train)
    by_ratio = snap_ml.LogisticRegression(l1_ratio=1.0, solver="liblinear", C=0.1, max_iter=1000).fit(X, y_train)
    by_name = snap_ml.LogisticRegression(penalty="l1", solver="liblinear", C=0.1, max_iter=1000).fit(X, y_train)
    np.testing.assert_array_equal(by_ratio.coef_, by_name.coef_)
    assert np.sum(by_ratio.coef_ == 0) > 10  # sparse


@pytest.mark.parametrize(
    "parameters, message",
    [
        (dict(l1_ratio=0.5), r"elastic net.*l1_ratio=0.*l1_ratio=1"),
        (dict(penalty="elasticnet", l1_ratio=0.3), r"elastic net"),
        (dict(penalty="l1", solver="lbfgs", fit_intercept=False), r"supports only 'l2'"),
        (dict(dual=True, solver="lbfgs"), r"dual=True.*solver='liblinear'"),
        (dict(solver="newton"), r"solver must be one of"),
        (dict(multi_class="multinomial", solver="liblinear"), r"multinomial.*multi_class='ovr'"),
        (dict(multi_class="multinomial", device_ids=[0]), r"GPU|CUDA|multinomial"),
        (dict(penalty=None, solver="liblinear"), r"needs a penalty"),
    ],
)
def test_unsupported_parameters_say_what_to_use(cancer, parameters, message):
    X_train, _, y_train, _ = cancer
    with pytest.raises(ValueError, match=message):
        snap_ml.LogisticRegression(**parameters).fit(X_train, y_train)


def test_regression_parameters_say_what_to_use():
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="positive=True"):
        snap_ml.LinearRegression(positive=True).fit(X, y)
    with pytest.raises(ValueError, match=r"penalty='l2'.*Ridge"):
        snap_ml.LinearRegression(C=10.0).fit(X, y)
    with pytest.raises(ValueError, match="alpha must be"):
        snap_ml.Ridge(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="crammer_singer|multi_class"):
        snap_ml.LinearSVC(multi_class="crammer_singer").fit(X, y > 150)
    with pytest.raises(ValueError, match="loss='hinge' has no primal solver"):
        snap_ml.LinearSVC(loss="hinge", dual=False).fit(X, y > 150)


def test_snap_ml_names_still_work():
    X, y = load_diabetes(return_X_y=True)
    ridge = snap_ml.LinearRegression(regularizer=2.0, tol=1e-8).fit(X, y)
    same = snap_ml.LinearRegression(penalty="l2", C=0.5, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ridge.coef_, same.coef_)
    assert snap_ml.SupportVectorMachine().loss == "hinge"


def test_gpu_request_without_a_cuda_build_says_how_to_install(cancer, monkeypatch):
    X_train, _, y_train, _ = cancer
    monkeypatch.setattr(_core, "built_with_cuda", False)
    for model in (snap_ml.LogisticRegression(device_ids=[0, 1]), snap_ml.LinearSVC(use_gpu=True)):
        with pytest.raises(ValueError, match=r"built without the CUDA backend.*pip install \.") as error:
            model.fit(X_train, y_train)
        assert "SNAPML_CUDA=ON" in str(error.value)


def test_only_the_newton_fit_tightens_tol():
    # The primal fit takes tol / 100 (its rule is relative to the first gradient);
    # a problem trained by SDCA keeps the user's tol. The device never changes the
    # problem: device_ids trains scikit-learn's lbfgs problem too (by the GPU
    # Newton solver, the core's plan).
    assert snap_ml.LogisticRegression(tol=1e-4)._tol() == pytest.approx(1e-6)
    assert snap_ml.LogisticRegression(tol=1e-4, solver="liblinear", dual=True)._tol() == 1e-4
    # Penalty l1 and the elastic net (newGLMNET) keep tol: LIBLINEAR's rule. With
    # saga, more than two classes train the multinomial L1 model (orthant-wise
    # L-BFGS), certified at tol / 1000; two classes, the binary one at tol.
    assert snap_ml.LogisticRegression(tol=1e-4, penalty="l1", solver="liblinear")._tol() == 1e-4
    for saga in (snap_ml.LogisticRegression(tol=1e-4, penalty="l1", solver="saga"),
                 snap_ml.LogisticRegression(tol=1e-4, l1_ratio=0.5, solver="saga")):
        assert saga._tol() == pytest.approx(1e-7)
        assert saga._problem_for_classes(saga._resolve(), 2).tol == 1e-4
        assert saga._problem_for_classes(saga._resolve(), 3).tol == pytest.approx(1e-7)
    assert snap_ml.LogisticRegression(tol=1e-4, device_ids=[0])._tol() == pytest.approx(1e-6)
    assert snap_ml.LogisticRegression(device_ids=[0])._problem(True) == snap_ml.LogisticRegression()._problem(False)


def test_class_weight_may_name_a_class_a_fold_lacks(cancer):
    # scikit-learn ignores class_weight keys of classes y lacks where every class
    # of y has its weight: cross-validation on a rare class whose rows a fold
    # leaves out scored nan (FitFailedWarning) here, and refuses them where some
    # class of y has no weight.
    import sklearn.linear_model as skl
    import sklearn.svm as sksvm
    from sklearn.model_selection import KFold, cross_val_score

    import snap_ml

    X, y = load_iris(return_X_y=True)
    X, y = np.vstack([X[:40], X[50:90], X[100:101]]), np.concatenate([y[:40], y[50:90], y[100:101]])
    weights = {0: 1.0, 1: 1.0, 2: 5.0}
    folds = KFold(3, shuffle=True, random_state=0)
    for ours, theirs in ((snap_ml.LogisticRegression, skl.LogisticRegression), (snap_ml.LinearSVC, sksvm.LinearSVC)):
        got = cross_val_score(ours(class_weight=weights, max_iter=1000), X, y, cv=folds, error_score="raise")
        want = cross_val_score(theirs(class_weight=weights, max_iter=1000), X, y, cv=folds, error_score="raise")
        np.testing.assert_allclose(got, want, atol=0.02)
        two = y < 2
        for model in (ours(class_weight={0: 1.0, 7: 2.0}), theirs(class_weight={0: 1.0, 7: 2.0})):
            with pytest.raises(ValueError, match="not in class_weight"):
                model.fit(X[two], y[two])
