"""The core's OpenMP threads sleep soon when idle (snapml/threads.h,
kOpenMPSpinCount): libgomp reads GOMP_SPINCOUNT when the package loads _core, and
the variable is gone from the environment afterwards; a value the user set wins."""

import sys

from conftest import libgomp_spin_counts
from snap_ml import _core, _openmp_wait


def test_the_python_spin_count_is_the_cores():
    assert _openmp_wait.SPIN_COUNT == _core.openmp_spin_count


def libgomp_settings(**env):
    """Every libgomp's GOMP_SPINCOUNT as it displays it at start (OMP_DISPLAY_ENV),
    importing snap_ml in a fresh interpreter, and the variable after the import."""
    code = "import os, snap_ml; print('after', os.environ.get('GOMP_SPINCOUNT'))"
    shown, result = libgomp_spin_counts([sys.executable, "-c", code], **env)
    assert result.returncode == 0, result.stderr
    return shown, result.stdout.split()[-1]


def test_the_core_loads_with_the_spin_count_and_the_environment_is_restored():
    shown, after = libgomp_settings()
    assert _core.openmp_spin_count in shown  # the core's libgomp (scikit-learn's has its own)
    assert after == "None"


def test_a_users_setting_wins():
    shown, after = libgomp_settings(GOMP_SPINCOUNT="12345")
    assert shown and set(shown) == {"12345"} and after == "12345"
    shown, _ = libgomp_settings(OMP_WAIT_POLICY="active")
    assert _core.openmp_spin_count not in shown
