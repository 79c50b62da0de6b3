"""End-to-end tests of snap-convert: round trip, --summary, exit codes.

One ctest test per test function (tests/cli/CMakeLists.txt). A missing shared
dataset skips the test unless CI=true, where it fails.
"""
import os
import shutil
import struct

from conftest import check, dataset, expect_exit, snap


def convert(*args):
    return snap("convert", *args, timeout=120)


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


def test_round_trip(scratch):
    original = dataset("heart_scale")
    snap_file, text, snap_again = (os.path.join(scratch, n) for n in ("h.snap", "h.svm", "h2.snap"))
    for source, target in ((original, snap_file), (snap_file, text), (text, snap_again)):
        expect_exit(convert(source, target), 0, "270 rows", stream="stdout")
    check(parse_svmlight(text) == parse_svmlight(original), "svmlight -> binary -> svmlight changed the data")
    with open(snap_file, "rb") as a, open(snap_again, "rb") as b:
        check(a.read() == b.read(), "the binary files of the original and the round-tripped text differ")
    # Forced formats work whatever the extension says.
    forced = os.path.join(scratch, "h.bin")
    expect_exit(convert("--to", "binary", original, forced), 0, stream="stdout")
    expect_exit(convert("--from", "binary", "--summary", forced), 0, "rows:      270", stream="stdout")


def test_summary(scratch):
    original = dataset("heart_scale")
    snap_file = os.path.join(scratch, "h.snap")
    expect_exit(convert("--chunk-rows", "100", original, snap_file), 0, stream="stdout")
    for path, chunks, size in ((original, "1", "27670"), (snap_file, "3", str(os.path.getsize(snap_file)))):
        result = convert("--summary", path)
        expect_exit(result, 0, "rows:      270\n", "features:  13\n", "nnz:       3378\n",
                    "density:   0.962393\n", "labels:    2 distinct\n", "  label -1: 150\n",
                    "  label 1: 120\n", f"chunks:    {chunks}\n", f"bytes:     {size}\n", "load time: ",
                    stream="stdout")
    # The input's format is recognised by its magic as well as its name (format.h):
    # a binary file under another name is summarised and converted as binary.
    unnamed = os.path.join(scratch, "h.data")
    shutil.copyfile(snap_file, unnamed)
    expect_exit(convert("--summary", unnamed), 0, f"input:     {unnamed} (binary)\n", "rows:      270\n",
                "chunks:    3\n", stream="stdout")
    back = os.path.join(scratch, "back.svm")
    expect_exit(convert(unnamed, back), 0, "(binary) -> ", stream="stdout")
    expect_exit(convert("--summary", back), 0, "rows:      270\n", "nnz:       3378\n", stream="stdout")


def test_bad_input(scratch):
    bad = os.path.join(scratch, "bad.svm")
    with open(bad, "w") as f:
        f.write("+1 1:0.5 3:1\n-1 2:0.25\n+1 4:abc\n")
    result = convert(bad, os.path.join(scratch, "bad.snap"))
    expect_exit(result, 2, "snap-convert: ", f"{bad}:3:")
    check(not os.path.exists(os.path.join(scratch, "bad.snap")), "a failed conversion left an output file")

    # A corrupted binary file is bad input too, named with its chunk.
    good = os.path.join(scratch, "good.svm")
    with open(good, "w") as f:
        f.write("+1 1:0.5 3:1\n-1 2:0.25\n")
    snap_file = os.path.join(scratch, "good.snap")
    expect_exit(convert(good, snap_file), 0, stream="stdout")
    data = bytearray(open(snap_file, "rb").read())
    data[-3] ^= 0x40
    open(snap_file, "wb").write(bytes(data))
    expect_exit(convert("--summary", snap_file), 2, f"snap-convert: {snap_file}: chunk 0 checksum mismatch")


def test_criteo(scratch):
    sample = dataset(os.path.join("criteo", "criteo_raw_sample1000.tsv"))
    snap_file, text = os.path.join(scratch, "c.snap"), os.path.join(scratch, "c.svm")
    expect_exit(convert("--from", "criteo", sample, snap_file), 0, "1000 rows", "1048615 features", stream="stdout")
    expect_exit(convert("--summary", snap_file), 0, "rows:      1000\n", "  label 0: 795\n", "  label 1: 205\n",
                stream="stdout")
    expect_exit(convert("--from", "criteo", "--hash-bits", "10", sample, text), 0, "1063 features",
                stream="stdout")
    rows = parse_svmlight(text)
    check(len(rows) == 1000 and all(len(r[1]) <= 39 for r in rows), "a Criteo row has more than 39 features")

    # A bad line is an error naming the line; --skip-bad-lines drops it and says so.
    with open(sample) as f:
        lines = f.readlines()[:10]
    bad = os.path.join(scratch, "bad.tsv")
    with open(bad, "w") as f:
        f.writelines(lines[:6] + ["1\tnot-a-number\n"] + lines[6:])
    expect_exit(convert("--from", "criteo", bad, snap_file), 2, "snap-convert: ", f"{bad}:7:")
    expect_exit(convert("--from", "criteo", "--skip-bad-lines", bad, snap_file), 0, "10 rows",
                "skipped 1 bad line", f"{bad}:7:", stream="stdout")
    expect_exit(convert("--hash-bits", "10", text, snap_file), 1, "--hash-bits needs --from criteo")
    expect_exit(convert("--to", "criteo", text, snap_file), 1, "criteo")


def test_missing_file(scratch):
    missing = os.path.join(scratch, "no-such-file.svm")
    expect_exit(convert(missing, os.path.join(scratch, "out.snap")), 3, "snap-convert: ", missing)
    expect_exit(convert("--summary", os.path.join(scratch, "no-such-file.snap")), 3, "no-such-file.snap")


def test_bad_usage(scratch):
    some = os.path.join(scratch, "x.svm")
    with open(some, "w") as f:
        f.write("1 1:1\n")
    expect_exit(convert(), 1, "INPUT is required")
    expect_exit(convert("--no-such-option", some, "y.snap"), 1, "--no-such-option")
    expect_exit(convert("--from", "csv", some, "y.snap"), 1, "csv")
    expect_exit(convert("--chunk-rows", "0", some, "y.snap"), 1, "--chunk-rows")
    expect_exit(convert(some), 1, "missing OUTPUT")
    expect_exit(convert("--summary", some, "y.snap"), 1, "--summary takes no OUTPUT")
    expect_exit(convert("--help"), 0, "Usage:", "--zero-based", stream="stdout")
