#!/usr/bin/env python3
"""Seconds per epoch of snap-train on one data file, for one or more builds, the
builds' runs alternating so that a change in the machine's load touches all of
them. Prints the fastest and the median over --repeat runs of each build.

An epoch's time is read from --history (the gap passes included): the seconds
between the first certificate at or after epoch LOW of --span and the last one,
over the epochs between them, so that the one-off work of a fit (the first
passes, the first epoch) is left out and the certificates are charged as a long
fit pays them. --ibm PYTHON adds IBM snapml's SDCA (LogisticRegression(dual=True)
in that interpreter, with -c and -n of --args) as a peer in the same alternation,
over the same span: its epoch is the difference of a LOW- and a HIGH-epoch fit
over HIGH - LOW (ibm_epoch_time.py). snap-train's last certificate must be at
HIGH: --max-iter HIGH and a tolerance no run reaches.

    python3 bench/epoch_time.py --data train.snap --builds build /tmp/old-build \\
        --args "-s 7 -c 0.1 -n 2 --max-iter 16 -e 1e-12" --span 4 16
"""

import argparse
import csv
import pathlib
import shlex
import statistics
import subprocess
import sys
import tempfile


def seconds_per_epoch(history, low, high):
    """Seconds per epoch from a snap-train --history file: from its first record at
    or after epoch `low` to its last, which must be at `high`. A record is a
    certificate, taken after the epochs the certificate schedule names (a shrunk
    fit's may follow several)."""
    with open(history) as f:
        rows = [(int(row["epoch"]), float(row["seconds"])) for row in csv.DictReader(f)]
    start = next((r for r in rows if r[0] >= low), None)
    if start is None or rows[-1][0] != high or start[0] >= high:
        sys.exit(f"need a record at or after epoch {low} and the last at epoch {high} (records at epochs "
                 f"{[r[0] for r in rows]}): --max-iter {high} and a tolerance no run reaches")
    return (rows[-1][1] - start[1]) / (rows[-1][0] - start[0])


IBM = "IBM snapml"


def ibm_seconds_per_epoch(python, data, snap_train_args, low, high):
    """IBM snapml's epoch with the cost (-c, default 1) and threads (-n, default 1)
    of the snap-train options, from a `low`- and a `high`-epoch fit."""
    options = shlex.split(snap_train_args)
    value = {flag: options[i + 1] for i, flag in enumerate(options[:-1]) if flag in ("-c", "-n")}
    script = pathlib.Path(__file__).with_name("ibm_epoch_time.py")
    command = [python, str(script), data, value.get("-c", "1"), value.get("-n", "1"), str(low), str(high)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}): {result.stderr}")
    return float(result.stdout.split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="a .snap or svmlight file")
    parser.add_argument("--builds", nargs="+", default=["build"], help="CMake build folders with snap-train")
    parser.add_argument("--args", default="-s 7 -c 0.1 -n 2 --max-iter 16 -e 1e-12",
                        help="snap-train options (default: %(default)s)")
    parser.add_argument("--span", nargs=2, type=int, default=[4, 16], metavar=("LOW", "HIGH"),
                        help="epochs timed: from the certificate at LOW to the last, at HIGH = --max-iter "
                             "(snap-train), a LOW- and a HIGH-epoch fit (IBM snapml) (default 4 16)")
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
                times[build].append(seconds_per_epoch(history, *args.span))
                print(f"run {repeat + 1} {build}: {times[build][-1]:.3f} s/epoch", flush=True)
            if args.ibm:
                times[IBM].append(ibm_seconds_per_epoch(args.ibm, args.data, args.args, *args.span))
                print(f"run {repeat + 1} {IBM}: {times[IBM][-1]:.3f} s/epoch", flush=True)
    print(f"\nsnap-train {args.args} {args.data}, epochs {args.span[0]} to {args.span[1]}")
    print("| build or peer | fastest s/epoch | median s/epoch |")
    print("|---|---:|---:|")
    for build, values in times.items():
        print(f"| {build} | {min(values):.3f} | {statistics.median(values):.3f} |")


if __name__ == "__main__":
    main()
