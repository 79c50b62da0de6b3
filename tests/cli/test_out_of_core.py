"""End-to-end tests of out-of-core training: snap-train --max-memory.

One ctest test per test function (tests/cli/CMakeLists.txt):
stream: a generated 125 MiB .snap file trained with --max-memory one tenth of its
  size streams (StreamedBinarySource), keeps the peak resident memory (VmHWM,
  printed by --report-memory) within budget + the peak of a run on a tiny file +
  4 MiB, and predicts as the model trained in memory.
errors: what --max-memory refuses, each with the exit code and message a script
  relies on.

Files go to a scratch directory under /tmp, removed at the end.
"""
import os
import re

from conftest import check, expect_exit, run as run_program, tool_path

# Allocator arenas, the reader thread's stack and the model: what a run holds
# besides the empty run's peak and the budget (measured: 15.3 MB peak for a 13.1 MB
# budget and a 6.6 MB empty run).
SLACK = 4 << 20


def run(tool, *args):
    """run() of snap-<tool>, or of snapml-synthetic-snap for "synthetic"."""
    return run_program(tool_path("snapml-synthetic-snap" if tool == "synthetic" else f"snap-{tool}"), *args,
                       timeout=150)


def peak(result):
    match = re.search(r"peak resident memory: (\d+) bytes", result.stderr)
    check(match is not None, f"no peak memory line in {result.stderr!r}")
    return int(match.group(1))


def predictions(path, model, output):
    expect_exit(run("predict", path, model, output), 0)
    with open(output) as f:
        return [line.strip() for line in f]


def test_stream(scratch):
    big = os.path.join(scratch, "big.snap")
    tiny = os.path.join(scratch, "tiny.snap")
    # 200,000 rows of 80 non-zeros over 20,000 features, in 40 chunks of 5,000 rows
    # (3.3 MB each): 131 MB on disk, 3.2 MB of per-row state.
    expect_exit(run("synthetic", big, 200000, 20000, 80, 5000, 3), 0)
    expect_exit(run("synthetic", tiny, 1000, 20000, 80, 5000, 3), 0)
    size = os.path.getsize(big)
    budget = size // 10
    common = ["-n", "2", "-c", "0.01", "-e", "0.0001", "--report-memory"]

    empty = peak(expect_exit(run("train", *common, tiny, os.path.join(scratch, "tiny.model")), 0))
    resident_model = os.path.join(scratch, "resident.model")
    resident = peak(expect_exit(run("train", *common, big, resident_model), 0))
    # Without a budget the whole file is in memory: the bound below can fail.
    check(resident > size, f"in memory the peak {resident} should exceed the file's {size} bytes")

    streamed_model = os.path.join(scratch, "streamed.model")
    result = expect_exit(run("train", *common, "--max-memory", budget, big, streamed_model), 0,
                         "exceeds --max-memory; streaming it through")
    streamed = peak(result)
    bound = budget + empty + SLACK
    print(f"file {size} B, budget {budget} B, empty run {empty} B, in memory {resident} B, "
          f"streamed {streamed} B (bound {bound} B)")
    check(streamed <= bound, f"streamed peak {streamed} exceeds budget {budget} + empty run {empty} + {SLACK}")

    a = predictions(big, resident_model, os.path.join(scratch, "resident.out"))
    b = predictions(big, streamed_model, os.path.join(scratch, "streamed.out"))
    check(len(a) == len(b) == 200000, f"{len(a)} and {len(b)} predictions for 200000 rows")
    differ = sum(x != y for x, y in zip(a, b))
    print(f"predictions differ on {differ} of {len(a)} rows")
    # Both models are within tol of the optimum; they disagree only near the margin.
    check(differ <= len(a) // 100, f"the streamed and in-memory models differ on {differ} rows")


def test_errors(scratch):
    data = os.path.join(scratch, "data.snap")
    expect_exit(run("synthetic", data, 20000, 1000, 20, 1000, 4), 0)
    model = os.path.join(scratch, "m.model")
    size = os.path.getsize(data)

    # A budget the file fits trains in memory, saying nothing about streaming.
    result = expect_exit(run("train", "-n", "2", "--max-memory", "1G", data, model), 0)
    check("streaming" not in result.stderr, result.stderr)
    # Below 2 chunks + state: refused before reading, naming what would fit.
    expect_exit(run("train", "--max-memory", "100k", data, model), 1, "too small to stream", "snap-convert --chunk-rows")
    expect_exit(run("train", "--max-memory", "lots", data, model), 1, "not a number")
    expect_exit(run("train", "--max-gpu-memory", "1G", data, model), 1, "--max-gpu-memory requires --gpu")

    # Text larger than the budget: convert first.
    text = os.path.join(scratch, "data.svm")
    with open(text, "w") as f:
        for i in range(3000):
            f.write(f"{1 if i % 2 else -1} 1:{i % 7 + 1} 5:0.5 9:{i % 3}\n")
    expect_exit(run("train", "--max-memory", "10k", text, model), 1, "snap-convert", "only the binary format streams")

    # A chunk damaged mid-file stops streamed training with exit 2 naming the
    # file and the chunk, after the chunks before it were read.
    with open(data, "r+b") as f:
        f.seek(size * 3 // 4)
        byte = f.read(1)
        f.seek(size * 3 // 4)
        f.write(bytes([byte[0] ^ 0x40]))
    if os.path.exists(model):
        os.remove(model)
    result = expect_exit(run("train", "-n", "2", "--max-memory", size // 4, data, model), 2,
                         data, "checksum mismatch", "chunk 14")
    check(not os.path.exists(model), "a failed run saved a model")
