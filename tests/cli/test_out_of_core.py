#!/usr/bin/env python3
"""End-to-end tests of out-of-core training: snap-train --max-memory.

Usage: test_out_of_core.py --train PATH --predict PATH --synthetic PATH CASE

stream: a generated 125 MiB .snap file trained with --max-memory one tenth of its
  size streams (StreamedBinarySource), keeps the peak resident memory (VmHWM,
  printed by --report-memory) within budget + the peak of a run on a tiny file +
  4 MiB, and predicts as the model trained in memory.
errors: what --max-memory refuses, each with the exit code and message a script
  relies on.

Files go to a temporary directory under /tmp, removed at the end.
"""
import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import os

TOOLS = {}
# Allocator arenas, the reader thread's stack and the model: what a run holds
# besides the empty run's peak and the budget (measured: 15.3 MB peak for a 13.1 MB
# budget and a 6.6 MB empty run).
SLACK = 4 << 20


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def run(tool, *args):
    return subprocess.run([TOOLS[tool], *map(str, args)], capture_output=True, text=True, timeout=150)


def expect_exit(result, code, *fragments):
    check(result.returncode == code,
          f"exit {result.returncode}, expected {code}\nstdout: {result.stdout}\nstderr: {result.stderr}")
    for fragment in fragments:
        check(fragment in result.stderr, f"{fragment!r} not in stderr: {result.stderr!r}")
    return result


def peak(result):
    match = re.search(r"peak resident memory: (\d+) bytes", result.stderr)
    check(match is not None, f"no peak memory line in {result.stderr!r}")
    return int(match.group(1))


def predictions(path, model, output):
    expect_exit(run("predict", path, model, output), 0)
    with open(output) as f:
        return [line.strip() for line in f]


def case_stream(tmp):
    big = os.path.join(tmp, "big.snap")
    tiny = os.path.join(tmp, "tiny.snap")
    # 200,000 rows of 80 non-zeros over 20,000 features, in 40 chunks of 5,000 rows
    # (3.3 MB each): 131 MB on disk, 3.2 MB of per-row state.
    expect_exit(run("synthetic", big, 200000, 20000, 80, 5000, 3), 0)
    expect_exit(run("synthetic", tiny, 1000, 20000, 80, 5000, 3), 0)
    size = os.path.getsize(big)
    budget = size // 10
    common = ["-n", "2", "-c", "0.01", "-e", "0.0001", "--report-memory"]

    empty = peak(expect_exit(run("train", *common, tiny, os.path.join(tmp, "tiny.model")), 0))
    resident_model = os.path.join(tmp, "resident.model")
    resident = peak(expect_exit(run("train", *common, big, resident_model), 0))
    # Without a budget the whole file is in memory: the bound below can fail.
    check(resident > size, f"in memory the peak {resident} should exceed the file's {size} bytes")

    streamed_model = os.path.join(tmp, "streamed.model")
    result = expect_exit(run("train", *common, "--max-memory", budget, big, streamed_model), 0,
                         "exceeds --max-memory; streaming it through")
    streamed = peak(result)
    bound = budget + empty + SLACK
    print(f"file {size} B, budget {budget} B, empty run {empty} B, in memory {resident} B, "
          f"streamed {streamed} B (bound {bound} B)")
    check(streamed <= bound, f"streamed peak {streamed} exceeds budget {budget} + empty run {empty} + {SLACK}")

    a = predictions(big, resident_model, os.path.join(tmp, "resident.out"))
    b = predictions(big, streamed_model, os.path.join(tmp, "streamed.out"))
    check(len(a) == len(b) == 200000, f"{len(a)} and {len(b)} predictions for 200000 rows")
    differ = sum(x != y for x, y in zip(a, b))
    print(f"predictions differ on {differ} of {len(a)} rows")
    # Both models are within tol of the optimum; they disagree only near the margin.
    check(differ <= len(a) // 100, f"the streamed and in-memory models differ on {differ} rows")


def case_errors(tmp):
    data = os.path.join(tmp, "data.snap")
    expect_exit(run("synthetic", data, 20000, 1000, 20, 1000, 4), 0)
    model = os.path.join(tmp, "m.model")
    size = os.path.getsize(data)

    # A budget the file fits trains in memory, saying nothing about streaming.
    result = expect_exit(run("train", "-n", "2", "--max-memory", "1G", data, model), 0)
    check("streaming" not in result.stderr, result.stderr)
    # Below 2 chunks + state: refused before reading, naming what would fit.
    expect_exit(run("train", "--max-memory", "100k", data, model), 1, "too small to stream", "snap-convert --chunk-rows")
    expect_exit(run("train", "--max-memory", "lots", data, model), 1, "not a number")
    expect_exit(run("train", "--max-gpu-memory", "1G", data, model), 1, "--max-gpu-memory requires --gpu")

    # Text larger than the budget: convert first.
    text = os.path.join(tmp, "data.svm")
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", required=True)
    parser.add_argument("--predict", required=True)
    parser.add_argument("--synthetic", required=True)
    parser.add_argument("case", choices=["stream", "errors"])
    args = parser.parse_args()
    TOOLS.update(train=args.train, predict=args.predict, synthetic=args.synthetic)
    tmp = tempfile.mkdtemp(prefix="snapml_ooc_", dir="/tmp")
    try:
        {"stream": case_stream, "errors": case_errors}[args.case](tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
