"""Data preparation for the Criteo benchmark: generate, convert, split, time the reader.

Every file lives under the work directory (default /tmp/snapml-criteo-bench), never
in the repository. The split is by row order: the test set is the last rows of one
generated stream, like the last day of the real log. `snap-criteo-gen --first-row`
writes exactly those rows, so the training and the test file are generated
separately instead of being cut out of one file.
"""
import os
import re
import subprocess
import time
from dataclasses import dataclass, field

from snapfile import read_snap

SAMPLE = "/work/shared/datasets/criteo/criteo_raw_sample1000.tsv"
GEN_LINE = re.compile(r"rows (\d+)\s+clicks (\d+) \(click rate ([\d.]+)\)\s+planted-model logloss ([\d.]+)"
                      r"\s+Bayes logloss \(expected\) ([\d.]+) \+- ([\d.]+)")


@dataclass
class Split:
    """One train/test split in every format a peer needs (paths; '' when not made)."""
    name: str
    train_rows: int
    test_rows: int
    train_snap: str
    test_snap: str
    train_svm: str = ""
    test_svm: str = ""
    train_vw: str = ""
    test_vw: str = ""
    train_tsv: str = ""
    generator: dict = field(default_factory=dict)  # "train"/"test" -> stats of snap-criteo-gen
    prep_seconds: dict = field(default_factory=dict)


def run(cmd, **kw):
    """Runs a command; raises with its stderr when it fails."""
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited {result.returncode}: {result.stderr.strip()}")
    return result


def timed(seconds, key, fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    seconds[key] = seconds.get(key, 0.0) + time.perf_counter() - start
    return out


def generate(tools, path, rows, first_row, seed, threads):
    result = run([tools.gen, "--rows", str(rows), "--first-row", str(first_row), "--seed", str(seed),
                  "--threads", str(threads), "--output", path])
    match = GEN_LINE.search(result.stderr)
    if not match:
        raise RuntimeError(f"unexpected snap-criteo-gen output: {result.stderr!r}")
    keys = ("rows", "clicks", "click_rate", "planted_logloss", "bayes_logloss", "logloss_se")
    return {k: (int(v) if k in ("rows", "clicks") else float(v)) for k, v in zip(keys, match.groups())}


def convert(tools, source, target, threads, hash_bits=20, criteo=True):
    cmd = [tools.convert, "--threads", str(threads), source, target]
    if criteo:
        cmd[1:1] = ["--from", "criteo", "--hash-bits", str(hash_bits)]
    return run(cmd).stdout


def svm_to_vw(source, target):
    """svmlight (labels 0/1) -> Vowpal Wabbit text (labels -1/1, one namespace 'f')."""
    with open(source) as src, open(target + ".tmp", "w") as dst:
        for line in src:
            label, _, rest = line.partition(" ")
            dst.write(("1 |f " if label == "1" else "-1 |f ") + rest)
    os.replace(target + ".tmp", target)


def prepare_generated(tools, work, rows, test_fraction, seed, threads, hash_bits):
    test_rows = max(1, int(round(rows * test_fraction)))
    train_rows = rows - test_rows
    p = lambda name: os.path.join(work, name)  # noqa: E731
    split = Split("generated", train_rows, test_rows, p("train.snap"), p("test.snap"), p("train.svm"),
                  p("test.svm"), p("train.vw"), p("test.vw"), p("train.tsv"))
    s = split.prep_seconds
    split.generator["train"] = timed(s, "generate", generate, tools, p("train.tsv"), train_rows, 0, seed, threads)
    split.generator["test"] = timed(s, "generate", generate, tools, p("test.tsv"), test_rows, train_rows, seed,
                                    threads)
    for part in ("train", "test"):
        timed(s, "tsv -> .snap", convert, tools, p(part + ".tsv"), p(part + ".snap"), threads, hash_bits)
        timed(s, ".snap -> svmlight", convert, tools, p(part + ".snap"), p(part + ".svm"), threads, hash_bits,
              False)
        timed(s, "svmlight -> vw", svm_to_vw, p(part + ".svm"), p(part + ".vw"))
    os.remove(p("test.tsv"))
    return split


def prepare_sample(tools, work, test_rows, hash_bits, threads):
    """The real 1,000-row sample, its last `test_rows` rows held out."""
    with open(SAMPLE) as f:
        lines = f.readlines()
    p = lambda name: os.path.join(work, "sample-" + name)  # noqa: E731
    split = Split("sample", len(lines) - test_rows, test_rows, p("train.snap"), p("test.snap"), p("train.svm"),
                  p("test.svm"), p("train.vw"), p("test.vw"))
    for part, rows in (("train", lines[:-test_rows]), ("test", lines[-test_rows:])):
        with open(p(part + ".tsv"), "w") as f:
            f.writelines(rows)
        convert(tools, p(part + ".tsv"), p(part + ".snap"), threads, hash_bits)
        convert(tools, p(part + ".snap"), p(part + ".svm"), threads, hash_bits, False)
        svm_to_vw(p(part + ".svm"), p(part + ".vw"))
    return split


def reader_throughput(tools, tsv, rows, thread_counts, hash_bits, repeats=2):
    """Rows/s of `snap-convert --from criteo --summary` (parse only; the best of `repeats`)."""
    out = {}
    for threads in thread_counts:
        best = float("inf")
        for _ in range(repeats):
            result = run([tools.convert, "--from", "criteo", "--hash-bits", str(hash_bits), "--threads",
                          str(threads), "--summary", tsv])
            best = min(best, float(re.search(r"load time: ([\d.e+-]+) s", result.stdout).group(1)))
        out[threads] = {"seconds": best, "rows_per_s": rows / best}
    return out


def test_labels(split):
    return read_snap(split.test_snap)[1]
