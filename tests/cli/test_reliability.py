#!/usr/bin/env python3
"""The command-line tools on hostile input and parameters (docs/reliability.md).

Usage: test_reliability.py --train PATH --predict PATH --convert PATH --criteo-gen PATH CASE

One ctest test per CASE (tests/cli/CMakeLists.txt). Each case checks the exit code
and that the message names the file and the fix; none needs a shared dataset.
"""
import argparse
import os
import subprocess
import sys
import tempfile

from test_snap_train import check, expect_exit  # the same checks as the other tool tests

TOOLS = {}  # "train", "predict", "convert", "criteo_gen": paths from the command line


def tool(name, *args, timeout=120, **kwargs):
    return subprocess.run([TOOLS[name], *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def case_feature_memory(scratch):
    """A largest index that the memory cannot hold is refused, naming the file (exit 2)."""
    model = os.path.join(scratch, "model")
    # 69 bytes: 2^31 - 2 features in 100 one-vs-rest problems need over 3 TiB.
    lines = [f"{label} 2147483646:1" for label in range(100)]
    big = write(os.path.join(scratch, "big.txt"), "\n".join(lines) + "\n")
    result = expect_exit(tool("train", "-q", "-n", "1", big, model), 2, big + ": 2147483646 features",
                         "remap the feature indices", "--max-memory")
    check(not os.path.exists(model), "a refused fit wrote a model")
    # Index 1e8 fits a machine but not a 1 GiB budget; the budget lets it through
    # when large enough.
    mid = write(os.path.join(scratch, "mid.txt"), "1 100000000:1\n-1 1:1\n")
    expect_exit(tool("train", "-q", "-n", "1", "--max-memory", "1G", mid, model), 2, mid + ": 100000000 features",
                "1.0 GiB of the memory budget", "--max-memory 4G")
    mid4 = write(os.path.join(scratch, "mid4.txt"), "1 100000000:1\n-1 1:1\n1 2:1\n-1 3:1\n")
    expect_exit(tool("train", "-q", "-n", "1", "--max-memory", "1G", "-v", "2", mid4), 2, mid4 + ": 100000000")
    small = write(os.path.join(scratch, "small.txt"), "1 1000:1\n-1 1:1\n")
    expect_exit(tool("train", "-q", "-n", "1", "--max-memory", "1M", small, model), 0)


def case_threads(scratch):
    """-n 100000 runs with the thread limit (a note unless -q) instead of crashing or hanging."""
    lines = [f"{1 if i % 2 else -1} 1:{i % 7} 3:1" for i in range(300)]
    data = write(os.path.join(scratch, "data.txt"), "\n".join(lines) + "\n")
    model = os.path.join(scratch, "model")
    result = expect_exit(tool("train", "-n", "100000", data, model), 0, "100000 threads is more than", "using")
    check(os.path.exists(model), "no model written")
    result = expect_exit(tool("train", "-q", "-n", "100000", data, model), 0)
    check(result.stderr == "", f"-q still printed {result.stderr!r}")
    expect_exit(tool("predict", "-n", "100000", data, model, os.path.join(scratch, "out")), 0, "using")
    expect_exit(tool("convert", "--threads", "100000", data, os.path.join(scratch, "data.snap")), 0, "using")


def case_nonfinite_model(scratch):
    """A model file with a NaN or infinite weight is refused naming file and line (exit 2)."""
    data = write(os.path.join(scratch, "data.txt"), "1 1:1 2:0.5\n-1 1:-1 2:0.25\n1 2:1\n-1 1:-0.5\n")
    for model_format in ("snapml", "liblinear"):
        model = os.path.join(scratch, f"model.{model_format}")
        expect_exit(tool("train", "-q", "-n", "1", "--model-format", model_format, data, model), 0)
        with open(model) as f:
            lines = f.read().split("\n")
        weights = max(i for i, line in enumerate(lines) if line[:1].isdigit())  # the last weight line
        lines[weights] = " ".join(["nan"] * len(lines[weights].split()))
        bad = write(model + ".bad", "\n".join(lines))
        expect_exit(tool("predict", data, bad, os.path.join(scratch, "out")), 2, f"{bad}:{weights + 1}:1:",
                    "(a finite number), found 'nan'")


def case_criteo_gen_rows(scratch):
    """A first row whose last row passes 2^63 - 1 is refused (exit 1) instead of writing nothing."""
    out = os.path.join(scratch, "rows.tsv")
    expect_exit(tool("criteo_gen", "--first-row", "9223372036854775800", "--rows", "10", "--output", out), 1,
                "first_row + rows must be at most 2^63 - 1", "use a first row of at most 9223372036854775797")
    check(not os.path.exists(out), "a refused generation wrote a file")
    # The last representable rows are still generated.
    expect_exit(tool("criteo_gen", "--first-row", "9223372036854775797", "--rows", "10", "--output", out,
                     "--threads", "1"), 0)
    with open(out) as f:
        check(len(f.read().splitlines()) == 10, "the rows up to 2^63 - 1 were not all written")


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    parser = argparse.ArgumentParser()
    for name in ("train", "predict", "convert", "criteo-gen"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("case", choices=sorted(CASES))
    args = parser.parse_args()
    TOOLS.update(train=os.path.abspath(args.train), predict=os.path.abspath(args.predict),
                 convert=os.path.abspath(args.convert), criteo_gen=os.path.abspath(args.criteo_gen))
    with tempfile.TemporaryDirectory(prefix="snapml-reliability-") as scratch:
        CASES[args.case](scratch)
    print(f"{args.case}: ok")


if __name__ == "__main__":
    sys.exit(main())
