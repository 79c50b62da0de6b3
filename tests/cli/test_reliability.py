"""The command-line tools on hostile input and parameters (docs/reliability.md).

One ctest test per test function (tests/cli/CMakeLists.txt). Each case checks the exit code
and that the message names the file and the fix; none needs a shared dataset.
"""
import os
import subprocess

from conftest import check, expect_exit, run, tool_path, write


def tool(name, *args):
    """run() of snap-<name>, or of snap-criteo-gen for "criteo_gen"."""
    return run(tool_path("snap-" + name.replace("_", "-")), *args, timeout=120)


def test_feature_memory(scratch):
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
                "1.0 GiB of the memory budget", "--max-memory 5G")
    mid4 = write(os.path.join(scratch, "mid4.txt"), "1 100000000:1\n-1 1:1\n1 2:1\n-1 3:1\n")
    expect_exit(tool("train", "-q", "-n", "1", "--max-memory", "1G", "-v", "2", mid4), 2, mid4 + ": 100000000")
    small = write(os.path.join(scratch, "small.txt"), "1 1000:1\n-1 1:1\n")
    expect_exit(tool("train", "-q", "-n", "1", "--max-memory", "1M", small, model), 0)


def test_threads(scratch):
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


def test_nonfinite_model(scratch):
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


def test_criteo_gen_rows(scratch):
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


def test_control_bytes(scratch):
    """NUL, escape sequences and other control bytes in the data reach the message escaped, whole."""
    data = os.path.join(scratch, "bad.txt")
    with open(data, "wb") as f:
        f.write(b"1 1:1\n-1 2:\x1b[31mred\x00tail\n")
    result = subprocess.run([tool_path("snap-train"), "-q", data, os.path.join(scratch, "m")], capture_output=True)
    check(result.returncode == 2, f"exit {result.returncode}, expected 2: {result.stderr!r}")
    check(b"bad value '\\x1b[31mred\\x00tail'" in result.stderr, f"not escaped whole: {result.stderr!r}")
    check(all(b >= 0x20 for b in result.stderr.rstrip(b"\n")), f"a control byte in {result.stderr!r}")
    # A path with a control byte, in an I/O error.
    result = subprocess.run([tool_path("snap-train"), "-q", os.path.join(scratch, "no\x1b[2Jfile")],
                            capture_output=True)
    check(result.returncode == 3 and b"no\\x1b[2Jfile" in result.stderr, f"path not escaped: {result.stderr!r}")


def test_gzip_trailing(scratch):
    """Data after the last gzip member is an error naming where (as zcat); members concatenate."""
    import gzip
    text = "1 1:1 2:0.5\n-1 1:-1 2:0.25\n"
    first, second = gzip.compress(text.encode()), gzip.compress(b"1 2:1\n-1 1:-0.5\n")
    path = os.path.join(scratch, "data.gz")
    with open(path, "wb") as f:
        f.write(first + b"garbage\n")
    expect_exit(tool("train", "-q", path, os.path.join(scratch, "m")), 2,
                f"{path}: trailing data after the gzip stream at byte {len(first)}")
    with open(path, "wb") as f:
        f.write(first + second)
    expect_exit(tool("train", "-q", path, os.path.join(scratch, "m")), 0)
    with open(os.path.join(scratch, "m")) as f:
        check("classes 2 -1 1" in f.read(), "the second member's rows were not read")


def test_parameter_ranges(scratch):
    """Out-of-range and non-finite parameters are refused with the range in short form (exit 1)."""
    data = write(os.path.join(scratch, "data.txt"), "1 1:1 2:0.5\n-1 1:-1 2:0.25\n1 2:1\n-1 1:-0.5\n")
    model = os.path.join(scratch, "model")
    for args, fragment in ((["-c", "0"], "-c: 0 is not in (0, 1e+100]"),
                           (["-c", "1e308"], "-c: 1e308 is not in (0, 1e+100]"),
                           (["-c", "nan"], "-c: nan is not in (0, 1e+100]"),
                           (["-B", "nan"], "-B: nan is not in [-1.7976931348623157e+308, 1e+100]"),
                           (["-B", "1e300"], "-B: 1e300 is not in"),
                           (["-e", "0"], "--tol: 0 is not in (0, 1.7976931348623157e+308]"),
                           (["--max-iter", "0"], "--max-iter: 0 is not in [1, 2147483647]"),
                           (["-w1", "0", "-w-1", "0"], "at least one class needs a weight above 0"),
                           (["-c", "1e60", "-w1", "1e60"], "C times a class weight must be at most 1e+100")):
        result = expect_exit(tool("train", "-q", *args, data, model), 1, fragment)
        check(len(result.stderr) < 400, f"a long message: {result.stderr!r}")
        check(not os.path.exists(model), f"{args} wrote a model")
    expect_exit(tool("train", "-q", "-c", "1e100", "-B", "1e100", data, model), 0)


def test_outputs_checked_first(scratch):
    """Outputs that cannot be written fail before training and leave nothing; no output replaces an input."""
    data = write(os.path.join(scratch, "data.txt"), "1 1:1 2:0.5\n-1 1:-1 2:0.25\n1 2:1\n-1 1:-0.5\n")
    model = os.path.join(scratch, "model")
    expect_exit(tool("train", "-q", "--history", os.path.join(scratch, "missing", "h.csv"), data, model), 3,
                "missing/h.csv")
    check(not os.path.exists(model), "the model was written although --history cannot be")
    with open(data) as f:
        before = f.read()
    expect_exit(tool("train", "-q", data, data), 1, f"the model file {data} is the training file")
    os.link(data, os.path.join(scratch, "link.txt"))
    expect_exit(tool("train", "-q", data, os.path.join(scratch, "link.txt")), 1, "is the training file")
    expect_exit(tool("train", "-q", "--test", data, os.path.join(scratch, "other.txt"), data), 1,
                "is the --test file")
    expect_exit(tool("train", "-q", "--history", data, data, model), 1, "the --history file")
    with open(data) as f:
        check(f.read() == before, "the training file changed")
    os.mkdir(os.path.join(scratch, "dir"))
    expect_exit(tool("train", "-q", data, os.path.join(scratch, "dir")), 3, "it is a directory")
    check(sorted(os.listdir(scratch)) == ["data.txt", "dir", "link.txt"], f"left behind: {os.listdir(scratch)}")


def test_model_errors(scratch):
    """A model path that is a directory is an I/O error (3); unsorted classes name their line."""
    data = write(os.path.join(scratch, "data.txt"), "1 1:1 2:0.5\n-1 1:-1 2:0.25\n1 2:1\n-1 1:-0.5\n")
    os.mkdir(os.path.join(scratch, "dir"))
    out = os.path.join(scratch, "out")
    expect_exit(tool("predict", data, os.path.join(scratch, "dir"), out), 3, "it is a directory")
    model = os.path.join(scratch, "model")
    expect_exit(tool("train", "-q", data, model), 0)
    with open(model) as f:
        lines = f.read().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("classes"))
    lines[at] = "classes 2 1 -1"
    bad = write(model + ".bad", "\n".join(lines))
    expect_exit(tool("predict", data, bad, out), 2, f"{bad}:{at + 1}: model: classes must be sorted and distinct")
