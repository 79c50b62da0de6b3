"""Hostile parameters and input from Python (docs/reliability.md): a thread count
far above the machine's, a feature count whose state does not fit the memory."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification

from snap_ml import LogisticRegression, _core
from snap_ml._params import resolve_threads


def test_a_huge_n_jobs_is_lowered_to_the_core_limit():
    assert resolve_threads(100000) == _core.thread_limit() >= 64
    assert resolve_threads(10**12) == _core.thread_limit()
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    model = LogisticRegression(n_jobs=100000, max_iter=20).fit(X, y)
    assert model.score(X, y) > 0.7


def test_a_feature_count_the_memory_cannot_hold_is_refused():
    # 2^31 - 2 columns (the most a matrix may have: the intercept takes index
    # n_features) in 300 one-vs-rest problems: terabytes of weights.
    n = 300
    X = sp.csr_matrix((np.ones(n), (np.arange(n), np.full(n, 2**31 - 3))), shape=(n, 2**31 - 2))
    with pytest.raises(ValueError, match="features .* need .* of per-feature state"):
        LogisticRegression(n_jobs=1).fit(X, np.arange(n))


@pytest.mark.parametrize(
    "parameters, message",
    [
        (dict(C=1e308), r"C must be a number in \(0, 1e\+100\], got 1e\+308"),
        (dict(intercept_scaling=1e300), r"intercept_scaling must be in \(0, 1e\+100\]"),
        (dict(intercept_scaling=float("nan")), "intercept_scaling must be a finite number > 0"),
        (dict(class_weight={0: 0.0, 1: 0.0}), "at least one class needs a weight above 0"),
        (dict(C=1e60, class_weight={0: 1.0, 1: 1e60}), r"C times a class weight must be at most 1e\+100"),
    ],
)
def test_absurd_costs_and_intercept_scalings_are_refused_with_the_range(parameters, message):
    # C = 1e308 fitted a garbage model with a convergence warning; the intercept
    # scaling 1e300 an all-zero one (its square overflows; snapml/solver.h).
    X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    with pytest.raises(ValueError, match=message):
        LogisticRegression(n_jobs=1, max_iter=20, **parameters).fit(X, y)


def test_control_bytes_in_a_file_reach_the_message_escaped(tmp_path):
    from snap_ml.datasets import load_svmlight_file

    path = tmp_path / "bad.txt"
    path.write_bytes(b"1 1:1\n-1 2:\x1b[31mred\x00tail\n")
    with pytest.raises(ValueError) as raised:
        load_svmlight_file(str(path))
    assert r"'\x1b[31mred\x00tail'" in str(raised.value)


def test_every_save_writes_through_a_link_and_keeps_it(tmp_path):
    # Issue 36, case 0: the temporary file was renamed over the link, which
    # became a regular file (as root, /dev/stdout did: standard output broke for
    # every program on the machine). Links of our own stand for /dev/stdout.
    import os

    from snap_ml.datasets import dump, dump_svmlight_file

    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    (tmp_path / "real").mkdir()
    names = {"model": "real/model", "text": "real/data.svm",
             "binary": "real/data.snap", "checkpoint": "real/ck"}
    for name, target in names.items():
        os.symlink(target, tmp_path / name)
    estimator = LogisticRegression(n_jobs=1).fit(X, y, checkpoint=tmp_path / "checkpoint", checkpoint_interval=0)
    estimator.save_model(tmp_path / "model")
    dump_svmlight_file(X, y, str(tmp_path / "text"))
    dump(X, y, str(tmp_path / "binary"))
    for name, target in names.items():
        assert os.readlink(tmp_path / name) == target, name
    # The finished checkpoint is removed at its target; the link stays.
    assert sorted(os.listdir(tmp_path / "real")) == ["data.snap", "data.svm", "model"]

    # A link to this process's descriptor (/dev/stdout's shape) writes through it,
    # after what the descriptor's file already holds.
    out = tmp_path / "out.txt"
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        os.write(fd, b"first\n")
        os.symlink(f"/proc/self/fd/{fd}", tmp_path / "stdout")
        estimator.save_model(tmp_path / "stdout")
    finally:
        os.close(fd)
    assert os.readlink(tmp_path / "stdout") == f"/proc/self/fd/{fd}"
    assert out.read_text() == "first\n" + (tmp_path / "real" / "model").read_text()


def test_a_finished_fit_removes_what_a_killed_checkpoint_save_left(tmp_path):
    # A save killed before its rename leaves CHECKPOINT.tmp-HOST-PID-XXXXXX. A
    # resumed fit that finished before its next save kept it for good.
    import os
    import socket

    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    host = socket.gethostname().replace("/", "_").replace("-", "_")
    stale = tmp_path / f"ck.tmp-{host}-2147483647-abcdef"  # pid 2^31 - 1: above any pid_max, gone
    stale.write_text("partial")
    LogisticRegression(n_jobs=1).fit(X, y, checkpoint=tmp_path / "ck", checkpoint_interval=3600)
    assert os.listdir(tmp_path) == []


def test_a_checkpoint_that_is_the_training_file_or_no_file_is_refused_before_the_fit(tmp_path):
    # Issue 36, cases 1 and 2 from Python: the checkpoint path is checked as the
    # tools check theirs (snapml/output_path.h), before the fit. A directory gave
    # a basic_filebuf error, a missing directory failed only at the first save
    # (after an interval of training), the training file was read as a damaged
    # checkpoint with the advice to remove it.
    import os

    from snap_ml.datasets import dump

    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    data = tmp_path / "data.snap"
    dump(X, y, str(data))
    before = data.read_bytes()
    os.link(data, tmp_path / "hard.snap")
    estimator = LogisticRegression(n_jobs=1)
    for checkpoint in (data, tmp_path / "hard.snap"):
        with pytest.raises(ValueError, match="the checkpoint .* is the training file .*: writing it would replace"):
            estimator.fit(str(data), checkpoint=checkpoint)
    assert data.read_bytes() == before
    (tmp_path / "dir").mkdir()
    with pytest.raises(OSError, match="it is a directory"):
        estimator.fit(X, y, checkpoint=tmp_path / "dir")
    with pytest.raises(OSError, match="missing"):
        estimator.fit(X, y, checkpoint=tmp_path / "missing" / "ck")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ValueError, match="must be a regular file"):
        estimator.fit(X, y, checkpoint=tmp_path / "fifo")
    assert sorted(os.listdir(tmp_path)) == ["data.snap", "dir", "fifo", "hard.snap"]


@pytest.mark.parametrize("solver", ["lbfgs", "dual"])
def test_a_warm_start_with_a_nan_coefficient_is_refused(solver):
    # Issue 36, case 7: the refit returned a NaN model (n_iter_ 0, every
    # prediction one class; with solver="dual" every coefficient NaN) with only a
    # ConvergenceWarning.
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    estimator = LogisticRegression(n_jobs=1, solver=solver, warm_start=True).fit(X, y)
    estimator.coef_[0, 0] = np.nan
    with pytest.raises(ValueError, match=r"warm start: coefficient \[0, 0\] is nan"):
        estimator.fit(X, y)


@pytest.mark.parametrize("format", ["snapml", "liblinear"])
def test_every_estimator_saves_its_model(tmp_path, format):
    # Issue 36, case 11: LinearSVC and Ridge have no ``regularizer``: save_model
    # raised AttributeError in both formats. A binary LogisticRegression's
    # LIBLINEAR save talked about "multinomial" (two classes are the logistic loss).
    from sklearn.datasets import make_regression

    from snap_ml import LinearSVC, Ridge, load_model

    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    Xr, yr = make_regression(n_samples=100, n_features=4, random_state=0)
    for estimator, (data, target) in ((LinearSVC(), (X, y)), (Ridge(alpha=2.0), (Xr, yr)),
                                      (LogisticRegression(), (X, y))):
        estimator.fit(data, target)
        path = tmp_path / f"{type(estimator).__name__}.{format}"
        estimator.save_model(path, format=format)
        loaded = load_model(path)
        np.testing.assert_allclose(loaded.predict(data), estimator.predict(data))


@pytest.mark.parametrize(
    "make, message",
    [
        # Case 12: pybind11's "incompatible function arguments".
        (lambda: LogisticRegression(max_iter=10**12), r"max_iter must be an integer in \[1, 2147483647\]"),
        # penalty='l1' ignored l1_ratio.
        (lambda: LogisticRegression(penalty="l1", solver="liblinear", l1_ratio=1.5), r"l1_ratio must be .* 1.5"),
        (lambda: LogisticRegression(penalty="l1", solver="liblinear", l1_ratio=np.nan), "l1_ratio must be .* nan"),
        (lambda: LogisticRegression(penalty="l1", solver="liblinear", l1_ratio=-0.1), "l1_ratio must be"),
        # numpy's "attempt to get argmax of an empty sequence".
        (lambda: __import__("snap_ml").LogisticRegressionCV(Cs=[]), "Cs must be .* non-empty list"),
        # A C the user never set: 1 / (2 alpha) = 5e299.
        (lambda: __import__("snap_ml").Ridge(alpha=1e-300), "alpha must be 0 .* or at least 5e-101, got 1e-300"),
        (lambda: __import__("snap_ml").LinearRegression(regularizer=1e-300), "regularizer must be .* >= 1e-100"),
    ],
)
def test_out_of_range_parameters_get_a_clear_message(make, message):
    X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    with pytest.raises(ValueError, match=message):
        make().fit(X, y)


def test_load_model_of_no_path_is_a_clear_error():
    from snap_ml import load_model

    with pytest.raises(ValueError, match="path must be a file path .* got None"):
        load_model(None)


def test_logistic_regression_cv_fits_a_class_too_small_for_every_fold():
    # One row of class 1: four of five training folds hold class 0 only.
    # scikit-learn fits (those folds predict class 0); snap_ml refused ("needs
    # samples of at least 2 classes").
    import warnings

    from sklearn.linear_model import LogisticRegressionCV as SkLogisticRegressionCV

    from snap_ml import LogisticRegressionCV

    X, _ = make_classification(n_samples=200, n_features=5, random_state=0)
    y = np.zeros(200, dtype=int)
    y[7] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's warning about the small class
        ours = LogisticRegressionCV().fit(X, y)
        theirs = SkLogisticRegressionCV().fit(X, y)
        averaged = LogisticRegressionCV(refit=False).fit(X, y)
    assert ours.score(X, y) == theirs.score(X, y)
    assert np.all(np.isfinite(averaged.coef_))


def test_ridge_fits_the_intercept_at_any_alpha_and_huge_targets_as_scikit_learn():
    # Issue 36, case 8: Ridge(alpha=1e20) left the intercept at 0.0 (scikit-learn:
    # the targets' mean), and targets near 1e300 gave an all-zero model.
    from sklearn.datasets import make_regression
    from sklearn.linear_model import LinearRegression as SkLinearRegression
    from sklearn.linear_model import Ridge as SkRidge

    from snap_ml import LinearRegression, Ridge

    X, y = make_regression(n_samples=200, n_features=5, noise=1.0, random_state=0)
    y = y + 40.0
    for alpha in (1.0, 1e6, 1e20):
        ours, theirs = Ridge(alpha=alpha).fit(X, y), SkRidge(alpha=alpha).fit(X, y)
        np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-6)
        np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-5, atol=1e-12)
    for scale in (1e200, 1e300):
        for ours, theirs in ((LinearRegression(), SkLinearRegression()), (Ridge(), SkRidge())):
            ours.fit(X, y * scale)
            theirs.fit(X, y * scale)
            np.testing.assert_allclose(ours.coef_ / scale, theirs.coef_ / scale, rtol=1e-6)
            np.testing.assert_allclose(ours.intercept_ / scale, theirs.intercept_ / scale, rtol=1e-6)


def test_a_least_squares_fit_the_data_scale_defeats_warns():
    # Features of magnitude 1e-9 (SI units) or uniform sample weights of 1e-20
    # stopped LinearRegression at w = 0 (R^2 0; scikit-learn's 0.52) where no
    # decrease was representable, without a word: the estimator asks the core for
    # 1e-10, and an early stop was taken for that tol's machine precision. The
    # direct step now solves them (newton_direct.cpp, unit diagonal); where a
    # fit still stops short of the user's own tol, it warns.
    import warnings

    from sklearn.datasets import load_diabetes
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LinearRegression as SkLinearRegression

    from snap_ml import LinearRegression

    X, y = load_diabetes(return_X_y=True)
    reference = SkLinearRegression().fit(X, y).score(X, y)
    for X_fit, weights in ((X * 1e-8, None), (X, np.full(len(y), 1e-20))):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            assert LinearRegression().fit(X_fit, y, sample_weight=weights).score(X_fit, y) == pytest.approx(reference)
    # A column whose variation float32 lost (1.7e9 with steps of 128) beside the
    # intercept: no solver meets tol there; the fit says so.
    rng = np.random.default_rng(0)
    blurred = np.column_stack([1.7e9 + rng.uniform(size=400), rng.normal(size=400)]).astype(np.float32)
    with pytest.warns(ConvergenceWarning, match="short of tol"):
        LinearRegression().fit(blurred, rng.normal(size=400))


def test_sample_weights_below_float32s_smallest_value_are_refused():
    # The core keeps sample weights in float32: uniform weights of 1e-46 became 0,
    # and Ridge's intercept 0.0 where scikit-learn's is the targets' mean.
    from sklearn.datasets import load_diabetes

    from snap_ml import Ridge

    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="below float32's smallest value"):
        Ridge().fit(X, y, sample_weight=np.full(len(y), 1e-46))
    # Small but representable weights train as scikit-learn's.
    from sklearn.linear_model import Ridge as SkRidge

    weights = np.full(len(y), 1e-30)
    np.testing.assert_allclose(Ridge(alpha=1e-30).fit(X, y, sample_weight=weights).intercept_,
                               SkRidge(alpha=1e-30).fit(X, y, sample_weight=weights).intercept_, rtol=1e-4)
