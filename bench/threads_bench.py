#!/usr/bin/env python3
"""Seconds per SDCA epoch at 1 and 2 threads against the epoch's non-zeros: where a
second thread starts to pay (snapml/src/common/threads.cpp, default_threads). Prints a
Markdown table.

Each data set is a generated .snap file (tests/cli/synthetic_snap.cpp) of N rows,
--features features and --nnz-per-row non-zeros a row, plus a9a. snap-train
(-s 7, logistic SDCA, C = 1, tol 1e-12, --max-iter epochs, --no-shrinking) runs
at -n 1 and -n 2 alternately, --repeat times each; the per-epoch seconds come
from --history (first epoch left out) and the median over the runs is reported,
since the machine may be shared (the load average is printed).

    cmake --build build -j2 --target snap-train snap-convert snapml-synthetic-snap
    python3 bench/threads_bench.py --build build
"""

import argparse
import os
import pathlib
import statistics

from epoch_time import epoch_steps  # bench/, beside this script
from ooc_bench import run

REPO = pathlib.Path(__file__).resolve().parents[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--work-dir", default="/tmp/snapml_threads_bench")
    parser.add_argument("--a9a", default=str(REPO.parent / "shared" / "datasets" / "a9a"))
    parser.add_argument("--rows", default="2000,5000,10000,20000,50000,100000,400000")
    parser.add_argument("--features", type=int, default=2000)
    parser.add_argument("--nnz-per-row", type=int, default=14)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    build = (REPO / args.build).resolve()
    train = build / "snapml" / "cli" / "snap-train"
    work = pathlib.Path(args.work_dir)
    work.mkdir(parents=True, exist_ok=True)

    sets = []
    a9a = work / "a9a.snap"
    run([build / "snapml" / "cli" / "snap-convert", args.a9a, a9a])
    sets.append(("a9a (32,561 x 123)", a9a, 451592))
    for rows in (int(r) for r in args.rows.split(",")):
        data = work / f"gen_{rows}x{args.features}_{args.nnz_per_row}.snap"
        if not data.exists():
            run([build / "tests" / "cli" / "snapml-synthetic-snap", data, rows, args.features, args.nnz_per_row,
                 max(rows // 4, 1000), 7])
        sets.append((f"generated {rows:,} x {args.features:,}", data, rows * args.nnz_per_row))
    sets.sort(key=lambda s: s[2])

    load = os.getloadavg()
    lines = [f"load average at the start (1, 5, 15 min): {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}", "",
             "| data | nnz | 1 thread (ms / epoch) | 2 threads (ms / epoch) | 2 / 1 |", "|---|---:|---:|---:|---:|"]
    common = ["-s", 7, "-e", "1e-12", "--max-iter", args.epochs, "-q", "--no-shrinking"]
    for name, data, nnz in sets:
        times = {1: [], 2: []}
        for _ in range(args.repeat):
            for threads in (1, 2):
                history = work / "history.csv"
                run([train, *common, "-n", threads, "--history", history, data, work / "model"])
                times[threads].append(statistics.median(epoch_steps(history)))
        one, two = statistics.median(times[1]), statistics.median(times[2])
        lines.append(f"| {name} | {nnz:,} | {one * 1e3:.2f} | {two * 1e3:.2f} | {two / one:.2f} |")
        print(lines[-1], flush=True)
    load = os.getloadavg()
    lines += ["", f"load average at the end (1, 5, 15 min): {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}"]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
