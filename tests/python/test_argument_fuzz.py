"""Random hostile values for every estimator parameter (issue 36: the Python
argument surface). Each fit either trains a model whose predictions are finite,
or raises ValueError or TypeError with a message; nothing else: no
AttributeError (LinearSVC's save_model), no pybind11 "incompatible function
arguments" (max_iter=10**12), no numpy error (Cs=[]), no crash.

Seeded (SNAPML_ARGUMENT_SEED, default 36; SNAPML_ARGUMENT_RUNS, default 300 fits
of a 60-row problem): a failure names the estimator and its parameters.
"""

import inspect
import os
import random
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

import snap_ml
from snap_ml import (LinearRegression, LinearSVC, LogisticRegression, LogisticRegressionCV, Ridge,
                     SupportVectorMachine)

ESTIMATORS = [LogisticRegression, LogisticRegressionCV, SupportVectorMachine, LinearSVC, LinearRegression, Ridge]

# Values every parameter may be given: the hostile ones and a few ordinary ones.
HOSTILE = [None, True, False, 0, 1, -1, 2, 0.5, -0.5, 1e-300, 1e300, 10**12, 2**63, float("nan"), float("inf"),
           -float("inf"), "", "auto", "l1", "l2", "balanced", "none", [], [0], {}, {0: 2.0}, np.float32(1.0),
           np.int64(3), object()]

# What a parameter can be in a fit the test wants to see succeed sometimes.
SKIPPED = {"device_ids", "use_gpu", "max_gpu_memory", "distributed", "verbose", "n_jobs"}


def problem(regression):
    if regression:
        X, y = make_regression(n_samples=60, n_features=4, noise=1.0, random_state=0)
    else:
        X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    return X, y


def fit_or_refuse(estimator, X, y):
    """None when the fit trained a model with finite predictions or refused with a
    ValueError/TypeError and a message; else what went wrong."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator.fit(X, y)
            predicted = np.asarray(estimator.predict(X), dtype=np.float64)
    except (ValueError, TypeError) as error:
        message = str(error)
        if not message.strip():
            return f"{type(error).__name__} without a message"
        if "incompatible function arguments" in message:
            return f"pybind11's message reached the user: {message[:200]}"
        return None
    except Exception as error:  # noqa: BLE001 - anything else is the finding
        return f"{type(error).__name__}: {error}"
    if not np.all(np.isfinite(predicted)):
        return "non-finite predictions"
    return None


def test_random_hostile_parameters_raise_a_clear_error_or_train():
    seed = int(os.environ.get("SNAPML_ARGUMENT_SEED", "36"))
    runs = int(os.environ.get("SNAPML_ARGUMENT_RUNS", "300"))
    rng = random.Random(seed)
    data = {False: problem(False), True: problem(True)}
    failures = []
    for run in range(runs):
        cls = rng.choice(ESTIMATORS)
        accepted = inspect.signature(cls.__init__).parameters
        names = [name for name in accepted if name not in ("self", *SKIPPED)]
        chosen = rng.sample(names, k=min(len(names), rng.choice([1, 1, 2, 3])))
        parameters = {name: rng.choice(HOSTILE) for name in chosen}
        parameters.update({name: value for name, value in (("n_jobs", 1), ("distributed", False)) if name in accepted})
        try:
            estimator = cls(**parameters)
        except (ValueError, TypeError):
            continue  # refused at construction: fine
        X, y = data[cls in (LinearRegression, Ridge)]
        problem_found = fit_or_refuse(estimator, X, y)
        if problem_found:
            shown = {k: v for k, v in parameters.items() if k not in ("n_jobs", "distributed")}
            failures.append(f"run {run}: {cls.__name__}({shown}): {problem_found}")
    assert not failures, f"seed {seed}:\n" + "\n".join(failures[:20])


@pytest.mark.parametrize("value", [None, 3, 1.5, object(), ["a"]])
def test_load_model_and_save_model_take_paths_only(tmp_path, value, monkeypatch):
    # save_model(None) wrote a file named "None" in the working directory.
    monkeypatch.chdir(tmp_path)
    X, y = problem(False)
    model = LogisticRegression(n_jobs=1).fit(X, y)
    with pytest.raises((ValueError, TypeError)):
        snap_ml.load_model(value)
    with pytest.raises((ValueError, TypeError)):
        model.save_model(value)
    assert list(tmp_path.iterdir()) == []
