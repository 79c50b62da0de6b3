"""The primal Newton solver's benches: bench/two_builds_bench.py compares two
builds' fits in one table (the dual solver's too), and bench/hot_block_pcg.py
counts CG steps under the trust region's preconditioners (a block over every
weight is H itself: one step)."""
import re
import sys

from conftest import REPO, dataset, run, tool_path


def test_two_builds_side_by_side_give_one_row_per_problem():
    train = tool_path("snap-train")
    # The dual on one thread: two threads' steps on a shared w need not repeat.
    for solver, threads in (("0", "2"), ("7", "1")):
        check_two_builds(train, solver, threads)


def check_two_builds(train, solver, threads):
    result = run(sys.executable, REPO / "bench" / "two_builds_bench.py", "--before", train, "--after", train,
                 "--solver", solver, "--threads", threads, "--repeats", "1", f"{dataset('heart_scale')}:1", f"{dataset('a9a')}:0.5")
    assert result.returncode == 0, result.stderr
    assert f"snap-train -s {solver} " in result.stdout
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ") and "data" not in line]
    assert len(rows) == 2, result.stdout
    for row, name in zip(rows, ("heart_scale", "a9a")):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[0] == name
        # The same binary twice: the same iterations and gap.
        assert cells[2].split(",")[:2] == cells[3].split(",")[:2], row
        assert len(cells[2].split(",")) == 4, row  # iterations, gap, seconds, wall seconds
        assert all(float(ratio) > 0.0 for ratio in cells[4].split(",")), row


def test_a_block_over_every_weight_solves_the_newton_system_in_one_step():
    # heart_scale: 13 features and the intercept's column.
    result = run(sys.executable, REPO / "bench" / "hot_block_pcg.py", "--C", "1", "--blocks", "4,14",
                 dataset("heart_scale"), cwd=REPO / "bench")
    assert result.returncode == 0, result.stderr
    steps = dict(re.findall(r"(diagonal a=0\.01|block 14)[^:]*: (\d+)", result.stdout))
    assert int(steps["block 14"]) == 1, result.stdout
    assert int(steps["diagonal a=0.01"]) > 1, result.stdout
    assert "share 1.00" in result.stdout
