#!/usr/bin/env python3
"""Seconds per epoch of snap-train on one data file, for one or more builds, the
builds' runs alternating so that a change in the machine's load touches all of
them. Prints the fastest and the median over --repeat runs of each build.

An epoch's time is read from --history (the gap pass included); the first epoch,
which carries the one-off passes, is left out.

    python3 bench/epoch_time.py --data train.snap --builds build /tmp/old-build \\
        --args "-s 7 -c 0.1 -n 2 --max-iter 6 -e 1e-12"
"""

import argparse
import csv
import pathlib
import shlex
import statistics
import subprocess
import sys
import tempfile


def epoch_steps(history):
    """Seconds per epoch between consecutive records of a snap-train --history file.

    The first record, which carries the one-off passes, only starts the count. A
    record is a certificate, which may follow several epochs (a shrunk fit's)."""
    with open(history) as f:
        rows = [(int(row["epoch"]), float(row["seconds"])) for row in csv.DictReader(f)]
    steps = [(t1 - t0) / (e1 - e0) for (e0, t0), (e1, t1) in zip(rows, rows[1:])]
    if not steps:
        sys.exit("need at least 2 records (--max-iter 2 or more, and a tolerance no run reaches)")
    return steps


def seconds_per_epoch(history):
    steps = epoch_steps(history)
    return sum(steps) / len(steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="a .snap or svmlight file")
    parser.add_argument("--builds", nargs="+", default=["build"], help="CMake build folders with snap-train")
    parser.add_argument("--args", default="-s 7 -c 0.1 -n 2 --max-iter 6 -e 1e-12",
                        help="snap-train options (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    times = {build: [] for build in args.builds}
    with tempfile.TemporaryDirectory() as scratch:
        history = pathlib.Path(scratch) / "history.csv"
        model = pathlib.Path(scratch) / "model"
        for repeat in range(args.repeat):
            for build in args.builds:
                train = pathlib.Path(build) / "snapml" / "cli" / "snap-train"
                command = [str(train), *shlex.split(args.args), "--history", str(history), args.data, str(model)]
                result = subprocess.run(command, capture_output=True, text=True)
                if result.returncode != 0:
                    sys.exit(f"{' '.join(command)} failed ({result.returncode}): {result.stderr}")
                times[build].append(seconds_per_epoch(history))
                print(f"run {repeat + 1} {build}: {times[build][-1]:.3f} s/epoch", flush=True)
    print(f"\nsnap-train {args.args} {args.data}")
    print("| build | fastest s/epoch | median s/epoch |")
    print("|---|---:|---:|")
    for build, values in times.items():
        print(f"| {build} | {min(values):.3f} | {statistics.median(values):.3f} |")


if __name__ == "__main__":
    main()
