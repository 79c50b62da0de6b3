"""bench/gpu/cpu_scaling.py, the cpu step of a lent 16-core machine's run
(bench/gpu_check.sh), on a small generated click log: its Newton table has a
row for each --newton-threads count, the first the speed-ups' base, and its side
by side with IBM snapml (where importable) runs a team of the Newton solver
from its 5th iteration."""
import os
import re
import sys

from conftest import REPO, run, tool_path


def test_the_newton_table_and_the_newton_team_of_the_side_by_side(tmp_path):
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("snap-train", "snap-convert", "snap-criteo-gen"):
        os.symlink(tool_path(name), tools / name)
    result = run(sys.executable, REPO / "bench" / "gpu" / "cpu_scaling.py", tools, "--work", tmp_path / "work",
                 "--rows", "3000", "--big-rows", "3000", "--threads", "1,2", "--newton-threads", "1,2",
                 "--ours-threads", "2,2:newton",
                 "--deadline", "75")
    assert result.returncode == 0, result.stderr
    table = result.stdout.split("### Newton, -s 0", 1)
    assert len(table) == 2, result.stdout
    rows = re.findall(r"^\| (\d+) \| (\d+) \| ([\d.]+) \| ([\d.]+)x \|$", table[1], re.MULTILINE)
    assert [row[0] for row in rows] == ["1", "2"], table[1]
    assert all(int(row[1]) > 0 for row in rows), table[1]
    assert rows[0][3] == "1.00", table[1]
    if "not importable" not in result.stdout:
        newton = re.findall(r"^\| ours -s 0 -n 2 \| (\d+) \|", result.stdout, re.MULTILINE)
        assert newton and newton[0] == "5", result.stdout
        assert re.search(r"^\| ours -s 7 -n 2 \| 2 \|", result.stdout, re.MULTILINE), result.stdout
