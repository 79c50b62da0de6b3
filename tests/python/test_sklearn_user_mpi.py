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

import shlex
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conftest import mpirun_env
from test_mpi_python import mpirun_of_an_mpi_build

SCRIPTS = ("pipeline or grid_search or cross_val_score or pickle or pandas or "
           "multiclass_matches_sklearn_default or snap_ml_example or launched_as_a_rank")


def test_user_scripts_pass_on_every_rank(tmp_path):
    here = Path(__file__).parent
    env = mpirun_env()
    env["SNAPML_TEST_MPI_RANKS"] = "2"
    # Each rank writes its own JUnit report (OpenMPI names the rank in
    # OMPI_COMM_WORLD_RANK): the ranks' terminal lines interleave on one pipe.
    pytest_command = shlex.join([sys.executable, "-m", "pytest", "-q", "--color=no", "-p", "no:cacheprovider",
                                 str(here / "test_sklearn_user.py"), "-k", f"({SCRIPTS}) and not a9a"])
    report = shlex.quote(str(tmp_path / "rank-"))
    command = mpirun_of_an_mpi_build() + ["-n", "2", "sh", "-c",
                           f"{pytest_command} --junitxml={report}$OMPI_COMM_WORLD_RANK.xml"]
    try:
        done = subprocess.run(command, env=env, cwd=here, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"mpirun did not end within 300 s\n{hung.stdout}{hung.stderr}")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    for rank in (0, 1):
        path = tmp_path / f"rank-{rank}.xml"
        assert path.exists(), f"rank {rank} wrote no report\n{out}"
        suite = ElementTree.parse(path).getroot()
        suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
        counts = {key: int(suite.get(key, 0)) for key in ("tests", "failures", "errors", "skipped")}
        assert counts["failures"] == counts["errors"] == counts["skipped"] == 0, (rank, counts, out)
        assert counts["tests"] >= 10, (rank, counts)  # every selected script ran, the rank check too
