"""Hyper-parameter checks shared by every estimator.

scikit-learn estimators store their keyword arguments untouched in ``__init__``
and check them in ``fit``; these functions do the checking and turn the
scikit-learn parameters into the core's. Every error is a ValueError that names
the parameter, the value received and what to pass instead.
"""

import numbers
import os

import numpy as np
from sklearn.utils import check_random_state

from . import _core
from ._snap_file import memory_size


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def resolve_C(C, regularizer):
    """The core's C from ``C`` or Snap ML's ``regularizer`` (= 1/C).

    Parameters
    ----------
    C : float
        scikit-learn's inverse regularisation strength, > 0.
    regularizer : float or None
        Snap ML's regularisation strength; when given it replaces ``C`` (which must
        then keep its default 1.0).

    Returns
    -------
    float
    """
    if regularizer is not None:
        if not _is_number(regularizer) or not np.isfinite(regularizer) or regularizer < 1.0 / _core.MAX_COST:
            # Below, C = 1/regularizer passes the core's largest cost, whose error
            # named a C the user never set.
            raise ValueError(
                f"regularizer must be a finite number >= {1.0 / _core.MAX_COST:g} (it is 1/C, and C is at most "
                f"{_core.MAX_COST:g}), got {regularizer!r}"
            )
        if C != 1.0:
            raise ValueError(
                f"pass either C or regularizer (= 1/C), not both; got C={C!r} and "
                f"regularizer={regularizer!r}"
            )
        return 1.0 / float(regularizer)
    if not _is_number(C) or not np.isfinite(C) or C <= 0:
        raise ValueError(
            f"C must be a finite number > 0 (smaller C: stronger regularisation), got {C!r}"
        )
    return float(C)


# The most epochs a fit may run: the core's int (snapml/parameters.h, max_iter).
MAX_ITER = 2**31 - 1


def check_max_iter(max_iter):
    """An integer in [1, MAX_ITER]: the core counts epochs in an int (pybind11 refused
    10**12 with "incompatible function arguments", issue 36 case 12)."""
    check_positive("max_iter", max_iter, integer=True)
    if max_iter > MAX_ITER:
        raise ValueError(f"max_iter must be an integer in [1, {MAX_ITER}], got {max_iter!r}")


def check_flag(name):
    """A check that ``name`` is True or False (numpy's bool too)."""
    def check(value):
        # 0 and 1 pass, as they did (`value in (True, False)`).
        if not (isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and value in (0, 1))):
            raise ValueError(f"{name} must be True or False, got {value!r}")
    return check


def check_class_weight(class_weight):
    """A dict, "balanced" or None; the labels are checked against the data in ``fit``."""
    if class_weight is None or class_weight == "balanced" or isinstance(class_weight, dict):
        return
    raise ValueError(f"class_weight must be a dict, 'balanced' or None, got {class_weight!r}")


def check_penalty(penalty):
    """Accept ``"l2"`` (SDCA) or ``"l1"`` (primal coordinate descent, one CPU thread)."""
    if penalty not in ("l1", "l2"):
        raise ValueError(f"penalty must be 'l2' or 'l1', got {penalty!r}")


def check_positive(name, value, integer=False):
    """Raise ValueError unless ``value`` is a finite number > 0 (an integer if asked)."""
    kind = numbers.Integral if integer else numbers.Real
    if (
        not isinstance(value, kind)
        or isinstance(value, bool)
        or not np.isfinite(value)
        or value <= 0
    ):
        what = "an integer >= 1" if integer else "a finite number > 0"
        raise ValueError(f"{name} must be {what}, got {value!r}")


def checkpoint_arguments(checkpoint, checkpoint_interval):
    """The core's checkpoint keywords from ``fit``'s ``checkpoint`` and ``checkpoint_interval``.

    ``checkpoint``: None, or the path of the file a fit resumes from when it exists
    and saves its state to (snapml/checkpoint.h; docs/python.md, "Checkpoints").
    """
    if checkpoint is None:
        return dict(checkpoint="", checkpoint_interval=60.0)
    if not isinstance(checkpoint, (str, os.PathLike)) or os.fspath(checkpoint) == "":
        raise ValueError(f"checkpoint must be None or a file path, got {checkpoint!r}")
    if (not isinstance(checkpoint_interval, numbers.Real) or isinstance(checkpoint_interval, bool)
            or not np.isfinite(checkpoint_interval) or checkpoint_interval < 0):
        raise ValueError(f"checkpoint_interval must be a finite number of seconds >= 0, got {checkpoint_interval!r}")
    return dict(checkpoint=os.fspath(checkpoint), checkpoint_interval=float(checkpoint_interval))


def resolve_threads(n_jobs):
    """The core's thread count from scikit-learn's ``n_jobs``.

    ``None`` means 1 (scikit-learn's convention), -1 every CPU, -2 all but one, and
    so on (joblib's convention): every CPU this process may use (its affinity),
    and under mpirun this rank's share of the machine, as snap-train's
    ``--threads 0`` (two ranks on 16 cores: 8 each, not 16). A count above the
    core's limit (4 per hardware thread, at least 64; snapml/threads.h) is lowered
    to the limit, as scikit-learn's estimators run at most as many threads as there
    are cores.
    """
    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None, a positive integer or -1 (all CPUs), got {n_jobs!r}")
    if n_jobs > 0:
        return min(int(n_jobs), _core.thread_limit())
    return max(1, _core.threads_per_rank() + 1 + int(n_jobs))


def estimator_threads(estimator):
    """The core's thread count from an estimator's ``n_jobs`` or ``num_threads``.

    ``num_threads`` is Snap ML's old name of ``n_jobs`` (its first API,
    ``snap_ml.LogisticRegression(num_threads=8)``): either may be given, or both
    with the same value; ValueError otherwise.
    """
    n_jobs, num_threads = estimator.n_jobs, getattr(estimator, "num_threads", None)
    if num_threads is not None:
        if n_jobs is not None and n_jobs != num_threads:
            raise ValueError(
                f"num_threads is Snap ML's old name of n_jobs: pass one of them, got n_jobs={n_jobs!r} "
                f"and num_threads={num_threads!r}"
            )
        n_jobs = num_threads
    return resolve_threads(n_jobs)


def resolve_seed(random_state):
    """A seed for the core's row permutations from ``random_state``.

    None is a fixed seed (0), not the global RandomState scikit-learn's liblinear
    draws from: two identical ``fit`` calls give identical models by default.
    """
    if random_state is None:
        return 0
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


# How to get the GPU backend, for the errors that need it (pyproject.toml builds it
# when nvcc is found; docs/python.md, "GPU").
GPU_INSTALL = (
    "install snap_ml with the GPU backend: with the CUDA toolkit's nvcc on the PATH, "
    "`pip install .` builds it (or force it: `pip install . -C cmake.define.SNAPML_CUDA=ON`)"
)


def check_device_options(use_gpu, device_ids, max_gpu_memory):
    """Validate the GPU options (Snap ML's: ``device_ids`` alone asks for those GPUs).

    Returns
    -------
    use_gpu : bool
        True when ``use_gpu`` or a non-empty ``device_ids`` asks for the GPU.
    device_ids : list of int
        The CUDA devices for the core (empty: device 0).
    max_gpu_memory : int
        The GPU memory budget in bytes (0: none); an int or a size string such as
        "8GB", which needs the GPU.
    """
    if not isinstance(use_gpu, (bool, np.bool_)):
        raise ValueError(f"use_gpu must be True or False, got {use_gpu!r}")
    if device_ids is None:
        ids = []
    else:
        ids = list(np.atleast_1d(device_ids))
        if not all(isinstance(i, numbers.Integral) and i >= 0 for i in ids):
            raise ValueError(f"device_ids must be a list of CUDA device numbers >= 0, got {device_ids!r}")
        ids = [int(i) for i in ids]
    use_gpu = bool(use_gpu) or bool(ids)
    gpu_budget = memory_size("max_gpu_memory", max_gpu_memory)
    if gpu_budget and not use_gpu:
        raise ValueError(
            f"max_gpu_memory={max_gpu_memory!r} is a GPU memory budget and needs use_gpu=True "
            "(or device_ids); pass them, or leave max_gpu_memory=None (max_memory is the host "
            "budget)"
        )
    if use_gpu and not _core.built_with_cuda:
        raise ValueError(
            f"device_ids={device_ids!r}, use_gpu={use_gpu!r} ask for a GPU, but this snap_ml was "
            "built without the CUDA backend (snap_ml._core.built_with_cuda is False); "
            f"{GPU_INSTALL}, or train on the CPU (no device_ids, use_gpu=False)"
        )
    return use_gpu, ids, gpu_budget


def check_max_memory_for_arrays(max_memory):
    """Refuse ``max_memory`` when ``fit`` is given arrays: they are already in memory.

    The budget decides how a ``.snap`` file is read (mapped whole or streamed from
    disk); it cannot shrink data the caller already holds.
    """
    if max_memory is not None:
        raise ValueError(
            f"max_memory={max_memory!r} applies when X is the path of a .snap file, which is "
            "then streamed from disk when it does not fit the budget; the arrays passed are "
            "already in memory. Write them once with snap_ml.datasets.dump(X, y, 'data.snap', "
            "chunk_rows=...) (or convert svmlight text with snap-convert) and pass "
            "fit('data.snap'), or leave max_memory=None"
        )
