#!/usr/bin/env python3
"""How two CPU threads share w in the dual solver: one thread, two sharing one w
(`--thread-updates shared`, PASSCoDe with hot columns) and two on replicas
(`--thread-updates replicas`, SySCD's copies merged as CoCoA+ workers), on the same
data and options, runs alternating so that a change in the machine's load touches
all three. Reports, per data set and configuration, the median over --repeat runs
of the fit's time to the tolerance (the solver's own clock: the last --history
record), its epochs and seconds per epoch, and the speed-ups over one thread.

    python3 bench/thread_updates_bench.py --build build --data a9a=../shared/datasets/a9a \\
        --data clicklog=train.snap:"-c 0.1" [--tol 1e-4] [--repeat 5] [--threads 2]

`--data NAME=PATH[:OPTIONS]`: extra snap-train options for that file (quoted).
"""

import argparse
import csv
import pathlib
import shlex
import statistics
import subprocess
import sys
import tempfile

CONFIGS = (("1 thread", 1, "auto"), ("shared", None, "shared"), ("replicas", None, "replicas"))


def run(snap_train, path, options, threads, updates, tol, workdir):
    history = workdir / "h.csv"
    cmd = [snap_train, "-q", "-s", "7", "-n", str(threads), "--thread-updates", updates, "-e", str(tol),
           "--history", str(history), *options, str(path), str(workdir / "m")]
    subprocess.run(cmd, check=True, capture_output=True)
    with open(history) as f:
        rows = list(csv.DictReader(f))
    last = rows[-1]
    epochs = int(last["epoch"])
    seconds = float(last["seconds"])
    per_epoch = (seconds - float(rows[0]["seconds"])) / (epochs - int(rows[0]["epoch"])) if len(rows) > 1 else seconds
    return seconds, epochs, per_epoch, float(last["relative_gap"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--data", action="append", required=True, help="NAME=PATH[:OPTIONS]")
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    snap_train = pathlib.Path(args.build) / "snapml" / "cli" / "snap-train"
    if not snap_train.exists():
        sys.exit(f"{snap_train} not found: build first")
    print(f"| data | configuration | time to gap {args.tol:g} (s) | epochs | s / epoch | speed-up over 1 thread |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = pathlib.Path(tmp)
        for spec in args.data:
            name, _, rest = spec.partition("=")
            path, _, options = rest.partition(":")
            options = shlex.split(options)
            results = {label: [] for label, _, _ in CONFIGS}
            for _ in range(args.repeat):
                for label, threads, updates in CONFIGS:
                    results[label].append(run(snap_train, path, options, threads or args.threads, updates, args.tol,
                                              workdir))
            base = statistics.median(r[0] for r in results["1 thread"])
            for label, _, _ in CONFIGS:
                rs = results[label]
                seconds = statistics.median(r[0] for r in rs)
                epochs = statistics.median(r[1] for r in rs)
                per_epoch = statistics.median(r[2] for r in rs)
                print(f"| {name} | {label} | {seconds:.3f} | {epochs:g} | {per_epoch:.4f} | {base / seconds:.2f}x |",
                      flush=True)


if __name__ == "__main__":
    main()
