"""The hostile pass of issue 36 on the command-line tools: models that were wrong
with exit 0, options that were silently ignored, refusals that came too late
(docs/reliability.md).

One ctest test per test function (tests/cli/CMakeLists.txt).
"""
import os

from cli.test_snap_train import accuracy_of
from conftest import check, dataset, expect_exit, ok, snap, tool_path, write


def with_index_zero(source, path):
    """heart_scale with `0:0.001` added to its first row: a zero-based file whose
    other indices are heart_scale's."""
    with open(source) as f:
        lines = f.read().splitlines()
    label, rest = lines[0].split(" ", 1)
    lines[0] = f"{label} 0:0.001 {rest}"
    return write(path, "\n".join(lines) + "\n")


def test_index_base(scratch):
    """Case 4: the base was guessed per file, so a training file with one index 0 and a
    one-based test file disagreed about every feature (74.1 % against 83.7 %). The
    test file and snap-predict's input take the training file's base (the model
    carries it); a file that cannot (an index 0 where the base is 1) is refused."""
    heart = dataset("heart_scale")
    zero = with_index_zero(heart, os.path.join(scratch, "hs0"))
    model, reference = os.path.join(scratch, "m0"), os.path.join(scratch, "m1")
    trained = ok(snap("train", "-s", "7", "-n", "1", "--test", heart, zero, model))
    ok(snap("train", "-s", "7", "-n", "1", "--test", heart, heart, reference))
    reference_accuracy = accuracy_of(ok(snap("predict", heart, reference, os.path.join(scratch, "r.out"))).stdout)
    check(abs(accuracy_of(trained.stdout) - reference_accuracy) < 1.0,
          f"--test on a one-based file after zero-based training: {trained.stdout}")
    with open(model) as f:
        check("index_base 0\n" in f.read(), "the model does not carry its base")
    predicted = ok(snap("predict", heart, model, os.path.join(scratch, "p.out")))
    check(abs(accuracy_of(predicted.stdout) - reference_accuracy) < 1.0, f"snap-predict shifted: {predicted.stdout}")
    # The other way round: index 0 in data for a one-based model has no feature.
    expect_exit(snap("predict", zero, reference, os.path.join(scratch, "z.out")), 2, f"{zero}:1:",
                "index 0 in a file read as one-based", f"the model {reference}'s training data")
    expect_exit(snap("train", "-s", "7", "--test", zero, heart, os.path.join(scratch, "m2")), 2,
                "index 0", f"the training file {heart}")
    # LIBLINEAR's format cannot hold index 0's weight: refused before training.
    expect_exit(snap("train", "-s", "7", "--model-format", "liblinear", zero, os.path.join(scratch, "l.model")), 1,
                "--model-format liblinear", "zero-based data")
    check(not os.path.exists(os.path.join(scratch, "l.model")), "a refused model was written")


def test_find_C(scratch):
    """Case 5: -C with the L1 penalty stopped at C = 2^-12 with every weight 0 (CV
    accuracy 55.6 %); a -c above the largest C printed "Best C = 0 CV accuracy = -100%"."""
    heart = dataset("heart_scale")
    for extra in ([], ["--l1-ratio", "0.5"]):
        result = ok(snap("train", "-C", "-s", "6", "-n", "1", *extra, heart))
        best = [line for line in result.stdout.splitlines() if line.startswith("Best C")][0]
        check(float(best.split("=")[-1].strip().rstrip("%")) > 75.0, f"-C -s 6 {extra}: {best}")
    expect_exit(snap("train", "-C", "-s", "0", "-c", "2000", heart), 1, "above its largest C (1024)",
                "a -c of at most 1024")


def test_ignored_options(scratch):
    """Options a fit would have ignored without a word are refused (exit 1)."""
    data = write(os.path.join(scratch, "data.txt"),
                 "".join(f"{1 + i % 3} 1:{i % 5} 2:{(i * 7) % 3} 3:1\n" for i in range(60)))
    model = os.path.join(scratch, "m")
    for args, fragments in (
            (["--loss", "multinomial", "--solver", "dual"], ["primal solver only"]),
            (["-s", "0", "--thread-updates", "shared"], ["does not run SDCA", "primal Newton"]),
            (["-s", "6", "--thread-updates", "replicas"], ["does not run SDCA", "penalty l1"]),
            (["--weight", "1:2", "-w1", "3"], ["class 1's weight is given twice (2 and 3"])):
        expect_exit(snap("train", *args, data, model), 1, *fragments)
    check(not os.path.exists(model), "a refused run wrote a model")
    ok(snap("train", "-q", "--solver", "auto", "--thread-updates", "shared", data, model))


def test_option_ranges(scratch):
    """Integer options: out of range refused with the range, whole numbers in exponent
    form accepted (--max-iter 1e9 said "Could not convert"; --seed 2^64 was taken)."""
    data = write(os.path.join(scratch, "data.txt"), "1 1:1 2:0.5\n-1 1:-1 2:0.25\n1 2:1\n-1 1:-0.5\n")
    model = os.path.join(scratch, "m")
    ok(snap("train", "-q", "--max-iter", "1e9", "-n", "1e0", data, model))
    for args, fragment in ((["--seed", str(2**64)], f"--seed: {2**64} is not in [0, 18446744073709551615]"),
                           (["--seed", "-1"], "is not a whole number >= 0"),
                           (["--max-iter", "1e10"], "--max-iter: 1e10 is not in [1, 2147483647]"),
                           (["--max-iter", "2.5"], "2.5 is not a whole number"),
                           (["-n", "-1"], "--threads: -1 is not in [0, 2147483647]")):
        expect_exit(snap("train", *args, data, model), 1, fragment)
    ok(snap("train", "-q", "--seed", str(2**64 - 1), data, model))


def test_convert_option_ranges(scratch):
    """snap-convert's integer options as snap-train's: --seed -1 and 2^64 were taken
    as 2^64 - 1 (another hashing than the one asked for, silently), --n-features 1e2
    said "Could not convert"."""
    criteo = write(os.path.join(scratch, "day.tsv"), "1\t5\t\t\t\t\t\t\t\t\t\t\t\t\t" + "\t".join(["68fd1e64"] * 26) + "\n")
    out = os.path.join(scratch, "out.txt")
    for args, fragment in ((["--seed", "-1"], "--seed: '-1' is not a whole number >= 0"),
                           (["--seed", str(2**64)], f"--seed: {2**64} is not in [0, 18446744073709551615]")):
        expect_exit(snap("convert", "--from", "criteo", *args, criteo, out), 1, fragment)
    check(not os.path.exists(out), "a refused conversion wrote its output")
    ok(snap("convert", "--from", "criteo", "--seed", str(2**64 - 1), criteo, out))
    heart = dataset("heart_scale")
    expect_exit(snap("convert", "--n-features", "3000000000", heart, os.path.join(scratch, "x.snap")), 1,
                "--n-features: 3000000000 is not in [1, 2147483647]")
    ok(snap("convert", "--n-features", "1e2", "--chunk-rows", "1e2", heart, os.path.join(scratch, "x.snap")))


def test_predict_reads_its_model_once(scratch):
    """The model file is read once, so a pipe serves: snap-predict read it twice (its
    first word, then the model), and the second read of a pipe found it empty
    ("the file ends where snapml-model was expected")."""
    import subprocess
    heart = dataset("heart_scale")
    ours, theirs = os.path.join(scratch, "m"), os.path.join(scratch, "ll")
    ok(snap("train", "-q", "-s", "0", heart, ours))
    ok(snap("train", "-q", "-s", "0", "--model-format", "liblinear", heart, theirs))
    for model in (ours, theirs):
        expected = ok(snap("predict", heart, model, os.path.join(scratch, "file.out"))).stdout
        with open(model, "rb") as f:
            piped = subprocess.run([tool_path("snap-predict"), heart, "/dev/stdin", os.path.join(scratch, "pipe.out")],
                                   input=f.read(), capture_output=True, timeout=60)
        check(piped.returncode == 0, f"a piped model failed: {piped.stderr.decode()}")
        check(piped.stdout.decode() == expected, f"{piped.stdout.decode()} against {expected}")
        with open(os.path.join(scratch, "file.out")) as a, open(os.path.join(scratch, "pipe.out")) as b:
            check(a.read() == b.read(), "a piped model predicted otherwise")


def test_a_failing_history_leaves_no_model(scratch):
    """--history on a full device fails when written (exit 3); the model was written
    first, so a script saw failure beside a fresh model. The history comes first now."""
    if not os.path.exists("/dev/full"):
        return
    model = os.path.join(scratch, "m")
    expect_exit(snap("train", "--history", "/dev/full", dataset("heart_scale"), model), 3)
    check(not os.path.exists(model), "a run that exited 3 wrote its model")


def test_cross_validation_with_a_one_class_fold(scratch):
    """-v 2 on three rows: one fold trains on a single row, one class. The run
    failed ("classification needs at least two distinct labels"); LIBLINEAR scores
    such a fold with that class predicted, and so does -v now (and -C)."""
    data = write(os.path.join(scratch, "three.txt"), "1 1:1\n1 1:0.9\n-1 1:-1\n")
    for seed in range(4):
        result = ok(snap("train", "-v", "2", "--seed", str(seed), data))
        check("Cross Validation Accuracy = " in result.stdout, result.stdout)
    check("Best C = " in ok(snap("train", "-C", "-v", "2", data)).stdout, "-C did not report")


def test_liblinear_labels(scratch):
    """--model-format liblinear refusals come before training; a LIBLINEAR model with a
    repeated label names its label line (it named the last weight line)."""
    data = write(os.path.join(scratch, "data.txt"), "1.5 1:1 2:0.5\n-1 1:-1 2:0.25\n1.5 2:1\n-1 1:-0.5\n")
    expect_exit(snap("train", "--model-format", "liblinear", "--max-iter", "1", data, os.path.join(scratch, "m")),
                1, "--model-format liblinear: LIBLINEAR's model format stores integer labels; class 1.5")
    model = write(os.path.join(scratch, "repeated.model"),
                  "solver_type L2R_LR\nnr_class 2\nlabel 1 1\nnr_feature 2\nbias -1\nw\n0.5\n-0.25\n")
    expect_exit(snap("predict", data, model, os.path.join(scratch, "out")), 2,
                f"{model}:3:", "the label line repeats a label")



def test_max_iter_keeps_the_best_certified_iterate(scratch):
    """-s 1 -B 100: the intercept's column carries most of every row's norm, the dual
    creeps and the primal swings from epoch to epoch (1,222 to 6,122 over the last 15
    of 1,000 on these rows, the optimum 1,207). Stopped by --max-iter the fit returned
    the last epoch's iterate (2,556); now its best certified one, and says which."""
    with open(dataset("a9a")) as source:
        rows = [next(source) for _ in range(3000)]
    data = write(os.path.join(scratch, "a9a3k.txt"), "".join(rows))

    def last_primal(*options):
        history = os.path.join(scratch, "history.csv")
        result = ok(snap("train", *options, "-B", "100", "-n", "1", "--history", history, data,
                         os.path.join(scratch, "m")))
        with open(history) as records:
            return float(records.read().splitlines()[-1].split(",")[4]), result

    swinging, result = last_primal("-s", "1")
    optimum, _ = last_primal("-s", "1", "--solver", "auto")
    check("the model is epoch " in result.stdout, result.stdout)
    check("stopped at --max-iter" in result.stderr, result.stderr)
    check(swinging <= 1.03 * optimum, f"the returned primal {swinging} against the optimum {optimum}")


def test_a_weight_for_an_absent_label(scratch):
    """-w3 where the data has no label 3: LIBLINEAR warns and trains; snap-train
    exited 1, and so did -v where a fold's training rows lacked a rare class the
    file has. Now a warning, and the fit (the model as without the -w)."""
    with open(dataset("heart_scale")) as source:
        rows = [next(source) for _ in range(40)]
    data = write(os.path.join(scratch, "h40.txt"), "".join(rows))
    weighted, plain = os.path.join(scratch, "weighted"), os.path.join(scratch, "plain")
    result = ok(snap("train", "-s", "1", "-w3", "5", data, weighted))
    check("class label 3 given a weight (-w) is not in the training labels" in result.stderr, result.stderr)
    ok(snap("train", "-s", "1", data, plain))
    with open(weighted) as a, open(plain) as b:
        check(a.read() == b.read(), "the ignored weight changed the model")
    rare = write(os.path.join(scratch, "rare.txt"), "".join(rows) + "3 1:0.5 2:1 3:-0.5\n")
    check("Cross Validation Accuracy = " in ok(snap("train", "-s", "1", "-w3", "5", "-v", "5", rare)).stdout,
          "-v did not report")


def endless_into(tool, *args):
    """Runs a tool reading /dev/stdin from a writer with no end (as /dev/zero or
    `yes`, here a process of the test's own): the tool must stop on its own."""
    import subprocess
    import sys

    writer = subprocess.Popen([sys.executable, "-c", "import sys\nblock = b'1 1:1 2:0.5\\n' * 10000\n"
                               "while True: sys.stdout.buffer.write(block)"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        result = subprocess.run([tool_path(f"snap-{tool}"), *map(str, args)], stdin=writer.stdout, capture_output=True,
                                text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{tool} kept reading an endless stream")
    finally:
        writer.stdout.close()
        writer.kill()
        writer.wait()
    return result


def test_memory_bounds(scratch):
    """Case 9: a pipe or device was spooled into memory without a limit (`--max-memory
    100MB /dev/zero` grew until the OOM killer fired); case 10: -s 5 and -s 6
    streamed under --max-memory 10MB peaked at 65.9 MB."""
    model = os.path.join(scratch, "m")
    result = endless_into("train", "-s", "7", "--max-memory", "10MB", "--report-memory", "/dev/stdin", model)
    expect_exit(result, 2, "/dev/stdin: this stream", "passed 10.0 MiB of the memory budget (--max-memory)",
                "write it to a file")
    # Under the sanitizers (tests/run_all.sh sets ASAN_OPTIONS) the shadow memory
    # and the allocator's quarantine count in the peak: only the refusals are checked.
    sanitized = "ASAN_OPTIONS" in os.environ
    peak = int(result.stderr.split("peak resident memory: ")[1].split()[0])
    check(sanitized or peak < 64 << 20, f"peak resident memory {peak} bytes")
    # The L1 solvers copy every row: streamed rows are refused, resident ones must
    # fit the budget with their copy.
    a9a = dataset("a9a")
    chunked = os.path.join(scratch, "a9a.snap")
    ok(snap("convert", "--chunk-rows", "2000", a9a, chunked))
    for solver in ("5", "6"):
        expect_exit(snap("train", "-s", solver, "--max-memory", "3MB", chunked, model), 1,
                    "penalty l1 keeps a column-major copy", "these rows stream from disk", "penalty l2")
        expect_exit(snap("train", "-s", solver, "--max-memory", "6MB", chunked, model), 1,
                    "together above the memory budget of 6.0 MiB")
    result = ok(snap("train", "-q", "-s", "6", "--max-memory", "12MB", "--report-memory", chunked, model))
    peak = int(result.stderr.split("peak resident memory: ")[1].split()[0])
    check(sanitized or peak < 40 << 20, f"-s 6 within a 12 MB budget peaked at {peak} bytes")
    check(not os.path.exists(model) or os.path.getsize(model) > 0, "an empty model")

