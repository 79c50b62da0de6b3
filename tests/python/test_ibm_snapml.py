"""snap_ml.ibm runs snapml 1.x scripts with one changed import.

One script, written against snapml 1.17's documentation, runs with IBM's
``snapml`` (from PyPI: .ci/install-deps.sh installs it where a wheel exists for the
interpreter) and with ``import snap_ml.ibm as snapml``; the objectives agree within
snapml's default tol (1e-3, relative) and the predictions agree, on a9a, w8a and a
generated set, dense and sparse. Without IBM's package (no wheel for this Python)
the comparison skips, saying so; the tests of our side alone run anyway.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_classification

import snap_ml.ibm
from conftest import load_dataset

# snapml 1.17's documented parameters and attributes; `import snapml` is the line
# that changes.
SCRIPT = """
import snapml

lr = snapml.LogisticRegression(regularizer=REG, n_jobs=2, fit_intercept=True, generate_training_history="summary")
lr.fit(X_train, y_train)
svm = snapml.SupportVectorMachine(regularizer=REG, n_jobs=2)
svm.fit(X_train, y_train)
ridge = snapml.LinearRegression(regularizer=REG, n_jobs=2, normalize=True)
ridge.fit(X_train, y_train)
results = dict(
    lr=(lr.coef_, lr.intercept_, lr.predict(X_test), lr.predict_proba(X_test), lr.classes_, lr.n_iter_),
    svm=(svm.coef_, svm.intercept_, svm.predict(X_test), svm.decision_function(X_test)),
    ridge=(ridge.coef_, ridge.intercept_, ridge.predict(X_test)),
    ridge_rows=NORMALIZED(X_train),
    history=lr.training_history_,
)
"""
OURS = "import snap_ml.ibm as snapml"
TOL = 1e-3  # snapml's default tol, which the script keeps


def _normalized(X):
    """snapml's normalize=True: each feature scaled, then each row to unit L2 norm."""
    from sklearn.preprocessing import MaxAbsScaler, StandardScaler, normalize
    return normalize((MaxAbsScaler() if sp.issparse(X) else StandardScaler()).fit_transform(X))


def _run(script, X_train, y_train, X_test, regularizer):
    namespace = dict(X_train=X_train, y_train=y_train, X_test=X_test, REG=regularizer, NORMALIZED=_normalized)
    exec(compile(script, "snapml_1x_script.py", "exec"), namespace)  # noqa: S102 - the test's own script
    return namespace["results"]


def _ibm_or_skip():
    try:
        import snapml  # noqa: F401
    except ImportError:
        pytest.skip("IBM's snapml is not installed (pip install snapml: .ci/install-deps.sh installs it "
                    "where PyPI has a wheel for this Python)")


def _objective(kind, X, y, coef, intercept, regularizer, intercept_scaling=1.0):
    """Snap ML's objective: sum_i loss_i + regularizer / 2 * (||w||^2 + w_bias^2)."""
    w = np.ravel(coef)
    score = np.asarray(X @ w).ravel() + float(np.ravel(intercept)[0])
    sign = np.where(y > np.min(y), 1.0, -1.0)
    if kind == "lr":
        loss = np.logaddexp(0.0, -sign * score)
    elif kind == "svm":
        loss = np.maximum(0.0, 1.0 - sign * score)
    else:
        loss = (y - score) ** 2
    bias = float(np.ravel(intercept)[0]) / intercept_scaling
    return loss.sum() + 0.5 * regularizer * (w @ w + bias**2)


def _generated(sparse):
    X, y = make_classification(n_samples=3000, n_features=40, n_informative=10, n_redundant=0, random_state=3)
    X_train, X_test = X[:2000], X[2000:]
    if sparse:
        X_train, X_test = sp.csr_matrix(np.where(np.abs(X_train) > 1, X_train, 0)), \
            sp.csr_matrix(np.where(np.abs(X_test) > 1, X_test, 0))
    return X_train, y[:2000].astype(float), X_test, y[2000:]


def _shared(name, test):
    X, y = load_dataset(name, n_features=300 if name == "w8a" else 123)
    if test is None:  # no shared test file: the last fifth
        cut = X.shape[0] * 4 // 5
        return X[:cut], y[:cut], X[cut:], y[cut:]
    X_test, y_test = load_dataset(test, n_features=X.shape[1])
    return X, y, X_test, y_test


CASES = {
    "a9a": lambda: _shared("a9a", "a9a.t"),
    "w8a": lambda: _shared("w8a", None),
    "generated-dense": lambda: _generated(False),
    "generated-sparse": lambda: _generated(True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_snapml_1x_script_gives_ibms_answers(case):
    _ibm_or_skip()
    X_train, y_train, X_test, y_test = CASES[case]()
    regularizer = 1.0
    ibm = _run(SCRIPT, X_train, y_train, X_test, regularizer)
    ours = _run(SCRIPT.replace("import snapml", OURS), X_train, y_train, X_test, regularizer)
    for kind in ("lr", "svm", "ridge"):
        theirs, mine = ibm[kind], ours[kind]
        assert np.shape(mine[0]) == np.shape(theirs[0]), kind
        assert np.shape(mine[1]) == np.shape(theirs[1]), kind
        rows = ours["ridge_rows"] if kind == "ridge" else X_train
        p_ibm = _objective(kind, rows, y_train, theirs[0], theirs[1], regularizer)
        p_ours = _objective(kind, rows, y_train, mine[0], mine[1], regularizer)
        # Ours is certified within tol (relative) of the optimum by its duality
        # gap, so never above IBM's by more than tol; on the smooth losses within
        # tol / 100 (snap_ml.ibm asks its SDCA for that gap: IBM's own fits land
        # 5e-6 to 1e-4 above the optimum, measured).
        bound = TOL if kind == "svm" else TOL / 100
        assert p_ours <= p_ibm * (1 + bound), (kind, p_ours, p_ibm)
        if kind == "svm":
            # snapml's tol bounds a coefficient's change, not the objective: its hinge
            # SVM stopped 1.4% (a9a), 0.2% (w8a) and 5% (the generated set) above the
            # optimum (measured), so only ours is within tol; the two models' labels
            # agree on 94% (the generated sets) to 99.9% (w8a) of the test rows, and
            # ours are as accurate.
            assert np.mean(mine[2] == theirs[2]) >= 0.9, kind
            assert np.mean(mine[2] == y_test) >= np.mean(theirs[2] == y_test) - 0.01, kind
            continue
        # The smooth losses: both within tol of the one optimum.
        assert p_ibm <= p_ours * (1 + TOL), (kind, p_ours, p_ibm)
        if kind == "lr":
            # The same labels but for test rows on the boundary within what tol
            # leaves undetermined (measured: 99.3% on the generated set's 1,000, 99.9%
            # to 100% on a9a.t and w8a's).
            assert np.mean(mine[2] == theirs[2]) >= 0.985, kind
            np.testing.assert_allclose(mine[3], theirs[3], atol=0.05)
        else:
            # Ridge: two points within tol of the optimum predict alike in the mean
            # (a gap of tol * P leaves each coefficient sqrt(2 tol P) of room).
            difference = np.sqrt(np.mean((mine[2] - theirs[2]) ** 2))
            assert difference <= 0.05 * np.sqrt(np.mean(theirs[2] ** 2)), (kind, difference)
    np.testing.assert_array_equal(ours["lr"][4], ibm["lr"][4])
    assert np.shape(ours["lr"][3]) == np.shape(ibm["lr"][3])
    assert set(ibm["history"][0]) <= set(ours["history"][0])


def test_snapml_defaults_and_parameters():
    ours = snap_ml.ibm.LogisticRegression()
    params = ours.get_params()
    for name, value in dict(max_iter=1000, regularizer=1.0, device_ids=[], dual=True, n_jobs=1, tol=0.001,
                            fit_intercept=False, intercept_scaling=1.0, normalize=False, kernel="linear",
                            penalty="l2", generate_training_history=None, use_gpu=False).items():
        assert params[name] == value, name
    assert clone(ours).get_params() == params
    assert snap_ml.ibm.SupportVectorMachine().get_params()["loss"] == "hinge"
    assert snap_ml.ibm.LinearRegression().get_params()["fit_intercept"] is False


def test_dual_false_and_history_levels():
    X, y = load_dataset("heart_scale")
    dual = snap_ml.ibm.LogisticRegression(generate_training_history="full").fit(X, y)
    primal = snap_ml.ibm.LogisticRegression(dual=False, tol=1e-6).fit(X, y)
    assert dual.estimator_.solver == "dual" and primal.estimator_.solver == "primal"
    p = [_objective("lr", X, y, m.coef_, m.intercept_, 1.0) for m in (dual, primal)]
    assert p[0] == pytest.approx(p[1], rel=1e-3)
    history = dual.training_history_[0]
    assert len(history["epochs"]) == len(history["gap"]) >= 1
    np.testing.assert_allclose(history["train_obj"], -history["dual"])  # SDCA's minimised objective
    summary = snap_ml.ibm.LogisticRegression(generate_training_history="summary").fit(X, y).training_history_
    assert np.ndim(summary[0]["epochs"]) == 0
    assert primal.training_history_ is None
    with pytest.raises(ValueError, match="generate_training_history must be"):
        snap_ml.ibm.LogisticRegression(generate_training_history="all").fit(X, y)
    with pytest.raises(ValueError, match="pass dual=False"):
        snap_ml.ibm.LogisticRegression(penalty="l1").fit(X, y)


@pytest.mark.parametrize("name", ["LogisticRegression", "SupportVectorMachine", "LinearRegression"])
def test_a_full_history_has_a_certificate_per_epoch_and_the_same_fit(name):
    """snapml's "full" history has a record per epoch. Ours: epochs 1..n_iter_, each
    an exact certificate (primal - dual = gap, train_obj = -dual), in time order;
    the extra certificates are for the history only, so the model, n_iter_ and the
    last certificate are those of the fit without it (one thread: the same steps)."""
    X, y = load_dataset("heart_scale")
    estimator = getattr(snap_ml.ibm, name)
    full = estimator(generate_training_history="full", n_jobs=1).fit(X, y)
    summary = estimator(generate_training_history="summary", n_jobs=1).fit(X, y)
    history = full.training_history_[0]
    np.testing.assert_array_equal(history["epochs"], np.arange(1, full.n_iter_ + 1))
    assert np.all(np.diff(history["t_elap_sec"]) >= 0)
    assert np.all(np.isfinite(history["gap"]))
    np.testing.assert_allclose(history["gap"], history["primal"] - history["dual"], rtol=0,
                               atol=1e-12 * np.max(np.abs(history["primal"])))
    np.testing.assert_array_equal(history["train_obj"], -history["dual"])
    np.testing.assert_array_equal(full.coef_, summary.coef_)
    assert full.n_iter_ == summary.n_iter_ == summary.training_history_[0]["epochs"]
    # The margin bounds of the hinge losses' gap pass sum to 1e-12, not bit for bit.
    for key in ("primal", "gap"):
        assert history[key][-1] == pytest.approx(summary.training_history_[0][key], rel=1e-12, abs=1e-12)
    assert history["dual"][-1] == summary.training_history_[0]["dual"]


L1_SCRIPT = """
import snapml

lr = snapml.LogisticRegression(penalty="l1", dual=False, regularizer=1.0, n_jobs=2)
lr.fit(X_train, y_train)
results = dict(lr=(lr.coef_, lr.intercept_))
"""


@pytest.mark.parametrize("name, rows", [("mushrooms", None), ("a9a", 5000)])
def test_an_l1_script_lands_as_near_the_optimum_as_ibms(name, rows):
    """snapml's penalty="l1" (its primal coordinate descent, stopped when no
    coefficient moves by more than tol) and ours (newGLMNET on LIBLINEAR's
    sub-gradient rule, asked for tol / 100): ours at or below IBM's objective plus
    tol / 100. At tol itself ours stopped 4.7e-2 above the optimum on mushrooms,
    IBM's 1.5e-4 (docs/benchmarks/primal.md, "L1: the drop-in's tol")."""
    _ibm_or_skip()
    X, y = load_dataset(name)
    if rows is not None:
        X, y = X[:rows], y[:rows]
    y = np.where(y == y.max(), 1.0, -1.0)
    ibm = _run(L1_SCRIPT, X, y, None, 1.0)["lr"]
    ours = _run(L1_SCRIPT.replace("import snapml", OURS), X, y, None, 1.0)["lr"]

    def objective(coef):
        margins = y * (X @ np.ravel(coef))
        return np.sum(np.logaddexp(0, -margins)) + np.abs(coef).sum()

    assert objective(ours[0]) <= objective(ibm[0]) * (1 + TOL / 100), (objective(ours[0]), objective(ibm[0]))
    assert snap_ml.ibm.LogisticRegression(penalty="l1", dual=False)._gap_tol() == pytest.approx(TOL / 100)


def test_a_full_history_is_snap_trains_history_of_the_same_fit(scratch):
    """snap-train --history writes the same records: logistic regression by SDCA
    with C = 1 / regularizer, no intercept, tol / 100 (IbmGLM._SDCA_TOL_DIVISOR),
    seed 0 and one thread, on the same file."""
    import csv
    import os

    from conftest import dataset, ok, snap

    X, y = load_dataset("heart_scale")
    fitted = snap_ml.ibm.LogisticRegression(generate_training_history="full", n_jobs=1, tol=1e-3).fit(X, y)
    path = os.path.join(scratch, "history.csv")
    ok(snap("train", "-s", "7", "-c", "1", "-e", "1e-5", "-n", "1", "--seed", "0", "--history", path,
            dataset("heart_scale"), os.path.join(scratch, "model")))
    with open(path) as f:
        rows = list(csv.DictReader(f))
    history = fitted.training_history_[0]
    np.testing.assert_array_equal(history["epochs"], [int(r["epoch"]) for r in rows])
    for ours, theirs in (("primal", "primal"), ("dual", "dual"), ("gap", "gap")):
        np.testing.assert_allclose(history[ours], [float(r[theirs]) for r in rows], rtol=1e-9)


def test_a_kernel_script_gives_ibms_answers():
    """snapml 1.x's kernel="rbf" on two moons: both packages draw the random matrix
    with scikit-learn's RBFSampler(gamma, n_components, random_state), so the two
    models solve one problem on the same features (to float32 rounding)."""
    _ibm_or_skip()
    from sklearn.datasets import make_moons
    from sklearn.kernel_approximation import RBFSampler

    X, y = make_moons(n_samples=3000, noise=0.15, random_state=0)
    script = """
import snapml
rbf = snapml.LogisticRegression(kernel="rbf", gamma=2.0, n_components=300, regularizer=0.01,
                                fit_intercept=True, random_state=5)
rbf.fit(X_train, y_train)
results = dict(lr=(rbf.coef_, rbf.intercept_, rbf.predict(X_test)))
"""
    ibm = _run(script, X[:2000], y[:2000], X[2000:], 0.01)["lr"]
    ours = _run(script.replace("import snapml", OURS), X[:2000], y[:2000], X[2000:], 0.01)["lr"]
    Z = RBFSampler(gamma=2.0, n_components=300, random_state=5).fit_transform(X[:2000])
    p_ibm = _objective("lr", Z, y[:2000], ibm[0], ibm[1], 0.01)
    p_ours = _objective("lr", Z, y[:2000], ours[0], ours[1], 0.01)
    assert p_ours <= p_ibm * (1 + TOL) and p_ibm <= p_ours * (1 + TOL), (p_ours, p_ibm)
    assert np.mean(ours[2] == ibm[2]) >= 0.99
    assert np.mean(ours[2] == y[2000:]) >= 0.97  # measured: 99.2% (IBM's 99.1%), linear: 87.5%


@pytest.mark.parametrize("name", ["LogisticRegression", "LinearRegression"])
@pytest.mark.parametrize("penalty", ["l1", "l2", "elasticnet", None, "none"])
def test_penalty_accepted_and_refused_as_snapml(name, penalty):
    # snapml 1.x takes penalty 'l1' or 'l2' and refuses the rest with a TypeError;
    # ours trained penalty='elasticnet' (as l2) and None (no penalty) without a word.
    _ibm_or_skip()
    import snapml

    X, y = make_classification(n_samples=200, n_features=8, random_state=0)
    outcomes = []
    for module in (snapml, snap_ml.ibm):
        try:
            getattr(module, name)(penalty=penalty, dual=False).fit(X, y.astype(np.float64))
            outcomes.append("fitted")
        except Exception as error:  # noqa: BLE001 - the type is what is compared
            outcomes.append(type(error))
    ibm, ours = outcomes
    if ibm == "fitted":
        assert ours == "fitted"
    else:
        assert ours != "fitted" and issubclass(ours, ibm), (ibm, ours)


def test_linear_regression_on_a_column_vector_y_has_snapmls_shapes():
    # snap_ml.LinearRegression now keeps scikit-learn's 2-D shapes for y of shape
    # (n, 1); snapml's (which snap_ml.ibm mirrors) predicts 1-D there.
    _ibm_or_skip()
    import snapml

    X, y = make_classification(n_samples=200, n_features=8, random_state=0)
    target = (X @ np.arange(8.0))[:, None]
    shapes = [(np.shape(m.coef_), np.shape(m.intercept_), m.predict(X).shape)
              for m in (module.LinearRegression().fit(X, target) for module in (snapml, snap_ml.ibm))]
    assert shapes[0] == shapes[1]
