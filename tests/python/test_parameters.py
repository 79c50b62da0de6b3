"""The training parameters are declared once (snapml/parameters.h): Python's
``_core.train`` and ``_core.plan`` take exactly the declared names, the CLI
offers each declared flag with the declaration's help, and the estimators pass
only declared names. tests/cpp/train/test_parameters.cpp checks the C++ side
(TrainParameters' fields, the copy into every solver's parameters)."""

import re
import subprocess

import numpy as np
import pytest

import snap_ml
from conftest import cli_tool
from snap_ml import _core

DECLARED = _core.parameters()
NAMES = [entry["name"] for entry in DECLARED]


def test_the_declaration_lists_the_problem_apart_from_the_solver_and_run_options():
    groups = {entry["name"]: entry["group"] for entry in DECLARED}
    for name in ("loss", "penalty", "l1_ratio", "C", "class_weight", "fit_intercept", "epsilon", "tol", "max_iter"):
        assert groups[name] == "problem", name
    assert groups["solver"] == "solver" and groups["seed"] == "solver"
    assert groups["threads"] == "run" and groups["use_gpu"] == "run" and groups["checkpoint"] == "run"
    assert len(set(NAMES)) == len(NAMES)


def test_python_takes_every_declared_parameter_by_its_name_and_no_other():
    # Every default, passed back by name, is a valid call (the plan of the default problem).
    defaults = {entry["name"]: entry["default"] for entry in DECLARED}
    assert _core.plan(**defaults) == _core.plan()
    with pytest.raises(ValueError, match=r"unknown training parameter 'lose'.*loss"):
        _core.plan(lose="logistic")
    with pytest.raises(ValueError, match="training parameter C cannot be 'one'"):
        _core.plan(C="one")


@pytest.mark.parametrize("entry", [e for e in DECLARED if e["minimum"] > -np.inf], ids=lambda e: e["name"])
def test_a_value_outside_the_declared_range_is_refused(entry):
    # Just below the minimum (or at an open one): the core's checks refuse it.
    low = entry["minimum"]
    if entry["name"] in ("intercept_scaling", "checkpoint_interval"):
        pytest.skip("checked by train() with the data (intercept_scaling with fit_intercept) or the file")
    value = low if entry["minimum_open"] else low - 1
    value = int(value) if isinstance(entry["default"], int) else float(value)
    with pytest.raises((ValueError, TypeError)):
        _core.plan(**{entry["name"]: value, **({"penalty": "l1"} if entry["name"] == "l1_ratio" else {})})


def test_the_cli_offers_each_declared_flag_with_the_declared_help():
    train = cli_tool("snap-train")
    if train is None:
        pytest.skip("snap-train not built")
    help_text = " ".join(subprocess.run([train, "--help"], capture_output=True, text=True, check=True).stdout.split())
    flagged = [entry for entry in DECLARED if entry["cli"]]
    assert {entry["name"] for entry in flagged} >= {"C", "tol", "max_iter", "l1_ratio", "threads", "seed"}
    for entry in flagged:
        for flag in entry["cli"].split(","):
            assert re.search(rf"(^|[\s,]){re.escape(flag)}\b", help_text), flag
        assert " ".join(entry["help"].split()) in help_text, entry["name"]


@pytest.mark.parametrize(
    "estimator",
    [snap_ml.LogisticRegression(), snap_ml.LogisticRegression(penalty="elasticnet", l1_ratio=0.5, solver="saga",
                                                              fit_intercept=False),
     snap_ml.LinearSVC(), snap_ml.SupportVectorMachine(), snap_ml.LinearRegression(), snap_ml.Ridge(alpha=2.0)],
    ids=lambda e: repr(e),
)
def test_the_estimators_pass_declared_names_only(estimator):
    parameters = estimator._core_parameters()
    assert set(parameters) <= set(NAMES)
    assert _core.plan(**parameters)["algorithm"] in ("sdca", "newton", "auto", "glmnet", "cd")
