"""Shared fixtures: the public datasets in ../shared/datasets (SNAPML_DATA_DIR
overrides). A missing dataset skips its test, or fails it under CI=true."""

import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA_DIR = pathlib.Path(os.environ.get("SNAPML_DATA_DIR", REPO.parent / "shared" / "datasets"))
DATASETS = ["heart_scale", "a9a", "a9a.t", "w8a", "mushrooms", "news20.multiclass"]


def dataset_path(name):
    """The path of a shared dataset; skips (fails under CI=true) when it is missing."""
    path = DATA_DIR / name
    if not path.exists():
        message = f"dataset {name} not found in {DATA_DIR} (set SNAPML_DATA_DIR)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


_cache = {}


def load_dataset(name, n_features=None):
    """(X, y) of a shared dataset read by scikit-learn's loader, cached per session."""
    from sklearn.datasets import load_svmlight_file

    key = (name, n_features)
    if key not in _cache:
        _cache[key] = load_svmlight_file(str(dataset_path(name)), n_features=n_features)
    return _cache[key]


def cli_tool(name):
    """The path of a command-line tool (installed with the package or in build/), or None."""
    found = shutil.which(name)
    if found:
        return found
    for build in sorted(REPO.glob("build*")):
        candidate = build / "snapml" / "cli" / name
        if candidate.exists():
            return str(candidate)
    return None
