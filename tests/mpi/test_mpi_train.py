"""End-to-end tests of `mpirun -n K snap-train` (CoCoA+ over real OpenMPI ranks).

One ctest test per test function and rank count K (tests/mpi/CMakeLists.txt;
tests/conftest.py finds mpirun, the tools and the datasets):
  a9a K          K ranks on a9a against the single-process optimum and test accuracy
  a9a_binary K   the same from a .snap file cut into many chunks
  a9a_streamed K the .snap file streamed by every rank under --max-memory (its share only)
  dual_epochs K  the dual solver's epochs on a9a at C = 1 (svmlight and .snap): within 3x one
                 process's, merging many times an epoch
  news20 K       K ranks on news20.multiclass (20 one-vs-rest problems), problem by problem
  multinomial K  K ranks train news20's first 1500 rows by the multinomial loss (the
                 primal Newton solver, every product summed over the ranks): the
                 single-process model to 1e-8
  primal K       the same for -s 0 and -s 2 on a9a (Cholesky steps: the Hessian summed
                 over the ranks) and -s 0 on news20's first 600 rows (the trust region)
  uneven         more ranks than lines / chunks: ranks with few and with zero rows
  bad_line       a malformed line in the last rank's share only
  missing_file   one rank (of an MPMD launch) names a file that does not exist
  mpmd_options   an MPMD launch whose ranks differ in --max-iter, then in -e: every
                 rank fails naming the difference, no model is written, no hang
  killed_rank    one rank dies of SIGKILL in the middle of training
  l1_refused     penalty L1 (newGLMNET, coordinate descent) refused under mpirun
A missing shared dataset skips unless CI=true. Every rank runs one thread, and every
case ends within its timeout.
"""
import csv
import os

import pytest

from conftest import check, dataset, mpirun, ok, snap, tool_path


def rank_counts(*counts):
    """One test per rank count K, named npK (ctest's mpi.snap_train.CASE_npK)."""
    return pytest.mark.parametrize("ranks", [pytest.param(k, id=f"np{k}") for k in counts])


def history(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def accuracy_in(out):
    lines = [l for l in out.splitlines() if l.startswith("Test accuracy")]
    check(len(lines) == 1, f"one test-accuracy line expected: {out!r}")
    return float(lines[0].split("=")[1].split("%")[0])


def single_process_reference(train, test, scratch):
    """The optimum (tol 1e-6) and its test accuracy, from one process."""
    result = ok(snap("train", "-s", 0, "-e", 1e-6, "-n", 1, "--test", test, "--history",
                     f"{scratch}/single.csv", train, f"{scratch}/single.model"))
    last = history(f"{scratch}/single.csv")[-1]
    return float(last["primal"]), accuracy_in(result.stdout)


def compare_with_single(ranks, train, test, scratch, tol=1e-4, extra=()):
    optimum, accuracy = single_process_reference(dataset("a9a"), dataset("a9a.t"), scratch)
    result = ok(mpirun(ranks, tool_path("snap-train"), "-s", 0, "-e", tol, "-n", 1, "--max-iter", 5000, *extra,
                       "--test", test, "--history", f"{scratch}/mpi.csv", train, f"{scratch}/mpi.model"))
    rows = history(f"{scratch}/mpi.csv")
    last = rows[-1]
    primal, relative_gap = float(last["primal"]), float(last["relative_gap"])
    check(relative_gap <= tol, f"K={ranks}: relative gap {relative_gap} > tol {tol}")
    check(abs(primal - optimum) <= 1e-4 * optimum,
          f"K={ranks}: primal {primal} vs single-process optimum {optimum}")
    check(primal >= optimum * (1 - 1e-6), f"K={ranks}: primal {primal} below the optimum {optimum}")
    mpi_accuracy = accuracy_in(result.stdout)
    check(abs(mpi_accuracy - accuracy) <= 0.1,
          f"K={ranks}: test accuracy {mpi_accuracy} vs single-process {accuracy}")
    # Rank 0 alone reports: one summary, one accuracy line, no output from the others.
    check(result.stdout.count("snap-train: ") == 2, f"one report expected: {result.stdout!r}")
    check(f"{ranks} ranks, rows per rank" in result.stdout, result.stdout)
    return result


@rank_counts(1, 2, 3, 4)
def test_a9a(scratch, ranks):
    compare_with_single(ranks, dataset("a9a"), dataset("a9a.t"), scratch)


@rank_counts(3)
def test_a9a_binary(scratch, ranks):
    snap_file = f"{scratch}/a9a.snap"
    ok(snap("convert", "--chunk-rows", 1000, dataset("a9a"), snap_file))
    result = compare_with_single(ranks, snap_file, dataset("a9a.t"), scratch)
    # 33 chunks of up to 1000 rows: every rank holds whole chunks, about n / K rows.
    counts = [int(c) for c in result.stdout.split("rows per rank ")[1].split(";")[0].split()]
    check(sum(counts) == 32561 and all(c % 1000 == 0 or c == max(counts) for c in counts[:-1]), str(counts))


@rank_counts(2)
def test_a9a_streamed(scratch, ranks):
    snap_file = f"{scratch}/a9a.snap"
    ok(snap("convert", "--chunk-rows", 1000, dataset("a9a"), snap_file))
    # 1 MB per rank: about a third of a rank's share of the 4 MB file.
    result = compare_with_single(ranks, snap_file, dataset("a9a.t"), scratch, extra=("--max-memory", "1MB"))
    for rank in range(ranks):
        check(f"snap-train: rank {rank}: its " in result.stderr and "streaming them through" in result.stderr,
              f"rank {rank} should say it streams its share:\n{result.stderr}")


def epochs_in(out):
    """The epochs of the fit's summary line ('snap-train: 29 epochs, ...')."""
    found = [int(line.split()[1]) for line in out.splitlines()
             if line.startswith("snap-train: ") and line.split()[2:3] == ["epochs,"]]
    check(len(found) == 1, f"one summary line expected: {out!r}")
    return found[0]


@rank_counts(2)
def test_dual_epochs(scratch, ranks):
    # The dual solver (-s 7) on a9a at C = 1, weak regularisation on correlated
    # one-hot rows: with one merge an epoch two ranks took 639 epochs to 1e-4
    # where one process takes 19; merging every 512 rows a rank (thread_updates.h,
    # distributed_rounds_per_epoch) about 30. The .snap share is resident too.
    common = ["-s", 7, "-c", 1, "-B", 1, "-e", 1e-4, "-n", 1, "--max-iter", 1000]
    single = epochs_in(ok(snap("train", *common, dataset("a9a"), f"{scratch}/single.model")).stdout)
    snap_file = f"{scratch}/a9a.snap"
    ok(snap("convert", "--chunk-rows", 1000, dataset("a9a"), snap_file))
    for source in (dataset("a9a"), snap_file):
        result = ok(mpirun(ranks, tool_path("snap-train"), *common, source, f"{scratch}/mpi.model"))
        epochs = epochs_in(result.stdout)
        check(epochs <= 3 * single, f"{source}: {epochs} epochs on {ranks} ranks, {single} in one process")
        rounds = int(result.stdout.split(" rounds, ")[0].split()[-1])
        check(rounds >= 16 * epochs, f"{source}: {rounds} merges in {epochs} epochs")


def per_problem_last(rows):
    """The last history row of every one-vs-rest problem, by problem index."""
    last = {}
    for row in rows:
        last[int(row["problem"])] = row
    return last


@rank_counts(1, 2, 3, 4)
def test_news20(scratch, ranks):
    # Every fifth line is held out for the accuracy check; news20 has no test file.
    with open(dataset("news20.multiclass")) as f:
        lines = f.read().splitlines(keepends=True)
    train, test = f"{scratch}/news20.train", f"{scratch}/news20.test"
    with open(train, "w") as f:
        f.writelines(l for i, l in enumerate(lines) if i % 5 != 4)
    with open(test, "w") as f:
        f.writelines(l for i, l in enumerate(lines) if i % 5 == 4)
    # C = 0.1: with C = 1 the hardest class needs over 1,300 epochs to a relative gap
    # of 1e-4 even in one process (docs/distributed.md); the code path is the same.
    common = ["-s", 0, "-c", 0.1, "-n", 1, "--max-iter", 20000]
    tol = 1e-4
    single = ok(snap("train", *common, "-e", 1e-7, "--test", test, "--history", f"{scratch}/single.csv", train,
                     f"{scratch}/single.model", timeout=300))
    reference = per_problem_last(history(f"{scratch}/single.csv"))
    result = ok(mpirun(ranks, tool_path("snap-train"), *common, "-e", tol, "--test", test, "--history",
                       f"{scratch}/mpi.csv", train, f"{scratch}/mpi.model", timeout=300))
    last = per_problem_last(history(f"{scratch}/mpi.csv"))
    check(sorted(last) == list(range(20)) and sorted(reference) == list(range(20)),
          f"20 problems expected: {sorted(last)} / {sorted(reference)}")
    for problem, row in last.items():
        primal, optimum = float(row["primal"]), float(reference[problem]["primal"])
        check(float(row["relative_gap"]) <= tol, f"problem {problem}: relative gap {row['relative_gap']} > {tol}")
        check(abs(primal - optimum) <= 1e-4 * optimum,
              f"problem {problem}: primal {primal} vs single-process optimum {optimum}")
    accuracy, mpi_accuracy = accuracy_in(single.stdout), accuracy_in(result.stdout)
    check(abs(mpi_accuracy - accuracy) <= 0.1,
          f"K={ranks}: held-out accuracy {mpi_accuracy} vs single-process {accuracy}")


# A tiny problem whose first line is long: with 6 ranks the byte shares of ranks 1
# to 3 fall inside it, so they get no line at all (rows per rank 1 0 0 0 1 4).
TINY = ("1 " + " ".join(f"{j}:0.{j % 9 + 1}" for j in range(1, 41)) + "\n"
        "-1 1:0.5 3:1 7:-0.25\n"
        "1 2:1 40:0.5\n"
        "-1 1:1 2:1\n"
        "1 5:0.75 9:1\n"
        "-1 3:-1 8:0.5\n")


def news20_head(scratch, rows=1500):
    with open(dataset("news20.multiclass")) as f:
        lines = f.read().splitlines(keepends=True)[:rows]
    train = f"{scratch}/news20_head.svm"
    with open(train, "w") as f:
        f.writelines(lines)
    return train


def expect_single_process_model(scratch, ranks, train, common, name, timeout=300):
    """snap-train with `common` on one process and under mpirun -n K: the same
    model to 1e-8 (of its largest weight); returns the single process's model text."""
    ok(snap("train", *common, train, f"{scratch}/{name}_single.model", timeout=timeout))
    ok(mpirun(ranks, tool_path("snap-train"), *common, train, f"{scratch}/{name}_ranks.model", timeout=timeout))
    with open(f"{scratch}/{name}_single.model") as f:
        single_text = f.read()
    with open(f"{scratch}/{name}_ranks.model") as f:
        ranks_text = f.read()
    single = [float(v) for v in single_text.split() if is_number(v)]
    ranked = [float(v) for v in ranks_text.split() if is_number(v)]
    check(len(single) == len(ranked), f"{name}, K={ranks}: the models differ in size")
    scale = 1.0 + max(abs(v) for v in single)
    worst = max(abs(a - b) for a, b in zip(single, ranked))
    check(worst <= 1e-8 * scale, f"{name}, K={ranks}: the model differs from one process by {worst}")
    return single_text


@rank_counts(2, 3)
def test_multinomial(scratch, ranks):
    common = ["--loss", "multinomial", "-B", 1, "-e", 1e-9, "-n", 1, "--max-iter", 500, "-q"]
    single_text = expect_single_process_model(scratch, ranks, news20_head(scratch), common, "multinomial")
    check("loss multinomial" in single_text, "the model is not multinomial")


@rank_counts(2, 3)
def test_primal(scratch, ranks):
    # The scalar losses' primal Newton solver (-s 0, -s 2): Cholesky steps on a9a
    # (124 weights), the trust region on news20's head (62,061 weights, one-vs-rest).
    for loss in (0, 2):
        common = ["-s", loss, "-c", 4, "-B", 1, "-e", 1e-10, "-n", 1, "-q"]
        expect_single_process_model(scratch, ranks, dataset("a9a"), common, f"a9a_s{loss}")
    common = ["-s", 0, "-c", 1, "-B", 1, "-e", 1e-9, "-n", 1, "--max-iter", 500, "-q"]
    expect_single_process_model(scratch, ranks, news20_head(scratch, 600), common, "news20_head")


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def test_uneven(scratch):
    tiny = f"{scratch}/tiny.svm"
    with open(tiny, "w") as f:
        f.write(TINY)
    ok(snap("train", "-s", 0, "-c", 10, "-e", 1e-8, "-n", 1, "--history", f"{scratch}/single.csv", tiny,
            f"{scratch}/single.model"))
    optimum = float(history(f"{scratch}/single.csv")[-1]["primal"])
    snap_file = f"{scratch}/tiny.snap"
    ok(snap("convert", "--chunk-rows", 2, tiny, snap_file))  # 3 chunks of 2 rows
    for source, ranks in ((tiny, 6), (snap_file, 4)):
        result = ok(mpirun(ranks, tool_path("snap-train"), "-s", 0, "-c", 10, "-e", 1e-6, "-n", 1, "--max-iter", 100000,
                           "--history", f"{scratch}/mpi.csv", source, f"{scratch}/mpi.model"))
        counts = [int(c) for c in result.stdout.split("rows per rank ")[1].split(";")[0].split()]
        # Some rank holds no row, and the busiest holds more than the least busy non-empty one.
        check(len(counts) == ranks and sum(counts) == 6 and 0 in counts and
              min(c for c in counts if c) < max(counts) or (source == snap_file and counts == [2, 2, 0, 2]),
              f"{source}: rows per rank {counts}")
        last = history(f"{scratch}/mpi.csv")[-1]
        primal = float(last["primal"])
        check(float(last["relative_gap"]) <= 1e-6, f"{source}: gap {last['relative_gap']}")
        check(abs(primal - optimum) <= 1e-4 * optimum, f"{source}: primal {primal} vs optimum {optimum}")


def expect_every_rank_ended(result, code, *fragments, within=60):
    text = result.stdout + result.stderr
    check(result.returncode == code, f"exit {result.returncode}, expected {code}\n{text}")
    for fragment in fragments:
        check(fragment in text, f"{fragment!r} not in the output:\n{text}")
    check(result.seconds < within, f"took {result.seconds:.1f} s: a rank was left waiting")


def test_bad_line(scratch):
    with open(dataset("a9a")) as f:
        lines = f.read().splitlines()
    lines[-3] = lines[-3].replace(":", ";", 1)  # line n-2 (1-based), in the last rank's share
    bad = f"{scratch}/bad.svm"
    with open(bad, "w") as f:
        f.write("\n".join(lines) + "\n")
    line = len(lines) - 2
    for ranks in (2, 3):
        result = mpirun(ranks, tool_path("snap-train"), "-s", 0, "-n", 1, bad, f"{scratch}/bad.model", timeout=90)
        expect_every_rank_ended(result, 2, f"snap-train: rank {ranks - 1}: {bad}:{line}:")
        check(not os.path.exists(f"{scratch}/bad.model"), "no model may be written")


def test_missing_file(scratch):
    # MPMD launch: rank 0 reads a9a, rank 1 a file that does not exist. Rank 0 is
    # then waiting in the readers' first allreduce when rank 1 fails.
    missing = f"{scratch}/missing.svm"
    result = mpirun(1, tool_path("snap-train"), "-s", 0, "-n", 1, dataset("a9a"), f"{scratch}/m.model", ":",
                    "-n", 1, tool_path("snap-train"), "-s", 0, "-n", 1, missing, f"{scratch}/m.model", timeout=90)
    expect_every_rank_ended(result, 3, f"snap-train: rank 1: cannot open {missing}")
    check(not os.path.exists(f"{scratch}/m.model"), "no model may be written")


def test_l1_refused(scratch):
    # The L1 solvers (newGLMNET, coordinate descent) run on one process: under
    # mpirun every rank exits 1 with the fix, and no model is written.
    heart = dataset("heart_scale")
    for flags in (("-s", "6"), ("-s", "6", "--solver", "cd"), ("-s", "6", "--l1-ratio", "0.5")):
        result = mpirun(2, tool_path("snap-train"), *flags, "-n", 1, heart, f"{scratch}/l1.model", timeout=90)
        expect_every_rank_ended(result, 1, "runs on one process", "without mpirun")
        check(not os.path.exists(f"{scratch}/l1.model"), "no model may be written")


def test_cross_validation_refused(scratch):
    # -v and -C run in one process; -C's refusal named -v (issue 36).
    heart = dataset("heart_scale")
    result = mpirun(2, tool_path("snap-train"), "-C", "-n", 1, heart, timeout=90)
    expect_every_rank_ended(result, 1, "-C (the search for C by cross-validation) runs in one process",
                            "snap-train -C without mpirun")
    result = mpirun(2, tool_path("snap-train"), "-v", 3, "-n", 1, heart, timeout=90)
    expect_every_rank_ended(result, 1, "-v (cross-validation) runs in one process")


def test_mpmd_options(scratch):
    # Before the check, rank 0 wrote its model after its own --max-iter and the
    # job hung with rank 1 waiting in a collective.
    for option, values, name in (("--max-iter", (3, 50), "max_iter"), ("-e", (0.1, 0.001), "tol")):
        model = f"{scratch}/{name}.model"
        ranks = [["-n", 1, tool_path("snap-train"), "-s", 0, "-n", 1, option, value, dataset("a9a"), model]
                 for value in values]
        result = mpirun(*ranks[0][1:], ":", *ranks[1], timeout=90)
        expect_every_rank_ended(result, 1, "the ranks disagree on the training parameters",
                                f"{name}: rank 0 has {values[0]:g}, rank 1 has {values[1]:g}")
        check(not os.path.exists(model), f"{option}: no model may be written")


def test_different_files(scratch):
    # Issue 36, case 6: each rank read half of its own file and the ranks trained one
    # mixed model (exit 0). Refused on every rank before any rows are read.
    model = f"{scratch}/mixed.model"
    ranks = [["-n", 1, tool_path("snap-train"), "-s", 7, "-n", 1, dataset(name), model]
             for name in ("a9a", "heart_scale")]
    result = mpirun(*ranks[0][1:], ":", *ranks[1], timeout=90)
    expect_every_rank_ended(result, 1, "the ranks disagree on the training file", "heart_scale (",
                            "give every rank the same file")
    check(not os.path.exists(model), "no model may be written")
    # A text file on one rank and a .snap file on the other would have waited in
    # different collectives: refused the same way, before them.
    binary = f"{scratch}/heart.snap"
    check(snap("convert", dataset("heart_scale"), binary).returncode == 0, "snap-convert failed")
    ranks = [["-n", 1, tool_path("snap-train"), "-s", 7, "-n", 1, path, model]
             for path in (dataset("heart_scale"), binary)]
    result = mpirun(*ranks[0][1:], ":", *ranks[1], timeout=90)
    expect_every_rank_ended(result, 1, "the ranks disagree on the training file")


def test_killed_rank(scratch):
    result = mpirun(3, tool_path("mpi_kill_probe"), dataset("a9a"), timeout=90,
                    env={"SNAPML_PROBE_KILL_RANK": "1", "SNAPML_PROBE_KILL_EPOCH": "3"})
    text = result.stdout + result.stderr
    # The first certificate from epoch 3 on (certificate_schedule.h may skip 3).
    check("rank 1: killing itself at its certificate after epoch" in text, f"the probe did not reach its kill:\n{text}")
    check("training ended without the kill" not in text, text)
    check(result.returncode != 0, f"mpirun exited 0 after a rank was killed\n{text}")
    check("signal 9" in text, f"mpirun should name the signal that ended rank 1:\n{text}")
    check(result.seconds < 60, f"took {result.seconds:.1f} s: the other ranks were left waiting")
