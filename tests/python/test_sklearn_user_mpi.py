"""The scikit-learn user's scripts of test_sklearn_user.py under `mpirun -n 2`,
unmodified: every rank loads all the data, as a script written for one process
does. Under ``distributed="auto"`` each rank then trains alone on all of it
(docs/distributed.md, "Nothing silent"), so every rank's answers must equal
scikit-learn's to the same tolerance as without mpirun; joblib's workers
(``cross_val_score(n_jobs=2)``) are no ranks and train in their own process.
Every rank runs the scripts under pytest and both must pass. The slow a9a example
is left out (its small version, test_snap_ml_example, is in) to keep the run
under a minute on two cores.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_mpi_python import _mpirun_env
from test_mpi_safety import _mpirun

SCRIPTS = ("pipeline or grid_search or cross_val_score or pickle or pandas or "
           "multiclass_matches_sklearn_default or snap_ml_example or launched_as_a_rank")


def test_user_scripts_pass_on_every_rank():
    here = Path(__file__).parent
    env = _mpirun_env()
    env["SNAPML_TEST_MPI_RANKS"] = "2"
    command = _mpirun() + ["--tag-output", "-n", "2", sys.executable, "-m", "pytest", "-q",
                           "-p", "no:cacheprovider", str(here / "test_sklearn_user.py"),
                           "-k", f"({SCRIPTS}) and not a9a"]
    try:
        done = subprocess.run(command, env=env, cwd=here, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"mpirun did not end within 300 s\n{hung.stdout}{hung.stderr}")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    for rank in (0, 1):
        # --tag-output prefixes each line with [job,rank]<stdout>.
        summary = [line for line in out.splitlines()
                   if re.match(rf"\[\d+,{rank}\]<stdout>:.* passed", line)]
        assert summary, out
        assert not re.search(r"failed|error|skipped", summary[-1]), out
        passed = int(re.search(r"(\d+) passed", summary[-1]).group(1))
        assert passed >= 10, summary[-1]  # every selected script ran, the rank check too
