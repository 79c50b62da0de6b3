"""Each command-line tool's OpenMP threads sleep soon when idle: the tool restarts
itself with GOMP_SPINCOUNT = kOpenMPSpinCount (snapml/threads.h) unless the user
set it or OMP_WAIT_POLICY, and libgomp shows the value it runs with
(OMP_DISPLAY_ENV). One ctest test per tool (tests/cli/CMakeLists.txt)."""

import re

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
