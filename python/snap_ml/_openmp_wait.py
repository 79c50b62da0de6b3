"""Loads the compiled core so that its OpenMP threads sleep soon when idle.

libgomp reads GOMP_SPINCOUNT and OMP_WAIT_POLICY once, when it is loaded, and the
core's libgomp is loaded with ``_core``. Where the user has set neither, the
spin count of the command-line tools (``kOpenMPSpinCount`` in snapml/threads.h,
which says why; a test checks the two are equal) is set for that moment only and
the environment is restored, so that nothing else in the process sees it.
"""

import os

# snapml/threads.h, kOpenMPSpinCount.
SPIN_COUNT = "1000"


def load_core():
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        from . import _core
        return _core
    os.environ["GOMP_SPINCOUNT"] = SPIN_COUNT
    try:
        from . import _core
    finally:
        del os.environ["GOMP_SPINCOUNT"]
    return _core
