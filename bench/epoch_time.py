#!/usr/bin/env python3
"""Seconds per epoch of snap-train on one data file, for one or more builds, the
builds' runs alternating so that a change in the machine's load touches all of
them. Prints the fastest and the median over --repeat runs of each build.

An epoch's time is read from --history (the gap pass included); the first epoch,
which carries the one-off passes, is left out. --ibm PYTHON adds IBM snapml's
SDCA (LogisticRegression(dual=True) in that interpreter, with -c and -n of --args)
as a peer in the same alternation: its epoch is the difference of a 4- and a
16-epoch fit over 12 (ibm_epoch_time.py).

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


IBM = "IBM snapml"


def ibm_seconds_per_epoch(python, data, snap_train_args):
    """IBM snapml's epoch with the cost (-c, default 1) and threads (-n, default 1)
    of the snap-train options."""
    options = shlex.split(snap_train_args)
    value = {flag: options[i + 1] for i, flag in enumerate(options[:-1]) if flag in ("-c", "-n")}
    script = pathlib.Path(__file__).with_name("ibm_epoch_time.py")
    command = [python, str(script), data, value.get("-c", "1"), value.get("-n", "1"), "4", "16"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}): {result.stderr}")
    return float(result.stdout.split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="a .snap or svmlight file")
    parser.add_argument("--builds", nargs="+", default=["build"], help="CMake build folders with snap-train")
    parser.add_argument("--args", default="-s 7 -c 0.1 -n 2 --max-iter 6 -e 1e-12",
                        help="snap-train options (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ibm", metavar="PYTHON", help="a Python with IBM snapml: time its epoch too")
    args = parser.parse_args()

    times = {build: [] for build in args.builds}
    if args.ibm:
        times[IBM] = []
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
            if args.ibm:
                times[IBM].append(ibm_seconds_per_epoch(args.ibm, args.data, args.args))
                print(f"run {repeat + 1} {IBM}: {times[IBM][-1]:.3f} s/epoch", flush=True)
    print(f"\nsnap-train {args.args} {args.data}")
    print("| build or peer | fastest s/epoch | median s/epoch |")
    print("|---|---:|---:|")
    for build, values in times.items():
        print(f"| {build} | {min(values):.3f} | {statistics.median(values):.3f} |")


if __name__ == "__main__":
    main()
