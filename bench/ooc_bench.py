#!/usr/bin/env python3
"""Out-of-core (streamed) against resident training: seconds per epoch on the same
generated .snap file, same machine and run; writes docs/benchmarks/out-of-core.md.

Each configuration trains a fixed number of epochs (--epochs; tol 1e-12 so that
none stops early) and reads the per-epoch seconds from snap-train --history (an
epoch's time includes the duality-gap pass after it, which a streamed source
reads from the file again). Resident: the file loaded into memory (no budget).
The two configurations alternate, --repeat times each.
Streamed: --max-memory one tenth of the file, so chunks are read with pread
through the ring (docs/out-of-core.md). The file is read once before timing, so
both run from the page cache; the streamed run's extra cost is the copy out of
the page cache, the bounds check of every chunk on every pass (its checksum on the
first), and the reader thread
sharing the cores. The best of --repeat runs is reported.

    cmake --build build-ooc -j2 --target snap-train snapml-synthetic-snap
    python3 bench/ooc_bench.py --build build-ooc [--threads 2] [--epochs 10]
"""

import argparse
import datetime
import os
import pathlib
import platform
import subprocess
import sys

from epoch_time import epoch_steps  # bench/, beside this script

REPO = pathlib.Path(__file__).resolve().parents[1]


def run(command):
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))} failed ({result.returncode}): {result.stderr}")
    return result


def peak_bytes(stderr):
    for line in stderr.splitlines():
        if line.startswith("peak resident memory:"):
            return int(line.split()[3])
    return 0


def seconds_per_epoch(history):
    steps = epoch_steps(history)
    return min(steps), sum(steps) / len(steps)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build-ooc")
    parser.add_argument("--work-dir", default="/tmp/snapml_ooc_bench")
    parser.add_argument("--rows", type=int, default=400000)
    parser.add_argument("--features", type=int, default=20000)
    parser.add_argument("--nnz-per-row", type=int, default=80)
    parser.add_argument("--chunk-rows", type=int, default=10000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--solver-type", type=int, default=1,
                        help="snap-train -s (default 1: squared hinge; 0 or 7: logistic regression)")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--output", default=str(REPO / "docs" / "benchmarks" / "out-of-core.md"))
    args = parser.parse_args()

    build = (REPO / args.build).resolve()
    train = build / "snapml" / "cli" / "snap-train"
    synthetic = build / "tests" / "cli" / "snapml-synthetic-snap"
    work = pathlib.Path(args.work_dir)
    work.mkdir(parents=True, exist_ok=True)
    data = work / f"ooc_{args.rows}x{args.features}_{args.nnz_per_row}_{args.chunk_rows}.snap"
    if not data.exists():
        run([synthetic, data, args.rows, args.features, args.nnz_per_row, args.chunk_rows, 7])
    size = data.stat().st_size
    with open(data, "rb") as f:  # into the page cache
        while f.read(1 << 24):
            pass
    budget = size // 10

    # --no-shrinking: a streamed epoch visits every row, so the resident one must too
    # for the two to do the same work (shrinking needs the rows in memory).
    common = ["-s", args.solver_type, "-n", args.threads, "-c", "0.01", "-e", "1e-12", "--max-iter", args.epochs, "-q", "--report-memory",
              "--no-shrinking"]
    configurations = {"resident": [], "streamed": ["--max-memory", budget]}
    results = {}
    # The two alternate, so that a change in the machine's load during the run
    # touches both rather than one.
    for repeat in range(args.repeat):
        for name, extra in configurations.items():
            best = results.get(name)
            history = work / f"{name}.csv"
            result = run([train, *common, *extra, "--history", history, data, work / f"{name}.model"])
            fastest, mean = seconds_per_epoch(history)
            entry = (mean, fastest, peak_bytes(result.stderr))
            print(f"{name} run {repeat + 1}: {mean:.3f} s/epoch mean, {fastest:.3f} fastest, "
                  f"peak {entry[2] / 2**20:.1f} MiB", flush=True)
            if best is None or entry[0] < best[0]:
                results[name] = entry

    ratio = results["streamed"][0] / results["resident"][0]
    command = "python3 bench/ooc_bench.py " + " ".join(sys.argv[1:])
    nnz = args.rows * args.nnz_per_row
    load = os.getloadavg()
    lines = [
        "# Out-of-core training: streamed against resident",
        "",
        "Written by `bench/ooc_bench.py`; see `docs/out-of-core.md` for what streams and why.",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        f"- load average before the report (1, 5, 15 min): {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}"
        " (other jobs shared the machine; timings are the best of the repeats)",
        f"- command: `{command}`",
        f"- data: generated (tests/cli/synthetic_snap.cpp), {args.rows:,} rows, {args.features:,} features, "
        f"{args.nnz_per_row} non-zeros a row ({nnz / 1e6:.0f}M), chunks of {args.chunk_rows:,} rows; "
        f"{size / 2**20:.0f} MiB on disk, in the page cache",
        f"- training: `-s {args.solver_type}`, C = 0.01, {args.threads} threads, {args.epochs} epochs "
        f"(tol 1e-12), `--no-shrinking` (a streamed epoch visits every row; so does the resident one here), "
        f"best of {args.repeat}; seconds per epoch from `--history` (epochs 2 to {args.epochs}, "
        "each with its duality-gap pass)",
        f"- streamed: `--max-memory {budget}` (one tenth of the file)",
        "",
        "| source | s / epoch (mean) | s / epoch (fastest) | ns / non-zero / epoch | peak resident memory |",
        "|---|---:|---:|---:|---:|",
    ]
    for name in configurations:
        mean, fastest, peak = results[name]
        lines.append(f"| {name} | {mean:.3f} | {fastest:.3f} | {mean / nnz * 1e9:.2f} | {peak / 2**20:.1f} MiB |")
    verdict = "within" if ratio <= 1.3 else "outside"
    lines += [
        "",
        f"Streamed / resident time per epoch: **{ratio:.3f}x** ({verdict} the 1.3x target). "
        "The memory column is the point of streaming: the resident run holds the file "
        "(loaded into memory), the streamed one a ring of chunks and the per-row state.",
        "",
        "Per-epoch time is not time to a tolerance: a streamed epoch visits the rows "
        "chunk by chunk, which takes more epochs to reach the same duality gap "
        "(docs/out-of-core.md, \"Convergence\").",
        "",
    ]
    pathlib.Path(args.output).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
