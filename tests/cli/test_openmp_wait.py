#!/usr/bin/env python3
"""Each command-line tool's OpenMP threads sleep soon when idle: the tool restarts
itself with GOMP_SPINCOUNT = kOpenMPSpinCount (snapml/threads.h) unless the user
set it or OMP_WAIT_POLICY, and libgomp shows the value it runs with
(OMP_DISPLAY_ENV). Usage: test_openmp_wait.py TOOL SPIN_COUNT"""

import os
import subprocess
import sys


def spin_counts(tool, **env):
    """GOMP_SPINCOUNT as each libgomp start shows it (the first image's, then the
    restarted one's), and the tool's exit code for --help."""
    environment = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    environment.update(env, OMP_DISPLAY_ENV="verbose")
    result = subprocess.run([tool, "--help"], env=environment, capture_output=True, text=True, timeout=60)
    shown = [line.split("=", 1)[1].strip().strip("'") for line in result.stderr.splitlines()
             if line.strip().startswith("GOMP_SPINCOUNT")]
    return shown, result.returncode


def main():
    tool, expected = sys.argv[1], sys.argv[2]
    shown, code = spin_counts(tool)
    assert code == 0, f"{tool} --help exited {code}"
    assert shown[-1:] == [expected], f"{tool}: libgomp ran with GOMP_SPINCOUNT {shown}, expected {expected} last"
    shown, code = spin_counts(tool, GOMP_SPINCOUNT="12345")
    assert code == 0 and shown == ["12345"], f"{tool}: the user's GOMP_SPINCOUNT=12345 gave {shown}"
    shown, code = spin_counts(tool, OMP_WAIT_POLICY="active")
    assert code == 0 and len(shown) == 1 and shown != [expected], f"{tool}: OMP_WAIT_POLICY=active gave {shown}"
    print(f"ok: {os.path.basename(tool)}")


if __name__ == "__main__":
    main()
