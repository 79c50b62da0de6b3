#!/usr/bin/env python3
"""svmlight parse throughput: snapml's reader against scikit-learn's.

Generates a synthetic svmlight file of at least 1 GB (and the same data in the
binary chunked format) with bench/parse_throughput, times our reader with 1 and
2 threads, the binary load, and scikit-learn's load_svmlight_file on the same
file, and writes the results to docs/benchmarks/parse.md.

    cmake --build build --target parse_throughput
    python3 bench/parse_bench.py --exe build/bench/parse_throughput

The generated files go to --work-dir (default /tmp/snapml-parse-bench), never
into the repository; they are reused by later runs.
"""

import argparse
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MIN_BYTES = 10**9


def run(command):
    print("$", shlex.join(command), flush=True)
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    print(done.stdout, end="", flush=True)
    return done.stdout


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], check=True, capture_output=True, text=True).stdout
        model = re.search(r"^Model name:\s*(.+)$", out, re.M)
        if model:
            return model.group(1).strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or "unknown"


def parse_results(text):
    results = []
    for line in text.splitlines():
        if line.startswith("RESULT "):
            fields = dict(item.split("=", 1) for item in line.split()[1:])
            results.append(fields)
    return results


def time_scikit_learn(path):
    from sklearn.datasets import load_svmlight_file

    cpu_start, wall_start = time.process_time(), time.perf_counter()
    x, y = load_svmlight_file(str(path))
    wall, cpu = time.perf_counter() - wall_start, time.process_time() - cpu_start
    return wall, cpu, x.shape[0], x.nnz


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exe", default=str(REPO / "build" / "bench" / "parse_throughput"),
                        help="the parse_throughput program (default: build/bench/parse_throughput)")
    parser.add_argument("--work-dir", default="/tmp/snapml-parse-bench", help="where the generated files go")
    parser.add_argument("--rows", type=int, default=1_500_000, help="rows of the generated file (about 1 GB)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of our readers (best is reported)")
    parser.add_argument("--output", default=str(REPO / "docs" / "benchmarks" / "parse.md"))
    args = parser.parse_args()

    exe = Path(args.exe)
    if not exe.exists():
        sys.exit(f"{exe} not found: build it with `cmake --build <build dir> --target parse_throughput` "
                 "and pass --exe <build dir>/bench/parse_throughput")
    work = Path(args.work_dir)
    work.mkdir(parents=True, exist_ok=True)
    text_file, binary_file = work / "synthetic.svm", work / "synthetic.snap"

    generate = [str(exe), "generate", "--out", str(text_file), "--binary", str(binary_file),
                "--rows", str(args.rows), "--features", "1000000", "--nnz", "40", "--seed", "1"]
    if not (text_file.exists() and binary_file.exists() and text_file.stat().st_size >= MIN_BYTES):
        run(generate)
    size = text_file.stat().st_size
    if size < MIN_BYTES:
        sys.exit(f"{text_file} has {size} bytes, fewer than {MIN_BYTES}: raise --rows")

    load_before = os.getloadavg()
    measure = [str(exe), "parse", str(text_file), "--threads", "1,2", "--repeat", str(args.repeat),
               "--binary", str(binary_file)]
    ours = parse_results(run(measure))
    print("scikit-learn load_svmlight_file ...", flush=True)
    sk_wall, sk_cpu, sk_rows, sk_nnz = time_scikit_learn(text_file)
    load_after = os.getloadavg()
    text = [r for r in ours if r["kind"] == "svmlight"]
    if any(int(r["rows"]) != sk_rows or int(r["nnz"]) != sk_nnz for r in text):
        sys.exit(f"row or non-zero counts differ from scikit-learn's ({sk_rows}, {sk_nnz}): {text}")

    megabytes = size / 1e6
    lines = [
        "# svmlight parse throughput",
        "",
        "Written by `bench/parse_bench.py`; rerun it to refresh this page.",
        "",
        f"- Machine: {cpu_model()}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}",
        f"- Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}",
        f"- Load average (1 min) before / after: {load_before[0]:.2f} / {load_after[0]:.2f} "
        "(the machine is shared; wall times of a busy machine are longer, CPU times are not)",
        f"- File: synthetic svmlight, {megabytes:.0f} MB, {sk_rows:,} rows, {sk_nnz:,} non-zeros, "
        "1,000,000 features, 40 non-zeros per row, values with up to 9 significant digits",
        f"- Generate: `{shlex.join(generate)}`",
        f"- Measure: `{shlex.join(measure)}` (best of {args.repeat} runs after an untimed one that "
        "fills the page cache), then scikit-learn's `load_svmlight_file(path)` once",
        "",
        "| reader | threads | wall s | MB/s (wall) | CPU s | MB/s per CPU-second | speed-up vs scikit-learn (wall) |",
        "|---|---|---|---|---|---|---|",
        f"| scikit-learn load_svmlight_file | 1 | {sk_wall:.2f} | {megabytes / sk_wall:.1f} | {sk_cpu:.2f} | "
        f"{megabytes / sk_cpu:.1f} | 1.0x |",
    ]
    for r in text:
        wall, cpu = float(r["seconds"]), float(r["cpu_seconds"])
        lines.append(f"| snapml read_svmlight | {r['threads']} | {wall:.2f} | {megabytes / wall:.1f} | {cpu:.2f} | "
                     f"{megabytes / cpu:.1f} | {sk_wall / wall:.1f}x |")

    one_thread = next(float(r["seconds"]) for r in text if r["threads"] == "1")
    lines += ["", "Binary chunked format (the same data written by `write_binary`; MB/s of the text file's "
              "size, so that the columns compare with the table above):", "",
              "| load | wall s | text-MB/s (wall) | CPU s | speed-up vs 1-thread text parse (wall) |",
              "|---|---|---|---|---|"]
    names = {"binary_load": "load_binary (owning copy, all chunks verified)",
             "binary_map": "MappedBinaryFile, verify_all (no copy)"}
    for r in ours:
        if r["kind"] in names:
            wall, cpu = float(r["seconds"]), float(r["cpu_seconds"])
            lines.append(f"| {names[r['kind']]} | {wall:.3f} | {megabytes / wall:.0f} | {cpu:.3f} | "
                         f"{one_thread / wall:.1f}x |")
    lines += ["", "Targets: single-thread text parse >= 10x scikit-learn and >= 200 MB/s; "
              "binary load >= 20x the text parse."]
    if max(load_before[0], load_after[0]) >= (os.cpu_count() or 1):
        lines += ["", f"Note: the load average reached the number of CPUs ({os.cpu_count()}) during this run, so "
                  "the second thread found no idle CPU: the 2-thread row measures sharing the machine with other "
                  "work, not the reader's scaling. The CPU-second column is the load-independent figure."]
    lines.append("")
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text("\n".join(lines))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
