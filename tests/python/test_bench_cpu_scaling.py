"""bench/gpu/cpu_scaling.py, the cpu step of a lent 16-core machine's run
(bench/gpu_check.sh), on a small generated click log: its Newton table has a
row for each --newton-threads count, the first the speed-ups' base."""
import os
import re
import sys

from conftest import REPO, run, tool_path


def test_the_newton_table_has_a_row_for_each_thread_count(tmp_path):
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("snap-train", "snap-convert", "snap-criteo-gen"):
        os.symlink(tool_path(name), tools / name)
    result = run(sys.executable, REPO / "bench" / "gpu" / "cpu_scaling.py", tools, "--work", tmp_path / "work",
                 "--rows", "3000", "--big-rows", "3000", "--threads", "1,2", "--newton-threads", "1,2",
                 "--deadline", "75")
    assert result.returncode == 0, result.stderr
    table = result.stdout.split("### Newton, -s 0", 1)
    assert len(table) == 2, result.stdout
    rows = re.findall(r"^\| (\d+) \| (\d+) \| ([\d.]+) \| ([\d.]+)x \|$", table[1], re.MULTILINE)
    assert [row[0] for row in rows] == ["1", "2"], table[1]
    assert all(int(row[1]) > 0 for row in rows), table[1]
    assert rows[0][3] == "1.00", table[1]
