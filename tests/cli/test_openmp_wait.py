"""Each command-line tool's OpenMP threads sleep soon when idle: the tool restarts
itself with GOMP_SPINCOUNT = kOpenMPSpinCount (snapml/threads.h) unless the user
set it or OMP_WAIT_POLICY, and libgomp shows the value it runs with
(OMP_DISPLAY_ENV). One ctest test per tool (tests/cli/CMakeLists.txt). Nor where
the user binds threads: the restart kept the first image's binding of its initial
thread, and every thread ran on one core."""

import os
import re
import subprocess

import pytest

from conftest import REPO, libgomp_spin_counts, tool_path


def expected_spin_count():
    """kOpenMPSpinCount's value, read from the header that declares it."""
    for header in sorted(REPO.glob("snapml/**/threads.h")):
        match = re.search(r'kOpenMPSpinCount = "([0-9]+)"', header.read_text())
        if match:
            return match.group(1)
    raise AssertionError("no header under snapml/ declares kOpenMPSpinCount")


@pytest.mark.parametrize("name", ["snap-train", "snap-predict", "snap-convert"])
def test_idle_threads_sleep_soon(name):
    tool, expected = tool_path(name), expected_spin_count()
    shown, result = libgomp_spin_counts([tool, "--help"])
    assert result.returncode == 0, f"{tool} --help exited {result.returncode}"
    assert shown[-1:] == [expected], f"{tool}: libgomp ran with GOMP_SPINCOUNT {shown}, expected {expected} last"
    shown, result = libgomp_spin_counts([tool, "--help"], GOMP_SPINCOUNT="12345")
    assert result.returncode == 0 and shown == ["12345"], f"{tool}: the user's GOMP_SPINCOUNT=12345 gave {shown}"
    shown, result = libgomp_spin_counts([tool, "--help"], OMP_WAIT_POLICY="active")
    assert result.returncode == 0 and len(shown) == 1 and shown != [expected], \
        f"{tool}: OMP_WAIT_POLICY=active gave {shown}"
    for binding in ({"OMP_PROC_BIND": "close"}, {"OMP_PLACES": "cores"}, {"GOMP_CPU_AFFINITY": "0-1"}):
        shown, result = libgomp_spin_counts([tool, "--help"], **binding)
        assert result.returncode == 0 and len(shown) == 1, f"{tool}: {binding} restarted it ({shown})"


def test_bound_threads_keep_their_own_cores(tmp_path):
    """`OMP_PROC_BIND=close OMP_PLACES=cores snap-train -n 2`: libgomp's own report of
    each thread's CPUs (OMP_DISPLAY_AFFINITY) names two places, not one."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: nothing to tell apart")
    data = tmp_path / "rows.svm"
    data.write_text("".join(f"{1 if i % 2 else -1} 1:{i % 7 + 1} 2:{i % 3 + 1} {i % 5 + 3}:1\n" for i in range(400)))
    environment = dict(os.environ, OMP_PROC_BIND="close", OMP_PLACES="cores", OMP_DISPLAY_AFFINITY="true",
                       OMP_AFFINITY_FORMAT="snapml-thread %n of %N on %A")
    result = subprocess.run([tool_path("snap-train"), "-s", "7", "-n", "2", "--thread-updates", "shared",
                             str(data), str(tmp_path / "model")], env=environment, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    places = {line.split(" on ", 1)[1] for line in (result.stdout + result.stderr).splitlines()
              if line.startswith("snapml-thread ") and " of 2 " in line}
    assert len(places) == 2, f"two threads bound to {places}: {result.stdout + result.stderr}"
