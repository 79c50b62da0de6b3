#!/usr/bin/env python3
"""End-to-end tests of snap-convert: round trip, --summary, exit codes.

Usage: test_snap_convert.py --tool PATH/snap-convert --data-dir DIR CASE

One ctest test per CASE (tests/cli/CMakeLists.txt). A missing shared dataset skips
the case (exit 77) unless CI=true, where it fails. SNAPML_DATA_DIR overrides
--data-dir.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77


def run(tool, *args):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def expect_exit(result, code, *fragments, stream="stderr"):
    text = getattr(result, stream)
    check(result.returncode == code,
          f"exit {result.returncode}, expected {code}\nstdout: {result.stdout}\nstderr: {result.stderr}")
    for fragment in fragments:
        check(fragment in text, f"{fragment!r} not in {stream}: {text!r}")


def dataset(data_dir, name):
    path = os.path.join(data_dir, name)
    if os.path.exists(path):
        return path
    message = f"dataset {name} missing in {data_dir}"
    if os.environ.get("CI") == "true":
        raise AssertionError(message)
    print(f"SKIP: {message}")
    sys.exit(SKIP)


def float32(text):
    return struct.unpack("<f", struct.pack("<f", float(text)))[0]


def parse_svmlight(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            label, *pairs = line.split()
            rows.append((float(label), [(int(i), float32(v)) for i, v in (p.split(":") for p in pairs)]))
    return rows


def case_round_trip(tool, data_dir, scratch):
    original = dataset(data_dir, "heart_scale")
    snap, text, snap_again = (os.path.join(scratch, n) for n in ("h.snap", "h.svm", "h2.snap"))
    for source, target in ((original, snap), (snap, text), (text, snap_again)):
        expect_exit(run(tool, source, target), 0, "270 rows", stream="stdout")
    check(parse_svmlight(text) == parse_svmlight(original), "svmlight -> binary -> svmlight changed the data")
    with open(snap, "rb") as a, open(snap_again, "rb") as b:
        check(a.read() == b.read(), "the binary files of the original and the round-tripped text differ")
    # Forced formats work whatever the extension says.
    forced = os.path.join(scratch, "h.bin")
    expect_exit(run(tool, "--to", "binary", original, forced), 0, stream="stdout")
    expect_exit(run(tool, "--from", "binary", "--summary", forced), 0, "rows:      270", stream="stdout")


def case_summary(tool, data_dir, scratch):
    original = dataset(data_dir, "heart_scale")
    snap = os.path.join(scratch, "h.snap")
    expect_exit(run(tool, "--chunk-rows", "100", original, snap), 0, stream="stdout")
    for path, chunks, size in ((original, "1", "27670"), (snap, "3", str(os.path.getsize(snap)))):
        result = run(tool, "--summary", path)
        expect_exit(result, 0, "rows:      270\n", "features:  13\n", "nnz:       3378\n",
                    "density:   0.962393\n", "labels:    2 distinct\n", "  label -1: 150\n",
                    "  label 1: 120\n", f"chunks:    {chunks}\n", f"bytes:     {size}\n", "load time: ",
                    stream="stdout")
    # The input's format is recognised by its magic as well as its name (format.h):
    # a binary file under another name is summarised and converted as binary.
    unnamed = os.path.join(scratch, "h.data")
    shutil.copyfile(snap, unnamed)
    expect_exit(run(tool, "--summary", unnamed), 0, f"input:     {unnamed} (binary)\n", "rows:      270\n",
                "chunks:    3\n", stream="stdout")
    back = os.path.join(scratch, "back.svm")
    expect_exit(run(tool, unnamed, back), 0, "(binary) -> ", stream="stdout")
    expect_exit(run(tool, "--summary", back), 0, "rows:      270\n", "nnz:       3378\n", stream="stdout")


def case_bad_input(tool, data_dir, scratch):
    bad = os.path.join(scratch, "bad.svm")
    with open(bad, "w") as f:
        f.write("+1 1:0.5 3:1\n-1 2:0.25\n+1 4:abc\n")
    result = run(tool, bad, os.path.join(scratch, "bad.snap"))
    expect_exit(result, 2, "snap-convert: ", f"{bad}:3:")
    check(not os.path.exists(os.path.join(scratch, "bad.snap")), "a failed conversion left an output file")

    # A corrupted binary file is bad input too, named with its chunk.
    good = os.path.join(scratch, "good.svm")
    with open(good, "w") as f:
        f.write("+1 1:0.5 3:1\n-1 2:0.25\n")
    snap = os.path.join(scratch, "good.snap")
    expect_exit(run(tool, good, snap), 0, stream="stdout")
    data = bytearray(open(snap, "rb").read())
    data[-3] ^= 0x40
    open(snap, "wb").write(bytes(data))
    expect_exit(run(tool, "--summary", snap), 2, f"snap-convert: {snap}: chunk 0 checksum mismatch")


def case_criteo(tool, data_dir, scratch):
    sample = dataset(data_dir, os.path.join("criteo", "criteo_raw_sample1000.tsv"))
    snap, text = os.path.join(scratch, "c.snap"), os.path.join(scratch, "c.svm")
    expect_exit(run(tool, "--from", "criteo", sample, snap), 0, "1000 rows", "1048615 features", stream="stdout")
    expect_exit(run(tool, "--summary", snap), 0, "rows:      1000\n", "  label 0: 795\n", "  label 1: 205\n",
                stream="stdout")
    expect_exit(run(tool, "--from", "criteo", "--hash-bits", "10", sample, text), 0, "1063 features",
                stream="stdout")
    rows = parse_svmlight(text)
    check(len(rows) == 1000 and all(len(r[1]) <= 39 for r in rows), "a Criteo row has more than 39 features")

    # A bad line is an error naming the line; --skip-bad-lines drops it and says so.
    with open(sample) as f:
        lines = f.readlines()[:10]
    bad = os.path.join(scratch, "bad.tsv")
    with open(bad, "w") as f:
        f.writelines(lines[:6] + ["1\tnot-a-number\n"] + lines[6:])
    expect_exit(run(tool, "--from", "criteo", bad, snap), 2, "snap-convert: ", f"{bad}:7:")
    expect_exit(run(tool, "--from", "criteo", "--skip-bad-lines", bad, snap), 0, "10 rows",
                "skipped 1 bad line", f"{bad}:7:", stream="stdout")
    expect_exit(run(tool, "--hash-bits", "10", text, snap), 1, "--hash-bits needs --from criteo")
    expect_exit(run(tool, "--to", "criteo", text, snap), 1, "criteo")


def case_missing_file(tool, data_dir, scratch):
    missing = os.path.join(scratch, "no-such-file.svm")
    expect_exit(run(tool, missing, os.path.join(scratch, "out.snap")), 3, "snap-convert: ", missing)
    expect_exit(run(tool, "--summary", os.path.join(scratch, "no-such-file.snap")), 3, "no-such-file.snap")


def case_bad_usage(tool, data_dir, scratch):
    some = os.path.join(scratch, "x.svm")
    with open(some, "w") as f:
        f.write("1 1:1\n")
    expect_exit(run(tool), 1, "INPUT is required")
    expect_exit(run(tool, "--no-such-option", some, "y.snap"), 1, "--no-such-option")
    expect_exit(run(tool, "--from", "csv", some, "y.snap"), 1, "csv")
    expect_exit(run(tool, "--chunk-rows", "0", some, "y.snap"), 1, "--chunk-rows")
    expect_exit(run(tool, some), 1, "missing OUTPUT")
    expect_exit(run(tool, "--summary", some, "y.snap"), 1, "--summary takes no OUTPUT")
    expect_exit(run(tool, "--help"), 0, "Usage:", "--zero-based", stream="stdout")


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("case", choices=sorted(CASES))
    args = parser.parse_args()
    data_dir = os.environ.get("SNAPML_DATA_DIR") or args.data_dir
    with tempfile.TemporaryDirectory(prefix="snap-convert-test-") as scratch:
        CASES[args.case](args.tool, data_dir, scratch)
    print(f"{args.case}: ok")


if __name__ == "__main__":
    main()
