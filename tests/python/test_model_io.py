"""Model files: save_model/load_model round trips in both formats, and models
moving between Python and the command-line tools (snap-train, snap-predict)."""

import subprocess

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from snap_ml import LinearRegression, LogisticRegression, SupportVectorMachine, load_model
from snap_ml.datasets import dump_svmlight_file, load_svmlight_file

from conftest import cli_tool, dataset_path


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=200, n_features=12, n_classes=3, n_informative=6,
                               random_state=3)


@pytest.mark.parametrize("format", ["snapml", "liblinear"])
@pytest.mark.parametrize(
    "estimator",
    [LogisticRegression(C=2.0, multi_class="ovr"), LogisticRegression(C=2.0),
     SupportVectorMachine(loss="squared_hinge", fit_intercept=False)],
    ids=["logistic", "multinomial", "svm"],
)
def test_round_trip(tmp_path, data, estimator, format):
    X, y = data
    if format == "liblinear" and estimator._loss_name() == "multinomial":
        with pytest.raises(ValueError, match="no solver_type for the multinomial loss"):
            estimator.fit(X, y).save_model(tmp_path / "model.txt", format=format)
        return
    fitted = estimator.fit(X, y)
    path = tmp_path / "model.txt"
    fitted.save_model(path, format=format)
    loaded = load_model(path)
    assert type(loaded) is type(fitted)
    np.testing.assert_array_equal(loaded.classes_, fitted.classes_)
    np.testing.assert_allclose(loaded.coef_, fitted.coef_, rtol=1e-15 if format == "snapml" else 1e-6)
    np.testing.assert_array_equal(loaded.predict(X), fitted.predict(X))
    assert loaded.fit_intercept == fitted.fit_intercept


def test_regression_round_trip(tmp_path):
    X, y = make_regression(n_samples=100, n_features=5, random_state=0)
    fitted = LinearRegression(penalty="l2", C=10.0).fit(X, y)
    fitted.save_model(tmp_path / "ridge.model")
    loaded = load_model(tmp_path / "ridge.model")
    assert isinstance(loaded, LinearRegression)
    np.testing.assert_array_equal(loaded.predict(X), fitted.predict(X))


def test_string_classes_cannot_be_saved(tmp_path, data):
    X, y = data
    model = LogisticRegression().fit(X, np.array(["a", "b", "c"])[y])
    with pytest.raises(ValueError, match="numeric class labels"):
        model.save_model(tmp_path / "m")


def test_missing_model_file_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        load_model(tmp_path / "absent.model")


def test_a_liblinear_model_of_one_class_predicts_its_class(tmp_path):
    # liblinear-train on labels of one value writes nr_class 1 and one weight
    # column (here as its L2R_LR solver wrote it for three rows labelled 1, -B 1);
    # its predict gives that label everywhere, with probability 1.
    path = tmp_path / "one.model"
    path.write_text("solver_type L2R_LR\nnr_class 1\nlabel 1\nnr_feature 3\nbias 1\nw\n"
                    "0.15005664985434433 \n0.24943992466479331 \n0.28845265430746198 \n"
                    "0.79555135925818177 \n")
    model = load_model(path)
    X = np.array([[0.5, 0.0, 1.0], [-3.0, -2.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(model.classes_, [1.0])
    np.testing.assert_array_equal(model.predict(X), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(model.predict_proba(X), np.ones((3, 1)))
    scores = X @ [0.15005664985434433, 0.24943992466479331, 0.28845265430746198] + 0.79555135925818177
    np.testing.assert_allclose(model.decision_function(X), scores, rtol=1e-15)
    assert (scores < 0).any() and (scores > 0).any()
    for format in ("snapml", "liblinear"):
        model.save_model(tmp_path / "again.model", format=format)
        again = load_model(tmp_path / "again.model")
        np.testing.assert_array_equal(again.classes_, [1.0])
        np.testing.assert_array_equal(again.decision_function(X), model.decision_function(X))


def test_cli_model_loads_in_python_and_back(tmp_path):
    train, predict = cli_tool("snap-train"), cli_tool("snap-predict")
    if train is None or predict is None:
        pytest.skip("snap-train / snap-predict are not built")
    heart = dataset_path("heart_scale")
    model_path = tmp_path / "heart.model"
    subprocess.run([train, "-q", str(heart), str(model_path)], check=True)
    model = load_model(model_path)
    X, y = load_svmlight_file(heart)
    assert model.score(X, y) > 0.8

    # Python predictions equal snap-predict's on the same model.
    cli_out = tmp_path / "cli.out"
    subprocess.run([predict, str(heart), str(model_path), str(cli_out)], check=True)
    np.testing.assert_array_equal(np.loadtxt(cli_out), model.predict(X))

    # A model saved by Python predicts the same through snap-predict.
    resaved = tmp_path / "python.model"
    model.fit(X, y).save_model(resaved)
    data_path = tmp_path / "heart.svm"
    dump_svmlight_file(X, y, data_path, zero_based=False)
    python_out = tmp_path / "python.out"
    subprocess.run([predict, str(data_path), str(resaved), str(python_out)], check=True)
    np.testing.assert_array_equal(np.loadtxt(python_out), model.predict(X))


def test_every_core_loss_has_one_estimator_of_its_task():
    # The core's list of losses (_core.loss_names) is the only one: each name
    # maps to exactly one estimator, a classifier for a classification loss.
    from sklearn.base import is_classifier

    from snap_ml import _core
    from snap_ml._model_io import estimator_class_of

    names = _core.loss_names()
    assert names == ["logistic", "hinge", "squared_hinge", "squared", "multinomial"]
    # Every core loss maps to one estimator (the multinomial loss to
    # LogisticRegression(multi_class="multinomial")).
    for name in names:
        estimator = estimator_class_of(name)._for_loss(name)
        assert estimator._loss_name() == name
        assert is_classifier(estimator) == _core.loss_traits(name)["classification"]
    assert _core.loss_traits("logistic")["probabilities"]
    assert not _core.loss_traits("hinge")["probabilities"]
    assert _core.loss_traits("multinomial") == {"classification": True, "probabilities": True}
    with pytest.raises(ValueError):
        _core.loss_traits("crammer_singer")
